//! Buffered reads: cache hits, misses, and the on-demand read-ahead of
//! 2.6.23+ (`ondemand_readahead`) that sizes and opens the windows.

use sluice::Instant;

use std::collections::hash_map::Entry;

use super::{copy_cost, lru_use, Op, Out, Page, PageCache, Readahead};

/// `get_init_ra_size`: the first window of a sequential stream.
fn init_ra_size(req: u64, max: u64) -> u64 {
    let size = req.max(1).checked_next_power_of_two().unwrap_or(u64::MAX);
    if size <= max / 32 {
        size * 4
    } else if size <= max / 4 {
        size * 2
    } else {
        max
    }
    .min(max)
}

/// `get_next_ra_size`: the window after one of `cur` pages.
fn next_ra_size(cur: u64, max: u64) -> u64 {
    if cur < max / 16 { cur * 4 } else { cur * 2 }.min(max)
}

impl PageCache {
    /// A buffered read(): hits complete at memory speed; misses wait for
    /// the disk, with read-ahead on sequential streams.
    pub fn read(&mut self, now: Instant, op: Op) {
        let (first, end) = op.pages();
        let (file_first, file_end) = op.file_pages();
        let max = self.cfg.read_ahead_pages;
        // A reader's state per file it reads (Linux's file_ra_state is
        // per open file).
        let key = (op.stream, op.file_start);
        let mut ra = self.ra.get(&key).copied().unwrap_or_default();
        let sequential = first == file_first || ra.prev_end == Some(first);
        let miss = !self.pages.contains_key(&first);
        if miss {
            if sequential {
                // Initial read-ahead: a window from the request's size.
                let req = end - first;
                ra.start = first;
                ra.size = init_ra_size(req, max).max(req);
                ra.async_size = if ra.size > req {
                    ra.size - req
                } else {
                    ra.size
                };
                self.read_window(op.stream, ra.start, ra.size, file_end);
            } else {
                ra = Readahead::default();
            }
        }
        if ra.size > 0 {
            let marker = ra.start + ra.size - ra.async_size;
            if (first..end).contains(&marker) {
                // The read-ahead marker: open the next window.
                ra.start += ra.size;
                ra.size = next_ra_size(ra.size, max);
                ra.async_size = ra.size;
                self.read_window(op.stream, ra.start, ra.size, file_end);
            }
        }
        ra.prev_end = Some(end);
        self.ra.insert(key, ra);
        // What read-ahead did not bring: just the request.
        self.read_missing(op.stream, first, end);
        let mut missing = 0;
        for p in first..end {
            // One lookup: a page in memory is used, another waited for.
            let hit = match self.pages.get_mut(&p) {
                Some(pg) if pg.uptodate => {
                    if lru_use(pg, p, &mut self.stamp, &mut self.lru) {
                        self.compact_lru();
                    }
                    true
                }
                _ => false,
            };
            if !hit {
                missing += 1;
                self.waiters.entry(p).or_default().push(op.token);
            }
        }
        if missing == 0 {
            self.out.push(Out::Done {
                token: op.token,
                at: now + copy_cost(end - first),
            });
        } else {
            self.reads.insert(op.token, (missing, end - first));
        }
        self.evict();
    }

    /// Read the pages of `[start, start + size)` not in the cache, within
    /// the file.
    fn read_window(&mut self, stream: u32, start: u64, size: u64, file_end: u64) {
        let end = start.saturating_add(size).min(file_end);
        self.read_missing(stream, start, end);
    }

    /// Read every page of `[first, end)` not in the cache, in contiguous
    /// runs of at most the largest request.
    fn read_missing(&mut self, stream: u32, first: u64, end: u64) {
        let mut run: Option<(u64, u64)> = None;
        for p in first..end {
            // One lookup: a page not in the cache is added, being read.
            let cached = match self.pages.entry(p) {
                Entry::Occupied(_) => true,
                Entry::Vacant(v) => {
                    v.insert(Page {
                        file: 0,
                        owner: 0,
                        uptodate: false,
                        dirty: false,
                        writeback: false,
                        lru: None,
                    });
                    false
                }
            };
            if cached {
                if let Some((s, n)) = run.take() {
                    self.send_read(stream, s, n);
                }
                continue;
            }
            run = match run {
                Some((s, n)) if n < self.cfg.max_request_pages => Some((s, n + 1)),
                Some((s, n)) => {
                    self.send_read(stream, s, n);
                    Some((p, 1))
                }
                None => Some((p, 1)),
            };
        }
        if let Some((s, n)) = run {
            self.send_read(stream, s, n);
        }
    }

    fn send_read(&mut self, stream: u32, first: u64, pages: u64) {
        let io = self.new_io(first, pages, false, stream, stream);
        self.out.push(Out::Io(io));
    }
}
