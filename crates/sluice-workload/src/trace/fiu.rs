//! FIU's block traces (SNIA IOTTA, "FIU IODedup": the homes, mail and
//! web-vm servers): one request a line, fields separated by spaces,
//! `ts pid process lba size op major minor md5`: the time in nanoseconds,
//! the issuing process's pid and name, the first 512-byte sector and the
//! size in sectors, `R` or `W`, the device's major and minor numbers, and
//! the MD5 of the data (not read). With `flows = "volume"`, one flow per
//! device (`major,minor`); with `flows = "process"`, one per process
//! (`name-pid`).
//!
//! Read a line at a time as the file is read. Blank lines are skipped, and
//! so is a request of size 0; anything else that is not a request is
//! refused with its line.

use super::{Line, LineReader, Raw, Sources, MAX_REQUEST_SECTORS};
use crate::error::Result;

/// The reader (no state between lines).
#[derive(Default)]
pub(crate) struct Reader;

impl LineReader for Reader {
    fn line(
        &mut self,
        line: &Line,
        text: &str,
        sources: &mut Sources,
        out: &mut Vec<Raw>,
    ) -> Result<()> {
        let f: Vec<&str> = text.split_ascii_whitespace().collect();
        if f.is_empty() {
            return Ok(());
        }
        // The md5 may be missing from a cut trace: eight fields will do.
        if !(8..=9).contains(&f.len()) {
            return Err(line.error(format!(
                "expected `ts pid process lba size R|W major minor md5`; got {} fields",
                f.len()
            )));
        }
        let at_ns: u64 = line.number("ts", f[0])?;
        let _: u32 = line.number("pid", f[1])?;
        let sector: u64 = line.number("lba", f[3])?;
        if sector > i64::MAX as u64 / 512 {
            return Err(line.error(format!("lba: {sector} is beyond any device")));
        }
        let sectors: u64 = line.number("size", f[4])?;
        let write = match f[5] {
            "R" | "r" => false,
            "W" | "w" => true,
            op => return Err(line.error(format!("op: expected R or W, got '{op}'"))),
        };
        let major: u32 = line.number("major", f[6])?;
        let minor: u32 = line.number("minor", f[7])?;
        if sectors == 0 {
            return Ok(());
        }
        if sectors > MAX_REQUEST_SECTORS {
            return Err(line.error(format!(
                "size: {sectors} sectors; a request must be 1..={MAX_REQUEST_SECTORS} sectors"
            )));
        }
        let volume = sources.volume(line, &format!("{major},{minor}"))?;
        let process = sources.process(line, f[1], f[2])?;
        out.push(Raw {
            at_ns,
            sector,
            sectors: sectors as u32,
            write,
            line: line.number as u32,
            source: volume.max(process),
        });
        Ok(())
    }
}
