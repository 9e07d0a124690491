//! The block manager: for every plane, its blocks' write pointers and
//! invalid pages, the pool of free blocks, the write frontiers (one block
//! open per flow for user data, one for garbage-collection moves, one for
//! mapping pages, as MQSim's `Flash_Block_Manager` keeps them) and the
//! choice of a victim block when the pool runs low.

use std::collections::VecDeque;

use crate::mqsim::GcVictimPolicy;

/// Which write frontier a page is taken from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Frontier {
    /// A flow's user data.
    Data = 0,
    /// Pages moved by garbage collection.
    Gc = 1,
    /// Mapping-table (translation) pages.
    Translation = 2,
}

/// When and how garbage collection runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GcSettings {
    /// Collect when a plane's free blocks fall below this share.
    pub threshold: f64,
    /// Below this share, collection goes before host work.
    pub hard_threshold: f64,
    /// How the victim is chosen.
    pub policy: GcVictimPolicy,
    /// Seeds the randomized policies.
    pub seed: u64,
}

/// One block's bookkeeping.
#[derive(Clone, Debug, Default)]
struct Block {
    /// Pages written so far (the next page to write).
    written: u32,
    /// Written pages no longer valid.
    invalid: u32,
    /// One bit per page: set when the page was invalidated.
    invalid_bits: Vec<u64>,
    /// Who owns each written page: a flow and its logical page, packed
    /// by [`owner`] (empty until the block is first written).
    owners: Vec<u64>,
    /// Being erased (or its valid pages being moved).
    erasing: bool,
    /// Times erased.
    erases: u32,
}

/// A page's owner: flow and logical page in one word (a translation
/// page's owner has the top bit set).
pub fn owner(stream: u32, lpa: u64) -> u64 {
    (u64::from(stream) << 48) | (lpa & ((1 << 48) - 1))
}

/// The flow and logical page of an owner word.
pub fn owner_parts(word: u64) -> (u32, u64) {
    ((word >> 48) as u32, word & ((1 << 48) - 1))
}

/// One plane's blocks.
#[derive(Clone, Debug)]
struct Plane {
    blocks: Vec<Block>,
    free: VecDeque<u32>,
    /// The open block of each (flow, frontier kind).
    frontiers: Vec<u32>,
    /// Erases under way (victims chosen, not yet freed).
    ongoing_erases: u32,
}

/// Every plane's blocks.
#[derive(Clone, Debug)]
pub struct BlockManager {
    planes: Vec<Plane>,
    pages: u32,
    streams: usize,
    /// Free blocks below which a plane collects garbage.
    pub gc_threshold: u32,
    /// Free blocks below which garbage collection goes first.
    pub gc_hard_threshold: u32,
    policy: GcVictimPolicy,
    rng: u64,
    /// Pages programmed for the host (user data and cache write-backs).
    pub user_programs: u64,
    /// Pages programmed to move valid data out of a victim block.
    pub gc_programs: u64,
    /// Blocks erased.
    pub erases: u64,
}

/// A victim block and the pages in it still valid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Victim {
    /// Its plane (flat index).
    pub plane: usize,
    /// The block.
    pub block: u32,
    /// The valid pages: page index and owner word.
    pub valid: Vec<(u32, u64)>,
}

impl BlockManager {
    /// `planes` planes of `blocks` blocks of `pages` pages, frontiers for
    /// `streams` flows, garbage collection below the given shares of a
    /// plane's blocks (at least one block; MQSim's
    /// `GC_and_WL_Unit_Base`).
    pub fn new(planes: usize, blocks: u32, pages: u32, streams: usize, gc: GcSettings) -> Self {
        let GcSettings {
            threshold: gc_threshold,
            hard_threshold: gc_hard_threshold,
            policy,
            seed,
        } = gc;
        let streams = streams.max(1);
        let words = pages.div_ceil(64) as usize;
        let template = Plane {
            blocks: vec![
                Block {
                    invalid_bits: vec![0; words],
                    ..Block::default()
                };
                blocks as usize
            ],
            free: (0..blocks).collect(),
            frontiers: Vec::new(),
            ongoing_erases: 0,
        };
        let mut planes = vec![template; planes];
        for plane in &mut planes {
            for _ in 0..streams * 3 {
                let b = plane.free.pop_front().unwrap_or(0);
                plane.frontiers.push(b);
            }
        }
        let at_least_one = |share: f64| ((share * f64::from(blocks)) as u32).max(1);
        BlockManager {
            planes,
            pages,
            streams,
            gc_threshold: at_least_one(gc_threshold),
            gc_hard_threshold: at_least_one(gc_hard_threshold),
            policy,
            rng: seed | 1,
            user_programs: 0,
            gc_programs: 0,
            erases: 0,
        }
    }

