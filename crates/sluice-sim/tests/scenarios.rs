//! Every scenario shipped in `scenarios/` still loads: the examples the
//! README points to never rot.

use std::path::PathBuf;

use sluice_runtime::Scenario;

fn files(dir: &str) -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(dir);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    v
}

#[test]
fn shipped_scenarios_load() {
    let all: Vec<PathBuf> = files("scenarios")
        .into_iter()
        .chain(files("scenarios/repro"))
        .collect();
    assert!(all.len() >= 8, "{all:?}");
    for p in all {
        let s = Scenario::load(&p).unwrap_or_else(|e| panic!("{e}"));
        assert!(!s.flows.is_empty(), "{}", p.display());
    }
}

/// `compare` runs every policy once, in the listing's order; the
/// scenario's own policy keeps its parameters, the others have none.
#[test]
fn compare_runs_every_policy_in_order() {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/10r-rand.toml");
    let mut s = Scenario::load(&p).unwrap();
    s.duration = sluice::Duration::from_secs(1);
    s.warmup = sluice::Duration::ZERO;
    let mut told = Vec::new();
    let reports = sluice_sim::compare(&s, |i| told.push(i)).unwrap();
    let names: Vec<&str> = reports.iter().map(|r| r.scheduler.as_str()).collect();
    let listed: Vec<&str> = sluice::policy::POLICIES.iter().map(|p| p.name).collect();
    assert_eq!(names, listed);
    assert_eq!(told, (0..listed.len()).collect::<Vec<_>>());
}
