//! The text of the kernel's ftrace `blk` tracer (`current_tracer = blk`
//! with a device's `trace/enable` set; what the S suite's `tracing.sh`
//! records), one event a line:
//!
//! ```text
//!               dd-7818    [000] d..1. 22785.309342:   7,1    Q  RS 0 + 8 [dd]
//! ```
//!
//! the task and its pid (then its `(tgid)` with `options/record-tgid`),
//! the CPU in brackets, the irq flags (absent with `options/irq-info`
//! off), the time in seconds since boot with a colon, then the event as
//! blkparse prints it: `maj,min [cgroup] action rwbs sector + count
//! [process]` (`kernel/trace/blktrace.c`, `blk_log_generic`; the cgroup
//! with `options/blk_cgroup`). A `CPU:N [LOST M EVENTS]` line means the
//! trace misses requests: it is refused.
//!
//! A request is its queue event (`Q`), read as [`super::blkparse`] reads
//! blkparse's text: reads and writes with data count once; discards,
//! flushes without data and every other action are skipped, and so are
//! the `#` header lines and any line that is not an event. With `flows =
//! "volume"`, one flow per device (`maj,min`); with `flows = "process"`,
//! one per task (`name-pid`, as ftrace names it).
//!
//! Read a line at a time as the file is read.

use super::blkparse::{is_device, queued_io};
use super::{Line, LineReader, Raw, Sources};
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
        let trimmed = text.trim_start();
        if trimmed.starts_with('#') {
            return Ok(());
        }
        if trimmed.starts_with("CPU:") && trimmed.contains("[LOST ") {
            return Err(line.error(
                "the tracer lost events here (its buffer was full): the trace misses requests; \
                 record again with a larger buffer_size_kb",
            ));
        }
        let f: Vec<&str> = text.split_ascii_whitespace().collect();
        // The CPU field, `[NNN]`: the task (which may hold spaces) is
        // before it, the event after the time.
        let Some(cpu) = f.iter().position(|w| is_cpu(w)) else {
            return Ok(());
        };
        let Some(time) = f[cpu + 1..]
            .iter()
            .position(|w| w.ends_with(':') && w[..w.len() - 1].parse::<f64>().is_ok())
            .map(|i| cpu + 1 + i)
        else {
            return Ok(());
        };
        let event = &f[time + 1..];
        if event.len() < 3 || !is_device(event[0]) {
            return Ok(());
        }
        // The action, after the device or after a cgroup (`blk_cgroup`:
        // `ino,gen`, a path, or `<...>`).
        let action = match (event[1], event.get(2)) {
            ("Q", _) => 1,
            (cg, Some(&"Q")) if !cg.bytes().all(|c| c.is_ascii_alphabetic()) => 2,
            _ => return Ok(()),
        };
        let Some(&rwbs) = event.get(action + 1) else {
            return Err(line.error("a queue event needs an RWBS field after its action"));
        };
        let Some((sector, sectors, write)) = queued_io(line, rwbs, &event[action + 2..])? else {
            return Ok(());
        };
        // `comm-pid`, then `(tgid)` with `options/record-tgid`.
        let task_words = match f[..cpu].split_last() {
            Some((last, rest)) if last.starts_with('(') && last.ends_with(')') => rest,
            _ => &f[..cpu],
        };
        let task = task_words.join(" ");
        let (comm, pid) = task.rsplit_once('-').unwrap_or(("", task.as_str()));
        let volume = sources.volume(line, event[0])?;
        let process = sources.process(line, pid, comm)?;
        out.push(Raw {
            at_ns: uptime_ns(line, &f[time][..f[time].len() - 1])?,
            sector,
            sectors,
            write,
            line: line.number as u32,
            source: volume.max(process),
        });
        Ok(())
    }
}

/// The most seconds a timestamp may hold (the machine's uptime: 10^10 s,
/// three centuries; nanoseconds still fit in 64 bits).
const MAX_UPTIME_S: u64 = 10_000_000_000;

/// ftrace's `seconds.micros` (or more digits) as nanoseconds, exactly:
/// it is the machine's uptime, which may be more than a year.
fn uptime_ns(line: &Line, text: &str) -> Result<u64> {
    let bad = || line.error(format!("time: expected seconds since boot, got '{text}'"));
    let (s, frac) = text.split_once('.').unwrap_or((text, ""));
    if s.is_empty()
        || !s.bytes().all(|c| c.is_ascii_digit())
        || !frac.bytes().all(|c| c.is_ascii_digit())
    {
        return Err(bad());
    }
    let s: u64 = s.parse().map_err(|_| bad())?;
    if s > MAX_UPTIME_S {
        return Err(line.error(format!(
            "time: {s} s since boot is more than {MAX_UPTIME_S}"
        )));
    }
    let ns = frac
        .bytes()
        .chain(std::iter::repeat(b'0'))
        .take(9)
        .fold(0u64, |n, c| n * 10 + u64::from(c - b'0'));
    Ok(s * 1_000_000_000 + ns)
}

/// `[NNN]`, a CPU number in brackets.
fn is_cpu(w: &str) -> bool {
    w.len() > 2
        && w.starts_with('[')
        && w.ends_with(']')
        && w[1..w.len() - 1].bytes().all(|c| c.is_ascii_digit())
}
