//! (being written)

use std::path::Path;

use super::{Raw, ReadOptions, Sources};
use crate::error::{Error, Result};

/// Every request of the capture `NAME` (its files `NAME.blktrace.N`).
pub(crate) fn load(path: &Path, options: ReadOptions) -> Result<(Vec<Raw>, Sources)> {
    let _ = Sources::new(options.split);
    Err(Error::new(
        path.display().to_string(),
        "blktrace: not yet read",
    ))
}
