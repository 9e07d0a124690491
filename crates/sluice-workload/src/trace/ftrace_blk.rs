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
        Err(line.error("ftrace_blk: not yet read"))
    }
}
