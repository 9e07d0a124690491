//! A tournament (winner) tree over dense slots keyed by (u128 key, u32 id),
//! for the fair-queueing policies that kept a `BTreeSet<(key, FlowId)>` of
//! their flows: the minimum is the same element, but a slot's key changes
//! in place along its leaf-to-root path (4-ary, O(log n), no allocation
//! once grown), and the nodes visited depend on the slot alone, so the
//! processor can fetch them ahead of the comparisons.

/// One node: the key and (id << 32 | slot). An empty leaf is all ones,
/// above every real key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Node {
    key: u128,
    who: u64,
}

const EMPTY: Node = Node {
    key: u128::MAX,
    who: u64::MAX,
};

impl Node {
    /// The smaller of the two by (key, id, slot), without a branch (ties
    /// are common, and would be mispredicted).
    #[inline]
    fn min(self, other: Node) -> Node {
        let take = (other.key < self.key) | ((other.key == self.key) & (other.who < self.who));
        let m64 = u64::from(take).wrapping_neg();
        let m128 = u128::from(m64) | (u128::from(m64) << 64);
        Node {
            key: (other.key & m128) | (self.key & !m128),
            who: (other.who & m64) | (self.who & !m64),
        }
    }

    #[inline]
    fn slot(self) -> usize {
        (self.who & 0xFFFF_FFFF) as usize
    }

    #[inline]
    fn id(self) -> u32 {
        (self.who >> 32) as u32
    }
}

/// Children per inner node.
const D: usize = 4;

/// The children of one inner node, laid out together.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Line([Node; D]);

const EMPTY_LINE: Line = Line([EMPTY; D]);

impl Line {
    #[inline]
    fn min(&self) -> Node {
        let [a, b, c, d] = self.0;
        a.min(b).min(c.min(d))
    }
}

/// `i64` keys as `u128` in the same order.
#[inline]
pub(crate) fn key_of_i64(k: i64) -> u128 {
    u128::from((k as u64) ^ (1 << 63))
}

/// The `i64` that [`key_of_i64`] mapped to `key`.
#[inline]
pub(crate) fn i64_of_key(key: u128) -> i64 {
    ((key as u64) ^ (1 << 63)) as i64
}

/// See the module documentation.
#[derive(Clone, Debug, Default)]
pub(crate) struct FairTree {
    /// A 4-ary tree in breadth-first order, node `j` at place `j + 3` of
    /// the lines end to end: node 0 is the root, the children of node `i`
    /// are line `i + 1`, slot `s` is leaf `inner + s`.
    lines: Vec<Line>,
    /// Inner nodes (`(cap - 1) / 3`).
    inner: usize,
    /// Leaves (a power of four).
    cap: usize,
    /// Slots in the tree.
    len: usize,
}

impl FairTree {
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

    /// The smallest element by (key, id): (key, id, slot).
    #[inline]
    pub(crate) fn first(&self) -> Option<(u128, u32, usize)> {
        if self.cap == 0 {
            return None;
        }
        let n = self.node(0);
        (n != EMPTY).then(|| (n.key, n.id(), n.slot()))
    }

    /// The key of `slot`, if it is in the tree.
    #[cfg(test)]
    pub(crate) fn key(&self, slot: usize) -> Option<u128> {
        if slot >= self.cap {
            return None;
        }
        let n = self.node(self.inner + slot);
        (n != EMPTY).then_some(n.key)
    }

