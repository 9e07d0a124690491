//! `Mclock`'s tag sets: a [`FairTree`] over the slots of its slab, keyed
//! by (tag, flow id), with the `f64` tags mapped to integers in the order of
//! `f64::total_cmp`, the order the policy's former `BTreeSet<(Tag, FlowId)>`
//! sets had: the minimum is the same element. Changing a slot's key walks
//! from its leaf to the root, O(log n), through nodes fixed by the slot
//! alone, so the processor fetches them all at once.

use super::super::fair_tree::FairTree;

/// `key` as an unsigned integer in the order of `f64::total_cmp`.
#[inline]
fn ord_of(key: f64) -> u64 {
    let b = key.to_bits() as i64;
    ((b ^ ((((b >> 63) as u64) >> 1) as i64)) as u64) ^ (1 << 63)
}

/// The key [`ord_of`] mapped to `ord`.
#[inline]
fn key_of(ord: u64) -> f64 {
    let b = (ord ^ (1 << 63)) as i64;
    f64::from_bits((b ^ ((((b >> 63) as u64) >> 1) as i64)) as u64)
}

/// See the module documentation.
#[derive(Clone, Debug, Default)]
pub(super) struct FlowTree(FairTree<u64>);

impl FlowTree {
    /// The smallest element: (key, flow id, slot).
    #[inline]
    pub(super) fn first(&self) -> Option<(f64, u32, usize)> {
        self.0.first().map(|(k, id, s)| (key_of(k), id, s))
    }

    /// The key of `slot`, if it is in the tree.
    #[inline]
    pub(super) fn key(&self, slot: usize) -> Option<f64> {
        self.0.key(slot).map(key_of)
    }

    /// Put `slot` (flow `id`) in under `key`, or take it out (`None`),
    /// moving it if it is already in.
    #[inline]
    pub(super) fn set(&mut self, slot: usize, id: u32, key: Option<f64>) {
        self.0.set(slot, id, key.map(ord_of));
    }

    /// Take `slot` out, if it is in; its key.
    #[inline]
    pub(super) fn remove(&mut self, slot: usize) -> Option<f64> {
        let key = self.key(slot)?;
        self.0.set(slot, 0, None);
        Some(key)
    }

    /// Slots in the tree.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.0.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The tree against a `BTreeSet` of (total-order key, id) under random
    /// inserts, moves and removals, growing as slots appear.
    #[test]
    fn minimum_matches_an_ordered_set() {
        let mut h = FlowTree::default();
        let mut set: BTreeSet<(u64, u32)> = BTreeSet::new();
        let mut keys: Vec<Option<f64>> = vec![None; 300];
        let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
        for step in 0..40_000u64 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let slot = (s % (20 + step / 200).min(300)) as usize;
            let id = slot as u32 * 3;
            let key = match (s >> 8) % 5 {
                0 => None,
                1 => Some(-(((s >> 20) % 7) as f64)),
                _ => Some(((s >> 20) % 50) as f64 * 0.5),
            };
            if let Some(k) = keys[slot] {
                set.remove(&(ord_of(k), id));
            }
            if let Some(k) = key {
                set.insert((ord_of(k), id));
            }
            keys[slot] = key;
            if (s >> 40) & 3 == 0 {
                h.remove(slot);
            }
            h.set(slot, id, key);
            assert_eq!(h.len(), set.len());
            assert_eq!(
                h.first().map(|(k, id, _)| (ord_of(k), id)),
                set.first().copied()
            );
            assert_eq!(h.key(slot).map(f64::to_bits), key.map(f64::to_bits));
        }
        for k in [
            0.0,
            -0.0,
            1.5e9,
            -3.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e-300,
        ] {
            assert_eq!(key_of(ord_of(k)).to_bits(), k.to_bits());
        }
        assert!(ord_of(-1.0) < ord_of(-0.0) && ord_of(-0.0) < ord_of(0.0));
        assert!(ord_of(f64::NEG_INFINITY) < ord_of(-1e300));
        assert!(ord_of(1.0) < ord_of(f64::INFINITY) && ord_of(f64::INFINITY) < u64::MAX);
    }
}
