//! Requests ordered by `(sector, id)` for a per-flow queue that is usually
//! short: a sorted vector while it is (binary search, no allocation once
//! its capacity is reached: a `BTreeMap` allocates and frees a node as a
//! queue fills and drains), a `BTreeMap` once it outgrows [`SMALL`], so a
//! long queue still costs O(log n) per operation. BFQ keeps its requests
//! here; CFQ keeps each request with its deadline, and its FIFO by
//! `(deadline, id)`, in the same shape (one allocation per map: with
//! thousands of queues, each further indirection is a cache miss).

use std::collections::BTreeMap;

use crate::types::Request;

/// The most requests kept in the sorted vector.
const SMALL: usize = 32;

/// The key: (sector, request id).
pub(crate) type Key = (u64, u64);

/// See the module documentation. `V`: what is kept under each key.
#[derive(Clone, Debug)]
pub(crate) struct SortedReqs<V = Request> {
    /// In key order, while the queue is small (`big` empty).
    small: Vec<(Key, V)>,
    /// Every entry, once the queue has outgrown `small` (until it empties).
    big: BTreeMap<Key, V>,
}

impl<V> Default for SortedReqs<V> {
    fn default() -> Self {
        SortedReqs {
            small: Vec::new(),
            big: BTreeMap::new(),
        }
    }
}

impl<V: Copy> SortedReqs<V> {
    /// Entries held.
    pub(crate) fn len(&self) -> usize {
        self.small.len() + self.big.len()
    }

    /// No request held.
    pub(crate) fn is_empty(&self) -> bool {
        self.small.is_empty() && self.big.is_empty()
    }

    /// Insert `r` under `key` (a key already there is replaced).
    pub(crate) fn insert(&mut self, key: Key, r: V) {
        if !self.big.is_empty() {
            self.big.insert(key, r);
            return;
        }
        match self.small.binary_search_by(|e| e.0.cmp(&key)) {
            Ok(i) => self.small[i].1 = r,
            Err(i) if self.small.len() < SMALL => self.small.insert(i, (key, r)),
            Err(_) => {
                self.big.extend(self.small.drain(..));
                self.big.insert(key, r);
            }
        }
    }

    /// Take the entry under `key` out.
    pub(crate) fn remove(&mut self, key: &Key) -> Option<V> {
        if !self.big.is_empty() {
            return self.big.remove(key);
        }
        let i = self.small.binary_search_by(|e| e.0.cmp(key)).ok()?;
        Some(self.small.remove(i).1)
    }

    /// Drop the request under `key` (as [`SortedReqs::remove`], without
    /// moving it out); whether it was there.
    pub(crate) fn discard(&mut self, key: &Key) -> bool {
        if !self.big.is_empty() {
            return self.big.remove(key).is_some();
        }
        match self.small.binary_search_by(|e| e.0.cmp(key)) {
            Ok(i) => {
                self.small.copy_within(i + 1.., i);
                self.small.pop();
                true
            }
            Err(_) => false,
        }
    }

    /// The entry under `key`.
    pub(crate) fn get(&self, key: &Key) -> Option<&V> {
        if !self.big.is_empty() {
            return self.big.get(key);
        }
        let i = self.small.binary_search_by(|e| e.0.cmp(key)).ok()?;
        Some(&self.small[i].1)
    }

    /// The entry under `key`, to change it in place.
    pub(crate) fn get_mut(&mut self, key: &Key) -> Option<&mut V> {
        if !self.big.is_empty() {
            return self.big.get_mut(key);
        }
        let i = self.small.binary_search_by(|e| e.0.cmp(key)).ok()?;
        Some(&mut self.small[i].1)
    }

    /// The first entry (lowest key).
    pub(crate) fn first(&self) -> Option<(Key, &V)> {
        if !self.big.is_empty() {
            return self.big.iter().next().map(|(k, v)| (*k, v));
        }
        self.small.first().map(|(k, v)| (*k, v))
    }

    /// The first entry with a key at or after `key`.
    pub(crate) fn ceil(&self, key: Key) -> Option<(Key, &V)> {
        if !self.big.is_empty() {
            return self.big.range(key..).next().map(|(k, v)| (*k, v));
        }
        let i = self.small.partition_point(|e| e.0 < key);
        self.small.get(i).map(|(k, v)| (*k, v))
    }

