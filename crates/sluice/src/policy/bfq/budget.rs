//! Budget feedback and the full-budget charge (SYSTOR 2012 "Improving
//! Application Responsiveness with the BFQ Disk I/O Scheduler", §3.2, §3.3,
//! §4.3; technical report §3.3, §3.5, §4.3, §4.4).

/// Why the queue in service was deactivated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expiration {
    /// It had no request left: the idle wait ended without one (sync
    /// queues), or it emptied and BFQ does not idle for it (async and random
    /// queues, a device that queues commands under BFQ+).
    NoMoreBacklog,
    /// Its next request does not fit in what is left of its budget.
    BudgetExhausted,
    /// T_max passed since its first dispatch of the slot.
    BudgetTimeout,
}

/// Inputs of the budget rules, in sectors.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Feedback {
    pub reason: Expiration,
    /// The budget of the slot that ended.
    pub budget: u64,
    /// Service charged during the slot (before any full-budget charge).
    pub service: u64,
    /// Requests of the queue still in the device.
    pub outstanding: bool,
    /// The disk-wide maximum budget.
    pub max_budget: u64,
}

/// Smallest budget assigned. The papers give none; a floor keeps budgets
/// from collapsing to a few sectors (Linux uses `B_max / 32`, as here).
pub(crate) fn min_budget(max_budget: u64) -> u64 {
    (max_budget / 32).max(1)
}

/// The original BFQ rules (§3.2 of the paper, as §4.3 recalls them): no
/// more backlog: the service actually consumed; budget timeout: `B_max`;
/// budget exhausted: plus a fixed step (`step` sectors; the papers do not
/// give its size, see `budget_step` in the policy docs).
pub(crate) fn original(f: &Feedback, step: u64) -> u64 {
    let b = match f.reason {
        Expiration::NoMoreBacklog => f.service,
        Expiration::BudgetTimeout => f.max_budget,
        Expiration::BudgetExhausted => f.budget.saturating_add(step),
    };
    b.clamp(min_budget(f.max_budget), f.max_budget)
}

/// The BFQ+ rules (H-throughput, §4.3): multiplicative increase, linear
/// decrease. No more backlog: doubled if requests are still outstanding
/// (the application may just be waiting for them), else decreased by
/// `B_max / 8` (the only decrease); budget timeout: doubled; budget
/// exhausted: multiplied by four. Always within `[min_budget, B_max]`.
pub(crate) fn plus(f: &Feedback) -> u64 {
    let b = match f.reason {
        Expiration::NoMoreBacklog if f.outstanding => f.budget.saturating_mul(2),
        Expiration::NoMoreBacklog => f.budget.saturating_sub(f.max_budget / 8),
        Expiration::BudgetTimeout => f.budget.saturating_mul(2),
        Expiration::BudgetExhausted => f.budget.saturating_mul(4),
    };
    b.clamp(min_budget(f.max_budget), f.max_budget)
}

/// Inputs of the full-budget charge decision.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChargeCheck {
    pub reason: Expiration,
    pub budget: u64,
    pub service: u64,
    pub max_budget: u64,
    /// The queue consumed its budget too slowly: at the rate it was served
    /// during the slot, it could not have consumed the whole budget within
    /// T_max (report §4.4).
    pub slow: bool,
}

/// Whether the queue is charged its full budget instead of the service it
/// received.
///
/// BFQ (report §3.5 and the opening of §4.4): on a budget timeout, and
/// whenever the queue was too slow, whatever the reason of the expiration.
///
/// BFQ+ with H-fairness (report §4.4): rule 1, a slow queue that received at
/// most `B_max / 8` is not charged the full budget (a sequential reader
/// that just started and still pays its first seek); rule 2, a queue that
/// consumed at least 2/3 of its budget is never charged the full budget,
/// timeout included (a sequential reader in a slow zone). Rule 1 applies to
/// slowness only: applied to timeouts it would exempt nearly every random
/// reader, against §3.5. Rule 3 (idling) lives with the idling decision.
pub(crate) fn full_charge(c: &ChargeCheck, fairness_rules: bool) -> bool {
    let timeout = c.reason == Expiration::BudgetTimeout;
    if !fairness_rules {
        return timeout || c.slow;
    }
    if 3 * c.service >= 2 * c.budget {
        return false;
    }
    timeout || (c.slow && c.service > c.max_budget / 8)
}
