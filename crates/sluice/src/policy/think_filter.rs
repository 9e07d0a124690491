//! The kernel's think-time filter, as CFQ and BFQ both used it: a sample
//! weight `w <- (7 w + 256) / 8` and a mean `(total + 128) / w`, computed on
//! every arrival of a synchronous queue.

/// Where the weight settles (the filter's fixed point in integers, reached
/// after some forty samples).
pub(crate) const SETTLED_WEIGHT: u64 = 249;

/// `(total + 128) / weight`. At the settled weight the divisor is a
/// constant, which the compiler turns into a multiplication: the same
/// quotient without a division on nearly every arrival.
#[inline]
pub(crate) fn filtered_mean(total: u64, weight: u64) -> u64 {
    if weight == SETTLED_WEIGHT {
        (total + 128) / SETTLED_WEIGHT
    } else {
        (total + 128) / weight
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
