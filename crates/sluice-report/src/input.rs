//! Result files as the report reads them: any of sluice's JSON results
//! (`sluice.sim/1`, `sluice.run/1`, `sluice.repro/1`, `sluice.versus/1`,
//! or `compare --json`'s array of runs), turned into the runs and
//! experiments the page shows, and request logs (CSV, read by
//! [`crate::requests`]). Read loosely (as JSON values) so that fields
//! added later do not break old reports.

use std::path::Path;

use serde_json::Value;

use crate::error::{Error, Result};
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

/// One experiment of a reproduction.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Experiment {
    pub paper: String,
    pub id: String,
    pub title: String,
    /// What was run and what the paper says (`notes`).
    pub notes: String,
    pub rows: Vec<Row>,
}

/// One row: our figure and the paper's, if it gives one (the row `repro`
/// writes).
pub(super) use sluice_repro::Row;

/// What a set of result files holds.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Results {
    pub runs: Vec<Run>,
    pub experiments: Vec<Experiment>,
    /// Request logs, in the order given.
    pub logs: Vec<Log>,
    /// `compare --json` arrays read so far.
    pub compares: usize,
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
    if out.runs.is_empty() && out.experiments.is_empty() && out.logs.is_empty() {
        return Err(Error::Empty);
    }
    Ok(out)
}

/// Add what `v` holds to `out`.
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
        "sluice.sim/1" | "sluice.run/1" => out.runs.push(run(v, schema)?),
        "sluice.repro/1" => {
            let paper = text(v, "paper");
            for e in v.get("experiments").and_then(Value::as_array).into_iter().flatten() {
                out.experiments.push(experiment(&paper, e)?);
            }
        }
        "sluice.versus/1" => {
            for r in v.get("runs").and_then(Value::as_array).into_iter().flatten() {
                let result = r.get("result").ok_or("a versus run without its result")?;
                let schema = result.get("schema").and_then(Value::as_str).unwrap_or("");
                let mut one = run(result, schema)?;
                one.kind = format!("{} ({})", text(r, "engine"), text(r, "scheduler"));
                out.runs.push(one);
            }
        }
        "" => return Err("no \"schema\" field: not a sluice result".to_string()),
        other => return Err(format!(
            "unknown schema '{other}' (expected sluice.sim/1, sluice.run/1, sluice.repro/1 or sluice.versus/1)"
        )),
    }
    Ok(())
}

fn text(v: &Value, key: &str) -> String {
    match v.get(key) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

fn num(v: &Value, key: &str) -> f64 {
    v.get(key).and_then(Value::as_f64).unwrap_or(f64::NAN)
}

fn run(v: &Value, schema: &str) -> Invalid<Run> {
    let flows: Vec<Flow> = v
        .get("flows")
        .and_then(Value::as_array)
        .ok_or("a run without \"flows\"")?
        .iter()
        .map(flow)
        .collect();
    let timeline = v.get("timeline").and_then(|t| {
        let interval = t.get("interval_s")?.as_f64()?;
        let series = t
            .get("flows")?
            .as_object()?
            .iter()
            .map(|(name, s)| {
                let s = s
                    .as_array()
                    .map_or(Vec::new(), |a| a.iter().filter_map(Value::as_f64).collect());
                (name.clone(), s)
            })
            .collect();
        Some((interval, in_flow_order(series, &flows)))
    });
    Ok(Run {
        title: format!(
            "{}: {} on {}",
            text(v, "scenario"),
            text(v, "scheduler"),
            text(v, "device")
        ),
        kind: if schema == "sluice.run/1" {
            "run"
        } else {
            "sim"
        }
        .to_string(),
        flows,
        timeline,
        warmup_s: num(v, "measured_from_s"),
        compare: None,
        scenario: text(v, "scenario"),
        scheduler: text(v, "scheduler"),
        device: text(v, "device"),
    })
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

fn flow(f: &Value) -> Flow {
    let lat = f.get("lat_ms").cloned().unwrap_or(Value::Null);
    let coarse = lat.get("cdf").and_then(Value::as_array).is_none();
    let mut cdf: Vec<(f64, f64)> = match lat.get("cdf").and_then(Value::as_array) {
        Some(points) => points
            .iter()
            .filter_map(|p| Some((p.get(0)?.as_f64()?, p.get(1)?.as_f64()?)))
            .collect(),
        None => [(50.0, "p50"), (95.0, "p95"), (99.0, "p99"), (100.0, "max")]
            .iter()
            .map(|&(p, k)| (p, num(&lat, k)))
            .collect(),
    };
    cdf.retain(|(p, ms)| p.is_finite() && ms.is_finite());
    Flow {
        name: text(f, "name"),
        weight: num(f, "weight"),
        bytes: num(f, "bytes"),
        mb_s: num(f, "mb_s"),
        mean_ms: num(&lat, "mean"),
        p99_ms: num(&lat, "p99"),
        cdf,
        coarse,
        done_s: f.get("done_s").and_then(Value::as_f64),
        startup_s: f.get("startup_s").and_then(Value::as_f64),
        startups: f.get("startups").and_then(Value::as_f64),
        frames: f.get("frames").and_then(Value::as_f64).map(|n| {
            (
                n,
                f.get("frames_dropped")
                    .and_then(Value::as_f64)
                    .unwrap_or(f64::NAN),
            )
        }),
    }
}

fn experiment(paper: &str, e: &Value) -> Invalid<Experiment> {
    let rows = e
        .get("rows")
        .and_then(Value::as_array)
        .ok_or("an experiment without \"rows\"")?
        .iter()
        .map(|r| Row {
            scheduler: text(r, "scheduler"),
            workload: text(r, "workload"),
            metric: text(r, "metric"),
            unit: text(r, "unit"),
            ours: num(r, "ours"),
            paper: r.get("paper").and_then(Value::as_f64),
            note: r.get("note").and_then(Value::as_str).map(String::from),
        })
        .collect();
    Ok(Experiment {
        paper: match text(e, "paper") {
            p if p.is_empty() => paper.to_string(),
            p => p,
        },
        id: text(e, "id"),
        title: text(e, "title"),
        notes: text(e, "notes"),
        rows,
    })
}
