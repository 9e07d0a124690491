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

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fs::{self, File};
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Serialize;
use sluice::{Duration, FlowId, Instant, RequestId, NS_PER_S};
use sluice_sim::report::{measure, Perf, SimReport};
use sluice_sim::Scenario;
use sluice_uring::{AlignedBuf, Completion, Engine, EngineConfig, Submission, TargetId, Wait};
use sluice_workload::{Actions, Flow, Pattern, Replay};

/// Schema tag of [`RunReport`].
pub const RUN_SCHEMA: &str = "sluice.run/1";

/// What `sluice run` was asked.
pub struct Options {
    pub scenario: PathBuf,
    pub dir: Option<PathBuf>,
    pub queue_depth: Option<usize>,
    pub duration_s: Option<f64>,
    pub keep: bool,
}

/// The `sluice.run/1` object: `sluice.sim/1`'s fields plus `engine`.
#[derive(Serialize)]
pub struct RunReport {
    #[serde(flatten)]
    pub report: SimReport,
    pub engine: EngineReport,
}

/// Where and how the run's I/O went.
#[derive(Serialize)]
pub struct EngineReport {
    pub target: String,
    pub direct: bool,
    pub queue_depth: usize,
    pub kernel_scheduler: Option<String>,
    pub verified_blocks: Option<u64>,
    pub verify_errors: Option<u64>,
}

/// The flows' files: removed when dropped (also on an error), unless kept.
struct Files {
    /// The folder sluice created (removed whole), or None with `--dir`.
    own_dir: Option<PathBuf>,
    paths: Vec<PathBuf>,
    keep: bool,
}

impl Drop for Files {
    fn drop(&mut self) {
        if self.keep {
            return;
        }
        match &self.own_dir {
            Some(d) => {
                let _ = fs::remove_dir_all(d);
            }
            None => {
                for p in &self.paths {
                    let _ = fs::remove_file(p);
                }
            }
        }
    }
}

/// A fresh folder `sluice-run-PID-N` in the current directory.
fn fresh_dir() -> Result<PathBuf> {
    let cwd = std::env::current_dir().context("current directory")?;
    for n in 0..1000 {
        let d = cwd.join(format!("sluice-run-{}-{n}", std::process::id()));
        match fs::create_dir(&d) {
            Ok(()) => return Ok(d),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => bail!("cannot create a folder in {}: {e}", cwd.display()),
        }
    }
    bail!("cannot create a fresh folder in {}", cwd.display())
}

/// Bytes free for an unprivileged user on the file system holding `dir`.
fn free_bytes(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: a valid NUL-terminated path and a statvfs to fill.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    Some(st.f_bavail as u64 * st.f_frsize as u64)
}

/// The active kernel I/O scheduler of the block device holding `dir`
/// (`/sys/dev/block/MAJ:MIN[/..]/queue/scheduler`), if there is one.
fn kernel_scheduler(dir: &Path) -> Option<String> {
    let dev = fs::metadata(dir).ok()?.dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let base = PathBuf::from(format!("/sys/dev/block/{major}:{minor}"));
    let text = fs::read_to_string(base.join("queue/scheduler"))
        .or_else(|_| fs::read_to_string(base.join("../queue/scheduler")))
        .ok()?;
    let t = text.trim();
    match (t.find('['), t.find(']')) {
        (Some(a), Some(b)) if a < b => Some(t[a + 1..b].to_string()),
        _ if !t.is_empty() && !t.contains(' ') => Some(t.to_string()),
        _ => None,
    }
}

/// The non-zero byte at `pos` of flow `flow`'s file (and of written data).
fn pattern_byte(flow: usize, pos: u64) -> u8 {
    ((pos.wrapping_mul(31).wrapping_add(flow as u64 * 7)) % 251) as u8 + 1
}

/// Create flow `flow`'s file at `path`, `bytes` long, full of its pattern,
/// on disk before the clock starts.
fn fill(path: &Path, flow: usize, bytes: u64) -> Result<()> {
    let ctx = || format!("cannot create {}", path.display());
    let mut f = File::create(path).with_context(ctx)?;
    const CHUNK: u64 = 1 << 20;
    // 251 divides neither 31 nor CHUNK... the pattern repeats every 251
    // bytes; build one chunk and shift it by the chunk's phase.
    let big: Vec<u8> = (0..CHUNK + 251).map(|p| pattern_byte(flow, p)).collect();
    let mut pos = 0;
    while pos < bytes {
        let n = (bytes - pos).min(CHUNK) as usize;
        let phase = (pos % 251) as usize;
        f.write_all(&big[phase..phase + n]).with_context(ctx)?;
        pos += n as u64;
    }
    f.sync_all().with_context(ctx)?;
    Ok(())
}

