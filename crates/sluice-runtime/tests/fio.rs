//! fio job files run through the simulator (a dev-dependency: the runtime
//! itself runs groups through whatever host its caller passes), and the
//! results printed as fio prints them.

use std::path::Path;

use sluice_runtime::import::fio::{self, FioOptions, FioResults, JobFile, Plan};
use sluice_runtime::{Scenario, SimReport};

/// The simulator as the CLI passes it: fio's samples when they fit.
fn simulate(s: &Scenario, bin: Option<sluice::Duration>) -> sluice_runtime::Result<SimReport> {
    let sim = sluice_sim::Simulation::new(s)?;
    Ok(match bin {
        Some(b) => sim.with_timeline(b),
        None => sim,
    }
    .run())
}

/// A job file's text planned with the default options.
fn plan(text: &str) -> Plan {
    let file = JobFile::parse(Path::new("t.fio"), text).unwrap();
    fio::plan(&file, &FioOptions::default()).unwrap()
}

/// Every group of a job file's text simulated.
fn results(text: &str) -> FioResults {
    plan(text).run(&FioOptions::default(), simulate).unwrap()
}

/// The first group's report.
fn report(text: &str) -> SimReport {
    results(text).groups.remove(0).0
}

/// The results' JSON, parsed.
fn json(r: &FioResults) -> serde_json::Value {
    serde_json::from_str(&r.json().unwrap()).unwrap()
}

const RAND: &str = "[rand]\nrw=randread\nbs=4k\nsize=1g\nruntime=3\ntime_based\n";

#[test]
fn without_time_based_a_job_ends_when_its_size_is_done() {
    let r = report("[a]\nrw=read\nbs=128k\nsize=4m\n");
    assert_eq!(r.flows[0].requests, 32);
    assert_eq!(r.flows[0].bytes, 4 << 20);
}

#[test]
fn ramp_time_runs_before_the_measured_runtime() {
    let r = report("[a]\nrw=randread\nbs=4k\nsize=1g\nruntime=2\nramp_time=500ms\ntime_based\n");
    assert_eq!((r.measured_from_s, r.sim_time_s), (0.5, 2.5));
    let iops = r.flows[0].requests as f64 / 2.0;
    assert!((50.0..200.0).contains(&iops), "{iops}");
}

#[test]
fn rate_iops_caps_a_job() {
    let r = report(
        "[a]\nrw=randread\nbs=4k\nsize=1g\nruntime=5\ntime_based\nioengine=libaio\niodepth=8\nrate_iops=20\n",
    );
    let iops = r.flows[0].requests as f64 / 5.0;
    assert!((19.0..=21.0).contains(&iops), "{iops}");
}

