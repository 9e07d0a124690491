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

impl Noop {
    pub fn new() -> Self {
        Self::default()
    }
}

impl Scheduler for Noop {
    fn name(&self) -> &str {
        "noop"
    }

    fn add(&mut self, _now: Instant, request: Request) {
        self.queue.push_back(request);
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
    use crate::policy::testkit::{req, FlatDevice};

    #[test]
    fn dispatches_in_arrival_order_regardless_of_position() {
        let mut s = Noop::new();
        for (i, sector) in [900u64, 100, 500].into_iter().enumerate() {
            s.add(i as u64, req(i as u64, 0, sector));
        }
        let dev = FlatDevice::at(0);
        let order: Vec<u64> = (0..3)
            .map(|_| match s.dispatch(10, &dev) {
                Decision::Dispatch(r) => r.sector,
                d => panic!("{d:?}"),
            })
            .collect();
        assert_eq!(order, vec![900, 100, 500]);
        assert_eq!(s.dispatch(10, &dev), Decision::Nothing);
    }
}
