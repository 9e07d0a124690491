//! The simulator's clock: a queue of future events in time order, ties
//! broken by the order they were scheduled, so a run is deterministic.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use sluice::Instant;

/// What can happen at an instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Event {
    /// A flow starts, or wakes from its think time, and issues requests.
    FlowIssue(u32),
    /// The device's next internal event (a completion, a start); stale
    /// unless its generation is the current one.
    Device(u64),
    /// The driver's wake-up (the policy's time channel); stale unless its
    /// generation is the current one.
    Wake(u64),
    /// The page cache completes a buffered flow's request (its token).
    Cache(u64),
    /// The flusher's periodic wake-up.
    Kupdate,
}

/// A re-armable event slot: the instant it is armed for and the
/// generation that marks its event in the queue as current.
#[derive(Default)]
pub(crate) struct Slot {
    generation: u64,
    at: Option<Instant>,
}

impl Slot {
    /// Whether `generation` is this slot's current event; if so the slot
    /// is spent (disarmed).
    pub(super) fn fires(&mut self, generation: u64) -> bool {
        let current = generation == self.generation;
        if current {
            self.at = None;
        }
        current
    }
}

/// Future events in time order.
#[derive(Default)]
pub(crate) struct Agenda {
    heap: BinaryHeap<Reverse<(Instant, u64, Event)>>,
    seq: u64,
}

impl Agenda {
    /// Schedule `event` at `at`, after everything already scheduled then.
    pub(super) fn push(&mut self, at: Instant, event: Event) {
        self.seq += 1;
        self.heap.push(Reverse((at, self.seq, event)));
    }

    /// The earliest event.
    pub(super) fn pop(&mut self) -> Option<(Instant, Event)> {
        self.heap.pop().map(|Reverse((t, _, e))| (t, e))
    }

    /// Make `slot` stand for an event at `next` (none for `None`), replacing
    /// the event it stood for, unless it already stands for `next`. `make`
    /// builds the event from the new generation; events are never scheduled
    /// before `now`.
    pub(super) fn rearm(
        &mut self,
        slot: &mut Slot,
        next: Option<Instant>,
        now: Instant,
        make: fn(u64) -> Event,
    ) {
        if next == slot.at {
            return;
        }
        slot.generation += 1;
        slot.at = next;
        if let Some(t) = next {
            self.push(t.max(now), make(slot.generation));
        }
    }
}
