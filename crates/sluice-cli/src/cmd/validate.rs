//! `sluice validate`: a drive model scored against a real drive's trace.

use std::path::PathBuf;

use anyhow::Result;

use crate::output::emit;
use crate::table;

/// Replay a DiskSim validation trace against a drive model and score it
/// with DiskSim's demerit (RMS distance between the response-time
/// distributions of model and real drive).
#[derive(clap::Args)]
#[command(
    after_help = "Example (the first 200 requests of DiskSim's validation trace for this drive):\n  sluice validate --disk ibm-dnes-309170w --trace data/traces/ibm18es-validate-head.trace"
)]
pub(crate) struct Args {
    /// A DiskSim .diskspecs file, or a preset name.
    #[arg(long, value_name = "PATH|PRESET")]
    disk: String,
    /// Trace: `R|W Hit block count measured_us interarrival_us` lines.
    #[arg(long, value_name = "FILE")]
    trace: PathBuf,
    /// Print the sluice.validate/1 JSON object.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: Args) -> Result<()> {
    let Args { disk, trace, json } = args;
    // The drive's own errors name it; "neither a preset nor a file" also
    // names the flag, as every refusal of a flag's value does.
    let model = sluice_sim::device::presets::preset_or_diskspecs(&disk).map_err(|e| {
        if e.file == disk && e.line.is_none() {
            anyhow::anyhow!("--disk {e}")
        } else {
            e.into()
        }
    })?;
    // Errors name the trace file, not the drive.
    let report = sluice_sim::validate::validate_file(&disk, &model, &trace)?;
    emit(json, &report, table::validation)
}
