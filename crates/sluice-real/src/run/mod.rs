//! `sluice run`: a scenario in real time, on real files, through the io_uring
//! engine (`sluice-uring`). The flows are the simulator's (`sluice-workload`),
//! the policy is built from `[scheduler]` as the simulator builds it, and the
//! report is the `sluice.sim/1` object with wall-clock times plus an
//! `engine` section (`sluice.run/1`).
//!
//! Each flow gets its own file, sized to the flow's file and filled with a
//! non-zero pattern before the clock starts, so reads are real reads. Every
//! flow thread is one scheduler flow, as in the simulator; a start-up run that
//! starts over gets fresh scheduler flows (the old ones are removed once
//! their last request has completed).

mod files;
mod requests;
mod verify;

use std::cmp::Reverse;
use std::fs::File;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use serde::Serialize;
use sluice::{Duration, Instant};
use sluice_runtime::report::{measure, Perf, SimReport};
use sluice_runtime::request_log::RequestLog;
use sluice_runtime::{Population, Scenario};
use sluice_uring::{Completion, Engine, EngineConfig, TargetOptions, Wait};
use sluice_workload::{FlowKind, Replay};

pub use self::files::device_regions;
use self::files::Files;
use self::files::{file_name, fill, fill_extents, free_bytes, gib, kernel_scheduler};
use self::requests::settle;
pub use self::requests::{complete, Book, Host, Io};
use self::verify::Verifier;
use crate::journal::{DeviceLock, Journal};
use crate::Refused;
pub use sluice_runtime::population::Agenda;

/// Schema tag of [`RunReport`].
pub const RUN_SCHEMA: &str = "sluice.run/1";

pub use crate::status::EXIT_INTERRUPTED;

/// The longest the run loop takes completions before it looks at the
/// clock and the signals again.
const MAX_BATCH: std::time::Duration = std::time::Duration::from_millis(1);

/// What `sluice run` was asked.
#[derive(Default)]
pub struct Options {
    /// The scenario file.
    pub scenario: PathBuf,
    /// `--dir`: put the flows' files in this existing folder (default: a fresh
    /// folder in the current directory).
    pub dir: Option<PathBuf>,
    /// `--device`: run on this block device instead of files, each flow on its
    /// own region, laid end to end from the start.
    pub device: Option<PathBuf>,
    /// `--allow-writes`: let writers write to `device` (destroying what those
    /// regions hold); without it a scenario with writers is refused.
    pub allow_writes: bool,
    /// `--queue-depth`: requests in flight at the target (default: the
    /// scenario's `[device] queue_depth`).
    pub queue_depth: Option<usize>,
    /// `--duration`: run this many seconds (default: the scenario's
    /// `duration_s`).
    pub duration_s: Option<f64>,
    /// `--verify`: stamp every written block and read them all back after the
    /// run.
    pub verify: bool,
    /// `--keep`: keep the flows' files afterwards.
    pub keep: bool,
    /// `--timeline MS`: each flow's throughput in bins of this many ms.
    pub timeline_ms: Option<u64>,
    /// `--log-requests`: keep every completed request for the report's
    /// [`RunReport::request_log`].
    pub log_requests: bool,
    /// Where to show progress (none: silent).
    pub progress: Option<std::sync::Arc<dyn ShowProgress>>,
}

/// The `sluice.run/1` object: `sluice.sim/1`'s fields plus `engine`.
#[derive(Serialize)]
pub struct RunReport {
    /// The `sluice.sim/1` fields, at the top level of the object.
    #[serde(flatten)]
    pub report: SimReport,
    /// How the I/O was done.
    pub engine: EngineReport,
    /// `--log-requests`: every request completed in the run (not part of
    /// the JSON; written as CSV).
    #[serde(skip)]
    pub request_log: Option<RequestLog>,
}

/// Where and how the run's I/O went.
#[derive(Serialize)]
pub struct EngineReport {
    /// The target: the block device, or the folder of the flows' files.
    pub target: String,
    /// Whether all the I/O bypassed the page cache (O_DIRECT).
    pub direct: bool,
    /// Requests in flight at the target: the engine's queue depth, or the
    /// device's `nr_requests` under `sluice kernel`.
    pub queue_depth: usize,
    /// The kernel I/O scheduler of the block device the target is or is on, if
    /// known (the one `sluice kernel` ran under).
    pub kernel_scheduler: Option<String>,
    /// `--verify`: blocks read back and checked.
    pub verified_blocks: Option<u64>,
    /// `--verify`: blocks whose content was not the last stamp written (lost,
    /// misplaced or torn writes).
    pub verify_errors: Option<u64>,
}

