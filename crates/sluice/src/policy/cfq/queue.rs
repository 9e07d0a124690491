//! The state CFQ keeps per flow (`cfq_io_context`) and per queue
//! (`cfq_queue`), apart from the scheduler that links them.

use super::super::fair_sorted::SortedReqs;
use super::super::think_filter::ThinkTime;
use super::{Key, ASYNC, NORM_PRIO, SYNC, SYNC_NOIDLE};
use crate::time::Instant;
use crate::types::Request;

/// Per-flow state (the kernel's `cfq_io_context`): priority, liveness and
/// think-time statistics.
#[derive(Debug)]
pub(super) struct FlowState {
    pub(super) prio: u8,
    pub(super) alive: bool,
    pub(super) sync_q: Option<usize>,
    pub(super) last_end_request: Instant,
    pub(super) think: ThinkTime,
}

impl FlowState {
    pub(super) fn new(now: Instant) -> Self {
        FlowState {
            prio: NORM_PRIO,
            alive: true,
            sync_q: None,
            last_end_request: now,
            think: ThinkTime::default(),
        }
    }
}

/// One CFQ queue (`struct cfq_queue`).
#[derive(Debug)]
pub(super) struct Queue {
    pub(super) sync: bool,
    pub(super) prio: u8,
    /// Pending requests by (sector, id), with their FIFO deadline.
    pub(super) sorted: SortedReqs<(Request, Instant)>,
    /// Pending requests by (FIFO deadline in ns, id) -> (sector, deadline).
    pub(super) fifo: SortedReqs<(u64, Instant)>,
    /// Requests in flight.
    pub(super) dispatched: usize,
    /// On a service tree (busy): `on_rr`.
    pub(super) on_rr: bool,
    /// The tree it is on and its key there.
    pub(super) tree: Option<(usize, (Key, u64))>,
    /// When the slice started: at the slot's first completion.
    pub(super) slice_start: Option<Instant>,
    /// When the slice ends; `None` until it starts (the kernel's
    /// `slice_new` flag, with `slice_end` = 0).
    pub(super) slice_end: Option<Instant>,
    pub(super) slice_dispatch: u32,
    /// Slice time left at a preemption; negative if the slice had overrun.
    pub(super) slice_resid: Key,
    pub(super) wait_request: bool,
    pub(super) wait_busy: bool,
    pub(super) fifo_checked: bool,
    pub(super) idle_window: bool,
    pub(super) deep: bool,
    pub(super) seek_history: u32,
    pub(super) last_request_pos: u64,
}

impl Queue {
    pub(super) fn new(sync: bool, prio: u8) -> Self {
        Queue {
            sync,
            prio,
            sorted: SortedReqs::default(),
            fifo: SortedReqs::default(),
            dispatched: 0,
            on_rr: false,
            tree: None,
            slice_start: None,
            slice_end: None,
            slice_dispatch: 0,
            slice_resid: 0,
            wait_request: false,
            wait_busy: false,
            fifo_checked: false,
            idle_window: sync,
            deep: false,
            seek_history: 0,
            last_request_pos: 0,
        }
    }

    /// `cfqq_type`.
    pub(super) fn workload(&self) -> usize {
        if !self.sync {
            ASYNC
        } else if !self.idle_window {
            SYNC_NOIDLE
        } else {
            SYNC
        }
    }

    /// `CFQQ_SEEKY`: more than 4 of the last 32 requests seeked.
    pub(super) fn seeky(&self) -> bool {
        self.seek_history.count_ones() > 32 / 8
    }

    /// `cfq_slice_used`.
    pub(super) fn slice_used(&self, now: Instant) -> bool {
        self.slice_end.is_some_and(|end| now >= end)
    }
}
