//! `sluice import`: dmClock's and Seastar's own configurations as scenario
//! files that `sim` runs; the output is created, never overwritten.

mod common;
use common::{sluice_in, workspace};

#[test]
fn imported_scenarios_run_and_outputs_are_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let data = workspace().join("data/import");
    let d = |n: &str| data.join(n).to_str().unwrap().to_string();
    let dmc = d("dmc_sim_example.conf");
    let import_dmc = || sluice_in(dir.path(), &["import", "dmclock", &dmc, "-o", "dmc.toml"]);
    let (code, _, err) = import_dmc();
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = sluice_in(dir.path(), &["sim", "dmc.toml", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"scheduler\": \"mclock\""), "{out}");
    assert!(out.contains("\"client3\""), "{out}");
    // A second import to the same name is refused (exit 2) and leaves the
    // file as it was.
    let before = std::fs::read_to_string(dir.path().join("dmc.toml")).unwrap();
    let (code, _, err) = import_dmc();
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("exists") && err.lines().count() == 1, "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("dmc.toml")).unwrap(),
        before
    );
    let (code, out, err) = sluice_in(
        dir.path(),
        &[
            "import",
            "seastar",
            &d("tau_nemesis.yaml"),
            "--io-properties",
            &d("i4i.2xlarge.yaml"),
            "--duration",
            "1",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("name = \"seastar-fq\"") && out.contains("name = \"highprio\""),
        "{out}"
    );
    std::fs::write(dir.path().join("tau.toml"), &out).unwrap();
    let (code, out, err) = sluice_in(
        dir.path(),
        &["sim", "tau.toml", "--json", "--log-requests", "tau.csv"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"scheduler\": \"seastar-fq\""), "{out}");
    // bursty_lowprio's batches: 50 requests arriving at the same instant,
    // one batch every 125 ms (8 in the 1 s run).
    let log = std::fs::read_to_string(dir.path().join("tau.csv")).unwrap();
    let head: Vec<&str> = log.lines().next().unwrap().split(',').collect();
    let col = |n: &str| head.iter().position(|h| *h == n).unwrap();
    let (flow, arrival) = (col("flow"), col("arrival_ms"));
    let mut at: std::collections::BTreeMap<String, usize> = Default::default();
    for l in log.lines().skip(1) {
        let c: Vec<&str> = l.split(',').collect();
        if c[flow] == "bursty_lowprio" {
            *at.entry(c[arrival].to_string()).or_default() += 1;
        }
    }
    assert_eq!(at.len(), 8, "{at:?}");
    assert!(at.values().all(|&n| n == 50), "{at:?}");
}

#[test]
fn bad_inputs_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.conf"),
        "[client.0]\nclient_limit = lots\n",
    )
    .unwrap();
    let (code, _, err) = sluice_in(dir.path(), &["import", "dmclock", "bad.conf"]);
    assert_eq!(code, 1);
    assert!(
        err.starts_with("error: bad.conf: line 2: client_limit") && err.lines().count() == 1,
        "{err}"
    );
    let (code, _, err) = sluice_in(
        dir.path(),
        &[
            "import",
            "seastar",
            "none.yaml",
            "--io-properties",
            "bad.conf",
        ],
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("none.yaml: cannot read io_tester job file") && err.lines().count() == 1,
        "{err}"
    );
}
