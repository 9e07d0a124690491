//! `sluice run`: real I/O on small files, as a user runs it. Skipped (with a
//! message) where the kernel has no usable io_uring.

use std::path::{Path, PathBuf};

mod common;
use common::{json, loop_over, no_uring, plain_file, request_log, sluice_in, write_in};

/// The scenario `body` as `dir`/s.toml.
fn scenario(dir: &Path, body: &str) -> PathBuf {
    write_in(dir, "s.toml", body)
}

/// `sluice run ... --json` in `cwd`; None (after saying so) without io_uring.
fn run_json(cwd: &Path, args: &[&str]) -> Option<serde_json::Value> {
    let (code, out, err) = sluice_in(cwd, args);
    if no_uring(&err) {
        return None;
    }
    assert_eq!(code, 0, "sluice run failed: {err}");
    Some(json(&out))
}

/// Two small readers weighted 100:300 under bfq.
fn two_readers() -> String {
    common::two_readers("two", 1.5, 0.5, 64, 0.01)
}

#[test]
fn two_weighted_readers_report_and_clean_up() {
    let scen = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let s = scenario(scen.path(), &two_readers());
    let Some(j) = run_json(cwd.path(), &["run", s.to_str().unwrap(), "--json"]) else {
        return;
    };
    assert_eq!(j["schema"], "sluice.run/1");
    assert_eq!(j["scheduler"], "bfq");
    let e = &j["engine"];
    assert!(e["target"].as_str().unwrap().contains("sluice-run-"));
    assert!(e["direct"].is_boolean());
    assert_eq!(e["queue_depth"], 1);
    // Named wherever the folder's block device shows one in /sys.
    let holder = std::fs::metadata(cwd.path()).map(|m| {
        use std::os::unix::fs::MetadataExt;
        (libc::major(m.dev()), libc::minor(m.dev()))
    });
    let sysfs = holder.map(|(a, b)| format!("/sys/dev/block/{a}:{b}/queue/scheduler"));
    match sysfs.ok().filter(|p| Path::new(p).exists()) {
        Some(p) => assert!(e["kernel_scheduler"].is_string(), "{p} exists: {e}"),
        None => assert!(e["kernel_scheduler"].is_null() || e["kernel_scheduler"].is_string()),
    }
    assert!(e["verified_blocks"].is_null() && e["verify_errors"].is_null());
    let wall = j["sim_time_s"].as_f64().unwrap();
    assert!((1.4..5.0).contains(&wall), "ran {wall} s");
    let flows = j["flows"].as_array().unwrap();
    assert_eq!(flows.len(), 2);
    for (f, w) in flows.iter().zip([100, 300]) {
        assert_eq!(f["weight"], w);
        assert!(f["requests"].as_u64().unwrap() > 0, "{f}");
        assert!(f["bytes"].as_u64().unwrap() > 0);
        assert!(f["lat_ms"]["p99"].as_f64().unwrap() > 0.0);
        assert!(f["done_s"].is_null());
    }
    assert!(j["aggregate"]["mb_s"].as_f64().unwrap() > 0.0);
    let left: Vec<_> = std::fs::read_dir(cwd.path()).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn startup_replays_all_xterm_requests() {
    let scen = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let trace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../sluice-workload/data/startup/xterm.trace")
        .canonicalize()
        .unwrap();
    let body = format!(
        r#"name = "st"
duration_s = 30
warmup_s = 0
stop_after_finite = true
[device]
queue_depth = 4
[scheduler]
name = "bfq+"
[[flow]]
name = "r"
pattern = "seq-read"
file_gib = 0.01
[[flow]]
name = "xterm"
pattern = "startup"
trace = "{}"
start_s = 0.1
"#,
        trace.display()
    );
    let s = scenario(scen.path(), &body);
    let Some(j) = run_json(cwd.path(), &["run", s.to_str().unwrap(), "--json"]) else {
        return;
    };
    let x = &j["flows"][1];
    assert_eq!(x["name"], "xterm");
    assert_eq!(x["requests"], 718, "{x}");
    assert!(x["done_s"].as_f64().unwrap() > 0.0);
    assert!(
        j["sim_time_s"].as_f64().unwrap() < 30.0,
        "stopped when done"
    );
}

#[test]
fn missing_dir_is_one_line_error() {
    let scen = tempfile::tempdir().unwrap();
    // Checked first, also when the scenario has its own error.
    let s = scenario(
        scen.path(),
        &two_readers().replace("warmup_s = 0.5", "warmup_s = 1.5"),
    );
    let (code, out, err) = sluice_in(
        scen.path(),
        &["run", s.to_str().unwrap(), "--dir", "/nonexistent/sluice/x"],
    );
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("/nonexistent/sluice/x") && !err.contains("panicked"));
}

