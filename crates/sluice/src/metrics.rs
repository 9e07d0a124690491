//! Per-flow measurements shared by every driver: bytes, requests, device
//! time and a latency histogram.

use crate::latency_histogram::LatencyHistogram;

use crate::time::Duration;

const US_PER_MS: f64 = 1000.0;

/// The percentiles fio reports (`clat_ns.percentile`), which sluice's
/// latency CDFs use too.
pub const FIO_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// What one flow received over the measured window.
#[derive(Clone, Debug)]
pub struct FlowMetrics {
    /// Completed requests.
    pub requests: u64,
    /// Bytes of the completed requests, reads and writes.
    pub bytes: u64,
    /// Bytes of the completed reads.
    pub read_bytes: u64,
    /// Bytes of the completed writes.
    pub write_bytes: u64,
    /// Device time attributed to the flow (see [`crate::Service::disk_time`]).
    pub disk_time: Duration,
    /// Microseconds, HDR bins of 3 significant digits; a few bytes a bin
    /// hit, so 65,536 flows fit where one dense histogram each did not.
    latency: LatencyHistogram,
}

impl Default for FlowMetrics {
    fn default() -> Self {
        FlowMetrics {
            requests: 0,
            bytes: 0,
            read_bytes: 0,
            write_bytes: 0,
            disk_time: Duration::ZERO,
            latency: LatencyHistogram::default(),
        }
    }
}

/// Latency summary in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LatencySummary {
    /// Mean latency, ms.
    pub mean: f64,
    /// Median latency, ms.
    pub p50: f64,
    /// 95th-percentile latency, ms.
    pub p95: f64,
    /// 99th-percentile latency, ms.
    pub p99: f64,
    /// Largest latency, ms.
    pub max: f64,
}

impl FlowMetrics {
    /// Count one completed request of `bytes` with the given latency.
    pub fn record(&mut self, bytes: u64, write: bool, latency: Duration) {
        self.requests += 1;
        self.bytes += bytes;
        if write {
            self.write_bytes += bytes;
        } else {
            self.read_bytes += bytes;
        }
        let us = (latency.as_nanos() / 1000).max(1);
        self.latency.record(us);
    }

    /// The latency histogram, if a request was recorded.
    fn hist(&self) -> Option<&LatencyHistogram> {
        Some(&self.latency).filter(|h| !h.is_empty())
    }

    /// Requests whose latency exceeded `limit`.
    pub fn count_above(&self, limit: Duration) -> u64 {
        let Some(h) = self.hist() else { return 0 };
        let us = limit.as_nanos() / 1000;
        let from = h.next_non_equivalent(us);
        h.count_between(from, h.max().max(from))
    }

    /// The latency (ms) at `percentile` (0 = min, 100 = max; clamped to
    /// that range); 0 when nothing was recorded.
    pub fn latency_percentile_ms(&self, percentile: f64) -> f64 {
        let Some(h) = self.hist() else { return 0.0 };
        let us = match percentile {
            p if p <= 0.0 || p.is_nan() => h.min(),
            p if p >= 100.0 => h.max(),
            p => h.value_at_quantile(p / 100.0),
        };
        us as f64 / US_PER_MS
    }

    /// The latency CDF in ms: (0, min), fio's percentiles, (100, max);
    /// empty when nothing was recorded.
    pub fn latency_cdf_ms(&self) -> Vec<(f64, f64)> {
        if self.hist().is_none() {
            return Vec::new();
        }
        std::iter::once(0.0)
            .chain(FIO_PERCENTILES)
            .chain(std::iter::once(100.0))
            .map(|p| (p, self.latency_percentile_ms(p)))
            .collect()
    }

    /// Standard deviation of the latency, ms (0 when nothing was recorded).
    pub fn latency_stddev_ms(&self) -> f64 {
        self.hist().map_or(0.0, |h| h.stdev() / US_PER_MS)
    }

    /// Latency percentiles in ms (zeros when nothing was recorded).
    pub fn latency_ms(&self) -> LatencySummary {
        let Some(h) = self.hist() else {
            return LatencySummary::default();
        };
        LatencySummary {
            mean: h.mean() / US_PER_MS,
            p50: self.latency_percentile_ms(50.0),
            p95: self.latency_percentile_ms(95.0),
            p99: self.latency_percentile_ms(99.0),
            max: self.latency_percentile_ms(100.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_bytes_by_direction_and_latency_percentiles() {
        let mut m = FlowMetrics::default();
        for i in 1..=100u64 {
            m.record(4096, i % 4 == 0, Duration::from_millis(i));
        }
        assert_eq!(m.requests, 100);
        assert_eq!(m.write_bytes, 25 * 4096);
        assert_eq!(m.read_bytes, 75 * 4096);
        let l = m.latency_ms();
        assert!((l.p50 - 50.0).abs() < 0.1, "{l:?}");
        assert!((l.p99 - 99.0).abs() < 0.1, "{l:?}");
        assert!((l.max - 100.0).abs() < 0.1, "{l:?}");
        assert!((l.mean - 50.5).abs() < 0.1, "{l:?}");
        assert_eq!(m.count_above(Duration::from_millis(90)), 10);
        let cdf = m.latency_cdf_ms();
        assert_eq!(cdf.len(), FIO_PERCENTILES.len() + 2);
        assert_eq!((cdf[0].0, cdf.last().unwrap().0), (0.0, 100.0));
        assert!(
            (cdf[0].1 - 1.0).abs() < 0.01 && (cdf[7].1 - 50.0).abs() < 0.1,
            "{cdf:?}"
        );
        assert!(cdf.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1));
        assert!((m.latency_stddev_ms() - 28.87).abs() < 0.1);
        assert!((m.latency_percentile_ms(30.0) - 30.0).abs() < 0.1);
        assert!((m.latency_percentile_ms(0.0) - 1.0).abs() < 0.01);
        assert!((m.latency_percentile_ms(250.0) - 100.0).abs() < 0.1);
    }

    #[test]
    fn empty_metrics_report_zero_latency() {
        assert_eq!(
            FlowMetrics::default().latency_ms(),
            LatencySummary::default()
        );
        assert_eq!(FlowMetrics::default().latency_percentile_ms(99.0), 0.0);
    }
}
