//! Any text as `sluice report`'s inputs: up to three sources split at NUL
//! bytes, each a JSON result (any schema, `compare --json`'s arrays) or a
//! request log (CSV: its header, or a first line `csv`). An error or a
//! page, never a panic nor a hang; the page is rendered in memory.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluice_report::{render, Source};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let sources: Vec<Source> = text
        .splitn(3, '\0')
        .enumerate()
        .map(|(i, part)| match part.strip_prefix("csv\n") {
            Some(log) => Source {
                name: format!("log{i}.csv"),
                text: log.to_string(),
            },
            None => Source {
                name: format!("result{i}.json"),
                text: part.to_string(),
            },
        })
        .collect();
    let _ = render(&sources);
});
