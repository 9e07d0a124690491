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
        let Some((sector, sectors, write)) = queued_io(&line, f[6], &f[7..])? else {
            continue;
        };
        out.push(Raw {
            at_ns: line.seconds("time", f[3])?,
            sector,
            sectors,
            write,
            line: (i + 1) as u32,
            // The queuing process: `pid` and the `[process]` blkparse
            // prints last.
            source: sources.process(&line, f[4], process_name(&f[10..]))?,
        });
    }
    Ok(out)
}

/// A queue event's request: its RWBS field and what follows it
/// (`sector + count ...`) as `(sector, sectors, write)`; None for what is
/// not a request of data (a discard, a flush with no data, a count of 0).
/// The rules of blkparse's text, shared by every reader of its events.
pub(super) fn queued_io(
    line: &Line,
    rwbs: &str,
    rest: &[&str],
) -> Result<Option<(u64, u32, bool)>> {
    let write = rwbs.contains('W');
    if rwbs.contains('D') || !(write || rwbs.contains('R')) {
        return Ok(None);
    }
    let has_data = rest.len() >= 3 && rest[1] == "+";
    if !has_data && (rwbs.contains('F') || rwbs.contains('N')) {
        return Ok(None); // a flush (or barrier) with no data
    }
    if !has_data {
        return Err(line.error(format!(
            "a queue event needs `sector + count` after its RWBS field, got '{}'",
            rest.join(" ")
        )));
    }
    let count: u64 = line.number("count", rest[2])?;
    if count == 0 {
        return Ok(None);
    }
    // Checked: `count * 512` wrapped a huge count to a small request.
    let bytes = count.checked_mul(512).ok_or_else(|| {
        line.error(format!(
            "count: {count} sectors; a request must be 1 byte to 64 MiB"
        ))
    })?;
    let sector: u64 = line.number("sector", rest[0])?;
    if sector > i64::MAX as u64 / 512 {
        return Err(line.error(format!("sector: {sector} is beyond any device")));
    }
    Ok(Some((sector, line.size_sectors("count", bytes)?, write)))
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
