use serde_json::json;

use super::*;

fn sim(timeline: bool) -> serde_json::Value {
    let mut v = json!({
        "schema": "sluice.sim/1", "scenario": "s<1>", "scheduler": "bfq", "device": "d",
        "flows": [
            {"name": "a&b", "weight": 100, "bytes": 1000, "mb_s": 1.0,
             "lat_ms": {"mean": 2.0, "p50": 1.0, "p95": 3.0, "p99": 4.0, "max": 5.0}},
            {"name": "c", "weight": 300, "bytes": 3000, "mb_s": 3.0,
             "lat_ms": {"mean": 2.0, "p50": 1.0, "p95": 3.0, "p99": 4.0, "max": 5.0,
                        "cdf": [[0.0, 0.5], [50.0, 1.0], [100.0, 5.0]]}}
        ]
    });
    if timeline {
        v["timeline"] = json!({"interval_s": 1.0, "flows": {"a&b": [1.0, 2.0], "c": [3.0, 3.0]}});
    }
    v
}

fn repro() -> serde_json::Value {
    json!({"schema": "sluice.repro/1", "paper": "bfq", "experiments": [
        {"id": "throughput", "title": "T", "rows": [
            {"scheduler": "bfq", "workload": "w", "metric": "aggregate", "unit": "MB/s", "ours": 80.0, "paper": 82.4},
            {"scheduler": "cfq", "workload": "w", "metric": "aggregate", "unit": "MB/s", "ours": 70.0, "paper": null}]}]})
}

fn html(values: &[serde_json::Value]) -> String {
    let mut r = Results::default();
    for v in values {
        input::add(&mut r, v).unwrap();
    }
    page(&r, &["x.json".into()]).unwrap()
}

#[test]
fn a_run_gets_its_table_and_figures() {
    let without = html(&[sim(false)]);
    let with = html(&[sim(true)]);
    // CDF and shares; the timeline adds throughput over time.
    assert_eq!(without.matches("<svg").count(), 2);
    assert_eq!(with.matches("<svg").count(), 3);
    assert!(with.contains("Throughput over time"));
    // Shares of bytes and of weight: 0.25 and 0.75 each.
    assert!(with.contains("<td>0.250</td><td>0.250</td>"), "{with}");
}

#[test]
fn names_are_escaped_and_nothing_is_fetched() {
    let h = html(&[sim(true), repro()]);
    assert!(h.contains("a&amp;b") && h.contains("s&lt;1&gt;"));
    assert!(!h.contains("<td class=\"l\">a&b"));
    for external in ["src=\"http", "href=\"http", "@import", "<script"] {
        assert!(!h.contains(external), "{external}");
    }
    assert!(h.starts_with("<!DOCTYPE html>") && h.ends_with("</html>\n"));
}

#[test]
fn an_experiment_shows_the_paper_beside_ours() {
    let h = html(&[repro()]);
    assert!(h.contains("<td>80.00</td><td>82.40</td>"), "{h}");
    assert!(h.contains("<td>70.00</td><td>-</td>"));
    // One chart, of the rows the paper gives.
    assert_eq!(h.matches("<svg").count(), 1);
    assert!(h.contains("ours against the paper"));
}

#[test]
fn arrays_and_versus_results_are_runs() {
    let versus = json!({"schema": "sluice.versus/1", "runs": [
        {"engine": "sim", "scheduler": "bfq", "result": sim(false)},
        {"engine": "kernel", "scheduler": "bfq", "result": sim(false)}]});
    let mut r = Results::default();
    input::add(&mut r, &json!([sim(false), sim(false)])).unwrap();
    input::add(&mut r, &versus).unwrap();
    assert_eq!(r.runs.len(), 4);
    assert_eq!(r.runs[3].kind, "kernel (bfq)");
}

#[test]
fn unknown_results_are_one_line_errors() {
    let mut r = Results::default();
    let e = input::add(&mut r, &json!({"schema": "other/1"}))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("unknown schema 'other/1'") && !e.contains('\n'),
        "{e}"
    );
    assert!(input::add(&mut r, &json!({"flows": []})).is_err());
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "not json").unwrap();
    let e = format!("{:#}", input::read(&[&bad]).unwrap_err());
    assert!(
        e.contains("bad.json") && e.contains("not a JSON result"),
        "{e}"
    );
}
