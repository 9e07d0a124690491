//! The binary as a user runs it: exit codes, one-line errors, JSON shape.

mod common;
use common::{sluice, write_temp as write};

const GOOD: &str = r#"name = "cli"
seed = 2
duration_s = 5
warmup_s = 1

[device]
preset = "maxtor-stm332061"

[scheduler]
name = "clook"

[[flow]]
name = "r"
count = 2
pattern = "rand-read"
"#;

#[test]
fn sim_json_follows_the_contract() {
    let p = write("good.toml", GOOD);
    let (code, out, err) = sluice(&["sim", p.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    for key in [
        "\"schema\": \"sluice.sim/1\"",
        "\"scenario\": \"cli\"",
        "\"scheduler\": \"clook\"",
        "\"measured_from_s\"",
        "\"disk_time_s\"",
        "\"p99\"",
        "\"requests_per_wall_s\"",
    ] {
        assert!(out.contains(key), "missing {key} in {out}");
    }
}

#[test]
fn overrides_change_seed_and_policy() {
    let p = write("over.toml", GOOD);
    let (code, out, _) = sluice(&[
        "sim",
        p.to_str().unwrap(),
        "--json",
        "--seed",
        "9",
        "--scheduler",
        "sstf",
    ]);
    assert_eq!(code, 0);
    assert!(
        out.contains("\"seed\": 9") && out.contains("\"scheduler\": \"sstf\""),
        "{out}"
    );
    let (code, _, err) = sluice(&["sim", p.to_str().unwrap(), "--scheduler", "nope"]);
    assert_ne!(code, 0);
    assert!(err.contains("nope"), "{err}");
}

#[test]
fn bad_input_gets_one_line_naming_file_and_key() {
    for (name, from, to, needle) in [
        ("key", "seed = 2", "seed = 2\ncolour = 1", "colour"),
        ("preset", "maxtor-stm332061", "no-such-disk", "no-such-disk"),
        (
            "policy",
            "\"clook\"",
            "\"no-such-policy\"",
            "no-such-policy",
        ),
        (
            "size",
            "count = 2",
            "count = 2\nrequest_kib = 0",
            "request_kib",
        ),
        (
            "type",
            "duration_s = 5",
            "duration_s = \"long\"",
            "duration_s",
        ),
        ("toml", "[device]", "[device", "line"),
    ] {
        let p = write(&format!("bad-{name}.toml"), &GOOD.replace(from, to));
        let (code, out, err) = sluice(&["sim", p.to_str().unwrap()]);
        assert_ne!(code, 0, "{name}");
        assert!(out.is_empty(), "{name}: {out}");
        assert_eq!(err.trim().lines().count(), 1, "{name}: {err}");
        assert!(
            err.contains(needle) && err.contains(p.to_str().unwrap()),
            "{name}: {err}"
        );
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
    let (code, _, err) = sluice(&["sim", "/nonexistent/s.toml"]);
    assert_ne!(code, 0);
    assert!(err.contains("/nonexistent/s.toml"), "{err}");
}

#[test]
fn list_names_policies_presets_and_patterns() {
    let (code, out, _) = sluice(&["list"]);
    assert_eq!(code, 0);
    for word in [
        "noop",
        "clook",
        "sstf",
        "mclock",
        "at_limit",
        "maxtor-stm332061",
        "seq-read",
        "rand-write",
    ] {
        assert!(out.contains(word), "{word} missing from list");
    }
}

#[test]
fn help_teaches_with_examples() {
    let (code, out, _) = sluice(&["--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("sim") && out.contains("Examples"), "{out}");
}

#[test]
fn sim_writes_a_request_log_on_request() {
    let p = write("log.toml", GOOD);
    let log = p.with_file_name("requests.csv");
    let (code, out, err) = sluice(&[
        "sim",
        p.to_str().unwrap(),
        "--log-requests",
        log.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("aggregate"));
    let text = std::fs::read_to_string(&log).unwrap();
    let rows = common::request_log(&log);
    assert!(rows.len() > 100);
    assert!(rows.iter().all(|r| r[0] == "r0" || r[0] == "r1"));
    // A log that cannot be written is a one-line error naming the flag.
    let (code, _, err) = sluice(&[
        "sim",
        p.to_str().unwrap(),
        "--log-requests",
        "/nonexistent-dir/x.csv",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("--log-requests"), "{err}");
    // An existing file is not truncated: a refusal, the file as it was.
    let (code, _, err) = sluice(&[
        "sim",
        p.to_str().unwrap(),
        "--log-requests",
        log.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("exists"), "{err}");
    assert_eq!(std::fs::read_to_string(&log).unwrap(), text);
}

#[test]
fn a_fio_job_given_as_a_scenario_points_to_sluice_fio() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let job = root.join("scenarios/fio/paced-writers.fio");
    let job = job.to_str().unwrap();
    for cmd in ["sim", "compare", "run"] {
        let (code, _, err) = sluice(&[cmd, job]);
        assert_ne!(code, 0, "{cmd}");
        assert!(
            err.contains("is a fio job file") && err.contains("sluice fio"),
            "{cmd}: {err}"
        );
        assert_eq!(err.trim().lines().count(), 1, "{cmd}: {err}");
    }
}
