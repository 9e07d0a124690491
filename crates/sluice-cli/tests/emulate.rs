//! `sluice emulate`: refusals everywhere; where root and /dev/fuse are, the
//! whole life: the file appears, SIGTERM unmounts and exits 0.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{one_line_error, root, sluice, sluice_in};

#[test]
fn bad_input_is_refused_in_one_line() {
    let d = tempfile::tempdir().unwrap();
    let m = d.path().to_str().unwrap();
    let (code, _, err) = sluice_in(
        d.path(),
        &[
            "emulate",
            "--preset",
            "nope",
            "--size-gib",
            "1",
            "--mount",
            m,
        ],
    );
    one_line_error("unknown preset", code, &err);
    assert!(
        err.contains("unknown preset") && err.contains("maxtor-stm332061"),
        "{err}"
    );
    let (code, _, err) = emulate(d.path(), "1", "/no/such/dir", &[]);
    one_line_error("missing mount", code, &err);
    assert!(err.contains("/no/such/dir"), "{err}");
    let (code, _, err) = emulate(d.path(), "9999", m, &[]);
    one_line_error("too big", code, &err);
    let (code, _, err) = emulate(d.path(), "1", m, &["--queue-depth", "8"]);
    one_line_error("queue depth", code, &err);
    assert!(err.contains("--queue-depth"), "{err}");
}

#[test]
fn help_shows_how_to_use_it_with_a_loop_device() {
    let (code, out, _) = sluice(&["emulate", "--help"]);
    assert_eq!(code, 0);
    for want in [
        "--preset",
        "--diskspecs",
        "--size-gib",
        "--mount",
        "--queue-depth",
        "--internal",
        "losetup",
        "SIGTERM",
    ] {
        assert!(out.contains(want), "help lacks {want}:\n{out}");
    }
}

fn mounted(dir: &Path) -> bool {
    let dir = dir.canonicalize().unwrap();
    std::fs::read_to_string("/proc/self/mounts")
        .unwrap_or_default()
        .lines()
        .any(|l| l.split_whitespace().nth(1) == dir.to_str())
}

/// Sends SIGKILL and detaches the mount if the test fails half-way.
struct Guard(std::process::Child, std::path::PathBuf);

impl Drop for Guard {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
        if mounted(&self.1) {
            let _ = Command::new("umount").arg("-l").arg(&self.1).status();
        }
    }
}

#[test]
fn sigterm_unmounts_and_exits_0() {
    if !root() || !Path::new("/dev/fuse").exists() {
        eprintln!("skipped: needs root and /dev/fuse");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let mnt = d.path().join("m");
    std::fs::create_dir(&mnt).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_sluice"))
        .args([
            "emulate",
            "--preset",
            "maxtor-stm332061",
            "--size-gib",
            "2",
            "--mount",
        ])
        .arg(&mnt)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut g = Guard(child, mnt.clone());
    let disk = mnt.join("disk.img");
    let t = Instant::now();
    while !disk.exists() && t.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(disk.exists(), "no disk.img after 10 s");
    assert_eq!(std::fs::metadata(&disk).unwrap().len(), 2 << 30);
    // SAFETY: kill with a valid pid of our child.
    unsafe { libc::kill(g.0.id() as i32, libc::SIGTERM) };
    let t = Instant::now();
    let status = loop {
        if let Some(s) = g.0.try_wait().unwrap() {
            break s;
        }
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "still running 20 s after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(0));
    assert!(!mounted(&mnt), "still mounted after exit");
}

/// `sluice emulate` of maxtor-stm332061 with `size_gib` mounted on `mount`,
/// plus `extra` arguments, run in `dir`.
fn emulate(dir: &Path, size_gib: &str, mount: &str, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        "emulate",
        "--preset",
        "maxtor-stm332061",
        "--size-gib",
        size_gib,
        "--mount",
        mount,
    ];
    args.extend_from_slice(extra);
    sluice_in(dir, &args)
}
