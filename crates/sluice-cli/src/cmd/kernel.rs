//! `sluice kernel`: a scenario's flows under the kernel's own scheduler.

use std::path::PathBuf;

use anyhow::Result;

use crate::output::emit;
use crate::{kernel, table};

/// Run a scenario's flows under the kernel's own I/O scheduler on a
/// block device: one OS thread per flow thread doing synchronous
/// O_DIRECT I/O, weights through cgroup v1 blkio (bfq). Needs root;
/// exits 2 and changes nothing where a permission or feature is missing.
#[derive(clap::Args)]
#[command(
    after_help = "The scheduler is set on the device for the run and restored afterwards (also on an error or Ctrl-C); each flow reads its own region of the device, laid end to end from the start. The report is sluice run's (sluice.run/1, engine.kernel_scheduler set).

Example:
  losetup --find --show --direct-io=on disk.img   # a device to try it on
  sluice kernel scenarios/run/weights.toml --device /dev/loop0 --kernel-scheduler bfq
  sluice kernel scenarios/run/weights.toml --device /dev/loop0 --kernel-scheduler bfq \\
      --tunable low_latency=0 --log-requests kernel.csv"
)]
pub struct Args {
    /// Scenario file.
    scenario: PathBuf,
    /// The block device (whole disk, partition or loop device).
    #[arg(long, value_name = "PATH")]
    device: PathBuf,
    /// The kernel scheduler to run under.
    #[arg(long, value_name = "NAME")]
    kernel_scheduler: KernelScheduler,
    /// Let writers write to the device (destroys what their regions hold).
    #[arg(long)]
    allow_writes: bool,
    /// Run this many seconds (default: the scenario's duration_s).
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    duration: Option<f64>,
    /// Set a tunable of the kernel scheduler for the run (a file under
    /// /sys/block/DEV/queue/iosched/, e.g. low_latency=0, slice_idle=0);
    /// repeatable. Restored after the run, before the scheduler is.
    #[arg(long, value_name = "NAME=VALUE")]
    tunable: Vec<kernel::Tunable>,
    /// Write every request to FILE as CSV (the columns of `sim
    /// --log-requests`), with the kernel's own dispatch and completion
    /// times read from the block layer's tracepoints (tracefs).
    #[arg(long, value_name = "FILE")]
    log_requests: Option<PathBuf>,
    /// Print the sluice.run/1 JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

/// The schedulers Linux's multi-queue block layer offers, spelled as in
/// /sys/block/DEV/queue/scheduler.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum KernelScheduler {
    Bfq,
    #[value(name = "mq-deadline")]
    MqDeadline,
    Kyber,
    None,
}

impl KernelScheduler {
    /// The name written to the queue's `scheduler` file.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            KernelScheduler::Bfq => "bfq",
            KernelScheduler::MqDeadline => "mq-deadline",
            KernelScheduler::Kyber => "kyber",
            KernelScheduler::None => "none",
        }
    }
}

/// The engine's options are the flags less `--json`.
impl From<&Args> for kernel::Options {
    fn from(a: &Args) -> Self {
        kernel::Options {
            scenario: a.scenario.clone(),
            device: a.device.clone(),
            kernel_scheduler: a.kernel_scheduler.as_str().to_string(),
            allow_writes: a.allow_writes,
            duration_s: a.duration,
            progress: Some(crate::progress::RunBar::shared()),
            tunables: a.tunable.clone(),
            log_requests: a.log_requests.is_some(),
        }
    }
}

pub(crate) fn run(args: Args) -> Result<()> {
    // Opened first: a bad path fails before the run.
    let log = crate::output::RequestLogFile::create(args.log_requests.as_deref())?;
    let r = kernel::kernel(&kernel::Options::from(&args))
        .map_err(|e| super::run::failed(e, super::run::FLAGS))?;
    super::run::print_warnings(&r.warnings, super::run::FLAGS);
    log.write(r.request_log.as_ref())?;
    emit(args.json, &r, table::run)
}
