//! Flows: the closed-loop state machines that generate requests. Greedy
//! readers and writers, start-up replays and a video player. A flow may
//! own several threads (a start-up trace's processes); each thread is one
//! scheduler flow, as each process is one queue in Linux's schedulers.

use rand::Rng;
use rand_pcg::Pcg64Mcg;
use sluice::metrics::FlowMetrics;
use sluice::{Duration, Instant};

use crate::action::{Actions, Issue};
use crate::distribution::{Distribution, Sampler};
use crate::replay::StartupReplay;
use crate::rng;
use crate::spec::{FileService, FlowKind, FlowSpec, PoolSpec, TraceSpec, VideoSpec};

/// A flow's running state. In declaration order (`repr(C)`): what every
/// request touches first, the description last, so that a completion
/// touches a few adjacent cache lines (at 65,536 flows each is a miss).
#[repr(C)]
pub struct Flow {
    kind: Kind,
    /// The flow's measurements; the engine records into them.
    pub metrics: FlowMetrics,
    /// (requests, sectors) completed per thread after the warm-up; the
    /// engine records into them.
    pub thread_stats: ThreadStats,
    /// Time of the last completion once a finite flow is done.
    pub done_at: Option<Instant>,
    /// What the flow is.
    pub spec: FlowSpec,
}

/// (requests, sectors) per thread: inline for the usual single thread, so
/// that counting a completion touches no other allocation.
#[derive(Clone, Debug)]
pub enum ThreadStats {
    /// A flow of one thread.
    One((u64, u64)),
    /// A flow of several (a pool, a start-up's process tree).
    Many(Vec<(u64, u64)>),
}

impl ThreadStats {
    fn new(threads: usize) -> Self {
        if threads == 1 {
            ThreadStats::One((0, 0))
        } else {
            ThreadStats::Many(vec![(0, 0); threads])
        }
    }

    /// Thread `i`'s counts (panics past the flow's threads, as indexing).
    pub fn get_mut(&mut self, i: usize) -> &mut (u64, u64) {
        match self {
            ThreadStats::One(c) if i == 0 => c,
            ThreadStats::One(_) => panic!("thread {i} of a one-thread flow"),
            ThreadStats::Many(v) => &mut v[i],
        }
    }

    /// Each thread's counts, in thread order.
    pub fn iter(&self) -> std::slice::Iter<'_, (u64, u64)> {
        match self {
            ThreadStats::One(c) => std::slice::from_ref(c).iter(),
            ThreadStats::Many(v) => v.iter(),
        }
    }
}

/// Boxed where a variant is large and rare, so that the common ones keep a
/// flow's hot state in few cache lines.
enum Kind {
    Pool(Pool),
    Greedy(Greedy),
    Startup(Box<StartupReplay>),
    Video(Video),
    Trace(TraceReplay),
}

