//! The operating system between a buffered flow (`direct = false`) and the
//! disk: a page cache with read-ahead, writeback and dirty throttling,
//! modelled on the Linux 2.6.32–2.6.34 kernels the BFQ papers ran, with
//! writeback charged to its writer as later kernels' cgroup writeback
//! does (so limits and weights hold for buffered writers).
//!
//! [`PageCache`] is a pure state machine: no clock, no I/O. The host hands
//! it application requests ([`PageCache::read`], [`PageCache::write`]),
//! the completions of the disk requests it asked for
//! ([`PageCache::io_done`]) and the flusher's periodic wake-up
//! ([`PageCache::kupdate`]); after each call it drains [`PageCache::take`]:
//! application requests done (at an instant the host schedules) and disk
//! requests to send.
//!
//! What is modelled:
//! - Pages of 4 KiB, keyed by their place on the disk (a file is its
//!   blocks); the cache holds at most `memory_mib` of them, evicting clean
//!   idle pages least recently used first. Dirty pages, pages under
//!   writeback and pages being read are never evicted (the cache may
//!   exceed its size while nothing else is left to evict).
//! - Copying between the application and the cache costs
//!   [`COPY_NS_PER_PAGE`] (about 2 GB/s, a memcpy of the papers' era): a
//!   write() and a cache hit complete that long after they are made.
//! - Buffered writes dirty pages (a partly written page counts as wholly
//!   written: no read-modify-write). Writeback is charged to the writer
//!   that dirtied the pages, as Linux's cgroup writeback (4.2+) charges it
//!   to the dirtying cgroup: its requests carry that writer's stream
//!   ([`Io::stream`]), so a host issues them in the writer's name and its
//!   scheduler serves, weighs and limits them as the writer's. A page
//!   belongs to the writer that last made it dirty. Writeback runs in
//!   contexts (`bdi_writeback`): a writer given one of its own
//!   ([`PageCache::own_writeback`], a cgroup of its own) has its dirty
//!   files, queue and requests in flight to itself; the others share the
//!   root's, one flusher as on the papers' kernels. Each context writes
//!   back per file in runs of up to [`MAX_WRITEBACK_PAGES`] (4 MiB) from
//!   where the file's last pass ended (`writeback_index`, range_cyclic),
//!   files in the order they became dirty; each contiguous run of one
//!   writer's pages goes out as requests of at most the device's maximum
//!   request size. A context keeps at most
//!   [`NR_REQUESTS`] requests in flight (the request queue's default
//!   `nr_requests`; over it the kernel's flusher sleeps in
//!   `get_request_wait`): a writer held back by its limit in a context
//!   of its own does not hold back the others' writeback.
//! - Background writeback: a context writes back while its dirty pages
//!   exceed its share of `dirty_background_ratio` of memory, an equal
//!   share for each context with pages dirty or under writeback
//!   (`over_bground_thresh` with the per-context `wb_bg_thresh`; alone, a
//!   context's share is all of it). The periodic (kupdate) wake-up, every
//!   [`KUPDATE_INTERVAL`] (`dirty_writeback_centisecs` = 500), writes back
//!   each context's files that became dirty more than `dirty_expire_s`
//!   ago (a file's age is the inode's `dirtied_when`: a file dirtied
//!   without a break is written back whole, as the kernel does), at most
//!   as many pages as the context had dirty when it woke.
//! - Dirty throttling as 2.6.32's `balance_dirty_pages`, per context:
//!   after a write() that leaves its context's dirty + writeback pages
//!   over its share of `dirty_ratio` of memory (an equal share, as for the
//!   background threshold: the kernel's `wb_thresh` without its weighting
//!   by recent writeout), the writer queues a chunk of `write_chunk` =
//!   1.5 × `ratelimit_pages` of its context's dirty pages for writeback
//!   (`sync_writeback_pages`; `ratelimit_pages` is memory / 32 pages for
//!   one CPU, between 16 pages and 4 MiB: a chunk of 6 MiB from 128 MiB of
//!   memory up) and its write() returns once a chunk's worth of its
//!   context's writeback has completed after it blocked. So most write()
//!   calls take microseconds and one in every few dozen as long as a
//!   chunk's writeback, and a writer whose writeback is limited is slowed
//!   to its limit. The kernel's writer returns once it has *submitted* its
//!   chunk; counting completions instead keeps the writer from returning
//!   to a limit it is still over (submitting moves pages from dirty to
//!   writeback, which the limit counts alike), which the kernel leaves to
//!   the next calls' short sleeps. Once none of its context's writeback
//!   is left in flight, every throttled writer of the context returns.
//! - Buffered reads: pages in the cache are hits; the others are read
//!   from the disk (synchronous reads of the reader's own scheduler flow,
//!   as read-ahead runs in the reader's context). Read-ahead follows the
//!   on-demand read-ahead of 2.6.23+ (`ondemand_readahead`): a sequential
//!   miss (at the file's start, or just after the stream's previous read)
//!   opens a window sized from the request (`get_init_ra_size`: the
//!   request rounded up to a power of two, ×4 when small, ×2 when
//!   medium, capped at `read_ahead_kb`) with its read-ahead marker
//!   `async_size` pages before its end; a read reaching the marker opens
//!   the next window (`get_next_ra_size`: ×4 when small, else ×2, capped).
//!   Windows stop at the file's end. Other misses read just the request.
//!
//! - A write() followed by fsync() of its file ([`PageCache::write_sync`],
//!   fio's `fsync=N`): the file's dirty pages (whoever dirtied them) go to
//!   the back of their contexts' queues at once, and the call returns
//!   when every writeback request of the file queued or in flight then
//!   has completed. Pages redirtied while under writeback are not waited
//!   for again, and no cache flush is sent to the drive.
//!
//! What is not: dirtyable memory (limits are of all memory), per-device
//! and per-task dirty limits (`bdi_thresh`, `task_dirty_limit`), the
//! weighting of a context's share by its recent writeout, contexts
//! shared by some writers only (a writer has its own or the root's), the
//! ratelimited check (every write() checks, once however long it is),
//! mmap, metadata and journalling, page reclaim writing dirty pages, the
//! readahead thrashing and interleaved-stream detection.

