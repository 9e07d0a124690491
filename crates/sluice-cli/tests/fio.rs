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
            "[global]\nsize=1g\n[x]\nrw=randread\ngroup_reporting\n",
            &["j.fio", "line 5", "group_reporting"][..],
        ),
        (
            "[x]\nrw=randread\nsize=1g\nzonemode=zbd\n",
            &["line 4", "'zonemode'", "'zbd'"][..],
        ),
        ("[x]\nrw=randrw\nsize=1g\n", &["line 2", "rw=randrw"][..]),
        ("[x]\nrw=read\nsize=1g\nbs=4q\n", &["line 4", "bs=4q"][..]),
        (
            "[x]\nrw=read\nsize=1g\nruntime=soon\n",
            &["line 4", "runtime=soon"][..],
        ),
        ("[x]\nrw=read\n", &["needs size="][..]),
    ] {
        let dir = dir_with("j.fio", text);
        let (code, out, err) = sluice_in(dir.path(), &["fio", "j.fio"]);
        one_line_error(&format!("{text:?}"), code, &err);
        assert!(out.is_empty(), "{text:?}: {out}");
        for w in wanted {
            assert!(err.contains(w), "{text:?}: {err} lacks {w}");
        }
    }
    // A device job file simulates; run for real, it would need the device.
    let dir = dir_with("j.fio", "[x]\nfilename=/dev/sdz\nrw=read\nsize=8m\n");
    let (code, _, err) = sluice_in(dir.path(), &["fio", "j.fio"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = sluice_in(dir.path(), &["fio", "j.fio", "--run"]);
    assert_eq!(code, 1);
    assert!(err.contains("line 2: filename=/dev/sdz"), "{err}");
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
