//! `sluice report RESULT.json... LOG.csv... -o FILE.html` as a library: one
//! self-contained HTML page (inline SVG and CSS, nothing fetched) from any
//! of sluice's JSON results and request logs: per run, its flows' table,
//! its finite flows' times, latency CDFs, throughput over time (when the
//! run has a timeline) and shares against weights, every flow drawn,
//! finite ones first; per `compare --json` array, the policies side by
//! side; per reproduced experiment, what was run and the paper's claim,
//! and its numbers beside ours as charts (one per unit) and a table; and
//! the request logs' service order, one panel per log on one time axis.

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

/// Read `files` (each with sluice's bounded reader) and write their page
/// to `out`, a new file: an existing one, or a link, is never written
/// through ([`Error::OutputExists`]).
pub fn write_report(files: &[PathBuf], out: &Path) -> std::result::Result<(), Error> {
    let results = input::read_files(files)?;
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let html = page(&results, &names)?;
    let written = |why| Error::Output {
        path: out.to_path_buf(),
        why,
    };
    let mut file = match sluice_input::create_new(out, 0o644) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(Error::OutputExists(out.to_path_buf()))
        }
        Err(e) => return Err(written(e)),
    };
    std::io::Write::write_all(&mut file, html.as_bytes()).map_err(written)
}

#[cfg(test)]
mod tests;
