//! A flow's page mapping: logical page to physical page and the sectors
//! written, in a flat array indexed by logical page (allocated zeroed, so
//! the pages a run never touches cost nothing), with a map for pages past
//! the drive's logical size. An entry is one word when the page has at
//! most 16 sectors (8 KiB, MQSim's default): one cache line touched per
//! lookup, the cost that dominates at random addresses.

use super::ftl::Mapped;
use super::lru::IntMap;

/// Bits of plane, block and page in a packed entry.
const PLANE_BITS: u32 = 16;
const BLOCK_BITS: u32 = 16;
const PAGE_BITS: u32 = 12;
const SECTOR_BITS: u32 = 16;
const VALID: u64 = 1 << 63;

fn field(word: u64, shift: u32, bits: u32) -> u32 {
    ((word >> shift) & ((1 << bits) - 1)) as u32
}

/// One flow's mapping table.
#[derive(Clone, Debug, Default)]
pub(crate) struct PageMap {
    /// [`VALID`] | sectors | plane | block | page, packed.
    at: Vec<u64>,
    /// Sectors, when a page has more than 16.
    wide_sectors: Vec<u64>,
    wide: bool,
    beyond: IntMap<u64, Mapped>,
    size: usize,
}

impl PageMap {
    /// A table for `logical` pages of a drive of `planes` planes of
    /// `blocks` blocks of `pages` pages of `page_sectors` sectors.
    pub(crate) fn new(
        logical: u64,
        planes: usize,
        blocks: u32,
        pages: u32,
        page_sectors: u32,
    ) -> Self {
        let fits =
            planes <= 1 << PLANE_BITS && blocks <= 1 << BLOCK_BITS && pages <= 1 << PAGE_BITS;
        PageMap {
            wide: page_sectors > SECTOR_BITS,
            // A drive too large to pack keeps every entry in the map.
            size: if fits {
                logical.min(1 << 40) as usize
            } else {
                0
            },
            ..PageMap::default()
        }
    }

    /// Where logical page `lpa` is.
    pub(crate) fn get(&self, lpa: u64) -> Option<Mapped> {
        let i = lpa as usize;
        if i >= self.size {
            return self.beyond.get(&lpa).copied();
        }
        let at = *self.at.get(i)?;
        if at & VALID == 0 {
            return None;
        }
        let page_shift = 0;
        let block_shift = PAGE_BITS;
        let plane_shift = block_shift + BLOCK_BITS;
        let sector_shift = plane_shift + PLANE_BITS;
        Some(Mapped {
            plane: field(at, plane_shift, PLANE_BITS),
            block: field(at, block_shift, BLOCK_BITS),
            page: field(at, page_shift, PAGE_BITS),
            sectors: if self.wide {
                self.wide_sectors[i]
            } else {
                u64::from(field(at, sector_shift, SECTOR_BITS))
            },
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
            if self.wide {
                self.wide_sectors = vec![0; self.size];
            }
        }
        let block_shift = PAGE_BITS;
        let plane_shift = block_shift + BLOCK_BITS;
        let sector_shift = plane_shift + PLANE_BITS;
        let narrow = if self.wide { 0 } else { m.sectors & 0xffff };
        self.at[i] = VALID
            | narrow << sector_shift
            | u64::from(m.plane) << plane_shift
            | u64::from(m.block) << block_shift
            | u64::from(m.page);
        if self.wide {
            self.wide_sectors[i] = m.sectors;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_inside_and_past_the_table_round_trip() {
        let mut m = PageMap::new(100, 128, 2048, 256, 16);
        assert_eq!(m.get(5), None);
        let a = Mapped {
            plane: 127,
            block: 2047,
            page: 255,
            sectors: 0xff00,
        };
        m.insert(5, a);
        m.insert(1_000, a);
        assert_eq!(m.get(5), Some(a));
        assert_eq!(m.get(1_000), Some(a));
        assert_eq!(m.get(6), None);
    }

    #[test]
    fn pages_of_more_than_sixteen_sectors_keep_every_bit() {
        let mut m = PageMap::new(10, 4, 4, 4, 64);
        let a = Mapped {
            plane: 3,
            block: 3,
            page: 3,
            sectors: u64::MAX,
        };
        m.insert(9, a);
        assert_eq!(m.get(9), Some(a));
    }

    #[test]
    fn a_drive_too_large_to_pack_uses_the_map() {
        let mut m = PageMap::new(10, 1 << 20, 4, 4, 16);
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
