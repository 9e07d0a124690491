//! `sluice kernel`: a scenario's flows against the kernel's own I/O
//! scheduler on a block device. Each flow thread's requests are synchronous
//! O_DIRECT calls made by OS threads of its own ([`threads`]), so the
//! kernel sees distinct tasks; under bfq each flow thread's tasks sit in a
//! blkio cgroup with its weight ([`cgroup`]). The scheduler is set for the
//! run and the old one restored after ([`sysfs`]), also on an error or
//! Ctrl-C. Where a permission or a kernel feature is missing, nothing is
//! changed and the command exits with status 2 ([`Refused`]).
//!
//! The workload, the measurements and the report are `sluice run`'s: only
//! the way requests reach the device differs.

pub mod blocktrace;
mod cgroup;
mod sysfs;
mod threads;

use std::cmp::Reverse;
use std::fs::OpenOptions;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex};

use anyhow::{bail, Context, Result};
use sluice::{Duration, Instant};
use sluice_runtime::Scenario;
use sluice_uring::{Completion, TargetId};

use sluice_runtime::population::Agenda;
use sluice_runtime::request_log::RequestLog;
use sluice_runtime::Population;

use crate::host::{
    complete, device_regions, device_write_refusal, interrupt_flag, recorded_extents, report,
    set_duration, Book, EngineReport, Host, InterruptFlag, Interrupted, Io, Origin, Progress,
    RunReport, ShowProgress, Tally,
};
use crate::journal::{DeviceLock, Journal};
use blocktrace::{AppRequest, BlockTrace, Traced};
use cgroup::Blkio;
pub use sysfs::{queue_dir, SchedulerGuard, SettingsGuard, Tunable};
use threads::{Cell, Sink, ThreadIo};

use crate::Refused;

/// What `sluice kernel` was asked.
#[derive(Default)]
pub struct Options {
    /// The scenario file.
    pub scenario: PathBuf,
    /// The block device (whole disk, partition or loop device).
    pub device: PathBuf,
    /// The kernel scheduler to run under (set for the run, restored after).
    pub kernel_scheduler: String,
    /// Let writers write to the device (destroys what their regions hold);
    /// without it a scenario with writers is refused.
    pub allow_writes: bool,
    /// Run this many seconds (default: the scenario's `duration_s`).
    pub duration_s: Option<f64>,
    /// Where to show progress (none: silent).
    pub progress: Option<Arc<dyn ShowProgress>>,
    /// The scheduler's sysfs tunables for the run
    /// (restored after, before the scheduler is).
    pub tunables: Vec<Tunable>,
    /// Keep every request, with the kernel's dispatch and
    /// completion times from the block layer's tracepoints.
    pub log_requests: bool,
}

/// The scenario keys a kernel run cannot honour (groups, limits,
/// reservations), named for a warning.
fn sluice_only_keys(s: &Scenario) -> Option<String> {
    let mut keys = Vec::new();
    if !s.groups.is_empty() {
        keys.push("[[group]]");
    }
    if s.flows
        .iter()
        .any(|f| f.qos.limit_iops.is_some() || f.qos.limit_mb_s.is_some())
    {
        keys.push("limits");
    }
    if s.flows.iter().any(|f| f.qos.reservation_iops.is_some()) {
        keys.push("reservations");
    }
    (!keys.is_empty()).then(|| keys.join(", "))
}

