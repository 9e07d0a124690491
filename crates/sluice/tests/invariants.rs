//! Property tests for every policy in `sluice::policy::POLICIES`.
//!
//! Every policy is driven through `testkit::Testbed` with random scripts
//! (the testbed itself asserts exactly-once dispatch, nothing dispatched that
//! was not added, idle waits that end after now and honoured exactly, and
//! work conservation on an empty device). On top of that, this file records
//! what happened and checks:
//!
//! * for every policy: a dispatched request is the one that was added, field
//!   for field (a policy must not rewrite requests);
//! * `noop`: dispatch order is arrival order;
//! * `noop`, `clook`, `sstf`: they never leave a device slot free while they
//!   hold requests (stricter than the testbed, which only requires it of an
//!   empty device);
//! * `clook`: every dispatch is the elevator's choice given the head and the
//!   requests pending at that moment, and one sweep over a backlog wraps at
//!   most once;
//! * `sstf`: every dispatch has the minimal `FlatDevice::seek_time` from the
//!   head among the requests pending at that moment.
//!
//! The checkers return `Result` so that the `*_detects_*` tests can show
//! they reject policies that break them (the checkers are not vacuous).

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;

use sluice::policy::{build, BuildContext, GroupConfig, Hierarchy, Params, POLICIES};
use sluice::testkit::{FlatDevice, Op, Testbed};
use sluice::{
    CostModel, Decision, DeviceView, Duration, FlowConfig, Instant, Request, Scheduler, Service,
};

const DEPTHS: [usize; 3] = [1, 4, 32];

// ---------------------------------------------------------------------------
// Recording a run
// ---------------------------------------------------------------------------

/// What happened when a script was run through the testbed.
#[derive(Debug)]
struct Run {
    name: String,
    depth: usize,
    /// The requests as the testbed added them, indexed by id (it numbers
    /// requests 0, 1, 2, ... in the order of the `Add` ops).
    added: Vec<Request>,
    /// Requests dispatched, in order (`Testbed::order`).
    order: Vec<Request>,
    /// Requests completed, in order, each with how many dispatches
    /// preceded it (`Testbed::completions`).
    completions: Vec<(usize, Request)>,
    /// For each dispatch: how many requests had been added when it happened.
    /// Within one step the testbed adds first and dispatches after, so a
    /// dispatch may pick the request added in its own step.
    adds_before: Vec<usize>,
    /// After each script step: (requests held by the policy, requests in
    /// flight), the first from the script and the dispatches, not from what
    /// the policy says it holds.
    fill: Vec<(usize, usize)>,
}

/// A build context with `groups` and the default charge model.
fn in_groups(groups: &[GroupConfig]) -> BuildContext {
    BuildContext {
        groups: groups.to_vec(),
        ..BuildContext::default()
    }
}

fn build_policy(name: &str) -> Box<dyn Scheduler> {
    build(name, &Params::default(), &BuildContext::default())
        .unwrap_or_else(|e| panic!("building {name}: {e}"))
}

/// Run `script` through a testbed at the given device depth, then drain.
fn run_script(sched: Box<dyn Scheduler>, depth: usize, script: &[Op]) -> Run {
    let name = sched.name().to_string();
    let mut tb = Testbed::new(sched, depth);
    let mut added = Vec::new();
    let mut adds_before = Vec::new();
    let mut fill = Vec::new();
    for op in script {
        added.extend(tb.step(op));
        adds_before.resize(tb.log.len(), added.len());
        fill.push((added.len() - tb.log.len(), tb.in_flight()));
    }
    tb.drain();
    adds_before.resize(tb.log.len(), added.len());
    Run {
        name,
        depth: tb.driver().queue_depth(),
        added,
        order: tb.order(),
        completions: tb.completions.clone(),
        adds_before,
        fill,
    }
}

// ---------------------------------------------------------------------------
// Checkers
// ---------------------------------------------------------------------------

/// Every request was dispatched, unchanged.
fn check_integrity(run: &Run) -> Result<(), String> {
    if run.order.len() != run.added.len() {
        return Err(format!(
            "{}: {} added, {} dispatched",
            run.name,
            run.added.len(),
            run.order.len()
        ));
    }
    for (k, r) in run.order.iter().enumerate() {
        let Some(a) = run.added.get(r.id.0 as usize) else {
            return Err(format!(
                "{}: dispatch {k} has unknown id {:?}",
                run.name, r.id
            ));
        };
        let same = (a.id, a.flow, a.dir, a.sector, a.sectors, a.arrival)
            == (r.id, r.flow, r.dir, r.sector, r.sectors, r.arrival);
        if !same {
            return Err(format!(
                "{}: dispatch {k} is {r:?}, but was added as {a:?}",
                run.name
            ));
        }
    }
    Ok(())
}

