//! A tournament (winner) tree over the slots of `Mclock`'s slab, keyed by
//! (tag, flow id): each slot is a leaf, each inner node holds the smallest
//! of its four children (one cache line), the root the minimum. Changing a slot's key walks
//! from its leaf to the root, O(log n), and the nodes it reads are fixed by
//! the slot alone (not by the comparisons on the way, as in a heap), so the
//! processor fetches them all at once. Keys compare as `f64::total_cmp` and
//! then by flow id, the order the policy's former
//! `BTreeSet<(Tag, FlowId)>` sets had: the minimum is the same element.

/// One node: the key as an unsigned integer in `f64::total_cmp`'s order,
/// and (flow id << 32 | slot). An empty leaf is all ones, above every key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Node {
    key: u64,
    who: u64,
}

const EMPTY: Node = Node {
    key: u64::MAX,
    who: u64::MAX,
};

impl Node {
    /// (key, id, slot) as one integer, in their order (a flow id has one
    /// slot, so the slot never decides).
    #[inline]
    fn rank(self) -> u128 {
        (u128::from(self.key) << 64) | u128::from(self.who)
    }

    /// The smaller of `self` and `other`, without a branch.
    #[inline]
    fn min(self, other: Node) -> Node {
        let take = u64::from(other.rank() < self.rank());
        let mask = take.wrapping_neg();
        Node {
            key: (other.key & mask) | (self.key & !mask),
            who: (other.who & mask) | (self.who & !mask),
        }
    }

    fn slot(self) -> usize {
        (self.who & 0xFFFF_FFFF) as usize
    }

    fn id(self) -> u32 {
        (self.who >> 32) as u32
    }
}

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

/// Children per inner node.
const D: usize = 4;

/// A cache line of nodes: the children of one inner node.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Line([Node; D]);

const EMPTY_LINE: Line = Line([EMPTY; D]);

impl Line {
    /// The smallest of the four, without a branch.
    #[inline]
    fn min(&self) -> Node {
        let [a, b, c, d] = self.0;
        a.min(b).min(c.min(d))
    }
}

/// See the module documentation.
#[derive(Clone, Debug, Default)]
pub(super) struct FlowTree {
    /// The nodes of a 4-ary tree in breadth-first order, node `j` at place
    /// `j + 3` of the lines laid end to end: node 0 is the root, the
    /// children of node `i` (`4i+1 ..= 4i+4`) are line `i + 1`, and slot
    /// `s` is leaf `inner + s`. Empty until a slot is first set.
    lines: Vec<Line>,
    /// Inner nodes (`(cap - 1) / 3`).
    inner: usize,
    /// Leaves (a power of four).
    cap: usize,
    /// Slots in the tree.
    len: usize,
}

impl FlowTree {
    #[inline]
    fn node(&self, j: usize) -> Node {
        let p = j + D - 1;
        self.lines[p / D].0[p % D]
    }

    #[inline]
    fn put(&mut self, j: usize, n: Node) {
        let p = j + D - 1;
        self.lines[p / D].0[p % D] = n;
    }

    /// The smallest element: (key, flow id, slot).
    #[inline]
    pub(super) fn first(&self) -> Option<(f64, u32, usize)> {
        if self.cap == 0 {
            return None;
        }
        let n = self.node(0);
        (n != EMPTY).then(|| (key_of(n.key), n.id(), n.slot()))
    }

    /// The key of `slot`, if it is in the tree.
    #[inline]
    pub(super) fn key(&self, slot: usize) -> Option<f64> {
        if slot >= self.cap {
            return None;
        }
        let n = self.node(self.inner + slot);
        (n != EMPTY).then(|| key_of(n.key))
    }

    /// Put `slot` (flow `id`) in under `key`, or take it out (`None`),
    /// moving it if it is already in.
    #[inline]
    pub(super) fn set(&mut self, slot: usize, id: u32, key: Option<f64>) {
        if slot >= self.cap {
            if key.is_none() {
                return;
            }
            self.grow(slot + 1);
        }
        let n = match key {
            Some(k) => Node {
                key: ord_of(k),
                who: (u64::from(id) << 32) | slot as u64,
            },
            None => EMPTY,
        };
        let mut j = self.inner + slot;
        let old = self.node(j);
        if old == n {
            return;
        }
        self.len = self.len + usize::from(old == EMPTY) - usize::from(n == EMPTY);
        self.put(j, n);
        while j > 0 {
            let parent = (j - 1) / D;
            let m = self.lines[parent + 1].min();
            self.put(parent, m);
            j = parent;
        }
    }

    /// Take `slot` out, if it is in; its key.
    #[inline]
    pub(super) fn remove(&mut self, slot: usize) -> Option<f64> {
        let key = self.key(slot)?;
        self.set(slot, 0, None);
        Some(key)
    }

    /// Room for slots below `slots`: the leaves quadruple until they fit
    /// and the inner nodes are rebuilt, O(n).
    #[cold]
    fn grow(&mut self, slots: usize) {
        let mut cap = 16;
        while cap < slots {
            cap *= D;
        }
        let inner = (cap - 1) / (D - 1);
        let old = std::mem::take(self);
        *self = FlowTree {
            lines: vec![EMPTY_LINE; (inner + cap + D - 1).div_ceil(D)],
            inner,
            cap,
            len: old.len,
        };
        for s in 0..old.cap {
            self.put(inner + s, old.node(old.inner + s));
        }
        for i in (0..inner).rev() {
            let m = self.lines[i + 1].min();
            self.put(i, m);
        }
    }

    /// Slots in the tree.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.len
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
        assert!(ord_of(1.0) < ord_of(f64::INFINITY) && ord_of(f64::INFINITY) < EMPTY.key);
    }
}
