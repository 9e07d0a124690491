//! `clook`: circular LOOK. Serve requests in ascending sector order from the
//! head position; past the highest pending request, jump back to the lowest.
//! The order BFQ also uses inside one flow's queue.

use std::collections::BTreeMap;

use super::sorted::SectorQueue;
use crate::scheduler::{Decision, DeviceView, Scheduler};
use crate::time::Instant;
use crate::types::Request;

/// Requests sorted by (sector, id); the id breaks ties in arrival order.
#[derive(Debug, Default)]
pub struct Clook {
    sorted: SectorQueue,
}

impl Clook {
    /// Remove and return the first request at or after `head`, wrapping
    /// (for `bsd`'s C-SCAN over its own map).
    pub(crate) fn pop_from(
        sorted: &mut BTreeMap<(u64, u64), Request>,
        head: u64,
    ) -> Option<Request> {
        let key = sorted
            .range((head, 0)..)
            .next()
            .or_else(|| sorted.iter().next())
            .map(|(k, _)| *k)?;
        sorted.remove(&key)
    }
}

impl Scheduler for Clook {
    fn name(&self) -> &str {
        "clook"
    }

    fn add(&mut self, _now: Instant, request: Request) {
        self.sorted.insert(request);
    }

    fn merge(&mut self, _now: Instant, old: &Request, merged: &Request) {
        self.sorted.merge(old, merged);
    }

    /// The first request at or after the head, wrapping to the lowest.
    fn dispatch(&mut self, _now: Instant, device: &dyn DeviceView) -> Decision {
        self.sorted.pop_ceil_or_first((device.head(), 0)).into()
    }

    fn queued(&self) -> usize {
        self.sorted.len()
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::policy::testkit::Testbed;
    use crate::time::Duration;

    /// The sectors `s` serves, one request at a time, of a backlog of reads
    /// at `sectors` that arrives with the head at `head` (put there by
    /// serving a request that ends there first). SSTF's test uses it too.
    pub(in crate::policy) fn backlog_order<P: Scheduler>(
        s: P,
        head: u64,
        sectors: &[u64],
    ) -> Vec<u64> {
        let mut tb = Testbed::new(s, 1);
        tb.add(0, head - 8, 8);
        tb.serve(Duration::from_millis(1));
        assert_eq!(tb.driver().head(), head);
        for &sector in sectors {
            tb.add(0, sector, 8);
        }
        tb.drain();
        tb.order()[1..].iter().map(|r| r.sector).collect()
    }

    #[test]
    fn ascends_from_the_head_then_wraps_to_the_lowest() {
        let order = backlog_order(Clook::default(), 400, &[900, 100, 500, 300]);
        assert_eq!(order, vec![500, 900, 100, 300]);
    }
}
