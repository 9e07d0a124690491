use super::*;

const MS: u64 = 1_000_000;

/// 16 MiB of memory (4096 pages): background at 409 dirty pages, the
/// limit at 819, a chunk of 192; read-ahead up to 128 KiB; requests up
/// to 512 KiB.
fn cfg() -> Config {
    Config::new(16, 10, 20, Duration::from_secs(30), 128, 512, 1 << 30)
}

fn at(ms: u64) -> Instant {
    Instant::from_nanos(ms * MS)
}

/// An op of `kib` at `kib_offset` in a file of 1 GiB at sector 0.
fn op(token: u64, kib_offset: u64, kib: u32) -> Op {
    Op {
        token,
        sector: kib_offset * 2,
        sectors: kib * 2,
        file_start: 0,
        file_sectors: 2 << 20,
        stream: 7,
    }
}

fn ios(out: &[Out]) -> Vec<Io> {
    out.iter()
        .filter_map(|o| match o {
            Out::Io(io) => Some(*io),
            _ => None,
        })
        .collect()
}

fn done(out: &[Out]) -> Vec<(u64, Instant)> {
    out.iter()
        .filter_map(|o| match *o {
            Out::Done { token, at } => Some((token, at)),
            _ => None,
        })
        .collect()
}

#[test]
fn config_follows_the_kernel_defaults() {
    let c = Config::new(1024, 10, 20, Duration::from_secs(30), 128, 512, 1 << 30);
    assert_eq!(c.memory_pages, 262_144);
    assert_eq!(c.background_pages, 26_214);
    assert_eq!(c.dirty_pages, 52_428);
    // ratelimit_pages capped at 4 MiB: a chunk of 6 MiB.
    assert_eq!(c.write_chunk_pages, 1536);
    assert_eq!(c.read_ahead_pages, 32);
    assert_eq!(c.max_request_pages, 128);
    assert_eq!(cfg().write_chunk_pages, 192);
}

#[test]
fn a_write_under_the_background_threshold_completes_at_memory_speed_without_io() {
    let mut c = PageCache::new(cfg());
    c.write(at(0), op(1, 0, 128));
    let out = c.take();
    assert!(ios(&out).is_empty(), "{out:?}");
    assert_eq!(
        done(&out),
        [(1, at(0) + Duration::from_nanos(32 * COPY_NS_PER_PAGE))]
    );
    assert_eq!(c.dirty(), 32);
}

#[test]
fn the_background_threshold_starts_writeback() {
    let mut c = PageCache::new(cfg());
    // 400 pages: under the 409 of the threshold.
    c.write(at(0), op(1, 0, 1600));
    assert!(ios(&c.take()).is_empty());
    c.write(at(1), op(2, 1600, 64));
    let io = ios(&c.take());
    assert!(
        !io.is_empty(),
        "over the background threshold, writeback starts"
    );
    assert!(io.iter().all(|i| i.write && i.stream == 7));
    // Down to the threshold or below, no further.
    assert!(c.dirty() <= cfg().background_pages);
    assert!(c.dirty() + c.writeback() == 416);
}

#[test]
fn expired_dirty_data_is_written_back_at_the_periodic_wake_up() {
    let mut c = PageCache::new(cfg());
    c.write(at(0), op(1, 0, 64));
    c.take();
    c.kupdate(at(25_000));
    assert!(ios(&c.take()).is_empty(), "not expired after 25 s");
    c.kupdate(at(30_000));
    let io = ios(&c.take());
    assert_eq!(io.len(), 1);
    assert_eq!((io[0].sector, io[0].sectors), (0, 128));
    c.io_done(at(30_010), io[0].id);
    assert_eq!((c.dirty(), c.writeback()), (0, 0));
    assert!(ios(&c.take()).is_empty());
}

#[test]
fn a_writer_over_the_dirty_limit_blocks_until_its_chunk_is_written_back() {
    // No background writeback: the only writeback is the writer's chunk.
    let mut c = PageCache::new(Config {
        background_pages: u64::MAX,
        ..cfg()
    });
    // 800 pages: under the limit of 819.
    c.write(at(0), op(1, 0, 3200));
    let out = c.take();
    assert!(ios(&out).is_empty() && done(&out).len() == 1);
    // 832 pages: over it. The write() blocks and its chunk goes out.
    c.write(at(1), op(2, 3200, 128));
    let out = c.take();
    assert!(done(&out).is_empty(), "blocked: {out:?}");
    let chunk = ios(&out);
    let pages: u64 = chunk.iter().map(|i| u64::from(i.sectors) / 8).sum();
    assert_eq!(pages, cfg().write_chunk_pages);
    assert!(chunk.iter().all(|i| i.write && i.stream == 7));
    // Part of a chunk written: still blocked.
    let (first, rest) = chunk.split_at(1);
    c.io_done(at(2), first[0].id);
    assert!(done(&c.take()).is_empty());
    for io in rest {
        c.io_done(at(3), io.id);
    }
    assert_eq!(
        done(&c.take()),
        [(2, at(3))],
        "released once its chunk is written"
    );
    // Under the limit again: the next write() does not block.
    c.write(at(4), op(3, 3328, 4));
    assert_eq!(done(&c.take()).len(), 1);
}

