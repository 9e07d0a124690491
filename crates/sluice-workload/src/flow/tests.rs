//! Tests of `flow.rs`.

use super::*;
use crate::spec::{FileService, GreedyPattern, Pattern};

/// The instant `n` nanoseconds after the origin.
fn ns(n: u64) -> Instant {
    Instant::from_nanos(n)
}

fn spec(pattern: Pattern) -> FlowSpec {
    FlowSpec {
        qos: sluice::Qos {
            weight: 100,
            ..sluice::Qos::default()
        },
        name: "f".into(),
        kind: FlowKind::Greedy(GreedyPattern::of(pattern).expect("a greedy pattern")),
        request_sectors: 8,
        file_start: 1000,
        file_sectors: 32,
        start: Instant::ZERO,
        think: Duration::ZERO,
        outstanding: 2,
        requests: Some(5),
        ..FlowSpec::default()
    }
}

/// A trace flow of three reads and a write, 1 ms apart, from 5 ms.
fn trace_spec(timing: crate::trace::Timing) -> FlowSpec {
    let reqs = (0..4)
        .map(|i| crate::trace::Request {
            at: Duration::from_millis(i),
            sector: 100 * i,
            sectors: 8,
            write: i == 3,
            line: i as u32 + 1,
            source: 0,
        })
        .collect();
    FlowSpec {
        kind: FlowKind::Trace(TraceSpec {
            requests: std::sync::Arc::new(reqs),
            timing,
        }),
        start: ns(5_000_000),
        outstanding: 2,
        requests: None,
        ..spec(Pattern::SeqRead)
    }
}

#[test]
fn a_recorded_trace_issues_at_its_times_whatever_completes() {
    let mut f = Flow::new(trace_spec(crate::trace::Timing::Recorded), 1, 0);
    let mut act = Actions::default();
    f.wake(ns(5_000_000), &mut act);
    assert_eq!(act.issues.len(), 1);
    assert_eq!(act.wakes, vec![ns(6_000_000)]);
    // Nothing completed, yet the next two arrive on time (open loop).
    let mut act = Actions::default();
    f.wake(ns(7_000_000), &mut act);
    assert_eq!(
        act.issues.iter().map(|i| i.sector).collect::<Vec<_>>(),
        vec![100, 200]
    );
    assert_eq!(act.wakes, vec![ns(8_000_000)]);
    let mut act = Actions::default();
    f.wake(ns(8_000_000), &mut act);
    assert!(act.issues[0].write && !act.issues[0].sync);
    for k in 0..4 {
        let mut act = Actions::default();
        let done = f.completed(ns(9_000_000), 0, true, Instant::ZERO, &mut act);
        assert_eq!(done, k == 3, "completion {k}");
    }
    assert_eq!(f.done_at, Some(ns(9_000_000)));
}

#[test]
fn rate_iops_spaces_the_issues() {
    // 1000 IOPS: one issue per ms, whatever the depth allows.
    let s = FlowSpec {
        outstanding: 4,
        requests: None,
        rate_interval: Some(Duration::from_millis(1)),
        ..spec(Pattern::RandRead)
    };
    let mut f = Flow::new(s, 1, 0);
    let mut act = Actions::default();
    f.wake(Instant::ZERO, &mut act);
    assert_eq!(act.issues.len(), 1);
    assert_eq!(act.wakes, vec![ns(1_000_000)]);
    // A completion before the next slot issues nothing and asks for no
    // second wake-up.
    let mut act = Actions::default();
    f.completed(ns(100_000), 0, true, Instant::ZERO, &mut act);
    assert!(act.issues.is_empty() && act.wakes.is_empty());
    let mut act = Actions::default();
    f.wake(ns(1_000_000), &mut act);
    assert_eq!(act.issues.len(), 1);
    assert_eq!(act.wakes, vec![ns(2_000_000)]);
}

#[test]
fn an_afap_trace_keeps_outstanding_in_flight() {
    let mut f = Flow::new(trace_spec(crate::trace::Timing::Afap), 1, 0);
    let mut act = Actions::default();
    f.wake(ns(5_000_000), &mut act);
    assert_eq!(act.issues.len(), 2);
    assert!(act.wakes.is_empty());
    let mut act = Actions::default();
    assert!(!f.completed(ns(5_100_000), 0, true, Instant::ZERO, &mut act));
    assert_eq!(act.issues.len(), 1);
    assert_eq!(act.issues[0].sector, 200);
}

fn greedy(spec: &FlowSpec) -> Greedy {
    match Flow::new(spec.clone(), 1, 0).kind {
        Kind::Greedy(g) => g,
        _ => unreachable!(),
    }
}

#[test]
fn sequential_flows_walk_their_file_and_wrap() {
    let s = spec(Pattern::SeqRead);
    let mut g = greedy(&s);
    let got: Vec<u64> = (0..5).map(|_| g.next_sector(&s)).collect();
    assert_eq!(got, vec![1000, 1008, 1016, 1024, 1000]);
}

