//! A min-heap with four children per node, for B-WF2Q+'s entity sets.
//!
//! With thousands of queues busy, a binary heap's pop walks a dozen levels,
//! each a cache line of its own once the heap is out of the cache (as it is
//! in a real engine, where every request's data copy passes through the
//! cache between two decisions). Four children per node halve the levels;
//! a node's children sit side by side, in one or two adjacent lines. Pops
//! use Floyd's order (the hole goes down to a leaf along the smaller
//! children, then the last item rises from there), as `std`'s heap does.
//!
//! The order is the keys' total order, so which item comes out next is
//! exactly what `BinaryHeap<Reverse<K>>` gives (keys are distinct in use).

/// Children per node.
const ARITY: usize = 4;

/// A min-heap of `K` in one vector.
#[derive(Clone, Debug)]
pub(crate) struct QuadHeap<K> {
    items: Vec<K>,
}

impl<K> Default for QuadHeap<K> {
    fn default() -> Self {
        QuadHeap { items: Vec::new() }
    }
}

impl<K: Ord + Copy> QuadHeap<K> {
    /// Items held.
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    /// No item held.
    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The smallest item.
    pub(crate) fn peek(&self) -> Option<&K> {
        self.items.first()
    }

    /// Add `key`.
    pub(crate) fn push(&mut self, key: K) {
        self.items.push(key);
        self.rise(self.items.len() - 1, key);
    }

    /// Take the smallest item out.
    pub(crate) fn pop(&mut self) -> Option<K> {
        let last = self.items.pop()?;
        let Some(&top) = self.items.first() else {
            return Some(last);
        };
        // Floyd: move the smaller child up into the hole down to a leaf,
        // then let `last` rise from the hole (it seldom rises far: it came
        // from the bottom).
        let n = self.items.len();
        let mut hole = 0;
        loop {
            let first = ARITY * hole + 1;
            if first >= n {
                break;
            }
            let end = (first + ARITY).min(n);
            let mut best = first;
            for c in first + 1..end {
                if self.items[c] < self.items[best] {
                    best = c;
                }
            }
            self.items[hole] = self.items[best];
            hole = best;
        }
        self.rise(hole, last);
        Some(top)
    }

    /// Put `key` at `hole` or above it, moving larger parents down.
    fn rise(&mut self, mut hole: usize, key: K) {
        while hole > 0 {
            let parent = (hole - 1) / ARITY;
            if self.items[parent] <= key {
                break;
            }
            self.items[hole] = self.items[parent];
            hole = parent;
        }
        self.items[hole] = key;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    proptest! {
        /// Against `std`'s heap under random pushes and pops (keys may
        /// repeat: equal keys are interchangeable, so the sequences agree).
        #[test]
        fn pops_what_a_binary_heap_pops(
            ops in prop::collection::vec(prop::option::of(0u32..200), 1..600)
        ) {
            let mut q = QuadHeap::default();
            let mut b = BinaryHeap::new();
            for op in ops {
                match op {
                    Some(k) => {
                        q.push(k);
                        b.push(Reverse(k));
                    }
                    None => prop_assert_eq!(q.pop(), b.pop().map(|Reverse(k)| k)),
                }
                prop_assert_eq!(q.peek(), b.peek().map(|Reverse(k)| k));
                prop_assert_eq!(q.len(), b.len());
            }
            while let Some(Reverse(k)) = b.pop() {
                prop_assert_eq!(q.pop(), Some(k));
            }
            prop_assert!(q.is_empty());
            prop_assert_eq!(q.pop(), None);
        }
    }

    #[test]
    fn every_node_has_four_children() {
        // 1 + 4 + 16 items fill three levels: the last item's parent is
        // node 4 ((20 - 1) / 4), which a binary heap would not have.
        let mut q = QuadHeap::default();
        for k in (0..21u32).rev() {
            q.push(k);
        }
        assert_eq!(q.items[0], 0);
        for i in 1..q.items.len() {
            assert!(q.items[(i - 1) / ARITY] <= q.items[i], "heap order at {i}");
        }
        let sorted: Vec<u32> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(sorted, (0..21).collect::<Vec<_>>());
    }
}