/// Dispatch order is arrival order.
fn check_fifo(run: &Run) -> Result<(), String> {
    for (k, r) in run.order.iter().enumerate() {
        if r.id.0 != k as u64 {
            return Err(format!(
                "{}: dispatch {k} is request {}, expected arrival order {:?}",
                run.name,
                r.id.0,
                run.order.iter().map(|r| r.id.0).collect::<Vec<_>>()
            ));
        }
    }
    Ok(())
}

/// After every step, either the policy holds nothing or the device is full.
fn check_fills_device(run: &Run) -> Result<(), String> {
    for (step, &(held, in_flight)) in run.fill.iter().enumerate() {
        if held > 0 && in_flight < run.depth {
            return Err(format!(
                "{}: after step {step} holds {held} requests with {in_flight}/{} in flight",
                run.name, run.depth
            ));
        }
    }
    Ok(())
}

/// Replays the run's dispatches against a model of the pending set and the
/// head (the driver puts the head at the end of the last completed request,
/// starting at 0), and asks `verdict` about each choice.
fn check_each_choice(
    run: &Run,
    verdict: impl Fn(u64, &BTreeMap<(u64, u64), Request>, &Request) -> Result<(), String>,
) -> Result<(), String> {
    // Pending requests keyed by (sector, id).
    let mut pending: BTreeMap<(u64, u64), Request> = BTreeMap::new();
    let mut next = 0usize;
    let mut head = 0u64;
    let mut done = run.completions.iter().peekable();
    for (k, r) in run.order.iter().enumerate() {
        while next < run.adds_before[k] {
            let a = run.added[next];
            pending.insert((a.sector, a.id.0), a);
            next += 1;
        }
        while let Some((_, c)) = done.next_if(|(before, _)| *before <= k) {
            head = c.end();
        }
        verdict(head, &pending, r)
            .map_err(|e| format!("{}: dispatch {k} (head {head}): {e}", run.name))?;
        if pending.remove(&(r.sector, r.id.0)).is_none() {
            return Err(format!("{}: dispatch {k} {r:?} was not pending", run.name));
        }
    }
    Ok(())
}

/// C-LOOK: the first pending request by (sector, id) at or after the head,
/// else the lowest one.
fn check_clook(run: &Run) -> Result<(), String> {
    check_each_choice(run, |head, pending, r| {
        let want = pending
            .range((head, 0)..)
            .next()
            .or_else(|| pending.iter().next())
            .map(|(k, _)| *k);
        if want == Some((r.sector, r.id.0)) {
            Ok(())
        } else {
            Err(format!(
                "chose (sector, id) {:?}, C-LOOK wants {want:?}",
                (r.sector, r.id.0)
            ))
        }
    })
}

/// SSTF: the chosen request's seek time from the head is minimal among the
/// pending requests (ties may go either way).
fn check_sstf(run: &Run) -> Result<(), String> {
    let dev = FlatDevice::at(0);
    check_each_choice(run, |head, pending, r| {
        let best = pending
            .values()
            .min_by_key(|p| dev.seek_time(head, p.sector))
            .ok_or("nothing pending")?;
        let (got, min) = (
            dev.seek_time(head, r.sector),
            dev.seek_time(head, best.sector),
        );
        if got == min {
            Ok(())
        } else {
            Err(format!(
                "chose sector {} (seek {got}), but sector {} (id {}) seeks in {min}",
                r.sector, best.sector, best.id.0
            ))
        }
    })
}

/// Run `script` with the block layer merging (up to `max` sectors a
/// request); the testbed checks that each completion's originals lie end to
/// end within the limit and that every added request finishes exactly once.
/// Returns the requests the policy dispatched and how many were added.
fn run_merging(
    sched: Box<dyn Scheduler>,
    depth: usize,
    max: u32,
    script: &[Op],
) -> (Vec<Request>, usize) {
    let mut tb = Testbed::new(sched, depth).with_merging(max);
    let mut added = 0;
    for op in script {
        added += usize::from(tb.step(op).is_some());
    }
    tb.drain();
    (tb.order(), added)
}

fn ok(r: Result<(), String>) -> Result<(), TestCaseError> {
    r.map_err(TestCaseError::fail)
}

// ---------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------

