//! Ids without scattering hashes for the fair queuers: flow ids to dense
//! slots ([`SlotIds`], kept in [`crate::idhash`] for the engine too) and a
//! hash map for request ids made in increasing order.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

pub(crate) use crate::idhash::SlotIds;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::RequestId;

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
}
