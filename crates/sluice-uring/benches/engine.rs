//! Per-request CPU cost of the engine: 4 KiB reads of a page-cached file
//! (buffered, so the kernel's part is a page-cache copy), in batches
//! of 256 submitted then run to completion. Criterion's time is per batch:
//! divide by 256 for one request. `raw-io_uring` does the same reads
//! through a bare ring (no policy, no driver) as the floor.
//!
//! The file is in the temporary directory (`TMPDIR`), not on tmpfs: ext4
//! and xfs serve cached buffered reads inline at submission, while tmpfs
//! punts each to an io_uring worker thread, whose wake-ups then dominate.

// `criterion_group!` defines a `pub fn benches` that no doc comment (nor an
// attribute on the macro call) reaches.
#![allow(missing_docs)]

use std::io::Write;
use std::os::fd::AsRawFd;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use io_uring::{opcode, types, IoUring};
use sluice::{policy, FlowConfig, FlowId};
use sluice_uring::{AlignedBuf, Engine, EngineConfig, Submission, TargetId, TargetOptions};

const BATCH: usize = 256;
const REQ: usize = 4096;
const FILE: usize = 4 << 20;

fn page_cached_file() -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(&vec![1u8; FILE]).unwrap();
    f.flush().unwrap();
    f
}

fn offset(i: usize) -> u64 {
    ((i * 7919) % (FILE / REQ) * REQ) as u64
}

/// The floor: `n` reads through a bare ring, `depth` in flight.
fn raw_reads(ring: &mut IoUring, fd: types::Fd, bufs: &mut [AlignedBuf], n: usize, depth: usize) {
    let (mut sent, mut done) = (0, 0);
    while done < n {
        while sent < n && sent - done < depth {
            let buf = &mut bufs[sent];
            let e = opcode::Read::new(fd, buf.as_mut_ptr(), REQ as u32)
                .offset(offset(sent))
                .build()
                .user_data(sent as u64);
            // SAFETY: the buffers outlive the wait below.
            unsafe { ring.submission().push(&e).unwrap() };
            sent += 1;
        }
        ring.submit_and_wait(1).unwrap();
        for c in ring.completion() {
            assert_eq!(c.result(), REQ as i32);
            done += 1;
        }
    }
}

/// An engine running policy `name` at `depth` over the cached file, with
/// `flows` flows; None (after saying so) without io_uring. BFQ's idling is
/// off: every batch ends with its queues empty, and the bench measures CPU,
/// not anticipation.
fn setup(
    name: &str,
    depth: usize,
    file: &tempfile::NamedTempFile,
    flows: u32,
) -> Option<(Engine<Box<dyn sluice::Scheduler>>, TargetId)> {
    let mut params = policy::Params::default();
    if name.starts_with("bfq") {
        params.insert("slice_idle_ms", policy::ParamValue::Int(0));
    }
    let p = policy::build(name, &params).unwrap();
    let mut e = match Engine::new(p, EngineConfig::with_queue_depth(depth)) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("skipped: {e}");
            return None;
        }
    };
    let t = e
        .open_target(file.path(), &TargetOptions::read_only().direct(false))
        .unwrap();
    for f in 0..flows {
        e.add_flow(FlowId(f), &FlowConfig::default()).unwrap();
    }
    Some((e, t))
}

fn engine(c: &mut Criterion) {
    let file = page_cached_file();
    let mut g = c.benchmark_group("engine");
    g.throughput(Throughput::Elements(BATCH as u64));
    for name in ["noop", "bfq"] {
        for depth in [1, 32] {
            let Some((mut e, t)) = setup(name, depth, &file, 4) else {
                return;
            };
            let mut bufs: Vec<AlignedBuf> = (0..BATCH).map(|_| AlignedBuf::zeroed(REQ)).collect();
            g.bench_function(BenchmarkId::new(name, format!("qd{depth}")), |b| {
                b.iter(|| {
                    for (i, buf) in bufs.drain(..).enumerate() {
                        let flow = FlowId((i % 4) as u32);
                        e.submit(Submission::read(flow, t, offset(i), buf)).unwrap();
                    }
                    for c in e.run_until_idle().unwrap() {
                        bufs.push(c.buf);
                    }
                })
            });
        }
    }
    for depth in [1usize, 32] {
        let mut ring = IoUring::new(depth as u32).unwrap();
        let fd = types::Fd(file.as_file().as_raw_fd());
        let mut bufs: Vec<AlignedBuf> = (0..BATCH).map(|_| AlignedBuf::zeroed(REQ)).collect();
        g.bench_function(
            BenchmarkId::new("raw-io_uring", format!("qd{depth}")),
            |b| b.iter(|| raw_reads(&mut ring, fd, &mut bufs, BATCH, depth)),
        );
    }
    g.finish();
}

/// 4,096 flows under `bfq+` (and `noop`), against the same reads through a
/// bare ring at the same depth: the engine's own cost per request is the
/// difference divided by the batch. Two patterns: one request per flow per
/// batch (every request activates a queue, ends its slot and deactivates
/// it: B-WF2Q+ over 4,096 entities each time, the worst case), and four
/// (a queue serves its four, then expires).
fn many_flows(c: &mut Criterion) {
    const FLOWS: usize = 4096;
    const DEPTH: usize = 32;
    let file = page_cached_file();
    let mut g = c.benchmark_group("engine-4096-flows");
    g.sample_size(20);
    for per_flow in [1usize, 4] {
        let batch = FLOWS * per_flow;
        g.throughput(Throughput::Elements(batch as u64));
        let mut bufs: Vec<AlignedBuf> = (0..batch).map(|_| AlignedBuf::zeroed(REQ)).collect();
        for name in ["bfq+", "noop"] {
            let Some((mut e, t)) = setup(name, DEPTH, &file, FLOWS as u32) else {
                return;
            };
            let id = BenchmarkId::new(name, format!("{per_flow}-per-flow"));
            g.bench_function(id, |b| {
                b.iter(|| {
                    for (i, buf) in bufs.drain(..).enumerate() {
                        let flow = FlowId((i % FLOWS) as u32);
                        e.submit(Submission::read(flow, t, offset(i), buf)).unwrap();
                    }
                    for c in e.run_until_idle().unwrap() {
                        bufs.push(c.buf);
                    }
                })
            });
        }
        let mut ring = IoUring::new(DEPTH as u32).unwrap();
        let fd = types::Fd(file.as_file().as_raw_fd());
        let id = BenchmarkId::new("raw-io_uring", format!("{per_flow}-per-flow"));
        g.bench_function(id, |b| {
            b.iter(|| raw_reads(&mut ring, fd, &mut bufs, batch, DEPTH))
        });
    }
    g.finish();
}

criterion_group!(benches, engine, many_flows);
criterion_main!(benches);