mod readahead;
#[cfg(test)]
mod tests;
mod writeback;

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

use sluice::{Duration, IdMap, Instant};

/// A hasher for page numbers that keeps neighbouring pages in neighbouring
/// buckets: the cache walks files page by page, so its lookups stay in
/// the cache lines the last one loaded (with a mixing hasher each was
/// a miss, most of a long buffered run's time). Only runs of
/// [`HASH_RUN_PAGES`] pages stay together: the runs themselves are
/// scattered by a mixing hash (files a power of two of pages apart, such
/// as fio's `numjobs` copies of a 25g file, otherwise filled the same
/// buckets, and every lookup walked the other files' pages). The top 7
/// bits, the hash map's tag, are mixed from the whole number so a probe
/// still tells pages apart at a glance.
#[derive(Default, Clone, Copy)]
struct PageHasher(u64);

/// The top 7 bits of a hash (the map's tag).
const TAG: u64 = 0x7F << 57;
/// Neighbouring pages hashed to neighbouring buckets (a power of two).
const HASH_RUN_PAGES: u64 = 64;

impl Hasher for PageHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64((self.0 << 8) | u64::from(b));
        }
    }
    fn write_u64(&mut self, n: u64) {
        let shift = HASH_RUN_PAGES.trailing_zeros();
        let run = (n >> shift).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let run = run ^ (run >> 29);
        let place = (n & (HASH_RUN_PAGES - 1)) | (run << shift);
        self.0 = (place & !TAG) | (n.wrapping_mul(0x9E37_79B9_7F4A_7C15) & TAG);
    }
}

