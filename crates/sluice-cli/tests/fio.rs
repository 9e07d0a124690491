//! `sluice fio JOBFILE` as a user runs it: job files simulated and run,
//! fio's JSON read back as a fio tool reads it, and bad files refused.

mod common;

use common::{dir_with, json, no_uring, one_line_error, sluice, sluice_in};

/// Two jobs inheriting a `[global]` section, one of them twice.
const JOB: &str =
    "; two readers\n[global]\nsize=64m\nruntime=2\ntime_based\ndirect=1\nioengine=io_uring\n\n\
                   [rand]\nrw=randread\nbs=4k\niodepth=4\nnumjobs=2\n\n[seq]\nrw=read\nbs=128k\n";

/// fio's `clat_ns.percentile` keys, in fio's order.
const PERCENTILES: [&str; 17] = [
    "1.000000",
    "5.000000",
    "10.000000",
    "20.000000",
    "30.000000",
    "40.000000",
    "50.000000",
    "60.000000",
    "70.000000",
    "80.000000",
    "90.000000",
    "95.000000",
    "99.000000",
    "99.500000",
    "99.900000",
    "99.950000",
    "99.990000",
];

#[test]
fn each_job_copy_is_an_entry_in_fios_json() {
    let dir = dir_with("j.fio", JOB);
    let args = [
        "fio",
        "j.fio",
        "--preset",
        "maxtor-stm332061",
        "--scheduler",
        "cfq",
        "--output-format",
        "json",
    ];
    let (code, out, err) = sluice_in(dir.path(), &args);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["global options"]["size"], "64m");
    let jobs = v["jobs"].as_array().unwrap();
    let names: Vec<_> = jobs
        .iter()
        .map(|j| j["jobname"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["rand", "rand", "seq"]);
    assert_eq!(jobs[0]["job options"]["iodepth"], "4");
    assert_eq!(v["sluice"]["scheduler"], "cfq");
    for j in jobs {
        let read = &j["read"];
        let ios = read["total_ios"].as_u64().unwrap();
        assert!(ios > 0 && read["clat_ns"]["N"] == ios, "{read}");
        assert_eq!(read["runtime"], 2000);
        assert_eq!(read["bw_samples"], 4);
        assert_eq!(j["write"]["io_bytes"], 0);
        // The percentile keys are fio's, in its order, and never decrease.
        let pct = read["clat_ns"]["percentile"].as_object().unwrap();
        let keys: Vec<_> = pct.keys().map(String::as_str).collect();
        let mut sorted = keys.clone();
        sorted.sort_by(|a, b| a.parse::<f64>().unwrap().total_cmp(&b.parse().unwrap()));
        assert_eq!(sorted, PERCENTILES);
        let ns: Vec<u64> = PERCENTILES
            .iter()
            .map(|k| pct[*k].as_u64().unwrap())
            .collect();
        assert!(ns.windows(2).all(|w| w[0] <= w[1]), "{ns:?}");
        assert!(read["clat_ns"]["min"].as_u64().unwrap() <= ns[0]);
    }
    // The two copies of `rand` are two flows sharing the drive.
    assert_eq!(jobs[0]["sluice_flow"], "rand#0");
    assert_eq!(jobs[1]["sluice_flow"], "rand#1");
    // Simulated: the same job file gives the same bytes.
    let (_, again, _) = sluice_in(dir.path(), &args);
    assert_eq!(out, again);
    assert!(v.get("timestamp").is_none());
}

