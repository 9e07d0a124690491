//! Fleets: the volumes of one block trace placed on nodes, one independent
//! simulation per node of the volumes placed on it (`sluice fleet`).
//!
//! A fleet scenario is a scenario file with a `[fleet]` table instead of
//! `[[flow]]`s: its `[device]`, `[scheduler]` (and `[[group]]`, `[cost]`)
//! are every node's. [`FleetPlan::load`] reads the trace once, split by
//! volume, places each volume on a node ([`Placement`]) and cuts the trace
//! into one [`NodeJob`] per node. A job is independent of every other and
//! can be sent elsewhere as bytes ([`NodeJob::to_bytes`]): to a thread, or
//! to a Ray task. Whatever runs the jobs, [`merge`] puts their results
//! together in the same order, so the report is the same bytes.

mod job;
mod placement;
mod report;

use std::path::Path;
use std::sync::Arc;

use sluice_workload::trace::{self, Format, Offsets, ReadOptions, Split, Timing, Trace};

use crate::error::{Error, Result};
use crate::scenario::{
    location, FleetKeys, FlowBuilder, Pattern, Scenario, ScenarioBuilder, Window,
};

pub use job::NodeJob;
pub use placement::Placement;
pub use report::{
    merge, FleetPerf, FleetReport, FleetSummary, NodeResult, NodeRow, PlacementReport, VolumeRow,
};

/// The most nodes a fleet may have.
pub const MAX_NODES: u32 = 100_000;

/// A fleet, read and cut into one job per node.
#[derive(Debug)]
pub struct FleetPlan {
    /// The scenario's name.
    pub name: String,
    /// The policy every node runs.
    pub scheduler: String,
    /// The seed.
    pub seed: u64,
    /// How volumes were placed.
    pub placement: Placement,
    /// Every volume, in the order the trace names them first.
    pub volumes: Vec<String>,
    /// Each volume's node (by volume).
    pub volume_node: Vec<u32>,
    /// One job per node, by node.
    pub jobs: Vec<NodeJob>,
}

/// An error about no file in particular (the caller names it).
fn fail(message: impl Into<String>) -> Error {
    Error::new("", message)
}

impl FleetPlan {
    /// Read the fleet scenario at `path` and its trace, and place the
    /// volumes.
    pub fn load(path: &Path) -> Result<FleetPlan> {
        let file = path.display().to_string();
        let text = sluice_input::read_text(path, sluice_input::Kind::Scenario)?;
        let raw: ScenarioBuilder =
            toml::from_str(&text).map_err(|e| location::toml_error(&file, &text, &e))?;
        // Absolute: a job may run in another directory (a Ray worker).
        let parent = path.parent().unwrap_or(Path::new("."));
        let parent = if parent.as_os_str().is_empty() {
            Path::new(".")
        } else {
            parent
        };
        let base = std::fs::canonicalize(parent).unwrap_or_else(|_| parent.to_path_buf());
        Self::from_builder(raw, &base).map_err(|e| Error {
            file: file.clone(),
            line: e.line.or_else(|| location::key_line(&text, &e.message)),
            ..e
        })
    }

    /// A fleet scenario given as JSON with a scenario file's keys (what
    /// the Python package makes of a dict); `file` names it in errors and
    /// relative paths resolve against its folder.
    pub fn from_json(file: &str, json: &str) -> Result<FleetPlan> {
        let raw: ScenarioBuilder =
            serde_json::from_str(json).map_err(|e| Error::new(file, e.to_string()))?;
        let base = Path::new(file).parent().unwrap_or(Path::new("."));
        Self::from_builder(raw, base).map_err(|e| Error {
            file: file.into(),
            ..e
        })
    }

