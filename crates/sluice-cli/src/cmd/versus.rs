//! `sluice versus`: simulated, sluice and the kernel's bfq on one drive.

use anyhow::Result;

use crate::output::emit;
use crate::versus;

/// One scenario three ways on one modelled drive: simulated, sluice's
/// policy on the emulated drive, the kernel's schedulers on the emulated
/// drive; each real engine repeated, with medians, ranges and the error
/// against the simulation.
#[derive(clap::Args)]
#[command(
    after_help = "Emulates the drive (sluice emulate) in a folder it makes in the current directory, puts a loop device over it (shown to the kernel as the model: rotational, the model's largest request; --loop-as-is keeps losetup's settings), runs the scenario there with sluice's policy (kernel scheduler none) and under each kernel scheduler (sluice kernel), and removes everything. Each real engine runs --repeat times, engines alternating, each run on a freshly emulated drive; the simulation runs once. The table gives each metric's median [min-max] and its ratio to the simulation; the JSON (sluice.versus/1) every run and a `metrics` array with median, min, max, ratio_to_sim and diff_to_sim. Needs root, /dev/fuse and loop devices.\n\nExamples:\n  sluice versus scenarios/versus/startup-xterm-10r-seq.toml --preset maxtor-stm332061\n  sluice versus scenarios/run/weights.toml --preset maxtor-stm332061 --tunable low_latency=0\n  sluice versus scenarios/versus/startup-xterm-10r-seq.toml --preset maxtor-stm332061 \\\n      --kernel-scheduler bfq --kernel-scheduler none --log-requests /tmp/v\n  sluice report /tmp/v.*.csv -o order.html      # which flow held the disk when"
)]
pub(crate) struct Args {
    /// What to run (the scenario and the drive), as `versus` takes it.
    #[command(flatten)]
    opts: versus::Options,
    /// Print the sluice.versus/1 JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: Args) -> Result<()> {
    let v = versus::versus(&args.opts)?;
    emit(args.json, &v, versus::table)
}
