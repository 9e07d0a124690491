//! The `sluice.sim/1` JSON results (a contract: fields may be added; renaming
//! or removing one bumps the schema).

use serde::{Deserialize, Deserializer, Serialize};

/// Schema tag of [`SimReport`].
pub const SIM_SCHEMA: &str = "sluice.sim/1";

/// The results of one run: who ran what, the measured figures over the
/// window from `measured_from_s` to `sim_time_s`, and the simulator's speed.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SimReport {
    /// Schema tag: [`SIM_SCHEMA`] from the simulator (`sluice run` writes its
    /// own, `sluice.run/1`).
    #[serde(deserialize_with = "sim_or_run_schema")]
    pub schema: SchemaTag,
    /// The scenario's name.
    pub scenario: String,
    /// The scheduling policy's name.
    pub scheduler: String,
    /// The device model's name (`sluice run`: `io_uring`, or `kernel` when
    /// the kernel's scheduler ran the requests).
    pub device: String,
    /// The scenario's seed.
    pub seed: u64,
    /// When the run ended, s from its start (simulated time in the
    /// simulator): the scenario's duration, or earlier when it stopped after
    /// its finite flows (or `sluice run` was interrupted).
    pub sim_time_s: f64,
    /// End of the warm-up, s: only completions from then on are measured.
    pub measured_from_s: f64,
    /// All flows together over the measured window.
    pub aggregate: Aggregate,
    /// Each flow's figures, in scenario order.
    pub flows: Vec<FlowReport>,
    /// What reached the drive after merging (and, buffered, writeback),
    /// completed over the measured window (the simulator's reports).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_requests: Option<DeviceRequests>,
    /// Counters the policy reports (see `Scheduler::stats`).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub policy_stats: std::collections::BTreeMap<String, f64>,
    /// Aggregate MB/s per time bin, when the run was asked for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeline_mb_s: Option<Vec<f64>>,
    /// Each flow's MB/s per time bin (`--timeline MS`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeline: Option<crate::timeline::Timeline>,
    /// How fast the run went (wall clock).
    pub perf: Perf,
}

/// Schema tag of `sluice run`'s reports (a [`SimReport`] too; sluice-real
/// writes it).
pub const RUN_SCHEMA: &str = "sluice.run/1";

/// [`SimReport::schema`] read back: the simulator's or `sluice run`'s.
fn sim_or_run_schema<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    schema_tag(d, &[SIM_SCHEMA, RUN_SCHEMA])
}

/// A result's schema tag: one of the crates' constants. Spelled as an
/// alias so that serde's derive does not take the `&'static str` for a
/// string borrowed from the input (which would tie a result to
/// `Deserialize<'static>`): [`schema_tag`] reads it.
pub type SchemaTag = &'static str;

/// A result's schema tag read back as the `&'static str` it is written
/// from (for `#[serde(deserialize_with)]`): one of `known`, else an error
/// naming what was found and what was expected.
pub fn schema_tag<'de, D: Deserializer<'de>>(
    d: D,
    known: &[&'static str],
) -> Result<&'static str, D::Error> {
    let tag = String::deserialize(d)?;
    known.iter().copied().find(|k| *k == tag).ok_or_else(|| {
        serde::de::Error::custom(format!("schema '{tag}' is not {}", known.join(" or ")))
    })
}

/// The requests the drive served over the measured window: after the block
/// layer merged contiguous arrivals, so a flow's 128 KiB reads may reach it
/// as 512 KiB ones.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DeviceRequests {
    /// Read requests served.
    pub reads: u64,
    /// Write requests served.
    pub writes: u64,
    /// Mean read size, KiB (0 without reads).
    pub read_kib_mean: f64,
    /// Mean write size, KiB (0 without writes).
    pub write_kib_mean: f64,
}

impl DeviceRequests {
    /// From (requests, sectors) of reads and of writes.
    pub fn new(counts: [(u64, u64); 2]) -> Self {
        let mean = |(n, sectors): (u64, u64)| {
            if n == 0 {
                0.0
            } else {
                sectors as f64 / 2.0 / n as f64
            }
        };
        DeviceRequests {
            reads: counts[0].0,
            writes: counts[1].0,
            read_kib_mean: mean(counts[0]),
            write_kib_mean: mean(counts[1]),
        }
    }
}

/// All flows' completions over the measured window together.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Aggregate {
    /// Bytes completed per second of the measured window, MB/s (1e6 bytes/s).
    pub mb_s: f64,
    /// Read bytes completed per second of the measured window, MB/s.
    pub read_mb_s: f64,
    /// Written bytes completed per second of the measured window, MB/s.
    pub write_mb_s: f64,
    /// Requests completed per second of the measured window.
    pub iops: f64,
    /// Requests completed in the measured window.
    pub requests: u64,
}

/// One flow's figures over the measured window (completions after the
/// warm-up).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FlowReport {
    /// The flow's name (`name0`, `name1`, ... when `count` expanded it).
    pub name: String,
    /// The flow's scheduler weight.
    pub weight: u32,
    /// Requests completed in the measured window.
    pub requests: u64,
    /// Bytes those requests transferred.
    pub bytes: u64,
    /// `bytes` per second of the measured window, MB/s (1e6 bytes/s).
    pub mb_s: f64,
    /// Device time attributed to those requests, s: the flow's share of the
    /// device, which throughput alone hides.
    pub disk_time_s: f64,
    /// Latency (arrival to completion) of those requests, ms.
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

