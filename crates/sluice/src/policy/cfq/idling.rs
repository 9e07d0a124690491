//! Idling: whether CFQ keeps the device idle for the active queue's next
//! request, the idle timer, and the think-time and seek statistics that
//! decide a queue's idle window.

use super::{Cfq, DEEP_QUEUED, JIFFY, SECT_THR_NONROT, SEEK_THR};
use crate::time::Instant;
use crate::types::{FlowId, Request};

impl Cfq {
    /// `cfq_should_idle`.
    pub(super) fn should_idle(&self, qi: usize) -> bool {
        let q = &self.queues[qi];
        if q.idle_window && !(self.p.nonrot && self.hw_tag) {
            return true;
        }
        self.tree_count(qi) == 1 && q.sync
    }

    /// `cfq_arm_slice_timer`, for the active queue whose slice ends at
    /// `slice_end` (started: `complete` starts it first).
    pub(super) fn arm_slice_timer(&mut self, slice_end: Instant, now: Instant) {
        let Some(qi) = self.active else { return };
        if self.p.nonrot && self.hw_tag {
            return;
        }
        if self.p.slice_idle.as_nanos() == 0 || !self.should_idle(qi) {
            return;
        }
        let q = &self.queues[qi];
        if q.dispatched > 0 {
            return;
        }
        let Some(f) = self.active_cic.and_then(|f| self.flows.get(&f)) else {
            return;
        };
        if !f.alive {
            return;
        }
        // `slice_end - now < ttime_mean`, without the subtraction.
        if f.think.mean().is_some_and(|m| slice_end < now + m) {
            return;
        }
        self.queues[qi].wait_request = true;
        self.idle_timer = Some(now + self.p.slice_idle);
    }

    /// `cfq_idle_slice_timer`, if it is due (early calls do nothing).
    pub(super) fn idle_slice_timer(&mut self, now: Instant) {
        if self.idle_timer.is_none_or(|t| t > now) {
            return;
        }
        self.idle_timer = None;
        let Some(qi) = self.active else { return };
        self.queues[qi].wait_request = false;
        let q = &self.queues[qi];
        if q.slice_used(now) {
            self.slice_expired(false, now);
        } else if self.busy_queues == 0 || !q.sorted.is_empty() {
            // Nothing else to run, or it has a request: let it dispatch.
        } else {
            self.queues[qi].deep = false;
            self.slice_expired(false, now);
        }
    }

    /// `cfq_should_wait_busy` (one group: only when this is the only busy
    /// queue), for the active queue whose started slice ends at `slice_end`.
    pub(super) fn should_wait_busy(&self, slice_end: Instant, now: Instant) -> bool {
        if self.nr_cfqq() > 1 {
            return false;
        }
        // cfq_slice_used
        if now >= slice_end {
            return true;
        }
        let left = slice_end - now;
        if let Some(f) = self.active_cic.and_then(|f| self.flows.get(&f)) {
            if f.think.mean().is_some_and(|m| left < m) {
                return true;
            }
        }
        // (`left > 0` holds: the slice is not used.)
        left <= JIFFY
    }

    /// `cfq_update_io_thinktime`.
    pub(super) fn update_thinktime(&mut self, now: Instant, flow: FlowId) {
        let slice_idle = self.p.slice_idle;
        let f = self.flow_mut(now, flow);
        let since = now.saturating_duration_since(f.last_end_request);
        f.think.update(since, slice_idle);
    }

    /// `cfq_update_io_seektime`.
    pub(super) fn update_seektime(&mut self, qi: usize, rq: &Request) {
        let nonrot = self.p.nonrot;
        let q = &mut self.queues[qi];
        let sdist = if q.last_request_pos != 0 {
            q.last_request_pos.abs_diff(rq.sector)
        } else {
            0
        };
        let seeky = if nonrot {
            rq.sectors < SECT_THR_NONROT
        } else {
            sdist > SEEK_THR
        };
        q.seek_history = (q.seek_history << 1) | u32::from(seeky);
    }

    /// `cfq_update_idle_window`.
    pub(super) fn update_idle_window(&mut self, qi: usize, flow: FlowId) {
        if !self.queues[qi].sync {
            return;
        }
        let slice_idle = self.p.slice_idle.as_nanos();
        let (alive, mean) = self
            .flows
            .get(&flow)
            .map_or((false, None), |f| (f.alive, f.think.mean()));
        let q = &mut self.queues[qi];
        if q.sorted.len() >= DEEP_QUEUED {
            q.deep = true;
        }
        if !alive || slice_idle == 0 || (!q.deep && q.seeky()) {
            q.idle_window = false;
        } else if let Some(mean) = mean {
            q.idle_window = mean.as_nanos() <= slice_idle;
        }
    }
}
