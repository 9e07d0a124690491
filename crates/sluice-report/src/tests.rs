use serde_json::json;

use super::*;
use crate::input::Results;

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

/// `v` with the fields a test leaves out filled in (zero, empty, one
/// request a flow), so that each test writes only what it is about.
fn complete(v: &serde_json::Value) -> serde_json::Value {
    fn fill(v: &mut serde_json::Value, defaults: serde_json::Value) {
        if let (Some(o), serde_json::Value::Object(d)) = (v.as_object_mut(), defaults) {
            for (k, x) in d {
                o.entry(k).or_insert(x);
            }
        }
    }
    let mut v = v.clone();
    if let Some(items) = v.as_array_mut() {
        for item in items {
            *item = complete(item);
        }
        return v;
    }
    match v["schema"].as_str().unwrap_or("") {
        "sluice.sim/1" | "sluice.run/1" => {
            let aggregate = json!({"mb_s": 0.0, "read_mb_s": 0.0, "write_mb_s": 0.0, "iops": 0.0, "requests": 0});
            let perf = json!({"events": 0, "wall_s": 0.0, "requests_per_wall_s": 0.0});
            fill(
                &mut v,
                json!({"scenario": "", "scheduler": "", "device": "", "seed": 0, "sim_time_s": 0.0,
                       "measured_from_s": 0.0, "aggregate": aggregate, "flows": [], "perf": perf}),
            );
            for f in v["flows"].as_array_mut().into_iter().flatten() {
                fill(
                    f,
                    json!({"name": "", "weight": 100, "requests": 1, "bytes": 0, "mb_s": 0.0,
                           "disk_time_s": 0.0, "lat_ms": {}, "over_1s": 0}),
                );
                fill(
                    &mut f["lat_ms"],
                    json!({"mean": 0.0, "p50": 0.0, "p95": 0.0, "p99": 0.0, "max": 0.0}),
                );
            }
        }
        "sluice.repro/1" => {
            fill(&mut v, json!({"paper": "", "experiments": []}));
            for e in v["experiments"].as_array_mut().into_iter().flatten() {
                fill(
                    e,
                    json!({"paper": "", "id": "", "title": "", "notes": "", "rows": []}),
                );
                for r in e["rows"].as_array_mut().into_iter().flatten() {
                    fill(
                        r,
                        json!({"scheduler": "", "workload": "", "metric": "", "unit": "", "paper": null}),
                    );
                }
            }
        }
        "sluice.versus/1" => {
            for r in v["runs"].as_array_mut().into_iter().flatten() {
                r["result"] = complete(&r["result"]);
            }
        }
        _ => {}
    }
    v
}

/// [`input::add`] of `v` completed.
fn add(r: &mut Results, v: &serde_json::Value) -> std::result::Result<(), String> {
    input::add(r, &complete(v))
}

fn html(values: &[serde_json::Value]) -> String {
    let mut r = Results::default();
    for v in values {
        add(&mut r, v).unwrap();
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
    add(&mut r, &json!([sim(false), sim(false)])).unwrap();
    add(&mut r, &versus).unwrap();
    assert_eq!(r.runs.len(), 4);
    assert_eq!(r.runs[3].kind, "kernel (bfq)");
}

#[test]
fn unknown_results_are_one_line_errors() {
    let mut r = Results::default();
    let e = add(&mut r, &json!({"schema": "other/1"}))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("unknown schema 'other/1'") && !e.contains('\n'),
        "{e}"
    );
    assert!(add(&mut r, &json!({"flows": []})).is_err());
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "not json").unwrap();
    let e = format!("{:#}", input::read_files(&[&bad]).unwrap_err());
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
    add(&mut r, &v).unwrap();
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
    add(&mut r, &sim(false)).unwrap();
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

// Request logs: reading, the run-length statistic, the panels.

/// A request log's text: the header, then `rows`.
fn log_text(rows: &[&str]) -> String {
    let mut t = format!("{}\n", requests::HEADER);
    for r in rows {
        t.push_str(r);
        t.push('\n');
    }
    t
}

/// A row of flow `flow` on the device from `d` to `c` ms.
fn req(flow: &str, d: f64, c: f64) -> String {
    format!("{flow},0,R,1,8,8,{d},{d},{c}")
}

fn log(name: &str, rows: &[String]) -> requests::Log {
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    requests::parse(name, &log_text(&rows)).unwrap()
}

fn page_of_logs(logs: Vec<requests::Log>) -> String {
    let r = Results {
        logs,
        ..Results::default()
    };
    page(&r, &["a.csv".into()]).unwrap()
}

