//! A run's results as fio prints them: `--output-format json` in fio's JSON
//! layout and key order (`jobs[]` with `jobname`, `job options`,
//! `read`/`write`/`trim` with `io_bytes`, `bw_bytes`, `iops`, `clat_ns` and
//! its `percentile` map, the 500 ms bandwidth and IOPS samples), and a text
//! summary in fio's style. One entry per flow; copies of a job share its
//! name, as fio's do. Fields fio has that sluice does not measure (CPU use,
//! latency buckets, depth histograms) are left out rather than faked.

mod group;

use std::borrow::Cow;
use std::fmt::Write;

use super::UNBOUNDED_RUN_S;
use crate::error::Result;
use crate::names::printable;
use crate::report::{FlowReport, SimReport};
use crate::timeline::OrderedMap;
use sluice::metrics::FIO_PERCENTILES;

/// fio's sampling interval for `bw_*` and `iops_*` (its default
/// `bw_avg_time` and `iops_avg_time`).
pub const SAMPLE_MS: u64 = 500;

/// What the output needs to know about one flow's job.
#[derive(Clone, Debug, PartialEq)]
pub struct JobInfo {
    /// The job's name, as fio names it (copies share it).
    pub name: String,
    /// Whether the job writes (a mixed job: see `read_fraction`).
    pub write: bool,
    /// A mixed job's share of reads (its numbers split by it).
    pub read_fraction: Option<f64>,
    /// The stonewalled group the job ran in (fio's `groupid`).
    pub group: u32,
    /// Request size, bytes.
    pub bs: u64,
    /// The job's own options (fio's `job options`).
    pub options: Vec<(String, String)>,
    /// Bytes the job must transfer when only sluice's time limit
    /// ([`UNBOUNDED_RUN_S`]) can stop it before its size is done (no
    /// time_based, no runtime): a job short of it stopped at that limit.
    pub size_done_at: Option<u64>,
    /// `group_reporting`: the job joins the report of the job before it
    /// in its group ([`group::grouped`]).
    pub group_reporting: bool,
    /// The jobs this entry stands for (fio's `jobs=N`): 1, more once
    /// grouped.
    pub members: u32,
}

/// One line per job stopped by sluice's time limit (or `--max-duration`,
/// when the run ended before that limit) before its size was done: fio
/// would have run on, so the shortfall must be said.
fn stopped_early(r: &SimReport, jobs: &[JobInfo]) -> Vec<String> {
    let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
    let (limit, remedy) = if r.sim_time_s < UNBOUNDED_RUN_S - 1e-6 {
        (
            format!("--max-duration ({} s simulated)", r.sim_time_s),
            "raise --max-duration",
        )
    } else {
        (
            format!("sluice's {} s simulated limit", UNBOUNDED_RUN_S),
            "set runtime=",
        )
    };
    r.flows
        .iter()
        .zip(jobs)
        .filter_map(|(f, j)| {
            let size = j.size_done_at?;
            (f.bytes < size).then(|| {
                format!(
                    "job '{}' (flow {}) stopped at {limit} with {:.1} GiB of its {:.1} GiB done ({:.1}%): {remedy} to run longer",
                    printable(&j.name),
                    printable(&f.name),
                    gib(f.bytes),
                    gib(size),
                    f.bytes as f64 * 100.0 / size as f64
                )
            })
        })
        .collect()
}

/// A job file's results, printed as fio prints them.
#[derive(Clone, Debug)]
pub struct FioResults {
    /// Each group's report with its flows' jobs (`jobs[i]` is flow `i`'s).
    pub groups: Vec<(SimReport, Vec<JobInfo>)>,
    /// The `[global]` options (fio's `global options`).
    pub global_options: Vec<(String, String)>,
    /// Milliseconds since the Unix epoch the run started: real runs only,
    /// so a simulation prints the same bytes every time.
    pub started_unix_ms: Option<u64>,
    /// Options approximated, each with how ([`super::Plan::notes`]).
    pub notes: Vec<String>,
    /// Options with no effect ([`super::Plan::ignored`]).
    pub ignored: Vec<String>,
}

impl FioResults {
    /// fio's JSON layout (`--output-format json`), pretty, with a final
    /// line break.
    pub fn json(&self) -> Result<String> {
        json(self).map_err(|e| crate::import::fail(format!("fio's JSON: {e}")))
    }