/// The run stopped on Ctrl-C or SIGTERM (its files are gone already).
#[derive(Debug)]
pub struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted; the run's files are removed")
    }
}

impl std::error::Error for Interrupted {}

/// A flag raised by SIGINT and SIGTERM until it is dropped.
pub fn interrupt_flag() -> Result<InterruptFlag> {
    let flag = Arc::new(AtomicBool::new(false));
    let mut ids = Vec::with_capacity(2);
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        ids.push(
            signal_hook::flag::register(sig, Arc::clone(&flag))
                .context("installing a signal handler")?,
        );
    }
    Ok(InterruptFlag { flag, ids })
}

/// A flag raised by SIGINT and SIGTERM while it lives: dropping it takes
/// its handlers away again, so a process that runs many scenarios (Python,
/// an embedder) does not collect one handler per run. signal-hook keeps
/// calling the handlers that were there before (Python's raises
/// KeyboardInterrupt once the run returns).
pub struct InterruptFlag {
    flag: Arc<AtomicBool>,
    ids: Vec<signal_hook::SigId>,
}

impl std::ops::Deref for InterruptFlag {
    type Target = AtomicBool;
    fn deref(&self) -> &AtomicBool {
        &self.flag
    }
}

impl Drop for InterruptFlag {
    fn drop(&mut self) {
        for id in self.ids.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}

/// Size each recorded start-up replay's data to its trace: it keeps the
/// trace's sectors, so its data spans from 0 to the trace's last sector
/// (the simulator wraps them onto its whole disk instead). Returns, per
/// flow, the byte extents the trace touches (None for other flows); block
/// trace flows' too, their files already sized to the trace.
pub fn recorded_extents(s: &mut Scenario) -> Vec<Option<Vec<(u64, u64)>>> {
    let mut extents = vec![None; s.flows.len()];
    for (f, ext) in s.flows.iter_mut().zip(&mut extents) {
        match &f.kind {
            FlowKind::Startup(st) if st.replay == Replay::Recorded => {
                let t = &st.trace;
                let end = t
                    .records
                    .iter()
                    .map(|r| r.sector + u64::from(r.sectors))
                    .max()
                    .unwrap_or(1);
                f.file_sectors = end.div_ceil(2048) * 2048;
                *ext = Some(
                    t.records
                        .iter()
                        .map(|r| (r.sector * 512, u64::from(r.sectors) * 512))
                        .collect(),
                );
            }
            // A block trace: its file spans what it reaches (the scenario
            // sized it so); only the extents it touches hold data.
            FlowKind::Trace(tr) => {
                *ext = Some(
                    tr.requests
                        .iter()
                        .map(|r| ((r.sector - f.file_start) * 512, u64::from(r.sectors) * 512))
                        .collect(),
                );
            }
            _ => {}
        }
    }
    extents
}

/// Why a scenario with writer `flow` is refused on block device `dev`.
pub fn device_write_refusal(dev: &Path, flow: &str) -> String {
    format!(
        "{}: flow '{flow}' writes, and writing to a block device destroys what it holds; \
         nothing was written. Add --allow-writes if that is what you want",
        dev.display()
    )
}

/// `--duration`: run this many seconds instead of the scenario's.
pub fn set_duration(s: &mut Scenario, d: f64) -> Result<()> {
    if !d.is_finite() || d <= 0.0 || d > 1e7 {
        bail!("--duration must be a positive number of seconds (got {d})");
    }
    s.duration = Duration::from_secs_f64(d);
    if s.warmup >= s.duration {
        bail!(
            "--duration {d}: must be longer than the scenario's warmup_s ({})",
            s.warmup.as_secs_f64()
        );
    }
    Ok(())
}

/// Run `opts.scenario` for real and report. Ctrl-C or SIGTERM stops the
/// run, removes its files and returns [`Interrupted`].
pub fn run(opts: &Options) -> Result<RunReport> {
    check_target(opts)?;
    run_scenario(Scenario::load_real(&opts.scenario)?, opts)
}

/// Where the I/O goes is checked first: a wrong folder or device is the
/// user's first question.
fn check_target(opts: &Options) -> Result<()> {
    if let Some(d) = &opts.dir {
        if !d.is_dir() {
            bail!("--dir {}: no such directory", d.display());
        }
    }
    if let Some(d) = &opts.device {
        let meta = std::fs::metadata(d).with_context(|| format!("--device {}", d.display()))?;
        if !meta.file_type().is_block_device() {
            return Err(Refused(format!(
                "--device {}: not a block device (for files in a folder use --dir)",
                d.display()
            ))
            .into());
        }
    }
    Ok(())
}

/// Run the loaded scenario `s` as [`run`] runs `opts.scenario` (which is
/// then only named in messages).
pub fn run_scenario(mut s: Scenario, opts: &Options) -> Result<RunReport> {
    check_target(opts)?;
    if let Some(d) = opts.duration_s {
        set_duration(&mut s, d)?;
    }
    if let Some(ms) = opts.timeline_ms {
        sluice_runtime::overrides::check_timeline(&s, Duration::from_millis(ms))
            .with_context(|| format!("--timeline {ms}"))?;
    }
    let queue_depth = opts.queue_depth.unwrap_or(s.device.queue_depth);
    if queue_depth == 0 || queue_depth > 4096 {
        bail!("--queue-depth must be 1..=4096 (got {queue_depth})");
    }
    let extents = recorded_extents(&mut s);
    let writer = s
        .flows
        .iter()
        .find(|f| f.may_write())
        .map(|f| f.name.clone());
    if let (Some(dev), Some(w), false) = (&opts.device, &writer, opts.allow_writes) {
        return Err(Refused(device_write_refusal(dev, w)).into());
    }
    if opts.verify && writer.is_none() {
        eprintln!("warning: --verify: no flow writes, there is nothing to verify");
    }
    // The policy first: a bad [scheduler] fails before any file is made.
    let policy = s.policy()?;
    let stop = interrupt_flag()?;
    // Written down before anything changes; held until the run is undone.
    let journal = Arc::new(Journal::begin("run")?);
    let _device = opts.device.as_deref().map(DeviceLock::take).transpose()?;

    let config = EngineConfig {
        merge_sectors: s.device.merge_sectors(),
        ..EngineConfig::with_queue_depth(queue_depth)
    };
    let mut engine = Engine::new(policy, config)?;
    let sizes: Vec<u64> = s.flows.iter().map(|f| f.file_sectors * 512).collect();
    let mut direct = true;
    let (files, targets, bases, place) = match &opts.device {
        Some(dev) => {
            let to = TargetOptions {
                write: writer.is_some(),
                allow_device_writes: opts.allow_writes,
                ..TargetOptions::read_only()
            };
            let t = engine.open_target(dev, &to)?;
            let info = engine.target(t).expect("just opened");
            direct = info.direct;
            if let Some(why) = &info.direct_fallback {
                eprintln!("warning: {}: {why}", dev.display());
            }
            let bases = device_regions(&sizes, dev, info.size)?;
            (None, vec![t; sizes.len()], bases, dev.clone())
        }
        None => {
            let mut files = Files::new(opts.dir.as_deref(), opts.keep, &journal)?;
            let dir = files.dir().to_path_buf();
            let total: u64 = sizes
                .iter()
                .zip(&extents)
                .map(|(&size, e)| e.as_ref().map_or(size, |e| e.iter().map(|x| x.1).sum()))
                .sum();
            if let Some(free) = free_bytes(&dir) {
                if total > free {
                    bail!(
                        "the flows' files need {:.2} GiB in {}, only {:.2} GiB are free: lower file_gib or count",
                        gib(total),
                        dir.display(),
                        gib(free)
                    );
                }
            }
            let mut targets = Vec::with_capacity(sizes.len());
            let mut warned = false;
            for (i, f) in s.flows.iter().enumerate() {
                let (path, file) = files.create(&file_name(i, &f.name))?;
                let filled = match &extents[i] {
                    Some(ext) => fill_extents(file, &path, i, sizes[i], ext),
                    None => fill(file, &path, i, sizes[i], &stop),
                };
                if let Err(e) = filled {
                    if stop.load(Ordering::Relaxed) {
                        drop(files);
                        return Err(Interrupted.into());
                    }
                    return Err(e);
                }
                let t = engine.open_target(&path, &TargetOptions::read_write())?;
                let info = engine.target(t).expect("just opened");
                direct &= info.direct;
                if let (Some(why), false) = (&info.direct_fallback, warned) {
                    eprintln!("warning: {}: {why}", dir.display());
                    warned = true;
                }
                targets.push(t);
            }
            (Some(files), targets, vec![0; sizes.len()], dir)
        }
    };
    let mut book = Book::new(targets, bases, opts.verify.then(Verifier::default));
    book.log = opts.log_requests.then(Vec::new);
    book.timeline = opts.timeline_ms.map(|ms| {
        sluice_runtime::timeline::Bins::new(sluice::Duration::from_millis(ms), s.flows.len())
    });
    let mut pop = Population::new(
        &s,
        &mut Host {
            io: &mut engine,
            book: &mut book,
        },
    )?;

    // The clock starts: run time is engine time since t0.
    let t0 = engine.now();
    let rel = |t: Instant| Instant::from_nanos(t.saturating_duration_since(t0).as_nanos());
    let end = Instant::ZERO + s.duration;
    let warmup = Instant::ZERO + s.warmup;
    let mut agenda = Agenda::new();
    for (i, f) in s.flows.iter().enumerate() {
        agenda.push(Reverse((f.start, i)));
    }
    let wall = std::time::Instant::now();
    let mut progress = Progress::new(opts.progress.as_deref(), s.duration);
    let mut tally = Tally::default();
    let stop_at = loop {
        let now = rel(engine.now());
        if now >= end || pop.finite_done(s.stop_after_finite) || stop.load(Ordering::Relaxed) {
            break now;
        }
        progress.show(now);
        let mut host = Host {
            io: &mut engine,
            book: &mut book,
        };
        pop.wake_due(&mut host, &mut agenda, now)?;
        let next = agenda.peek().map_or(end, |r| r.0 .0.min(end));
        // Wake at least every 200 ms: the progress line and Ctrl-C.
        let wait = next
            .saturating_duration_since(now)
            .min(Duration::from_millis(200));
        engine.poll(Wait::For(wait.into()))?;
        let batch = std::time::Instant::now();
        while let Some(c) = engine.next_completion() {
            tally.count(&c);
            let mut host = Host {
                io: &mut engine,
                book: &mut book,
            };
            complete(&mut pop, &mut host, &mut agenda, c, rel, warmup)?;
            // Hand what the completion let through to the kernel now, as
            // fio does, rather than after the whole batch: the device keeps
            // its queue full instead of draining in lockstep (measured:
            // 4 KiB random reads at depth 32 went from 0.68 to about 1.0
            // of fio's IOPS).
            engine.poll(Wait::No)?;
            // A fast target completes requests as fast as they are handed
            // over, and this loop would never end: back to the clock and
            // the signals after at most a millisecond of completions.
            if batch.elapsed() >= MAX_BATCH {
                break;
            }
        }
    };
    progress.clear();
    let wall_s = wall.elapsed().as_secs_f64();
    let interrupted = stop.load(Ordering::Relaxed);
    tally.warn();
    // Before the files (and sluice's folder) go.
    let scheduler_of_target = kernel_scheduler(&place);
    let report = report(
        &s,
        &pop,
        &book,
        Origin::engine(&engine),
        stop_at,
        tally.completed,
        wall_s,
    );

    // Verification: let every write finish, then read back what was written.
    let mut verified = None;
    if let (Some(mut v), false) = (book.verifier.take(), interrupted) {
        for c in engine.run_until_idle()? {
            settle(&mut v, &book.pending, &c, rel);
        }
        drop(engine);
        let paths: Vec<PathBuf> = match &files {
            Some(f) => f.paths.clone(),
            None => vec![place.clone(); pop.flows.len()],
        };
        let bases = book.bases.clone();
        let out = v
            .check(|flow| Ok((File::open(&paths[flow as usize])?, bases[flow as usize])))
            .context("reading back the written blocks")?;
        verified = Some(out);
    } else {
        // The kernel finishes what it holds before the files go.
        drop(engine);
    }
    drop(files);
    if interrupted {
        return Err(Interrupted.into());
    }
    let engine_report = EngineReport {
        target: place.display().to_string(),
        direct,
        queue_depth,
        kernel_scheduler: scheduler_of_target,
        verified_blocks: verified.map(|o| o.verified),
        verify_errors: verified.map(|o| o.errors),
    };
    Ok(RunReport {
        report,
        engine: engine_report,
        request_log: book.log.take().map(|records| RequestLog {
            names: s.flows.iter().map(|f| f.name.clone()).collect(),
            records,
        }),
    })
}

/// Requests completed and failed over the run.
#[derive(Default)]
pub struct Tally {
    /// Requests completed, failed ones included.
    pub completed: u64,
    errors: u64,
    first_error: Option<String>,
}

impl Tally {
    /// Count completion `c` (and its error, if any).
    pub fn count(&mut self, c: &Completion) {
        self.completed += 1;
        if let Err(e) = &c.result {
            self.errors += 1;
            self.first_error.get_or_insert_with(|| e.to_string());
        }
    }

