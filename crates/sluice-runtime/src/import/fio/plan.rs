//! From jobs to flows: each job's workload (pattern, sizes, distribution,
//! syncs) and the groups that stonewall, wait_for and new_group make.

use std::path::PathBuf;

use sluice_workload::Pattern;

use super::jobfile::{self, Job, JobFile};
use super::options::*;
use super::{push_once, Context, FioOptions, JobInfo, Target, UNBOUNDED_RUN_S, UNKNOWN_OPTION};
use crate::error::Result;
use crate::scenario::{FlowBuilder, ScenarioBuilder};

/// One stonewalled group of jobs: run after the groups before it.
#[derive(Clone, Debug)]
pub struct Group {
    /// The group's scenario, without a drive ([`Group::scenario`] adds
    /// the target's).
    pub builder: ScenarioBuilder,
    /// Flow `i`'s job, for the output.
    pub jobs: Vec<JobInfo>,
    /// The job file's name, for messages.
    pub(super) file: String,
}

/// A job file as scenarios, with what its options did not do exactly.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The groups, in the order they run.
    pub groups: Vec<Group>,
    /// One line each: an option whose effect is approximated, and how
    /// (as [`crate::import::Imported::notes`]).
    pub notes: Vec<String>,
    /// Options with no effect (data, reporting, plumbing).
    pub ignored: Vec<String>,
    /// The jobs' `directory` option, when given.
    pub directory: Option<PathBuf>,
    /// fio's `global options`, for the output.
    pub global_options: Vec<(String, String)>,
}

/// A job's `rw`: the pattern, whether it writes, and the read share of a
/// mixed job.
pub(super) fn workload(
    file: &str,
    job: &Job,
    notes: &mut Vec<String>,
) -> Result<(Pattern, bool, Option<f64>)> {
    let (rw, line) = job.get("rw").unwrap_or(("read", job.line));
    // `read:8k` skips 8k after each request: fio's holes, not modelled.
    let (kind, _) = rw.split_once(':').unwrap_or((rw, ""));
    if kind != rw {
        push_once(
            notes,
            format!("rw={rw}: without the gaps after each request"),
        );
    }
    let mix = || -> Result<f64> {
        if let Some((v, l)) = job.get("rwmixread") {
            return percent(file, "rwmixread", v, l).map(|p| p / 100.0);
        }
        if let Some((v, l)) = job.get("rwmixwrite") {
            return percent(file, "rwmixwrite", v, l).map(|p| 1.0 - p / 100.0);
        }
        Ok(0.5)
    };
    Ok(match kind {
        "read" => (Pattern::SeqRead, false, None),
        "write" => (Pattern::SeqWrite, true, None),
        "randread" => (Pattern::RandRead, false, None),
        "randwrite" => (Pattern::RandWrite, true, None),
        "randrw" => {
            push_once(notes, "rw=randrw: one flow, its totals split into reads and writes by the mix".into());
            (Pattern::Pool, false, Some(mix()?))
        }
        "rw" | "readwrite" => {
            push_once(notes, format!("rw={kind}: mixed reads and writes at random offsets"));
            (Pattern::Pool, false, Some(mix()?))
        }
        "trim" | "randtrim" | "trimwrite" | "randtrimwrite" => {
            bail!("{file}: line {line}: rw={rw}: the simulated drives model no trim")
        }
        other => bail!("{file}: line {line}: rw={other}: expected read, write, randread, randwrite, rw or randrw"),
    })
}

