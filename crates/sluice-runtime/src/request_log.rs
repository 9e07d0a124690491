//! The request log: one record per completed request, for tracing why a
//! flow waited. Every host writes the same CSV (`sim`, `run`, `kernel` and
//! `versus` with `--log-requests`), so two engines' logs can be compared
//! line for line.

use sluice::Instant;

/// One served request, as the request log records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestRecord {
    /// Index of the flow in the scenario.
    pub flow: u32,
    /// Thread of that flow (start-up replays have several).
    pub thread: u32,
    /// A write (else a read).
    pub write: bool,
    /// Synchronous: the issuer waited for it.
    pub sync: bool,
    /// First sector (512 bytes each).
    pub sector: u64,
    /// Length in sectors.
    pub sectors: u32,
    /// When the flow issued it.
    pub arrival: Instant,
    /// When the policy sent it to the device.
    pub dispatched: Instant,
    /// When the device completed it.
    pub completed: Instant,
}

impl RequestRecord {
    /// The flow index of the page cache's writeback (the flusher), which
    /// is no flow of the scenario.
    pub const FLUSHER: u32 = u32::MAX;

    /// The name the CSV gives the flusher's requests.
    pub const FLUSHER_NAME: &'static str = "(writeback)";

    /// The name of the record's flow among `flows` (the scenario's names,
    /// in order); the flusher's is [`Self::FLUSHER_NAME`].
    pub fn flow_name<'a>(&self, flows: &'a [impl AsRef<str>]) -> &'a str {
        match flows.get(self.flow as usize) {
            Some(n) => n.as_ref(),
            None => Self::FLUSHER_NAME,
        }
    }

    /// Header of the CSV form.
    pub const CSV_HEADER: &'static str =
        "flow,thread,dir,sync,sector,sectors,arrival_ms,dispatched_ms,completed_ms";

    /// One CSV line (no newline), with `flow` written as the flow's name,
    /// quoted as RFC 4180 asks when it holds a comma, quote or line break
    /// (a name is free text; unquoted, `a,b` would shift every column).
    pub fn csv(&self, flow_name: &str) -> String {
        let ms = |t: Instant| t.as_millis_f64();
        format!(
            "{},{},{},{},{},{},{:.6},{:.6},{:.6}",
            csv_field(flow_name),
            self.thread,
            if self.write { "W" } else { "R" },
            u8::from(self.sync),
            self.sector,
            self.sectors,
            ms(self.arrival),
            ms(self.dispatched),
            ms(self.completed)
        )
    }
}

/// A run's request log with the names of its flows: what `--log-requests`
/// writes.
#[derive(Clone, Debug, Default)]
pub struct RequestLog {
    /// The scenario's flow names, in order (a record's `flow` indexes them).
    pub names: Vec<String>,
    /// Completed requests, in completion order.
    pub records: Vec<RequestRecord>,
}

impl RequestLog {
    /// The log as CSV, header first.
    pub fn write_csv(&self, out: impl std::io::Write) -> std::io::Result<()> {
        write_csv(out, &self.names, &self.records)
    }
}

/// Write `log` as CSV (header first) to `out`, flows named by `flows`
/// (the scenario's names, in order).
pub fn write_csv(
    out: impl std::io::Write,
    flows: &[impl AsRef<str>],
    log: &[RequestRecord],
) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut out = std::io::BufWriter::new(out);
    writeln!(out, "{}", RequestRecord::CSV_HEADER)?;
    for r in log {
        writeln!(out, "{}", r.csv(r.flow_name(flows)))?;
    }
    out.flush()
}

/// `field` as one RFC 4180 field: as is, or in double quotes with each
/// quote doubled when it holds a comma, a quote, CR or LF.
fn csv_field(field: &str) -> std::borrow::Cow<'_, str> {
    if field.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", field.replace('"', "\"\"")).into()
    } else {
        field.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_a_flow_name_with_a_comma_or_quote() {
        let r = RequestRecord {
            flow: 0,
            thread: 0,
            write: false,
            sync: true,
            sector: 8,
            sectors: 8,
            arrival: Instant::ZERO,
            dispatched: Instant::ZERO,
            completed: Instant::ZERO,
        };
        let line = r.csv("a,b\"c");
        assert!(line.starts_with("\"a,b\"\"c\",0,R,"), "{line}");
        assert!(r.csv("plain").starts_with("plain,0,R,"));
        assert_eq!(csv_field("x\ny"), "\"x\ny\"");
    }
}