/// Latency statistics in ms; all zero (and `cdf` empty) without requests.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Latency {
    /// Mean.
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest.
    pub max: f64,
    /// Standard deviation (0 when read from a result older than it).
    #[serde(default)]
    pub stddev: f64,
    /// The CDF as `[percentile, ms]` pairs: `[0, min]`, fio's percentiles
    /// (1, 5, 10, 20, ..., 99.99), `[100, max]`; empty without requests.
    /// Results older than it have none (read back as empty).
    #[serde(default)]
    pub cdf: Vec<[f64; 2]>,
}

/// Simulator speed. Wall-clock figures: the only part of a report that
/// differs between two runs of the same scenario and seed.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct Perf {
    /// Events processed: the simulator's events; for `sluice run`, the
    /// engine's `io_uring_enter` calls (or the kernel run's requests).
    pub events: u64,
    /// Wall-clock seconds the run took.
    pub wall_s: f64,
    /// Simulated requests completed (warm-up included) per wall-clock second.
    pub requests_per_wall_s: f64,
}

/// One thread (reservation queue) of a pool flow.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ThreadReport {
    /// The queue's scheduler weight.
    pub weight: u32,
    /// Requests it completed in the measured window.
    pub requests: u64,
    /// Those requests per second of the measured window.
    pub iops: f64,
    /// Their bytes per second of the measured window, MB/s (1e6 bytes/s).
    pub mb_s: f64,
}

/// Arrival of the oldest request still pending, per flow (of `flows`),
/// from the (flow, arrival) of every request a host has not seen complete:
/// [`measure`]'s `oldest_pending`.
pub fn oldest_pending(
    flows: usize,
    pending: impl IntoIterator<Item = (usize, sluice::Instant)>,
) -> Vec<Option<sluice::Instant>> {
    let mut oldest: Vec<Option<sluice::Instant>> = vec![None; flows];
    for (f, arrival) in pending {
        let o = &mut oldest[f];
        *o = Some(o.map_or(arrival, |a| a.min(arrival)));
    }
    oldest
}

/// The measured part of a report, as every host of the workloads (the
/// simulator, `sluice run`) builds it: each flow's figures over the window
/// from `warmup` to `end`, and the aggregate. `oldest_pending[i]` is the
/// arrival of flow `i`'s oldest request still unserved.
pub fn measure(
    flows: &[sluice_workload::Flow],
    oldest_pending: &[Option<sluice::Instant>],
    warmup: sluice::Instant,
    end: sluice::Instant,
) -> (Aggregate, Vec<FlowReport>) {
    use sluice::Duration;
    let secs = end.saturating_duration_since(warmup).as_secs_f64();
    let per_s = |x: f64| if secs > 0.0 { x / secs } else { 0.0 };
    let mb = |bytes: u64| per_s(bytes as f64 / 1e6);
    let mut reports = Vec::with_capacity(flows.len());
    let (mut bytes, mut rb, mut wb, mut reqs) = (0, 0, 0, 0);
    for (fi, f) in flows.iter().enumerate() {
        let m = &f.metrics;
        bytes += m.bytes;
        rb += m.read_bytes;
        wb += m.write_bytes;
        reqs += m.requests;
        let l = m.latency_ms();
        reports.push(FlowReport {
            name: f.spec.name.clone(),
            weight: f.spec.qos.weight,
            requests: m.requests,
            bytes: m.bytes,
            mb_s: mb(m.bytes),
            disk_time_s: m.disk_time.as_secs_f64(),
            over_1s: m.count_above(Duration::from_secs(1)),
            oldest_pending_ms: oldest_pending
                .get(fi)
                .copied()
                .flatten()
                .map(|a| end.saturating_duration_since(a).as_millis_f64()),
            lat_ms: Latency {
                mean: l.mean,
                p50: l.p50,
                p95: l.p95,
                p99: l.p99,
                max: l.max,
                stddev: m.latency_stddev_ms(),
                cdf: m
                    .latency_cdf_ms()
                    .into_iter()
                    .map(|(p, ms)| [p, ms])
                    .collect(),
            },
            done_s: f
                .done_at
                .map(|t| t.saturating_duration_since(f.spec.start).as_secs_f64()),
            frames_dropped: f.frames().map(|(_, d)| d),
            frames: f.frames().map(|(n, _)| n),
            startups: f.startups().map(|(n, _)| n),
            startup_s: f.startups().and_then(|(n, m)| (n > 0).then_some(m)),
            threads: f.reports_threads().then(|| {
                f.thread_stats
                    .iter()
                    .enumerate()
                    .map(|(t, &(n, sectors))| ThreadReport {
                        weight: f.thread_weight(t as u32),
                        requests: n,
                        iops: per_s(n as f64),
                        mb_s: mb(sectors * 512),
                    })
                    .collect()
            }),
            disk_timeline_s: None,
        });
    }
    let aggregate = Aggregate {
        mb_s: mb(bytes),
        read_mb_s: mb(rb),
        write_mb_s: mb(wb),
        iops: per_s(reqs as f64),
        requests: reqs,
    };
    (aggregate, reports)
}
