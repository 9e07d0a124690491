//! Fuzzing of `sluice report`'s inputs in `cargo test`, bounded in time:
//! no JSON result or request log makes the reader or the page panic or
//! hang, and every refusal is one line naming the source. Inputs are a
//! simulated run's JSON (with its timeline and CDFs) with one number made
//! awkward or one value of another type, `compare` arrays and `versus`
//! results of it, and request logs of generated rows. `fuzz/` has the
//! cargo-fuzz target (`report`) for long runs.

use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::Value;
use sluice_report::{render, Source};

/// Longest one page may take in a debug build.
const CASE_LIMIT: Duration = Duration::from_secs(10);

/// The largest magnitude generated: up to f64::MAX (issue 43 defect 6:
/// values near it hung the report, subnormal ones too, and large negative
/// ones panicked a debug build in plotters).
const LARGEST: f64 = f64::MAX;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        max_shrink_iters: 200,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// A short simulated run with a timeline, as `sim --json --timeline`
/// writes it: a greedy reader and a finite one, under bfq.
fn sim_json() -> Value {
    static RUN: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    RUN.get_or_init(simulate).clone()
}

fn simulate() -> Value {
    let scenario = sluice_runtime::Scenario::parse(
        "small.toml",
        "name = \"small\"\nseed = 1\nduration_s = 0.5\nwarmup_s = 0.1\n[device]\npreset = \"ssd-sata\"\n\
         [scheduler]\nname = \"bfq\"\n[[flow]]\nname = \"a\"\npattern = \"rand-read\"\nfile_gib = 1\nweight = 300\n\
         [[flow]]\nname = \"b\"\npattern = \"seq-read\"\nfile_gib = 1\nrequests = 20\n",
    )
    .unwrap();
    let report = sluice_sim::Simulation::new(&scenario)
        .unwrap()
        .with_timeline(sluice::Duration::from_millis(100))
        .run();
    serde_json::to_value(report).unwrap()
}

/// Awkward numbers: huge, subnormal, negative, past a percentile's or a
/// whole number's range.
fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => prop::sample::select(&[0.0, -0.0, 0.5, 1e-300, 5e-323, 1e-309, 101.0, 1e12, 1e30,
            1e308, f64::MAX, -1.0, -673192252.0, -1e308,
            4294967296.0, 9007199254740993.0][..]).prop_map(Value::from),
        1 => (-LARGEST..LARGEST).prop_map(Value::from),
        1 => prop::sample::select(&[u64::MAX, 1 << 63, 0][..]).prop_map(Value::from),
        1 => (0..i64::MAX).prop_map(Value::from),
    ]
}

/// A value of any type, to put where a number or a list was.
fn other_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        Just(Value::Bool(true)),
        Just(Value::String("x".into())),
        Just(Value::String("<b>&".into())),
        Just(Value::Array(vec![])),
        Just(serde_json::json!([[0, 1], [100]])),
        Just(serde_json::json!({})),
        number(),
    ]
}

/// The number of leaves (non-container values) of `v` (its numbers only,
/// when `numbers_only`).
fn leaves(v: &Value, numbers_only: bool) -> usize {
    match v {
        Value::Array(a) => a.iter().map(|x| leaves(x, numbers_only)).sum(),
        Value::Object(o) => o.values().map(|x| leaves(x, numbers_only)).sum(),
        leaf => usize::from(!numbers_only || leaf.is_number()),
    }
}

/// `v` with its `k`th leaf replaced by `by` (its numbers only, when
/// `numbers_only`).
fn replace_leaf(v: &mut Value, k: &mut usize, by: &Value, numbers_only: bool) -> bool {
    match v {
        Value::Array(a) => a.iter_mut().any(|x| replace_leaf(x, k, by, numbers_only)),
        Value::Object(o) => o.values_mut().any(|x| replace_leaf(x, k, by, numbers_only)),
        leaf => {
            if numbers_only && !leaf.is_number() {
                return false;
            }
            if *k == 0 {
                *leaf = by.clone();
                return true;
            }
            *k -= 1;
            false
        }
    }
}

