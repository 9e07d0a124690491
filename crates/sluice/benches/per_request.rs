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

// `criterion_group!` defines a `pub fn benches` that no doc comment (nor an
// attribute on the macro call) reaches.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};

use sluice::policy::{Params, POLICIES};

mod common;
use common::bench_group;

/// One group per policy, so the ids read `noop/16`, `clook/4096`, ...
fn per_request(c: &mut Criterion) {
    for info in POLICIES {
        bench_group(c, info.name, info.name, &Params::default(), 8, false);
    }
    // The block layer's merge index on top (the simulator's default).
    for name in ["noop", "cfq", "bfq+"] {
        bench_group(
            c,
            &format!("{name}+merge"),
            name,
            &Params::default(),
            8,
            true,
        );
    }
}

criterion_group!(benches, per_request);
criterion_main!(benches);
