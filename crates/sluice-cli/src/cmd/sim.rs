//! `sluice sim`: one scenario simulated, printed as a table or JSON.

use std::path::PathBuf;

use anyhow::{Context, Result};
use sluice_runtime::Scenario;

use super::option_range;
use crate::output::{check_timeline, emit, load};
use crate::{progress, table};

/// Simulate a scenario file (TOML) and report throughput, latency and
/// disk time per flow.
#[derive(clap::Args)]
#[command(
    after_help = "The scenario keys are documented in README.md; `sluice list` names the \
policies, device presets and flow patterns.\n\nExample:\n  sluice sim scenarios/10r-rand.toml --json"
)]
pub(crate) struct Args {
    /// Scenario file.
    scenario: PathBuf,
    /// Print the sluice.sim/1 JSON object instead of a table.
    #[arg(long)]
    json: bool,
    /// Override the scenario's seed.
    #[arg(long, allow_negative_numbers = true)]
    seed: Option<i128>,
    /// Override the scenario's policy (its [scheduler] parameters are
    /// dropped).
    #[arg(long, value_name = "POLICY")]
    scheduler: Option<String>,
    /// Also write every completed request as CSV to FILE (flow, thread,
    /// direction, sector, size, and when it arrived, was dispatched and
    /// completed): the raw material for tracing why a flow waited. A new
    /// file: sluice does not overwrite one that exists.
    #[arg(long, value_name = "FILE")]
    log_requests: Option<PathBuf>,
    /// Also report each flow's throughput over time, in bins of MS
    /// milliseconds (the JSON's `timeline`; `sluice report` plots it).
    #[arg(long, value_name = "MS", allow_negative_numbers = true)]
    timeline: Option<i128>,
}

pub(crate) fn run(args: Args) -> Result<()> {
    let seed = args
        .seed
        .map(|s| option_range::whole("--seed", s, 0, u64::MAX))
        .transpose()?;
    let timeline = args
        .timeline
        .map(|ms| option_range::whole("--timeline", ms, 1u64, 3_600_000))
        .transpose()?;
    let s = load(&args.scenario, seed, args.scheduler.as_deref())?;
    let bin = timeline.map(sluice::Duration::from_millis);
    if let Some(bin) = bin {
        check_timeline(&s, bin)?;
    }
    let sim = || -> Result<sluice_sim::Simulation> {
        let sim = sluice_sim::Simulation::new(&s)?.with_progress(sim_progress(&s));
        Ok(match bin {
            Some(b) => sim.with_timeline(b),
            None => sim,
        })
    };
    let report = match &args.log_requests {
        None => sim()?.run(),
        Some(path) => {
            // Open first: a bad path fails before a long run.
            let file = crate::output::create_output("--log-requests", path)?;
            let (report, log) = sim()?.with_request_log().run_logged();
            write_request_log(file, &s, &log)
                .with_context(|| format!("--log-requests {}", path.display()))?;
            report
        }
    };
    emit(args.json, &report, table::report)
}

/// A progress bar over a run's simulated seconds, and a warning with an
/// estimate when the run will take long (on stderr: stdout is unchanged).
fn sim_progress(s: &Scenario) -> impl FnMut(sluice::Duration, sluice::Duration) + 'static {
    let bar = progress::Progress::new(s.name.clone(), s.duration.as_secs_f64().ceil() as u64, "s");
    let mut long = progress::LongRun::new("sim");
    move |now, total| {
        long.update(now.as_secs_f64(), total.as_secs_f64());
        bar.set(now.as_secs_f64() as u64)
    }
}

/// The request log as CSV, flows by name.
fn write_request_log(
    file: std::fs::File,
    s: &Scenario,
    log: &[sluice_sim::RequestRecord],
) -> std::io::Result<()> {
    let names: Vec<&str> = s.flows.iter().map(|f| f.name.as_str()).collect();
    sluice_runtime::request_log::write_csv(file, &names, log)
}