    fn frontier_slot(&self, stream: u32, kind: Frontier) -> usize {
        (stream as usize % self.streams) * 3 + kind as usize
    }

    /// Take the next page of `plane`'s `kind` frontier for `stream`,
    /// recording `owner_word`; returns (block, page) and whether the
    /// frontier moved to a fresh block (the moment MQSim checks whether
    /// to collect garbage).
    pub fn allocate(
        &mut self,
        plane: usize,
        stream: u32,
        kind: Frontier,
        owner_word: u64,
    ) -> (u32, u32, bool) {
        let slot = self.frontier_slot(stream, kind);
        let pages = self.pages;
        let p = &mut self.planes[plane];
        let b = p.frontiers[slot];
        let block = &mut p.blocks[b as usize];
        if block.owners.is_empty() {
            block.owners = vec![u64::MAX; pages as usize];
        }
        let page = block.written.min(pages - 1);
        block.owners[page as usize] = owner_word;
        block.written += 1;
        match kind {
            Frontier::Gc => self.gc_programs += 1,
            _ => self.user_programs += 1,
        }
        let mut moved = false;
        if block.written >= pages {
            // Out of free blocks the frontier stays on a full block and
            // later pages overwrite its last one: the drive is past
            // full, which garbage collection is there to prevent.
            if let Some(next) = p.free.pop_front() {
                p.frontiers[slot] = next;
                moved = true;
            }
        }
        (b, page, moved)
    }

    /// Mark a page invalid (its data was rewritten elsewhere).
    pub fn invalidate(&mut self, plane: usize, block: u32, page: u32) {
        let b = &mut self.planes[plane].blocks[block as usize];
        let (w, bit) = ((page / 64) as usize, page % 64);
        if b.invalid_bits[w] & (1 << bit) == 0 {
            b.invalid_bits[w] |= 1 << bit;
            b.invalid += 1;
        }
    }

    /// Free blocks in `plane`.
    pub fn free_blocks(&self, plane: usize) -> u32 {
        self.planes[plane].free.len() as u32
    }

    /// Whether `plane` needs garbage collection and may start one more.
    pub fn needs_gc(&self, plane: usize) -> bool {
        let p = &self.planes[plane];
        (p.free.len() as u32) < self.gc_threshold && p.ongoing_erases < self.gc_threshold
    }

    fn is_frontier(&self, plane: usize, block: u32) -> bool {
        self.planes[plane].frontiers.contains(&block)
    }

    fn random(&mut self, n: u32) -> u32 {
        self.rng = sluice::rng::splitmix(self.rng);
        (self.rng % u64::from(n.max(1))) as u32
    }

