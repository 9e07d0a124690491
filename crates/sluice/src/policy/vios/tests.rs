use super::*;
use crate::driver::LastAnswer;
use crate::testkit::{req, Testbed};
use crate::time::NS_PER_MS;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// `n` ms in the signed nanoseconds of the compensation accounts.
fn signed_ms(n: i64) -> i64 {
    n * NS_PER_MS as i64
}

fn class(name: &str, q_ms: u64, inner: &str) -> ClassConfig {
    ClassConfig {
        name: name.into(),
        quantum: ms(q_ms),
        inner: inner.into(),
    }
}

/// A VIOS with classes 0 and 1 of quanta `q0` and `q1` ms, both ordered by
/// `inner`.
fn vios(mode: ViosMode, q0: u64, q1: u64, inner: &str) -> Vios {
    let mut v = Vios::new(ViosConfig::new(mode));
    v.add_class(Instant::ZERO, 0, &class("a", q0, inner))
        .unwrap();
    v.add_class(Instant::ZERO, 1, &class("b", q1, inner))
        .unwrap();
    v
}

/// `v` on a device of `depth`, flows 0..4 registered (flow f in class f % 2).
fn on_device(v: Vios, depth: usize) -> Testbed<Vios> {
    let mut tb = Testbed::new(v, depth);
    for f in 0..4 {
        tb.flow_in(f, 100, Some(f % 2));
    }
    tb
}

/// [`vios`] on a serial device.
fn two_classes(mode: ViosMode, q0: u64, q1: u64, inner: &str) -> Testbed<Vios> {
    on_device(vios(mode, q0, q1, inner), 1)
}

/// `n` requests arrive, alternately from flows 0 and 1 (sectors 0, 1, ...).
fn alternate(tb: &mut Testbed<Vios>, n: u64) {
    for i in 0..n {
        tb.add((i % 2) as u32, i, 8);
    }
}

/// Serve up to `n` requests, one after the other, each taking `svc(r)`;
/// stops early when VIOS has nothing to send. The requests served.
fn serve(tb: &mut Testbed<Vios>, n: usize, svc: impl Fn(&Request) -> Duration) -> Vec<Request> {
    let mut out = Vec::new();
    for _ in 0..n {
        let Some(r) = tb.poll() else {
            assert_eq!(tb.answer(), LastAnswer::Nothing);
            break;
        };
        tb.complete_all(svc(&r));
        out.push(r);
    }
    out
}

fn classes_of(seq: &[Request]) -> Vec<u32> {
    seq.iter().map(|r| r.flow.0 % 2).collect()
}

fn ids(seq: &[Request]) -> Vec<u64> {
    seq.iter().map(|r| r.id.0).collect()
}

/// Class 0's requests take `even` ms, class 1's `odd` ms.
fn by_class(even: u64, odd: u64) -> impl Fn(&Request) -> Duration {
    move |r| {
        if r.flow.0.is_multiple_of(2) {
            ms(even)
        } else {
            ms(odd)
        }
    }
}

#[test]
fn one_request_in_the_device_at_a_time() {
    for mode in [ViosMode::Crr, ViosMode::FqRr] {
        // The device would take 32.
        let mut tb = on_device(vios(mode, 20, 20, "noop"), 32);
        for i in 0..6 {
            tb.add((i % 2) as u32, i * 100, 8);
        }
        assert_eq!(tb.fill().len(), 1);
        assert_eq!(tb.answer(), LastAnswer::Nothing);
        tb.complete_all(ms(1));
        assert_eq!(tb.fill().len(), 1);
        assert_eq!(tb.in_flight(), 1);
    }
}

