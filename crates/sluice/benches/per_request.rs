//! Cost of one request's trip through a policy: `add` + `dispatch` +
//! `complete`, for every policy in `POLICIES`, with 16, 256 and 4096 active
//! flows.
//!
//! Every flow keeps a backlog of 2 queued requests at pseudo-random sectors.
//! One iteration adds a request to the flow whose request was served last
//! (so each flow has 2 queued whenever the policy chooses), dispatches one
//! through the `Driver` (as every host does) to a depth-1 `FlatDevice`, and
//! completes it.
//!
//! Run: `cargo bench -p sluice --bench per_request -- --quick`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

use sluice::policy::{Params, POLICIES};

mod common;
use common::{Bench, BACKLOG, FLOW_COUNTS};

/// One group per policy, so the ids read `noop/16`, `clook/4096`, ...
fn per_request(c: &mut Criterion) {
    for info in POLICIES {
        let mut group = c.benchmark_group(info.name);
        group.throughput(Throughput::Elements(1));
        for flows in FLOW_COUNTS {
            let mut bench = Bench::new(info.name, &Params::default(), flows, 8);
            group.bench_function(BenchmarkId::from_parameter(flows), |b| {
                b.iter(|| black_box(bench.step()))
            });
            // The backlog really stayed put.
            assert_eq!(bench.driver.queued(), (flows * BACKLOG - 1) as usize);
        }
        group.finish();
    }
}

criterion_group!(benches, per_request);
criterion_main!(benches);