    /// Choose a victim block in `plane` by the policy and mark it being
    /// erased; `None` when no block qualifies.
    pub fn choose_victim(&mut self, plane: usize) -> Option<Victim> {
        let blocks = self.planes[plane].blocks.len() as u32;
        let pages = self.pages;
        let candidate = |me: &Self, b: u32| {
            let blk = &me.planes[plane].blocks[b as usize];
            !blk.erasing && !me.is_frontier(plane, b) && blk.written >= pages
        };
        let best = match self.policy {
            GcVictimPolicy::Greedy | GcVictimPolicy::Fifo => (0..blocks)
                .filter(|&b| candidate(self, b))
                .max_by_key(|&b| (self.planes[plane].blocks[b as usize].invalid, u32::MAX - b)),
            GcVictimPolicy::Rga => {
                // MQSim's randomized greedy: the best of log2(blocks)
                // random candidates.
                let d = (f64::from(blocks).log2() as u32).max(1);
                let mut best: Option<u32> = None;
                for _ in 0..d * 4 {
                    let b = self.random(blocks);
                    if candidate(self, b) {
                        let better = best.is_none_or(|o| {
                            self.planes[plane].blocks[b as usize].invalid
                                > self.planes[plane].blocks[o as usize].invalid
                        });
                        if better {
                            best = Some(b);
                        }
                    }
                }
                best
            }
            GcVictimPolicy::Random | GcVictimPolicy::RandomP | GcVictimPolicy::RandomPp => {
                let mut found = None;
                for _ in 0..blocks {
                    let b = self.random(blocks);
                    if candidate(self, b) {
                        found = Some(b);
                        break;
                    }
                }
                found
            }
        }?;
        let p = &mut self.planes[plane];
        p.ongoing_erases += 1;
        let blk = &mut p.blocks[best as usize];
        blk.erasing = true;
        let valid = (0..blk.written.min(pages))
            .filter(|&g| blk.invalid_bits[(g / 64) as usize] & (1 << (g % 64)) == 0)
            .map(|g| (g, blk.owners.get(g as usize).copied().unwrap_or(u64::MAX)))
            .collect();
        Some(Victim {
            plane,
            block: best,
            valid,
        })
    }

    /// The victim's erase finished: its block joins the free pool.
    pub fn erased(&mut self, plane: usize, block: u32) {
        let p = &mut self.planes[plane];
        p.ongoing_erases = p.ongoing_erases.saturating_sub(1);
        let b = &mut p.blocks[block as usize];
        b.written = 0;
        b.invalid = 0;
        b.invalid_bits.iter_mut().for_each(|w| *w = 0);
        b.owners.iter_mut().for_each(|o| *o = u64::MAX);
        b.erasing = false;
        b.erases += 1;
        p.free.push_back(block);
        self.erases += 1;
    }

    /// Whether the page is still valid.
    pub fn is_valid(&self, plane: usize, block: u32, page: u32) -> bool {
        let b = &self.planes[plane].blocks[block as usize];
        page < b.written && b.invalid_bits[(page / 64) as usize] & (1 << (page % 64)) == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manager(policy: GcVictimPolicy) -> BlockManager {
        BlockManager::new(
            1,
            8,
            4,
            1,
            GcSettings {
                threshold: 0.25,
                hard_threshold: 0.125,
                policy,
                seed: 7,
            },
        )
    }

    #[test]
    fn frontiers_take_blocks_from_the_pool_and_move_when_full() {
        let mut m = manager(GcVictimPolicy::Greedy);
        assert_eq!(m.free_blocks(0), 5);
        let mut moved = 0;
        for i in 0..8 {
            let (_, page, m2) = m.allocate(0, 0, Frontier::Data, owner(0, i));
            assert_eq!(page, (i % 4) as u32);
            moved += u32::from(m2);
        }
        assert_eq!(moved, 2);
        assert_eq!(m.free_blocks(0), 3);
        assert_eq!(m.user_programs, 8);
    }

    #[test]
    fn greedy_picks_the_full_block_with_most_invalid_pages() {
        let mut m = manager(GcVictimPolicy::Greedy);
        let mut placed = Vec::new();
        for i in 0..8 {
            placed.push(m.allocate(0, 0, Frontier::Data, owner(0, i)));
        }
        let (b0, _, _) = placed[0];
        let (b1, _, _) = placed[4];
        m.invalidate(0, b0, 0);
        m.invalidate(0, b1, 1);
        m.invalidate(0, b1, 2);
        m.invalidate(0, b1, 2);
        let v = m.choose_victim(0).expect("a victim");
        assert_eq!(v.block, b1);
        assert_eq!(v.valid, vec![(0, owner(0, 4)), (3, owner(0, 7))]);
        m.erased(0, b1);
        assert!(!m.is_valid(0, b1, 0));
        assert_eq!(m.erases, 1);
    }

    #[test]
    fn no_victim_among_open_or_partial_blocks() {
        let mut m = manager(GcVictimPolicy::Greedy);
        m.allocate(0, 0, Frontier::Data, owner(0, 1));
        assert_eq!(m.choose_victim(0), None);
    }

    #[test]
    fn owner_words_round_trip() {
        assert_eq!(owner_parts(owner(3, 123_456)), (3, 123_456));
    }
}
