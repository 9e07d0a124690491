//! Other tools' formats: dmClock's and Seastar's test configurations as
//! scenarios.

use pyo3::prelude::*;
use serde_json::json;
use sluice_runtime::import;

use crate::fail;

/// A scenario from another scheduler's configuration, as `sluice import`
/// reads it: `kind` "dmclock" (`path`: the simulator's .conf) or "seastar"
/// (`path`: io_tester's job file, with `io_properties`, `shards` and
/// `duration_s`). Returns JSON `{"scenario": {...}, "notes": [...]}`: the
/// scenario's keys and what was approximated.
#[pyfunction]
#[pyo3(signature = (kind, path, io_properties=None, shards=1, duration_s=10.0))]
pub(crate) fn import_json(
    kind: &str,
    path: &str,
    io_properties: Option<&str>,
    shards: u32,
    duration_s: f64,
) -> PyResult<String> {
    let named = |e: sluice_runtime::Error| fail(format!("{path}: {e}"));
    let imported = match kind {
        "dmclock" => {
            let text = import::read_input(path.as_ref(), "dmClock configuration").map_err(fail)?;
            import::dmclock::import(&text).map_err(named)?
        }
        "seastar" => {
            let Some(props) = io_properties else {
                return Err(fail(
                    "kind \"seastar\" needs io_properties (the io_properties.yaml file)",
                ));
            };
            if !(duration_s.is_finite() && (0.001..=1e7).contains(&duration_s)) {
                return Err(fail(format!(
                    "duration_s must be 0.001..=1e7 seconds (got {duration_s})"
                )));
            }
            let jobs = import::read_input(path.as_ref(), "io_tester job file").map_err(fail)?;
            let props = import::read_input(props.as_ref(), "io properties").map_err(fail)?;
            let opts = import::seastar::Options { shards, duration_s };
            import::seastar::import(&jobs, &props, &opts).map_err(named)?
        }
        _ => {
            return Err(fail(format!(
                "kind {kind:?}: sluice imports \"dmclock\" or \"seastar\""
            )))
        }
    };
    crate::json(&json!({"scenario": imported.scenario, "notes": imported.notes}))
}
