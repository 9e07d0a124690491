//! Fleets (`sluice fleet`, issue 48): a trace's volumes placed on nodes,
//! each node simulated on its own. The report must not depend on what ran
//! the nodes: threads, how many, or jobs sent as bytes (a Ray task's).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use sluice_runtime::fleet::{merge, FleetPerf, FleetPlan, FleetReport, NodeJob, NodeResult};
use sluice_runtime::Scenario;
use sluice_sim::fleet::{run_local, run_node};

/// An Alibaba-format trace of `volumes` volumes taking turns (7 apart),
/// reads and writes, `n` requests 200 µs apart.
fn trace(dir: &Path, volumes: u32, n: u32) -> PathBuf {
    let mut text = String::new();
    for i in 0..n {
        let v = i * 7 % volumes;
        let op = if i % 5 == 0 { 'W' } else { 'R' };
        let offset = (u64::from(i) * 7919 % 100_000) * 4096;
        let _ = writeln!(
            text,
            "vol{v},{op},{offset},{},{}",
            4096 * (1 + i % 4),
            1_600_000_000_000_000u64 + u64::from(i) * 200
        );
    }
    let p = dir.join("fleet.csv");
    std::fs::write(&p, text).unwrap();
    p
}

fn scenario(dir: &Path, nodes: u32, placement: &str, extra: &str) -> PathBuf {
    trace(dir, 12, 3000);
    let p = dir.join("fleet.toml");
    std::fs::write(
        &p,
        format!(
            "name = \"f\"\nseed = 3\nduration_s = 1000\n[device]\npreset = \"ssd-sata\"\n\
             [scheduler]\nname = \"bfq\"\n[fleet]\ntrace = \"fleet.csv\"\nformat = \"alibaba\"\n\
             nodes = {nodes}\nplacement = \"{placement}\"\n{extra}"
        ),
    )
    .unwrap();
    p
}

fn without_perf(mut r: FleetReport) -> FleetReport {
    r.perf = FleetPerf {
        wall_s: 0.0,
        runner: String::new(),
        workers: 0,
        peak_rss_mib: 0.0,
        worker_peak_rss_mib: 0.0,
    };
    r
}

#[test]
fn the_report_is_the_same_on_one_or_many_threads() {
    let dir = tempfile::tempdir().unwrap();
    let sc = scenario(dir.path(), 4, "hash", "");
    let one = run_local(FleetPlan::load(&sc).unwrap(), 1, |_, _| {}).unwrap();
    let three = run_local(FleetPlan::load(&sc).unwrap(), 3, |_, _| {}).unwrap();
    assert_eq!(one.perf.workers, 1);
    assert_eq!(three.perf.workers, 3);
    let (one, three) = (without_perf(one), without_perf(three));
    assert_eq!(one, three);
    assert_eq!(
        serde_json::to_string(&one).unwrap(),
        serde_json::to_string(&three).unwrap()
    );
    // Every request of every volume, once; volumes in the trace's order.
    assert_eq!(one.volumes.len(), 12);
    assert_eq!(one.volumes.iter().map(|v| v.requests).sum::<u64>(), 3000);
    assert_eq!(one.volumes[0].volume, "vol0");
    assert_eq!(one.volumes[1].volume, "vol7");
    assert_eq!(one.nodes.len(), 4);
    assert_eq!(one.nodes.iter().map(|n| n.volumes).sum::<u32>(), 12);
    for v in &one.volumes {
        assert!(v.p50_ms > 0.0 && v.p50_ms <= v.p99_ms && v.p99_ms <= v.p999_ms);
        assert!(v.p999_ms <= v.max_ms);
    }
    for n in &one.nodes {
        assert!((0.0..=1.0).contains(&n.utilisation), "{n:?}");
    }
}

#[test]
fn a_job_sent_as_bytes_gives_the_same_result() {
    let dir = tempfile::tempdir().unwrap();
    let sc = scenario(dir.path(), 3, "round-robin", "");
    let plan = FleetPlan::load(&sc).unwrap();
    let summary = plan.summary();
    let here: Vec<NodeResult> = plan.jobs.iter().map(|j| run_node(j).unwrap()).collect();
    // As a Ray task sees them: bytes in, JSON out, merged in any order.
    let mut there: Vec<NodeResult> = plan
        .jobs
        .iter()
        .rev()
        .map(|j| {
            let job = NodeJob::from_bytes(&j.to_bytes()).unwrap();
            let json = serde_json::to_string(&run_node(&job).unwrap()).unwrap();
            serde_json::from_str(&json).unwrap()
        })
        .collect();
    there.rotate_left(1);
    let perf = || FleetPerf {
        wall_s: 0.0,
        runner: String::new(),
        workers: 0,
        peak_rss_mib: 0.0,
        worker_peak_rss_mib: 0.0,
    };
    let a = merge(&summary, here, perf());
    let b = merge(&summary, there, perf());
    assert_eq!(a, b);
    let local = without_perf(run_local(FleetPlan::load(&sc).unwrap(), 2, |_, _| {}).unwrap());
    assert_eq!(a, local);
    // Round robin: volumes dealt in the trace's order.
    let nodes: Vec<u32> = a.volumes.iter().map(|v| v.node).collect();
    assert_eq!(&nodes[..6], &[0, 1, 2, 0, 1, 2]);
}

