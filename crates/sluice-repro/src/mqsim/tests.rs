//! Tests of the `repro mqsim` harness: MQSim's figures as loaded, the row
//! layout the acceptance reads, the arithmetic, the analytic write
//! amplification.

use super::data::{EXPERIMENTS, MQSIM_RESULTS};
use super::layout::{self, FlowFigures, ScenarioFigures, RUNS};
use super::paper::Paper;
use super::*;

fn paper() -> Paper {
    Paper::parse("mqsim-results.json", MQSIM_RESULTS).unwrap()
}

/// Every MQSim figure is where the harness looks for it: for each
/// experiment and scenario, the rows `layout::rows` writes under `noop`
/// find a figure each, and together they are all 297 of the file.
#[test]
fn every_mqsim_figure_has_its_row() {
    let p = paper();
    assert_eq!(p.len(), 297);
    let x = FlowFigures {
        iops: 1.0,
        response_us: 1.0,
    };
    let figures = ScenarioFigures {
        alone: [x, x],
        together: [x, x],
    };
    let mut found = 0;
    for files in &EXPERIMENTS {
        for k in 1..=files.scenarios {
            let paper_of = |s: &str, w: &str, m: &str| p.get(files.id, s, w, m);
            let rows = layout::rows("noop", k, files.scenarios, &figures, &paper_of);
            assert_eq!(rows.len(), 11, "{} {k}", files.id);
            for r in &rows {
                assert!(
                    r.paper.is_some(),
                    "{} {} {}: no MQSim figure",
                    files.id,
                    r.workload,
                    r.metric
                );
            }
            found += rows.len();
        }
    }
    assert_eq!(found, p.len());
    // A host policy has none.
    assert_eq!(p.get("backend", "bfq", "together", "fairness"), None);
    assert_eq!(
        p.get("backend", "noop", "together", "fairness"),
        Some(0.058)
    );
}

/// The scenario counts built in match the files: as many `<IO_Scenario>`
/// elements in each workload file.
#[test]
fn scenario_counts_match_the_workload_files() {
    for files in &EXPERIMENTS {
        for (w, text) in RUNS.iter().zip(files.workloads) {
            assert_eq!(
                text.matches("<IO_Scenario>").count(),
                files.scenarios,
                "{} {w}",
                files.id
            );
        }
        for (name, bytes) in files.traces {
            assert!(files.workloads[2].contains(name), "{name}");
            assert!(bytes.len() > 100_000, "{name}: {} bytes", bytes.len());
        }
    }
}

/// A duplicated row, or a file that is not MQSim's results, is refused
/// with the file's name and line.
#[test]
fn bad_results_are_refused() {
    let row = r#"{"experiment":"a","scheduler":"noop","workload":"flow-1","metric":"m","paper":1}"#;
    let twice = format!("{{\"rows\":[{row},\n{row}]}}");
    let e = Paper::parse("r.json", &twice).err().unwrap().to_string();
    assert!(e.contains("r.json") && e.contains("given twice"), "{e}");
    let e = Paper::parse("r.json", "{\"rows\":\n[1]}")
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("r.json") && e.contains("line 2"), "{e}");
}

#[test]
fn workloads_are_plain_for_the_last_scenario_and_tagged_otherwise() {
    assert_eq!(layout::workload("together", 8, 8), "together");
    assert_eq!(layout::workload("together", 3, 8), "together@3");
    assert_eq!(layout::workload("flow-2", 1, 6), "flow-2@1");
}

/// MQSim's IOPS divides by whole simulated seconds: its own figures
/// (README: 217,255 requests in 10.000x s give 21,725.5; tpcc-small's
/// 6,999 requests in 1.075 s give 6,999).
#[test]
fn iops_divide_by_whole_seconds() {
    assert_eq!(layout::mqsim_iops(217_255, 10.0003), 21_725.5);
    assert_eq!(layout::mqsim_iops(217_255, 9.999_999_999_9), 21_725.5);
    assert_eq!(layout::mqsim_iops(6_999, 1.075), 6_999.0);
    assert_eq!(layout::mqsim_iops(50, 0.2), 50.0);
}

/// Slowdown and fairness as FAST'18 defines them, on MQSim's backend
/// scenario 8 (flow 1: 92 → 1597 µs, flow 2: 1585 → 1597 µs).
#[test]
fn slowdown_and_fairness_follow_fast18() {
    let f = |r| FlowFigures {
        iops: 0.0,
        response_us: r,
    };
    let s1 = layout::slowdown(&f(1597.0), &f(92.0)).unwrap();
    let s2 = layout::slowdown(&f(1597.0), &f(1585.0)).unwrap();
    assert!((s1 - 17.3587).abs() < 1e-4, "{s1}");
    assert!((s2 - 1.00757).abs() < 1e-4, "{s2}");
    let fair = layout::fairness(&[s1, s2]).unwrap();
    assert!((fair - 0.0580).abs() < 1e-3, "{fair}");
    assert_eq!(layout::fairness(&[s2, s1]), Some(fair));
    assert_eq!(layout::slowdown(&f(5.0), &f(0.0)), None);
    assert_eq!(layout::fairness(&[]), None);
}