/// Pages by number, hashed by [`PageHasher`].
type PageMap<V> = HashMap<u64, V, BuildHasherDefault<PageHasher>>;

/// Sectors per page (4 KiB pages).
pub const PAGE_SECTORS: u64 = 8;
/// Pages the flusher writes of one file per pass (Linux's
/// `MAX_WRITEBACK_PAGES`, 4 MiB).
pub const MAX_WRITEBACK_PAGES: u64 = 1024;
/// The flusher's periodic wake-up (`dirty_writeback_centisecs` = 500).
pub const KUPDATE_INTERVAL: Duration = Duration::from_secs(5);
/// Writeback requests in flight at most (the queue's `nr_requests`).
pub const NR_REQUESTS: usize = 128;
/// Copying one page between an application and the cache (4 KiB at about
/// 2 GB/s).
pub const COPY_NS_PER_PAGE: u64 = 2_000;
/// The writeback context of writers without one of their own (the root
/// cgroup's): no stream has this number.
const ROOT_CONTEXT: u32 = u32::MAX;

/// The page cache's settings, in pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Pages the cache may hold.
    pub memory_pages: u64,
    /// Dirty pages over this start background writeback.
    pub background_pages: u64,
    /// Dirty + writeback pages over this throttle a writer.
    pub dirty_pages: u64,
    /// Age after which dirty data is written back.
    pub expire: Duration,
    /// Largest read-ahead window.
    pub read_ahead_pages: u64,
    /// Largest disk request.
    pub max_request_pages: u64,
    /// A throttled writer's chunk (1.5 × ratelimit_pages).
    pub write_chunk_pages: u64,
    /// The disk's size: no request reaches past it.
    pub capacity_sectors: u64,
}

impl Config {
    /// The settings of an `[os]` table: memory in MiB, the ratios in
    /// percent of memory, read-ahead and the device's largest request in
    /// KiB.
    pub fn new(
        memory_mib: u64,
        background_ratio: u64,
        dirty_ratio: u64,
        expire: Duration,
        read_ahead_kb: u64,
        max_request_kib: u64,
        capacity_sectors: u64,
    ) -> Self {
        let memory_pages = memory_mib.saturating_mul(256).max(1);
        // writeback_set_ratelimit() of 2.6.32 with one CPU.
        let ratelimit = (memory_pages / 32).clamp(16, 1024);
        Config {
            memory_pages,
            background_pages: memory_pages * background_ratio.min(100) / 100,
            dirty_pages: memory_pages * dirty_ratio.min(100) / 100,
            expire,
            read_ahead_pages: (read_ahead_kb / 4).max(1),
            max_request_pages: (max_request_kib / 4).max(1),
            write_chunk_pages: ratelimit + ratelimit / 2,
            capacity_sectors,
        }
    }
}

/// A disk request the cache asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Io {
    /// The cache's name for it, for [`PageCache::io_done`].
    pub id: u64,
    /// First sector.
    pub sector: u64,
    /// Length in sectors.
    pub sectors: u32,
    /// A writeback write (asynchronous), else a read (synchronous).
    pub write: bool,
    /// Whose request it is: the reader whose read it is, or the writer
    /// that dirtied the pages written back (cgroup writeback charges
    /// writeback to the dirtier).
    pub stream: u32,
}

/// What the cache asks of its host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Out {
    /// Application request `token` is done at `at`.
    Done {
        /// The host's name for the request.
        token: u64,
        /// When it completes (never before the call that reports it).
        at: Instant,
    },
    /// Send this request to the disk.
    Io(Io),
}

/// One application request: the host's token, the pages it touches, and
/// the file (first page and end page) they belong to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Op {
    /// The host's name for the request.
    pub token: u64,
    /// First sector and length.
    pub sector: u64,
    /// Length in sectors (at least one).
    pub sectors: u32,
    /// The file's first sector (names the file) and length.
    pub file_start: u64,
    /// Length of the file in sectors.
    pub file_sectors: u64,
    /// The reader (its read-ahead state) or writer.
    pub stream: u32,
}