    /// Warn on stderr if any request failed: how many, and the first error.
    pub fn warn(&self) {
        if self.errors > 0 {
            eprintln!(
                "warning: {} requests failed ({})",
                self.errors,
                self.first_error.as_deref().unwrap_or_default()
            );
        }
    }
}

/// How a long run shows how far it is (the CLI draws a bar on a terminal;
/// a library caller may show nothing): told the run's length, then the run
/// time reached now and then, then that it is over. Milliseconds.
pub trait ShowProgress: Send + Sync {
    /// The run will last `total_ms` milliseconds.
    fn start(&self, total_ms: u64);
    /// The run has reached `done_ms` milliseconds.
    fn set(&self, done_ms: u64);
    /// The run is over.
    fn finish(&self);
}

/// A run's progress, shown through the caller's [`ShowProgress`] if any.
pub struct Progress<'a> {
    show: Option<&'a dyn ShowProgress>,
}

impl<'a> Progress<'a> {
    /// Show the run's start, `total` long, on `show` if any.
    pub fn new(show: Option<&'a dyn ShowProgress>, total: Duration) -> Self {
        if let Some(s) = show {
            s.start(total.as_nanos() / 1_000_000);
        }
        Progress { show }
    }

    /// Run time has reached `now`.
    pub fn show(&mut self, now: Instant) {
        if let Some(s) = self.show {
            s.set(now.as_nanos() / 1_000_000);
        }
    }

