//! The reservation queues' two orders. Each `RQ_k` is first in, first
//! out for BQS, which only ever takes the head; DOR may take any request
//! near a gap of the sequence, of any queue, so one sector index spans
//! every queued request. Both are ordered maps: taking a request from the
//! middle costs O(log n), not a shift.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::{Bound, RangeBounds};

use crate::types::{FlowId, Request};

/// Where a request sits in its queue: its arrival number in the flow.
pub(super) type Seq = u64;

/// One reservation queue, in arrival order.
#[derive(Debug, Default)]
pub(super) struct ReservationQueue {
    by_arrival: BTreeMap<Seq, Request>,
    next: Seq,
}

impl ReservationQueue {
    pub(super) fn is_empty(&self) -> bool {
        self.by_arrival.is_empty()
    }

    /// Append `r`; its place.
    pub(super) fn push_back(&mut self, r: Request) -> Seq {
        let seq = self.next;
        self.next += 1;
        self.by_arrival.insert(seq, r);
        seq
    }

    /// The head (oldest) request and its place.
    pub(super) fn front(&self) -> Option<(Seq, &Request)> {
        self.by_arrival.first_key_value().map(|(&s, r)| (s, r))
    }

    pub(super) fn pop_front(&mut self) -> Option<(Seq, Request)> {
        self.by_arrival.pop_first()
    }

    /// Take the request at `seq` out, wherever it is.
    pub(super) fn remove(&mut self, seq: Seq) -> Option<Request> {
        self.by_arrival.remove(&seq)
    }

    pub(super) fn get(&self, seq: Seq) -> &Request {
        &self.by_arrival[&seq]
    }

    /// The requests, oldest first, with their places.
    pub(super) fn by_arrival(&self) -> impl Iterator<Item = (Seq, &Request)> {
        self.by_arrival.iter().map(|(&s, r)| (s, r))
    }

    /// Replace the stored copy of `merged` (same id) with it, newest
    /// first: a merge grows a recent arrival. Its place and its sector
    /// before, or `None` if it is not here.
    pub(super) fn merge(&mut self, merged: &Request) -> Option<(Seq, u64)> {
        let (&seq, r) = self
            .by_arrival
            .iter_mut()
            .rev()
            .find(|(_, r)| r.id == merged.id)?;
        let sector = r.sector;
        *r = *merged;
        Some((seq, sector))
    }
}

/// Every queued request of every reservation queue by sector.
#[derive(Debug, Default)]
pub(super) struct SectorIndex {
    set: BTreeSet<(u64, FlowId, Seq)>,
}

/// One entry of the index: sector, queue, place in the queue.
pub(super) type Entry = (u64, FlowId, Seq);

impl SectorIndex {
    pub(super) fn insert(&mut self, sector: u64, flow: FlowId, seq: Seq) {
        self.set.insert((sector, flow, seq));
    }

    pub(super) fn remove(&mut self, sector: u64, flow: FlowId, seq: Seq) {
        self.set.remove(&(sector, flow, seq));
    }

    /// The entries with sectors in `range`, in ascending sector order
    /// (`rev`: descending).
    pub(super) fn walk(&self, range: impl RangeBounds<u64>, rev: bool) -> Walk<'_> {
        use Bound::*;
        const FIRST: (FlowId, Seq) = (FlowId(0), 0);
        const LAST: (FlowId, Seq) = (FlowId(u32::MAX), Seq::MAX);
        let lo = match range.start_bound() {
            Included(&s) => Included((s, FIRST.0, FIRST.1)),
            Excluded(&s) => Excluded((s, LAST.0, LAST.1)),
            Unbounded => Unbounded,
        };
        let hi = match range.end_bound() {
            Included(&s) => Included((s, LAST.0, LAST.1)),
            Excluded(&s) => Excluded((s, FIRST.0, FIRST.1)),
            Unbounded => Unbounded,
        };
        // `BTreeSet::range` panics on an inverted range.
        if let (Included(a) | Excluded(a), Included(b) | Excluded(b)) = (lo, hi) {
            if a > b || (a == b && !matches!((lo, hi), (Included(_), Included(_)))) {
                return Walk::Empty;
            }
        }
        let range = self.set.range((lo, hi));
        if rev {
            Walk::Down(range)
        } else {
            Walk::Up(range)
        }
    }
}

/// A walk over part of the index, up or down (no allocation per walk).
pub(super) enum Walk<'a> {
    Up(std::collections::btree_set::Range<'a, Entry>),
    Down(std::collections::btree_set::Range<'a, Entry>),
    Empty,
}

impl Iterator for Walk<'_> {
    type Item = Entry;

    fn next(&mut self) -> Option<Entry> {
        match self {
            Walk::Up(r) => r.next().copied(),
            Walk::Down(r) => r.next_back().copied(),
            Walk::Empty => None,
        }
    }
}
