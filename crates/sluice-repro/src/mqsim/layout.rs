//! The rows of `repro mqsim`, laid out as the acceptance and
//! `mqsim-results.json` read them, and the arithmetic behind them (MQSim's
//! IOPS, FAST'18's slowdown and fairness).

use crate::{row, Row};

/// The three runs of each scenario: its workload files, in
/// [`super::data::Files::workloads`] order.
pub(crate) const RUNS: [&str; 3] = ["flow-1", "flow-2", "together"];

/// The workload name of run `run` (one of [`RUNS`]) in scenario `k`
/// (counted from one) of a sweep of `last` scenarios: the plain name for
/// the last (the heaviest contention), `<run>@K` for the others.
pub(crate) fn workload(run: &str, k: usize, last: usize) -> String {
    if k == last {
        run.to_string()
    } else {
        format!("{run}@{k}")
    }
}

/// MQSim's IOPS (`IO_Flow_Base.cpp`): requests over the simulated time in
/// whole seconds (integer division: 217,255 requests in 10.0003 s give
/// 21,725.5), at least one second (MQSim would divide by zero). MQSim
/// counts the requests generated; sluice's report counts those completed
/// (equal in every MQSim run here: `generated_serviced`).
pub(crate) fn mqsim_iops(requests: u64, sim_time_s: f64) -> f64 {
    // A hair of slack so 10 s that comes out 9.999999999 stays 10.
    let whole = (sim_time_s + 1e-9).floor().max(1.0);
    requests as f64 / whole
}

/// What one flow did in one run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct FlowFigures {
    /// [`mqsim_iops`].
    pub iops: f64,
    /// Mean end-to-end response time (generation to completion), µs.
    pub response_us: f64,
}

/// FAST'18's slowdown of a flow: its response time together ÷ alone;
/// None when it completed nothing alone.
pub(crate) fn slowdown(together: &FlowFigures, alone: &FlowFigures) -> Option<f64> {
    (alone.response_us > 0.0).then(|| together.response_us / alone.response_us)
}

/// FAST'18's fairness: the smallest slowdown ÷ the largest (1 = both
/// slowed alike); None without a positive slowdown.
pub(crate) fn fairness(slowdowns: &[f64]) -> Option<f64> {
    let min = slowdowns.iter().copied().fold(f64::INFINITY, f64::min);
    let max = slowdowns.iter().copied().fold(0.0, f64::max);
    (max > 0.0 && min.is_finite()).then(|| min / max)
}

/// One scenario's runs under one scheduler: each flow alone, then both.
pub(crate) struct ScenarioFigures {
    /// Flow 1 alone, flow 2 alone.
    pub alone: [FlowFigures; 2],
    /// Flow 1 and flow 2 in the together run.
    pub together: [FlowFigures; 2],
}

/// Looks up MQSim's figure for (scheduler, workload, metric).
pub(crate) type PaperOf<'a> = &'a dyn Fn(&str, &str, &str) -> Option<f64>;

/// The rows of scenario `k` of `last` under `sched`, in
/// `mqsim-results.json`'s order: per flow alone its IOPS and response
/// time; together per flow IOPS, response time and slowdown, then
/// fairness. A slowdown that cannot be computed (the flow completed
/// nothing alone) is 0 with a note saying so, and fairness leaves it out.
pub(crate) fn rows(
    sched: &str,
    k: usize,
    last: usize,
    f: &ScenarioFigures,
    paper: PaperOf,
) -> Vec<Row> {
    let mut out = Vec::new();
    let figures = |w: &str, n: usize, x: &FlowFigures, out: &mut Vec<Row>| {
        for (m, unit, v) in [
            ("iops", "IOPS", x.iops),
            ("response_us", "us", x.response_us),
        ] {
            let metric = format!("{m}@flow-{n}");
            out.push(row(sched, w, &metric, unit, v, paper(sched, w, &metric)));
        }
    };
    for (i, alone) in f.alone.iter().enumerate() {
        figures(&workload(RUNS[i], k, last), i + 1, alone, &mut out);
    }
    let w = workload(RUNS[2], k, last);
    let mut slowdowns = Vec::new();
    for (i, (t, a)) in f.together.iter().zip(&f.alone).enumerate() {
        figures(&w, i + 1, t, &mut out);
        let metric = format!("slowdown@flow-{}", i + 1);
        let p = paper(sched, &w, &metric);
        match slowdown(t, a) {
            Some(s) => {
                slowdowns.push(s);
                out.push(row(sched, &w, &metric, "x", s, p));
            }
            None => out.push(
                row(sched, &w, &metric, "x", 0.0, p)
                    .with_note("the flow completed no request alone: no slowdown"),
            ),
        }
    }
    let p = paper(sched, &w, "fairness");
    match fairness(&slowdowns) {
        Some(x) if slowdowns.len() == 2 => out.push(row(sched, &w, "fairness", "", x, p)),
        _ => out.push(
            row(sched, &w, "fairness", "", 0.0, p).with_note("a flow has no slowdown: no fairness"),
        ),
    }
    out
}