#[test]
fn a_request_log_reads_quoted_names_and_counts_bad_rows() {
    let text = log_text(&[
        "\"a,b\",0,R,1,8,8,0.5,1.0,2.0",
        "\"say \"\"hi\"\"\",1,W,0,16,8,1.0,2.0,3.0",
        "\"two\nlines\",0,R,1,8,8,2.0,3.0,4.0",
        "plain,0,R,1,8,8,3.0,4.0,5.0\r",
        "plain,0,X,1,8,8,3.0,4.0,5.0",
        "plain,0,R,1,8",
        "plain,0,R,1,8,8,3.0,6.0,5.0",
        "\"open,0,R,1,8,8,3.0,4.0,5.0",
        "plain,0,R,1,8,8,3.0,5.0,nan",
        "plain,0,R,1,8,8,3.0,5.0,1e300",
        "",
        "plain,0,R,1,8,8,5.0,5.5,6.0",
    ]);
    let l = requests::parse("x.csv", &text).unwrap();
    assert_eq!(l.flows, ["a,b", "say \"hi\"", "two\nlines", "plain"]);
    assert_eq!(l.runs.len(), 1);
    assert_eq!(l.runs[0].len(), 5);
    assert_eq!(
        l.runs[0][1],
        requests::Request {
            flow: 1,
            dispatched_ms: 2.0,
            completed_ms: 3.0
        }
    );
    // Bad: dir X, 5 fields, completed before dispatched, an unclosed
    // quote, a NaN, a time past any run; the blank line is no row.
    assert_eq!(l.bad_rows, 6, "{l:?}");
    // The quoted line break counts: "plain...X" is on line 7.
    assert_eq!(l.first_bad.as_deref(), Some("line 7: dir is not R or W"));
    // The page says so.
    let h = page_of_logs(vec![l]);
    assert!(
        h.contains(
            "6 rows could not be read and are left out (the first: line 7: dir is not R or W)"
        ),
        "{h}"
    );
}

#[test]
fn a_wrong_header_is_a_one_line_error_naming_the_file() {
    let e = requests::parse("runs/x.csv", "flow,dir\nf,R\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("runs/x.csv") && e.contains("not a request log") && !e.contains('\n'),
        "{e}"
    );
    assert!(requests::parse("e.csv", "").is_err());
    // Through the file reader too, and a file too large is refused unread.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "time,flow\n1,a\n").unwrap();
    let e = format!("{:#}", input::read_files(&[&bad]).unwrap_err());
    assert!(e.contains("bad.csv") && !e.contains('\n'), "{e}");
    let big = dir.path().join("big.csv");
    std::fs::File::create(&big)
        .and_then(|f| f.set_len(sluice_input::Kind::RequestLog.cap() + 1))
        .unwrap();
    let e = format!("{:#}", input::read_files(&[&big]).unwrap_err());
    assert!(e.contains("a request log may be at most 256 MiB"), "{e}");
    // Too many rows: one line, the file named.
    let text = log_text(&[
        "a,0,R,1,8,8,0,0,1",
        "a,0,R,1,8,8,0,1,2",
        "a,0,R,1,8,8,0,2,3",
    ]);
    assert!(requests::parse_at_most("l.csv", &text, 3).is_ok());
    let e = requests::parse_at_most("l.csv", &text, 2)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("l.csv: more than 2 rows") && !e.contains('\n'),
        "{e}"
    );
}

#[test]
fn logs_and_json_results_mix_in_one_report() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("run.json");
    std::fs::write(&json, complete(&sim(false)).to_string()).unwrap();
    let csv = dir.path().join("a.csv");
    std::fs::write(&csv, log_text(&["r,0,R,1,8,8,0,0,1"])).unwrap();
    // Not named .csv, but its first line is the header.
    let sniffed = dir.path().join("b.log");
    std::fs::write(&sniffed, log_text(&["r,0,R,1,8,8,0,0,1"])).unwrap();
    let r = input::read_files(&[&json, &csv, &sniffed]).unwrap();
    assert_eq!((r.runs.len(), r.logs.len()), (1, 2));
    let h = page(&r, &[]).unwrap();
    assert!(h.contains("<a href=\"#service-order\">Service order (2 request logs)</a>"));
    assert!(h.contains("<h2 id=\"service-order\">Service order</h2>"));
    // The run's CDF and shares, and a panel per log.
    assert_eq!(h.matches("<svg").count(), 4);
}

#[test]
fn runs_of_dispatches_from_one_flow_are_counted_in_dispatch_order() {
    // Dispatch order a a a b a b b (the file is in completion order, not
    // dispatch order): runs aaa, b, a, bb.
    let l = log(
        "s.csv",
        &[
            req("a", 0.0, 1.0),
            req("a", 1.0, 2.0),
            req("b", 3.0, 4.0),
            req("a", 2.0, 4.5),
            req("a", 4.0, 5.0),
            req("b", 5.0, 6.0),
            req("b", 6.0, 7.0),
        ],
    );
    let s = service::streaks(&l.runs[0]).unwrap();
    assert_eq!(s.mean, 7.0 / 4.0);
    assert_eq!(
        (s.longest, l.flows[s.longest_flow as usize].as_str()),
        (3, "a")
    );
    assert_eq!(service::streaks(&[]), None);
    // Busy 0..7 but for 4.5..4.0 overlap: all of it.
    assert!((service::busy_share(&l.runs[0]) - 1.0).abs() < 1e-12);
    let h = page_of_logs(vec![l]);
    assert!(
        h.contains(
            "7 requests, 2 flows. Consecutive dispatches from one flow: mean 1.8, longest 3 (a)."
        ),
        "{h}"
    );
}