#[test]
fn dir_and_keep() {
    let scen = tempfile::tempdir().unwrap();
    let s = scenario(
        scen.path(),
        &two_readers().replace("duration_s = 1.5", "duration_s = 0.6"),
    );
    let s = s.to_str().unwrap();
    // --dir without --keep: sluice's files go, the folder stays.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let Some(j) = run_json(scen.path(), &["run", s, "--dir", d, "--json"]) else {
        return;
    };
    assert_eq!(j["engine"]["target"], d);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    // --dir --keep: the two files stay, full size, real data.
    run_json(scen.path(), &["run", s, "--dir", d, "--keep", "--json"]).unwrap();
    let files: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 2);
    for f in &files {
        let data = std::fs::read(f).unwrap();
        assert_eq!(
            data.len() as u64,
            (0.01 * (1u64 << 30) as f64) as u64 / 512 * 512
        );
        assert!(data.iter().all(|&b| b != 0));
    }
    // A fresh folder with --keep stays.
    let cwd = tempfile::tempdir().unwrap();
    run_json(cwd.path(), &["run", s, "--keep", "--json"]).unwrap();
    assert_eq!(std::fs::read_dir(cwd.path()).unwrap().count(), 1);
}

const WRITERS: &str = r#"name = "writers"
seed = 1
duration_s = 1.5
warmup_s = 0.5
[device]
queue_depth = 4
[scheduler]
name = "noop"
[[flow]]
name = "w"
count = 2
pattern = "rand-write"
request_kib = 4
file_gib = 0.004
outstanding = 8
"#;

#[test]
fn verify_reads_back_every_written_block() {
    let scen = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let s = scenario(scen.path(), WRITERS);
    let Some(j) = run_json(
        cwd.path(),
        &["run", s.to_str().unwrap(), "--verify", "--json"],
    ) else {
        return;
    };
    let e = &j["engine"];
    let blocks = e["verified_blocks"].as_u64().unwrap();
    // Two files of 0.004 GiB (8389 blocks each): at most every block of
    // both, at least one write's.
    assert!((8..=2 * 8389).contains(&blocks), "{blocks} blocks");
    assert_eq!(e["verify_errors"], 0);
}

#[test]
fn device_must_be_a_block_device() {
    let scen = tempfile::tempdir().unwrap();
    let s = scenario(scen.path(), &two_readers());
    let plain = plain_file(scen.path());
    let (code, _, err) = sluice_in(
        scen.path(),
        &["run", s.to_str().unwrap(), "--device", &plain],
    );
    assert!(code != 0 && code != 101, "exit {code}");
    assert!(err.contains("not a block device"), "{err}");
    let (code, _, err) = sluice_in(scen.path(), &["run", s.to_str().unwrap(), "--allow-writes"]);
    assert!(
        code != 0 && code != 101 && err.contains("--device"),
        "{err}"
    );
}

#[test]
fn a_device_is_read_but_not_written_without_allow_writes() {
    let scen = tempfile::tempdir().unwrap();
    let img = scen.path().join("dev.img");
    let data: Vec<u8> = (0..16u32 << 20).map(|i| (i % 253) as u8).collect();
    std::fs::write(&img, &data).unwrap();
    let Some(lo) = loop_over(&img, false) else {
        return;
    };
    let w = scenario(scen.path(), WRITERS);
    let (code, _, err) = sluice_in(
        scen.path(),
        &["run", w.to_str().unwrap(), "--device", &lo.dev],
    );
    assert!(code != 0 && code != 101, "exit {code}: {err}");
    assert!(err.contains("--allow-writes"), "{err}");
    let readers = two_readers().replace("file_gib = 0.01", "file_gib = 0.005");
    let r = scenario(scen.path(), &readers);
    let Some(j) = run_json(
        scen.path(),
        &["run", r.to_str().unwrap(), "--device", &lo.dev, "--json"],
    ) else {
        return;
    };
    assert_eq!(j["engine"]["target"], lo.dev.as_str());
    assert!(j["aggregate"]["requests"].as_u64().unwrap() > 0);
    drop(lo);
    assert!(
        std::fs::read(&img).unwrap() == data,
        "the device's data changed"
    );
}

#[test]
fn writes_to_a_device_with_allow_writes_verify() {
    let scen = tempfile::tempdir().unwrap();
    let img = scen.path().join("dev.img");
    std::fs::write(&img, vec![0u8; 16 << 20]).unwrap();
    let Some(lo) = loop_over(&img, false) else {
        return;
    };
    let w = scenario(scen.path(), WRITERS);
    let args = [
        "run",
        w.to_str().unwrap(),
        "--device",
        &lo.dev,
        "--allow-writes",
        "--verify",
        "--json",
    ];
    let Some(j) = run_json(scen.path(), &args) else {
        return;
    };
    assert!(j["engine"]["verified_blocks"].as_u64().unwrap() > 0);
    assert_eq!(j["engine"]["verify_errors"], 0);
}

