//! Groups and limits: shares at every level, limits under any policy.

use super::*;
use crate::policy::testkit::{ClosedFlow, Pattern, Testbed};
use crate::policy::BuildContext;
use crate::time::Duration;
use proptest::prelude::*;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// A closed-loop sequential reader keeping `outstanding` requests queued or
/// in flight, over its own region.
fn greedy(flow: u32, outstanding: usize) -> ClosedFlow {
    ClosedFlow::new(
        flow,
        Pattern::Seq {
            next: u64::from(flow) << 30,
        },
        true,
        outstanding,
        Duration::ZERO,
    )
}

fn in_group(weight: u32, group: Option<u32>) -> FlowConfig {
    FlowConfig {
        qos: crate::Qos {
            weight,
            ..crate::Qos::default()
        },
        group,
        ..FlowConfig::default()
    }
}

/// Each flow's share of the dispatches in a run of `secs` seconds with
/// 1 ms per request, each flow registered with its config and greedy.
fn shares(tree: Hierarchy, flows: &[FlowConfig], secs: u64) -> Vec<f64> {
    let mut tb = Testbed::new(tree, 1);
    for (i, cfg) in flows.iter().enumerate() {
        tb.flow_config(i as u32, cfg);
        tb.closed_flow(greedy(i as u32, 4));
    }
    tb.run(Instant::ZERO + Duration::from_secs(secs));
    let total = tb.log.len().max(1) as f64;
    (0..flows.len())
        .map(|i| tb.count(i as u32) as f64 / total)
        .collect()
}

/// A build context with `groups` and the default charge model.
fn in_groups(groups: &[GroupConfig]) -> crate::policy::BuildContext {
    crate::policy::BuildContext {
        groups: groups.to_vec(),
        ..crate::policy::BuildContext::default()
    }
}

/// `policy` alone, as a hierarchy's node is built.
fn bare_policy(policy: &str, params: &Params) -> Result<Box<dyn crate::Scheduler>, crate::Error> {
    crate::policy::build_bare(policy, params, &crate::LinearCost::default())
}

fn two_tenants(policy: &str) -> Hierarchy {
    Hierarchy::new(
        policy,
        &Params::default(),
        &in_groups(&[
            GroupConfig::new("A", None, 300),
            GroupConfig::new("B", None, 100),
        ]),
    )
    .unwrap()
}

/// The acceptance tree: tenant A (300) with two 1:1 flows, tenant B (100)
/// with one: 3/8, 3/8, 1/4 under each proportional-share policy at every
/// level. Without the groups the three flows would split 1/3 each.
///
/// BFQ is measured against itself: in this testbed (8-sector requests of
/// 1 ms, so budget timeouts decide its slices) flat BFQ with weights
/// 150/150/100 gives 0.3875/0.3875/0.225, and the tree must not move any
/// share further than 0.03 from that.
#[test]
fn two_level_tree_shares_under_bfq_yfq_and_mclock() {
    let flows = [
        in_group(100, Some(0)),
        in_group(100, Some(0)),
        in_group(100, Some(1)),
    ];
    let flat = [
        in_group(150, None),
        in_group(150, None),
        in_group(100, None),
    ];
    for policy in ["bfq", "yfq", "mclock"] {
        let s = shares(two_tenants(policy), &flows, 20);
        let want = if policy == "bfq" {
            let bare = bare_policy(policy, &Params::default()).unwrap();
            shares(Hierarchy::around(bare), &flat, 20)
        } else {
            vec![0.375, 0.375, 0.25]
        };
        for (got, want) in s.iter().zip(&want) {
            assert!(
                (got - want).abs() < 0.03,
                "{policy}: shares {s:?}, want {want:?}"
            );
        }
    }
}

