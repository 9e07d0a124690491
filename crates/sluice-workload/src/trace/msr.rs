//! MSR Cambridge block traces (SNIA IOTTA): CSV lines of
//! `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`, the time
//! in Windows file-time ticks (100 ns), offset and size in bytes, type
//! `Read` or `Write`. A header line, if any, is skipped. The disk number is
//! not read: give a trace of one disk (the published files hold one
//! volume each).

use super::{byte_sector, csv_lines, Line, Raw};
use crate::error::Result;

/// Every request of `text`.
pub(crate) fn parse(file: &str, text: &str) -> Result<Vec<Raw>> {
    let mut out = Vec::new();
    for (line, f) in csv_lines(file, text) {
        if line.number == 1 && f[0].trim().parse::<u64>().is_err() {
            continue; // a header
        }
        if f.len() < 6 {
            return Err(line.error(format!(
                "expected Timestamp,Hostname,DiskNumber,Type,Offset,Size[,ResponseTime]; got {} fields",
                f.len()
            )));
        }
        let kind = f[3].trim();
        let write = if kind.eq_ignore_ascii_case("read") {
            false
        } else if kind.eq_ignore_ascii_case("write") {
            true
        } else {
            return Err(line.error(format!("Type: expected Read or Write, got '{kind}'")));
        };
        let ticks: u64 = line.number("Timestamp", f[0])?;
        let offset: u64 = line.number("Offset", f[4])?;
        let size: u64 = line.number("Size", f[5])?;
        if size == 0 {
            continue;
        }
        out.push(Raw {
            at_ns: ticks.saturating_mul(100),
            sector: byte_sector(&line, "Offset", offset)?,
            sectors: line.size_sectors("Size", size)?,
            write,
            line: line.number as u32,
        });
    }
    // File time counts from 1601: a year past the first request is no trace.
    if let Some(t0) = out.iter().map(|r| r.at_ns).min() {
        if let Some(r) = out.iter().find(|r| r.at_ns - t0 > 32_000_000_000_000_000) {
            return Err(Line {
                file,
                number: r.line as usize,
            }
            .error("Timestamp: more than a year after the first request"));
        }
    }
    Ok(out)
}
