//! The request log: one record per completed request, for tracing why a
//! flow waited (`sluice sim --log-requests`).

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
    /// Header of the CSV form.
    pub const CSV_HEADER: &'static str =
        "flow,thread,dir,sync,sector,sectors,arrival_ms,dispatched_ms,completed_ms";

    /// One CSV line (no newline), with `flow` written as the flow's name.
    pub fn csv(&self, flow_name: &str) -> String {
        let ms = |t: Instant| t.as_millis_f64();
        format!(
            "{},{},{},{},{},{},{:.6},{:.6},{:.6}",
            flow_name,
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