    /// fio's text summary (`--output-format normal`) under a first line
    /// `header` (how the jobs ran).
    pub fn text(&self, header: &str) -> String {
        normal(self, header)
    }

    /// One line per job stopped before its size was done ([`stopped_early`]),
    /// for a host to warn about.
    pub fn stopped_early(&self) -> Vec<String> {
        self.groups
            .iter()
            .flat_map(|(r, j)| stopped_early(r, j))
            .collect()
    }
}

/// Options as fio prints them: valued ones only (flags such as
/// `time_based` are not listed).
fn options(opts: &[(String, String)]) -> OrderedMap<String> {
    OrderedMap(
        opts.iter()
            .filter(|(_, v)| !v.is_empty())
            .cloned()
            .collect(),
    )
}

#[derive(serde::Serialize)]
struct Doc {
    #[serde(rename = "fio version")]
    version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    time: Option<String>,
    #[serde(rename = "global options", skip_serializing_if = "is_empty")]
    global_options: OrderedMap<String>,
    jobs: Vec<Job>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    disk_util: Vec<DiskUtil>,
    sluice: Sluice,
}

fn is_empty<V>(o: &OrderedMap<V>) -> bool {
    o.0.is_empty()
}

/// What sluice adds: the policy and drive the jobs ran under.
#[derive(serde::Serialize)]
struct Sluice {
    scheduler: String,
    device: String,
    schema: &'static str,
    /// Options with no effect in the simulation.
    ignored: Vec<String>,
    /// Options whose effect is approximated, and how.
    approximated: Vec<String>,
    /// Jobs stopped at sluice's time limit before their size was done.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    stopped_early: Vec<String>,
}

#[derive(serde::Serialize)]
struct Job {
    jobname: String,
    groupid: u32,
    error: u32,
    elapsed: u64,
    #[serde(rename = "job options")]
    job_options: OrderedMap<String>,
    read: Dir,
    write: Dir,
    trim: Dir,
    job_runtime: u64,
    /// fio's latency buckets: the percentage of requests whose completion
    /// latency falls in each, read off the flow's latency CDF (its
    /// percentile points, linearly between them).
    latency_ns: OrderedMap<f64>,
    latency_us: OrderedMap<f64>,
    latency_ms: OrderedMap<f64>,
    /// The sluice flow this entry is (`name#0`, `name#1`, ... for clones).
    sluice_flow: String,
}

/// fio's bucket bounds: each key counts latencies above the key before it
/// and at most this one, in the map's unit.
const BUCKETS: [u32; 10] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000];

/// The share (0..=1) of the flow's requests with latency at most `ms`,
/// from its CDF's percentile points (percent, ms), linear between them.
fn share_within(cdf: &[[f64; 2]], ms: f64) -> f64 {
    let mut below = 0.0;
    let mut prev: Option<[f64; 2]> = None;
    for &[p, l] in cdf {
        if l <= ms {
            below = p;
        } else {
            if let Some([p0, l0]) = prev {
                if l > l0 && ms > l0 {
                    below = p0 + (p - p0) * (ms - l0) / (l - l0);
                }
            }
            break;
        }
        prev = Some([p, l]);
    }
    (below / 100.0).clamp(0.0, 1.0)
}

/// fio's `latency_ns`, `latency_us` and `latency_ms` maps of a flow.
fn latency_buckets(f: &FlowReport) -> [OrderedMap<f64>; 3] {
    let cdf = &f.lat_ms.cdf;
    if cdf.is_empty() {
        return [
            OrderedMap(Vec::new()),
            OrderedMap(Vec::new()),
            OrderedMap(Vec::new()),
        ];
    }
    // Each map goes on where the one before ended (1,000 ns is the first
    // microsecond bucket's lower bound), so the three sum to 100.
    let map = |unit_ms: f64, last: &[u32], mut before: f64| {
        let mut m = Vec::new();
        for &b in BUCKETS.iter().chain(last) {
            let now = share_within(cdf, f64::from(b) * unit_ms);
            m.push((b.to_string(), ((now - before) * 100.0 * 1e4).round() / 1e4));
            before = now;
        }
        (m, before)
    };
    let (ns, before) = map(1e-6, &[], 0.0);
    let (us, before) = map(1e-3, &[], before);
    let (mut ms, before) = map(1.0, &[2000], before);
    ms.push((
        ">=2000".to_string(),
        (((1.0 - before) * 100.0) * 1e4).round() / 1e4,
    ));
    [OrderedMap(ns), OrderedMap(us), OrderedMap(ms)]
}