impl Op {
    fn pages(&self) -> (u64, u64) {
        let first = self.sector / PAGE_SECTORS;
        let end = (self.sector + u64::from(self.sectors.max(1))).div_ceil(PAGE_SECTORS);
        (first, end)
    }

    fn file_pages(&self) -> (u64, u64) {
        let first = self.file_start / PAGE_SECTORS;
        let end = (self.file_start + self.file_sectors).div_ceil(PAGE_SECTORS);
        (first, end.max(first + 1))
    }
}

#[derive(Clone, Copy, Debug)]
struct Page {
    /// The file (its first sector) that dirtied it.
    file: u64,
    /// The writer that last made it dirty: its writeback context holds
    /// it.
    owner: u32,
    /// Its data is in memory (false while it is being read).
    uptodate: bool,
    dirty: bool,
    writeback: bool,
    /// Its place in the LRU list of clean idle pages.
    lru: Option<u64>,
}

#[derive(Clone, Copy, Debug)]
struct IoState {
    first: u64,
    pages: u64,
    write: bool,
    /// The reader, or the writer whose pages it writes back.
    stream: u32,
    /// The writeback context that sent it (writes).
    context: u32,
}

/// A stream's read-ahead state (`file_ra_state`), in pages.
#[derive(Clone, Copy, Debug, Default)]
struct Readahead {
    start: u64,
    size: u64,
    async_size: u64,
    /// The page after the stream's previous read.
    prev_end: Option<u64>,
}

/// A throttled write(): its writer's writeback context, and pages of
/// that context's writeback still to complete before it returns.
#[derive(Clone, Copy, Debug)]
struct Throttled {
    owner: u32,
    owed: u64,
}

/// The page cache and its flusher (see the module's documentation).
pub struct PageCache {
    cfg: Config,
    /// Pages by their place (only looked up one by one: a hash map).
    pages: PageMap<Page>,
    /// Clean idle pages by last use, oldest first: (stamp, page). An entry
    /// whose stamp is no longer its page's is stale and skipped (a use
    /// leaves the old entry behind rather than searching for it).
    lru: VecDeque<(u64, u64)>,
    stamp: u64,
    nr_dirty: u64,
    nr_writeback: u64,
    /// Writeback contexts: one per writer with its own, and the root's.
    wbs: BTreeMap<u32, writeback::Wb>,
    /// Writers with a writeback context of their own.
    own_context: BTreeSet<u32>,
    /// Read-ahead state per (reader, file). This map and the three after
    /// it are looked up by key only, never walked in order: hashed.
    ra: IdMap<(u32, u64), Readahead>,
    next_io: u64,
    ios: IdMap<u64, IoState>,
    /// Reads waiting for pages: token -> (pages missing, pages of the read).
    reads: IdMap<u64, (u64, u64)>,
    /// Page -> the reads waiting for it, in the order they asked.
    waiters: PageMap<Vec<u64>>,
    /// Throttled write() calls, by token.
    throttled: BTreeMap<u64, Throttled>,
    /// write()+fsync() calls, by token: the writeback requests each still
    /// waits for.
    syncs: BTreeMap<u64, BTreeSet<u64>>,
    out: Vec<Out>,
}

/// Page `p` was used: it leaves the LRU list, and joins its back (a new
/// stamp; the old entry goes stale) if it is clean, idle and read. True
/// when it joined (the list may want compacting). A function of the
/// fields, not of the cache, so a caller holding the page from its one
/// lookup can use it.
fn lru_use(pg: &mut Page, p: u64, stamp: &mut u64, lru: &mut VecDeque<(u64, u64)>) -> bool {
    pg.lru = None;
    if pg.uptodate && !pg.dirty && !pg.writeback {
        *stamp += 1;
        pg.lru = Some(*stamp);
        lru.push_back((*stamp, p));
        return true;
    }
    false
}

