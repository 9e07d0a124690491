//! `sluice calibrate`: measure a device's linear cost model.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use sluice_real::calibrate::{calibrate, check, CalibrateOptions, Calibration, MAX_FILE_MIB};

use super::option_range;
use super::run::with_flags;

/// The library's option names with `calibrate`'s flags (a probe is a
/// run: its errors may name a run's options too).
const FLAGS: &[(&str, &str)] = &[
    ("dir", "--dir"),
    ("device", "--device"),
    ("allow_writes", "--allow-writes"),
    ("seconds", "--seconds"),
    ("file_mib", "--file-mib"),
];

use crate::output::create_output;

/// Measure the linear cost model (`[cost]`) of the device under a folder
/// or of a block device, with fio-like probes through the io_uring engine;
/// print it as a `[cost]` table, the kernel's `io.cost.model` line and
/// Seastar's io_properties.
#[derive(clap::Args)]
#[command(
    after_help = "Five probes, one after the other, each a single flow with one request in \
flight (O_DIRECT): sequential 4 KiB and 128 KiB reads (the cost per KiB is the slope between \
them), random 4 KiB reads, sequential and random 4 KiB writes. With --dir the probe files are \
created in the folder (exclusively; removed after); with --device the probes use its first \
region, and write only with --allow-writes (otherwise the write costs are the read ones, and \
the output says so). A scenario takes the table as its [cost] and a policy with \
charge = \"cost\" charges it.\n\nExamples:\n  sluice calibrate --dir /tmp -o cost.toml\n  \
sluice calibrate --device /dev/loop0 --seconds 1"
)]
pub(crate) struct Args {
    /// Probe files in this existing folder.
    #[arg(
        long,
        value_name = "DIR",
        conflicts_with = "device",
        required_unless_present = "device"
    )]
    dir: Option<PathBuf>,
    /// Probe this block device (reads; writes too with --allow-writes).
    #[arg(long, value_name = "PATH")]
    device: Option<PathBuf>,
    /// Let the write probes write to --device (destroys what its first
    /// region holds).
    #[arg(long, requires = "device")]
    allow_writes: bool,
    /// Seconds each probe runs.
    #[arg(
        long,
        value_name = "S",
        default_value_t = 2.0,
        allow_negative_numbers = true
    )]
    seconds: f64,
    /// Size of each probe's file (or region), MiB.
    #[arg(
        long,
        value_name = "MIB",
        default_value_t = 128,
        allow_negative_numbers = true
    )]
    file_mib: i128,
    /// Write the [cost] table to FILE (a new file: sluice does not
    /// overwrite).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    /// Also write Seastar's io_properties.yaml for the model to FILE.
    #[arg(long, value_name = "FILE")]
    io_properties: Option<PathBuf>,
}

/// The `[cost]` table of a calibration, with how it was measured as
/// comments.
fn cost_table(c: &Calibration, target: &str) -> String {
    let m = &c.model;
    let mut out = format!("# sluice calibrate {target}: mean device time per request, depth 1\n");
    for p in &c.probes {
        out.push_str(&format!(
            "#   {:<14} {:>10.1} us over {} requests\n",
            p.name, p.service_us, p.requests
        ));
    }
    if !c.writes_measured {
        out.push_str("#   writes not probed (no --allow-writes): write costs are the read costs\n");
    }
    out.push_str(&format!(
        "[cost]\nread_seq_us = {:.3}\nread_rand_us = {:.3}\nwrite_seq_us = {:.3}\nwrite_rand_us = {:.3}\nper_kib_us = {:.4}\nseq_threshold_kib = {}\n",
        m.read_seq_us, m.read_rand_us, m.write_seq_us, m.write_rand_us, m.per_kib_us, m.seq_threshold_kib
    ));
    out
}

pub(crate) fn run(args: Args) -> Result<()> {
    // Everything is checked before anything is printed or created: the
    // options, the target and its room, then the output files (a name
    // that exists fails before any I/O).
    let opts = CalibrateOptions {
        dir: args.dir.clone(),
        device: args.device.clone(),
        allow_writes: args.allow_writes,
        seconds: args.seconds,
        file_mib: option_range::whole("--file-mib", args.file_mib, 1, MAX_FILE_MIB)?,
    };
    check(&opts).map_err(|e| with_flags(e, FLAGS))?;
    let mut out = args
        .output
        .as_deref()
        .map(|p| create_output("-o", p))
        .transpose()?;
    let mut props = args
        .io_properties
        .as_deref()
        .map(|p| create_output("--io-properties", p))
        .transpose()?;
    eprintln!(
        "calibrate: 5 probes of {} s each on {}",
        args.seconds,
        args.dir
            .as_ref()
            .or(args.device.as_ref())
            .map_or(String::new(), |p| p.display().to_string())
    );
    let c = match calibrate(&opts) {
        Ok(c) => c,
        Err(e) => {
            // Nothing measured: leave no empty output files behind.
            for p in [&args.output, &args.io_properties].into_iter().flatten() {
                let _ = std::fs::remove_file(p);
            }
            return Err(with_flags(e, FLAGS));
        }
    };
    super::run::print_warnings(&c.warnings, super::run::FLAGS);
    let target = match (&args.dir, &args.device) {
        (Some(d), _) => format!("--dir {}", d.display()),
        (_, Some(d)) => format!("--device {}", d.display()),
        _ => String::new(),
    };
    let table = cost_table(&c, &target);
    let line = c.model.iocost_line(c.major, c.minor);
    let yaml = c.model.seastar_properties(
        &args
            .dir
            .as_ref()
            .or(args.device.as_ref())
            .map_or(String::new(), |p| p.display().to_string()),
    );
    let mut stdout = std::io::stdout().lock();
    write!(stdout, "{table}")?;
    writeln!(
        stdout,
        "\n# io.cost.model (cgroup v2: echo it into /sys/fs/cgroup/io.cost.model)"
    )?;
    writeln!(stdout, "{line}")?;
    if let Some(f) = out.as_mut() {
        f.write_all(table.as_bytes())?;
    }
    if let Some(f) = props.as_mut() {
        f.write_all(yaml.as_bytes())?;
    }
    Ok(())
}
