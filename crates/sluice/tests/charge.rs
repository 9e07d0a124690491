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

/// Issue 43 defect 10: merging added a merged request's raw sectors to a
/// charge the model had clamped to one unit, so under a model that charges
/// nothing per KiB, a reader whose requests merge paid for each merged
/// arrival and was served after everyone else. Each request now costs
/// what the model says, merged or not: equal weights alternate.
#[test]
fn merged_requests_are_charged_as_the_cost_model_does() {
    let flat = LinearCost {
        read_seq_us: 0.0,
        read_rand_us: 0.0,
        write_seq_us: 0.0,
        write_rand_us: 0.0,
        per_kib_us: 0.0,
        seq_threshold_kib: 16384.0,
    };
    for name in ["yfq", "mclock"] {
        let mut tb = Testbed::new(with_charge(name, "cost", Some(flat)), 1).with_merging(1024);
        // Flow 0: 50 requests of four merged 4 KiB reads each, far apart;
        // flow 1: 50 single 4 KiB reads.
        for k in 0..50u64 {
            for j in 0..4 {
                tb.add(0, k * 100_000 + j * 8, 8);
            }
            tb.add(1, 50_000_000 + k * 100_000, 8);
        }
        let first: Vec<_> = (0..40)
            .map(|_| tb.serve(Duration::from_millis(1)))
            .collect();
        assert!(
            first.iter().all(|r| r.flow.0 == 1 || r.sectors == 32),
            "{name}: not merged"
        );
        let merged = first.iter().filter(|r| r.flow.0 == 0).count();
        assert!(
            (16..=24).contains(&merged),
            "{name}: {merged} merged requests among the first 40"
        );
    }
}

/// The testbed's closed flows counted a merged request's completion as
/// one, so a flow whose requests merged lost its slots and stopped (found
/// by the limits property test, which then rarely saw merges). Four
/// sequential requests in flight on a merging device keep flowing.
#[test]
fn a_closed_flow_keeps_its_slots_when_its_requests_merge() {
    let mut tb = Testbed::new(with_charge("yfq", "sectors", None), 1).with_merging(1024);
    tb.closed_flow(ClosedFlow::new(
        0,
        Pattern::Seq { next: 0 },
        true,
        4,
        Duration::ZERO,
    ));
    tb.run(Instant::ZERO + Duration::from_secs(1));
    // 1 ms per dispatch, each the four requests in the queue merged (with
    // the slots lost, one request at a time after the first merge).
    let sectors: u64 = tb.log.iter().map(|(_, r)| u64::from(r.sectors)).sum();
    let requests = sectors / 8;
    assert!(
        requests > 3 * tb.log.len() as u64,
        "{requests} requests in {} dispatches",
        tb.log.len()
    );
}
