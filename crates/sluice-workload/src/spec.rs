//! What a flow is, once a scenario has been read: its [`Pattern`] and the
//! numbers that drive it ([`FlowSpec`]). Reading scenario files is
//! `sluice-runtime`'s business; the values are the same for every host.

use std::sync::Arc;

use sluice::{Duration, Instant};

use crate::startup::StartupTrace;

/// How a flow generates requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Pattern {
    /// Synchronous reads walking through the file (read-ahead sized).
    #[default]
    SeqRead,
    /// Synchronous reads at uniformly random aligned offsets in the file.
    RandRead,
    /// Asynchronous writes walking through the file.
    SeqWrite,
    /// Asynchronous writes at random aligned offsets.
    RandWrite,
    /// Replay of an application's start-up trace.
    Startup,
    /// A video player reading frames at a fixed rate.
    Video,
    /// Weighted reservation queues, each with a fixed number of requests
    /// in flight (Nam–Park's synthetic load).
    Pool,
    /// Replay of a block trace (blkparse, fio iolog, MSR, SPC, DiskSim).
    Trace,
}

impl Pattern {
    /// The pattern a scenario file names (`seq-read`, `pool`, ...).
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "seq-read" => Some(Pattern::SeqRead),
            "rand-read" => Some(Pattern::RandRead),
            "seq-write" => Some(Pattern::SeqWrite),
            "rand-write" => Some(Pattern::RandWrite),
            "startup" => Some(Pattern::Startup),
            "video" => Some(Pattern::Video),
            "pool" => Some(Pattern::Pool),
            "trace" => Some(Pattern::Trace),
            _ => None,
        }
    }

    /// The name a scenario file gives the pattern.
    pub fn name(self) -> &'static str {
        match self {
            Pattern::SeqRead => "seq-read",
            Pattern::RandRead => "rand-read",
            Pattern::SeqWrite => "seq-write",
            Pattern::RandWrite => "rand-write",
            Pattern::Startup => "startup",
            Pattern::Video => "video",
            Pattern::Pool => "pool",
            Pattern::Trace => "trace",
        }
    }

    /// Writes are asynchronous; reads synchronous.
    pub fn is_write(self) -> bool {
        matches!(self, Pattern::SeqWrite | Pattern::RandWrite)
    }

    /// Sequential patterns walk the file; the others jump.
    pub fn is_sequential(self) -> bool {
        matches!(self, Pattern::SeqRead | Pattern::SeqWrite)
    }
}

impl FlowSpec {
    /// The flow's pattern (its kind without the kind's settings).
    pub fn pattern(&self) -> Pattern {
        self.kind.pattern()
    }

    /// Whether the flow may issue writes (a writer pattern, a pool whose
    /// requests are not all reads, a trace with a write).
    pub fn may_write(&self) -> bool {
        match &self.kind {
            FlowKind::Greedy(p) => p.pattern().is_write(),
            FlowKind::Pool(pool) => pool.read_fraction < 1.0,
            FlowKind::Trace(t) => t.requests.iter().any(|r| r.write),
            // A recorded replay issues the trace's writes as writes.
            FlowKind::Startup(st) => {
                st.replay == Replay::Recorded && st.trace.records.iter().any(|r| r.write)
            }
            FlowKind::Video(_) => false,
        }
    }

    /// The length of each of the flow's files, sectors: whole requests,
    /// the flow's file divided by `files`.
    pub fn each_file_sectors(&self) -> u64 {
        let size = u64::from(self.request_sectors.max(1));
        let files = u64::from(self.files.max(1));
        if files == 1 {
            return self.file_sectors;
        }
        (self.file_sectors / files / size).max(1) * size
    }

    /// The file (its first sector and length) that `sector` lies in.
    pub fn file_at(&self, sector: u64) -> (u64, u64) {
        if self.files <= 1 {
            return (self.file_start, self.file_sectors);
        }
        let len = self.each_file_sectors();
        let idx = (sector.saturating_sub(self.file_start) / len).min(u64::from(self.files) - 1);
        (self.file_start + idx * len, len)
    }

    /// Pool flows: the weight of each reservation queue (empty for others).
    pub fn pool_weights(&self) -> &[u32] {
        match &self.kind {
            FlowKind::Pool(p) => &p.weights,
            _ => &[],
        }
    }
}

