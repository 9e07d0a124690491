//! `sluice emulate`: a modelled drive served as a file through FUSE.

use std::path::PathBuf;

use anyhow::Result;
use sluice_device::InternalOrder;
use sluice_emulate::Unmount;

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
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
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
    super::run::print_warnings(&journal.take_warnings(), &[]);
    let mounted = journal.record(sluice_real::journal::Change::Mount {
        path: std::path::absolute(&args.mount).unwrap_or_else(|_| args.mount.clone()),
    })?;
    let opts = sluice_emulate::Options {
        queue_depth: args.queue_depth,
        internal: args.internal.into(),
        ..sluice_emulate::Options::new(
            sluice_emulate::model(args.preset.as_deref(), args.diskspecs.as_deref())
                .map_err(flags)?,
            sluice_emulate::gib_bytes(args.size_gib).map_err(flags)?,
            args.mount,
        )
    };
    let served = sluice_emulate::run_until_signal(&opts, |emu| {
        eprintln!(
            "sluice emulate: {} ({} GiB of a {}, queue depth {}, {} order) — stop with Ctrl-C or SIGTERM",
            emu.disk_path().display(),
            opts.size_bytes as f64 / (1u64 << 30) as f64,
            opts.model.name(),
            opts.depth().unwrap_or_default(),
            format!("{:?}", opts.internal).to_lowercase(),
        );
    })
    .map_err(flags)?;
    let dir = opts.mount.display();
    eprintln!(
        "sluice emulate: served {} requests; {}",
        served.requests,
        match (served.signal, served.unmount) {
            (None, _) => format!("{dir} was unmounted from outside"),
            (Some(_), Unmount::Clean) => format!("unmounted {dir}"),
            (Some(_), Unmount::Lazy) => format!(
                "{dir} was still in use (a loop device still attached?): detached it lazily; \
                 its users now get I/O errors"
            ),
        }
    );
    journal.undone(mounted);
    Ok(())
}

/// The emulator's option names, which its errors give in backquotes, with
/// this command's flags.
const FLAGS: &[(&str, &str)] = &[
    ("preset", "--preset"),
    ("diskspecs", "--diskspecs"),
    ("size_gib", "--size-gib"),
    ("size_bytes", "--size-gib"),
    ("mount", "--mount"),
    ("queue_depth", "--queue-depth"),
];

/// An emulator error, naming this command's flags.
fn flags(e: sluice_emulate::Error) -> anyhow::Error {
    anyhow::anyhow!(super::run::flag_names(&e.0, FLAGS))
}
