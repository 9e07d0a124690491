//! The fairness results of the VIOS paper (S. Seelam, P. Teller, "Virtual
//! I/O Scheduler: A Scheduler of Schedulers for Performance Virtualization",
//! VEE 2007) checked on `vios` (CFQ-CRR):
//!
//! * Lemma 1: after every turn, each class's compensating quantum is 0 or
//!   strictly between 0 and T_max (checked after every completion through
//!   `Vios::check_lemma1`);
//! * Theorem 1: for two continuously backlogged classes, over any interval
//!   between turn boundaries (which include all round boundaries),
//!   `|S_i/Q_i - S_j/Q_j| < 1 + T_max (1/Q_i + 1/Q_j)`, S the disk time each
//!   received.
//!
//! The driver is a depth-1 device that completes each request after a
//! service time drawn at random. The Theorem-1 checker is shown to reject
//! FQ-RR (whose unfairness grows with the number of rounds, the paper's
//! Eq. (1)) and a hand-made unfair sequence.

use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;

use sluice::policy::{fq_rr, Vios, ViosConfig, ViosMode};
use sluice::testkit::FlatDevice;
use sluice::{
    ClassConfig, Decision, Direction, FlowConfig, FlowId, Nanos, Request, RequestId, Scheduler,
    Service, NS_PER_MS,
};

/// Two classes (0 and 1) with quanta `q`, inner schedulers `inner`, one
/// flow each (flow c in class c).
fn setup(mut v: Vios, q: [Nanos; 2], inner: [&str; 2]) -> Vios {
    for c in 0..2 {
        let cfg = ClassConfig {
            name: format!("class{c}"),
            quantum: q[c],
            inner: inner[c].to_string(),
        };
        v.add_class(0, c as u32, &cfg);
        let flow = FlowConfig {
            weight: 100,
            class: Some(c as u32),
        };
        v.add_flow(0, FlowId(c as u32), &flow);
    }
    v
}

/// Drive `v` for `dispatches` requests, keeping both classes backlogged
/// (at least two queued each). The k-th request of class c takes
/// `service[c][k % len]`. Returns (class, service time) in dispatch order.
/// Checks one request in the device at a time and, if `lemma1`, Lemma 1
/// after every completion.
fn drive(
    v: &mut Vios,
    service: &[Vec<Nanos>; 2],
    dispatches: usize,
    lemma1: bool,
) -> Result<Vec<(usize, Nanos)>, String> {
    let mut dev = FlatDevice::at(0);
    let mut now: Nanos = 0;
    let mut next_id = 0u64;
    let mut added = [0usize; 2];
    let mut sent = [0usize; 2];
    let mut seq = Vec::new();
    let mut t_max = 0;
    for _ in 0..dispatches {
        for c in 0..2 {
            while added[c] - sent[c] < 2 {
                let r = Request {
                    id: RequestId(next_id),
                    origin: RequestId(next_id),
                    flow: FlowId(c as u32),
                    dir: Direction::Read,
                    sync: true,
                    // Sector order = arrival order within a class.
                    sector: ((c as u64) << 32) | (next_id * 64),
                    sectors: 8,
                    arrival: now,
                };
                next_id += 1;
                added[c] += 1;
                v.add(now, r);
            }
        }
        let r = match v.dispatch(now, &dev) {
            Decision::Dispatch(r) => r,
            d => return Err(format!("backlogged, but {d:?} at {now}")),
        };
        let c = r.flow.0 as usize;
        dev.in_flight = 1;
        if v.dispatch(now, &dev) != Decision::Nothing {
            return Err("a second request while one is in the device".into());
        }
        let svc_time = service[c][sent[c] % service[c].len()];
        sent[c] += 1;
        let start = now;
        now += svc_time;
        dev.in_flight = 0;
        dev.head = r.end();
        let svc = Service {
            dispatched: start,
            completed: now,
            disk_time: svc_time,
        };
        v.complete(now, &r, &svc);
        t_max = t_max.max(svc_time);
        if lemma1 {
            if v.t_max() != t_max {
                return Err(format!("T_max {} != {t_max}", v.t_max()));
            }
            v.check_lemma1()?;
        }
        seq.push((c, svc_time));
    }
    Ok(seq)
}

/// Theorem 1 over every interval between turn boundaries (a boundary is
/// where the dispatching class changes; the unfinished last turn is left
/// out). `slack` scales the bound (1.0 = the paper's).
fn check_theorem1(seq: &[(usize, Nanos)], q: [Nanos; 2], slack: f64) -> Result<(), String> {
    let t_max = seq.iter().map(|s| s.1).max().unwrap_or(0) as f64;
    let (qi, qj) = (q[0] as f64, q[1] as f64);
    let bound = slack * (1.0 + t_max * (1.0 / qi + 1.0 / qj));
    // Cumulative disk time per class at each boundary.
    let mut marks: Vec<(usize, [f64; 2])> = vec![(0, [0.0, 0.0])];
    let mut s = [0.0f64; 2];
    for (k, &(c, t)) in seq.iter().enumerate() {
        if k > 0 && seq[k - 1].0 != c {
            marks.push((k, s));
        }
        s[c] += t as f64;
    }
    for (a, &(ka, sa)) in marks.iter().enumerate() {
        for &(kb, sb) in &marks[a + 1..] {
            let d = ((sb[0] - sa[0]) / qi - (sb[1] - sa[1]) / qj).abs();
            if d >= bound {
                return Err(format!(
                    "dispatches {ka}..{kb}: |S_i/Q_i - S_j/Q_j| = {d:.4} >= {bound:.4} \
                     (T_max {t_max} ns, Q {q:?})"
                ));
            }
        }
    }
    Ok(())
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 96,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Quanta of 5..50 ms and service times below the smaller quantum (the
/// paper's assumption Q_i > T_max), given as per-mille fractions of it.
fn load() -> impl Strategy<Value = ([Nanos; 2], [Vec<Nanos>; 2])> {
    let q = 5 * NS_PER_MS..=50 * NS_PER_MS;
    let fr = || prop::collection::vec(1u64..1000, 1..24);
    (q.clone(), q, fr(), fr()).prop_map(|(q0, q1, f0, f1)| {
        let min_q = q0.min(q1);
        let svc = |f: Vec<u64>| f.into_iter().map(|x| (x * min_q / 1000).max(1)).collect();
        ([q0, q1], [svc(f0), svc(f1)])
    })
}

fn inner() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["noop", "clook", "sstf"])
}

