//! The reservation queues' two orders. Each `RQ_k` is first in, first
//! out for BQS, which only ever takes the head; DOR may take any request
//! near a gap of the sequence, of any queue, so one sector index spans
//! every queued request ([`super::index`]). Taking a request from the
//! middle of a queue costs O(log n), not a shift.

use std::collections::BTreeMap;

use crate::types::Request;

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