fn copy_cost(pages: u64) -> Duration {
    Duration::from_nanos(pages.saturating_mul(COPY_NS_PER_PAGE))
}

impl PageCache {
    /// An empty cache.
    pub fn new(cfg: Config) -> Self {
        PageCache {
            cfg,
            pages: PageMap::default(),
            lru: VecDeque::new(),
            stamp: 0,
            nr_dirty: 0,
            nr_writeback: 0,
            wbs: BTreeMap::new(),
            own_context: BTreeSet::new(),
            ra: IdMap::default(),
            next_io: 0,
            ios: IdMap::default(),
            reads: IdMap::default(),
            waiters: PageMap::default(),
            throttled: BTreeMap::new(),
            syncs: BTreeMap::new(),
            out: Vec::new(),
        }
    }

    /// The settings.
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// Point the cache at a new largest disk request (pages queued before
    /// keep their size).
    pub fn set_max_request_kib(&mut self, kib: u64) {
        self.cfg.max_request_pages = (kib / 4).max(1);
    }

    /// Give writer `stream` a writeback context of its own (a cgroup of
    /// its own: a host does so for a flow with its own weight, limits or
    /// group); other writers share the root's, as every writer did on the
    /// kernels before cgroup writeback. Call it before the writer writes.
    pub fn own_writeback(&mut self, stream: u32) {
        self.own_context.insert(stream);
    }

    /// The writeback context of writer `stream`.
    fn context_of(&self, stream: u32) -> u32 {
        if self.own_context.contains(&stream) {
            stream
        } else {
            ROOT_CONTEXT
        }
    }

    /// Dirty pages (including those redirtied under writeback).
    pub fn dirty(&self) -> u64 {
        self.nr_dirty
    }

    /// Pages under writeback.
    pub fn writeback(&self) -> u64 {
        self.nr_writeback
    }

    /// Pages in the cache.
    pub fn cached(&self) -> u64 {
        self.pages.len() as u64
    }

    /// What the cache asks of its host since the last call.
    pub fn take(&mut self) -> Vec<Out> {
        std::mem::take(&mut self.out)
    }

    /// A buffered write(): dirty its pages; it completes at memory speed,
    /// or, over the dirty limit, once a chunk of its writer's writeback
    /// has been written.
    pub fn write(&mut self, now: Instant, op: Op) {
        let (first, end) = op.pages();
        for p in first..end {
            self.dirty_page(now, p, op.file_start, op.stream);
        }
        let context = self.context_of(op.stream);
        if self.over_dirty_share(context) {
            self.take_chunk(context);
        }
        let own_writeback = self.wbs.get(&context).map_or(0, |w| w.writeback);
        if self.over_dirty_share(context) && own_writeback > 0 {
            let throttled = Throttled {
                owner: context,
                owed: self.cfg.write_chunk_pages,
            };
            self.throttled.insert(op.token, throttled);
        } else {
            self.out.push(Out::Done {
                token: op.token,
                at: now + copy_cost(end - first),
            });
        }
        self.pump();
        self.evict();
    }

    /// Whether context `owner`'s dirty and writeback pages are over its
    /// share of the dirty limit: an equal share for each context with
    /// pages dirty or under writeback (the kernel's `wb_thresh`, without
    /// its weighting by recent writeout), all of it for one alone.
    fn over_dirty_share(&self, owner: u32) -> bool {
        let Some(wb) = self.wbs.get(&owner) else {
            return false;
        };
        let share = self.cfg.dirty_pages / self.wbs.len().max(1) as u64;
        wb.dirty + wb.writeback > share
    }

