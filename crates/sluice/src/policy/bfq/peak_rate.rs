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
//! Start of the estimate. B_max before any sample is the initial maximum
//! budget (16384 sectors, Linux's default).
//!
//! * BFQ: the first sample of a queue not detected as random becomes R_est
//!   directly (a maximum started at the rate the initial B_max implies
//!   could never go below it, and any later faster sample replaces a low
//!   first one at once). A random queue's sample only counts once there is
//!   an estimate, if it is higher: a random reader's rate (0.5 MB/s on a
//!   50 MB/s disk) is no measure of the peak rate, and as a first estimate
//!   it shrinks B_max to a few requests, after which a sequential queue
//!   rarely gets the 20 ms of service a correcting sample needs.
//! * BFQ+: the filter starts from `R_0 = 16384 / T_max`, the rate the
//!   initial B_max stands for, so that `B_max = T_max * R_est` holds from the
//!   start and the paper's update rule applies to every sample, the first
//!   included. Seeding R_est with the first sample instead (as this module
//!   once did) breaks that rule: the first sample is as likely as not a
//!   random queue's (0.5 MB/s on a 50 MB/s disk), which the paper never
//!   lets lower R_est, and once B_max has collapsed to that rate the filter
//!   cannot recover: budgets are capped at a few requests, so no sequential
//!   queue is served for the 20 ms a sample needs, while every random queue
//!   keeps sampling its own rate. The papers do not say where R_est starts;
//!   Linux BFQ of the time kept B_max at its default until it had 32
//!   samples, and its later versions start the filter from a default peak
//!   rate, as here.

use crate::time::Duration;

/// Shortest service time a sample is taken from.
pub(crate) const MIN_SAMPLE_TIME: Duration = Duration::from_millis(20);

/// B_max before any sample, in sectors.
pub(crate) const INITIAL_MAX_BUDGET: u64 = 16384;

/// The estimator.
#[derive(Clone, Debug)]
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
    pub time: Duration,
    /// The queue is detected as random.
    pub random: bool,
    /// The slot ended with a budget timeout.
    pub timed_out: bool,
}

impl PeakRate {
    /// An estimator for the budget timeout `timeout` (T_max): BFQ+'s
    /// filter (`lpf`) starts from the rate the initial B_max stands for,
    /// BFQ's maximum from its first sample.
    pub(crate) fn new(lpf: bool, timeout: Duration) -> Self {
        let est = lpf.then(|| INITIAL_MAX_BUDGET as f64 / timeout.as_nanos().max(1) as f64);
        PeakRate { est, lpf }
    }

    /// The estimate, in sectors per nanosecond.
    pub(crate) fn estimate(&self) -> Option<f64> {
        self.est
    }

    /// Feed a slot's sample; returns whether the estimate changed.
    pub(crate) fn sample(&mut self, s: &Sample) -> bool {
        if s.time < MIN_SAMPLE_TIME || s.sectors == 0 {
            return false;
        }
        let r = s.sectors as f64 / s.time.as_nanos() as f64;
        let Some(est) = self.est else {
            // BFQ's first estimate: not from a random queue (see the
            // module doc).
            if s.random {
                return false;
            }
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
    pub(crate) fn max_budget(&self, timeout: Duration) -> u64 {
        match self.est {
            None => INITIAL_MAX_BUDGET,
            Some(r) => ((r * timeout.as_nanos() as f64).round() as u64).max(1),
        }
    }
}
