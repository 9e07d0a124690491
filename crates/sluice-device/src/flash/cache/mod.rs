//! The DRAM data cache as MQSim's advanced cache manager
//! (`Data_Cache_Manager_Flash_Advanced`) runs it: reads are served from
//! cached pages where they can be; a flow in a write-caching mode has its
//! writes complete once in DRAM, pages it has not written within the last
//! second are written back to flash at once ("eagerly", a per-flow filter
//! reset every second), the others stay dirty until evicted (least
//! recently used). A back-pressure bound (the sectors of one page per
//! plane) on write-backs under way makes later writes wait: the mechanism
//! of the FAST'18 data-cache interference. One DRAM channel serves every
//! access in turn.

pub(crate) mod state;

use self::state::*;
use super::device::{Event, Parts};
use super::lru::Lru;
use super::work::{sectors_in, Op, Source, NONE};
use super::StreamCaching;
use crate::mqsim::SECTOR_BYTES;
use std::collections::{HashSet, VecDeque};

impl Parts {
    fn caching(&self, stream: u32) -> StreamCaching {
        self.spec.stream_basics(stream as usize).0
    }

    /// The DRAM queue (and back-pressure account) of a flow.
    fn dram_queue(&self, stream: u32) -> usize {
        if self.cache.shared {
            0
        } else {
            stream as usize
        }
    }

    /// The cache map a flow uses, made to exist.
    fn slots_of(&mut self, stream: u32) -> &mut Lru<Slot> {
        let (i, streams) = if self.cache.shared {
            (0, 1)
        } else {
            (
                stream as usize,
                self.spec.streams.len().max(stream as usize + 1),
            )
        };
        let cap = (self.cache.capacity_pages / streams).max(1);
        while self.cache.slots.len() <= i {
            self.cache.slots.push(Lru::new(cap));
        }
        &mut self.cache.slots[i]
    }

    fn ensure_queue(&mut self, q: usize) {
        let c = &mut self.cache;
        if c.back_pressure.len() <= q {
            c.back_pressure.resize(q + 1, 0);
            c.waiting.resize_with(q + 1, VecDeque::new);
            c.dram_queues.resize_with(q + 1, VecDeque::new);
        }
    }

    /// A read request's transactions: those the cache holds are served
    /// from DRAM, the others go to flash.
    pub(crate) fn cache_read(&mut self, r: u32, txs: Vec<u32>) {
        let Some(stream) = self.host.requests.get(r).map(|q| q.stream) else {
            return;
        };
        let mut to_flash = self.list();
        let mut from_cache = 0u32;
        if self.caching(stream) == StreamCaching::TurnedOff {
            to_flash.extend_from_slice(&txs);
        } else {
            for &tx in &txs {
                let Some(t) = self.ftl.txs.get(tx) else {
                    continue;
                };
                let (want, lpa) = (t.sectors, t.lpa);
                let have = self
                    .slots_of(stream)
                    .peek(key(stream, lpa))
                    .map_or(0, |s| s.sectors);
                let hit = have & want;
                if hit == want {
                    from_cache += sectors_in(want);
                    self.cache.read_hits += 1;
                    self.ftl.txs.remove(tx);
                    continue;
                }
                if hit != 0 {
                    from_cache += sectors_in(hit);
                    if let Some(t) = self.ftl.txs.get_mut(tx) {
                        t.sectors &= !hit;
                        t.bytes -= sectors_in(hit) * SECTOR_BYTES;
                    }
                }
                to_flash.push(tx);
            }
        }
        if let Some(req) = self.host.requests.get_mut(r) {
            req.in_flash += to_flash.len() as u32;
            req.in_dram += from_cache;
        }
        if from_cache > 0 {
            let q = self.dram_queue(stream);
            self.dram(
                q,
                Job::UserRead(r, from_cache),
                u64::from(from_cache) * u64::from(SECTOR_BYTES),
            );
        }
        self.recycle(txs);
        if to_flash.is_empty() {
            self.recycle(to_flash);
        } else {
            self.dispatch(to_flash);
        }
    }