    /// A buffered write() and then fsync() of its file: its pages are
    /// dirtied, every dirty page of the file is queued for writeback, and
    /// the call completes once the file's writeback requests (queued or
    /// in flight at that moment) have all completed (at memory speed if
    /// there are none).
    pub fn write_sync(&mut self, now: Instant, op: Op) {
        let (first, end) = op.pages();
        for p in first..end {
            self.dirty_page(now, p, op.file_start, op.stream);
        }
        // Every context's dirty pages of the file (fsync writes the
        // inode's, whoever dirtied them).
        let owners: Vec<u32> = self.wbs.keys().copied().collect();
        for owner in owners {
            self.pass(owner, op.file_start, u64::MAX);
        }
        let (file_first, file_end) = op.file_pages();
        let waits: BTreeSet<u64> = self
            .ios
            .iter()
            .filter(|(_, io)| io.write && io.first < file_end && io.first + io.pages > file_first)
            .map(|(&id, _)| id)
            .collect();
        if waits.is_empty() {
            self.out.push(Out::Done {
                token: op.token,
                at: now + copy_cost(end - first),
            });
        } else {
            self.syncs.insert(op.token, waits);
        }
        self.pump();
        self.evict();
    }

    /// The disk completed request `id`. Unknown ids are ignored.
    pub fn io_done(&mut self, now: Instant, id: u64) {
        let Some(io) = self.ios.remove(&id) else {
            return;
        };
        if io.write {
            let owner = io.context;
            if let Some(wb) = self.wbs.get_mut(&owner) {
                wb.in_flight = wb.in_flight.saturating_sub(1);
            }
            for p in io.first..io.first + io.pages {
                self.end_writeback(now, owner, p);
            }
            // The context's throttled writers count the pages written
            // back.
            let mut released = Vec::new();
            for (&t, w) in &mut self.throttled {
                if w.owner == owner {
                    w.owed = w.owed.saturating_sub(io.pages);
                    if w.owed == 0 {
                        released.push(t);
                    }
                }
            }
            self.pump();
            if self.wbs.get(&owner).is_none_or(|w| w.in_flight == 0) {
                // None of its writeback left to wait for: none of its
                // writers is held.
                released = self
                    .throttled
                    .iter()
                    .filter(|(_, w)| w.owner == owner)
                    .map(|(&t, _)| t)
                    .collect();
            }
            for t in released {
                self.throttled.remove(&t);
                self.out.push(Out::Done { token: t, at: now });
            }
            // An fsync() returns once its file's last request is done.
            let synced: Vec<u64> = self
                .syncs
                .iter_mut()
                .filter_map(|(&t, w)| (w.remove(&id) && w.is_empty()).then_some(t))
                .collect();
            for t in synced {
                self.syncs.remove(&t);
                self.out.push(Out::Done { token: t, at: now });
            }
        } else {
            for p in io.first..io.first + io.pages {
                self.end_read(now, p);
            }
        }
        self.evict();
    }

    /// The flusher's periodic wake-up: write back what has been dirty for
    /// longer than `dirty_expire_s`. Call it every [`KUPDATE_INTERVAL`].
    pub fn kupdate(&mut self, now: Instant) {
        // Nothing can have expired before `expire` has passed.
        let cutoff = now.checked_duration_since(Instant::ZERO + self.cfg.expire);
        if cutoff.is_some() && self.nr_dirty > 0 {
            self.start_kupdate(now.saturating_sub(self.cfg.expire));
        }
        self.pump();
    }

    /// Whether anything waits for the disk or the flusher (for tests).
    pub fn busy(&self) -> bool {
        !self.ios.is_empty() || self.wbs.values().any(|w| !w.queue.is_empty())
    }

    // ------------------------------------------------------------ pages

    fn touch(&mut self, p: u64) {
        if let Some(pg) = self.pages.get_mut(&p) {
            if lru_use(pg, p, &mut self.stamp, &mut self.lru) {
                self.compact_lru();
            }
        }
    }

