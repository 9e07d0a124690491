//! `noop`: first in, first out. The baseline every paper compares with
//! (Linux's noop elevator, FreeBSD's FIFO queue).

use std::collections::VecDeque;

use crate::scheduler::{Decision, DeviceView, Scheduler};
use crate::time::Instant;
use crate::types::Request;

/// FIFO in arrival order.
#[derive(Debug, Default)]
pub struct Noop {
    queue: VecDeque<Request>,
}

impl Scheduler for Noop {
    fn name(&self) -> &str {
        "noop"
    }

    fn add(&mut self, _now: Instant, request: Request) {
        self.queue.push_back(request);
    }

    fn merge(&mut self, _now: Instant, _old: &Request, merged: &Request) {
        super::merge::merge_queued(&mut self.queue, merged);
    }

    fn dispatch(&mut self, _now: Instant, _device: &dyn DeviceView) -> Decision {
        self.queue.pop_front().into()
    }

    fn queued(&self) -> usize {
        self.queue.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::LastAnswer;
    use crate::policy::testkit::Testbed;

    #[test]
    fn dispatches_in_arrival_order_regardless_of_position() {
        // A deep device: the order is the policy's, not the completions'.
        let mut tb = Testbed::new(Noop::default(), 32);
        for sector in [900u64, 100, 500] {
            tb.add(0, sector, 8);
        }
        let order: Vec<u64> = tb.fill().iter().map(|r| r.sector).collect();
        assert_eq!(order, vec![900, 100, 500]);
        assert_eq!(tb.poll(), None);
        assert_eq!(tb.answer(), LastAnswer::Nothing);
    }
}
