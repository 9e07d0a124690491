//! A bounded map with least-recently-used eviction, for the DRAM data
//! cache's page slots and the cached mapping table: O(1) lookup, touch,
//! insert and eviction (a slab of nodes on a doubly linked list).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A fast hasher for integer keys (a multiply and a rotate); keys here are
/// a flow and a page number, never attacker-chosen.
#[derive(Default, Clone, Copy)]
pub(crate) struct IntHasher(u64);

impl Hasher for IntHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

/// A hash map keyed by integers.
pub(crate) type IntMap<K, V> = HashMap<K, V, BuildHasherDefault<IntHasher>>;

const NIL: u32 = u32::MAX;

#[derive(Clone, Debug)]
struct Node<V> {
    key: u64,
    value: V,
    prev: u32,
    next: u32,
}

/// An LRU map of at most `capacity` entries keyed by `u64`.
#[derive(Clone, Debug)]
pub(crate) struct Lru<V> {
    capacity: usize,
    index: IntMap<u64, u32>,
    nodes: Vec<Node<V>>,
    spare: Vec<u32>,
    /// Most recently used.
    head: u32,
    /// Least recently used.
    tail: u32,
}

impl<V> Lru<V> {
    /// An empty map holding at most `capacity` entries.
    pub(crate) fn new(capacity: usize) -> Self {
        Lru {
            capacity,
            index: IntMap::default(),
            nodes: Vec::new(),
            spare: Vec::new(),
            head: NIL,
            tail: NIL,
        }
    }

    /// Entries held.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether it holds nothing.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Whether one more entry fits without an eviction.
    pub(crate) fn has_room(&self) -> bool {
        self.index.len() < self.capacity
    }

    fn unlink(&mut self, i: u32) {
        let (p, n) = (self.nodes[i as usize].prev, self.nodes[i as usize].next);
        if p == NIL {
            self.head = n;
        } else {
            self.nodes[p as usize].next = n;
        }
        if n == NIL {
            self.tail = p;
        } else {
            self.nodes[n as usize].prev = p;
        }
    }

    fn push_front(&mut self, i: u32) {
        self.nodes[i as usize].prev = NIL;
        self.nodes[i as usize].next = self.head;
        if self.head != NIL {
            self.nodes[self.head as usize].prev = i;
        }
        self.head = i;
        if self.tail == NIL {
            self.tail = i;
        }
    }

    /// The entry for `key`, without touching its recency.
    pub(crate) fn peek(&self, key: u64) -> Option<&V> {
        self.index.get(&key).map(|&i| &self.nodes[i as usize].value)
    }

    /// The entry for `key`, made most recently used.
    pub(crate) fn get_mut(&mut self, key: u64) -> Option<&mut V> {
        let i = *self.index.get(&key)?;
        self.unlink(i);
        self.push_front(i);
        Some(&mut self.nodes[i as usize].value)
    }

    /// The entry for `key` without touching its recency.
    pub(crate) fn peek_mut(&mut self, key: u64) -> Option<&mut V> {
        let i = *self.index.get(&key)?;
        Some(&mut self.nodes[i as usize].value)
    }

    /// Insert or replace `key` as most recently used. The caller evicts
    /// first when there is no room; an insert past the capacity is kept.
    pub(crate) fn insert(&mut self, key: u64, value: V) {
        if let Some(&i) = self.index.get(&key) {
            self.nodes[i as usize].value = value;
            self.unlink(i);
            self.push_front(i);
            return;
        }
        let node = Node {
            key,
            value,
            prev: NIL,
            next: NIL,
        };
        let i = match self.spare.pop() {
            Some(i) => {
                self.nodes[i as usize] = node;
                i
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        };
        self.index.insert(key, i);
        self.push_front(i);
    }

    /// Remove `key`.
    pub(crate) fn remove(&mut self, key: u64) -> Option<V>
    where
        V: Clone,
    {
        let i = self.index.remove(&key)?;
        self.unlink(i);
        self.spare.push(i);
        Some(self.nodes[i as usize].value.clone())
    }

    /// Remove and return the least recently used entry.
    pub(crate) fn pop_lru(&mut self) -> Option<(u64, V)>
    where
        V: Clone,
    {
        if self.tail == NIL {
            return None;
        }
        let key = self.nodes[self.tail as usize].key;
        self.remove(key).map(|v| (key, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_the_least_recently_used() {
        let mut l = Lru::new(2);
        l.insert(1, 'a');
        l.insert(2, 'b');
        assert!(!l.has_room());
        l.get_mut(1);
        assert_eq!(l.pop_lru(), Some((2, 'b')));
        l.insert(3, 'c');
        assert_eq!(l.pop_lru(), Some((1, 'a')));
        assert_eq!(l.pop_lru(), Some((3, 'c')));
        assert_eq!(l.pop_lru(), None);
        assert!(l.is_empty());
    }

    #[test]
    fn peek_keeps_the_order_and_remove_frees_the_slot() {
        let mut l = Lru::new(3);
        for k in 0..3 {
            l.insert(k, k * 10);
        }
        assert_eq!(l.peek(0), Some(&0));
        assert_eq!(l.remove(1), Some(10));
        l.insert(7, 70);
        assert_eq!(l.len(), 3);
        assert_eq!(l.pop_lru(), Some((0, 0)));
    }
}
