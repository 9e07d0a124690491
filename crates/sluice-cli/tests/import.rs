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

/// Issue 43, defect 12: `--shards -1` was a clap parse error ("unexpected
/// argument '-1'"); negative and out-of-range numbers are a one-line range
/// refusal, checked before any file is read.
#[test]
fn import_seastar_shards_minus_one_is_a_range_refusal() {
    let dir = tempfile::tempdir().unwrap();
    for (flag, value, want) in [
        ("--shards", "-1", "--shards must be 1..=1024 (got -1)"),
        ("--shards", "5000", "--shards must be 1..=1024 (got 5000)"),
        (
            "--duration",
            "-1",
            "--duration must be 0.001..=10000000 seconds (got -1)",
        ),
    ] {
        let (code, _, err) = sluice_in(
            dir.path(),
            &[
                "import",
                "seastar",
                "none.yaml",
                "--io-properties",
                "none.yaml",
                flag,
                value,
            ],
        );
        assert_eq!(code, 1, "{err}");
        assert_eq!(err.trim(), format!("error: {want}"));
    }
}

/// Issue 43, defect 12: two Seastar jobs of one name were written as two
/// flows of one name, a file `sim` then refused; the import refuses them,
/// naming both, and writes nothing.
#[test]
fn import_refuses_duplicate_job_names_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let job = "- name: a\n  type: seqread\n  shard_info: {parallelism: 1}\n";
    std::fs::write(dir.path().join("jobs.yaml"), format!("{job}{job}")).unwrap();
    let props = workspace().join("data/import/i4i.2xlarge.yaml");
    let (code, out, err) = sluice_in(
        dir.path(),
        &[
            "import",
            "seastar",
            "jobs.yaml",
            "--io-properties",
            props.to_str().unwrap(),
            "-o",
            "out.toml",
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("jobs 1 and 2 are both named 'a'") && err.trim().lines().count() == 1,
        "{err}"
    );
    assert!(out.is_empty() && !dir.path().join("out.toml").exists());
}

#[test]
fn an_imported_mqsim_scenario_names_its_files_from_its_own_folder_and_runs() {
    let dir = tempfile::tempdir().unwrap();
    let data = workspace().join("crates/sluice-repro/data/mqsim/wsrch");
    let d = |n: &str| data.join(n).to_str().unwrap().to_string();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let (code, _, err) = sluice_in(
        dir.path(),
        &[
            "import",
            "mqsim",
            &d("together.xml"),
            "--ssdconfig",
            &d("ssdconfig.xml"),
            "-o",
            "sub/w.toml",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let toml = std::fs::read_to_string(dir.path().join("sub/w.toml")).unwrap();
    assert!(
        toml.contains("format = \"mqsim\"") && toml.contains("[flow.ssd]"),
        "{toml}"
    );
    // Run from another folder: the paths are the file's own.
    let (code, out, err) = sluice_in(
        &workspace(),
        &[
            "sim",
            dir.path().join("sub/w.toml").to_str().unwrap(),
            "--json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"flow-2\""), "{out}");
    // A scenario the file does not have: one line, exit 1, nothing written.
    let (code, _, err) = sluice_in(
        dir.path(),
        &[
            "import",
            "mqsim",
            &d("together.xml"),
            "--ssdconfig",
            &d("ssdconfig.xml"),
            "--scenario",
            "2",
            "-o",
            "x.toml",
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("--scenario 2: the file holds scenarios 1..=1") && err.lines().count() == 1,
        "{err}"
    );
    assert!(!dir.path().join("x.toml").exists());
}
