//! Any text as Seastar io_tester input (`import seastar`): the job file
//! (YAML), a NUL, the io_properties file (YAML), a NUL, then `--shards`
//! and `--duration` as two numbers. An error or a scenario, never a panic;
//! an import is written as a scenario file, read back and run briefly.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluice_runtime::import::seastar::{import, Options};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parts = sluice_fuzz::parts(text, 3);
    let mut opts = Options::default();
    let mut words = parts[2].split_whitespace();
    if let Some(s) = words.next().and_then(|w| w.parse().ok()) {
        opts.shards = s;
    }
    if let Some(d) = words.next().and_then(|w| w.parse().ok()) {
        opts.duration_s = d;
    }
    if let Ok(imported) = import(parts[0], parts[1], &opts) {
        sluice_fuzz::use_import(imported);
    }
});
