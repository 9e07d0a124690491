//! mClock on a simulated disk: reservations are met next to a weight-only
//! flow, and a limit caps its flow.
//!
//! The device: the WD Raptor 150 preset at queue depth 1, three greedy
//! 4 KiB random readers over 1 GiB files side by side (one request each in
//! flight). Under `noop` it serves 228 IOPS in all, 76 each (measured by
//! `noop_capacity` below, seed 7, 5 s warm-up, 35 s measured), so
//! reservations of 100 and 50 IOPS fit with about 78 IOPS to spare.
//!
//! Measured under `mclock` (same run): reservations 100 and 50 with weight
//! 1 next to a weight-1000 flow get 97.7, 50.0 and 78.4 IOPS; a flow
//! limited to 40 IOPS at weight 1000 next to two weight-1 flows gets 40.0
//! (the others 95.7 each).

use sluice_runtime::{Scenario, SimReport};
use sluice_sim::simulate;

const DURATION_S: f64 = 40.0;
const WARMUP_S: f64 = 5.0;

/// Three random readers `a`, `b` and `c` with `keys` (one line of extra
/// keys each) under `scheduler`.
fn scenario(scheduler: &str, keys: [&str; 3]) -> Scenario {
    let mut text = format!(
        "name = \"mclock\"\nseed = 7\nduration_s = {DURATION_S}\nwarmup_s = {WARMUP_S}\n\
         [device]\npreset = \"wd-raptor-150\"\nqueue_depth = 1\n\
         [scheduler]\n{scheduler}\n"
    );
    for (name, extra) in ["a", "b", "c"].into_iter().zip(keys) {
        text.push_str(&format!(
            "[[flow]]\nname = \"{name}\"\npattern = \"rand-read\"\nrequest_kib = 4\n\
             file_gib = 1\n{extra}\n"
        ));
    }
    Scenario::parse("mclock.toml", &text).unwrap_or_else(|e| panic!("{e}"))
}

/// Each flow's IOPS over the measured part of the run.
fn iops(report: &SimReport) -> Vec<f64> {
    let span = report.sim_time_s - report.measured_from_s;
    report
        .flows
        .iter()
        .map(|f| f.requests as f64 / span)
        .collect()
}

fn run(scheduler: &str, keys: [&str; 3]) -> Vec<f64> {
    iops(&simulate(&scenario(scheduler, keys)).unwrap())
}

#[test]
fn noop_capacity() {
    let got = run("name = \"noop\"", ["", "", ""]);
    let total: f64 = got.iter().sum();
    eprintln!("noop: {got:?}, {total} IOPS in all");
    assert!((150.0..=300.0).contains(&total), "{total}");
}

#[test]
fn reservations_are_met_next_to_a_weight_only_flow() {
    let got = run(
        "name = \"mclock\"",
        [
            "reservation_iops = 100\nweight = 1",
            "reservation_iops = 50\nweight = 1",
            "weight = 1000",
        ],
    );
    eprintln!("mclock reservations: {got:?}");
    // Each reservation within 5%; the weight-only flow gets the rest.
    assert!((95.0..=105.0).contains(&got[0]), "{got:?}");
    assert!((47.5..=52.5).contains(&got[1]), "{got:?}");
    assert!(got[2] >= 60.0, "{got:?}");
}

#[test]
fn a_limit_caps_its_flow() {
    let got = run(
        "name = \"mclock\"",
        ["limit_iops = 40\nweight = 1000", "weight = 1", "weight = 1"],
    );
    eprintln!("mclock limit: {got:?}");
    // At most 41 IOPS, and the limit is reached (the device could give
    // the weight-1000 flow far more).
    assert!((38.0..=41.0).contains(&got[0]), "{got:?}");
}

#[test]
fn same_scenario_and_seed_give_the_same_report() {
    let keys = ["reservation_iops = 100", "limit_iops = 40", "weight = 300"];
    let a = simulate(&scenario("name = \"mclock\"", keys)).unwrap();
    let b = simulate(&scenario("name = \"mclock\"", keys)).unwrap();
    let requests = |r: &SimReport| r.flows.iter().map(|f| f.requests).collect::<Vec<_>>();
    assert_eq!(requests(&a), requests(&b));
    assert_eq!(a.policy_stats, b.policy_stats);
}

#[test]
fn at_limit_allow_lets_limits_only_order() {
    let keys = ["limit_iops = 40", "limit_iops = 40", "limit_iops = 40"];
    let wait = run("name = \"mclock\"", keys);
    let allow = run("name = \"mclock\"\nat_limit = \"allow\"", keys);
    eprintln!("all limited to 40: wait {wait:?}, allow {allow:?}");
    assert!(wait.iter().all(|&x| x <= 41.0), "{wait:?}");
    // With "allow" the device is never left idle: the noop capacity.
    assert!(allow.iter().all(|&x| x >= 70.0), "{allow:?}");
}
