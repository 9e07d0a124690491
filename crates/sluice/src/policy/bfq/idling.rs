//! Idling: whether BFQ keeps the device idle for the queue in service once
//! it is empty, for how long, and the think-time idle window.

use super::{Bfq, BfqVariant};
use crate::scheduler::DeviceView;
use crate::time::{Duration, Instant};

impl Bfq {
    /// Whether BFQ idles for the queue in service once it is empty.
    pub(super) fn idles_for(&self, now: Instant, qi: u32, device: &dyn DeviceView) -> bool {
        let q = &self.queues[qi as usize];
        if !q.sync || self.cfg.slice_idle.is_zero() {
            return false;
        }
        let raised = self.cfg.low_latency && q.raising.active(now, &self.cfg.raising);
        let random = q.seek.is_random(self.cfg.seek_threshold);
        // On a drive that queues commands (as `hw_tag_detection` tells it
        // from the requests in flight, or by its depth alone), BFQ+ idles
        // only for the queues BFQ's code kept idling for: sequential ones
        // (`ncq_seq_idling`) and raised ones (`raised_ncq_idling`); with
        // both off, none (SYSTOR §5.1 read literally).
        if self.cfg.variant == BfqVariant::Plus
            && device.queue_depth() > 1
            && (!self.cfg.hw_tag_detection || self.hw_tag.queueing())
            && !(raised && self.cfg.raised_ncq_idling)
            && (random || !self.cfg.ncq_seq_idling)
        {
            return false;
        }
        if raised {
            return true;
        }
        if self.cfg.think_time_rule && !q.idle_window {
            return false;
        }
        if random {
            // H-fairness rule 3 (report §4.4): a queue detected as random
            // keeps its idle wait, cut to a very low value (`min_tt`, see
            // `idle_wait`) once it has received B_max / 8 in its slot.
            // Without the rule BFQ does not idle for it (SYSTOR §3).
            return self.cfg.fairness_rules;
        }
        true
    }

    /// How long to idle for queue `qi`'s next request.
    pub(super) fn idle_wait(&self, now: Instant, qi: u32) -> Duration {
        let q = &self.queues[qi as usize];
        if self.cfg.low_latency && q.raising.active(now, &self.cfg.raising) {
            self.cfg
                .slice_idle
                .saturating_mul(u64::from(self.cfg.raised_idle_factor))
        } else if q.seek.is_random(self.cfg.seek_threshold)
            && self.slot.service > self.max_budget / 8
        {
            self.cfg.slice_idle.min(self.cfg.min_tt)
        } else {
            self.cfg.slice_idle
        }
    }

    /// The code's idle-window update at an arrival: a queue that thinks
    /// longer than `slice_idle` between requests gets no idle wait unless
    /// raised. Like the code, a random queue's window is only revised once
    /// it has received B_max / 8 in its slot.
    pub(super) fn update_idle_window(&mut self, now: Instant, qi: u32) {
        let in_slot = if self.in_service == Some(qi) {
            self.slot.service
        } else {
            0
        };
        let raised = self.cfg.low_latency
            && self.queues[qi as usize]
                .raising
                .active(now, &self.cfg.raising);
        let q = &mut self.queues[qi as usize];
        if q.seek.is_random(self.cfg.seek_threshold) && in_slot <= self.max_budget / 8 {
            return;
        }
        if let Some(mean) = q.think.mean() {
            q.idle_window = raised || mean <= self.cfg.slice_idle;
        }
    }
}