#[test]
fn two_logs_draw_two_panels_on_one_axis_with_every_lane() {
    let a = log(
        "bfq.csv",
        &[
            req("r1", 0.0, 1000.0),
            req("xterm<1>", 1000.0, 1200.0),
            req("r10", 1200.0, 2000.0),
            req("r2", 2000.0, 3000.0),
        ],
    );
    let b = log(
        "noop.csv",
        &[
            req("r1", 0.0, 500.0),
            req("r2", 600.0, 1500.0),
            req("xterm<1>", 1500.0, 1600.0),
        ],
    );
    let h = page_of_logs(vec![a, b]);
    let svgs: Vec<&str> = h.split("<svg").skip(1).collect();
    assert_eq!(svgs.len(), 2);
    assert!(svgs[0].contains(">bfq.csv</text>") && svgs[1].contains(">noop.csv</text>"));
    for (svg, flows) in svgs.iter().zip([
        &["xterm&lt;1&gt;", "r1", "r2", "r10"][..],
        &["xterm&lt;1&gt;", "r1", "r2"],
    ]) {
        // Every flow's lane label, in order: the start-up first, then r2
        // before r10.
        let at: Vec<usize> = flows
            .iter()
            .map(|f| {
                svg.find(&format!(">{f}</text>"))
                    .unwrap_or_else(|| panic!("{f}: {svg}"))
            })
            .collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{flows:?} {at:?}");
    }
    // One axis: both panels run to 3 s and tick at the same places.
    let ticks = |svg: &str| svg.matches("text-anchor=\"middle\">").count();
    assert_eq!(ticks(svgs[0]), ticks(svgs[1]));
    assert!(svgs[1].contains(">3</text>") && svgs[1].contains("(s)</text>"));
}

#[test]
fn a_log_of_several_runs_draws_each_as_a_panel() {
    let mut rows = Vec::new();
    for _ in 0..(order::MAX_RUN_PANELS + 2) {
        rows.extend([req("a", 0.0, 300.0), req("b", 300.0, 900.0)]);
    }
    let l = log("many.csv", &rows);
    assert_eq!(l.runs.len(), order::MAX_RUN_PANELS + 2);
    let h = page_of_logs(vec![l]);
    assert_eq!(h.matches("<svg").count(), order::MAX_RUN_PANELS);
    assert!(h.contains("many.csv (run 2 of 6)"));
    assert!(h.contains("It holds 6 runs (times restart near zero): the first 4 are drawn"));
    // A header again starts a run too; a trailing one starts none.
    let text = log_text(&[
        "a,0,R,1,8,8,0,0,1",
        requests::HEADER,
        "a,0,R,1,8,8,0,5,6",
        requests::HEADER,
    ]);
    assert_eq!(requests::parse("h.csv", &text).unwrap().runs.len(), 2);
}

#[test]
fn past_forty_flows_the_busiest_are_drawn_and_the_rest_counted() {
    let mut rows = Vec::new();
    let mut t = 0.0;
    for f in 0..45 {
        for _ in 0..(f + 2) {
            rows.push(req(&format!("f{f}"), t, t + 1.0));
            t += 1.0;
        }
    }
    // A start-up with one request is drawn even so, on top.
    rows.push(req("xterm", t, t + 1.0));
    let l = log("wide.csv", &rows);
    let lanes = service::lanes(&l.runs[0], &l.flows);
    assert_eq!(lanes.flows.len(), service::MAX_LANES);
    assert_eq!(lanes.not_drawn, 6);
    assert_eq!(l.flows[lanes.flows[0] as usize], "xterm");
    // The quietest (f0..f5) are the ones left out.
    let drawn: Vec<&str> = lanes
        .flows
        .iter()
        .map(|&f| l.flows[f as usize].as_str())
        .collect();
    assert!(!drawn.contains(&"f5") && drawn.contains(&"f6"), "{drawn:?}");
    let h = page_of_logs(vec![l]);
    assert!(h.contains("46 flows (6 more flows not drawn"), "{h}");
}

#[test]
fn a_crowded_lane_merges_bars_under_a_pixel_apart() {
    let n = lanes::MERGE_ABOVE + 1000;
    let rows: Vec<String> = (0..n)
        .map(|i| req("busy", i as f64 * 0.1, i as f64 * 0.1 + 0.05))
        .chain([req("quiet", 0.0, 1.0)])
        .collect();
    let h = page_of_logs(vec![log("crowd.csv", &rows)]);
    assert!(
        h.contains("1 lane of more than 5000 requests: bars under a pixel apart merged"),
        "{}",
        &h[h.len().saturating_sub(2000)..]
    );
    // Far fewer bars than requests.
    assert!(h.matches('z').count() < 1000, "{}", h.matches('z').count());
}

#[test]
fn no_text_makes_the_log_reader_or_the_page_panic() {
    // Every short string over the characters that steer the parser.
    let alphabet = [
        ",",
        "\"",
        "\n",
        "\r",
        "a",
        "1",
        "R",
        ".",
        "é",
        "-5",
        "9e11",
        ",0,R,1,8,8,",
    ];
    let mut seed = 7u64;
    for _ in 0..3000 {
        let mut body = String::new();
        for _ in 0..(seed % 40) {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            body.push_str(alphabet[(seed >> 33) as usize % alphabet.len()]);
        }
        let text = format!("{}\n{body}", requests::HEADER);
        if let Ok(l) = requests::parse("f.csv", &text) {
            let _ = page_of_logs(vec![l]);
        }
    }
    // Nothing but a header: one empty panel.
    let h = page_of_logs(vec![requests::parse("e.csv", requests::HEADER).unwrap()]);
    assert!(h.contains("no requests") && h.contains("0 requests, 0 flows."));
}

