//! Time slices: how long the active queue is served (`cfq_prio_slice`,
//! the low-latency scaling) and what happens when its slice ends.

use super::{key, Cfq, HIST_DIVISOR, NORM_PRIO, PRIO_LEVELS, SLICE_SCALE};
use crate::time::{Duration, Instant};

impl Cfq {
    /// `cfq_prio_slice`.
    pub(super) fn prio_slice(&self, sync: bool, prio: u8) -> Duration {
        let base = if sync {
            self.p.slice_sync
        } else {
            self.p.slice_async
        };
        let step = base / SLICE_SCALE;
        // prio <= 7: the slice stays above 2/5 of the base.
        base + step * u64::from(NORM_PRIO) - step * u64::from(prio)
    }

    /// `cfq_group_get_avg_queues`: rises fast, decays slowly.
    pub(super) fn avg_queues(&mut self) -> u64 {
        let busy = self.nr_cfqq() as u64;
        let (lo, hi) = if busy < self.busy_queues_avg {
            (busy, self.busy_queues_avg)
        } else {
            (self.busy_queues_avg, busy)
        };
        self.busy_queues_avg = ((HIST_DIVISOR - 1) * hi + lo + HIST_DIVISOR / 2) / HIST_DIVISOR;
        self.busy_queues_avg
    }

    /// `cfq_set_prio_slice`: start the active queue's slice now; returns
    /// its end.
    pub(super) fn set_prio_slice(&mut self, qi: usize, now: Instant) -> Instant {
        let (sync, prio) = (self.queues[qi].sync, self.queues[qi].prio);
        let mut slice = self.prio_slice(sync, prio);
        if self.p.low_latency {
            let iq = self.avg_queues();
            let sync_slice = self.p.slice_sync;
            let expect_latency = sync_slice * iq;
            // One group: its share of the target latency is all of it.
            let group_slice = self.p.target_latency;
            if expect_latency > group_slice {
                let base_low_slice = self.p.slice_idle * 2;
                let low_slice =
                    slice.min(base_low_slice * slice.as_nanos() / sync_slice.as_nanos());
                slice = (slice * group_slice.as_nanos() / expect_latency.as_nanos()).max(low_slice);
            }
        }
        let end = now + slice;
        let q = &mut self.queues[qi];
        q.slice_start = Some(now);
        q.slice_end = Some(end);
        end
    }

    /// `cfq_prio_to_maxrq`.
    pub(super) fn prio_to_maxrq(&self, prio: u8) -> u32 {
        let base = self.p.slice_async_rq;
        2 * (base + base * (PRIO_LEVELS as u32 - 1 - u32::from(prio)))
    }

    /// `__cfq_slice_expired` (with `cfq_group_served` for one group).
    pub(super) fn slice_expired(&mut self, timed_out: bool, now: Instant) {
        let Some(qi) = self.active else { return };
        let q = &mut self.queues[qi];
        if q.wait_request {
            self.idle_timer = None;
        }
        q.wait_request = false;
        q.wait_busy = false;
        if let Some(end) = q.slice_end.filter(|_| timed_out) {
            q.slice_resid = key(end) - key(now);
        }
        match self.workload_expires {
            Some(end) if end > now => {
                self.saved_workload_slice = end - now;
                self.saved_workload = self.serving_type;
            }
            _ => self.saved_workload_slice = Duration::ZERO,
        }
        if self.queues[qi].on_rr && self.queues[qi].sorted.is_empty() {
            self.del_rr(qi);
        }
        if self.queues[qi].on_rr {
            self.service_tree_add(qi, false, now);
        }
        self.active = None;
        self.active_cic = None;
    }

    /// `cfq_slice_used_soon`.
    pub(super) fn slice_used_soon(&self, qi: usize, now: Instant) -> bool {
        let q = &self.queues[qi];
        q.slice_end
            .is_none_or(|end| now + self.p.slice_idle * q.dispatched as u64 > end)
    }

    #[cfg(test)]
    pub(super) fn active_slice(&self) -> Option<(Instant, Instant)> {
        let q = &self.queues[self.active?];
        Some((q.slice_start?, q.slice_end?))
    }
}
