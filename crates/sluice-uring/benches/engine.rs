//! Per-request CPU cost of the engine: 4 KiB reads of a page-cached file
//! (buffered, so the kernel's part is a page-cache copy), in batches
//! submitted then run to completion. Criterion's throughput is in
//! requests. `raw-io_uring` does the same reads through a bare ring (no
//! policy, no driver) as the floor. The reads are `common`'s, which the
//! `overhead` example times too.

// `criterion_group!` defines a `pub fn benches` that no doc comment (nor an
// attribute on the macro call) reaches.
#![allow(missing_docs)]

use std::collections::BTreeMap;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use io_uring::{types, IoUring};
use sluice_uring::{AlignedBuf, Engine, TargetId};

mod common;
use common::{bare_reads, engine_reads, page_cached_file, REQ};

const BATCH: usize = 256;

/// `common::engine`, or None (after saying so) without io_uring.
fn setup(
    name: &str,
    depth: usize,
    file: &tempfile::NamedTempFile,
    flows: u32,
) -> Option<(Engine, TargetId)> {
    match common::engine(name, depth, file.path(), flows) {
        Ok(et) => Some(et),
        Err(sluice_uring::Error::Unavailable(e)) => {
            eprintln!("skipped: {e}");
            None
        }
        Err(e) => panic!("{name}: {e}"),
    }
}

fn engine(c: &mut Criterion) {
    let file = page_cached_file().unwrap();
    let mut g = c.benchmark_group("engine");
    g.throughput(Throughput::Elements(BATCH as u64));
    for name in ["noop", "bfq"] {
        for depth in [1, 32] {
            let Some((mut e, t)) = setup(name, depth, &file, 4) else {
                return;
            };
            let mut bufs: Vec<AlignedBuf> = (0..BATCH).map(|_| AlignedBuf::zeroed(REQ)).collect();
            g.bench_function(BenchmarkId::new(name, format!("qd{depth}")), |b| {
                b.iter(|| engine_reads(&mut e, t, &mut bufs, 4).unwrap())
            });
        }
    }
    for depth in [1usize, 32] {
        let mut ring = IoUring::new(depth as u32).unwrap();
        let fd = types::Fd(file.as_file().as_raw_fd());
        let mut bufs: Vec<AlignedBuf> = (0..BATCH).map(|_| AlignedBuf::zeroed(REQ)).collect();
        g.bench_function(
            BenchmarkId::new("raw-io_uring", format!("qd{depth}")),
            |b| b.iter(|| bare_reads(&mut ring, fd, &mut bufs, depth).unwrap()),
        );
    }
    g.finish();
}

/// 4,096 flows under `bfq+` (and `noop`), against the same reads through a
/// bare ring at the same depth: the engine's own cost per request is the
/// difference. Two patterns: one request per flow per batch (every request
/// activates a queue, ends its slot and deactivates it: B-WF2Q+ over 4,096
/// entities each time, the worst case), and four (a queue serves its four,
/// then expires). The engine and the ring are timed minutes apart here;
/// `examples/overhead.rs` times them side by side. After each pattern the
/// bench prints the ring's own cost per request and each engine's cost over
/// it (medians of the samples it timed).
fn many_flows(c: &mut Criterion) {
    const FLOWS: usize = 4096;
    const DEPTH: usize = 32;
    let file = page_cached_file().unwrap();
    let mut g = c.benchmark_group("engine-4096-flows");
    g.sample_size(20);
    for per_flow in [1usize, 4] {
        let batch = FLOWS * per_flow;
        g.throughput(Throughput::Elements(batch as u64));
        let mut bufs: Vec<AlignedBuf> = (0..batch).map(|_| AlignedBuf::zeroed(REQ)).collect();
        let mut times: BTreeMap<&str, Vec<Duration>> = BTreeMap::new();
        for name in ["bfq+", "noop"] {
            let Some((mut e, t)) = setup(name, DEPTH, &file, FLOWS as u32) else {
                return;
            };
            let id = BenchmarkId::new(name, format!("{per_flow}-per-flow"));
            let samples = times.entry(name).or_default();
            g.bench_function(id, |b| {
                b.iter_custom(|iters| {
                    timed(samples, iters, || {
                        engine_reads(&mut e, t, &mut bufs, FLOWS).unwrap()
                    })
                })
            });
        }
        let mut ring = IoUring::new(DEPTH as u32).unwrap();
        let fd = types::Fd(file.as_file().as_raw_fd());
        let id = BenchmarkId::new(RAW, format!("{per_flow}-per-flow"));
        let samples = times.entry(RAW).or_default();
        g.bench_function(id, |b| {
            b.iter_custom(|iters| {
                timed(samples, iters, || {
                    bare_reads(&mut ring, fd, &mut bufs, DEPTH).unwrap()
                })
            })
        });
        print_overheads(per_flow, batch, &mut times);
    }
    g.finish();
}

/// The bare ring's name in the benchmark ids.
const RAW: &str = "raw-io_uring";

/// What `Bencher::iter` measures (`iters` runs of `f` back to back), also
/// kept in `samples` as the time of one run.
fn timed(samples: &mut Vec<Duration>, iters: u64, mut f: impl FnMut()) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        f();
    }
    let took = start.elapsed();
    if iters > 0 {
        samples.push(took / u32::try_from(iters).unwrap_or(u32::MAX));
    }
    took
}

/// The median of `d` (None when empty).
fn median(d: &mut [Duration]) -> Option<Duration> {
    d.sort();
    d.get(d.len() / 2).copied()
}

/// The ring's own cost per request and each engine's over it, from the
/// batches of `requests` timed (those the filter ran), then forget them.
fn print_overheads(per_flow: usize, requests: usize, times: &mut BTreeMap<&str, Vec<Duration>>) {
    let per_request = |d: Duration| d.as_secs_f64() * 1e9 / requests as f64;
    let raw = times.get_mut(RAW).and_then(|d| median(d)).map(per_request);
    for (name, d) in times.iter_mut().filter(|(n, _)| **n != RAW) {
        let Some(engine) = median(d).map(per_request) else {
            continue;
        };
        match raw {
            Some(raw) => println!(
                "{per_flow} per flow: ring {raw:.0} ns/request, {name} {:+.0} ns/request over it ({:+.1}% of the ring)",
                engine - raw,
                (engine - raw) / raw * 100.0
            ),
            None => println!("{per_flow} per flow: {name} {engine:.0} ns/request (ring not run)"),
        }
    }
    times.clear();
}

criterion_group!(benches, engine, many_flows);
criterion_main!(benches);