// What matters is shown and nothing is hidden.

/// Each inline SVG's `<text>` contents, trimmed, as the acceptance reads
/// them.
fn svg_texts(h: &str) -> Vec<Vec<String>> {
    h.split("<svg")
        .skip(1)
        .map(|svg| {
            let svg = svg.split("</svg>").next().unwrap_or("");
            svg.split("<text")
                .skip(1)
                .filter_map(|t| {
                    let body = &t[t.find('>')? + 1..];
                    Some(body[..body.find("</text>")?].trim().to_string())
                })
                .collect()
        })
        .collect()
}

/// A sim result of `n` readers r0.. and, if `xterm`, a start-up flow
/// after them, with a timeline.
fn many(n: usize, xterm: bool) -> serde_json::Value {
    let mut flows: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            json!({"name": format!("r{i}"), "weight": 100, "bytes": 7000000, "mb_s": 7.0,
                   "lat_ms": {"mean": 2.0, "p50": 1.0, "p95": 3.0, "p99": 4.0, "max": 5.0},
                   "done_s": null, "startup_s": null, "frames": null})
        })
        .collect();
    let mut timeline = serde_json::Map::new();
    for i in 0..n {
        timeline.insert(format!("r{i}"), json!([7.0, 7.5, 6.5, 7.0]));
    }
    if xterm {
        flows.push(
            json!({"name": "xterm", "weight": 100, "bytes": 6000000, "mb_s": 0.3,
            "lat_ms": {"mean": 7.0, "p50": 5.0, "p95": 9.0, "p99": 16.0, "max": 20.0},
            "done_s": 2.157, "startup_s": 2.157, "startups": 1}),
        );
        timeline.insert("xterm".into(), json!([0.0, 0.3, 0.2, 0.0]));
    }
    json!({"schema": "sluice.sim/1", "scenario": "twelve", "scheduler": "bfq+", "device": "d",
           "measured_from_s": 0.0, "flows": flows,
           "timeline": {"interval_s": 0.25, "flows": timeline}})
}

#[test]
fn thirty_flows_are_all_drawn_in_every_figure_of_flows() {
    let h = html(&[many(30, false)]);
    let pics = svg_texts(&h);
    // CDF, throughput, shares: each names every flow.
    assert_eq!(pics.len(), 3);
    for texts in &pics {
        for i in 0..30 {
            assert!(
                texts.contains(&format!("r{i}")),
                "r{i} missing from {texts:?}"
            );
        }
    }
    assert!(!h.contains("more are not drawn"));
    // Past the most a chart draws, the page says how many more, and the
    // table still has every one.
    let h = html(&[many(plots::MAX_LINES + 5, false)]);
    assert!(h.contains("5 more are not drawn"), "{h}");
    let last = format!("<td class=\"l\">r{}</td>", plots::MAX_LINES + 4);
    assert!(h.contains(&last));
}

#[test]
fn a_finite_flow_is_drawn_first_and_its_time_given() {
    let h = html(&[many(12, true)]);
    // The start-up time in the text, the table and a chart of its own.
    assert!(h.contains("<b>xterm</b>: start-up time 2.16 s"), "{h}");
    assert!(h.contains("<tr class=\"finite\"><td class=\"l\">xterm</td>"));
    let table = &h[h.find("<table>").unwrap()..];
    assert!(table.find(">xterm<").unwrap() < table.find(">r0<").unwrap());
    let pics = svg_texts(&h);
    // Times, CDF, throughput, shares: xterm in each, before r0.
    assert_eq!(pics.len(), 4);
    assert!(pics[0].iter().any(|t| t == "2.16"), "{:?}", pics[0]);
    for texts in &pics[1..] {
        let x = texts
            .iter()
            .position(|t| t == "xterm")
            .expect("xterm drawn");
        let r = texts.iter().position(|t| t == "r0").expect("r0 drawn");
        assert!(x < r, "{texts:?}");
    }
    // Its strip notes the start-up.
    assert!(
        pics[2].iter().any(|t| t == "start-up 2.16 s"),
        "{:?}",
        pics[2]
    );
    // Never an ellipsis in a figure.
    assert!(pics.iter().flatten().all(|t| !t.contains('…')));
}

