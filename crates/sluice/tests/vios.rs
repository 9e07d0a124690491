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
//! The testbed's device would take two requests, so that it sees VIOS send
//! one at a time, and it completes each request after a service time drawn
//! at random. The Theorem-1 checker is shown to reject FQ-RR (whose
//! unfairness grows with the number of rounds, the paper's Eq. (1)) and a
//! hand-made unfair sequence.

use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;

use sluice::policy::{fq_rr, Vios, ViosConfig, ViosMode};
use sluice::testkit::Testbed;
use sluice::{ClassConfig, Duration, Instant, Scheduler, NS_PER_MS};

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// Two classes (0 and 1) with quanta `q`, inner schedulers `inner`, one
/// flow each (flow c in class c), on a device of depth 2.
fn setup(mut v: Vios, q: [Duration; 2], inner: [&str; 2]) -> Testbed<Vios> {
    for c in 0..2 {
        let cfg = ClassConfig {
            name: format!("class{c}"),
            quantum: q[c],
            inner: inner[c].to_string(),
        };
        v.add_class(Instant::ZERO, c as u32, &cfg).unwrap();
    }
    let mut tb = Testbed::new(v, 2);
    for c in 0..2 {
        tb.flow_in(c, 100, Some(c));
    }
    tb
}

/// Serve `dispatches` requests, keeping both classes backlogged (at least
/// two queued each). The k-th request of class c takes
/// `service[c][k % len]`. Returns (class, service time) in dispatch order.
/// Checks one request in the device at a time and, if `lemma1`, Lemma 1
/// after every completion.
fn drive(
    tb: &mut Testbed<Vios>,
    service: &[Vec<Duration>; 2],
    dispatches: usize,
    lemma1: bool,
) -> Result<Vec<(usize, Duration)>, String> {
    let mut added = [0usize; 2];
    let mut sent = [0usize; 2];
    let mut seq = Vec::new();
    let mut t_max = Duration::ZERO;
    let mut n = 0u64;
    for _ in 0..dispatches {
        for c in 0..2 {
            while added[c] - sent[c] < 2 {
                // Sector order = arrival order within a class.
                tb.add(c as u32, ((c as u64) << 32) | (n * 64), 8);
                n += 1;
                added[c] += 1;
            }
        }
        let Some(r) = tb.poll() else {
            return Err(format!(
                "backlogged, but {:?} at {:?}",
                tb.answer(),
                tb.now()
            ));
        };
        if tb.poll().is_some() {
            return Err("a second request while one is in the device".into());
        }
        let c = r.flow.0 as usize;
        let svc_time = service[c][sent[c] % service[c].len()];
        sent[c] += 1;
        tb.complete_all(svc_time);
        t_max = t_max.max(svc_time);
        if lemma1 {
            let v = tb.policy();
            if v.t_max() != t_max {
                return Err(format!("T_max {:?} != {t_max:?}", v.t_max()));
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
fn check_theorem1(seq: &[(usize, Duration)], q: [Duration; 2], slack: f64) -> Result<(), String> {
    let ns = |d: Duration| d.as_nanos() as f64;
    let t_max = ns(seq.iter().map(|s| s.1).max().unwrap_or(Duration::ZERO));
    let (qi, qj) = (ns(q[0]), ns(q[1]));
    let bound = slack * (1.0 + t_max * (1.0 / qi + 1.0 / qj));
    // Cumulative disk time per class at each boundary.
    let mut marks: Vec<(usize, [f64; 2])> = vec![(0, [0.0, 0.0])];
    let mut s = [0.0f64; 2];
    for (k, &(c, t)) in seq.iter().enumerate() {
        if k > 0 && seq[k - 1].0 != c {
            marks.push((k, s));
        }
        s[c] += ns(t);
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

/// Service times as per-mille fractions `f` of `min_q` (at least 1 ns).
fn fractions_of(min_q: Duration, f: &[u64]) -> Vec<Duration> {
    f.iter()
        .map(|&x| Duration::from_nanos((x * min_q.as_nanos() / 1000).max(1)))
        .collect()
}

/// Quanta of 5..50 ms and service times below the smaller quantum (the
/// paper's assumption Q_i > T_max), given as per-mille fractions of it.
fn load() -> impl Strategy<Value = ([Duration; 2], [Vec<Duration>; 2])> {
    let q = 5 * NS_PER_MS..=50 * NS_PER_MS;
    let fr = || prop::collection::vec(1u64..1000, 1..24);
    (q.clone(), q, fr(), fr()).prop_map(|(q0, q1, f0, f1)| {
        let q = [q0, q1].map(Duration::from_nanos);
        let min_q = q[0].min(q[1]);
        (q, [fractions_of(min_q, &f0), fractions_of(min_q, &f1)])
    })
}

fn inner() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["noop", "clook", "sstf"])
}

fn crr() -> Vios {
    Vios::new(ViosConfig::new(ViosMode::Crr))
}

proptest! {
    #![proptest_config(config())]

    /// Theorem 1 and Lemma 1 for CFQ-CRR with random quanta, random service
    /// times and any inner schedulers.
    #[test]
    fn cfq_crr_is_fair_theorem1_and_lemma1((q, service) in load(), i0 in inner(), i1 in inner()) {
        let mut tb = setup(crr(), q, [i0, i1]);
        let seq = drive(&mut tb, &service, 400, true).map_err(TestCaseError::fail)?;
        check_theorem1(&seq, q, 1.0).map_err(TestCaseError::fail)?;
        // Both classes were served once the run outlasted the first turn
        // (at most its quantum plus one request, under 2 x the larger
        // quantum); tiny requests may not get that far in 400 dispatches.
        let total: Duration = seq.iter().map(|x| x.1).sum();
        if total >= q[0].max(q[1]) * 2 {
            for st in tb.policy().stats() {
                prop_assert!(st.served > Duration::ZERO);
            }
        }
    }

    /// Service times up to twice the smaller quantum (outside the paper's
    /// assumption): allotments can become non-positive, Lemma 1 still holds.
    #[test]
    fn lemma1_holds_when_requests_outlast_the_quantum(
        q in (2 * NS_PER_MS..=20 * NS_PER_MS, 2 * NS_PER_MS..=20 * NS_PER_MS),
        f in (prop::collection::vec(1u64..2000, 1..16), prop::collection::vec(1u64..2000, 1..16)),
    ) {
        let q = [q.0, q.1].map(Duration::from_nanos);
        let min_q = q[0].min(q[1]);
        let service = [fractions_of(min_q, &f.0), fractions_of(min_q, &f.1)];
        let mut tb = setup(crr(), q, ["noop", "noop"]);
        drive(&mut tb, &service, 300, true).map_err(TestCaseError::fail)?;
    }
}

/// Class 0's requests take 7 ms, class 1's 10 ms, Q = 20 ms: under FQ-RR
/// class 0 gets 21 ms per round against class 1's 20 ms, so the normalized
/// difference grows by 1/20 per round and crosses the Theorem-1 bound
/// (1 + 10 (2/20) = 2) after 40 rounds. CFQ-CRR stays within it.
#[test]
fn the_theorem1_checker_rejects_fq_rr_and_accepts_cfq_crr() {
    let q = [ms(20); 2];
    let service = [vec![ms(7)], vec![ms(10)]];
    let mut fq = setup(fq_rr(ms(20)), q, ["noop", "noop"]);
    let seq = drive(&mut fq, &service, 300, false).unwrap();
    let err = check_theorem1(&seq, q, 1.0).unwrap_err();
    assert!(err.contains(">="), "{err}");
    let mut crr = setup(crr(), q, ["noop", "noop"]);
    let seq = drive(&mut crr, &service, 300, true).unwrap();
    check_theorem1(&seq, q, 1.0).unwrap();
}

#[test]
fn the_theorem1_checker_rejects_a_hand_made_unfair_sequence() {
    let q = [ms(20); 2];
    // Class 0 gets 20 ms per turn, class 1 only 10 ms: the gap grows by 0.5
    // per round.
    let mut seq = Vec::new();
    for _ in 0..10 {
        seq.push((0, ms(10)));
        seq.push((0, ms(10)));
        seq.push((1, ms(10)));
    }
    seq.push((0, ms(1)));
    assert!(check_theorem1(&seq, q, 1.0).is_err());
    // Two rounds are still within the bound (1 + 10 * 2/20 = 2).
    assert!(check_theorem1(&seq[..6], q, 1.0).is_ok());
}

/// A deterministic load through the Lemma-1 check: CFQ-CRR's compensation
/// stays below T_max = 10 ms; FQ-RR never carries one.
#[test]
fn compensation_stays_below_t_max_under_cfq_crr() {
    let q = [ms(20); 2];
    let service = [vec![ms(7), ms(3)], vec![ms(10)]];
    let mut crr = setup(crr(), q, ["noop", "clook"]);
    drive(&mut crr, &service, 500, true).unwrap();
    let max_cq = crr.policy().stats().iter().map(|st| st.compensation).max();
    assert!(
        max_cq.is_some_and(|cq| cq < ms(10).as_nanos() as i64),
        "{max_cq:?}"
    );
    let mut fq = setup(fq_rr(ms(20)), q, ["noop", "noop"]);
    drive(&mut fq, &service, 500, true).unwrap();
    assert!(fq.policy().stats().iter().all(|s| s.compensation == 0));
}
