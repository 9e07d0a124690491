//! `sluice calibrate`: a device's linear cost model (`[cost]`, iocost's
//! model), measured by probes through the io_uring engine, as fio jobs
//! would: one flow at a time, one request in flight, O_DIRECT, on files in
//! a folder (created exclusively, removed after) or regions of a device.
//!
//! Five probes: sequential 4 KiB and 128 KiB reads give the cost per KiB
//! (the slope between them) and the sequential read's base cost; random
//! 4 KiB reads the random base; sequential and random 4 KiB writes the
//! write bases. Each probe's figure is its mean device time per request
//! (the engine's attributed time, so the host's gaps between requests do
//! not count).

use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;

use anyhow::{Context, Result};
use sluice::LinearCost;
use sluice_runtime::{FlowBuilder, ScenarioBuilder};
use sluice_workload::Pattern;

use crate::run::files::free_bytes;
use crate::run::{run_scenario, Options};

/// What to probe and how long.
#[derive(Clone, Debug, Default)]
pub struct CalibrateOptions {
    /// Probe files in this existing folder.
    pub dir: Option<PathBuf>,
    /// Or regions of this block device.
    pub device: Option<PathBuf>,
    /// Write probes on `device` (they overwrite its first regions).
    pub allow_writes: bool,
    /// Seconds each probe runs (after a quarter second of warm-up).
    pub seconds: f64,
    /// Size of each probe's file or region, MiB.
    pub file_mib: u64,
}

/// One probe's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    /// `read-seq-4k`, ...
    pub name: &'static str,
    /// Requests measured.
    pub requests: u64,
    /// Mean device time per request, µs.
    pub service_us: f64,
}

/// A measured model and how it was measured.
#[derive(Clone, Debug)]
pub struct Calibration {
    /// The model.
    pub model: LinearCost,
    /// Every probe run.
    pub probes: Vec<Probe>,
    /// The device's `major:minor` (the folder's file system, or the device).
    pub major: u32,
    /// See `major`.
    pub minor: u32,
    /// False when the write probes were not run (a device without
    /// `allow_writes`): the write bases are the read ones.
    pub writes_measured: bool,
    /// The probes' warnings, one line each, for the caller to show.
    pub warnings: Vec<String>,
}

const PROBES: [(&str, Pattern, u32); 5] = [
    ("read-seq-4k", Pattern::SeqRead, 4),
    ("read-seq-128k", Pattern::SeqRead, 128),
    ("read-rand-4k", Pattern::RandRead, 4),
    ("write-seq-4k", Pattern::SeqWrite, 4),
    ("write-rand-4k", Pattern::RandWrite, 4),
];

/// The smallest base cost a fit keeps: a base the slope explains away
/// entirely is noise, and iocost's line needs finite IOPS.
const MIN_BASE_US: f64 = 0.01;

/// The largest probe file (or region), MiB.
pub const MAX_FILE_MIB: u64 = 65_536;

/// Check everything the probes need before the first one (and before a
/// caller prints anything): the ranges, the folder or device (a folder
/// sluice may not write in is a refusal), and room for a probe's file.
/// Errors name the options as this library does (`file_mib`).
pub fn check(opts: &CalibrateOptions) -> Result<()> {
    if opts.dir.is_some() == opts.device.is_some() {
        anyhow::bail!("calibrate needs one of `dir` or `device`");
    }
    if !(0.1..=600.0).contains(&opts.seconds) {
        anyhow::bail!(
            "`seconds` must be 0.1..=600 (got {})",
            sluice::short_number(opts.seconds)
        );
    }
    if !(1..=MAX_FILE_MIB).contains(&opts.file_mib) {
        anyhow::bail!(
            "`file_mib` must be 1..={MAX_FILE_MIB} (got {})",
            opts.file_mib
        );
    }
    crate::run::check_target(&target_options(opts))?;
    let need = opts.file_mib << 20;
    let (room, place) = match (&opts.dir, &opts.device) {
        (Some(d), _) => (free_bytes(d), format!("free in {}", d.display())),
        (None, Some(d)) => (device_bytes(d), format!("on {}", d.display())),
        (None, None) => (None, String::new()),
    };
    match room {
        Some(room) if need > room => anyhow::bail!(
            "each probe needs {:.2} GiB (`file_mib` {}), only {:.2} GiB are {place}: lower `file_mib`",
            gib(need),
            opts.file_mib,
            gib(room)
        ),
        _ => Ok(()),
    }
}

/// Bytes as GiB, for messages.
fn gib(bytes: u64) -> f64 {
    bytes as f64 / (1u64 << 30) as f64
}

