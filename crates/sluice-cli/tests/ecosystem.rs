//! `sluice fio`, `--timeline` and `sluice report` as a user runs them.

mod common;

use common::{dir_with, json, sluice_in, workspace};

const JOB: &str = "[global]\nsize=256m\nruntime=2\ntime_based\n[rand]\nrw=randread\nbs=4k\n[seq]\nrw=read\nbs=128k\n";

#[test]
fn a_fio_job_file_simulates_and_prints_fios_json() {
    let dir = dir_with("j.fio", JOB);
    let args = [
        "fio",
        "j.fio",
        "--scheduler",
        "bfq",
        "--output-format",
        "json",
    ];
    let (code, out, err) = sluice_in(dir.path(), &args);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2);
    let bw = |i: usize| jobs[i]["read"]["bw_bytes"].as_u64().unwrap();
    assert!(bw(1) > 5 * bw(0) && bw(0) > 0, "{} {}", bw(0), bw(1));
    assert!(
        jobs[0]["read"]["clat_ns"]["percentile"]["99.000000"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    // The same job file, the same bytes.
    let (_, again, _) = sluice_in(dir.path(), &args);
    assert_eq!(out, again);
}

#[test]
fn an_unsupported_fio_option_is_named() {
    let dir = dir_with("bad.fio", "[x]\nrw=randread\nsize=1g\nzonemode=zbd\n");
    let (code, out, err) = sluice_in(dir.path(), &["fio", "bad.fio"]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.contains("line 4") && err.contains("zonemode") && err.lines().count() == 1,
        "{err}"
    );
}

#[test]
fn a_timeline_run_reports_as_html() {
    let dir = dir_with("j.fio", JOB);
    let scen = workspace().join("scenarios/10r-rand.toml");
    let scen = scen.to_str().unwrap();
    let (code, out, err) = sluice_in(dir.path(), &["sim", scen, "--json", "--timeline", "2000"]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["timeline"]["interval_s"], 2.0);
    assert_eq!(
        v["timeline"]["flows"]["reader0"].as_array().unwrap().len(),
        30
    );
    std::fs::write(dir.path().join("r.json"), &out).unwrap();
    let (code, _, err) = sluice_in(dir.path(), &["report", "r.json", "-o", "r.html"]);
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(dir.path().join("r.html")).unwrap();
    assert_eq!(html.matches("<svg").count(), 3);
    // A file that is not a result: one line naming it.
    std::fs::write(dir.path().join("x.json"), "{\"schema\": \"nope\"}").unwrap();
    let (code, _, err) = sluice_in(dir.path(), &["report", "x.json", "-o", "x.html"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("x.json") && err.contains("unknown schema") && err.trim().lines().count() == 1,
        "{err}"
    );
    let (code, _, err) = sluice_in(dir.path(), &["sim", scen, "--timeline", "0"]);
    assert_ne!(code, 0);
    assert!(err.contains("--timeline"), "{err}");
}

/// Issue 48: a fleet's result drawn by `sluice report`, the page and its
/// plot alone (`--svg`); an existing output, or `--svg` without a fleet,
/// is refused (exit 2) in one line and leaves no file behind.
#[test]
fn a_fleet_reports_as_a_page_and_a_plot() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let scen = workspace().join("scenarios/fleet/alibaba-sample.toml");
    let (code, out, err) = sluice_in(d, &["fleet", scen.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    std::fs::write(d.join("f.json"), &out).unwrap();
    let (code, _, err) = sluice_in(d, &["report", "f.json", "-o", "f.html", "--svg", "f.svg"]);
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(d.join("f.html")).unwrap();
    let svg = std::fs::read_to_string(d.join("f.svg")).unwrap();
    assert!(html.contains("Fleets: the tail each volume got"), "{html}");
    assert!(
        svg.starts_with("<svg") && svg.contains("alibaba-sample"),
        "{svg}"
    );
    let (code, _, err) = sluice_in(d, &["report", "f.json", "-o", "g.html", "--svg", "f.svg"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--svg f.svg: exists") && err.trim().lines().count() == 1,
        "{err}"
    );
    assert!(!d.join("g.html").exists());
    let (code, _, err) = sluice_in(d, &["report", "f.json", "-o", "h.out", "--svg", "h.out"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("the same file"), "{err}");
    assert!(!d.join("h.out").exists());
    let scen = workspace().join("scenarios/10r-rand.toml");
    let (code, out, err) = sluice_in(d, &["sim", scen.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    std::fs::write(d.join("r.json"), &out).unwrap();
    let (code, _, err) = sluice_in(d, &["report", "r.json", "--svg", "r.svg"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("sluice.fleet/1") && err.trim().lines().count() == 1,
        "{err}"
    );
    assert!(!d.join("r.svg").exists());
}