impl Flow {
    /// Flow number `index` of a run seeded with `seed`: each flow draws from
    /// its own stream, so adding a flow does not change the others' draws.
    pub fn new(spec: FlowSpec, seed: u64, index: usize) -> Self {
        let kind = match &spec.kind {
            FlowKind::Startup(s) => Kind::Startup(Box::new(StartupReplay::new(
                s,
                rng::stream(seed, index as u64),
            ))),
            FlowKind::Video(v) => Kind::Video(Video::new(*v)),
            FlowKind::Trace(t) => Kind::Trace(TraceReplay::new(t)),
            FlowKind::Pool(p) => {
                let mut rng = rng::stream(seed, index as u64);
                let block = (p.size_mean.round() as u64).max(1);
                let sampler = (spec.distribution != Distribution::Uniform).then(|| {
                    Box::new(Sampler::new(
                        spec.distribution.clone(),
                        spec.file_sectors / block,
                        &mut rng,
                    ))
                });
                Kind::Pool(Pool {
                    rng,
                    sampler,
                    in_flight: vec![0; p.weights.len()],
                    settings: p.clone(),
                })
            }
            FlowKind::Greedy(g) => {
                let mut rng = rng::stream(seed, index as u64);
                let slots =
                    (spec.each_file_sectors() / u64::from(spec.request_sectors.max(1))).max(1);
                let sampler = (!g.pattern().is_sequential()
                    && spec.distribution != Distribution::Uniform)
                    .then(|| Box::new(Sampler::new(spec.distribution.clone(), slots, &mut rng)));
                Kind::Greedy(Greedy {
                    write: g.pattern().is_write(),
                    sequential: g.pattern().is_sequential(),
                    rng,
                    sampler,
                    writes_since_sync: 0,
                    syncing: false,
                    file: 0,
                    file_ios: 0,
                    cursors: vec![0; spec.files.max(1) as usize],
                    cursor: 0,
                    in_flight: 0,
                    issued: 0,
                    completed: 0,
                    waiting_for_room: false,
                    next_issue_at: Instant::ZERO,
                    rate_wake: None,
                })
            }
        };
        let mut flow = Flow {
            spec,
            done_at: None,
            metrics: FlowMetrics::default(),
            thread_stats: ThreadStats::One((0, 0)),
            kind,
        };
        flow.thread_stats = ThreadStats::new(flow.threads() as usize);
        flow
    }

    /// Scheduler flows (threads) this flow uses.
    pub fn threads(&self) -> u32 {
        match &self.kind {
            Kind::Startup(s) => s.trace.threads.len() as u32,
            Kind::Pool(p) => p.settings.weights.len() as u32,
            _ => 1,
        }
    }

    /// Whether the flow ends by itself (and the run may end with it).
    pub fn finite(&self) -> bool {
        match &self.kind {
            Kind::Startup(s) => s.ends(),
            Kind::Video(_) | Kind::Trace(_) => true,
            Kind::Greedy(_) | Kind::Pool(_) => self.spec.requests.is_some(),
        }
    }

    /// The flow is due to act at `now` (its start, or a wake it asked for).
    pub fn wake(&mut self, now: Instant, act: &mut Actions) {
        let spec = &self.spec;
        match &mut self.kind {
            Kind::Greedy(g) => g.wake(spec, now, act),
            Kind::Pool(p) => p.fill(spec, act),
            Kind::Startup(s) => s.wake(spec, now, act),
            Kind::Video(v) => v.wake(spec, now, act),
            Kind::Trace(t) => t.wake(spec, now, act),
        }
    }

    /// A request of thread `thread` completed at `now` (`current`: issued
    /// by the flow's current process, not an earlier start-up's). Returns
    /// true when this completion finished a finite flow.
    pub fn completed(
        &mut self,
        now: Instant,
        thread: u32,
        current: bool,
        warmup: Instant,
        act: &mut Actions,
    ) -> bool {
        let spec = &self.spec;
        let finished = match &mut self.kind {
            Kind::Greedy(g) => g.completed(spec, now, act),
            Kind::Pool(p) => p.completed(spec, thread, act),
            Kind::Startup(s) => s.completed(spec, now, thread, current, warmup, act),
            Kind::Video(v) => v.completed(spec, now, warmup, act),
            Kind::Trace(t) => t.completed(spec, act),
        };
        if finished && self.done_at.is_none() {
            // A start-up is done when its last record is; requests still
            // in flight then only keep the flow until they complete.
            self.done_at = match &self.kind {
                Kind::Startup(s) => s.last_end.or(Some(now)),
                _ => Some(now),
            };
            return true;
        }
        false
    }

    /// Start-ups completed after the warm-up: (count, mean seconds).
    pub fn startups(&self) -> Option<(u64, f64)> {
        match &self.kind {
            Kind::Startup(s) => {
                let n = s.measured.len() as u64;
                let mean = if n > 0 {
                    s.measured.iter().copied().sum::<Duration>().as_nanos() as f64 / n as f64 / 1e9
                } else {
                    f64::NAN
                };
                Some((n, mean))
            }
            _ => None,
        }
    }

