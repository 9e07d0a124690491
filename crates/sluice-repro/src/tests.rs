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
