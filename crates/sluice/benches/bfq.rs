//! Cost of one request's trip through `bfq+`: `add` + `dispatch` +
//! `complete`, with 16, 256 and 4096 active flows (the pattern of
//! `per_request.rs`, which also covers `bfq` and `bfq+` at defaults).
//!
//! Every flow keeps a backlog of 2 requests of 64 sectors at pseudo-random
//! sectors (so queues are detected as random and never idled for). One
//! iteration adds a request to the flow served last, dispatches one to a
//! depth-1 `FlatDevice` and completes it. Two groups:
//!
//! * `bfq+_steady`: defaults. The flow served last is refilled at once, so a queue
//!   keeps its slot until its budget runs out: most requests cost the
//!   in-slot path, one in about a hundred the expiration and selection.
//! * `bfq+_slot_per_request`: B_max pinned to 64 sectors, so every
//!   dispatch ends a service slot (expiration, budget feedback, B-WF2Q+
//!   requeue and selection among all flows once per request): the worst
//!   case, and the one that shows the O(log n) scaling.
//!
//! Run: `cargo bench -p sluice --bench bfq -- --warm-up-time 1 --measurement-time 2`.

// `criterion_group!` defines a `pub fn benches` that no doc comment (nor an
// attribute on the macro call) reaches.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};

use sluice::policy::{ParamValue, Params};

mod common;
use common::bench_group;

/// Request size: with B_max pinned to it, every dispatch ends a slot.
const SECTORS: u32 = 64;

fn bfq_plus(c: &mut Criterion) {
    let setups: [(&str, Params); 2] = [
        ("bfq+_steady", Params::default()),
        ("bfq+_slot_per_request", {
            let mut p = Params::default();
            p.insert("max_budget", ParamValue::Int(i64::from(SECTORS)));
            p
        }),
    ];
    for (group_name, params) in setups {
        bench_group(c, group_name, "bfq+", &params, SECTORS, false);
    }
}

criterion_group!(benches, bfq_plus);
criterion_main!(benches);
