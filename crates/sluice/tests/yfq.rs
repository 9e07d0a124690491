//! YFQ ("Disk Scheduling with Quality of Service Guarantees", Bruno et al.,
//! ICMCS 1999): fairness between continuously busy reservations, and the
//! scheduler invariants of `yfq`, `bsd` and `bsd-grouped` on fragmented
//! workloads (which `tests/invariants.rs` does not generate).
//!
//! The fairness bound. YFQ (§2, batch b = 1) serves the busy reservation
//! whose head has the smallest finish tag, and the tags of a reservation
//! that stays busy chain (`S = F_prev`, `F = S + l/w`). Let `s_i(t1, t2)` be
//! the sectors of service reservation `i` completes in `[t1, t2]`. For any
//! interval during which `i` and `j` are both continuously busy:
//!
//! ```text
//!     | s_i(t1,t2)/w_i - s_j(t1,t2)/w_j |  <=  l_i^max/w_i + l_j^max/w_j
//! ```
//!
//! where `l^max` is the largest request of each reservation: each request
//! served from `i` has `F_i <= F_j`, so the tag lag `S_i - S_j` stays within
//! `[-l_j^max/w_j, l_i^max/w_i]`, and the service difference over an
//! interval is a difference of two such lags. This is the standard bound of
//! fair queueing with start/finish tags (the paper defers its proofs to the
//! extended version); the check below applies it to every interval.

use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;

use sluice::policy::{build, BuildContext, ParamValue, Params};
use sluice::testkit::{Op, Testbed};
use sluice::{Duration, Request, RequestId, Scheduler};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 96,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// An application read of `sectors` at `sector` arrives now from `flow`,
/// split as FreeBSD's physio does into fragments of at most 128 sectors
/// (64 KiB) with a common origin, added together. The fragments, in order.
fn add_split<P: Scheduler>(
    tb: &mut Testbed<P>,
    flow: u32,
    sector: u64,
    sectors: u32,
) -> Vec<Request> {
    let mut frag = tb.add(flow, sector, sectors.min(128));
    let mut out = vec![frag];
    let mut left = sectors - frag.sectors;
    while left > 0 {
        frag = Request {
            id: RequestId(frag.id.0 + 1),
            sector: frag.end(),
            sectors: left.min(128),
            ..frag
        };
        tb.add_given(frag);
        out.push(frag);
        left -= frag.sectors;
    }
    out
}

/// Checks the fairness bound above on every interval of a completion
/// sequence of reservations 0 and 1 (both continuously busy throughout):
/// `completions` are (reservation, sectors) in completion order; `lmax` the
/// largest request each reservation issued (a request still waiting at the
/// end counts: it was a head whose finish tag took part in selections).
/// Exact: everything is multiplied by `w_0 * w_1`.
fn check_fairness(w: [u64; 2], lmax: [u64; 2], completions: &[(usize, u64)]) -> Result<(), String> {
    let bound = i128::from(lmax[0] * w[1] + lmax[1] * w[0]);
    // Lag after each prefix: s_0 * w_1 - s_1 * w_0. The service difference
    // over an interval is the difference of the lags at its ends.
    let mut lag = 0i128;
    let (mut lo, mut hi) = (0i128, 0i128);
    for (k, &(i, l)) in completions.iter().enumerate() {
        let l = i128::from(l);
        lag += if i == 0 {
            l * i128::from(w[1])
        } else {
            -l * i128::from(w[0])
        };
        lo = lo.min(lag);
        hi = hi.max(lag);
        if hi - lo > bound {
            return Err(format!(
                "after completion {k}: service difference {} > bound {} (x w0*w1 = {})",
                hi - lo,
                bound,
                w[0] * w[1]
            ));
        }
    }
    Ok(())
}

