//! H-low-latency: weight raising (SYSTOR 2012 "Improving Application
//! Responsiveness with the BFQ Disk I/O Scheduler", §4.1).
//!
//! A queue that becomes backlogged for the first time, or again after being
//! idle for at least T_idle, gets its weight multiplied by C_rais and a
//! weight-raising budget of B_rais sectors. For every sector of service the
//! queue receives, the raising budget drops by one, and the weight drops
//! linearly with it, by `(C_rais - 1) / B_rais * w` per sector, reaching the
//! original weight `w` exactly when the raising budget is exhausted. If the
//! raising budget is not consumed within T_rais of the raising, it is
//! zeroed and the weight reset.
//!
//! The weight a queue is scheduled with changes only when B-WF2Q+ (re)queues
//! it (at activation and at the end of each service slot), as the weight of
//! an entity under service cannot change its already computed timestamps.
//! Only synchronous (per-flow) queues are raised: the shared async queue
//! holds no application's start-up reads (Linux never raises async queues
//! either).

use crate::time::{Duration, Instant};

/// Weight-raising parameters (`raising_*` of `BfqTunables`, which hold
/// their defaults).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RaisingParams {
    /// C_rais: weight multiplier.
    pub coeff: u32,
    /// B_rais: raising budget in sectors.
    pub budget: u64,
    /// T_rais: maximum raising time.
    pub max_time: Duration,
    /// T_idle: minimum idle time before a queue is raised again.
    pub min_idle: Duration,
}

/// A queue's raising state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Raising {
    /// Raising budget left, in sectors (0 = not raised).
    pub left: u64,
    /// When the weight was last raised.
    pub since: Instant,
}

impl Raising {
    /// Raise the weight now.
    pub(crate) fn start(&mut self, now: Instant, p: &RaisingParams) {
        self.left = p.budget;
        self.since = now;
    }

    /// End raising if T_rais has passed since it started.
    pub(crate) fn expire_if_late(&mut self, now: Instant, p: &RaisingParams) {
        if self.left > 0 && now.saturating_duration_since(self.since) >= p.max_time {
            self.left = 0;
        }
    }

    /// Whether the queue is raised at `now`.
    pub(crate) fn active(&self, now: Instant, p: &RaisingParams) -> bool {
        self.left > 0 && now.saturating_duration_since(self.since) < p.max_time
    }

    /// The queue received `service` sectors.
    pub(crate) fn consume(&mut self, service: u64) {
        self.left = self.left.saturating_sub(service);
    }

    /// The weight to schedule with: `w + (C_rais - 1) * w * left / B_rais`.
    pub(crate) fn weight(&self, base: u32, p: &RaisingParams) -> u32 {
        if self.left == 0 || p.budget == 0 {
            return base;
        }
        let extra = u128::from(p.coeff.saturating_sub(1))
            * u128::from(base)
            * u128::from(self.left.min(p.budget))
            / u128::from(p.budget);
        base + extra as u32
    }
}
