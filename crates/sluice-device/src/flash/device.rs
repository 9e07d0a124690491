//! The flash SSD in service: the [`Device`] the simulator drives. One
//! event loop runs the host interface ([`super::nvme`]), the data cache
//! ([`super::cache`]), the FTL ([`super::ftl`]) and the back end
//! ([`super::backend`]); each of those owns its state and tells this loop
//! what happens next.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use sluice::{CostModel, Duration, Instant};

use super::backend::state::Backend;
use super::cache::state::Cache;
use super::ftl::state::Ftl;
use super::geometry::Geometry;
use super::nvme::state::Host;
use super::timing::Timing;
use super::FlashSpec;
use crate::{Command, Device};

/// Something that happens inside the drive (or on its link) at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    /// A submission entry reached the drive.
    Sqe(u32),
    /// A write's data reached the drive.
    WriteData(u32),
    /// The DRAM finished job `.0`.
    DramDone(u32),
    /// A command's (and a program's data) cycles on chip `.0`'s channel
    /// ended.
    CommandSent(u32),
    /// Chip `.0`'s array finished its operation.
    ArrayDone(u32),
    /// Transaction `.1`'s data left chip `.0` over its channel.
    DataOut(u32, u32),
}

/// An event and when it is due: ordered by time, then by the order it was
/// scheduled in (MQSim's, for events at the same time), one integer
/// comparison.
#[derive(Clone, Copy, Debug)]
struct Due {
    key: u128,
    event: Event,
}

impl PartialEq for Due {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Eq for Due {}

impl PartialOrd for Due {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Due {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key.cmp(&other.key)
    }
}

/// The parts of the drive, all visible to each other through this struct;
/// the event loop is in the parts' `impl` blocks.
#[derive(Clone, Debug)]
pub(crate) struct Parts {
    pub(crate) spec: FlashSpec,
    pub(crate) geo: Geometry,
    pub(crate) t: Timing,
    pub(crate) now: u64,
    agenda: BinaryHeap<Reverse<Due>>,
    seq: u64,
    pub(crate) host: Host,
    pub(crate) cache: Cache,
    pub(crate) ftl: Ftl,
    pub(crate) backend: Backend,
    /// Tags whose completion reached the host, in order.
    pub(crate) done: VecDeque<u64>,
    /// Completion entries on their way to the host: (arrival, tag), in
    /// arrival order (the link toward the host is one FIFO), kept apart
    /// from the agenda.
    pub(crate) arriving: VecDeque<(u64, u64)>,
    /// Emptied lists of transactions, kept for reuse (a request's
    /// transactions pass through several lists on their way).
    pool: Vec<Vec<u32>>,
}

impl Parts {
    /// Schedule `e` at `at`.
    pub(crate) fn at(&mut self, at: u64, e: Event) {
        self.seq += 1;
        self.agenda.push(Reverse(Due {
            key: u128::from(at) << 64 | u128::from(self.seq),
            event: e,
        }));
    }

    /// An empty list of transactions.
    pub(crate) fn list(&mut self) -> Vec<u32> {
        self.pool.pop().unwrap_or_default()
    }

    /// Give a list back for reuse.
    pub(crate) fn recycle(&mut self, mut v: Vec<u32>) {
        if self.pool.len() < 64 {
            v.clear();
            self.pool.push(v);
        }
    }

    fn next_event_time(&self) -> Option<u64> {
        self.agenda.peek().map(|r| (r.0.key >> 64) as u64)
    }

    /// When the next thing happens: an event or a completion's arrival.
    fn next_time(&self) -> Option<u64> {
        match (self.next_event_time(), self.arriving.front()) {
            (Some(e), Some(&(c, _))) => Some(e.min(c)),
            (e, c) => e.or(c.map(|&(t, _)| t)),
        }
    }

