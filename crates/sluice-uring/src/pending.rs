//! The requests an engine holds, found by id without hashing.
//!
//! A request id is `(sequence << SLOT_BITS) | slot`: the sequence number
//! keeps ids increasing in submission order (policies break ties by id),
//! the slot indexes a dense table whose free slots are reused. A lookup is
//! one bounds check and one comparison, and the table stays as small as
//! the number of requests pending at once.

use sluice::RequestId;

/// Bits of an id that name its slot: 2^24 (16 million) requests pending at
/// once at most.
pub(crate) const SLOT_BITS: u32 = 24;
const SLOT_MASK: u64 = (1 << SLOT_BITS) - 1;

/// Pending requests of type `T`, by id.
pub(crate) struct PendingTable<T> {
    slots: Vec<Option<(RequestId, T)>>,
    free: Vec<u32>,
    len: usize,
    sequence: u64,
}

impl<T> PendingTable<T> {
    pub(crate) fn with_capacity(n: usize) -> Self {
        PendingTable {
            slots: Vec::with_capacity(n),
            free: Vec::new(),
            len: 0,
            sequence: 0,
        }
    }

    /// Store `value` under a fresh id; None when 2^24 requests are pending.
    pub(crate) fn insert(&mut self, value: impl FnOnce(RequestId) -> T) -> Option<RequestId> {
        let slot = match self.free.pop() {
            Some(s) => {
                // The next insert's slot was freed long ago (a batch of
                // completions back): start fetching it now.
                if let Some(&next) = self.free.last() {
                    self.prefetch_slot(next as usize);
                }
                s as usize
            }
            None if (self.slots.len() as u64) <= SLOT_MASK => {
                self.slots.push(None);
                self.slots.len() - 1
            }
            None => return None,
        };
        let id = RequestId((self.sequence << SLOT_BITS) | slot as u64);
        self.sequence += 1;
        self.slots[slot] = Some((id, value(id)));
        self.len += 1;
        Some(id)
    }

    /// Start fetching `id`'s entry into the cache: a hint that changes
    /// nothing else. A host that knows which entries it reads next asks for
    /// them together, so their cache misses overlap.
    pub(crate) fn prefetch(&self, id: RequestId) {
        self.prefetch_slot((id.0 & SLOT_MASK) as usize);
    }

    fn prefetch_slot(&self, slot: usize) {
        if let Some(entry) = self.slots.get(slot) {
            sluice::hint::prefetch(entry);
        }
    }

    pub(crate) fn get_mut(&mut self, id: RequestId) -> Option<&mut T> {
        match self.slots.get_mut((id.0 & SLOT_MASK) as usize) {
            Some(Some((held, v))) if *held == id => Some(v),
            _ => None,
        }
    }

    pub(crate) fn get(&self, id: RequestId) -> Option<&T> {
        match self.slots.get((id.0 & SLOT_MASK) as usize) {
            Some(Some((held, v))) if *held == id => Some(v),
            _ => None,
        }
    }

    pub(crate) fn remove(&mut self, id: RequestId) -> Option<T> {
        let slot = (id.0 & SLOT_MASK) as usize;
        match self.slots.get(slot) {
            Some(Some((held, _))) if *held == id => {}
            _ => return None,
        }
        let (_, v) = self.slots[slot].take().expect("checked above");
        self.free.push(slot as u32);
        self.len -= 1;
        Some(v)
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Take every pending value out.
    pub(crate) fn drain(&mut self) -> impl Iterator<Item = T> + '_ {
        self.len = 0;
        self.free.clear();
        self.slots.drain(..).flatten().map(|(_, v)| v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_increase_and_slots_are_reused() {
        let mut t = PendingTable::with_capacity(4);
        let a = t.insert(|_| 'a').unwrap();
        let b = t.insert(|_| 'b').unwrap();
        assert!(b > a);
        assert_eq!(t.remove(a), Some('a'));
        assert_eq!(t.remove(a), None, "removed once");
        let c = t.insert(|_| 'c').unwrap();
        assert!(c > b, "a reused slot still gets a larger id");
        assert_eq!(c.0 & SLOT_MASK, a.0 & SLOT_MASK, "a's slot reused");
        assert_eq!(t.get(a), None, "a stale id finds nothing");
        assert_eq!(t.get(c), Some(&'c'));
        assert_eq!(t.len(), 2);
        let mut rest: Vec<char> = t.drain().collect();
        rest.sort();
        assert_eq!(rest, vec!['b', 'c']);
        assert!(t.is_empty());
    }

    #[test]
    fn prefetch_is_only_a_hint() {
        let mut t = PendingTable::with_capacity(1);
        let a = t.insert(|_| [7u8; 200]).unwrap();
        let b = t.insert(|_| [8u8; 200]).unwrap();
        t.remove(a);
        // Live, freed and never-allocated slots: nothing panics (the
        // offsets are computed without overflow) and nothing changes.
        for id in [
            a,
            b,
            RequestId(5),
            RequestId(SLOT_MASK),
            RequestId(u64::MAX),
        ] {
            t.prefetch(id);
        }
        assert_eq!(t.get(b), Some(&[8u8; 200]));
        assert_eq!((t.len(), t.get(a)), (1, None));
        // An insert prefetches the next free slot: also harmless.
        let c = t.insert(|_| [9u8; 200]).unwrap();
        assert_eq!(t.get(c), Some(&[9u8; 200]));
    }
}
