//! Fleets from Python: run on local threads here, or cut into per-node
//! jobs (bytes) that Ray tasks run, and whose results are merged here the
//! same way the CLI merges its threads' (`sluice/__init__.py`'s `fleet`).

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use sluice_runtime::fleet::{merge, FleetPerf, FleetPlan, FleetSummary, NodeJob, NodeResult};

use crate::{fail, json};

/// The plan of a fleet scenario given as a path or a dict's JSON.
fn plan(path: Option<&str>, json_text: Option<&str>, name: Option<&str>) -> PyResult<FleetPlan> {
    match (path, json_text) {
        (Some(p), None) => FleetPlan::load(p.as_ref()).map_err(fail),
        (None, Some(j)) => FleetPlan::from_json(name.unwrap_or("<dict>"), j).map_err(fail),
        _ => Err(fail("give a fleet scenario file or a scenario dict")),
    }
}

/// Run a fleet on `workers` local threads; `sluice.fleet/1` JSON.
#[pyfunction]
#[pyo3(signature = (path=None, json_text=None, name=None, workers=None))]
pub(crate) fn fleet_json(
    py: Python<'_>,
    path: Option<&str>,
    json_text: Option<&str>,
    name: Option<&str>,
    workers: Option<usize>,
) -> PyResult<String> {
    let workers = workers
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, 1024);
    let report = py
        .detach(|| -> sluice_runtime::Result<_> {
            let p = plan(path, json_text, name)
                .map_err(|e| sluice_runtime::Error::new("", e.to_string()))?;
            sluice_sim::fleet::run_local(p, workers, |_, _| {})
        })
        .map_err(fail)?;
    json(&report)
}

/// A fleet cut into jobs: the summary's JSON (for `fleet_merge`) and one
/// job's bytes per node.
#[pyfunction]
#[pyo3(signature = (path=None, json_text=None, name=None))]
pub(crate) fn fleet_plan<'py>(
    py: Python<'py>,
    path: Option<&str>,
    json_text: Option<&str>,
    name: Option<&str>,
) -> PyResult<(String, Vec<Bound<'py, PyBytes>>)> {
    let (summary, jobs) = py.detach(|| -> PyResult<_> {
        let p = plan(path, json_text, name)?;
        let jobs: Vec<Vec<u8>> = p.jobs.iter().map(NodeJob::to_bytes).collect();
        Ok((p.summary(), jobs))
    })?;
    let jobs = jobs.iter().map(|b| PyBytes::new(py, b)).collect();
    Ok((json(&summary)?, jobs))
}

/// Run one node's job (bytes from `fleet_plan`); its result's JSON.
#[pyfunction]
pub(crate) fn fleet_node(py: Python<'_>, job: &[u8]) -> PyResult<String> {
    let result = py
        .detach(|| -> sluice_runtime::Result<_> {
            let job = NodeJob::from_bytes(job)?;
            sluice_sim::fleet::run_node(&job)
        })
        .map_err(fail)?;
    json(&result)
}

/// Merge the nodes' results (JSON from `fleet_node`, any order) as the
/// CLI does; `sluice.fleet/1` JSON.
#[pyfunction]
#[pyo3(signature = (summary, results, wall_s, runner, workers, peak_rss_mib=0.0, worker_peak_rss_mib=0.0))]
pub(crate) fn fleet_merge(
    summary: &str,
    results: Vec<String>,
    wall_s: f64,
    runner: &str,
    workers: u32,
    peak_rss_mib: f64,
    worker_peak_rss_mib: f64,
) -> PyResult<String> {
    let summary: FleetSummary = serde_json::from_str(summary).map_err(fail)?;
    let results: Vec<NodeResult> = results
        .iter()
        .map(|r| serde_json::from_str(r))
        .collect::<Result<_, _>>()
        .map_err(fail)?;
    let perf = FleetPerf {
        wall_s,
        runner: runner.to_string(),
        workers,
        peak_rss_mib,
        worker_peak_rss_mib,
    };
    json(&merge(&summary, results, perf))
}
