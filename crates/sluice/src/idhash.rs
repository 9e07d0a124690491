//! A hash map for small integer ids (flows, requests): the std SipHash
//! costs more than the rest of such a lookup, and ids are not chosen by an
//! adversary. And flow id to dense slot ([`SlotIds`]) without hashing for
//! the small ids hosts use: ids below 2^16 index a vector, larger ones go
//! to the hash map.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::types::FlowId;

/// A multiplicative hasher for integer ids.
#[derive(Default, Clone, Copy)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A `HashMap` keyed by ids, hashed with [`IdHasher`].
pub type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// Ids below this are looked up in the vector.
const DIRECT: u32 = 1 << 16;

/// No slot, in the vector.
const NONE: u32 = u32::MAX;

/// Flow id to dense slot: a vector indexed by the id for ids below 2^16
/// (at most 256 KiB of it), a hash map for larger ones.
#[derive(Clone, Debug, Default)]
pub struct SlotIds {
    direct: Vec<u32>,
    far: IdMap<FlowId, u32>,
}

impl SlotIds {
    /// The slot of `id`.
    #[inline]
    pub fn get(&self, id: FlowId) -> Option<u32> {
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
    pub fn insert(&mut self, id: FlowId, slot: u32) {
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
    pub fn remove(&mut self, id: FlowId) {
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
    use proptest::prelude::*;

    #[test]
    fn consecutive_ids_spread_over_buckets() {
        let hash = |n: u64| {
            let mut h = IdHasher::default();
            h.write_u64(n);
            h.finish()
        };
        // The low bits (the bucket of a small table) differ for neighbours.
        let buckets: std::collections::HashSet<u64> = (0..64).map(|n| hash(n) & 63).collect();
        assert!(buckets.len() > 32, "{} of 64 buckets", buckets.len());
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
