//! The memory a simulation needs, checked against what the machine has
//! before a run starts.

use super::*;

/// Memory a simulation takes per flow (queues, counters, a latency
/// histogram), and per request in flight; measured on the release build and
/// rounded up.
const BYTES_PER_FLOW: u64 = 24 << 10;
const BYTES_PER_REQUEST: u64 = 160;
pub(super) const BYTES_BASE: u64 = 64 << 20;

/// The memory this machine has available (Linux's `MemAvailable`), if known.
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

impl Scenario {
    /// About how many bytes simulating this scenario needs: its flows, the
    /// requests they keep in flight, and the traces they replay (a list
    /// the copies of a flow share counts once; each copy's replay state is
    /// in its flow's share).
    pub fn memory_estimate(&self) -> u64 {
        let in_flight: u64 = self
            .flows
            .iter()
            .map(|f| u64::from(f.outstanding) * f.pool_weights().len().max(1) as u64)
            .sum();
        BYTES_BASE
            .saturating_add((self.flows.len() as u64).saturating_mul(BYTES_PER_FLOW))
            .saturating_add(in_flight.saturating_mul(BYTES_PER_REQUEST))
            .saturating_add(self.trace_bytes())
    }

    /// Bytes of the traces the flows replay, each shared list once.
    fn trace_bytes(&self) -> u64 {
        let mut seen = std::collections::HashSet::new();
        let mut bytes = 0u64;
        for f in &self.flows {
            let (ptr, n) = match &f.kind {
                FlowKind::Trace(t) => (
                    Arc::as_ptr(&t.requests) as *const u8,
                    t.requests.len() * std::mem::size_of::<trace::Request>(),
                ),
                FlowKind::Startup(s) => (
                    Arc::as_ptr(&s.trace) as *const u8,
                    s.trace.records.len()
                        * (std::mem::size_of::<sluice_workload::StartupRecord>() + 4),
                ),
                _ => continue,
            };
            if seen.insert(ptr) {
                bytes = bytes.saturating_add(n as u64);
            }
        }
        bytes
    }

    /// Refuse, before it starts, a simulation that needs more memory than
    /// the machine has available.
    pub fn check_memory(&self) -> Result<()> {
        match available_memory() {
            Some(avail) => self.check_memory_against(avail),
            None => Ok(()),
        }
    }

    pub(super) fn check_memory_against(&self, available: u64) -> Result<()> {
        let need = self.memory_estimate();
        if need <= available {
            return Ok(());
        }
        let in_flight: u64 = self
            .flows
            .iter()
            .map(|f| u64::from(f.outstanding) * f.pool_weights().len().max(1) as u64)
            .sum();
        let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
        Err(fail(format!(
            "scenario '{}' needs about {:.1} GiB of memory by sluice's estimate ({} flows, {in_flight} requests in flight, {:.1} GiB of traces) and this machine has {:.1} GiB available: lower count or outstanding",
            self.name,
            gib(need),
            self.flows.len(),
            gib(self.trace_bytes()),
            gib(available)
        )))
    }
}
