//! sluice-repro: the papers' experiments reproduced on the simulator.
//! Each builds its scenarios, runs them, and reports our value next to
//! the paper's.

mod bfq;
pub mod claims;
mod dor;
mod mqsim;
pub mod summary;
mod vios;
mod yfq;

use std::fmt::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use serde::{Deserialize, Deserializer, Serialize};
use sluice::Duration;

use sluice_runtime::{Error, Result};
use sluice_runtime::{ScenarioBuilder, SimReport};
use sluice_sim::Simulation;

/// Schema tag of [`ReproReport`].
pub const REPRO_SCHEMA: &str = "sluice.repro/1";

/// Papers this build reproduces, in the order `all` runs them.
pub const PAPERS: &[&str] = &["bfq", "yfq", "vios", "dor"];

/// Other experiment sets `repro` runs by name but `all` leaves out:
/// `mqsim` (MQSim side by side, issue 46) takes half a minute or more even
/// with `--quick`, and `repro all --quick` is to stay a few seconds.
pub const NOT_IN_ALL: &[&str] = &["mqsim"];

/// One figure: ours next to the paper's.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Row {
    /// The scheduler (or set-up, e.g. `bsd-aged`) the figure is for.
    pub scheduler: String,
    /// The workload it ran, by the experiment's name for it.
    pub workload: String,
    /// What was measured (`aggregate`, `disk_share_app1`, `time_to_90pct`,
    /// ...).
    pub metric: String,
    /// The figure's unit (`MB/s`, `s`, ...).
    pub unit: String,
    /// Our value, in `unit`.
    pub ours: f64,
    /// The paper's value, in `unit`, where the paper gives one.
    pub paper: Option<f64>,
    /// What the paper says about this row, where it says something but
    /// gives no number (absent from the JSON otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Row {
    /// The row with what the paper says about it.
    pub(crate) fn with_note(mut self, note: &str) -> Row {
        self.note = Some(note.into());
        self
    }
}

/// One experiment of a paper.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Experiment {
    /// The paper it comes from.
    pub paper: String,
    /// A short name of the experiment within the paper (`pipelining`, ...).
    pub id: String,
    /// What it shows, in one line (with the device it ran on).
    pub title: String,
    /// How we set it up and where it departs from the paper.
    pub notes: String,
    /// Its figures, ours next to the paper's.
    pub rows: Vec<Row>,
}

/// A row of an experiment.
pub(crate) fn row(
    sched: &str,
    workload: &str,
    metric: &str,
    unit: &str,
    ours: f64,
    paper: Option<f64>,
) -> Row {
    Row {
        scheduler: sched.into(),
        workload: workload.into(),
        metric: metric.into(),
        unit: unit.into(),
        ours,
        paper,
        note: None,
    }
}

/// An experiment of `paper`.
pub(crate) fn experiment(
    paper: &str,
    id: &str,
    title: &str,
    notes: &str,
    rows: Vec<Row>,
) -> Experiment {
    Experiment {
        paper: paper.into(),
        id: id.into(),
        title: title.into(),
        notes: notes.into(),
        rows,
    }
}

/// The `sluice.repro/1` result.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ReproReport {
    /// Schema tag: [`REPRO_SCHEMA`].
    #[serde(deserialize_with = "repro_schema")]
    pub schema: sluice_runtime::report::SchemaTag,
    /// The paper asked for (one of [`PAPERS`] or [`NOT_IN_ALL`], or
    /// `all`).
    pub paper: String,
    /// Its experiments, in the order they ran (all papers' with `all`).
    pub experiments: Vec<Experiment>,
    /// Each claim of the papers' text and figures, ours beside it (absent
    /// from reports written before claims were added).
    #[serde(default)]
    pub claims: Vec<claims::Claim>,
}

/// [`ReproReport::schema`] read back.
fn repro_schema<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<&'static str, D::Error> {
    sluice_runtime::report::schema_tag(d, &[REPRO_SCHEMA])
}

