//! (being written)

use super::{Line, LineReader, Raw, Sources};
use crate::error::Result;

/// The reader.
#[derive(Default)]
pub(crate) struct Reader;

impl LineReader for Reader {
    fn line(
        &mut self,
        line: &Line,
        _text: &str,
        _sources: &mut Sources,
        _out: &mut Vec<Raw>,
    ) -> Result<()> {
        Err(line.error("tencent: not yet read"))
    }
}

impl Reader {
    /// A reader whose arrivals inside a second are drawn from `seed`.
    pub(crate) fn new(_seed: u64) -> Self {
        Reader
    }
}