/// The rows of one scenario, in the file's order, with the arithmetic.
#[test]
fn rows_are_laid_out_as_the_acceptance_reads_them() {
    let f = |iops, r| FlowFigures {
        iops,
        response_us: r,
    };
    let figures = ScenarioFigures {
        alone: [f(100.0, 10.0), f(200.0, 20.0)],
        together: [f(50.0, 40.0), f(150.0, 30.0)],
    };
    let none = |_: &str, _: &str, _: &str| None;
    let rows = layout::rows("bfq", 2, 8, &figures, &none);
    let got: Vec<(&str, &str, f64)> = rows
        .iter()
        .map(|r| (r.workload.as_str(), r.metric.as_str(), r.ours))
        .collect();
    assert_eq!(
        got,
        [
            ("flow-1@2", "iops@flow-1", 100.0),
            ("flow-1@2", "response_us@flow-1", 10.0),
            ("flow-2@2", "iops@flow-2", 200.0),
            ("flow-2@2", "response_us@flow-2", 20.0),
            ("together@2", "iops@flow-1", 50.0),
            ("together@2", "response_us@flow-1", 40.0),
            ("together@2", "slowdown@flow-1", 4.0),
            ("together@2", "iops@flow-2", 150.0),
            ("together@2", "response_us@flow-2", 30.0),
            ("together@2", "slowdown@flow-2", 1.5),
            ("together@2", "fairness", 0.375),
        ]
    );
    assert!(rows
        .iter()
        .all(|r| r.scheduler == "bfq" && r.paper.is_none()));
    // A flow that completed nothing alone: no slowdown, no fairness, said.
    let figures = ScenarioFigures {
        alone: [f(0.0, 0.0), f(200.0, 20.0)],
        ..figures
    };
    let rows = layout::rows("noop", 8, 8, &figures, &none);
    let last = rows.last().unwrap();
    assert_eq!(
        (last.workload.as_str(), last.metric.as_str()),
        ("together", "fairness")
    );
    assert!(last.note.is_some(), "{last:?}");
}

/// Host policies run in front of all four synthetic sweeps; the traces
/// under noop; quick keeps the last scenario only.
#[test]
fn host_policies_and_quick_scenarios() {
    assert_eq!(SCHEDULERS, ["noop", "bfq", "yfq", "mclock", "seastar-fq"]);
    for files in &EXPERIMENTS {
        let want = if files.id == "wsrch" { 1 } else { 5 };
        assert_eq!(schedulers_of(files).len(), want, "{}", files.id);
        assert_eq!(
            scenarios_run(files, true).collect::<Vec<_>>(),
            [files.scenarios]
        );
        assert_eq!(scenarios_run(files, false).count(), files.scenarios);
    }
    let s = with_scheduler(ScenarioBuilder::new("x", 1.0), "mclock");
    assert_eq!(s.policy().0, "mclock");
    let depth = format!("queue_depth = {HOST_POLICY_DEPTH}");
    assert!(s.to_toml().unwrap().contains(&depth));
    let s = with_scheduler(ScenarioBuilder::new("x", 1.0), "yfq");
    let toml = s.to_toml().unwrap();
    assert!(
        toml.contains(&depth) && toml.contains(&format!("batch = {HOST_POLICY_DEPTH}")),
        "{toml}"
    );
    let s = with_scheduler(ScenarioBuilder::new("x", 1.0).queue_depth(999), "noop");
    assert_eq!(s.policy().0, "noop");
    assert!(s.to_toml().unwrap().contains("queue_depth = 999"));
    assert_eq!(op_label(0.07), "op=7%");
    assert_eq!(op_label(0.28), "op=28%");
}

