//! Trace flows through the whole simulator: every traced request is issued
//! and counted (the flow ending does not cut the count), recorded timing is
//! open loop, and afap keeps `outstanding` in flight.

use std::path::{Path, PathBuf};

use sluice_runtime::{Scenario, SimReport};
use sluice_sim::simulate;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../data/traces")
        .join(name)
}

/// A scenario of one trace flow, plus `extra` flow tables.
fn scenario(path: &Path, format: &str, timing: &str, outstanding: u32, extra: &str) -> Scenario {
    let text = format!(
        "name = \"t\"\nseed = 1\nduration_s = 20\nwarmup_s = 0\n\
         [device]\npreset = \"maxtor-stm332061\"\n[scheduler]\nname = \"bfq\"\n\
         [[flow]]\nname = \"t\"\npattern = \"trace\"\ntrace = \"{}\"\nformat = \"{format}\"\n\
         timing = \"{timing}\"\noutstanding = {outstanding}\n{extra}",
        path.display()
    );
    Scenario::parse("t.toml", &text).unwrap_or_else(|e| panic!("{e}"))
}

fn run(path: &Path, format: &str, timing: &str, outstanding: u32, extra: &str) -> SimReport {
    simulate(&scenario(path, format, timing, outstanding, extra)).unwrap_or_else(|e| panic!("{e}"))
}

/// A trace written for one test, removed when dropped.
struct TempTrace(PathBuf);

impl TempTrace {
    fn new(name: &str, text: &str) -> Self {
        let p = std::env::temp_dir().join(format!("sluice-{}-{name}", std::process::id()));
        std::fs::write(&p, text).unwrap();
        TempTrace(p)
    }
}

impl Drop for TempTrace {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// MSR lines: `n` 4 KiB reads spread over 400 MB, `gap_ticks` (100 ns)
/// apart.
fn msr(n: u64, gap_ticks: u64) -> String {
    (0..n)
        .map(|i| {
            format!(
                "{},hm,1,Read,{},4096,100\n",
                128_166_372_003_061_629 + gap_ticks * i,
                4096 * (i * 7919 % 100_000)
            )
        })
        .collect()
}

#[test]
fn every_fixture_replays_every_request_in_either_timing() {
    for (file, format, n) in [
        ("app.blkparse", "blkparse", 6),
        ("fio-randrw.iolog", "fio-iolog", 24),
        ("hm_0-sample.csv", "msr", 10),
        ("financial-sample.spc", "spc", 10),
        ("ibm18es-head.disksim", "disksim", 12),
    ] {
        for timing in ["afap", "recorded"] {
            let r = run(&fixture(file), format, timing, 4, "");
            assert_eq!(r.aggregate.requests, n, "{file} {timing}");
            assert_eq!(r.flows[0].requests, n, "{file} {timing}");
            assert!(r.flows[0].done_s.is_some(), "{file} {timing}: not done");
        }
    }
}

#[test]
fn a_finished_trace_keeps_its_count_beside_an_endless_flow() {
    let t = TempTrace::new("beside.csv", &msr(250, 10_000));
    let r = run(
        &t.0,
        "msr",
        "afap",
        4,
        "[[flow]]\nname = \"g\"\npattern = \"rand-read\"\nfile_gib = 1\n",
    );
    assert_eq!(r.flows[0].requests, 250);
    assert!(r.flows[0].done_s.is_some());
    assert!(r.flows[1].requests > 0 && r.flows[1].done_s.is_none());
}

#[test]
fn recorded_timing_waits_for_arrivals_and_afap_does_not() {
    // Ten reads 100 ms apart: replayed at their times the flow lasts the
    // trace's 0.9 s; as fast as possible, ten random reads' worth.
    let t = TempTrace::new("sparse.csv", &msr(10, 1_000_000));
    let recorded = run(&t.0, "msr", "recorded", 1, "").flows[0].done_s.unwrap();
    let afap = run(&t.0, "msr", "afap", 1, "").flows[0].done_s.unwrap();
    assert!((0.9..1.0).contains(&recorded), "recorded: {recorded} s");
    assert!(afap < 0.3, "afap: {afap} s");
}

#[test]
fn recorded_timing_is_open_loop() {
    // Fifty reads within 0.5 ms: recorded, they all arrive at once and
    // queue (outstanding does not hold them back); afap with one in flight
    // each waits only for its own service.
    let t = TempTrace::new("burst.csv", &msr(50, 100));
    let recorded = run(&t.0, "msr", "recorded", 1, "");
    let afap = run(&t.0, "msr", "afap", 1, "");
    assert_eq!(recorded.aggregate.requests, 50);
    let (rm, am) = (recorded.flows[0].lat_ms.mean, afap.flows[0].lat_ms.mean);
    assert!(rm > 3.0 * am, "recorded mean {rm} ms, afap mean {am} ms");
}
