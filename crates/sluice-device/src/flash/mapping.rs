//! A flow's page mapping: logical page to physical page and the sectors
//! written, in flat arrays indexed by logical page (allocated zeroed, so
//! the pages a run never touches cost nothing), with a map for pages past
//! the drive's logical size. The physical page is one 32-bit word (MQSim
//! too numbers pages in 32 bits): at random addresses the lookup's cache
//! and TLB misses are the cost, and half the bytes halve the pages
//! touched. The sectors sit in a second array, read only when a write
//! needs them.

use strength_reduce::StrengthReducedU32;

use super::lru::IntMap;

/// A mapping entry: where a logical page is and which sectors it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mapped {
    /// Flat plane, block and page.
    pub(crate) plane: u32,
    /// Block.
    pub(crate) block: u32,
    /// Page.
    pub(crate) page: u32,
    /// Sectors written.
    pub(crate) sectors: u64,
}

/// One flow's mapping table.
#[derive(Clone, Debug)]
pub(crate) struct PageMap {
    /// Physical page + 1 ((plane x blocks + block) x pages + page); 0:
    /// unmapped.
    at: Vec<u32>,
    /// Sectors written, by logical page.
    sectors: Vec<u64>,
    beyond: IntMap<u64, Mapped>,
    size: usize,
    blocks: u32,
    pages: u32,
    per_plane: StrengthReducedU32,
    per_block: StrengthReducedU32,
}

impl PageMap {
    /// A table for `logical` pages of a drive of `planes` planes of
    /// `blocks` blocks of `pages` pages.
    pub(crate) fn new(logical: u64, planes: usize, blocks: u32, pages: u32) -> Self {
        let (blocks, pages) = (blocks.max(1), pages.max(1));
        let physical = planes as u64 * u64::from(blocks) * u64::from(pages);
        // A drive too large for 32-bit page numbers keeps its entries in
        // the map (the configuration reader refuses such drives anyway).
        let fits = physical < u64::from(u32::MAX);
        PageMap {
            at: Vec::new(),
            sectors: Vec::new(),
            beyond: IntMap::default(),
            size: if fits {
                logical.min(1 << 32) as usize
            } else {
                0
            },
            blocks,
            pages,
            per_plane: StrengthReducedU32::new(blocks.saturating_mul(pages).max(1)),
            per_block: StrengthReducedU32::new(pages),
        }
    }

    /// Where logical page `lpa` is: plane, block and page.
    pub(crate) fn place(&self, lpa: u64) -> Option<(u32, u32, u32)> {
        let i = lpa as usize;
        if i >= self.size {
            return self.beyond.get(&lpa).map(|m| (m.plane, m.block, m.page));
        }
        let at = *self.at.get(i)?;
        if at == 0 {
            return None;
        }
        let ppa = at - 1;
        let (plane, in_plane) = StrengthReducedU32::div_rem(ppa, self.per_plane);
        let (block, page) = StrengthReducedU32::div_rem(in_plane, self.per_block);
        Some((plane, block, page))
    }

    /// Where logical page `lpa` is, with its written sectors.
    pub(crate) fn get(&self, lpa: u64) -> Option<Mapped> {
        let i = lpa as usize;
        if i >= self.size {
            return self.beyond.get(&lpa).copied();
        }
        let (plane, block, page) = self.place(lpa)?;
        Some(Mapped {
            plane,
            block,
            page,
            sectors: self.sectors[i],
        })
    }

    /// Record where logical page `lpa` now is.
    pub(crate) fn insert(&mut self, lpa: u64, m: Mapped) {
        let i = lpa as usize;
        if i >= self.size {
            self.beyond.insert(lpa, m);
            return;
        }
        if self.at.is_empty() {
            self.at = vec![0; self.size];
            self.sectors = vec![0; self.size];
        }
        self.at[i] = (m.plane * self.blocks + m.block) * self.pages + m.page + 1;
        self.sectors[i] = m.sectors;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_inside_and_past_the_table_round_trip() {
        let mut m = PageMap::new(100, 128, 2048, 256);
        assert_eq!(m.get(5), None);
        let a = Mapped {
            plane: 127,
            block: 2047,
            page: 255,
            sectors: u64::MAX,
        };
        m.insert(5, a);
        m.insert(1_000, a);
        assert_eq!(m.get(5), Some(a));
        assert_eq!(m.place(5), Some((127, 2047, 255)));
        assert_eq!(m.get(1_000), Some(a));
        assert_eq!(m.get(6), None);
    }

    #[test]
    fn a_drive_too_large_for_32_bit_pages_uses_the_map() {
        let mut m = PageMap::new(10, 1 << 20, 1 << 10, 1 << 8);
        let a = Mapped {
            plane: 1 << 19,
            block: 1,
            page: 1,
            sectors: 1,
        };
        m.insert(2, a);
        assert_eq!(m.get(2), Some(a));
    }
}