/// An idle sibling's share goes to the others in its group first: with a2
/// silent, a1 gets all of A's 3/4.
#[test]
fn a_groups_share_stays_in_the_group() {
    let mut tb = Testbed::new(two_tenants("yfq"), 1);
    tb.flow_config(0, &in_group(100, Some(0)));
    tb.flow_config(1, &in_group(100, Some(0)));
    tb.flow_config(2, &in_group(100, Some(1)));
    tb.closed_flow(greedy(0, 4));
    tb.closed_flow(greedy(2, 4));
    tb.run(Instant::ZERO + Duration::from_secs(10));
    let a1 = tb.count(0) as f64 / tb.log.len() as f64;
    assert!((a1 - 0.75).abs() < 0.03, "a1 {a1}");
}

/// A group may use a policy of its own: FIFO inside, YFQ above.
#[test]
fn a_group_runs_its_own_policy() {
    let mut fifo = GroupConfig::new("A", None, 100);
    fifo.scheduler = Some(("noop".into(), Params::default()));
    let h = Hierarchy::new("yfq", &Params::default(), &in_groups(&[fifo])).unwrap();
    let mut tb = Testbed::new(h, 1);
    tb.flow_config(0, &in_group(100, Some(0)));
    tb.flow_config(1, &in_group(900, Some(0)));
    for (flow, sector) in [(0, 0), (1, 100), (0, 8), (1, 108)] {
        tb.add(flow, sector, 8);
    }
    let mut order = Vec::new();
    for _ in 0..4 {
        order.push(tb.serve(ms(1)).flow.0);
    }
    // Arrival order, whatever the weights.
    assert_eq!(order, [0, 1, 0, 1]);
}

#[test]
fn bad_trees_are_refused_with_the_groups_name() {
    let cycle = [
        GroupConfig::new("x", Some(1), 100),
        GroupConfig::new("y", Some(0), 100),
    ];
    let err = Hierarchy::new("bfq", &Params::default(), &in_groups(&cycle))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("group 'x'") && err.contains("cycle"), "{err}");
    let orphan = [GroupConfig::new("z", Some(7), 100)];
    let err = Hierarchy::new("bfq", &Params::default(), &in_groups(&orphan))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("parent 7 is not a group"), "{err}");
    let heavy = [GroupConfig::new("w", None, 0)];
    assert!(Hierarchy::new("bfq", &Params::default(), &in_groups(&heavy)).is_err());
    let mut bad_inner = GroupConfig::new("v", None, 100);
    bad_inner.scheduler = Some(("elevator".into(), Params::default()));
    assert!(Hierarchy::new("bfq", &Params::default(), &in_groups(&[bad_inner])).is_err());
    let deep: Vec<GroupConfig> = (0..=MAX_DEPTH as u32)
        .map(|g| GroupConfig::new(format!("g{g}"), g.checked_sub(1), 100))
        .collect();
    assert!(Hierarchy::new("noop", &Params::default(), &in_groups(&deep)).is_err());
}

/// Dispatches of flow 0 per second between 2 s and `secs` (the burst
/// spent by then), with flow 0 limited by `limit` and two greedy others.
fn limited_rate(policy: &str, limit: FlowConfig, secs: u64) -> f64 {
    let h = Hierarchy::around(bare_policy(policy, &Params::default()).unwrap());
    rate_of_flow_0(Box::new(h), limit, secs)
}

/// As [`limited_rate`], of any policy.
fn rate_of_flow_0(policy: Box<dyn Scheduler>, limit: FlowConfig, secs: u64) -> f64 {
    let mut tb = Testbed::new(policy, 1);
    tb.flow_config(0, &limit);
    for f in 0..3 {
        tb.closed_flow(greedy(f, 4));
    }
    tb.run(Instant::ZERO + Duration::from_secs(secs));
    let from = Instant::ZERO + Duration::from_secs(2);
    let n = tb
        .log
        .iter()
        .filter(|(t, r)| *t >= from && r.flow.0 == 0)
        .count();
    n as f64 / (secs - 2) as f64
}

/// Asserts that flow 0, limited to 100 IOPS (of the device's 1000), gets
/// 100 from `policy` (named `name`); unlimited it would get a third.
fn assert_100_iops_held(name: &str, policy: Box<dyn Scheduler>) {
    let limit = FlowConfig {
        qos: crate::Qos {
            weight: 1000,
            limit_iops: Some(100.0),
            ..crate::Qos::default()
        },
        ..FlowConfig::default()
    };
    let got = rate_of_flow_0(policy, limit, 12);
    assert!((95.0..=101.0).contains(&got), "{name}: {got} IOPS");
}