/// fio's `disk_util` entry for the simulated drive: requests that reached
/// it (after merging) and how busy it was over the measured window.
#[derive(serde::Serialize)]
struct DiskUtil {
    name: String,
    read_ios: u64,
    write_ios: u64,
    util: f64,
}

fn disk_util(r: &SimReport) -> Option<DiskUtil> {
    let d = r.device_requests.as_ref()?;
    let busy: f64 = r.flows.iter().map(|f| f.disk_time_s).sum();
    let w = window(r);
    Some(DiskUtil {
        name: r.device.clone(),
        read_ios: d.reads,
        write_ios: d.writes,
        util: if w > 0.0 {
            ((busy / w * 100.0).min(100.0) * 100.0).round() / 100.0
        } else {
            0.0
        },
    })
}

#[derive(serde::Serialize, Default)]
struct Stats {
    min: u64,
    max: u64,
    mean: f64,
    stddev: f64,
    #[serde(rename = "N")]
    n: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    percentile: Option<OrderedMap<u64>>,
}

impl Dir {
    /// The share `frac` of the counts (a mixed job's reads or writes).
    fn scaled(mut self, frac: f64) -> Dir {
        let u = |x: u64| (x as f64 * frac).round() as u64;
        self.io_bytes = u(self.io_bytes);
        self.io_kbytes = u(self.io_kbytes);
        self.bw_bytes = u(self.bw_bytes);
        self.bw = u(self.bw);
        self.iops *= frac;
        self.total_ios = u(self.total_ios);
        self.bw_min = u(self.bw_min);
        self.bw_max = u(self.bw_max);
        self.bw_mean *= frac;
        self.bw_dev *= frac;
        self.iops_min = u(self.iops_min);
        self.iops_max = u(self.iops_max);
        self.iops_mean *= frac;
        self.iops_stddev *= frac;
        self
    }
}

#[derive(serde::Serialize, Default)]
struct Dir {
    io_bytes: u64,
    io_kbytes: u64,
    bw_bytes: u64,
    bw: u64,
    iops: f64,
    runtime: u64,
    total_ios: u64,
    short_ios: u64,
    drop_ios: u64,
    slat_ns: Stats,
    clat_ns: Stats,
    lat_ns: Stats,
    bw_min: u64,
    bw_max: u64,
    bw_agg: f64,
    bw_mean: f64,
    bw_dev: f64,
    bw_samples: u64,
    iops_min: u64,
    iops_max: u64,
    iops_mean: f64,
    iops_stddev: f64,
    iops_samples: u64,
}

/// fio's percentile key: "99.000000".
fn key(p: f64) -> String {
    format!("{p:.6}")
}

/// The latency (ns) at percentile `p` of the flow's CDF.
fn at(f: &FlowReport, p: f64) -> f64 {
    f.lat_ms
        .cdf
        .iter()
        .find(|c| (c[0] - p).abs() < 1e-9)
        .map_or(0.0, |c| c[1] * 1e6)
}

/// Seconds the results were measured over.
fn window(r: &SimReport) -> f64 {
    (r.sim_time_s - r.measured_from_s).max(0.0)
}

/// Seconds flow `f` ran within the measured window: to its last
/// completion if it finished its `size` early (fio's per-job runtime).
fn active_secs(r: &SimReport, f: &FlowReport) -> f64 {
    let w = window(r);
    f.done_s
        .map_or(w, |d| (d - r.measured_from_s).clamp(0.0, w))
}

