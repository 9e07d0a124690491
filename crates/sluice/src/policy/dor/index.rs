//! DOR's sector index: every queued request of every reservation queue,
//! ordered by `(sector, flow, place)`, in sorted blocks of at most
//! `2 * BLOCK` entries. A gap's search finds its three starting places by
//! binary search and walks the blocks as one slice; each entry carries what
//! Property 1 reads (sector and end) and a lower bound of what Property 2
//! raises `f_k` to, so that most requests are judged without looking up
//! their flow and queue (see [`super::search`]).

use std::cell::Cell;

use super::queue::Seq;
use crate::policy::yfq::tags::Tag;
use crate::types::{FlowId, Request};

/// Half the most entries a block holds: a full block splits into two.
const BLOCK: usize = 32;

/// One queued request in the index.
#[derive(Clone, Debug)]
pub(super) struct Leaf {
    pub(super) sector: u64,
    /// For Property 1 without a lookup.
    sectors: u32,
    pub(super) flow: FlowId,
    pub(super) seq: Seq,
    /// At most `f_k + l/phi_k` for this request (the tag's low 64 bits,
    /// saturated): `f_k` only grows (the bounds are reset when it falls or
    /// a weight rises), so a bound above Property 2's limit proves the
    /// request fails it. Raised to the exact value whenever a search looks
    /// the request up.
    least_f: Cell<u64>,
}

impl Leaf {
    /// `Request::end`.
    pub(super) fn end(&self) -> u64 {
        self.sector + u64::from(self.sectors)
    }

    /// The request's size, as its queue holds it.
    pub(super) fn sectors(&self) -> u32 {
        self.sectors
    }

    pub(super) fn least_f(&self) -> Tag {
        Tag(u128::from(self.least_f.get()))
    }

    pub(super) fn set_least_f(&self, t: Tag) {
        self.least_f.set(u64::try_from(t.0).unwrap_or(u64::MAX));
    }

    fn key(&self) -> Key {
        (self.sector, self.flow, self.seq)
    }
}

/// A place in the index: block and offset; `(blocks, 0)` is the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Pos(usize, usize);

/// Every queued request of every reservation queue by sector.
#[derive(Debug, Default)]
pub(super) struct SectorIndex {
    blocks: Vec<Vec<Leaf>>,
    /// The last key of each block: binary searches read this array, not
    /// one block per step.
    lasts: Vec<Key>,
    /// Emptied blocks' buffers, for the next split: a long sequence drains
    /// whole blocks that arrivals refill, and without them every split
    /// allocated and every emptied block freed.
    spare: Vec<Vec<Leaf>>,
}

/// The index's order: sector, queue, place in the queue.
type Key = (u64, FlowId, Seq);

impl SectorIndex {
    /// Index request `r`, at place `seq` of its queue, whose `f_k + l/phi_k`
    /// is `least_f` now.
    pub(super) fn insert(&mut self, r: &Request, seq: Seq, least_f: Tag) {
        let leaf = Leaf {
            sector: r.sector,
            sectors: r.sectors,
            flow: r.flow,
            seq,
            least_f: Cell::new(0),
        };
        leaf.set_least_f(least_f);
        let key = leaf.key();
        if self.blocks.is_empty() {
            let fresh = self.fresh_block();
            self.blocks.push(fresh);
            self.lasts.push(key);
        }
        let last = self.blocks.len() - 1;
        let b = self.lasts.partition_point(|&k| k < key).min(last);
        let block = &mut self.blocks[b];
        let i = block.partition_point(|l| l.key() < key);
        block.insert(i, leaf);
        if block.len() > 2 * BLOCK {
            let mut upper = self.fresh_block();
            let block = &mut self.blocks[b];
            upper.extend(block.drain(BLOCK..));
            let upper_last = self.lasts[b].max(key);
            self.lasts[b] = block[BLOCK - 1].key();
            self.blocks.insert(b + 1, upper);
            self.lasts.insert(b + 1, upper_last);
        } else {
            self.lasts[b] = self.lasts[b].max(key);
        }
    }

    /// An empty block with room for a full one and the entry that splits it.
    fn fresh_block(&mut self) -> Vec<Leaf> {
        let mut block = self.spare.pop().unwrap_or_default();
        block.reserve_exact(2 * BLOCK + 1);
        block
    }

    pub(super) fn remove(&mut self, sector: u64, flow: FlowId, seq: Seq) {
        let key = (sector, flow, seq);
        let b = self.lasts.partition_point(|&k| k < key);
        let Some(block) = self.blocks.get_mut(b) else {
            return;
        };
        if let Ok(i) = block.binary_search_by(|l| l.key().cmp(&key)) {
            block.remove(i);
            match block.last() {
                Some(l) => self.lasts[b] = l.key(),
                None => {
                    self.spare.push(self.blocks.remove(b));
                    self.lasts.remove(b);
                }
            }
        }
    }

