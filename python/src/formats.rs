//! Other tools' formats: dmClock's and Seastar's test configurations as
//! scenarios, fio job files simulated into fio's own JSON, and results
//! drawn as the HTML report.

use pyo3::prelude::*;
use serde_json::json;
use sluice_runtime::import::{self, fio};

use crate::fail;

/// Simulate a fio job file as `sluice fio FILE --output-format json` does:
/// under `scheduler` (default noop), on `device` (a preset's name or a
/// `.diskspecs` file; default the BFQ paper's disk), each group cut to
/// `max_duration_s`. Returns fio's JSON layout, keys in fio's order.
#[pyfunction]
#[pyo3(signature = (path, scheduler=None, device=None, max_duration_s=None))]
pub(crate) fn fio_json(
    py: Python<'_>,
    path: &str,
    scheduler: Option<&str>,
    device: Option<&str>,
    max_duration_s: Option<f64>,
) -> PyResult<String> {
    let target = match device {
        None => fio::Target::default(),
        Some(d) if sluice_sim::device::presets::names_a_file(d) => fio::Target::Diskspecs(d.into()),
        Some(d) => fio::Target::Preset(d.into()),
    };
    let options = fio::FioOptions {
        scheduler: scheduler.map(Into::into),
        target,
        max_duration_s,
    };
    py.detach(|| {
        fio::simulate_json(path.as_ref(), &options, |s, bin| {
            let sim = sluice_sim::Simulation::new(s)?;
            Ok::<_, sluice_runtime::Error>(match bin {
                Some(b) => sim.with_timeline(b).run(),
                None => sim.run(),
            })
        })
    })
    .map_err(fail)
}

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
            let text =
                import::read_input(path.as_ref(), import::Kind::DmClockConfig).map_err(fail)?;
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
            let jobs =
                import::read_input(path.as_ref(), import::Kind::SeastarJobs).map_err(fail)?;
            let props =
                import::read_input(props.as_ref(), import::Kind::IoProperties).map_err(fail)?;
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

/// The HTML page `sluice report` draws from `sources`: (name, text) pairs,
/// each a JSON result or a request log's CSV (a name ending in `.csv`, or
/// a text starting with the log's header).
#[pyfunction]
pub(crate) fn report_html(py: Python<'_>, sources: Vec<(String, String)>) -> PyResult<String> {
    let sources: Vec<sluice_report::Source> = sources
        .into_iter()
        .map(|(name, text)| sluice_report::Source { name, text })
        .collect();
    py.detach(|| sluice_report::render(&sources)).map_err(fail)
}

/// A file's text as sluice reads its `kind` ("scenario", "report" or
/// "request-log"): through the bounded reader, so a FIFO, a device, a
/// folder or a file past the kind's cap is refused at once instead of
/// hanging or filling the memory of Python's own `open()`.
#[pyfunction]
pub(crate) fn read_text(py: Python<'_>, path: &str, kind: &str) -> PyResult<String> {
    let kind = match kind {
        "scenario" => sluice_input::Kind::Scenario,
        "report" => sluice_input::Kind::ReportJson,
        "request-log" => sluice_input::Kind::RequestLog,
        other => return Err(fail(format!("no kind of input called {other:?}"))),
    };
    py.detach(|| sluice_input::read_text(path.as_ref(), kind))
        .map_err(fail)
}