    /// Show that the run is over.
    pub fn clear(&self) {
        if let Some(s) = self.show {
            s.finish();
        }
    }
}

/// What ran the requests, for the report.
pub struct Origin {
    /// The scheduling policy's name (the kernel's scheduler for `sluice kernel`).
    pub scheduler: String,
    /// What ran the I/O: `io_uring`, or `kernel`.
    pub device: String,
    /// The counters the policy reports (none for `sluice kernel`).
    pub policy_stats: Vec<(String, f64)>,
    /// The engine's `io_uring_enter` calls (or the kernel run's requests).
    pub events: u64,
}

impl Origin {
    fn engine(engine: &Engine) -> Self {
        Origin {
            scheduler: engine.policy().name().to_string(),
            device: "io_uring".to_string(),
            policy_stats: engine
                .policy()
                .stats()
                .entries()
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            events: engine.stats().enters,
        }
    }
}

/// The `sluice.sim/1` part, as the simulator's recorder builds it.
pub fn report(
    s: &Scenario,
    pop: &Population,
    book: &Book,
    origin: Origin,
    end: Instant,
    completed_total: u64,
    wall_s: f64,
) -> SimReport {
    let warmup = Instant::ZERO + s.warmup;
    let oldest = book.oldest_pending(pop.flows.len());
    let (aggregate, flows) = measure(&pop.flows, &oldest, warmup, end);
    SimReport {
        schema: RUN_SCHEMA,
        scenario: s.name.clone(),
        scheduler: origin.scheduler,
        device: origin.device,
        seed: s.seed,
        sim_time_s: end.as_secs_f64(),
        device_requests: None,
        measured_from_s: warmup.as_secs_f64(),
        aggregate,
        flows,
        policy_stats: origin.policy_stats.into_iter().collect(),
        timeline_mb_s: None,
        timeline: book
            .timeline
            .as_ref()
            .map(|b| b.report(pop.flows.iter().map(|f| f.spec.name.as_str()), end)),
        perf: Perf {
            events: origin.events,
            wall_s,
            requests_per_wall_s: if wall_s > 0.0 {
                completed_total as f64 / wall_s
            } else {
                0.0
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_interrupt_flag_no_longer_hears_signals() {
        let old = interrupt_flag().unwrap();
        let old_flag = Arc::clone(&old.flag);
        drop(old);
        let new = interrupt_flag().unwrap();
        signal_hook::low_level::raise(signal_hook::consts::SIGINT).unwrap();
        assert!(new.load(Ordering::SeqCst), "the live flag is raised");
        assert!(
            !old_flag.load(Ordering::SeqCst),
            "a dropped flag's handler is gone"
        );
    }
}
