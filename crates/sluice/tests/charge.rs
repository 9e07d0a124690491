//! `charge = "cost"`: a policy that charges the cost model instead of
//! sectors (or I/Os) gives a flow that seeks less than one that reads
//! sequentially, at equal weights; by sectors the two get equal I/Os.

use sluice::policy::{build, BuildContext, ParamValue, Params};
use sluice::testkit::{ClosedFlow, Pattern, Testbed};
use sluice::{Duration, Instant, LinearCost, Scheduler};

/// Dispatches of a sequential and a random 4 KiB reader (equal weights,
/// four requests each in flight, 1 ms per request) in 20 s.
fn seq_and_random(policy: Box<dyn Scheduler>) -> (usize, usize) {
    let mut tb = Testbed::new(policy, 1);
    tb.closed_flow(ClosedFlow::new(
        0,
        Pattern::Seq { next: 0 },
        true,
        4,
        Duration::ZERO,
    ));
    tb.closed_flow(ClosedFlow::new(
        1,
        Pattern::Rand { state: 7 },
        true,
        4,
        Duration::ZERO,
    ));
    tb.run(Instant::ZERO + Duration::from_secs(20));
    (tb.count(0), tb.count(1))
}

/// `name` set to charge by `charge`, built with the cost model `model`
/// (`None` = the context's default).
fn with_charge(name: &str, charge: &str, model: Option<LinearCost>) -> Box<dyn Scheduler> {
    let mut p = Params::default();
    p.insert("charge", ParamValue::Str(charge.into()));
    let context = BuildContext {
        charge: model.unwrap_or_default(),
        ..BuildContext::default()
    };
    build(name, &p, &context).unwrap()
}

#[test]
fn cost_charging_makes_seeks_expensive() {
    // A model where a random read costs 100 sequential ones.
    let model = LinearCost {
        read_seq_us: 0.0,
        read_rand_us: 396.0,
        write_seq_us: 0.0,
        write_rand_us: 396.0,
        per_kib_us: 1.0,
        seq_threshold_kib: 16384.0,
    };
    for (name, by_default) in [("yfq", "sectors"), ("bfq", "sectors"), ("mclock", "ios")] {
        let (seq, rand) = seq_and_random(with_charge(name, by_default, None));
        let even = seq as f64 / rand as f64;
        assert!(
            (0.8..=1.25).contains(&even),
            "{name} by {by_default}: {seq} vs {rand}"
        );
        let (seq, rand) = seq_and_random(with_charge(name, "cost", Some(model)));
        let ratio = seq as f64 / rand.max(1) as f64;
        assert!(
            ratio > 20.0,
            "{name} by cost: {seq} sequential vs {rand} random"
        );
    }
}

#[test]
fn the_default_model_is_the_kernels_hdd_model() {
    // Without a model installed, charge = "cost" uses iocost's HDD figures.
    let (seq, rand) = seq_and_random(with_charge("yfq", "cost", None));
    assert!(seq > 50 * rand.max(1), "{seq} vs {rand}");
}
