//! Tests of `output.rs`.

use super::*;

/// One group's JSON (the product takes every group's).
fn json(r: &SimReport, jobs: &[JobInfo], f: &FileInfo) -> serde_json::Result<String> {
    super::json(&[(r.clone(), jobs.to_vec())], f)
}

/// One group's text.
fn normal(r: &SimReport, jobs: &[JobInfo], how: &str) -> String {
    super::normal(&[(r.clone(), jobs.to_vec())], &FileInfo::default(), how)
}

const RAND: &str = "[rand]\nrw=randread\nbs=4k\nsize=1g\nruntime=3\ntime_based\n";

fn info(name: &str, write: bool, bs: u64) -> JobInfo {
    JobInfo {
        name: name.into(),
        write,
        read_fraction: None,
        group: 0,
        bs,
        options: vec![
            ("rw".into(), "randread".into()),
            ("time_based".into(), String::new()),
        ],
        size_done_at: None,
        group_reporting: false,
        members: 1,
    }
}

#[test]
fn the_json_has_fios_layout_and_percentile_keys() {
    let r = super::super::simulate_text(RAND).unwrap();
    let text = json(&r, &[info("rand", false, 4096)], &FileInfo::default()).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let job = &v["jobs"][0];
    assert_eq!(job["jobname"], "rand");
    assert_eq!(job["job options"], serde_json::json!({"rw": "randread"}));
    let read = &job["read"];
    assert!(read["iops"].as_f64().unwrap() > 10.0);
    assert_eq!(
        read["io_bytes"].as_u64().unwrap(),
        read["total_ios"].as_u64().unwrap() * 4096
    );
    let pct = read["clat_ns"]["percentile"].as_object().unwrap();
    assert_eq!(pct.len(), 17);
    let p99 = pct["99.000000"].as_u64().unwrap();
    let p50 = pct["50.000000"].as_u64().unwrap();
    assert!(p99 >= p50 && p50 > 1_000_000, "{p50} {p99}");
    assert_eq!(job["write"]["total_ios"], 0);
    assert_eq!(job["write"]["runtime"], 0);
    assert!(job["write"]["clat_ns"].get("percentile").is_none());
    // No wall-clock fields in a simulation; the same job, the same bytes.
    assert!(v.get("timestamp").is_none() && v.get("global options").is_none());
    let again = super::super::simulate_text(RAND).unwrap();
    assert_eq!(
        json(&again, &[info("rand", false, 4096)], &FileInfo::default()).unwrap(),
        text
    );
}

#[test]
fn keys_come_in_fios_order() {
    let r = super::super::simulate_text(RAND).unwrap();
    let text = json(&r, &[info("rand", false, 4096)], &FileInfo::default()).unwrap();
    // Each key appears after the one before it in fio's layout.
    let mut from = 0;
    for k in [
        "fio version",
        "jobs",
        "jobname",
        "groupid",
        "job options",
        "read",
        "io_bytes",
        "bw_bytes",
        "iops",
        "runtime",
        "total_ios",
        "slat_ns",
        "clat_ns",
        "N",
        "percentile",
        "1.000000",
        "5.000000",
        "10.000000",
        "50.000000",
        "99.990000",
        "lat_ns",
        "bw_min",
        "bw_mean",
        "iops_mean",
        "iops_samples",
        "write",
        "trim",
        "job_runtime",
    ] {
        let at = text[from..]
            .find(&format!("\"{k}\""))
            .unwrap_or_else(|| panic!("{k} missing or out of order"));
        from += at + 1;
    }
}

#[test]
fn samples_are_the_half_seconds_of_the_run() {
    let text = "[a]\nrw=read\nbs=128k\nsize=1g\nruntime=3\ntime_based\n";
    let r = super::super::simulate_text(text).unwrap();
    let d = direction(&r, 0, &info("a", false, 128 << 10), 0.0);
    assert_eq!((d.bw_samples, d.iops_samples), (6, 6));
    // The samples' mean is the run's bandwidth, to rounding.
    let bw_kib = r.flows[0].bytes as f64 / 3.0 / 1024.0;
    assert!(
        (d.bw_mean - bw_kib).abs() / bw_kib < 0.01,
        "{} {bw_kib}",
        d.bw_mean
    );
    assert!(d.bw_min as f64 <= d.bw_mean && d.bw_mean <= d.bw_max as f64);
    assert!((d.iops_mean * 128.0 - d.bw_mean).abs() < 1e-6);
    // A ramp is not sampled.
    let r =
        super::super::simulate_text(&text.replace("runtime=3", "runtime=3\nramp_time=1")).unwrap();
    let d = direction(&r, 0, &info("a", false, 128 << 10), 0.0);
    assert_eq!((d.bw_samples, d.runtime), (6, 3000));
}

