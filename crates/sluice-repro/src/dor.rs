//! Nam and Park, "Design and evaluation of an efficient proportional-share
//! disk scheduling algorithm": BQS + DOR on DiskSim's IBM DNES-309170W, two
//! reservation queues weighted 80:20.
//!
//! `|IO|`, the paper's workload level (§3.1.1: "increasing the number of
//! outstanding I/O requests denoted with |IO|"), is read as the requests
//! each queue keeps outstanding by default ([`IoCount::PerQueue`]): that is
//! the reading under which plain BQS keeps the reserved 4:1 at every level
//! from |IO| = 2 up, as the paper's Fig. 9(a) has YFQ do. Read as the total
//! across both queues ([`IoCount::Total`]: `ceil(|IO|/2)` and
//! `floor(|IO|/2)`, at least one each), RQ2 has too few requests at low
//! levels for any 4:1 (1:1 at |IO| = 1, 3:1 at 6). `M_dmo` is a percentage
//! of the drive's own full stroke (12.742 ms, the policy's default); the
//! `mdmo_paper_stroke` rows take the paper's printed 17.742 ms.

use super::{row, Experiment, Jobs, Row};
use crate::claims;
use sluice_runtime::scenario::Pattern;
use sluice_runtime::Result;
use sluice_runtime::{FlowBuilder, ScenarioBuilder, SimReport};

mod stated;

const IO_LEVELS: [u32; 13] = [1, 6, 11, 16, 21, 26, 31, 36, 41, 46, 51, 56, 61];
const MDMO: [u32; 7] = [0, 5, 10, 20, 40, 60, 100];
/// The paper's M_qos levels, and 1000: a bound DQE never reaches in a
/// run, so DOR as if DQE were not there.
const MQOS: [f64; 6] = [0.0, 0.5, 1.0, 5.0, 10.0, 1000.0];
const WEIGHTS: [u32; 2] = [80, 20];
/// The other choices of the policy, as (scheduler label, switch).
const ABLATIONS: [(&str, &str); 3] = [
    ("dor charge_bqs=true", "charge_bqs"),
    ("dor dqe_per_sequence=true", "dqe_per_sequence"),
    ("dor oldest_first=true", "oldest_first"),
];

/// What the workload level `|IO|` counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IoCount {
    /// Outstanding requests of both queues together.
    Total,
    /// Outstanding requests of each queue (default).
    PerQueue,
}

impl IoCount {
    /// Requests each queue keeps outstanding at level `io`.
    pub(crate) fn per_queue(self, io: u32) -> [u32; 2] {
        match self {
            IoCount::Total => [io.div_ceil(2).max(1), (io / 2).max(1)],
            IoCount::PerQueue => [io, io],
        }
    }
}

/// Two reservation queues, 80:20, keeping `io` requests outstanding as
/// `count` says, under DOR with margins `m_dmo` and `m_qos`.
fn scenario(count: IoCount, io: u32, dur: f64, m_dmo: u32, m_qos: f64) -> ScenarioBuilder {
    let pool = |name: &str, weights: Vec<u32>, outstanding: u32| {
        FlowBuilder::new(name, Pattern::Pool)
            .weights(weights)
            .outstanding(outstanding)
            .file_gib(8.5)
            .offset_gib(0.0)
    };
    // No request merging: the paper's DiskSim runs fed requests straight
    // to the scheduler.
    let b = ScenarioBuilder::new(format!("io={io}"), dur)
        .seed(1)
        .warmup_s(2.0)
        .merge(false)
        .preset("ibm-dnes-309170w")
        .queue_depth(4)
        .internal("fcfs")
        .scheduler("dor")
        .param("m_dmo", m_dmo)
        .param("m_qos", m_qos);
    match count {
        // One generator per queue, each with its own share of the total.
        IoCount::Total => {
            let [a, c] = count.per_queue(io);
            b.flow(pool("rq1", vec![WEIGHTS[0]], a))
                .flow(pool("rq2", vec![WEIGHTS[1]], c))
        }
        IoCount::PerQueue => b.flow(pool("rq", WEIGHTS.to_vec(), io)),
    }
}