/// IOPS limits hold under policies that know nothing of limits.
#[test]
fn iops_limits_hold_under_any_policy() {
    // (C-LOOK is left out: it starves the lowest of three sequential
    // readers, limited or not.)
    for policy in ["noop", "bfq", "yfq", "cfq", "vios"] {
        let h = Hierarchy::around(bare_policy(policy, &Params::default()).unwrap());
        assert_100_iops_held(policy, Box::new(h));
    }
}

/// What `policy::build` returns enforces limits by itself (no groups, no
/// hierarchy asked for): an embedder cannot get a silently unlimited flow.
#[test]
fn built_policies_enforce_limits() {
    for policy in ["noop", "bfq", "yfq", "cfq", "vios", "mclock"] {
        let built = crate::policy::build(policy, &Params::default(), &BuildContext::default());
        assert_100_iops_held(policy, built.unwrap());
    }
}

/// A limit that arrives after other flows' requests are queued is enforced,
/// and the requests queued before still leave.
#[test]
fn a_limit_added_late_is_enforced() {
    use crate::policy::testkit::{req, FlatDevice};
    let mut p = Limited::new(crate::policy::Noop::default());
    let t0 = Instant::ZERO;
    p.add_flow(t0, FlowId(1), &FlowConfig::default());
    for id in 0..3 {
        p.add(t0, req(id, 1, id * 8));
    }
    assert!(!p.is_wrapped());
    let limit = FlowConfig {
        qos: crate::Qos {
            limit_iops: Some(10.0),
            burst: Some(Duration::ZERO),
            ..crate::Qos::default()
        },
        ..FlowConfig::default()
    };
    p.add_flow(t0, FlowId(0), &limit);
    assert!(p.is_wrapped());
    for id in 10..15 {
        p.add(t0, req(id, 0, id * 8));
    }
    assert_eq!(p.queued(), 8);
    let dev = FlatDevice::at(0);
    let mut served = Vec::new();
    while let Decision::Dispatch(r) = p.dispatch(t0, &dev) {
        served.push(r.flow.0);
    }
    // The three queued before leave first; of flow 0's five, the bucket
    // lets at most two through at once and holds the rest.
    assert_eq!(served[..3], [1, 1, 1]);
    let first = served.len() - 3;
    assert!((1..=2).contains(&first), "{served:?}");
    assert_eq!(p.queued(), 5 - first, "held back by the limit");
    assert!(p.poll_timeout().is_some_and(|t| t > t0));
}

/// A byte limit: 8-sector (4 KiB) requests under 0.2048 MB/s are 50 IOPS.
#[test]
fn byte_limits_hold() {
    let limit = FlowConfig {
        qos: crate::Qos {
            limit_mb_s: Some(0.2048),
            ..crate::Qos::default()
        },
        ..FlowConfig::default()
    };
    let got = limited_rate("bfq", limit, 12);
    assert!((48.0..=50.5).contains(&got), "{got} IOPS");
}

/// mclock keeps its own limit tags: the hierarchy does not throttle its
/// IOPS limits a second time (at_limit = allow would otherwise not allow).
#[test]
fn mclock_keeps_its_own_iops_limits() {
    let mut p = Params::default();
    p.insert("at_limit", crate::policy::ParamValue::Str("allow".into()));
    let h = Hierarchy::around(bare_policy("mclock", &p).unwrap());
    let mut tb = Testbed::new(h, 1);
    tb.flow_config(
        0,
        &FlowConfig {
            qos: crate::Qos {
                limit_iops: Some(100.0),
                ..crate::Qos::default()
            },
            ..FlowConfig::default()
        },
    );
    // Alone on the device: allowed past its limit.
    tb.closed_flow(greedy(0, 4));
    tb.run(Instant::ZERO + Duration::from_secs(3));
    assert!(tb.count(0) > 2500, "{}", tb.count(0));
}