#[test]
fn a_class_dispatches_while_its_quantum_is_positive_then_carries_the_overrun() {
    // Q = 20 ms for both; class 0's requests take 7 ms, class 1's 10 ms.
    let mut tb = two_classes(ViosMode::Crr, 20, 20, "noop");
    alternate(&mut tb, 40);
    let svc_of = by_class(7, 10);
    // Round 1: class 0 sends 3 (7, 14, 21 >= 20: overrun 1 ms), class 1
    // sends 2 (exactly 20: CQ = 0).
    let seq = serve(&mut tb, 5, &svc_of);
    assert_eq!(classes_of(&seq), vec![0, 0, 0, 1, 1]);
    let v = tb.policy();
    assert_eq!(v.class_stats(0).unwrap().compensation, signed_ms(1));
    assert_eq!(v.class_stats(1).unwrap().compensation, 0);
    // Round 2: class 0's quantum is 19 ms: 7, 14, 21 -> overrun 2 ms.
    let seq = serve(&mut tb, 3, &svc_of);
    assert_eq!(classes_of(&seq), vec![0, 0, 0]);
    let v = tb.policy();
    assert_eq!(v.rounds(), 1);
    let s0 = v.class_stats(0).unwrap();
    assert_eq!(s0.allotment, signed_ms(19));
    assert_eq!(s0.compensation, signed_ms(2));
    v.check_lemma1().unwrap();
}

#[test]
fn a_non_positive_quantum_skips_the_turn_and_carries_the_rest() {
    // Q = 5 ms, a 12 ms request: overrun 7 ms; next allotment -2 ms ->
    // no dispatch, CQ = 2 ms; then 3 ms.
    let mut tb = two_classes(ViosMode::Crr, 5, 100, "noop");
    alternate(&mut tb, 10);
    let svc_of = by_class(12, 1);
    let seq = serve(&mut tb, 1, &svc_of);
    assert_eq!(classes_of(&seq), vec![0]);
    assert_eq!(
        tb.policy().class_stats(0).unwrap().compensation,
        signed_ms(7)
    );
    // Class 1 has 5 requests of 1 ms: it empties before 100 ms.
    let seq = serve(&mut tb, 5, &svc_of);
    assert_eq!(classes_of(&seq), vec![1; 5]);
    assert_eq!(
        tb.policy().class_stats(1).unwrap().compensation,
        0,
        "forfeits"
    );
    // Class 0's turn: allotment 5 - 7 < 0, skipped, CQ = 2 ms, then the
    // next round's allotment 3 ms lets it send.
    let seq = serve(&mut tb, 1, &svc_of);
    assert_eq!(classes_of(&seq), vec![0]);
    let s0 = tb.policy().class_stats(0).unwrap();
    assert_eq!(s0.allotment, signed_ms(3));
    assert_eq!(s0.turns, 3);
    assert_eq!(s0.compensation, signed_ms(9));
}

#[test]
fn a_class_that_empties_forfeits_the_rest_of_its_quantum() {
    let mut tb = two_classes(ViosMode::Crr, 20, 20, "noop");
    // Class 0 has one 5 ms request, class 1 has many.
    tb.add(0, 0, 8);
    for i in 1..10 {
        tb.add(1, i, 8);
    }
    let seq = serve(&mut tb, 3, |_| ms(5));
    assert_eq!(classes_of(&seq), vec![0, 1, 1]);
    let s0 = tb.policy().class_stats(0).unwrap();
    assert_eq!(s0.compensation, 0);
    assert_eq!(s0.last_overrun, signed_ms(-15));
    // Class 0 gets a new request: it waits for class 1's turn to end
    // (4 x 5 ms = 20 ms) and then starts afresh with a full quantum.
    tb.add(0, 0, 8);
    let seq = serve(&mut tb, 3, |_| ms(5));
    assert_eq!(classes_of(&seq), vec![1, 1, 0]);
    assert_eq!(tb.policy().class_stats(0).unwrap().allotment, signed_ms(20));
    // Work conserving: alone, class 1 keeps the disk for its last 5.
    let seq = serve(&mut tb, 100, |_| ms(5));
    assert_eq!(classes_of(&seq), vec![1; 5]);
    assert_eq!(tb.policy().queued(), 0);
}