/// Desnoyers' greedy model against values worked by hand: at op = 7%
/// (alpha = 1/0.93) the victim's valid share u solves alpha (1 - u) =
/// -ln u at u ≈ 0.86335 (check: 1.07527 × 0.13665 = 0.14694 and -ln
/// 0.86335 = 0.14694), so WA = 1 / 0.13665 ≈ 7.318; at 28% (alpha =
/// 1/0.72) u ≈ 0.49789 (1.38889 × 0.50211 = 0.69737, -ln 0.49789 =
/// 0.69737), WA ≈ 1.9916. Small op: WA ≈ 1 / (2 op) (u = 1 - d,
/// alpha d ≈ d + d²/2).
#[test]
fn greedy_write_amplification_matches_the_analytic_model() {
    let wa7 = wa::greedy_uniform(0.07).unwrap();
    let wa28 = wa::greedy_uniform(0.28).unwrap();
    assert!((wa7 - 7.3177).abs() < 1e-3, "{wa7}");
    assert!((wa28 - 1.9916).abs() < 1e-3, "{wa28}");
    let small = wa::greedy_uniform(0.001).unwrap();
    assert!((small * 0.002 - 1.0).abs() < 0.01, "{small}");
    // More spare space, less amplification, never below 1.
    let mut last = f64::INFINITY;
    for op in [0.01, 0.05, 0.1, 0.2, 0.5, 0.9] {
        let w = wa::greedy_uniform(op).unwrap();
        assert!(w < last && w > 1.0, "{op}: {w}");
        last = w;
    }
    for op in [0.0, 1.0, -0.5, f64::NAN] {
        assert_eq!(wa::greedy_uniform(op), None, "{op}");
    }
}

/// The configuration and traces are written where the scenario and the
/// workload files' relative paths point; a temporary folder goes when
/// done, a save folder stays and may be used again, but a different file
/// in the way is refused.
#[test]
fn files_are_written_out_and_cleaned_up() {
    let wsrch = EXPERIMENTS.iter().find(|f| f.id == "wsrch").unwrap();
    let one = std::slice::from_ref(wsrch);
    let dir = folder::DataDir::new(one, None).unwrap();
    let trace = dir.of(wsrch).join("traces/wsrch-small.trace");
    assert_eq!(std::fs::read(&trace).unwrap(), wsrch.traces[0].1);
    let config = std::fs::read_to_string(dir.ssdconfig(wsrch)).unwrap();
    assert_eq!(config, wsrch.ssdconfig);
    let path = dir.of(wsrch);
    drop(dir);
    assert!(!path.exists(), "{}", path.display());
    let save = std::env::temp_dir().join(format!("sluice-repro-mqsim-save-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&save);
    let saved = folder::DataDir::new(one, Some(&save)).unwrap();
    assert!(saved.ssdconfig(wsrch).is_absolute());
    drop(saved);
    let kept = save.join("mqsim/wsrch/traces/tpcc-small.trace");
    assert_eq!(std::fs::read(&kept).unwrap(), wsrch.traces[1].1);
    drop(folder::DataDir::new(one, Some(&save)).unwrap());
    std::fs::write(&kept, b"other").unwrap();
    let e = folder::DataDir::new(one, Some(&save))
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("tpcc-small.trace") && e.contains("not this file"),
        "{e}"
    );
    std::fs::remove_dir_all(&save).unwrap();
}

/// The write-amplification rows as the acceptance reads them: one per
/// over-provisioning level, the analytic value beside the flash model's,
/// which amplifies more at 7% and stays within 15% of the model.
#[test]
fn write_amplification_rows_set_the_model_beside_the_analytic_value() {
    let e = write_amplification();
    assert_eq!(e.id, "write_amplification");
    let got: Vec<(&str, &str)> = e
        .rows
        .iter()
        .map(|r| (r.workload.as_str(), r.metric.as_str()))
        .collect();
    assert_eq!(got, [("op=7%", "wa"), ("op=28%", "wa")]);
    for (r, op) in e.rows.iter().zip(WA_OPS) {
        let analytic = wa::greedy_uniform(op).unwrap();
        assert_eq!(r.paper, Some(analytic));
        assert!((r.ours / analytic - 1.0).abs() <= 0.15, "{op}: {r:?}");
    }
    assert!(e.rows[0].ours > e.rows[1].ours);
}

/// Every scenario of every built-in workload file imports: one flow alone,
/// two together, on the drive of its experiment's configuration.
#[test]
fn every_scenario_imports() {
    let dir = folder::DataDir::new(&EXPERIMENTS, None).unwrap();
    for files in &EXPERIMENTS {
        let config = sluice_device::mqsim::SsdConfig::parse("c", files.ssdconfig).unwrap();
        for k in 1..=files.scenarios {
            for (run, flows) in [(0, 1), (1, 1), (2, 2)] {
                let s = import_scenario(
                    files,
                    run,
                    &config,
                    k,
                    &dir.ssdconfig(files),
                    &dir.of(files),
                )
                .unwrap_or_else(|e| panic!("{} {run} {k}: {e}", files.id));
                let built = s.build().unwrap();
                assert_eq!(built.flows.len(), flows, "{} {run} {k}", files.id);
            }
        }
    }
}