/// One request's bookkeeping: which flow, which scheduler flow, since when.
struct Pending {
    flow: usize,
    sched_flow: FlowId,
    arrival: Instant,
}

/// The flows of the run and the scheduler flows of their threads (as the
/// simulator's population).
struct Population {
    flows: Vec<Flow>,
    targets: Vec<TargetId>,
    /// Scheduler flow id -> (flow index, thread).
    owners: Vec<(u32, u32)>,
    /// First scheduler flow id of each flow's current process.
    first_thread: Vec<u32>,
    /// Scheduler flows of replaced processes, removed once idle.
    retired: Vec<FlowId>,
    pending: HashMap<RequestId, Pending>,
    finite_left: usize,
    /// Reusable buffers.
    spare: Vec<AlignedBuf>,
}

impl Population {
    fn register_threads(&mut self, engine: &mut Engine, f: usize) -> Result<u32> {
        let flow = &self.flows[f];
        let first = self.owners.len() as u32;
        for t in 0..flow.threads() {
            engine.add_flow(FlowId(first + t), &flow.thread_config(t))?;
            self.owners.push((f as u32, t));
        }
        Ok(first)
    }

    fn respawn(&mut self, engine: &mut Engine, f: usize) -> Result<()> {
        let old = self.first_thread[f];
        for t in 0..self.flows[f].threads() {
            self.retired.push(FlowId(old + t));
        }
        self.reap_retired(engine)?;
        self.first_thread[f] = self.register_threads(engine, f)?;
        Ok(())
    }

    /// Remove retired scheduler flows that have nothing pending.
    fn reap_retired(&mut self, engine: &mut Engine) -> Result<()> {
        let mut i = 0;
        while i < self.retired.len() {
            let id = self.retired[i];
            if engine.pending_of(id) == 0 {
                engine.remove_flow(id)?;
                self.retired.swap_remove(i);
            } else {
                i += 1;
            }
        }
        Ok(())
    }

    fn buffer(&mut self, len: usize) -> AlignedBuf {
        match self.spare.iter().position(|b| b.capacity() >= len) {
            Some(i) => {
                let mut b = self.spare.swap_remove(i);
                b.set_len(len);
                b
            }
            None => AlignedBuf::zeroed(len),
        }
    }

    /// Carry out what flow `f` asked at `now`; returns its wake-ups.
    fn apply(
        &mut self,
        engine: &mut Engine,
        f: usize,
        act: Actions,
        now: Instant,
    ) -> Result<Vec<Instant>> {
        if act.new_process {
            self.respawn(engine, f)?;
        }
        for i in act.issues {
            let spec = &self.flows[f].spec;
            let sched_flow = FlowId(self.first_thread[f] + i.thread);
            let offset = i.sector.saturating_sub(spec.file_start) * 512;
            let len = i.sectors as usize * 512;
            let mut buf = self.buffer(len);
            let sub = if i.write {
                if buf[0] == 0 {
                    for (k, b) in buf.iter_mut().enumerate() {
                        *b = pattern_byte(f, offset + k as u64);
                    }
                }
                Submission::write(sched_flow, self.targets[f], offset, buf)
            } else {
                Submission::read(sched_flow, self.targets[f], offset, buf)
            }
            .sync(i.sync);
            let id = engine
                .submit(sub)
                .with_context(|| format!("flow '{}'", self.flows[f].spec.name))?;
            self.pending.insert(
                id,
                Pending {
                    flow: f,
                    sched_flow,
                    arrival: now,
                },
            );
        }
        Ok(act.wakes)
    }
}

