//! Any text as a scenario file: an error or a scenario, never a panic; an
//! accepted scenario runs for a moment of simulated time without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluice::Duration;
use sluice_runtime::Scenario;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(mut s) = Scenario::parse("fuzz.toml", text) {
        let in_flight: u64 = s.flows.iter().map(|f| u64::from(f.outstanding)).sum();
        if s.flows.len() <= 256 && in_flight <= 16_384 {
            s.duration = s.duration.min(Duration::from_millis(200));
            s.warmup = Duration::from_nanos(0);
            let _ = sluice_sim::simulate(&s);
        }
    }
});