    /// Weight of one of the flow's threads.
    pub fn thread_weight(&self, thread: u32) -> u32 {
        self.spec
            .pool_weights()
            .get(thread as usize)
            .copied()
            .unwrap_or(self.spec.qos.weight)
    }

    /// How one of the flow's threads registers with a scheduler: its
    /// weight and the flow's class.
    pub fn thread_config(&self, thread: u32) -> sluice::FlowConfig {
        sluice::FlowConfig {
            qos: sluice::Qos {
                weight: self.thread_weight(thread),
                ..self.spec.qos
            },
            class: self.spec.class,
            group: self.spec.group,
        }
    }

    /// Whether per-thread results are worth reporting (pool flows).
    pub fn reports_threads(&self) -> bool {
        matches!(self.kind, Kind::Pool(_))
    }

    /// Video frames displayed after the warm-up, and how many were late.
    pub fn frames(&self) -> Option<(u64, u64)> {
        match &self.kind {
            Kind::Video(v) => Some((v.frames_measured, v.dropped_measured)),
            _ => None,
        }
    }
}

/// A block trace's requests: at their recorded arrivals after the flow's
/// start (open loop: whatever the device does), or in order with
/// `outstanding` in flight. Reads are synchronous, writes asynchronous.
struct TraceReplay {
    settings: TraceSpec,
    /// Index of the next request to issue.
    next: usize,
    in_flight: u32,
}

impl TraceReplay {
    fn new(settings: &TraceSpec) -> Self {
        TraceReplay {
            settings: settings.clone(),
            next: 0,
            in_flight: 0,
        }
    }

    fn issue(&mut self, r: &crate::trace::Request, act: &mut Actions) {
        self.next += 1;
        self.in_flight += 1;
        act.issues.push(Issue {
            thread: 0,
            continues: false,
            sector: r.sector,
            sectors: r.sectors,
            write: r.write,
            sync: !r.write,
            flush: false,
        });
    }

    fn wake(&mut self, spec: &FlowSpec, now: Instant, act: &mut Actions) {
        let reqs = std::sync::Arc::clone(&self.settings.requests);
        match self.settings.timing {
            crate::trace::Timing::Recorded => {
                while let Some(r) = reqs.get(self.next) {
                    let due = spec.start + r.at;
                    if due > now {
                        act.wakes.push(due);
                        break;
                    }
                    self.issue(r, act);
                }
            }
            crate::trace::Timing::Afap => self.fill(spec, act),
        }
    }

    fn fill(&mut self, spec: &FlowSpec, act: &mut Actions) {
        let reqs = std::sync::Arc::clone(&self.settings.requests);
        while self.in_flight < spec.outstanding.max(1) {
            let Some(r) = reqs.get(self.next) else { break };
            self.issue(r, act);
        }
    }

    /// One request completed; true once every request has.
    fn completed(&mut self, spec: &FlowSpec, act: &mut Actions) -> bool {
        self.in_flight = self.in_flight.saturating_sub(1);
        if self.settings.timing == crate::trace::Timing::Afap {
            self.fill(spec, act);
        }
        self.in_flight == 0 && self.next >= self.settings.requests.len()
    }
}

/// Reservation queues (Nam–Park §3.1), one thread each: every queue keeps
/// `outstanding` requests in flight, each of a normally distributed size,
/// read or write at random, anywhere in the file. Both queues stay
/// backlogged, so the service ratio is the scheduler's doing.
struct Pool {
    rng: Pcg64Mcg,
    /// Blocks of the mean request size drawn from the flow's
    /// `distribution` (none: any sector, uniformly). Boxed, as Greedy's.
    sampler: Option<Box<Sampler>>,
    in_flight: Vec<u32>,
    settings: PoolSpec,
}