    fn from_builder(mut raw: ScenarioBuilder, base: &Path) -> Result<FleetPlan> {
        let keys = raw.fleet.take().ok_or_else(|| {
            fail("no [fleet] table: `sluice fleet` runs a fleet scenario (`sluice sim` runs the others)")
        })?;
        if !raw.flows.is_empty() {
            return Err(fail(
                "[[flow]] in a fleet scenario: the flows are the trace's volumes (drop the [[flow]] tables)",
            ));
        }
        if !(1..=MAX_NODES).contains(&keys.nodes) {
            return Err(fail(format!(
                "[fleet] nodes must be 1..={MAX_NODES} (got {})",
                keys.nodes
            )));
        }
        let placement = match keys.placement.as_deref() {
            None => Placement::Hash,
            Some(p) => Placement::parse(p).ok_or_else(|| {
                fail(format!(
                    "[fleet] placement: unknown value '{p}' (valid: hash, round-robin, given)"
                ))
            })?,
        };
        if keys.given.is_some() && placement != Placement::Given {
            return Err(fail("[fleet] given applies only to placement = \"given\""));
        }
        let template = Self::flow_template(&keys)?;
        let format = Format::parse(&keys.format).ok_or_else(|| {
            let names: Vec<&str> = Format::ALL.iter().map(|f| f.0).collect();
            fail(format!(
                "[fleet] format: unknown value '{}' (valid: {})",
                keys.format,
                names.join(", ")
            ))
        })?;
        if !format.splits().contains(&Split::Volume) {
            return Err(fail(format!(
                "[fleet] format = \"{}\": its traces name no volume to place",
                keys.format
            )));
        }
        raw.stop_after_finite = true;
        // The node scenario is checked before the trace is read: a wrong
        // [device] or [scheduler] is said at once, not after minutes.
        // So are the window's keys, on a request inside the window.
        let mut probed = template.clone();
        if let Some(x) = keys.from_s {
            probed = probed.from_s(x);
        }
        if let Some(x) = keys.to_s {
            probed = probed.to_s(x);
        }
        if let Some(x) = keys.speed {
            probed = probed.speed(x);
        }
        let window = Window::of(&probed)?;
        let probe = Trace {
            name: keys.trace.clone(),
            requests: vec![trace::Request {
                at: window.from,
                sector: 0,
                sectors: 1,
                write: false,
                line: 1,
                source: 0,
            }],
            sources: vec!["probe".into()],
        };
        node_scenario(&raw, &probed, base, Arc::new(probe))?;
        let options = ReadOptions {
            split: Split::Volume,
            seed: raw.seed,
        };
        let mut trace = Trace::load_with(&base.join(&keys.trace), format, options)
            .map_err(|e| fail(format!("[fleet] trace: {e}")))?;
        // The window is the whole trace's, cut once: a node none of whose
        // requests fall in it is then a node with no volume, not an error.
        if !window.is_whole() {
            let cut = window
                .apply(Arc::new(trace))
                .map_err(|e| fail(format!("[fleet] {e}")))?;
            trace = drop_idle_volumes(Arc::unwrap_or_clone(cut));
        }
        let volume_node = placement.place(&trace.sources, keys.nodes, keys.given.as_ref())?;
        let jobs = job::cut(
            trace,
            &volume_node,
            keys.nodes,
            &raw,
            &template,
            base.to_path_buf(),
        );
        Ok(FleetPlan {
            name: raw.name.clone(),
            scheduler: raw.scheduler.name.clone(),
            seed: raw.seed,
            placement,
            volumes: jobs.1,
            volume_node,
            jobs: jobs.0,
        })
    }

    /// The trace flow every node runs, one per volume: the `[fleet]` keys
    /// that are a trace flow's.
    fn flow_template(keys: &FleetKeys) -> Result<FlowBuilder> {
        let mut f = FlowBuilder::new("volumes", Pattern::Trace).split(Split::Volume);
        let offsets = match keys.offsets.as_deref() {
            None => Offsets::Wrap,
            Some(o) => Offsets::parse(o).ok_or_else(|| {
                fail(format!(
                    "[fleet] offsets: unknown value '{o}' (valid: error, wrap, scale, mqsim)"
                ))
            })?,
        };
        let timing = match keys.timing.as_deref() {
            None => Timing::Recorded,
            Some(t) => Timing::parse(t).ok_or_else(|| {
                fail(format!(
                    "[fleet] timing: unknown value '{t}' (valid: recorded, afap)"
                ))
            })?,
        };
        f = f.offsets(offsets).timing(timing);
        if let Some(n) = keys.outstanding {
            f = f.outstanding(n);
        }
        if let Some(x) = keys.weight {
            f = f.weight(x);
        }
        if let Some(x) = keys.reservation_iops {
            f = f.reservation_iops(x);
        }
        if let Some(x) = keys.limit_iops {
            f = f.limit_iops(x);
        }
        Ok(f)
    }
}

/// `t` without the volumes left with no request (after a window), the
/// others numbered again in the same order.
fn drop_idle_volumes(mut t: Trace) -> Trace {
    let mut count = vec![0usize; t.sources.len()];
    for r in &t.requests {
        count[r.source as usize] += 1;
    }
    let mut renumber = vec![0u32; t.sources.len()];
    let mut kept = Vec::new();
    for (i, name) in std::mem::take(&mut t.sources).into_iter().enumerate() {
        if count[i] > 0 {
            renumber[i] = kept.len() as u32;
            kept.push(name);
        }
    }
    for r in &mut t.requests {
        r.source = renumber[r.source as usize];
    }
    t.sources = kept;
    t
}

/// The scenario of one node: the fleet's tables and one trace flow split
/// by volume over `trace` (that node's volumes).
fn node_scenario(
    raw: &ScenarioBuilder,
    template: &FlowBuilder,
    base: &Path,
    trace: Arc<Trace>,
) -> Result<Scenario> {
    let mut raw = raw.clone();
    raw.flows = vec![template.clone().trace_data(trace)];
    Scenario::from_builder_in(&raw, base)
}
