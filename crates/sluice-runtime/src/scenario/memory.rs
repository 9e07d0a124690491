//! The memory a simulation needs, checked against what the machine has
//! before a run starts.

use super::*;

/// Memory a simulation takes per flow (queues, counters; its latency
/// histogram is [`histogram_bytes`]), and per request in flight; measured
/// on the release build and rounded up.
const BYTES_PER_FLOW: u64 = 4 << 10;
const BYTES_PER_REQUEST: u64 = 160;
pub(super) const BYTES_BASE: u64 = 64 << 20;
/// Memory per page the page cache model holds (a tree entry with its LRU
/// entry), rounded up.
const BYTES_PER_PAGE: u64 = 96;

/// The most a flow's latency histogram takes in a run of `duration`: made
/// at its first completion, it grows (3 significant digits, 1 µs up)
/// by 1,024 eight-byte counts each time the largest latency doubles past
/// 2,048 µs, and no latency exceeds the run. 1 s: 90 KiB.
fn histogram_bytes(duration: Duration) -> u64 {
    let us = (duration.as_nanos() / 1000).max(1);
    // Buckets: the smallest b with 2048 * 2^(b-1) > us.
    let mut buckets = 1u64;
    while buckets < 64 && (2048u128 << (buckets - 1)) <= u128::from(us) {
        buckets += 1;
    }
    (buckets + 1) * 1024 * 8
}

/// The memory this process may use: Linux's `MemAvailable`, or less when
/// its address-space or data limit (`ulimit -v`, `-d`) is lower; `None`
/// if unknown.
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    Some(
        rlimit(&limits, "Max address space")
            .into_iter()
            .chain(rlimit(&limits, "Max data size"))
            .fold(kib.saturating_mul(1024), u64::min),
    )
}

/// The soft limit of `what` in `/proc/self/limits` text, in bytes; `None`
/// when unlimited or absent.
fn rlimit(limits: &str, what: &str) -> Option<u64> {
    let rest = limits.lines().find_map(|l| l.strip_prefix(what))?;
    rest.split_whitespace().next()?.parse().ok()
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
        let per_flow = BYTES_PER_FLOW + histogram_bytes(self.duration);
        BYTES_BASE
            .saturating_add((self.flows.len() as u64).saturating_mul(per_flow))
            .saturating_add(in_flight.saturating_mul(BYTES_PER_REQUEST))
            .saturating_add(self.trace_bytes())
            .saturating_add(self.page_cache_bytes())
    }

    /// The modelled page cache, when a flow is buffered: its pages (one
    /// tree entry each) at most.
    fn page_cache_bytes(&self) -> u64 {
        if self.flows.iter().all(|f| f.direct) {
            return 0;
        }
        self.os
            .memory_mib
            .saturating_mul(256)
            .saturating_mul(BYTES_PER_PAGE)
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
                    // Each record, its index in its thread's list and its
                    // estimated think time.
                    s.trace.records.len()
                        * (std::mem::size_of::<sluice_workload::StartupRecord>()
                            + 4
                            + std::mem::size_of::<sluice::Duration>()),
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
            "scenario '{}' needs about {:.1} GiB of memory by sluice's estimate ({} flows, {in_flight} requests in flight, {:.1} GiB of traces) and this process has {:.1} GiB available: lower count or outstanding",
            self.name,
            gib(need),
            self.flows.len(),
            gib(self.trace_bytes()),
            gib(available)
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histograms_are_bounded_by_the_run_and_limits_are_read() {
        assert_eq!(histogram_bytes(Duration::from_millis(1)), 2 * 8192);
        assert_eq!(histogram_bytes(Duration::from_secs(1)), 11 * 8192);
        assert_eq!(histogram_bytes(Duration::from_secs(10_000_000)), 35 * 8192);
        let limits = "Limit                     Soft Limit           Hard Limit           Units\n\
                      Max data size             unlimited            unlimited            bytes\n\
                      Max address space         4294967296           4294967296           bytes\n";
        assert_eq!(rlimit(limits, "Max address space"), Some(4 << 30));
        assert_eq!(rlimit(limits, "Max data size"), None);
    }
}