#[test]
fn a_compare_array_is_one_side_by_side_section() {
    let runs: Vec<serde_json::Value> = ["noop", "cfq", "bfq+"]
        .iter()
        .map(|s| {
            let mut v = many(3, true);
            v["scheduler"] = json!(s);
            v
        })
        .collect();
    let mut r = Results::default();
    add(&mut r, &serde_json::Value::Array(runs)).unwrap();
    assert_eq!(r.runs.len(), 3);
    assert!(r.runs.iter().all(|run| run.compare == Some(0)));
    let h = page(&r, &["cmp.json".into()]).unwrap();
    assert_eq!(h.matches("<h2").count(), 1, "{h}");
    assert!(h.contains("<h2 id=\"compare-1\">twelve under 3 policies on d"));
    assert!(!h.contains("id=\"run-"));
    // The start-up time per policy, then every flow's MB/s per policy.
    let pics = svg_texts(&h);
    assert_eq!(pics.len(), 2);
    for texts in &pics {
        for p in ["noop", "cfq", "bfq+"] {
            assert!(texts.iter().any(|t| t == p), "{p} in {texts:?}");
        }
    }
    for f in ["xterm", "r0", "r1", "r2"] {
        assert!(pics[1].iter().any(|t| t == f), "{f}");
    }
    // And the table beside: a row per policy.
    assert!(
        h.contains("<tr><td class=\"l\">cfq</td><td>21.30</td><td>2.16</td>"),
        "{h}"
    );
    // Runs of different scenarios in one array stay separate runs.
    let mut other = many(2, false);
    other["scenario"] = json!("other");
    let mut r = Results::default();
    add(&mut r, &json!([many(2, false), other])).unwrap();
    assert!(r.runs.iter().all(|run| run.compare.is_none()));
}

#[test]
fn values_forty_times_apart_take_a_log_axis() {
    let rows = |a: f64, b: f64| {
        vec![
            ("a".to_string(), vec![Some(a)]),
            ("b".to_string(), vec![Some(b)]),
        ]
    };
    let wide = plots::bars("t", "MB/s", &["x"], &rows(2.0, 80.0), "-").unwrap();
    assert!(wide.contains("MB/s (log scale)"), "{wide}");
    let narrow = plots::bars("t", "MB/s", &["x"], &rows(8.0, 80.0), "-").unwrap();
    assert!(!narrow.contains("log scale"));
    // Throughput of flows 40x apart: the small ones get their own panel.
    assert_eq!(
        plots::by_magnitude(&[40.0, 38.0, 1.0]),
        vec![vec![0, 1], vec![2]]
    );
    assert_eq!(plots::by_magnitude(&[40.0, 10.0, 0.0]).len(), 1);
}

#[test]
fn a_long_label_is_wrapped_not_cut() {
    let label = "bfq+ (2.6.35 code) · 10r-seq-with-a-very-long-workload-name · gnometerm_startup";
    let lines = plots::wrap(label, 20);
    assert!(
        lines.len() > 1 && lines.iter().all(|l| l.chars().count() <= 20),
        "{lines:?}"
    );
    // Nothing lost: the lines joined give the label back (spaces aside).
    let squeeze = |s: &str| s.split_whitespace().collect::<String>();
    assert_eq!(squeeze(&lines.concat()), squeeze(label));
    let svg = plots::bars(
        "t",
        "s",
        &["ours"],
        &[(label.to_string(), vec![Some(1.0)])],
        "-",
    )
    .unwrap();
    let texts = svg_texts(&svg).concat();
    assert!(texts.iter().all(|t| !t.contains('…')), "{texts:?}");
    assert!(texts.iter().any(|t| t.contains("gnometerm")), "{texts:?}");
    // Short labels stay whole, on one line.
    assert_eq!(plots::wrap("r0", 20), ["r0"]);
    assert_eq!(plots::wrap("", 20), [""]);
}

#[test]
fn an_experiment_shows_what_was_run_and_the_papers_claim() {
    let mut v = repro();
    v["experiments"][0]["notes"] =
        json!("40 s, first 10 s dropped. Paper (SYSTOR §6.4): BFQ+ drops at most 1.6x CFQ.");
    let h = html(&[v]);
    assert!(
        h.contains("<b>What was run.</b> 40 s, first 10 s dropped."),
        "{h}"
    );
    assert!(
        h.contains("<b>The paper</b> (SYSTOR §6.4): BFQ+ drops at most 1.6x CFQ."),
        "{h}"
    );
}

#[test]
fn odd_results_make_no_panic() {
    let odd = [
        json!({"schema": "sluice.sim/1", "flows": []}),
        json!({"schema": "sluice.sim/1", "flows": [{}], "timeline": {"interval_s": 0.0, "flows": {"x": []}}}),
        json!({"schema": "sluice.sim/1", "flows": [{"name": "a", "mb_s": -1.0, "bytes": -5, "done_s": 1.0,
               "lat_ms": {"p50": 0.0, "max": 0.0}}, {"name": "", "frames": 10, "frames_dropped": 2}],
               "timeline": {"interval_s": 1e-9, "flows": {"a": [0.0, -1.0, 1e300], "": [0.0]}}}),
        json!([{"schema": "sluice.sim/1", "flows": []}, {"schema": "sluice.sim/1", "flows": []}]),
        json!({"schema": "sluice.repro/1", "experiments": [{"rows": [{"ours": 0.0}, {"ours": -3.0, "paper": 0.0}]},
               {"rows": []}, {"notes": "Paper", "rows": [{"ours": 1e-12, "unit": "s"}, {"ours": 1e12, "unit": "s"}]}]}),
    ];
    for v in &odd {
        let mut r = Results::default();
        if add(&mut r, v).is_ok() {
            let _ = page(&r, &[]);
        }
    }
    // Negative bytes are not a result; the rest draw.
    let negative = add(&mut Results::default(), &odd[2]).unwrap_err();
    assert!(negative.contains("not a sluice.sim/1 result"), "{negative}");
    assert!(odd
        .iter()
        .enumerate()
        .all(|(i, v)| i == 2 || add(&mut Results::default(), v).is_ok()));
    let _ = plots::bars("", "", &[], &[], "-").unwrap();
    let _ = plots::throughput_strips("", 0.0, f64::NAN, &[], &[]);
}

