//! A tournament (winner) tree over dense slots keyed by (key, u32 id), the
//! key a `u64` or a `u128` ([`TreeKey`]),
//! for the fair-queueing policies that kept a `BTreeSet<(key, FlowId)>` of
//! their flows: the minimum is the same element, but a slot's key changes
//! in place along its leaf-to-root path (O(log n), no allocation once
//! grown), and the nodes visited depend on the slot alone, so the processor
//! can fetch them ahead of the comparisons. Four children per node, side
//! by side: a level is one cache line for `u64` keys (two adjacent ones
//! for `u128`), and a path is half as long as a binary tree's (at 4,096
//! flows a binary tree of `u64` keys is 256 KiB, half a core's L2 cache;
//! this one is 87 KiB).

/// A key type of the tree: its largest value (the empty leaf's) and the
/// branchless minimum of two nodes.
pub(crate) trait TreeKey: Copy + Eq + Ord + std::fmt::Debug + Default {
    const MAX: Self;
    /// The smaller of two nodes by (key, who), without a branch (ties are
    /// common, and would be mispredicted).
    fn min(a: Node<Self>, b: Node<Self>) -> Node<Self>;
}

impl TreeKey for u64 {
    const MAX: u64 = u64::MAX;
    #[inline]
    fn min(a: Node<u64>, b: Node<u64>) -> Node<u64> {
        let rank = |n: Node<u64>| (u128::from(n.key) << 64) | u128::from(n.who);
        let m = u64::from(rank(b) < rank(a)).wrapping_neg();
        Node {
            key: (b.key & m) | (a.key & !m),
            who: (b.who & m) | (a.who & !m),
        }
    }
}

impl TreeKey for u128 {
    const MAX: u128 = u128::MAX;
    #[inline]
    fn min(a: Node<u128>, b: Node<u128>) -> Node<u128> {
        let take = (b.key < a.key) | ((b.key == a.key) & (b.who < a.who));
        let m64 = u64::from(take).wrapping_neg();
        let m128 = u128::from(m64) | (u128::from(m64) << 64);
        Node {
            key: (b.key & m128) | (a.key & !m128),
            who: (b.who & m64) | (a.who & !m64),
        }
    }
}

/// One node: the key and (id << 32 | slot). An empty leaf is all ones,
/// above every real key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Node<K> {
    key: K,
    who: u64,
}

impl<K: TreeKey> Node<K> {
    const EMPTY: Node<K> = Node {
        key: K::MAX,
        who: u64::MAX,
    };