/// Run `opts.scenario` for real and report.
pub fn run(opts: &Options) -> Result<RunReport> {
    // Where the files go first: a wrong folder is the user's first question.
    if let Some(d) = &opts.dir {
        if !d.is_dir() {
            bail!("--dir {}: no such directory", d.display());
        }
    }
    let mut s = Scenario::load_real(&opts.scenario)?;
    if let Some(d) = opts.duration_s {
        if !d.is_finite() || d <= 0.0 || d > 1e7 {
            bail!("--duration must be a positive number of seconds (got {d})");
        }
        s.duration = Duration::from_nanos((d * NS_PER_S as f64).round() as u64);
        if s.warmup >= s.duration {
            bail!(
                "--duration {d}: must be longer than the scenario's warmup_s ({})",
                s.warmup.as_secs_f64()
            );
        }
    }
    let queue_depth = opts.queue_depth.unwrap_or(s.device.queue_depth);
    if queue_depth == 0 || queue_depth > 4096 {
        bail!("--queue-depth must be 1..=4096 (got {queue_depth})");
    }
    for f in &s.flows {
        if f.pattern == Pattern::Startup && f.replay == Replay::Recorded {
            bail!(
                "flow '{}': replay = \"recorded\" needs a whole device; sluice run replays into per-thread files",
                f.name
            );
        }
    }
    // The policy first: a bad [scheduler] fails before any file is made.
    let policy = sluice::policy::build(&s.scheduler, &s.params)?;

    // Files, filled before the clock starts.
    let (own_dir, dir) = match &opts.dir {
        Some(d) => (None, d.clone()),
        None => {
            let d = fresh_dir()?;
            (Some(d.clone()), d)
        }
    };
    let mut files = Files {
        own_dir,
        paths: Vec::new(),
        keep: opts.keep,
    };
    let sizes: Vec<u64> = s.flows.iter().map(|f| f.file_sectors * 512).collect();
    let total: u64 = sizes.iter().sum();
    if let Some(free) = free_bytes(&dir) {
        if total > free {
            bail!(
                "the flows' files need {:.2} GiB in {}, only {:.2} GiB are free: lower file_gib or count",
                total as f64 / (1u64 << 30) as f64,
                dir.display(),
                free as f64 / (1u64 << 30) as f64
            );
        }
    }
    for (i, f) in s.flows.iter().enumerate() {
        let safe: String = f
            .name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let path = dir.join(format!("sluice-{i:05}-{safe}.dat"));
        files.paths.push(path.clone());
        fill(&path, i, sizes[i])?;
    }

    let mut engine = Engine::new(policy, EngineConfig::with_queue_depth(queue_depth))?;
    let mut targets = Vec::with_capacity(s.flows.len());
    let mut direct = true;
    let mut warned = false;
    for p in &files.paths {
        let t = engine.open_target(p, &sluice_uring::TargetOptions::read_write())?;
        let info = engine.target(t).expect("just opened");
        direct &= info.direct;
        if let (Some(why), false) = (&info.direct_fallback, warned) {
            eprintln!("warning: {}: {why}", dir.display());
            warned = true;
        }
        targets.push(t);
    }
    for (i, c) in s.classes.iter().enumerate() {
        engine.add_class(i as u32, c)?;
    }
    let mut pop = Population {
        flows: Vec::with_capacity(s.flows.len()),
        targets,
        owners: Vec::new(),
        first_thread: Vec::new(),
        retired: Vec::new(),
        pending: HashMap::new(),
        finite_left: 0,
        spare: Vec::new(),
    };
    for (i, f) in s.flows.iter().enumerate() {
        pop.flows.push(Flow::new(f.clone(), s.seed, i));
        let first = pop.register_threads(&mut engine, i)?;
        pop.first_thread.push(first);
    }
    pop.finite_left = pop.flows.iter().filter(|f| f.finite()).count();
    let nflows = pop.flows.len();
    let finite = pop.finite_left;
    let all_finite = s.stop_after_finite && finite > 0 || finite == nflows;

    // The clock starts: run time is engine time since t0.
    let t0 = engine.now();
    let rel = |t: Instant| Instant::from_nanos(t.saturating_duration_since(t0).as_nanos());
    let end = Instant::ZERO + s.duration;
    let warmup = Instant::ZERO + s.warmup;
    let mut agenda: BinaryHeap<Reverse<(Instant, usize)>> = BinaryHeap::new();
    for (i, f) in s.flows.iter().enumerate() {
        agenda.push(Reverse((f.start, i)));
    }
    let wall = std::time::Instant::now();
    let mut completed_total = 0u64;
    let mut io_errors = 0u64;
    let mut first_error: Option<String> = None;
    let stop = loop {
        let now = rel(engine.now());
        if now >= end || all_finite && pop.finite_left == 0 {
            break now;
        }
        while let Some(&Reverse((t, f))) = agenda.peek() {
            if t > now {
                break;
            }
            agenda.pop();
            let mut act = Actions::default();
            pop.flows[f].wake(now, &mut act);
            for w in pop.apply(&mut engine, f, act, now)? {
                agenda.push(Reverse((w.max(now), f)));
            }
        }
        let next = agenda.peek().map_or(end, |r| r.0 .0.min(end));
        let wait = next.saturating_duration_since(now);
        engine.poll(Wait::For(std::time::Duration::from_nanos(wait.as_nanos())))?;
        while let Some(c) = engine.next_completion() {
            completed_total += 1;
            if let Err(e) = &c.result {
                io_errors += 1;
                first_error.get_or_insert_with(|| e.to_string());
            }
            complete(&mut pop, &mut engine, &mut agenda, c, rel, warmup)?;
            // Hand what the completion let through to the kernel now, as
            // fio does, rather than after the whole batch: the device keeps
            // its queue full instead of draining in lockstep (measured:
            // 4 KiB random reads at depth 32 went from 0.68 to about 1.0
            // of fio's IOPS).
            engine.poll(Wait::No)?;
        }
    };
    let wall_s = wall.elapsed().as_secs_f64();
    if io_errors > 0 {
        eprintln!(
            "warning: {io_errors} requests failed ({})",
            first_error.unwrap_or_default()
        );
    }
    let report = report(&s, &pop, &engine, stop, completed_total, wall_s);
    let engine_report = EngineReport {
        target: dir.display().to_string(),
        direct,
        queue_depth,
        kernel_scheduler: kernel_scheduler(&dir),
        verified_blocks: None,
        verify_errors: None,
    };
    // The kernel finishes what it holds before the files go.
    drop(engine);
    drop(files);
    Ok(RunReport {
        report,
        engine: engine_report,
    })
}

