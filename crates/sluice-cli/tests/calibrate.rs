//! `sluice calibrate`: a target is required, an existing output is refused
//! before any I/O, and a short calibration prints a `[cost]` table and an
//! `io.cost.model` line and leaves its folder as it found it.

mod common;
use common::sluice_in;

#[test]
fn calibrate_needs_a_target_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = sluice_in(dir.path(), &["calibrate"]);
    assert_eq!(code, 2, "{err}");
    std::fs::write(dir.path().join("cost.toml"), "mine").unwrap();
    let (code, _, err) = sluice_in(dir.path(), &["calibrate", "--dir", ".", "-o", "cost.toml"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("exists"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("cost.toml")).unwrap(),
        "mine"
    );
    // Nothing was probed: the folder holds only the user's file.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn a_short_calibration_writes_a_cost_table_and_leaves_nothing_behind() {
    // In the build folder: a real file system (O_DIRECT), not a tmpfs.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let probes = dir.path().join("probes");
    std::fs::create_dir(&probes).unwrap();
    let (code, out, err) = sluice_in(
        dir.path(),
        &[
            "calibrate",
            "--dir",
            "probes",
            "--seconds",
            "0.2",
            "--file-mib",
            "4",
            "-o",
            "cost.toml",
        ],
    );
    if code != 0 && err.contains("O_DIRECT") {
        eprintln!("skipped: no O_DIRECT here ({err})");
        return;
    }
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("ctrl=user model=linear rbps="), "{out}");
    let table = std::fs::read_to_string(dir.path().join("cost.toml")).unwrap();
    for key in [
        "read_seq_us",
        "read_rand_us",
        "write_seq_us",
        "write_rand_us",
        "per_kib_us",
    ] {
        assert!(table.contains(key), "{key} missing: {table}");
    }
    assert_eq!(
        std::fs::read_dir(&probes).unwrap().count(),
        0,
        "probe files left behind"
    );
}