/// How to run a reproduction.
pub struct Options<'a> {
    /// Shorter runs that keep each experiment's shape.
    pub quick: bool,
    /// Told (done, total) after each simulation.
    pub progress: &'a (dyn Fn(usize, usize) + Sync),
    /// Also write every simulated scenario as a TOML file here.
    pub save_scenarios: Option<&'a std::path::Path>,
}

/// What `--quick` shortens in a paper's experiments (`all`: every paper's),
/// in one line.
pub fn quick_note(paper: &str) -> String {
    let one = |p: &str| match p {
        "bfq" => bfq::QUICK,
        "yfq" => yfq::QUICK,
        "vios" => vios::QUICK,
        "dor" => dor::QUICK,
        "mqsim" => mqsim::QUICK,
        _ => "",
    };
    let text = if paper == "all" {
        PAPERS
            .iter()
            .map(|p| format!("{p}: {}", one(p)))
            .collect::<Vec<_>>()
            .join("; ")
    } else {
        one(paper).to_string()
    };
    format!("--quick: {text}")
}

/// Run one paper's experiments (`all`: every paper), quick or full, telling
/// `progress` about each finished run.
pub fn run(
    paper: &str,
    quick: bool,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<ReproReport> {
    run_with(
        paper,
        &Options {
            quick,
            progress,
            save_scenarios: None,
        },
    )
}

/// [`run`] with every option.
pub fn run_with(paper: &str, opts: &Options) -> Result<ReproReport> {
    let experiments = match paper {
        "bfq" => bfq::experiments(opts)?,
        "vios" => vios::experiments(opts)?,
        "yfq" => yfq::experiments(opts)?,
        "dor" => dor::experiments(opts)?,
        "mqsim" => mqsim::experiments(opts)?,
        "all" => {
            let mut v = Vec::new();
            for p in PAPERS {
                v.extend(run_with(p, opts)?.experiments);
            }
            v
        }
        other => {
            return Err(Error::new(
                "",
                format!("unknown paper '{other}' (expected bfq, yfq, vios, dor, mqsim or all)"),
            ))
        }
    };
    let claims = claims_of(&experiments);
    Ok(ReproReport {
        schema: REPRO_SCHEMA,
        paper: paper.to_string(),
        experiments,
        claims,
    })
}

/// Every paper's claims of `experiments` (of any papers), in the papers'
/// order.
fn claims_of(experiments: &[Experiment]) -> Vec<claims::Claim> {
    let mut out = Vec::new();
    for p in PAPERS {
        let mine: Vec<Experiment> = experiments
            .iter()
            .filter(|e| e.paper == *p)
            .cloned()
            .collect();
        if mine.is_empty() {
            continue;
        }
        out.extend(match *p {
            "bfq" => bfq::claims(&mine),
            "yfq" => yfq::claims(&mine),
            "vios" => vios::claims(&mine),
            "dor" => dor::claims(&mine),
            _ => Vec::new(),
        });
    }
    out
}

/// A scenario to run, with what to extract from it.
struct Job {
    pub scenario: ScenarioBuilder,
    /// Time-series bin, if the experiment needs throughput over time.
    pub timeline_ms: Option<u64>,
}

/// The scenarios of one paper's experiments, built up then run together.
pub(crate) struct Jobs {
    list: Vec<Job>,
    /// Time-series bin every job asks for, if any.
    timeline_ms: Option<u64>,
}

impl Jobs {
    /// Jobs that report a throughput and disk-time timeline in bins of
    /// `timeline_ms`, or none.
    pub(crate) fn new(timeline_ms: Option<u64>) -> Self {
        Jobs {
            list: Vec::new(),
            timeline_ms,
        }
    }

    /// Queue a scenario; returns its index in the results.
    pub(crate) fn add(&mut self, scenario: ScenarioBuilder) -> usize {
        let timeline_ms = self.timeline_ms;
        self.add_with(scenario, timeline_ms)
    }

    /// Queue a scenario with its own timeline setting.
    pub(crate) fn add_with(
        &mut self,
        scenario: ScenarioBuilder,
        timeline_ms: Option<u64>,
    ) -> usize {
        self.list.push(Job {
            scenario,
            timeline_ms,
        });
        self.list.len() - 1
    }

    /// Run every queued scenario.
    pub(crate) fn run(&self, opts: &Options) -> Result<Vec<SimReport>> {
        run_jobs(&self.list, opts)
    }
}

/// Run jobs on all cores; results come back in job order (each run is
/// deterministic, so the order of execution does not matter).
fn run_jobs(jobs: &[Job], opts: &Options) -> Result<Vec<SimReport>> {
    if let Some(dir) = opts.save_scenarios {
        save(jobs, dir)?;
    }
    let progress = opts.progress;
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<SimReport>>>> =
        Mutex::new(vec![None; jobs.len()].into_iter().collect());
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(jobs.len().max(1));
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let r = run_one(job);
                results.lock().expect("no panics while holding the lock")[i] = Some(r);
                progress(done.fetch_add(1, Ordering::Relaxed) + 1, jobs.len());
            });
        }
    });
    results
        .into_inner()
        .expect("threads joined")
        .into_iter()
        .map(|r| r.expect("every job ran"))
        .collect()
}