#[test]
fn the_inner_scheduler_orders_the_class_requests() {
    // The head starts at 0: C-LOOK sends ascending sectors.
    let mut tb = two_classes(ViosMode::Crr, 20, 20, "clook");
    for sector in [900, 100, 500, 300] {
        tb.add(0, sector, 8);
    }
    assert_eq!(ids(&serve(&mut tb, 10, |_| ms(1))), vec![1, 3, 2, 0]);
    // And noop keeps arrival order.
    let mut tb = two_classes(ViosMode::Crr, 20, 20, "noop");
    for sector in [900, 100, 500, 300] {
        tb.add(0, sector, 8);
    }
    assert_eq!(ids(&serve(&mut tb, 10, |_| ms(1))), vec![0, 1, 2, 3]);
}

#[test]
fn unannounced_classes_go_to_the_implicit_default_class() {
    let t0 = Instant::ZERO;
    let mut v = Vios::new(ViosConfig::new(ViosMode::Crr));
    v.add_class(t0, 3, &class("three", 10, "clook")).unwrap();
    v.add_flow(t0, FlowId(1), &FlowConfig::default());
    let cfg = FlowConfig {
        qos: crate::Qos {
            weight: 100,
            ..crate::Qos::default()
        },
        class: Some(9),
        ..FlowConfig::default()
    };
    v.add_flow(t0, FlowId(2), &cfg);
    v.add(t0, req(0, 1, 0));
    v.add(t0, req(1, 2, 0));
    v.add(t0, req(2, 7, 0)); // flow never announced
    let st = v.stats();
    assert_eq!(st.len(), 2);
    assert_eq!(st[1].class, None);
    assert_eq!(st[1].queued, 3);
    assert_eq!(st[1].quantum, ms(20));
    assert_eq!(st[1].inner, "noop");
}

#[test]
fn a_bad_inner_policy_name_is_an_error_naming_the_class() {
    let t0 = Instant::ZERO;
    let mut v = Vios::new(ViosConfig::new(ViosMode::Crr));
    let err = v.add_class(t0, 7, &class("seven", 10, "nope")).unwrap_err();
    let Error::UnknownInner {
        class: id,
        inner,
        available,
    } = &err
    else {
        panic!("{err:?}");
    };
    assert_eq!((*id, inner.as_str()), (7, "nope"));
    for name in ["noop", "clook", "cfq", "bfq"] {
        assert!(available.split(", ").any(|a| a == name), "{available}");
    }
    let msg = err.to_string();
    assert!(msg.contains("class 7") && msg.contains("'nope'") && msg.contains("clook"));
    assert!(v.stats().is_empty(), "no class added");
    // Re-announcing a class with a bad name fails and leaves it as it was.
    v.add_class(t0, 7, &class("seven", 10, "clook")).unwrap();
    let err = v
        .add_class(t0, 7, &class("renamed", 30, "nope"))
        .unwrap_err();
    assert!(
        matches!(err, Error::UnknownInner { class: 7, .. }),
        "{err:?}"
    );
    let st = v.class_stats(7).unwrap();
    assert_eq!(
        (st.name.as_str(), st.inner.as_str(), st.quantum),
        ("seven", "clook", ms(10))
    );
}