#[test]
fn bytes_that_are_not_a_job_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let plan = FleetPlan::load(&scenario(dir.path(), 2, "hash", "")).unwrap();
    let good = plan.jobs[0].to_bytes();
    for bad in [
        Vec::new(),
        b"hello".to_vec(),
        good[..good.len() - 1].to_vec(),
        good[..40].to_vec(),
        [&good[..], &[0u8; 29]].concat(),
    ] {
        let e = NodeJob::from_bytes(&bad).unwrap_err().to_string();
        assert!(e.contains("not a fleet job's bytes"), "{e}");
    }
}

#[test]
fn given_placement_puts_each_volume_where_told() {
    let dir = tempfile::tempdir().unwrap();
    let mut given = String::from("[fleet.given]\n");
    for v in 0..12 {
        let _ = writeln!(given, "vol{v} = {}", if v < 2 { 1 } else { 0 });
    }
    let sc = scenario(dir.path(), 2, "given", &given);
    let r = run_local(FleetPlan::load(&sc).unwrap(), 2, |_, _| {}).unwrap();
    assert_eq!(r.nodes[1].volumes, 2);
    assert_eq!(r.nodes[0].volumes, 10);
    // One volume missing from the table: refused, by name.
    let sc = scenario(dir.path(), 2, "given", "[fleet.given]\nvol0 = 1\n");
    let e = FleetPlan::load(&sc).unwrap_err().to_string();
    assert!(e.contains("no node for volume"), "{e}");
}

#[test]
fn a_fleet_is_not_a_scenario_and_bad_keys_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let sc = scenario(dir.path(), 2, "hash", "");
    let e = Scenario::load(&sc).unwrap_err().to_string();
    assert!(e.contains("sluice fleet"), "{e}");
    for (extra, says) in [
        ("", "placement: unknown value 'nearest'"),
        ("offsets = \"sideways\"\n", "offsets: unknown value"),
    ] {
        let sc = scenario(dir.path(), 2, "nearest", extra);
        let e = FleetPlan::load(&sc).unwrap_err().to_string();
        assert!(e.contains(says) || e.contains("placement"), "{e}");
    }
    let sc = scenario(dir.path(), 0, "hash", "");
    let e = FleetPlan::load(&sc).unwrap_err().to_string();
    assert!(e.contains("nodes must be"), "{e}");
    // A format whose lines name no volume cannot make a fleet.
    let text = std::fs::read_to_string(&sc).unwrap().replace(
        "format = \"alibaba\"\nnodes = 0",
        "format = \"msr\"\nnodes = 2",
    );
    std::fs::write(&sc, text).unwrap();
    let e = FleetPlan::load(&sc).unwrap_err().to_string();
    assert!(e.contains("no volume to place"), "{e}");
    // A scenario without [fleet] is for `sluice sim`.
    let plain = dir.path().join("plain.toml");
    std::fs::write(
        &plain,
        "name = \"p\"\nduration_s = 1\n[device]\npreset = \"ssd-sata\"\n[scheduler]\nname = \"noop\"\n\
         [[flow]]\nname = \"r\"\npattern = \"rand-read\"\n",
    )
    .unwrap();
    let e = FleetPlan::load(&plain).unwrap_err().to_string();
    assert!(e.contains("no [fleet] table"), "{e}");
}

/// A window cuts the whole trace once: nodes whose volumes send nothing
/// in it are nodes with no volume, not an error.
#[test]
fn a_window_cuts_the_whole_fleets_trace() {
    let dir = tempfile::tempdir().unwrap();
    // 3000 requests 200 µs apart: [0.1 s, 0.1012 s) holds 6 of them.
    let sc = scenario(
        dir.path(),
        8,
        "hash",
        "from_s = 0.1\nto_s = 0.1012\nspeed = 2\n",
    );
    let r = run_local(FleetPlan::load(&sc).unwrap(), 2, |_, _| {}).unwrap();
    assert_eq!(r.volumes.iter().map(|v| v.requests).sum::<u64>(), 6);
    assert_eq!(r.volumes.len(), 6);
    assert_eq!(r.nodes.len(), 8);
    assert!(r.nodes.iter().any(|n| n.volumes == 0));
    for (extra, says) in [
        ("from_s = 5\nto_s = 1\n", "to_s must be after from_s"),
        ("from_s = 99\n", "no request arrives between"),
        ("speed = -1\n", "speed must be"),
    ] {
        let sc = scenario(dir.path(), 2, "hash", extra);
        let e = FleetPlan::load(&sc).unwrap_err().to_string();
        assert!(e.contains(says), "{extra}: {e}");
    }
}
