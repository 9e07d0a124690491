//! Every policy, and how to build one by its contract name.

mod bfq;
mod bsd;
mod cfq;
mod clook;
mod deadline;
mod dor;
mod fair_ids;
mod fair_sorted;
mod fair_tree;
mod fq_rr;
mod hierarchy;
mod in_flight;
mod mclock;
mod merge;
mod noop;
mod params;
mod quad_heap;
mod seastar_fq;
#[cfg(test)]
mod sector_order_golden;
mod sorted;
mod sstf;
mod think_filter;
mod vios;
mod yfq;

#[cfg(test)]
pub(crate) use crate::testkit;

pub use crate::stats::{DorStats, MclockStats, PolicyStats, SeastarFqStats, ViosStats, YfqStats};
pub use bfq::{
    Bfq, BfqConfig, BfqTunables, BfqVariant, Expiration, ExpirationRecord, RaisingParams,
};
pub use bsd::{Bsd, BsdTunables, BsdVariant};
pub use cfq::{Cfq, CfqParams, CfqTunables};
pub use clook::Clook;
pub use deadline::{Deadline, DeadlineParams, DeadlineTunables};
pub use dor::{Dor, DorParams};
pub use fq_rr::fq_rr;
pub use hierarchy::{
    Bucket, GroupConfig, Hierarchy, Limited, DEFAULT_BURST, MAX_DEPTH, MAX_GROUPS, PREFETCH,
};
pub use mclock::{AtLimit, Mclock, MclockParams, MclockTunables};
pub use merge::{merge_queued, merge_sorted};
pub use noop::Noop;
pub use params::{parameters_markdown, ParamKind, ParamSpec, ParamTable, ParamValue, Params};
pub use seastar_fq::{SeastarFq, SeastarFqParams, SeastarFqTunables};
pub use sstf::Sstf;
pub use vios::{mb_s_to_sectors_per_ns, ClassStats, Vios, ViosConfig, ViosMode, ViosTunables};
pub use yfq::{Yfq, YfqParams, YfqTunables};

use crate::charge::LinearCost;
use crate::error::Error;
use crate::scheduler::{ClassConfig, Scheduler};
use crate::time::Instant;
use params::ParamReader;

/// A policy sluice can build: its contract name and a one-line description.
#[derive(Clone, Copy, Debug)]
pub struct PolicyInfo {
    /// The contract name [`build`] takes.
    pub name: &'static str,
    /// What it does, in one line.
    pub summary: &'static str,
    /// Parameters it accepts: name, default, range, meaning. Displays as
    /// `sluice list` prints it.
    pub params: &'static ParamTable,
    /// How [`build`] makes it: the one place its name meets its type.
    make: Make,
}

