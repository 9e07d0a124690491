//! The flash translation layer as MQSim's page-level FTL runs it: every
//! flow has its own page mapping (its own logical page numbers, spread over
//! its own channels, chips, dies and planes by the plane allocation
//! scheme); a page written is programmed at its plane's write frontier and
//! its old copy invalidated (after reading the sectors the write leaves,
//! an "update read"); a page read before ever being written is given a
//! place on first read (`online_create_entry_for_reads`). With a limited
//! mapping table, translations live in a least-recently-used cache (CMT)
//! and a miss reads the translation page from flash first; evicted dirty
//! entries queue a translation write that MQSim's schedulers never serve
//! (its queue is not read), so this model issues none either. Garbage
//! collection moves a victim block's valid pages (read, then program at the
//! plane's GC frontier) and erases it.

pub(crate) mod state;

use self::state::*;
use super::blocks::{owner, owner_parts, Frontier};
use super::mapping::Mapped;
use super::work::{Op, Source, Tx, NONE};
use crate::mqsim::SECTOR_BYTES;

impl super::device::Parts {
    /// Translate transactions and hand them to the scheduler
    /// (`Translate_lpa_to_ppa_and_dispatch`).
    pub(crate) fn dispatch(&mut self, mut txs: Vec<u32>) {
        let mut kept = 0;
        for i in 0..txs.len() {
            let tx = txs[i];
            if self.translation_known(tx) && self.translate(tx) {
                txs[kept] = tx;
                kept += 1;
            }
        }
        txs.truncate(kept);
        for &tx in &txs {
            self.submit_tx(tx);
        }
        self.recycle(txs);
        self.schedule();
    }

    /// Whether the transaction's mapping is at hand; if not, it waits for
    /// a translation page (and the read of it is started).
    fn translation_known(&mut self, tx: u32) -> bool {
        let Some(t) = self.ftl.txs.get(tx) else {
            return false;
        };
        let (stream, lpa) = (t.stream, t.lpa);
        let k = owner(stream, lpa);
        let Some(table) = self.ftl.table.as_mut() else {
            return true;
        };
        match table.entries.get_mut(k) {
            Some(Cmt::Present { .. }) => return true,
            Some(Cmt::Waiting) => {
                table.waiting.entry(k).or_default().push(tx);
                return false;
            }
            None => {}
        }
        let mvp = owner(stream, lpa / table.per_page);
        if table.departing.contains(&mvp) {
            self.cmt_make_room();
            if let Some(table) = self.ftl.table.as_mut() {
                table.entries.insert(k, Cmt::Present { dirty: false });
            }
            return true;
        }
        self.cmt_make_room();
        let Some(table) = self.ftl.table.as_mut() else {
            return true;
        };
        table.entries.insert(k, Cmt::Waiting);
        table.waiting.entry(k).or_default().push(tx);
        let reading = table.arriving.contains_key(&mvp);
        table.arriving.entry(mvp).or_default().push(k);
        let page = lpa / table.per_page;
        if !reading {
            self.read_translation_page(stream, page);
        }
        false
    }

    /// Evict the least recently used mapping entry if the table is full;
    /// a dirty one queues its translation page's write-back.
    fn cmt_make_room(&mut self) {
        let Some(table) = self.ftl.table.as_mut() else {
            return;
        };
        if table.entries.has_room() {
            return;
        }
        if let Some((k, Cmt::Present { dirty: true })) = table.entries.pop_lru() {
            let (stream, lpa) = owner_parts(k);
            let mvp = owner(stream, lpa / table.per_page);
            table.departing.insert(mvp);
        }
    }

    /// A flash read of translation page `mvp` of `stream`, placed as the
    /// data page of the same number would be.
    fn read_translation_page(&mut self, stream: u32, mvp: u64) {
        let at = self.ftl.domain(stream).place(mvp);
        let plane = self.geo.plane_index(at) as u32;
        let tx = self.ftl.txs.insert(Tx {
            op: Op::Read,
            source: Source::Mapping,
            stream,
            lpa: mvp,
            sectors: 1,
            bytes: SECTOR_BYTES,
            request: NONE,
            plane,
            block: 0,
            page: (mvp % u64::from(self.geo.pages)) as u32,
            related: NONE,
            moves: 0,
            stamp: self.now,
            priority: 0,
        });
        self.ftl.mapping_reads += 1;
        self.submit_tx(tx);
    }