#[test]
fn repeated_start_ups_give_their_mean_and_count() {
    let mut v = many(3, true);
    let x = &mut v["flows"][3];
    x["done_s"] = json!(null);
    x["startup_s"] = json!(1.358);
    x["startups"] = json!(17);
    let h = html(&[v]);
    assert!(
        h.contains("mean start-up time 1.36 s over 17 start-ups"),
        "{h}"
    );
    let claim = &h[h.find("<p class=\"claim\">").unwrap()..];
    assert!(!claim[..claim.find("</p>").unwrap()].contains("did not finish"));
    // A start-up flow none of whose start-ups ended says so.
    let mut v = many(3, true);
    v["flows"][3]["done_s"] = json!(null);
    v["flows"][3]["startup_s"] = json!(null);
    v["flows"][3]["startups"] = json!(0);
    let h = html(&[v]);
    assert!(
        h.contains("<b>xterm</b>: no start-up finished within the run"),
        "{h}"
    );
    assert!(h.contains("not finished"));
}

/// The public API: text in, the same page as from files; errors are one
/// line, with no source chain that would print the cause twice.
#[test]
fn render_draws_sources_given_as_text_like_files() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    std::fs::write(&json, complete(&sim(true)).to_string()).unwrap();
    let out = dir.path().join("r.html");
    write_report(std::slice::from_ref(&json), &out).unwrap();
    let source = Source {
        name: json.display().to_string(),
        text: complete(&sim(true)).to_string(),
    };
    assert_eq!(
        render(&[source]).unwrap(),
        std::fs::read_to_string(&out).unwrap()
    );
    let again = write_report(&[json], &out).unwrap_err();
    assert!(matches!(again, Error::OutputExists(_)), "{again}");
    assert!(again.to_string().ends_with("(remove it or name another)"));
    let bad = Source {
        name: "z.json".into(),
        text: "zz".into(),
    };
    let e = render(&[bad]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "z.json: not a JSON result: expected value at line 1 column 1"
    );
    assert!(std::error::Error::source(&e).is_none());
    assert!(matches!(render(&[]), Err(Error::Empty)));
}

/// The one-line refusal of `v` (a result with one number out of range).
fn refused(v: &serde_json::Value) -> String {
    let e = add(&mut Results::default(), v).unwrap_err();
    assert!(!e.contains('\n'), "{e}");
    e
}

#[test]
fn report_refuses_values_near_f64_max() {
    let mut v = sim(true);
    v["flows"][1]["lat_ms"]["cdf"] = json!([[0.0, 1.0], [100.0, 1e308]]);
    let e = refused(&v);
    assert!(
        e.contains("flow 'c': lat_ms.cdf[1] = [100, 1e308] is out of range"),
        "{e}"
    );
    let mut v = sim(true);
    v["timeline"]["interval_s"] = json!(1e308);
    assert!(refused(&v).contains("timeline.interval_s = 1e308 is out of range (0..=1e9)"));
    let mut v = sim(true);
    v["flows"][0]["mb_s"] = json!(1e308);
    assert!(refused(&v).contains("flow 'a&b': mb_s = 1e308 is out of range (0..=1e12)"));
    let mut v = sim(true);
    v["timeline"]["flows"]["c"] = json!([1.0, 1e300]);
    assert!(refused(&v).contains("flow 'c': timeline.flows.c[1] = 1e300"));
    let mut v = sim(false);
    v["measured_from_s"] = json!(-1.0);
    assert!(refused(&v).contains("measured_from_s = -1 is out of range"));
    let mut v = repro();
    v["experiments"][0]["rows"][1]["ours"] = json!(-1e308);
    assert!(refused(&v).contains("experiment 'throughput': row cfq / w / aggregate: ours = -1e308"));
    // In a versus result too.
    let mut bad = sim(false);
    bad["flows"][0]["lat_ms"]["p99"] = json!(1e308);
    let versus = json!({"schema": "sluice.versus/1", "runs": [
        {"engine": "sim", "scheduler": "bfq", "result": bad}]});
    assert!(refused(&versus).contains("flow 'a&b': lat_ms.p99 = 1e308"));
}

#[test]
fn report_refuses_cdf_points_out_of_range() {
    for point in [json!([101.0, 5.0]), json!([50.0, -5.0]), json!([-1.0, 1.0])] {
        let mut v = sim(false);
        v["flows"][1]["lat_ms"]["cdf"] = json!([[0.0, 0.5], point]);
        let e = refused(&v);
        assert!(
            e.contains("run 's<1>: bfq on d': flow 'c': lat_ms.cdf[1] = ")
                && e.contains("([percent 0..=100, ms 0..=1e12])"),
            "{e}"
        );
    }
}