/// Requests per second of RQ1 and RQ2, whichever way the queues were built.
fn threads(r: &SimReport) -> (f64, f64) {
    let t: Vec<f64> = r
        .flows
        .iter()
        .flat_map(|f| f.threads.as_deref().unwrap_or(&[]).iter().map(|t| t.iops))
        .collect();
    (
        t.first().copied().unwrap_or(0.0),
        t.get(1).copied().unwrap_or(0.0),
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

/// Gaps per second the DOR walk left empty though a request passed
/// Property 1 (DQE turned them all away).
fn refusals(r: &SimReport) -> f64 {
    stat(r, "dqe_refusals") / r.sim_time_s.max(1e-9)
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

/// The paper's RQ1:RQ2 ratio at an `M_qos` (Fig. 8: 4:1 deteriorating by
/// 1 % at 0.5, 2 % at 1, 5 % at 5; `M_qos = 0` is YFQ's 4:1).
fn paper_ratio(m_qos: f64) -> Option<f64> {
    [(0.0, 1.0), (0.5, 0.99), (1.0, 0.98), (5.0, 0.95)]
        .into_iter()
        .find(|(q, _)| *q == m_qos)
        .map(|(_, kept)| 4.0 * kept)
}

/// Percent more throughput than `base`.
fn gain(x: f64, base: f64) -> f64 {
    100.0 * (x / base - 1.0)
}

/// What `--quick` shortens.
pub(super) const QUICK: &str = "runs of 15 s instead of 60 s";

pub(super) fn experiments(opts: &super::Options) -> Result<Vec<Experiment>> {
    experiments_with(opts, IoCount::PerQueue)
}

/// The experiments with `|IO|` counted as `count` says (the other reading's
/// M_qos sweep at `|IO| = 61` is always added, as experiment
/// `mqos_other_io`).
pub(crate) fn experiments_with(opts: &super::Options, count: IoCount) -> Result<Vec<Experiment>> {
    let quick = opts.quick;
    let dur = if quick { 15.0 } else { 60.0 };
    let mut jobs = Jobs::new(None);
    let mut mdmo = Vec::new();
    for io in IO_LEVELS {
        for m in MDMO {
            mdmo.push((io, m, jobs.add(scenario(count, io, dur, m, 0.5))));
        }
    }
    // M_dmo of the paper's printed stroke (17.742 ms).
    let mut paper_stroke = Vec::new();
    for io in [11, 61] {
        for m in MDMO {
            let s = scenario(count, io, dur, m, 0.5).param("drive_stroke", false);
            paper_stroke.push((io, m, jobs.add(s)));
        }
    }
    let mut mqos = Vec::new();
    for io in IO_LEVELS {
        for q in MQOS {
            mqos.push((io, q, jobs.add(scenario(count, io, dur, 20, q))));
        }
    }
    // The two other readings of DQE and BQS, one switch each.
    let mut ablation = Vec::new();
    for (label, param) in ABLATIONS {
        for io in [11, 61] {
            for q in MQOS {
                let s = scenario(count, io, dur, 20, q).param(param, true);
                ablation.push((label, io, q, jobs.add(s)));
            }
        }
    }
    let other = match count {
        IoCount::Total => IoCount::PerQueue,
        IoCount::PerQueue => IoCount::Total,
    };
    let mut mqos_other = Vec::new();
    for q in MQOS {
        mqos_other.push((61, q, jobs.add(scenario(other, 61, dur, 20, q))));
    }
    let mut vs = Vec::new();
    for io in IO_LEVELS {
        for (label, q) in [("yfq", 0.0), ("dor-q0.5", 0.5), ("dor-q1", 1.0)] {
            vs.push((io, label, q, jobs.add(scenario(count, io, dur, 20, q))));
        }
    }
    // Algorithm 2's walk read as ending at the base's N-th position.
    let bounded = |io, m, q| scenario(count, io, dur, m, q).param("bounded_walk", true);
    let mut walk = Vec::new();
    for io in [11, 61] {
        for m in MDMO {
            walk.push((io, m, 0.5, jobs.add(bounded(io, m, 0.5))));
        }
        walk.push((io, 20, 1.0, jobs.add(bounded(io, 20, 1.0))));
    }
    let res = jobs.run(opts)?;
    let mut out = Vec::new();
    let level = match count {
        IoCount::Total => "|IO| requests outstanding in all (the two queues' generators keep ceil(|IO|/2) and floor(|IO|/2), at least one each)",
        IoCount::PerQueue => "each keeping |IO| requests outstanding",
    };

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
        // Fig. 2: each queue's throughput.
        let (r1, r2) = threads(r);
        rows.push(row("dor", &w, &format!("rq1@mdmo={m}"), "IOPS", r1, None));
        rows.push(row("dor", &w, &format!("rq2@mdmo={m}"), "IOPS", r2, None));
        // Fig. 4: |S_expanded| "saturated to about 8 when M_dmo becomes 20".
        let len_paper = (*io == 61 && *m >= 20).then_some(8.0);
        rows.push(row(
            "dor",
            &w,
            &format!("len@mdmo={m}"),
            "requests",
            stat(r, "mean_sequence_len"),
            len_paper,
        ));
    }
    out.push(experiment(
        "mdmo",
        "Throughput against the DME margin M_dmo (M_qos = 0.5)",
        &format!("Two reservation queues (80:20), {level}: normal sizes (mean 8, sd 2 sectors), reads:writes 2:1, uniform over the disk; the drive serves FIFO with up to 4 outstanding. M_dmo is a percentage of the drive's own 12.742 ms full stroke. Paper: Figs. 2-4 (Fig. 2: rq1@ and rq2@ per queue; best M_dmo = 20; |S_expanded| about 8 from M_dmo = 20, the paper column of len@mdmo at io=61)."),
        rows,
    ));
    let mut rows = Vec::new();
    for (io, m, i) in &paper_stroke {
        let r = &res[*i];
        let w = format!("io={io}");
        let label = "dor drive_stroke=false";
        rows.push(row(
            label,
            &w,
            &format!("mdmo={m}"),
            "IOPS",
            r.aggregate.iops,
            None,
        ));
        let len_paper = (*io == 61 && *m >= 20).then_some(8.0);
        let len = stat(r, "mean_sequence_len");
        rows.push(row(
            label,
            &w,
            &format!("len@mdmo={m}"),
            "requests",
            len,
            len_paper,
        ));
    }
    out.push(experiment(
        "mdmo_paper_stroke",
        "Throughput against M_dmo as a share of the paper's printed 17.742 ms stroke",
        &format!("{level}; M_qos = 0.5. The paper's text gives the drive's full stroke as 17.742 ms; DiskSim's description of the same drive, whose seek curve the paper cites, states 12.742 ms (the default here), so each M_dmo is 1.39x wider in these rows."),
        rows,
    ));
    let mqos_rows = |label: &str, list: &[(u32, f64, usize)]| {
        let mut rows = Vec::new();
        for (io, q, i) in list {
            let r = &res[*i];
            let w = format!("io={io}");
            let (b, d) = split_iops(r);
            let (r1, r2) = threads(r);
            for (metric, unit, v, paper) in [
                ("iops", "IOPS", r.aggregate.iops, None),
                ("ratio", "RQ1:RQ2", ratio(r), paper_ratio(*q)),
                ("rq1_iops", "IOPS", r1, None),
                ("rq2_iops", "IOPS", r2, None),
                ("bqs_iops", "IOPS", b, None),
                ("dor_iops", "IOPS", d, None),
                ("dqe_refusals", "gaps/s", refusals(r), None),
            ] {
                rows.push(row(
                    label,
                    &w,
                    &format!("{metric}@mqos={q}"),
                    unit,
                    v,
                    paper,
                ));
            }
        }
        rows
    };
    out.push(experiment(
        "mqos",
        "Throughput and QoS ratio against the DQE margin M_qos (M_dmo = 20)",
        &format!("{level}. Paper: Figs. 5-8 (M_qos >= 5 over 10% above 0.5; RQ1 falls and RQ2 rises as M_qos grows; DOR_IO dominates; the 4:1 ratio deteriorates by 1% at 0.5, 2% at 1, 5% at 5: the paper column). M_qos = 1000 is DOR with DQE never binding. dqe_refusals: gaps per second left empty though a request passed Property 1: DQE bounds how far the queues' additional finish tags drift apart, so with both queues backlogged it refuses about as often at 5 or 10 as at 0.5, and M_qos changes little until no bound is reached at all. Figs. 5-7 (throughput and RQ2 rising with M_qos, DOR_IO growing) are not reproduced, and the literal reading is kept: DQE bounds the drift of the finish tags, so M_qos cannot raise throughput the way those figures show; the paper's own Figs. 8 and 9 disagree with each other at M_qos 1 (3.92:1 against 3.96:1)."),
        mqos_rows("dor", &mqos),
    ));
    let other_level = match other {
        IoCount::Total => "|IO| = 61 outstanding in all",
        IoCount::PerQueue => "|IO| = 61 outstanding in each queue",
    };
    out.push(experiment(
        "mqos_other_io",
        "The M_qos sweep with |IO| read the other way (M_dmo = 20)",
        &format!("{other_level}. DQE bounds how far the additional finish tags drift apart, not how often DOR inserts, so while both queues stay backlogged DOR_IO keeps the weights at any M_qos; the ratio moves only when a queue drains and, returning, loses its lag (f_k = max(f_k, min f_j)), which short queues do more often."),
        mqos_rows("dor", &mqos_other),
    ));
    let mut rows = Vec::new();
    for (label, _) in ABLATIONS {
        let list: Vec<_> = ablation
            .iter()
            .filter(|(l, ..)| *l == label)
            .map(|&(_, io, q, i)| (io, q, i))
            .collect();
        rows.extend(mqos_rows(label, &list));
    }
    out.push(experiment(
        "mqos_ablation",
        "The M_qos sweep under the other readings of BQS, DQE and Algorithm 2 (M_dmo = 20)",
        &format!("{level}. charge_bqs=true: a request DOR inserts moves its queue's BQS tags, so BQS_IO no longer keeps the ratio by itself (the paper's Fig. 7 has it keep it). dqe_per_sequence=true: DQE's tags start from 0 at each expansion, so the deviation M_qos allows recurs every sequence instead of once per run. oldest_first=true: a gap takes the oldest passing request (a scan of every queued request) instead of the one nearest R^cur."),
        rows,
    ));
    let mut rows = Vec::new();
    let yfq_iops = |io: u32| {
        vs.iter()
            .find(|(n, l, _, _)| *n == io && *l == "yfq")
            .map_or(f64::NAN, |(_, _, _, i)| res[*i].aggregate.iops)
    };
    let top = *IO_LEVELS.last().expect("levels");
    let mut top_gains = Vec::new();
    for (io, label, q, i) in &vs {
        let r = &res[*i];
        let w = format!("io={io}");
        rows.push(row(label, &w, "iops", "IOPS", r.aggregate.iops, None));
        // Fig. 9(a): 4:1 for YFQ, 3.99:1 and 3.96:1 for M_qos 0.5 and 1.
        let paper = match *label {
            "yfq" => Some(4.0),
            "dor-q0.5" => Some(3.99),
            _ => Some(3.96),
        };
        rows.push(row(label, &w, "ratio", "RQ1:RQ2", ratio(r), paper));
        if *q > 0.0 {
            let g = gain(r.aggregate.iops, yfq_iops(*io));
            rows.push(row(label, &w, "gain_vs_yfq", "%", g, None));
            if *io == top {
                top_gains.push(g);
            }
        }
    }
    // Fig. 9(b): at the maximum throughput (the heaviest level), M_qos 0.5
    // and 1 give 11-19% more than YFQ (M_qos = 0) at the same |IO|, M_dmo
    // and tags.
    let lo = top_gains.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = top_gains.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let w = format!("io={top}");
    rows.push(row("dor-q0.5,q1", &w, "gain_min", "%", lo, Some(11.0)));
    rows.push(row("dor-q0.5,q1", &w, "gain_max", "%", hi, Some(19.0)));
    // The gain at |IO| 11 and the full stroke it depends on.
    let at = |list: &[(u32, u32, usize)]| {
        list.iter()
            .find(|x| x.0 == 11 && x.1 == 20)
            .map_or(f64::NAN, |x| gain(res[x.2].aggregate.iops, yfq_iops(11)))
    };
    let (own, printed) = (at(&mdmo), at(&paper_stroke));
    out.push(experiment(
        "vs_yfq",
        "DOR against BQS alone (YFQ tags, M_qos = 0)",
        &format!("{level}; the same M_dmo = 20 and the same BQS tags and C-SCAN order at each |IO|: the gain is DOR's throughput over M_qos = 0's at the same level. Paper: Fig. 9 (M_qos 0.5 and 1 keep 3.99:1 and 3.96:1 against 4:1, with 11-19% more throughput at the maximum, compared here at the heaviest level, |IO| = 61: gain_min/max over M_qos 0.5 and 1; gain_vs_yfq at every level shows the gain growing with |IO|). At |IO| = 11 the gain depends on the full stroke M_dmo is a share of: M_qos 0.5 with M_dmo 20 of the drive's 12.742 ms stroke (2.5 ms) gives {own:+.1}%, of the paper's printed 17.742 ms (3.5 ms, mdmo_paper_stroke) {printed:+.1}% (paper: 11-19%)."),
        rows,
    ));
    let mut rows = Vec::new();
    for (io, m, q, i) in &walk {
        let r = &res[*i];
        let w = format!("io={io}");
        let at = if *q == 0.5 {
            format!("mdmo={m}")
        } else {
            format!("mdmo={m},mqos={q}")
        };
        let label = "dor bounded_walk=true";
        rows.push(row(
            label,
            &w,
            &format!("iops@{at}"),
            "IOPS",
            r.aggregate.iops,
            None,
        ));
        let g = gain(r.aggregate.iops, yfq_iops(*io));
        rows.push(row(label, &w, &format!("gain_vs_yfq@{at}"), "%", g, None));
        // Fig. 4, as in the mdmo experiment.
        let len_paper = (*io == 61 && *m >= 20 && *q == 0.5).then_some(8.0);
        let len = stat(r, "mean_sequence_len");
        rows.push(row(
            label,
            &w,
            &format!("len@{at}"),
            "requests",
            len,
            len_paper,
        ));
    }
    out.push(experiment(
        "bounded_walk",
        "Algorithm 2's walk ending at the base's N-th position (bounded_walk = true)",
        &format!("{level}; M_qos = 0.5 unless named. Read this way the walk inserts at most N - 1 = 3 requests, and the expanded length saturates (paper Fig. 4: about 8 from M_dmo = 20 up, the paper column), where the default walk's grows with M_dmo; gain is over M_qos = 0 (YFQ) at the same |IO|, as in vs_yfq."),
        rows,
    ));
    Ok(out)
}

/// The paper's claims: those its text and figures state ([`stated`]), and
/// the orders its numbers make ([`claims::order_claims`]).
pub(super) fn claims(exps: &[super::Experiment]) -> Vec<claims::Claim> {
    claims::with_orders(stated::claims(&claims::Figures(exps)), exps, &|_, _, _| {
        None
    })
}
