//! Seastar's io_tester job file (`--conf`, YAML) with its
//! `--io-properties-file`, as a scenario. What the keys mean is read from
//! `apps/io_tester/io_tester.cc` of scylladb/seastar.
//!
//! | io_tester | scenario |
//! | --- | --- |
//! | a job (`name`, `type`) | a flow of that name: `seqread` = `seq-read`, `randread` = `rand-read`, `randwrite` = `rand-write`, `overwrite` and `append` = `seq-write`; `cpu` and `unlink` jobs are left out |
//! | `shard_info.shares` (default 10) | `weight` (the job is one class: Seastar's priority class) |
//! | `shard_info.reqsize` (default 4 KiB) | `request_kib`, rounded up to whole KiB |
//! | `parallelism` without `rps` | `outstanding` = parallelism: that many fibers, each one request at a time |
//! | `parallelism`, `rps` (`batch` 1) | `rate_iops` = parallelism x rps, `outstanding` = parallelism |
//! | `parallelism`, `rps`, `batch` > 1 | `request_kib` = batch x reqsize in `fragment_kib` = reqsize fragments (a batch issued together), `rate_iops` = parallelism x rps, `outstanding` = parallelism |
//! | `think_time` (without `rps`) | `think_ms` (`think_after` is not modelled: always thinking) |
//! | `limit` | `requests` (whole batches where batches are fragmented requests) |
//! | `bandwidth` | `rate_iops` = bandwidth / reqsize (the lower of that and the rps rate) |
//! | `data_size` (default 1 GiB) / shards | `file_gib` |
//! | `shards: all` or a list | `count` = the shards it runs on among `--shards N` (default 1) |
//! | io properties `read_iops`, `read_bandwidth`, `write_iops`, `write_bandwidth` | the rate device, and `seastar-fq`'s parameters of the same names (Seastar needs all four; here without write figures writes cost as reads, and without read figures the file is refused) |
//! | `--duration` (io_tester's default 10 s) | `duration_s` |
//!
//! With `rps`, io_tester's fibers (their starts staggered over the
//! period) issue a batch of `batch` requests every 1/rps seconds (a steady
//! pause, or an exponential one under `pause_distribution: poisson`),
//! waiting for the batch before the next. Here a batch is one request of
//! batch x reqsize in reqsize fragments, issued together and waited for
//! together, and the flow's rate cap starts one batch every
//! 1/(parallelism x rps) s, as the staggered fibers do. Poisson pauses are
//! approximated by their mean; a batch over 64 MiB by evenly spaced
//! requests at the same rate (the notes in the scenario say which, per
//! job). Seastar's `class:` key (a named scheduling class instead of
//! shares) is read as the default shares.

use serde_yaml::Value;

use crate::error::Result;
use crate::scenario::{FlowBuilder, Pattern, ScenarioBuilder};

use super::{checked, fail, Imported};

/// The most shards (`--shards`, io_tester's `--smp`) an import takes.
pub const MAX_SHARDS: u32 = 1024;

/// How to run the jobs: io_tester's command line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// `--smp`: jobs with `shards: all` run this many copies (default 1).
    pub shards: u32,
    /// `--duration`, s (default 10).
    pub duration_s: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            shards: 1,
            duration_s: 10.0,
        }
    }
}

/// io_tester's `byte_size`: a number with an optional `kB`, `MB` or `GB`
/// (powers of 1024), at least 512.
fn byte_size(key: &str, v: &Value) -> Result<u64> {
    let s = match v {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.trim().to_string(),
        _ => return Err(fail(format!("{key}: expected a size such as 128kB"))),
    };
    let (num, shift) = match s.strip_suffix('B') {
        Some(rest) => match rest.chars().last() {
            Some('k') => (&rest[..rest.len() - 1], 10),
            Some('M') => (&rest[..rest.len() - 1], 20),
            Some('G') => (&rest[..rest.len() - 1], 30),
            _ => (rest, 0),
        },
        None => (s.as_str(), 0),
    };
    match num.parse::<u64>() {
        Ok(n) if n.checked_shl(shift).is_some_and(|b| b >> shift == n) && (n << shift) >= 512 => {
            Ok(n << shift)
        }
        _ => Err(fail(format!(
            "{key}: '{}' is not a size of at least 512 bytes (a number, optionally with kB, MB or GB)",
            crate::names::excerpt(&s, 40)
        ))),
    }
}

