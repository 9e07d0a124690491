use super::*;
use crate::policy::bsd::tests::frag;
use crate::policy::testkit::{req, FlatDevice, Testbed};

fn r(id: u64, flow: u32, sector: u64, sectors: u32) -> Request {
    Request {
        sectors,
        ..req(id, flow, sector)
    }
}

/// `s` on a device that takes 64 requests: what limits dispatch is the
/// batch.
fn bed(s: Yfq) -> Testbed<Yfq> {
    Testbed::new(s, 64)
}

fn yfq(params: YfqParams) -> Yfq {
    Yfq::new(params)
}

/// `request` arrives now (its flow registered first, at weight 100 unless
/// set before).
fn add(tb: &mut Testbed<Yfq>, request: Request) {
    tb.flow(request.flow.0, 100);
    tb.add_given(request);
}

/// YFQ with `params` on [`bed`], holding `requests`.
fn loaded(params: YfqParams, requests: impl IntoIterator<Item = Request>) -> Testbed<Yfq> {
    let mut tb = bed(yfq(params));
    for request in requests {
        add(&mut tb, request);
    }
    tb
}

/// Let YFQ fill the device; the ids sent.
fn fill_ids(tb: &mut Testbed<Yfq>) -> Vec<u64> {
    ids(&tb.fill())
}

/// Request `id` completes now.
fn done(tb: &mut Testbed<Yfq>, id: u64) {
    tb.complete(RequestId(id));
}