impl Pool {
    fn fill(&mut self, spec: &FlowSpec, act: &mut Actions) {
        for thread in 0..self.settings.weights.len() {
            while self.in_flight[thread] < spec.outstanding {
                // Box-Muller for a normal size, rounded, at least one sector.
                let (u1, u2): (f64, f64) = (self.rng.gen_range(f64::EPSILON..1.0), self.rng.gen());
                let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
                // No larger than the file (a scenario keeps the mean inside it).
                let largest = spec.file_sectors.clamp(1, u64::from(u32::MAX)) as f64;
                let sectors = (self.settings.size_mean + self.settings.size_sd * z)
                    .round()
                    .clamp(1.0, largest) as u32;
                let span = spec.file_sectors.saturating_sub(u64::from(sectors)).max(1);
                let at = match &self.sampler {
                    Some(s) => {
                        let block = spec.file_sectors / s.blocks().max(1);
                        (s.next(&mut self.rng) * block).min(span - 1)
                    }
                    None => self.rng.gen_range(0..span),
                };
                let sector = spec.file_start + at;
                let write = self.rng.gen::<f64>() >= self.settings.read_fraction;
                act.issues.push(Issue {
                    thread: thread as u32,
                    continues: false,
                    sector,
                    sectors,
                    write,
                    sync: true,
                    flush: false,
                });
                self.in_flight[thread] += 1;
            }
        }
    }

    fn completed(&mut self, spec: &FlowSpec, thread: u32, act: &mut Actions) -> bool {
        self.in_flight[thread as usize] -= 1;
        self.fill(spec, act);
        false
    }
}

/// Greedy readers and writers: keep `outstanding` requests in flight.
struct Greedy {
    /// A writer (asynchronous), else a reader (synchronous).
    write: bool,
    /// Walks the file, else jumps at random.
    sequential: bool,
    rng: Pcg64Mcg,
    /// Random patterns with a skewed `distribution`: its draws. Boxed:
    /// most flows draw uniformly, and a flow's hot state stays in fewer
    /// cache lines (65,536 flows do not fit in a cache).
    sampler: Option<Box<Sampler>>,
    /// `fsync_every`: writes issued since the last barrier, and whether
    /// the flow waits for its writes in flight before issuing more.
    writes_since_sync: u64,
    syncing: bool,
    /// Several files (`files`): the current one, requests made to it since
    /// it became current, and each file's next offset (sequential).
    file: u64,
    file_ios: u64,
    cursors: Vec<u64>,
    /// Next offset in the file for sequential patterns.
    cursor: u64,
    in_flight: u32,
    issued: u64,
    completed: u64,
    /// A paced writer found its cap full at its last tick.
    waiting_for_room: bool,
    /// `rate_iops`: the earliest time of the next issue, and the wake-up
    /// already asked for it.
    next_issue_at: Instant,
    rate_wake: Option<Instant>,
}

impl Greedy {
    /// Fragments per application request (1 unless `fragment_kib` splits
    /// it, as FreeBSD's raw I/O does at 64 KiB).
    fn fragments(spec: &FlowSpec) -> u32 {
        spec.request_sectors
            .div_ceil(spec.fragment_sectors.unwrap_or(spec.request_sectors).max(1))
    }

    fn wants_more(&self, spec: &FlowSpec) -> bool {
        let k = Self::fragments(spec);
        !self.syncing
            && self.in_flight + k <= spec.outstanding * k
            && spec.requests.is_none_or(|n| self.issued < n)
    }

    /// Asynchronous writers with a think time issue one write every
    /// `think` (they do not wait for completions), up to their cap; every
    /// other flow thinks between a completion and its next issue.
    fn paced(&self, spec: &FlowSpec) -> bool {
        self.write && !spec.think.is_zero()
    }