/// A policy from its parameters and charge, boxed as [`Limits`] says.
type Make = fn(&mut ParamReader<'_>, &LinearCost, Limits) -> Result<Box<dyn Scheduler>, Error>;

/// The policies this build provides.
pub const POLICIES: &[PolicyInfo] = &[
    PolicyInfo {
        name: "noop",
        summary: "FIFO in arrival order (Linux noop without merging)",
        params: &ParamTable::NONE,
        make: |_, _, l| Ok(boxed(Noop::default(), l)),
    },
    PolicyInfo {
        name: "clook",
        summary: "C-LOOK: ascending sector order from the head, wrapping to the lowest",
        params: &ParamTable::NONE,
        make: |_, _, l| Ok(boxed(Clook::default(), l)),
    },
    PolicyInfo {
        name: "sstf",
        summary: "shortest seek time first, by the device's seek-time estimate",
        params: &ParamTable::NONE,
        make: |_, _, l| Ok(boxed(Sstf::default(), l)),
    },
    PolicyInfo {
        name: "cfq",
        summary: "Linux 2.6.34 CFQ: per-process sync queues in time slices, idling, low_latency",
        params: &cfq::PARAMS,
        make: |p, _, l| Ok(boxed(Cfq::with_params(CfqParams::read(p)?), l)),
    },
    PolicyInfo {
        name: "bfq",
        summary: "BFQ (SYSTOR 2012 §3): per-flow sector budgets under B-WF2Q+, idling",
        params: &bfq::BFQ_PARAMS,
        make: |p, c, l| Ok(boxed(Bfq::from_params(BfqVariant::Original, p)?.with_charge(c), l)),
    },
    PolicyInfo {
        name: "bfq+",
        summary: "BFQ+ (SYSTOR 2012 §4): BFQ with the five switchable heuristics",
        params: &bfq::BFQ_PLUS_PARAMS,
        make: |p, c, l| Ok(boxed(Bfq::from_params(BfqVariant::Plus, p)?.with_charge(c), l)),
    },
    PolicyInfo {
        name: "vios",
        summary: "VIOS CFQ-CRR (VEE 2007 §3.7): per-class quanta of disk time, compensated overruns, one request at a time, inner scheduler per class",
        params: &vios::VIOS_PARAMS,
        make: |p, _, l| Ok(boxed(Vios::from_params(ViosMode::Crr, p)?, l)),
    },
    PolicyInfo {
        name: "vios-p",
        summary: "VIOS(P) (VEE 2007 §6.2): per-class sector budgets 2·Q·BW, up to K in the device, resume at 2, compensated",
        params: &vios::VIOS_P_PARAMS,
        make: |p, _, l| Ok(boxed(Vios::from_params(ViosMode::Parallel, p)?, l)),
    },
    PolicyInfo {
        name: "fq-rr",
        summary: "FQ-RR (VEE 2007 §3.5): per-class quanta of disk time, overruns never compensated",
        params: &fq_rr::FQ_RR_PARAMS,
        make: |p, _, l| Ok(boxed(fq_rr::from_params(p)?, l)),
    },
    PolicyInfo {
        name: "deadline",
        summary: "Linux 2.6 deadline: sector-sorted batches per direction, FIFO expiry, reads preferred",
        params: &deadline::PARAMS,
        make: |p, _, l| Ok(boxed(Deadline::with_params(DeadlineParams::read(p)?), l)),
    },
    PolicyInfo {
        name: "yfq",
        summary: "YFQ (ICMCS 1999 §2-3): start/finish tags, batches, overlap, tie-breaking, fragment groups, l_lat",
        params: &yfq::PARAMS,
        make: |p, c, l| Ok(boxed(Yfq::from_params(p)?.with_charge(c), l)),
    },
    PolicyInfo {
        name: "bsd",
        summary: "FreeBSD 2.2.7 disk queue (YFQ paper §3.2): FIFO pipelined into the drive, fragments one at a time",
        params: &bsd::BSD_PARAMS,
        make: |p, _, l| Ok(boxed(Bsd::from_params(BsdVariant::Plain, p)?, l)),
    },
    PolicyInfo {
        name: "bsd-grouped",
        summary: "bsd with the fragments of one request issued together (YFQ paper §3.4)",
        params: &bsd::BSD_GROUPED_PARAMS,
        make: |p, _, l| Ok(boxed(Bsd::from_params(BsdVariant::Grouped, p)?, l)),
    },
    PolicyInfo {
        name: "dor",
        summary: "Nam-Park BQS+DOR: YFQ base sequence in C-SCAN order, expanded where seek slack and M_qos allow",
        params: &dor::PARAMS,
        make: |p, _, l| Ok(boxed(Dor::from_params(p)?, l)),
    },
    PolicyInfo {
        name: "mclock",
        summary: "mClock (OSDI 2010 §3): per-flow reservation, weight and limit tags; reservations first, then weights among flows under their limit",
        params: &mclock::PARAMS,
        make: |p, c, l| Ok(boxed(Mclock::from_params(p)?.with_charge(c), l)),
    },
    PolicyInfo {
        name: "seastar-fq",
        summary: "Seastar's I/O fair queue: least accumulated cost/shares first, the tau activation window, a capacity token bucket from the disk's IOPS and bandwidth",
        params: &seastar_fq::PARAMS,
        make: |p, _, l| Ok(boxed(SeastarFq::from_params(p)?, l)),
    },
];

/// What a policy is built with besides its parameters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BuildContext {
    /// What policies set to `charge = "cost"` charge a request (a
    /// scenario's `[cost]`; by default the kernel's model of a rotational
    /// disk). Other policies ignore it.
    pub charge: LinearCost,
    /// Groups of flows, in a [`Hierarchy`]; a flow's
    /// [`FlowConfig::group`](crate::FlowConfig::group) indexes this list.
    /// Empty = no groups.
    pub groups: Vec<GroupConfig>,
    /// Classes of flows (VIOS's OS instances), added in order as classes
    /// 0, 1, ...; a flow's [`FlowConfig::class`](crate::FlowConfig::class)
    /// indexes this list. Policies without classes ignore them.
    pub classes: Vec<ClassConfig>,
}

