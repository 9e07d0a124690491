//! Writeback in contexts (the kernel's cgroup writeback): a writer with a
//! context of its own (a cgroup of its own) has its own dirty files,
//! passes, queue and requests in flight; the others share the root's.
//! Every writeback request is issued in the name of the writer that
//! dirtied its pages, so a scheduler serves, weighs and limits it as that
//! writer's.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use sluice::Instant;

use super::{disk_io, Out, PageCache, MAX_WRITEBACK_PAGES, NR_REQUESTS};

/// A file's dirty pages not under writeback, and where its next pass
/// starts.
#[derive(Debug)]
pub(super) struct File {
    pub dirty: BTreeSet<u64>,
    /// The inode's `dirtied_when`: when it went from clean to dirty.
    pub dirtied_when: Instant,
    /// `writeback_index`: the page after the last one written back.
    pub index: u64,
}

/// A writeback context (`bdi_writeback`): one writer's, or the root's.
#[derive(Debug, Default)]
pub(super) struct Wb {
    /// Its files with dirty pages.
    pub files: BTreeMap<u64, File>,
    /// Those files in the order they became dirty (b_io).
    pub order: VecDeque<u64>,
    /// Its writeback requests waiting for a slot.
    pub queue: VecDeque<u64>,
    /// Its writeback requests sent and not completed.
    pub in_flight: usize,
    /// Its dirty pages (including those redirtied under writeback).
    pub dirty: u64,
    /// Its pages under writeback.
    pub writeback: u64,
    /// kupdate's pass: files dirtied before this, and pages left.
    pub kupdate: Option<(Instant, u64)>,
}

impl Wb {
    /// Nothing dirty, queued or in flight: the context can go.
    fn idle(&self) -> bool {
        self.dirty == 0 && self.files.is_empty() && self.queue.is_empty() && self.in_flight == 0
    }
}

impl PageCache {
    /// Page `p` of `file` became dirty in `owner`'s context, which keeps
    /// it until it is written back.
    pub(super) fn file_dirty(&mut self, now: Instant, owner: u32, file: u64, p: u64) {
        let wb = self.wbs.entry(owner).or_default();
        let f = wb.files.entry(file).or_insert_with(|| {
            wb.order.push_back(file);
            File {
                dirty: BTreeSet::new(),
                dirtied_when: now,
                index: 0,
            }
        });
        f.dirty.insert(p);
    }

    /// A throttled writer's chunk: up to `write_chunk` of `owner`'s dirty
    /// pages, file after file in dirtied order, queued for writeback;
    /// returns the pages taken.
    pub(super) fn take_chunk(&mut self, owner: u32) -> u64 {
        let mut left = self.cfg.write_chunk_pages;
        let mut taken = 0;
        let mut tries = self.wbs.get(&owner).map_or(0, |w| w.order.len());
        while left > 0 && tries > 0 {
            tries -= 1;
            let Some(&file) = self.wbs.get(&owner).and_then(|w| w.order.front()) else {
                break;
            };
            let n = self.pass(owner, file, left.min(MAX_WRITEBACK_PAGES));
            taken += n;
            left -= n.min(left);
        }
        taken
    }