#[test]
fn report_axes_stay_bounded_whatever_the_values() {
    // Subnormal values (found by the report_values fuzz target): a log
    // axis from 1e-310 spanned 600 decades and its ticks took forever.
    let tiny = vec![(0.0, 5e-324), (50.0, 1e-310), (100.0, 1.0)];
    assert!(plots::latency_cdf("t", &[("a".into(), tiny)])
        .unwrap()
        .contains("<svg"));
    let rows = vec![("r".to_string(), vec![Some(1e-310), Some(1e3)])];
    assert!(plots::bars("t", "x", &["a", "b"], &rows, "-")
        .unwrap()
        .contains("<svg"));
    // Drawn directly (the reader refuses these): every axis ends finite
    // and few ticks are drawn.
    let cdf = plots::latency_cdf("t", &[("a".into(), vec![(0.0, 1.0), (100.0, 1e308)])]).unwrap();
    assert!(cdf.contains("<svg"));
    let flows = vec![
        ("a".to_string(), vec![1e308, 1.0]),
        ("b".to_string(), vec![2.0]),
    ];
    let lines = plots::throughput("t", 1e308, 1e308, &flows).unwrap();
    assert!(lines.contains("<svg"));
    let strips = plots::throughput_strips("t", 1e308, 0.0, &flows, &[]);
    let ticks = strips.matches("stroke=\"#e4e4e4\"").count();
    assert!((1..=100).contains(&ticks), "{ticks} ticks");
    let rows = vec![("r".to_string(), vec![Some(1e308), Some(-1e308)])];
    assert!(plots::bars("t", "x", &["a", "b"], &rows, "-")
        .unwrap()
        .contains("<svg"));
}

fn fleet_json(scheduler: &str, p999: &[f64]) -> serde_json::Value {
    let volumes: Vec<serde_json::Value> = p999
        .iter()
        .enumerate()
        .map(|(i, &t)| {
            json!({"volume": format!("v{i}"), "node": i % 2, "requests": 10 * (i + 1), "bytes": 4096,
                   "p50_ms": t / 4.0, "p99_ms": t / 2.0, "p999_ms": t, "max_ms": t, "mb_s": 0.1})
        })
        .collect();
    json!({"schema": "sluice.fleet/1", "scenario": "f", "scheduler": scheduler, "seed": 1,
           "placement": {"policy": "hash", "nodes": 2, "volumes": p999.len()},
           "volumes": volumes,
           "nodes": [
               {"node": 0, "volumes": 2, "requests": 40, "utilisation": 0.5, "mb_s": 0.2, "sim_time_s": 1.0, "policy_stats": {}},
               {"node": 1, "volumes": 2, "requests": 60, "utilisation": 0.25, "mb_s": 0.2, "sim_time_s": 1.0, "policy_stats": {}}],
           "perf": {"wall_s": 0.1, "runner": "threads", "workers": 1}})
}

/// Issue 48: fleets are drawn (each volume's p99.9, the quietest first)
/// and summed up: the quietest 10% (here one volume of four, the first)
/// beside all volumes.
#[test]
fn a_fleet_is_drawn_with_its_quietest_volumes_tail() {
    let sources: Vec<Source> = [
        ("noop", [7.0, 2.0, 3.0, 4.0]),
        ("mclock", [1.5, 2.0, 3.0, 4.0]),
    ]
    .iter()
    .map(|(s, t)| Source {
        name: format!("{s}.json"),
        text: fleet_json(s, t).to_string(),
    })
    .collect();
    let html = render(&sources).unwrap();
    assert!(html.contains("Fleets: the tail each volume got"), "{html}");
    assert!(html.contains("<svg"));
    // noop's quietest volume (v0, 10 requests) has p99.9 7 ms; all four's
    // median is 3.5 ms; the nodes' mean utilisation 38%.
    assert!(
        html.contains("<td class=\"l\">noop: f</td><td>4</td><td>2</td><td>100</td><td>7.000</td><td>7.000</td><td>3.500</td><td>7.000</td><td>38%</td>"),
        "{html}"
    );
    assert!(html.contains("<td>1.500</td><td>1.500</td>"), "{html}");
    // A volume with no tail to draw is a one-line refusal.
    let mut bad = fleet_json("noop", &[1.0]);
    bad["volumes"][0]["p999_ms"] = json!(-1.0);
    let e = render(&[Source {
        name: "bad.json".into(),
        text: bad.to_string(),
    }])
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("bad.json") && e.contains("volume 'v0': p999_ms = -1 is out of range"),
        "{e}"
    );
    let mut partial = fleet_json("noop", &[1.0]);
    partial.as_object_mut().unwrap().remove("volumes");
    let e = render(&[Source {
        name: "p.json".into(),
        text: partial.to_string(),
    }])
    .unwrap_err()
    .to_string();
    assert!(e.contains("not a sluice.fleet/1 result"), "{e}");
}

fn fleet_source(name: &str, v: &serde_json::Value) -> Source {
    Source {
        name: name.into(),
        text: v.to_string(),
    }
}

