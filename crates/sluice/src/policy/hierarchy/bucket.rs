//! Token buckets: the rate limits every policy gets from
//! [`super::Hierarchy`].
//!
//! A bucket fills at the limit's rate up to `burst` worth of it. A request
//! is let through when no dimension (IOPS, bytes/s) is in debt, and then
//! takes its cost, possibly going into debt: a 1 MiB request under a
//! 100 KB/s limit passes once and then holds the flow back ten seconds.
//! This "admit, then owe" rule is blk-throttle's (Linux
//! `block/blk-throttle.c` dispatches a bio once the slice has allowance and
//! charges its full size) and never stalls a request larger than the burst.
//! So a full bucket lets through its burst and one request more.

use crate::time::{Duration, Instant, NS_PER_S};

/// The burst a limit allows when none is given: 100 ms of its rate, the
/// time slice Linux's blk-throttle gives rotational devices
/// (`DFL_THROTL_SLICE_HD`, HZ/10).
pub const DEFAULT_BURST: Duration = Duration::from_millis(100);

/// Debt smaller than this (in requests or bytes) counts as none: the
/// refill at the instant [`Bucket::ready_at`] names may fall short of it by
/// floating-point rounding.
const SLACK: f64 = 1e-6;

/// One dimension of a limit: units per nanosecond, the most the bucket
/// holds, and what it holds now (negative: debt).
#[derive(Clone, Copy, Debug)]
struct Dimension {
    per_ns: f64,
    cap: f64,
    tokens: f64,
}

impl Dimension {
    fn new(per_s: f64, burst: Duration, least: f64) -> Self {
        let per_ns = per_s / NS_PER_S as f64;
        let cap = (per_ns * burst.as_nanos() as f64).max(least);
        Dimension {
            per_ns,
            cap,
            tokens: cap,
        }
    }

    fn refill(&mut self, elapsed_ns: u64) {
        self.tokens = (self.tokens + self.per_ns * elapsed_ns as f64).min(self.cap);
    }

    /// Nanoseconds until the debt is paid (0 if there is none).
    fn wait_ns(&self) -> u64 {
        if self.tokens >= -SLACK {
            0
        } else {
            (-self.tokens / self.per_ns).ceil() as u64
        }
    }
}

/// A rate limit in IOPS, bytes per second or both.
#[derive(Clone, Debug)]
pub struct Bucket {
    iops: Option<Dimension>,
    bytes: Option<Dimension>,
    last: Instant,
}

impl Bucket {
    /// A full bucket for the given limits, or `None` when neither is set
    /// (or neither is a positive finite rate).
    pub fn new(
        limit_iops: Option<f64>,
        limit_mb_s: Option<f64>,
        burst: Option<Duration>,
        now: Instant,
    ) -> Option<Self> {
        let burst = burst.unwrap_or(DEFAULT_BURST);
        let valid = |x: Option<f64>| x.filter(|v| v.is_finite() && *v > 0.0);
        // At least one request fits, whatever the burst.
        let iops = valid(limit_iops).map(|r| Dimension::new(r, burst, 1.0));
        let bytes = valid(limit_mb_s).map(|r| Dimension::new(r * 1e6, burst, 0.0));
        (iops.is_some() || bytes.is_some()).then_some(Bucket {
            iops,
            bytes,
            last: now,
        })
    }

    fn refill(&mut self, now: Instant) {
        let elapsed = now.saturating_duration_since(self.last).as_nanos();
        if elapsed > 0 {
            for d in [&mut self.iops, &mut self.bytes].into_iter().flatten() {
                d.refill(elapsed);
            }
            self.last = now;
        }
    }

    /// Whether a request may pass now.
    pub fn ready(&mut self, now: Instant) -> bool {
        self.refill(now);
        self.wait_ns() == 0
    }

    fn wait_ns(&self) -> u64 {
        [self.iops, self.bytes]
            .iter()
            .flatten()
            .map(Dimension::wait_ns)
            .max()
            .unwrap_or(0)
    }

