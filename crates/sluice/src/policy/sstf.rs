//! `sstf`: shortest seek time first. Of the pending requests, serve the one
//! the head reaches fastest by the device's seek-time estimate. Because seek
//! time grows with distance, only the nearest request on each side of the
//! head can win, so a choice costs O(log n).

use super::sorted::SectorQueue;
use crate::scheduler::{Decision, DeviceView, Scheduler};
use crate::time::Instant;
use crate::types::Request;

/// Requests sorted by (sector, id).
#[derive(Debug, Default)]
pub struct Sstf {
    sorted: SectorQueue,
}

impl Scheduler for Sstf {
    fn name(&self) -> &str {
        "sstf"
    }

    fn add(&mut self, _now: Instant, request: Request) {
        self.sorted.insert(request);
    }

    fn merge(&mut self, _now: Instant, old: &Request, merged: &Request) {
        self.sorted.merge(old, merged);
    }

    fn dispatch(&mut self, _now: Instant, device: &dyn DeviceView) -> Decision {
        let head = device.head();
        self.sorted
            .pop_neighbour((head, 0), |below, above| match (below, above) {
                (None, None) => None,
                (Some(_), None) => Some(true),
                (None, Some(_)) => Some(false),
                // Ties go upward, like C-LOOK, so the choice is deterministic.
                (Some(b), Some(a)) => {
                    Some(device.seek_time(head, b.0) < device.seek_time(head, a.0))
                }
            })
            .into()
    }

    fn queued(&self) -> usize {
        self.sorted.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::clook::tests::backlog_order;

    #[test]
    fn always_takes_the_nearest_request_on_either_side() {
        // The head follows each request's end: 400 -> 388 -> 458 -> 18.
        let order = backlog_order(Sstf::default(), 400, &[1000, 380, 450, 10]);
        assert_eq!(order, vec![380, 450, 10, 1000]);
    }
}