/// Writes of one writer (one writeback context) share its writeback.
#[test]
fn a_throttled_writer_waits_for_a_chunk_of_its_contexts_writeback() {
    let mut c = PageCache::new(Config {
        background_pages: u64::MAX,
        write_chunk_pages: 4096,
        ..cfg()
    });
    c.write(at(0), op(1, 0, 3200));
    c.write(at(1), op(2, 3200, 128));
    let first = ios(&c.take());
    // All dirty pages are under writeback; a second write() of the
    // writer redirties some of them, finds none to write back, and
    // blocks too.
    c.write(at(2), op(3, 0, 128));
    let out = c.take();
    assert!(ios(&out).is_empty() && done(&out).is_empty());
    // Not yet a chunk (4096 pages) for either.
    let (last, rest) = first.split_last().unwrap();
    for io in rest {
        c.io_done(at(3), io.id);
    }
    assert!(done(&c.take()).is_empty());
    // The last: still not a chunk, but no writeback is left to wait for.
    c.io_done(at(4), last.id);
    assert_eq!(done(&c.take()), [(2, at(4)), (3, at(4))]);
    // The redirtied pages are dirty again, to be written back.
    assert_eq!((c.dirty(), c.writeback()), (32, 0));
}

#[test]
fn writeback_goes_out_in_contiguous_runs_up_to_the_largest_request() {
    let mut c = PageCache::new(Config::new(
        64,
        10,
        20,
        Duration::from_secs(30),
        128,
        1024,
        1 << 30,
    ));
    // 8 MiB of one file, written in 128 KiB pieces.
    for i in 0..64u64 {
        c.write(at(0), op(i, i * 128, 128));
    }
    let io = ios(&c.take());
    assert!(!io.is_empty());
    for w in io.windows(2) {
        if w[1].sector != w[0].sector + u64::from(w[0].sectors) {
            // A pass ends at 1024 pages: the next starts where it ended.
            assert_eq!(w[1].sector % (MAX_WRITEBACK_PAGES * 8), 0, "{w:?}");
        }
    }
    assert!(io.iter().all(|i| i.sectors <= 2048));
    let full = io.iter().filter(|i| i.sectors == 2048).count();
    assert!(full * 10 >= io.len() * 9, "{full} of {} at 1 MiB", io.len());
    // A smaller cap cuts the same runs smaller.
    c.set_max_request_kib(256);
    for i in 64..96u64 {
        c.write(at(1), op(i, i * 128, 128));
    }
    assert!(ios(&c.take()).iter().all(|i| i.sectors <= 512));
}

#[test]
fn the_read_ahead_window_grows_to_read_ahead_kb() {
    let mut c = PageCache::new(cfg());
    let mut sizes = Vec::new();
    for i in 0..64u64 {
        let mut o = op(i, i * 4, 4);
        o.token = i;
        c.read(at(i), o);
        let out = c.take();
        for io in ios(&out) {
            assert!(!io.write && io.stream == 7);
            sizes.push(io.sectors / 8);
            c.io_done(at(i), io.id);
        }
        c.take();
    }
    // The initial window (4 pages for a 1-page read) and the next, then
    // doubling to 32 pages (128 KiB).
    assert_eq!(sizes[..6], [4, 8, 16, 32, 32, 32], "{sizes:?}");
}

#[test]
fn a_random_miss_reads_only_the_request() {
    let mut c = PageCache::new(cfg());
    c.read(at(0), op(1, 4096, 4));
    let io = ios(&c.take());
    assert_eq!(io.len(), 1);
    assert_eq!((io[0].sector, io[0].sectors), (8192, 8));
}

