//! Tests of `lib.rs`.

use super::*;
use sluice_runtime::scenario::Pattern;
use sluice_runtime::{FlowBuilder, Scenario};

fn sweep(levels: &[u32], metrics: usize) -> ReproReport {
    let mut rows = Vec::new();
    for &io in levels {
        for q in 0..metrics {
            let w = format!("io={io}");
            rows.push(row(
                "dor",
                &w,
                &format!("iops@mqos={q}"),
                "IOPS",
                80.0 + q as f64,
                None,
            ));
            let paper = (q == 0).then_some(4.0);
            rows.push(row(
                "dor",
                &w,
                &format!("ratio@mqos={q}"),
                "RQ1:RQ2",
                3.5,
                paper,
            ));
        }
    }
    ReproReport {
        schema: "sluice.repro/1",
        paper: "dor".into(),
        experiments: vec![Experiment {
            paper: "dor".into(),
            id: "mqos".into(),
            title: "t".into(),
            notes: String::new(),
            rows,
        }],
        claims: Vec::new(),
    }
}

#[test]
fn long_experiments_print_as_a_summary_unless_full() {
    let r = sweep(&[11, 61], SUMMARY_COLUMNS);
    let short = tables(&r, false);
    // 2 x 14 x 2 = 56 rows: one line per (scheduler, workload, swept
    // value) once the @-metrics are too many columns.
    assert!(short.contains("56 rows summarized"), "{short}");
    assert!(short.contains("io=61  mqos=13"), "{short}");
    assert!(
        short.contains("paper: dor io=11 ratio@mqos=0 4.00"),
        "{short}"
    );
    let full = tables(&r, true);
    assert_eq!(full.lines().filter(|l| l.starts_with("dor ")).count(), 56);
    // Few metrics (12 here): they stay columns, one line per workload.
    let r = sweep(&[1, 11, 31, 61], 6);
    let narrow = tables(&r, false);
    assert!(narrow.contains("48 rows summarized"), "{narrow}");
    assert!(narrow.contains("iops@mqos=0"), "{narrow}");
    assert_eq!(narrow.lines().filter(|l| l.starts_with("dor ")).count(), 4);
}

#[test]
fn saved_files_are_named_by_scenario_and_scheduler_values() {
    let s = ScenarioBuilder::new("io=11", 15.0)
        .preset("ibm-dnes-309170w")
        .scheduler("dor")
        .param("m_dmo", 20)
        .param("m_qos", 0.0)
        .flow(FlowBuilder::new("rq", Pattern::Pool));
    assert_eq!(save_name(&s), "io_11--dor-20-0");
    let s = s.scheduler("bfq+").param("m_qos", 0.5);
    assert_eq!(save_name(&s), "io_11--bfq+-20-0.5");
}