/// A request completed: measure it, tell its flow, issue what follows.
fn complete(
    pop: &mut Population,
    engine: &mut Engine,
    agenda: &mut BinaryHeap<Reverse<(Instant, usize)>>,
    c: Completion,
    rel: impl Fn(Instant) -> Instant,
    warmup: Instant,
) -> Result<()> {
    let Some(p) = pop.pending.remove(&c.id) else {
        return Ok(());
    };
    let now = rel(c.completed);
    let (f, thread) = pop.owners[p.sched_flow.0 as usize];
    let (f, thread) = (f as usize, thread);
    debug_assert_eq!(f, p.flow);
    if now >= warmup {
        let flow = &mut pop.flows[f];
        let bytes = c.bytes() as u64;
        flow.metrics.record(
            bytes,
            c.dir == sluice::Direction::Write,
            now.saturating_duration_since(p.arrival),
        );
        flow.metrics.disk_time += c.disk_time;
        let ts = &mut flow.thread_stats[thread as usize];
        ts.0 += 1;
        ts.1 += bytes / 512;
    }
    pop.spare.push(c.buf);
    let current = p.sched_flow.0 >= pop.first_thread[f];
    if !pop.retired.is_empty() {
        pop.reap_retired(engine)?;
    }
    let mut act = Actions::default();
    if pop.flows[f].completed(now, thread, current, warmup, &mut act) {
        pop.finite_left -= 1;
    }
    let t = rel(engine.now()).max(now);
    for w in pop.apply(engine, f, act, t)? {
        agenda.push(Reverse((w.max(t), f)));
    }
    Ok(())
}

/// The `sluice.sim/1` part, as the simulator's recorder builds it.
fn report(
    s: &Scenario,
    pop: &Population,
    engine: &Engine,
    end: Instant,
    completed_total: u64,
    wall_s: f64,
) -> SimReport {
    let warmup = Instant::ZERO + s.warmup;
    let mut oldest: Vec<Option<Instant>> = vec![None; pop.flows.len()];
    for p in pop.pending.values() {
        let o = &mut oldest[p.flow];
        *o = Some(o.map_or(p.arrival, |a| a.min(p.arrival)));
    }
    let (aggregate, flows) = measure(&pop.flows, &oldest, warmup, end);
    SimReport {
        schema: RUN_SCHEMA,
        scenario: s.name.clone(),
        scheduler: engine.policy().name().to_string(),
        device: "io_uring".to_string(),
        seed: s.seed,
        sim_time_s: end.as_secs_f64(),
        measured_from_s: warmup.as_secs_f64(),
        aggregate,
        flows,
        policy_stats: engine
            .policy()
            .stats()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
        timeline_mb_s: None,
        perf: Perf {
            events: engine.stats().enters,
            wall_s,
            requests_per_wall_s: if wall_s > 0.0 {
                completed_total as f64 / wall_s
            } else {
                0.0
            },
        },
    }
}
