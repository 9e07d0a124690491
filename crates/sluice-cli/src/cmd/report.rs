//! `sluice report`: results drawn as one HTML page (`sluice_report`).

use std::path::PathBuf;

use anyhow::Result;
use sluice_report::Error;

/// Draw results as one self-contained HTML page: latency CDFs,
/// throughput over time, shares against weights, for `repro` results the
/// paper's numbers beside ours, and for request logs the order in which
/// the disk served the flows.
#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("outputs").args(["output", "svg"]).required(true).multiple(true)))]
#[command(
    after_help = "RESULT files are the JSON that sim, run, compare, versus, repro and fleet print with --json (sim and run with --timeline MS for throughput over time). Every flow is drawn (past 40 in one chart, the page says how many more; the tables have all), finite flows (start-ups, videos) first with their start-up times; a chart whose values span more than 20x takes a log axis or a panel of its own; a compare --json array is one section, the policies side by side; a repro experiment shows what was run and what the paper says; fleets (several of one trace under different policies, say) are drawn together as each volume's p99.9 from the quietest volume up, with a table of the quietest 10%'s tail; --svg FILE.svg writes that plot alone, for docs (with -o, or instead of it; refused when no file is a fleet). LOG files are request logs, the CSV that --log-requests writes (any file named *.csv, or whose first line is the log's header): each is drawn in the section \"Service order\" as one panel, all on one time axis, one lane per flow, a bar per request from dispatch to completion, with how long one flow kept the disk; a log of several runs draws each run (up to 4) as its own panel; rows that do not parse are counted on the page; at most 2000000 rows and 256 MiB a log. JSON results and logs mix freely. The page has inline SVG and CSS only: it opens offline.\n\nExamples:\n  sluice sim scenarios/10r-rand.toml --json --timeline 1000 > run.json\n  sluice repro bfq --quick --json > bfq.json\n  sluice report run.json bfq.json -o report.html\n\n  sluice sim scenarios/versus/startup-xterm-10r-seq.toml --log-requests bfq.csv\n  sluice sim scenarios/versus/startup-xterm-10r-seq.toml --scheduler noop --log-requests noop.csv\n  sluice report bfq.csv noop.csv -o order.html\n\n  sluice fleet scenarios/fleet/alibaba-sample.toml --json > mclock.json\n  sluice report mclock.json -o fleet.html --svg fleet.svg"
)]
pub(crate) struct Args {
    /// Result files (JSON) and request logs (CSV), in any mix.
    #[arg(required = true, value_name = "RESULT.json|LOG.csv")]
    results: Vec<PathBuf>,
    /// The HTML file to write (a new one: sluice does not overwrite).
    #[arg(short, long, value_name = "FILE.html")]
    output: Option<PathBuf>,
    /// Also, or instead, write the fleets' plot alone as an SVG file (a
    /// new one): each volume's p99.9 from the quietest up, one line per
    /// sluice.fleet/1 result.
    #[arg(long, value_name = "FILE.svg")]
    svg: Option<PathBuf>,
}

pub(crate) fn run(args: Args) -> Result<()> {
    let html = args.output.as_deref();
    let svg = args.svg.as_deref();
    if html.is_some() && html == svg {
        return Err(
            sluice_real::Refused("-o and --svg name the same file: name two".to_string()).into(),
        );
    }
    // Which option named the file an output error is about.
    let flag = |path: &std::path::Path| {
        if svg == Some(path) && html != Some(path) {
            "--svg"
        } else {
            "-o"
        }
    };
    sluice_report::write_outputs(&args.results, html, svg).map_err(|e| match &e {
        // Refused (exit 2), as every output sluice will not overwrite.
        Error::OutputExists(p) => sluice_real::Refused(format!("{} {e}", flag(p))).into(),
        Error::Output { path, .. } => anyhow::anyhow!("{} {e}", flag(path)),
        Error::NoFleet => sluice_real::Refused(e.to_string()).into(),
        _ => e.into(),
    })
}
