//! `clook`: circular LOOK. Serve requests in ascending sector order from the
//! head position; past the highest pending request, jump back to the lowest.
//! The order BFQ also uses inside one flow's queue.

use std::collections::BTreeMap;

use crate::scheduler::{Decision, DeviceView, Scheduler};
use crate::time::Instant;
use crate::types::Request;

/// Requests sorted by (sector, id); the id breaks ties in arrival order.
#[derive(Debug, Default)]
pub struct Clook {
    sorted: BTreeMap<(u64, u64), Request>,
}

impl Clook {
    pub fn new() -> Self {
        Self::default()
    }

    /// Remove and return the first request at or after `head`, wrapping.
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
        self.sorted.insert((request.sector, request.id.0), request);
    }

    fn dispatch(&mut self, _now: Instant, device: &dyn DeviceView) -> Decision {
        Self::pop_from(&mut self.sorted, device.head()).into()
    }

    fn queued(&self) -> usize {
        self.sorted.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testkit::{req, FlatDevice};

    #[test]
    fn ascends_from_the_head_then_wraps_to_the_lowest() {
        let mut s = Clook::new();
        for (i, sector) in [900u64, 100, 500, 300].into_iter().enumerate() {
            s.add(0, req(i as u64, 0, sector));
        }
        let mut dev = FlatDevice::at(400);
        let mut order = Vec::new();
        while let Decision::Dispatch(r) = s.dispatch(0, &dev) {
            order.push(r.sector);
            dev.head = r.end();
        }
        assert_eq!(order, vec![500, 900, 100, 300]);
    }
}