    /// Slots in the tree.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether no slot is in the tree.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Put `slot` (with tie-breaking `id`) in under `key`, or take it out
    /// (`None`), moving it if it is already in.
    #[inline]
    pub(crate) fn set(&mut self, slot: usize, id: u32, key: Option<u128>) {
        debug_assert!(slot < u32::MAX as usize);
        if slot >= self.cap {
            if key.is_none() {
                return;
            }
            self.grow(slot + 1);
        }
        let n = match key {
            Some(k) => Node {
                key: k,
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
        // Each level's minimum is taken from the line as read before the
        // new child is stored, with the child from a register: reading back
        // a node just stored would stall on store forwarding.
        let mut cur = n;
        loop {
            let p = j + D - 1;
            let (li, k) = (p / D, p % D);
            let line = &self.lines[li];
            if line.0[k] == cur {
                // Unchanged here, so above too.
                break;
            }
            let up = (j > 0).then(|| {
                let pick = |i: usize| if i == k { cur } else { line.0[i] };
                pick(0).min(pick(1)).min(pick(2).min(pick(3)))
            });
            self.lines[li].0[k] = cur;
            match up {
                Some(m) => cur = m,
                None => break,
            }
            j = (j - 1) / D;
        }
    }

    /// Put `slot` in under `key` (or take it out) at its leaf only: the
    /// inner nodes stay stale until [`FairTree::fix`] is called for it, and
    /// [`FairTree::first`] is wrong until then ([`FairTree::scan_first`] is
    /// not). For a minimum that is read far less often than keys change.
    pub(crate) fn set_leaf(&mut self, slot: usize, id: u32, key: Option<u128>) {
        if slot >= self.cap {
            if key.is_none() {
                return;
            }
            self.grow(slot + 1);
        }
        let n = match key {
            Some(k) => Node {
                key: k,
                who: (u64::from(id) << 32) | slot as u64,
            },
            None => EMPTY,
        };
        let j = self.inner + slot;
        let old = self.node(j);
        self.len = self.len + usize::from(old == EMPTY) - usize::from(n == EMPTY);
        self.put(j, n);
    }

    /// Bring the inner nodes above `slot`'s leaf up to date after
    /// [`FairTree::set_leaf`]. Once every slot set so is fixed (in any
    /// order), the tree is exact again: a walk stops where a node comes out
    /// unchanged, whose ancestors the other walks keep.
    pub(crate) fn fix(&mut self, slot: usize) {
        if slot >= self.cap {
            return;
        }
        let mut j = self.inner + slot;
        while j > 0 {
            let parent = (j - 1) / D;
            let m = self.lines[parent + 1].min();
            if self.node(parent) == m {
                break;
            }
            self.put(parent, m);
            j = parent;
        }
    }

    /// The smallest element by a scan of the leaves, O(n): exact even with
    /// slots not yet fixed.
    pub(crate) fn scan_first(&self) -> Option<(u128, u32, usize)> {
        let n = (0..self.cap)
            .map(|s| self.node(self.inner + s))
            .fold(EMPTY, Node::min);
        (n != EMPTY).then(|| (n.key, n.id(), n.slot()))
    }

    /// Every (id, slot) whose key equals `key`, in no particular order.
    pub(crate) fn equal_to(&self, key: u128, out: &mut Vec<(u32, usize)>) {
        if self.cap == 0 || key == u128::MAX {
            return;
        }
        let mut stack = vec![0usize];
        while let Some(j) = stack.pop() {
            let n = self.node(j);
            if n == EMPTY || n.key > key {
                continue;
            }
            if j >= self.inner {
                if n.key == key {
                    out.push((n.id(), n.slot()));
                }
            } else {
                stack.extend((1..=D).map(|c| D * j + c));
            }
        }
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
        *self = FairTree {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        /// The tree against a `BTreeSet<(key, id)>` under random inserts,
        /// moves and removals (keys from a small range, so ties are
        /// common), growing as slots appear.
        #[test]
        fn minimum_and_ties_match_an_ordered_set(
            ops in prop::collection::vec((0usize..300, 0u8..6, 0u128..12), 1..600)
        ) {
            let mut tree = FairTree::default();
            let mut set: BTreeSet<(u128, u32)> = BTreeSet::new();
            let mut keys: Vec<Option<u128>> = vec![None; 300];
            for (slot, op, k) in ops {
                // Ids in the reverse order of slots: the id decides ties.
                let id = 1000 - slot as u32;
                let key = match op {
                    0 => None,
                    1 => Some(u128::MAX - 1 - k),
                    2 => Some(key_of_i64(k as i64 - 6)),
                    _ => Some(k),
                };
                if let Some(old) = keys[slot] {
                    set.remove(&(old, id));
                }
                if let Some(new) = key {
                    set.insert((new, id));
                }
                keys[slot] = key;
                tree.set(slot, id, key);
                prop_assert_eq!(tree.len(), set.len());
                prop_assert_eq!(tree.is_empty(), set.is_empty());
                prop_assert_eq!(tree.first().map(|(k, id, _)| (k, id)), set.first().copied());
                if let Some((_, _, s)) = tree.first() {
                    prop_assert_eq!(1000 - s as u32, tree.first().unwrap().1);
                }
                prop_assert_eq!(tree.key(slot), key);
                if let Some(&(min, _)) = set.first() {
                    let mut ties = Vec::new();
                    tree.equal_to(min, &mut ties);
                    ties.sort_unstable();
                    let want: Vec<u32> = set.iter().take_while(|e| e.0 == min).map(|e| e.1).collect();
                    prop_assert_eq!(ties.iter().map(|t| t.0).collect::<Vec<_>>(), want);
                }
            }
        }
    }

    proptest! {
        /// Leaves set lazily and fixed in batches (in another order than
        /// they were set) give the eager tree's minimum; the scan gives it
        /// at any time.
        #[test]
        fn lazy_leaves_once_fixed_match_the_eager_tree(
            ops in prop::collection::vec((0usize..200, 0u8..4, 0u128..8, any::<bool>()), 1..500)
        ) {
            let mut eager = FairTree::default();
            let mut lazy = FairTree::default();
            let mut dirty: Vec<usize> = Vec::new();
            for (slot, op, k, flush) in ops {
                let key = (op != 0).then_some(k);
                eager.set(slot, slot as u32 % 7, key);
                lazy.set_leaf(slot, slot as u32 % 7, key);
                dirty.push(slot);
                prop_assert_eq!(lazy.scan_first(), eager.first());
                prop_assert_eq!(lazy.len(), eager.len());
                if flush {
                    dirty.reverse();
                    for s in dirty.drain(..) {
                        lazy.fix(s);
                    }
                    prop_assert_eq!(lazy.first(), eager.first());
                }
            }
        }
    }

    #[test]
    fn i64_keys_keep_their_order() {
        let ks = [i64::MIN, -5, -1, 0, 1, 7, i64::MAX];
        for w in ks.windows(2) {
            assert!(key_of_i64(w[0]) < key_of_i64(w[1]));
            assert_eq!(i64_of_key(key_of_i64(w[0])), w[0]);
        }
    }
}
