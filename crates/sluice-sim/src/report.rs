//! The `sluice.sim/1` JSON results (a contract: fields may be added; renaming
//! or removing one bumps the schema).

use serde::Serialize;

/// Schema tag of [`SimReport`].
pub const SIM_SCHEMA: &str = "sluice.sim/1";

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SimReport {
    pub schema: &'static str,
    pub scenario: String,
    pub scheduler: String,
    pub device: String,
    pub seed: u64,
    pub sim_time_s: f64,
    pub measured_from_s: f64,
    pub aggregate: Aggregate,
    pub flows: Vec<FlowReport>,
    /// Counters the policy reports (see `Scheduler::stats`).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub policy_stats: std::collections::BTreeMap<String, f64>,
    /// Aggregate MB/s per time bin, when the run was asked for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeline_mb_s: Option<Vec<f64>>,
    pub perf: Perf,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Aggregate {
    pub mb_s: f64,
    pub read_mb_s: f64,
    pub write_mb_s: f64,
    pub iops: f64,
    pub requests: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FlowReport {
    pub name: String,
    pub weight: u32,
    pub requests: u64,
    pub bytes: u64,
    pub mb_s: f64,
    pub disk_time_s: f64,
    pub lat_ms: Latency,
    /// Requests that took longer than one second.
    pub over_1s: u64,
    /// Age (ms) of the oldest request still unserved when the run ended:
    /// a starved flow's delay, which `lat_ms` (completions only) misses.
    pub oldest_pending_ms: Option<f64>,
    /// Finite flows: seconds from the flow's start to its last completion.
    pub done_s: Option<f64>,
    /// Video flows: frames shown after the warm-up not read by their
    /// display time.
    pub frames_dropped: Option<u64>,
    /// Video flows: frames shown after the warm-up.
    pub frames: Option<u64>,
    /// Start-up flows: start-ups that ended after the warm-up.
    pub startups: Option<u64>,
    /// Start-up flows: their mean start-up time, seconds.
    pub startup_s: Option<f64>,
    /// Pool flows: each reservation queue's share.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads: Option<Vec<ThreadReport>>,
    /// Device time (s) per timeline bin, when the run was asked for a
    /// timeline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disk_timeline_s: Option<Vec<f64>>,
}

#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct Latency {
    pub mean: f64,
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

/// Simulator speed. Wall-clock figures: the only part of a report that
/// differs between two runs of the same scenario and seed.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct Perf {
    pub events: u64,
    pub wall_s: f64,
    /// Simulated requests completed (warm-up included) per wall-clock second.
    pub requests_per_wall_s: f64,
}

/// One thread (reservation queue) of a pool flow.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ThreadReport {
    pub weight: u32,
    pub requests: u64,
    pub iops: f64,
    pub mb_s: f64,
}
