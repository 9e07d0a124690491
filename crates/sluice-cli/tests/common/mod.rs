//! What the CLI test files share: run the built binary and collect its
//! exit code and output, write scenario and job files, read JSON, and
//! the loop devices and skips of the tests that need root or io_uring.

// Each test file is its own crate and uses only some of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// Run `sluice ARGS` in `cwd`: (exit code, stdout, stderr).
pub(crate) fn sluice_in(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sluice"))
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("run sluice");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Run `sluice ARGS` in the test's own directory.
pub(crate) fn sluice(args: &[&str]) -> (i32, String, String) {
    sluice_in(Path::new("."), args)
}

/// The workspace root, where the README's examples run from.
pub(crate) fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Write `text` to `dir/name` and return the path.
pub(crate) fn write_in(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Write `text` to `name` in a folder of this test process's own under
/// the system's temporary directory (for tests that need no clean-up).
pub(crate) fn write_temp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sluice-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    write_in(&dir, name, text)
}

/// A fresh temporary directory holding `name` with `text` in it.
pub(crate) fn dir_with(name: &str, text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_in(dir.path(), name, text);
    dir
}

/// `dir`/plain.img, a regular file of 1 MiB (not a block device, so
/// `--device` refuses it), as an argument.
pub(crate) fn plain_file(dir: &Path) -> String {
    let p = dir.join("plain.img");
    std::fs::write(&p, vec![0u8; 1 << 20]).unwrap();
    p.to_str().unwrap().to_string()
}

/// The rows of the request log (`--log-requests`) at `path`, each split
/// into its fields, after checking the header and that each row's times
/// are in order (arrival, dispatch, completion).
pub(crate) fn request_log(path: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("flow,thread,dir,sync,sector,sectors,arrival_ms,dispatched_ms,completed_ms")
    );
    let rows: Vec<Vec<String>> = lines
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    for r in &rows {
        let t: Vec<f64> = r[6..9].iter().map(|x| x.parse().unwrap()).collect();
        assert!(t[0] <= t[1] && t[1] <= t[2], "times out of order: {r:?}");
    }
    rows
}

/// `out` as JSON; a panic showing `out` if it is not.
pub(crate) fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

/// A failure as the CLI promises them: exit 1, one line, no panic;
/// `what` says which case failed.
pub(crate) fn one_line_error(what: &str, code: i32, err: &str) {
    assert_eq!(code, 1, "{what}: {err}");
    assert!(!err.contains("panicked"), "{what}: {err}");
    assert_eq!(err.trim().lines().count(), 1, "{what}: {err}");
}

/// Whether `err` says the kernel has no usable io_uring (after saying the
/// test is skipped): such tests pass where they cannot run.
pub(crate) fn no_uring(err: &str) -> bool {
    let missing = err.contains("io_uring unavailable");
    if missing {
        eprintln!("skipped: {}", err.trim());
    }
    missing
}

/// The bytes of a flow's file of `file_gib` GiB, in whole sectors as a
/// scenario sizes it.
pub(crate) fn file_bytes(file_gib: f64) -> u64 {
    (file_gib * f64::from(1u32 << 21)) as u64 * 512
}

/// Wait up to `limit` for the run in `cwd` to have started: its folder
/// holds the file of its last flow (`flows` of them) filled to `bytes`,
/// which is the last thing done before its clock starts. False at the
/// deadline (or if `child` ended first): the deadline is a failure, not
/// the synchronisation.
pub(crate) fn run_started(
    child: &mut std::process::Child,
    cwd: &Path,
    flows: usize,
    bytes: u64,
    limit: std::time::Duration,
) -> bool {
    let last = format!("sluice-{:05}-", flows - 1);
    let filled = || {
        std::fs::read_dir(cwd)
            .into_iter()
            .flatten()
            .flatten()
            .any(|d| {
                std::fs::read_dir(d.path())
                    .into_iter()
                    .flatten()
                    .flatten()
                    .any(|f| {
                        f.file_name().to_string_lossy().starts_with(&last)
                            && f.metadata().is_ok_and(|m| m.len() >= bytes)
                    })
            })
    };
    let t = std::time::Instant::now();
    while t.elapsed() < limit {
        if filled() {
            return true;
        }
        if child.try_wait().ok().flatten().is_some() {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    false
}

/// Whether the tests run as root.
pub(crate) fn root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

pub(crate) use sluice_real::testkit::Loop;

/// A loop device over `file` (`--direct-io=on` with `direct`); None, after
/// saying why, where loop devices cannot be made (not root, no loop
/// module).
pub(crate) fn loop_over(file: &Path, direct: bool) -> Option<Loop> {
    Loop::over(file, direct)
        .map_err(|why| eprintln!("skipped: {why}"))
        .ok()
}

/// A scenario of two sequential readers, `light` and `heavy`, weighted
/// 100:300 under bfq at queue depth 1 (the weights test of `run` and
/// `kernel`).
pub(crate) fn two_readers(
    name: &str,
    duration_s: f64,
    warmup_s: f64,
    kib: u32,
    file_gib: f64,
) -> String {
    let reader = |flow: &str, weight: u32| {
        format!("[[flow]]\nname = \"{flow}\"\npattern = \"seq-read\"\nrequest_kib = {kib}\nfile_gib = {file_gib}\nweight = {weight}\n")
    };
    format!(
        "name = \"{name}\"\nseed = 1\nduration_s = {duration_s}\nwarmup_s = {warmup_s}\n[device]\nqueue_depth = 1\n[scheduler]\nname = \"bfq\"\n{}{}",
        reader("light", 100),
        reader("heavy", 300)
    )
}
