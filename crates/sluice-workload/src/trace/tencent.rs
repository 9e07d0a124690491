//! Tencent Cloud Block Storage traces of 2018 (SNIA IOTTA, "Tencent CBS":
//! 5,584 volumes on 40 storage nodes): CSV lines of
//! `Timestamp,Offset,Size,IOType,VolumeID`, the timestamp in whole seconds
//! (Unix time), the offset and size in 512-byte sectors, IOType `0` a read
//! and `1` a write. A first line naming those fields is skipped. With
//! `flows = "volume"`, one flow per `VolumeID`.
//!
//! **Arrivals inside a second.** The timestamps have one-second
//! resolution, so every request of a second would arrive at once. Each is
//! moved to a point of its second drawn uniformly at random, from the
//! scenario's seed and the request's line number (a hash of the two, not
//! a stream: the same line lands at the same point however the file is
//! read); the trace is then put in arrival order. Another seed spreads
//! them otherwise; the seconds themselves are kept.
//!
//! Read a line at a time as the file is read. A request of size 0 is
//! skipped; anything else that is not a request is refused with its line.

use super::{Line, LineReader, Raw, Sources, MAX_REQUEST_SECTORS};
use crate::error::Result;

/// The reader: the seed of the arrivals inside a second.
pub(crate) struct Reader {
    seed: u64,
}

impl Reader {
    /// A reader whose arrivals inside a second are drawn from `seed`.
    pub(crate) fn new(seed: u64) -> Self {
        Reader { seed }
    }
}

/// Nanoseconds in a second.
const NS: u64 = 1_000_000_000;

impl LineReader for Reader {
    fn line(
        &mut self,
        line: &Line,
        text: &str,
        sources: &mut Sources,
        out: &mut Vec<Raw>,
    ) -> Result<()> {
        let text = text.trim();
        if text.is_empty() || (line.number == 1 && text.starts_with("Timestamp")) {
            return Ok(());
        }
        let f: Vec<&str> = text.split(',').map(str::trim).collect();
        let [ts, offset, size, io_type, volume] = f[..] else {
            return Err(line.error(format!(
                "expected Timestamp,Offset,Size,IOType,VolumeID; got {} fields",
                f.len()
            )));
        };
        let seconds: u64 = line.number("Timestamp", ts)?;
        let sector: u64 = line.number("Offset", offset)?;
        if sector > i64::MAX as u64 / 512 {
            return Err(line.error(format!("Offset: {sector} is beyond any device")));
        }
        let sectors: u64 = line.number("Size", size)?;
        let write = match io_type {
            "0" => false,
            "1" => true,
            t => {
                return Err(line.error(format!("IOType: expected 0 (read) or 1 (write), got '{t}'")))
            }
        };
        if volume.is_empty() {
            return Err(line.error("VolumeID: empty"));
        }
        if sectors == 0 {
            return Ok(());
        }
        if sectors > MAX_REQUEST_SECTORS {
            return Err(line.error(format!(
                "Size: {sectors} sectors; a request must be 1..={MAX_REQUEST_SECTORS} sectors"
            )));
        }
        let at_ns = seconds
            .checked_mul(NS)
            .ok_or_else(|| line.error(format!("Timestamp: {seconds} s is past any clock")))?;
        out.push(Raw {
            at_ns: at_ns + within_second(self.seed, line.number as u64),
            sector,
            sectors: sectors as u32,
            write,
            line: line.number as u32,
            source: sources.volume(line, volume)?,
        });
        Ok(())
    }
}

/// A point of a second (ns) for the request on line `line`, uniform, from
/// `seed`: splitmix64 of the two.
fn within_second(seed: u64, line: u64) -> u64 {
    let mut z = seed ^ line.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    // The top bits scaled to [0, NS): no modulo bias worth naming.
    ((u128::from(z) * u128::from(NS)) >> 64) as u64
}