/// Render `sources`: a page, or a one-line refusal naming one of them.
fn check(sources: &[Source]) -> Result<(), TestCaseError> {
    let start = Instant::now();
    match render(sources) {
        Ok(page) => prop_assert!(page.starts_with("<!DOCTYPE html>")),
        Err(e) => {
            let m = e.to_string();
            prop_assert!(!m.contains('\n') && !m.trim().is_empty(), "{m:?}");
            prop_assert!(
                sources.iter().any(|s| m.contains(&s.name)) || m.starts_with("no runs"),
                "{m}"
            );
        }
    }
    prop_assert!(start.elapsed() < CASE_LIMIT, "{:?}", start.elapsed());
    Ok(())
}

fn json(name: &str, v: &Value) -> Source {
    Source {
        name: name.to_string(),
        text: serde_json::to_string_pretty(v).unwrap(),
    }
}

proptest! {
    #![proptest_config(config(64))]

    /// A run with one number made awkward (huge, tiny, zero, past a
    /// whole number's range), alone, in a `compare` array or a `versus` result.
    #[test]
    fn a_result_with_an_awkward_number_draws_or_is_refused(
        which in any::<Index>(),
        by in number(),
        wrap in 0usize..3,
    ) {
        let mut v = sim_json();
        let mut k = which.index(leaves(&v, true));
        replace_leaf(&mut v, &mut k, &by, true);
        let v = match wrap {
            0 => v,
            1 => Value::Array(vec![v.clone(), v]),
            _ => serde_json::json!({"schema": "sluice.versus/1", "runs": [
                {"engine": "sim", "scheduler": "bfq", "result": v}]}),
        };
        check(&[json("r.json", &v)])?;
    }

    /// A run with one value of another type: null, a string, a list, an
    /// object where a number was, and so on.
    #[test]
    fn a_result_with_a_value_of_another_type_draws_or_is_refused(which in any::<Index>(), by in other_value()) {
        let mut v = sim_json();
        let mut k = which.index(leaves(&v, false));
        replace_leaf(&mut v, &mut k, &by, false);
        check(&[json("r.json", &v)])?;
    }
}

/// A request log's field: plausible or awkward.
fn log_field() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (0u32..5000).prop_map(|x| x.to_string()),
        3 => (0u32..5000, 0u32..1000).prop_map(|(a, b)| format!("{a}.{b:03}")),
        2 => prop::sample::select(&["a", "b", "\"a,b\"", "\"q\"\"\"", "R", "W", "1", "0", "", "-5", "nan",
            "inf", "9e11", "1e13", "18446744073709551616", "\u{202e}", "\""][..]).prop_map(str::to_string),
    ]
}

/// A row: a flow, then fields (mostly nine in all).
fn log_row() -> impl Strategy<Value = String> {
    (
        prop::sample::select(&["a", "b", "c", "\"a,b\""][..]),
        prop_oneof![6 => Just(8usize), 1 => 0usize..12],
        prop::collection::vec(log_field(), 12),
    )
        .prop_map(|(flow, n, fields)| {
            let mut row = vec![flow.to_string()];
            row.extend(fields.into_iter().take(n));
            row.join(",")
        })
}

proptest! {
    #![proptest_config(config(64))]

    /// Request logs of generated rows (header lines again among them,
    /// times going back, quoted names, bad fields), one or two, beside a
    /// run or not.
    #[test]
    fn generated_request_logs_draw_or_are_refused(
        logs in prop::collection::vec(prop::collection::vec(prop_oneof![
            12 => log_row(),
            1 => Just(sluice_sim::RequestRecord::CSV_HEADER.to_string()),
            1 => Just(String::new()),
        ], 0..60), 1..3),
        header in prop::bool::weighted(0.9),
        with_run in any::<bool>(),
        crlf in any::<bool>(),
    ) {
        let mut sources: Vec<Source> = logs
            .iter()
            .enumerate()
            .map(|(i, rows)| {
                let mut lines = Vec::new();
                if header || i > 0 {
                    lines.push(sluice_sim::RequestRecord::CSV_HEADER.to_string());
                }
                lines.extend(rows.iter().cloned());
                Source {
                    name: format!("log{i}.csv"),
                    text: lines.join(if crlf { "\r\n" } else { "\n" }),
                }
            })
            .collect();
        if with_run {
            sources.push(json("r.json", &sim_json()));
        }
        check(&sources)?;
    }
}
