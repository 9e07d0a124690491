//! Property tests for `bfq` and `bfq+`.
//!
//! * The scheduler invariants (`testkit::Testbed`: exactly-once dispatch,
//!   nothing invented, idle deadlines in the future and honoured, no stall
//!   with an empty device) at device depths 1, 4 and 32, with default and
//!   with varied parameters.
//! * Fairness: continuously backlogged flows with random weights and request
//!   sizes never lag their weighted fluid share by more than the bound
//!   B-WF2Q+ guarantees (derived below), and the checker rejects a
//!   scheduler given the wrong weights.

use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;

use sluice::policy::{build, BuildContext, ParamValue, Params};
use sluice::testkit::{at_ms, Op, Testbed};
use sluice::{Duration, Instant, Request, Scheduler};

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------------
// Invariants
// ---------------------------------------------------------------------------

fn sector() -> impl Strategy<Value = u64> {
    prop_oneof![0u64..(1u64 << 40) - 1024, 0u64..4096, 0u64..512]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (0u32..6, sector(), 1u32..512, any::<bool>()).prop_map(|(flow, sector, sectors, write)| {
            Op::Add { flow, sector, sectors, write }
        }),
        3 => (0usize..64).prop_map(Op::Complete),
        // Any span up to 200 ms, to the nanosecond.
        2 => (0..=Duration::from_millis(200).as_nanos())
            .prop_map(|ns| Op::Advance(Duration::from_nanos(ns))),
    ]
}

/// Parameters that make the rare paths common: short timeouts and idle
/// waits, small pinned budgets, each heuristic on or off.
fn params() -> impl Strategy<Value = Params> {
    (
        prop::option::of(1i64..20),
        prop::option::of(0i64..10),
        prop::option::of(16i64..4096),
        prop::collection::vec(any::<bool>(), 5),
    )
        .prop_map(|(timeout, idle, max_budget, switches)| {
            let mut p = Params::default();
            if let Some(t) = timeout {
                p.insert("timeout_ms", ParamValue::Int(t));
            }
            if let Some(i) = idle {
                p.insert("slice_idle_ms", ParamValue::Int(i));
            }
            if let Some(b) = max_budget {
                p.insert("max_budget", ParamValue::Int(b));
            }
            let names = [
                "low_latency",
                "peak_rate_lpf",
                "budget_rules",
                "fairness_rules",
                "write_throt",
            ];
            for (name, on) in names.into_iter().zip(switches) {
                p.insert(name, ParamValue::Bool(on));
            }
            p
        })
}

fn run_testbed(name: &str, params: &Params, depth: usize, script: &[Op]) {
    let mut tb = Testbed::new(
        build(name, params, &BuildContext::default()).unwrap(),
        depth,
    );
    for op in script {
        tb.step(op);
    }
    tb.drain();
}

proptest! {
    #![proptest_config(config(96))]

    #[test]
    fn bfq_and_bfq_plus_keep_the_invariants_at_depths_1_4_32(
        script in prop::collection::vec(op(), 0..300),
    ) {
        for name in ["bfq", "bfq+"] {
            for depth in [1, 4, 32] {
                run_testbed(name, &Params::default(), depth, &script);
            }
        }
    }

    #[test]
    fn bfq_and_bfq_plus_keep_the_invariants_with_any_parameters(
        script in prop::collection::vec(op(), 0..300),
        params in params(),
        depth in prop::sample::select(vec![1usize, 4, 32]),
    ) {
        for name in ["bfq", "bfq+"] {
            run_testbed(name, &params, depth, &script);
        }
    }
}

// ---------------------------------------------------------------------------
// Fairness
// ---------------------------------------------------------------------------

/// Device time per sector in the fairness runs (service time is
/// proportional to size, so the peak rate is the same for every slot and no
/// queue is slow or times out).
const PER_SECTOR: Duration = Duration::from_micros(1);
/// Requests each flow keeps queued.
const BACKLOG: usize = 2;
/// B_max pinned for the fairness runs, in sectors.
const MAX_BUDGET: u64 = 2048;

/// One fairness scenario.
#[derive(Clone, Debug)]
struct Scenario {
    /// True weights of the flows (the fluid shares are computed from them).
    weights: Vec<u32>,
    /// Request sizes of each flow, cycled.
    sizes: Vec<Vec<u32>>,
    /// Dispatches to run.
    steps: usize,
}

/// The lag bound, in sectors.
///
/// The technical report (§3.1, §3.2) bounds the lag of a flow with respect
/// to the fluid system by the sum of (1) a term proportional to the maximum
/// budget: a budget of another queue served out of order, at most `B_max`,
/// plus the flow's own budget, which B-WF2Q+ serves in one slot where the
/// fluid system serves it gradually, at most `B_max` again; and (2) the
/// difference between a budget and what the queue consumes of it before
/// expiring. Our flows never empty, so (2) is only what budget exhaustion
/// leaves unused: less than one request, `L_max`. Service is counted at
/// dispatch, which adds nothing beyond the request counted in (2). Hence
/// `lag <= 2 B_max + L_max`.
fn lag_bound(max_request: u32) -> f64 {
    (2 * MAX_BUDGET + u64::from(max_request)) as f64
}