/// A group's limit holds for its members together, and the rest of the
/// device goes to the others. Under YFQ the group gets its whole limit;
/// under BFQ it may get less (BFQ idles on the group's empty queue, then
/// gives the other flow budgets of up to 125 ms, longer than the bucket's
/// 100 ms burst), never more.
#[test]
fn group_limits_hold_for_the_whole_group() {
    for policy in ["yfq", "bfq"] {
        let mut a = GroupConfig::new("A", None, 900);
        a.qos.limit_iops = Some(200.0);
        let h = Hierarchy::new(policy, &Params::default(), &in_groups(&[a])).unwrap();
        let mut tb = Testbed::new(h, 1);
        tb.flow_config(0, &in_group(100, Some(0)));
        tb.flow_config(1, &in_group(100, Some(0)));
        for f in 0..3 {
            tb.closed_flow(greedy(f, 4));
        }
        tb.run(Instant::ZERO + Duration::from_secs(12));
        let from = Instant::ZERO + Duration::from_secs(2);
        let count = |f: u32| {
            tb.log
                .iter()
                .filter(|(t, r)| *t >= from && r.flow.0 == f)
                .count() as f64
                / 10.0
        };
        let group = count(0) + count(1);
        let least = if policy == "yfq" { 190.0 } else { 150.0 };
        assert!(
            (least..=201.0).contains(&group),
            "{policy}: group {group} IOPS"
        );
        // BFQ also idles 8 ms on the group's empty queue when its bucket
        // runs dry, so the other flow gets less of the rest.
        let other = if policy == "yfq" { 700.0 } else { 400.0 };
        assert!(count(2) > other, "{policy}: the other {}", count(2));
    }
}

/// Without limits or groups the wrapper is invisible: the same order as
/// the bare policy.
#[test]
fn an_empty_hierarchy_changes_nothing() {
    let run = |p: Box<dyn Scheduler>| {
        let mut tb = Testbed::new(p, 2);
        for f in 0..3 {
            tb.closed_flow(greedy(f, 3));
        }
        tb.run(Instant::ZERO + Duration::from_secs(2));
        tb.order()
    };
    // YFQ with a host turnaround idles between batches: the same waits.
    let mut turnaround = Params::default();
    turnaround.insert("batch", crate::policy::ParamValue::Int(4));
    turnaround.insert("batch_turnaround_us", crate::policy::ParamValue::Int(300));
    let cases = [
        ("bfq+", Params::default()),
        ("yfq", Params::default()),
        ("yfq", turnaround),
        ("cfq", Params::default()),
        ("dor", Params::default()),
    ];
    for (policy, params) in cases {
        let bare = run(bare_policy(policy, &params).unwrap());
        let wrapped = run(Box::new(Hierarchy::around(
            bare_policy(policy, &params).unwrap(),
        )));
        assert_eq!(bare, wrapped, "{policy} {params:?}");
    }
}

/// Each leaf's share when all are backlogged: the product down the tree of
/// weight over the siblings' weights.
fn ideal(groups: &[GroupConfig], leaves: &[(u32, Option<u32>)]) -> Vec<f64> {
    // Children's total weight per node (0 = root, g + 1 = group g), counting
    // only groups with a leaf below them.
    let live_group = |g: usize| {
        leaves.iter().any(|&(_, mut at)| {
            while let Some(x) = at {
                if x as usize == g {
                    return true;
                }
                at = groups[x as usize].parent;
            }
            false
        })
    };
    let node = |p: Option<u32>| p.map_or(0, |g| g as usize + 1);
    let mut sum = vec![0.0; groups.len() + 1];
    for (g, cfg) in groups.iter().enumerate() {
        if live_group(g) {
            sum[node(cfg.parent)] += f64::from(cfg.qos.weight);
        }
    }
    for &(w, g) in leaves {
        sum[node(g)] += f64::from(w);
    }
    leaves
        .iter()
        .map(|&(w, g)| {
            let mut share = f64::from(w) / sum[node(g)];
            let mut at = g;
            while let Some(x) = at {
                let cfg = &groups[x as usize];
                share *= f64::from(cfg.qos.weight) / sum[node(cfg.parent)];
                at = cfg.parent;
            }
            share
        })
        .collect()
}