/// One flow, after `count` expansion and file placement: what every flow
/// has, and its [`FlowKind`] with the settings only that kind has.
///
/// In declaration order (`repr(C)`): the fields a request reads first, the
/// widest first, then the rest; a request then touches two cache lines of
/// its flow's description, not five (at 65,536 flows each is a miss).
#[derive(Clone, Debug, PartialEq)]
#[repr(C)]
pub struct FlowSpec {
    /// The flow's file: first sector and length.
    pub file_start: u64,
    /// Length of the flow's file.
    pub file_sectors: u64,
    /// Pause between a completion and the next issue (or, for a paced
    /// writer, between issues).
    pub think: Duration,
    /// Stop after this many requests (`None` = greedy until the end);
    /// for video flows, the number of frames.
    pub requests: Option<u64>,
    /// Greedy writers: after every this many writes, wait until all of
    /// them have completed before the next (`fsync_every`, fio's
    /// `fsync=N`; a buffered writer's wait is a flush of its file).
    pub fsync_every: Option<u64>,
    /// Greedy flows: at most one issue per this interval (`rate_iops`, as
    /// fio's `rate_iops` caps a job).
    pub rate_interval: Option<Duration>,
    /// Greedy random flows: each request is a read with this probability,
    /// else a write (`read_fraction`; `None`: the pattern's direction).
    pub read_fraction: Option<f64>,
    /// Size of each application request (for video, of each frame).
    pub request_sectors: u32,
    /// Requests kept in flight.
    pub outstanding: u32,
    /// Split each request into fragments of at most this many sectors,
    /// issued together (FreeBSD's 64 KiB raw-I/O limit in the YFQ paper).
    pub fragment_sectors: Option<u32>,
    /// Greedy flows: the file is this many files of equal length, one
    /// after another (fio's `nrfiles`; 1 by default).
    pub files: u32,
    /// Greedy flows with several files: which file the next request goes
    /// to (fio's `file_service_type`).
    pub file_service: FileService,
    /// Straight to the disk, as O_DIRECT (the default); false goes through
    /// the host's page cache (`direct = false`).
    pub direct: bool,
    /// The flow's name (with its index appended when `count` expands it).
    pub name: String,
    /// How it generates requests, with that pattern's own settings.
    pub kind: FlowKind,
    /// What each of the flow's threads is owed and allowed: its weight
    /// (pool flows weigh each queue with their own weights), reservation
    /// (`reservation_iops`, `mclock`'s r_i), rate caps (`limit_iops`, a
    /// token bucket under every policy but `mclock`; `limit_mb_s`) and their
    /// burst (`burst_ms`; `None` = the policy's default).
    pub qos: sluice::Qos,
    /// When the flow starts.
    pub start: Instant,
    /// The index of the flow's class among the scenario's classes, if it
    /// belongs to one (the workload does not use it).
    pub class: Option<u32>,
    /// The index of the flow's group among the scenario's groups.
    pub group: Option<u32>,
    /// Where random offsets fall (`random_distribution`; uniform by
    /// default): greedy random readers and writers, and pools.
    pub distribution: crate::Distribution,
}

/// How a flow with several files picks the file of its next request
/// (fio's `file_service_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileService {
    /// The next file after this many requests to one (fio's default,
    /// `roundrobin`, switches after every request).
    RoundRobin(u32),
    /// A file's whole length of requests, then the next file.
    Sequential,
    /// A file at random for every request.
    Random,
}

impl Default for FileService {
    fn default() -> Self {
        FileService::RoundRobin(1)
    }
}

impl FileService {
    /// fio's spelling: `roundrobin[:N]`, `sequential`, `random`.
    pub fn parse(s: &str) -> Option<Self> {
        let (kind, n) = s.split_once(':').unwrap_or((s, ""));
        let n = if n.is_empty() {
            1
        } else {
            n.parse::<u32>().ok().filter(|n| *n >= 1)?
        };
        match kind {
            "roundrobin" => Some(FileService::RoundRobin(n)),
            "sequential" => Some(FileService::Sequential),
            "random" => Some(FileService::Random),
            _ => None,
        }
    }
}

impl Default for FlowSpec {
    /// A greedy sequential reader with nothing set.
    fn default() -> Self {
        FlowSpec {
            name: String::new(),
            kind: FlowKind::Greedy(GreedyPattern::SeqRead),
            request_sectors: 0,
            file_start: 0,
            file_sectors: 0,
            qos: sluice::Qos::weighted(0),
            start: Instant::ZERO,
            think: Duration::ZERO,
            outstanding: 0,
            requests: None,
            class: None,
            fragment_sectors: None,
            rate_interval: None,
            direct: true,
            group: None,
            distribution: crate::Distribution::Uniform,
            fsync_every: None,
            files: 1,
            file_service: FileService::RoundRobin(1),
            read_fraction: None,
        }
    }
}

