use super::*;
use crate::policy::testkit::{req, FlatDevice};

fn r(id: u64, flow: u32, sector: u64, sectors: u32) -> Request {
    Request {
        sectors,
        ..req(id, flow, sector)
    }
}

fn frag(id: u64, origin: u64, flow: u32, sector: u64) -> Request {
    Request {
        origin: RequestId(origin),
        sectors: 128,
        ..req(id, flow, sector)
    }
}

fn svc() -> Service {
    Service {
        dispatched: 0,
        completed: 1,
        disk_time: 1,
    }
}

fn dev() -> FlatDevice {
    let mut d = FlatDevice::at(0);
    d.depth = 64;
    d
}

fn yfq(params: YfqParams) -> Yfq {
    Yfq::new(params)
}

fn flow(s: &mut Yfq, f: u32, weight: u32) {
    s.add_flow(
        0,
        FlowId(f),
        &FlowConfig {
            weight,
            class: None,
        },
    );
}

/// Dispatch until the policy says something else; the requests sent.
fn drain(s: &mut Yfq) -> Vec<Request> {
    let d = dev();
    let mut out = Vec::new();
    while let Decision::Dispatch(r) = s.dispatch(0, &d) {
        out.push(r);
    }
    out
}

fn ids(v: &[Request]) -> Vec<u64> {
    v.iter().map(|r| r.id.0).collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn start_is_max_of_v_and_previous_finish_and_finish_adds_length_over_weight() {
    let mut s = yfq(YfqParams::default());
    flow(&mut s, 1, 100);
    flow(&mut s, 2, 50);
    s.add(0, r(0, 1, 0, 100)); // S = max(0, 0) = 0, F = 1
    s.add(0, r(1, 1, 0, 50)); // queued behind: chain S = 1, F = 1.5
    s.add(0, r(2, 2, 0, 100)); // S = max(v = 0, 0) = 0, F = 2
    assert_eq!(s.finish_tag(RequestId(0)), Some(1.0));
    assert_eq!(s.finish_tag(RequestId(1)), Some(1.5));
    assert_eq!(s.finish_tag(RequestId(2)), Some(2.0));
    assert_eq!(s.tags(FlowId(1)), Some((0.0, 1.5)));
    // Smallest finish tag first, one at a time (b = 1).
    assert_eq!(ids(&drain(&mut s)), vec![0]);
    s.complete(1, &r(0, 1, 0, 100), &svc());
    // The head moved on: S_1 = 1; v = min(S_1, S_2) = 0.
    assert_eq!(s.tags(FlowId(1)), Some((1.0, 1.5)));
    assert_eq!(s.virtual_work(), 0.0);
    assert_eq!(ids(&drain(&mut s)), vec![1]);
    s.complete(2, &r(1, 1, 0, 50), &svc());
    assert_eq!(ids(&drain(&mut s)), vec![2]);
    s.complete(3, &r(2, 2, 0, 100), &svc());
    // Idle: v = the maximum of all finish tags (F_2 = 2 > F_1 = 1.5).
    assert_eq!(s.virtual_work(), 2.0);
    s.add(4, r(3, 1, 0, 100));
    assert_eq!(s.tags(FlowId(1)), Some((2.0, 3.0)));
}

#[test]
fn l_lat_is_added_to_every_length() {
    let mut s = yfq(YfqParams {
        l_lat_kb: 64,
        ..YfqParams::default()
    });
    s.add(0, r(0, 1, 0, 8)); // (8 + 128 sectors) / 100
    s.add(0, r(1, 1, 0, 8));
    assert!(close(s.finish_tag(RequestId(0)).unwrap(), 1.36));
    assert!(close(s.finish_tag(RequestId(1)).unwrap(), 2.72));
}

#[test]
fn v_is_the_minimum_busy_start_tag_and_stays_at_max_finish_while_idle() {
    let mut s = yfq(YfqParams::default());
    // Flow 1 runs alone for a while: its tags climb to 10.
    for i in 0..10 {
        s.add(0, r(i, 1, 0, 100));
    }
    for i in 0..9 {
        assert_eq!(ids(&drain(&mut s)), vec![i]);
        s.complete(1, &r(i, 1, 0, 100), &svc());
    }
    // Busy with S_1 = 9: a newcomer starts at v = 9, not at 0 (no credit
    // for having been idle) and not at F_1 = 10.
    assert_eq!(s.virtual_work(), 9.0);
    s.add(2, r(100, 2, 0, 100));
    assert_eq!(s.tags(FlowId(2)), Some((9.0, 10.0)));
    // Both complete; the disk idles: v jumps to max F = 10 and stays there
    // however long the idle period lasts.
    assert_eq!(ids(&drain(&mut s)), vec![9]);
    s.complete(3, &r(9, 1, 0, 100), &svc());
    assert_eq!(ids(&drain(&mut s)), vec![100]);
    s.complete(4, &r(100, 2, 0, 100), &svc());
    assert_eq!(s.virtual_work(), 10.0);
    s.add(1_000_000_000, r(101, 3, 0, 50));
    assert_eq!(s.tags(FlowId(3)), Some((10.0, 10.5)));
}

#[test]
fn fragments_carry_the_whole_requests_finish_tag() {
    let mut s = yfq(YfqParams {
        batch: 8,
        group: 0,
        ..YfqParams::default()
    });
    // A 256 KiB read split into four 64 KiB fragments, then a small read of
    // the same flow, then a small read of another flow.
    for k in 0..4 {
        s.add(0, frag(10 + k, 10, 1, 128 * k));
    }
    s.add(0, r(20, 1, 5000, 8));
    s.add(0, r(30, 2, 9000, 8));
    let f0 = s.finish_tag(RequestId(10)).unwrap();
    assert!(close(f0, 5.12), "{f0}");
    for k in 1..4 {
        assert_eq!(s.finish_tag(RequestId(10 + k)), Some(f0));
    }
    let (s1, f1) = s.tags(FlowId(1)).unwrap();
    assert!(s1 == 0.0 && close(f1, 5.2));
    assert_eq!(s.finish_tag(RequestId(20)), Some(f1));
    // The small request of flow 2 (F = 0.08) goes before the large one.
    assert_eq!(ids(&drain(&mut s)), vec![30, 10, 11, 12, 13, 20]);
}

#[test]
fn a_batch_goes_out_together_and_the_next_waits_for_all_of_it() {
    let mut s = yfq(YfqParams {
        batch: 4,
        ..YfqParams::default()
    });
    let reqs: Vec<Request> = (0..6).map(|i| r(i, (i % 2) as u32, i * 100, 8)).collect();
    for &q in &reqs {
        s.add(0, q);
    }
    let b1 = drain(&mut s);
    assert_eq!(b1.len(), 4);
    for q in &b1[..3] {
        s.complete(1, q, &svc());
        assert_eq!(s.dispatch(1, &dev()), Decision::Nothing);
    }
    s.complete(2, &b1[3], &svc());
    assert_eq!(drain(&mut s).len(), 2);
}

#[test]
fn with_depth_one_the_batch_trickles_out_in_selection_order() {
    let mut s = yfq(YfqParams {
        batch: 3,
        ..YfqParams::default()
    });
    for i in 0..4 {
        s.add(0, r(i, i as u32, 1000 - i * 10, 8));
    }
    let d = FlatDevice::at(0);
    let mut got = Vec::new();
    for _ in 0..3 {
        let Decision::Dispatch(q) = s.dispatch(0, &d) else {
            panic!("batch member expected")
        };
        got.push(q.id.0);
        s.complete(1, &q, &svc());
    }
    assert_eq!(got, vec![0, 1, 2]);
    assert!(matches!(s.dispatch(1, &d), Decision::Dispatch(q) if q.id.0 == 3));
}

#[test]
fn overlap_sends_the_next_batch_when_one_request_remains() {
    let mut s = yfq(YfqParams {
        batch: 2,
        overlap: true,
        ..YfqParams::default()
    });
    let reqs: Vec<Request> = (0..8).map(|i| r(i, (i % 2) as u32, i * 100, 8)).collect();
    for &q in &reqs {
        s.add(0, q);
    }
    let b1 = drain(&mut s);
    assert_eq!(ids(&b1), vec![0, 1]);
    s.complete(1, &b1[0], &svc());
    // All but one done: the next batch goes out, b + 1 = 3 outstanding.
    let b2 = drain(&mut s);
    assert_eq!(ids(&b2), vec![2, 3]);
    assert_eq!(s.outstanding(), 3);
    // The old batch finishes; the new one still has two: nothing.
    s.complete(2, &b1[1], &svc());
    assert_eq!(drain(&mut s), vec![]);
    s.complete(3, &b2[1], &svc());
    assert_eq!(ids(&drain(&mut s)), vec![4, 5]);
    // Without overlap the same point sends nothing.
    let mut s = yfq(YfqParams {
        batch: 2,
        ..YfqParams::default()
    });
    for &q in &reqs {
        s.add(0, q);
    }
    let b1 = drain(&mut s);
    s.complete(1, &b1[0], &svc());
    assert_eq!(drain(&mut s), vec![]);
}

#[test]
fn ties_go_to_the_least_positioning_cost_only_with_tie_break() {
    for (tie_break, want) in [(false, 0), (true, 1)] {
        let mut s = yfq(YfqParams {
            tie_break,
            ..YfqParams::default()
        });
        // Equal weights and sizes: equal finish tags. The head is at 1000.
        s.add(0, r(0, 1, 0, 8));
        s.add(0, r(1, 2, 1100, 8));
        let d = FlatDevice::at(1000);
        let Decision::Dispatch(q) = s.dispatch(0, &d) else {
            panic!()
        };
        assert_eq!(q.id.0, want, "tie_break = {tie_break}");
    }
}

#[test]
fn tie_break_orders_fragments_by_position_within_a_batch() {
    let mut s = yfq(YfqParams {
        batch: 4,
        tie_break: true,
        group: 0,
        ..YfqParams::default()
    });
    // Fragments added out of order: equal tags, picked by positioning.
    for (id, sector) in [(1u64, 384u64), (2, 0), (3, 256), (4, 128)] {
        s.add(0, frag(id, 1, 1, sector));
    }
    let sectors: Vec<u64> = drain(&mut s).iter().map(|q| q.sector).collect();
    assert_eq!(sectors, vec![0, 128, 256, 384]);
}

#[test]
fn fragments_are_issued_group_by_group() {
    let mut s = yfq(YfqParams {
        batch: 8,
        group: 2,
        ..YfqParams::default()
    });
    let fr: Vec<Request> = (0..5).map(|k| frag(k, 0, 1, 128 * k)).collect();
    for &q in &fr {
        s.add(0, q);
    }
    assert_eq!(s.queued(), 5);
    assert_eq!(ids(&drain(&mut s)), vec![0, 1]);
    s.complete(1, &fr[0], &svc());
    assert_eq!(drain(&mut s), vec![]);
    s.complete(1, &fr[1], &svc());
    assert_eq!(ids(&drain(&mut s)), vec![2, 3]);
    s.complete(1, &fr[2], &svc());
    s.complete(1, &fr[3], &svc());
    assert_eq!(ids(&drain(&mut s)), vec![4]);
    // Default group = 1: one fragment at a time.
    let mut s = yfq(YfqParams {
        batch: 8,
        ..YfqParams::default()
    });
    for &q in &fr {
        s.add(0, q);
    }
    assert_eq!(ids(&drain(&mut s)), vec![0]);
}

#[test]
fn unknown_flows_weigh_100_and_weights_scale_tags() {
    let mut s = yfq(YfqParams::default());
    s.add(0, r(0, 7, 0, 100));
    assert_eq!(s.tags(FlowId(7)), Some((0.0, 1.0)));
    flow(&mut s, 8, 400);
    s.add(0, r(1, 8, 0, 100));
    assert_eq!(s.tags(FlowId(8)), Some((0.0, 0.25)));
}
