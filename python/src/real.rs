//! The real host: a scenario's flows on real files or a block device.

use pyo3::prelude::*;

use crate::{fail, input, json};

/// Run a scenario in real time through io_uring (`sluice run`'s library);
/// returns `sluice.run/1` JSON.
#[pyfunction]
#[pyo3(signature = (path=None, json_text=None, name=None, dir=None, device=None, allow_writes=false,
                    queue_depth=None, duration_s=None, verify=false, keep=false, timeline_ms=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_json(
    py: Python<'_>,
    path: Option<&str>,
    json_text: Option<&str>,
    name: Option<&str>,
    dir: Option<&str>,
    device: Option<&str>,
    allow_writes: bool,
    queue_depth: Option<usize>,
    duration_s: Option<f64>,
    verify: bool,
    keep: bool,
    timeline_ms: Option<u64>,
) -> PyResult<String> {
    use sluice_real::run;
    let s = input::read(input::Source::of(path, json_text, name), true)?;
    let label = name.or(path).unwrap_or("<dict>");
    let opts = run::Options {
        scenario: label.into(),
        dir: dir.map(Into::into),
        device: device.map(Into::into),
        allow_writes,
        queue_depth,
        duration_s,
        verify,
        keep,
        timeline_ms,
        log_requests: false,
        progress: None,
    };
    let report = py
        .detach(|| run::run_scenario(s, &opts))
        .map_err(|e| fail(format!("{e:#}")))?;
    json(&report)
}
