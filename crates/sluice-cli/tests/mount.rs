//! `sluice mount` refuses, in one line and with exit 2, what it must not
//! mount: without root it says so; as root, bad paths and existing outputs.
//! (Mounting itself is tested in crates/sluice-mount/tests.)

use std::process::Command;

fn mount(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sluice"))
        .arg("mount")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn refused(args: &[&str], why: &str) {
    let (code, err) = mount(args);
    assert_eq!(code, 2, "{args:?}: {err}");
    assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    let root = unsafe { libc::geteuid() } == 0;
    if root {
        assert!(err.contains(why), "{args:?}: expected {why:?} in {err}");
    } else {
        assert!(err.contains("needs root"), "{err}");
    }
}

#[test]
fn bad_paths_and_existing_outputs_are_refused_in_one_line() {
    let d = tempfile::tempdir().unwrap();
    let p = |s: &str| d.path().join(s).to_string_lossy().into_owned();
    for dir in ["src/sub", "mnt", "full"] {
        std::fs::create_dir_all(d.path().join(dir)).unwrap();
    }
    std::fs::write(d.path().join("full/x"), b"").unwrap();
    std::fs::write(d.path().join("stats.json"), b"{}").unwrap();
    refused(&[&p("nope"), &p("mnt")], "SRC");
    refused(&[&p("src"), &p("full")], "not empty");
    refused(&[&p("src"), &p("src/sub")], "inside SRC");
    refused(&[&p("src/sub"), &p("src")], "inside MNT");
    refused(&[&p("src"), &p("nomnt")], "MNT");
    refused(
        &[&p("src"), &p("mnt"), "--stats", &p("stats.json")],
        "exists",
    );
    assert_eq!(std::fs::read(d.path().join("stats.json")).unwrap(), b"{}");
}
