//! blkparse's default text output, one event a line:
//! `maj,min cpu seq seconds pid action rwbs sector + count [process]`.
//!
//! A request is its queue event (`Q`): each I/O the file system or
//! application queued, counted once, not again when it is dispatched (`D`)
//! or completed (`C`). Reads and writes count; discards, flushes with no
//! data (flushes) and other events are skipped, as are the summary lines blkparse
//! prints at the end. A trace of one device is expected: queue events of a
//! second device (a stacked device's and its disk's, say) would count each
//! I/O twice, so they are an error naming the line. With `flows =
//! "process"`, one flow per queuing process (`pid` and `[process]`).

use super::{Line, Raw, Sources};
use crate::error::Result;

/// Every queued read or write of `text`.
pub(crate) fn parse(file: &str, text: &str, sources: &mut Sources) -> Result<Vec<Raw>> {
    let mut out = Vec::new();
    let mut device: Option<&str> = None;
    for (i, l) in sluice_input::lines(text).enumerate() {
        let f: Vec<&str> = l.split_ascii_whitespace().collect();
        // An event line: a `maj,min` device, then at least the action.
        if f.len() < 7 || !is_device(f[0]) || f[5] != "Q" {
            continue;
        }
        let line = Line {
            file,
            number: i + 1,
        };
        match device {
            Some(d) if d != f[0] => {
                return Err(line.error(format!(
                    "a queue event of device {} in a trace of device {d}; give blkparse's output for one device",
                    f[0]
                )))
            }
            _ => device = Some(f[0]),
        }
        let rwbs = f[6];
        let write = rwbs.contains('W');
        if rwbs.contains('D') || !(write || rwbs.contains('R')) {
            continue;
        }
        let has_data = f.len() >= 10 && f[8] == "+";
        if !has_data && (rwbs.contains('F') || rwbs.contains('N')) {
            continue; // a flush (or barrier) with no data
        }
        if !has_data {
            return Err(line.error(format!(
                "a queue event needs `sector + count` after its RWBS field, got '{}'",
                f[7..].join(" ")
            )));
        }
        let sectors: u64 = line.number("count", f[9])?;
        if sectors == 0 {
            continue;
        }
        // Checked: `count * 512` wrapped a huge count to a small request.
        let bytes = sectors.checked_mul(512).ok_or_else(|| {
            line.error(format!(
                "count: {sectors} sectors; a request must be 1 byte to 64 MiB"
            ))
        })?;
        let sector: u64 = line.number("sector", f[7])?;
        if sector > i64::MAX as u64 / 512 {
            return Err(line.error(format!("sector: {sector} is beyond any device")));
        }
        out.push(Raw {
            at_ns: line.seconds("time", f[3])?,
            sector,
            sectors: line.size_sectors("count", bytes)?,
            write,
            line: (i + 1) as u32,
            // The queuing process: `pid` and the `[process]` blkparse
            // prints last.
            source: sources.process(&line, f[4], process_name(&f[10..]))?,
        });
    }
    Ok(out)
}

/// The `[process]` at the end of a queue event, without its brackets
/// (empty when absent).
fn process_name<'a>(rest: &[&'a str]) -> &'a str {
    let joined = rest.last().copied().unwrap_or("");
    if rest.len() == 1 {
        joined.trim_start_matches('[').trim_end_matches(']')
    } else {
        // A name with spaces (`[kworker/u8:2 x]`) is cut at its first.
        rest.first()
            .map_or("", |s| s.trim_start_matches('['))
            .trim_end_matches(']')
    }
}

/// `maj,min`.
pub(super) fn is_device(s: &str) -> bool {
    s.split_once(',').is_some_and(|(a, b)| {
        !a.is_empty()
            && !b.is_empty()
            && a.bytes().all(|c| c.is_ascii_digit())
            && b.bytes().all(|c| c.is_ascii_digit())
    })
}
