//! Every file the binary reads goes through one bounded reader: special
//! files and oversized ones get one line and exit 1 at once, and the
//! readers' limits (nesting, includes, line ends) hold end to end.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sluice_input::testkit::{refused, scratch};
use sluice_input::Kind;

/// The DiskSim validation files shipped with the device crate.
fn disksim(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../sluice-device/data/disksim")
        .join(name)
}

/// Run `sluice ARGS` in `dir`, killed after `limit`: exit code (None if
/// killed), stdout, stderr.
fn bounded(dir: &Path, args: &[&str], limit: Duration) -> (Option<i32>, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sluice"))
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let code = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s.code();
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = child.wait_with_output().unwrap();
    (
        code,
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The one-line error of a run that must fail quickly.
fn fails(dir: &Path, args: &[&str]) -> String {
    let (code, _, err) = bounded(dir, args, Duration::from_secs(30));
    assert!(
        matches!(code, Some(1 | 2)),
        "{args:?}: exit {code:?}: {err}"
    );
    let err = err.trim();
    assert!(!err.contains('\n') && !err.is_empty(), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    err.to_string()
}

fn scenario(dir: &Path, name: &str, device: &str, flow: &str) -> String {
    let p = dir.join(name);
    std::fs::write(
        &p,
        format!(
            "name = \"x\"\nseed = 1\nduration_s = 1\nwarmup_s = 0\n[device]\n{device}\n\
             [scheduler]\nname = \"noop\"\n[[flow]]\nname = \"f\"\n{flow}\n"
        ),
    )
    .unwrap();
    p.display().to_string()
}

/// Defect 7: `/dev/zero` as a scenario, a trace or a diskspecs was read
/// until the memory ran out; a FIFO as the scenario blocked for ever.
/// Each kind of input, through the command that reads it.
#[test]
fn every_input_refuses_special_and_oversized_files() {
    let dir = scratch("cli-inputs");
    let short = dir.join("short.trace");
    let lines: Vec<String> = std::fs::read_to_string(disksim("ibm18es.trace"))
        .unwrap()
        .lines()
        .take(20)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&short, lines.concat()).unwrap();
    let short = short.display().to_string();
    let ibm = disksim("ibm18es.diskspecs").display().to_string();
    let kinds = [
        Kind::Scenario,
        Kind::Trace,
        Kind::DiskSpecs,
        Kind::FioJob,
        Kind::ReportJson,
    ];
    for kind in kinds {
        let files = scratch("cli-inputs-kind");
        for (path, words) in refused(&files, kind) {
            let p = path.display().to_string();
            let runs: Vec<Vec<String>> = match kind {
                Kind::Scenario => vec![vec!["sim".into(), p.clone()]],
                Kind::Trace => vec![
                    vec![
                        "sim".into(),
                        scenario(
                            &dir,
                            "t.toml",
                            "preset = \"maxtor-stm332061\"",
                            &format!("pattern = \"trace\"\ntrace = \"{p}\"\nformat = \"blkparse\""),
                        ),
                    ],
                    vec![
                        "validate".into(),
                        "--disk".into(),
                        ibm.clone(),
                        "--trace".into(),
                        p.clone(),
                    ],
                ],
                Kind::DiskSpecs => vec![
                    vec![
                        "sim".into(),
                        scenario(
                            &dir,
                            "d.toml",
                            &format!("diskspecs = \"{p}\""),
                            "pattern = \"rand-read\"",
                        ),
                    ],
                    vec![
                        "validate".into(),
                        "--disk".into(),
                        p.clone(),
                        "--trace".into(),
                        short.clone(),
                    ],
                ],
                Kind::FioJob => vec![vec!["fio".into(), p.clone()]],
                _ => vec![vec![
                    "report".into(),
                    p.clone(),
                    "-o".into(),
                    dir.join("r.html").display().to_string(),
                ]],
            };
            for args in runs {
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                let err = fails(&dir, &args);
                assert!(err.contains(words), "{args:?}: {err}");
            }
        }
        std::fs::remove_dir_all(files).unwrap();
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Defects 4 and 5 end to end (reliability checks 4 and 5): deep nesting
/// and exponential includes are one-line errors, quickly.
#[test]
fn nesting_and_include_blowups_are_one_line_errors() {
    let dir = scratch("cli-nesting");
    let short = dir.join("short.trace");
    let text = std::fs::read_to_string(disksim("ibm18es.trace")).unwrap();
    std::fs::write(&short, text.lines().take(20).collect::<Vec<_>>().join("\n")).unwrap();
    let short = short.display().to_string();
    let nest = dir.join("nest.diskspecs");
    std::fs::write(
        &nest,
        format!(
            "disksim_disk X {{ a = {}{}}}\n",
            "[".repeat(20_000),
            "]".repeat(20_000)
        ),
    )
    .unwrap();
    let err = fails(
        &dir,
        &[
            "validate",
            "--disk",
            nest.to_str().unwrap(),
            "--trace",
            &short,
        ],
    );
    assert!(err.contains("nest more than 64 deep"), "{err}");
    for f in ["ibm18es.model", "ibm18es.seek"] {
        std::fs::copy(disksim(f), dir.join(f)).unwrap();
    }
    let specs = std::fs::read_to_string(disksim("ibm18es.diskspecs")).unwrap();
    let x = sluice_input::testkit::include_blowup(&dir, &specs);
    let err = fails(
        &dir,
        &["validate", "--disk", x.to_str().unwrap(), "--trace", &short],
    );
    assert!(err.contains("includes expanded"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Defect 16 end to end (reliability check 16): a CR-only DiskSim trace
/// replays every request.
#[test]
fn a_cr_only_trace_validates_every_request() {
    let dir = scratch("cli-cr");
    let text = std::fs::read_to_string(disksim("ibm18es.trace")).unwrap();
    let lf: String = text.lines().take(50).map(|l| format!("{l}\n")).collect();
    let ibm = disksim("ibm18es.diskspecs").display().to_string();
    let mut counts = Vec::new();
    for (name, t) in [
        ("lf.trace", lf.clone()),
        ("cr.trace", lf.replace('\n', "\r")),
    ] {
        std::fs::write(dir.join(name), t).unwrap();
        let p = dir.join(name).display().to_string();
        let (code, out, err) = bounded(
            &dir,
            &["validate", "--disk", &ibm, "--trace", &p, "--json"],
            Duration::from_secs(60),
        );
        assert_eq!(code, Some(0), "{err}");
        counts.push(
            out.split("\"requests\":")
                .nth(1)
                .and_then(|r| {
                    r.trim_start()
                        .split(|c: char| !c.is_ascii_digit())
                        .next()?
                        .parse::<u64>()
                        .ok()
                })
                .expect("a request count"),
        );
    }
    assert_eq!(counts, [50, 50]);
    std::fs::remove_dir_all(dir).unwrap();
}
