//! The simulator's reports: one run, every policy, a run's request log,
//! a drive model scored against a trace, and the papers' experiments.

use pyo3::prelude::*;
use sluice_runtime::{overrides, request_log};
use sluice_sim::device::presets;

use crate::{fail, input, json};

/// Simulate a scenario (a file, a dict's JSON, or a file's text as a
/// sweep sends it); returns `sluice.sim/1` JSON.
#[pyfunction]
#[pyo3(signature = (path=None, json_text=None, toml_text=None, name=None, seed=None, scheduler=None,
                    timeline_ms=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn sim_json(
    py: Python<'_>,
    path: Option<&str>,
    json_text: Option<&str>,
    toml_text: Option<&str>,
    name: Option<&str>,
    seed: Option<u64>,
    scheduler: Option<&str>,
    timeline_ms: Option<u64>,
) -> PyResult<String> {
    let src = input::Source {
        path,
        json_text,
        toml_text,
        name,
    };
    let s = input::simulated(src, seed, scheduler)?;
    let bin = timeline_ms
        .filter(|&ms| ms > 0)
        .map(sluice::Duration::from_millis);
    if let Some(b) = bin {
        overrides::check_timeline(&s, b)
            .map_err(|e| fail(format!("timeline_ms={}: {e}", b.as_millis_f64())))?;
    }
    let report = py
        .detach(|| -> sluice_runtime::Result<_> {
            let sim = sluice_sim::Simulation::new(&s)?;
            Ok(match bin {
                Some(b) => sim.with_timeline(b).run(),
                None => sim.run(),
            })
        })
        .map_err(fail)?;
    json(&report)
}

/// The scenario under every policy, in `sluice list`'s order (its own
/// policy keeps its parameters; the others start from their defaults), as
/// `sluice compare` runs it; returns a JSON array of `sluice.sim/1`.
#[pyfunction]
#[pyo3(signature = (path=None, json_text=None, name=None, seed=None))]
pub(crate) fn compare_json(
    py: Python<'_>,
    path: Option<&str>,
    json_text: Option<&str>,
    name: Option<&str>,
    seed: Option<u64>,
) -> PyResult<String> {
    let base = input::simulated(input::Source::of(path, json_text, name), seed, None)?;
    let reports = py
        .detach(|| sluice_sim::compare(&base, |_| {}))
        .map_err(fail)?;
    json(&reports)
}

/// Simulate a scenario with its request log; returns the log as the CSV
/// `sluice sim --log-requests` writes (header first).
#[pyfunction]
#[pyo3(signature = (path=None, json_text=None, name=None, seed=None, scheduler=None))]
pub(crate) fn request_log_csv(
    py: Python<'_>,
    path: Option<&str>,
    json_text: Option<&str>,
    name: Option<&str>,
    seed: Option<u64>,
    scheduler: Option<&str>,
) -> PyResult<String> {
    let s = input::simulated(input::Source::of(path, json_text, name), seed, scheduler)?;
    let csv = py
        .detach(
            || -> Result<Vec<u8>, Box<dyn std::error::Error + Send + Sync>> {
                let (_, log) = sluice_sim::Simulation::new(&s)?
                    .with_request_log()
                    .run_logged();
                let names: Vec<&str> = s.flows.iter().map(|f| f.name.as_str()).collect();
                let mut out = Vec::new();
                request_log::write_csv(&mut out, &names, &log)?;
                Ok(out)
            },
        )
        .map_err(fail)?;
    String::from_utf8(csv).map_err(fail)
}

/// Replay a DiskSim validation trace against a drive model (a preset name
/// or a `.diskspecs` file) and score it; returns `sluice.validate/1` JSON.
#[pyfunction]
pub(crate) fn validate_json(py: Python<'_>, disk: &str, trace: &str) -> PyResult<String> {
    let model = presets::preset_or_diskspecs(disk).map_err(fail)?;
    let report = py
        .detach(|| sluice_sim::validate::validate_file(disk, &model, trace.as_ref()))
        .map_err(fail)?;
    json(&report)
}

/// Reproduce a paper's experiments; returns `sluice.repro/1` JSON.
#[pyfunction]
#[pyo3(signature = (paper, quick=false))]
pub(crate) fn repro_json(py: Python<'_>, paper: &str, quick: bool) -> PyResult<String> {
    let report = py
        .detach(|| sluice_repro::run(paper, quick, &|_, _| {}))
        .map_err(fail)?;
    json(&report)
}
