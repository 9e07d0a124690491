//! `sluice report` on a real result (`seeds/report/sim.json`: a run with a
//! timeline, CDFs and a finite flow) with values replaced as the input
//! says: structure-aware, so that every input is a result the report
//! reads, and the fuzzer explores values (negative, huge, tiny, out of
//! range, of another type) rather than JSON syntax. The input is records
//! of 11 bytes: a kind, a leaf's index (u16, little-endian, modulo the
//! leaves) and 8 bytes of value. An error or a page, never a panic nor a
//! hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use sluice_report::{render, Source};

const RUN: &str = include_str!("../seeds/report/sim.json");

/// How many leaves (non-container values) `v` has.
fn leaves(v: &Value) -> usize {
    match v {
        Value::Array(a) => a.iter().map(leaves).sum(),
        Value::Object(o) => o.values().map(leaves).sum(),
        _ => 1,
    }
}

/// Replace the `k`th leaf of `v` by `by`.
fn replace(v: &mut Value, k: &mut usize, by: &Value) -> bool {
    match v {
        Value::Array(a) => a.iter_mut().any(|x| replace(x, k, by)),
        Value::Object(o) => o.values_mut().any(|x| replace(x, k, by)),
        leaf => {
            if *k == 0 {
                *leaf = by.clone();
                return true;
            }
            *k -= 1;
            false
        }
    }
}

/// The value a record gives.
fn value(kind: u8, payload: [u8; 8]) -> Value {
    match kind % 4 {
        0 => serde_json::Number::from_f64(f64::from_le_bytes(payload))
            .map_or(Value::Null, Value::Number),
        1 => Value::from(i64::from_le_bytes(payload)),
        2 => Value::from(f64::from(i16::from_le_bytes([payload[0], payload[1]]))),
        _ => match payload[0] % 6 {
            0 => Value::Null,
            1 => Value::Bool(true),
            2 => Value::String(String::from_utf8_lossy(&payload).into_owned()),
            3 => Value::Array(vec![]),
            4 => serde_json::json!([[0, 1], [50, 2], [100]]),
            _ => serde_json::json!({}),
        },
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(mut run) = serde_json::from_str::<Value>(RUN) else {
        return;
    };
    let n = leaves(&run);
    let mut wrap = 0u8;
    for r in data.chunks_exact(11).take(16) {
        if r[0] == 0xff {
            wrap = r[1];
            continue;
        }
        let mut k = usize::from(u16::from_le_bytes([r[1], r[2]])) % n;
        let payload: [u8; 8] = r[3..11].try_into().unwrap_or_default();
        let by = value(r[0], payload);
        replace(&mut run, &mut k, &by);
    }
    let run = match wrap % 3 {
        0 => run,
        1 => Value::Array(vec![run.clone(), run]),
        _ => serde_json::json!({"schema": "sluice.versus/1", "runs": [
            {"engine": "sim", "scheduler": "bfq", "result": run}]}),
    };
    let source = Source {
        name: "r.json".to_string(),
        text: run.to_string(),
    };
    let _ = render(&[source]);
});
