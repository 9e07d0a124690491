//! Closed-loop flows: each keeps up to `outstanding` requests in flight,
//! issuing the next one when one completes (after its think time).

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use sluice::metrics::FlowMetrics;
use sluice::Nanos;

use crate::scenario::{FlowSpec, Pattern};

/// SplitMix64: spreads a seed into independent-looking stream seeds.
pub(crate) fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// A flow's running state.
pub(crate) struct Flow {
    pub spec: FlowSpec,
    rng: Pcg64Mcg,
    /// Next offset in the file for sequential patterns.
    cursor: u64,
    pub in_flight: u32,
    pub issued: u64,
    pub completed: u64,
    /// Time of the last completion once a finite flow is done.
    pub done_at: Option<Nanos>,
    /// A paced writer found its cap full at its last tick.
    pub waiting_for_room: bool,
    pub metrics: FlowMetrics,
}

impl Flow {
    /// Flow number `index` of a run seeded with `seed`: each flow draws from
    /// its own stream, so adding a flow does not change the others' draws.
    pub fn new(spec: FlowSpec, seed: u64, index: usize) -> Self {
        let stream = splitmix(seed ^ splitmix(index as u64 + 1));
        Flow {
            spec,
            rng: Pcg64Mcg::seed_from_u64(stream),
            cursor: 0,
            in_flight: 0,
            issued: 0,
            completed: 0,
            done_at: None,
            waiting_for_room: false,
            metrics: FlowMetrics::default(),
        }
    }

    /// Whether the flow has room to issue another request now.
    pub fn wants_more(&self) -> bool {
        self.in_flight < self.spec.outstanding && self.spec.requests.is_none_or(|n| self.issued < n)
    }

    /// Asynchronous writers with a think time issue one write every
    /// `think` (they do not wait for completions), up to their cap; every
    /// other flow thinks between a completion and its next issue.
    pub fn paced(&self) -> bool {
        self.spec.pattern.is_write() && self.spec.think > 0
    }

    /// Whether a finite flow has completed all its requests.
    pub fn finished(&self) -> bool {
        self.spec.requests.is_some_and(|n| self.completed >= n)
    }

    /// The start sector of the next request; counts it as issued.
    pub fn next_sector(&mut self) -> u64 {
        let size = u64::from(self.spec.request_sectors);
        let slots = (self.spec.file_sectors / size).max(1);
        self.issued += 1;
        self.in_flight += 1;
        let offset = match self.spec.pattern {
            Pattern::SeqRead | Pattern::SeqWrite => {
                let o = self.cursor;
                self.cursor += size;
                if self.cursor + size > self.spec.file_sectors {
                    self.cursor = 0;
                }
                o
            }
            Pattern::RandRead | Pattern::RandWrite => self.rng.gen_range(0..slots) * size,
        };
        self.spec.file_start + offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(pattern: Pattern) -> FlowSpec {
        FlowSpec {
            name: "f".into(),
            pattern,
            request_sectors: 8,
            file_start: 1000,
            file_sectors: 32,
            weight: 100,
            start: 0,
            think: 0,
            outstanding: 2,
            requests: Some(5),
        }
    }

    #[test]
    fn sequential_flows_walk_their_file_and_wrap() {
        let mut f = Flow::new(spec(Pattern::SeqRead), 1, 0);
        let got: Vec<u64> = (0..5).map(|_| f.next_sector()).collect();
        assert_eq!(got, vec![1000, 1008, 1016, 1024, 1000]);
    }

    #[test]
    fn random_flows_stay_aligned_inside_their_file() {
        let mut f = Flow::new(spec(Pattern::RandRead), 1, 0);
        for _ in 0..100 {
            let s = f.next_sector();
            assert!(
                (1000..1032).contains(&s) && (s - 1000).is_multiple_of(8),
                "{s}"
            );
        }
    }

    #[test]
    fn outstanding_and_request_count_limit_issuing() {
        let mut f = Flow::new(spec(Pattern::SeqRead), 1, 0);
        assert!(f.wants_more());
        f.next_sector();
        f.next_sector();
        assert!(!f.wants_more(), "two in flight is the cap");
        f.in_flight = 0;
        f.issued = 5;
        assert!(!f.wants_more(), "five requests is the total");
        f.completed = 5;
        assert!(f.finished());
    }

    #[test]
    fn streams_differ_by_seed_and_by_flow() {
        let draw = |seed, idx| {
            let mut f = Flow::new(spec(Pattern::RandRead), seed, idx);
            (0..8).map(|_| f.next_sector()).collect::<Vec<_>>()
        };
        assert_eq!(draw(1, 0), draw(1, 0));
        assert_ne!(draw(1, 0), draw(2, 0));
        assert_ne!(draw(1, 0), draw(1, 1));
    }
}
