//! Telling a drive that queues commands from the requests seen in flight,
//! as BFQ's code of the time did (`bfq_update_hw_tag`, lines 2224-2247 of
//! the file `config.rs` cites): at each completion it notes the most
//! requests in the driver; once it has seen more than 32 completions with
//! at least 4 requests in the driver or queued, the drive queues if more
//! than 4 were ever in the driver at once, and the count starts again. A
//! drive found to queue stays so; until the first verdict it counts as
//! one that queues (the code's -1).

/// A sample counts only with at least this many requests in the driver or
/// queued (`BFQ_HW_QUEUE_THRESHOLD`); more than this many in the driver at
/// once means the drive queues.
const THRESHOLD: u32 = 4;
/// Valid samples before a verdict (`BFQ_HW_QUEUE_SAMPLES`).
const SAMPLES: u32 = 32;

/// The detection's state.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct HwTag {
    /// None until the first verdict.
    verdict: Option<bool>,
    max_in_driver: u32,
    samples: u32,
}

impl HwTag {
    /// A completion, with `in_driver` requests in the driver (this one
    /// included) and `queued` waiting in the scheduler.
    pub(super) fn sample(&mut self, in_driver: u32, queued: usize) {
        self.max_in_driver = self.max_in_driver.max(in_driver);
        if self.verdict == Some(true) {
            return;
        }
        if u64::from(in_driver) + (queued as u64) < u64::from(THRESHOLD) {
            return;
        }
        self.samples += 1;
        if self.samples <= SAMPLES {
            return;
        }
        self.verdict = Some(self.max_in_driver > THRESHOLD);
        self.max_in_driver = 0;
        self.samples = 0;
    }

    /// Whether the drive counts as one that queues commands.
    pub(super) fn queueing(&self) -> bool {
        self.verdict != Some(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drive_queues_until_the_first_verdict_then_as_seen() {
        let mut h = HwTag::default();
        assert!(h.queueing(), "unknown counts as queueing, as the code's -1");
        // Samples with too little going on do not count.
        for _ in 0..100 {
            h.sample(1, 2);
        }
        assert!(h.queueing());
        // 33 valid samples with at most 4 in the driver: it does not queue.
        for _ in 0..33 {
            h.sample(4, 10);
        }
        assert!(!h.queueing());
        // Five in the driver at once, then 33 more samples: it queues, for
        // good.
        h.sample(5, 0);
        for _ in 0..32 {
            h.sample(1, 10);
        }
        assert!(h.queueing());
        for _ in 0..100 {
            h.sample(1, 10);
        }
        assert!(h.queueing(), "a drive found to queue stays so");
    }
}