/// Build a policy by its contract name with the given parameters and
/// context. Every parameter must be consumed: an unknown one is an error
/// naming it. The policy keeps every [`FlowConfig`](crate::FlowConfig)
/// promise: with groups it is a [`Hierarchy`]; without, a [`Limited`],
/// which becomes one when a flow with a rate limit is added.
pub fn build(
    name: &str,
    params: &Params,
    context: &BuildContext,
) -> Result<Box<dyn Scheduler>, Error> {
    let mut policy = if context.groups.is_empty() {
        construct(name, params, &context.charge, Limits::Enforced)?
    } else {
        Box::new(Hierarchy::new(name, params, context)?)
    };
    for (class, config) in (0..).zip(&context.classes) {
        policy.add_class(Instant::ZERO, class, config)?;
    }
    Ok(policy)
}

/// Who enforces the flows' rate limits of a policy [`construct`] builds.
#[derive(Clone, Copy)]
enum Limits {
    /// The policy itself, in a [`Limited`].
    Enforced,
    /// The [`Hierarchy`] the policy is a node of.
    ByHierarchy,
}

/// A node of a [`Hierarchy`]: the bare policy, limits left to the hierarchy.
fn build_bare(
    name: &str,
    params: &Params,
    charge: &LinearCost,
) -> Result<Box<dyn Scheduler>, Error> {
    construct(name, params, charge, Limits::ByHierarchy)
}

fn construct(
    name: &str,
    params: &Params,
    charge: &LinearCost,
    limits: Limits,
) -> Result<Box<dyn Scheduler>, Error> {
    let Some(info) = POLICIES.iter().find(|i| i.name == name) else {
        return Err(Error::UnknownPolicy {
            name: name.to_string(),
            available: POLICIES
                .iter()
                .map(|p| p.name)
                .collect::<Vec<_>>()
                .join(", "),
        });
    };
    let mut p = params.reader(name);
    let policy = (info.make)(&mut p, charge, limits)?;
    p.finish(info.params)?;
    Ok(policy)
}