    /// Every bound back to zero: after `f_k` fell or a weight rose.
    pub(super) fn reset_bounds(&mut self) {
        for leaf in self.blocks.iter().flatten() {
            leaf.least_f.set(0);
        }
    }

    pub(super) fn start(&self) -> Pos {
        Pos(0, 0)
    }

    pub(super) fn end(&self) -> Pos {
        Pos(self.blocks.len(), 0)
    }

    /// The place of the first entry at `sector` or above.
    pub(super) fn first_at(&self, sector: u64) -> Pos {
        let b = self.lasts.partition_point(|k| k.0 < sector);
        match self.blocks.get(b) {
            Some(block) => Pos(b, block.partition_point(|l| l.sector < sector)),
            None => self.end(),
        }
    }

    /// The entries from `from` up to `to` (excluded), as slices.
    fn slices(&self, from: Pos, to: Pos) -> impl DoubleEndedIterator<Item = &[Leaf]> + '_ {
        let blocks = if from < to {
            from.0..(to.0 + 1).min(self.blocks.len())
        } else {
            0..0
        };
        blocks.map(move |b| {
            let lo = if b == from.0 { from.1 } else { 0 };
            let hi = if b == to.0 {
                to.1
            } else {
                self.blocks[b].len()
            };
            &self.blocks[b][lo..hi]
        })
    }

    /// The entries from `from` up to `to` (excluded), ascending.
    pub(super) fn up(&self, from: Pos, to: Pos) -> impl Iterator<Item = &Leaf> + '_ {
        self.slices(from, to).flatten()
    }

    /// The same entries, descending.
    pub(super) fn down(&self, from: Pos, to: Pos) -> impl Iterator<Item = &Leaf> + '_ {
        self.slices(from, to).flatten().rev()
    }

    /// How many entries the index holds.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.blocks.iter().map(Vec::len).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testkit::req;

    /// Inserts and removes keep one sorted sequence across block splits
    /// and empty blocks, and the walks cover exactly their ranges.
    #[test]
    fn blocks_stay_sorted_and_walks_cover_their_ranges() {
        let mut idx = SectorIndex::default();
        let mut want = Vec::new();
        for i in 0..1000u64 {
            let sector = (i * 7919) % 500;
            idx.insert(&req(i, (i % 3) as u32, sector), i, Tag::ZERO);
            want.push((sector, FlowId((i % 3) as u32), i));
        }
        for i in (0..1000u64).step_by(3) {
            let sector = (i * 7919) % 500;
            idx.remove(sector, FlowId((i % 3) as u32), i);
            want.retain(|&e| e != (sector, FlowId((i % 3) as u32), i));
        }
        want.sort_unstable();
        assert!(idx.blocks.len() > 2);
        let lasts: Vec<_> = idx.blocks.iter().map(|b| b.last().unwrap().key()).collect();
        assert_eq!(idx.lasts, lasts);
        assert_eq!(idx.len(), want.len());
        let all: Vec<_> = idx.up(idx.start(), idx.end()).map(Leaf::key).collect();
        assert_eq!(all, want);
        let (a, b) = (idx.first_at(100), idx.first_at(300));
        let up: Vec<_> = idx.up(a, b).map(Leaf::key).collect();
        let mut down: Vec<_> = idx.down(a, b).map(Leaf::key).collect();
        down.reverse();
        let range: Vec<_> = want
            .iter()
            .copied()
            .filter(|e| (100..300).contains(&e.0))
            .collect();
        assert_eq!(up, range);
        assert_eq!(down, range);
        assert_eq!(idx.up(b, a).count(), 0);
    }

    /// Blocks emptied by a drain are kept and reused by the next splits,
    /// and the index refilled through them reads as one sorted sequence.
    #[test]
    fn drained_blocks_are_reused() {
        let mut idx = SectorIndex::default();
        let key = |i: u64| ((i * 7919) % 1000, FlowId((i % 5) as u32), i);
        for i in 0..500u64 {
            idx.insert(&req(i, (i % 5) as u32, key(i).0), i, Tag::ZERO);
        }
        let blocks = idx.blocks.len();
        for i in 0..500u64 {
            idx.remove(key(i).0, key(i).1, i);
        }
        assert_eq!((idx.len(), idx.blocks.len()), (0, 0));
        assert_eq!(idx.spare.len(), blocks);
        let mut want = Vec::new();
        for i in 500..900u64 {
            idx.insert(&req(i, (i % 5) as u32, key(i).0), i, Tag::ZERO);
            want.push(key(i));
        }
        want.sort_unstable();
        assert_eq!(idx.spare.len() + idx.blocks.len(), blocks);
        let all: Vec<_> = idx.up(idx.start(), idx.end()).map(Leaf::key).collect();
        assert_eq!(all, want);
        let lasts: Vec<_> = idx.blocks.iter().map(|b| b.last().unwrap().key()).collect();
        assert_eq!(idx.lasts, lasts);
    }
}
