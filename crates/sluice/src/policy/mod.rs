//! Every policy, and how to build one by its contract name.

mod bfq;
mod bsd;
mod cfq;
mod clook;
mod deadline;
mod dor;
mod fq_rr;
mod noop;
mod params;
mod sstf;
mod vios;
mod yfq;

#[cfg(test)]
pub(crate) use crate::testkit;

pub use bfq::{Bfq, BfqConfig, Expiration, ExpirationRecord, RaisingParams};
pub use bsd::Bsd;
pub use cfq::{Cfq, CfqParams};
pub use clook::Clook;
pub use deadline::{Deadline, DeadlineParams};
pub use dor::{Dor, DorParams};
pub use fq_rr::fq_rr;
pub use noop::Noop;
pub use params::{ParamValue, Params};
pub use sstf::Sstf;
pub use vios::{mb_s_to_sectors_per_ns, ClassStats, Vios, ViosConfig, ViosMode};
pub use yfq::{Yfq, YfqParams};

use crate::error::Error;
use crate::scheduler::Scheduler;

/// A policy sluice can build: its contract name and a one-line description.
#[derive(Clone, Copy, Debug)]
pub struct PolicyInfo {
    pub name: &'static str,
    pub summary: &'static str,
    /// Parameters it accepts, with defaults, for `sluice list`.
    pub params: &'static str,
}

/// The policies this build provides.
pub const POLICIES: &[PolicyInfo] = &[
    PolicyInfo {
        name: "noop",
        summary: "FIFO in arrival order (Linux noop without merging)",
        params: "",
    },
    PolicyInfo {
        name: "clook",
        summary: "C-LOOK: ascending sector order from the head, wrapping to the lowest",
        params: "",
    },
    PolicyInfo {
        name: "sstf",
        summary: "shortest seek time first, by the device's seek-time estimate",
        params: "",
    },
    PolicyInfo {
        name: "cfq",
        summary: "Linux 2.6.34 CFQ: per-process sync queues in time slices, idling, low_latency",
        params: cfq::PARAMS,
    },
    PolicyInfo {
        name: "bfq",
        summary: "BFQ (SYSTOR 2012 §3): per-flow sector budgets under B-WF2Q+, idling",
        params: bfq::BFQ_PARAMS,
    },
    PolicyInfo {
        name: "bfq+",
        summary: "BFQ+ (SYSTOR 2012 §4): BFQ with the five switchable heuristics",
        params: bfq::BFQ_PLUS_PARAMS,
    },
    PolicyInfo {
        name: "vios",
        summary: "VIOS CFQ-CRR (VEE 2007 §3.7): per-class quanta of disk time, compensated overruns, one request at a time, inner scheduler per class",
        params: vios::VIOS_PARAMS,
    },
    PolicyInfo {
        name: "vios-p",
        summary: "VIOS(P) (VEE 2007 §6.2): per-class sector budgets 2·Q·BW, up to K in the device, resume at 2, compensated",
        params: vios::VIOS_P_PARAMS,
    },
    PolicyInfo {
        name: "fq-rr",
        summary: "FQ-RR (VEE 2007 §3.5): per-class quanta of disk time, overruns never compensated",
        params: fq_rr::FQ_RR_PARAMS,
    },
    PolicyInfo {
        name: "deadline",
        summary: "Linux 2.6 deadline: sector-sorted batches per direction, FIFO expiry, reads preferred",
        params: deadline::PARAMS,
    },
    PolicyInfo {
        name: "yfq",
        summary: "YFQ (ICMCS 1999 §2-3): start/finish tags, batches, overlap, tie-breaking, fragment groups, l_lat",
        params: yfq::PARAMS,
    },
    PolicyInfo {
        name: "bsd",
        summary: "FreeBSD 2.2.7 disk queue (YFQ paper §3.2): FIFO pipelined into the drive, fragments one at a time",
        params: bsd::BSD_PARAMS,
    },
    PolicyInfo {
        name: "bsd-grouped",
        summary: "bsd with the fragments of one request issued together (YFQ paper §3.4)",
        params: bsd::BSD_GROUPED_PARAMS,
    },
    PolicyInfo {
        name: "dor",
        summary: "Nam-Park BQS+DOR: YFQ base sequence in C-SCAN order, expanded where seek slack and M_qos allow",
        params: dor::PARAMS,
    },
];

/// Build a policy by its contract name with the given parameters. Every
/// parameter must be consumed: an unknown one is an error naming it.
pub fn build(name: &str, params: &Params) -> Result<Box<dyn Scheduler>, Error> {
    let mut p = params.reader(name);
    let policy: Box<dyn Scheduler> = match name {
        "noop" => Box::new(Noop::default()),
        "clook" => Box::new(Clook::default()),
        "sstf" => Box::new(Sstf::default()),
        "cfq" => Box::new(Cfq::with_params(CfqParams::read(&mut p)?)),
        "bfq" => Box::new(Bfq::from_params(false, &mut p)?),
        "bfq+" => Box::new(Bfq::from_params(true, &mut p)?),
        "vios" => Box::new(Vios::from_params(ViosMode::Crr, &mut p)?),
        "vios-p" => Box::new(Vios::from_params(ViosMode::Parallel, &mut p)?),
        "fq-rr" => Box::new(fq_rr::from_params(&mut p)?),
        "deadline" => Box::new(Deadline::with_params(DeadlineParams::read(&mut p)?)),
        "yfq" => Box::new(Yfq::from_params(&mut p)?),
        "bsd" => Box::new(Bsd::from_params(false, &mut p)?),
        "bsd-grouped" => Box::new(Bsd::from_params(true, &mut p)?),
        "dor" => Box::new(Dor::from_params(&mut p)?),
        _ => {
            return Err(Error::UnknownPolicy {
                name: name.to_string(),
                available: POLICIES
                    .iter()
                    .map(|p| p.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            })
        }
    };
    let accepted = POLICIES
        .iter()
        .find(|i| i.name == name)
        .map_or("", |i| i.params);
    p.finish(accepted)?;
    Ok(policy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_policy_builds_with_defaults() {
        for info in POLICIES {
            let s = build(info.name, &Params::default()).unwrap();
            assert_eq!(s.name(), info.name);
        }
    }

    #[test]
    fn unknown_policy_names_itself_and_the_alternatives() {
        let err = build("no-such", &Params::default()).err().unwrap();
        let msg = err.to_string();
        assert!(msg.contains("no-such") && msg.contains("clook"), "{msg}");
    }

    #[test]
    fn unknown_parameter_is_rejected() {
        let mut params = Params::default();
        params.insert("quantum", ParamValue::Int(4));
        let err = build("noop", &params).err().unwrap();
        assert!(err.to_string().contains("quantum"), "{err}");
    }
}
