//! Nam–Park's DOR: what one request costs (add + dispatch + complete,
//! each sequence's BQS selection and DOR walk shared out over its
//! requests) with 16, 256 and 4096 requests queued in two reservation
//! queues, on a device whose seek time is concave in the distance. The
//! default search walks each queue's sector index (O(log n) a gap);
//! `oldest_first` scans every queued request (O(n) a gap).

// `criterion_group!` defines a `pub fn benches` that no doc comment (nor an
// outer attribute) can reach.
#![allow(missing_docs)]

// The shared harness; this bench uses its `Bench::on` only.
#[allow(dead_code)]
mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

use sluice::policy::{ParamValue, Params};
use sluice::{CostModel, DeviceView, Duration, Instant};

use common::Bench;

/// Requests queued in all, across the two queues.
const QUEUED: [u32; 3] = [16, 256, 4096];

/// A drive-like seek curve: 1 ms plus 10 ms times the square root of the
/// share of the 2^30-sector span crossed (11 ms full stroke).
struct ConcaveSeek {
    head: u64,
}

impl CostModel for ConcaveSeek {
    fn capacity(&self) -> u64 {
        1 << 30
    }
    fn seek_time(&self, from: u64, to: u64) -> Duration {
        if from == to {
            return Duration::ZERO;
        }
        let share = from.abs_diff(to) as f64 / (1u64 << 30) as f64;
        Duration::from_nanos(1_000_000 + (10_000_000.0 * share.sqrt()) as u64)
    }
    fn positioning_time(&self, _now: Instant, from: u64, to: u64) -> Duration {
        self.seek_time(from, to)
    }
    fn full_stroke_seek(&self) -> Duration {
        self.seek_time(0, self.capacity())
    }
}

impl DeviceView for ConcaveSeek {
    fn in_flight(&self) -> usize {
        0
    }
    fn queue_depth(&self) -> usize {
        1
    }
    fn head(&self) -> u64 {
        self.head
    }
}

fn dor(c: &mut Criterion) {
    for (name, oldest_first) in [("dor_queued", false), ("dor_queued oldest_first", true)] {
        let mut params = Params::default();
        params.insert("oldest_first", ParamValue::Bool(oldest_first));
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Elements(1));
        for queued in QUEUED {
            let dev = ConcaveSeek { head: 0 };
            let mut bench = Bench::on(dev, "dor", &params, 2, queued / 2, 8, false);
            group.bench_function(BenchmarkId::from_parameter(queued), |b| {
                b.iter(|| black_box(bench.step()))
            });
            assert_eq!(bench.driver.queued(), (queued - 1) as usize);
        }
        group.finish();
    }
}

criterion_group!(benches, dor);
criterion_main!(benches);
