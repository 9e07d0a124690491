//! `sluice list`: the names a scenario may use.

use anyhow::Result;

use crate::output::write_out;
use crate::table;

/// List policies, device presets and flow patterns.
#[derive(clap::Args)]
pub(crate) struct Args {}

pub(crate) fn run(_: Args) -> Result<()> {
    write_out(&table::list())
}