    /// With several files, the file of the next request (fio's
    /// `file_service_type`).
    fn next_file(&mut self, spec: &FlowSpec) -> u64 {
        let files = u64::from(spec.files.max(1));
        let per_file = (spec.each_file_sectors() / u64::from(spec.request_sectors.max(1))).max(1);
        let every = match spec.file_service {
            FileService::RoundRobin(n) => u64::from(n.max(1)),
            FileService::Sequential => per_file,
            FileService::Random => {
                self.file = self.rng.gen_range(0..files);
                return self.file;
            }
        };
        if self.file_ios >= every {
            self.file = (self.file + 1) % files;
            self.file_ios = 0;
        }
        self.file_ios += 1;
        self.file
    }

    /// The start sector of the next request in one of several files
    /// (`files`); counts it as issued.
    fn next_sector_of_files(&mut self, spec: &FlowSpec) -> u64 {
        let size = u64::from(spec.request_sectors.max(1));
        let len = spec.each_file_sectors();
        self.issued += 1;
        self.in_flight += Self::fragments(spec);
        let f = self.next_file(spec);
        let offset = if self.sequential {
            let c = &mut self.cursors[f as usize];
            let o = *c;
            *c += size;
            if *c + size > len {
                *c = 0;
            }
            o
        } else {
            match &self.sampler {
                Some(s) => s.next(&mut self.rng) * size,
                None => self.rng.gen_range(0..(len / size).max(1)) * size,
            }
        };
        self.count_write(spec);
        spec.file_start + f * len + offset
    }

    /// `fsync_every`: count a write; the Nth starts a barrier.
    fn count_write(&mut self, spec: &FlowSpec) {
        if self.write {
            if let Some(n) = spec.fsync_every {
                self.writes_since_sync += 1;
                if self.writes_since_sync >= n {
                    self.writes_since_sync = 0;
                    self.syncing = true;
                }
            }
        }
    }

    /// The start sector of the next request; counts it as issued.
    fn next_sector(&mut self, spec: &FlowSpec) -> u64 {
        if spec.files > 1 {
            return self.next_sector_of_files(spec);
        }
        let size = u64::from(spec.request_sectors);
        let slots = (spec.file_sectors / size).max(1);
        self.issued += 1;
        self.in_flight += Self::fragments(spec);
        let offset = if self.sequential {
            let o = self.cursor;
            self.cursor += size;
            if self.cursor + size > spec.file_sectors {
                self.cursor = 0;
            }
            o
        } else {
            match &self.sampler {
                Some(s) => s.next(&mut self.rng) * size,
                None => self.rng.gen_range(0..slots) * size,
            }
        };
        self.count_write(spec);
        spec.file_start + offset
    }

    fn issue_one(&mut self, spec: &FlowSpec, act: &mut Actions) {
        let sector = self.next_sector(spec);
        // A mixed flow draws each request's direction (reads synchronous,
        // writes asynchronous, as the patterns issue them).
        let write = match spec.read_fraction {
            Some(f) => self.rng.gen::<f64>() >= f,
            None => self.write,
        };
        // The write that starts a barrier is, for a buffered writer, a
        // write() and fsync(): its completion waits for the file's data.
        let flush = self.syncing && write && !spec.direct;
        let frag = spec.fragment_sectors.unwrap_or(spec.request_sectors).max(1);
        let mut off = 0;
        while off < spec.request_sectors {
            act.issues.push(Issue {
                thread: 0,
                continues: off > 0,
                sector: sector + u64::from(off),
                sectors: frag.min(spec.request_sectors - off),
                write,
                sync: !write,
                flush: flush && off + frag >= spec.request_sectors,
            });
            off += frag;
        }
    }

    /// Whether `rate_iops` lets the flow issue at `now`; if not, it asks
    /// (once) to be woken when it may.
    fn rate_allows(&mut self, spec: &FlowSpec, now: Instant, act: &mut Actions) -> bool {
        if spec.rate_interval.is_none() || now >= self.next_issue_at {
            return true;
        }
        if self.rate_wake != Some(self.next_issue_at) {
            self.rate_wake = Some(self.next_issue_at);
            act.wakes.push(self.next_issue_at);
        }
        false
    }