/// Runs YFQ (b = 1) on a depth-1 device with reservations 0 and 1 kept
/// continuously busy (each keeps one request waiting behind the one in
/// service) and an intermittent reservation 2; returns the completions of
/// 0 and 1 while both had requests left to issue. Each request takes 1 µs.
fn fair_run(
    params: &Params,
    w: [u32; 3],
    sizes: [&[u32]; 2],
    third: &[Option<u32>],
) -> Vec<(usize, u64)> {
    let mut tb = Testbed::new(build("yfq", params, &BuildContext::default()).unwrap(), 1);
    for (f, &weight) in w.iter().enumerate() {
        tb.flow(f as u32, weight);
    }
    let sector = |f: usize| (f as u64) << 30;
    // Two requests each to start with; `next[f]`: the next size to issue.
    for (f, sizes) in sizes.iter().enumerate() {
        for &sectors in &sizes[..2] {
            tb.add(f as u32, sector(f), sectors);
        }
    }
    let mut next = [2usize; 2];
    let mut out = Vec::new();
    for step in 0.. {
        if let Some(Some(sectors)) = third.get(step) {
            tb.add(2, sector(2), *sectors);
        }
        let Some(r) = tb.poll() else {
            break;
        };
        tb.complete_all(Duration::from_micros(1));
        let f = r.flow.0 as usize;
        if f < 2 {
            out.push((f, u64::from(r.sectors)));
            if next[f] == sizes[f].len() {
                break;
            }
            tb.add(f as u32, sector(f), sizes[f][next[f]]);
            next[f] += 1;
        }
    }
    out
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn yfq_keeps_continuously_busy_reservations_within_the_fairness_bound(
        w0 in 1u32..=1000,
        w1 in 1u32..=1000,
        w2 in 1u32..=1000,
        s0 in prop::collection::vec(1u32..=256, 3..80),
        s1 in prop::collection::vec(1u32..=256, 3..80),
        third in prop::collection::vec(prop::option::weighted(0.3, 1u32..=256), 0..200),
        tie_break in any::<bool>(),
    ) {
        let mut params = Params::default();
        params.insert("tie_break", ParamValue::Bool(tie_break));
        let c = fair_run(&params, [w0, w1, w2], [&s0, &s1], &third);
        prop_assert!(c.len() >= 2);
        let lmax = [s0.iter().max().unwrap(), s1.iter().max().unwrap()].map(|&x| u64::from(x));
        if let Err(e) = check_fairness([u64::from(w0), u64::from(w1)], lmax, &c) {
            return Err(TestCaseError::fail(e));
        }
    }
}

#[test]
fn the_fairness_check_rejects_an_unfair_sequence() {
    // FIFO-like service: reservation 0 gets ten 8-sector requests in a row.
    let mut bad: Vec<(usize, u64)> = vec![(0, 8); 10];
    bad.extend([(1, 8); 10]);
    assert!(check_fairness([100, 100], [8, 8], &bad).is_err());
    // Alternating service of equal weights and sizes is fine...
    let good: Vec<(usize, u64)> = (0..20).map(|k| (k % 2, 8)).collect();
    assert!(check_fairness([100, 100], [8, 8], &good).is_ok());
    // ...but not when the weights say 4:1.
    assert!(check_fairness([400, 100], [8, 8], &good).is_err());
    let four_to_one: Vec<(usize, u64)> = (0..20).map(|k| (usize::from(k % 5 == 4), 8)).collect();
    assert!(check_fairness([400, 100], [8, 8], &four_to_one).is_ok());
}

// ---------------------------------------------------------------------------
// Invariants with fragments and non-default parameters
// ---------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum FOp {
    /// An application request of `sectors`, split into fragments of at most
    /// 128 sectors (64 KiB) added together.
    Add {
        flow: u32,
        sector: u64,
        sectors: u32,
    },
    Complete(usize),
}

fn fop() -> impl Strategy<Value = FOp> {
    prop_oneof![
        3 => (0u32..4, 0u64..1 << 20, 1u32..=600)
            .prop_map(|(flow, sector, sectors)| FOp::Add { flow, sector, sectors }),
        2 => (0usize..16).prop_map(FOp::Complete),
    ]
}

