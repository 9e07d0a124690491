//! An indexed 4-ary min-heap of flows keyed by (tag, flow id): each flow
//! (a slot of `Mclock`'s slab) is in it at most once, and its position is
//! kept per slot, so that a flow's key can be changed or the flow removed
//! in O(log n) without searching. Keys compare as `f64::total_cmp` and
//! then by flow id, the order the policy's former `BTreeSet<(Tag, FlowId)>`
//! sets had: the minimum is the same element.

/// No position: the slot is not in the heap.
const NONE: u32 = u32::MAX;
/// Children per node.
const D: usize = 4;

/// One element (16 bytes: four children fill a cache line): its key, the
/// flow id that breaks ties, and its slot.
#[derive(Clone, Copy, Debug)]
struct Node {
    /// The key mapped to an integer with the order of `f64::total_cmp`
    /// (see [`ord_of`], [`key_of`]).
    ord: i64,
    id: u32,
    slot: u32,
}

impl Node {
    /// (key, id) as one integer, in their order.
    #[inline]
    fn rank(&self) -> u128 {
        (u128::from(self.ord as u64 ^ (1 << 63)) << 32) | u128::from(self.id)
    }

    #[inline]
    fn less(&self, other: &Node) -> bool {
        self.rank() < other.rank()
    }
}

/// `f64::total_cmp`'s order as an `i64`.
#[inline]
fn ord_of(key: f64) -> i64 {
    let b = key.to_bits() as i64;
    b ^ ((((b >> 63) as u64) >> 1) as i64)
}

/// The key [`ord_of`] mapped to `ord` (the map is its own inverse).
#[inline]
fn key_of(ord: i64) -> f64 {
    f64::from_bits((ord ^ ((((ord >> 63) as u64) >> 1) as i64)) as u64)
}

/// See the module documentation.
#[derive(Clone, Debug, Default)]
pub(super) struct FlowHeap {
    nodes: Vec<Node>,
    /// Position of each slot in `nodes`, or `NONE`.
    pos: Vec<u32>,
}

impl FlowHeap {
    /// The smallest element: (key, flow id, slot).
    #[inline]
    pub(super) fn first(&self) -> Option<(f64, u32, usize)> {
        self.nodes
            .first()
            .map(|n| (key_of(n.ord), n.id, n.slot as usize))
    }

    /// The key of `slot`, if it is in the heap.
    #[inline]
    pub(super) fn key(&self, slot: usize) -> Option<f64> {
        match self.pos.get(slot) {
            Some(&p) if p != NONE => Some(key_of(self.nodes[p as usize].ord)),
            _ => None,
        }
    }

    /// Put `slot` (flow `id`) in under `key`, or take it out (`None`),
    /// moving it if it is already in.
    #[inline]
    pub(super) fn set(&mut self, slot: usize, id: u32, key: Option<f64>) {
        if slot >= self.pos.len() {
            if key.is_none() {
                return;
            }
            self.pos.resize(slot + 1, NONE);
        }
        let p = self.pos[slot];
        match (key, p) {
            (None, NONE) => {}
            (None, p) => self.remove_at(p as usize),
            (Some(key), NONE) => {
                let i = self.nodes.len();
                self.nodes.push(Node {
                    ord: ord_of(key),
                    id,
                    slot: slot as u32,
                });
                self.pos[slot] = i as u32;
                self.sift_up(i);
            }
            (Some(key), p) => {
                let i = p as usize;
                let n = &mut self.nodes[i];
                let ord = ord_of(key);
                if n.ord == ord && n.id == id {
                    return;
                }
                let old = *n;
                n.ord = ord;
                n.id = id;
                let new = *n;
                if new.less(&old) {
                    self.sift_up(i);
                } else {
                    self.sift_down(i);
                }
            }
        }
    }

    /// Take `slot` out, if it is in; its key.
    #[inline]
    pub(super) fn remove(&mut self, slot: usize) -> Option<f64> {
        let p = *self.pos.get(slot)?;
        if p == NONE {
            return None;
        }
        let key = key_of(self.nodes[p as usize].ord);
        self.remove_at(p as usize);
        Some(key)
    }

    fn remove_at(&mut self, i: usize) {
        let gone = self.nodes[i];
        self.pos[gone.slot as usize] = NONE;
        let last = self.nodes.pop().expect("a node at i");
        if i < self.nodes.len() {
            self.nodes[i] = last;
            self.pos[last.slot as usize] = i as u32;
            if last.less(&gone) {
                self.sift_up(i);
            } else {
                self.sift_down(i);
            }
        }
    }

    fn sift_up(&mut self, mut i: usize) {
        let n = self.nodes[i];
        while i > 0 {
            let parent = (i - 1) / D;
            let p = self.nodes[parent];
            if !n.less(&p) {
                break;
            }
            self.nodes[i] = p;
            self.pos[p.slot as usize] = i as u32;
            i = parent;
        }
        self.nodes[i] = n;
        self.pos[n.slot as usize] = i as u32;
    }

    /// Move the node at `i` down to where it belongs. Bottom-up: the hole
    /// follows the smallest children to a leaf, then the node rises from
    /// there (a node whose key grew, such as a flow just served, usually
    /// belongs near the leaves).
    fn sift_down(&mut self, mut i: usize) {
        let n = self.nodes[i];
        let len = self.nodes.len();
        let start = i;
        loop {
            let first = i * D + 1;
            if first >= len {
                break;
            }
            let best = if first + D <= len {
                // All four children: a branch-free tournament (which child
                // is smallest is unpredictable).
                let r = |j: usize| self.nodes[j].rank();
                let a = first + usize::from(r(first + 1) < r(first));
                let b = first + 2 + usize::from(r(first + 3) < r(first + 2));
                a + usize::from(r(b) < r(a)) * (b - a)
            } else {
                let mut best = first;
                for c in first + 1..len {
                    if self.nodes[c].less(&self.nodes[best]) {
                        best = c;
                    }
                }
                best
            };
            let b = self.nodes[best];
            self.nodes[i] = b;
            self.pos[b.slot as usize] = i as u32;
            i = best;
        }
        // Rise from the leaf, but not above `start`.
        while i > start {
            let parent = (i - 1) / D;
            let p = self.nodes[parent];
            if !n.less(&p) {
                break;
            }
            self.nodes[i] = p;
            self.pos[p.slot as usize] = i as u32;
            i = parent;
        }
        self.nodes[i] = n;
        self.pos[n.slot as usize] = i as u32;
    }

    /// Elements in the heap.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.nodes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The heap against a `BTreeSet` of (total-order key, id) under random
    /// inserts, moves and removals.
    #[test]
    fn minimum_matches_an_ordered_set() {
        let mut h = FlowHeap::default();
        let mut set: BTreeSet<(i64, u32)> = BTreeSet::new();
        let mut keys: Vec<Option<f64>> = vec![None; 64];
        let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let slot = (s % 64) as usize;
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
            if (s >> 40) % 3 == 0 {
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
        assert!(ord_of(f64::NEG_INFINITY) < ord_of(-1e300) && ord_of(1.0) < ord_of(f64::INFINITY));
    }
}
