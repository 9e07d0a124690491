//! What a flow is, once a scenario has been read: its [`Pattern`] and the
//! numbers that drive it ([`FlowSpec`]). Reading scenario files is the
//! simulator's business; the values are the same for every engine.

use std::sync::Arc;

use sluice::{Duration, Instant};

use crate::replay::Replay;
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
    /// Whether the flow may issue writes (a writer pattern, or a pool whose
    /// requests are not all reads).
    pub fn may_write(&self) -> bool {
        self.pattern.is_write()
            || self.pattern == Pattern::Pool && self.read_fraction < 1.0
            || self
                .trace_requests
                .as_ref()
                .is_some_and(|t| t.iter().any(|r| r.write))
    }
}

/// One flow, after `count` expansion and file placement.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct FlowSpec {
    /// The flow's name (with its index appended when `count` expands it).
    pub name: String,
    /// How it generates requests.
    pub pattern: Pattern,
    /// Size of each application request (for video, of each frame).
    pub request_sectors: u32,
    /// The flow's file: first sector and length.
    pub file_start: u64,
    /// Length of the flow's file.
    pub file_sectors: u64,
    /// The scheduler weight of the flow's threads (pool flows weigh each
    /// queue with `pool_weights`).
    pub weight: u32,
    /// When the flow starts.
    pub start: Instant,
    /// Pause between a completion and the next issue (or, for a paced
    /// writer, between issues).
    pub think: Duration,
    /// Requests kept in flight.
    pub outstanding: u32,
    /// Stop after this many requests (`None` = greedy until the end);
    /// for video flows, the number of frames.
    pub requests: Option<u64>,
    /// Start-up flows: the trace to replay.
    pub trace: Option<Arc<StartupTrace>>,
    /// Start-up flows: how the trace becomes I/O.
    pub replay: Replay,
    /// Start-up flows: start again at max(start + period, end + pause).
    pub repeat: Option<(Duration, Duration)>,
    /// Start-up flows: stop after this many start-ups.
    pub runs: Option<u64>,
    /// Video flows: time between frames.
    pub frame_period: Duration,
    /// Video flows: frames read ahead of the display.
    pub buffer_frames: u32,
    /// The index of the flow's class among the scenario's classes, if it
    /// belongs to one (the workload does not use it).
    pub class: Option<u32>,
    /// Pool flows: the weight of each reservation queue (one thread each).
    pub pool_weights: Vec<u32>,
    /// Pool flows: mean request size (sectors, normally distributed).
    pub size_mean: f64,
    /// Pool flows: standard deviation of the request size (sectors).
    pub size_sd: f64,
    /// Pool flows: the share of requests that are reads.
    pub read_fraction: f64,
    /// Split each request into fragments of at most this many sectors,
    /// issued together (FreeBSD's 64 KiB raw-I/O limit in the YFQ paper).
    pub fragment_sectors: Option<u32>,
    /// Trace flows: the requests, placed (absolute sectors), in arrival
    /// order.
    pub trace_requests: Option<Arc<Vec<crate::trace::Request>>>,
    /// Trace flows: recorded arrivals or as fast as `outstanding` allows.
    pub timing: crate::trace::Timing,
    /// Greedy flows: at most one issue per this interval (`rate_iops`, as
    /// fio's `rate_iops` caps a job).
    pub rate_interval: Option<Duration>,
}
