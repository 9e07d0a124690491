//! One BFQ queue: a flow's synchronous requests (or the shared async queue),
//! served in C-LOOK order, with its budget, its B-WF2Q+ entity and the
//! per-slot statistics the expiration rules need.

use std::collections::VecDeque;

use super::super::fair_sorted::SortedReqs;
use super::super::think_filter::ThinkTime;
use super::weight_raising::Raising;
use super::wf2q::Entity;
use crate::time::Instant;
use crate::types::{FlowId, Request};

/// Seek-distance statistics: "detected as random" (technical report §3.5).
///
/// The mean distance between consecutive requests of the queue (the start
/// of a request against the end of the previous one, in arrival order) is
/// kept with a 7/8 low-pass filter started at the first sample; the queue
/// is random once it has `MIN_SAMPLES` samples and a mean above the
/// threshold (8192 sectors in the report). The report does not give the
/// filter's coefficient nor a validity rule; 7/8 and three samples follow
/// the Linux implementation of the time (`seek_mean`, `seek_samples`).
/// So does the cap on one distance (`seek_cap`): the code never lets a
/// single jump count for more than four times the mean plus 1 GiB (first
/// two samples) or plus 64 MiB (after), so that one far request (a reader
/// that wraps to the start of its file, a metadata read) marks a
/// sequential queue random for a few requests, not for forty.
#[derive(Clone, Debug, Default)]
pub(crate) struct SeekStats {
    last_end: Option<u64>,
    mean: u64,
    samples: u32,
}

impl SeekStats {
    /// Samples needed before the mean is trusted.
    pub(crate) const MIN_SAMPLES: u32 = 3;

    /// Cap on one distance during the first two samples, in sectors (1 GiB).
    pub(crate) const EARLY_CAP: u64 = 2 * 1024 * 1024;
    /// Cap on one distance after them (64 MiB).
    pub(crate) const LATE_CAP: u64 = 2 * 1024 * 64;

    /// Account the request `r` arriving; `cap`: limit the weight of one
    /// distance as the code did (see the type's docs).
    pub(crate) fn update(&mut self, r: &Request, cap: bool) {
        if let Some(last) = self.last_end {
            let mut d = last.abs_diff(r.sector);
            if cap {
                let slack = if self.samples < 2 {
                    Self::EARLY_CAP
                } else {
                    Self::LATE_CAP
                };
                d = d.min(self.mean.saturating_mul(4).saturating_add(slack));
            }
            self.mean = if self.samples == 0 {
                d
            } else {
                (7 * u128::from(self.mean) / 8 + u128::from(d) / 8) as u64
            };
            self.samples = (self.samples + 1).min(Self::MIN_SAMPLES);
        }
        self.last_end = Some(r.end());
    }

    /// Whether the queue is detected as random with this threshold.
    pub(crate) fn is_random(&self, threshold: u64) -> bool {
        self.samples >= Self::MIN_SAMPLES && self.mean > threshold
    }
}

/// A BFQ queue.
#[derive(Debug)]
pub(crate) struct BfqQueue {
    /// The owning flow; `None` for the shared async queue.
    pub flow: Option<FlowId>,
    /// Synchronous (per-flow) queue: the only kind BFQ idles for.
    pub sync: bool,
    /// Pending requests by `(sector, id)`: local C-LOOK order.
    reqs: SortedReqs,
    /// `(sector, id)` of the requests in arrival order: the FIFO whose head
    /// may have expired. Entries of requests already served are dropped
    /// when they reach the front.
    fifo: VecDeque<(u64, u64)>,
    /// The weight the flow was given (1..=1000).
    pub weight: u32,
    /// The budget for the next slot, in sectors (0 = not assigned yet).
    pub budget: u64,
    /// B-WF2Q+ state.
    pub entity: Entity,
    /// Requests dispatched and not completed.
    pub in_flight: u32,
    /// Seek statistics.
    pub seek: SeekStats,
    /// Weight raising (BFQ+ H-low-latency).
    pub raising: Raising,
    /// The queue has been backlogged at least once.
    pub seen: bool,
    /// When its last request completed (T_idle is measured from it).
    pub last_completion: Option<Instant>,
    /// Think-time statistics (sync queues).
    pub think: ThinkTime,
    /// The code's idle window: whether BFQ may idle for this queue, as its
    /// think time and seekiness last decided.
    pub idle_window: bool,
    /// The flow was removed while the queue still had work: free it when
    /// it goes idle.
    pub removed: bool,
}

impl BfqQueue {
    pub(crate) fn new(flow: Option<FlowId>, sync: bool, weight: u32) -> Self {
        BfqQueue {
            flow,
            sync,
            reqs: SortedReqs::default(),
            fifo: VecDeque::new(),
            weight: weight.clamp(1, 1000),
            budget: 0,
            entity: Entity::default(),
            in_flight: 0,
            seek: SeekStats::default(),
            raising: Raising::default(),
            seen: false,
            last_completion: None,
            think: ThinkTime::default(),
            idle_window: sync,
            removed: false,
        }
    }

    /// Queue a request.
    pub(crate) fn push(&mut self, r: Request) {
        self.reqs.insert((r.sector, r.id.0), r);
        self.fifo.push_back((r.sector, r.id.0));
    }

    /// Queued request `old` grew into `merged` (the block layer joined an
    /// arrival to it): re-key it in both orders. False if not queued here.
    pub(crate) fn merge(&mut self, old: &Request, merged: &Request) -> bool {
        if !self.reqs.merge(old, merged) {
            return false;
        }
        let key = (old.sector, old.id.0);
        if let Some(k) = self.fifo.iter_mut().rev().find(|k| **k == key) {
            *k = (merged.sector, merged.id.0);
        }
        true
    }

    /// The oldest queued request (the FIFO's head).
    pub(crate) fn oldest(&self) -> Option<&Request> {
        self.fifo.front().and_then(|k| self.reqs.get(k))
    }

    /// No request queued.
    pub(crate) fn is_empty(&self) -> bool {
        self.reqs.is_empty()
    }

    /// The request C-LOOK serves next from `head`: the first at or after
    /// the head by `(sector, id)`, else the lowest.
    pub(crate) fn peek(&self, head: u64) -> Option<&Request> {
        self.reqs.first_from((head, 0))
    }

    /// Remove a request returned by [`BfqQueue::peek`].
    pub(crate) fn take(&mut self, r: &Request) -> bool {
        let taken = self.reqs.discard(&(r.sector, r.id.0));
        while self
            .fifo
            .front()
            .is_some_and(|k| !self.reqs.contains_key(k))
        {
            self.fifo.pop_front();
        }
        taken
    }

    /// Idle in every respect: nothing queued, nothing in flight, not busy.
    pub(crate) fn is_quiet(&self) -> bool {
        self.reqs.is_empty() && self.in_flight == 0 && !self.entity.busy
    }
}
