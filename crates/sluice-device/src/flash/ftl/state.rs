//! What the FTL holds between events; what it does is in the parent
//! module.

use crate::flash::blocks::{owner, BlockManager, Frontier, GcSettings};
use crate::flash::geometry::{Domain, Geometry};
use crate::flash::lru::{IntHasher, IntMap, Lru};
use crate::flash::mapping::{Mapped, PageMap};
use crate::flash::work::{Slab, Tx};
use crate::flash::FlashSpec;
use crate::mqsim::SECTOR_BYTES;
use std::collections::HashSet;

/// A cached mapping entry's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cmt {
    /// Reserved; its translation page is being read.
    Waiting,
    /// Present (dirty when changed since it was read).
    Present { dirty: bool },
}

/// The mapping table cache.
#[derive(Clone, Debug)]
pub(crate) struct Table {
    pub(crate) entries: Lru<Cmt>,
    /// Logical pages per translation page.
    pub(crate) per_page: u64,
    /// Translation pages being read: (flow, translation page) -> pages
    /// waiting for it.
    pub(crate) arriving: IntMap<u64, Vec<u64>>,
    /// Translation pages whose write-back was queued: MQSim answers
    /// misses on them from memory.
    pub(crate) departing: HashSet<u64, std::hash::BuildHasherDefault<IntHasher>>,
    /// Transactions waiting for their translation: (flow, page) -> txs.
    pub(crate) waiting: IntMap<u64, Vec<u32>>,
}

/// The FTL's state.
#[derive(Clone, Debug)]
pub(crate) struct Ftl {
    /// Every flash transaction under way.
    pub(crate) txs: Slab<Tx>,
    /// Blocks of every plane.
    pub(crate) blocks: BlockManager,
    pub(crate) domains: Vec<Domain>,
    pub(crate) maps: Vec<PageMap>,
    pub(crate) table: Option<Table>,
    /// Writes held because their plane is out of free blocks, by plane.
    pub(crate) held: IntMap<u64, Vec<u32>>,
    /// Flash reads of translation pages.
    pub(crate) mapping_reads: u64,
    pub(crate) page_bytes: u32,
}

impl Ftl {
    /// The FTL of model `spec` on a drive of shape `geo`.
    pub(crate) fn new(spec: &FlashSpec, geo: &Geometry) -> Self {
        let c = &spec.config;
        let streams = spec.streams.len().max(1);
        let domains = (0..streams)
            .map(|s| {
                let st = spec.stream(s);
                Domain::new(
                    geo,
                    c.device.plane_allocation_scheme,
                    [&st.channels, &st.chips, &st.dies, &st.planes],
                )
            })
            .collect();
        let table = (!c.device.ideal_mapping_table).then(|| {
            // MQSim's entry sizes (`Address_Mapping_Unit_Page_Level`):
            // a cached entry holds a logical and a physical page number and
            // a sector bitmap; a translation page holds the physical
            // number and bitmap of consecutive logical pages.
            let bits = (c.pages_total().max(2) as f64).log2();
            let sectors = f64::from(geo.page_sectors);
            let cmt_entry = ((2.0 * bits + sectors) / 8.0).ceil().max(1.0) as u64;
            let gtd_entry = ((bits + sectors) / 8.0).ceil().max(1.0) as u64;
            let page_bytes = u64::from(geo.page_sectors) * u64::from(SECTOR_BYTES);
            Table {
                entries: Lru::new((u64::from(c.device.cmt_capacity) / cmt_entry).max(1) as usize),
                per_page: (page_bytes / gtd_entry).max(1),
                arriving: IntMap::default(),
                departing: HashSet::default(),
                waiting: IntMap::default(),
            }
        });
        Ftl {
            txs: Slab::default(),
            blocks: BlockManager::new(
                geo.plane_count(),
                geo.blocks,
                geo.pages,
                streams,
                GcSettings {
                    threshold: c.device.gc_exec_threshold,
                    hard_threshold: c.device.gc_hard_threshold,
                    policy: c.device.gc_block_selection_policy,
                    seed: u64::from(c.device.seed as u32),
                },
            ),
            domains,
            maps: vec![
                PageMap::new(c.logical_pages(), geo.plane_count(), geo.blocks, geo.pages);
                streams
            ],
            table,
            held: IntMap::default(),
            mapping_reads: 0,
            page_bytes: geo.page_sectors * SECTOR_BYTES,
        }
    }

    /// Fill each flow's `initial_occupancy` share of its pages before the
    /// run, as MQSim's preconditioning does when the configuration enables
    /// it: here the pages are spread evenly over the flow's range and
    /// written once, in order (MQSim also ages the drive toward a steady
    /// state of invalid pages; this fill does not).
    pub(crate) fn precondition(&mut self, spec: &FlashSpec, geo: &Geometry) {
        let per_page = u64::from(geo.page_sectors.max(1));
        let end = spec.capacity_sectors();
        for (s, st) in spec.streams.iter().enumerate() {
            let share = st.initial_occupancy.clamp(0.0, 1.0);
            if share <= 0.0 {
                continue;
            }
            // The flow's range ends where the next one's begins.
            let next = spec
                .streams
                .iter()
                .map(|o| o.first_sector)
                .filter(|&f| f > st.first_sector)
                .min()
                .unwrap_or(end);
            let pages = next.saturating_sub(st.first_sector) / per_page;
            let n = (pages as f64 * share) as u64;
            let stream = s as u32;
            for i in 0..n {
                let lpa = i * pages / n.max(1);
                let plane = geo.plane_index(self.domain(stream).place(lpa));
                let (block, page, _) =
                    self.blocks
                        .allocate(plane, stream, Frontier::Data, owner(stream, lpa));
                let full = if geo.page_sectors >= 64 {
                    u64::MAX
                } else {
                    (1 << geo.page_sectors) - 1
                };
                self.map(stream).insert(
                    lpa,
                    Mapped {
                        plane: plane as u32,
                        block,
                        page,
                        sectors: full,
                    },
                );
            }
        }
        self.blocks.user_programs = 0;
    }

    /// Whether logical page `lpa` of `stream` has a place.
    #[cfg(test)]
    pub(crate) fn is_mapped(&self, stream: u32, lpa: u64) -> bool {
        self.maps[stream as usize % self.maps.len()]
            .place(lpa)
            .is_some()
    }

    pub(crate) fn domain(&self, stream: u32) -> &Domain {
        &self.domains[stream as usize % self.domains.len()]
    }

    pub(crate) fn map(&mut self, stream: u32) -> &mut PageMap {
        let n = self.maps.len();
        &mut self.maps[stream as usize % n]
    }
}