fn ids(v: &[Request]) -> Vec<u64> {
    v.iter().map(|r| r.id.0).collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn start_is_max_of_v_and_previous_finish_and_finish_adds_length_over_weight() {
    let mut tb = bed(yfq(YfqParams::default()));
    tb.flow(1, 100);
    tb.flow(2, 50);
    add(&mut tb, r(0, 1, 0, 100)); // S = max(0, 0) = 0, F = 1
    add(&mut tb, r(1, 1, 0, 50)); // queued behind: chain S = 1, F = 1.5
    add(&mut tb, r(2, 2, 0, 100)); // S = max(v = 0, 0) = 0, F = 2
    let s = tb.policy();
    assert_eq!(s.finish_tag(RequestId(0)), Some(1.0));
    assert_eq!(s.finish_tag(RequestId(1)), Some(1.5));
    assert_eq!(s.finish_tag(RequestId(2)), Some(2.0));
    assert_eq!(s.tags(FlowId(1)), Some((0.0, 1.5)));
    // Smallest finish tag first, one at a time (b = 1).
    assert_eq!(fill_ids(&mut tb), vec![0]);
    tb.complete_all(Duration::from_millis(1));
    // The head moved on: S_1 = 1; v = min(S_1, S_2) = 0.
    assert_eq!(tb.policy().tags(FlowId(1)), Some((1.0, 1.5)));
    assert_eq!(tb.policy().virtual_work(), 0.0);
    assert_eq!(fill_ids(&mut tb), vec![1]);
    tb.complete_all(Duration::from_millis(1));
    assert_eq!(fill_ids(&mut tb), vec![2]);
    tb.complete_all(Duration::from_millis(1));
    // Idle: v = the maximum of all finish tags (F_2 = 2 > F_1 = 1.5).
    assert_eq!(tb.policy().virtual_work(), 2.0);
    add(&mut tb, r(3, 1, 0, 100));
    assert_eq!(tb.policy().tags(FlowId(1)), Some((2.0, 3.0)));
}

#[test]
fn l_lat_is_added_to_every_length() {
    let mut s = yfq(YfqParams {
        l_lat_kb: 64,
        ..YfqParams::default()
    });
    s.add(Instant::ZERO, r(0, 1, 0, 8)); // (8 + 128 sectors) / 100
    s.add(Instant::ZERO, r(1, 1, 0, 8));
    assert!(close(s.finish_tag(RequestId(0)).unwrap(), 1.36));
    assert!(close(s.finish_tag(RequestId(1)).unwrap(), 2.72));
}

#[test]
fn v_is_the_minimum_busy_start_tag_and_stays_at_max_finish_while_idle() {
    let mut tb = bed(yfq(YfqParams::default()));
    // Flow 1 runs alone for a while: its tags climb to 10.
    for i in 0..10 {
        add(&mut tb, r(i, 1, 0, 100));
    }
    for i in 0..9 {
        assert_eq!(fill_ids(&mut tb), vec![i]);
        done(&mut tb, i);
    }
    // Busy with S_1 = 9: a newcomer starts at v = 9, not at 0 (no credit
    // for having been idle) and not at F_1 = 10.
    assert_eq!(tb.policy().virtual_work(), 9.0);
    add(&mut tb, r(100, 2, 0, 100));
    assert_eq!(tb.policy().tags(FlowId(2)), Some((9.0, 10.0)));
    // Both complete; the disk idles: v jumps to max F = 10 and stays there
    // however long the idle period lasts.
    assert_eq!(fill_ids(&mut tb), vec![9]);
    done(&mut tb, 9);
    assert_eq!(fill_ids(&mut tb), vec![100]);
    done(&mut tb, 100);
    assert_eq!(tb.policy().virtual_work(), 10.0);
    tb.advance(Duration::from_secs(1));
    add(&mut tb, r(101, 3, 0, 50));
    assert_eq!(tb.policy().tags(FlowId(3)), Some((10.0, 10.5)));
}

#[test]
fn fragments_carry_the_whole_requests_finish_tag() {
    let mut tb = bed(yfq(YfqParams {
        batch: 8,
        group: 0,
        ..YfqParams::default()
    }));
    // A 256 KiB read split into four 64 KiB fragments, then a small read of
    // the same flow, then a small read of another flow.
    for k in 0..4 {
        add(&mut tb, frag(10 + k, 10, 1, 128 * k));
    }
    add(&mut tb, r(20, 1, 5000, 8));
    add(&mut tb, r(30, 2, 9000, 8));
    let s = tb.policy();
    let f0 = s.finish_tag(RequestId(10)).unwrap();
    assert!(close(f0, 5.12), "{f0}");
    for k in 1..4 {
        assert_eq!(s.finish_tag(RequestId(10 + k)), Some(f0));
    }
    let (s1, f1) = s.tags(FlowId(1)).unwrap();
    assert!(s1 == 0.0 && close(f1, 5.2));
    assert_eq!(s.finish_tag(RequestId(20)), Some(f1));
    // The small request of flow 2 (F = 0.08) goes before the large one.
    assert_eq!(fill_ids(&mut tb), vec![30, 10, 11, 12, 13, 20]);
}

#[test]
fn a_batch_goes_out_together_and_the_next_waits_for_all_of_it() {
    let mut tb = bed(yfq(YfqParams {
        batch: 4,
        ..YfqParams::default()
    }));
    for i in 0..6 {
        add(&mut tb, r(i, (i % 2) as u32, i * 100, 8));
    }
    let b1 = tb.fill();
    assert_eq!(b1.len(), 4);
    for q in &b1[..3] {
        tb.complete(q.id);
        assert_eq!(tb.fill(), vec![]);
    }
    tb.complete(b1[3].id);
    assert_eq!(tb.fill().len(), 2);
}

#[test]
fn with_depth_one_the_batch_trickles_out_in_selection_order() {
    let mut tb = Testbed::new(
        yfq(YfqParams {
            batch: 3,
            ..YfqParams::default()
        }),
        1,
    );
    for i in 0..4 {
        add(&mut tb, r(i, i as u32, 1000 - i * 10, 8));
    }
    let got: Vec<u64> = (0..3)
        .map(|_| tb.serve(Duration::from_millis(1)).id.0)
        .collect();
    assert_eq!(got, vec![0, 1, 2]);
    assert_eq!(tb.expect_dispatch().id.0, 3);
}

#[test]
fn overlap_sends_the_next_batch_when_one_request_remains() {
    let eight = |overlap| {
        let params = YfqParams {
            batch: 2,
            overlap,
            ..YfqParams::default()
        };
        loaded(params, (0..8).map(|i| r(i, (i % 2) as u32, i * 100, 8)))
    };
    let mut tb = eight(true);
    assert_eq!(fill_ids(&mut tb), vec![0, 1]);
    done(&mut tb, 0);
    // All but one done: the next batch goes out, b + 1 = 3 outstanding.
    assert_eq!(fill_ids(&mut tb), vec![2, 3]);
    assert_eq!(tb.policy().outstanding(), 3);
    assert_eq!(tb.in_flight(), 3);
    // The old batch finishes; the new one still has two: nothing.
    done(&mut tb, 1);
    assert_eq!(fill_ids(&mut tb), Vec::<u64>::new());
    done(&mut tb, 3);
    assert_eq!(fill_ids(&mut tb), vec![4, 5]);
    // Without overlap the same point sends nothing.
    let mut tb = eight(false);
    assert_eq!(fill_ids(&mut tb), vec![0, 1]);
    done(&mut tb, 0);
    assert_eq!(fill_ids(&mut tb), Vec::<u64>::new());
}

/// One decision with a hand-set head.
#[test]
fn ties_go_to_the_least_positioning_cost_only_with_tie_break() {
    for (tie_break, want) in [(false, 0), (true, 1)] {
        let mut s = yfq(YfqParams {
            tie_break,
            ..YfqParams::default()
        });
        // Equal weights and sizes: equal finish tags. The head is at 1000.
        s.add(Instant::ZERO, r(0, 1, 0, 8));
        s.add(Instant::ZERO, r(1, 2, 1100, 8));
        let d = s.dispatch(Instant::ZERO, &FlatDevice::at(1000));
        assert!(
            matches!(d, Decision::Dispatch(q) if q.id.0 == want),
            "tie_break = {tie_break}: {d:?}"
        );
    }
}

#[test]
fn tie_break_orders_fragments_by_position_within_a_batch() {
    let mut tb = bed(yfq(YfqParams {
        batch: 4,
        tie_break: true,
        group: 0,
        ..YfqParams::default()
    }));
    // Fragments added out of order: equal tags, picked by positioning.
    for (id, sector) in [(1u64, 384u64), (2, 0), (3, 256), (4, 128)] {
        add(&mut tb, frag(id, 1, 1, sector));
    }
    let sectors: Vec<u64> = tb.fill().iter().map(|q| q.sector).collect();
    assert_eq!(sectors, vec![0, 128, 256, 384]);
}

#[test]
fn fragments_are_issued_group_by_group() {
    let five = |group| {
        let params = YfqParams {
            batch: 8,
            group,
            ..YfqParams::default()
        };
        loaded(params, (0..5).map(|k| frag(k, 0, 1, 128 * k)))
    };
    let mut tb = five(2);
    assert_eq!(tb.policy().queued(), 5);
    assert_eq!(fill_ids(&mut tb), vec![0, 1]);
    done(&mut tb, 0);
    assert_eq!(fill_ids(&mut tb), Vec::<u64>::new());
    done(&mut tb, 1);
    assert_eq!(fill_ids(&mut tb), vec![2, 3]);
    done(&mut tb, 2);
    done(&mut tb, 3);
    assert_eq!(fill_ids(&mut tb), vec![4]);
    // Default group = 1: one fragment at a time.
    let mut tb = five(YfqParams::default().group);
    assert_eq!(fill_ids(&mut tb), vec![0]);
}

/// Flows seen first in `add` (no `add_flow`): the policy alone, since a
/// testbed registers every flow.
#[test]
fn unknown_flows_weigh_100_and_weights_scale_tags() {
    let mut s = yfq(YfqParams::default());
    s.add(Instant::ZERO, r(0, 7, 0, 100));
    assert_eq!(s.tags(FlowId(7)), Some((0.0, 1.0)));
    let cfg = FlowConfig::weighted(400);
    s.add_flow(Instant::ZERO, FlowId(8), &cfg);
    s.add(Instant::ZERO, r(1, 8, 0, 100));
    assert_eq!(s.tags(FlowId(8)), Some((0.0, 0.25)));
}

/// Two flows, each with one 256 KiB request in four 64 KiB fragments, all
/// released at once (`group = 0`) into one batch of eight.
fn two_fragmented(shared_fragment_tags: bool) -> Testbed<Yfq> {
    let params = YfqParams {
        batch: 8,
        group: 0,
        shared_fragment_tags,
        ..YfqParams::default()
    };
    let frags = (0..4)
        .map(|k| frag(10 + k, 10, 1, 128 * k))
        .chain((0..4).map(|k| frag(20 + k, 20, 2, 50_000 + 128 * k)));
    loaded(params, frags)
}

#[test]
fn shared_fragment_tags_keep_a_request_together_and_unshared_interleave() {
    // Shared (the paper's modification): one tag, 4 x 128 sectors / 100,
    // for every fragment; equal tags go flow by flow, request by request.
    let mut tb = two_fragmented(true);
    for id in (10..14).chain(20..24) {
        let got = tb.policy().finish_tag(RequestId(id)).unwrap();
        assert!(close(got, 5.12), "{id}: {got}");
    }
    assert_eq!(fill_ids(&mut tb), vec![10, 11, 12, 13, 20, 21, 22, 23]);
    // Unmodified YFQ: each fragment a request of its own, tags chained
    // 1.28, 2.56, 3.84, 5.12 in each flow; the flows' fragments alternate.
    let mut tb = two_fragmented(false);
    for k in 0..4u64 {
        let want = 1.28 * (k + 1) as f64;
        for id in [10 + k, 20 + k] {
            let got = tb.policy().finish_tag(RequestId(id)).unwrap();
            assert!(close(got, want), "{id}: {got} != {want}");
        }
    }
    assert_eq!(tb.policy().tags(FlowId(1)).map(|t| t.0), Some(0.0));
    assert_eq!(fill_ids(&mut tb), vec![10, 20, 11, 21, 12, 22, 13, 23]);
    // The head of q_1 moves fragment by fragment: S_1 = F of the one before.
    done(&mut tb, 10);
    let (s1, f1) = tb.policy().tags(FlowId(1)).unwrap();
    assert!(close(s1, 1.28) && close(f1, 5.12), "{s1} {f1}");
}

#[test]
fn unshared_fragments_pay_l_lat_each_and_chain_into_the_next_request() {
    let mut s = yfq(YfqParams {
        group: 0,
        l_lat_kb: 64,
        shared_fragment_tags: false,
        ..YfqParams::default()
    });
    // Two fragments of 128 sectors, each + 128 sectors of l_lat: 2.56 each.
    s.add(Instant::ZERO, frag(0, 0, 1, 0));
    s.add(Instant::ZERO, frag(1, 0, 1, 128));
    s.add(Instant::ZERO, r(2, 1, 9000, 8));
    assert!(close(s.finish_tag(RequestId(0)).unwrap(), 2.56));
    assert!(close(s.finish_tag(RequestId(1)).unwrap(), 5.12));
    // The next request chains from the last fragment: 5.12 + 1.36.
    assert!(close(s.finish_tag(RequestId(2)).unwrap(), 6.48));
    // Shared, the request pays l_lat once: (256 + 128) / 100.
    let mut s = yfq(YfqParams {
        group: 0,
        l_lat_kb: 64,
        ..YfqParams::default()
    });
    s.add(Instant::ZERO, frag(0, 0, 1, 0));
    s.add(Instant::ZERO, frag(1, 0, 1, 128));
    assert!(close(s.finish_tag(RequestId(0)).unwrap(), 3.84));
    assert!(close(s.finish_tag(RequestId(1)).unwrap(), 3.84));
}

#[test]
fn the_next_batch_waits_out_the_host_turnaround() {
    let four = |batch_turnaround_us| {
        let params = YfqParams {
            batch: 2,
            batch_turnaround_us,
            ..YfqParams::default()
        };
        loaded(params, (0..4).map(|i| r(i, (i % 2) as u32, i * 100, 8)))
    };
    let mut tb = four(300);
    assert_eq!(fill_ids(&mut tb), vec![0, 1]);
    tb.advance(Duration::from_millis(5));
    done(&mut tb, 0);
    assert_eq!(fill_ids(&mut tb), Vec::<u64>::new());
    done(&mut tb, 1);
    // The batch is done; the host turns around for 300 us, the device idle.
    let t = tb.now();
    assert_eq!(fill_ids(&mut tb), Vec::<u64>::new());
    assert_eq!(tb.idle_until(), Some(t + Duration::from_micros(300)));
    // A request arriving meanwhile waits too, and joins the next batch's
    // choice.
    tb.advance(Duration::from_micros(100));
    add(&mut tb, r(9, 0, 50, 8));
    assert_eq!(fill_ids(&mut tb), Vec::<u64>::new());
    tb.advance(Duration::from_micros(199));
    assert_eq!(tb.in_flight(), 0);
    tb.advance(Duration::from_micros(1));
    assert_eq!(tb.in_flight(), 2);
    assert_eq!(ids(&tb.order()[2..]), vec![2, 3]);
    assert!(tb
        .policy()
        .stats()
        .entries()
        .contains(&("turnarounds", 1.0)));
    // Without a turnaround the next batch goes at the completion.
    let mut tb = four(0);
    assert_eq!(fill_ids(&mut tb), vec![0, 1]);
    done(&mut tb, 0);
    done(&mut tb, 1);
    assert_eq!(fill_ids(&mut tb), vec![2, 3]);
    assert!(!tb.policy().capabilities().may_idle);
}

#[test]
fn with_overlap_the_turnaround_starts_when_one_request_remains() {
    let mut tb = loaded(
        YfqParams {
            batch: 2,
            overlap: true,
            batch_turnaround_us: 50,
            ..YfqParams::default()
        },
        (0..6).map(|i| r(i, (i % 2) as u32, i * 100, 8)),
    );
    assert_eq!(fill_ids(&mut tb), vec![0, 1]);
    done(&mut tb, 0);
    assert_eq!(fill_ids(&mut tb), Vec::<u64>::new());
    tb.advance(Duration::from_micros(50));
    assert_eq!(tb.in_flight(), 3);
    // Completing the old batch's last request frees nothing new: no wait.
    done(&mut tb, 1);
    assert_eq!(tb.policy().poll_timeout(), None);
}

#[test]
fn a_queue_entry_is_three_whole_cache_lines() {
    // Every request reads its entry: 208 bytes before the counts shrank;
    // aligned to lines, it straddles no fourth.
    let size = std::mem::size_of::<super::Entry>();
    assert!(size <= 192, "{size}");
    assert_eq!(std::mem::align_of::<super::Entry>(), 64);
}
