//! Numbers a user gave, as one-line errors quote them back. Rust's `{}`
//! prints an `f64` in full positional form, so `1e300` became a 301-digit
//! line; scientific form past ordinary magnitudes keeps every error short.

/// `x` as an error message quotes it: positional (`{}`) for 0 and for
/// magnitudes in 1e-6..1e9, scientific (`{:e}`: `1e300`, `-2.5e-12`)
/// beyond; at most about 25 characters either way.
pub fn short_number(x: f64) -> String {
    let magnitude = x.abs();
    if x == 0.0 || !x.is_finite() || (1e-6..1e9).contains(&magnitude) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::short_number;

    #[test]
    fn huge_and_tiny_numbers_are_quoted_in_scientific_form() {
        assert_eq!(short_number(1e300), "1e300");
        assert_eq!(short_number(-1e-300), "-1e-300");
        assert_eq!(short_number(f64::MAX), "1.7976931348623157e308");
        assert_eq!(short_number(5e-324), "5e-324");
        assert_eq!(short_number(1e9), "1e9");
        for x in [
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            1.234_567_890_123_456_7e-7,
        ] {
            assert!(short_number(x).len() <= 25, "{}", short_number(x));
        }
    }

    #[test]
    fn ordinary_numbers_are_quoted_as_written() {
        assert_eq!(short_number(0.0), "0");
        assert_eq!(short_number(-0.5), "-0.5");
        assert_eq!(short_number(1000.0), "1000");
        assert_eq!(short_number(999_999_999.5), "999999999.5");
        assert_eq!(short_number(0.000001), "0.000001");
        assert_eq!(short_number(f64::NAN), "NaN");
        assert_eq!(short_number(f64::NEG_INFINITY), "-inf");
    }
}