/// `random_distribution`: fio's zipf, pareto and normal for a random
/// job's offsets (a sequential job has none to skew); `zoned`,
/// `zoned_abs` and `sequence` are uniform, and said so.
pub(super) fn random_distribution(
    file: &str,
    (v, l): (&str, usize),
    sequential: bool,
    (size, si): (u64, bool),
    f: FlowBuilder,
    notes: &mut Vec<String>,
) -> Result<FlowBuilder> {
    // One per data direction (read,write,trim): the reads' is used.
    let first = v.split(',').next().unwrap_or(v);
    if v.split(',').any(|d| !d.is_empty() && d != first) {
        push_once(
            notes,
            format!("random_distribution={v}: the reads' ({first}) for every request"),
        );
    }
    let (kind, rest) = first.split_once(':').unwrap_or((first, ""));
    if kind == "sequence" {
        push_once(
            notes,
            format!("random_distribution={first}: uniform random offsets"),
        );
        return Ok(f);
    }
    // zoned_abs: each zone's size as a share of the job's size.
    let spec = if kind == "zoned_abs" {
        let mut zones = Vec::new();
        let mut left = 100.0;
        for z in rest.split(':').filter(|z| !z.is_empty()) {
            let (a, b) = z.split_once('/').unwrap_or((z, ""));
            let bytes = jobfile::size_in(file, "random_distribution", b, l, si)?;
            let pct = (bytes as f64 * 100.0 / size.max(1) as f64).min(left);
            if pct < bytes as f64 * 100.0 / size.max(1) as f64 {
                push_once(
                    notes,
                    format!(
                        "random_distribution={first}: zones past the job's size end at its end"
                    ),
                );
            }
            left -= pct;
            zones.push(format!("{a}/{pct}"));
        }
        format!("zoned:{}", zones.join(":"))
    } else {
        first.to_string()
    };
    let d = sluice_workload::Distribution::parse(&spec).map_err(|e| {
        crate::import::fail(format!("{file}: line {l}: random_distribution={v}: {e}"))
    })?;
    if sequential || d == sluice_workload::Distribution::Uniform {
        return Ok(f);
    }
    Ok(f.random_distribution(d.name()))
}

/// `fsync=N` or `fdatasync=N` (N > 0): (N, the key, its value).
pub(super) fn sync_every(file: &str, job: &Job) -> Result<Option<(u64, &'static str, String)>> {
    for key in ["fsync", "fdatasync"] {
        if let Some((v, l)) = job.get(key) {
            let n = v.parse::<u64>().ok().with_context(|| {
                format!("{file}: line {l}: {key}={v}: expected a number of writes")
            })?;
            if n > 0 {
                return Ok(Some((n, key, v.to_string())));
            }
        }
    }
    Ok(None)
}

/// A percentage 0..=100.
pub(super) fn percent(file: &str, key: &str, v: &str, l: usize) -> Result<f64> {
    v.trim_end_matches('%')
        .parse::<f64>()
        .ok()
        .filter(|p| (0.0..=100.0).contains(p))
        .with_context(|| format!("{file}: line {l}: {key}={v}: expected a percentage 0..=100"))
}

/// A job's request size, bytes, from bs, bsrange or bssplit (the mean
/// where sizes vary), rounded up to whole KiB.
pub(super) fn request_size(
    file: &str,
    job: &Job,
    si: bool,
    notes: &mut Vec<String>,
) -> Result<u64> {
    let sz = |k: &str, v: &str, l: usize| jobfile::size_in(file, k, v, l, si);
    let mut bs = if let Some((v, l)) = job.get("bssplit") {
        // size/percent:size/percent,... (the reads' list first).
        let first = v.split(',').next().unwrap_or("");
        let (mut total, mut weight) = (0.0, 0.0);
        for part in first.split(':').filter(|p| !p.is_empty()) {
            let (s, p) = part.split_once('/').unwrap_or((part, ""));
            let b = sz("bssplit", s, l)? as f64;
            let w = if p.is_empty() {
                0.0
            } else {
                percent(file, "bssplit", p, l)?
            };
            total += b * w;
            weight += w;
        }
        if weight <= 0.0 {
            bail!("{file}: line {l}: bssplit={v}: expected size/percent:size/percent...");
        }
        (total / weight).round() as u64
    } else if let Some((v, l)) = job.get("bsrange") {
        let first = v.split(',').next().unwrap_or("");
        let (a, b) = first.split_once('-').unwrap_or((first, first));
        (sz("bsrange", a, l)? + sz("bsrange", b, l)?) / 2
    } else if let Some((v, l)) = job.get("bs") {
        let parts: Vec<&str> = v.split(',').collect();
        if parts.len() > 1 && parts.iter().any(|p| !p.is_empty() && *p != parts[0]) {
            push_once(notes, format!("bs={v}: the reads' size for every request"));
        }
        sz("bs", parts[0], l)?
    } else {
        4096
    };
    if bs == 0 || bs > 64 << 20 {
        bail!(
            "{file}: job '{}': a request size must be 1 byte to 64m (got {bs})",
            job.name
        );
    }
    if bs % 1024 != 0 {
        let up = bs.div_ceil(1024) * 1024;
        push_once(
            notes,
            format!("request size {bs} bytes: {up} (sluice sizes requests in whole KiB)"),
        );
        bs = up;
    }
    Ok(bs)
}