/// Run the scenario under the kernel's scheduler and report.
pub fn kernel(opts: &Options) -> Result<RunReport> {
    // Everything is checked before anything changes.
    let queue = sysfs::queue_dir(&opts.device)?;
    let mut s = Scenario::load_real(&opts.scenario)?;
    if let Some(d) = opts.duration_s {
        set_duration(&mut s, d)?;
    }
    // A recorded start-up reads at its trace's sectors, as `run` does.
    recorded_extents(&mut s);
    if let (Some(w), false) = (s.flows.iter().find(|f| f.may_write()), opts.allow_writes) {
        return Err(Refused(device_write_refusal(&opts.device, &w.name)).into());
    }
    let writes = s.flows.iter().any(|f| f.may_write());
    let mut warnings = Vec::new();
    if let Some(what) = sluice_only_keys(&s) {
        warnings.push(format!(
            "{what}: sluice's own keys; the kernel's scheduler sees only the flows' weights, so this run ignores them"
        ));
    }
    // Written down before anything changes; held until the run is undone.
    let journal = Arc::new(Journal::begin("kernel")?);
    let _device = DeviceLock::take(&opts.device)?;
    let blkio = if opts.kernel_scheduler == "bfq" {
        Some(Blkio::find(&journal)?)
    } else {
        None
    };
    let file = OpenOptions::new()
        .read(true)
        .write(writes)
        .custom_flags(libc::O_DIRECT | libc::O_CLOEXEC)
        .open(&opts.device)
        .map_err(|e| Refused(format!("cannot open {}: {e}", opts.device.display())))?;
    let size = {
        use std::io::{Seek, SeekFrom};
        let mut f = &file;
        f.seek(SeekFrom::End(0))
            .with_context(|| format!("size of {}", opts.device.display()))?
    };
    let sizes: Vec<u64> = s.flows.iter().map(|f| f.file_sectors * 512).collect();
    let bases = device_regions(&sizes, &opts.device, size)?;
    let stop = interrupt_flag()?;

    // From here the device's scheduler is ours until the guard drops.
    let guard = SchedulerGuard::set(&queue, &opts.kernel_scheduler, &journal)?;
    let tunables =
        SettingsGuard::tunables(&queue, &opts.kernel_scheduler, &opts.tunables, &journal)?;
    let trace = if opts.log_requests {
        Some(BlockTrace::start(&opts.device, &journal)?)
    } else {
        None
    };
    let pop = Population::without_threads(&s);
    let mut book = Book::new(vec![TargetId(0); s.flows.len()], bases, None);
    book.log = opts.log_requests.then(Vec::new);
    let warmup = Instant::ZERO + s.warmup;
    let cell: Arc<Cell<Shared>> = Arc::new_cyclic(|weak| {
        let mut io = ThreadIo::new(file, blkio);
        io.connect(weak.clone());
        let shared = Shared {
            pop,
            book,
            io,
            agenda: Agenda::new(),
            tally: Tally::default(),
            t0: Instant::ZERO,
            warmup,
            stopped: false,
            error: None,
            journal: Arc::clone(&journal),
        };
        (Mutex::new(shared), Condvar::new())
    });
    let wall = std::time::Instant::now();
    let mut progress = Progress::new(opts.progress.as_deref(), s.duration);
    let ran = drive(&s, &cell, &stop, &mut progress);
    progress.clear();
    // Whatever happened (threads that would not start, a failed request),
    // the workers finish what they hold (not measured) and stop; their
    // cgroups go, then the old scheduler comes back.
    let (lock, _) = &*cell;
    let mut st = lock.lock().unwrap_or_else(|p| p.into_inner());
    st.stopped = true;
    let workers = st.io.take_workers();
    drop(st);
    workers.join();
    let mut st = lock
        .lock()
        .map_err(|_| anyhow::anyhow!("a worker thread panicked"))?;
    let traced = trace.map(BlockTrace::finish);
    drop(tunables);
    drop(guard);
    let stop_at = ran?;
    if let Some(traced) = traced {
        let traced = traced?;
        let Shared {
            book, io, t0, pop, ..
        } = &mut *st;
        if let Some(w) = dispatch_times(book, pop, io, *t0, &traced) {
            journal.warn(w);
        }
    }
    if let Some(e) = st.error.take() {
        return Err(e);
    }
    let wall_s = wall.elapsed().as_secs_f64();
    if let Some(w) = st.tally.warning() {
        journal.warn(w);
    }
    let origin = Origin {
        scheduler: opts.kernel_scheduler.clone(),
        device: "kernel".to_string(),
        policy_stats: Vec::new(),
        events: st.io.completed,
    };
    let report = report(
        &s,
        &st.pop,
        &st.book,
        origin,
        stop_at,
        st.tally.completed,
        wall_s,
    );
    warnings.extend(journal.take_warnings());
    if stop.load(Ordering::Relaxed) {
        return Err(Interrupted { warnings }.into());
    }
    let nr_requests = std::fs::read_to_string(queue.join("nr_requests"))
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0);
    Ok(RunReport {
        report,
        engine: EngineReport {
            target: opts.device.display().to_string(),
            direct: true,
            queue_depth: nr_requests,
            kernel_scheduler: Some(opts.kernel_scheduler.clone()),
            verified_blocks: None,
            verify_errors: None,
        },
        request_log: st.book.log.take().map(|records| RequestLog {
            names: s.flows.iter().map(|f| f.name.clone()).collect(),
            records,
        }),
        warnings,
    })
}