#[test]
fn a_cache_hit_completes_without_io() {
    let mut c = PageCache::new(cfg());
    c.read(at(0), op(1, 0, 128));
    let out = c.take();
    assert!(done(&out).is_empty(), "a miss waits for the disk");
    for io in ios(&out) {
        c.io_done(at(10), io.id);
    }
    assert_eq!(
        done(&c.take()),
        [(1, at(10) + Duration::from_nanos(32 * COPY_NS_PER_PAGE))]
    );
    // Again: in the cache.
    let mut o = op(2, 0, 128);
    o.stream = 8;
    c.read(at(20), o);
    let out = c.take();
    assert!(ios(&out).is_empty(), "{out:?}");
    assert_eq!(done(&out).len(), 1);
    // Written data reads back from the cache too.
    c.write(at(30), op(3, 8192, 16));
    c.take();
    let mut o = op(4, 8192, 16);
    o.stream = 9;
    c.read(at(31), o);
    let out = c.take();
    assert!(ios(&out).is_empty());
    assert_eq!(done(&out)[0].0, 4);
}

#[test]
fn the_cache_keeps_to_its_memory_evicting_the_least_recently_used() {
    let mut c = PageCache::new(cfg());
    // 32 MiB of random reads into 16 MiB.
    for i in 0..256u64 {
        let o = op(i, i * 128 + 64, 128);
        c.read(at(i), o);
        for io in ios(&c.take()) {
            c.io_done(at(i), io.id);
        }
        c.take();
    }
    assert!(c.cached() <= 4096, "{}", c.cached());
    // The latest are there, the first are gone.
    c.read(at(300), op(1000, 255 * 128 + 64, 128));
    assert!(ios(&c.take()).is_empty());
    c.read(at(301), op(1001, 64, 128));
    assert!(!ios(&c.take()).is_empty());
}

#[test]
fn the_flusher_keeps_at_most_nr_requests_in_flight() {
    let mut c = PageCache::new(Config::new(
        1024,
        1,
        50,
        Duration::from_secs(30),
        128,
        4,
        1 << 30,
    ));
    // 40 MiB dirty, 4 KiB requests: far more than 128 requests.
    for i in 0..320u64 {
        c.write(at(0), op(i, i * 128, 128));
    }
    let io = ios(&c.take());
    assert_eq!(io.len(), NR_REQUESTS);
    c.io_done(at(1), io[0].id);
    assert_eq!(ios(&c.take()).len(), 1, "one slot freed, one more sent");
}

/// Random reads, writes, wake-ups and completions in random order, on a
/// small cache: nothing panics, the counts match the pages, the cache
/// keeps to its size when it can, and once the disk has done everything
/// every request has completed exactly once.
#[test]
fn random_traffic_completes_every_request_once_and_keeps_the_books() {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut rnd = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n.max(1)
    };
    let mut c = PageCache::new(Config {
        write_chunk_pages: 24,
        ..Config::new(16, 5, 10, Duration::from_secs(1), 64, 64, 1 << 20)
    });
    let mut pending: Vec<u64> = Vec::new();
    let mut finished = std::collections::BTreeSet::new();
    let mut tokens = 0u64;
    let mut now = 0u64;
    let sweep = |c: &mut PageCache,
                 pending: &mut Vec<u64>,
                 finished: &mut std::collections::BTreeSet<u64>| {
        for o in c.take() {
            match o {
                Out::Io(io) => {
                    assert!(io.sectors > 0 && io.sector + u64::from(io.sectors) <= 1 << 20);
                    pending.push(io.id)
                }
                Out::Done { token, .. } => assert!(finished.insert(token), "{token} twice"),
            }
        }
    };
    for step in 0..6_000 {
        now += rnd(3_000_000);
        let t = Instant::from_nanos(now);
        match rnd(10) {
            0..=2 => {
                tokens += 1;
                let o = Op {
                    token: tokens,
                    sector: rnd(60_000),
                    sectors: 1 + rnd(300) as u32,
                    file_start: 0,
                    file_sectors: 60_000 + 300,
                    stream: rnd(4) as u32,
                };
                c.write(t, o);
            }
            3..=5 => {
                tokens += 1;
                let f = rnd(2) * 30_000;
                let o = Op {
                    token: tokens,
                    sector: f + rnd(29_000),
                    sectors: 1 + rnd(256) as u32,
                    file_start: f,
                    file_sectors: 30_000,
                    stream: 10 + rnd(4) as u32,
                };
                c.read(t, o);
            }
            6 => c.kupdate(t),
            _ => {
                if !pending.is_empty() {
                    let i = rnd(pending.len() as u64) as usize;
                    let id = pending.swap_remove(i);
                    c.io_done(t, id);
                }
            }
        }
        sweep(&mut c, &mut pending, &mut finished);
        if step % 50 != 0 {
            continue;
        }
        let dirty = c.pages.values().filter(|p| p.dirty).count() as u64;
        let wb = c.pages.values().filter(|p| p.writeback).count() as u64;
        assert_eq!((dirty, wb), (c.dirty(), c.writeback()));
        let pinned = c
            .pages
            .values()
            .filter(|p| p.dirty || p.writeback || !p.uptodate)
            .count() as u64;
        assert!(c.cached() <= c.config().memory_pages.max(pinned) + 300);
    }
    // Drain: the disk does everything asked, the flusher wakes up.
    let mut t = now;
    for _ in 0..100_000 {
        t += 5_000_000_000;
        while let Some(id) = pending.pop() {
            c.io_done(Instant::from_nanos(t), id);
            sweep(&mut c, &mut pending, &mut finished);
        }
        c.kupdate(Instant::from_nanos(t));
        sweep(&mut c, &mut pending, &mut finished);
        if pending.is_empty() && c.dirty() == 0 {
            break;
        }
    }
    assert_eq!(
        finished.len() as u64,
        tokens,
        "some request never completed"
    );
    assert_eq!((c.dirty(), c.writeback()), (0, 0));
    assert!(!c.busy());
}

