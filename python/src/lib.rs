//! `sluice._native`: the simulator behind the Python package. Each
//! function returns the JSON text the `sluice` command prints (the same
//! serialisation of the same report), which `sluice/__init__.py` parses.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use sluice_sim::Scenario;

create_exception!(
    _native,
    SluiceError,
    PyException,
    "Bad input to sluice (one line: file, key, what was expected)."
);

fn fail(e: impl std::fmt::Display) -> PyErr {
    SluiceError::new_err(e.to_string())
}

/// The scenario of a file, or of TOML text (from a dict), with the CLI's
/// `--seed` and `--scheduler` overrides.
fn scenario(
    path: Option<&str>,
    toml_text: Option<&str>,
    seed: Option<u64>,
    scheduler: Option<&str>,
) -> PyResult<Scenario> {
    let mut s = match (path, toml_text) {
        (Some(p), None) => Scenario::load(p.as_ref()).map_err(fail)?,
        (None, Some(t)) => Scenario::parse("<dict>", t).map_err(fail)?,
        _ => return Err(fail("give a scenario file or a scenario dict")),
    };
    if let Some(seed) = seed {
        s.seed = seed;
    }
    if let Some(name) = scheduler {
        s.scheduler = name.to_string();
        s.params = Default::default();
        sluice::policy::build(name, &s.params)
            .map_err(|e| fail(format!("scheduler {name}: {e}")))?;
    }
    Ok(s)
}

/// Simulate a scenario; returns `sluice.sim/1` JSON.
#[pyfunction]
#[pyo3(signature = (path=None, toml_text=None, seed=None, scheduler=None, timeline_ms=None))]
fn sim_json(
    py: Python<'_>,
    path: Option<&str>,
    toml_text: Option<&str>,
    seed: Option<u64>,
    scheduler: Option<&str>,
    timeline_ms: Option<u64>,
) -> PyResult<String> {
    let s = scenario(path, toml_text, seed, scheduler)?;
    let report = py
        .detach(|| -> Result<_, sluice_sim::Error> {
            let mut sim = sluice_sim::Simulation::new(&s)?;
            if let Some(ms) = timeline_ms.filter(|&ms| ms > 0) {
                sim = sim.with_timeline(sluice::Duration::from_millis(ms));
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

/// Reproduce a paper's experiments; returns `sluice.repro/1` JSON.
#[pyfunction]
#[pyo3(signature = (paper, quick=false))]
fn repro_json(py: Python<'_>, paper: &str, quick: bool) -> PyResult<String> {
    let report = py
        .detach(|| sluice_sim::repro::run(paper, quick, &|_, _| {}))
        .map_err(fail)?;
    serde_json::to_string(&report).map_err(fail)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("SluiceError", m.py().get_type::<SluiceError>())?;
    m.add_function(wrap_pyfunction!(sim_json, m)?)?;
    m.add_function(wrap_pyfunction!(toml_of_json, m)?)?;
    m.add_function(wrap_pyfunction!(repro_json, m)?)?;
    Ok(())
}