/// The job file as scenarios, one per stonewalled group (no drive yet:
/// [`Group::scenario`] adds `options`' target), with what was ignored or
/// approximated; a [`Target::Real`] plan does direct I/O only.
pub fn plan(job_file: &JobFile, options: &FioOptions) -> Result<Plan> {
    let (file, stem, jobs) = (job_file.name.as_str(), &job_file.stem, &job_file.jobs);
    let scheduler = options.scheduler();
    let run = options.target == Target::Real;
    let notes = &mut Vec::new();
    let mut ignored = Vec::new();
    let mut dir = None;
    // Engines first: a file for the network says so, not its first odd option.
    for job in jobs {
        if let Some((e, l)) = job.get("ioengine") {
            let e = e
                .strip_prefix("external:")
                .unwrap_or(e)
                .to_ascii_lowercase();
            if NOT_BLOCK.contains(&e.as_str()) {
                bail!("{file}: line {l}: ioengine={e}: not I/O through the block layer to a disk, which is what sluice simulates");
            }
        }
    }
    for job in jobs {
        jobfile::unset_variable(file, job)?;
    }
    struct Planned {
        flow: FlowBuilder,
        info: JobInfo,
        count: u32,
        runtime: Option<f64>,
        time_based: bool,
        ramp: f64,
        start: f64,
    }
    let mut groups: Vec<Vec<Planned>> = vec![Vec::new()];
    let mut groupid = 0u32;
    let mut seen: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    for (index, job) in jobs.iter().enumerate() {
        let at = |key: &str| job.get(key);
        let flag = |key: &str| at(key).is_some_and(|(v, _)| v != "0");
        if let Some((v, l)) = at("zonemode") {
            match v {
                "none" => {}
                "strided" => push_once(
                    notes,
                    "zonemode=strided: the whole of the job's size, without skipping between zones"
                        .into(),
                ),
                _ => bail!("{file}: line {l}: zonemode={v}: the simulated drives are not zoned"),
            }
        }
        for (k, v, l) in &job.options {
            if let Some(note) = approximation(k, v) {
                push_once(notes, note);
            } else if USED.contains(&k.as_str()) {
                continue;
            } else if IGNORED.contains(&k.as_str())
                || k.starts_with("http_")
                || k.starts_with("zone")
            {
                push_once(&mut ignored, k.clone());
            } else {
                bail!("{file}: line {l}: option '{k}' {UNKNOWN_OPTION}");
            }
        }
        // A job's name reaches the terminal: no control or bidi characters.
        // fio names a job after its section unless the section itself
        // says name= (a [global] name= renames no job).
        let (job_name, name_line) = job.own("name").unwrap_or((job.name.as_str(), job.line));
        if let Err(e) = crate::names::check(&format!("job {index}"), job_name) {
            bail!("{file}: line {name_line}: {e}");
        }
        let si = at("kb_base").is_some_and(|(v, _)| v == "1000");
        let (pattern, write, mix) = workload(file, job, notes)?;
        let bs = request_size(file, job, si, notes)?;
        let sz = |k: &str, v: &str, l: usize| jobfile::size_in(file, k, v, l, si);
        let nrfiles = match at("nrfiles") {
            Some((v, l)) => v
                .parse::<u64>()
                .ok()
                .filter(|n| (1..=1_000_000).contains(n))
                .with_context(|| format!("{file}: line {l}: nrfiles={v}: expected 1..=1000000"))?,
            None => 1,
        };
        // size= is the job's total; without it, filesize x nrfiles, else
        // a stand-in (fio would take the file's or the device's size).
        let size = match (at("size"), at("filesize")) {
            (Some((v, l)), _) if v.ends_with('%') => {
                let p = percent(file, "size", v, l)?;
                push_once(notes, format!("size={v}: of a 1g stand-in for the device"));
                ((p / 100.0 * (1u64 << 30) as f64) as u64).max(bs)
            }
            (Some((v, l)), _) => sz("size", v, l)?,
            (None, Some((v, l))) => {
                let one = v.split('-').next().unwrap_or(v);
                sz("filesize", one, l)?.saturating_mul(nrfiles)
            }
            (None, None) => {
                push_once(
                    notes,
                    "size: not given; 1g assumed (fio takes the file's or device's size)".into(),
                );
                1 << 30
            }
        };
        if size < bs {
            bail!(
                "{file}: job '{}': size {size} bytes is smaller than a request ({bs})",
                job.name
            );
        }
        let time_based = flag("time_based");
        let runtime = match at("runtime") {
            Some((v, l)) => {
                let secs = jobfile::seconds(file, "runtime", v, l, 1.0)?;
                if !(0.001..=1e6).contains(&secs) {
                    bail!("{file}: line {l}: runtime={v}: expected 1ms to 1000000s");
                }
                Some(secs)
            }
            None if time_based => bail!("{file}: job '{}': time_based needs runtime=", job.name),
            None => None,
        };
        let ramp = match at("ramp_time") {
            Some((v, l)) => match jobfile::seconds(file, "ramp_time", v, l, 1.0)? {
                r if r > 1e6 => bail!("{file}: line {l}: ramp_time={v}: expected at most 1000000s"),
                r => r,
            },
            None => 0.0,
        };
        // fio's default is buffered (direct=0); buffered= is direct='s
        // inverse.
        let engine = at("ioengine").map_or("psync".to_string(), |(e, _)| e.to_ascii_lowercase());
        let mut asked_buffered = match (at("direct"), at("buffered")) {
            (Some((v, _)), _) => v == "0",
            (None, Some((v, _))) => v != "0",
            (None, None) => true,
        };
        // Engines that reach the device around the kernel's page cache.
        if asked_buffered && NO_PAGE_CACHE.contains(&engine.as_str()) {
            if at("direct").or(at("buffered")).is_some() {
                push_once(notes, format!(
                    "direct=0/buffered=1 with ioengine={engine}: direct (the engine does its I/O around the page cache)"
                ));
            }
            asked_buffered = false;
        }
        if asked_buffered && run {
            push_once(notes, match at("direct").or(at("buffered")) {
                Some(_) => "direct=0/buffered=1: sluice fio --run does direct I/O (O_DIRECT) only".into(),
                None => "direct: not given (fio's default: buffered); sluice fio --run does direct I/O (O_DIRECT) only".into(),
            });
        }
        let buffered = asked_buffered && !run;
        if let Some((v, _)) = at("directory") {
            dir = Some(PathBuf::from(v.split(':').next().unwrap_or(v)));
        }
        let count = match at("numjobs") {
            Some((v, l)) => v
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=4096).contains(n))
                .with_context(|| format!("{file}: line {l}: numjobs={v}: expected 1..=4096"))?,
            None => 1,
        };
        let depth = match at("iodepth") {
            Some((v, l)) => {
                let d = v
                    .parse::<u32>()
                    .ok()
                    .filter(|n| (1..=4096).contains(n))
                    .with_context(|| format!("{file}: line {l}: iodepth={v}: expected 1..=4096"))?;
                if SYNC_ENGINES.contains(&engine.as_str()) && d > 1 {
                    push_once(notes, format!(
                        "iodepth={v}: ioengine={engine} keeps one request in flight (as fio's does; psync is fio's default)"
                    ));
                    1
                } else {
                    d
                }
            }
            None => 1,
        };
        let name = job_name;
        let nth = seen.entry(name.to_string()).or_insert(0);
        *nth += 1;
        let flow_name = match *nth {
            1 => name.to_string(),
            n => format!("{name}#job{n}"),
        };
        let mut f = FlowBuilder::new(&flow_name, pattern)
            .count(count)
            .copies_numbered_after_hash()
            .file_gib(size as f64 / (1u64 << 30) as f64)
            .outstanding(depth);
        if let Some(r) = mix {
            f = f
                .weights(vec![100])
                .size_mean_sectors((bs / 512) as f64)
                .size_sd_sectors(0.0)
                .read_fraction(r);
        } else {
            f = f.request_kib((bs / 1024) as u32);
        }
        if buffered {
            f = f.direct(false);
        }
        if let Some((v, l)) = at("random_distribution") {
            let random = job.get("rw").is_some_and(|(rw, _)| rw.starts_with("rand"));
            f = random_distribution(file, (v, l), !random, (size, si), f, notes)?;
        }
        if let Some((n, key, v)) = sync_every(file, job)? {
            if write && mix.is_none() {
                f = f.fsync_every(n);
                push_once(
                    notes,
                    if buffered {
                        format!("{key}={v}: the flush after every {n} writes is counted in the last write's latency (fio reports it apart)")
                    } else {
                        format!("{key}={v} with direct I/O: the job waits for its writes in flight every {n} writes; no cache flush reaches the drive")
                    },
                );
            } else if mix.is_some() {
                push_once(notes, format!("{key}={v} with a read/write mix: no flush"));
            }
        }
        if nrfiles > 1 {
            if mix.is_some() {
                push_once(
                    notes,
                    format!(
                    "nrfiles={nrfiles} with a read/write mix: one file of the files' total size"
                ),
                );
            } else if size / nrfiles < bs {
                bail!("{file}: job '{}': nrfiles={nrfiles}: each file would be smaller than a request ({bs})", job.name);
            } else {
                f = f.files(nrfiles as u32);
                if run {
                    push_once(notes, format!(
                        "nrfiles={nrfiles} with --run: {nrfiles} regions, one after another, of the one file sluice makes for the job"
                    ));
                }
            }
        }
        if let Some((v, l)) = at("file_service_type") {
            let (kind, _) = v.split_once(':').unwrap_or((v, ""));
            let service = match kind {
                "roundrobin" | "sequential" | "random" => v.to_string(),
                "zipf" | "pareto" | "normal" | "gauss" => {
                    push_once(notes, format!("file_service_type={v}: a file at random, uniformly"));
                    "random".to_string()
                }
                _ => bail!("{file}: line {l}: file_service_type={v}: expected roundrobin[:N], sequential, random, zipf, pareto or normal"),
            };
            if sluice_workload::FileService::parse(&service).is_none() {
                bail!("{file}: line {l}: file_service_type={v}: expected roundrobin[:N] with N at least 1");
            }
            if nrfiles > 1 && mix.is_none() {
                f = f.file_service(service);
            }
        }
        if let Some((v, l)) = at("offset") {
            if v.ends_with('%') {
                let p = percent(file, "offset", v, l)?;
                push_once(notes, format!("offset={v}: of the job's size"));
                f = f.offset_gib(p / 100.0 * size as f64 / (1u64 << 30) as f64);
            } else {
                f = f.offset_gib(sz("offset", v, l)? as f64 / (1u64 << 30) as f64);
            }
        }
        let sync_like = mix.is_none();
        if let Some((v, l)) = at("thinktime") {
            let secs = jobfile::seconds(file, "thinktime", v, l, 1e-6)?;
            if secs > 1e4 {
                bail!("{file}: line {l}: thinktime={v}: expected at most 10000s");
            }
            let blocks = at("thinktime_blocks")
                .and_then(|(v, _)| v.parse::<f64>().ok())
                .filter(|b| *b >= 1.0)
                .unwrap_or(1.0);
            if sync_like {
                f = f.think_ms(secs * 1e3 / blocks);
            } else {
                push_once(
                    notes,
                    format!("thinktime={v} with a read/write mix: no pause"),
                );
            }
        }
        let mut rate_iops = None;
        if let Some((v, l)) = at("rate_iops") {
            let first = v.split(',').find(|s| !s.is_empty()).unwrap_or(v);
            rate_iops = Some(
                first
                    .parse::<f64>()
                    .ok()
                    .filter(|r: &f64| (0.001..=1e7).contains(r))
                    .with_context(|| {
                        format!("{file}: line {l}: rate_iops={v}: expected 0.001 to 10000000")
                    })?,
            );
        } else if let Some((v, l)) = at("rate") {
            let first = v.split(',').find(|s| !s.is_empty()).unwrap_or(v);
            let bytes = sz("rate", first, l)? as f64;
            let r = bytes / bs as f64;
            if !(0.001..=1e7).contains(&r) {
                bail!("{file}: line {l}: rate={v}: expected 0.001 to 10000000 requests a second");
            }
            rate_iops = Some(r);
        }
        if let Some(r) = rate_iops {
            if sync_like {
                f = f.rate_iops(r);
            } else {
                push_once(notes, "rate with a read/write mix: not capped".into());
            }
        }
        let mut start = 0.0;
        if let Some((v, l)) = at("startdelay") {
            let first = v.split('-').next().unwrap_or(v);
            let s = jobfile::seconds(file, "startdelay", first, l, 1.0)?;
            if s > 1e6 {
                bail!("{file}: line {l}: startdelay={v}: expected at most 1000000s");
            }
            if s > 0.0 {
                f = f.start_s(s);
                start = s;
            }
        }
        // How much a job does without time_based: io_size (or number_ios)
        // else size, times loops.
        let loops = match at("loops") {
            Some((v, l)) => v
                .parse::<u64>()
                .ok()
                .filter(|n| (1..=1_000_000).contains(n))
                .with_context(|| format!("{file}: line {l}: loops={v}: expected 1..=1000000"))?,
            None => 1,
        };
        let mut requests = size / bs;
        if let Some((v, l)) = at("io_size") {
            requests = (sz("io_size", v, l)? / bs).max(1);
        }
        if let Some((v, l)) = at("number_ios") {
            let n =
                v.parse::<u64>().ok().filter(|n| *n >= 1).with_context(|| {
                    format!("{file}: line {l}: number_ios={v}: expected a count")
                })?;
            requests = requests.min(n);
        }
        requests = requests.saturating_mul(loops);
        if !time_based {
            f = f.requests(requests);
        }
        let info = JobInfo {
            name: name.to_string(),
            write,
            read_fraction: mix,
            group: 0,
            bs,
            options: job.split_options()[1].clone(),
            size_done_at: (!time_based).then_some(requests.saturating_mul(bs)),
            group_reporting: flag("group_reporting"),
            members: 1,
        };
        // stonewall (or wait_for) starts a group after the ones before it:
        // run as a scenario of its own. new_group (and stonewall) starts a
        // reporting group (fio's groupid); its jobs still run beside the
        // ones before it.
        let stone = flag("stonewall") || at("wait_for").is_some();
        if (stone || flag("new_group")) && index > 0 {
            groupid += 1;
        }
        if stone && index > 0 && !groups.last().is_some_and(Vec::is_empty) {
            groups.push(Vec::new());
        }
        let mut info = info;
        info.group = groupid;
        if at("wait_for").is_some() {
            push_once(notes, "wait_for: after every job before it".into());
        }
        groups.last_mut().expect("a group").push(Planned {
            flow: f,
            info,
            count,
            runtime,
            time_based,
            ramp,
            start,
        });
    }
    let mut out = Vec::new();
    let many = groups.len() > 1;
    for (g, planned) in groups.into_iter().enumerate() {
        let runtimes: Vec<f64> = planned.iter().filter_map(|p| p.runtime).collect();
        let runtime = runtimes
            .iter()
            .copied()
            .fold(None, |m: Option<f64>, r| Some(m.map_or(r, |m| m.max(r))));
        if runtimes.windows(2).any(|w| (w[0] - w[1]).abs() > 1e-9) {
            push_once(
                notes,
                "runtime: one per group, the longest of its jobs'".into(),
            );
        }
        let ramp = planned.iter().map(|p| p.ramp).fold(0.0, f64::max);
        if planned.iter().any(|p| (p.ramp - ramp).abs() > 1e-9) {
            push_once(
                notes,
                "ramp_time: one per group, the longest of its jobs'".into(),
            );
        }
        let any_time_based = planned.iter().any(|p| p.time_based);
        let start = planned.iter().map(|p| p.start).fold(0.0, f64::max);
        let duration = runtime.map_or(UNBOUNDED_RUN_S, |r| r + start) + ramp;
        let name = if many {
            format!("{stem}-group{g}")
        } else {
            stem.clone()
        };
        let mut b = ScenarioBuilder::new(name, duration)
            .seed(1)
            .warmup_s(ramp)
            .stop_after_finite(!any_time_based)
            .scheduler(scheduler);
        let mut infos = Vec::new();
        for p in planned {
            let mut info = p.info;
            // With a runtime, fio too stops a job there; only sluice's own
            // limit cuts a job short where fio would not.
            if runtime.is_some() {
                info.size_done_at = None;
            }
            infos.extend(std::iter::repeat_n(info, p.count as usize));
            b = b.flow(p.flow);
        }
        out.push(Group {
            builder: b,
            jobs: infos,
            file: file.to_string(),
        });
    }
    Ok(Plan {
        groups: out,
        notes: std::mem::take(notes),
        ignored,
        directory: dir,
        global_options: job_file.global_options(),
    })
}
