//! Expanding a [`ScenarioBuilder`] into a [`Scenario`]: defaults, ranges,
//! counts, file placement and each flow kind's keys.

use super::*;
use sluice::short_number;
use sluice_device::rate::{RateLimits, RateSpec};
use sluice_workload::{Distribution, FileService};

/// The longest time a scenario may state, in seconds (about 116 days).
pub const MAX_SECONDS: f64 = 1e7;

pub(super) fn seconds(key: &str, v: f64, min: f64) -> Result<Duration> {
    if !v.is_finite() || v < min || v > MAX_SECONDS {
        return Err(fail(format!(
            "{key} must be a number of seconds in {min}..={MAX_SECONDS} (got {})",
            short_number(v)
        )));
    }
    Ok(Duration::from_secs_f64(v))
}

impl Scenario {
    /// The device model a `[device]` table names.
    fn model(dev: &DeviceKeys, base: &Path, real: bool) -> Result<Model> {
        if let Some(m) = &dev.model {
            return Self::rate_model(m, dev);
        }
        if let Some(key) = Self::rate_key(dev) {
            return Err(fail(format!(
                "[device] {key} applies only to model = \"rate\""
            )));
        }
        if let Some(path) = &dev.mqsim {
            if dev.preset.is_some() || dev.diskspecs.is_some() {
                return Err(fail(
                    "[device]: give one of preset, diskspecs and mqsim, not two",
                ));
            }
            let p = base.join(path);
            let config = sluice_device::mqsim::SsdConfig::load(&p)
                .map_err(|e| fail(format!("[device] mqsim: {e}")))?;
            let name = p
                .file_name()
                .map_or_else(|| path.clone(), |n| n.to_string_lossy().into_owned());
            return Ok(Model::Flash(Box::new(
                sluice_device::flash::FlashSpec::from_mqsim(&format!("mqsim:{name}"), config),
            )));
        }
        match (&dev.preset, &dev.diskspecs) {
            (None, None) if real => Ok(Self::real_target()),
            (Some(_), Some(_)) => Err(fail("[device]: give either preset or diskspecs, not both")),
            (None, None) => Err(fail(
                "[device]: missing preset (or diskspecs = \"path\", or mqsim = \"ssdconfig.xml\")",
            )),
            (Some(name), None) => presets::preset(name).ok_or_else(|| {
                let names: Vec<_> = PRESETS.iter().map(|p| p.name).collect();
                fail(format!(
                    "[device] preset: unknown preset '{name}' (available: {})",
                    names.join(", ")
                ))
            }),
            (None, Some(path)) => {
                let p = base.join(path);
                diskspecs::load(&p)
                    .map(Model::Hdd)
                    .map_err(|e| fail(format!("[device] diskspecs: {e}")))
            }
        }
    }

