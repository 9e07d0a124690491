//! MQSim ("MQSim: A Framework for Enabling Realistic Studies of Modern
//! Multi-Queue SSD Devices", FAST'18) side by side with sluice's flash
//! model: its three `fast18/` experiments (four with both queue fetch
//! sizes) and its shipped traces, each scenario run flow 1 alone, flow 2
//! alone and both together, MQSim's own figures (measured here) beside
//! ours; the same runs with each host policy in front of the drive; and
//! the write amplification of greedy garbage collection against the
//! analytic model.

mod data;
mod folder;
mod layout;
mod paper;
mod wa;

use std::path::Path;

use sluice_device::flash::uniform_random_write_amplification;
use sluice_device::mqsim::SsdConfig;
use sluice_runtime::import::mqsim as mqsim_import;
use sluice_runtime::{Error, Result, ScenarioBuilder, SimReport};

use self::data::{Files, EXPERIMENTS, MQSIM_RESULTS};
use self::layout::{FlowFigures, ScenarioFigures};
use self::paper::Paper;
use super::{row, Experiment, Jobs, Options, Row};

/// What `--quick` shortens.
pub(crate) const QUICK: &str = "only the last scenario of each sweep (the heaviest contention; \
     the rows without `@K`), every scheduler, full length";

/// The schedulers in front of the drive: `noop` first (the host holds
/// nothing and the drive's own queues decide: the runs MQSim models), then
/// the host policies.
pub(crate) const SCHEDULERS: [&str; 5] = ["noop", "bfq", "yfq", "mclock", "seastar-fq"];

/// Commands the host lets into the drive under a host policy, both flows
/// together (and YFQ's `batch`, the requests it dispatches at once). A
/// policy orders only what it holds: with MQSim's own depth (65,535 per
/// queue) every request goes straight into the drive and any policy is
/// `noop`. The depth trades the drive's throughput for the host's control
/// (backend's last scenario under `mclock`, measured: flow 2 alone 106k /
/// 135k / 152k IOPS of its 161k at depth 16 / 32 / 64, and flow 1's
/// slowdown together 1.65 / 2.6 / 4.6, against 17.5 under `noop`): 16
/// keeps two thirds of the throughput and most of the isolation. `noop`
/// runs keep the depth the configuration gives.
pub(crate) const HOST_POLICY_DEPTH: u32 = 16;

/// Experiments whose host-policy rows run (the four synthetic FAST'18
/// sweeps); the traces run under `noop` only.
fn schedulers_of(files: &Files) -> &'static [&'static str] {
    if files.traces.is_empty() {
        &SCHEDULERS
    } else {
        &SCHEDULERS[..1]
    }
}

/// The scenarios of a sweep that run: all, or with `quick` the last.
fn scenarios_run(files: &Files, quick: bool) -> std::ops::RangeInclusive<usize> {
    if quick {
        files.scenarios..=files.scenarios
    } else {
        1..=files.scenarios
    }
}

/// Over-provisioning levels of the write-amplification experiment
/// (MQSim's `Overprovisioning_Ratio`: a share of the physical pages).
const WA_OPS: [f64; 2] = [0.07, 0.28];

/// Seed of the write-amplification runs.
const WA_SEED: u64 = 1;

/// Every experiment: the five of MQSim's files, then write amplification.
pub(crate) fn experiments(opts: &Options) -> Result<Vec<Experiment>> {
    let paper = Paper::parse("mqsim-results.json", MQSIM_RESULTS)?;
    let folder = folder::DataDir::new(&EXPERIMENTS, opts.save_scenarios)?;
    // Every run of every experiment in one batch, so all cores stay busy.
    let mut jobs = Jobs::new(None);
    // (experiment, scheduler, scenario, job index of each of RUNS)
    let mut plan: Vec<(&Files, &str, usize, [usize; 3])> = Vec::new();
    for files in &EXPERIMENTS {
        let config = SsdConfig::parse(&format!("{}/ssdconfig.xml", files.id), files.ssdconfig)?;
        for k in scenarios_run(files, opts.quick) {
            let (config_path, traces) = (folder.ssdconfig(files), folder.of(files));
            let imported = (0..layout::RUNS.len())
                .map(|run| import_scenario(files, run, &config, k, &config_path, &traces))
                .collect::<Result<Vec<_>>>()?;
            for &sched in schedulers_of(files) {
                let mut idx = [0; 3];
                for (i, s) in imported.iter().enumerate() {
                    idx[i] = jobs.add(with_scheduler(s.clone(), sched));
                }
                plan.push((files, sched, k, idx));
            }
        }
    }
    let results = jobs.run(opts)?;
    let mut out = Vec::new();
    for files in &EXPERIMENTS {
        let mut rows = Vec::new();
        for (_, sched, k, idx) in plan.iter().filter(|p| p.0.id == files.id) {
            let figures = ScenarioFigures {
                alone: [figures(&results[idx[0]], 0)?, figures(&results[idx[1]], 0)?],
                together: [figures(&results[idx[2]], 0)?, figures(&results[idx[2]], 1)?],
            };
            let paper_of = |s: &str, w: &str, m: &str| paper.get(files.id, s, w, m);
            rows.extend(layout::rows(
                sched,
                *k,
                files.scenarios,
                &figures,
                &paper_of,
            ));
        }
        out.push(experiment(files.id, files.title, &notes(files), rows));
    }
    out.push(write_amplification());
    Ok(out)
}

