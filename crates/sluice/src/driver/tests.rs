//! Tests of the driver: queue depth, device-time attribution, completion
//! errors and the one time channel (wake-ups, idle waits).

use std::collections::VecDeque;

use proptest::prelude::*;

use super::*;
use crate::policy::Noop;
use crate::scheduler::{Capabilities, DeviceView};
use crate::testkit::{at_ms, req, FlatDevice};

/// A FIFO policy whose idle waits and timer the test sets by hand, and
/// which records what the driver tells it.
#[derive(Default)]
struct Probe {
    queue: VecDeque<Request>,
    /// While set and in the future, `dispatch` answers `Idle`.
    idle_until: Option<Instant>,
    /// A timer (the policy's wake-up when it is not idling).
    timer: Option<Instant>,
    /// An arrival ends the idle wait (as when the awaited flow issues).
    arrival_ends_idle: bool,
    fired: Vec<Instant>,
    completed: Vec<(RequestId, Service)>,
    /// The head it was shown at each `dispatch`.
    heads: Vec<u64>,
}

impl Scheduler for Probe {
    fn name(&self) -> &str {
        "probe"
    }
    fn add(&mut self, _now: Instant, request: Request) {
        self.queue.push_back(request);
        if self.arrival_ends_idle {
            self.idle_until = None;
        }
    }
    fn merge(&mut self, _now: Instant, _old: &Request, merged: &Request) {
        crate::policy::merge_queued(&mut self.queue, merged);
    }
    fn dispatch(&mut self, now: Instant, device: &dyn DeviceView) -> Decision {
        self.heads.push(device.head());
        if self.idle_until.is_some_and(|t| t > now) {
            return Decision::Idle;
        }
        match self.queue.pop_front() {
            Some(r) => Decision::Dispatch(r),
            None => Decision::Nothing,
        }
    }
    fn complete(&mut self, _now: Instant, request: &Request, service: &Service) {
        self.completed.push((request.id, *service));
    }
    fn poll_timeout(&self) -> Option<Instant> {
        crate::time::earliest([self.idle_until, self.timer])
    }
    fn handle_timeout(&mut self, now: Instant) {
        self.fired.push(now);
        self.idle_until = self.idle_until.filter(|&t| t > now);
        self.timer = self.timer.filter(|&t| t > now);
    }
    fn queued(&self) -> usize {
        self.queue.len()
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::idling_if(true)
    }
}

