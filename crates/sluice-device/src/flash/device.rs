//! The flash SSD in service: the [`Device`] the simulator drives.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use sluice::{CostModel, Duration, Instant};

use super::FlashSpec;
use crate::{Command, Device};

/// A flash SSD in service.
#[derive(Clone, Debug)]
pub struct Flash {
    spec: FlashSpec,
    depth: usize,
    pending: BinaryHeap<Reverse<(Instant, u64)>>,
}

impl Flash {
    /// An empty drive of model `spec` accepting `depth` commands at once.
    pub fn new(spec: &FlashSpec, depth: usize) -> Self {
        Flash {
            spec: spec.clone(),
            depth: depth.max(1),
            pending: BinaryHeap::new(),
        }
    }
}

impl CostModel for Flash {
    fn capacity(&self) -> u64 {
        self.spec.capacity_sectors()
    }
    fn seek_time(&self, _from: u64, _to: u64) -> Duration {
        Duration::ZERO
    }
    fn positioning_time(&self, _now: Instant, _from: u64, _to: u64) -> Duration {
        Duration::from_nanos(self.spec.config.flash.page_read_latency_lsb)
    }
    fn full_stroke_seek(&self) -> Duration {
        Duration::ZERO
    }
}

impl Device for Flash {
    fn name(&self) -> &str {
        &self.spec.name
    }

    fn queue_depth(&self) -> usize {
        self.depth
    }

    fn submit(&mut self, now: Instant, cmd: Command) {
        let read = Duration::from_nanos(self.spec.config.flash.page_read_latency_lsb);
        self.pending.push(Reverse((now + read, cmd.tag)));
    }

    fn next_completion(&self) -> Option<Instant> {
        self.pending.peek().map(|r| r.0 .0)
    }

    fn pop_completion(&mut self, now: Instant) -> Option<u64> {
        match self.pending.peek() {
            Some(r) if r.0 .0 <= now => self.pending.pop().map(|r| r.0 .1),
            _ => None,
        }
    }
}
