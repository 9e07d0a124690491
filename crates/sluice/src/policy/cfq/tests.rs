use super::*;
use crate::policy::testkit::{at_ms, ClosedFlow, Pattern, Testbed};
use crate::LastAnswer;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn seq(start: u64) -> Pattern {
    Pattern::Seq { next: start }
}

fn cfq_with(f: impl FnOnce(&mut CfqParams)) -> Cfq {
    let mut p = CfqParams::default();
    f(&mut p);
    Cfq::with_params(p)
}

/// A serial device (1 ms per request) running CFQ.
fn bed(s: Cfq) -> Testbed<Cfq> {
    Testbed::new(s, 1)
}

/// The sectors `flow` read, in dispatch order.
fn sectors(tb: &Testbed<Cfq>, flow: u32) -> Vec<u64> {
    tb.log
        .iter()
        .filter(|(_, r)| r.flow.0 == flow)
        .map(|(_, r)| r.sector)
        .collect()
}

#[test]
fn defaults_are_those_of_linux_2_6_34() {
    let p = CfqParams::default();
    assert_eq!(p.quantum, 8);
    assert_eq!(p.slice_sync, ms(100));
    assert_eq!(p.slice_async, ms(40));
    assert_eq!(p.slice_idle, ms(8));
    assert_eq!(p.fifo_expire_sync, ms(125));
    assert_eq!(p.fifo_expire_async, ms(250));
    assert_eq!((p.back_seek_max_kib, p.back_seek_penalty), (16384, 2));
    assert_eq!((p.slice_async_rq, p.target_latency), (2, ms(300)));
    assert!(p.low_latency && !p.nonrot);
}

#[test]
fn slice_lengths_scale_with_priority() {
    let s = Cfq::new();
    assert_eq!(s.prio_slice(true, 4), ms(100));
    assert_eq!(s.prio_slice(false, 4), ms(40));
    assert_eq!(s.prio_slice(true, 0), ms(180));
    assert_eq!(s.prio_slice(true, 7), ms(40));
    assert_eq!(s.prio_slice(false, 0), ms(72));
    assert_eq!(s.prio_to_maxrq(4), 16);
}

/// Two backlogged sequential readers: 100 ms slices (from the first
/// completion), served in turn.
#[test]
fn sync_queues_get_100ms_slices_in_round_robin() {
    let mut tb = bed(Cfq::new());
    tb.closed_flow(ClosedFlow::new(0, seq(0), true, 2, Duration::ZERO));
    tb.closed_flow(ClosedFlow::new(1, seq(1 << 30), true, 2, Duration::ZERO));
    tb.run(at_ms(1000));
    let runs = tb.runs();
    assert!(runs.len() >= 8, "{runs:?}");
    for w in runs.windows(2) {
        assert_ne!(w[0].0, w[1].0);
    }
    // Each slot: first dispatch at t, slice from t + 1 ms to t + 101 ms,
    // so 101 dispatches of 1 ms.
    for r in &runs[..runs.len() - 1] {
        assert_eq!(r.1, 101, "{runs:?}");
    }
}

#[test]
fn the_first_completion_starts_a_100ms_sync_or_40ms_async_slice() {
    for (sync, len) in [(true, ms(100)), (false, ms(40))] {
        let mut tb = bed(Cfq::new());
        tb.closed_flow(ClosedFlow::new(0, seq(0), sync, 4, Duration::ZERO));
        tb.run(at_ms(3));
        let (start, end) = tb.policy().active_slice().expect("slice started");
        assert_eq!(start, at_ms(1));
        assert_eq!(end - start, len);
    }
}

/// Flow 0 reads sequentially, thinking `think` after each request; from
/// its first dispatch on, flow 1 keeps 4 sequential reads queued elsewhere.
fn thinker_and_backlog(think: Duration, until: Instant) -> Testbed<Cfq> {
    let mut tb = bed(Cfq::new());
    tb.closed_flow(ClosedFlow::new(0, seq(0), true, 1, think));
    tb.run(Instant::ZERO);
    tb.closed_flow(ClosedFlow::new(1, seq(1 << 30), true, 4, Duration::ZERO));
    tb.run(until);
    tb
}

/// A sequential reader that thinks 3 ms between requests keeps the disk
/// although another reader is backlogged: CFQ idles 8 ms after each of
/// its completions and the next request arrives within the window.
#[test]
fn idles_8ms_for_an_emptied_sync_queue_and_keeps_serving_it() {
    let tb = thinker_and_backlog(ms(3), at_ms(50));
    assert_eq!(tb.idles[0], (at_ms(1), at_ms(9)));
    assert!(tb.idles.iter().all(|&(a, b)| b - a == ms(8)));
    // Only the thinking reader is served within its slice.
    assert!(tb.log.iter().all(|x| x.1.flow.0 == 0), "{:?}", tb.log);
    assert!(tb.count(0) >= 12);
}