#[test]
fn a_job_that_finishes_early_is_measured_over_its_own_run() {
    let text = "[quick]\nrw=read\nbs=128k\nsize=8m\n[long]\nrw=read\nbs=128k\nsize=64m\n";
    let r = super::super::simulate_text(text).unwrap();
    let quick = direction(&r, 0, &info("quick", false, 128 << 10), 0.0);
    let long = direction(&r, 1, &info("long", false, 128 << 10), 0.0);
    assert_eq!((quick.io_bytes, long.io_bytes), (8 << 20, 64 << 20));
    assert!(
        quick.runtime < long.runtime,
        "{} {}",
        quick.runtime,
        long.runtime
    );
    assert_eq!(long.runtime, (window(&r) * 1000.0).round() as u64);
    let bw = quick.io_bytes as f64 / (quick.runtime as f64 / 1000.0);
    assert!((quick.bw_bytes as f64 - bw).abs() / bw < 0.01);
}

#[test]
fn fios_time_format() {
    assert_eq!(ctime(1_795_516_539), "Tue Nov 24 10:35:39 2026");
    assert_eq!(ctime(0), "Thu Jan  1 00:00:00 1970");
}

#[test]
fn the_text_names_each_job_and_its_direction() {
    let r =
        super::super::simulate_text("[w]\nrw=write\nbs=128k\nsize=64m\nruntime=1\ntime_based\n")
            .unwrap();
    let t = normal(&r, &[info("w", true, 128 << 10)], "sim");
    assert!(
        t.contains("w: (groupid=0")
            && t.contains("  write: IOPS=")
            && t.contains("99.00th=[")
            && t.contains("samples=2")
            && t.contains(" WRITE: bw="),
        "{t}"
    );
}

/// Issue 24, defect 10: a job cut short by sluice's time limit before its
/// size was done said `err= 0` and nothing else; now the text, the JSON
/// and stderr say how much was done.
#[test]
fn a_job_stopped_at_the_limit_says_so() {
    let r = super::super::simulate_text("[r]\nrw=read\nbs=128k\nsize=64m\nruntime=1\ntime_based\n")
        .unwrap();
    let done = r.flows[0].bytes;
    let mut job = info("r", false, 128 << 10);
    job.size_done_at = Some(100 << 30);
    // A run that ended before sluice's limit was cut by --max-duration.
    let notes = stopped_early(&r, std::slice::from_ref(&job));
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0].starts_with("job 'r' (flow r) stopped at --max-duration (1 s simulated) with ")
            && notes[0].ends_with("raise --max-duration to run longer"),
        "{}",
        notes[0]
    );
    let mut at_limit = r.clone();
    at_limit.sim_time_s = 3600.0;
    let notes = stopped_early(&at_limit, std::slice::from_ref(&job));
    assert!(
        notes[0].starts_with("job 'r' (flow r) stopped at sluice's 3600 s simulated limit with ")
            && notes[0].contains("of its 100.0 GiB done")
            && notes[0].ends_with("set runtime= to run longer"),
        "{}",
        notes[0]
    );
    let t = normal(&r, std::slice::from_ref(&job), "sim");
    assert!(t.contains("\nwarning: job 'r' (flow r) stopped at"), "{t}");
    let j = json(&r, std::slice::from_ref(&job), &FileInfo::default()).unwrap();
    assert!(j.contains("\"stopped_early\""), "{j}");
    // Done in full: nothing to say, and the JSON is as before.
    job.size_done_at = Some(done);
    assert!(stopped_early(&r, std::slice::from_ref(&job)).is_empty());
    assert!(!json(&r, &[job], &FileInfo::default())
        .unwrap()
        .contains("stopped_early"));
}

#[test]
fn latency_buckets_read_the_cdf_and_sum_to_a_hundred() {
    let cdf = [[0.0, 0.0005], [50.0, 0.003], [90.0, 3.0], [100.0, 3000.0]];
    // Half the requests within 3 us, 90% within 3 ms, all within 3 s.
    assert!((share_within(&cdf, 0.003) - 0.5).abs() < 1e-9);
    assert!((share_within(&cdf, 3.0) - 0.9).abs() < 1e-9);
    assert_eq!(share_within(&cdf, 1e9), 1.0);
    assert_eq!(share_within(&cdf, 0.0001), 0.0);
    // Linear between points: 1.5015 ms is halfway from 3 us to 3 ms.
    assert!((share_within(&cdf, 1.5015) - 0.7).abs() < 1e-6);
}