/// The name a job's scenario is saved under: the scenario's name and its
/// `[scheduler]` table's values, e.g. `8k-8tasks--yfq-4-true`, with
/// characters unsafe in a file name replaced by `_`.
fn save_name(s: &ScenarioBuilder) -> String {
    let (policy, params) = s.policy();
    let mut values = vec![policy.to_string()];
    values.extend(params.values().map(|v| match v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(x) => x.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        other => other.to_string(),
    }));
    let label = format!("{}--{}", s.name(), values.join("-"));
    label
        .chars()
        .filter(|&c| c != '"')
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' || c == '+' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Write each job's scenario as `NAME.toml` under `dir` (`NAME-2.toml`,
/// ... if taken).
fn save(jobs: &[Job], dir: &std::path::Path) -> Result<()> {
    let io_error = |path: &std::path::Path, e: std::io::Error| {
        Error::new(path.display().to_string(), e.to_string())
    };
    std::fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
    for job in jobs {
        let safe = save_name(&job.scenario);
        let text = job.scenario.to_toml()?;
        // Created exclusively, never through a link: a name that exists
        // (a file, a planted link) is skipped for the next free one.
        let mut k = 1;
        let (path, mut file) = loop {
            let path = match k {
                1 => dir.join(format!("{safe}.toml")),
                _ => dir.join(format!("{safe}-{k}.toml")),
            };
            match sluice_input::create_new(&path, 0o644) {
                Ok(f) => break (path, f),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && k < 10_000 => k += 1,
                Err(e) => return Err(io_error(&path, e)),
            }
        };
        std::io::Write::write_all(&mut file, text.as_bytes()).map_err(|e| io_error(&path, e))?;
    }
    Ok(())
}

fn run_one(job: &Job) -> Result<SimReport> {
    let scenario = job.scenario.build().map_err(|e| Error {
        file: "(repro)".into(),
        ..e
    })?;
    let mut sim = Simulation::new(&scenario)?;
    if let Some(ms) = job.timeline_ms {
        sim = sim.with_timeline(Duration::from_millis(ms));
    }
    Ok(sim.run())
}

/// Experiments with more rows than this print as a summary (one line per
/// scheduler and workload, a column per metric) unless `full` is asked.
pub const SUMMARY_ABOVE: usize = 40;

/// Columns a summary keeps before it moves a metric's `@` part (the
/// swept parameter, `ratio@mqos=5`) into the rows.
const SUMMARY_COLUMNS: usize = 14;

/// One line per (scheduler, workload) — and per swept parameter when there
/// would be too many columns — a column per metric, then the paper's
/// numbers: the long experiments (DOR's sweeps) at a glance.
fn pivot(o: &mut String, e: &Experiment) {
    let distinct = {
        let mut m: Vec<&str> = e.rows.iter().map(|r| r.metric.as_str()).collect();
        m.sort_unstable();
        m.dedup();
        m.len()
    };
    let split = distinct > SUMMARY_COLUMNS;
    // (row label, column, unit, value)
    let cells: Vec<(String, &str, &str, f64)> = e
        .rows
        .iter()
        .map(|r| {
            let (col, param) = match r.metric.split_once('@') {
                Some((c, p)) if split => (c, format!("  {p}")),
                _ => (r.metric.as_str(), String::new()),
            };
            (
                format!("{:<9}  {}{param}", r.scheduler, r.workload),
                col,
                r.unit.as_str(),
                r.ours,
            )
        })
        .collect();
    let mut cols: Vec<(&str, &str)> = Vec::new();
    let mut labels: Vec<&str> = Vec::new();
    for (l, c, u, _) in &cells {
        if !cols.iter().any(|x| x.0 == *c) {
            cols.push((c, u));
        }
        if !labels.contains(&l.as_str()) {
            labels.push(l);
        }
    }
    let lw = labels.iter().map(|l| l.len()).fold(18, usize::max);
    let cw: Vec<usize> = cols
        .iter()
        .map(|m| m.0.len().max(m.1.len()).max(7))
        .collect();
    let _ = write!(o, "{:<lw$}", "scheduler  workload");
    for (m, c) in cols.iter().zip(&cw) {
        let _ = write!(o, "  {:>c$}", m.0);
    }
    let _ = write!(o, "\n{:<lw$}", "");
    for (m, c) in cols.iter().zip(&cw) {
        let _ = write!(o, "  {:>c$}", m.1);
    }
    o.push('\n');
    for l in &labels {
        let _ = write!(o, "{l:<lw$}");
        for (m, c) in cols.iter().zip(&cw) {
            let v = cells
                .iter()
                .find(|x| x.0 == *l && x.1 == m.0)
                .map_or("-".to_string(), |x| format!("{:.2}", x.3));
            let _ = write!(o, "  {v:>c$}");
        }
        o.push('\n');
    }
    let paper: Vec<String> = e
        .rows
        .iter()
        .filter_map(|r| {
            r.paper
                .map(|p| format!("{} {} {} {p:.2}", r.scheduler, r.workload, r.metric))
        })
        .collect();
    if !paper.is_empty() {
        let _ = writeln!(o, "paper: {}", paper.join("; "));
    }
    let _ = writeln!(
        o,
        "({} rows summarized; `--full` or `--json` lists each with the paper's number beside it)",
        e.rows.len()
    );
}

/// The rows' notes under a table, once per scheduler and note.
fn notes(o: &mut String, e: &Experiment) {
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for r in &e.rows {
        if let Some(n) = r.note.as_deref() {
            if !seen.contains(&(r.scheduler.as_str(), n)) {
                seen.push((r.scheduler.as_str(), n));
                let _ = writeln!(o, "  {}: {n}", r.scheduler);
            }
        }
    }
}

/// Readable tables of a report, one per experiment; experiments of more
/// than [`SUMMARY_ABOVE`] rows as a summary unless `full`.
pub fn tables(r: &ReproReport, full: bool) -> String {
    let mut o = String::new();
    for e in &r.experiments {
        let _ = writeln!(o, "== {} {}: {}", e.paper, e.id, e.title);
        if !e.notes.is_empty() {
            let _ = writeln!(o, "   {}", e.notes);
        }
        if !full && e.rows.len() > SUMMARY_ABOVE {
            pivot(&mut o, e);
            notes(&mut o, e);
            o.push('\n');
            continue;
        }
        let width = |f: fn(&Row) -> &str, min: usize| {
            e.rows.iter().map(|r| f(r).len()).fold(min, usize::max)
        };
        let w = width(|r| &r.scheduler, 9);
        let ww = width(|r| &r.workload, 8);
        let mw = width(|r| &r.metric, 6);
        let _ = writeln!(
            o,
            "{:<w$}  {:<ww$}  {:<mw$}  {:>12}  {:>10}  unit",
            "scheduler", "workload", "metric", "ours", "paper"
        );
        for row in &e.rows {
            let paper = row.paper.map_or("-".to_string(), |p| format!("{p:.2}"));
            let _ = writeln!(
                o,
                "{:<w$}  {:<ww$}  {:<mw$}  {:>12.2}  {:>10}  {}",
                row.scheduler, row.workload, row.metric, row.ours, paper, row.unit
            );
        }
        notes(&mut o, e);
        o.push('\n');
    }
    o
}

#[cfg(test)]
mod tests;
