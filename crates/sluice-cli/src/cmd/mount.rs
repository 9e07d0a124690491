//! `sluice mount`: a pass-through file system whose file I/O is scheduled
//! per process by any sluice policy (the library is `sluice-mount`).

use std::path::PathBuf;

use anyhow::{Context, Result};
use sluice_mount::{FlowsBy, Mount, Options};
use sluice_real::Refused;
use sluice_runtime::MountConfig;

/// Show SRC's tree at MNT through FUSE, with every read and write of file
/// data scheduled by a sluice policy: one flow per process (as the
/// kernel's BFQ and CFQ), weights and limits per class of process. Runs
/// in the foreground until Ctrl-C, SIGTERM or `umount MNT`, then prints
/// what each flow got. Needs root and /dev/fuse.
#[derive(clap::Args)]
#[command(
    after_help = "What reaches the policy is what the kernel's page cache in front of FUSE lets through: reads that miss it (read-ahead included) and every write (writes are sent through, not cached). Metadata (lookups, listings, renames) is not scheduled. docs/mount.md says more.

--config FILE (TOML):
  [scheduler]                      as in a scenario (name and parameters)
  name = \"bfq+\"
  [[group]]                        as in a scenario
  name = \"batch\"
  weight = 50
  [[class]]                        first match wins; unmatched: weight 100
  match = { comm = \"dd\" }          comm, uid and/or cgroup (\"/user.slice\" and below)
  weight = 300                     also reservation_iops, limit_iops, limit_mb_s, group

Examples:
  mkdir /mnt/sched && sluice mount /srv/data /mnt/sched --scheduler bfq+
  sluice mount /srv/data /mnt/sched --config classes.toml --stats stats.json
  sluice mount /srv/data /mnt/sched --by uid --queue-depth 4 --read-only"
)]
pub(crate) struct Args {
    /// The directory whose tree is shown.
    #[arg(value_name = "SRC")]
    src: PathBuf,
    /// An empty directory outside SRC to show it at.
    #[arg(value_name = "MNT")]
    mnt: PathBuf,
    /// Classes of processes with their weights, limits and groups, and the
    /// policy (TOML; see below).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The policy (over --config's; default bfq+). `sluice list` names them.
    #[arg(long, value_name = "POLICY")]
    scheduler: Option<String>,
    /// What a flow is: a process (comm[pid]), a thread, a user or a cgroup.
    #[arg(long, value_name = "WHAT", default_value = "process", value_parser = ["process", "thread", "uid", "cgroup"])]
    by: String,
    /// Requests in flight to the file system below at once.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=4096))]
    queue_depth: u32,
    /// Refuse every change (EROFS).
    #[arg(long)]
    read_only: bool,
    /// Write every request served as CSV (the columns of `sim --log-requests`).
    #[arg(long, value_name = "FILE")]
    log_requests: Option<PathBuf>,
    /// Write each flow's totals as sluice.mount/1 JSON when the mount ends.
    #[arg(long, value_name = "FILE")]
    stats: Option<PathBuf>,
}

pub(crate) fn run(args: Args) -> Result<()> {
    sluice_mount::check_machine().map_err(refusal)?;
    let (src, mnt) = sluice_mount::check_paths(&args.src, &args.mnt).map_err(refusal)?;
    let config = match &args.config {
        Some(path) => MountConfig::load(path)?,
        None => MountConfig::default_for(
            args.scheduler
                .as_deref()
                .unwrap_or(MountConfig::DEFAULT_SCHEDULER),
        )
        .map_err(|e| anyhow::anyhow!("--scheduler: {e}"))?,
    };
    let config = match (&args.config, &args.scheduler) {
        (Some(_), Some(name)) => config
            .with_scheduler(name)
            .map_err(|e| anyhow::anyhow!("--scheduler: {e}"))?,
        _ => config,
    };
    // Outputs are made before mounting, so that a bad path fails first.
    let stats_file = match &args.stats {
        Some(p) => Some((crate::output::create_output("--stats", p)?, p.clone())),
        None => None,
    };
    let log = match &args.log_requests {
        Some(p) => Some(crate::output::create_output("--log-requests", p)?),
        None => None,
    };
    // A killed mount stays behind (a dead FUSE mount): written down first,
    // so that `sluice clean` unmounts it.
    let journal = sluice_real::journal::Journal::begin("mount")?;
    super::run::print_warnings(&journal.take_warnings(), &[]);
    let mounted = journal.record(sluice_real::journal::Change::Mount { path: mnt.clone() })?;
    // Caught before mounting, so that no signal ends us mounted.
    let signals = signal_hook::iterator::Signals::new([
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
    ])
    .context("installing signal handlers")?;
    let scheduler = config.scheduler.clone();
    let opts = Options {
        by: FlowsBy::parse(&args.by).unwrap_or_default(),
        queue_depth: args.queue_depth as usize,
        read_only: args.read_only,
        log_requests: log,
        ..Options::new(src.clone(), mnt.clone(), config)
    };
    let mount = Mount::start(opts).map_err(refusal)?;
    eprintln!(
        "sluice mount: {} at {} under {scheduler} (a flow per {}, queue depth {}{}) — stop with Ctrl-C, SIGTERM or `umount {}`",
        src.display(),
        mnt.display(),
        args.by,
        args.queue_depth,
        if args.read_only { ", read-only" } else { "" },
        mnt.display()
    );
    let signal = mount.wait_with(signals);
    let stats = mount.stop().map_err(refusal)?;
    journal.undone(mounted);
    eprintln!(
        "sluice mount: {} after {:.1} s",
        match signal {
            Some(_) => format!("unmounted {}", mnt.display()),
            None => format!("{} was unmounted from outside", mnt.display()),
        },
        stats.duration_s
    );
    crate::output::write_out(&stats.table())?;
    if let Some((file, path)) = stats_file {
        serde_json::to_writer_pretty(file, &stats)
            .with_context(|| format!("--stats {}", path.display()))?;
    }
    Ok(())
}

/// A mount error: a refusal exits 2, anything else 1.
fn refusal(e: sluice_mount::Error) -> anyhow::Error {
    match e {
        sluice_mount::Error::Refused(m) => Refused(m).into(),
        sluice_mount::Error::Failed(m) => anyhow::anyhow!(m),
    }
}
