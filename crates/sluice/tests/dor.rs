//! Nam–Park BQS+DOR ("Design and evaluation of an efficient
//! proportional-share disk scheduling algorithm", §2): with `m_qos = 0` the
//! policy is BQS alone, dispatch for dispatch; with any parameters it keeps
//! the scheduler invariants.

use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;

use sluice::policy::{build, BuildContext, Dor, DorParams, ParamValue, Params};
use sluice::testkit::{Op, Testbed};
use sluice::{Duration, Scheduler};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 96,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (0u32..4, prop_oneof![0u64..1 << 30, 0u64..4096], 1u32..64, any::<bool>())
            .prop_map(|(flow, sector, sectors, write)| Op::Add { flow, sector, sectors, write }),
        3 => (0usize..8).prop_map(Op::Complete),
        1 => (0..=Duration::from_millis(10).as_nanos())
            .prop_map(|ns| Op::Advance(Duration::from_nanos(ns))),
    ]
}

prop_compose! {
    /// A script, a device depth and four flows' weights.
    fn setting()(
        script in prop::collection::vec(op(), 0..200),
        depth in prop::sample::select(vec![1usize, 4, 32]),
        weights in prop::collection::vec(1u32..=1000, 4),
    ) -> (Vec<Op>, usize, Vec<u32>) {
        (script, depth, weights)
    }
}

/// Run a script through a testbed (which checks exactly-once dispatch and
/// the empty-device rule), flow f weighing `weights[f]`, then drain it.
fn run<P: Scheduler>(s: P, depth: usize, weights: &[u32], script: &[Op]) -> Testbed<P> {
    let mut tb = Testbed::new(s, depth);
    for (f, &w) in weights.iter().enumerate() {
        tb.flow(f as u32, w);
    }
    for op in script {
        tb.step(op);
    }
    tb.drain();
    tb
}

/// DOR with `p` dispatches exactly what BQS alone does, and inserts
/// nothing.
fn same_as_bqs(
    p: DorParams,
    depth: usize,
    weights: &[u32],
    script: &[Op],
) -> Result<(), TestCaseError> {
    let base = p.base;
    let dor = run(Dor::new(p), depth, weights, script);
    let bqs = run(Dor::bqs(base), depth, weights, script);
    prop_assert_eq!(dor.order(), bqs.order());
    prop_assert_eq!(dor.policy().counts().1, 0);
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn m_qos_zero_dispatches_exactly_what_bqs_alone_does(
        (script, depth, weights) in setting(),
        base in 1usize..8,
        m_dmo in 0.0f64..=100.0,
        drive_stroke in any::<bool>(),
        bounded_walk in any::<bool>(),
        (charge_bqs, dqe_per_sequence, oldest_first) in any::<(bool, bool, bool)>(),
    ) {
        let p = DorParams { base, m_dmo, m_qos: 0.0, drive_stroke, bounded_walk, charge_bqs, dqe_per_sequence, oldest_first };
        same_as_bqs(p, depth, &weights, &script)?;
    }

    #[test]
    fn m_dmo_zero_dispatches_exactly_what_bqs_alone_does(
        (script, depth, weights) in setting(),
        base in 1usize..8,
        m_qos in prop::sample::select(vec![0.5f64, 1.0, 5.0, 1e6]),
        drive_stroke in any::<bool>(),
        bounded_walk in any::<bool>(),
        (charge_bqs, dqe_per_sequence, oldest_first) in any::<(bool, bool, bool)>(),
    ) {
        let p = DorParams { base, m_dmo: 0.0, m_qos, drive_stroke, bounded_walk, charge_bqs, dqe_per_sequence, oldest_first };
        same_as_bqs(p, depth, &weights, &script)?;
    }

    #[test]
    fn dor_keeps_the_invariants_with_any_parameters(
        (script, depth, weights) in setting(),
        base in 1i64..8,
        m_dmo in 0.0f64..=100.0,
        m_qos in prop::sample::select(vec![0.0f64, 0.5, 1.0, 5.0]),
        drive_stroke in any::<bool>(),
        bounded_walk in any::<bool>(),
        switches in any::<[bool; 3]>(),
    ) {
        let mut p = Params::default();
        p.insert("drive_stroke", ParamValue::Bool(drive_stroke));
        p.insert("bounded_walk", ParamValue::Bool(bounded_walk));
        for (name, on) in ["charge_bqs", "dqe_per_sequence", "oldest_first"].into_iter().zip(switches) {
            p.insert(name, ParamValue::Bool(on));
        }
        p.insert("base", ParamValue::Int(base));
        p.insert("m_dmo", ParamValue::Float(m_dmo));
        p.insert("m_qos", ParamValue::Float(m_qos));
        run(build("dor", &p, &BuildContext::default()).unwrap(), depth, &weights, &script);
    }
}

#[test]
fn dor_expands_the_base_sequence_on_a_crowded_queue() {
    // Two flows with 30 requests each spread over a small area: with the
    // default margins DOR inserts requests, and the dispatch count is
    // unchanged.
    let script: Vec<Op> = (0..60u64)
        .map(|i| Op::Add {
            flow: (i % 2) as u32,
            sector: (i * 7919) % 50_000,
            sectors: 8,
            write: false,
        })
        .collect();
    let tb = run(Dor::new(DorParams::default()), 4, &[80, 20], &script);
    assert_eq!(tb.log.len(), 60);
    let (bqs, extra) = tb.policy().counts();
    assert_eq!(bqs + extra, 60);
    assert!(extra > 0, "no DOR insertions: {bqs} + {extra}");
}

#[test]
fn unknown_dor_parameters_are_rejected() {
    let mut p = Params::default();
    p.insert("m_qoss", ParamValue::Float(1.0));
    assert!(build("dor", &p, &BuildContext::default()).is_err());
    let mut p = Params::default();
    p.insert("m_qos", ParamValue::Float(-1.0));
    assert!(build("dor", &p, &BuildContext::default()).is_err());
}
