//! Scenarios as Python gives them: a file, a dict's JSON (read straight
//! into the scenario builder, no TOML in between), or a file's text that a
//! sweep carries to its tasks.

use pyo3::prelude::*;
use sluice_runtime::{overrides, Scenario};

use crate::fail;

/// Where a scenario comes from: exactly one of a file's path, a dict's
/// JSON or a file's TOML text, the last two named `name` (errors name it,
/// and relative paths in it resolve against its folder: a sweep's tasks may
/// run in another directory or on another machine).
#[derive(Clone, Copy)]
pub(crate) struct Source<'a> {
    pub(crate) path: Option<&'a str>,
    pub(crate) json_text: Option<&'a str>,
    pub(crate) toml_text: Option<&'a str>,
    pub(crate) name: Option<&'a str>,
}

impl<'a> Source<'a> {
    /// A file's path or a dict's JSON named `name`.
    pub(crate) fn of(
        path: Option<&'a str>,
        json_text: Option<&'a str>,
        name: Option<&'a str>,
    ) -> Self {
        Source {
            path,
            json_text,
            toml_text: None,
            name,
        }
    }
}

/// The scenario of `src`; `real`: for the real host (`[device]` may name
/// no model, as `sluice run` reads it).
pub(crate) fn read(src: Source<'_>, real: bool) -> PyResult<Scenario> {
    let name = src.name.unwrap_or("<dict>");
    match (src.path, src.json_text, src.toml_text, real) {
        (Some(p), None, None, false) => Scenario::load(p.as_ref()).map_err(fail),
        (Some(p), None, None, true) => Scenario::load_real(p.as_ref()).map_err(fail),
        (None, Some(j), None, _) => Scenario::from_json(name, j, real).map_err(fail),
        (None, None, Some(t), false) => Scenario::parse(name, t).map_err(fail),
        (None, None, Some(t), true) => Scenario::parse_real(name, t).map_err(fail),
        _ => Err(fail("give a scenario file or a scenario dict")),
    }
}

/// [`read`] for the simulator, with the overrides the CLI's `--seed` and
/// `--scheduler` apply (the same function).
pub(crate) fn simulated(
    src: Source<'_>,
    seed: Option<u64>,
    scheduler: Option<&str>,
) -> PyResult<Scenario> {
    let mut s = read(src, false)?;
    overrides::apply(&mut s, seed, scheduler)
        .map_err(|e| fail(format!("scheduler={}: {e}", scheduler.unwrap_or_default())))?;
    Ok(s)
}