    /// The first rate-device key a `[device]` table sets, if any.
    fn rate_key(dev: &DeviceKeys) -> Option<&'static str> {
        [
            ("read_iops", dev.read_iops.is_some()),
            ("read_mb_s", dev.read_mb_s.is_some()),
            ("write_iops", dev.write_iops.is_some()),
            ("write_mb_s", dev.write_mb_s.is_some()),
            ("capacity_gib", dev.capacity_gib.is_some()),
        ]
        .into_iter()
        .find(|k| k.1)
        .map(|k| k.0)
    }

    /// `model = "rate"` with its keys, checked.
    fn rate_model(model: &str, dev: &DeviceKeys) -> Result<Model> {
        if model != "rate" {
            return Err(fail(format!(
                "[device] model: unknown model '{model}' (available: rate; disks and SSDs by preset or diskspecs)"
            )));
        }
        if dev.preset.is_some() || dev.diskspecs.is_some() || dev.mqsim.is_some() {
            return Err(fail(
                "[device]: give either model = \"rate\" or preset/diskspecs/mqsim, not both",
            ));
        }
        let num = |key: &str, v: Option<f64>, max: f64| match v {
            Some(x) if !(x.is_finite() && x > 0.0 && x <= max) => Err(fail(format!(
                "[device] {key} must be a number with 0 < x <= {max:e} (got {})",
                short_number(x)
            ))),
            v => Ok(v),
        };
        let dir = |iops: (&str, Option<f64>), mb: (&str, Option<f64>)| -> Result<RateLimits> {
            let iops_v = num(iops.0, iops.1, 1e9)?;
            let mb_v = num(mb.0, mb.1, 1e7)?;
            if iops_v.is_none() && mb_v.is_none() {
                return Err(fail(format!(
                    "[device] model = \"rate\" needs {} or {} (or both)",
                    iops.0, mb.0
                )));
            }
            Ok(RateLimits {
                iops: iops_v,
                bytes_per_s: mb_v.map(|m| m * 1e6),
            })
        };
        let read = dir(("read_iops", dev.read_iops), ("read_mb_s", dev.read_mb_s))?;
        let write = if dev.write_iops.is_none() && dev.write_mb_s.is_none() {
            read
        } else {
            dir(
                ("write_iops", dev.write_iops),
                ("write_mb_s", dev.write_mb_s),
            )?
        };
        let gib = num("capacity_gib", dev.capacity_gib, 1e6)?.unwrap_or(1024.0);
        Ok(Model::Rate(RateSpec {
            name: "rate".into(),
            capacity_sectors: ((gib * GIB_SECTORS) as u64).max(1),
            read,
            write,
            max_queue: 4096,
        }))
    }

    /// Where copy `i` of a flow's file starts: at `offset_gib` (copies one
    /// after another), or after the files laid out so far.
    fn place(
        f: &FlowBuilder,
        i: u32,
        file_sectors: u64,
        next_free: u64,
        capacity: u64,
    ) -> Result<u64> {
        match f.offset_gib {
            Some(g) => {
                let start = Self::offset(g, capacity)?;
                Ok(start.saturating_add(u64::from(i).saturating_mul(file_sectors)))
            }
            None => Ok(next_free),
        }
    }

    /// `offset_gib` in sectors: a number inside the device.
    fn offset(g: f64, capacity: u64) -> Result<u64> {
        let max = capacity as f64 / GIB_SECTORS;
        if !g.is_finite() || g < 0.0 || g * GIB_SECTORS >= capacity as f64 {
            return Err(fail(format!(
                "offset_gib must be 0..{max:.1} (inside the device; got {})",
                short_number(g)
            )));
        }
        Ok((g * GIB_SECTORS) as u64)
    }

    /// The stand-in model of a real target: no size limit worth the name
    /// (512 TiB; free space is the real engine's check), a queue up to 4096.
    fn real_target() -> Model {
        match presets::preset("ssd-sata") {
            Some(Model::Ssd(mut s)) => {
                s.name = "real".into();
                s.capacity_sectors = 1 << 40;
                s.max_queue = 4096;
                Model::Ssd(s)
            }
            _ => unreachable!("ssd-sata is an SSD preset"),
        }
    }

    /// Names reach terminals, CSV and errors, and flows, groups and
    /// classes are referred to by name: refuse an empty name, a control
    /// character or a bidi override first, so no later message prints one
    /// raw (the groups' names were once left out).
    fn check_names(raw: &ScenarioBuilder) -> Result<()> {
        let given = |what: &str, name: &str| {
            if name.is_empty() {
                return Err(fail(format!("{what}: name must not be empty")));
            }
            crate::names::check(what, name).map_err(fail)
        };
        given("name", &raw.name)?;
        for (i, f) in raw.flows.iter().enumerate() {
            given(&format!("flow {i}"), &f.name)?;
        }
        for (i, g) in raw.groups.iter().enumerate() {
            given(&format!("group {i}"), &g.name)?;
        }
        for (i, c) in raw.classes.iter().enumerate() {
            given(&format!("class {i}"), &c.name)?;
        }
        Ok(())
    }

    pub(super) fn from_raw(raw: &ScenarioBuilder, base: &Path, real: bool) -> Result<Self> {
        Self::from_raw_with(raw, base, real, None)
    }

    /// As [`Self::from_raw`], with `given` in place of the model the
    /// `[device]` table names (when `Some`).
    pub(super) fn from_raw_with(
        raw: &ScenarioBuilder,
        base: &Path,
        real: bool,
        given: Option<Model>,
    ) -> Result<Self> {
        Self::check_names(raw)?;
        let duration = seconds("duration_s", raw.duration_s, 0.001)?;
        let warmup = seconds("warmup_s", raw.warmup_s, 0.0)?;
        if warmup >= duration {
            return Err(fail(if raw.warmup_s < raw.duration_s {
                format!(
                    "warmup_s ({}) must end at least a nanosecond before duration_s ({}); both round to {} ns",
                    short_number(raw.warmup_s),
                    short_number(raw.duration_s),
                    duration.as_nanos()
                )
            } else {
                format!(
                    "warmup_s ({}) must be shorter than duration_s ({})",
                    short_number(raw.warmup_s),
                    short_number(raw.duration_s)
                )
            }));
        }
        let mut model = match given {
            Some(m) => m,
            None => Self::model(&raw.device, base, real)?,
        };
        let queue_depth = raw.device.queue_depth.unwrap_or(1);
        let max = model.max_queue();
        if queue_depth == 0 || queue_depth as usize > max {
            return Err(fail(format!(
                "[device] queue_depth must be 1..={max} for {} (got {queue_depth})",
                model.name()
            )));
        }
        if (raw.device.write_cache.is_some() || raw.device.read_cache.is_some())
            && !model.has_write_cache()
        {
            let key = if raw.device.write_cache.is_some() {
                "write_cache"
            } else {
                "read_cache"
            };
            return Err(fail(format!(
                "[device] {key}: {} has no drive cache to switch",
                model.name()
            )));
        }
        let max_command_age = match raw.device.max_command_age_ms {
            None => None,
            Some(x) if !x.is_finite() || x <= 0.0 || x > 1e7 => {
                return Err(fail(format!(
                "[device] max_command_age_ms must be a number of milliseconds in (0, 1e7] (got {})",
                short_number(x)
            )))
            }
            Some(_) if !model.reorders() => {
                return Err(fail(format!(
                    "[device] max_command_age_ms: {} does not reorder its commands",
                    model.name()
                )))
            }
            Some(x) => Some(Duration::from_millis_f64(x)),
        };
        let max_request_kib = raw
            .device
            .max_request_kib
            .unwrap_or(DEFAULT_MAX_REQUEST_KIB);
        if !(1..=MAX_REQUEST_KIB_LIMIT).contains(&max_request_kib) {
            return Err(fail(format!(
                "[device] max_request_kib must be 1..={MAX_REQUEST_KIB_LIMIT} (got {max_request_kib})"
            )));
        }
        let internal = match raw.device.internal.as_deref() {
            None => InternalOrder::Satf,
            Some(s) => InternalOrder::parse(s).ok_or_else(|| {
                fail(format!(
                    "[device] internal: unknown order '{s}' (expected fcfs, sstf or satf)"
                ))
            })?,
        };
        let params = raw.scheduler.to_params()?;
        sluice::policy::build(
            &raw.scheduler.name,
            &params,
            &sluice::policy::BuildContext::default(),
        )
        .map_err(|e| fail(format!("[scheduler] {e}")))?;
        let mut classes: Vec<ClassConfig> = Vec::new();
        for c in &raw.classes {
            if classes.iter().any(|k| k.name == c.name) {
                return Err(fail(format!("[[class]] '{}' is defined twice", c.name)));
            }
            let q = c.quantum_ms.unwrap_or(20.0);
            if !q.is_finite() || !(0.001..=1e6).contains(&q) {
                return Err(fail(format!(
                    "[[class]] '{}': quantum_ms must be a positive number of ms (got {})",
                    c.name,
                    short_number(q)
                )));
            }
            let inner = c.inner.clone().unwrap_or_else(|| "noop".into());
            sluice::policy::build(
                &inner,
                &Params::default(),
                &sluice::policy::BuildContext::default(),
            )
            .map_err(|e| fail(format!("[[class]] '{}': inner: {e}", c.name)))?;
            classes.push(ClassConfig {
                name: c.name.clone(),
                quantum: Duration::from_millis_f64(q),
                inner,
            });
        }
        let groups = groups::groups(&raw.groups, &raw.scheduler.name)?;
        if raw.fleet.is_some() {
            return Err(fail(
                "[fleet]: a fleet scenario runs one simulation per node: run it with `sluice fleet`",
            ));
        }
        if raw.flows.is_empty() {
            return Err(fail("no [[flow]]: a scenario needs at least one flow"));
        }
        let capacity = model.capacity();
        let mut flows = Vec::new();
        // An MQSim device's per-flow settings, one per expanded flow.
        let mut streams = Vec::new();
        let mut next_free = 0u64;
        for f in &raw.flows {
            // Errors about a flow name it first (and quote a trace file's
            // error whole).
            let ctx = |e: Error| fail(format!("flow '{}': {e}", f.name));
            let pattern = Pattern::parse(&f.pattern).ok_or_else(|| {
                let names: Vec<_> = PATTERNS.iter().map(|p| p.0).collect();
                ctx(fail(format!(
                    "pattern: unknown pattern '{}' (available: {})",
                    f.pattern,
                    names.join(", ")
                )))
            })?;
            let count = f.count.unwrap_or(1);
            if count == 0 || count > 100_000 {
                return Err(ctx(fail(format!("count must be 1..=100000 (got {count})"))));
            }
            let default_kib = match pattern {
                Pattern::Video => 64,
                p if p.is_sequential() => 128,
                _ => 4,
            };
            let kib = f.request_kib.unwrap_or(default_kib);
            if kib == 0 || kib > 65_536 {
                return Err(ctx(fail(format!(
                    "request_kib must be 1..=65536 (got {kib})"
                ))));
            }
            let request_sectors = kib * KIB_SECTORS as u32;
            let file_gib = f.file_gib.unwrap_or(5.0);
            if !file_gib.is_finite() || file_gib <= 0.0 {
                return Err(ctx(fail(format!(
                    "file_gib must be positive (got {})",
                    short_number(file_gib)
                ))));
            }
            let file_sectors = ((file_gib * GIB_SECTORS) as u64).max(u64::from(request_sectors));
            let weight = groups::weight_key(f.weight).map_err(ctx)?;
            let start =
                Instant::ZERO + seconds("start_s", f.start_s.unwrap_or(0.0), 0.0).map_err(ctx)?;
            let think_ms = f.think_ms.unwrap_or(0.0);
            if !think_ms.is_finite() || !(0.0..=1e7).contains(&think_ms) {
                return Err(ctx(fail(format!(
                    "think_ms must be a number of ms in 0..=1e7 (got {})",
                    short_number(think_ms)
                ))));
            }
            let outstanding = f
                .outstanding
                .unwrap_or(if pattern.is_write() { 16 } else { 1 });
            if !(1..=4096).contains(&outstanding) {
                return Err(ctx(fail(format!(
                    "outstanding must be 1..=4096 (got {outstanding})"
                ))));
            }
            if f.requests == Some(0) {
                return Err(ctx(fail("requests must be at least 1")));
            }
            let rate_interval = match f.rate_iops {
                None => None,
                Some(r) if r.is_finite() && (0.001..=1e7).contains(&r) => {
                    if !matches!(
                        pattern,
                        Pattern::SeqRead
                            | Pattern::RandRead
                            | Pattern::SeqWrite
                            | Pattern::RandWrite
                    ) {
                        return Err(ctx(fail(
                            "rate_iops applies to greedy readers and writers only",
                        )));
                    }
                    Some(Duration::from_nanos((1e9 / r).round() as u64))
                }
                Some(r) => {
                    return Err(ctx(fail(format!(
                        "rate_iops must be 0.001..=1e7 (got {})",
                        short_number(r)
                    ))))
                }
            };
            let qos = groups::qos(
                weight,
                f.reservation_iops,
                f.limit_iops,
                f.limit_mb_s,
                f.burst_ms,
            )
            .map_err(ctx)?;
            let group = match &f.group {
                None => None,
                Some(name) => Some(groups::group_index(&raw.groups, name, "group").map_err(ctx)?),
            };
            let distribution = match &f.random_distribution {
                None => Distribution::Uniform,
                Some(d) => {
                    if !matches!(
                        pattern,
                        Pattern::RandRead | Pattern::RandWrite | Pattern::Pool
                    ) {
                        return Err(ctx(fail(
                            "random_distribution applies to rand-read, rand-write and pool flows only",
                        )));
                    }
                    Distribution::parse(d)
                        .map_err(|e| ctx(fail(format!("random_distribution = \"{d}\": {e}"))))?
                }
            };
            let greedy = matches!(
                pattern,
                Pattern::SeqRead | Pattern::RandRead | Pattern::SeqWrite | Pattern::RandWrite
            );
            let files = f.files.unwrap_or(1);
            if !(1..=1_000_000).contains(&files) {
                return Err(ctx(fail(format!(
                    "files must be 1..=1000000 (got {files})"
                ))));
            }
            if (files > 1 || f.file_service.is_some()) && !greedy {
                return Err(ctx(fail(
                    "files and file_service apply to greedy readers and writers only",
                )));
            }
            if file_sectors / u64::from(files) < u64::from(request_sectors) {
                return Err(ctx(fail(format!(
                    "files = {files}: each file would be smaller than a request (raise file_gib)"
                ))));
            }
            let file_service = match &f.file_service {
                None => FileService::default(),
                Some(s) => FileService::parse(s).ok_or_else(|| {
                    ctx(fail(format!(
                        "file_service = \"{s}\": expected roundrobin[:N], sequential or random"
                    )))
                })?,
            };
            match f.fsync_every {
                Some(0) => return Err(ctx(fail("fsync_every must be at least 1"))),
                Some(_) if !matches!(pattern, Pattern::SeqWrite | Pattern::RandWrite) => {
                    return Err(ctx(fail(
                        "fsync_every applies to seq-write and rand-write flows only",
                    )))
                }
                _ => {}
            }
            let kind = Self::kind_keys(f, pattern, base, raw.seed).map_err(ctx)?;
            // Mixed greedy random flows (pools read theirs in kind_keys).
            let read_fraction = match f.read_fraction {
                Some(x) if pattern != Pattern::Pool => {
                    if !(0.0..=1.0).contains(&x) {
                        return Err(ctx(fail(format!(
                            "read_fraction must be 0..=1 (got {})",
                            short_number(x)
                        ))));
                    }
                    Some(x)
                }
                _ => None,
            };
            let stream = match (&f.ssd, &model) {
                (None, _) => sluice_device::flash::StreamSpec::default(),
                (Some(keys), Model::Flash(spec)) => keys.stream(&spec.config).map_err(ctx)?,
                (Some(_), m) => {
                    return Err(ctx(fail(format!(
                        "ssd applies only to an MQSim device ([device] mqsim = \"ssdconfig.xml\"), not {}",
                        m.name()
                    ))))
                }
            };
            if f.fragment_kib == Some(0) || f.fragment_kib.is_some_and(|k| k > 65_536) {
                return Err(ctx(fail("fragment_kib must be 1..=65536")));
            }
            if f.fragment_kib.is_some() && matches!(pattern, Pattern::Startup | Pattern::Video) {
                return Err(ctx(fail(
                    "fragment_kib applies to greedy readers and writers only",
                )));
            }
            let class = match &f.class {
                None => None,
                Some(name) => Some(classes.iter().position(|c| &c.name == name).ok_or_else(
                    || {
                        let names: Vec<_> = classes.iter().map(|c| c.name.as_str()).collect();
                        ctx(fail(format!(
                            "class: no [[class]] named '{name}' (defined: {})",
                            if names.is_empty() {
                                "none".to_string()
                            } else {
                                names.join(", ")
                            }
                        )))
                    },
                )? as u32),
            };
            // A block trace split by volume or process: one flow per source,
            // each its requests placed (by volume: each in its share of the
            // space).
            let split = match &kind.block_trace {
                Some(t) if kind.split != trace::Split::One => {
                    if count > 1 {
                        return Err(ctx(fail(format!(
                            "count applies to flows = \"one\" only (flows = \"{}\" makes a flow per {})",
                            kind.split.name(),
                            kind.split.name()
                        ))));
                    }
                    let off = Self::offset(f.offset_gib.unwrap_or(0.0), capacity).map_err(ctx)?;
                    let space = if f.file_gib.is_some() {
                        file_sectors
                    } else {
                        capacity - off
                    };
                    Some(split_trace(t, kind.split, off, space, kind.offsets).map_err(ctx)?)
                }
                _ => None,
            };
            let count = split.as_ref().map_or(count, |s| s.len() as u32);
            // A block trace's placed requests and reach, once for all copies.
            let mut shared_trace: Option<(Option<Arc<Vec<trace::Request>>>, u64)> = None;
            for i in 0..count {
                let source = split.as_ref().map(|s| &s[i as usize]);
                let recorded = pattern == Pattern::Startup && kind.replay == Replay::Recorded;
                let (file_start, file_sectors) = if pattern == Pattern::Startup && !recorded {
                    // The S suite's replay: one 20 MB file per thread, laid
                    // out like any flow's file.
                    let threads = kind.trace.as_ref().map_or(1, |t| t.threads.len() as u64);
                    let sectors = threads.saturating_mul(THREAD_FILE_SECTORS);
                    (
                        Self::place(f, i, sectors, next_free, capacity).map_err(ctx)?,
                        sectors,
                    )
                } else if recorded || pattern == Pattern::Trace {
                    // A recorded replay or a block trace keeps the trace's
                    // positions, from offset_gib if given (a start-up's
                    // wrapped onto the device, a block trace's by its
                    // `offsets`).
                    let off = Self::offset(f.offset_gib.unwrap_or(0.0), capacity).map_err(ctx)?;
                    // A block trace's space may be bounded by file_gib
                    // (an MQSim flow's logical range).
                    if let Some(src) = source {
                        (src.start, src.sectors)
                    } else if pattern == Pattern::Trace && f.file_gib.is_some() {
                        (off, file_sectors)
                    } else {
                        (off, capacity - off)
                    }
                } else {
                    (
                        Self::place(f, i, file_sectors, next_free, capacity).map_err(ctx)?,
                        file_sectors,
                    )
                };
                if let Some(t) = &kind.trace {
                    let largest = t.records.iter().map(|r| r.sectors).max().unwrap_or(0);
                    if u64::from(largest) > file_sectors {
                        return Err(ctx(fail(format!(
                            "trace '{}' has a request of {largest} sectors, more than the {file_sectors} sectors it may use on {}",
                            t.name,
                            model.name()
                        ))));
                    }
                }
                let end = file_start.saturating_add(file_sectors);
                if end > capacity {
                    return Err(ctx(fail(format!(
                        "file ends at {:.1} GiB, past the end of {} ({:.1} GiB): lower file_gib, offset_gib or count",
                        end as f64 / GIB_SECTORS,
                        model.name(),
                        capacity as f64 / GIB_SECTORS
                    ))));
                }
                // A block trace's requests, placed in the space from
                // file_start; its file is as long as the trace reaches.
                // Every copy has the same space, so they share one list
                // (100,000 copies of a trace were 100,000 lists).
                let (trace_requests, file_sectors) = match (&kind.block_trace, &shared_trace) {
                    _ if source.is_some() => {
                        let src = source.expect("checked");
                        (Some(src.requests.clone()), src.reach)
                    }
                    (Some(_), Some(shared)) => shared.clone(),
                    (Some(t), None) => {
                        let (placed, reach) =
                            place_at(t, file_sectors, kind.offsets, file_start).map_err(ctx)?;
                        let both = (Some(Arc::new(placed)), reach);
                        shared_trace = Some(both.clone());
                        both
                    }
                    (None, _) => (None, file_sectors),
                };
                if !recorded && pattern != Pattern::Trace {
                    next_free = next_free.max(end);
                }
                let kind_requests = kind.requests;
                let name = if let Some(src) = source {
                    src.name.clone()
                } else if count > 1 {
                    match f.copy_separator {
                        Some(sep) => format!("{}{sep}{i}", f.name),
                        None => format!("{}{}", f.name, i),
                    }
                } else {
                    f.name.clone()
                };
                if real && f.direct == Some(false) {
                    return Err(ctx(fail(
                        "direct = false: the page cache is modelled by `sluice sim` only; a real run does direct I/O (drop the key)",
                    )));
                }
                let kind = kind
                    .flow_kind(pattern, f.runs, trace_requests)
                    .map_err(ctx)?;
                // MQSim numbers each flow's pages from its range's start.
                let mut stream = stream.clone();
                stream.first_sector = file_start;
                streams.push(stream);
                flows.push(FlowSpec {
                    qos,
                    name,
                    kind,
                    request_sectors,
                    file_start,
                    file_sectors,
                    start,
                    think: Duration::from_millis_f64(think_ms),
                    outstanding,
                    requests: kind_requests.or(f.requests),
                    class,
                    fragment_sectors: f.fragment_kib.map(|k| k * KIB_SECTORS as u32),
                    rate_interval,
                    direct: f.direct.unwrap_or(true),
                    group,
                    distribution: distribution.clone(),
                    fsync_every: f.fsync_every,
                    files,
                    file_service,
                    read_fraction,
                });
            }
        }
        if let Model::Flash(spec) = &mut model {
            spec.streams = streams;
        }
        let mut names: Vec<&str> = flows.iter().map(|f| f.name.as_str()).collect();
        names.sort_unstable();
        if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
            return Err(fail(format!(
                "flow name '{}' is used twice (names must be unique; a flow with count = N is named name0..nameN-1)",
                w[0]
            )));
        }
        Ok(Scenario {
            name: raw.name.clone(),
            seed: raw.seed,
            duration,
            warmup,
            stop_after_finite: raw.stop_after_finite,
            device: DeviceConfig {
                model,
                queue_depth: queue_depth as usize,
                internal,
                write_cache: raw.device.write_cache,
                read_cache: raw.device.read_cache,
                max_command_age,
                merge: raw.device.merge.unwrap_or(true),
                max_request_kib,
            },
            scheduler: raw.scheduler.name.clone(),
            params,
            classes,
            groups,
            flows,
            os: Self::os(raw.os.as_ref())?,
            cost: raw.cost.unwrap_or_default().model()?,
        })
    }

    /// The `[os]` table, checked, with the defaults.
    fn os(keys: Option<&OsKeys>) -> Result<OsConfig> {
        let d = OsConfig::default();
        let Some(k) = keys else {
            return Ok(d);
        };
        let memory_mib = k.memory_mib.unwrap_or(d.memory_mib);
        if !(16..=16_384).contains(&memory_mib) {
            return Err(fail(format!(
                "[os] memory_mib must be 16..=16384 (got {memory_mib})"
            )));
        }
        let background = k.dirty_background_ratio.unwrap_or(d.dirty_background_ratio);
        let dirty = k.dirty_ratio.unwrap_or(d.dirty_ratio);
        for (key, v) in [
            ("dirty_background_ratio", background),
            ("dirty_ratio", dirty),
        ] {
            if v > 100 {
                return Err(fail(format!("[os] {key} must be 0..=100 (got {v})")));
            }
        }
        if background >= dirty {
            return Err(fail(format!(
                "[os] dirty_background_ratio ({background}) must be below dirty_ratio ({dirty})"
            )));
        }
        let dirty_expire = match k.dirty_expire_s {
            None => d.dirty_expire,
            Some(x) => seconds("[os] dirty_expire_s", x, 0.0)?,
        };
        let read_ahead_kb = k.read_ahead_kb.unwrap_or(d.read_ahead_kb);
        if read_ahead_kb > 65_536 {
            return Err(fail(format!(
                "[os] read_ahead_kb must be 0..=65536 (got {read_ahead_kb})"
            )));
        }
        Ok(OsConfig {
            memory_mib,
            dirty_background_ratio: background,
            dirty_ratio: dirty,
            dirty_expire,
            read_ahead_kb,
        })
    }
}