/// Sectors anywhere on a 2^40-sector device, or crowded into a few thousand
/// or a few hundred sectors so that equal sectors, overlaps, seek ties and
/// near-ties happen.
fn sector() -> impl Strategy<Value = u64> {
    prop_oneof![0u64..(1u64 << 40) - 1024, 0u64..4096, 0u64..512]
}

fn add_op() -> impl Strategy<Value = Op> {
    (0u32..8, sector(), 1u32..512, any::<bool>()).prop_map(|(flow, sector, sectors, write)| {
        Op::Add {
            flow,
            sector,
            sectors,
            write,
        }
    })
}

/// Arrivals of a few flows in a few hundred sectors, in 8-sector steps:
/// contiguous neighbours (back and front merges) are common.
fn mergeable_add_op() -> impl Strategy<Value = Op> {
    (0u32..3, 0u64..64, 1u32..4, prop::bool::weighted(0.2)).prop_map(|(flow, slot, n, write)| {
        Op::Add {
            flow,
            sector: slot * 8,
            sectors: n * 8,
            write,
        }
    })
}

fn mergeable_script() -> impl Strategy<Value = Vec<Op>> {
    let op = prop_oneof![
        6 => mergeable_add_op(),
        2 => (0usize..64).prop_map(Op::Complete),
        2 => (0..=Duration::from_millis(20).as_nanos())
            .prop_map(|ns| Op::Advance(Duration::from_nanos(ns))),
    ];
    prop::collection::vec(op, 0..200)
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => add_op(),
        3 => (0usize..64).prop_map(Op::Complete),
        2 => (0..=Duration::from_millis(50).as_nanos())
            .prop_map(|ns| Op::Advance(Duration::from_nanos(ns))),
    ]
}

fn script() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(op(), 0..250)
}