fn dev() -> FlatDevice {
    FlatDevice::at(0)
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[test]
fn keeps_the_queue_depth() {
    let mut d = Driver::new(Probe::default(), 2);
    for i in 0..3 {
        d.add(Instant::ZERO, req(i, 1, i * 8));
    }
    let now = Instant::ZERO;
    assert_eq!(
        d.poll_dispatch(now, &dev()).map(|r| r.id),
        Some(RequestId(0))
    );
    assert_eq!(
        d.poll_dispatch(now, &dev()).map(|r| r.id),
        Some(RequestId(1))
    );
    assert_eq!(d.poll_dispatch(now, &dev()), None);
    assert_eq!(d.last_answer(), LastAnswer::Full);
    assert_eq!((d.in_flight(), d.queued()), (2, 1));
    d.complete(at_ms(1), RequestId(0)).unwrap();
    assert_eq!(
        d.poll_dispatch(at_ms(1), &dev()).map(|r| r.id),
        Some(RequestId(2))
    );
    assert_eq!(d.poll_dispatch(at_ms(1), &dev()), None);
}

#[test]
fn depth_zero_means_one() {
    let mut d = Driver::new(Noop::default(), 0);
    assert_eq!(d.queue_depth(), 1);
    d.add(Instant::ZERO, req(0, 1, 0));
    d.add(Instant::ZERO, req(1, 1, 8));
    assert!(d.poll_dispatch(Instant::ZERO, &dev()).is_some());
    assert!(d.poll_dispatch(Instant::ZERO, &dev()).is_none());
}

#[test]
fn nothing_to_send_is_reported() {
    let mut d = Driver::new(Probe::default(), 4);
    assert_eq!(d.poll_dispatch(Instant::ZERO, &dev()), None);
    assert_eq!(d.last_answer(), LastAnswer::Nothing);
}

#[test]
fn head_follows_the_last_completion() {
    let mut d = Driver::new(Probe::default(), 4);
    d.add(Instant::ZERO, req(0, 1, 1000));
    d.add(Instant::ZERO, req(1, 1, 5000));
    d.poll_dispatch(Instant::ZERO, &dev()).unwrap();
    d.poll_dispatch(Instant::ZERO, &dev()).unwrap();
    // Dispatching says nothing of where the head goes: the drive may serve
    // its queue in any order.
    assert_eq!(d.head(), 0);
    // The drive served the second request first.
    d.complete(at_ms(1), RequestId(1)).unwrap();
    assert_eq!(d.head(), 5008);
    d.complete(at_ms(2), RequestId(0)).unwrap();
    assert_eq!(d.head(), 1008);
}

#[test]
fn the_policy_sees_the_head_of_the_last_completion() {
    let mut d = Driver::new(Probe::default(), 2);
    for i in 0..3 {
        d.add(Instant::ZERO, req(i, 1, 1000 * (i + 1)));
    }
    while d.poll_dispatch(Instant::ZERO, &dev()).is_some() {}
    d.complete(at_ms(1), RequestId(1)).unwrap();
    while d.poll_dispatch(at_ms(1), &dev()).is_some() {}
    // Dispatches from the start see head 0, the third one the end of
    // request 1 (2008), completed by then.
    let heads = &d.policy().heads;
    assert_eq!(heads[..2], [0, 0]);
    assert_eq!(heads.last(), Some(&2008));
}

#[test]
fn device_time_is_shared_among_requests_in_flight() {
    let mut d = Driver::new(Probe::default(), 2);
    d.add(Instant::ZERO, req(0, 1, 0));
    d.add(Instant::ZERO, req(1, 2, 8));
    d.poll_dispatch(Instant::ZERO, &dev()).unwrap();
    // b joins 2 ms later: a alone for 2 ms, then both for 2 ms.
    d.poll_dispatch(at_ms(2), &dev()).unwrap();
    let a = d.complete(at_ms(4), RequestId(0)).unwrap();
    assert_eq!(a.service.disk_time, ms(3));
    assert_eq!(a.service.dispatched, Instant::ZERO);
    assert_eq!(a.service.response(), ms(4));
    // b: 1 ms shared, then 2 ms alone.
    let b = d.complete(at_ms(6), RequestId(1)).unwrap();
    assert_eq!(b.service.disk_time, ms(3));
    assert_eq!(b.service.dispatched, at_ms(2));
    // The policy was told the same.
    let told: Vec<Duration> = d.policy().completed.iter().map(|c| c.1.disk_time).collect();
    assert_eq!(told, vec![ms(3), ms(3)]);
}

#[test]
fn odd_nanoseconds_are_not_lost() {
    let mut d = Driver::new(Probe::default(), 3);
    for i in 0..3 {
        d.add(Instant::ZERO, req(i, 1, i * 8));
        d.poll_dispatch(Instant::ZERO, &dev()).unwrap();
    }
    let end = Instant::from_nanos(1_000_001);
    let total: Duration = (0..3)
        .map(|i| d.complete(end, RequestId(i)).unwrap().service.disk_time)
        .sum();
    assert_eq!(total, end.since_origin());
}

#[test]
fn completing_what_is_not_in_flight_is_an_error() {
    let mut d = Driver::new(Probe::default(), 1);
    assert_eq!(
        d.complete(at_ms(1), RequestId(7)).unwrap_err(),
        Error::NotInFlight(RequestId(7))
    );
    d.add(Instant::ZERO, req(0, 1, 0));
    d.poll_dispatch(Instant::ZERO, &dev()).unwrap();
    assert!(d.complete(at_ms(1), RequestId(0)).is_ok());
    assert_eq!(
        d.complete(at_ms(2), RequestId(0)).unwrap_err(),
        Error::NotInFlight(RequestId(0))
    );
    assert!(d.policy().completed.len() == 1, "the policy hears once");
}

#[test]
fn a_due_timer_fires_before_the_policy_is_asked() {
    let mut d = Driver::new(Probe::default(), 1);
    d.policy_mut().timer = Some(at_ms(5));
    assert_eq!(d.poll_timeout(), Some(at_ms(5)));
    d.add(at_ms(6), req(0, 1, 0));
    // The host never called handle_timeout: the driver fires it first.
    d.poll_dispatch(at_ms(6), &dev()).unwrap();
    assert_eq!(d.policy().fired, vec![at_ms(6)]);
    assert_eq!(d.poll_timeout(), None);
}

#[test]
fn an_early_or_repeated_wake_up_does_nothing() {
    let mut d = Driver::new(Probe::default(), 1);
    d.policy_mut().timer = Some(at_ms(5));
    d.handle_timeout(at_ms(4));
    assert!(d.policy().fired.is_empty());
    d.handle_timeout(at_ms(5));
    d.handle_timeout(at_ms(5));
    assert_eq!(d.policy().fired, vec![at_ms(5)]);
}

#[test]
fn an_idle_wait_is_announced_through_poll_timeout() {
    let mut d = Driver::new(Probe::default(), 1);
    d.policy_mut().idle_until = Some(at_ms(10));
    d.add(Instant::ZERO, req(0, 1, 0));
    assert_eq!(d.poll_dispatch(Instant::ZERO, &dev()), None);
    assert_eq!(d.last_answer(), LastAnswer::Idle);
    assert_eq!(d.poll_timeout(), Some(at_ms(10)));
    d.handle_timeout(at_ms(10));
    assert_eq!(
        d.poll_dispatch(at_ms(10), &dev()).map(|r| r.id),
        Some(RequestId(0))
    );
    assert_eq!(d.poll_timeout(), None);
}

#[test]
fn an_idle_wait_cut_short_still_wakes_at_its_end() {
    let mut d = Driver::new(Probe::default(), 1);
    d.policy_mut().idle_until = Some(at_ms(10));
    d.policy_mut().arrival_ends_idle = true;
    assert_eq!(d.poll_dispatch(Instant::ZERO, &dev()), None);
    assert_eq!(d.last_answer(), LastAnswer::Idle);
    // The awaited request arrives and is served; the policy has no timer
    // left, but the driver still offers the device when the wait would
    // have ended.
    d.add(at_ms(3), req(0, 1, 0));
    d.poll_dispatch(at_ms(3), &dev()).unwrap();
    assert_eq!(d.policy().poll_timeout(), None);
    assert_eq!(d.poll_timeout(), Some(at_ms(10)));
    d.handle_timeout(at_ms(10));
    assert_eq!(d.poll_timeout(), None);
}

#[test]
fn drives_boxed_and_borrowed_policies() {
    let mut boxed: Driver<Box<dyn Scheduler>> = Driver::new(Box::new(Noop::default()), 1);
    boxed.add(Instant::ZERO, req(0, 1, 0));
    assert!(boxed.poll_dispatch(Instant::ZERO, &dev()).is_some());
    assert_eq!(boxed.policy().name(), "noop");

    let mut probe = Probe::default();
    {
        let mut borrowed = Driver::new(&mut probe, 1);
        borrowed.add(Instant::ZERO, req(0, 1, 0));
        borrowed.poll_dispatch(Instant::ZERO, &dev()).unwrap();
        borrowed.complete(at_ms(1), RequestId(0)).unwrap();
    }
    assert_eq!(probe.completed.len(), 1);
}

/// One host step in the property test.
#[derive(Clone, Debug)]
enum Step {
    Add,
    Complete(usize),
    Advance(u64),
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(
        prop_oneof![
            Just(Step::Add),
            (0usize..8).prop_map(Step::Complete),
            (1u64..3_000_000).prop_map(Step::Advance),
        ],
        1..200,
    )
}

proptest! {
    /// Whatever the host does, each request is dispatched and completed
    /// once, the depth is never exceeded, and the device time handed out
    /// equals the time the device was busy.
    #[test]
    fn attribution_adds_up_to_busy_time(steps in steps(), depth in 1usize..6) {
        let mut d = Driver::new(Noop::default(), depth);
        let (mut now, mut busy, mut next) = (Instant::ZERO, Duration::ZERO, 0u64);
        let mut handed = Duration::ZERO;
        let mut completions = 0u64;
        let mut complete = |d: &mut Driver<Noop>, now, id| {
            let c = d.complete(now, id).unwrap();
            handed += c.service.disk_time;
            completions += 1;
        };
        for s in &steps {
            match *s {
                Step::Add => {
                    d.add(now, req(next, 1, next * 8));
                    next += 1;
                }
                Step::Complete(i) => {
                    let ids: Vec<RequestId> = d.in_flight_requests().map(|(r, _)| r.id).collect();
                    if !ids.is_empty() {
                        complete(&mut d, now, ids[i % ids.len()]);
                    }
                }
                Step::Advance(ns) => {
                    if d.in_flight() > 0 {
                        busy += Duration::from_nanos(ns);
                    }
                    now += Duration::from_nanos(ns);
                }
            }
            while d.poll_dispatch(now, &dev()).is_some() {}
            prop_assert!(d.in_flight() <= depth);
        }
        // Drain: one more millisecond of service, then everything finishes.
        while d.in_flight() > 0 {
            busy += ms(1);
            now += ms(1);
            let id = d.in_flight_requests().next().map(|(r, _)| r.id).unwrap();
            complete(&mut d, now, id);
            while d.poll_dispatch(now, &dev()).is_some() {}
        }
        prop_assert_eq!(completions, next);
        prop_assert_eq!(handed, busy);
    }
}

// ----- merging ---------------------------------------------------------------

/// A driver over FIFO that merges up to `max` sectors, with the device full
/// (depth 1, request 100 in flight) so arrivals stay queued.
fn merging(max: u32) -> Driver<Noop> {
    let mut d = Driver::new(Noop::default(), 1).with_merging(max);
    d.add(Instant::ZERO, req(100, 9, 1 << 20));
    assert!(d.poll_dispatch(Instant::ZERO, &dev()).is_some());
    d
}

fn drain_one(d: &mut Driver<Noop>, now: Instant) -> Completion {
    let first = d.in_flight_requests().next().map(|(r, _)| r.id).unwrap();
    d.complete(now, first).unwrap();
    let r = d.poll_dispatch(now, &dev()).expect("a queued request");
    d.complete(now, r.id).unwrap()
}

#[test]
fn back_and_front_merges_join_contiguous_arrivals_of_one_flow() {
    let mut d = merging(1024);
    d.add(at_ms(1), req(0, 1, 800)); // 800..808
    d.add(at_ms(2), req(1, 1, 808)); // back merge
    d.add(at_ms(3), req(2, 1, 792)); // front merge
    assert_eq!(d.queued(), 1, "three arrivals, one request");
    assert_eq!(d.merges(), 2);
    let done = drain_one(&mut d, at_ms(10));
    assert_eq!(
        (done.request.id, done.request.sector, done.request.sectors),
        (RequestId(0), 792, 24)
    );
    assert_eq!(
        done.request.arrival,
        Instant::ZERO,
        "keeps the first arrival"
    );
    let ids: Vec<u64> = done.originals().iter().map(|r| r.id.0).collect();
    assert_eq!(ids, vec![2, 0, 1], "originals in sector order");
}

#[test]
fn merging_respects_flow_direction_sync_and_the_size_limit() {
    let mut d = merging(16);
    d.add(at_ms(1), req(0, 1, 800));
    d.add(at_ms(1), req(1, 2, 808)); // another flow
    let mut w = req(2, 1, 808);
    w.dir = crate::types::Direction::Write;
    d.add(at_ms(1), w); // another direction
    let mut a = req(3, 1, 808);
    a.sync = false;
    d.add(at_ms(1), a); // another sync class
    assert_eq!(d.queued(), 4);
    d.add(at_ms(1), req(4, 1, 792)); // 792..808 = 16 sectors: fits
    d.add(at_ms(1), req(5, 1, 784)); // would make 24: over the limit
    assert_eq!(d.queued(), 5);
    assert_eq!(d.merges(), 1);
}

#[test]
fn a_dispatched_request_takes_no_more_merges() {
    let mut d = Driver::new(Noop::default(), 1).with_merging(1024);
    d.add(at_ms(0), req(0, 1, 800));
    let r = d.poll_dispatch(at_ms(0), &dev()).unwrap();
    d.add(at_ms(1), req(1, 1, 808));
    assert_eq!(d.merges(), 0);
    assert_eq!(d.queued(), 1);
    let done = d.complete(at_ms(2), r.id).unwrap();
    assert_eq!(done.originals().len(), 1);
}

#[test]
fn without_merging_contiguous_arrivals_stay_apart() {
    let mut d = Driver::new(Noop::default(), 1);
    d.add(at_ms(0), req(100, 9, 1 << 20));
    let _ = d.poll_dispatch(at_ms(0), &dev());
    d.add(at_ms(1), req(0, 1, 800));
    d.add(at_ms(1), req(1, 1, 808));
    assert_eq!(d.queued(), 2);
    assert_eq!(d.max_merge_sectors(), None);
}

#[test]
fn each_original_gets_a_share_of_the_device_time_by_size() {
    let mut d = merging(1024);
    d.add(at_ms(1), req(0, 1, 800));
    let mut big = req(1, 1, 808);
    big.sectors = 24;
    d.add(at_ms(1), big);
    let first = d.in_flight_requests().next().map(|(r, _)| r.id).unwrap();
    d.complete(at_ms(1), first).unwrap();
    let r = d.poll_dispatch(at_ms(1), &dev()).unwrap();
    let done = d.complete(at_ms(5), r.id).unwrap();
    let shares: Vec<u64> = done.each().map(|(_, s)| s.disk_time.as_nanos()).collect();
    assert_eq!(shares, vec![1_000_000, 3_000_000]);
    assert!(done.each().all(|(_, s)| s.completed == at_ms(5)));
}

#[test]
fn another_flows_requests_neither_join_nor_block_a_merge() {
    let mut d = merging(1024);
    d.add(at_ms(1), req(0, 1, 800)); // flow 1, 800..808
    d.add(at_ms(1), req(1, 2, 808)); // flow 2, 808..816: contiguous, not joined
    d.add(at_ms(1), req(2, 1, 808)); // flow 1, 808..816: joins request 0
    assert_eq!(d.merges(), 1);
    assert_eq!(d.queued(), 2);
    let done = drain_one(&mut d, at_ms(5));
    let ids: Vec<u64> = done.originals().iter().map(|r| r.id.0).collect();
    assert_eq!(ids, vec![0, 2]);
}

#[test]
fn a_removed_flows_queued_requests_still_complete_with_their_parts() {
    let mut d = merging(1024);
    d.add(at_ms(1), req(0, 1, 800));
    d.add(at_ms(1), req(1, 1, 808));
    d.remove_flow(at_ms(2), FlowId(1));
    let done = drain_one(&mut d, at_ms(5));
    assert_eq!(done.originals().len(), 2);
}

#[test]
fn flows_with_large_numbers_merge_too() {
    let mut d = merging(1024);
    d.add(at_ms(1), req(0, u32::MAX, 800));
    d.add(at_ms(1), req(1, u32::MAX, 808));
    assert_eq!(d.merges(), 1);
    let done = drain_one(&mut d, at_ms(5));
    assert_eq!(done.originals().len(), 2);
    d.remove_flow(at_ms(6), FlowId(u32::MAX));
}