    /// A write request's transactions: to flash directly, or into the
    /// cache as far as back pressure allows.
    pub(crate) fn cache_write(&mut self, r: u32, txs: Vec<u32>) {
        let Some(stream) = self.host.requests.get(r).map(|q| q.stream) else {
            return;
        };
        match self.caching(stream) {
            StreamCaching::TurnedOff | StreamCaching::ReadCache => {
                if let Some(req) = self.host.requests.get_mut(r) {
                    req.in_flash += txs.len() as u32;
                }
                self.dispatch(txs);
            }
            StreamCaching::WriteCache | StreamCaching::WriteReadCache => {
                if let Some(req) = self.host.requests.get_mut(r) {
                    req.waiting = txs;
                }
                self.destage(r);
                let q = self.dram_queue(stream);
                if self
                    .host
                    .requests
                    .get(r)
                    .is_some_and(|q| !q.waiting.is_empty())
                {
                    self.cache.waiting[q].push_back(r);
                }
            }
        }
    }

    /// Take as much of request `r`'s waiting data into the cache as the
    /// back pressure allows (`write_to_destage_buffer`).
    fn destage(&mut self, r: u32) {
        let Some(req) = self.host.requests.get_mut(r) else {
            return;
        };
        let stream = req.stream;
        let mut pending = std::mem::take(&mut req.waiting);
        let q = self.dram_queue(stream);
        self.ensure_queue(q);
        let (mut evicted_sectors, mut written_back, mut to_dram) = (0u32, 0u32, 0u32);
        let mut evictions = Vec::new();
        let mut write_backs = Vec::new();
        let mut taken = 0;
        for &tx in &pending {
            if self.cache.back_pressure[q] + evicted_sectors + written_back
                >= self.cache.back_pressure_max
            {
                break;
            }
            taken += 1;
            let Some(t) = self.ftl.txs.get(tx) else {
                continue;
            };
            let (lpa, sectors, stamp) = (t.lpa, t.sectors, t.stamp);
            let k = key(stream, lpa);
            let slots = self.slots_of(stream);
            if let Some(s) = slots.get_mut(k) {
                s.sectors |= sectors;
                s.stamp = s.stamp.max(stamp);
            } else {
                if !slots.has_room() {
                    if let Some((old, slot)) = slots.pop_lru() {
                        if !slot.written_back {
                            let (s2, lpa2) = super::blocks::owner_parts(old);
                            evicted_sectors += sectors_in(slot.sectors);
                            evictions.push(self.ftl.txs.insert(super::work::Tx {
                                op: Op::Write,
                                source: Source::Cache,
                                stream: s2,
                                lpa: lpa2,
                                sectors: slot.sectors,
                                bytes: sectors_in(slot.sectors) * SECTOR_BYTES,
                                request: NONE,
                                plane: 0,
                                block: 0,
                                page: 0,
                                related: NONE,
                                moves: 0,
                                stamp: slot.stamp,
                                priority: 0,
                            }));
                        }
                    }
                }
                self.slots_of(stream).insert(
                    k,
                    Slot {
                        sectors,
                        stamp,
                        written_back: false,
                    },
                );
            }
            to_dram += sectors_in(sectors);
            while self.cache.filters.len() <= stream as usize {
                self.cache.filters.push(HashSet::default());
            }
            if self.cache.filters[stream as usize].insert(lpa) {
                // Not written lately: cold, written back at once.
                if let Some(s) = self.slots_of(stream).peek_mut(k) {
                    s.written_back = true;
                }
                written_back += sectors_in(sectors);
                // Written back for the cache: the request does not wait.
                if let Some(t) = self.ftl.txs.get_mut(tx) {
                    t.request = NONE;
                }
                write_backs.push(tx);
            } else {
                self.ftl.txs.remove(tx);
            }
        }
        pending.drain(..taken);
        if let Some(req) = self.host.requests.get_mut(r) {
            req.waiting = pending;
            req.in_dram += to_dram;
        }
        self.cache.back_pressure[q] += evicted_sectors + written_back;
        if !evictions.is_empty() {
            let bytes = u64::from(evicted_sectors) * u64::from(SECTOR_BYTES);
            self.dram(q, Job::Eviction(evictions), bytes);
        }
        if to_dram > 0 {
            let bytes = u64::from(to_dram) * u64::from(SECTOR_BYTES);
            self.dram(q, Job::UserWrite(r, to_dram), bytes);
        }
        if !write_backs.is_empty() {
            self.dispatch(write_backs);
        }
        if self.now > self.cache.next_filter_reset {
            if let Some(f) = self.cache.filters.get_mut(stream as usize) {
                f.clear();
            }
            self.cache.next_filter_reset = self.now + FILTER_RESET_NS;
        }
    }

