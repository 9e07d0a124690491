//! Results read back as they were written: `Deserialize` on the result
//! types gives a value that serializes to the same bytes, so embedders
//! (and `sluice report`) can read sluice's JSON as typed results.

use std::path::Path;

use serde_json::Value;
use sluice::Duration;
use sluice_runtime::report::SimReport;
use sluice_runtime::Scenario;
use sluice_sim::validate::ValidationReport;
use sluice_sim::Simulation;

/// `value` written and read back: the same JSON again, but for floats
/// serde_json's default parser may leave a last bit off (its
/// `float_roundtrip` feature makes them exact).
fn read_back<T: serde::Serialize + serde::de::DeserializeOwned>(value: &T) -> String {
    let json = serde_json::to_string_pretty(value).unwrap();
    let back: T = serde_json::from_str(&json).unwrap();
    let (a, b) = (
        serde_json::to_value(value).unwrap(),
        serde_json::to_value(&back).unwrap(),
    );
    assert!(same(&a, &b), "{json}");
    json
}

/// `a` and `b` alike, floats within a few units in the last place.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() && y.is_f64() => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            (x - y).abs() <= 4.0 * f64::EPSILON * x.abs().max(y.abs())
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.keys().eq(y.keys())
                && x.iter().zip(y).all(|((_, x), (_, y))| same(x, y))
        }
        _ => a == b,
    }
}

#[test]
fn a_simulated_run_reads_back_as_written() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/versus/startup-xterm-10r-seq.toml");
    let scenario = Scenario::load(&file).unwrap();
    let report = Simulation::new(&scenario)
        .unwrap()
        .with_timeline(Duration::from_millis(1000))
        .run();
    let json = read_back(&report);
    // Every optional part that this run writes is there to read back.
    assert!(json.contains("\"timeline\"") && json.contains("\"startup_s\": "));
    let back: SimReport = serde_json::from_str(&json).unwrap();
    assert_eq!(back.flows.len(), report.flows.len());
}

#[test]
fn a_result_of_another_schema_is_refused_by_name() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/1r-seq.toml");
    let report = Simulation::new(&Scenario::load(&file).unwrap())
        .unwrap()
        .run();
    let json = serde_json::to_string(&report)
        .unwrap()
        .replace("\"sluice.sim/1\"", "\"sluice.repro/1\"");
    let e = serde_json::from_str::<SimReport>(&json)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("schema 'sluice.repro/1' is not sluice.sim/1 or sluice.run/1"),
        "{e}"
    );
    // `sluice run`'s results are the same type.
    let run = json.replace("\"sluice.repro/1\"", "\"sluice.run/1\"");
    let back = serde_json::from_str::<SimReport>(&run).unwrap();
    assert_eq!(back.schema, "sluice.run/1");
}

#[test]
fn a_validation_reads_back_as_written() {
    let report = ValidationReport {
        schema: sluice_sim::validate::VALIDATE_SCHEMA,
        disk: "d".into(),
        requests: 3,
        demerit_ms: 0.125,
        mean_measured_ms: 4.5,
        mean_sim_ms: 4.25,
        perf: sluice_runtime::report::Perf {
            events: 9,
            wall_s: 0.5,
            requests_per_wall_s: 6.0,
        },
    };
    read_back(&report);
}