#[test]
fn stonewalled_groups_report_their_own_ids() {
    let text = "[global]\nsize=8m\n[a]\nrw=read\n[b]\nrw=write\n[c]\nstonewall\nrw=randread\nruntime=1\n[d]\nnew_group\n";
    let r = results(text);
    let text = r.text("how");
    assert!(
        text.starts_with("how\n")
            && text.contains("a: (groupid=0, jobs=1)")
            && text.contains("c: (groupid=1, jobs=1)")
            && text.contains("d: (groupid=2, jobs=1)")
            && text.contains("Run status group 1 (all jobs)")
            && text.contains("Run status group 2 (all jobs)"),
        "{text}"
    );
    let gids: Vec<u64> = json(&r)["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["groupid"].as_u64().unwrap())
        .collect();
    assert_eq!(gids, [0, 0, 1, 2]);
}

#[test]
fn skewed_reads_through_the_page_cache_hit_it_more() {
    let iops = |d: &str| {
        report(&format!(
            "[j]\nrw=randread\ndirect=0\nsize=256m\nruntime=3\ntime_based\n{d}\n"
        ))
        .flows[0]
            .requests
    };
    let (uniform, skewed) = (iops(""), iops("random_distribution=zipf:1.2"));
    assert!(skewed > 3 * uniform, "{skewed} vs {uniform}");
}

#[test]
fn fsync_every_n_writes_waits_for_them() {
    // A deep direct writer that waits every 4 writes has at most 4 in
    // flight: each waits behind fewer (a far lower mean latency).
    let lat = |sync: &str| {
        report(&format!("[j]\nrw=randwrite\nioengine=libaio\niodepth=32\ndirect=1\nsize=1g\nruntime=3\ntime_based\n{sync}\n"))
            .flows[0]
            .lat_ms
            .mean
    };
    let (free, synced) = (lat(""), lat("fsync=4"));
    assert!(synced < 0.3 * free, "{synced} vs {free}");
    // A buffered writer's fsync waits for its dirty pages to reach the
    // disk: far fewer writes than at memory speed into the page cache.
    let writes = |sync: &str| {
        report(&format!(
            "[j]\nrw=write\nbs=64k\nsize=1g\nruntime=2\ntime_based\n{sync}\n"
        ))
        .flows[0]
            .requests
    };
    let (cached, flushed) = (writes(""), writes("fsync=16"));
    assert!(flushed * 2 < cached, "{flushed} vs {cached}");
}

#[test]
fn group_reporting_reports_a_groups_jobs_as_one_entry() {
    let run = |text: &str| {
        let r = results(text);
        (r.groups[0].0.clone(), json(&r), r.text("how"))
    };
    // a's two copies and b join a's entry (fio: a job with group_reporting
    // joins the entry before it); c, without it, has its own.
    let text = "[global]\nrw=randread\nsize=64m\nruntime=2\ntime_based\n[a]\nnumjobs=2\ngroup_reporting\n[b]\ngroup_reporting\nrw=randwrite\n[c]\n";
    let (r, v, normal) = run(text);
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2, "{normal}");
    assert_eq!(
        (jobs[0]["jobname"].as_str(), jobs[1]["jobname"].as_str()),
        (Some("a"), Some("c"))
    );
    let ios = |j: &serde_json::Value| {
        j["read"]["total_ios"].as_u64().unwrap() + j["write"]["total_ios"].as_u64().unwrap()
    };
    let three: u64 = r.flows[..3].iter().map(|f| f.requests).sum();
    assert!(
        ios(&jobs[0]).abs_diff(three) <= 1,
        "{} vs {three}",
        ios(&jobs[0])
    );
    assert_eq!(ios(&jobs[1]), r.flows[3].requests);
    let bytes = |j: &serde_json::Value| {
        j["read"]["io_bytes"].as_u64().unwrap() + j["write"]["io_bytes"].as_u64().unwrap()
    };
    let b3: u64 = r.flows[..3].iter().map(|f| f.bytes).sum();
    assert!(bytes(&jobs[0]).abs_diff(b3) <= 4096);
    // b's writes are a third of the entry's bytes, split out as writes.
    let w = jobs[0]["write"]["io_bytes"].as_u64().unwrap() as f64;
    assert!((w / b3 as f64 - r.flows[2].bytes as f64 / b3 as f64).abs() < 0.01);
    // The merged median lies among the jobs' medians.
    let p50 = jobs[0]["read"]["clat_ns"]["percentile"]["50.000000"]
        .as_u64()
        .unwrap() as f64
        / 1e6;
    let meds: Vec<f64> = r.flows[..3].iter().map(|f| f.lat_ms.p50).collect();
    let (lo, hi) = meds
        .iter()
        .fold((f64::MAX, 0.0f64), |(l, h), &m| (l.min(m), h.max(m)));
    assert!(
        p50 >= lo * 0.95 && p50 <= hi * 1.05,
        "{p50} not in {lo}..{hi}"
    );
    assert!(
        normal.contains("a: (groupid=0, jobs=3)") && normal.contains("c: (groupid=0, jobs=1)"),
        "{normal}"
    );
    assert!(!v["sluice"]["ignored"]
        .as_array()
        .unwrap()
        .iter()
        .any(|k| k == "group_reporting"));
    // A new reporting group (new_group) starts an entry of its own.
    let (_, v, _) = run("[global]\nrw=randread\nsize=64m\nruntime=1\ntime_based\ngroup_reporting\n[a]\n[b]\n[c]\nnew_group\n");
    let names: Vec<&str> = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["jobname"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a", "c"]);
    // Without group_reporting: an entry per job and copy.
    let (_, v, _) = run(&text.replace("group_reporting\n", ""));
    assert_eq!(v["jobs"].as_array().unwrap().len(), 4);
}

#[test]
fn a_mixed_buffered_job_runs_through_the_page_cache() {
    let r = report("[j]\nrw=randrw\nsize=64m\nruntime=1\ntime_based\n");
    assert!(r.flows[0].requests > 0);
}

#[test]
fn files_read_in_turn_seek_between_them() {
    // Four files read in turn: the head seeks between them on every
    // request, far slower than one file read straight through.
    let mb = |n: u32| {
        report(&format!(
            "[j]\nrw=read\nbs=128k\nnrfiles={n}\nsize=1g\ndirect=1\nruntime=2\ntime_based\n"
        ))
        .flows[0]
            .bytes
    };
    let (one, four) = (mb(1), mb(4));
    assert!(four * 2 < one, "{four} vs {one}");
}

#[test]
fn the_json_has_fios_layout_and_percentile_keys() {
    let r = results(RAND);
    let text = r.json().unwrap();
    let v = json(&r);
    let job = &v["jobs"][0];
    assert_eq!(job["jobname"], "rand");
    // The job's valued options (a flag such as time_based is not listed).
    assert_eq!(
        job["job options"],
        serde_json::json!({"rw": "randread", "bs": "4k", "size": "1g", "runtime": "3"})
    );
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
    assert_eq!(results(RAND).json().unwrap(), text);
    // A real run's start is fio's timestamp, time and timestamp_ms.
    let mut real = r.clone();
    real.started_unix_ms = Some(1_795_516_539_250);
    let v = json(&real);
    assert_eq!(
        (&v["timestamp"], &v["timestamp_ms"], &v["time"]),
        (
            &serde_json::json!(1_795_516_539u64),
            &serde_json::json!(1_795_516_539_250u64),
            &serde_json::json!("Tue Nov 24 10:35:39 2026")
        )
    );
}

#[test]
fn keys_come_in_fios_order() {
    let text = results(RAND).json().unwrap();
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
    let r = results(text);
    let v = json(&r);
    let d = &v["jobs"][0]["read"];
    let f = |k: &str| d[k].as_f64().unwrap();
    assert_eq!((f("bw_samples"), f("iops_samples")), (6.0, 6.0));
    // The samples' mean is the run's bandwidth, to rounding.
    let bw_kib = r.groups[0].0.flows[0].bytes as f64 / 3.0 / 1024.0;
    assert!(
        (f("bw_mean") - bw_kib).abs() / bw_kib < 0.01,
        "{} {bw_kib}",
        f("bw_mean")
    );
    assert!(f("bw_min") <= f("bw_mean") && f("bw_mean") <= f("bw_max"));
    assert!((f("iops_mean") * 128.0 - f("bw_mean")).abs() < 1e-6);
    // A ramp is not sampled.
    let v = json(&results(
        &text.replace("runtime=3", "runtime=3\nramp_time=1"),
    ));
    let d = &v["jobs"][0]["read"];
    assert_eq!(
        (d["bw_samples"].as_u64(), d["runtime"].as_u64()),
        (Some(6), Some(3000))
    );
}

#[test]
fn a_job_that_finishes_early_is_measured_over_its_own_run() {
    let text = "[quick]\nrw=read\nbs=128k\nsize=8m\n[long]\nrw=read\nbs=128k\nsize=64m\n";
    let r = results(text);
    let v = json(&r);
    let (quick, long) = (&v["jobs"][0]["read"], &v["jobs"][1]["read"]);
    let u = |d: &serde_json::Value, k: &str| d[k].as_u64().unwrap();
    assert_eq!(
        (u(quick, "io_bytes"), u(long, "io_bytes")),
        (8 << 20, 64 << 20)
    );
    assert!(u(quick, "runtime") < u(long, "runtime"), "{quick} {long}");
    let g = &r.groups[0].0;
    let window = g.sim_time_s - g.measured_from_s;
    assert_eq!(u(long, "runtime"), (window * 1000.0).round() as u64);
    let bw = u(quick, "io_bytes") as f64 / (u(quick, "runtime") as f64 / 1000.0);
    assert!((u(quick, "bw_bytes") as f64 - bw).abs() / bw < 0.01);
}

#[test]
fn the_text_names_each_job_and_its_direction() {
    let t = results("[w]\nrw=write\nbs=128k\nsize=64m\nruntime=1\ntime_based\n").text("sim");
    assert!(
        t.starts_with("sim\n")
            && t.contains("w: (groupid=0")
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
    let mut r = results("[r]\nrw=read\nbs=128k\nsize=64m\nruntime=1\ntime_based\n");
    let done = r.groups[0].0.flows[0].bytes;
    r.groups[0].1[0].size_done_at = Some(100 << 30);
    // A run that ended before sluice's limit was cut by max_duration.
    let notes = r.stopped_early();
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0].starts_with("job 'r' (flow r) stopped at --max-duration (1 s simulated) with ")
            && notes[0].ends_with("raise --max-duration to run longer"),
        "{}",
        notes[0]
    );
    let mut at_limit = r.clone();
    at_limit.groups[0].0.sim_time_s = fio::UNBOUNDED_RUN_S;
    let notes = at_limit.stopped_early();
    assert!(
        notes[0].starts_with("job 'r' (flow r) stopped at sluice's 3600 s simulated limit with ")
            && notes[0].contains("of its 100.0 GiB done")
            && notes[0].ends_with("set runtime= to run longer"),
        "{}",
        notes[0]
    );
    let t = r.text("sim");
    assert!(t.contains("\nwarning: job 'r' (flow r) stopped at"), "{t}");
    assert!(r.json().unwrap().contains("\"stopped_early\""));
    // Done in full: nothing to say, and the JSON is as before.
    r.groups[0].1[0].size_done_at = Some(done);
    assert!(r.stopped_early().is_empty());
    assert!(!r.json().unwrap().contains("stopped_early"));
}

#[test]
fn simulate_json_prints_what_a_plan_run_prints() {
    let dir = std::env::temp_dir().join(format!("sluice-fio-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("rand.fio");
    std::fs::write(&path, RAND).unwrap();
    let options = FioOptions {
        scheduler: Some("cfq".into()),
        max_duration_s: Some(1.0),
        ..Default::default()
    };
    let text = fio::simulate_json(&path, &options, simulate).unwrap();
    let file = JobFile::read(&path).unwrap();
    let by_hand = fio::plan(&file, &options)
        .unwrap()
        .run(&options, simulate)
        .unwrap();
    assert_eq!(text, by_hand.json().unwrap());
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["sluice"]["scheduler"], "cfq");
    assert_eq!(v["jobs"][0]["read"]["runtime"], 1000);
    // The library names its own option, never a command-line flag.
    let bad = FioOptions {
        max_duration_s: Some(-1.0),
        ..Default::default()
    };
    let e = fio::simulate_json(&path, &bad, simulate)
        .unwrap_err()
        .to_string();
    assert_eq!(e, "max_duration -1: expected a positive number of seconds");
    std::fs::remove_dir_all(&dir).unwrap();
}