/// Random trees: up to 5 groups, each under the root or an earlier group,
/// and 2 to 5 leaves anywhere.
fn tree() -> impl Strategy<Value = (Vec<GroupConfig>, Vec<(u32, Option<u32>)>)> {
    prop::collection::vec((1u32..=4, any::<prop::sample::Index>()), 0..5).prop_flat_map(|gs| {
        let groups: Vec<GroupConfig> = gs
            .iter()
            .enumerate()
            .map(|(g, (w, parent))| {
                let parent = (g > 0)
                    .then(|| parent.index(g + 1))
                    .and_then(|p| p.checked_sub(1))
                    .map(|p| p as u32);
                GroupConfig::new(format!("g{g}"), parent, w * 100)
            })
            .collect();
        let n = groups.len();
        let leaf =
            (1u32..=4, 0..=n).prop_map(|(w, at)| (w * 100, at.checked_sub(1).map(|g| g as u32)));
        (Just(groups), prop::collection::vec(leaf, 2..=5))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    /// Proportional share holds at every level: each backlogged leaf gets
    /// its ideal share (the product of weight ratios down its path) within
    /// 0.04, under YFQ at every node.
    #[test]
    fn shares_follow_the_tree(t in tree()) {
        let (groups, leaves) = t;
        let h = Hierarchy::new("yfq", &Params::default(), &in_groups(&groups)).unwrap();
        let flows: Vec<FlowConfig> = leaves.iter().map(|&(w, g)| in_group(w, g)).collect();
        let got = shares(h, &flows, 8);
        let want = ideal(&groups, &leaves);
        for (g, w) in got.iter().zip(&want) {
            prop_assert!((g - w).abs() < 0.04, "got {:?}, want {:?}", got, want);
        }
    }
}

/// Limits stay limits under merging: a request admitted by a byte limit
/// and then grown by merged arrivals owes its bucket the bytes it gained
/// (they passed free, and a merging reader got 1.1 MB/s under 1 MB/s).
#[test]
fn a_byte_limit_charges_what_merges_add() {
    let limit = FlowConfig {
        qos: crate::Qos {
            limit_mb_s: Some(1.0),
            burst: Some(ms(10)),
            ..crate::Qos::default()
        },
        ..FlowConfig::default()
    };
    for group in [false, true] {
        let (groups, config) = if group {
            let mut g = GroupConfig::new("g", None, 100);
            g.qos.limit_mb_s = Some(1.0);
            g.qos.burst = Some(ms(10));
            (vec![g], in_group(100, Some(0)))
        } else {
            (vec![], limit.clone())
        };
        let h = Hierarchy::new("noop", &Params::default(), &in_groups(&groups)).unwrap();
        let mut tb = Testbed::new(h, 1).with_merging(256);
        tb.flow_config(0, &config);
        // 4 KiB reads one after another; those arriving while the first
        // waits for the busy device merge into it.
        tb.add(1, 1 << 30, 8);
        assert_eq!(tb.expect_dispatch().flow.0, 1);
        for k in 0..32 {
            tb.add(0, k * 8, 8);
        }
        tb.complete_all(ms(1));
        let first = tb.expect_dispatch();
        assert!(first.sectors > 8, "group {group}: not merged: {first:?}");
        tb.complete_all(ms(1));
        // The merged bytes are owed: the next request waits until they are
        // paid at 1 MB/s, not only for its own 4 KiB.
        tb.add(0, 1 << 20, 8);
        let owed = first.bytes() as f64 - 10_000.0;
        let wake = tb.driver().poll_timeout().expect("held back");
        let waited = wake.as_nanos() as f64 / 1e9;
        assert!(
            waited >= owed / 1e6 - 0.002,
            "group {group}: free after {waited} s, owes {owed} bytes"
        );
    }
}
