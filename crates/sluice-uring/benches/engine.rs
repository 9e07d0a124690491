//! Per-request CPU cost of the engine: 4 KiB reads of a page-cached file
//! (buffered, so the kernel's part is a page-cache copy), in batches
//! of 256 submitted then run to completion. Criterion's time is per batch:
//! divide by 256 for one request. `raw-io_uring` does the same reads
//! through a bare ring (no policy, no driver) as the floor.
//!
//! The file is in the temporary directory (`TMPDIR`), not on tmpfs: ext4
//! and xfs serve cached buffered reads inline at submission, while tmpfs
//! punts each to an io_uring worker thread, whose wake-ups then dominate.

use std::io::Write;
use std::os::fd::AsRawFd;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use io_uring::{opcode, types, IoUring};
use sluice::{policy, FlowConfig, FlowId};
use sluice_uring::{AlignedBuf, Engine, EngineConfig, Submission, TargetOptions};

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

fn engine(c: &mut Criterion) {
    let file = page_cached_file();
    let mut g = c.benchmark_group("engine");
    g.throughput(Throughput::Elements(BATCH as u64));
    for name in ["noop", "bfq"] {
        for depth in [1, 32] {
            // BFQ idles 8 ms for a sync flow whose queue empties (each batch
            // ends so): off here, to measure CPU and not anticipation.
            let mut params = policy::Params::default();
            if name == "bfq" {
                params.insert("slice_idle_ms", policy::ParamValue::Int(0));
            }
            let p = policy::build(name, &params).unwrap();
            let mut e = match Engine::new(p, EngineConfig::with_queue_depth(depth)) {
                Ok(e) => e,
                Err(e) => {
                    eprintln!("skipped: {e}");
                    return;
                }
            };
            let t = e
                .open_target(file.path(), &TargetOptions::read_only().direct(false))
                .unwrap();
            for f in 0..4 {
                e.add_flow(FlowId(f), &FlowConfig::default()).unwrap();
            }
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
            |b| {
                b.iter(|| {
                    let (mut sent, mut done) = (0, 0);
                    while done < BATCH {
                        while sent < BATCH && sent - done < depth {
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
                })
            },
        );
    }
    g.finish();
}

/// BFQ+ with 4,096 flows, one request each per batch (so every request
/// activates and expires a queue: B-WF2Q+ over 4,096 entities), against
/// the same 4,096 reads through a bare ring at the same depth. The
/// engine's own cost per request is the difference divided by 4,096.
fn many_flows(c: &mut Criterion) {
    const FLOWS: usize = 4096;
    const DEPTH: usize = 32;
    let file = page_cached_file();
    let mut g = c.benchmark_group("engine-4096-flows");
    g.throughput(Throughput::Elements(FLOWS as u64));
    g.sample_size(20);
    let mut params = policy::Params::default();
    params.insert("slice_idle_ms", policy::ParamValue::Int(0));
    let pname = std::env::var("SLUICE_BENCH_POLICY").unwrap_or("bfq+".into());
    let p = policy::build(&pname, &params)
        .unwrap_or_else(|_| policy::build("noop", &Default::default()).unwrap());
    let mut e = match Engine::new(p, EngineConfig::with_queue_depth(DEPTH)) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("skipped: {e}");
            return;
        }
    };
    let t = e
        .open_target(file.path(), &TargetOptions::read_only().direct(false))
        .unwrap();
    for f in 0..FLOWS {
        e.add_flow(FlowId(f as u32), &FlowConfig::default())
            .unwrap();
    }
    let mut bufs: Vec<AlignedBuf> = (0..FLOWS).map(|_| AlignedBuf::zeroed(REQ)).collect();
    g.bench_function("bfq+", |b| {
        b.iter(|| {
            for (i, buf) in bufs.drain(..).enumerate() {
                e.submit(Submission::read(FlowId(i as u32), t, offset(i), buf))
                    .unwrap();
            }
            for c in e.run_until_idle().unwrap() {
                bufs.push(c.buf);
            }
        })
    });
    let mut ring = IoUring::new(DEPTH as u32).unwrap();
    let fd = types::Fd(file.as_file().as_raw_fd());
    g.bench_function("raw-io_uring", |b| {
        b.iter(|| {
            let (mut sent, mut done) = (0, 0);
            while done < FLOWS {
                while sent < FLOWS && sent - done < DEPTH {
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
        })
    });
    g.finish();
}

criterion_group!(benches, engine, many_flows);
criterion_main!(benches);
