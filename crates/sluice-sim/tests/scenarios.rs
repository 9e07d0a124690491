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
