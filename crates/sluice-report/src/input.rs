//! Result files as the report reads them: any of sluice's JSON results
//! (`sluice.sim/1`, `sluice.run/1`, `sluice.repro/1`, `sluice.versus/1`,
//! `sluice.fleet/1`,
//! or `compare --json`'s array of runs), turned into the runs and
//! experiments the page shows, and request logs (CSV, read by
//! [`crate::requests`]). JSON is read as the typed results sluice writes
//! (`SimReport`, `ReproReport`); fields added later are ignored, so that
//! newer files still draw.

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;
use sluice_repro::{ReproReport, REPRO_SCHEMA};
use sluice_runtime::report::{FlowReport, SimReport, RUN_SCHEMA, SIM_SCHEMA};

use crate::error::{Error, Result};
use crate::ranges;
use crate::requests::{self, Log};
use crate::Source;

/// Why JSON is not a sluice result (the caller names the source).
type Invalid<T> = std::result::Result<T, String>;

/// One simulated or real run.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Run {
    /// "scenario: scheduler on device".
    pub title: String,
    /// "sim" or "run" (wall-clock) or the versus engine.
    pub kind: String,
    /// The scenario's name, the scheduler and the device.
    pub scenario: String,
    pub scheduler: String,
    pub device: String,
    pub flows: Vec<Flow>,
    /// Seconds per bin and each flow's MB/s series, when recorded.
    pub timeline: Option<(f64, Vec<Series>)>,
    /// Seconds of warm-up before the measured window (`measured_from_s`).
    pub warmup_s: f64,
    /// Which `compare --json` array the run came from (its runs are drawn
    /// side by side in one section), if any.
    pub compare: Option<usize>,
}

/// A named series of numbers.
pub(super) type Series = (String, Vec<f64>);

/// One flow of a run.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Flow {
    pub name: String,
    pub weight: f64,
    pub bytes: f64,
    pub mb_s: f64,
    pub mean_ms: f64,
    pub p99_ms: f64,
    /// (percentile, ms), ascending: `lat_ms.cdf` where present, else the
    /// few percentiles every result has.
    pub cdf: Vec<(f64, f64)>,
    /// Whether `cdf` is only those few percentiles (no `lat_ms.cdf`).
    pub coarse: bool,
    /// Finite flows: seconds from the flow's start to its last completion.
    pub done_s: Option<f64>,
    /// Start-up flows: their mean start-up time, seconds.
    pub startup_s: Option<f64>,
    /// Start-up flows: how many start-ups ended after the warm-up.
    pub startups: Option<f64>,
    /// Video flows: frames shown and frames dropped.
    pub frames: Option<(f64, f64)>,
}

impl Flow {
    /// A flow with an end (a start-up, a video, a file read once): what a
    /// run is usually about, drawn first.
    pub(crate) fn finite(&self) -> bool {
        self.done_s.is_some()
            || self.startup_s.is_some()
            || self.startups.is_some()
            || self.frames.is_some()
    }

    /// The time that says how a finite flow fared: its start-up time, else
    /// when it finished.
    pub(crate) fn time_s(&self) -> Option<f64> {
        self.startup_s.or(self.done_s)
    }
}

/// One experiment of a reproduction, as `repro` writes it (its `paper`
/// filled from the result's when empty).
pub(crate) use sluice_repro::Experiment;

/// One row: our figure and the paper's, if it gives one.
pub(crate) use sluice_repro::Row;

/// What a set of result files holds.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Results {
    pub runs: Vec<Run>,
    pub experiments: Vec<Experiment>,
    /// Request logs, in the order given.
    pub logs: Vec<Log>,
    /// `compare --json` arrays read so far.
    pub compares: usize,
    /// Fleets (`sluice.fleet/1`), in the order given.
    pub fleets: Vec<crate::fleet::Fleet>,
}

/// Read every file into one set of results (see [`add_source`]), each
/// with the bounded reader.
pub(crate) fn read_files(files: &[impl AsRef<Path>]) -> Result<Results> {
    use sluice_input::Kind;
    let mut out = Results::default();
    for f in files {
        let f = f.as_ref();
        let kind = if requests::is_log_name(f) {
            Kind::RequestLog
        } else {
            Kind::ReportJson
        };
        let text = sluice_input::read_text(f, kind)?;
        add_source(&mut out, &f.display().to_string(), &text)?;
    }
    finish(out)
}

/// Read every source into one set of results.
pub(crate) fn read_sources(sources: &[Source]) -> Result<Results> {
    let mut out = Results::default();
    for s in sources {
        add_source(&mut out, &s.name, &s.text)?;
    }
    finish(out)
}

/// Add source `name` to `out`: one named `*.csv`, or starting with a
/// request log's header, is a request log; any other, a JSON result.
fn add_source(out: &mut Results, name: &str, text: &str) -> Result<()> {
    if requests::is_log_name(Path::new(name)) || requests::has_header(text) {
        out.logs.push(requests::parse(name, text)?);
        return Ok(());
    }
    let v: Value = serde_json::from_str(text).map_err(|why| Error::NotJson {
        name: name.to_string(),
        why,
    })?;
    add(out, &v).map_err(|reason| Error::NotAResult {
        name: name.to_string(),
        reason,
    })
}

/// `out`, unless it holds nothing to draw.
fn finish(out: Results) -> Result<Results> {
    if out.runs.is_empty()
        && out.experiments.is_empty()
        && out.logs.is_empty()
        && out.fleets.is_empty()
    {
        return Err(Error::Empty);
    }
    Ok(out)
}

