//! MSR Cambridge block traces (SNIA IOTTA): CSV lines of
//! `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`, the time
//! in Windows file-time ticks (100 ns), offset and size in bytes, type
//! `Read` or `Write`. A header line, if any, is skipped: a first line none
//! of whose numeric fields (Timestamp, DiskNumber, Offset, Size) is a
//! number; any other first line is a request, read or refused as every
//! other line is. A timestamp may have a fraction of a tick (kept to the
//! nanosecond). The disk number is
//! not read: give a trace of one disk (the published files hold one
//! volume each).

use super::{byte_sector, csv_lines, Line, Raw};
use crate::error::Result;

/// Every request of `text`.
pub(crate) fn parse(file: &str, text: &str) -> Result<Vec<Raw>> {
    let mut out = Vec::new();
    for (line, f) in csv_lines(file, text) {
        if line.number == 1 && is_header(&f) {
            continue;
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
        let at_ns = timestamp_ns(&line, f[0])?;
        let offset: u64 = line.number("Offset", f[4])?;
        let size: u64 = line.number("Size", f[5])?;
        if size == 0 {
            continue;
        }
        out.push(Raw {
            at_ns,
            sector: byte_sector(&line, "Offset", offset)?,
            sectors: line.size_sectors("Size", size)?,
            write,
            line: line.number as u32,
            source: 0,
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

/// A header line: none of the fields that hold numbers in a request
/// (Timestamp, DiskNumber, Offset, Size) holds one. A request whose
/// timestamp merely has a fraction is not a header.
fn is_header(f: &[&str]) -> bool {
    [0, 2, 4, 5]
        .iter()
        .all(|&k| f.get(k).is_none_or(|s| s.trim().parse::<f64>().is_err()))
}

/// A timestamp in ticks of 100 ns, `ticks` or `ticks.fraction`, as
/// nanoseconds (the fraction's first two digits are the nanoseconds past
/// the tick).
fn timestamp_ns(line: &Line, text: &str) -> Result<u64> {
    let text = text.trim();
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let bad = || line.error(format!("Timestamp: expected ticks of 100 ns, got '{text}'"));
    if !frac.bytes().all(|c| c.is_ascii_digit()) || (int.is_empty() && frac.is_empty()) {
        return Err(bad());
    }
    let ticks: u64 = if int.is_empty() {
        0
    } else {
        int.parse().map_err(|_| bad())?
    };
    let mut ns = 0;
    for (k, c) in frac
        .bytes()
        .chain(std::iter::repeat(b'0'))
        .take(2)
        .enumerate()
    {
        ns += u64::from(c - b'0') * if k == 0 { 10 } else { 1 };
    }
    Ok(ticks.saturating_mul(100).saturating_add(ns))
}