    /// Start (or queue) a DRAM access of `bytes` for `job`.
    fn dram(&mut self, q: usize, job: Job, bytes: u64) {
        self.ensure_queue(q);
        let j = self.cache.jobs.insert(job);
        if self.cache.dram_busy {
            self.cache.dram_queues[q].push_back((j, bytes));
        } else {
            self.cache.dram_busy = true;
            self.cache.dram_turn = q;
            let at = self.now + self.t.dram(bytes);
            self.at(at, Event::DramDone(j));
        }
    }

    pub(crate) fn dram_done(&mut self, j: u32) {
        match self.cache.jobs.remove(j) {
            Some(Job::UserRead(r, sectors)) | Some(Job::UserWrite(r, sectors)) => {
                if let Some(req) = self.host.requests.get_mut(r) {
                    req.in_dram = req.in_dram.saturating_sub(sectors);
                }
                if self.request_finished(r) {
                    self.request_serviced(r);
                }
            }
            Some(Job::Eviction(txs)) => self.dispatch(txs),
            Some(Job::Fill) | None => {}
        }
        self.cache.dram_busy = false;
        let queues = self.cache.dram_queues.len();
        for i in 0..queues {
            let q = if self.cache.shared {
                0
            } else {
                (self.cache.dram_turn + 1 + i) % queues
            };
            if let Some((next, bytes)) = self.cache.dram_queues[q].pop_front() {
                self.cache.dram_busy = true;
                self.cache.dram_turn = q;
                let at = self.now + self.t.dram(bytes);
                self.at(at, Event::DramDone(next));
                break;
            }
        }
    }

    /// A user or cache transaction finished in flash.
    pub(crate) fn cache_tx_done(&mut self, tx: u32) {
        let Some(t) = self.ftl.txs.remove(tx) else {
            return;
        };
        let caching = self.caching(t.stream);
        match t.op {
            Op::Read => {
                if t.related != NONE {
                    // An update read: its write may go now.
                    let mut plane = None;
                    if let Some(w) = self.ftl.txs.get_mut(t.related) {
                        w.related = NONE;
                        plane = Some(w.plane as usize);
                    }
                    if let Some(p) = plane {
                        let ch = self.geo.channel_of_chip(self.geo.chip_of_plane(p));
                        self.mark_fresh(ch);
                    }
                    return;
                }
                if matches!(
                    caching,
                    StreamCaching::ReadCache | StreamCaching::WriteReadCache
                ) {
                    self.fill(&t);
                }
                if t.request != NONE {
                    self.request_tx_done(t.request);
                }
            }
            Op::Write => {
                if matches!(
                    caching,
                    StreamCaching::WriteCache | StreamCaching::WriteReadCache
                ) {
                    let q = self.dram_queue(t.stream);
                    self.ensure_queue(q);
                    let sectors = t.bytes.div_ceil(SECTOR_BYTES);
                    self.cache.back_pressure[q] =
                        self.cache.back_pressure[q].saturating_sub(sectors);
                    let k = key(t.stream, t.lpa);
                    let stale = self
                        .slots_of(t.stream)
                        .peek(k)
                        .is_some_and(|s| t.stamp >= s.stamp);
                    if stale {
                        self.slots_of(t.stream).remove(k);
                    }
                    let mut i = 0;
                    while i < self.cache.waiting[q].len() {
                        let r = self.cache.waiting[q][i];
                        self.destage(r);
                        if self
                            .host
                            .requests
                            .get(r)
                            .is_none_or(|x| x.waiting.is_empty())
                        {
                            self.cache.waiting[q].remove(i);
                        } else {
                            i += 1;
                        }
                        if self.cache.back_pressure[q] > self.cache.back_pressure_max {
                            break;
                        }
                    }
                } else if t.request != NONE {
                    self.request_tx_done(t.request);
                }
            }
            Op::Erase => {}
        }
    }

    /// Data read from flash kept in the cache (read-caching flows).
    fn fill(&mut self, t: &super::work::Tx) {
        let k = key(t.stream, t.lpa);
        let q = self.dram_queue(t.stream);
        let slots = self.slots_of(t.stream);
        if let Some(s) = slots.get_mut(k) {
            s.sectors |= t.sectors;
            return;
        }
        if !slots.has_room() {
            slots.pop_lru();
        }
        slots.insert(
            k,
            Slot {
                sectors: t.sectors,
                stamp: t.stamp,
                written_back: true,
            },
        );
        let bytes = u64::from(sectors_in(t.sectors)) * u64::from(SECTOR_BYTES);
        self.dram(q, Job::Fill, bytes);
    }
}
