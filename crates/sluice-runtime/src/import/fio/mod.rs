//! fio job files as sluice workloads: [`JobFile`] reads one (or jobs given
//! as fio's command-line options), [`plan`] turns its jobs into scenarios,
//! one per stonewalled group, each job (and each `numjobs` copy) a flow,
//! and [`Plan::run`] runs the groups through a host the caller passes (the
//! simulator, or the io_uring engine), so this crate depends on neither.
//! [`FioResults`] prints them as fio does ([`FioResults::json`] in fio's
//! JSON layout, so tools written for fio read it).
//!
//! The output lives here with the reader rather than beside the other
//! result formats: it is fio's format, not sluice's, and needs the plan's
//! per-job facts ([`JobInfo`]) and the file's notes.
//!
//! ```
//! use sluice_runtime::import::fio::{simulate_json, FioOptions};
//! // The simulator as the host: one group's scenario, with fio's bandwidth
//! // samples when they fit.
//! let simulate = |s: &sluice_runtime::Scenario, bin: Option<sluice::Duration>| {
//!     let sim = sluice_sim::Simulation::new(s)?;
//!     Ok::<_, sluice_runtime::Error>(match bin {
//!         Some(b) => sim.with_timeline(b).run(),
//!         None => sim.run(),
//!     })
//! };
//! let job = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/fio/two-readers.fio");
//! let options = FioOptions { max_duration_s: Some(1.0), ..FioOptions::default() };
//! let json = simulate_json(job.as_ref(), &options, simulate).unwrap();
//! assert!(json.contains("\"jobs\""));
//! ```

/// Return early with a one-line error; every message names its file,
/// line and option itself.
macro_rules! bail {
    ($($arg:tt)*) => {
        return Err(crate::import::fail(format!($($arg)*)))
    };
}

mod jobfile;
mod options;
mod output;
mod plan;

pub use jobfile::{Job, JobFile};
pub use output::{FioResults, JobInfo, SAMPLE_MS};
pub use plan::{plan, Group, Plan};

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::import::fail;
use crate::report::SimReport;
use crate::scenario::Scenario;

/// The drive a job file is simulated on unless told otherwise: the BFQ
/// paper's disk.
pub const DEFAULT_PRESET: &str = "maxtor-stm332061";

/// Longest run of a group of jobs without `runtime`, seconds (its jobs end
/// when their `size` is done, or by then).
pub const UNBOUNDED_RUN_S: f64 = 3600.0;

/// How a refusal of an option sluice does not know ends (a front end may
/// add where its users find the list).
pub const UNKNOWN_OPTION: &str = "is not one sluice fio knows";

/// Where the jobs run.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    /// A simulated drive: a preset's name (`sluice list`).
    Preset(String),
    /// A simulated drive from a DiskSim `.diskspecs` file.
    Diskspecs(PathBuf),
    /// Real files or a device (the host's business): the scenarios carry
    /// no drive model, and buffered jobs become direct (the real engine
    /// does O_DIRECT only).
    Real,
}

impl Default for Target {
    fn default() -> Self {
        Target::Preset(DEFAULT_PRESET.to_string())
    }
}

/// How a job file runs: what fio's own options cannot say.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FioOptions {
    /// The policy between the jobs and the drive (default noop).
    pub scheduler: Option<String>,
    /// Where the jobs run.
    pub target: Target,
    /// The `max_duration` option: run each group at most this many
    /// seconds (a quick look at long jobs; fio has no such option).
    pub max_duration_s: Option<f64>,
}

impl FioOptions {
    /// The policy's name.
    pub fn scheduler(&self) -> &str {
        self.scheduler.as_deref().unwrap_or("noop")
    }

    /// A one-line refusal of a `max_duration` that is not a positive
    /// number of seconds.
    pub fn check(&self) -> Result<()> {
        match self.max_duration_s {
            Some(d) if !(d > 0.0 && d.is_finite()) => Err(fail(format!(
                "max_duration {d}: expected a positive number of seconds"
            ))),
            _ => Ok(()),
        }
    }
}

/// `Option::with_context` as anyhow spells it: `None` becomes the error
/// `why` writes.
trait Context<T> {
    fn with_context(self, why: impl FnOnce() -> String) -> Result<T>;
}

impl<T> Context<T> for Option<T> {
    fn with_context(self, why: impl FnOnce() -> String) -> Result<T> {
        self.ok_or_else(|| fail(why()))
    }
}

/// `note` added to `notes` unless it is there already.
fn push_once(notes: &mut Vec<String>, note: String) {
    if !notes.contains(&note) {
        notes.push(note);
    }
}

/// Whether fio's 500 ms samples of every flow fit the timeline's memory
/// bound (a long run of many jobs goes without them).
pub fn samples_fit(s: &Scenario) -> bool {
    let bins = s.duration.as_secs_f64() * 1000.0 / SAMPLE_MS as f64 + 1.0;
    bins * s.flows.len() as f64 <= crate::timeline::MAX_BINS as f64
}

impl Plan {
    /// Run every group in turn: `run_group` gets the group's scenario and
    /// the timeline bin fio's bandwidth samples need (`None` when they do
    /// not fit in memory) and returns the report the host measured.
    pub fn run<E: From<Error>>(
        self,
        options: &FioOptions,
        mut run_group: impl FnMut(
            &Scenario,
            Option<sluice::Duration>,
        ) -> std::result::Result<SimReport, E>,
    ) -> std::result::Result<FioResults, E> {
        let mut groups = Vec::new();
        for group in self.groups {
            let s = group.scenario(options)?;
            let bin = samples_fit(&s).then(|| sluice::Duration::from_millis(SAMPLE_MS));
            groups.push((run_group(&s, bin)?, group.jobs));
        }
        Ok(FioResults {
            groups,
            global_options: self.global_options,
            started_unix_ms: None,
            notes: self.notes,
            ignored: self.ignored,
        })
    }
}

impl Group {
    /// The group's scenario on `options`' target, cut to its
    /// `max_duration`.
    pub fn scenario(&self, options: &FioOptions) -> Result<Scenario> {
        options.check()?;
        let builder = match options.max_duration_s {
            Some(d) => self.builder.clone().cap_duration_s(d),
            None => self.builder.clone(),
        };
        let in_file = |e: Error| fail(format!("{}: {e}", self.file));
        Ok(match &options.target {
            Target::Preset(p) => builder.preset(p.clone()).build().map_err(in_file)?,
            Target::Diskspecs(d) => builder
                .diskspecs(d.display().to_string())
                .build()
                .map_err(in_file)?,
            Target::Real => {
                let mut s = builder.build_real().map_err(in_file)?;
                // Every job's iodepth reaches the target at once, as under fio.
                s.device.queue_depth = s
                    .flows
                    .iter()
                    .map(|f| f.outstanding as usize)
                    .sum::<usize>()
                    .clamp(1, 4096);
                s
            }
        })
    }
}

/// The job file at `path` run through `simulate` (the simulator, for one
/// group's scenario and its sample bin, as [`Plan::run`] calls it),
/// printed in fio's JSON layout: the bytes `sluice fio FILE
/// --output-format json` prints (a string, so fio's key order survives).
pub fn simulate_json<E: From<Error>>(
    path: &Path,
    options: &FioOptions,
    simulate: impl FnMut(&Scenario, Option<sluice::Duration>) -> std::result::Result<SimReport, E>,
) -> std::result::Result<String, E> {
    let file = JobFile::read(path)?;
    options.check()?;
    let results = plan(&file, options)?.run(options, simulate)?;
    Ok(results.json()?)
}

#[cfg(test)]
mod tests;