/// When the emptied queue does not issue within 8 ms, the idle timer
/// expires the slot and the other queue runs.
#[test]
fn idle_timeout_hands_the_disk_to_the_next_queue() {
    let tb = thinker_and_backlog(ms(20), at_ms(12));
    assert_eq!(tb.idles[0], (at_ms(1), at_ms(9)));
    assert_eq!(tb.log[1].0, at_ms(9));
    assert_eq!(tb.log[1].1.flow.0, 1);
}

/// The idle timer is CFQ's one wake-up: while it waits, `poll_timeout`
/// says when the wait ends, and only `handle_timeout` ends it (at the
/// time it said, not before).
#[test]
fn the_idle_timer_is_the_one_time_channel() {
    let mut tb = bed(Cfq::new());
    let a = tb.add(0, 0, 8);
    tb.add(1, 1 << 30, 8);
    assert_eq!(tb.expect_dispatch().id, a.id);
    tb.complete_all(ms(1));
    // Flow 0 ran empty: CFQ idles for it although flow 1 waits.
    assert_eq!(tb.poll(), None);
    assert_eq!(tb.idle_until(), Some(at_ms(9)));
    assert_eq!(tb.policy().poll_timeout(), Some(at_ms(9)));
    // Asking again just before the timer is due changes nothing ...
    tb.advance_to(at_ms(9) - Duration::from_nanos(1));
    assert_eq!(tb.poll(), None);
    assert!(tb.policy().queues[tb.policy().active.unwrap()].wait_request);
    // ... and an early `handle_timeout` does not fire it.
    tb.policy_mut().handle_timeout(at_ms(8));
    assert_eq!(tb.policy().poll_timeout(), Some(at_ms(9)));
    // The wake-up at 9 ms ends the slot: flow 1 goes next, then.
    tb.advance_to(at_ms(9));
    assert_eq!(tb.policy().poll_timeout(), None);
    assert_eq!(tb.log[1].0, at_ms(9));
    assert_eq!(tb.log[1].1.flow.0, 1);
}

/// Four random readers with a 2 ms think time: once their seek history
/// marks them seeky they lose their idle window and, with other queues
/// on their (SYNC_NOIDLE) tree, the disk goes to the next queue at once.
/// (In 2.6.34 the last queue of that tree is still idled for.)
#[test]
fn seeky_queues_are_not_idled_for() {
    let mut tb = bed(Cfq::new());
    for (f, seed) in [1, 99, 12345, 777].into_iter().enumerate() {
        let pattern = Pattern::Rand { state: seed };
        tb.closed_flow(ClosedFlow::new(f as u32, pattern, true, 1, ms(2)));
    }
    tb.run(at_ms(1000));
    let late_idles = tb.idles.iter().filter(|x| x.0 > at_ms(500)).count();
    assert_eq!(late_idles, 0, "{:?}", &tb.idles);
    assert!(tb
        .policy()
        .queues
        .iter()
        .all(|q| q.seeky() && !q.idle_window));
    let late: Vec<_> = tb.log.iter().filter(|x| x.0 > at_ms(500)).collect();
    assert!(late.windows(2).all(|w| w[0].1.flow != w[1].1.flow));
    // The same flows reading sequentially are idled for.
    let mut tb = bed(Cfq::new());
    for f in 0..4u32 {
        let start = u64::from(f) << 30;
        tb.closed_flow(ClosedFlow::new(f, seq(start), true, 1, ms(2)));
    }
    tb.run(at_ms(1000));
    assert!(tb.idles.iter().filter(|x| x.0 > at_ms(500)).count() > 10);
}

/// On a deep device, a queue may have quantum/2 = 4 requests in flight
/// while another queue is busy; a lone queue has no limit.
#[test]
fn quantum_limits_the_requests_one_queue_has_in_flight() {
    for (flows, want) in [(2u32, 4usize), (1, 20)] {
        let mut tb = Testbed::new(Cfq::new(), 32);
        for f in 0..flows {
            for i in 0..20u64 {
                tb.add(f, (u64::from(f) << 30) | (i * 8), 8);
            }
        }
        let got = tb.fill();
        assert_eq!(got.len(), want, "{flows} flows");
        assert!(got.iter().all(|r| r.flow == got[0].flow));
    }
}

