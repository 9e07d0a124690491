//! Tests of the three start-up replays, driven through `Flow` as the engine
//! drives them.

use super::*;
use crate::flow::Flow;
use crate::spec::{FlowKind, StartupSpec};

fn at_ms(ms: u64) -> Instant {
    Instant::ZERO + Duration::from_millis(ms)
}

/// A start-up flow replaying `text` with `mode`; its files start at 1000.
fn flow(text: &str, mode: Replay) -> Flow {
    repeated(text, mode, None)
}

/// As [`flow`], started again as `repeat` says.
fn repeated(text: &str, mode: Replay, repeat: Option<(Duration, Duration)>) -> Flow {
    let trace = StartupTrace::parse("t", "t", text).unwrap();
    let spec = FlowSpec {
        qos: sluice::Qos {
            weight: 100,
            ..sluice::Qos::default()
        },
        kind: FlowKind::Startup(StartupSpec {
            trace: Arc::new(trace),
            replay: mode,
            repeat,
            runs: None,
        }),
        file_start: 1000,
        file_sectors: 1 << 40,
        ..FlowSpec::default()
    };
    Flow::new(spec, 1, 0)
}

/// What the flow issues when woken at `t`.
fn wake(f: &mut Flow, t: Instant) -> Actions {
    let mut act = Actions::default();
    f.wake(t, &mut act);
    act
}

/// A request of `thread` completes at `t`: what the flow issues, and
/// whether it is done.
fn complete(f: &mut Flow, t: Instant, thread: u32) -> (Actions, bool) {
    let mut act = Actions::default();
    let done = f.completed(t, thread, true, Instant::ZERO, &mut act);
    (act, done)
}

fn threads_of(act: &Actions) -> Vec<u32> {
    act.issues.iter().map(|i| i.thread).collect()
}

/// Thread a: a read-ahead, then a metadata read 1 s later in the
/// recording; thread b: a synchronous write; thread a: a last read.
const MIXED: &str = "a-1 0 8 100 Seq 0 0 RA 0 START\n\
                     a-1 1.0 8 200 Seq 0 8 RM 1.0 C\n\
                     b-2 0 16 300 Rand 0 0 WS 1.0 C\n\
                     a-1 .002 8 400 Rand 0 0 R 1.002 C\n";

#[test]
fn s_suite_issues_in_trace_order_without_think_time() {
    let mut f = flow(MIXED, Replay::SSuite);
    // The read-ahead goes out, and with it nothing else: a's metadata read
    // waits for a's own read-ahead (no gap is slept: no wake asked for).
    let act = wake(&mut f, at_ms(0));
    assert_eq!(threads_of(&act), vec![0]);
    assert!(act.wakes.is_empty());
    // The read-ahead completes: the metadata read goes out, and b's write
    // waits for it (strict trace order).
    let (act, _) = complete(&mut f, at_ms(3), 0);
    assert_eq!(threads_of(&act), vec![0]);
    let (act, _) = complete(&mut f, at_ms(5), 0);
    assert_eq!(threads_of(&act), vec![1]);
    assert!(!act.issues[0].write, "WS is replayed as a read");
    assert!(act.issues.iter().all(|i| i.sync));
    let (act, done) = complete(&mut f, at_ms(9), 1);
    assert_eq!(threads_of(&act), vec![0]);
    assert!(!done);
    let (_, done) = complete(&mut f, at_ms(12), 0);
    assert!(done);
    assert_eq!(f.startups(), Some((1, 0.012)));
}

#[test]
fn s_suite_places_seq_reads_at_the_thread_offset_and_rand_reads_in_its_file() {
    let mut f = flow(MIXED, Replay::SSuite);
    let mut sectors = vec![];
    let mut act = wake(&mut f, at_ms(0));
    for (t, thread) in [(1, 0), (2, 0), (3, 1), (4, 0)] {
        sectors.extend(act.issues.iter().map(|i| (i.thread, i.sector)));
        act = complete(&mut f, at_ms(t), thread).0;
    }
    let file = |t: u64| 1000 + t * THREAD_FILE_SECTORS;
    // a: Seq at 0, Seq right after it; b: Rand inside b's file; a: Rand.
    assert_eq!(sectors[0], (0, file(0)));
    assert_eq!(sectors[1], (0, file(0) + 8));
    let (b, s) = sectors[2];
    assert_eq!(b, 1);
    assert!((file(1)..=file(2) - 16).contains(&s), "{s}");
    assert!((file(0)..=file(1) - 8).contains(&sectors[3].1));
}

