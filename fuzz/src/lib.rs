//! What every cargo-fuzz target does with an input the parser accepted:
//! run it briefly, so that the simulator and the writers see what the
//! parsers let through. Bounded, so that one input never takes seconds.

use sluice::Duration;
use sluice_runtime::import::Imported;
use sluice_runtime::Scenario;

/// Run `s` for at most `ms` of simulated time, unless it is too large to
/// run quickly (its memory bound is the parsers' business, tested apart).
pub fn run_briefly(mut s: Scenario, ms: u64) {
    let in_flight: u64 = s.flows.iter().map(|f| u64::from(f.outstanding)).sum();
    if s.flows.len() > 256 || in_flight > 16_384 {
        return;
    }
    s.duration = s.duration.min(Duration::from_millis(ms));
    s.warmup = Duration::from_nanos(0);
    let _ = sluice_sim::simulate(&s);
}

/// An importer's result as `sluice import` uses it: written as a scenario
/// file, read back, built and run briefly.
pub fn use_import(imported: Imported) {
    if let Ok(toml) = imported.to_toml("fuzz") {
        let _ = Scenario::parse("imported.toml", &toml);
    }
    if let Ok(s) = imported.scenario.build() {
        run_briefly(s, 100);
    }
}

/// `text` split at NUL bytes into at most `n` parts (missing ones empty).
pub fn parts(text: &str, n: usize) -> Vec<&str> {
    let mut out: Vec<&str> = text.splitn(n, '\0').collect();
    out.resize(n, "");
    out
}
