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

pub(crate) mod files;

use std::cmp::Reverse;
use std::fs::File;
use std::os::unix::fs::FileTypeExt;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use sluice::{Duration, Instant};
use sluice_runtime::population::Agenda;
use sluice_runtime::request_log::RequestLog;
use sluice_runtime::{Population, Scenario};
use sluice_uring::{Engine, EngineConfig, TargetOptions, Wait};

use self::files::Files;
use self::files::{file_name, fill, fill_extents, free_bytes, kernel_scheduler};
use crate::host::{
    complete, device_regions, device_write_refusal, gib, interrupt_flag, recorded_extents, report,
    set_duration, settle, Book, Host, Origin, Progress, Tally, Verifier,
};
use crate::journal::{DeviceLock, Journal};
use crate::Refused;

pub use crate::host::{EngineReport, Interrupted, RunReport, ShowProgress, RUN_SCHEMA};
pub use crate::status::EXIT_INTERRUPTED;

/// The longest the run loop takes completions before it looks at the
/// clock and the signals again.
const MAX_BATCH: std::time::Duration = std::time::Duration::from_millis(1);

/// What a run is asked. Errors and warnings name these fields in
/// backquotes (`` `queue_depth` ``), so a front end can show its own names.
#[derive(Default)]
pub struct Options {
    /// The scenario file.
    pub scenario: PathBuf,
    /// Put the flows' files in this existing folder (default: a fresh
    /// folder in the current directory).
    pub dir: Option<PathBuf>,
    /// Run on this block device instead of files, each flow on its
    /// own region, laid end to end from the start.
    pub device: Option<PathBuf>,
    /// Let writers write to `device` (destroying what those
    /// regions hold); without it a scenario with writers is refused.
    pub allow_writes: bool,
    /// Requests in flight at the target (default: the
    /// scenario's `[device] queue_depth`).
    pub queue_depth: Option<usize>,
    /// Run this many seconds (default: the scenario's
    /// `duration_s`).
    pub duration_s: Option<f64>,
    /// Stamp every written block and read them all back after the
    /// run.
    pub verify: bool,
    /// Keep the flows' files afterwards.
    pub keep: bool,
    /// Each flow's throughput in bins of this many ms.
    pub timeline_ms: Option<u64>,
    /// Keep every completed request for the report's
    /// [`RunReport::request_log`].
    pub log_requests: bool,
    /// Where to show progress (none: silent).
    pub progress: Option<std::sync::Arc<dyn ShowProgress>>,
}

/// Run `opts.scenario` for real and report. Ctrl-C or SIGTERM stops the
/// run, removes its files and returns [`Interrupted`].
pub fn run(opts: &Options) -> Result<RunReport> {
    check_target(opts)?;
    run_scenario(Scenario::load_real(&opts.scenario)?, opts)
}

/// Where the I/O goes is checked first: a wrong folder or device is the
/// user's first question (a folder sluice may not write in is a refusal).
pub(crate) fn check_target(opts: &Options) -> Result<()> {
    if let Some(d) = &opts.dir {
        if !d.is_dir() {
            bail!("`dir` {}: no such directory", d.display());
        }
        files::check_writable(d)?;
    }
    if let Some(d) = &opts.device {
        let meta = std::fs::metadata(d).with_context(|| format!("`device` {}", d.display()))?;
        if !meta.file_type().is_block_device() {
            return Err(Refused(format!(
                "`device` {}: not a block device (for files in a folder use `dir`)",
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
            .with_context(|| format!("`timeline_ms` {ms}"))?;
    }
    let queue_depth = opts.queue_depth.unwrap_or(s.device.queue_depth);
    if queue_depth == 0 || queue_depth > 4096 {
        bail!("`queue_depth` must be 1..=4096 (got {queue_depth})");
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
    let mut warnings = Vec::new();
    if opts.verify && writer.is_none() {
        warnings.push("`verify`: no flow writes, there is nothing to verify".to_string());
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
                journal.warn(format!("{}: {why}", dev.display()));
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
                        warnings.extend(journal.take_warnings());
                        return Err(Interrupted { warnings }.into());
                    }
                    return Err(e);
                }
                let t = engine.open_target(&path, &TargetOptions::read_write())?;
                let info = engine.target(t).expect("just opened");
                direct &= info.direct;
                if let (Some(why), false) = (&info.direct_fallback, warned) {
                    journal.warn(format!("{}: {why}", dir.display()));
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
    if let Some(w) = tally.warning() {
        journal.warn(w);
    }
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
    warnings.extend(journal.take_warnings());
    if interrupted {
        return Err(Interrupted { warnings }.into());
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
        warnings,
    })
}
