//! `sluice compare`: one scenario under every policy, side by side.

use std::path::PathBuf;

use anyhow::Result;

use crate::output::{emit, load};
use crate::{progress, table};

/// Run one scenario under every policy and compare them side by side.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Scenario file.
    scenario: PathBuf,
    /// Override the scenario's seed.
    #[arg(long, allow_negative_numbers = true)]
    seed: Option<i128>,
    /// Print a JSON array of sluice.sim/1 objects.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: Args) -> Result<()> {
    let seed = args
        .seed
        .map(|s| super::option_range::whole("--seed", s, 0, u64::MAX))
        .transpose()?;
    let base = load(&args.scenario, seed, None)?;
    let bar = progress::Progress::new("compare", sluice::policy::POLICIES.len() as u64, "policies");
    let reports = sluice_sim::compare(&base, |i| bar.set(i as u64))?;
    bar.finish();
    emit(args.json, &reports, |r| table::compare(r))
}