#[test]
fn random_flows_stay_aligned_inside_their_file() {
    let s = spec(Pattern::RandRead);
    let mut g = greedy(&s);
    for _ in 0..100 {
        let x = g.next_sector(&s);
        assert!(
            (1000..1032).contains(&x) && (x - 1000).is_multiple_of(8),
            "{x}"
        );
    }
}

#[test]
fn outstanding_and_request_count_limit_issuing() {
    let s = spec(Pattern::SeqRead);
    let mut f = Flow::new(s.clone(), 1, 0);
    let mut act = Actions::default();
    f.wake(ns(0), &mut act);
    assert_eq!(act.issues.len(), 2, "two in flight is the cap");
    let mut done = false;
    for i in 0..5 {
        let mut act = Actions::default();
        done = f.completed(ns(i), 0, true, ns(0), &mut act);
    }
    assert!(done, "five requests is the total");
}

#[test]
fn streams_differ_by_seed_and_by_flow() {
    let s = spec(Pattern::RandRead);
    let draw = |seed, idx| {
        let mut g = match Flow::new(s.clone(), seed, idx).kind {
            Kind::Greedy(g) => g,
            _ => unreachable!(),
        };
        (0..8).map(|_| g.next_sector(&s)).collect::<Vec<_>>()
    };
    assert_eq!(draw(1, 0), draw(1, 0));
    assert_ne!(draw(1, 0), draw(1, 1));
    assert_ne!(draw(1, 0), draw(2, 0));
}

#[test]
fn video_frames_late_for_display_are_dropped() {
    let s = FlowSpec {
        kind: FlowKind::Video(VideoSpec {
            frame_period: Duration::from_millis(10),
            buffer_frames: 2,
        }),
        requests: Some(3),
        ..spec(Pattern::SeqRead)
    };
    let mut f = Flow::new(s, 1, 0);
    let mut act = Actions::default();
    f.wake(ns(0), &mut act);
    assert_eq!(act.issues.len(), 1);
    // Frame 0 shows at 20 ms: in time.
    let mut act = Actions::default();
    f.completed(ns(5_000_000), 0, true, ns(0), &mut act);
    assert_eq!(act.wakes, vec![ns(10_000_000)], "frame 1 readable at 10 ms");
    let mut act = Actions::default();
    f.wake(ns(10_000_000), &mut act);
    // Frame 1 shows at 30 ms: late.
    let mut act = Actions::default();
    f.completed(ns(31_000_000), 0, true, ns(0), &mut act);
    assert_eq!(act.issues.len(), 1, "frame 2 already readable");
    assert!(f.completed(ns(32_000_000), 0, true, ns(0), &mut Actions::default()));
    assert_eq!(f.frames(), Some((3, 1)));
}

#[test]
fn large_requests_go_out_as_fragments_and_complete_together() {
    let s = FlowSpec {
        request_sectors: 512,
        fragment_sectors: Some(128),
        file_sectors: 1 << 20,
        outstanding: 1,
        requests: None,
        ..spec(Pattern::RandRead)
    };
    let mut f = Flow::new(s, 1, 0);
    let mut act = Actions::default();
    f.wake(ns(0), &mut act);
    assert_eq!(act.issues.len(), 4);
    assert!(!act.issues[0].continues && act.issues[1..].iter().all(|i| i.continues));
    let base = act.issues[0].sector;
    let starts: Vec<u64> = act.issues.iter().map(|i| i.sector - base).collect();
    assert_eq!(starts, vec![0, 128, 256, 384]);
    for k in 0..3 {
        let mut act = Actions::default();
        f.completed(ns(k), 0, true, ns(0), &mut act);
        assert!(act.issues.is_empty(), "request still has fragments out");
    }
    let mut act = Actions::default();
    f.completed(ns(3), 0, true, ns(0), &mut act);
    assert_eq!(act.issues.len(), 4, "the next request goes out whole");
}

#[test]
fn fsync_every_waits_for_the_writes_before_issuing_more() {
    // 16 in flight allowed, but a barrier after every 4 writes.
    let s = FlowSpec {
        outstanding: 16,
        requests: Some(12),
        fsync_every: Some(4),
        file_sectors: 1 << 20,
        ..spec(Pattern::RandWrite)
    };
    let mut f = Flow::new(s.clone(), 1, 0);
    let mut act = Actions::default();
    f.wake(Instant::ZERO, &mut act);
    assert_eq!(act.issues.len(), 4);
    for k in 0..4 {
        let mut act = Actions::default();
        f.completed(ns(1000 * k + 1000), 0, true, Instant::ZERO, &mut act);
        // Only the last of the four lets the next four go.
        assert_eq!(
            act.issues.len(),
            if k == 3 { 4 } else { 0 },
            "completion {k}"
        );
    }
    // Without the barrier all twelve go at once.
    let mut f = Flow::new(
        FlowSpec {
            fsync_every: None,
            ..s
        },
        1,
        0,
    );
    let mut act = Actions::default();
    f.wake(Instant::ZERO, &mut act);
    assert_eq!(act.issues.len(), 12);
}

