//! B-WF2Q+: the internal fair-queueing scheduler of BFQ, over budgets.
//!
//! Every busy queue (backlogged, or in service) is an [`Entity`] with a
//! virtual start time `S` and finish time `F = S + budget / weight`. The
//! system virtual time `V` advances by `service / W`, where `W` is the sum of
//! the weights of the busy queues, each time service is given (SYSTOR 2012
//! "Improving Application Responsiveness with the BFQ Disk I/O Scheduler",
//! §3.1; technical report §3.1). A queue is *eligible* when `S <= V`; among
//! eligible queues, the one with the smallest `F` is served next. A queue that
//! becomes busy again gets `S = max(V, F_old)`; a queue that stays busy after
//! its service slot gets `S = F_old` (its finish time recomputed from the
//! service it was charged).
//!
//! Data structures: two min-heaps. `pending` holds the busy, not-yet
//! eligible queues by `(S, index)` (with `F` alongside); `eligible` holds
//! the eligible ones by `(F, index)`. Only the smallest of each is ever
//! looked at and nothing leaves a set but its smallest, so heaps serve (a
//! four-ary heap in one vector, `quad_heap`: fewer cache misses than a
//! tree or a binary heap). `V` never
//! decreases, so a queue moves from `pending` to `eligible` at most once per
//! (re)queueing: selection costs amortised O(log n) (each move is one pop
//! and one push). The index breaks ties, so the order is total and the
//! choice deterministic. When no queue is
//! eligible, `V` jumps to the smallest start time (the WF2Q+ rule that keeps
//! the scheduler work-conserving). The queue in service is in neither set
//! (it is still busy: its weight stays in `W`).
//!
//! Virtual times are fixed point (`VT_SHIFT` fractional bits) in `u128`, so
//! they cannot overflow over any realistic run.

use crate::policy::quad_heap::QuadHeap;

/// Fractional bits of virtual times.
pub(crate) const VT_SHIFT: u32 = 20;

/// Virtual time (fixed point, `VT_SHIFT` fractional bits).
pub(crate) type Vt = u128;

/// `service / weight` as a virtual-time length.
pub(crate) fn delta(service: u64, weight: u32) -> Vt {
    scaled_div(service, u64::from(weight.max(1)))
}

/// `(service << VT_SHIFT) / d`, in 64-bit arithmetic whenever it fits (a
/// 128-bit division costs several times more, on the hot path).
fn scaled_div(service: u64, d: u64) -> Vt {
    match service.checked_mul(1 << VT_SHIFT) {
        Some(n) => Vt::from(n / d),
        None => (Vt::from(service) << VT_SHIFT) / Vt::from(d),
    }
}

/// The scheduling state of one queue.
#[derive(Clone, Debug, Default)]
pub(crate) struct Entity {
    /// Virtual start time of the current (or last) budget.
    pub start: Vt,
    /// Virtual finish time of the current (or last) budget.
    pub finish: Vt,
    /// The weight the entity is scheduled with (counted in `W` while busy).
    pub weight: u32,
    /// The budget the finish time was computed from, in sectors.
    pub budget: u64,
    /// Counted in `W` (backlogged or in service).
    pub busy: bool,
}

/// B-WF2Q+ over queue indices.
#[derive(Debug, Default)]
pub(crate) struct Wf2q {
    vtime: Vt,
    /// Sum of the weights of the busy entities.
    wsum: u64,
    /// Busy, not eligible: `(start, index, finish)`, smallest first.
    pending: QuadHeap<(Vt, u32, Vt)>,
    /// Busy, eligible: `(finish, index)`, smallest first.
    eligible: QuadHeap<(Vt, u32)>,
}

impl Wf2q {
    /// The system virtual time.
    #[cfg(test)]
    pub(crate) fn vtime(&self) -> Vt {
        self.vtime
    }

    /// Sum of the weights of busy entities.
    #[cfg(test)]
    pub(crate) fn wsum(&self) -> u64 {
        self.wsum
    }

    /// Busy entities waiting for service (not counting the one in service).
    pub(crate) fn waiting(&self) -> usize {
        self.pending.len() + self.eligible.len()
    }

    /// An idle entity becomes busy with `budget` at `weight`:
    /// `S = max(V, F_old)`, `F = S + budget / weight`.
    pub(crate) fn activate(&mut self, idx: u32, e: &mut Entity, weight: u32, budget: u64) {
        debug_assert!(!e.busy);
        e.busy = true;
        e.weight = weight.max(1);
        self.wsum += u64::from(e.weight);
        e.start = self.vtime.max(e.finish);
        self.insert(idx, e, budget);
    }

    /// The entity in service stays busy for a new budget: `S = F` (the
    /// finish computed by [`Wf2q::charge`]), `F = S + budget / weight`, with
    /// the weight possibly changed (weight raising decays).
    pub(crate) fn requeue(&mut self, idx: u32, e: &mut Entity, weight: u32, budget: u64) {
        debug_assert!(e.busy);
        let weight = weight.max(1);
        self.wsum = self.wsum - u64::from(e.weight) + u64::from(weight);
        e.weight = weight;
        e.start = e.finish;
        self.insert(idx, e, budget);
    }

    fn insert(&mut self, idx: u32, e: &mut Entity, budget: u64) {
        e.budget = budget;
        e.finish = e.start + delta(budget, e.weight);
        if e.start <= self.vtime {
            self.eligible.push((e.finish, idx));
        } else {
            self.pending.push((e.start, idx, e.finish));
        }
    }

    /// Service given by the entity in service: `V += service / W`.
    pub(crate) fn served(&mut self, service: u64) {
        if self.wsum > 0 {
            self.vtime += scaled_div(service, self.wsum);
        }
    }

    /// The entity in service ends its slot having been charged `charge`
    /// sectors: its finish time becomes `S + charge / weight`.
    pub(crate) fn charge(&mut self, e: &mut Entity, charge: u64) {
        e.finish = e.start + delta(charge, e.weight);
    }

    /// The entity (in service, not in the sets) becomes idle: its weight
    /// leaves `W`; its finish time is kept for `S = max(V, F_old)`.
    pub(crate) fn deactivate(&mut self, e: &mut Entity) {
        if e.busy {
            e.busy = false;
            self.wsum -= u64::from(e.weight);
        }
    }

    /// The entity [`Wf2q::select`] would most likely take next if nothing
    /// changed (the eligible one with the smallest `F`, else the next to
    /// become eligible): only a hint for the cache.
    pub(crate) fn likely_next(&self) -> Option<u32> {
        match self.eligible.peek() {
            Some(&(_, idx)) => Some(idx),
            None => self.pending.peek().map(|&(_, idx, _)| idx),
        }
    }

    /// Take the next entity to serve: among those with `S <= V`, the one
    /// with the smallest `F`; if none is eligible, `V` first jumps to the
    /// smallest `S`.
    pub(crate) fn select(&mut self) -> Option<u32> {
        if self.eligible.is_empty() {
            let &(s, _, _) = self.pending.peek()?;
            self.vtime = self.vtime.max(s);
        }
        while let Some(&(s, idx, f)) = self.pending.peek() {
            if s > self.vtime {
                break;
            }
            self.pending.pop();
            self.eligible.push((f, idx));
        }
        self.eligible.pop().map(|(_, idx)| idx)
    }
}
