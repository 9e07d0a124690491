//! The end of a slot: the peak-rate sample, the (full) charge to B-WF2Q+,
//! the next budget, and the queue's requeueing or deactivation.

use super::budget::{self, ChargeCheck, Expiration, Feedback};
use super::peak_rate::Sample;
use super::Bfq;
use crate::time::{Duration, Instant};
use crate::types::FlowId;

/// What happened at the last expiration (for tests and tracing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExpirationRecord {
    /// The flow of the queue (`None`: the shared async queue).
    pub flow: Option<FlowId>,
    /// Why the slot ended.
    pub reason: Expiration,
    /// The slot's budget.
    pub budget: u64,
    /// Service charged by its dispatches.
    pub service: u64,
    /// What B-WF2Q+ was charged (the budget on a full charge).
    pub charged: u64,
    /// The budget assigned for the next slot.
    pub next_budget: u64,
    /// B_max after the expiration's peak-rate sample.
    pub max_budget: u64,
}

impl Bfq {
    /// End the slot of the queue in service.
    pub(super) fn expire(&mut self, now: Instant, reason: Expiration) {
        let Some(qi) = self.in_service.take() else {
            return;
        };
        let slot = std::mem::take(&mut self.slot);
        let random = self.queues[qi as usize]
            .seek
            .is_random(self.cfg.seek_threshold);

        // Peak rate and B_max.
        let sample = Sample {
            sectors: slot.done_sectors,
            time: slot.done_time,
            random,
            timed_out: reason == Expiration::BudgetTimeout,
        };
        if self.peak.sample(&sample) && self.cfg.max_budget.is_none() {
            self.max_budget = self.peak.max_budget(self.cfg.timeout);
        }
        let max_budget = self.max_budget;

        // Full-budget charge.
        let q = &self.queues[qi as usize];
        let budget = q.entity.budget;
        let end = slot.idle_start.unwrap_or(now);
        // The slowness clock is the budget-timeout clock (the code's
        // `last_budget_start`); no completion yet: not slow.
        let clock = if self.cfg.timeout_at_completion {
            slot.timer_start
        } else {
            slot.start
        };
        let elapsed = clock.map_or(Duration::ZERO, |s| end.saturating_duration_since(s));
        // Only a synchronous queue can be "too slow" (report §4.4 speaks of
        // applications; BFQ's code of the time never deems the shared async
        // queue slow, which H-write-throt's charge governs instead).
        let slow = q.sync
            && !elapsed.is_zero()
            && u128::from(slot.service) * u128::from(self.cfg.timeout.as_nanos())
                < u128::from(budget) * u128::from(elapsed.as_nanos());
        let check = ChargeCheck {
            reason,
            budget,
            service: slot.service,
            max_budget,
            slow,
        };
        let charged = if budget::full_charge(&check, self.cfg.fairness_rules) {
            budget.max(slot.service)
        } else {
            slot.service
        };
        self.wf2q.served(charged - slot.service);

        // Budget feedback.
        let fb = Feedback {
            reason,
            budget,
            service: slot.service,
            outstanding: q.in_flight > 0,
            max_budget,
        };
        let next_budget = if self.cfg.budget_rules {
            budget::plus(&fb)
        } else {
            budget::original(&fb, self.cfg.budget_step)
        };

        let q = &mut self.queues[qi as usize];
        self.wf2q.charge(&mut q.entity, charged);
        q.budget = next_budget;
        q.raising.expire_if_late(now, &self.cfg.raising);
        self.last = Some(ExpirationRecord {
            flow: q.flow,
            reason,
            budget,
            service: slot.service,
            charged,
            next_budget,
            max_budget,
        });
        if q.is_empty() {
            self.wf2q.deactivate(&mut q.entity);
            self.maybe_free(qi);
        } else {
            let budget = self.entity_budget(qi);
            let q = &self.queues[qi as usize];
            let weight = self.effective_weight(now, q);
            let q = &mut self.queues[qi as usize];
            self.wf2q.requeue(qi, &mut q.entity, weight, budget);
        }
    }
}
