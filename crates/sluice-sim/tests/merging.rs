//! The block layer's merging seen from a whole simulation: what reaches
//! the drive, and the start-up it changes most (CFQ serving a start-up's
//! read-ahead bursts).

use sluice_runtime::Scenario;
use sluice_sim::simulate;

fn idle_startup(app: &str, sched: &str, merge: bool) -> String {
    format!(
        r#"
name = "idle-{app}"
seed = 1
duration_s = 60
warmup_s = 0
[device]
preset = "maxtor-stm332061"
queue_depth = 1
merge = {merge}
[scheduler]
name = "{sched}"
[[flow]]
name = "{app}"
pattern = "startup"
trace = "{app}"
start_s = 1
"#
    )
}

/// (start-up s, requests completed, requests that reached the drive).
fn run(app: &str, sched: &str, merge: bool) -> (f64, u64, u64) {
    let s = Scenario::parse("t.toml", &idle_startup(app, sched, merge)).unwrap();
    let r = simulate(&s).unwrap();
    let f = &r.flows[0];
    let d = r
        .device_requests
        .as_ref()
        .expect("the simulator reports it");
    (
        f.startup_s.expect("the start-up finishes"),
        f.requests,
        d.reads,
    )
}

#[test]
fn merging_joins_a_start_ups_bursts_and_every_original_completes() {
    let (_, n_on, drive_on) = run("bash", "noop", true);
    let (_, n_off, drive_off) = run("bash", "noop", false);
    assert_eq!(n_on, n_off, "every original request completes");
    assert_eq!(
        drive_off, n_off,
        "without merging each request is a drive request"
    );
    assert!(drive_on * 2 < drive_off, "{drive_on} drive reads of {n_on}");
}

#[test]
fn with_merging_cfq_starts_an_application_on_an_idle_disk_about_as_fast_as_noop() {
    // Without merging CFQ served bash's read-ahead bursts sector by sector
    // in descending order, one rotation each: 1.21 s against noop's 0.28 s.
    for app in ["bash", "xterm"] {
        let (noop, ..) = run(app, "noop", true);
        let (cfq, ..) = run(app, "cfq", true);
        assert!(cfq <= 1.3 * noop, "{app}: cfq {cfq} s, noop {noop} s");
        let (cfq_unmerged, ..) = run(app, "cfq", false);
        assert!(
            cfq_unmerged >= 1.5 * cfq,
            "{app}: unmerged cfq {cfq_unmerged} s"
        );
    }
}