    /// One writeback pass over `owner`'s `file`: up to `max` of its dirty
    /// pages from its writeback index on (wrapping), as contiguous runs
    /// queued for writeback. The file goes to the back of the order (or
    /// leaves it once clean). Returns the pages taken.
    pub(super) fn pass(&mut self, owner: u32, file: u64, max: u64) -> u64 {
        // (`owner` is the context; each request names its pages' writer.)
        let Some(wb) = self.wbs.get_mut(&owner) else {
            return 0;
        };
        let Some(f) = wb.files.get_mut(&file) else {
            wb.order.retain(|&x| x != file);
            return 0;
        };
        let picked: Vec<u64> = f
            .dirty
            .range(f.index..)
            .chain(f.dirty.range(..f.index))
            .copied()
            .take(max.min(usize::MAX as u64) as usize)
            .collect();
        for p in &picked {
            f.dirty.remove(p);
        }
        if let Some(&last) = picked.last() {
            f.index = last + 1;
        }
        let clean = f.dirty.is_empty();
        if let Some(pos) = wb.order.iter().position(|&x| x == file) {
            wb.order.remove(pos);
        }
        if clean {
            wb.files.remove(&file);
        } else {
            wb.order.push_back(file);
        }
        let n = picked.len() as u64;
        wb.dirty = wb.dirty.saturating_sub(n);
        wb.writeback += n;
        for &p in &picked {
            if let Some(pg) = self.pages.get_mut(&p) {
                pg.dirty = false;
                pg.writeback = true;
            }
        }
        self.nr_dirty = self.nr_dirty.saturating_sub(n);
        self.nr_writeback += n;
        // Contiguous runs of one writer's pages, each cut at the largest
        // request, in that writer's name.
        let dirtier =
            |pages: &super::PageMap<super::Page>, p: u64| pages.get(&p).map(|pg| pg.owner);
        let mut i = 0;
        while i < picked.len() {
            let start = picked[i];
            let writer = dirtier(&self.pages, start);
            let mut n = 1;
            while i + (n as usize) < picked.len()
                && picked[i + n as usize] == start + n
                && n < self.cfg.max_request_pages
                && dirtier(&self.pages, start + n) == writer
            {
                n += 1;
            }
            let io = self.new_io(start, n, true, writer.unwrap_or(owner), owner);
            if let Some(wb) = self.wbs.get_mut(&owner) {
                wb.queue.push_back(io.id);
            }
            i += n as usize;
        }
        n
    }

    /// `owner`'s flusher's next pass of its own: kupdate's expired files
    /// first, then background writeback while its dirty pages are over
    /// its share of the background threshold (an equal share for each
    /// writer, as for the dirty limit). Returns whether it queued
    /// anything.
    fn flusher_pass(&mut self, owner: u32) -> bool {
        let Some(wb) = self.wbs.get_mut(&owner) else {
            return false;
        };
        if let Some((cutoff, budget)) = wb.kupdate {
            let file = wb
                .order
                .iter()
                .copied()
                .find(|f| wb.files.get(f).is_some_and(|x| x.dirtied_when <= cutoff));
            match file {
                Some(file) if budget > 0 => {
                    let n = self.pass(owner, file, MAX_WRITEBACK_PAGES.min(budget));
                    if let Some(wb) = self.wbs.get_mut(&owner) {
                        wb.kupdate = Some((cutoff, budget.saturating_sub(n.max(1))));
                    }
                    return true;
                }
                _ => wb.kupdate = None,
            }
        }
        let share = self.cfg.background_pages / self.wbs.len().max(1) as u64;
        if self.wbs.get(&owner).is_some_and(|w| w.dirty > share) {
            if let Some(&file) = self.wbs.get(&owner).and_then(|w| w.order.front()) {
                return self.pass(owner, file, MAX_WRITEBACK_PAGES) > 0;
            }
        }
        false
    }

    /// kupdate's wake-up: every context with dirty pages writes back its
    /// files dirtied before `cutoff`, at most as many pages as it has dirty.
    pub(super) fn start_kupdate(&mut self, cutoff: Instant) {
        for wb in self.wbs.values_mut() {
            if wb.dirty > 0 {
                wb.kupdate = Some((cutoff, wb.dirty));
            }
        }
    }

    /// Send each context's queued writeback while it has request slots
    /// free, making more when its queue runs dry; contexts left with
    /// nothing to do are dropped.
    pub(super) fn pump(&mut self) {
        let owners: Vec<u32> = self.wbs.keys().copied().collect();
        for owner in owners {
            self.pump_one(owner);
        }
        self.wbs.retain(|_, w| !w.idle());
    }

    fn pump_one(&mut self, owner: u32) {
        loop {
            let Some(wb) = self.wbs.get_mut(&owner) else {
                return;
            };
            while wb.in_flight < NR_REQUESTS {
                let Some(id) = wb.queue.pop_front() else {
                    break;
                };
                let Some(st) = self.ios.get(&id) else {
                    continue;
                };
                wb.in_flight += 1;
                let io = disk_io(&self.cfg, id, st);
                self.out.push(Out::Io(io));
            }
            if wb.in_flight >= NR_REQUESTS || !self.flusher_pass(owner) {
                return;
            }
        }
    }
}
