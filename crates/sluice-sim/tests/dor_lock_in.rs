//! Regression: DOR must not lock itself out. Two reservation queues at
//! 80:20 keep 26 and 25 requests outstanding on the paper's drive with a
//! wide margin (M_dmo 60 % of the paper's 17.742 ms stroke): one walk can
//! drain both queues, and the queues' return order then left DQE's spread
//! above M_qos for good. DOR inserted 116 requests in the first second and
//! none in the remaining 59.

use sluice_runtime::Scenario;
use sluice_sim::simulate;

fn two_pools(seconds: u32) -> String {
    let pool = |name: &str, n: u32, w: u32| {
        format!(
            "[[flow]]\nname = \"{name}\"\npattern = \"pool\"\nfile_gib = 8.5\noffset_gib = 0\n\
             outstanding = {n}\nweights = [{w}]\n"
        )
    };
    format!(
        "name = \"lock-in\"\nseed = 1\nduration_s = {seconds}\nwarmup_s = 2\n\
         [device]\npreset = \"ibm-dnes-309170w\"\nqueue_depth = 4\ninternal = \"fcfs\"\n\
         [scheduler]\nname = \"dor\"\nm_dmo = 60\nm_qos = 0.5\ndrive_stroke = false\n{}{}",
        pool("rq1", 26, 80),
        pool("rq2", 25, 20)
    )
}

fn dor_requests(seconds: u32) -> f64 {
    let s = Scenario::parse("lock-in.toml", &two_pools(seconds)).unwrap();
    simulate(&s).unwrap().policy_stats["dor_requests"]
}

#[test]
fn dor_keeps_inserting_through_the_run() {
    // The 10 s run is the first part of the 20 s one (same scenario, same
    // seed): DOR must insert in the second ten seconds about as often as
    // in the first.
    let (first, both) = (dor_requests(10), dor_requests(20));
    let second = both - first;
    assert!(first > 100.0, "{first}");
    assert!(second >= 0.5 * first, "0-10 s: {first}, 10-20 s: {second}");
}