/// Scenario `k` (from 1) of run `run` of an experiment on the drive
/// `config` (which `config_path` holds), as `sluice import mqsim` makes it
/// (trace paths resolve in `traces`).
fn import_scenario(
    files: &Files,
    run: usize,
    config: &SsdConfig,
    k: usize,
    config_path: &Path,
    traces: &Path,
) -> Result<ScenarioBuilder> {
    let name = format!("{}-{}-{k}", files.id, layout::RUNS[run]);
    let imported = mqsim_import::import_text(
        files.workloads[run],
        &name,
        config.clone(),
        &config_path.to_string_lossy(),
        k,
        Some(traces),
    )
    .map_err(|e| match e.file.is_empty() {
        // Errors of the XML name the built-in file they come from.
        true => Error {
            file: format!("{}/{}.xml", files.id, layout::RUNS[run]),
            ..e
        },
        false => e,
    })?;
    Ok(imported.scenario)
}

/// `s` with `sched` in front of the drive: a host policy holds all but
/// [`HOST_POLICY_DEPTH`] commands (YFQ dispatches as many at once);
/// `noop` keeps the scenario's depth.
fn with_scheduler(s: ScenarioBuilder, sched: &str) -> ScenarioBuilder {
    match sched {
        "noop" => s.scheduler("noop"),
        // YFQ dispatches `batch` at a time (1 by default, a disk's choice).
        "yfq" => s
            .scheduler("yfq")
            .param("batch", i64::from(HOST_POLICY_DEPTH))
            .queue_depth(HOST_POLICY_DEPTH),
        _ => s.scheduler(sched).queue_depth(HOST_POLICY_DEPTH),
    }
}

/// Flow `i`'s figures in a run.
fn figures(r: &SimReport, i: usize) -> Result<FlowFigures> {
    let f = r.flows.get(i).ok_or_else(|| {
        Error::new(
            "(repro mqsim)",
            format!("run {} has no flow {}", r.scenario, i + 1),
        )
    })?;
    Ok(FlowFigures {
        iops: layout::mqsim_iops(f.requests, r.sim_time_s),
        response_us: f.lat_ms.mean * 1000.0,
    })
}

/// How an experiment of MQSim's files ran.
fn notes(files: &Files) -> String {
    format!(
        "MQSim's files scaled (data/mqsim/README.md), {} scenario(s), each run flow 1 alone, flow 2 alone and \
         together; `paper` = MQSim's figure measured here (noop rows only). iops = requests / simulated time in \
         whole seconds (MQSim's definition); response_us = mean generation-to-completion time; slowdown = \
         together / alone (same scenario and scheduler); fairness = min slowdown / max slowdown. Host policies \
         keep {HOST_POLICY_DEPTH} commands in the drive (YFQ's batch too), equal weights; noop keeps the \
         configuration's depth.",
        files.scenarios
    )
}

fn experiment(id: &str, title: &str, notes: &str, rows: Vec<Row>) -> Experiment {
    super::experiment("mqsim", id, title, notes, rows)
}

/// `op=7%` from 0.07.
fn op_label(op: f64) -> String {
    format!("op={}%", (op * 100.0).round())
}

/// Write amplification under uniform random writes, greedy GC, ours
/// against Desnoyers' analytic value ([`wa`]).
fn write_amplification() -> Experiment {
    let mut rows = Vec::new();
    for op in WA_OPS {
        rows.push(row(
            "greedy",
            &op_label(op),
            "wa",
            "x",
            uniform_random_write_amplification(op, WA_SEED),
            wa::greedy_uniform(op),
        ));
    }
    experiment(
        "write_amplification",
        "write amplification of greedy GC under uniform random writes",
        "paper = Desnoyers' analytic model (ACM TOS 2014: alpha (1 - u) = -ln u, WA = 1 / (1 - u), alpha = \
         physical / logical pages = 1 / (1 - op)); op is MQSim's Overprovisioning_Ratio, a share of the \
         physical pages. ours = the flash model's FTL (greedy victims) under uniform random single-page \
         writes after a warm-up, (host + GC programs) / host programs.",
        rows,
    )
}

#[cfg(test)]
mod tests;