/// A flow's pattern with the settings only that pattern has: a start-up
/// always has its trace, a pool its queues; a reader has neither.
#[derive(Clone, Debug, PartialEq)]
pub enum FlowKind {
    /// A greedy reader or writer.
    Greedy(GreedyPattern),
    /// Replay of an application's start-up trace.
    Startup(StartupSpec),
    /// A video player.
    Video(VideoSpec),
    /// Weighted reservation queues.
    Pool(PoolSpec),
    /// Replay of a block trace.
    Trace(TraceSpec),
}

impl FlowKind {
    /// The kind's pattern.
    pub fn pattern(&self) -> Pattern {
        match self {
            FlowKind::Greedy(p) => p.pattern(),
            FlowKind::Startup(_) => Pattern::Startup,
            FlowKind::Video(_) => Pattern::Video,
            FlowKind::Pool(_) => Pattern::Pool,
            FlowKind::Trace(_) => Pattern::Trace,
        }
    }
}

/// The four greedy patterns: a flow that issues as fast as it may.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GreedyPattern {
    /// [`Pattern::SeqRead`]: synchronous reads walking through the file.
    SeqRead,
    /// [`Pattern::RandRead`]: synchronous reads at random aligned offsets.
    RandRead,
    /// [`Pattern::SeqWrite`]: asynchronous writes walking through the file.
    SeqWrite,
    /// [`Pattern::RandWrite`]: asynchronous writes at random aligned offsets.
    RandWrite,
}

impl GreedyPattern {
    /// The greedy pattern `p` is, if it is one.
    pub fn of(p: Pattern) -> Option<Self> {
        match p {
            Pattern::SeqRead => Some(GreedyPattern::SeqRead),
            Pattern::RandRead => Some(GreedyPattern::RandRead),
            Pattern::SeqWrite => Some(GreedyPattern::SeqWrite),
            Pattern::RandWrite => Some(GreedyPattern::RandWrite),
            _ => None,
        }
    }

    /// As a [`Pattern`].
    pub fn pattern(self) -> Pattern {
        match self {
            GreedyPattern::SeqRead => Pattern::SeqRead,
            GreedyPattern::RandRead => Pattern::RandRead,
            GreedyPattern::SeqWrite => Pattern::SeqWrite,
            GreedyPattern::RandWrite => Pattern::RandWrite,
        }
    }
}

/// A start-up flow's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct StartupSpec {
    /// The trace to replay.
    pub trace: Arc<StartupTrace>,
    /// How the trace becomes I/O.
    pub replay: Replay,
    /// Start again at max(start + period, end + pause).
    pub repeat: Option<(Duration, Duration)>,
    /// Stop after this many start-ups.
    pub runs: Option<u64>,
}

/// A video flow's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VideoSpec {
    /// Time between frames.
    pub frame_period: Duration,
    /// Frames read ahead of the display.
    pub buffer_frames: u32,
}

/// A pool flow's settings (Nam–Park's synthetic load).
#[derive(Clone, Debug, PartialEq)]
pub struct PoolSpec {
    /// The weight of each reservation queue (one thread each).
    pub weights: Vec<u32>,
    /// Mean request size (sectors, normally distributed).
    pub size_mean: f64,
    /// Standard deviation of the request size (sectors).
    pub size_sd: f64,
    /// The share of requests that are reads.
    pub read_fraction: f64,
}

/// A block-trace flow's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceSpec {
    /// The requests, placed (absolute sectors), in arrival order.
    pub requests: Arc<Vec<crate::trace::Request>>,
    /// Recorded arrivals or as fast as `outstanding` allows.
    pub timing: crate::trace::Timing,
}

/// How a start-up trace becomes I/O.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Replay {
    /// As the S suite's replay tool issues it (the paper's measurements).
    #[default]
    SSuite,
    /// As recorded: gaps slept, recorded sectors, independent threads.
    Recorded,
    /// As [`Replay::SSuite`], with the program's estimated CPU time slept
    /// before each record ([`crate::startup::think`]).
    Think,
}

impl Replay {
    /// Every mode with its scenario name.
    pub const ALL: [(&'static str, Replay); 3] = [
        ("s-suite", Replay::SSuite),
        ("recorded", Replay::Recorded),
        ("think", Replay::Think),
    ];

    /// The mode a scenario file names (`s-suite`, `recorded`, `think`).
    pub fn parse(s: &str) -> Option<Replay> {
        Self::ALL.iter().find(|m| m.0 == s).map(|m| m.1)
    }

    /// The name a scenario file gives the mode.
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|m| m.1 == self).map_or("", |m| m.0)
    }
}