/// Trace `t`'s requests placed in a space of `space` sectors by `offsets`,
/// then moved to start at sector `base`; and how far into the space they
/// reach (the flow's file is that long).
fn place_at(
    t: &Trace,
    space: u64,
    offsets: Offsets,
    base: u64,
) -> Result<(Vec<trace::Request>, u64)> {
    let mut placed = t.place(space, offsets)?;
    // `place` keeps each request inside the space: these sums stay below
    // the device's capacity.
    let reach = placed
        .iter()
        .map(|r| r.sector.saturating_add(u64::from(r.sectors)))
        .max()
        .unwrap_or(1);
    for r in &mut placed {
        r.sector = r.sector.saturating_add(base);
    }
    Ok((placed, reach))
}

/// One flow of a block trace split by volume or process.
struct SourceFlow {
    /// The volume's or process's name, as the trace gives it.
    name: String,
    /// Its requests, placed (absolute sectors).
    requests: Arc<Vec<trace::Request>>,
    /// Its space: first sector and length.
    start: u64,
    sectors: u64,
    /// One past its last sector, from `start`.
    reach: u64,
}

/// Split trace `t` into one flow per source, in the order the trace names
/// them first; a source left with no request is left out. Volumes are
/// separate address spaces: each gets an equal share of the `space`
/// sectors from `start`, its requests placed there by `offsets`.
/// Processes share one device's addresses: the whole trace is placed in
/// the whole space, then split.
fn split_trace(
    t: &Trace,
    split: trace::Split,
    start: u64,
    space: u64,
    offsets: Offsets,
) -> Result<Vec<SourceFlow>> {
    let n = t.sources.len().max(1);
    let mut counts = vec![0usize; n];
    for r in &t.requests {
        counts[r.source as usize] += 1;
    }
    let mut per: Vec<Vec<trace::Request>> = counts.iter().map(|&c| Vec::with_capacity(c)).collect();
    for r in &t.requests {
        per[r.source as usize].push(*r);
    }
    let share = match split {
        trace::Split::Volume => space / n as u64,
        _ => space,
    };
    if share == 0 {
        return Err(fail(format!(
            "{n} volumes do not fit in the flow's space of {space} sectors"
        )));
    }
    let mut out = Vec::new();
    for (i, requests) in per.into_iter().enumerate() {
        if requests.is_empty() {
            continue;
        }
        let base = match split {
            trace::Split::Volume => start + share * i as u64,
            _ => start,
        };
        let one = Trace {
            name: t.name.clone(),
            requests,
            sources: Vec::new(),
        };
        let (placed, reach) = place_at(&one, share, offsets, base)?;
        out.push(SourceFlow {
            name: t.sources.get(i).cloned().unwrap_or_else(|| t.name.clone()),
            requests: Arc::new(placed),
            start: base,
            sectors: share,
            reach,
        });
    }
    Ok(out)
}
