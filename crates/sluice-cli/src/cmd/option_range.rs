//! Numeric options, checked in one line. Clap takes `--shards -1` for an
//! unknown flag ("unexpected argument '-1'") and spreads its own range
//! errors over three lines; options declared with
//! `allow_negative_numbers` take any number and are checked here, as
//! scenario keys are ("--shards must be 1..=1024 (got -1)").

use std::fmt::Display;

use anyhow::Result;

/// `got` as a `T` when it lies in `min..=max`; otherwise a one-line error
/// naming `flag`.
pub(crate) fn whole<T>(flag: &str, got: i128, min: T, max: T) -> Result<T>
where
    T: Copy + Display + Into<i128> + TryFrom<i128>,
{
    match T::try_from(got) {
        Ok(v) if (min.into()..=max.into()).contains(&got) => Ok(v),
        _ => anyhow::bail!("{flag} must be {min}..={max} (got {got})"),
    }
}

/// `got` when it is a finite number in `min..=max`; otherwise a one-line
/// error naming `flag` (`unit` after the range, e.g. " seconds").
pub(crate) fn number(flag: &str, got: f64, min: f64, max: f64, unit: &str) -> Result<f64> {
    if got.is_finite() && (min..=max).contains(&got) {
        return Ok(got);
    }
    anyhow::bail!(
        "{flag} must be {}..={}{unit} (got {})",
        sluice::short_number(min),
        sluice::short_number(max),
        sluice::short_number(got)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_range_options_are_one_line_errors() {
        assert_eq!(whole("--shards", 3, 1u32, 1024).unwrap(), 3);
        let e = whole("--shards", -1, 1u32, 1024).unwrap_err().to_string();
        assert_eq!(e, "--shards must be 1..=1024 (got -1)");
        let e = whole("--seed", -1, 0u64, u64::MAX).unwrap_err().to_string();
        assert_eq!(e, "--seed must be 0..=18446744073709551615 (got -1)");
        assert_eq!(
            whole("--seed", i128::from(u64::MAX), 0u64, u64::MAX).unwrap(),
            u64::MAX
        );
        assert_eq!(number("--seconds", 2.0, 0.1, 600.0, "").unwrap(), 2.0);
        let e = number("--duration", -1e300, 0.001, 1e7, " seconds")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "--duration must be 0.001..=10000000 seconds (got -1e300)"
        );
        assert!(number("--seconds", f64::NAN, 0.1, 600.0, "").is_err());
    }
}
