//! The text of the kernel's ftrace `blk` tracer (`current_tracer = blk`
//! with a device's `trace/enable` set; what the S suite's `tracing.sh`
//! records), one event a line:
//!
//! ```text
//!               dd-7818    [000] d..1. 22785.309342:   7,1    Q  RS 0 + 8 [dd]
//! ```
//!
//! the task and its pid, the CPU in brackets, the irq flags (absent with
//! `options/irq-info` off), the time in seconds with a colon, then the
//! event as blkparse prints it: `maj,min action rwbs sector + count
//! [process]` (`kernel/trace/blktrace.c`, `blk_log_generic`).
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
        if text.trim_start().starts_with('#') {
            return Ok(());
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
        if event.len() < 3 || !is_device(event[0]) || event[1] != "Q" {
            return Ok(());
        }
        let Some((sector, sectors, write)) = queued_io(line, event[2], &event[3..])? else {
            return Ok(());
        };
        let task = f[..cpu].join(" ");
        let (comm, pid) = task.rsplit_once('-').unwrap_or(("", task.as_str()));
        let volume = sources.volume(line, event[0])?;
        let process = sources.process(line, pid, comm)?;
        out.push(Raw {
            at_ns: line.seconds("time", &f[time][..f[time].len() - 1])?,
            sector,
            sectors,
            write,
            line: line.number as u32,
            source: volume.max(process),
        });
        Ok(())
    }
}

/// `[NNN]`, a CPU number in brackets.
fn is_cpu(w: &str) -> bool {
    w.len() > 2
        && w.starts_with('[')
        && w.ends_with(']')
        && w[1..w.len() - 1].bytes().all(|c| c.is_ascii_digit())
}
