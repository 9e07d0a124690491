//! `sluice._native`: the simulator, the real host and the formats behind
//! the Python package. Each function returns the text the `sluice` command
//! would print (JSON of the same report, the request log's CSV, the HTML
//! report), which `sluice/__init__.py` turns into Python values;
//! `_native.pyi` types them.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

mod catalog;
mod fleet;
mod formats;
mod input;
mod real;
mod simulate;

// Named `sluice.SluiceError`, where the package exports it, so that it
// pickles (multiprocessing, Ray) and tracebacks name it as users write it.
create_exception!(
    sluice,
    SluiceError,
    PyException,
    "Bad input to sluice (one line: file, key, what was expected)."
);

/// A `SluiceError` with `e`'s one-line message.
fn fail(e: impl std::fmt::Display) -> PyErr {
    SluiceError::new_err(e.to_string())
}

/// A report as JSON text.
fn json(report: &impl serde::Serialize) -> PyResult<String> {
    serde_json::to_string(report).map_err(fail)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("SluiceError", m.py().get_type::<SluiceError>())?;
    m.add_function(wrap_pyfunction!(simulate::sim_json, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::compare_json, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::request_log_csv, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::validate_json, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::repro_json, m)?)?;
    m.add_function(wrap_pyfunction!(real::run_json, m)?)?;
    m.add_function(wrap_pyfunction!(catalog::policies_json, m)?)?;
    m.add_function(wrap_pyfunction!(formats::import_json, m)?)?;
    m.add_function(wrap_pyfunction!(formats::fio_json, m)?)?;
    m.add_function(wrap_pyfunction!(formats::report_html, m)?)?;
    m.add_function(wrap_pyfunction!(formats::read_text, m)?)?;
    m.add_function(wrap_pyfunction!(fleet::fleet_json, m)?)?;
    m.add_function(wrap_pyfunction!(fleet::fleet_plan, m)?)?;
    m.add_function(wrap_pyfunction!(fleet::fleet_node, m)?)?;
    m.add_function(wrap_pyfunction!(fleet::fleet_merge, m)?)?;
    Ok(())
}