    /// A translation page arrived: its waiting entries become present and
    /// their transactions go on.
    pub(crate) fn translation_arrived(&mut self, tx: u32) {
        let Some(t) = self.ftl.txs.remove(tx) else {
            return;
        };
        let mvp = owner(t.stream, t.lpa);
        let Some(table) = self.ftl.table.as_mut() else {
            return;
        };
        let pages = table.arriving.remove(&mvp).unwrap_or_default();
        let mut go = Vec::new();
        for k in pages {
            if let Some(e) = table.entries.peek_mut(k) {
                *e = Cmt::Present { dirty: false };
            }
            go.extend(table.waiting.remove(&k).unwrap_or_default());
        }
        let mut ready = Vec::new();
        for tx in go {
            if self.translate(tx) {
                ready.push(tx);
            }
        }
        for tx in ready {
            self.submit_tx(tx);
        }
        self.schedule();
    }

    /// Mark a cached mapping entry changed.
    fn touch_mapping(&mut self, stream: u32, lpa: u64) {
        if let Some(table) = self.ftl.table.as_mut() {
            if let Some(e) = table.entries.peek_mut(owner(stream, lpa)) {
                *e = Cmt::Present { dirty: true };
            }
        }
    }

    /// Give the transaction its physical page; false when a write must
    /// wait for its plane to get free blocks back.
    fn translate(&mut self, tx: u32) -> bool {
        let Some(t) = self.ftl.txs.get(tx) else {
            return false;
        };
        let (op, stream, lpa, sectors) = (t.op, t.stream, t.lpa, t.sectors);
        match op {
            Op::Read => {
                let found = self.ftl.map(stream).place(lpa);
                let (plane, block, page) = match found {
                    Some(at) => at,
                    None => {
                        let plane = self.geo.plane_index(self.ftl.domain(stream).place(lpa));
                        let (block, page, fresh) = self.ftl.blocks.allocate(
                            plane,
                            stream,
                            Frontier::Data,
                            owner(stream, lpa),
                        );
                        let m = Mapped {
                            plane: plane as u32,
                            block,
                            page,
                            sectors,
                        };
                        self.ftl.map(stream).insert(lpa, m);
                        self.touch_mapping(stream, lpa);
                        if fresh {
                            self.check_gc(plane);
                        }
                        (m.plane, m.block, m.page)
                    }
                };
                if let Some(t) = self.ftl.txs.get_mut(tx) {
                    t.plane = plane;
                    t.block = block;
                    t.page = page;
                }
                true
            }
            Op::Write => {
                let plane = self.geo.plane_index(self.ftl.domain(stream).place(lpa));
                // A plane without a free block takes no new write until its
                // collection frees one (MQSim stops a plane's writes a
                // little earlier, below its GC reserve).
                if self.ftl.blocks.free_blocks(plane) == 0 {
                    self.ftl.held.entry(plane as u64).or_default().push(tx);
                    return false;
                }
                let old = self.ftl.map(stream).get(lpa);
                let mut merged = sectors;
                if let Some(old) = old {
                    merged |= old.sectors;
                    if sectors & old.sectors != old.sectors {
                        // The write leaves sectors of the old page: read
                        // them first.
                        let keep = old.sectors & !sectors;
                        let priority = self.ftl.txs.get(tx).map_or(0, |t| t.priority);
                        let source = self.ftl.txs.get(tx).map_or(Source::User, |t| t.source);
                        let read = self.ftl.txs.insert(Tx {
                            op: Op::Read,
                            source,
                            stream,
                            lpa,
                            sectors: keep,
                            bytes: keep.count_ones() * SECTOR_BYTES,
                            request: NONE,
                            plane: old.plane,
                            block: old.block,
                            page: old.page,
                            related: tx,
                            moves: 0,
                            stamp: self.now,
                            priority,
                        });
                        if let Some(t) = self.ftl.txs.get_mut(tx) {
                            t.related = read;
                        }
                    }
                    self.ftl
                        .blocks
                        .invalidate(old.plane as usize, old.block, old.page);
                }
                let (block, page, fresh) =
                    self.ftl
                        .blocks
                        .allocate(plane, stream, Frontier::Data, owner(stream, lpa));
                self.ftl.map(stream).insert(
                    lpa,
                    Mapped {
                        plane: plane as u32,
                        block,
                        page,
                        sectors: merged,
                    },
                );
                self.touch_mapping(stream, lpa);
                if let Some(t) = self.ftl.txs.get_mut(tx) {
                    t.plane = plane as u32;
                    t.block = block;
                    t.page = page;
                    t.bytes = t.bytes.min(self.ftl.page_bytes);
                }
                if fresh {
                    self.check_gc(plane);
                }
                true
            }
            Op::Erase => true,
        }
    }

