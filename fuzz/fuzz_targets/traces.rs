//! Any text as a request trace in every format, a DiskSim validation trace
//! and a start-up trace: an error or records, never a panic; accepted
//! validation traces are replayed.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluice_sim::device::presets;
use sluice_sim::validate::{parse_trace, validate};
use sluice_workload::startup::StartupTrace;
use sluice_workload::trace::{Format, Trace};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for (_, format) in Format::ALL {
        let _ = Trace::parse("t", text, format);
    }
    let _ = sluice_input::lines(text).count();
    let _ = StartupTrace::parse("t", "t.trace", text);
    if let Ok(t) = parse_trace("t", text) {
        if t.len() <= 1000 {
            if let Some(m) = presets::preset("ssd-sata") {
                let _ = validate("fuzz", &m, &t);
            }
        }
    }
});