#[test]
fn a_page_read_again_is_kept_over_older_unused_ones() {
    let mut c = PageCache::new(cfg());
    let read = |c: &mut PageCache, token: u64, kib_offset: u64| {
        c.read(at(token), op(token, kib_offset, 128));
        let io = ios(&c.take());
        let missed = !io.is_empty();
        for io in io {
            c.io_done(at(token), io.id);
        }
        c.take();
        missed
    };
    // A, then B, then 118 more 128 KiB regions: 3,840 of 4,096 pages.
    assert!(read(&mut c, 0, 64));
    assert!(read(&mut c, 1, 64 + 256));
    for i in 2..120u64 {
        read(&mut c, i, 64 + 256 * i);
    }
    // A is read again (a hit): now the most recently used.
    assert!(!read(&mut c, 500, 64), "A is cached");
    // 16 more regions force evictions: B goes, A stays.
    for i in 120..136u64 {
        read(&mut c, i, 64 + 256 * i);
    }
    assert!(c.cached() <= 4096, "{}", c.cached());
    assert!(!read(&mut c, 501, 64), "A was used last: kept");
    assert!(
        read(&mut c, 502, 64 + 256),
        "B was the least recently used: evicted"
    );
}

/// Neighbouring pages hash to neighbouring buckets, with tags that differ.
#[test]
fn page_hasher_keeps_neighbours_close_and_tags_apart() {
    use std::hash::{BuildHasher, BuildHasherDefault};
    let h = |n: u64| BuildHasherDefault::<super::PageHasher>::default().hash_one(n);
    assert_eq!(h(1001) & 0xFFFF, (h(1000) & 0xFFFF) + 1);
    // Files a power of two of pages apart do not share buckets.
    let far: std::collections::BTreeSet<u64> =
        (0..8u64).map(|k| h(1000 + (k << 22)) & 0xFFFF).collect();
    assert_eq!(far.len(), 8, "{far:?}");
    let tags: std::collections::BTreeSet<u64> = (0..64).map(|n| h(n) >> 57).collect();
    assert!(tags.len() > 30, "{tags:?}");
}

#[test]
fn write_sync_returns_once_the_files_dirty_pages_are_written() {
    let mut c = PageCache::new(cfg());
    // 100 pages dirtied at memory speed, under the background threshold.
    c.write(at(0), op(1, 0, 400));
    assert!(ios(&c.take()).is_empty());
    // write()+fsync(): 16 more pages, then all 116 go out.
    c.write_sync(at(1), op(2, 400, 64));
    let out = c.take();
    assert!(done(&out).is_empty(), "{out:?}");
    let sent = ios(&out);
    assert_eq!(
        sent.iter().map(|io| u64::from(io.sectors)).sum::<u64>(),
        116 * 8
    );
    assert!(sent.iter().all(|io| io.write));
    for (k, io) in sent.iter().enumerate() {
        c.io_done(at(10 + k as u64), io.id);
        let d = done(&c.take());
        if k + 1 < sent.len() {
            assert!(d.is_empty(), "returned before request {k}");
        } else {
            assert_eq!(d, [(2, at(10 + k as u64))]);
        }
    }
    assert_eq!(c.dirty(), 0);
    // Another file's fsync waits for its own pages only.
    let mut c = PageCache::new(cfg());
    c.write(at(0), op(1, 0, 400));
    c.take();
    let b = Op {
        sector: (4 << 20) + 64,
        file_start: 4 << 20,
        ..op(3, 0, 4)
    };
    c.write_sync(at(1), b);
    let sent = ios(&c.take());
    assert_eq!(sent.len(), 1);
    assert_eq!((sent[0].sector, sent[0].sectors), ((4 << 20) + 64, 8));
    c.io_done(at(5), sent[0].id);
    assert_eq!(done(&c.take()), [(3, at(5))]);
    assert_eq!(c.dirty(), 100);
}