/// io_tester's `duration_time`: `0`, or a number with `ns`, `us`, `ms` or
/// `s`; in ms.
fn duration_ms(key: &str, v: &Value) -> Result<f64> {
    let s = match v {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.trim().to_string(),
        _ => return Err(fail(format!("{key}: expected a time such as 10ms"))),
    };
    if s == "0" {
        return Ok(0.0);
    }
    let bad = || {
        fail(format!(
            "{key}: '{}' is not a time (0, or a number with ns, us, ms or s)",
            crate::names::excerpt(&s, 40)
        ))
    };
    let rest = s.strip_suffix('s').ok_or_else(bad)?;
    let (num, ms) = if let Some(n) = rest.strip_suffix('n') {
        (n, 1e-6)
    } else if let Some(n) = rest.strip_suffix('u') {
        (n, 1e-3)
    } else if let Some(n) = rest.strip_suffix('m') {
        (n, 1.0)
    } else {
        (rest, 1000.0)
    };
    let n: u64 = num.parse().map_err(|_| bad())?;
    let t = n as f64 * ms;
    if t > 1e7 {
        return Err(bad());
    }
    Ok(t)
}

/// A note naming the keys of mapping `v` that the import does not use.
fn ignored(what: &str, v: &Value, used: &[&str], notes: &mut Vec<String>) {
    let Some(m) = v.as_mapping() else {
        return;
    };
    let left: Vec<String> = m
        .keys()
        .filter_map(Value::as_str)
        .filter(|k| !used.contains(k))
        .map(super::one_line)
        .collect();
    if !left.is_empty() {
        notes.push(format!("{what} {} not modelled", left.join(", ")));
    }
}

fn uint(key: &str, v: &Value, max: u64) -> Result<u64> {
    match v.as_u64() {
        Some(n) if n <= max => Ok(n),
        _ => Err(fail(format!("{key}: expected a whole number 0..={max}"))),
    }
}

/// The disk of an io properties file: (read IOPS, read bytes/s, write
/// IOPS, write bytes/s), each optional.
type Disk = (Option<f64>, Option<f64>, Option<f64>, Option<f64>);

fn properties(text: &str, notes: &mut Vec<String>) -> Result<Disk> {
    let v: Value = super::yaml::parse(text).map_err(|e| fail(format!("io properties: {e}")))?;
    let disks = v
        .get("disks")
        .and_then(Value::as_sequence)
        .ok_or_else(|| fail("io properties: no disks: list"))?;
    let d = disks
        .first()
        .ok_or_else(|| fail("io properties: the disks: list is empty"))?;
    if disks.len() > 1 {
        notes.push(format!(
            "io properties list {} disks: the first is the device",
            disks.len()
        ));
    }
    // The rate device's ranges (1e9 IOPS, 1e7 MB/s): what sim takes.
    let rate = |key: &str| -> Result<Option<f64>> {
        let max = if key.ends_with("iops") { 1e9 } else { 1e13 };
        match d.get(key) {
            None => Ok(None),
            Some(x) => match x.as_f64() {
                Some(r) if r.is_finite() && r > 0.0 && r <= max => Ok(Some(r)),
                Some(r) => Err(fail(format!(
                    "io properties: {key} must be a positive number up to {max:e} (got {})",
                    sluice::short_number(r)
                ))),
                None => Err(fail(format!(
                    "io properties: {key} must be a positive number"
                ))),
            },
        }
    };
    ignored(
        "io properties: the disk's",
        d,
        &[
            "mountpoint",
            "read_iops",
            "read_bandwidth",
            "write_iops",
            "write_bandwidth",
        ],
        notes,
    );
    let disk = (
        rate("read_iops")?,
        rate("read_bandwidth")?,
        rate("write_iops")?,
        rate("write_bandwidth")?,
    );
    if disk.0.is_none() && disk.1.is_none() {
        return Err(fail(
            "io properties: the disk needs read_iops or read_bandwidth",
        ));
    }
    Ok(disk)
}

