//! `sluice run`: a scenario in real time on real files or a device.

use std::path::PathBuf;

use anyhow::Result;

use sluice_real::{DataError, Refused};

use crate::output::emit;
use crate::{run, table};

/// Run a scenario in real time on real files through io_uring
/// (O_DIRECT): the same flows and policy as `sim`, wall-clock results.
#[derive(clap::Args)]
#[command(
    after_help = "Each flow gets its own file (file_gib), filled with data before the clock \
starts, in a fresh folder in the current directory (removed afterwards unless --keep) or in \
--dir. [device] keys other than queue_depth are ignored.\n\nExample:\n  sluice run scenarios/run/weights.toml --duration 5 --json"
)]
pub struct Args {
    /// Scenario file.
    scenario: PathBuf,
    /// Put the flows' files in this existing folder (instead of a fresh
    /// folder in the current directory).
    #[arg(long, value_name = "DIR", conflicts_with = "device")]
    dir: Option<PathBuf>,
    /// Run on this block device instead of files: each flow reads (and
    /// writes) its own region, laid end to end from the start.
    #[arg(long, value_name = "PATH")]
    device: Option<PathBuf>,
    /// Let writers write to --device (destroys what those regions hold;
    /// without it a scenario with writers is refused before any I/O).
    #[arg(long, requires = "device")]
    allow_writes: bool,
    /// Stamp every written block and read all of them back after the
    /// run; the JSON's engine section counts blocks that are not the
    /// last stamp written (lost, misplaced or torn writes).
    #[arg(long)]
    verify: bool,
    /// Requests in flight at the target (default: [device] queue_depth).
    #[arg(long, value_name = "N")]
    queue_depth: Option<usize>,
    /// Run this many seconds (default: the scenario's duration_s).
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    duration: Option<f64>,
    /// Keep the flows' files afterwards.
    #[arg(long)]
    keep: bool,
    /// Print the sluice.run/1 JSON object instead of a table.
    #[arg(long)]
    json: bool,
    /// Also report each flow's throughput over time, in bins of MS
    /// milliseconds of wall-clock time (the JSON's `timeline`).
    #[arg(long, value_name = "MS", allow_negative_numbers = true)]
    timeline: Option<i128>,
    /// Write every request (flow, thread, sector, size, arrival, dispatch,
    /// completion) to FILE as CSV, the columns of `sim --log-requests`
    /// (a new file: sluice does not overwrite).
    #[arg(long, value_name = "FILE")]
    log_requests: Option<PathBuf>,
}

/// The engine's options are the flags less `--json` (how to print is
/// not the engine's business).
impl TryFrom<&Args> for run::Options {
    type Error = anyhow::Error;

    fn try_from(a: &Args) -> Result<Self> {
        Ok(run::Options {
            scenario: a.scenario.clone(),
            dir: a.dir.clone(),
            device: a.device.clone(),
            allow_writes: a.allow_writes,
            queue_depth: a.queue_depth,
            duration_s: a.duration,
            verify: a.verify,
            keep: a.keep,
            timeline_ms: a
                .timeline
                .map(|ms| super::option_range::whole("--timeline", ms, 1u64, 3_600_000))
                .transpose()?,
            log_requests: a.log_requests.is_some(),
            progress: Some(crate::progress::RunBar::shared()),
        })
    }
}

pub(crate) fn run(args: Args) -> Result<()> {
    crate::output::refuse_fio_job(&args.scenario)?;
    let options = run::Options::try_from(&args)?;
    // Opened first: a bad path fails before the run.
    let log = crate::output::RequestLogFile::create(args.log_requests.as_deref())?;
    let r = run::run(&options).map_err(|e| failed(e, FLAGS))?;
    print_warnings(&r.warnings, FLAGS);
    log.write(r.request_log.as_ref())?;
    emit(args.json, &r, table::run)?;
    // The report is out; bad blocks are still a failed run.
    match (r.engine.verify_errors, r.engine.verified_blocks) {
        (Some(bad), Some(verified)) if bad > 0 => {
            Err(anyhow::Error::new(DataError { bad, verified }).context("--verify"))
        }
        _ => Ok(()),
    }
}

/// The library's option names, which its errors and warnings give in
/// backquotes, with the flags that set them in `run` and `kernel`.
pub(crate) const FLAGS: &[(&str, &str)] = &[
    ("dir", "--dir"),
    ("device", "--device"),
    ("allow_writes", "--allow-writes"),
    ("queue_depth", "--queue-depth"),
    ("duration_s", "--duration"),
    ("verify", "--verify"),
    ("keep", "--keep"),
    ("timeline_ms", "--timeline"),
    ("log_requests", "--log-requests"),
    ("tunables", "--tunable"),
];

/// `text` with each backquoted option name of `flags` as its flag.
pub(crate) fn flag_names(text: &str, flags: &[(&str, &str)]) -> String {
    let mut out = text.to_string();
    for (name, flag) in flags {
        out = out.replace(&format!("`{name}`"), flag);
    }
    out
}

/// A failed run's error for the CLI: the warnings of an interrupted run
/// printed first, then [`with_flags`].
pub(crate) fn failed(e: anyhow::Error, flags: &[(&str, &str)]) -> anyhow::Error {
    if let Some(i) = e.downcast_ref::<run::Interrupted>() {
        print_warnings(&i.warnings, flags);
    }
    with_flags(e, flags)
}

/// A library error that names options, naming flags instead; a refusal
/// stays a refusal (its exit status), any other error keeps its type when
/// it names no option.
pub(crate) fn with_flags(e: anyhow::Error, flags: &[(&str, &str)]) -> anyhow::Error {
    let text = format!("{e:#}");
    let named = flag_names(&text, flags);
    if named == text {
        e
    } else if e.downcast_ref::<Refused>().is_some() {
        Refused(named).into()
    } else {
        anyhow::anyhow!(named)
    }
}

/// A run's warnings on stderr, one line each, options named as flags.
pub(crate) fn print_warnings(warnings: &[String], flags: &[(&str, &str)]) {
    for w in warnings {
        eprintln!("warning: {}", flag_names(w, flags));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_option_names_become_flags_and_refusals_stay_refusals() {
        let e: anyhow::Error =
            Refused("`device` /x: not a block device (for files in a folder use `dir`)".into())
                .into();
        let e = with_flags(e, FLAGS);
        assert!(e.downcast_ref::<Refused>().is_some());
        assert_eq!(
            e.to_string(),
            "--device /x: not a block device (for files in a folder use --dir)"
        );
        let e = with_flags(anyhow::anyhow!("`duration_s` must be positive"), FLAGS);
        assert_eq!(format!("{e:#}"), "--duration must be positive");
        let plain = with_flags(run::Interrupted::default().into(), FLAGS);
        assert!(
            plain.is::<run::Interrupted>(),
            "an error naming no option keeps its type"
        );
    }
}
