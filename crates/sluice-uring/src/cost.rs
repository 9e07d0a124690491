//! What the engine tells position-aware policies about a real target.

use sluice::{CostModel, Duration, Instant};

/// A linear seek estimate for a real target: moving between two sectors
/// costs `access` plus a share of `full_stroke - access` proportional to the
/// distance over the capacity; staying put costs nothing. There is no
/// rotation model (`positioning_time` is the seek estimate).
///
/// This is an **estimate**, not a measurement: a host cannot see where a
/// real drive's head is, and on an SSD or the page cache positions cost
/// nothing at all. It keeps the order position-aware policies need (C-LOOK
/// and SSTF only compare distances; SATF, YFQ's tie-breaking and DOR's
/// margins compare these durations). Policies that do not look at
/// positions (noop, BFQ, CFQ, VIOS) never call it. A host that knows
/// better (the simulator's model of the drive behind an emulated device,
/// say) installs its own model with [`crate::Engine::set_seek_model`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeekEstimate {
    /// Cost of the shortest move (track to track on a disk).
    pub access: Duration,
    /// Cost of a move across the whole capacity.
    pub full_stroke: Duration,
}

impl Default for SeekEstimate {
    /// A 7200 rpm disk's order of magnitude: 1 ms track to track, 15 ms
    /// full stroke.
    fn default() -> Self {
        SeekEstimate {
            access: Duration::from_millis(1),
            full_stroke: Duration::from_millis(15),
        }
    }
}

/// [`SeekEstimate`] over a capacity (the targets laid end to end).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LinearCost {
    pub estimate: SeekEstimate,
    pub capacity: u64,
}

impl CostModel for LinearCost {
    fn capacity(&self) -> u64 {
        self.capacity
    }

    fn seek_time(&self, from: u64, to: u64) -> Duration {
        if from == to {
            return Duration::ZERO;
        }
        let span = self
            .estimate
            .full_stroke
            .saturating_sub(self.estimate.access)
            .as_nanos();
        let cap = self.capacity.max(1);
        let dist = from.abs_diff(to).min(cap);
        let extra = (u128::from(span) * u128::from(dist) / u128::from(cap)) as u64;
        self.estimate.access + Duration::from_nanos(extra)
    }

    fn positioning_time(&self, _now: Instant, from: u64, to: u64) -> Duration {
        self.seek_time(from, to)
    }

    fn full_stroke_seek(&self) -> Duration {
        self.estimate.full_stroke
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_and_monotone() {
        let c = LinearCost {
            estimate: SeekEstimate::default(),
            capacity: 1000,
        };
        assert_eq!(c.seek_time(5, 5), Duration::ZERO);
        assert_eq!(c.seek_time(0, 1000), Duration::from_millis(15));
        assert!(c.seek_time(0, 10) < c.seek_time(0, 500));
        assert_eq!(c.seek_time(10, 0), c.seek_time(0, 10));
        assert!(c.seek_time(0, 1) >= Duration::from_millis(1));
    }
}
