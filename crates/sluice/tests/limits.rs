//! Limits stay limits (issue 43): random trees of groups with IOPS and
//! byte limits, bursts and reservations, under every policy at the root and
//! any policy in the groups, run through the driver with closed-loop flows.
//! No flow or group is served more than its limit allows over any window,
//! and the same case gives the same run.
//!
//! What "allows" means, over the window between two dispatches `a` and
//! `b` of a flow or group: `rate x (b - a)`, plus the bucket's burst (at
//! least one request), plus the one request a bucket lets through on
//! credit, plus what was already past the limit and queued below the
//! device at `a` (a flow: at most its outstanding requests; a group: at
//! most one per level between it and the root, each group keeping one
//! request in its parent). `mclock`'s L tags have no burst and fit the
//! same bound.

use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;

use sluice::policy::{build, BuildContext, GroupConfig, Params, DEFAULT_BURST, POLICIES};
use sluice::testkit::{ClosedFlow, Pattern, Testbed};
use sluice::{Duration, FlowConfig, Instant, Qos, Request};

/// The length of each run.
const RUN: Duration = Duration::from_millis(1500);

/// A flow or group's limits and reservation as generated.
#[derive(Clone, Debug)]
struct Terms {
    weight: u32,
    limit_iops: Option<f64>,
    limit_mb_s: Option<f64>,
    burst_ms: Option<u64>,
    /// A fraction of the IOPS limit (or an absolute rate without one).
    reservation: Option<f64>,
}

impl Terms {
    fn qos(&self) -> Qos {
        Qos {
            weight: self.weight,
            reservation_iops: self
                .reservation
                .map(|x| self.limit_iops.map_or(x * 500.0, |l| x * l)),
            limit_iops: self.limit_iops,
            limit_mb_s: self.limit_mb_s,
            burst: self.burst_ms.map(Duration::from_millis),
        }
    }
}

#[derive(Clone, Debug)]
struct GroupCase {
    /// An earlier group (index below this one's), or the root.
    parent: Option<usize>,
    terms: Terms,
    /// A policy of `POLICIES` among its children, or the root's.
    policy: Option<usize>,
}

#[derive(Clone, Debug)]
struct FlowCase {
    group: Option<usize>,
    terms: Terms,
    outstanding: usize,
    sequential: bool,
    write: bool,
}

#[derive(Clone, Debug)]
struct Case {
    groups: Vec<GroupCase>,
    flows: Vec<FlowCase>,
    depth: usize,
    service_us: u64,
}

fn terms() -> impl Strategy<Value = Terms> {
    (
        1u32..=1000,
        prop::option::weighted(0.5, 5.0f64..800.0),
        prop::option::weighted(0.4, 0.05f64..4.0),
        prop::option::weighted(0.5, 1u64..=300),
        prop::option::weighted(0.4, 0.05f64..1.0),
    )
        .prop_map(
            |(weight, limit_iops, limit_mb_s, burst_ms, reservation)| Terms {
                weight,
                limit_iops,
                limit_mb_s,
                burst_ms,
                reservation,
            },
        )
}

fn case() -> impl Strategy<Value = Case> {
    let groups = prop::collection::vec(
        (
            any::<prop::sample::Index>(),
            any::<bool>(),
            terms(),
            prop::option::weighted(0.5, 0..POLICIES.len()),
        ),
        0..4,
    )
    .prop_map(|gs| {
        gs.into_iter()
            .enumerate()
            .map(|(i, (parent, top, terms, policy))| GroupCase {
                parent: (i > 0 && !top).then(|| parent.index(i)),
                terms,
                policy,
            })
            .collect::<Vec<_>>()
    });
    (groups, 1usize..=4, 0usize..2, 200u64..=2000).prop_flat_map(
        |(groups, flows, depth, service_us)| {
            let n = groups.len();
            let flow = (
                prop::option::weighted(0.7, 0..n.max(1)),
                terms(),
                1usize..=4,
                any::<bool>(),
                prop::bool::weighted(0.25),
            )
                .prop_map(
                    move |(group, terms, outstanding, sequential, write)| FlowCase {
                        group: group.filter(|_| n > 0),
                        terms,
                        outstanding,
                        sequential,
                        write,
                    },
                );
            (
                Just(groups),
                prop::collection::vec(flow, flows),
                Just([1, 4][depth]),
                Just(service_us),
            )
                .prop_map(|(groups, flows, depth, service_us)| Case {
                    groups,
                    flows,
                    depth,
                    service_us,
                })
        },
    )
}

