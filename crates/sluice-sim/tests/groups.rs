//! Groups and limits on a simulated disk: a two-level tree shares the disk
//! level by level under bfq, yfq and mclock, and a rate limit holds under
//! policies that know nothing of limits.
//!
//! Measured (maxtor-stm332061, queue depth 1, 30 s, 2 s warm-up): tenant A
//! (weight 300) with two greedy sequential readers and tenant B (weight
//! 100) with one get 0.371/0.372/0.257 of the bytes under bfq and
//! 0.375/0.375/0.250 under yfq and mclock; flat, the three would split a
//! third each.

use sluice_runtime::{Scenario, SimReport};
use sluice_sim::simulate;

fn scenario(scheduler: &str, body: &str) -> Scenario {
    let text = format!(
        "name = \"groups\"\nseed = 1\nduration_s = 30\nwarmup_s = 2\n\
         [device]\npreset = \"maxtor-stm332061\"\nqueue_depth = 1\n\
         [scheduler]\nname = \"{scheduler}\"\n{body}"
    );
    Scenario::parse("groups.toml", &text).unwrap_or_else(|e| panic!("{e}"))
}

fn reader(name: &str, extra: &str) -> String {
    format!(
        "[[flow]]\nname = \"{name}\"\npattern = \"seq-read\"\nrequest_kib = 128\n\
         file_gib = 2\n{extra}\n"
    )
}

fn byte_shares(r: &SimReport) -> Vec<f64> {
    let total: u64 = r.flows.iter().map(|f| f.bytes).sum();
    r.flows
        .iter()
        .map(|f| f.bytes as f64 / total.max(1) as f64)
        .collect()
}

#[test]
fn a_two_level_tree_shares_level_by_level() {
    let tree = "[[group]]\nname = \"A\"\nweight = 300\n[[group]]\nname = \"B\"\nweight = 100\n"
        .to_string()
        + &reader("a1", "group = \"A\"")
        + &reader("a2", "group = \"A\"")
        + &reader("b1", "group = \"B\"");
    for policy in ["bfq", "yfq", "mclock"] {
        let s = byte_shares(&simulate(&scenario(policy, &tree)).unwrap());
        for (got, want) in s.iter().zip([0.375, 0.375, 0.25]) {
            assert!((got - want).abs() < 0.02, "{policy}: {s:?}");
        }
    }
}

#[test]
fn a_byte_limit_holds_under_bfq_and_yfq() {
    // 4 MB/s of 128 KiB reads: 30.5 requests a second.
    let body = reader("l", "weight = 900\nlimit_mb_s = 4") + &reader("o", "");
    for policy in ["bfq", "yfq", "noop"] {
        let r = simulate(&scenario(policy, &body)).unwrap();
        let span = r.sim_time_s - r.measured_from_s;
        let mb_s = r.flows[0].bytes as f64 / span / 1e6;
        assert!((3.9..=4.05).contains(&mb_s), "{policy}: {mb_s} MB/s");
    }
}