/// A fleet object that is not one (a field missing, of the wrong type, a
/// node's utilisation out of range) is refused in one line naming the
/// file and what is wrong.
#[test]
fn a_malformed_fleet_is_a_one_line_error() {
    let cases: Vec<(serde_json::Value, &str)> = vec![
        (
            {
                let mut v = fleet_json("noop", &[1.0]);
                v.as_object_mut().unwrap().remove("nodes");
                v
            },
            "missing field `nodes`",
        ),
        (
            {
                let mut v = fleet_json("noop", &[1.0]);
                v["volumes"][0]["requests"] = json!("many");
                v
            },
            "not a sluice.fleet/1 result",
        ),
        (
            {
                let mut v = fleet_json("noop", &[1.0]);
                v["volumes"] = json!({"v0": 1});
                v
            },
            "not a sluice.fleet/1 result",
        ),
        (
            {
                let mut v = fleet_json("noop", &[1.0]);
                v["nodes"][1]["utilisation"] = json!(1e300);
                v
            },
            "fleet 'noop: f': node 1: utilisation = 1e300 is out of range",
        ),
        (
            {
                let mut v = fleet_json("noop", &[1.0]);
                v["volumes"][0]["p999_ms"] = json!(1e200);
                v
            },
            "volume 'v0': p999_ms = 1e200 is out of range",
        ),
    ];
    for (v, why) in cases {
        let e = render(&[fleet_source("bad-fleet.json", &v)])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("bad-fleet.json: ") && e.contains(why) && !e.contains('\n'),
            "{why}: {e}"
        );
    }
}

/// The fleets' plot alone, for docs: one SVG (no page around it), a line
/// per fleet named in its key; refused when no source is a fleet.
#[test]
fn the_fleet_plot_is_drawn_alone_as_svg() {
    let svg = render_fleet_svg(&[
        fleet_source("a.json", &fleet_json("noop", &[7.0, 2.0, 3.0, 4.0])),
        fleet_source("b.json", &fleet_json("mclock", &[1.5, 2.0, 3.0, 4.0])),
        fleet_source("s.json", &complete(&sim(false))),
    ])
    .unwrap();
    assert!(
        svg.starts_with("<svg") && svg.ends_with("</svg>\n"),
        "{svg}"
    );
    assert_eq!(svg.matches("<svg").count(), 1);
    assert!(!svg.contains("<html") && !svg.contains("<table"));
    assert!(svg.contains("xmlns=\"http://www.w3.org/2000/svg\""));
    let texts = svg_texts(&svg).concat().join(" ");
    assert!(
        texts.contains("noop: f") && texts.contains("mclock: f"),
        "{texts}"
    );
    // The page's figure is the same drawing.
    let page = render(&[
        fleet_source("a.json", &fleet_json("noop", &[7.0, 2.0, 3.0, 4.0])),
        fleet_source("b.json", &fleet_json("mclock", &[1.5, 2.0, 3.0, 4.0])),
    ])
    .unwrap();
    assert!(page.contains(svg.trim_end()));
    let e = render_fleet_svg(&[fleet_source("s.json", &complete(&sim(false)))]).unwrap_err();
    assert!(matches!(e, Error::NoFleet), "{e}");
    assert!(e.to_string().contains("--svg") && !e.to_string().contains('\n'));
}

/// Fleets are listed in the page's contents beside its other sections.
#[test]
fn fleets_are_listed_in_the_contents() {
    let h = render(&[
        fleet_source("a.json", &fleet_json("noop", &[1.0, 2.0])),
        fleet_source("s.json", &complete(&sim(false))),
    ])
    .unwrap();
    assert!(
        h.contains("<li><a href=\"#fleets\">Fleets: the tail each volume got (1 fleet)</a></li>")
            && h.contains("<h2 id=\"fleets\">"),
        "{h}"
    );
}

/// `write_outputs` writes the page and the plot as new files; an output
/// that exists, or no fleet for `--svg`, leaves no file behind.
#[test]
fn the_page_and_the_plot_are_written_as_new_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fleet = d.join("noop.json");
    std::fs::write(&fleet, fleet_json("noop", &[7.0, 2.0, 3.0]).to_string()).unwrap();
    let run = d.join("run.json");
    std::fs::write(&run, complete(&sim(false)).to_string()).unwrap();
    let fleets = [fleet];
    let (html, svg) = (d.join("r.html"), d.join("r.svg"));
    write_outputs(&fleets, Some(&html), Some(&svg)).unwrap();
    let page = std::fs::read_to_string(&html).unwrap();
    let plot = std::fs::read_to_string(&svg).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && plot.starts_with("<svg"));
    assert!(page.contains(plot.trim_end()));
    // The plot alone, no page.
    let only = d.join("only.svg");
    write_outputs(&fleets, None, Some(&only)).unwrap();
    assert_eq!(std::fs::read_to_string(&only).unwrap(), plot);
    // The svg exists: refused, and the page it would have gone with is
    // not left behind.
    let (html2, before) = (d.join("r2.html"), plot.clone());
    let e = write_outputs(&fleets, Some(&html2), Some(&svg)).unwrap_err();
    assert!(matches!(e, Error::OutputExists(ref p) if *p == svg), "{e}");
    assert!(!html2.exists());
    assert_eq!(std::fs::read_to_string(&svg).unwrap(), before);
    // No fleet for --svg: refused before any file is made.
    let e = write_outputs(&[run], Some(&html2), Some(&d.join("r3.svg"))).unwrap_err();
    assert!(matches!(e, Error::NoFleet), "{e}");
    assert!(!html2.exists() && !d.join("r3.svg").exists());
}