#[test]
fn saved_scenarios_load_as_the_ones_run() {
    let dir = std::env::temp_dir().join(format!("sluice-repro-save-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let s = ScenarioBuilder::new("x", 1.0)
        .preset("maxtor-stm332061")
        .scheduler("yfq")
        .param("batch", 4)
        .flow(FlowBuilder::new("r", Pattern::RandRead).file_gib(5e9 / 1073741824.0));
    let jobs: Vec<Job> = (0..2)
        .map(|_| Job {
            scenario: s.clone(),
            timeline_ms: None,
        })
        .collect();
    save(&jobs, &dir).unwrap();
    for name in ["x--yfq-4.toml", "x--yfq-4-2.toml"] {
        let loaded = Scenario::load(&dir.join(name)).unwrap();
        assert_eq!(loaded, s.build().unwrap(), "{name}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Start-up times by (experiment, workload, application), then scheduler.
type Startups = std::collections::BTreeMap<(String, String, String), Vec<(String, f64)>>;

fn startups(experiments: &[Experiment]) -> Startups {
    let mut out = Startups::new();
    for e in experiments {
        for r in e.rows.iter().filter(|r| r.unit == "s") {
            let key = (e.id.clone(), r.workload.clone(), r.metric.clone());
            out.entry(key)
                .or_default()
                .push((r.scheduler.clone(), r.ours));
        }
    }
    out
}

/// `repro bfq --quick` keeps the full run's rankings: for each start-up
/// (experiment, workload, application), no two schedulers that one run
/// orders clearly (the slower at least 1.2x the faster) are in the other
/// order in the other run. The start-up and ablation experiments only:
/// the whole paper takes minutes in a debug build, and these two hold
/// what `--quick` once changed (the start time, the number of runs).
#[test]
fn bfq_quick_keeps_the_full_runs_start_up_rankings() {
    let want = |id: &str| id == "startup" || id == "ablation";
    let run = |quick| {
        let opts = Options {
            quick,
            progress: &|_, _| {},
            save_scenarios: None,
        };
        startups(&bfq::experiments_where(&opts, &want).unwrap())
    };
    let (quick, full) = (run(true), run(false));
    assert_eq!(
        quick.keys().collect::<Vec<_>>(),
        full.keys().collect::<Vec<_>>()
    );
    let clear = |a: f64, b: f64| a.max(b) >= 1.2 * a.min(b);
    let mut pairs = 0;
    for (key, f) in &full {
        let q = &quick[key];
        for (i, (sa, fa)) in f.iter().enumerate() {
            for (sb, fb) in &f[i + 1..] {
                let value = |s: &str| q.iter().find(|x| x.0 == s).map(|x| x.1);
                let (Some(qa), Some(qb)) = (value(sa), value(sb)) else {
                    panic!("{key:?}: {sa} or {sb} missing from the quick run");
                };
                pairs += 1;
                assert!(
                    (fa - fb) * (qa - qb) >= 0.0 || !(clear(*fa, *fb) || clear(qa, qb)),
                    "{key:?} {sa}/{sb}: full {fa:.2}/{fb:.2}, quick {qa:.2}/{qb:.2}"
                );
            }
        }
    }
    assert!(pairs > 100, "{pairs} pairs");
}

/// `repro bfq --quick` keeps the full run's other conclusions: the same
/// throughput winner on every workload (when the full run has one by at
/// least 5%), and the same verdict on the video claim (BFQ+ drops at most
/// 1.6x CFQ's frames, plus one point) on every workload.
#[test]
fn bfq_quick_keeps_the_throughput_winner_and_the_video_verdict() {
    let want = |id: &str| id == "throughput" || id == "video";
    let run = |quick| {
        let opts = Options {
            quick,
            progress: &|_, _| {},
            save_scenarios: None,
        };
        bfq::experiments_where(&opts, &want).unwrap()
    };
    let (quick, full) = (run(true), run(false));
    let value = |exps: &[Experiment], id: &str, s: &str, w: &str, m: &str| {
        exps.iter()
            .filter(|e| e.id == id)
            .flat_map(|e| &e.rows)
            .find(|r| r.scheduler == s && r.workload == w && r.metric == m)
            .map(|r| r.ours)
            .unwrap_or_else(|| panic!("{id} {s} {w} {m} missing"))
    };
    for w in ["10r-seq", "10r-rand", "5r5w-seq", "5r5w-rand"] {
        let winner = |exps: &[Experiment]| {
            let mut v: Vec<(f64, &str)> = ["bfq+", "bfq", "cfq"]
                .iter()
                .map(|s| (value(exps, "throughput", s, w, "aggregate"), *s))
                .collect();
            v.sort_by(|a, b| b.0.total_cmp(&a.0));
            (v[0].1, v[0].0 >= 1.05 * v[1].0)
        };
        let (fw, clear) = winner(&full);
        if clear {
            assert_eq!(winner(&quick).0, fw, "{w}: throughput winner");
        }
        let verdict = |exps: &[Experiment]| {
            let b = value(exps, "video", "bfq+", w, "drop_rate");
            let c = value(exps, "video", "cfq", w, "drop_rate");
            b <= 1.6 * c + 1.0
        };
        assert_eq!(verdict(&quick), verdict(&full), "{w}: video verdict");
    }
}

/// A label names its scheduler and parameters, typed as a scenario file
/// types them.
#[test]
fn labels_name_their_schedulers() {
    let base = || ScenarioBuilder::new("x", 1.0).preset("maxtor-stm332061");
    let literal = bfq::scheduler(base(), bfq::LITERAL);
    let (policy, params) = literal.policy();
    assert_eq!(policy, "bfq+");
    let listed: Vec<(String, String)> = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    assert_eq!(
        listed,
        [
            ("raised_idle_factor".to_string(), "1".to_string()),
            ("raised_timeout".to_string(), "false".to_string()),
        ],
        "{listed:?}"
    );
    let off = bfq::scheduler(base(), "bfq+ low_latency=false");
    let (policy, params) = off.policy();
    assert_eq!(policy, "bfq+");
    assert_eq!(params.len(), 1);
}

/// `--quick` is announced with what it shortens, and a row's note is
/// printed once under its table.
#[test]
fn quick_is_explained_and_notes_are_printed() {
    for p in PAPERS.iter().chain(NOT_IN_ALL).chain(&["all"]) {
        let n = quick_note(p);
        assert!(n.starts_with("--quick: ") && n.len() > 30, "{p}: {n}");
    }
    let mut r = sweep(&[11], 1);
    let e = &mut r.experiments[0];
    e.rows[0] = e.rows[0].clone().with_note("what the paper says");
    e.rows[1] = e.rows[1].clone().with_note("what the paper says");
    let t = tables(&r, true);
    assert_eq!(t.matches("dor: what the paper says").count(), 1, "{t}");
    let json = serde_json::to_value(&r).unwrap();
    let rows = &json["experiments"][0]["rows"];
    assert_eq!(rows[0]["note"], "what the paper says");
    assert!(rows[2].get("note").is_none(), "{rows}");
}

/// A reproduction reads back as written (`sluice report` reads it typed):
/// rows with and without the paper's number and a note.
#[test]
fn a_reproduction_reads_back_as_written() {
    let mut report = sweep(&[1, 2], 2);
    report.experiments[0].rows[0] = report.experiments[0].rows[0].clone().with_note("n");
    let json = serde_json::to_string_pretty(&report).unwrap();
    let back: ReproReport = serde_json::from_str(&json).unwrap();
    assert_eq!(back, report);
    assert_eq!(serde_json::to_string_pretty(&back).unwrap(), json);
    let other = json.replace("sluice.repro/1", "sluice.sim/1");
    let e = serde_json::from_str::<ReproReport>(&other)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("schema 'sluice.sim/1' is not sluice.repro/1"),
        "{e}"
    );
}

/// Tests run subsets of the experiments: a paper's stated claims are
/// drawn only from the rows that ran, and none from no rows.
#[test]
fn a_claim_whose_rows_did_not_run_is_left_out() {
    assert!(crate::yfq::claims(&[]).is_empty());
    assert!(crate::vios::claims(&[]).is_empty());
    assert!(crate::dor::claims(&[]).is_empty());
    // The mqos sweep alone (|IO| 11 and 61, every metric Figs. 5-8 read):
    // only the claims of Figs. 5-8, none of the other experiments.
    let mut rows = Vec::new();
    for io in [11, 61] {
        for q in ["0.5", "5", "10", "1000"] {
            for (m, v) in [
                ("iops", 90.0),
                ("ratio", 4.0),
                ("rq1_iops", 72.0),
                ("rq2_iops", 18.0),
                ("bqs_iops", 40.0),
                ("dor_iops", 50.0),
                ("dqe_refusals", 12.0),
            ] {
                let w = format!("io={io}");
                rows.push(row("dor", &w, &format!("{m}@mqos={q}"), "u", v, None));
            }
        }
    }
    let e = experiment("dor", "mqos", "t", "", rows);
    let cs = crate::dor::claims(&[e]);
    let figs: Vec<&str> = cs.iter().map(|c| &c.statement[..6]).collect();
    assert_eq!(figs, ["Fig. 5", "Fig. 6", "Fig. 7", "Fig. 8"], "{cs:#?}");
    assert!(cs.iter().all(|c| c.experiment == "mqos" && !c.held));
}