#[test]
fn s_suite_seq_reads_wrap_at_the_end_of_the_file() {
    let big = THREAD_FILE_SECTORS - 8;
    let text = format!("a-1 0 {big} 0 Seq 0 0 R 0 START\na-1 0 16 0 Seq 0 0 R 0 C\n");
    let mut f = flow(&text, Replay::SSuite);
    let first = wake(&mut f, at_ms(0)).issues[0];
    let (act, _) = complete(&mut f, at_ms(1), 0);
    assert_eq!(first.sector, 1000);
    assert_eq!(
        act.issues[0].sector, 1000,
        "16 sectors do not fit in the last 8"
    );
}

#[test]
fn s_suite_rand_offsets_follow_the_seed() {
    let text = "a-1 0 8 0 Rand 0 0 R 0 START\n";
    let first = |seed| {
        let mut f = flow(text, Replay::SSuite);
        let spec = f.spec.clone();
        f = Flow::new(spec, seed, 0);
        wake(&mut f, at_ms(0)).issues[0].sector
    };
    assert_eq!(first(1), first(1));
    assert_ne!(first(1), first(2));
}

/// Thread 0 (b) reads ahead; thread 1 (a) then reads synchronously.
const B_AHEAD_OF_A: &str = "b-2 0 8 0 Seq 0 0 RA 0 START\na-1 0 8 0 Seq 0 0 R 0 C\n";

#[test]
fn s_suite_ends_at_the_last_record_and_the_flow_after_its_read_aheads() {
    // Thread 0 (b)'s read-ahead is still out when thread 1 (a)'s last
    // read completes.
    let mut f = flow(B_AHEAD_OF_A, Replay::SSuite);
    assert_eq!(threads_of(&wake(&mut f, at_ms(0))), vec![0, 1]);
    let (_, done) = complete(&mut f, at_ms(4), 1);
    assert!(!done, "a read-ahead is still in flight");
    assert_eq!(f.startups(), Some((1, 0.004)));
    let (_, done) = complete(&mut f, at_ms(9), 0);
    assert!(done);
    assert_eq!(f.done_at, Some(at_ms(4)), "done when the start-up was");
}

#[test]
fn the_last_record_is_read_synchronously_even_if_a_read_ahead() {
    let mut f = flow("a-1 0 8 0 Seq 0 0 RA 0 START\n", Replay::SSuite);
    wake(&mut f, at_ms(0));
    let (_, done) = complete(&mut f, at_ms(2), 0);
    assert!(done);
    assert_eq!(f.startups(), Some((1, 0.002)));
}

#[test]
fn recorded_threads_sleep_their_gaps_and_block_on_their_own_requests() {
    let mut f = flow(MIXED, Replay::Recorded);
    // a's read-ahead and b's write at once (threads are independent); a's
    // metadata read 1 s after a's read-ahead.
    let act = wake(&mut f, at_ms(0));
    assert_eq!(threads_of(&act), vec![0, 1]);
    assert!(act.issues[1].write, "WS writes when recorded");
    assert_eq!(act.issues[0].sector, 1000 + 100, "recorded sector");
    assert_eq!(act.wakes, vec![at_ms(1000)]);
    let act = wake(&mut f, at_ms(1000));
    assert_eq!(threads_of(&act), vec![0]);
    // a's metadata read completes, its read-ahead is still out: blocked.
    let (act, _) = complete(&mut f, at_ms(1004), 0);
    assert!(act.issues.is_empty() && act.wakes.is_empty());
    // The read-ahead completes: a sleeps its 2 ms gap from now.
    let (act, _) = complete(&mut f, at_ms(1006), 0);
    assert_eq!(act.wakes, vec![at_ms(1008)]);
    assert_eq!(threads_of(&wake(&mut f, at_ms(1008))), vec![0]);
    let (_, done) = complete(&mut f, at_ms(1010), 0);
    assert!(!done, "b's write is still out");
    let (_, done) = complete(&mut f, at_ms(1012), 1);
    assert!(done);
    assert_eq!(f.startups(), Some((1, 1.012)));
}