    /// Run the next event if it happens at or before `until`.
    fn step(&mut self, until: u64) -> bool {
        match self.next_time() {
            Some(t) if t <= until => {}
            _ => return false,
        }
        if let Some(&(c, tag)) = self.arriving.front() {
            if self.next_event_time().is_none_or(|e| c <= e) {
                self.arriving.pop_front();
                self.now = self.now.max(c);
                self.cqe_arrived(tag);
                return true;
            }
        }
        let Some(Reverse(Due { key, event: e })) = self.agenda.pop() else {
            return false;
        };
        let t = (key >> 64) as u64;
        self.now = self.now.max(t);
        match e {
            Event::Sqe(r) => self.sqe_arrived(r),
            Event::WriteData(r) => self.write_data_arrived(r),
            Event::DramDone(j) => self.dram_done(j),
            Event::CommandSent(c) => self.command_sent(c as usize),
            Event::ArrayDone(c) => self.array_done(c as usize),
            Event::DataOut(c, tx) => self.data_out_done(c as usize, tx),
        }
        true
    }
}

/// Counters of what the drive did, for reports and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlashStats {
    /// Pages programmed for the host (user writes and cache write-backs).
    pub user_programs: u64,
    /// Pages programmed by garbage collection.
    pub gc_programs: u64,
    /// Blocks erased.
    pub erases: u64,
    /// Flash reads of mapping (translation) pages.
    pub mapping_reads: u64,
    /// Read transactions served from the DRAM cache.
    pub cache_read_hits: u64,
}

impl FlashStats {
    /// Pages programmed per page the host asked to write; 1 before any
    /// write.
    pub fn write_amplification(&self) -> f64 {
        if self.user_programs == 0 {
            return 1.0;
        }
        (self.user_programs + self.gc_programs) as f64 / self.user_programs as f64
    }
}

/// A flash SSD in service.
#[derive(Clone, Debug)]
pub struct Flash {
    pub(crate) parts: Parts,
    depth: usize,
}

impl Flash {
    /// An empty drive of model `spec` accepting `depth` commands at once.
    pub fn new(spec: &FlashSpec, depth: usize) -> Self {
        let geo = Geometry::of(&spec.config);
        let t = Timing::of(&spec.config);
        let host = Host::new(&spec.config);
        let cache = Cache::new(&spec.config, &geo);
        let mut ftl = Ftl::new(spec, &geo);
        if spec.config.device.enabled_preconditioning {
            ftl.precondition(spec, &geo);
        }
        let backend = Backend::new(&spec.config, &geo);
        Flash {
            parts: Parts {
                spec: spec.clone(),
                geo,
                t,
                now: 0,
                agenda: BinaryHeap::new(),
                seq: 0,
                host,
                cache,
                ftl,
                backend,
                done: VecDeque::new(),
                arriving: VecDeque::new(),
                pool: Vec::new(),
            },
            depth: depth.max(1),
        }
    }

    /// What the drive has done so far.
    pub fn stats(&self) -> FlashStats {
        let b = &self.parts.ftl.blocks;
        FlashStats {
            user_programs: b.user_programs,
            gc_programs: b.gc_programs,
            erases: b.erases,
            mapping_reads: self.parts.ftl.mapping_reads,
            cache_read_hits: self.parts.cache.read_hits,
        }
    }
}

impl CostModel for Flash {
    fn capacity(&self) -> u64 {
        self.parts.spec.capacity_sectors()
    }
    fn seek_time(&self, _from: u64, _to: u64) -> Duration {
        Duration::ZERO
    }
    fn positioning_time(&self, _now: Instant, _from: u64, _to: u64) -> Duration {
        Duration::from_nanos(self.parts.t.read_latency(0))
    }
    fn full_stroke_seek(&self) -> Duration {
        Duration::ZERO
    }
}

impl Device for Flash {
    fn name(&self) -> &str {
        &self.parts.spec.name
    }

    fn queue_depth(&self) -> usize {
        self.depth
    }

    fn submit(&mut self, now: Instant, cmd: Command) {
        let now = now.as_nanos();
        while self.parts.step(now) {}
        self.parts.now = self.parts.now.max(now);
        self.parts.submit(cmd);
    }

    fn next_completion(&self) -> Option<Instant> {
        if !self.parts.done.is_empty() {
            return Some(Instant::from_nanos(self.parts.now));
        }
        self.parts.next_time().map(Instant::from_nanos)
    }

    fn pop_completion(&mut self, now: Instant) -> Option<u64> {
        let now = now.as_nanos();
        loop {
            if let Some(tag) = self.parts.done.pop_front() {
                return Some(tag);
            }
            if !self.parts.step(now) {
                return None;
            }
        }
    }
}
