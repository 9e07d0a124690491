//! `sluice report`: results drawn as one HTML page (`crate::report`).

use std::path::PathBuf;

use anyhow::Result;

use crate::report;

/// Draw results as one self-contained HTML page: latency CDFs,
/// throughput over time, shares against weights, and for `repro`
/// results the paper's numbers beside ours.
#[derive(clap::Args)]
#[command(
    after_help = "RESULT files are the JSON that sim, run, compare, versus and repro print with --json (sim and run with --timeline MS for throughput over time). The page has inline SVG and CSS only: it opens offline.\n\nExample:\n  sluice sim scenarios/10r-rand.toml --json --timeline 1000 > run.json\n  sluice repro bfq --quick --json > bfq.json\n  sluice report run.json bfq.json -o report.html"
)]
pub(crate) struct Args {
    /// Result files (JSON).
    #[arg(required = true, value_name = "RESULT.json")]
    results: Vec<PathBuf>,
    /// The HTML file to write (a new one: sluice does not overwrite).
    #[arg(short, long, value_name = "FILE.html")]
    output: PathBuf,
}

pub(crate) fn run(args: Args) -> Result<()> {
    report::report(&args.results, &args.output)
}