/// The size of block device `path`, if it is one and can be opened and
/// measured. Opened without blocking and nothing read: a FIFO named as
/// the device neither hangs this nor is taken for a device.
fn device_bytes(path: &std::path::Path) -> Option<u64> {
    use std::io::{Seek, SeekFrom};
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .ok()?;
    if !f.metadata().ok()?.file_type().is_block_device() {
        return None;
    }
    f.seek(SeekFrom::End(0)).ok()
}

/// The run options of a probe: its target, one request in flight.
fn target_options(opts: &CalibrateOptions) -> Options {
    Options {
        dir: opts.dir.clone(),
        device: opts.device.clone(),
        allow_writes: opts.allow_writes,
        queue_depth: Some(1),
        ..Options::default()
    }
}

/// Run the probes and fit the model.
pub fn calibrate(opts: &CalibrateOptions) -> Result<Calibration> {
    check(opts)?;
    let (major, minor) = device_numbers(opts)?;
    let writes = opts.dir.is_some() || opts.allow_writes;
    let (mut probes, mut warnings) = (Vec::new(), Vec::new());
    for (name, pattern, kib) in PROBES {
        if pattern.is_write() && !writes {
            continue;
        }
        let (p, w) = probe(opts, name, pattern, kib)?;
        probes.push(p);
        warnings.extend(w);
    }
    let us = |n: &str| probes.iter().find(|p| p.name == n).map(|p| p.service_us);
    let (seq4, seq128, rand4) = (
        us("read-seq-4k").unwrap_or(0.0),
        us("read-seq-128k").unwrap_or(0.0),
        us("read-rand-4k").unwrap_or(0.0),
    );
    let per_kib_us = ((seq128 - seq4) / 124.0).max(0.0);
    let base = |t: f64| (t - 4.0 * per_kib_us).max(MIN_BASE_US);
    let read_seq_us = base(seq4);
    let read_rand_us = base(rand4);
    let model = LinearCost {
        read_seq_us,
        read_rand_us,
        write_seq_us: us("write-seq-4k").map_or(read_seq_us, base),
        write_rand_us: us("write-rand-4k").map_or(read_rand_us, base),
        per_kib_us,
        seq_threshold_kib: sluice::charge::IOCOST_SEQ_THRESHOLD_KIB,
    };
    Ok(Calibration {
        warnings,
        model,
        probes,
        major,
        minor,
        writes_measured: writes,
    })
}

/// The device the probes reach: the folder's file system, or the device.
fn device_numbers(opts: &CalibrateOptions) -> Result<(u32, u32)> {
    let dev = match (&opts.dir, &opts.device) {
        (Some(d), _) => std::fs::metadata(d)
            .with_context(|| format!("`dir` {}", d.display()))?
            .dev(),
        (None, Some(d)) => std::fs::metadata(d)
            .with_context(|| format!("`device` {}", d.display()))?
            .rdev(),
        (None, None) => 0,
    };
    Ok((libc::major(dev), libc::minor(dev)))
}

/// One probe: a single flow, one request in flight, `seconds` long; with
/// its run's warnings.
fn probe(
    opts: &CalibrateOptions,
    name: &'static str,
    pattern: Pattern,
    kib: u32,
) -> Result<(Probe, Vec<String>)> {
    let warmup = 0.25;
    let scenario = ScenarioBuilder::new(format!("calibrate-{name}"), opts.seconds + warmup)
        .warmup_s(warmup)
        .scheduler("noop")
        .flow(
            FlowBuilder::new(name, pattern)
                .request_kib(kib)
                .outstanding(1)
                .file_gib(opts.file_mib as f64 / 1024.0),
        )
        .build_real()
        .with_context(|| format!("probe {name}"))?;
    let run =
        run_scenario(scenario, &target_options(opts)).with_context(|| format!("probe {name}"))?;
    let flow = run
        .report
        .flows
        .first()
        .with_context(|| format!("probe {name}: no result"))?;
    if flow.requests == 0 {
        anyhow::bail!("probe {name}: no request completed in {} s", opts.seconds);
    }
    let probe = Probe {
        name,
        requests: flow.requests,
        service_us: flow.disk_time_s * 1e6 / flow.requests as f64,
    };
    Ok((probe, run.warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_target_is_needed() {
        let none = CalibrateOptions {
            seconds: 1.0,
            file_mib: 8,
            ..CalibrateOptions::default()
        };
        assert!(calibrate(&none).is_err());
        let both = CalibrateOptions {
            dir: Some(".".into()),
            device: Some("/dev/null".into()),
            ..none.clone()
        };
        assert!(calibrate(&both).is_err());
        let short = CalibrateOptions {
            dir: Some(".".into()),
            seconds: 0.0,
            ..none
        };
        let e = calibrate(&short).unwrap_err().to_string();
        assert!(e.contains("`seconds`"), "{e}");
    }
}
