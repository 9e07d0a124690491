//! Bad input and bad output never crash the binary: closed pipes end
//! quietly, impossible values get one line, help examples run as written.

use std::process::{Command, Stdio};

mod common;
use common::{one_line_error, sluice, sluice_in, workspace, write_temp as write};

/// A pipe whose reading end is already closed.
fn closed_pipe() -> std::os::fd::OwnedFd {
    use std::os::fd::FromRawFd;
    let mut fds = [0; 2];
    // SAFETY: pipe() fills both descriptors, which we then own.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: fds[0] is ours and closed once.
    unsafe { libc::close(fds[0]) };
    // SAFETY: fds[1] is ours, owned from here on.
    unsafe { std::os::fd::OwnedFd::from_raw_fd(fds[1]) }
}

#[test]
fn a_closed_stdout_ends_quietly_not_in_a_panic() {
    for args in [
        &["list"][..],
        &["sim", "scenarios/1r-seq.toml", "--json"][..],
    ] {
        // The reader is gone before anything is written.
        let out = Command::new(env!("CARGO_BIN_EXE_sluice"))
            .current_dir(workspace())
            .args(args)
            .stdout(Stdio::from(closed_pipe()))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(141), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: quiet, got {err}");
    }
}

#[test]
fn help_examples_run_as_written() {
    let (code, out, _) = sluice_in(&workspace(), &["--help"]);
    assert_eq!(code, 0);
    let line = out
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("sluice validate"))
        .expect("a validate example");
    let args: Vec<&str> = line.split_whitespace().skip(1).collect();
    let (code, out, err) = sluice_in(&workspace(), &args);
    assert_eq!(code, 0, "{line}: {err}");
    assert!(out.contains("demerit"), "{out}");
}

const STARTUP: &str = r#"name = "s"
duration_s = 20
stop_after_finite = true
[device]
preset = "maxtor-stm332061"
[scheduler]
name = "bfq+"
[[flow]]
name = "xterm"
pattern = "startup"
trace = "xterm"
[[flow]]
name = "r"
pattern = "seq-read"
"#;

#[test]
fn the_table_shows_start_up_times() {
    let p = write("startup.toml", STARTUP);
    let (code, out, err) = sluice(&["sim", p.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("start-up s"), "{out}");
    let row = out.lines().find(|l| l.starts_with("xterm")).unwrap();
    let last: f64 = row.split_whitespace().last().unwrap().parse().unwrap();
    assert!(last > 0.1 && last < 10.0, "{row}");
    // Without start-up flows the table keeps its columns.
    let (_, out, _) = sluice_in(&workspace(), &["sim", "scenarios/1r-seq.toml"]);
    assert!(!out.contains("start-up"), "{out}");
}

#[test]
fn list_explains_runs() {
    let (_, out, _) = sluice(&["list"]);
    assert!(out.contains("runs = N"), "{out}");
}

#[test]
fn impossible_values_get_one_line_and_exit_1() {
    for (name, text, word) in [
        (
            "off.toml",
            STARTUP.replace("name = \"r\"", "name = \"r\"\noffset_gib = 9e12"),
            "offset_gib",
        ),
        (
            "dup.toml",
            STARTUP.replace("name = \"r\"", "name = \"xterm\""),
            "xterm",
        ),
        ("eof.toml", format!("{STARTUP}name ="), "missing"),
    ] {
        let p = write(name, &text);
        let (code, _, err) = sluice(&["sim", p.to_str().unwrap()]);
        one_line_error(name, code, &err);
        assert!(err.contains(word), "{name}: {err}");
    }
}

/// Issue 43, defect 12: `burst_ms = 1e300` was quoted back as a 301-digit
/// number; every stderr line stays short.
#[test]
fn burst_ms_1e300_is_quoted_short() {
    let text = STARTUP.replace(
        "name = \"r\"",
        "name = \"r\"\nlimit_iops = 5\nburst_ms = 1e300",
    );
    let p = write("burst.toml", &text);
    let (code, _, err) = sluice(&["sim", p.to_str().unwrap()]);
    one_line_error("burst.toml", code, &err);
    assert!(
        err.trim_end().ends_with("(got 1e300)") && err.len() <= 200,
        "{err}"
    );
}

/// Issue 43, defect 12: `sim --seed -1` and `--timeline -5` were clap parse
/// errors ("unexpected argument '-1'"); they are one-line range refusals.
#[test]
fn sim_negative_seed_and_timeline_are_range_refusals() {
    let p = write("neg.toml", STARTUP);
    let p = p.to_str().unwrap();
    for (flag, value, want) in [
        (
            "--seed",
            "-1",
            "--seed must be 0..=18446744073709551615 (got -1)",
        ),
        (
            "--timeline",
            "-5",
            "--timeline must be 1..=3600000 (got -5)",
        ),
        ("--timeline", "0", "--timeline must be 1..=3600000 (got 0)"),
    ] {
        let (code, _, err) = sluice(&["sim", p, flag, value]);
        one_line_error(flag, code, &err);
        assert_eq!(err.trim(), format!("error: {want}"));
    }
}

#[test]
fn impossible_drive_mechanics_are_refused() {
    let data = workspace().join("crates/sluice-device/data/disksim");
    let dir = std::env::temp_dir().join(format!("sluice-hard-disk-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["ibm18es.diskspecs", "ibm18es.seek"] {
        std::fs::copy(data.join(f), dir.join(f)).unwrap();
    }
    let model = std::fs::read_to_string(data.join("ibm18es.model")).unwrap();
    std::fs::write(
        dir.join("ibm18es.model"),
        model.replace(
            "Rotation speed (in rpms) = 7200",
            "Rotation speed (in rpms) = 1.3e11",
        ),
    )
    .unwrap();
    let trace = data.join("ibm18es.trace");
    let (code, _, err) = sluice(&[
        "validate",
        "--disk",
        dir.join("ibm18es.diskspecs").to_str().unwrap(),
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("Rotation speed") && err.contains("1..=1000000"),
        "{err}"
    );
}

/// Issue 43 defect 12, every command: a negative number was clap's
/// "unexpected argument '-1'" (taken for a flag); it is a range refusal
/// naming the option, in one line.
#[test]
fn negative_numbers_are_range_refusals_in_every_command() {
    let s = common::workspace().join("scenarios/run/iops-bfq.toml");
    let s = s.to_str().unwrap();
    for (args, said) in [
        (vec!["run", s, "--duration", "-1"], "--duration"),
        (vec!["run", s, "--timeline", "-1"], "--timeline"),
        (vec!["compare", s, "--seed", "-1"], "--seed"),
        (
            vec![
                "emulate",
                "--preset",
                "maxtor-stm332061",
                "--size-gib",
                "-1",
                "--mount",
                "/nonexistent",
            ],
            "--size-gib",
        ),
    ] {
        let (code, _, err) = common::sluice(&args);
        assert!(
            code != 0 && !err.contains("unexpected argument"),
            "{args:?}: {err}"
        );
        assert!(
            err.contains(said) && err.trim().lines().count() == 1,
            "{args:?}: {err}"
        );
    }
}
