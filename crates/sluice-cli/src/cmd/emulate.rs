//! `sluice emulate`: a modelled drive served as a file through FUSE.

use std::path::PathBuf;

use anyhow::Result;
use sluice_device::InternalOrder;

/// Serve a modelled drive as a file through FUSE: DIR/disk.img, whose
/// every read and write completes when sluice's model of the drive
/// (the simulator's: mechanics, cache, command queue) says it does.
/// Needs root and /dev/fuse; runs until Ctrl-C or SIGTERM, then unmounts.
#[derive(clap::Args)]
#[command(
    after_help = "A loop device over the file is a block device with the drive's timing, on which the kernel's schedulers and `sluice run` can be compared with `sluice sim` on the same drive. Data lives sparsely in memory (unwritten blocks read as zeros) and is gone when it stops.

Example:
  mkdir -p /tmp/emu && sluice emulate --preset maxtor-stm332061 --size-gib 8 --mount /tmp/emu &
  losetup --find --show --direct-io=on /tmp/emu/disk.img          # say /dev/loop0
  fio --name=r --filename=/dev/loop0 --rw=randread --bs=4k --direct=1 --runtime=5 --time_based
  losetup -d /dev/loop0; kill %1                                   # unmounts"
)]
pub(crate) struct Args {
    /// The drive: a preset (see `sluice list`).
    #[arg(
        long,
        value_name = "NAME",
        required_unless_present = "diskspecs",
        conflicts_with = "diskspecs"
    )]
    preset: Option<String>,
    /// The drive: a DiskSim .diskspecs file.
    #[arg(long, value_name = "FILE")]
    diskspecs: Option<PathBuf>,
    /// Size of disk.img in GiB (at most the drive's capacity).
    #[arg(long, value_name = "N")]
    size_gib: f64,
    /// An existing directory to mount over.
    #[arg(long, value_name = "DIR")]
    mount: PathBuf,
    /// Commands the drive accepts at once (default: what the drive supports).
    #[arg(long, value_name = "K")]
    queue_depth: Option<usize>,
    /// The drive's own order among queued commands.
    #[arg(long, value_name = "ORDER", default_value = "satf")]
    internal: Internal,
}

/// `--internal`: the orders a drive's firmware may use, as flag values
/// (`InternalOrder` is the device crate's and knows nothing of clap).
#[derive(Clone, Copy, clap::ValueEnum)]
enum Internal {
    Fcfs,
    Sstf,
    Satf,
}

impl From<Internal> for InternalOrder {
    fn from(i: Internal) -> Self {
        match i {
            Internal::Fcfs => InternalOrder::Fcfs,
            Internal::Sstf => InternalOrder::Sstf,
            Internal::Satf => InternalOrder::Satf,
        }
    }
}

pub(crate) fn run(args: Args) -> Result<()> {
    // The mount outlives a killed emulator (a dead FUSE mount): written
    // down so that `sluice clean` unmounts it.
    let journal = sluice_real::journal::Journal::begin("emulate")?;
    let mounted = journal.record(sluice_real::journal::Change::Mount {
        path: std::path::absolute(&args.mount).unwrap_or_else(|_| args.mount.clone()),
    })?;
    sluice_emulate::run_until_signal(&sluice_emulate::Options {
        queue_depth: args.queue_depth,
        internal: args.internal.into(),
        ..sluice_emulate::Options::new(
            sluice_emulate::model(args.preset.as_deref(), args.diskspecs.as_deref())?,
            sluice_emulate::gib_bytes(args.size_gib)?,
            args.mount,
        )
    })?;
    journal.undone(mounted);
    Ok(())
}
