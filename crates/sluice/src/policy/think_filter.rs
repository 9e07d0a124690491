//! The kernel's think-time filter, as CFQ and BFQ both used it: a sample
//! weight `w <- (7 w + 256) / 8` and a mean `(total + 128) / w`, computed on
//! every arrival of a synchronous queue.

use crate::time::Duration;

/// Where the weight settles (the filter's fixed point in integers, reached
/// after some forty samples).
const SETTLED_WEIGHT: u64 = 249;

/// `sample_valid`: the weight above which the mean is trusted (from the
/// third sample).
const SAMPLES_VALID: u64 = 80;

/// `(total + 128) / weight`. At the settled weight the divisor is a
/// constant, which the compiler turns into a multiplication: the same
/// quotient without a division on nearly every arrival.
#[inline]
fn filtered_mean(total: u64, weight: u64) -> u64 {
    if weight == SETTLED_WEIGHT {
        (total + 128) / SETTLED_WEIGHT
    } else {
        (total + 128) / weight
    }
}

/// Think time: how long a flow takes to issue a request after its
/// previous one completed, as CFQ's and BFQ's code of the time kept it (a
/// 7/8 filter in fixed point, each sample capped at twice `slice_idle`,
/// trusted after a few samples). Not in the BFQ papers: their code disables
/// the idle window of a queue whose mean think time exceeds `slice_idle`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ThinkTime {
    /// Fixed-point weight of the samples (256 = one full sample).
    samples: u64,
    total: u64,
    /// Mean think time, in nanoseconds.
    mean: u64,
}

impl ThinkTime {
    /// A request arrived `elapsed` after the flow's last completion.
    pub(crate) fn update(&mut self, elapsed: Duration, slice_idle: Duration) {
        let t = elapsed.min(slice_idle.saturating_mul(2)).as_nanos();
        self.samples = (7 * self.samples + 256) / 8;
        self.total = (7 * u128::from(self.total) / 8 + 32 * u128::from(t)) as u64;
        self.mean = filtered_mean(self.total, self.samples);
    }

    /// The mean, once enough samples make it trustworthy (the code's
    /// `sample_valid`: a filtered weight above 80, from the third sample).
    pub(crate) fn mean(&self) -> Option<Duration> {
        (self.samples > SAMPLES_VALID).then_some(Duration::from_nanos(self.mean))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_weight_settles_where_the_constant_says() {
        let mut w = 0u64;
        let mut settled_at = None;
        for i in 0..200 {
            w = (7 * w + 256) / 8;
            if w == SETTLED_WEIGHT && settled_at.is_none() {
                settled_at = Some(i);
            }
        }
        assert_eq!(w, SETTLED_WEIGHT);
        assert!(settled_at.is_some_and(|i| i < 60), "{settled_at:?}");
    }

    #[test]
    fn the_mean_is_the_plain_quotient() {
        for total in [0, 1, 127, 128, 31_999, u64::MAX / 2] {
            for weight in [32, 248, SETTLED_WEIGHT, 250] {
                assert_eq!(filtered_mean(total, weight), (total + 128) / weight);
            }
        }
    }
}