/// Drive `sched` (flows registered with `registered` weights) on a serial
/// device through the scenario and check every flow's lag after every
/// dispatch against the fluid share computed from the scenario's true
/// weights.
fn check_fairness(
    sched: Box<dyn Scheduler>,
    sc: &Scenario,
    registered: &[u32],
) -> Result<f64, String> {
    let n = sc.weights.len();
    let mut tb = Testbed::new(sched, 1);
    let mut next_sector: Vec<u64> = (0..n as u64).map(|i| i << 32).collect();
    let mut next_size = vec![0usize; n];
    let mut add = |tb: &mut Testbed<Box<dyn Scheduler>>, f: usize| {
        let sizes = &sc.sizes[f];
        let sectors = sizes[next_size[f] % sizes.len()];
        next_size[f] += 1;
        tb.add(f as u32, next_sector[f], sectors);
        next_sector[f] += u64::from(sectors);
    };
    for (f, &w) in registered.iter().enumerate() {
        tb.flow(f as u32, w);
    }
    for _ in 0..BACKLOG {
        for f in 0..n {
            add(&mut tb, f);
        }
    }
    let wsum: f64 = sc.weights.iter().map(|&w| f64::from(w)).sum();
    let max_request = sc.sizes.iter().flatten().copied().max().unwrap_or(1);
    let bound = lag_bound(max_request);
    let mut served = vec![0u64; n];
    let mut total = 0u64;
    let mut worst = 0f64;
    for step in 0..sc.steps {
        let Some(r) = tb.poll() else {
            return Err(format!(
                "step {step}: backlogged flows, got {:?}",
                tb.answer()
            ));
        };
        let f = r.flow.0 as usize;
        // The flow stays backlogged: its next request arrives at once.
        add(&mut tb, f);
        served[f] += u64::from(r.sectors);
        total += u64::from(r.sectors);
        for g in 0..n {
            let share = total as f64 * f64::from(sc.weights[g]) / wsum;
            let lag = share - served[g] as f64;
            worst = worst.max(lag);
            if lag > bound {
                return Err(format!(
                    "step {step}: flow {g} (weight {}) lags its fluid share by {lag:.0} \
                     sectors > bound {bound:.0}; served {served:?}, weights {:?}",
                    sc.weights[g], sc.weights
                ));
            }
        }
        tb.complete_all(PER_SECTOR * u64::from(r.sectors));
    }
    Ok(worst)
}

fn fair_params(name: &str) -> Params {
    let mut p = Params::default();
    p.insert("max_budget", ParamValue::Int(MAX_BUDGET as i64));
    if name == "bfq+" {
        // Weight raising gives new flows more than their share on purpose
        // (§4.1); the fairness guarantee is about the weights.
        p.insert("low_latency", ParamValue::Bool(false));
    }
    p
}

fn scenario() -> impl Strategy<Value = Scenario> {
    (2usize..6)
        .prop_flat_map(|n| {
            (
                prop::collection::vec(1u32..=1000, n),
                prop::collection::vec(prop::collection::vec(1u32..=256, 1..8), n),
            )
        })
        .prop_map(|(weights, sizes)| Scenario {
            weights,
            sizes,
            steps: 3000,
        })
}

proptest! {
    #![proptest_config(config(48))]

    #[test]
    fn backlogged_flows_never_lag_their_fluid_share_beyond_the_bound(sc in scenario()) {
        for name in ["bfq", "bfq+"] {
            let s = build(name, &fair_params(name), &BuildContext::default()).unwrap();
            if let Err(e) = check_fairness(s, &sc, &sc.weights) {
                return Err(TestCaseError::fail(format!("{name}: {e}")));
            }
        }
    }
}

#[test]
fn the_fairness_check_rejects_wrong_weights() {
    // The scheduler believes both flows weigh 100; the fluid shares use
    // 100 and 400. Flow 1 falls behind linearly and crosses the bound.
    let sc = Scenario {
        weights: vec![100, 400],
        sizes: vec![vec![64], vec![64]],
        steps: 3000,
    };
    for name in ["bfq", "bfq+"] {
        let s = build(name, &fair_params(name), &BuildContext::default()).unwrap();
        let err = check_fairness(s, &sc, &[100, 100]).unwrap_err();
        assert!(err.contains("flow 1"), "{err}");
        // With the right weights the same scenario passes.
        let s = build(name, &fair_params(name), &BuildContext::default()).unwrap();
        check_fairness(s, &sc, &sc.weights).unwrap();
    }
}

#[test]
fn the_bound_is_within_a_small_factor_of_the_observed_lag() {
    // The worst lag observed with skewed weights reaches a good part of the
    // bound: the check is not vacuous.
    let sc = Scenario {
        weights: vec![1, 1000, 500],
        sizes: vec![vec![256], vec![8, 200], vec![100]],
        steps: 5000,
    };
    let s = build("bfq", &fair_params("bfq"), &BuildContext::default()).unwrap();
    let worst = check_fairness(s, &sc, &sc.weights).unwrap();
    // Observed: about 1900 of 4352 sectors.
    assert!(worst > lag_bound(256) / 4.0, "worst lag {worst}");
}

