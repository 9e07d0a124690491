//! Why a report could not be drawn: one line each, naming the source.

use std::path::PathBuf;

/// Why a report could not be drawn or written. Each displays as one line
/// that names the file or source at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be read (missing, not a regular file, too large,
    /// not UTF-8).
    #[error(transparent)]
    Input(#[from] sluice_input::InputError),
    /// A source that is neither a request log nor JSON.
    #[error("{name}: not a JSON result: {why}")]
    NotJson {
        /// The source's name.
        name: String,
        /// What the JSON parser said (in the message, not a second line).
        why: serde_json::Error,
    },
    /// JSON that is not one of sluice's results.
    #[error("{name}: {reason}")]
    NotAResult {
        /// The source's name.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A request log that cannot be read; the message names the source.
    #[error("{0}")]
    BadLog(String),
    /// The sources hold nothing to draw.
    #[error("no runs, experiments, fleets or request logs in the given files")]
    Empty,
    /// The fleets' plot alone was asked for (`--svg`), and no source is
    /// a fleet.
    #[error(
        "the fleets' plot (--svg) draws sluice.fleet/1 results, and none of the given files is one"
    )]
    NoFleet,
    /// The plotting library failed.
    #[error("drawing a figure: {0}")]
    Draw(String),
    /// The output exists: reports never overwrite a file.
    #[error("{}: exists; sluice does not overwrite files (remove it or name another)", .0.display())]
    OutputExists(PathBuf),
    /// The output could not be created or written.
    #[error("{}: {why}", path.display())]
    Output {
        /// The output file.
        path: PathBuf,
        /// What the system said (in the message, not a second line).
        why: std::io::Error,
    },
}

/// The crate's results.
pub(crate) type Result<T> = std::result::Result<T, Error>;
