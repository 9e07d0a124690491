//! Tests of buffered flows in the engine: whose writeback it is, and how
//! a buffered request's fragments reach the page cache.

use super::*;

/// A run of `flows` on the maxtor under `policy`, with `[os]` `os`.
fn scenario(policy: &str, secs: u32, os: &str, flows: &str) -> Scenario {
    let text = format!(
        "name = \"b\"\nseed = 1\nduration_s = {secs}\nwarmup_s = 0\n[device]\npreset = \"maxtor-stm332061\"\n[scheduler]\nname = \"{policy}\"\n[os]\n{os}\n{flows}"
    );
    Scenario::parse("b.toml", &text).unwrap()
}

/// A sequential writer, buffered unless `extra` says `direct = true`.
fn writer(name: &str, extra: &str) -> String {
    let direct = if extra.contains("direct") {
        ""
    } else {
        "direct = false\n"
    };
    format!("[[flow]]\nname = \"{name}\"\npattern = \"seq-write\"\n{direct}{extra}\n")
}

/// Bytes written to the disk per flow (the log's flow index).
fn written(log: &[RequestRecord], flow: u32) -> u64 {
    log.iter()
        .filter(|r| r.write && r.flow == flow)
        .map(|r| u64::from(r.sectors) * 512)
        .sum()
}

/// Issue 43, defect 9: a buffered writer with `limit_mb_s = 1` reached
/// the disk at 88.9 MB/s under every policy (its writeback was the
/// flusher's, which no limit held). Writeback is now its writer's.
#[test]
fn a_limit_binds_a_buffered_writer() {
    for policy in ["noop", "bfq", "mclock", "yfq"] {
        let s = scenario(
            policy,
            20,
            "memory_mib = 64",
            &writer("w", "limit_mb_s = 1"),
        );
        let (report, log) = Simulation::new(&s).unwrap().with_request_log().run_logged();
        let d = report.device_requests.as_ref().unwrap();
        let mb_s = d.writes as f64 * d.write_kib_mean * 1024.0 / 1e6 / 20.0;
        assert!(
            mb_s > 0.5 && mb_s <= 1.5,
            "{policy}: {mb_s} MB/s reach the disk"
        );
        // Every write is the writer's (none the flusher's).
        assert!(
            log.iter().filter(|r| r.write).all(|r| r.flow == 0),
            "{policy}"
        );
        // The writer itself is slowed to about its limit once the dirty
        // limit (12.8 MiB of 64) is reached.
        let w = &report.flows[0];
        assert!(
            w.mb_s < 1.0 + 13.5 / 20.0,
            "{policy}: the writer wrote {} MB/s",
            w.mb_s
        );
    }
}

/// Issue 43, defect 9: weights hold between buffered writers, their
/// writeback served as theirs: 2:1 where the policy gives direct writers
/// 2:1. (bfq and cfq put every asynchronous write in one shared queue, as
/// the kernels of their papers did: there buffered writers share alike,
/// as direct asynchronous writers do.)
#[test]
fn weights_hold_between_buffered_writers() {
    let ratio = |policy: &str, direct: bool| {
        let d = format!("direct = {direct}\n");
        let flows = writer("a", &format!("weight = 200\n{d}"))
            + &writer("b", &format!("weight = 100\noffset_gib = 10\n{d}"));
        let s = scenario(policy, 20, "memory_mib = 64", &flows);
        let (_, log) = Simulation::new(&s).unwrap().with_request_log().run_logged();
        let (a, b) = (written(&log, 0) as f64, written(&log, 1) as f64);
        assert!(b > 0.0, "{policy}: b wrote nothing");
        a / b
    };
    for policy in ["yfq", "mclock"] {
        let r = ratio(policy, false);
        assert!((1.8..=2.2).contains(&r), "{policy}: a/b {r}");
    }
    for policy in ["bfq", "cfq"] {
        let (buffered, direct) = (ratio(policy, false), ratio(policy, true));
        assert!(
            (buffered - direct).abs() < 0.1,
            "{policy}: {buffered} against {direct}"
        );
    }
}

/// Issue 43, defect 12: 64 MiB buffered writes in 1 KiB fragments were
/// one page cache write() per fragment (15M events for 3 s). A request's
/// fragments now reach the cache as one extent: the disk sees what it
/// sees without fragments, in as many events, and the flow still counts
/// each fragment.
#[test]
fn a_buffered_requests_fragments_reach_the_cache_as_one_extent() {
    let whole = writer("w", "request_kib = 4096\noutstanding = 2");
    let split = writer("w", "request_kib = 4096\noutstanding = 2\nfragment_kib = 1");
    let run = |flows: &str| {
        let s = scenario("bfq", 3, "memory_mib = 64", flows);
        Simulation::new(&s).unwrap().with_request_log().run_logged()
    };
    let (a, la) = run(&whole);
    let (b, lb) = run(&split);
    assert!(!la.is_empty());
    assert_eq!(la, lb, "the disk sees the same requests");
    assert_eq!(a.perf.events, b.perf.events);
    let (fa, fb) = (&a.flows[0], &b.flows[0]);
    assert_eq!(fb.requests, fa.requests * 4096);
    assert_eq!(fa.bytes, fb.bytes);
    assert_eq!(fa.lat_ms.p99, fb.lat_ms.p99);
}