// ---------------------------------------------------------------------------
// A periodic reader among random readers
// ---------------------------------------------------------------------------

/// The disk of the video scenario, serving one request at a time: 8 ms to
/// reach a request that does not start where the last one ended, 10 us
/// per sector.
#[derive(Default)]
struct SeekingDisk {
    head: u64,
    /// The request it serves, and when it will be done.
    busy: Option<(Request, Instant)>,
    /// Dispatches of the testbed's log already taken.
    seen: usize,
}

impl SeekingDisk {
    /// Take what the testbed dispatched since the last look.
    fn take<P: Scheduler>(&mut self, tb: &Testbed<P>) {
        for &(at, r) in &tb.log[self.seen..] {
            assert!(self.busy.is_none(), "a depth-1 device got two requests");
            let seek = if r.sector == self.head {
                Duration::ZERO
            } else {
                Duration::from_millis(8)
            };
            self.head = r.end();
            let t = seek + Duration::from_micros(10) * u64::from(r.sectors);
            self.busy = Some((r, at + t));
        }
        self.seen = tb.log.len();
    }
}

/// Mean and maximum latency (ms) of a video-like flow, one sequential
/// 128-sector read every 37 ms, while ten random readers (8 sectors, one
/// request outstanding each, no think time) keep a depth-1 disk busy. The
/// disk: 8 ms to reach a non-contiguous request, 10 us per sector.
///
/// A random reader's next request arrives with the completion of its last
/// one, before the device is offered to the policy again (as the
/// simulator's readers without think time do). The frames are open-loop
/// and the disk's cost depends on the head, which `Testbed::run` does not
/// model, so the test steps the testbed against its own disk.
fn video_among_random_readers(name: &str) -> (f64, f64) {
    const FRAME: Duration = Duration::from_millis(37);
    let end = at_ms(40_000);
    // Not counted: the start, where every queue has the same budget and
    // timestamps and the first frame may wait for a whole round of slots
    // (the start-up latency §4.3 of the paper blames on large initial
    // budgets), and, under `bfq+`, the end of the weight raising of the
    // eleven new applications (T_rais = 6 s, with slots of up to 10 x T_max
    // while raised, as BFQ's code times raised queues out), after which the
    // random readers keep for a round the timestamps they got with raised
    // weights: frames issued in the first 20 s are not counted.
    let warmup = at_ms(20_000);
    let mut tb = Testbed::new(
        build(name, &Params::default(), &BuildContext::default()).unwrap(),
        1,
    );
    for f in 0..=10 {
        tb.flow(f, 100);
    }
    let mut lcg = 0x2545_f491_u64;
    let mut random_sector = || {
        lcg = lcg.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (lcg >> 24) % (1 << 28) + (1 << 28)
    };
    for f in 1..=10 {
        tb.add(f, random_sector(), 8);
    }
    let mut disk = SeekingDisk::default();
    let (mut next_frame, mut frame) = (Instant::ZERO, 0u64);
    let mut latencies = Vec::new();
    loop {
        tb.fill();
        disk.take(&tb);
        let t = [
            disk.busy.map(|b| b.1),
            Some(next_frame),
            tb.driver().poll_timeout(),
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap();
        if t >= end {
            break;
        }
        // Fires the policy's wake-up if it is due at `t` (and refills).
        tb.advance_to(t);
        disk.take(&tb);
        if let Some((r, _)) = disk.busy.filter(|b| b.1 <= t) {
            disk.busy = None;
            tb.complete(r.id);
            if r.flow.0 == 0 {
                if r.arrival >= warmup {
                    latencies.push((t - r.arrival).as_millis_f64());
                }
            } else {
                tb.add(r.flow.0, random_sector(), 8);
            }
        }
        if next_frame <= t {
            tb.add(0, frame * 128, 128);
            frame += 1;
            next_frame += FRAME;
        }
    }
    assert!(latencies.len() > 100, "{name}: {} frames", latencies.len());
    let mean = latencies.iter().sum::<f64>() / latencies.len() as f64;
    (mean, latencies.iter().copied().fold(0.0, f64::max))
}

/// Regression: under `bfq+` the first peak-rate sample, taken from a
/// random reader's slot, became the estimate and B_max collapsed to about
/// 150 sectors; random readers were no longer (over)charged on their budget
/// timeouts and the video flow got one request per round of ten 125 ms
/// slots (latencies of seconds, growing). B-WF2Q+ must serve it within
/// about one slot of the random readers.
#[test]
fn a_periodic_reader_is_served_promptly_among_random_readers() {
    for name in ["bfq+", "bfq"] {
        let (mean, max) = video_among_random_readers(name);
        eprintln!("{name}: mean {mean:.1} ms, max {max:.1} ms");
        assert!(
            mean < 150.0 && max < 400.0,
            "{name}: mean {mean:.1} ms, max {max:.1} ms"
        );
    }
}