/// The kernel's own dispatch and completion times for the logged
/// requests, from the block layer's trace: each request's first sector is
/// found among the device requests issued while its syscall ran. Where
/// none is (the trace lost it), the syscall's times stay, and the warning
/// returned says how many.
fn dispatch_times(
    book: &mut Book,
    pop: &Population,
    io: &ThreadIo,
    t0: Instant,
    traced: &Traced,
) -> Option<String> {
    let log = book.log.as_mut()?;
    // Run time to CLOCK_MONOTONIC (the trace's clock): the two clocks read
    // together once.
    let mono_now = sluice_uring::monotonic_ns();
    let offset =
        i128::from(mono_now) - i128::from(Io::now(io).as_nanos()) + i128::from(t0.as_nanos());
    let mono = |t: Instant| (offset + i128::from(t.as_nanos())).max(0) as u64;
    let run = |ns: u64| Instant::from_nanos((i128::from(ns) - offset).max(0) as u64);
    let asked: Vec<AppRequest> = log
        .iter()
        .map(|r| {
            let f = r.flow as usize;
            let start = pop.flows.get(f).map_or(0, |x| x.spec.file_start);
            let base = book.bases.get(f).copied().unwrap_or(0);
            AppRequest {
                write: r.write,
                sector: (base + r.sector.saturating_sub(start) * 512) / 512,
                sectors: r.sectors,
                submitted_ns: mono(r.arrival),
                returned_ns: mono(r.completed),
            }
        })
        .collect();
    let found = blocktrace::attach(&asked, &traced.events);
    let mut missing = 0;
    for (r, f) in log.iter_mut().zip(found) {
        match f {
            Some((issued, completed)) => {
                r.dispatched = run(issued).max(r.arrival);
                r.completed = run(completed).max(r.dispatched);
            }
            None => missing += 1,
        }
    }
    (missing > 0 || traced.lost > 0).then(|| {
        format!(
            "`log_requests`: {missing} of {} requests not found in the block layer's trace \
             ({} events lost); theirs are the syscall's times",
            log.len(),
            traced.lost
        )
    })
}

/// Start the flows and run them to the end (or Ctrl-C, or an error):
/// the time the run stopped.
fn drive(
    s: &Scenario,
    cell: &Arc<Cell<Shared>>,
    stop: &InterruptFlag,
    progress: &mut Progress<'_>,
) -> Result<Instant> {
    let (lock, cv) = &**cell;
    let mut st = lock
        .lock()
        .map_err(|_| anyhow::anyhow!("a worker thread panicked"))?;
    {
        let Shared { pop, book, io, .. } = &mut *st;
        pop.register(&mut Host { io, book })?;
    }

    // The clock starts.
    let t0 = Io::now(&st.io);
    st.t0 = t0;
    let rel = move |t: Instant| Instant::from_nanos(t.saturating_duration_since(t0).as_nanos());
    let end = Instant::ZERO + s.duration;
    for (i, f) in s.flows.iter().enumerate() {
        st.agenda.push(Reverse((f.start, i)));
    }
    loop {
        let now = rel(Io::now(&st.io));
        if st.error.is_some()
            || now >= end
            || st.pop.finite_done(s.stop_after_finite)
            || stop.load(Ordering::Relaxed)
        {
            return Ok(now);
        }
        progress.show(now);
        let Shared {
            pop,
            book,
            io,
            agenda,
            ..
        } = &mut *st;
        pop.wake_due(&mut Host { io, book }, agenda, now)?;
        let next = agenda.peek().map_or(end, |r| r.0 .0.min(end));
        let wait = next
            .saturating_duration_since(now)
            .min(Duration::from_millis(200));
        let wait = std::time::Duration::from_nanos(wait.as_nanos().max(1));
        st = match cv.wait_timeout(st, wait) {
            Ok((g, _)) => g,
            Err(_) => bail!("a worker thread panicked"),
        };
    }
}

/// What the coordinator and the workers share, under one lock.
struct Shared {
    pop: Population,
    book: Book,
    io: ThreadIo,
    agenda: Agenda,
    tally: Tally,
    t0: Instant,
    warmup: Instant,
    /// The clock stopped: completions are no longer measured.
    stopped: bool,
    error: Option<anyhow::Error>,
    /// Where the workers' warnings go, for the report.
    journal: Arc<Journal>,
}

impl Sink for Shared {
    fn io(&mut self) -> &mut ThreadIo {
        &mut self.io
    }

    fn completed(&mut self, c: Completion) -> bool {
        if self.stopped || self.error.is_some() {
            return false;
        }
        let earliest = self.agenda.peek().map(|r| r.0 .0);
        let finite_left = self.pop.finite_left();
        self.tally.count(&c);
        let t0 = self.t0;
        let rel = move |t: Instant| Instant::from_nanos(t.saturating_duration_since(t0).as_nanos());
        let Shared {
            pop,
            book,
            io,
            agenda,
            warmup,
            ..
        } = self;
        if let Err(e) = complete(pop, &mut Host { io, book }, agenda, c, rel, *warmup) {
            self.error = Some(e);
            return true;
        }
        let sooner = match (agenda.peek().map(|r| r.0 .0), earliest) {
            (Some(new), Some(old)) => new < old,
            (Some(_), None) => true,
            _ => false,
        };
        sooner || pop.finite_left() != finite_left
    }

    fn warn(&mut self, message: String) {
        self.journal.warn(message);
    }
}