/// Issue 42: the library printed its warnings itself. Now they are the
/// report's `warnings` (in the library's words) and the CLI prints each on
/// stderr with its own flag names.
#[test]
fn warnings_are_in_the_report_and_printed_by_the_cli() {
    let scen = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let s = scenario(
        scen.path(),
        &common::two_readers("two", 0.3, 0.1, 64, 0.001),
    );
    let (code, out, err) = sluice_in(
        cwd.path(),
        &["run", s.to_str().unwrap(), "--verify", "--json"],
    );
    if no_uring(&err) {
        return;
    }
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning: --verify: no flow writes, there is nothing to verify"),
        "{err}"
    );
    let j = json(&out);
    let warnings: Vec<&str> = j["warnings"]
        .as_array()
        .expect("a warnings array")
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert!(
        warnings.contains(&"`verify`: no flow writes, there is nothing to verify"),
        "{warnings:?}"
    );
    assert_eq!(
        err.lines().filter(|l| l.starts_with("warning: ")).count(),
        warnings.len(),
        "each warning printed once: {err}"
    );
}

#[test]
fn sigint_stops_the_run_and_removes_its_files() {
    let scen = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let long = two_readers().replace("duration_s = 1.5", "duration_s = 60");
    let s = scenario(scen.path(), &long);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sluice"))
        .current_dir(cwd.path())
        .args(["run", s.to_str().unwrap(), "--json"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupted once it has filled its files and started, not after a
    // guess at how long that takes.
    let started = common::run_started(
        &mut child,
        cwd.path(),
        2,
        common::file_bytes(0.01),
        std::time::Duration::from_secs(60),
    );
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    if no_uring(&err) {
        return;
    }
    assert!(started, "the run never started: {err}");
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    let left: Vec<_> = std::fs::read_dir(cwd.path()).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn recorded_startup_replays_at_the_recorded_sectors_in_a_sparse_file() {
    let scen = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let s = scenario(
        scen.path(),
        r#"name = "recorded"
seed = 1
duration_s = 120
stop_after_finite = true
[device]
queue_depth = 1
[scheduler]
name = "noop"
[[flow]]
name = "xterm"
pattern = "startup"
trace = "xterm"
replay = "recorded"
"#,
    );
    let Some(j) = run_json(cwd.path(), &["run", s.to_str().unwrap(), "--json"]) else {
        return;
    };
    let x = &j["flows"][0];
    assert_eq!(x["requests"], 718, "{x}");
    // The recorded gaps alone add up to more than a second.
    let done = x["done_s"].as_f64().expect("a start-up time");
    // (The run ends with the start-up; the long duration only leaves room
    // for a disk that stalls under other tests' writes.)
    assert!((1.0..120.0).contains(&done), "{done} s");
}

#[test]
fn a_timeline_bins_each_flows_bytes_by_wall_clock() {
    let scen = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let s = scenario(scen.path(), &two_readers());
    let args = ["run", s.to_str().unwrap(), "--json", "--timeline", "250"];
    let Some(j) = run_json(cwd.path(), &args) else {
        return;
    };
    let t = &j["timeline"];
    assert_eq!(t["interval_s"], 0.25);
    for f in j["flows"].as_array().unwrap() {
        let name = f["name"].as_str().unwrap();
        let bins: Vec<f64> = t["flows"][name]
            .as_array()
            .unwrap_or_else(|| panic!("no series for {name}: {t}"))
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        // 1.5 s of run (warm-up included) at least.
        assert!(bins.len() >= 6, "{name}: {bins:?}");
        // The warm-up (0.5 s) is two bins; the rest is what the flow is credited with.
        let after: f64 = bins[2..].iter().map(|mb_s| mb_s * 0.25 * 1e6).sum();
        let bytes = f["bytes"].as_f64().unwrap();
        assert!(
            bytes > 0.0 && (after - bytes).abs() < 1.0,
            "{name}: {after} against {bytes}"
        );
    }
}

#[test]
fn run_logs_every_request_as_sim_does() {
    let scen = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let s = scenario(scen.path(), &two_readers());
    let log = cwd.path().join("run.csv");
    let Some(j) = run_json(
        cwd.path(),
        &[
            "run",
            s.to_str().unwrap(),
            "--log-requests",
            log.to_str().unwrap(),
            "--json",
        ],
    ) else {
        return;
    };
    let rows = request_log(&log);
    // Every completed request, warm-up included: at least those the report counts.
    let counted: u64 = j["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["requests"].as_u64().unwrap())
        .sum();
    assert!(
        rows.len() as u64 >= counted,
        "{} rows, {counted} counted",
        rows.len()
    );
    for r in &rows {
        assert!(r[0] == "light" || r[0] == "heavy", "{r:?}");
        let fields = (r[2].as_str(), r[3].as_str(), r[5].as_str());
        assert_eq!(fields, ("R", "1", "128"), "{r:?}");
    }
    // A sequential reader's sectors follow each other in its own space.
    let light: Vec<u64> = rows
        .iter()
        .filter(|r| r[0] == "light")
        .map(|r| r[4].parse().unwrap())
        .collect();
    assert!(
        light.windows(2).take(5).all(|w| w[1] == w[0] + 128),
        "{light:?}"
    );
    // Named outputs are never overwritten.
    let (code, _, err) = sluice_in(
        cwd.path(),
        &[
            "run",
            s.to_str().unwrap(),
            "--log-requests",
            log.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("exists"), "{err}");
}