/// Boxed with its concrete type known, so a [`Limited`] calls it
/// statically.
fn boxed<S: Scheduler + 'static>(policy: S, limits: Limits) -> Box<dyn Scheduler> {
    match limits {
        Limits::Enforced => Box::new(Limited::new(policy)),
        Limits::ByHierarchy => Box::new(policy),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key two policies share means the same kind of value in both
    /// (CFQ's times were integers while BFQ's same keys were numbers).
    #[test]
    fn a_shared_key_has_one_kind() {
        let kind = |k: &ParamKind| std::mem::discriminant(k);
        for a in POLICIES {
            for b in POLICIES {
                for sa in a.params.specs {
                    if let Some(sb) = b.params.get(sa.name) {
                        assert_eq!(
                            kind(&sa.kind),
                            kind(&sb.kind),
                            "{} in {} and {}",
                            sa.name,
                            a.name,
                            b.name
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn cfq_takes_a_fraction_of_a_millisecond() {
        let mut params = Params::default();
        params.insert("slice_idle_ms", ParamValue::Float(2.5));
        let mut p = params.reader("cfq");
        let cfq = CfqParams::read(&mut p).unwrap();
        assert_eq!(cfq.slice_idle, crate::Duration::from_micros(2_500));
    }

    #[test]
    fn every_listed_policy_builds_with_defaults() {
        for info in POLICIES {
            let s = build(info.name, &Params::default(), &BuildContext::default()).unwrap();
            assert_eq!(s.name(), info.name);
        }
    }

    /// Classes come with the context: built in one step, a class naming no
    /// policy fails the build.
    #[test]
    fn classes_are_added_at_build() {
        let class = |inner: &str| ClassConfig {
            name: "os".into(),
            quantum: crate::Duration::ZERO,
            inner: inner.into(),
        };
        let context = BuildContext {
            classes: vec![class("noop"), class("clook")],
            ..BuildContext::default()
        };
        assert!(build("vios", &Params::default(), &context).is_ok());
        let bad = BuildContext {
            classes: vec![class("no-such")],
            ..BuildContext::default()
        };
        let err = build("vios", &Params::default(), &bad).err().unwrap();
        assert!(err.to_string().contains("no-such"), "{err}");
    }

    #[test]
    fn unknown_policy_names_itself_and_the_alternatives() {
        let err = build("no-such", &Params::default(), &BuildContext::default())
            .err()
            .unwrap();
        let msg = err.to_string();
        assert!(msg.contains("no-such") && msg.contains("clook"), "{msg}");
    }

    #[test]
    fn unknown_parameter_is_rejected() {
        let mut params = Params::default();
        params.insert("quantum", ParamValue::Int(4));
        let err = build("noop", &params, &BuildContext::default())
            .err()
            .unwrap();
        assert!(err.to_string().contains("quantum"), "{err}");
    }

    /// The tables print exactly the listings `sluice list` and the
    /// unknown-parameter error printed before they existed.
    #[test]
    fn tables_list_as_before() {
        let listed: Vec<(&str, String)> = POLICIES
            .iter()
            .map(|i| (i.name, i.params.to_string()))
            .collect();
        let before = [
            ("noop", ""),
            ("clook", ""),
            ("sstf", ""),
            ("cfq", "quantum = 8, slice_sync_ms = 100, slice_async_ms = 40, \
slice_async_rq = 2, slice_idle_ms = 8, fifo_expire_sync_ms = 125, fifo_expire_async_ms = 250, \
back_seek_max_kib = 16384, back_seek_penalty = 2, low_latency = true, target_latency_ms = 300, \
nonrot = false"),
            ("bfq", "slice_idle_ms=8, timeout_ms=125, max_budget=0 (sectors; 0 = T_max x peak rate), \
budget_step=1024, seek_threshold=8192, low_latency=false, peak_rate_lpf=false, \
budget_rules=false, fairness_rules=false, write_throt=false, write_charge=10, raising_coeff=10, \
raising_mb=24, raising_ms=6000, raising_idle_ms=2000, raised_idle_factor=1, \
raised_timeout=false, raised_ncq_idling=false, ncq_seq_idling=false, hw_tag_detection=false, fifo_expire_sync_ms=125, fifo_expire_async_ms=250, quantum=4, \
max_budget_async_rq=4, timeout_at_completion=true, think_time_rule=true, min_tt_ms=2, \
seek_cap=true, charge=\"sectors\""),
            ("bfq+", "slice_idle_ms=8, timeout_ms=125, max_budget=0 (sectors; 0 = T_max x peak rate), \
budget_step=1024, seek_threshold=8192, low_latency=true, peak_rate_lpf=true, \
budget_rules=true, fairness_rules=true, write_throt=true, write_charge=10, raising_coeff=10, \
raising_mb=24, raising_ms=6000, raising_idle_ms=2000, raised_idle_factor=3, \
raised_timeout=true, raised_ncq_idling=true, ncq_seq_idling=true, hw_tag_detection=true, fifo_expire_sync_ms=125, fifo_expire_async_ms=250, quantum=4, \
max_budget_async_rq=4, timeout_at_completion=true, think_time_rule=true, min_tt_ms=2, \
seek_cap=true, charge=\"sectors\""),
            ("vios", "quantum_ms = 20"),
            ("vios-p", "quantum_ms = 20, resume_at = 2, bw_mb_s = 50"),
            ("fq-rr", "quantum_ms = 20"),
            ("deadline", "read_expire_ms = 500, write_expire_ms = 5000, writes_starved = 2, fifo_batch = 16"),
            ("yfq", "batch = 1, overlap = false, tie_break = false, group = 1, l_lat_kb = 0, \
shared_fragment_tags = true (false: each fragment tagged as a request of its own, unmodified YFQ), \
batch_turnaround_us = 0 (us; 0 = none), charge = \"sectors\""),
            ("bsd", "pipeline = 4, cscan = false"),
            ("bsd-grouped", "pipeline = 4, cscan = false, group = 0 (all fragments)"),
            ("dor", "base = 4, m_dmo = 20 (% of the full stroke; 0 = no DOR), \
m_qos = 1 (sectors/weight; 0 = BQS alone), \
drive_stroke = true (M_dmo of the drive's own full stroke; false: of the paper's 17.742 ms), \
bounded_walk = false (true: Algorithm 2's walk ends at the base's N-th position, at most N-1 insertions), \
charge_bqs = false (BQS_IO keeps the ratio alone; true: DOR's requests move their queue's BQS tags), \
dqe_per_sequence = false (f_k persist across sequences; true: every f_k starts at 0 in each walk), \
oldest_first = false (nearest R^cur, by sector index; true: the oldest, by a scan of the queue)"),
            ("mclock", "at_limit = \"wait\" (wait: a flow over its limit waits; allow: limits only order), \
idle_ms = 100 (ms), charge = \"ios\""),
            ("seastar-fq", "tau_ms = 5 (ms; Seastar's io_queue::config::tau), \
latency_goal_ms = 0.75 (ms; Seastar's io-latency-goal-ms default), read_iops = 0 (0 = not given), \
read_mb_s = 0 (0 = not given), write_iops = 0 (0 = not given), write_mb_s = 0 (0 = not given)"),
        ];
        assert_eq!(listed.len(), before.len());
        for ((name, list), (old_name, old)) in listed.iter().zip(before) {
            assert_eq!((*name, list.as_str()), (old_name, old));
        }
    }

    /// Every row of every table is read by its policy: set to its default
    /// it is consumed (no unknown-parameter error) and builds the same
    /// policy as no parameter.
    #[test]
    fn every_table_row_is_read_with_its_default() {
        for info in POLICIES {
            for spec in info.params.specs {
                let mut params = Params::default();
                params.insert(spec.name, spec.default_value());
                let built = build(info.name, &params, &BuildContext::default());
                assert!(
                    built.is_ok(),
                    "{} {}: {:?}",
                    info.name,
                    spec.name,
                    built.err()
                );
                assert!(!spec.doc.is_empty(), "{} {}", info.name, spec.name);
            }
        }
    }

    /// A bad value names the table's range.
    #[test]
    fn out_of_range_values_quote_the_tables_range() {
        let mut params = Params::default();
        params.insert("raising_mb", ParamValue::Float(-1.0));
        let err = build("bfq+", &params, &BuildContext::default())
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("a number in 0..=1000000"), "{err}");
        let mut params = Params::default();
        params.insert("quantum", ParamValue::Int(0));
        let err = build("cfq", &params, &BuildContext::default())
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("an integer in 1..=1024"), "{err}");
    }

    /// Every row of `table` set to its default.
    fn table_defaults(table: &ParamTable) -> Params {
        let mut params = Params::default();
        for spec in table.specs {
            params.insert(spec.name, spec.default_value());
        }
        params
    }

    /// The configurations' defaults are the tables': every row given its
    /// listed default builds the default configuration.
    #[test]
    fn configurations_default_to_their_tables() {
        for (variant, default) in [
            (BfqVariant::Original, BfqConfig::original()),
            (BfqVariant::Plus, BfqConfig::plus()),
        ] {
            let given = table_defaults(variant.params());
            let read = BfqConfig::from_params(variant, &mut given.reader(variant.name()));
            assert_eq!(read.unwrap(), default);
        }
        let given = table_defaults(&cfq::PARAMS);
        assert_eq!(
            CfqParams::read(&mut given.reader("cfq")).unwrap(),
            CfqParams::default()
        );
        let given = table_defaults(&deadline::PARAMS);
        let read = DeadlineParams::read(&mut given.reader("deadline"));
        assert_eq!(read.unwrap(), DeadlineParams::default());
        let given = table_defaults(&yfq::PARAMS);
        assert_eq!(
            YfqParams::read(&mut given.reader("yfq")).unwrap(),
            YfqParams::default()
        );
        let given = table_defaults(&dor::PARAMS);
        assert_eq!(
            DorParams::read(&mut given.reader("dor")).unwrap(),
            DorParams::default()
        );
        let given = table_defaults(&mclock::PARAMS);
        let read = MclockParams::read(&mut given.reader("mclock"));
        assert_eq!(read.unwrap(), MclockParams::default());
        let given = table_defaults(&seastar_fq::PARAMS);
        let read = SeastarFqParams::read(&mut given.reader("seastar-fq"));
        assert_eq!(read.unwrap(), SeastarFqParams::default());
        let given = table_defaults(&vios::VIOS_P_PARAMS);
        let read = ViosConfig::read(ViosMode::Parallel, &mut given.reader("vios-p"));
        assert_eq!(read.unwrap(), ViosConfig::new(ViosMode::Parallel));
        // B_rais in sectors is the table's MB, whatever the number.
        let ParamKind::Float { default: mb, .. } = bfq::BFQ_PARAMS.get("raising_mb").unwrap().kind
        else {
            panic!("raising_mb is a number");
        };
        let sectors = (mb * 1e6 / crate::SECTOR_BYTES as f64).round() as u64;
        assert_eq!(BfqConfig::original().raising.budget, sectors);
        assert_eq!(RaisingParams::default(), BfqConfig::plus().raising);
    }
}