    /// The last entry with a key before `key`.
    pub(crate) fn below(&self, key: Key) -> Option<(Key, &V)> {
        if !self.big.is_empty() {
            return self.big.range(..key).next_back().map(|(k, v)| (*k, v));
        }
        let i = self.small.partition_point(|e| e.0 < key);
        i.checked_sub(1).map(|i| {
            let (k, v) = &self.small[i];
            (*k, v)
        })
    }

    /// Whether a request is held under `key`.
    pub(crate) fn contains_key(&self, key: &Key) -> bool {
        self.get(key).is_some()
    }

    /// The first entry at or after `key`, else the first of all (C-LOOK
    /// from a head position).
    pub(crate) fn first_from(&self, key: Key) -> Option<&V> {
        self.ceil(key).or_else(|| self.first()).map(|(_, v)| v)
    }

    /// The request under `(old.sector, old.id)` became `merged`: re-key
    /// it, keeping the entry's other fields (`request_of` finds the request
    /// in an entry). False if it is not held.
    pub(crate) fn merge_with(
        &mut self,
        old: &Request,
        merged: &Request,
        request_of: impl FnOnce(&mut V) -> &mut Request,
    ) -> bool {
        let Some(mut v) = self.remove(&(old.sector, old.id.0)) else {
            return false;
        };
        *request_of(&mut v) = *merged;
        self.insert((merged.sector, merged.id.0), v);
        true
    }
}

impl SortedReqs {
    /// The request under `(old.sector, old.id)` became `merged`: re-key it.
    /// False if it is not held.
    pub(crate) fn merge(&mut self, old: &Request, merged: &Request) -> bool {
        self.merge_with(old, merged, |r| r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testkit::req;
    use proptest::prelude::*;

    proptest! {
        /// Against a `BTreeMap` under random inserts, removals, merges and
        /// C-LOOK lookups, across the switch to the map and back.
        #[test]
        fn matches_a_btreemap(
            ops in prop::collection::vec((0u8..5, 0u64..40, 0u64..90), 1..400)
        ) {
            let mut s = SortedReqs::default();
            let mut m: BTreeMap<Key, Request> = BTreeMap::new();
            for (op, sector, id) in ops {
                let r = req(id, 0, sector);
                let key = (sector, id);
                match op {
                    0 | 1 => {
                        s.insert(key, r);
                        m.insert(key, r);
                    }
                    2 if sector % 2 == 0 => prop_assert_eq!(s.remove(&key), m.remove(&key)),
                    2 => prop_assert_eq!(s.discard(&key), m.remove(&key).is_some()),
                    3 => {
                        let grown = Request { sector: sector / 2, sectors: 16, ..r };
                        let had = m.remove(&key).is_some();
                        if had {
                            m.insert((grown.sector, id), grown);
                        }
                        prop_assert_eq!(s.merge(&r, &grown), had);
                    }
                    _ => {
                        let want = m
                            .range(key..)
                            .next()
                            .or_else(|| m.iter().next())
                            .map(|(_, r)| *r);
                        prop_assert_eq!(s.first_from(key).copied(), want);
                    }
                }
                prop_assert_eq!(s.len(), m.len());
                prop_assert_eq!(s.is_empty(), m.is_empty());
                let pair = |e: Option<(&Key, &Request)>| e.map(|(k, r)| (*k, *r));
                prop_assert_eq!(s.first().map(|(k, r)| (k, *r)), pair(m.iter().next()));
                prop_assert_eq!(s.ceil(key).map(|(k, r)| (k, *r)), pair(m.range(key..).next()));
                prop_assert_eq!(
                    s.below(key).map(|(k, r)| (k, *r)),
                    pair(m.range(..key).next_back())
                );
                if let (Some(a), Some(b)) = (s.get_mut(&key), m.get_mut(&key)) {
                    a.sectors += 1;
                    b.sectors += 1;
                }
                prop_assert_eq!(s.get(&key).copied(), m.get(&key).copied());
                prop_assert_eq!(s.contains_key(&key), m.contains_key(&key));
            }
        }
    }
}