/// Drives a policy like the simulator does (all fragments of a request are
/// added before the next dispatch; 1 µs passes before each op) on a
/// testbed, which checks every fragment dispatched exactly once, nothing
/// unknown, no idling and an empty device never left empty while the
/// policy holds requests; checks here: at most `limit` outstanding.
fn run_fragmented<P: Scheduler>(
    s: P,
    depth: usize,
    limit: usize,
    ops: &[FOp],
) -> Result<(), String> {
    let mut tb = Testbed::new(s, depth);
    let name = tb.policy().name().to_string();
    let within_limit = |tb: &Testbed<P>| match tb.in_flight() {
        n if n > limit => Err(format!("{name}: {n} outstanding > {limit}")),
        _ => Ok(()),
    };
    for op in ops {
        tb.advance(Duration::from_micros(1));
        match *op {
            FOp::Add {
                flow,
                sector,
                sectors,
            } => {
                add_split(&mut tb, flow, sector, sectors);
                tb.fill();
            }
            FOp::Complete(i) => {
                tb.step(&Op::Complete(i));
            }
        }
        within_limit(&tb)?;
    }
    while tb.in_flight() > 0 {
        tb.advance(Duration::from_micros(1));
        tb.step(&Op::Complete(0));
        within_limit(&tb)?;
    }
    tb.drain();
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn yfq_with_any_parameters_dispatches_every_fragment_once(
        ops in prop::collection::vec(fop(), 0..150),
        depth in prop::sample::select(vec![1usize, 2, 4, 8]),
        batch in 1i64..6,
        overlap in any::<bool>(),
        tie_break in any::<bool>(),
        group in 0i64..4,
        l_lat_kb in prop::sample::select(vec![0i64, 125]),
        shared_fragment_tags in any::<bool>(),
    ) {
        let mut p = Params::default();
        p.insert("batch", ParamValue::Int(batch));
        p.insert("overlap", ParamValue::Bool(overlap));
        p.insert("tie_break", ParamValue::Bool(tie_break));
        p.insert("group", ParamValue::Int(group));
        p.insert("l_lat_kb", ParamValue::Int(l_lat_kb));
        p.insert("shared_fragment_tags", ParamValue::Bool(shared_fragment_tags));
        // At most b (b + 1 with overlap) outstanding.
        let limit = batch as usize + usize::from(overlap);
        run_fragmented(build("yfq", &p, &BuildContext::default()).unwrap(), depth, limit, &ops)
            .map_err(TestCaseError::fail)?;
    }

    #[test]
    fn bsd_pipelines_at_most_p_and_dispatches_every_fragment_once(
        ops in prop::collection::vec(fop(), 0..150),
        depth in prop::sample::select(vec![1usize, 4, 8]),
        pipeline in 1i64..6,
        cscan in any::<bool>(),
    ) {
        for name in ["bsd", "bsd-grouped"] {
            let mut p = Params::default();
            p.insert("pipeline", ParamValue::Int(pipeline));
            p.insert("cscan", ParamValue::Bool(cscan));
            run_fragmented(build(name, &p, &BuildContext::default()).unwrap(), depth, pipeline as usize, &ops)
                .map_err(TestCaseError::fail)?;
        }
    }
}

#[test]
fn yfq_with_grouping_and_tie_break_keeps_a_large_request_together() {
    // Two flows each read 256 KiB (4 fragments) at once; b = 4, n = 5 >= b + 1,
    // tie-breaking: each batch is one request's fragments in order (§3.4).
    let mut p = Params::default();
    p.insert("batch", ParamValue::Int(4));
    p.insert("tie_break", ParamValue::Bool(true));
    p.insert("group", ParamValue::Int(5));
    let mut tb = Testbed::new(build("yfq", &p, &BuildContext::default()).unwrap(), 8);
    for (flow, base) in [(0u32, 0u64), (1, 1 << 30)] {
        assert_eq!(add_split(&mut tb, flow, base, 512).len(), 4);
    }
    let batch = tb.fill();
    let sectors: Vec<u64> = batch.iter().map(|r| r.sector).collect();
    assert_eq!(sectors, vec![0, 128, 256, 384]);
    tb.complete_all(Duration::from_micros(1));
    let second: Vec<u32> = tb.fill().iter().map(|r| r.flow.0).collect();
    assert_eq!(second, vec![1, 1, 1, 1]);
}