/// The case run under `policy` at the root: every dispatch with its time.
fn run(case: &Case, policy: &str) -> Vec<(Instant, Request)> {
    let groups = case
        .groups
        .iter()
        .enumerate()
        .map(|(i, g)| GroupConfig {
            name: format!("g{i}"),
            parent: g.parent.map(|p| p as u32),
            qos: g.terms.qos(),
            scheduler: g
                .policy
                .map(|p| (POLICIES[p].name.to_string(), Params::default())),
        })
        .collect();
    let context = BuildContext {
        groups,
        ..BuildContext::default()
    };
    let sched = build(policy, &Params::default(), &context)
        .unwrap_or_else(|e| panic!("building {policy}: {e}"));
    let mut tb = Testbed::new(sched, case.depth).with_merging(256);
    let service = Duration::from_micros(case.service_us);
    tb.service_time(move |_| service);
    for (i, f) in case.flows.iter().enumerate() {
        let config = FlowConfig {
            qos: f.terms.qos(),
            group: f.group.map(|g| g as u32),
            ..FlowConfig::default()
        };
        tb.flow_config(i as u32, &config);
        let pattern = if f.sequential {
            Pattern::Seq {
                next: i as u64 * (1 << 24),
            }
        } else {
            Pattern::Rand {
                state: i as u64 + 1,
            }
        };
        tb.closed_flow(ClosedFlow::new(
            i as u32,
            pattern,
            !f.write,
            f.outstanding,
            Duration::ZERO,
        ));
    }
    tb.run(Instant::ZERO + RUN);
    tb.log.clone()
}

/// Whether the dispatches `times` (ns, in order, with each request's
/// size) stay within `per_s` units a second plus `slack` units over every
/// window between two of them; `units` gives a request's units. Returns
/// the worst excess over the bound, if any.
fn over_limit(dispatches: &[(u64, u64)], per_s: f64, slack: f64) -> Option<(f64, u64, u64)> {
    let per_ns = per_s / 1e9;
    // Units in [t_i, t_j] = U_j - U_{i-1} <= per_ns (t_j - t_i) + slack:
    // with x_j = U_j - per_ns t_j and y_i = U_{i-1} - per_ns t_i, every
    // x_j - min_{i<=j} y_i <= slack.
    let mut before = 0.0;
    let mut least: Option<(f64, u64)> = None;
    let mut worst: Option<(f64, u64, u64)> = None;
    for &(t, units) in dispatches {
        let y = before - per_ns * t as f64;
        if least.is_none_or(|(m, _)| y < m) {
            least = Some((y, t));
        }
        before += units as f64;
        let x = before - per_ns * t as f64;
        let (m, from) = least.expect("set above");
        let excess = x - m - slack;
        if excess > 1e-6 && worst.is_none_or(|w| excess > w.0) {
            worst = Some((excess, from, t));
        }
    }
    worst
}

/// The bucket's burst, in requests (at least one) or bytes, of a rate.
fn burst_of(per_s: f64, terms: &Terms, least: f64) -> f64 {
    let burst = terms
        .burst_ms
        .map_or(DEFAULT_BURST, Duration::from_millis)
        .as_nanos() as f64
        / 1e9;
    (per_s * burst).max(least)
}

