//! MQSim's ASCII traces (`IO_Flow_Trace_Based.cpp`, `ASCII_Trace_Definition.h`
//! of CMU-SAFARI/MQSim): one request a line,
//! `time device lba size_sectors type`, fields separated by spaces.
//!
//! - `time`: the arrival in nanoseconds, a decimal integer. MQSim reads it
//!   as nanoseconds whatever the workload's `Time_Unit` says (it keeps the
//!   unit and never uses it), and stops with an error on a time earlier
//!   than the line before; so does this reader.
//! - `device`: not read by MQSim (any word); with `flows = "volume"`,
//!   one flow per device named.
//! - `lba`, `size_sectors`: sectors of 512 bytes, read as C's `strtoull`
//!   with base 0 reads them: `0x...` hexadecimal, a leading `0` octal,
//!   otherwise decimal. A size of 0 or above 64 MiB is refused.
//! - `type`: `0` is a write, `1` a read (MQSim takes anything but `0` as a
//!   read; anything else is refused here).
//!
//! Read a line at a time as the file is read. MQSim stops reading at the
//! first line that is not five fields; a file
//! may end in blank lines, but a request after a blank line (which MQSim
//! would never replay) is refused, as is any other malformed line.
//!
//! MQSim folds an LBA past the flow's range back into it: an LBA up to
//! `end - start` is kept, a larger one is taken modulo `end - start` (the
//! range's length less one). A trace flow does the same with `offsets =
//! "mqsim"` ([`super::Offsets::Mqsim`]), the default that `sluice import
//! mqsim` writes.

use super::{Line, LineReader, Raw, Sources, MAX_REQUEST_SECTORS};
use crate::error::Result;

/// The reader: the time of the line before, and the first blank line
/// (a request after it is refused).
#[derive(Default)]
pub(crate) struct Reader {
    blank_at: Option<usize>,
    last_ns: u64,
}

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
            self.blank_at.get_or_insert(line.number);
            return Ok(());
        }
        if let Some(b) = self.blank_at {
            return Err(line.error(format!(
                "a request after the blank line {b}: MQSim stops reading at a blank line (remove it)"
            )));
        }
        if f.len() != 5 {
            return Err(line.error(format!(
                "expected `time device lba size_sectors type`; got {} fields",
                f.len()
            )));
        }
        let at_ns = time_ns(line, f[0])?;
        if at_ns < self.last_ns {
            return Err(line.error(format!(
                "time: {at_ns} ns is before the line above's {} ns (MQSim needs arrivals in order)",
                self.last_ns
            )));
        }
        self.last_ns = at_ns;
        let sector = c_number(line, "lba", f[2])?;
        if sector > i64::MAX as u64 / 512 {
            return Err(line.error(format!("lba: {sector} is beyond any device")));
        }
        let sectors = c_number(line, "size_sectors", f[3])?;
        if sectors == 0 || sectors > MAX_REQUEST_SECTORS {
            return Err(line.error(format!(
                "size_sectors: {sectors}; a request must be 1..={MAX_REQUEST_SECTORS} sectors"
            )));
        }
        let write = match f[4] {
            "0" => true,
            "1" => false,
            t => return Err(line.error(format!("type: expected 0 (write) or 1 (read), got '{t}'"))),
        };
        out.push(Raw {
            at_ns,
            sector,
            sectors: sectors as u32,
            write,
            line: line.number as u32,
            source: sources.volume(line, f[1])?,
        });
        Ok(())
    }
}

/// The arrival: whole nanoseconds, at most a year (a trace's clock).
fn time_ns(line: &Line, text: &str) -> Result<u64> {
    let ns: u64 = if text.bytes().all(|c| c.is_ascii_digit()) {
        line.number("time", text)?
    } else {
        return Err(line.error(format!("time: expected whole nanoseconds, got '{text}'")));
    };
    if ns > super::MAX_TRACE_NS {
        return Err(line.error(format!("time: {ns} ns is more than a year")));
    }
    Ok(ns)
}

/// A number as C's `strtoull(text, _, 0)` reads a whole field: `0x`/`0X`
/// hexadecimal, a leading `0` octal, else decimal.
fn c_number(line: &Line, what: &str, text: &str) -> Result<u64> {
    let (digits, radix) =
        if let Some(h) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
            (h, 16)
        } else if text.len() > 1 && text.starts_with('0') {
            (&text[1..], 8)
        } else {
            (text, 10)
        };
    // `from_str_radix` also takes a sign, which strtoull would negate.
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_hexdigit()) {
        return Err(line.error(format!("{what}: expected a number, got '{text}'")));
    }
    u64::from_str_radix(digits, radix)
        .map_err(|_| line.error(format!("{what}: expected a number, got '{text}'")))
}
