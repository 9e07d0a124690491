//! What a scenario may name: the policies and their parameter tables, as
//! `sluice list` prints them.

use pyo3::prelude::*;
use serde_json::{json, Value};
use sluice::policy::{ParamKind, ParamSpec, POLICIES};

/// Every policy with its parameters, in `sluice list`'s order: a JSON
/// array of `{"name", "summary", "params": [{"name", "type", "default",
/// "min", "max", "options", "doc", "note"}]}` (`min`/`max` for numbers,
/// `options` for choices).
#[pyfunction]
pub(crate) fn policies_json() -> PyResult<String> {
    let list: Vec<Value> = POLICIES
        .iter()
        .map(|p| {
            let params: Vec<Value> = p.params.specs.iter().map(param).collect();
            json!({"name": p.name, "summary": p.summary, "params": params})
        })
        .collect();
    crate::json(&list)
}

/// One row of a parameter table.
fn param(s: &ParamSpec) -> Value {
    let mut row = match s.kind {
        ParamKind::Bool(d) => json!({"type": "bool", "default": d}),
        ParamKind::Int { default, min, max } => {
            json!({"type": "int", "default": default, "min": min, "max": max})
        }
        ParamKind::Float { default, min, max } => {
            json!({"type": "float", "default": default, "min": min, "max": max})
        }
        ParamKind::Choice { default, options } => {
            json!({"type": "choice", "default": default, "options": options})
        }
    };
    row["name"] = s.name.into();
    row["doc"] = s.doc.into();
    row["note"] = s.note.into();
    row
}