/// Every limit of the case holds in `log`; an error names who exceeded
/// which limit, by how much, in which window.
fn check_limits(case: &Case, policy: &str, log: &[(Instant, Request)]) -> Result<(), String> {
    let max_bytes = log.iter().map(|(_, r)| r.bytes()).max().unwrap_or(0) as f64;
    // Who is limited: each flow with its outstanding requests, each group
    // with its depth (requests it may have queued above it).
    let mut who: Vec<(String, &Terms, Vec<usize>, f64)> = Vec::new();
    for (i, f) in case.flows.iter().enumerate() {
        who.push((format!("flow {i}"), &f.terms, vec![i], f.outstanding as f64));
    }
    for (g, gc) in case.groups.iter().enumerate() {
        let members: Vec<usize> = (0..case.flows.len())
            .filter(|&i| {
                let mut at = case.flows[i].group;
                while let Some(x) = at {
                    if x == g {
                        return true;
                    }
                    at = case.groups[x].parent;
                }
                false
            })
            .collect();
        let mut depth = 1.0f64;
        let mut at = gc.parent;
        while let Some(p) = at {
            depth += 1.0;
            at = case.groups[p].parent;
        }
        let outstanding: usize = members.iter().map(|&i| case.flows[i].outstanding).sum();
        who.push((
            format!("group g{g}"),
            &gc.terms,
            members,
            depth.min(outstanding as f64),
        ));
    }
    for (name, terms, members, queued) in who {
        let mine: Vec<(u64, u64)> = log
            .iter()
            .filter(|(_, r)| members.contains(&(r.flow.0 as usize)))
            .map(|(t, r)| (t.as_nanos(), r.bytes()))
            .collect();
        if let Some(iops) = terms.limit_iops {
            let slack = burst_of(iops, terms, 1.0) + 1.0 + queued;
            let ios: Vec<(u64, u64)> = mine.iter().map(|&(t, _)| (t, 1)).collect();
            if let Some((by, a, b)) = over_limit(&ios, iops, slack) {
                return Err(format!(
                    "{policy}: {name} over limit_iops {iops:.3} by {by:.3} requests beyond its slack {slack:.3} between {a} and {b} ns"
                ));
            }
        }
        if let Some(mb_s) = terms.limit_mb_s {
            let per_s = mb_s * 1e6;
            let slack = burst_of(per_s, terms, 0.0) + max_bytes * (1.0 + queued);
            if let Some((by, a, b)) = over_limit(&mine, per_s, slack) {
                return Err(format!(
                    "{policy}: {name} over limit_mb_s {mb_s:.3} by {by:.0} bytes beyond its slack {slack:.0} between {a} and {b} ns"
                ));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    /// Under every policy: no flow or group beyond its limit over any
    /// window, and the same case twice gives the same dispatches at the
    /// same times.
    #[test]
    fn limits_stay_limits(case in case()) {
        for info in POLICIES {
            let log = run(&case, info.name);
            prop_assert!(!log.is_empty(), "{}: nothing dispatched", info.name);
            if let Err(e) = check_limits(&case, info.name, &log) {
                return Err(TestCaseError::fail(e));
            }
            let again = run(&case, info.name);
            prop_assert!(log == again, "{}: a second run differs", info.name);
        }
    }
}

/// The checker rejects a run over its limit (it is not vacuous): 20
/// requests in 10 ms under 100 IOPS with a 50 ms burst.
#[test]
fn the_limit_checker_detects_a_flow_over_its_limit() {
    let burst = 100.0 * 0.05;
    let even: Vec<(u64, u64)> = (0..20).map(|k| (k * 10_000_000, 1)).collect();
    assert_eq!(over_limit(&even, 100.0, burst + 1.0), None);
    let bunched: Vec<(u64, u64)> = (0..20).map(|k| (k * 500_000, 1)).collect();
    let (by, a, b) = over_limit(&bunched, 100.0, burst + 1.0).unwrap();
    assert!(by > 10.0 && a == 0 && b > a, "{by} {a} {b}");
    // A burst late in the run counts from its own start.
    let late: Vec<(u64, u64)> = (0..10)
        .map(|k| (k * 100_000_000, 1))
        .chain((0..10).map(|k| (2_000_000_000 + k * 1_000, 1)))
        .collect();
    assert!(over_limit(&late, 100.0, burst + 1.0).is_some());
}