/// Add what `v` holds to `out`: read as the typed result its schema
/// names (fields added later are ignored, so newer files still draw).
pub(crate) fn add(out: &mut Results, v: &Value) -> Invalid<()> {
    if let Some(items) = v.as_array() {
        let first = out.runs.len();
        for item in items {
            add(out, item)?;
        }
        // One scenario's runs under several policies: `compare --json`.
        let runs = &mut out.runs[first..];
        let runs_only = runs.len() == items.len() && runs.len() >= 2;
        if runs_only && runs.iter().all(|r| r.scenario == runs[0].scenario) {
            for r in runs.iter_mut() {
                r.compare = Some(out.compares);
            }
            out.compares += 1;
        }
        return Ok(());
    }
    let schema = v.get("schema").and_then(Value::as_str).unwrap_or("");
    match schema {
        SIM_SCHEMA | RUN_SCHEMA => {
            let r: SimReport = typed(v, schema)?;
            ranges::check_run(&r)?;
            out.runs.push(run(&r));
        }
        REPRO_SCHEMA => {
            let repro: ReproReport = typed(v, schema)?;
            for e in &repro.experiments {
                ranges::check_experiment(e)?;
            }
            for mut e in repro.experiments {
                if e.paper.is_empty() {
                    e.paper.clone_from(&repro.paper);
                }
                out.experiments.push(e);
            }
        }
        VERSUS_SCHEMA => {
            let versus: Versus = typed(v, schema)?;
            for r in versus.runs {
                ranges::check_run(&r.result)?;
                let mut one = run(&r.result);
                one.kind = format!("{} ({})", r.engine, r.scheduler);
                out.runs.push(one);
            }
        }
        FLEET_SCHEMA => {
            let f: sluice_runtime::fleet::FleetReport = typed(v, schema)?;
            ranges::check_fleet(&f)?;
            out.fleets.push(crate::fleet::Fleet::of(f));
        }
        "" => return Err("no \"schema\" field: not a sluice result".to_string()),
        other => return Err(format!(
            "unknown schema '{other}' (expected {SIM_SCHEMA}, {RUN_SCHEMA}, {REPRO_SCHEMA}, {VERSUS_SCHEMA} or {FLEET_SCHEMA})"
        )),
    }
    Ok(())
}

/// Schema tag of `sluice fleet --json`.
pub const FLEET_SCHEMA: &str = "sluice.fleet/1";

/// Schema tag of `sluice versus --json` (its type lives in the binary,
/// which writes this tag).
pub const VERSUS_SCHEMA: &str = "sluice.versus/1";

/// What the report reads of a `sluice.versus/1` result: each run's engine,
/// scheduler and result.
#[derive(Deserialize)]
struct Versus {
    runs: Vec<VersusRun>,
}

/// One run of a `sluice.versus/1` result.
#[derive(Deserialize)]
struct VersusRun {
    engine: String,
    scheduler: String,
    result: SimReport,
}

/// `v` read as the result type of `schema`.
fn typed<T: serde::de::DeserializeOwned>(v: &Value, schema: &str) -> Invalid<T> {
    T::deserialize(v).map_err(|e| format!("not a {schema} result: {e}"))
}

fn run(r: &SimReport) -> Run {
    let flows: Vec<Flow> = r.flows.iter().map(flow).collect();
    let timeline = r
        .timeline
        .as_ref()
        .map(|t| (t.interval_s, in_flow_order(t.flows.0.clone(), &flows)));
    Run {
        title: format!("{}: {} on {}", r.scenario, r.scheduler, r.device),
        kind: if r.schema == RUN_SCHEMA { "run" } else { "sim" }.to_string(),
        flows,
        timeline,
        warmup_s: r.measured_from_s,
        compare: None,
        scenario: r.scenario.clone(),
        scheduler: r.scheduler.clone(),
        device: r.device.clone(),
    }
}

/// `series` in the order of `flows` (a JSON object's keys may come back
/// sorted), so that a flow has the same colour in every figure; series of
/// no listed flow go last.
fn in_flow_order(mut series: Vec<Series>, flows: &[Flow]) -> Vec<Series> {
    let rank = |name: &str| {
        flows
            .iter()
            .position(|f| f.name == name)
            .unwrap_or(flows.len())
    };
    series.sort_by_key(|(name, _)| rank(name));
    series
}

fn flow(f: &FlowReport) -> Flow {
    let lat = &f.lat_ms;
    // A flow that completed requests but has no CDF comes from a file
    // written before results had one: only the few percentiles.
    let coarse = lat.cdf.is_empty() && f.requests > 0;
    let mut cdf: Vec<(f64, f64)> = if coarse {
        vec![
            (50.0, lat.p50),
            (95.0, lat.p95),
            (99.0, lat.p99),
            (100.0, lat.max),
        ]
    } else {
        lat.cdf.iter().map(|&[p, ms]| (p, ms)).collect()
    };
    cdf.retain(|(p, ms)| p.is_finite() && ms.is_finite());
    Flow {
        name: f.name.clone(),
        weight: f64::from(f.weight),
        bytes: f.bytes as f64,
        mb_s: f.mb_s,
        mean_ms: lat.mean,
        p99_ms: lat.p99,
        cdf,
        coarse,
        done_s: f.done_s,
        startup_s: f.startup_s,
        startups: f.startups.map(|n| n as f64),
        frames: f
            .frames
            .map(|n| (n as f64, f.frames_dropped.map_or(f64::NAN, |d| d as f64))),
    }
}
