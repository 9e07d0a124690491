//! Alibaba's block traces of 2020 (the `alibaba/block-traces` release of
//! 1,000 virtual disks of Alibaba Cloud's EBS): CSV lines of
//! `device_id,opcode,offset,length,timestamp`, the opcode `R` or `W`, the
//! offset and length in bytes, the timestamp in microseconds (since the
//! Unix epoch). No header. With `flows = "volume"`, one flow per
//! `device_id` (a virtual disk).
//!
//! Read a line at a time as the file is read. A request of length 0 is
//! skipped; anything else that is not a request is refused with its line.

use super::{byte_sector, Line, LineReader, Raw, Sources};
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
        let text = text.trim();
        if text.is_empty() {
            return Ok(());
        }
        let mut f = text.split(',');
        let (Some(device), Some(op), Some(offset), Some(length), Some(ts), None) =
            (f.next(), f.next(), f.next(), f.next(), f.next(), f.next())
        else {
            return Err(line.error(format!(
                "expected device_id,opcode,offset,length,timestamp; got {} fields",
                text.split(',').count()
            )));
        };
        let write = match op.trim() {
            "R" | "r" => false,
            "W" | "w" => true,
            other => return Err(line.error(format!("opcode: expected R or W, got '{other}'"))),
        };
        let device = device.trim();
        if device.is_empty() {
            return Err(line.error("device_id: empty"));
        }
        let offset: u64 = line.number("offset", offset)?;
        let length: u64 = line.number("length", length)?;
        let us: u64 = line.number("timestamp", ts)?;
        if length == 0 {
            return Ok(());
        }
        out.push(Raw {
            at_ns: us
                .checked_mul(1000)
                .ok_or_else(|| line.error(format!("timestamp: {us} µs is past any clock")))?,
            sector: byte_sector(line, "offset", offset)?,
            sectors: line.size_sectors("length", length)?,
            write,
            line: line.number as u32,
            source: sources.volume(line, device)?,
        });
        Ok(())
    }
}
