//! `sluice fio`: thin, since the job-file runner in `crate::fio` owns its
//! flags (`fio::Options`) and its help.

use anyhow::Result;

use crate::fio;
use crate::output::write_out;

pub(crate) use crate::fio::Options as Args;

pub(crate) fn run(args: Args) -> Result<()> {
    write_out(&fio::fio(&args)?)
}
