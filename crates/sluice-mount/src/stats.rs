//! What each flow got: requests, bytes, throughput while it was active,
//! and latency from arrival (the FUSE request reaching us) to completion.

use serde::Serialize;
use sluice::latency_histogram::LatencyHistogram;
use sluice::{Direction, Instant};

/// The JSON schema `--stats` writes.
pub const SCHEMA: &str = "sluice.mount/1";

/// One flow's totals.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FlowStats {
    /// `comm[pid]` (or the thread's, the user's, the cgroup's name).
    pub name: String,
    /// The `[[class]]` it matched (its `name`, else its index), if any.
    pub class: Option<String>,
    /// Requests completed (reads and writes of file data).
    pub requests: u64,
    /// Bytes transferred.
    pub bytes: u64,
    /// Read requests completed.
    pub reads: u64,
    /// Write requests completed.
    pub writes: u64,
    /// Requests that ended in an error.
    pub errors: u64,
    /// Bytes read per second while active (first arrival to last
    /// completion), in MB/s (10^6 bytes).
    pub read_mb_s: f64,
    /// Bytes written per second while active, MB/s.
    pub write_mb_s: f64,
    /// Seconds from its first request's arrival to its last completion.
    pub active_s: f64,
    /// Its process had exited and the flow was removed from the policy
    /// before the mount ended.
    pub exited: bool,
    /// Latency (arrival to completion) percentiles and maximum, ms.
    pub lat_p50_ms: f64,
    /// 99th percentile.
    pub lat_p99_ms: f64,
    /// Maximum.
    pub lat_max_ms: f64,
}

/// The whole `--stats` document.
#[derive(Clone, Debug, Serialize)]
pub struct MountStats {
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// The policy's name.
    pub scheduler: String,
    /// How flows were formed (`process`, `thread`, `uid`, `cgroup`).
    pub by: String,
    /// Requests in flight to the file system below at most.
    pub queue_depth: usize,
    /// Seconds the mount served.
    pub duration_s: f64,
    /// Per flow, in the order they appeared.
    pub flows: Vec<FlowStats>,
    /// The policy's own counters (as `sim --json`'s `policy_stats`).
    pub policy_stats: std::collections::BTreeMap<String, f64>,
}

/// A flow's running totals.
pub(crate) struct Tally {
    name: String,
    class: Option<String>,
    reads: u64,
    writes: u64,
    errors: u64,
    read_bytes: u64,
    write_bytes: u64,
    first: Option<Instant>,
    last: Instant,
    /// Latency in microseconds.
    latency: LatencyHistogram,
}

impl Tally {
    pub(crate) fn new(name: String, class: Option<String>) -> Self {
        Tally {
            name,
            class,
            reads: 0,
            writes: 0,
            errors: 0,
            read_bytes: 0,
            write_bytes: 0,
            first: None,
            last: Instant::ZERO,
            // Three significant digits, any latency; a few bytes a bin hit,
            // so 65,536 flows cost little.
            latency: LatencyHistogram::default(),
        }
    }

    /// A request of this flow completed.
    pub(crate) fn record(
        &mut self,
        dir: Direction,
        bytes: Option<usize>,
        arrival: Instant,
        completed: Instant,
    ) {
        self.first = Some(self.first.map_or(arrival, |f| f.min(arrival)));
        self.last = self.last.max(completed);
        let n = match bytes {
            Some(n) => n as u64,
            None => {
                self.errors += 1;
                0
            }
        };
        match dir {
            Direction::Read => {
                self.reads += 1;
                self.read_bytes += n;
            }
            Direction::Write => {
                self.writes += 1;
                self.write_bytes += n;
            }
        }
        let us = completed.saturating_duration_since(arrival).as_nanos() / 1000;
        self.latency.record(us.max(1));
    }

    pub(crate) fn summary(&self) -> FlowStats {
        let active = self.first.map_or(0.0, |f| {
            self.last.saturating_duration_since(f).as_secs_f64()
        });
        let rate = |b: u64| {
            if active > 0.0 {
                b as f64 / active / 1e6
            } else {
                0.0
            }
        };
        let ms = |us: u64| us as f64 / 1000.0;
        let empty = self.latency.is_empty();
        FlowStats {
            name: self.name.clone(),
            class: self.class.clone(),
            requests: self.reads + self.writes,
            bytes: self.read_bytes + self.write_bytes,
            reads: self.reads,
            writes: self.writes,
            errors: self.errors,
            read_mb_s: rate(self.read_bytes),
            write_mb_s: rate(self.write_bytes),
            active_s: active,
            exited: false,
            lat_p50_ms: if empty {
                0.0
            } else {
                ms(self.latency.value_at_quantile(0.5))
            },
            lat_p99_ms: if empty {
                0.0
            } else {
                ms(self.latency.value_at_quantile(0.99))
            },
            lat_max_ms: if empty { 0.0 } else { ms(self.latency.max()) },
        }
    }
}

impl MountStats {
    /// The per-flow lines printed when the mount ends.
    pub fn table(&self) -> String {
        let mut out = format!(
            "{:<28} {:>9} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9}\n",
            "flow", "requests", "MB", "read MB/s", "write MB/s", "p50 ms", "p99 ms", "max ms"
        );
        for f in &self.flows {
            out.push_str(&format!(
                "{:<28} {:>9} {:>10.1} {:>9.1} {:>9.1} {:>9.2} {:>9.2} {:>9.2}\n",
                sluice_runtime::names::excerpt(&f.name, 28),
                f.requests,
                f.bytes as f64 / 1e6,
                f.read_mb_s,
                f.write_mb_s,
                f.lat_p50_ms,
                f.lat_p99_ms,
                f.lat_max_ms
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sluice::Duration;

    #[test]
    fn a_tally_counts_bytes_errors_and_latency() {
        let mut t = Tally::new("dd[7]".into(), None);
        let at = |ms: u64| Instant::ZERO + Duration::from_millis(ms);
        t.record(Direction::Read, Some(1_000_000), at(0), at(10));
        t.record(Direction::Read, Some(1_000_000), at(500), at(1000));
        t.record(Direction::Write, None, at(900), at(901));
        let s = t.summary();
        assert_eq!((s.requests, s.reads, s.writes, s.errors), (3, 2, 1, 1));
        assert_eq!(s.bytes, 2_000_000);
        assert!((s.active_s - 1.0).abs() < 1e-9);
        assert!((s.read_mb_s - 2.0).abs() < 1e-9);
        assert!((s.lat_max_ms - 500.0).abs() < 1.0, "{}", s.lat_max_ms);
        assert!((s.lat_p50_ms - 10.0).abs() < 0.1, "{}", s.lat_p50_ms);
    }
}