/// Import an io_tester job file `conf` with the disk of `io_properties`.
pub fn import(conf: &str, io_properties: &str, opts: &Options) -> Result<Imported> {
    if opts.shards == 0 || opts.shards > MAX_SHARDS {
        return Err(fail(format!("--shards must be 1..={MAX_SHARDS}")));
    }
    let mut notes = Vec::new();
    let (ri, rb, wi, wb) = properties(io_properties, &mut notes)?;
    let jobs: Value = super::yaml::parse(conf).map_err(|e| fail(format!("job file: {e}")))?;
    let jobs = jobs
        .as_sequence()
        .ok_or_else(|| fail("job file: expected a list of jobs"))?;
    if jobs.is_empty() || jobs.len() > 1000 {
        return Err(fail("job file: expected 1..=1000 jobs"));
    }
    let mb = |b: Option<f64>| b.map(|x| x / 1e6);
    let wdev = if wi.is_none() && wb.is_none() {
        // Seastar needs all four figures; without write figures writes
        // cost as reads, on the rate device and in seastar-fq alike.
        notes.push("io properties: no write_iops or write_bandwidth: writes cost as reads".into());
        (None, None)
    } else {
        (wi, mb(wb))
    };
    let mut scenario = ScenarioBuilder::new("seastar", opts.duration_s)
        .seed(1)
        .merge(false)
        .queue_depth(64)
        .rate_device((ri, mb(rb)), wdev, None)
        .scheduler("seastar-fq");
    for (key, v) in [
        ("read_iops", ri),
        ("read_mb_s", mb(rb)),
        ("write_iops", wi),
        ("write_mb_s", mb(wb)),
    ] {
        if let Some(x) = v {
            scenario = scenario.param(key, x);
        }
    }
    let mut files_gib = 0.0;
    let mut names: Vec<String> = Vec::with_capacity(jobs.len());
    for (i, job) in jobs.iter().enumerate() {
        let name = job
            .get("name")
            .and_then(Value::as_str)
            .map_or_else(|| format!("job{i}"), str::to_string);
        // io_tester reports each job under its name: two jobs of one name
        // would be two flows of one name.
        if let Some(first) = names.iter().position(|n| *n == name) {
            return Err(fail(format!(
                "jobs {} and {} are both named '{}' (job names must be unique)",
                first + 1,
                i + 1,
                crate::names::excerpt(&name, 60)
            )));
        }
        names.push(name.clone());
        let ctx = |e: crate::Error| fail(format!("job '{}': {}", super::one_line(&name), e));
        let Some(ty) = job.get("type").and_then(Value::as_str) else {
            return Err(ctx(fail(
                "type: missing (seqread, randread, randwrite, overwrite, append)",
            )));
        };
        let pattern = match ty {
            "seqread" => Pattern::SeqRead,
            "randread" => Pattern::RandRead,
            "randwrite" => Pattern::RandWrite,
            "overwrite" | "append" => Pattern::SeqWrite,
            "cpu" | "unlink" => {
                notes.push(format!(
                    "job '{name}': type {ty} does no block I/O: left out"
                ));
                continue;
            }
            other => return Err(ctx(fail(format!("type: unknown '{other}'")))),
        };
        if ty == "overwrite" || ty == "append" {
            notes.push(format!("job '{name}': {ty} is a sequential writer"));
        }
        let copies = match job.get("shards") {
            None => opts.shards,
            Some(Value::String(s)) if s == "all" => opts.shards,
            Some(Value::Sequence(list)) => {
                let mut n = 0;
                for s in list {
                    if uint("shards", s, 1 << 20).map_err(ctx)? < u64::from(opts.shards) {
                        n += 1;
                    }
                }
                n
            }
            Some(_) => return Err(ctx(fail("shards: expected all or a list of shard numbers"))),
        };
        if copies == 0 {
            notes.push(format!(
                "job '{name}': runs on none of the {} shard(s) imported: left out",
                opts.shards
            ));
            continue;
        }
        let empty = Value::Null;
        let si = job.get("shard_info").unwrap_or(&empty);
        let get = |k: &str| si.get(k);
        let what = format!("job '{name}':");
        ignored(
            &what,
            job,
            &[
                "name",
                "type",
                "shards",
                "shard_info",
                "options",
                "data_size",
            ],
            &mut notes,
        );
        ignored(
            &format!("job '{name}': shard_info's"),
            si,
            &[
                "parallelism",
                "rps",
                "batch",
                "limit",
                "shares",
                "class",
                "bandwidth",
                "reqsize",
                "think_time",
                "think_after",
            ],
            &mut notes,
        );
        if let Some(o) = job.get("options") {
            ignored(
                &format!("job '{name}': options'"),
                o,
                &["pause_distribution", "sleep_type"],
                &mut notes,
            );
        }
        let parallelism = match get("parallelism") {
            Some(v) => uint("parallelism", v, 4096).map_err(ctx)?,
            None => 0,
        };
        if parallelism == 0 {
            return Err(ctx(fail("shard_info.parallelism must be at least 1")));
        }
        let rps = match get("rps") {
            Some(v) => uint("rps", v, 10_000_000).map_err(ctx)?,
            None => 0,
        };
        let batch = match get("batch") {
            Some(v) => uint("batch", v, 4096).map_err(ctx)?.max(1),
            None => 1,
        };
        let shares = match get("shares") {
            Some(v) => uint("shares", v, u64::from(u32::MAX)).map_err(ctx)?,
            None => 10,
        };
        if get("shares").is_none() && get("class").is_some() {
            notes.push(format!(
                "job '{name}': class is read as the default shares (10)"
            ));
        }
        let weight = shares.clamp(1, 1000) as u32;
        if u64::from(weight) != shares {
            notes.push(format!(
                "job '{name}': shares {shares} is weight {weight} (scenario weights are 1..=1000)"
            ));
        }
        let reqsize = match get("reqsize") {
            Some(v) => byte_size("reqsize", v).map_err(ctx)?,
            None => 4096,
        };
        if reqsize > 64 << 20 {
            return Err(ctx(fail("reqsize: at most 64MB")));
        }
        let kib = reqsize.div_ceil(1024) as u32;
        if u64::from(kib) * 1024 != reqsize {
            notes.push(format!(
                "job '{name}': reqsize {reqsize} B is {kib} KiB (rounded up to whole KiB)"
            ));
        }
        let data = match job.get("data_size") {
            Some(v) => byte_size("data_size", v).map_err(ctx)?,
            None => 1 << 30,
        };
        let file_gib = (data as f64 / f64::from(opts.shards) / (1u64 << 30) as f64)
            .max(kib as f64 / (1u64 << 20) as f64);
        files_gib += file_gib * f64::from(copies);
        let mut f = FlowBuilder::new(name.clone(), pattern)
            .request_kib(kib)
            .file_gib(file_gib)
            .weight(weight);
        if copies > 1 {
            f = f.count(copies);
        }
        let mut rate = None;
        let pause = job
            .get("options")
            .and_then(|o| o.get("pause_distribution"))
            .and_then(Value::as_str)
            .unwrap_or("uniform");
        let poisson = if pause == "poisson" {
            " (Poisson pauses approximated by their mean)"
        } else {
            ""
        };
        let batch_kib = u64::from(kib) * batch;
        if rps > 0 && batch > 1 && batch_kib <= 65_536 {
            // Each fiber's batch is one request of batch x reqsize split
            // into reqsize fragments, issued together: the fiber waits for
            // all of them, and the rate cap spaces the batches' starts
            // 1/(parallelism x rps) apart, as io_tester's staggered fibers
            // start theirs (each at start + 1/rps).
            f = f
                .request_kib(batch_kib as u32)
                .fragment_kib(kib)
                .outstanding(parallelism as u32);
            rate = Some((parallelism * rps) as f64);
            notes.push(format!(
                "job '{name}': each of {parallelism} fiber(s) issues a batch of {batch} x {kib} KiB together (one {batch_kib} KiB request in {kib} KiB fragments), {} batches a second{poisson}",
                parallelism * rps
            ));
        } else if rps > 0 {
            rate = Some((parallelism * rps * batch) as f64);
            f = f.outstanding((parallelism * batch).min(4096) as u32);
            notes.push(format!(
                "job '{name}': {parallelism} fiber(s) x {rps} rps x batch {batch} = {} IOPS spaced evenly (as io_tester staggers its fibers' starts), up to {} in flight{}{poisson}",
                parallelism * rps * batch,
                parallelism * batch,
                if batch > 1 { " (its batches, over 64 MiB, are spread evenly)" } else { "" },
            ));
        } else {
            f = f.outstanding(parallelism as u32);
            // Thinking applies only to fibers without rps (io_tester's
            // issue_requests_in_parallel).
            if let Some(v) = get("think_time") {
                let t = duration_ms("think_time", v).map_err(ctx)?;
                if t > 0.0 {
                    f = f.think_ms(t);
                    if get("think_after").is_some() {
                        notes.push(format!(
                            "job '{name}': think_after is not modelled (think_time after every request)"
                        ));
                    }
                }
            }
        }
        if let Some(v) = get("bandwidth") {
            let bw = byte_size("bandwidth", v).map_err(ctx)? as f64;
            // In the flow's requests: whole batches where they are one.
            let batched = rps > 0 && batch > 1 && batch_kib <= 65_536;
            let cap = bw / (reqsize * if batched { batch } else { 1 }) as f64;
            rate = Some(rate.map_or(cap, |r: f64| r.min(cap)));
        }
        if let Some(r) = rate {
            f = f.rate_iops(r.clamp(0.001, 1e7));
        }
        if let Some(v) = get("limit") {
            let n = uint("limit", v, u64::from(u32::MAX)).map_err(ctx)?;
            if n > 0 {
                // With batches as fragmented requests, whole batches.
                let per = if rps > 0 && batch > 1 && batch_kib <= 65_536 {
                    batch
                } else {
                    1
                };
                f = f.requests(n.div_ceil(per));
            }
        }
        scenario = scenario.flow(f);
    }
    if scenario.flows.is_empty() {
        return Err(fail("job file: no job does block I/O"));
    }
    // Every job's files on one device large enough for all of them.
    if files_gib > 1000.0 {
        if files_gib > 900_000.0 {
            return Err(fail(format!(
                "job file: the jobs' data_size comes to {files_gib:.0} GiB, more than a simulated device holds (900000)"
            )));
        }
        scenario = scenario.rate_device((ri, mb(rb)), wdev, Some((files_gib * 1.01 + 1.0).ceil()));
    }
    notes.push(format!(
        "{} shard(s), {} s; one fair queue (Seastar's per-shard queues and class groups are not modelled); device queue depth 64, FIFO",
        opts.shards, opts.duration_s
    ));
    checked(scenario, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// tests/manual/iosched_reproducers/tau_nemesis.sh's job file (the
    /// repository's fixture).
    const TAU_NEMESIS: &str = include_str!("../../../../data/import/tau_nemesis.yaml");

    /// The same script's io properties.
    const I4I: &str = include_str!("../../../../data/import/i4i.2xlarge.yaml");

    #[test]
    fn tau_nemesis_maps_each_job_to_a_flow_on_the_properties_disk() {
        let imp = import(TAU_NEMESIS, I4I, &Options::default()).unwrap();
        let toml = imp.to_toml("from tau_nemesis.sh").unwrap();
        let s = crate::Scenario::parse("tau.toml", &toml).unwrap();
        assert_eq!(s.scheduler, "seastar-fq");
        let f = &s.flows;
        let names: Vec<_> = f.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["filler", "bursty_lowprio", "highprio"]);
        assert_eq!(
            f.iter().map(|f| f.qos.weight).collect::<Vec<_>>(),
            [10, 100, 1000]
        );
        assert_eq!(
            f.iter().map(|f| f.outstanding).collect::<Vec<_>>(),
            [10, 1, 100]
        );
        // 256 sectors for 128kB; 1536 bytes rounded up to 2 KiB.
        assert_eq!(
            f.iter().map(|f| f.request_sectors).collect::<Vec<_>>(),
            [256, 50 * 256, 4]
        );
        assert_eq!(f[0].rate_interval, None);
        // One fiber's batch of 50 every 1/8 s: one 50 x 128 KiB request in
        // 128 KiB fragments, issued together, eight a second.
        assert_eq!(f[1].rate_interval, Some(sluice::Duration::from_millis(125)));
        assert_eq!(f[1].fragment_sectors, Some(256));
        assert_eq!(f[1].outstanding, 1);
        // 100 fibers x 50 rps = 5000 IOPS, evenly spaced.
        assert_eq!(f[2].rate_interval, Some(sluice::Duration::from_micros(200)));
        assert_eq!(f[2].think, sluice::Duration::ZERO);
        assert_eq!(f[2].file_sectors, 1 << 21);
        assert_eq!(s.duration, sluice::Duration::from_secs(10));
        let sluice_device::Model::Rate(dev) = &s.device.model else {
            panic!("not a rate device");
        };
        assert_eq!(dev.read.iops, Some(218_786.0));
        assert_eq!(dev.write.bytes_per_s, Some(1_130_867_072.0));
        assert!(toml.contains("read_mb_s = 1542.559872"), "{toml}");
        assert!(
            imp.notes
                .iter()
                .any(|n| n.contains("a batch of 50 x 128 KiB together")),
            "{:?}",
            imp.notes
        );
        // --shards 3: three copies of each job (each a class of its own).
        let three = import(
            TAU_NEMESIS,
            I4I,
            &Options {
                shards: 3,
                duration_s: 2.0,
            },
        )
        .unwrap();
        let s = three.scenario.build().unwrap();
        assert_eq!(s.flows.len(), 9);
        assert_eq!(s.flows[8].name, "highprio2");
        // Keys the import does not use are named in the notes.
        let extra = TAU_NEMESIS.replacen(
            "    shares: 10\n",
            "    shares: 10\n    execution_time: 1ms\n",
            1,
        );
        let io = format!("{I4I}  duplex: true\n");
        let imp = import(&extra, &io, &Options::default()).unwrap();
        assert!(
            imp.notes
                .iter()
                .any(|n| n == "job 'filler': shard_info's execution_time not modelled"),
            "{:?}",
            imp.notes
        );
        assert!(
            imp.notes
                .iter()
                .any(|n| n == "io properties: the disk's duplex not modelled"),
            "{:?}",
            imp.notes
        );
        // 2000 GB of data: a device that holds it.
        let big = TAU_NEMESIS.replacen("data_size: 1GB", "data_size: 2000GB", 1);
        let s = import(&big, I4I, &Options::default())
            .unwrap()
            .scenario
            .build()
            .unwrap();
        assert_eq!(s.flows.len(), 3);
    }

    #[test]
    fn sizes_times_and_errors() {
        let v = |s: &str| Value::String(s.into());
        assert_eq!(byte_size("k", &v("128kB")).unwrap(), 131_072);
        assert_eq!(byte_size("k", &v("1GB")).unwrap(), 1 << 30);
        assert_eq!(byte_size("k", &Value::Number(1536.into())).unwrap(), 1536);
        assert!(byte_size("k", &v("100")).is_err());
        assert!(byte_size("k", &v("99999999999999GB")).is_err());
        assert_eq!(duration_ms("t", &v("10ms")).unwrap(), 10.0);
        assert_eq!(duration_ms("t", &v("2s")).unwrap(), 2000.0);
        assert!(duration_ms("t", &v("10")).is_err());
        for (conf, io, want) in [
            (TAU_NEMESIS, "disks: []", "the disks: list is empty"),
            (TAU_NEMESIS, "nope: 1", "no disks: list"),
            (
                TAU_NEMESIS,
                "disks:\n- read_iops: -3",
                "read_iops must be a positive number",
            ),
            (
                TAU_NEMESIS,
                "disks:\n- write_iops: 3",
                "needs read_iops or read_bandwidth",
            ),
            (
                "- name: a\n  type: fly\n  shard_info:\n    parallelism: 1",
                I4I,
                "job 'a': type: unknown 'fly'",
            ),
            (
                "- name: a\n  type: seqread",
                I4I,
                "parallelism must be at least 1",
            ),
            (
                "- name: a\n  type: seqread\n  shard_info: {parallelism: 1, reqsize: 12}",
                I4I,
                "reqsize: '12'",
            ),
            ("{a: [", I4I, "job file:"),
            ("- name: c\n  type: cpu", I4I, "no job does block I/O"),
        ] {
            let e = import(conf, io, &Options::default())
                .unwrap_err()
                .to_string();
            assert!(e.contains(want), "{want}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }

    /// Issue 43 (found by the fuzz campaign): `one_line` let a bidi
    /// override through, so an error could print a line reversed on the
    /// terminal; it is escaped as names are.
    #[test]
    fn a_job_name_with_a_bidi_override_is_escaped_in_errors() {
        let conf = "- name: \"x\\u202ey\"\n  type: fly\n  shard_info: {parallelism: 1}\n";
        let e = import(conf, I4I, &Options::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("x\\u{202e}y") && !e.contains('\u{202e}'), "{e}");
    }

    /// Issue 43, defect 12: two jobs of one name became two flows of one
    /// name, a scenario `sim` refuses; the import refuses it, naming both.
    #[test]
    fn duplicate_seastar_job_names_are_refused_naming_both() {
        let job = "- name: a\n  type: seqread\n  shard_info: {parallelism: 1}\n";
        let conf =
            format!("{job}- name: b\n  type: randread\n  shard_info: {{parallelism: 1}}\n{job}");
        let e = import(&conf, I4I, &Options::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("jobs 1 and 3 are both named 'a'"), "{e}");
        // Names that only collide once copies are numbered, and names sim
        // refuses, are refused at import too (never written to a file
        // that does not run).
        let copies = format!(
            "{job}- name: a1\n  type: seqread\n  shards: [0]\n  shard_info: {{parallelism: 1}}\n"
        );
        let opts = Options {
            shards: 2,
            ..Options::default()
        };
        let e = import(&copies, I4I, &opts).unwrap_err().to_string();
        assert!(
            e.contains("would not run") && e.contains("'a1' is used twice"),
            "{e}"
        );
        for name in ["''", "\"x\\u001b[2J\""] {
            let conf = job.replace("name: a", &format!("name: {name}"));
            let e = import(&conf, I4I, &Options::default())
                .unwrap_err()
                .to_string();
            assert!(e.contains("would not run: flow 0: "), "{e}");
            assert!(!e.chars().any(crate::names::unsafe_char), "{e:?}");
        }
    }

    /// Issue 43, defect 12: io properties rates past what the rate device
    /// takes (1e9 IOPS, 1e7 MB/s) were written into a scenario `sim`
    /// refuses; the import refuses them, quoting the number short.
    #[test]
    fn out_of_range_io_properties_rates_are_refused_at_import() {
        for (io, want) in [
            (
                "disks:\n- read_iops: 5e9\n  read_bandwidth: 1e9",
                "read_iops must be a positive number up to 1e9 (got 5e9)",
            ),
            (
                "disks:\n- read_iops: 1e5\n  read_bandwidth: 1e300",
                "read_bandwidth must be a positive number up to 1e13 (got 1e300)",
            ),
            (
                "disks:\n- read_iops: 1e5\n  write_bandwidth: 2e13",
                "write_bandwidth must be a positive number up to 1e13 (got 2e13)",
            ),
        ] {
            let e = import(TAU_NEMESIS, io, &Options::default())
                .unwrap_err()
                .to_string();
            assert!(e.contains(want), "{e}");
        }
        let edge = "disks:\n- read_iops: 1e9\n  read_bandwidth: 1e13";
        import(TAU_NEMESIS, edge, &Options::default()).unwrap();
    }

    /// Every truncation of the inputs and every line replaced by garbage
    /// imports or fails with one line; nothing panics.
    #[test]
    fn mangled_inputs_fail_in_one_line() {
        use crate::import::tests::{fails_in_one_line_or_builds, mangled};
        let junk = [
            "- : :",
            "    rps: -1",
            "    batch: 99999999999",
            "  type: [1]",
            "    reqsize: 64GB",
        ];
        for conf in &mangled(TAU_NEMESIS, &junk) {
            let r = import(conf, I4I, &Options::default());
            fails_in_one_line_or_builds(r, conf);
        }
        for io in &mangled(I4I, &junk) {
            let r = import(TAU_NEMESIS, io, &Options::default());
            fails_in_one_line_or_builds(r, io);
        }
    }

    /// Issue 43 defect 8: properties with read figures only; writes cost
    /// as reads on the device and in the policy, and the note says so.
    #[test]
    fn seastar_io_properties_with_reads_only_cost_writes_as_reads() {
        let reads = "disks:\n- mountpoint: /d\n  read_iops: 1000\n";
        let imported = import(TAU_NEMESIS, reads, &Options::default()).unwrap();
        assert!(
            imported
                .notes
                .iter()
                .any(|n| n.contains("writes cost as reads")),
            "{:?}",
            imported.notes
        );
        let s = imported.scenario.build().unwrap();
        let sluice_device::Model::Rate(spec) = &s.device.model else {
            panic!("not a rate device");
        };
        assert_eq!(spec.write, spec.read);
        // The policy builds and charges a write as a read.
        assert!(s.policy().is_ok(), "{:?}", s.policy().err());
    }
}