#[test]
fn read_ahead_is_kept_per_file_of_a_reader() {
    // One reader alternating between two files (fio's nrfiles): each
    // file's read-ahead goes on as if the other were not read.
    let mut c = PageCache::new(cfg());
    let a = |token, kib| op(token, kib, 4);
    let b = |token, kib: u64| Op {
        sector: (4 << 21) + kib * 2,
        file_start: 4 << 21,
        ..op(token, 0, 4)
    };
    c.read(at(0), a(1, 0));
    let first = ios(&c.take());
    assert_eq!((first[0].sector, first[0].sectors), (0, 32), "{first:?}");
    c.read(at(1), b(2, 0));
    c.take();
    // A's second page is its read-ahead marker: A's next window opens.
    c.read(at(2), a(3, 4));
    let next = ios(&c.take());
    assert_eq!(
        next.iter()
            .map(|io| (io.sector, io.sectors))
            .collect::<Vec<_>>(),
        [(32, 64)]
    );
}

/// Issue 43, defect 9: writeback is issued in the name of the writer that
/// dirtied the pages (cgroup writeback); a writer with a context of its
/// own has its own requests in flight and an equal share of the dirty
/// limit, and waits, throttled, for its own context's writeback only.
#[test]
fn writeback_is_the_writers_that_dirtied_the_pages() {
    let mut c = PageCache::new(Config {
        background_pages: u64::MAX,
        ..cfg()
    });
    c.own_writeback(1);
    c.own_writeback(2);
    // Writer 1: 400 pages, under the limit of 819 while alone.
    c.write(at(0), of(1, 1, 0, 1600));
    assert_eq!(done(&c.take()).len(), 1);
    // Writer 2: 432 pages in another file. Each has a share of 409: both
    // are over, writer 2 now.
    c.write(at(1), of(2, 2, 1 << 20, 1728));
    let out = c.take();
    assert!(done(&out).is_empty(), "writer 2 blocks: {out:?}");
    let second = ios(&out);
    assert!(!second.is_empty() && second.iter().all(|i| i.write && i.stream == 2));
    // Writer 1 over its share: its own chunk, in its own name.
    c.write(at(2), of(1, 3, 1600, 64));
    let first = ios(&c.take());
    assert!(!first.is_empty() && first.iter().all(|i| i.write && i.stream == 1));
    // Writer 1's writeback releases writer 1 only.
    for io in &first {
        c.io_done(at(3), io.id);
    }
    assert_eq!(done(&c.take()), [(3, at(3))]);
    for io in &second {
        c.io_done(at(4), io.id);
    }
    assert_eq!(done(&c.take()), [(2, at(4))]);
}

/// [`op`] by writer `stream`.
fn of(stream: u32, token: u64, kib_offset: u64, kib: u32) -> Op {
    Op {
        stream,
        ..op(token, kib_offset, kib)
    }
}

/// Writers without a context of their own share the root's (one
/// flusher, as before cgroup writeback), and its requests still name the
/// writer whose pages they carry.
#[test]
fn writers_without_a_context_share_the_roots_in_their_own_names() {
    let mut c = PageCache::new(Config {
        background_pages: u64::MAX,
        ..cfg()
    });
    // 400 + 432 pages: over the whole limit (one context), not before.
    c.write(at(0), of(1, 1, 0, 1600));
    assert_eq!(done(&c.take()).len(), 1);
    c.write(at(1), of(2, 2, 1 << 20, 1728));
    let out = c.take();
    assert!(done(&out).is_empty());
    // The chunk is the oldest file's: writer 1's pages, in its name.
    let chunk = ios(&out);
    assert!(!chunk.is_empty() && chunk.iter().all(|i| i.write && i.stream == 1));
    // Writer 1's pages released writer 2: the root's writeback is shared.
    for io in &chunk {
        c.io_done(at(2), io.id);
    }
    assert_eq!(done(&c.take()), [(2, at(2))]);
}
