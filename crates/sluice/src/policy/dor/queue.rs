//! A reservation queue `RQ_k`: first in, first out for BQS, which only
//! ever takes the head, and indexed by sector for DOR, which may take any
//! request near a gap of the sequence. Both views are ordered maps, so
//! taking a request from the middle costs O(log n), not a shift.

use std::collections::{BTreeMap, BTreeSet};

use crate::types::Request;

/// Where a request sits in its queue: its arrival number in the flow.
pub(super) type Seq = u64;

/// One reservation queue.
#[derive(Debug, Default)]
pub(super) struct ReservationQueue {
    by_arrival: BTreeMap<Seq, Request>,
    by_sector: BTreeSet<(u64, Seq)>,
    /// How many requests of each size (sectors) are queued.
    sizes: BTreeMap<u32, usize>,
    next: Seq,
}

impl ReservationQueue {
    pub(super) fn is_empty(&self) -> bool {
        self.by_arrival.is_empty()
    }

    pub(super) fn push_back(&mut self, r: Request) {
        let seq = self.next;
        self.next += 1;
        self.by_sector.insert((r.sector, seq));
        self.add_size(r.sectors);
        self.by_arrival.insert(seq, r);
    }

    /// The size of the smallest queued request, in sectors.
    pub(super) fn min_sectors(&self) -> Option<u32> {
        self.sizes.keys().next().copied()
    }

    fn add_size(&mut self, sectors: u32) {
        *self.sizes.entry(sectors).or_insert(0) += 1;
    }

    fn remove_size(&mut self, sectors: u32) {
        if let Some(n) = self.sizes.get_mut(&sectors) {
            *n -= 1;
            if *n == 0 {
                self.sizes.remove(&sectors);
            }
        }
    }

    /// The head (oldest) request and its place.
    pub(super) fn front(&self) -> Option<(Seq, &Request)> {
        self.by_arrival.first_key_value().map(|(&s, r)| (s, r))
    }

    pub(super) fn pop_front(&mut self) -> Option<Request> {
        let (seq, r) = self.by_arrival.pop_first()?;
        self.by_sector.remove(&(r.sector, seq));
        self.remove_size(r.sectors);
        Some(r)
    }

    /// The requests, oldest first, with their places.
    pub(super) fn by_arrival(&self) -> impl Iterator<Item = (Seq, &Request)> {
        self.by_arrival.iter().map(|(&s, r)| (s, r))
    }

    /// Take the request at `seq` out, wherever it is.
    pub(super) fn remove(&mut self, seq: Seq) -> Option<Request> {
        let r = self.by_arrival.remove(&seq)?;
        self.by_sector.remove(&(r.sector, seq));
        self.remove_size(r.sectors);
        Some(r)
    }

    /// The requests with sectors in `range`, in ascending sector order
    /// (`rev`: descending), with their places.
    pub(super) fn by_sector(
        &self,
        range: impl std::ops::RangeBounds<u64>,
        rev: bool,
    ) -> Box<dyn Iterator<Item = (Seq, &Request)> + '_> {
        use std::ops::Bound::*;
        let lo = match range.start_bound() {
            Included(&s) => Included((s, 0)),
            Excluded(&s) => Excluded((s, Seq::MAX)),
            Unbounded => Unbounded,
        };
        let hi = match range.end_bound() {
            Included(&s) => Included((s, Seq::MAX)),
            Excluded(&s) => Excluded((s, 0)),
            Unbounded => Unbounded,
        };
        if let (Included(a) | Excluded(a), Included(b) | Excluded(b)) = (lo, hi) {
            if a > b {
                return Box::new(std::iter::empty());
            }
        }
        let it = self
            .by_sector
            .range((lo, hi))
            .map(|&(_, seq)| (seq, &self.by_arrival[&seq]));
        if rev {
            Box::new(it.rev())
        } else {
            Box::new(it)
        }
    }

    /// Replace the stored copy of `merged` (same id) with it, newest
    /// first: a merge grows a recent arrival. False if it is not here.
    pub(super) fn merge(&mut self, merged: &Request) -> bool {
        let Some((&seq, r)) = self
            .by_arrival
            .iter_mut()
            .rev()
            .find(|(_, r)| r.id == merged.id)
        else {
            return false;
        };
        self.by_sector.remove(&(r.sector, seq));
        let old = r.sectors;
        *r = *merged;
        self.by_sector.insert((merged.sector, seq));
        self.remove_size(old);
        self.add_size(merged.sectors);
        true
    }
}