    fn dirty_page(&mut self, now: Instant, p: u64, file: u64, owner: u32) {
        let pg = self.pages.entry(p).or_insert(Page {
            file,
            owner,
            uptodate: true,
            dirty: false,
            writeback: false,
            lru: None,
        });
        pg.lru = None;
        if pg.dirty {
            return;
        }
        pg.dirty = true;
        pg.file = file;
        pg.owner = owner;
        let writeback = pg.writeback;
        self.nr_dirty += 1;
        let context = self.context_of(owner);
        self.wbs.entry(context).or_default().dirty += 1;
        if !writeback {
            self.file_dirty(now, context, file, p);
        }
    }

    /// Page `p`, written back by context `owner`, is done.
    fn end_writeback(&mut self, now: Instant, owner: u32, p: u64) {
        let Some(pg) = self.pages.get_mut(&p) else {
            return;
        };
        if !pg.writeback {
            return;
        }
        pg.writeback = false;
        self.nr_writeback = self.nr_writeback.saturating_sub(1);
        if let Some(wb) = self.wbs.get_mut(&owner) {
            wb.writeback = wb.writeback.saturating_sub(1);
        }
        if pg.dirty {
            // Redirtied during writeback: its file is dirty again (as of
            // now, unless it still is) in its new dirtier's context.
            let (file, dirtier) = (pg.file, pg.owner);
            self.file_dirty(now, self.context_of(dirtier), file, p);
        } else {
            self.touch(p);
        }
    }

    fn end_read(&mut self, now: Instant, p: u64) {
        // One lookup for both: the page is read, and used.
        if let Some(pg) = self.pages.get_mut(&p) {
            pg.uptodate = true;
            if lru_use(pg, p, &mut self.stamp, &mut self.lru) {
                self.compact_lru();
            }
        }
        // Read-ahead pages mostly have no reader waiting: skip the lookup.
        if self.waiters.is_empty() {
            return;
        }
        for t in self.waiters.remove(&p).unwrap_or_default() {
            if let Some(r) = self.reads.get_mut(&t) {
                r.0 = r.0.saturating_sub(1);
                if r.0 == 0 {
                    let pages = r.1;
                    self.reads.remove(&t);
                    self.out.push(Out::Done {
                        token: t,
                        at: now + copy_cost(pages),
                    });
                }
            }
        }
    }

    /// Evict clean idle pages, least recently used first, down to the
    /// cache's size.
    fn evict(&mut self) {
        while self.pages.len() as u64 > self.cfg.memory_pages {
            let Some((s, p)) = self.lru.pop_front() else {
                break;
            };
            if let Entry::Occupied(pg) = self.pages.entry(p) {
                if pg.get().lru == Some(s) {
                    pg.remove();
                }
            }
        }
    }

    /// Drop the stale entries of the LRU list once they outnumber the
    /// pages (amortised: each entry is dropped once).
    fn compact_lru(&mut self) {
        if self.lru.len() > 2 * self.pages.len() + 64 {
            let pages = &self.pages;
            self.lru
                .retain(|&(s, p)| pages.get(&p).is_some_and(|pg| pg.lru == Some(s)));
        }
    }

    // ------------------------------------------------------------ disk requests

    /// A new disk request of `pages` from page `first`, for `stream`,
    /// sent by writeback `context` (writes).
    fn new_io(&mut self, first: u64, pages: u64, write: bool, stream: u32, context: u32) -> Io {
        let id = self.next_io;
        self.next_io += 1;
        let st = IoState {
            first,
            pages,
            write,
            stream,
            context,
        };
        self.ios.insert(id, st);
        disk_io(&self.cfg, id, &st)
    }
}

/// Request `id` as the disk sees it: cut at the disk's end, at least a
/// sector.
fn disk_io(cfg: &Config, id: u64, st: &IoState) -> Io {
    let sector = st.first * PAGE_SECTORS;
    let sectors = (st.pages * PAGE_SECTORS)
        .min(cfg.capacity_sectors.saturating_sub(sector))
        .max(1);
    Io {
        id,
        sector,
        sectors: sectors.min(u64::from(u32::MAX)) as u32,
        write: st.write,
        stream: st.stream,
    }
}
