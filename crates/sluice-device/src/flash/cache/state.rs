//! What the data cache holds between events; what it does is in the parent
//! module.

use crate::flash::geometry::Geometry;
use crate::flash::lru::{IntHasher, Lru};
use crate::flash::work::Slab;
use crate::mqsim::{CacheSharingMode, SsdConfig, SECTOR_BYTES};
use std::collections::{HashSet, VecDeque};

/// How often the per-flow filter of recently written pages is cleared.
pub(crate) const FILTER_RESET_NS: u64 = 1_000_000_000;

/// A cached page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    pub(crate) sectors: u64,
    pub(crate) stamp: u64,
    /// Being (or already) written back to flash: not written again on
    /// eviction.
    pub(crate) written_back: bool,
}

/// What a DRAM access is for.
#[derive(Clone, Debug)]
pub(crate) enum Job {
    /// A read served from the cache for request `.0`, `.1` sectors.
    UserRead(u32, u32),
    /// A write into the cache for request `.0`, `.1` sectors.
    UserWrite(u32, u32),
    /// Evicted dirty pages read out for writing back: these transactions.
    Eviction(Vec<u32>),
    /// Data read from flash copied into the cache.
    Fill,
}

/// The cache's state.
#[derive(Clone, Debug)]
pub(crate) struct Cache {
    /// One map for all flows (shared) or one per flow (partitioned).
    pub(crate) slots: Vec<Lru<Slot>>,
    pub(crate) shared: bool,
    pub(crate) capacity_pages: usize,
    pub(crate) filters: Vec<HashSet<u64, std::hash::BuildHasherDefault<IntHasher>>>,
    pub(crate) next_filter_reset: u64,
    /// Write-back sectors under way, per DRAM queue.
    pub(crate) back_pressure: Vec<u32>,
    pub(crate) back_pressure_max: u32,
    /// Write requests waiting for room, per DRAM queue.
    pub(crate) waiting: Vec<VecDeque<u32>>,
    pub(crate) dram_busy: bool,
    pub(crate) dram_queues: Vec<VecDeque<(u32, u64)>>,
    pub(crate) dram_turn: usize,
    pub(crate) jobs: Slab<Job>,
    /// Read transactions served from the cache.
    pub(crate) read_hits: u64,
}

impl Cache {
    /// The cache of configuration `c` on a drive of shape `geo`.
    pub(crate) fn new(c: &SsdConfig, geo: &Geometry) -> Self {
        let page_bytes = u64::from(geo.page_sectors) * u64::from(SECTOR_BYTES);
        Cache {
            slots: Vec::new(),
            shared: c.device.data_cache_sharing_mode == CacheSharingMode::Shared,
            capacity_pages: (u64::from(c.device.data_cache_capacity) / page_bytes) as usize,
            filters: Vec::new(),
            next_filter_reset: 0,
            back_pressure: Vec::new(),
            back_pressure_max: geo.plane_count() as u32 * geo.page_sectors,
            waiting: Vec::new(),
            dram_busy: false,
            dram_queues: Vec::new(),
            dram_turn: 0,
            jobs: Slab::default(),
            read_hits: 0,
        }
    }
}

/// A flow and page as one key.
pub(crate) fn key(stream: u32, lpa: u64) -> u64 {
    crate::flash::blocks::owner(stream, lpa)
}
