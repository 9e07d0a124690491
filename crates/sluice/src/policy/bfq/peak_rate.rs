//! The disk peak-rate estimate R_est and B_max = T_max * R_est (SYSTOR 2012
//! "Improving Application Responsiveness with the BFQ Disk I/O Scheduler",
//! §3.2 and §4.2).
//!
//! A sample R_meas is taken when the queue in service is deactivated after
//! at least 20 ms of service: the sectors it transferred over the time it
//! was served. Both BFQ and BFQ+ ignore shorter slots (§4.2 states the
//! 20 ms filter before describing either estimator).
//!
//! * BFQ keeps the highest sample: `R_est = max(R_est, R_meas)`.
//! * BFQ+ (H-peak-rate) low-pass filters: `R_est = 7/8 R_est + 1/8 R_meas`,
//!   applied when `R_meas > R_est` or when the queue, not detected as
//!   random, did not consume its budget within T_max (a budget timeout:
//!   B_max, hence R_est, is probably too high). The paper's pseudo-code
//!   says "not budget exhausted", its text "has not been able to consume
//!   all of its budget within T_max"; we follow the text (a queue that
//!   ran out of requests says nothing about the disk's rate).
//!
//! Time base: a sample divides the sectors of the slot's *completed*
//! requests by the sum of their `Service::disk_time`. Disk time is the
//! device time attributed to each request (split among requests in flight
//! together), so the sample measures the device while it served this queue,
//! not the host's think time or BFQ's idle waits (Linux, which has no such
//! attribution, measures wall time from the slot start instead).
//!
//! Until the first accepted sample, B_max is the initial maximum budget
//! (16384 sectors, Linux's default) and the first accepted sample becomes
//! R_est directly (a filter started at 0 would take dozens of slots to
//! converge, with tiny budgets meanwhile).

use crate::types::{Nanos, NS_PER_MS};

/// Shortest service time a sample is taken from.
pub const MIN_SAMPLE_TIME: Nanos = 20 * NS_PER_MS;

/// B_max before any sample, in sectors.
pub const INITIAL_MAX_BUDGET: u64 = 16384;

/// The estimator.
#[derive(Clone, Debug, Default)]
pub(crate) struct PeakRate {
    /// Sectors per nanosecond.
    est: Option<f64>,
    /// BFQ+'s low-pass filter instead of the maximum.
    lpf: bool,
}

/// One slot's measurement.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sample {
    pub sectors: u64,
    pub time: Nanos,
    /// The queue is detected as random.
    pub random: bool,
    /// The slot ended with a budget timeout.
    pub timed_out: bool,
}

impl PeakRate {
    pub fn new(lpf: bool) -> Self {
        PeakRate { est: None, lpf }
    }

    /// The estimate, in sectors per nanosecond.
    pub fn estimate(&self) -> Option<f64> {
        self.est
    }

    /// Feed a slot's sample; returns whether the estimate changed.
    pub fn sample(&mut self, s: &Sample) -> bool {
        if s.time < MIN_SAMPLE_TIME || s.sectors == 0 {
            return false;
        }
        let r = s.sectors as f64 / s.time as f64;
        let Some(est) = self.est else {
            self.est = Some(r);
            return true;
        };
        let new = if !self.lpf {
            est.max(r)
        } else if est < r || (!s.random && s.timed_out) {
            est * 7.0 / 8.0 + r / 8.0
        } else {
            est
        };
        self.est = Some(new);
        new != est
    }

    /// B_max = T_max * R_est, in sectors (at least one sector).
    pub fn max_budget(&self, timeout: Nanos) -> u64 {
        match self.est {
            None => INITIAL_MAX_BUDGET,
            Some(r) => ((r * timeout as f64) as u64).max(1),
        }
    }
}
