//! Nam and Park, "Design and evaluation of an efficient proportional-share
//! disk scheduling algorithm": BQS + DOR on DiskSim's IBM DNES-309170W, two
//! reservation queues weighted 80:20.

use super::{row, Experiment, Jobs, Row};
use crate::error::Result;
use crate::scenario::Pattern;
use crate::{FlowBuilder, ScenarioBuilder, SimReport};

const IO_LEVELS: [u32; 13] = [1, 6, 11, 16, 21, 26, 31, 36, 41, 46, 51, 56, 61];
const MDMO: [u32; 7] = [0, 5, 10, 20, 40, 60, 100];
const MQOS: [f64; 5] = [0.0, 0.5, 1.0, 5.0, 10.0];

/// Two reservation queues, 80:20, each keeping `io` requests outstanding,
/// under DOR with margins `m_dmo` and `m_qos`.
fn scenario(io: u32, dur: f64, m_dmo: u32, m_qos: f64) -> ScenarioBuilder {
    ScenarioBuilder::new(format!("io={io}"), dur)
        .seed(1)
        .warmup_s(2.0)
        .preset("ibm-dnes-309170w")
        .queue_depth(4)
        .internal("fcfs")
        .scheduler("dor")
        .param("m_dmo", m_dmo)
        .param("m_qos", m_qos)
        .flow(
            FlowBuilder::new("rq", Pattern::Pool)
                .weights(vec![80, 20])
                .outstanding(io)
                .file_gib(8.5)
                .offset_gib(0.0),
        )
}

fn threads(r: &SimReport) -> (f64, f64) {
    let t = r.flows[0].threads.as_deref().unwrap_or(&[]);
    (
        t.first().map_or(0.0, |t| t.iops),
        t.get(1).map_or(0.0, |t| t.iops),
    )
}

fn ratio(r: &SimReport) -> f64 {
    let (a, b) = threads(r);
    if b > 0.0 {
        a / b
    } else {
        f64::NAN
    }
}

fn stat(r: &SimReport, key: &str) -> f64 {
    r.policy_stats.get(key).copied().unwrap_or(f64::NAN)
}

/// Requests per second dispatched as part of the base sequence, and
/// inserted by DOR.
fn split_iops(r: &SimReport) -> (f64, f64) {
    let secs = (r.sim_time_s - r.measured_from_s).max(1e-9);
    let (b, d) = (stat(r, "bqs_requests"), stat(r, "dor_requests"));
    let total = b + d;
    if total > 0.0 {
        (r.aggregate.iops * b / total, r.aggregate.iops * d / total)
    } else {
        (r.aggregate.requests as f64 / secs, 0.0)
    }
}

/// Every experiment of the paper.
fn experiment(id: &str, title: &str, notes: &str, rows: Vec<Row>) -> Experiment {
    super::experiment("dor", id, title, notes, rows)
}

pub(super) fn experiments(opts: &super::Options) -> Result<Vec<Experiment>> {
    let quick = opts.quick;
    let dur = if quick { 15.0 } else { 60.0 };
    let mut jobs = Jobs::new(None);
    let mut mdmo = Vec::new();
    for io in IO_LEVELS {
        for m in MDMO {
            mdmo.push((io, m, jobs.add(scenario(io, dur, m, 0.5))));
        }
    }
    let mut mqos = Vec::new();
    for io in [11, 61] {
        for q in MQOS {
            mqos.push((io, q, jobs.add(scenario(io, dur, 20, q))));
        }
    }
    let mut vs = Vec::new();
    for io in IO_LEVELS {
        for (label, q) in [("yfq", 0.0), ("dor-q0.5", 0.5), ("dor-q1", 1.0)] {
            vs.push((io, label, jobs.add(scenario(io, dur, 20, q))));
        }
    }
    let res = jobs.run(opts)?;
    let mut out = Vec::new();

    let mut rows = Vec::new();
    for (io, m, i) in &mdmo {
        let r = &res[*i];
        let w = format!("io={io}");
        rows.push(row(
            "dor",
            &w,
            &format!("mdmo={m}"),
            "IOPS",
            r.aggregate.iops,
            None,
        ));
        rows.push(row(
            "dor",
            &w,
            &format!("len@mdmo={m}"),
            "requests",
            stat(r, "mean_sequence_len"),
            None,
        ));
    }
    out.push(experiment(
        "mdmo",
        "Throughput against the DME margin M_dmo (M_qos = 0.5)",
        "Two reservation queues (80:20), each keeping |IO| requests outstanding (so both stay backlogged and the ratio is the scheduler's): normal sizes (mean 8, sd 2 sectors), reads:writes 2:1, uniform over the disk; the drive serves FIFO with up to 4 outstanding. Paper: Figs. 2-3 (best M_dmo = 20).",
        rows,
    ));
    let mut rows = Vec::new();
    for (io, q, i) in &mqos {
        let r = &res[*i];
        let w = format!("io={io}");
        let (b, d) = split_iops(r);
        for (metric, unit, v) in [
            ("iops", "IOPS", r.aggregate.iops),
            ("ratio", "RQ1:RQ2", ratio(r)),
            ("bqs_iops", "IOPS", b),
            ("dor_iops", "IOPS", d),
        ] {
            rows.push(row("dor", &w, &format!("{metric}@mqos={q}"), unit, v, None));
        }
    }
    out.push(experiment(
        "mqos",
        "Throughput and QoS ratio against the DQE margin M_qos (M_dmo = 20)",
        "Paper: Figs. 6-7 (RQ1 falls and RQ2 rises as M_qos grows; DOR_IO dominates).",
        rows,
    ));
    let mut rows = Vec::new();
    for (io, label, i) in &vs {
        let r = &res[*i];
        let w = format!("io={io}");
        rows.push(row(label, &w, "iops", "IOPS", r.aggregate.iops, None));
        rows.push(row(label, &w, "ratio", "RQ1:RQ2", ratio(r), None));
    }
    out.push(experiment(
        "vs_yfq",
        "DOR against BQS alone (YFQ tags, M_qos = 0)",
        "Paper: Fig. 9 (M_qos 0.5 and 1 keep 3.99:1 and 3.96:1 against 4:1, with 11-19% more throughput).",
        rows,
    ));
    Ok(out)
}