#[test]
fn fq_rr_never_compensates() {
    let svc_of = by_class(7, 10);
    let mut tb = two_classes(ViosMode::FqRr, 20, 20, "noop");
    for i in 0..60 {
        tb.add((i % 2) as u32, i, 8);
    }
    let seq = serve(&mut tb, 40, &svc_of);
    // Every round: 3 of class 0 (21 ms), 2 of class 1 (20 ms).
    assert_eq!(classes_of(&seq), [0, 0, 0, 1, 1].repeat(8));
    let s0 = tb.policy().class_stats(0).unwrap();
    assert_eq!(s0.compensation, 0);
    assert_eq!(s0.allotment, signed_ms(20));
    assert_eq!(s0.last_overrun, signed_ms(1));
    assert_eq!(s0.served, ms(8 * 21));
    // CFQ-CRR on the same load: the overruns add up (allotments 20, 19,
    // ..., 15 ms) and class 0's 7th turn has only 2 requests.
    let mut tb = two_classes(ViosMode::Crr, 20, 20, "noop");
    for i in 0..60 {
        tb.add((i % 2) as u32, i, 8);
    }
    let flows = classes_of(&serve(&mut tb, 40, &svc_of));
    assert_eq!(flows[..30], [0, 0, 0, 1, 1].repeat(6)[..]);
    assert_eq!(flows[30..34], [0, 0, 1, 1]);
}

#[test]
fn inner_idling_is_passed_through_and_charged() {
    let mut v = Vios::new(ViosConfig::new(ViosMode::Crr));
    v.add_class(Instant::ZERO, 0, &class("idler", 20, "cfq"))
        .unwrap();
    v.add_class(Instant::ZERO, 1, &class("plain", 20, "noop"))
        .unwrap();
    assert!(v.capabilities().may_idle);
    let mut tb = Testbed::new(v, 1);
    tb.flow_in(0, 100, Some(0));
    tb.flow_in(1, 100, Some(1));
    let a = tb.add(0, 0, 8);
    let b = tb.add(1, 1 << 30, 8);
    assert_eq!(tb.serve(ms(1)), a);
    // CFQ anticipates the sync flow's next request, so the class keeps the
    // disk (idling, until CFQ's wake-up) and the idle time is charged to it.
    let start = tb.now();
    tb.lapse_idle();
    while tb.idle_until().is_some() {
        tb.lapse_idle();
    }
    assert_eq!(tb.order(), vec![a, b]);
    let (sent_b, _) = tb.log[1];
    let waited: Duration = tb.idles.iter().map(|&(from, to)| to - from).sum();
    assert_eq!(tb.idles[0].0, start);
    assert_eq!(waited, sent_b - start);
    let s0 = tb.policy().class_stats(0).unwrap();
    assert!(s0.idled > Duration::ZERO, "CFQ anticipated");
    assert_eq!(s0.idled, sent_b - start);
    assert!(s0.idled <= ms(20), "bounded by the quantum");
    // The turn ended when CFQ had nothing more: 1 ms of service plus the
    // idle stretch, against a 20 ms allotment.
    assert_eq!(
        s0.last_overrun,
        signed_ms(1) + signed_ns(s0.idled) - signed_ms(20)
    );
}

// ---- VIOS(P) ----

/// VIOS(P) with two classes of quantum `q_ms` (inner `noop`), an initial
/// bandwidth estimate and a resume threshold, on a device of `depth`.
fn parallel(q_ms: u64, bw_mb_s: f64, resume_at: usize, depth: usize) -> Testbed<Vios> {
    let mut cfg = ViosConfig::new(ViosMode::Parallel);
    cfg.initial_bw = mb_s_to_sectors_per_ns(bw_mb_s);
    cfg.resume_at = resume_at;
    let mut v = Vios::new(cfg);
    v.add_class(Instant::ZERO, 0, &class("a", q_ms, "noop"))
        .unwrap();
    v.add_class(Instant::ZERO, 1, &class("b", q_ms, "noop"))
        .unwrap();
    on_device(v, depth)
}

#[test]
fn vios_p_sends_the_sector_budget_of_a_turn() {
    // 10 ms at 51.2 MB/s = 100_000 sectors/s -> SQ = 1000 sectors.
    let mut tb = parallel(10, 51.2, 2, 32);
    assert!((tb.policy().budget_for_test(ms(10)) - 1000.0).abs() < 1e-6);
    for i in 0..20 {
        tb.add((i % 2) as u32, i * 1000, 300);
    }
    let sent = tb.fill();
    // 300 + 300 + 300 < 1000, the 4th (1200) crosses it: 4 from class 0,
    // then the device holds 4 > resume_at: wait.
    assert_eq!(sent.len(), 4);
    assert!(sent.iter().all(|q| q.flow == FlowId(0)));
    assert_eq!(tb.answer(), LastAnswer::Nothing);
    assert_eq!(tb.policy().current_class(), None);
}