#[test]
fn a_zipf_reader_returns_to_its_hot_blocks() {
    let s = |d| FlowSpec {
        outstanding: 1,
        requests: None,
        file_sectors: 8 * 10_000,
        distribution: d,
        ..spec(Pattern::RandRead)
    };
    let hottest = |d| {
        let mut f = Flow::new(s(d), 1, 0);
        let mut seen = std::collections::HashMap::new();
        let mut act = Actions::default();
        f.wake(Instant::ZERO, &mut act);
        for k in 0..5000u64 {
            for i in act.issues.drain(..) {
                *seen.entry(i.sector).or_insert(0u32) += 1;
            }
            f.completed(ns(k + 1), 0, true, Instant::ZERO, &mut act);
        }
        seen.values().copied().max().unwrap_or(0)
    };
    // Rank 1 of zipf:1.2 over 10,000 blocks: 1/ζ ≈ 21% of 5,000 reads.
    let zipf = crate::Distribution::parse("zipf:1.2").unwrap();
    let hot = hottest(zipf);
    assert!(hot > 800, "{hot}");
    assert!(hottest(crate::Distribution::Uniform) < 10);
}

#[test]
fn several_files_are_served_round_robin_sequentially_or_at_random() {
    // Three files of 4 requests (8 sectors each) from sector 1000.
    let s = |service| FlowSpec {
        outstanding: 1,
        requests: None,
        file_sectors: 3 * 32,
        files: 3,
        file_service: service,
        ..spec(Pattern::SeqRead)
    };
    let sectors = |spec: FlowSpec, n: u64| {
        let mut f = Flow::new(spec, 1, 0);
        let mut act = Actions::default();
        f.wake(Instant::ZERO, &mut act);
        let mut out = Vec::new();
        for k in 0..n {
            out.extend(act.issues.drain(..).map(|i| i.sector - 1000));
            f.completed(ns(k + 1), 0, true, Instant::ZERO, &mut act);
        }
        out
    };
    assert_eq!(
        sectors(s(FileService::RoundRobin(1)), 7),
        [0, 32, 64, 8, 40, 72, 16]
    );
    assert_eq!(
        sectors(s(FileService::RoundRobin(2)), 6),
        [0, 8, 32, 40, 64, 72]
    );
    assert_eq!(
        sectors(s(FileService::Sequential), 6),
        [0, 8, 16, 24, 32, 40]
    );
    let random = sectors(s(FileService::Random), 60);
    let mut files: Vec<u64> = random.iter().map(|x| x / 32).collect();
    files.dedup();
    assert!(files.len() > 20 && random.iter().all(|x| *x < 96));
    assert_eq!(s(FileService::Random).file_at(1000 + 40), (1032, 32));
}

/// Directions of the first `n` requests of a random flow of `pattern`
/// with `read_fraction`, completed one by one.
fn directions(pattern: Pattern, read_fraction: Option<f64>, n: u64) -> Vec<bool> {
    let s = FlowSpec {
        requests: Some(n),
        outstanding: 1,
        read_fraction,
        ..spec(pattern)
    };
    let mut f = Flow::new(s, 7, 0);
    let mut out = Vec::new();
    let mut act = Actions::default();
    f.wake(ns(0), &mut act);
    for i in 0..n {
        let issue = act.issues.pop().expect("one request in flight");
        out.push(issue.write);
        act = Actions::default();
        f.completed(ns(i + 1), 0, true, Instant::ZERO, &mut act);
    }
    out
}

#[test]
fn a_mixed_random_flow_reads_its_share_and_others_keep_their_direction() {
    let mixed = directions(Pattern::RandRead, Some(0.7), 2000);
    let writes = mixed.iter().filter(|w| **w).count();
    // 30% writes: 600 expected, well within 4 standard deviations (~20).
    assert!((520..=680).contains(&writes), "{writes}");
    assert!(directions(Pattern::RandRead, None, 50).iter().all(|w| !w));
    assert!(directions(Pattern::RandWrite, None, 50).iter().all(|w| *w));
    assert!(directions(Pattern::RandWrite, Some(1.0), 50)
        .iter()
        .all(|w| !w));
    assert!(directions(Pattern::RandRead, Some(0.0), 50)
        .iter()
        .all(|w| *w));
}

#[test]
fn thread_stats_count_per_thread_inline_for_one_and_in_a_list_for_several() {
    let mut one = ThreadStats::new(1);
    one.get_mut(0).0 += 2;
    one.get_mut(0).1 += 16;
    assert!(matches!(one, ThreadStats::One(_)));
    assert_eq!(one.iter().copied().collect::<Vec<_>>(), vec![(2, 16)]);
    let mut three = ThreadStats::new(3);
    three.get_mut(2).0 += 1;
    assert_eq!(
        three.iter().copied().collect::<Vec<_>>(),
        vec![(0, 0), (0, 0), (1, 0)]
    );
}