proptest! {
    #![proptest_config(config())]

    /// Theorem 1 and Lemma 1 for CFQ-CRR with random quanta, random service
    /// times and any inner schedulers.
    #[test]
    fn cfq_crr_is_fair_theorem1_and_lemma1((q, service) in load(), i0 in inner(), i1 in inner()) {
        let mut v = setup(Vios::new(ViosConfig::new(ViosMode::Crr)), q, [i0, i1]);
        let seq = drive(&mut v, &service, 400, true).map_err(TestCaseError::fail)?;
        check_theorem1(&seq, q, 1.0).map_err(TestCaseError::fail)?;
        // Lemma 2's telescoping sum: what each class received is what its
        // turns were allotted, give or take the carried compensation.
        for st in v.stats() {
            prop_assert!(st.served > 0);
        }
    }

    /// Service times up to twice the smaller quantum (outside the paper's
    /// assumption): allotments can become non-positive, Lemma 1 still holds.
    #[test]
    fn lemma1_holds_when_requests_outlast_the_quantum(
        q in (2 * NS_PER_MS..=20 * NS_PER_MS, 2 * NS_PER_MS..=20 * NS_PER_MS),
        f in (prop::collection::vec(1u64..2000, 1..16), prop::collection::vec(1u64..2000, 1..16)),
    ) {
        let q = [q.0, q.1];
        let min_q = q[0].min(q[1]);
        let svc = |f: &Vec<u64>| f.iter().map(|x| (x * min_q / 1000).max(1)).collect::<Vec<_>>();
        let service = [svc(&f.0), svc(&f.1)];
        let mut v = setup(Vios::new(ViosConfig::new(ViosMode::Crr)), q, ["noop", "noop"]);
        drive(&mut v, &service, 300, true).map_err(TestCaseError::fail)?;
    }
}

/// Class 0's requests take 7 ms, class 1's 10 ms, Q = 20 ms: under FQ-RR
/// class 0 gets 21 ms per round against class 1's 20 ms, so the normalized
/// difference grows by 1/20 per round and crosses the Theorem-1 bound
/// (1 + 10 (2/20) = 2) after 40 rounds. CFQ-CRR stays within it.
#[test]
fn the_theorem1_checker_rejects_fq_rr_and_accepts_cfq_crr() {
    let q = [20 * NS_PER_MS; 2];
    let service = [vec![7 * NS_PER_MS], vec![10 * NS_PER_MS]];
    let mut fq = setup(fq_rr(20 * NS_PER_MS), q, ["noop", "noop"]);
    let seq = drive(&mut fq, &service, 300, false).unwrap();
    let err = check_theorem1(&seq, q, 1.0).unwrap_err();
    assert!(err.contains(">="), "{err}");
    let mut crr = setup(
        Vios::new(ViosConfig::new(ViosMode::Crr)),
        q,
        ["noop", "noop"],
    );
    let seq = drive(&mut crr, &service, 300, true).unwrap();
    check_theorem1(&seq, q, 1.0).unwrap();
}

#[test]
fn the_theorem1_checker_rejects_a_hand_made_unfair_sequence() {
    let q = [20 * NS_PER_MS; 2];
    // Class 0 gets 20 ms per turn, class 1 only 10 ms: the gap grows by 0.5
    // per round.
    let mut seq = Vec::new();
    for _ in 0..10 {
        seq.push((0, 10 * NS_PER_MS));
        seq.push((0, 10 * NS_PER_MS));
        seq.push((1, 10 * NS_PER_MS));
    }
    seq.push((0, NS_PER_MS));
    assert!(check_theorem1(&seq, q, 1.0).is_err());
    // Two rounds are still within the bound (1 + 10 * 2/20 = 2).
    assert!(check_theorem1(&seq[..6], q, 1.0).is_ok());
}

/// A deterministic load through the Lemma-1 check: CFQ-CRR's compensation
/// stays below T_max = 10 ms; FQ-RR never carries one.
#[test]
fn compensation_stays_below_t_max_under_cfq_crr() {
    let q = [20 * NS_PER_MS; 2];
    let service = [vec![7 * NS_PER_MS, 3 * NS_PER_MS], vec![10 * NS_PER_MS]];
    let mut crr = setup(
        Vios::new(ViosConfig::new(ViosMode::Crr)),
        q,
        ["noop", "clook"],
    );
    drive(&mut crr, &service, 500, true).unwrap();
    let mut max_cq = 0;
    for st in crr.stats() {
        max_cq = max_cq.max(st.compensation);
    }
    assert!(max_cq < 10 * NS_PER_MS as i64);
    let mut fq = setup(fq_rr(20 * NS_PER_MS), q, ["noop", "noop"]);
    drive(&mut fq, &service, 500, true).unwrap();
    assert!(fq.stats().iter().all(|s| s.compensation == 0));
}
