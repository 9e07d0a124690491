//! `sluice report RESULT.json... LOG.csv... -o FILE.html` as a library: one
//! self-contained HTML page (inline SVG and CSS, nothing fetched) from any
//! of sluice's JSON results and request logs: per run, its flows' table,
//! its finite flows' times, latency CDFs, throughput over time (when the
//! run has a timeline) and shares against weights, every flow drawn,
//! finite ones first; per `compare --json` array, the policies side by
//! side; per reproduced experiment, what was run and the paper's claim,
//! and its numbers beside ours as charts (one per unit) and a table; the
//! fleets (`sluice.fleet/1`), each volume's p99.9 from the quietest up and
//! the quietest 10%'s tail ([`quietest_tail`]); and the request logs'
//! service order, one panel per log on one time axis. The fleets' plot
//! alone can be written as an SVG file too ([`write_outputs`]).

mod error;
pub mod fleet;
mod input;
mod lanes;
mod order;
mod page;
mod plots;
mod ranges;
mod requests;
mod service;

use std::path::{Path, PathBuf};

pub use error::Error;
pub use fleet::{quietest_tail, QuietTail};
pub use input::{FLEET_SCHEMA, VERSUS_SCHEMA};
use page::page;
pub(crate) use page::{esc, fig};

/// One input given as text: a JSON result or a request log (CSV).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// What the page calls it (a file name, as given); a name ending in
    /// `.csv` marks a request log, as does a text that starts with a
    /// log's header.
    pub name: String,
    /// The result or log.
    pub text: String,
}

/// The self-contained HTML page (inline SVG and CSS, nothing fetched)
/// that draws `sources`.
///
/// ```
/// // A request log with no requests yet: drawn as an empty panel.
/// let log = sluice_report::Source {
///     name: "bfq.csv".into(),
///     text: format!("{}\n", sluice_sim::RequestRecord::CSV_HEADER),
/// };
/// let html = sluice_report::render(&[log])?;
/// assert!(html.starts_with("<!DOCTYPE html>") && html.contains("bfq.csv"));
/// # Ok::<(), sluice_report::Error>(())
/// ```
pub fn render(sources: &[Source]) -> std::result::Result<String, Error> {
    let results = input::read_sources(sources)?;
    let names: Vec<String> = sources.iter().map(|s| s.name.clone()).collect();
    page(&results, &names)
}

/// The fleets' plot alone, as an SVG file's text: each volume's p99.9
/// from the quietest up, one line per `sluice.fleet/1` result of
/// `sources` (other results are read, and checked, but not drawn).
/// [`Error::NoFleet`] when none is a fleet.
pub fn render_fleet_svg(sources: &[Source]) -> std::result::Result<String, Error> {
    fleet_svg(&input::read_sources(sources)?)
}

fn fleet_svg(results: &input::Results) -> std::result::Result<String, Error> {
    if results.fleets.is_empty() {
        return Err(Error::NoFleet);
    }
    let mut svg = fleet::plot(&results.fleets)?;
    if !svg.ends_with('\n') {
        svg.push('\n');
    }
    Ok(svg)
}

/// Read `files` (each with sluice's bounded reader) and write their page
/// to `out`, a new file: an existing one, or a link, is never written
/// through ([`Error::OutputExists`]).
pub fn write_report(files: &[PathBuf], out: &Path) -> std::result::Result<(), Error> {
    write_outputs(files, Some(out), None)
}

/// Read `files` once and write what is asked: their page to `html`, the
/// fleets' plot alone to `svg` ([`render_fleet_svg`]). Each is a new file
/// (an existing one, or a link, is never written through:
/// [`Error::OutputExists`]); both are drawn before either is created, and
/// if the second cannot be created the first, still empty, is removed, so
/// a refusal leaves no file behind.
pub fn write_outputs(
    files: &[PathBuf],
    html: Option<&Path>,
    svg: Option<&Path>,
) -> std::result::Result<(), Error> {
    let results = input::read_files(files)?;
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let mut outputs: Vec<(&Path, String)> = Vec::new();
    if let Some(out) = html {
        outputs.push((out, page(&results, &names)?));
    }
    if let Some(out) = svg {
        outputs.push((out, fleet_svg(&results)?));
    }
    let mut created: Vec<(&Path, std::fs::File)> = Vec::new();
    for (out, _) in &outputs {
        match create(out) {
            Ok(f) => created.push((out, f)),
            Err(e) => {
                for (made, _) in &created {
                    let _ = std::fs::remove_file(made);
                }
                return Err(e);
            }
        }
    }
    for ((out, mut file), (_, text)) in created.into_iter().zip(&outputs) {
        std::io::Write::write_all(&mut file, text.as_bytes()).map_err(|why| Error::Output {
            path: out.to_path_buf(),
            why,
        })?;
    }
    Ok(())
}

/// `out`, created new (never an existing file or a link).
fn create(out: &Path) -> std::result::Result<std::fs::File, Error> {
    sluice_input::create_new(out, 0o644).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            Error::OutputExists(out.to_path_buf())
        } else {
            Error::Output {
                path: out.to_path_buf(),
                why: e,
            }
        }
    })
}

#[cfg(test)]
mod tests;