    /// When a request may pass (at or before `now` if it may now).
    pub fn ready_at(&self) -> Instant {
        self.last
            .saturating_add(Duration::from_nanos(self.wait_ns()))
    }

    /// A request that passed grew by `bytes` (the block layer merged an
    /// arrival into it): the bytes are owed, the request was counted.
    pub fn charge_growth(&mut self, now: Instant, bytes: u64) {
        self.refill(now);
        if let Some(d) = &mut self.bytes {
            d.tokens -= bytes as f64;
        }
    }

    /// A request of `bytes` passes now.
    pub fn charge(&mut self, now: Instant, bytes: u64) {
        self.refill(now);
        if let Some(d) = &mut self.iops {
            d.tokens -= 1.0;
        }
        if let Some(d) = &mut self.bytes {
            d.tokens -= bytes as f64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_ms(ms: u64) -> Instant {
        Instant::ZERO + Duration::from_millis(ms)
    }

    #[test]
    fn iops_limit_lets_through_its_burst_then_its_rate() {
        // 100 IOPS, 50 ms burst: 5 at once and one more on credit, then one
        // per 10 ms.
        let mut b =
            Bucket::new(Some(100.0), None, Some(Duration::from_millis(50)), at_ms(0)).unwrap();
        let mut passed = 0;
        while b.ready(at_ms(0)) {
            b.charge(at_ms(0), 4096);
            passed += 1;
        }
        assert_eq!(passed, 6);
        assert_eq!(b.ready_at(), at_ms(10));
        assert!(!b.ready(at_ms(9)));
        assert!(b.ready(at_ms(10)));
        b.charge(at_ms(10), 4096);
        assert_eq!(b.ready_at(), at_ms(20));
    }

    #[test]
    fn a_large_request_passes_and_leaves_a_debt() {
        // 1 MB/s, 10 ms burst (10 kB): a 1 MB request passes at once, the
        // next waits a second.
        let mut b =
            Bucket::new(None, Some(1.0), Some(Duration::from_millis(10)), at_ms(0)).unwrap();
        assert!(b.ready(at_ms(0)));
        b.charge(at_ms(0), 1_000_000);
        assert!(!b.ready(at_ms(500)));
        // The debt was 990 kB after the burst: paid at 990 ms.
        assert_eq!(b.ready_at(), at_ms(990));
        assert!(b.ready(at_ms(990)));
    }

    #[test]
    fn the_bucket_never_holds_more_than_its_burst() {
        let mut b =
            Bucket::new(Some(10.0), None, Some(Duration::from_millis(200)), at_ms(0)).unwrap();
        // Idle for an hour: still two requests' worth (and one on credit).
        let t = at_ms(3_600_000);
        let mut passed = 0;
        while b.ready(t) {
            b.charge(t, 512);
            passed += 1;
        }
        assert_eq!(passed, 3);
    }

    /// Issue 43 defect 7, for the limits every policy gets: a rate whose
    /// refill per nanosecond underflows still holds (its full bucket and
    /// the one request on credit, then nothing).
    #[test]
    fn a_bucket_never_drops_a_tiny_limit() {
        let t = Instant::ZERO + Duration::from_secs(1_000_000);
        for (iops, mb_s) in [
            (Some(1e-300), None),
            (None, Some(1e-300)),
            (Some(5e-324), Some(5e-324)),
        ] {
            let mut b = Bucket::new(iops, mb_s, None, at_ms(0)).unwrap();
            let mut passed = 0;
            for now in [at_ms(0), at_ms(1), t] {
                while passed < 10 && b.ready(now) {
                    b.charge(now, 4096);
                    passed += 1;
                }
            }
            assert!(passed <= 2, "{iops:?} {mb_s:?}: {passed}");
            assert!(b.ready_at() > t, "{iops:?} {mb_s:?}");
        }
    }

    #[test]
    fn no_positive_limit_no_bucket() {
        assert!(Bucket::new(None, None, None, at_ms(0)).is_none());
        assert!(Bucket::new(Some(0.0), Some(f64::NAN), None, at_ms(0)).is_none());
    }
}
