//! `sluice versus`: simulated, sluice and the kernel's bfq on one drive.

use anyhow::Result;

use crate::output::emit;
use crate::versus;

/// One scenario three ways on one modelled drive: simulated, sluice's
/// policy on the emulated drive, the kernel's bfq on the emulated drive.
#[derive(clap::Args)]
#[command(
    after_help = "Emulates the drive (sluice emulate) in a folder it makes in the current directory, puts a loop device over it, runs the scenario there with sluice's policy (kernel scheduler none) and under the kernel's bfq (sluice kernel), and removes everything. Needs root, /dev/fuse and loop devices; prints one table or sluice.versus/1 JSON.\n\nExample:\n  sluice versus scenarios/run/weights.toml --preset maxtor-stm332061"
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
