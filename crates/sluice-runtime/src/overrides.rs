//! What `sluice sim --seed --scheduler --timeline` and the Python package's
//! `sluice.sim(seed=, scheduler=, timeline_ms=)` do to a scenario before
//! running it: one definition, so the two front ends cannot drift apart.
//! Errors carry no flag name; each front end names its own option.

use crate::{timeline::MAX_BINS, Error, Result, Scenario};
use sluice::Duration;

/// Replace the scenario's seed and policy. A new policy starts from its
/// default parameters: the scenario's `[scheduler]` keys were another's.
pub fn apply(s: &mut Scenario, seed: Option<u64>, scheduler: Option<&str>) -> Result<()> {
    if let Some(seed) = seed {
        s.seed = seed;
    }
    if let Some(name) = scheduler {
        s.scheduler = name.to_string();
        s.params = Default::default();
        sluice::policy::build(name, &s.params, &sluice::policy::BuildContext::default())?;
    }
    Ok(())
}

/// A timeline of `bin` intervals must fit in `MAX_BINS` over all flows,
/// so a tiny interval fails here rather than exhausting memory.
pub fn check_timeline(s: &Scenario, bin: Duration) -> Result<()> {
    let bins = s.duration.as_nanos().div_ceil(bin.as_nanos().max(1)) + 1;
    let total = bins.saturating_mul(s.flows.len().max(1) as u64);
    if total > MAX_BINS {
        return Err(Error::new(
            "",
            format!(
                "{bins} bins for each of {} flows is more than {MAX_BINS} in all; use a longer interval",
                s.flows.len()
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOML: &str = "name = \"t\"\nseed = 7\nduration_s = 10\n[device]\npreset = \"maxtor-stm332061\"\n[scheduler]\nname = \"bfq\"\n[[flow]]\nname = \"r\"\npattern = \"rand-read\"\n";

    #[test]
    fn seed_and_policy_replace_the_scenarios() {
        let mut s = Scenario::parse("t.toml", TOML).unwrap();
        apply(&mut s, None, None).unwrap();
        assert_eq!((s.seed, s.scheduler.as_str()), (7, "bfq"));
        apply(&mut s, Some(9), Some("noop")).unwrap();
        assert_eq!((s.seed, s.scheduler.as_str()), (9, "noop"));
        let e = apply(&mut s, None, Some("nope")).unwrap_err().to_string();
        assert!(e.contains("unknown policy 'nope'"), "{e}");
    }

    #[test]
    fn a_timeline_too_fine_for_memory_is_an_error() {
        let s = Scenario::parse("t.toml", TOML).unwrap();
        assert!(check_timeline(&s, Duration::from_millis(1)).is_ok());
        let e = check_timeline(&s, Duration::from_nanos(1))
            .unwrap_err()
            .to_string();
        assert!(e.contains("use a longer interval"), "{e}");
    }
}
