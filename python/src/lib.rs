//! `sluice._native`: the simulator and the real host behind the Python package. Each
//! function returns the JSON text the `sluice` command prints (the same
//! serialisation of the same report), which `sluice/__init__.py` parses.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use sluice_runtime::{overrides, Scenario};

// Named `sluice.SluiceError`, where the package exports it, so that it
// pickles (multiprocessing, Ray) and tracebacks name it as users write it.
create_exception!(
    sluice,
    SluiceError,
    PyException,
    "Bad input to sluice (one line: file, key, what was expected)."
);

fn fail(e: impl std::fmt::Display) -> PyErr {
    SluiceError::new_err(e.to_string())
}

/// The scenario of a file, or of TOML text named `name` (errors name it,
/// and relative paths in it resolve against its folder: a sweep's tasks
/// may run in another directory or on another machine), with the
/// overrides the CLI's `--seed` and `--scheduler` apply (the same function).
fn scenario(
    path: Option<&str>,
    toml_text: Option<&str>,
    name: Option<&str>,
    seed: Option<u64>,
    scheduler: Option<&str>,
) -> PyResult<Scenario> {
    let mut s = read(path, toml_text, name, false)?;
    overrides::apply(&mut s, seed, scheduler)
        .map_err(|e| fail(format!("scheduler={}: {e}", scheduler.unwrap_or_default())))?;
    Ok(s)
}

/// The scenario of a file or of TOML text named `name`; `real`: for the
/// real host (`[device]` may name no model, as `sluice run` reads it).
fn read(
    path: Option<&str>,
    toml_text: Option<&str>,
    name: Option<&str>,
    real: bool,
) -> PyResult<Scenario> {
    let name = name.unwrap_or("<dict>");
    match (path, toml_text, real) {
        (Some(p), None, false) => Scenario::load(p.as_ref()).map_err(fail),
        (Some(p), None, true) => Scenario::load_real(p.as_ref()).map_err(fail),
        (None, Some(t), false) => Scenario::parse(name, t).map_err(fail),
        (None, Some(t), true) => Scenario::parse_real(name, t).map_err(fail),
        _ => Err(fail("give a scenario file or a scenario dict")),
    }
}

/// Simulate a scenario; returns `sluice.sim/1` JSON.
#[pyfunction]
#[pyo3(signature = (path=None, toml_text=None, name=None, seed=None, scheduler=None, timeline_ms=None))]
fn sim_json(
    py: Python<'_>,
    path: Option<&str>,
    toml_text: Option<&str>,
    name: Option<&str>,
    seed: Option<u64>,
    scheduler: Option<&str>,
    timeline_ms: Option<u64>,
) -> PyResult<String> {
    let s = scenario(path, toml_text, name, seed, scheduler)?;
    let bin = timeline_ms
        .filter(|&ms| ms > 0)
        .map(sluice::Duration::from_millis);
    if let Some(b) = bin {
        overrides::check_timeline(&s, b)
            .map_err(|e| fail(format!("timeline_ms={}: {e}", b.as_millis_f64())))?;
    }
    let report = py
        .detach(|| -> Result<_, sluice_runtime::Error> {
            let mut sim = sluice_sim::Simulation::new(&s)?;
            if let Some(b) = bin {
                sim = sim.with_timeline(b);
            }
            Ok(sim.run())
        })
        .map_err(fail)?;
    serde_json::to_string(&report).map_err(fail)
}

/// A scenario dict as TOML text (JSON in, so any JSON-able dict works).
#[pyfunction]
fn toml_of_json(json: &str) -> PyResult<String> {
    let v: serde_json::Value = serde_json::from_str(json).map_err(fail)?;
    let t =
        toml::Value::try_from(v).map_err(|e| fail(format!("the dict is not a scenario: {e}")))?;
    toml::to_string(&t).map_err(|e| fail(format!("the dict is not a scenario: {e}")))
}

/// Run a scenario in real time through io_uring (`sluice run`'s library);
/// returns `sluice.run/1` JSON.
#[pyfunction]
#[pyo3(signature = (path=None, toml_text=None, name=None, dir=None, device=None, allow_writes=false,
                    queue_depth=None, duration_s=None, verify=false, keep=false, timeline_ms=None))]
#[allow(clippy::too_many_arguments)]
fn run_json(
    py: Python<'_>,
    path: Option<&str>,
    toml_text: Option<&str>,
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
    let s = read(path, toml_text, name, true)?;
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
    serde_json::to_string(&report).map_err(fail)
}

/// Reproduce a paper's experiments; returns `sluice.repro/1` JSON.
#[pyfunction]
#[pyo3(signature = (paper, quick=false))]
fn repro_json(py: Python<'_>, paper: &str, quick: bool) -> PyResult<String> {
    let report = py
        .detach(|| sluice_repro::run(paper, quick, &|_, _| {}))
        .map_err(fail)?;
    serde_json::to_string(&report).map_err(fail)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("SluiceError", m.py().get_type::<SluiceError>())?;
    m.add_function(wrap_pyfunction!(sim_json, m)?)?;
    m.add_function(wrap_pyfunction!(toml_of_json, m)?)?;
    m.add_function(wrap_pyfunction!(repro_json, m)?)?;
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    Ok(())
}
