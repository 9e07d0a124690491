//! The reservation queues' two orders. Each `RQ_k` is first in, first
//! out for BQS, which only ever takes the head; DOR may take any request
//! near a gap of the sequence, of any queue, so one sector index spans
//! every queued request ([`super::index`]). A queue is a ring of slots by
//! place: a request taken from the middle leaves its slot empty until the
//! head passes it, so taking any request costs O(1), not a shift.

use std::collections::VecDeque;

use crate::types::Request;

/// Where a request sits in its queue: its arrival number in the flow.
pub(super) type Seq = u64;

/// One reservation queue, in arrival order.
#[derive(Debug, Default)]
pub(super) struct ReservationQueue {
    /// The slots of places `first..next`; the front one is never empty.
    slots: VecDeque<Option<Request>>,
    first: Seq,
    next: Seq,
    len: usize,
}

impl ReservationQueue {
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Append `r`; its place.
    pub(super) fn push_back(&mut self, r: Request) -> Seq {
        let seq = self.next;
        self.next += 1;
        self.slots.push_back(Some(r));
        self.len += 1;
        seq
    }

    /// The head (oldest) request and its place.
    pub(super) fn front(&self) -> Option<(Seq, &Request)> {
        let r = self.slots.front()?.as_ref()?;
        Some((self.first, r))
    }

    pub(super) fn pop_front(&mut self) -> Option<(Seq, Request)> {
        let seq = self.first;
        self.remove(seq).map(|r| (seq, r))
    }

    /// Take the request at `seq` out, wherever it is.
    pub(super) fn remove(&mut self, seq: Seq) -> Option<Request> {
        let i = usize::try_from(seq.checked_sub(self.first)?).ok()?;
        let r = self.slots.get_mut(i)?.take()?;
        self.len -= 1;
        // Keep the front slot full: drop the empty ones the head reaches.
        while self.slots.front().is_some_and(Option::is_none) {
            self.slots.pop_front();
            self.first += 1;
        }
        Some(r)
    }

    /// The request at `seq` (tests read through it).
    #[cfg(test)]
    pub(super) fn get(&self, seq: Seq) -> &Request {
        self.slots[(seq - self.first) as usize]
            .as_ref()
            .expect("a queued request")
    }

    /// The requests, oldest first, with their places.
    pub(super) fn by_arrival(&self) -> impl Iterator<Item = (Seq, &Request)> {
        let first = self.first;
        (first..)
            .zip(&self.slots)
            .filter_map(|(s, r)| Some((s, r.as_ref()?)))
    }

    /// Replace the stored copy of `merged` (same id) with it, newest
    /// first: a merge grows a recent arrival. Its place and its sector
    /// before, or `None` if it is not here.
    pub(super) fn merge(&mut self, merged: &Request) -> Option<(Seq, u64)> {
        let (i, r) = self
            .slots
            .iter_mut()
            .enumerate()
            .rev()
            .find_map(|(i, r)| Some((i, r.as_mut().filter(|r| r.id == merged.id)?)))?;
        let sector = r.sector;
        *r = *merged;
        Some((self.first + i as Seq, sector))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testkit::req;

    /// Taking from the middle leaves a hole the head skips; places keep
    /// counting, and a queue that empties starts after its last place.
    #[test]
    fn holes_are_skipped_and_places_never_repeat() {
        let mut q = ReservationQueue::default();
        for i in 0..4 {
            assert_eq!(q.push_back(req(i, 1, 100 * i)), i);
        }
        assert_eq!(q.remove(1).map(|r| r.id.0), Some(1));
        assert_eq!(q.remove(1), None);
        assert_eq!(q.pop_front().map(|(s, r)| (s, r.id.0)), Some((0, 0)));
        // The hole at 1 is gone: the head is place 2.
        assert_eq!(q.front().map(|(s, _)| s), Some(2));
        assert_eq!(q.slots.len(), 2);
        let ids: Vec<_> = q.by_arrival().map(|(s, r)| (s, r.id.0)).collect();
        assert_eq!(ids, vec![(2, 2), (3, 3)]);
        assert_eq!(q.get(3).id.0, 3);
        assert_eq!(q.remove(3).map(|r| r.id.0), Some(3));
        assert_eq!(q.pop_front().map(|(s, _)| s), Some(2));
        assert!(q.is_empty() && q.front().is_none() && q.pop_front().is_none());
        assert_eq!(q.push_back(req(9, 1, 0)), 4);
        assert_eq!(q.front().map(|(s, _)| s), Some(4));
    }
}
