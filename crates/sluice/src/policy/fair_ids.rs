//! Flow id to dense slot, without hashing for the small ids hosts use:
//! ids below [`DIRECT`] index a vector, larger ones go to a hash map.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::idhash::IdMap;
use crate::types::FlowId;

/// A hasher for ids handed out in increasing order (request ids): the id
/// itself picks the bucket, so ids made and retired in order live in
/// neighbouring buckets (a table of many live requests stays in the
/// cache where a scattering hash misses on every insert and removal); the
/// top seven bits, the table's tag, come from a multiplicative mix so that
/// neighbours still compare unequal at a glance.
#[derive(Default, Clone, Copy)]
pub(crate) struct SeqHasher(u64);

impl Hasher for SeqHasher {
    fn finish(&self) -> u64 {
        const LOW: u64 = (1 << 57) - 1;
        (self.0 & LOW) | (self.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) & !LOW)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = self.0.rotate_left(5) ^ n;
    }
}

/// A `HashMap` keyed by ids made in increasing order, hashed with
/// [`SeqHasher`].
pub(crate) type SeqMap<K, V> = HashMap<K, V, BuildHasherDefault<SeqHasher>>;

/// Ids below this are looked up in the vector.
const DIRECT: u32 = 1 << 16;

/// No slot, in the vector.
const NONE: u32 = u32::MAX;

/// See the module documentation.
#[derive(Clone, Debug, Default)]
pub(crate) struct SlotIds {
    direct: Vec<u32>,
    far: IdMap<FlowId, u32>,
}

impl SlotIds {
    /// The slot of `id`.
    #[inline]
    pub(crate) fn get(&self, id: FlowId) -> Option<u32> {
        if id.0 < DIRECT {
            self.direct
                .get(id.0 as usize)
                .copied()
                .filter(|&s| s != NONE)
        } else {
            self.far.get(&id).copied()
        }
    }

    /// Map `id` to `slot` (`slot` below `u32::MAX`).
    pub(crate) fn insert(&mut self, id: FlowId, slot: u32) {
        debug_assert!(slot != NONE);
        if id.0 < DIRECT {
            let i = id.0 as usize;
            if i >= self.direct.len() {
                self.direct.resize(i + 1, NONE);
            }
            self.direct[i] = slot;
        } else {
            self.far.insert(id, slot);
        }
    }

    /// Forget `id`.
    pub(crate) fn remove(&mut self, id: FlowId) {
        if id.0 < DIRECT {
            if let Some(s) = self.direct.get_mut(id.0 as usize) {
                *s = NONE;
            }
        } else {
            self.far.remove(&id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::RequestId;
    use proptest::prelude::*;

    #[test]
    fn consecutive_ids_take_consecutive_buckets_and_differ_in_the_tag() {
        let hash = |n: u64| {
            let mut h = SeqHasher::default();
            std::hash::Hash::hash(&RequestId(n), &mut h);
            h.finish()
        };
        for n in [0u64, 1, 1000, 1 << 40] {
            assert_eq!(hash(n + 1) & 0xFFFF, (hash(n) + 1) & 0xFFFF);
        }
        let tags: std::collections::HashSet<u64> = (0..64).map(|n| hash(n) >> 57).collect();
        assert!(tags.len() > 32, "{} tags of 64", tags.len());
        let mut m: SeqMap<RequestId, u64> = SeqMap::default();
        for n in 0..10_000 {
            m.insert(RequestId(n * 3), n);
        }
        assert!((0..10_000).all(|n| m[&RequestId(n * 3)] == n));
    }

    proptest! {
        /// Against a `HashMap`, with ids on both sides of [`DIRECT`].
        #[test]
        fn matches_a_hashmap(
            ops in prop::collection::vec((any::<bool>(), 0u32..8, 0u32..1000), 1..300)
        ) {
            let mut ids = SlotIds::default();
            let mut m: HashMap<u32, u32> = HashMap::new();
            for (put, which, slot) in ops {
                let id = [0, 1, 5, 300, DIRECT - 1, DIRECT, DIRECT + 7, u32::MAX][which as usize];
                if put {
                    ids.insert(FlowId(id), slot);
                    m.insert(id, slot);
                } else {
                    ids.remove(FlowId(id));
                    m.remove(&id);
                }
                for probe in [0, 1, 2, 5, 300, DIRECT - 1, DIRECT, DIRECT + 7, u32::MAX] {
                    prop_assert_eq!(ids.get(FlowId(probe)), m.get(&probe).copied());
                }
            }
        }
    }
}
