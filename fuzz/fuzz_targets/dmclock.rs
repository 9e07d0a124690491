//! Any text as a dmClock simulator configuration (`import dmclock`): an
//! error or a scenario, never a panic; an import is written as a scenario
//! file, read back and run briefly.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluice_runtime::import::dmclock;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(imported) = dmclock::import(text) {
        sluice_fuzz::use_import(imported);
    }
});