    #[inline]
    fn min(self, other: Node<K>) -> Node<K> {
        <K as TreeKey>::min(self, other)
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

/// The four children of one node, in one cache line (`u64` keys) or two
/// adjacent ones (`u128`).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Quad<K>([Node<K>; 4]);

/// `i64` keys as `u64` in the same order.
#[inline]
pub(crate) fn key_of_i64(k: i64) -> u64 {
    (k as u64) ^ (1 << 63)
}

/// The `i64` that [`key_of_i64`] mapped to `key`.
#[inline]
pub(crate) fn i64_of_key(key: u64) -> i64 {
    (key ^ (1 << 63)) as i64
}

/// See the module documentation.
#[derive(Clone, Debug)]
pub(crate) struct FairTree<K> {
    /// Node 0.
    root: Node<K>,
    /// The children of node `j` (nodes `4j + 1 ..= 4j + 4`) in `quads[j]`;
    /// one quad per inner node, so the leaves start at node
    /// `quads.len()`: slot `s` is node `quads.len() + s`.
    quads: Vec<Quad<K>>,
    /// Leaves (0, or a power of four).
    cap: usize,
    /// Slots in the tree.
    len: usize,
}

impl<K: TreeKey> Default for FairTree<K> {
    fn default() -> Self {
        FairTree {
            root: Node::EMPTY,
            quads: Vec::new(),
            cap: 0,
            len: 0,
        }
    }
}

impl<K: TreeKey> FairTree<K> {
    #[inline]
    fn node(&self, j: usize) -> Node<K> {
        match j {
            0 => self.root,
            _ => self.quads[(j - 1) / 4].0[(j - 1) % 4],
        }
    }

    #[inline]
    fn put(&mut self, j: usize, n: Node<K>) {
        match j {
            0 => self.root = n,
            _ => self.quads[(j - 1) / 4].0[(j - 1) % 4] = n,
        }
    }

    /// The smallest of node `j`'s four children.
    #[inline]
    fn least_child(&self, j: usize) -> Node<K> {
        let [a, b, c, d] = self.quads[j].0;
        a.min(b).min(c.min(d))
    }

    /// The node of `slot`'s leaf.
    #[inline]
    fn leaf_node(&self, slot: usize) -> usize {
        self.quads.len() + slot
    }

    /// Bring the inner nodes above node `j` up to date, stopping where a
    /// node comes out unchanged (its ancestors are then right too).
    #[inline]
    fn rise(&mut self, mut j: usize) {
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

    /// The smallest element by (key, id): (key, id, slot).
    #[inline]
    pub(crate) fn first(&self) -> Option<(K, u32, usize)> {
        let n = self.root;
        (n != Node::EMPTY).then(|| (n.key, n.id(), n.slot()))
    }

    /// The key of `slot`, if it is in the tree.
    pub(crate) fn key(&self, slot: usize) -> Option<K> {
        if slot >= self.cap {
            return None;
        }
        let n = self.node(self.leaf_node(slot));
        (n != Node::EMPTY).then_some(n.key)
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

    /// The leaf `slot` becomes: grows the tree if needed; `None` when the
    /// slot is out of the tree and stays out.
    #[inline]
    fn leaf(&mut self, slot: usize, id: u32, key: Option<K>) -> Option<Node<K>> {
        debug_assert!(slot < u32::MAX as usize);
        if slot >= self.cap {
            key?;
            self.grow(slot + 1);
        }
        Some(match key {
            Some(k) => Node {
                key: k,
                who: (u64::from(id) << 32) | slot as u64,
            },
            None => Node::EMPTY,
        })
    }

    /// Put `slot` (with tie-breaking `id`) in under `key`, or take it out
    /// (`None`), moving it if it is already in.
    #[inline]
    pub(crate) fn set(&mut self, slot: usize, id: u32, key: Option<K>) {
        if let Some(j) = self.store_leaf(slot, id, key) {
            self.rise(j);
        }
    }

    /// Store `slot`'s leaf; its node if the leaf changed.
    #[inline]
    fn store_leaf(&mut self, slot: usize, id: u32, key: Option<K>) -> Option<usize> {
        let n = self.leaf(slot, id, key)?;
        let j = self.leaf_node(slot);
        let old = self.node(j);
        if old == n {
            return None;
        }
        self.len = self.len + usize::from(old == Node::EMPTY) - usize::from(n == Node::EMPTY);
        self.put(j, n);
        Some(j)
    }

    /// Put `slot` in under `key` (or take it out) at its leaf only: the
    /// inner nodes stay stale until [`FairTree::fix`] is called for it, and
    /// [`FairTree::first`] is wrong until then ([`FairTree::scan_first`] is
    /// not). For a minimum that is read far less often than keys change.
    pub(crate) fn set_leaf(&mut self, slot: usize, id: u32, key: Option<K>) {
        self.store_leaf(slot, id, key);
    }

    /// Bring the inner nodes above `slot`'s leaf up to date after
    /// [`FairTree::set_leaf`]. Once every slot set so is fixed (in any
    /// order), the tree is exact again: a walk stops where a node comes out
    /// unchanged, whose ancestors the other walks keep.
    pub(crate) fn fix(&mut self, slot: usize) {
        if slot < self.cap {
            self.rise(self.leaf_node(slot));
        }
    }

    /// The smallest element by a scan of the leaves, O(n): exact even with
    /// slots not yet fixed.
    pub(crate) fn scan_first(&self) -> Option<(K, u32, usize)> {
        let n = (0..self.cap)
            .map(|s| self.node(self.leaf_node(s)))
            .fold(Node::EMPTY, Node::min);
        (n != Node::EMPTY).then(|| (n.key, n.id(), n.slot()))
    }

    /// Every (id, slot) whose key equals `key`, in no particular order
    /// (the reference YFQ's ready set is tested against).
    #[cfg(test)]
    pub(crate) fn equal_to(&self, key: K, out: &mut Vec<(u32, usize)>) {
        if self.cap == 0 || key == K::MAX {
            return;
        }
        let mut stack = vec![0usize];
        while let Some(j) = stack.pop() {
            let n = self.node(j);
            if n == Node::EMPTY || n.key > key {
                continue;
            }
            if j >= self.quads.len() {
                if n.key == key {
                    out.push((n.id(), n.slot()));
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
        *self = FairTree {
            root: Node::EMPTY,
            quads: vec![Quad([Node::EMPTY; 4]); inner],
            cap,
            len: old.len,
        };
        for s in 0..old.cap {
            self.put(inner + s, old.node(old.leaf_node(s)));
        }
        for j in (0..inner).rev() {
            let m = self.least_child(j);
            self.put(j, m);
        }
    }
}

/// A [`FairTree`] whose inner nodes are brought up to date only when its
/// minimum is read: a change stores the leaf and notes the slot, and
/// [`LazyFairTree::first`] walks up from each noted slot once. For a
/// minimum read far less often than keys change (YFQ's `v(t)` when a
/// reservation becomes busy, BQS's keys once per sequence), a change then
/// costs one store instead of a leaf-to-root walk whose nodes are cold.
#[derive(Clone, Debug)]
pub(crate) struct LazyFairTree<K> {
    tree: FairTree<K>,
    /// Slots whose leaf changed since the tree was last brought up to
    /// date, each once (`stale` flags them).
    dirty: Vec<u32>,
    stale: Vec<bool>,
}

impl<K: TreeKey> Default for LazyFairTree<K> {
    fn default() -> Self {
        LazyFairTree {
            tree: FairTree::default(),
            dirty: Vec::new(),
            stale: Vec::new(),
        }
    }
}

impl<K: TreeKey> LazyFairTree<K> {
    /// As [`FairTree::set`], the inner nodes left for the next read.
    #[inline]
    pub(crate) fn set(&mut self, slot: usize, id: u32, key: Option<K>) {
        self.tree.set_leaf(slot, id, key);
        if slot >= self.stale.len() {
            self.stale.resize(slot + 1, false);
        }
        if !self.stale[slot] {
            self.stale[slot] = true;
            self.dirty.push(slot as u32);
        }
    }

    /// The smallest element by (key, id), after bringing the tree up to
    /// date.
    pub(crate) fn first(&mut self) -> Option<(K, u32, usize)> {
        for s in self.dirty.drain(..) {
            self.stale[s as usize] = false;
            self.tree.fix(s as usize);
        }
        self.tree.first()
    }

    /// The smallest element without bringing the tree up to date (a scan
    /// of the leaves if it is stale).
    pub(crate) fn peek_first(&self) -> Option<(K, u32, usize)> {
        if self.dirty.is_empty() {
            self.tree.first()
        } else {
            self.tree.scan_first()
        }
    }

    /// Whether no slot is in the tree.
    pub(crate) fn is_empty(&self) -> bool {
        self.tree.is_empty()
    }

    /// The key of `slot`, if it is in the tree.
    #[cfg(any(test, debug_assertions))]
    pub(crate) fn key(&self, slot: usize) -> Option<K> {
        self.tree.key(slot)
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
        /// common), growing as slots appear; a `u64`-keyed tree given the
        /// same keys in the same order agrees.
        #[test]
        fn minimum_and_ties_match_an_ordered_set(
            ops in prop::collection::vec((0usize..300, 0u8..6, 0u128..12), 1..600)
        ) {
            let mut tree: FairTree<u128> = FairTree::default();
            let mut narrow: FairTree<u64> = FairTree::default();
            let mut set: BTreeSet<(u128, u32)> = BTreeSet::new();
            let mut keys: Vec<Option<u128>> = vec![None; 300];
            for (slot, op, k) in ops {
                // Ids in the reverse order of slots: the id decides ties.
                let id = 1000 - slot as u32;
                let (key, key64) = match op {
                    0 => (None, None),
                    1 => (Some(u128::MAX - 1 - k), Some(u64::MAX - 1 - k as u64)),
                    2 => {
                        let x = key_of_i64(k as i64 - 6);
                        (Some(u128::from(x)), Some(x))
                    }
                    _ => (Some(k), Some(k as u64)),
                };
                if let Some(old) = keys[slot] {
                    set.remove(&(old, id));
                }
                if let Some(new) = key {
                    set.insert((new, id));
                }
                keys[slot] = key;
                tree.set(slot, id, key);
                narrow.set(slot, id, key64);
                prop_assert_eq!(
                    narrow.first().map(|(_, id, s)| (id, s)),
                    tree.first().map(|(_, id, s)| (id, s))
                );
                prop_assert_eq!(narrow.len(), set.len());
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
        /// they were set) give the eager tree's minimum, and the scan gives
        /// it at any time; the wrapper that notes its stale slots reads as
        /// the eager tree too: its peek at any time, its minimum whenever
        /// read, its emptiness and keys throughout.
        #[test]
        fn lazy_trees_read_as_the_eager_one(
            ops in prop::collection::vec((0usize..200, 0u8..4, 0u128..8, any::<bool>()), 1..500)
        ) {
            let mut eager: FairTree<u128> = FairTree::default();
            let mut lazy: FairTree<u128> = FairTree::default();
            let mut wrapped: LazyFairTree<u128> = LazyFairTree::default();
            let mut dirty: Vec<usize> = Vec::new();
            for (slot, op, k, flush) in ops {
                let key = (op != 0).then_some(k);
                eager.set(slot, slot as u32 % 7, key);
                lazy.set_leaf(slot, slot as u32 % 7, key);
                wrapped.set(slot, slot as u32 % 7, key);
                dirty.push(slot);
                prop_assert_eq!(lazy.scan_first(), eager.first());
                prop_assert_eq!(lazy.len(), eager.len());
                prop_assert_eq!(wrapped.peek_first(), eager.first());
                prop_assert_eq!(wrapped.is_empty(), eager.is_empty());
                prop_assert_eq!(wrapped.key(slot), eager.key(slot));
                if flush {
                    dirty.reverse();
                    for s in dirty.drain(..) {
                        lazy.fix(s);
                    }
                    prop_assert_eq!(lazy.first(), eager.first());
                    prop_assert_eq!(wrapped.first(), eager.first());
                    prop_assert!(wrapped.dirty.is_empty());
                }
            }
        }
    }

    #[test]
    fn four_children_per_node() {
        let mut t: FairTree<u64> = FairTree::default();
        t.set(0, 0, Some(5));
        assert_eq!(
            (t.cap, t.quads.len()),
            (16, 5),
            "16 leaves under 1 + 4 inner nodes"
        );
        t.set(4095, 1, Some(3));
        // 4,096 leaves: six levels below the root, 1,365 inner nodes.
        assert_eq!((t.cap, t.quads.len()), (4096, 1365));
        assert_eq!(t.first(), Some((3, 1, 4095)));
        let mut j = t.leaf_node(4095);
        let mut depth = 0;
        while j > 0 {
            j = (j - 1) / 4;
            depth += 1;
        }
        assert_eq!(depth, 6);
        assert_eq!(
            std::mem::size_of::<Quad<u64>>(),
            64,
            "a level is one cache line"
        );
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
