//! Property tests for `bfq` and `bfq+`.
//!
//! * The scheduler invariants (`testkit::Harness`: exactly-once dispatch,
//!   nothing invented, idle deadlines in the future and honoured, no stall
//!   with an empty device) at device depths 1, 4 and 32, with default and
//!   with varied parameters.
//! * Fairness: continuously backlogged flows with random weights and request
//!   sizes never lag their weighted fluid share by more than the bound
//!   B-WF2Q+ guarantees (derived below), and the checker rejects a
//!   scheduler given the wrong weights.

use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;

use sluice::policy::{build, ParamValue, Params};
use sluice::testkit::{FlatDevice, Harness, Op};
use sluice::{
    Decision, Direction, FlowConfig, FlowId, Nanos, Request, RequestId, Scheduler, Service,
    NS_PER_MS,
};

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
        2 => (0..=200 * NS_PER_MS).prop_map(Op::Advance),
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

fn run_harness(name: &str, params: &Params, depth: usize, script: &[Op]) {
    let mut s = build(name, params).unwrap();
    let mut h = Harness::new(s.as_mut(), depth);
    for op in script {
        h.step(op);
    }
    h.drain();
}

proptest! {
    #![proptest_config(config(96))]

    #[test]
    fn bfq_and_bfq_plus_keep_the_invariants_at_depths_1_4_32(
        script in prop::collection::vec(op(), 0..300),
    ) {
        for name in ["bfq", "bfq+"] {
            for depth in [1, 4, 32] {
                run_harness(name, &Params::default(), depth, &script);
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
            run_harness(name, &params, depth, &script);
        }
    }
}

// ---------------------------------------------------------------------------
// Fairness
// ---------------------------------------------------------------------------

/// Device time per sector in the fairness driver (service time is
/// proportional to size, so the peak rate is the same for every slot and no
/// queue is slow or times out).
const NS_PER_SECTOR: Nanos = 1_000;
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

/// Drive `sched` (flows registered with `registered` weights) through the
/// scenario and check every flow's lag after every dispatch against the
/// fluid share computed from the scenario's true weights.
fn check_fairness(
    sched: &mut dyn Scheduler,
    sc: &Scenario,
    registered: &[u32],
) -> Result<f64, String> {
    let n = sc.weights.len();
    let mut dev = FlatDevice::at(0);
    let mut now: Nanos = 0;
    let mut id = 0u64;
    let mut next_sector: Vec<u64> = (0..n as u64).map(|i| i << 32).collect();
    let mut next_size = vec![0usize; n];
    let mut add = |sched: &mut dyn Scheduler, f: usize, now: Nanos| {
        let sizes = &sc.sizes[f];
        let sectors = sizes[next_size[f] % sizes.len()];
        next_size[f] += 1;
        let r = Request {
            id: RequestId(id),
            origin: RequestId(id),
            flow: FlowId(f as u32),
            dir: Direction::Read,
            sync: true,
            sector: next_sector[f],
            sectors,
            arrival: now,
        };
        id += 1;
        next_sector[f] += u64::from(sectors);
        sched.add(now, r);
    };
    for (f, &w) in registered.iter().enumerate() {
        let cfg = FlowConfig {
            weight: w,
            class: None,
        };
        sched.add_flow(0, FlowId(f as u32), &cfg);
    }
    for _ in 0..BACKLOG {
        for f in 0..n {
            add(sched, f, 0);
        }
    }
    let wsum: f64 = sc.weights.iter().map(|&w| f64::from(w)).sum();
    let max_request = sc.sizes.iter().flatten().copied().max().unwrap_or(1);
    let bound = lag_bound(max_request);
    let mut served = vec![0u64; n];
    let mut total = 0u64;
    let mut worst = 0f64;
    for step in 0..sc.steps {
        let r = match sched.dispatch(now, &dev) {
            Decision::Dispatch(r) => r,
            d => return Err(format!("step {step}: backlogged flows, got {d:?}")),
        };
        let f = r.flow.0 as usize;
        // The flow stays backlogged: its next request arrives at once.
        add(sched, f, now);
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
        dev.head = r.end();
        let t = u64::from(r.sectors) * NS_PER_SECTOR;
        now += t;
        let svc = Service {
            dispatched: now - t,
            completed: now,
            disk_time: t,
        };
        sched.complete(now, &r, &svc);
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
            let mut s = build(name, &fair_params(name)).unwrap();
            if let Err(e) = check_fairness(s.as_mut(), &sc, &sc.weights) {
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
        let mut s = build(name, &fair_params(name)).unwrap();
        let err = check_fairness(s.as_mut(), &sc, &[100, 100]).unwrap_err();
        assert!(err.contains("flow 1"), "{err}");
        // With the right weights the same scenario passes.
        let mut s = build(name, &fair_params(name)).unwrap();
        check_fairness(s.as_mut(), &sc, &sc.weights).unwrap();
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
    let mut s = build("bfq", &fair_params("bfq")).unwrap();
    let worst = check_fairness(s.as_mut(), &sc, &sc.weights).unwrap();
    // Observed: about 1900 of 4352 sectors.
    assert!(worst > lag_bound(256) / 4.0, "worst lag {worst}");
}

// ---------------------------------------------------------------------------
// A periodic reader among random readers
// ---------------------------------------------------------------------------

/// Mean and maximum latency (ms) of a video-like flow, one sequential
/// 128-sector read every 37 ms, while ten random readers (8 sectors, one
/// request outstanding each, no think time) keep a depth-1 disk busy. The
/// disk: 8 ms to reach a non-contiguous request, 10 us per sector. Frames
/// issued in the first 10 s are not counted.
fn video_among_random_readers(name: &str) -> (f64, f64) {
    const FRAME: Nanos = 37 * NS_PER_MS;
    const END: Nanos = 30_000 * NS_PER_MS;
    // Not counted: the start, where every queue has the same budget and
    // timestamps and the first frame may wait for a whole round of slots
    // (the start-up latency §4.3 of the paper blames on large initial
    // budgets), and, under `bfq+`, the end of the weight raising of the
    // eleven new applications (T_rais = 6 s), after which the random
    // readers keep for a round the timestamps they got with raised weights.
    const WARMUP: Nanos = 10_000 * NS_PER_MS;
    let mut s = build(name, &Params::default()).unwrap();
    let mut dev = FlatDevice::at(0);
    for f in 0..=10 {
        s.add_flow(0, FlowId(f), &FlowConfig::default());
    }
    let mut id = 0u64;
    let mut lcg = 0x2545_f491_u64;
    let mut request = |flow: u32, sector: u64, sectors: u32, now: Nanos| {
        id += 1;
        Request {
            id: RequestId(id),
            origin: RequestId(id),
            flow: FlowId(flow),
            dir: Direction::Read,
            sync: true,
            sector,
            sectors,
            arrival: now,
        }
    };
    let mut random_sector = || {
        lcg = lcg.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (lcg >> 24) % (1 << 28) + (1 << 28)
    };
    let mut now = 0;
    for f in 1..=10 {
        s.add(now, request(f, random_sector(), 8, now));
    }
    let (mut next_frame, mut frame) = (0, 0u64);
    let mut busy: Option<(Request, Nanos, Nanos)> = None;
    let mut idle_until: Option<Nanos> = None;
    let mut latencies = Vec::new();
    while now < END {
        if busy.is_none() {
            match s.dispatch(now, &dev) {
                Decision::Dispatch(r) => {
                    let seek = if r.sector == dev.head {
                        0
                    } else {
                        8 * NS_PER_MS
                    };
                    dev.head = r.end();
                    dev.in_flight = 1;
                    idle_until = None;
                    busy = Some((r, now, now + seek + u64::from(r.sectors) * 10_000));
                    continue;
                }
                Decision::IdleUntil(t) => idle_until = Some(t),
                Decision::Nothing => idle_until = None,
            }
        }
        let t = [
            busy.map(|b| b.2),
            Some(next_frame),
            s.next_timer(),
            idle_until,
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap();
        now = now.max(t);
        if let Some((r, at, done)) = busy.filter(|b| b.2 <= now) {
            busy = None;
            dev.in_flight = 0;
            let svc = Service {
                dispatched: at,
                completed: done,
                disk_time: done - at,
            };
            s.complete(now, &r, &svc);
            if r.flow == FlowId(0) {
                if r.arrival >= WARMUP {
                    latencies.push((now - r.arrival) as f64 / NS_PER_MS as f64);
                }
            } else {
                s.add(now, request(r.flow.0, random_sector(), 8, now));
            }
        }
        if next_frame <= now {
            s.add(now, request(0, frame * 128, 128, now));
            frame += 1;
            next_frame += FRAME;
        }
        if s.next_timer().is_some_and(|x| x <= now) {
            s.on_timer(now);
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