#[test]
fn the_text_output_reads_like_fios() {
    let dir = dir_with("j.fio", "[w]\nrw=write\nbs=64k\nsize=32m\n");
    let (code, out, err) = sluice_in(dir.path(), &["fio", "j.fio"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("sluice fio (simulated), noop on maxtor-stm332061"));
    // Not time_based: the job ends when its 32 MiB are written.
    assert!(
        out.contains("  write: IOPS=") && out.contains("(32.0MiB/"),
        "{out}"
    );
    assert!(
        out.contains("WRITE: bw=") && out.contains("io=32.0MiB"),
        "{out}"
    );
}

#[test]
fn an_unsupported_option_or_a_bad_value_is_one_line_naming_it() {
    for (text, wanted) in [
        (
            "[global]\nsize=1g\n[x]\nrw=randread\nfrobnicate\n",
            &["j.fio", "line 5", "'frobnicate'"][..],
        ),
        (
            "[x]\nrw=randread\nsize=1g\nzonemode=zbd\n",
            &["line 4", "zonemode=zbd"][..],
        ),
        ("[x]\nrw=trim\nsize=1g\n", &["line 2", "rw=trim"][..]),
        (
            "[x]\nrw=read\nsize=1g\nioengine=net\n",
            &["line 4", "ioengine=net"][..],
        ),
        ("[x]\nrw=read\nsize=1g\nbs=4q\n", &["line 4", "bs=4q"][..]),
        (
            "[x]\nrw=read\nsize=1g\nruntime=soon\n",
            &["line 4", "runtime=soon"][..],
        ),
    ] {
        let dir = dir_with("j.fio", text);
        let (code, out, err) = sluice_in(dir.path(), &["fio", "j.fio"]);
        one_line_error(&format!("{text:?}"), code, &err);
        assert!(err.trim().len() <= 200, "{text:?}: {err}");
        assert!(out.is_empty(), "{text:?}: {out}");
        for w in wanted {
            assert!(err.contains(w), "{text:?}: {err} lacks {w}");
        }
    }
    // A device job file simulates; run for real, it would need the device.
    let dir = dir_with("j.fio", "[x]\nfilename=/dev/sdz\nrw=read\nsize=8m\n");
    let (code, _, err) = sluice_in(dir.path(), &["fio", "j.fio"]);
    assert_eq!(code, 0, "{err}");
    // Run for real, one device every job names is the target (here one
    // that is not there); a file name is refused: sluice makes its own.
    let (code, _, err) = sluice_in(dir.path(), &["fio", "j.fio", "--run"]);
    assert_eq!(code, 1);
    assert!(err.contains("/dev/sdz"), "{err}");
    let dir = dir_with("j.fio", "[x]\nfilename=data.bin\nrw=read\nsize=8m\n");
    let (code, _, err) = sluice_in(dir.path(), &["fio", "j.fio", "--run"]);
    one_line_error("filename=data.bin --run", code, &err);
    assert!(err.contains("line 2: filename=data.bin"), "{err}");
    assert!(!dir.path().join("data.bin").exists());
    // Not a block device: refused before any I/O.
    let dir = dir_with("j.fio", "[x]\nfilename=/dev/null\nrw=write\nsize=8m\n");
    let (code, _, err) = sluice_in(dir.path(), &["fio", "j.fio", "--run"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let (code, _, err) = sluice(&["fio", "no-such.fio"]);
    assert_eq!(code, 1);
    assert!(err.contains("no-such.fio"), "{err}");
}

#[test]
fn help_lists_the_options_a_job_may_use() {
    let (code, out, _) = sluice(&["fio", "--help"]);
    assert_eq!(code, 0);
    for opt in [
        "rw",
        "bs",
        "iodepth",
        "numjobs",
        "thinktime",
        "rate_iops",
        "ioengine",
    ] {
        assert!(out.contains(opt), "--help lacks {opt}");
    }
}

#[test]
fn run_reads_real_files_and_removes_them() {
    let dir = dir_with(
        "j.fio",
        "[r]\nrw=randread\nbs=4k\niodepth=8\nsize=8m\nruntime=1\ntime_based\n",
    );
    std::fs::create_dir(dir.path().join("d")).unwrap();
    let (code, out, err) = sluice_in(
        dir.path(),
        &[
            "fio",
            "j.fio",
            "--run",
            "--dir",
            "d",
            "--output-format",
            "json",
        ],
    );
    if no_uring(&err) {
        return;
    }
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let read = &v["jobs"][0]["read"];
    assert!(read["iops"].as_f64().unwrap() > 100.0, "{read}");
    assert!(read["clat_ns"]["percentile"]["99.000000"].as_u64().unwrap() > 0);
    assert!(v["timestamp"].as_u64().unwrap() > 1_600_000_000);
    assert_eq!(std::fs::read_dir(dir.path().join("d")).unwrap().count(), 0);
}

#[test]
fn a_job_on_the_command_line_runs_under_its_name() {
    let (code, out, err) = sluice(&[
        "fio",
        "--name=x",
        "--rw=randread",
        "--bs=4k",
        "--size=64m",
        "--runtime=2",
        "--time_based",
        "--output-format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let names: Vec<_> = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["jobname"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["x"]);
    assert!(v["jobs"][0]["read"]["io_bytes"].as_u64().unwrap() > 0);
}

#[test]
fn randrw_reads_its_mix_and_notes_go_in_the_json() {
    let dir = dir_with(
        "j.fio",
        "[j]\nrw=randrw  # mixed\nrwmixread=70\nbs=4k\nsize=64m\nruntime=3\ntime_based\nverify=crc32c\n",
    );
    let (code, out, err) = sluice_in(dir.path(), &["fio", "j.fio", "--output-format=json"]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let j = &v["jobs"][0];
    let (r, w) = (
        j["read"]["iops"].as_f64().unwrap(),
        j["write"]["iops"].as_f64().unwrap(),
    );
    assert!(w > 0.0 && (r / (r + w) - 0.7).abs() <= 0.05, "{r} {w}");
    assert_eq!(v["sluice"]["ignored"][0], "verify");
    assert!(!v["sluice"]["approximated"].as_array().unwrap().is_empty());
    // The text output lists them too.
    let (code, out, _) = sluice_in(dir.path(), &["fio", "j.fio"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("ignored (no effect in simulation): verify"),
        "{out}"
    );
}

#[test]
fn stonewalled_groups_report_their_group_ids() {
    let dir = dir_with(
        "j.fio",
        "[global]\nsize=16m\nbs=64k\n[a]\nrw=read\n[b]\nstonewall\nrw=write\ndirect=0\n",
    );
    let (code, out, err) = sluice_in(dir.path(), &["fio", "j.fio", "--output-format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(
        (jobs[0]["groupid"].as_u64(), jobs[1]["groupid"].as_u64()),
        (Some(0), Some(1))
    );
    assert_eq!(jobs[1]["write"]["io_bytes"], 16 << 20);
}

/// Every job file of fio's own examples, if the copy is here: each runs or
/// is refused in one short line, none panics.
#[test]
fn fios_examples_run_or_are_refused_in_one_line() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/fio-examples");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipped: no fio examples at {}", dir.display());
        return;
    };
    let mut files: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "fio"))
        .collect();
    files.sort();
    let mut ok = 0;
    for f in &files {
        let name = f.file_name().unwrap().to_str().unwrap();
        // A short look at each: the simulations are capped at 5 s.
        let (code, out, err) = sluice_in(
            &dir,
            &[
                "fio",
                name,
                "--output-format",
                "json",
                "--max-duration",
                "5",
            ],
        );
        assert!(!err.contains("panicked"), "{name}: {err}");
        if code == 0 {
            assert!(
                json(&out)["jobs"].as_array().is_some_and(|j| !j.is_empty()),
                "{name}"
            );
            ok += 1;
        } else {
            one_line_error(name, code, &err);
            assert!(err.trim().len() <= 200, "{name}: {err}");
        }
    }
    assert!(files.is_empty() || ok > 0);
}