    /// Hand a placed transaction to the scheduler, with its update read.
    fn submit_tx(&mut self, tx: u32) {
        let related = self.ftl.txs.get(tx).map(|t| (t.op, t.related));
        self.enqueue(tx);
        if let Some((Op::Write, r)) = related {
            if r != NONE {
                self.enqueue(r);
            }
        }
    }

    /// Start garbage collection on `plane` if its free blocks ran low.
    fn check_gc(&mut self, plane: usize) {
        if !self.ftl.blocks.needs_gc(plane) {
            return;
        }
        let Some(victim) = self.ftl.blocks.choose_victim(plane) else {
            return;
        };
        let page_bytes = self.ftl.page_bytes;
        let erase = self.ftl.txs.insert(Tx {
            op: Op::Erase,
            source: Source::Gc,
            stream: 0,
            lpa: 0,
            sectors: 0,
            bytes: 0,
            request: NONE,
            plane: plane as u32,
            block: victim.block,
            page: 0,
            related: NONE,
            moves: victim.valid.len() as u32,
            stamp: self.now,
            priority: 0,
        });
        for &(page, who) in &victim.valid {
            let (stream, lpa) = owner_parts(who);
            let read = self.ftl.txs.insert(Tx {
                op: Op::Read,
                source: Source::Gc,
                stream,
                lpa,
                sectors: u64::MAX,
                bytes: page_bytes,
                request: NONE,
                plane: plane as u32,
                block: victim.block,
                page,
                related: erase,
                moves: 0,
                stamp: self.now,
                priority: 0,
            });
            self.enqueue(read);
        }
        self.enqueue(erase);
        self.schedule();
    }

    /// A garbage-collection transaction finished.
    pub(crate) fn gc_tx_done(&mut self, tx: u32) {
        let Some(t) = self.ftl.txs.remove(tx) else {
            return;
        };
        match t.op {
            Op::Read => {
                // Still the page's current copy? Then program it at the GC
                // frontier; otherwise the host rewrote it meanwhile.
                let current = self.ftl.map(t.stream).get(t.lpa);
                let moved = current
                    .filter(|m| m.plane == t.plane && m.block == t.block && m.page == t.page);
                match moved {
                    Some(m) => {
                        let plane = t.plane as usize;
                        self.ftl.blocks.invalidate(plane, t.block, t.page);
                        let (block, page, _) = self.ftl.blocks.allocate(
                            plane,
                            t.stream,
                            Frontier::Gc,
                            owner(t.stream, t.lpa),
                        );
                        self.ftl.map(t.stream).insert(
                            t.lpa,
                            Mapped {
                                plane: t.plane,
                                block,
                                page,
                                sectors: m.sectors,
                            },
                        );
                        let write = self.ftl.txs.insert(Tx {
                            op: Op::Write,
                            block,
                            page,
                            related: t.related,
                            ..t
                        });
                        self.enqueue(write);
                        self.schedule();
                    }
                    None => self.gc_move_done(t.related),
                }
            }
            Op::Write => self.gc_move_done(t.related),
            Op::Erase => {
                self.ftl.blocks.erased(t.plane as usize, t.block);
                let held = self
                    .ftl
                    .held
                    .remove(&u64::from(t.plane))
                    .unwrap_or_default();
                if !held.is_empty() {
                    self.dispatch(held);
                }
            }
        }
    }

    fn gc_move_done(&mut self, erase: u32) {
        let mut plane = None;
        if let Some(e) = self.ftl.txs.get_mut(erase) {
            e.moves = e.moves.saturating_sub(1);
            plane = Some(e.plane as usize);
        }
        if let Some(p) = plane {
            let ch = self.geo.channel_of_chip(self.geo.chip_of_plane(p));
            self.mark_fresh(ch);
        }
        self.schedule();
    }
}