    /// Count an issue at `now` against `rate_iops`: a flow slower than its
    /// rate is not held back by its past.
    fn rate_issued(&mut self, spec: &FlowSpec, now: Instant) {
        if let Some(gap) = spec.rate_interval {
            self.next_issue_at = self.next_issue_at.max(now) + gap;
        }
    }

    fn wake(&mut self, spec: &FlowSpec, now: Instant, act: &mut Actions) {
        if self.paced(spec) {
            if self.wants_more(spec) {
                self.issue_one(spec, act);
                act.wakes.push(now + spec.think);
            } else {
                // At its cap: the next completion issues.
                self.waiting_for_room = true;
            }
            return;
        }
        while self.wants_more(spec) && self.rate_allows(spec, now, act) {
            self.issue_one(spec, act);
            self.rate_issued(spec, now);
        }
    }

    fn completed(&mut self, spec: &FlowSpec, now: Instant, act: &mut Actions) -> bool {
        self.in_flight -= 1;
        if !self.in_flight.is_multiple_of(Self::fragments(spec)) {
            return false; // other fragments of the request are still out
        }
        self.completed += 1;
        if self.syncing && self.in_flight == 0 {
            // The barrier's writes are all done: the flow goes on.
            self.syncing = false;
        }
        if self.paced(spec) {
            if std::mem::take(&mut self.waiting_for_room) {
                self.wake(spec, now, act);
            }
        } else if !spec.think.is_zero() {
            if self.wants_more(spec) {
                act.wakes.push(now + spec.think);
            }
        } else {
            self.wake(spec, now, act);
        }
        spec.requests.is_some_and(|n| self.completed >= n)
    }
}

/// One thread (process) of a start-up replay.
/// A video player: frames of `request_kib` read one at a time from a file,
/// at most `buffer_frames` ahead of the display; a frame that arrives after
/// its display time is dropped.
struct Video {
    settings: VideoSpec,
    /// Next frame to read.
    next: u64,
    in_flight: bool,
    frames_measured: u64,
    dropped_measured: u64,
}

impl Video {
    /// Frame `k` may be read from this time on.
    fn new(settings: VideoSpec) -> Self {
        Video {
            settings,
            next: 0,
            in_flight: false,
            frames_measured: 0,
            dropped_measured: 0,
        }
    }

    fn readable(&self, spec: &FlowSpec, k: u64) -> Instant {
        spec.start + self.settings.frame_period * k
    }

    /// Frame `k` is shown at this time.
    fn display(&self, spec: &FlowSpec, k: u64) -> Instant {
        self.readable(spec, k + u64::from(self.settings.buffer_frames))
    }

    fn frames(spec: &FlowSpec) -> u64 {
        spec.requests.unwrap_or(1)
    }

    fn wake(&mut self, spec: &FlowSpec, now: Instant, act: &mut Actions) {
        if self.in_flight || self.next >= Self::frames(spec) {
            return;
        }
        let at = self.readable(spec, self.next);
        if at > now {
            act.wakes.push(at);
            return;
        }
        let slots = (spec.file_sectors / u64::from(spec.request_sectors)).max(1);
        act.issues.push(Issue {
            thread: 0,
            continues: false,
            sector: spec.file_start + (self.next % slots) * u64::from(spec.request_sectors),
            sectors: spec.request_sectors,
            write: false,
            sync: true,
            flush: false,
        });
        self.in_flight = true;
    }

    fn completed(
        &mut self,
        spec: &FlowSpec,
        now: Instant,
        warmup: Instant,
        act: &mut Actions,
    ) -> bool {
        self.in_flight = false;
        let shown = self.display(spec, self.next);
        if shown >= warmup {
            self.frames_measured += 1;
            if now > shown {
                self.dropped_measured += 1;
            }
        }
        self.next += 1;
        self.wake(spec, now, act);
        self.next >= Self::frames(spec)
    }
}

#[cfg(test)]
mod tests;