/// min, max, mean and sample standard deviation, as fio's `*_dev`.
fn summary(xs: &[f64]) -> (f64, f64, f64, f64) {
    if xs.is_empty() {
        return (0.0, 0.0, 0.0, 0.0);
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = if xs.len() > 1 {
        xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    let min = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (min, max, mean, var.sqrt())
}

/// Flow `i`'s bytes per second in each full 500 ms sample of the
/// measured run, after any ramp (empty without a timeline).
fn samples(r: &SimReport, i: usize) -> Vec<f64> {
    let Some(t) = &r.timeline else {
        return Vec::new();
    };
    let first = ((r.measured_from_s / t.interval_s) - 1e-9).ceil().max(0.0) as usize;
    let until = r
        .flows
        .get(i)
        .and_then(|f| f.done_s)
        .unwrap_or(r.sim_time_s);
    let end = ((until.min(r.sim_time_s) / t.interval_s) + 1e-9).floor() as usize;
    t.flows
        .0
        .get(i)
        .map(|(_, mb_s)| mb_s.iter().take(end).skip(first).map(|x| x * 1e6).collect())
        .unwrap_or_default()
}

/// Flow `i`'s numbers in the direction it does; `group_bw` is the bytes
/// per second of every flow in that direction (fio's group aggregate).
fn direction(r: &SimReport, i: usize, info: &JobInfo, group_bw: f64) -> Dir {
    let f = &r.flows[i];
    let secs = active_secs(r, f);
    let per_s = |x: f64| if secs > 0.0 { x / secs } else { 0.0 };
    let ns = |ms: f64| sluice::Duration::from_millis_f64(ms).as_nanos();
    let stats = |with_pct: bool| Stats {
        min: at(f, 0.0).round() as u64,
        max: ns(f.lat_ms.max),
        mean: f.lat_ms.mean * 1e6,
        stddev: f.lat_ms.stddev * 1e6,
        n: f.requests,
        percentile: (with_pct && f.requests > 0).then(|| {
            OrderedMap(
                FIO_PERCENTILES
                    .iter()
                    .map(|&p| (key(p), at(f, p).round() as u64))
                    .collect(),
            )
        }),
    };
    let bytes_s = samples(r, i);
    let kib_s: Vec<f64> = bytes_s.iter().map(|b| b / 1024.0).collect();
    let iops: Vec<f64> = bytes_s.iter().map(|b| b / info.bs as f64).collect();
    let (bw_min, bw_max, bw_mean, bw_dev) = summary(&kib_s);
    let (iops_min, iops_max, iops_mean, iops_stddev) = summary(&iops);
    Dir {
        io_bytes: f.bytes,
        io_kbytes: f.bytes / 1024,
        bw_bytes: per_s(f.bytes as f64).round() as u64,
        bw: (per_s(f.bytes as f64) / 1024.0).round() as u64,
        iops: per_s(f.requests as f64),
        runtime: (secs * 1000.0).round() as u64,
        total_ios: f.requests,
        short_ios: 0,
        drop_ios: 0,
        slat_ns: Stats::default(),
        clat_ns: stats(true),
        lat_ns: stats(false),
        bw_min: bw_min.round() as u64,
        bw_max: bw_max.round() as u64,
        bw_agg: if group_bw > 0.0 {
            bw_mean * 1024.0 / group_bw * 100.0
        } else {
            0.0
        },
        bw_mean,
        bw_dev,
        bw_samples: kib_s.len() as u64,
        iops_min: iops_min.round() as u64,
        iops_max: iops_max.round() as u64,
        iops_mean,
        iops_stddev,
        iops_samples: iops.len() as u64,
    }
}

/// fio's `time`: "Tue Nov 24 10:35:39 2026" (UTC here).
fn ctime(unix_s: u64) -> String {
    let days = (unix_s / 86_400) as i64;
    let rem = unix_s % 86_400;
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!(
        "{} {} {:2} {:02}:{:02}:{:02} {year}",
        WEEKDAYS[days.rem_euclid(7) as usize],
        MONTHS[(month - 1) as usize],
        day,
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// A job's read and write numbers: its flow's, split by a mixed job's
/// read share.
fn read_write(r: &SimReport, i: usize, info: &JobInfo, group_bw: (f64, f64)) -> (Dir, Dir) {
    match info.read_fraction {
        Some(frac) => {
            let read = direction(r, i, info, group_bw.0).scaled(frac);
            let write = direction(r, i, info, group_bw.1).scaled(1.0 - frac);
            (read, write)
        }
        None if info.write => (Dir::default(), direction(r, i, info, group_bw.1)),
        None => (direction(r, i, info, group_bw.0), Dir::default()),
    }
}

/// Bytes per second of every flow of reporting group `group` in each
/// direction (fio's group aggregate), mixed jobs split by their share.
fn group_bw(r: &SimReport, jobs: &[JobInfo], group: u32) -> (f64, f64) {
    let secs = window(r);
    let (mut read, mut write) = (0.0, 0.0);
    for (f, j) in r.flows.iter().zip(jobs).filter(|(_, j)| j.group == group) {
        let frac = j.read_fraction.unwrap_or(if j.write { 0.0 } else { 1.0 });
        read += f.bytes as f64 * frac;
        write += f.bytes as f64 * (1.0 - frac);
    }
    if secs > 0.0 {
        (read / secs, write / secs)
    } else {
        (0.0, 0.0)
    }
}

/// The JSON document: each group's report with its flows' jobs
/// (`jobs[i]` is flow `i`'s job).
fn json(file: &FioResults) -> serde_json::Result<String> {
    let results = &file.groups;
    let mut out: Vec<Job> = Vec::new();
    for (r, jobs) in results {
        let (r, jobs) = reported(r, jobs);
        let (r, jobs) = (r.as_ref(), jobs.as_ref());
        for (i, (f, info)) in r.flows.iter().zip(jobs).enumerate() {
            let bw = group_bw(r, jobs, info.group);
            let (read, write) = read_write(r, i, info, bw);
            let [latency_ns, latency_us, latency_ms] = latency_buckets(f);
            out.push(Job {
                jobname: info.name.clone(),
                groupid: info.group,
                error: 0,
                elapsed: r.sim_time_s.ceil() as u64,
                job_options: options(&info.options),
                read,
                write,
                trim: Dir::default(),
                job_runtime: (active_secs(r, f) * 1000.0).round() as u64,
                latency_ns,
                latency_us,
                latency_ms,
                sluice_flow: f.name.clone(),
            });
        }
    }
    let first = results.first().map(|(r, _)| r);
    let doc = Doc {
        version: format!("sluice-{}", env!("CARGO_PKG_VERSION")),
        timestamp: file.started_unix_ms.map(|ms| ms / 1000),
        timestamp_ms: file.started_unix_ms,
        time: file.started_unix_ms.map(|ms| ctime(ms / 1000)),
        global_options: options(&file.global_options),
        jobs: out,
        disk_util: results
            .iter()
            .filter_map(|(r, _)| disk_util(r))
            .take(1)
            .collect(),
        sluice: Sluice {
            scheduler: first.map(|r| r.scheduler.clone()).unwrap_or_default(),
            device: first.map(|r| r.device.clone()).unwrap_or_default(),
            schema: first.map_or("", |r| r.schema),
            ignored: file.ignored.clone(),
            approximated: file.notes.clone(),
            stopped_early: file.stopped_early(),
        },
    };
    Ok(serde_json::to_string_pretty(&doc)? + "\n")
}

/// A group's report and jobs as fio reports them: with `group_reporting`,
/// the jobs that join the one before them merged into it.
fn reported<'a>(r: &'a SimReport, jobs: &'a [JobInfo]) -> (Cow<'a, SimReport>, Cow<'a, [JobInfo]>) {
    match group::grouped(r, jobs) {
        Some((r, jobs)) => (Cow::Owned(r), Cow::Owned(jobs)),
        None => (Cow::Borrowed(r), Cow::Borrowed(jobs)),
    }
}

/// Bytes per second in fio's units: "377KiB/s (386kB/s)".
fn bw(bytes_s: f64) -> String {
    let (v, unit) = if bytes_s >= (1 << 20) as f64 {
        (bytes_s / (1 << 20) as f64, "MiB/s")
    } else {
        (bytes_s / 1024.0, "KiB/s")
    };
    let (d, dunit) = if bytes_s >= 1e6 {
        (bytes_s / 1e6, "MB/s")
    } else {
        (bytes_s / 1e3, "kB/s")
    };
    format!("{v:.1}{unit} ({d:.1}{dunit})")
}

/// A text summary in fio's style: per job its IOPS and bandwidth, latency,
/// percentiles and samples, then each group's totals, then what was
/// ignored or approximated.
fn normal(file: &FioResults, how: &str) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{how}");
    for (r, jobs) in &file.groups {
        let (r, jobs) = reported(r, jobs);
        // A run holds one stonewalled group, maybe several reporting
        // groups (new_group).
        let mut ids: Vec<u32> = jobs.iter().map(|j| j.group).collect();
        ids.dedup();
        for gid in ids {
            group_text(&mut o, &r, &jobs, gid);
        }
    }
    if !file.ignored.is_empty() {
        let _ = writeln!(
            o,
            "\nignored (no effect in simulation): {}",
            file.ignored.join(", ")
        );
    }
    if !file.notes.is_empty() {
        let _ = writeln!(o, "approximated: {}", file.notes.join("; "));
    }
    o
}

/// One reporting group's jobs (those of `jobs` in group `group`) and
/// totals.
fn group_text(o: &mut String, r: &SimReport, jobs: &[JobInfo], group: u32) {
    for (i, (f, info)) in r.flows.iter().zip(jobs).enumerate() {
        if info.group != group {
            continue;
        }
        let (read, write) = read_write(r, i, info, (0.0, 0.0));
        let _ = writeln!(
            o,
            "{}: (groupid={group}, jobs={}): err= 0: flow {}",
            printable(&info.name),
            info.members,
            printable(&f.name)
        );
        for (dir, s) in [("read", &read), ("write", &write)] {
            if s.total_ios == 0 && s.io_bytes == 0 {
                continue;
            }
            let _ = writeln!(
                o,
                "  {dir}: IOPS={:.0}, BW={} ({:.1}MiB/{}msec)",
                s.iops,
                bw(s.bw_bytes as f64),
                s.io_bytes as f64 / (1 << 20) as f64,
                s.runtime
            );
        }
        let s = if info.write { &write } else { &read };
        let _ = writeln!(
            o,
            "    clat (usec): min={:.0}, max={:.0}, avg={:.2}, stdev={:.2}",
            at(f, 0.0) / 1e3,
            f.lat_ms.max * 1e3,
            f.lat_ms.mean * 1e3,
            f.lat_ms.stddev * 1e3
        );
        let _ = writeln!(o, "    clat percentiles (usec):");
        for row in FIO_PERCENTILES.chunks(4) {
            let cells: Vec<String> = row
                .iter()
                .map(|&p| format!("{p:5.2}th=[{:>7.0}]", at(f, p) / 1e3))
                .collect();
            let _ = writeln!(o, "     | {}", cells.join(", "));
        }
        if s.bw_samples > 0 {
            let _ = writeln!(
                o,
                "   bw (  KiB/s): min={}, max={}, avg={:.2}, stdev={:.2}, samples={}",
                s.bw_min, s.bw_max, s.bw_mean, s.bw_dev, s.bw_samples
            );
            let _ = writeln!(
                o,
                "   iops        : min={}, max={}, avg={:.2}, stdev={:.2}, samples={}",
                s.iops_min, s.iops_max, s.iops_mean, s.iops_stddev, s.iops_samples
            );
        }
    }
    let _ = writeln!(o, "\nRun status group {group} (all jobs):");
    let secs = window(r);
    for (write, label) in [(false, "READ"), (true, "WRITE")] {
        let share = |j: &JobInfo| {
            j.read_fraction
                .map_or(if j.write == write { 1.0 } else { 0.0 }, |f| {
                    if write {
                        1.0 - f
                    } else {
                        f
                    }
                })
        };
        let flows: Vec<(&FlowReport, f64)> = r
            .flows
            .iter()
            .zip(jobs)
            .filter(|(_, j)| j.group == group)
            .map(|(f, j)| (f, share(j)))
            .filter(|(_, s)| *s > 0.0)
            .collect();
        if flows.is_empty() {
            continue;
        }
        let bytes: f64 = flows.iter().map(|(f, s)| f.bytes as f64 * s).sum();
        let ms = |x: f64| (x * 1000.0).round() as u64;
        let runs = flows.iter().map(|(f, _)| ms(active_secs(r, f)));
        let (lo, hi) = (runs.clone().min().unwrap_or(0), runs.max().unwrap_or(0));
        let _ = writeln!(
            o,
            "{label:>7}: bw={}, io={:.1}MiB, run={lo}-{hi}msec",
            bw(if secs > 0.0 { bytes / secs } else { 0.0 }),
            bytes / (1 << 20) as f64,
        );
    }
    let last = jobs.last().is_none_or(|j| j.group == group);
    for note in stopped_early(r, jobs).into_iter().filter(|_| last) {
        let _ = writeln!(o, "\nwarning: {note}");
    }
}

#[cfg(test)]
mod tests;
