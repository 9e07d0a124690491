//! `sluice validate`'s work on DiskSim's ibm18es drive with its trace
//! repeated 5 times (50,000 requests, the yardstick): parsing the
//! drive description, parsing the trace text, the closed-loop replay, and
//! the demerit; and the trace parse and the replay on their own. DiskSim
//! 4.0 built with gcc -O2 takes about 2.3 to 4 s of wall time for the same
//! 50,000 requests on the machines this was written on (`disksim
//! ibm18es.parv out validate trace 0`).
//!
//! Run: `cargo bench -p sluice-sim --bench validate`.

// `criterion_group!` defines a `pub fn benches` that no doc comment (nor an
// attribute on the macro call) reaches.
#![allow(missing_docs)]

use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion};

use sluice_sim::device::{diskspecs, Model};
use sluice_sim::validate::{parse_trace, validate};

fn data(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../sluice-device/data/disksim")
        .join(file)
}

fn bench(c: &mut Criterion) {
    let one = std::fs::read_to_string(data("ibm18es.trace")).unwrap();
    let text = one.repeat(5);
    let spec = data("ibm18es.parv");
    let mut g = c.benchmark_group("validate");
    g.sample_size(20);
    g.bench_function("ibm18es_50k_end_to_end", |b| {
        b.iter(|| {
            let model = Model::Hdd(diskspecs::load(&spec).unwrap());
            let trace = parse_trace("ibm18es x5", &text).unwrap();
            let r = validate("ibm18es", &model, &trace).unwrap();
            assert_eq!(r.requests, 50_000);
            r.demerit_ms
        })
    });
    g.bench_function("ibm18es_50k_parse_trace_only", |b| {
        b.iter(|| parse_trace("ibm18es x5", &text).unwrap().len())
    });
    let model = Model::Hdd(diskspecs::load(&spec).unwrap());
    let trace = parse_trace("ibm18es x5", &text).unwrap();
    g.bench_function("ibm18es_50k_replay_only", |b| {
        b.iter(|| validate("ibm18es", &model, &trace).unwrap().demerit_ms)
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