#[test]
fn vios_p_cuts_a_backlogged_class_off_at_its_budget_within_a_round() {
    // SQ = 1000 sectors (10 ms at 51.2 MB/s); each class holds 12 requests
    // of 300 sectors. With `resume_at` at the depth the hysteresis never
    // holds dispatching back and the device has room for all 24, so only
    // the sector budget ends class 0's turn: 4 requests (the 4th crosses
    // SQ), then class 1's 4 in the same round, then class 0 again.
    let mut tb = parallel(10, 51.2, 32, 32);
    for i in 0..24 {
        tb.add((i % 2) as u32, i * 1000, 300);
    }
    let sent = tb.fill();
    assert_eq!(
        classes_of(&sent[..9]),
        vec![0, 0, 0, 0, 1, 1, 1, 1, 0],
        "{:?}",
        classes_of(&sent)
    );
    assert!(tb.policy().rounds() >= 1);
    // Nothing has completed: no time was charged, the budget alone cut.
    let s0 = tb.policy().class_stats(0).unwrap();
    assert!(s0.turns >= 2, "{s0:?}");
    assert_eq!(s0.served, Duration::ZERO);
}

#[test]
fn vios_p_fills_at_most_k_then_resumes_at_two() {
    let mut tb = parallel(1000, 50.0, 2, 4);
    for i in 0..40 {
        tb.add(0, i * 1000, 8);
    }
    assert_eq!(tb.fill().len(), 4);
    // Full: one completion leaves 3 > 2 in the device: still nothing,
    // even though a slot is free.
    tb.advance(ms(1));
    let order = tb.order();
    tb.complete(order[0].id);
    assert_eq!(tb.poll(), None);
    assert_eq!(tb.answer(), LastAnswer::Nothing);
    // At two, it resumes and fills the device again.
    tb.complete(order[1].id);
    assert_eq!(tb.fill().len(), 2);
    assert_eq!(tb.in_flight(), 4);
}

#[test]
fn vios_p_with_resume_at_zero_waits_for_an_empty_device() {
    let mut tb = parallel(1000, 50.0, 0, 2);
    for i in 0..10 {
        tb.add(0, i * 1000, 8);
    }
    let sent = tb.fill();
    assert_eq!(sent.len(), 2);
    tb.advance(ms(1));
    tb.complete(sent[0].id);
    assert_eq!(tb.poll(), None, "1 > resume_at");
    assert_eq!(tb.answer(), LastAnswer::Nothing);
    tb.complete(sent[1].id);
    assert!(tb.poll().is_some());
}

#[test]
fn vios_p_measures_bandwidth_and_compensates_from_measured_service() {
    // Initial estimate 51.2 MB/s = 1e-4 sectors/ns. Class 0's 500-sector
    // requests take 10 ms alone (5e-5 sectors/ns: the first sample
    // replaces the initial estimate), class 1's take 5 ms (1e-4: the new
    // maximum).
    let mut tb = parallel(20, 51.2, 2, 1);
    for i in 0..40 {
        tb.add((i % 2) as u32, i * 1000, 500);
    }
    let svc_of = by_class(10, 5);
    // Class 0's turn: 2 requests (time reaches 20 ms), then class 1's
    // turn: its 4 requests (2000 sectors) in 20 ms.
    let seq = serve(&mut tb, 4, &svc_of);
    assert_eq!(classes_of(&seq), vec![0, 0, 1, 1]);
    assert!((tb.policy().bandwidth() - 0.0001).abs() < 1e-12);
    let seq = serve(&mut tb, 2, &svc_of);
    assert_eq!(classes_of(&seq), vec![1, 1]);
    let s1 = tb.policy().class_stats(1).unwrap();
    assert_eq!(s1.compensation, 0);
    assert_eq!(s1.served, ms(20));
}