/// A request older than fifo_expire is served first at the start of its
/// queue's next slot, ahead of the sector order.
#[test]
fn fifo_expiry_overrides_the_sorted_order() {
    for (expire_ms, want_far_first) in [(50, true), (125, false)] {
        let mut tb = bed(cfq_with(|p| p.fifo_expire_sync = ms(expire_ms)));
        tb.closed_flow(ClosedFlow::new(0, seq(0), true, 2, Duration::ZERO));
        tb.run(Instant::ZERO);
        // Flow 1: a far request now, a near one (just above the other
        // flow's position) later; both wait for flow 0's slice.
        tb.add(1, 900_000_000, 8);
        tb.run(at_ms(60));
        tb.add(1, 100_000, 8);
        tb.run(at_ms(200));
        assert_eq!(tb.runs()[1].0, 1);
        let order = sectors(&tb, 1);
        assert_eq!(order[0] == 900_000_000, want_far_first, "{order:?}");
    }
}

/// With ten backlogged readers, low_latency shrinks a sync slice so
/// that ten fit in the 300 ms target latency (the busy-queue average
/// rises to 8 at the first slice: 100 * 300 / 800 = 37.5 ms).
#[test]
fn low_latency_scales_slices_down_with_many_busy_queues() {
    let ten_readers = |s: Cfq| {
        let mut tb = bed(s);
        for f in 0..10u32 {
            let start = u64::from(f) << 30;
            tb.closed_flow(ClosedFlow::new(f, seq(start), true, 2, Duration::ZERO));
        }
        tb
    };
    for (low_latency, want) in [(true, Duration::from_micros(37_500)), (false, ms(100))] {
        let mut tb = ten_readers(cfq_with(|p| p.low_latency = low_latency));
        tb.run(at_ms(2));
        let (start, end) = tb.policy().active_slice().unwrap();
        assert_eq!(end - start, want);
    }
    // Over a second, every reader is served within the target latency.
    let mut tb = ten_readers(Cfq::new());
    tb.run(at_ms(1000));
    let runs = tb.runs();
    assert!(runs.iter().skip(1).take(10).all(|r| r.1 <= 40), "{runs:?}");
    assert!((0..10).all(|f| tb.count(f) > 0));
}

/// A backlogged reader and a backlogged async writer: the reader gets
/// most of the disk, the writer is not starved.
#[test]
fn sync_is_preferred_over_async() {
    let mut tb = bed(Cfq::new());
    tb.closed_flow(ClosedFlow::new(0, seq(1 << 30), false, 64, Duration::ZERO));
    tb.closed_flow(ClosedFlow::new(1, seq(0), true, 1, Duration::ZERO));
    tb.run(at_ms(2000));
    let (w, r) = (tb.count(0), tb.count(1));
    // Sync slots are 100 ms, the async workload ~60 ms (40/100 of its
    // 150 ms share of the target latency).
    assert!(r * 10 > w * 13, "reads {r}, writes {w}");
    let runs = tb.runs();
    assert!(
        runs.iter().skip(2).filter(|x| x.0 == 0).all(|x| x.1 <= 70),
        "{runs:?}"
    );
    assert!(w > 0);
}

/// A sync request preempts an active async queue, and async requests
/// are held back while sync ones are in flight.
#[test]
fn sync_request_preempts_async_and_async_waits_for_sync_in_flight() {
    let write = |tb: &mut Testbed<Cfq>, i: u64| tb.add_request(0, (1 << 30) | (i * 8), 8, true);
    let mut tb = Testbed::new(Cfq::new(), 4);
    for i in 0..8 {
        write(&mut tb, i);
    }
    assert!(!tb.expect_dispatch().sync);
    tb.advance(ms(1));
    tb.add(1, 0, 8);
    assert!(tb.policy().active.is_none(), "the async slot was preempted");

    // A read in flight, its slot over (its flow is gone): the async queue
    // is chosen next but sends nothing until the read is done, though the
    // device has room.
    let mut tb = Testbed::new(Cfq::new(), 4);
    let read = tb.add(1, 0, 8);
    assert_eq!(tb.expect_dispatch().id, read.id);
    let now = tb.now();
    tb.policy_mut().remove_flow(now, FlowId(1));
    for i in 0..8 {
        write(&mut tb, i);
    }
    assert_eq!(tb.fill(), vec![]);
    assert_eq!(tb.answer(), LastAnswer::Nothing);
    let s = tb.policy();
    assert!(s.active.is_some_and(|q| !s.queues[q].sync));
    tb.complete_all(ms(1));
    assert!(tb.fill().iter().all(|r| !r.sync && r.flow == FlowId(0)));
    assert_eq!(tb.in_flight(), 4);
}

#[test]
fn builds_by_name_with_parameters() {
    let mut params = crate::policy::Params::default();
    params.insert("slice_idle_ms", crate::policy::ParamValue::Int(0));
    params.insert("low_latency", crate::policy::ParamValue::Bool(false));
    let s = crate::policy::build("cfq", &params, &crate::policy::BuildContext::default()).unwrap();
    assert_eq!(s.name(), "cfq");
    params.insert("quantum", crate::policy::ParamValue::Int(0));
    assert!(crate::policy::build("cfq", &params, &crate::policy::BuildContext::default()).is_err());
}
