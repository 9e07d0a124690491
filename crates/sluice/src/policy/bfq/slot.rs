//! The queue in service's slot and its budget timeout (T_max, scaled for
//! raised queues under `raised_timeout`).

use super::Bfq;
use crate::time::{Duration, Instant};

/// The queue in service's slot.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Slot {
    /// Time of the slot's first dispatch.
    pub(super) start: Option<Instant>,
    /// When the budget-timeout clock started: the slot's first completion
    /// (`timeout_at_completion`) or first dispatch.
    pub(super) timer_start: Option<Instant>,
    /// The slot's budget timeout (T_max, scaled for a raised queue under
    /// `raised_timeout`), fixed when its clock starts.
    pub(super) timeout: Duration,
    /// The FIFO was checked for an expired request (once per slot).
    pub(super) fifo_checked: bool,
    /// Requests dispatched in the slot.
    pub(super) dispatched: u32,
    /// Service charged (sectors, write-charged).
    pub(super) service: u64,
    /// Sectors and attributed disk time of the slot's completed requests.
    pub(super) done_sectors: u64,
    pub(super) done_time: Duration,
    /// The idle wait: its deadline and when it started.
    pub(super) idle_deadline: Option<Instant>,
    pub(super) idle_start: Option<Instant>,
}

impl Bfq {
    pub(super) fn timed_out(&self, now: Instant) -> bool {
        self.slot
            .timer_start
            .is_some_and(|s| now >= s.saturating_add(self.slot.timeout))
    }

    /// Start the slot's budget-timeout clock now.
    pub(super) fn start_timer(&mut self, now: Instant, qi: u32) {
        if self.slot.timer_start.is_none() {
            self.slot.timer_start = Some(now);
            self.slot.timeout = self.slot_timeout(now, qi);
        }
    }

    /// The budget timeout of a slot of queue `qi` starting now: T_max, or
    /// T_max times the raised weight over the original one.
    pub(super) fn slot_timeout(&self, now: Instant, qi: u32) -> Duration {
        let q = &self.queues[qi as usize];
        if !self.cfg.raised_timeout {
            return self.cfg.timeout;
        }
        let raised = u128::from(self.effective_weight(now, q).max(q.weight));
        let scaled = u128::from(self.cfg.timeout.as_nanos()) * raised / u128::from(q.weight.max(1));
        u64::try_from(scaled).map_or(Duration::MAX, Duration::from_nanos)
    }

    /// Whether the budget timeout of the slot has fired and may end it now:
    /// under `timeout_at_completion`, an idle wait is not cut short unless
    /// a third of the budget is left.
    pub(super) fn may_expire_for_timeout(&self, now: Instant, qi: u32) -> bool {
        if !self.timed_out(now) {
            return false;
        }
        if !self.cfg.timeout_at_completion || self.slot.idle_deadline.is_none() {
            return true;
        }
        let budget = self.queues[qi as usize].entity.budget;
        3 * budget.saturating_sub(self.slot.service) >= budget
    }
}