#[test]
fn a_repeated_startup_is_a_new_process_and_ignores_the_old_ones_requests() {
    let repeat = Some((Duration::ZERO, Duration::from_secs(1)));
    let mut f = repeated(B_AHEAD_OF_A, Replay::SSuite, repeat);
    wake(&mut f, at_ms(0));
    let (act, done) = complete(&mut f, at_ms(5), 1);
    assert!(!done);
    assert_eq!(act.wakes, vec![at_ms(1005)]);
    let act = wake(&mut f, at_ms(1005));
    assert!(act.new_process);
    assert_eq!(threads_of(&act), vec![0, 1]);
    // The first run's read-ahead completes only now: not this run's, so
    // thread 0 of the new run still has its own out.
    let mut act = Actions::default();
    assert!(!f.completed(at_ms(1006), 0, false, Instant::ZERO, &mut act));
    let (_, _) = complete(&mut f, at_ms(1007), 1);
    assert_eq!(f.startups(), Some((2, 0.0035)));
}

/// A read-ahead, a read 10 ms after it, a read 2 ms and one 6 ms after a
/// synchronous `Seq` read (their median, 4 ms, is taken as its wait):
/// think times 0, 10, 0 and 2 ms.
const THINKING: &str = "a-1 0 8 0 Seq 0 0 RA 0 START\n\
                        a-1 .010 8 0 Seq 0 0 R 0 C\n\
                        a-1 .002 8 0 Seq 0 0 R 0 C\n\
                        a-1 .006 8 0 Rand 0 0 R 0 C\n";

#[test]
fn think_sleeps_each_records_think_from_the_issue_or_completion_before_it() {
    let mut f = flow(THINKING, Replay::Think);
    // The read-ahead goes out; the read after it thinks 10 ms from then.
    let act = wake(&mut f, at_ms(0));
    assert_eq!(threads_of(&act), vec![0]);
    assert_eq!(act.wakes, vec![at_ms(10)]);
    let (act, _) = complete(&mut f, at_ms(3), 0);
    assert!(act.issues.is_empty(), "still thinking");
    assert_eq!(threads_of(&wake(&mut f, at_ms(10))), vec![0]);
    // No think after the first read: the next goes out at its completion.
    let (act, _) = complete(&mut f, at_ms(15), 0);
    assert_eq!(threads_of(&act), vec![0]);
    assert!(act.wakes.is_empty());
    // 2 ms of think from the completion of the read before.
    let (act, _) = complete(&mut f, at_ms(20), 0);
    assert!(act.issues.is_empty());
    assert_eq!(act.wakes, vec![at_ms(22)]);
    assert_eq!(threads_of(&wake(&mut f, at_ms(22))), vec![0]);
    let (_, done) = complete(&mut f, at_ms(25), 0);
    assert!(done);
    assert_eq!(f.startups(), Some((1, 0.025)));
}

#[test]
fn think_then_waits_for_the_threads_read_aheads() {
    let mut f = flow(THINKING, Replay::Think);
    wake(&mut f, at_ms(0));
    // The think time is over but the read-ahead is still out.
    let act = wake(&mut f, at_ms(10));
    assert!(act.issues.is_empty() && act.wakes.is_empty());
    let (act, _) = complete(&mut f, at_ms(12), 0);
    assert_eq!(threads_of(&act), vec![0]);
}

#[test]
fn s_suite_ignores_the_estimated_think_time() {
    let mut f = flow(THINKING, Replay::SSuite);
    let act = wake(&mut f, at_ms(0));
    assert!(act.wakes.is_empty());
    let (act, _) = complete(&mut f, at_ms(3), 0);
    assert_eq!(threads_of(&act), vec![0], "the read follows at once");
}