fn depth() -> impl Strategy<Value = usize> {
    prop::sample::select(DEPTHS.to_vec())
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 128,
        // Do not write proptest-regressions/ files next to this test; a
        // failure prints the minimal script instead.
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

/// `script` with the policy at every node of a tree (two groups, one inside
/// the other, the inner one limited to 300 IOPS) and flows spread over
/// root, outer and inner group, flow 4 limited to 200 IOPS.
fn run_in_tree(name: &str, depth: usize, script: &[Op]) -> Run {
    let mut inner = GroupConfig::new("inner", Some(0), 100);
    inner.qos.limit_iops = Some(300.0);
    let groups = [GroupConfig::new("outer", None, 300), inner];
    let tree = Hierarchy::new(name, &Params::default(), &in_groups(&groups))
        .unwrap_or_else(|e| panic!("building {name} in a tree: {e}"));
    let mut tb = Testbed::new(Box::new(tree) as Box<dyn Scheduler>, depth);
    for flow in 0..8u32 {
        let cfg = FlowConfig {
            qos: sluice::Qos {
                limit_iops: (flow == 4).then_some(200.0),
                ..sluice::Qos::default()
            },
            group: [None, Some(0), Some(1)][flow as usize % 3],
            ..FlowConfig::default()
        };
        tb.flow_config(flow, &cfg);
    }
    let mut added = Vec::new();
    for op in script {
        added.extend(tb.step(op));
    }
    tb.drain();
    Run {
        name: tb.policy().name().to_string(),
        depth,
        added,
        order: tb.order(),
        completions: tb.completions.clone(),
        adds_before: Vec::new(),
        fill: Vec::new(),
    }
}

/// The tree of [`run_in_tree`] with the block layer merging (up to 32
/// sectors): the dispatched requests and how many were added.
fn run_tree_merging(name: &str, depth: usize, script: &[Op]) -> (Vec<Request>, usize) {
    let groups = [
        GroupConfig::new("outer", None, 300),
        GroupConfig::new("inner", Some(0), 100),
    ];
    let tree = Hierarchy::new(name, &Params::default(), &in_groups(&groups)).unwrap();
    let mut tb = Testbed::new(Box::new(tree) as Box<dyn Scheduler>, depth).with_merging(32);
    for flow in 0..3u32 {
        let cfg = FlowConfig {
            group: [None, Some(0), Some(1)][flow as usize],
            ..FlowConfig::default()
        };
        tb.flow_config(flow, &cfg);
    }
    let mut added = 0;
    for op in script {
        added += usize::from(tb.step(op).is_some());
    }
    tb.drain();
    (tb.order(), added)
}

fn every_policy_at_depth(depth: usize, script: &[Op]) -> Result<(), TestCaseError> {
    assert!(!POLICIES.is_empty());
    for info in POLICIES {
        let run = run_script(build_policy(info.name), depth, script);
        prop_assert_eq!(run.name.as_str(), info.name);
        ok(check_integrity(&run))?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    /// Every policy keeps the invariants at every node of a tree of groups
    /// with limits (the testbed checks exactly-once dispatch, idle waits
    /// and work conservation), and hands back requests as they were added.
    #[test]
    fn every_policy_keeps_the_invariants_in_a_tree(depth in depth(), script in script()) {
        for info in POLICIES {
            let run = run_in_tree(info.name, depth, &script);
            prop_assert_eq!(run.name.as_str(), info.name);
            ok(check_integrity(&run))?;
        }
    }

    /// The same inside a tree: a request merged while it waits at any
    /// level finishes exactly once (checked by the testbed).
    #[test]
    fn every_policy_keeps_the_invariants_in_a_tree_with_merging(depth in depth(), script in mergeable_script()) {
        for info in POLICIES {
            let (order, added) = run_tree_merging(info.name, depth, &script);
            prop_assert!(order.len() <= added, "{}: more dispatches than arrivals", info.name);
        }
    }

    /// With merging on, every policy dispatches requests made of added ones
    /// laid end to end, within the limit, and every added request finishes
    /// exactly once (checked by the testbed).
    #[test]
    fn every_policy_keeps_the_invariants_with_merging(depth in depth(), script in mergeable_script()) {
        for info in POLICIES {
            let (order, added) = run_merging(build_policy(info.name), depth, 32, &script);
            prop_assert!(order.len() <= added, "{}: more dispatches than arrivals", info.name);
            prop_assert!(order.iter().all(|r| r.sectors <= 32), "{}: over the limit", info.name);
        }
    }

    /// Every policy keeps the testbed's invariants and hands requests back
    /// unchanged, on a device without command queueing.
    #[test]
    fn every_policy_keeps_the_invariants_at_depth_1(script in script()) {
        every_policy_at_depth(1, &script)?;
    }

    #[test]
    fn every_policy_keeps_the_invariants_at_depth_4(script in script()) {
        every_policy_at_depth(4, &script)?;
    }

    #[test]
    fn every_policy_keeps_the_invariants_at_depth_32(script in script()) {
        every_policy_at_depth(32, &script)?;
    }

    #[test]
    fn noop_dispatches_in_arrival_order(depth in depth(), script in script()) {
        ok(check_fifo(&run_script(build_policy("noop"), depth, &script)))?;
    }

    /// The non-idling, non-batching policies dispatch whenever a slot is free.
    #[test]
    fn work_conserving_policies_keep_the_device_full(depth in depth(), script in script()) {
        for name in ["noop", "clook", "sstf"] {
            ok(check_fills_device(&run_script(build_policy(name), depth, &script)))?;
        }
    }

    #[test]
    fn clook_takes_the_next_request_above_the_head_or_wraps(depth in depth(), script in script()) {
        ok(check_clook(&run_script(build_policy("clook"), depth, &script)))?;
    }

    /// Depth 1: the first request goes to the device at once and the rest
    /// queue behind it, so they are all pending before the policy chooses
    /// among them. With non-overlapping requests, the sweep is ascending from
    /// the head (the end of the first request), then ascending from the
    /// lowest: exactly one wrap at most.
    #[test]
    fn clook_sweeps_a_backlog_with_at_most_one_wrap(
        reqs in prop::collection::vec((0u64..1 << 24, 1u32..512, 0u32..8, any::<bool>()), 2..200)
    ) {
        // Slot s holds sectors [512 s, 512 s + 511]: requests never overlap.
        let mut seen = std::collections::HashSet::new();
        let script: Vec<Op> = reqs
            .into_iter()
            .filter(|&(slot, ..)| seen.insert(slot))
            .map(|(slot, sectors, flow, write)| Op::Add { flow, sector: slot * 512, sectors, write })
            .collect();
        let run = run_script(build_policy("clook"), 1, &script);
        prop_assert_eq!(run.order.len(), script.len());
        prop_assert_eq!(run.order[0].id.0, 0);
        let head = run.order[0].end();
        let sweep: Vec<u64> = run.order[1..].iter().map(|r| r.sector).collect();
        let mut want = sweep.clone();
        want.sort_unstable();
        let first_above = want.partition_point(|&s| s < head);
        want.rotate_left(first_above);
        prop_assert_eq!(&sweep, &want, "head {}", head);
        let wraps = std::iter::once(head)
            .chain(sweep.iter().copied())
            .collect::<Vec<_>>()
            .windows(2)
            .filter(|w| w[1] < w[0])
            .count();
        prop_assert!(wraps <= 1, "{} wraps in {:?} from head {}", wraps, sweep, head);
    }

    #[test]
    fn sstf_takes_a_nearest_pending_request(depth in depth(), script in script()) {
        ok(check_sstf(&run_script(build_policy("sstf"), depth, &script)))?;
    }
}

// ---------------------------------------------------------------------------
// The checkers reject wrong policies
// ---------------------------------------------------------------------------

fn add(sector: u64) -> Op {
    Op::Add {
        flow: 0,
        sector,
        sectors: 8,
        write: false,
    }
}

/// A fixed script on which FIFO, C-LOOK and SSTF disagree. At depth 1 the
/// first request goes out at once and the rest queue; the dispatched sectors
/// are then (noop) 0 5000 100 9000 4000 3000 20 8000 10, (clook) 0 100 3000
/// 4000 5000 8000 9000 10 20 and (sstf) 0 100 3000 4000 5000 8000 9000 20 10.
fn mixed_script() -> Vec<Op> {
    vec![
        add(0),
        add(5000),
        add(100),
        add(9000),
        add(4000),
        Op::Complete(0),
        add(3000),
        Op::Complete(0),
        add(20),
        add(8000),
        Op::Complete(0),
        Op::Complete(0),
        add(10),
    ]
}

#[test]
fn the_checkers_accept_the_policies_they_describe_on_the_fixed_script() {
    for depth in DEPTHS {
        let script = mixed_script();
        check_fifo(&run_script(build_policy("noop"), depth, &script)).unwrap();
        check_clook(&run_script(build_policy("clook"), depth, &script)).unwrap();
        check_sstf(&run_script(build_policy("sstf"), depth, &script)).unwrap();
    }
}

#[test]
fn the_order_checkers_detect_the_other_policies() {
    let script = mixed_script();
    let noop = run_script(build_policy("noop"), 1, &script);
    let clook = run_script(build_policy("clook"), 1, &script);
    let sstf = run_script(build_policy("sstf"), 1, &script);
    assert!(check_fifo(&clook).is_err());
    assert!(check_fifo(&sstf).is_err());
    assert!(check_clook(&noop).is_err());
    assert!(check_clook(&sstf).is_err());
    assert!(check_sstf(&noop).is_err());
    assert!(check_sstf(&clook).is_err());
}

/// Wraps a policy and spoils it in a chosen way.
struct Broken {
    inner: Box<dyn Scheduler>,
    /// Shift the sector of every dispatched request.
    rewrite: bool,
    /// Send nothing while the device holds a request (like a batch policy).
    one_at_a_time: bool,
}

/// The mixed script through a spoiled noop on a depth-4 device.
fn broken_noop_run(rewrite: bool, one_at_a_time: bool) -> Run {
    let broken = Broken {
        inner: build_policy("noop"),
        rewrite,
        one_at_a_time,
    };
    run_script(Box::new(broken), 4, &mixed_script())
}

impl Scheduler for Broken {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn add(&mut self, now: Instant, request: Request) {
        self.inner.add(now, request);
    }
    fn merge(&mut self, now: Instant, old: &Request, merged: &Request) {
        self.inner.merge(now, old, merged);
    }
    fn dispatch(&mut self, now: Instant, device: &dyn DeviceView) -> Decision {
        if self.one_at_a_time && device.in_flight() > 0 {
            return Decision::Nothing;
        }
        match self.inner.dispatch(now, device) {
            Decision::Dispatch(mut r) if self.rewrite => {
                r.sector += 1;
                Decision::Dispatch(r)
            }
            d => d,
        }
    }
    fn complete(&mut self, now: Instant, request: &Request, service: &Service) {
        self.inner.complete(now, request, service);
    }
    fn queued(&self) -> usize {
        self.inner.queued()
    }
}

#[test]
fn the_integrity_checker_detects_a_rewritten_request() {
    let run = broken_noop_run(true, false);
    assert!(check_integrity(&run).is_err());
    assert!(check_integrity(&run_script(build_policy("noop"), 4, &mixed_script())).is_ok());
}

#[test]
fn the_fill_checker_detects_a_policy_that_leaves_slots_free() {
    // The testbed accepts it (it only demands dispatch on an empty device)...
    let run = broken_noop_run(false, true);
    check_fifo(&run).unwrap();
    // ...but it leaves three of four slots free with requests queued.
    assert!(check_fills_device(&run).is_err());
}