#[test]
fn vios_p_carries_an_overrun_measured_after_the_turn() {
    // Class 0 sends 4 x 250 sectors (SQ = 1000) into a deep device; they
    // complete together after 32 ms, charged 8 ms each: 32 ms for a 10 ms
    // quantum -> CQ = 22 ms.
    let mut tb = parallel(10, 51.2, 2, 8);
    for i in 0..20 {
        tb.add((i % 2) as u32, i * 1000, 250);
    }
    let sent = tb.fill();
    assert_eq!(sent.len(), 4);
    assert!(sent.iter().all(|q| q.flow == FlowId(0)), "{sent:?}");
    tb.complete_all(ms(32));
    let s0 = tb.policy().class_stats(0).unwrap();
    assert_eq!(s0.served, ms(32));
    assert_eq!(s0.compensation, signed_ms(22));
    // Class 1's turn: 4 requests, 8 ms together, charged 2 ms each: it used
    // only 8 ms of its 10 ms when its sector budget ran out: a 2 ms credit.
    let sent = tb.fill();
    assert_eq!(sent.len(), 4);
    assert!(sent.iter().all(|q| q.flow == FlowId(1)), "{sent:?}");
    tb.complete_all(ms(8));
    assert_eq!(
        tb.policy().class_stats(1).unwrap().compensation,
        signed_ms(-2)
    );
    // Round 2: class 0's allotment is 10 - 22 < 0: skipped (CQ = 12 ms);
    // class 1 gets 12 ms.
    assert_eq!(tb.expect_dispatch().flow, FlowId(1));
    let v = tb.policy();
    assert_eq!(v.class_stats(0).unwrap().compensation, signed_ms(12));
    assert_eq!(v.class_stats(1).unwrap().allotment, signed_ms(12));
}

impl Vios {
    fn budget_for_test(&self, allot: Duration) -> f64 {
        allot.as_nanos() as f64 * self.bandwidth()
    }
}

/// The active list under a random mix of arrivals and completions: after
/// every step each class holding requests (but the one whose turn it is)
/// waits in the list exactly once, and everything added is dispatched.
#[test]
fn the_active_list_holds_every_waiting_backlogged_class() {
    for (mode, depth) in [
        (ViosMode::Crr, 1),
        (ViosMode::FqRr, 1),
        (ViosMode::Parallel, 4),
    ] {
        let mut v = Vios::new(ViosConfig::new(mode));
        for c in 0..6 {
            v.add_class(Instant::ZERO, c, &class(&format!("c{c}"), 3, "noop"))
                .unwrap();
        }
        let mut tb = Testbed::new(v, depth);
        for f in 0..12 {
            tb.flow_in(f, 100, Some(f % 6));
        }
        let mut seed: u64 = 12345;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        let (mut added, mut flight) = (0u64, Vec::new());
        for step in 0..3000u64 {
            if step < 2000 && next(3) > 0 {
                tb.add(next(12) as u32, next(1 << 20) * 8, 8);
                added += 1;
            } else {
                flight.extend(tb.fill());
                if !flight.is_empty() {
                    tb.advance(ms(1 + next(5)));
                    let r = flight.remove(next(flight.len() as u64) as usize);
                    tb.complete(r.id);
                }
            }
            tb.policy().check_active_list().unwrap();
        }
        for _ in 0..10_000 {
            flight.extend(tb.fill());
            let Some(r) = flight.pop() else { break };
            tb.advance(ms(2));
            tb.complete(r.id);
            tb.policy().check_active_list().unwrap();
        }
        assert_eq!(tb.order().len() as u64, added, "{mode:?}");
        assert_eq!(tb.policy().queued(), 0);
    }
}
