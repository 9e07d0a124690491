//! YFQ's flows with a selectable request, least (finish tag, flow id)
//! first: the ordered set a [`FairTree`](super::super::fair_tree::FairTree)
//! keeps, with each element packed into one `u128` rank, `tag << 32 | id`,
//! which orders exactly as the pair while the tag stays below 2^96 (2^56
//! sectors per weight unit: 32 EiB at weight 1). A node is then 16 bytes
//! and the four children of a node one cache line, half a `FairTree<u128>`
//! level, and the minimum of two nodes is one comparison. YFQ changes the
//! key of the flow it selected on every request, a walk from its leaf to
//! the root, so the walk is its hottest path.

/// The largest tag a rank holds (the all-ones rank marks an empty leaf).
const TAG_LIMIT: u128 = (1 << 96) - 1;

/// An empty leaf: above every rank.
const EMPTY: u128 = u128::MAX;

/// The four children of one node, in one cache line.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Quad([u128; 4]);

/// See the module documentation. Slots are dense (YFQ's flow slots); the
/// tree is laid out as `FairTree`'s: node 0 the root, the children of node
/// `j` in `quads[j]`, slot `s` at node `quads.len() + s`.
#[derive(Clone, Debug)]
pub(super) struct ReadySet {
    root: u128,
    quads: Vec<Quad>,
    /// Leaves (0, or a power of four from 16).
    cap: usize,
    /// Slots in the set.
    len: usize,
}

impl Default for ReadySet {
    fn default() -> Self {
        ReadySet {
            root: EMPTY,
            quads: Vec::new(),
            cap: 0,
            len: 0,
        }
    }
}

impl ReadySet {
    #[inline]
    fn node(&self, j: usize) -> u128 {
        match j {
            0 => self.root,
            _ => self.quads[(j - 1) / 4].0[(j - 1) % 4],
        }
    }

    #[inline]
    fn put(&mut self, j: usize, n: u128) {
        match j {
            0 => self.root = n,
            _ => self.quads[(j - 1) / 4].0[(j - 1) % 4] = n,
        }
    }

    #[inline]
    fn least_child(&self, j: usize) -> u128 {
        let [a, b, c, d] = self.quads[j].0;
        a.min(b).min(c.min(d))
    }

    /// The least (tag, flow id) in the set: (tag, id).
    #[inline]
    pub(super) fn first(&self) -> Option<(u128, u32)> {
        (self.root != EMPTY).then_some((self.root >> 32, self.root as u32))
    }

    /// Whether no slot is in the set.
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Put `slot` (flow `id`) in under `tag`, or take it out (`None`).
    ///
    /// # Panics
    /// If `tag` is 2^96 - 1 or above (see the module documentation).
    #[inline]
    pub(super) fn set(&mut self, slot: usize, id: u32, tag: Option<u128>) {
        let n = match tag {
            Some(t) => {
                assert!(t < TAG_LIMIT, "a YFQ tag beyond 2^56 sectors per weight");
                (t << 32) | u128::from(id)
            }
            None => EMPTY,
        };
        if slot >= self.cap {
            if n == EMPTY {
                return;
            }
            self.grow(slot + 1);
        }
        let mut j = self.quads.len() + slot;
        let old = self.node(j);
        if old == n {
            return;
        }
        self.len = self.len + usize::from(old == EMPTY) - usize::from(n == EMPTY);
        self.put(j, n);
        // Up to the root, stopping where a node comes out unchanged.
        while j > 0 {
            let parent = (j - 1) / 4;
            let m = self.least_child(parent);
            if self.node(parent) == m {
                break;
            }
            self.put(parent, m);
            j = parent;
        }
    }

    /// Every (id, slot) whose tag equals `tag`, in no particular order.
    pub(super) fn equal_to(&self, tag: u128, out: &mut Vec<(u32, usize)>) {
        if self.cap == 0 || tag >= TAG_LIMIT {
            return;
        }
        let top = (tag << 32) | u128::from(u32::MAX);
        let mut stack = vec![0usize];
        while let Some(j) = stack.pop() {
            let n = self.node(j);
            if n > top {
                continue;
            }
            if j >= self.quads.len() {
                if n >> 32 == tag {
                    out.push((n as u32, j - self.quads.len()));
                }
            } else {
                stack.extend(4 * j + 1..=4 * j + 4);
            }
        }
    }

    /// Room for slots below `slots`: the leaves grow fourfold until they
    /// fit and the inner nodes are rebuilt, O(n).
    #[cold]
    fn grow(&mut self, slots: usize) {
        let mut cap = 16;
        while cap < slots {
            cap *= 4;
        }
        let old = std::mem::take(self);
        let inner = (cap - 1) / 3;
        *self = ReadySet {
            root: EMPTY,
            quads: vec![Quad([EMPTY; 4]); inner],
            cap,
            len: old.len,
        };
        for s in 0..old.cap {
            self.put(inner + s, old.node(old.quads.len() + s));
        }
        for j in (0..inner).rev() {
            let m = self.least_child(j);
            self.put(j, m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::fair_tree::FairTree;
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Against the `FairTree<u128>` it replaces, under random inserts,
        /// moves and removals with few distinct tags (ties are common) and
        /// tags up to the limit: the same minimum (tag and id), the same
        /// emptiness and the same ties.
        #[test]
        fn reads_as_the_fair_tree(
            ops in prop::collection::vec((0usize..300, 0u8..5, 0u128..10), 1..600)
        ) {
            let mut set = ReadySet::default();
            let mut tree: FairTree<u128> = FairTree::default();
            for (slot, op, k) in ops {
                let id = 7919u32.wrapping_mul(slot as u32 + 1) % 1000 + u32::from(op == 4) * (u32::MAX - 1000);
                let tag = match op {
                    0 => None,
                    1 => Some(TAG_LIMIT - 1 - k),
                    _ => Some(k),
                };
                set.set(slot, id, tag);
                tree.set(slot, id, tag);
                prop_assert_eq!(set.first(), tree.first().map(|(t, id, _)| (t, id)));
                prop_assert_eq!(set.is_empty(), tree.is_empty());
                if let Some((t, _)) = set.first() {
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    set.equal_to(t, &mut a);
                    tree.equal_to(t, &mut b);
                    a.sort_unstable();
                    b.sort_unstable();
                    prop_assert_eq!(a, b);
                }
            }
        }
    }

    #[test]
    fn a_level_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<Quad>(), 64);
        let mut s = ReadySet::default();
        s.set(4095, 3, Some(5));
        assert_eq!((s.cap, s.quads.len()), (4096, 1365));
        assert_eq!(s.first(), Some((5, 3)));
        s.set(4095, 3, None);
        assert!(s.is_empty() && s.first().is_none());
    }

    #[test]
    #[should_panic(expected = "beyond 2^56")]
    fn a_tag_beyond_the_limit_is_refused() {
        ReadySet::default().set(0, 0, Some(TAG_LIMIT));
    }
}
