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

#[test]
fn timeline_series_follow_the_flows_order() {
    // serde_json sorts an object's keys: "c" would come before "z".
    let mut v = sim(true);
    v["flows"][0]["name"] = json!("z");
    v["timeline"] = json!({"interval_s": 0.5, "flows": {"c": [3.0], "z": [1.0]}});
    v["measured_from_s"] = json!(2.0);
    let mut r = Results::default();
    input::add(&mut r, &v).unwrap();
    let (interval, series) = r.runs[0].timeline.clone().unwrap();
    assert_eq!(interval, 0.5);
    let names: Vec<&str> = series.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["z", "c"]);
    assert_eq!(r.runs[0].warmup_s, 2.0);
}

#[test]
fn a_coarse_cdf_is_said_to_be_one() {
    // Flow "a&b" has only p50/p95/p99/max: four points, and the caption says so.
    let mut r = Results::default();
    input::add(&mut r, &sim(false)).unwrap();
    let flows = &r.runs[0].flows;
    assert!(flows[0].coarse && !flows[1].coarse);
    assert_eq!(
        flows[0].cdf,
        vec![(50.0, 1.0), (95.0, 3.0), (99.0, 4.0), (100.0, 5.0)]
    );
    assert_eq!(flows[1].cdf.len(), 3);
    assert!(html(&[sim(false)]).contains("only p50, p95, p99 and max"));
    let mut full = sim(false);
    full["flows"][0]["lat_ms"]["cdf"] = json!([[0.0, 0.5], [100.0, 5.0]]);
    assert!(!html(&[full]).contains("only p50, p95, p99 and max"));
}

#[test]
fn sections_are_listed_and_linked_within_the_page() {
    let h = html(&[sim(false), repro()]);
    assert!(h.contains("<h2 id=\"run-1\">") && h.contains("<a href=\"#run-1\">"));
    assert!(h.contains("<h3 id=\"bfq-throughput\">") && h.contains("href=\"#bfq-throughput\""));
    // Every link stays on the page.
    assert_eq!(h.matches("href=\"").count(), h.matches("href=\"#").count());
    // One section alone needs no list.
    assert!(!html(&[sim(false)]).contains("<nav>"));
}

#[test]
fn an_experiment_without_the_papers_numbers_charts_ours_alone() {
    let v = json!({"schema": "sluice.repro/1", "paper": "bfq", "experiments": [
        {"id": "startup", "title": "S", "rows": [
            {"scheduler": "bfq", "workload": "w", "metric": "xterm", "unit": "s", "ours": 1.5, "paper": null}]}]});
    let h = html(&[v]);
    assert_eq!(h.matches("<svg").count(), 1);
    assert!(h.contains("the paper gives no number"));
    // The chart's key names only our series.
    let svg = &h[h.find("<svg").unwrap()..h.find("</svg>").unwrap()];
    assert!(
        svg.contains(">\nours\n<") && !svg.contains(">\npaper\n<"),
        "{svg}"
    );
}

#[test]
fn long_labels_keep_both_ends() {
    assert_eq!(plots::short("reader0", 16), "reader0");
    let s = plots::short("bfq+ raised_idle_factor=1 · idle · xterm", 20);
    assert_eq!(s.chars().count(), 20);
    assert!(
        s.starts_with("bfq+ rais") && s.ends_with("· xterm") && s.contains('…'),
        "{s}"
    );
}
