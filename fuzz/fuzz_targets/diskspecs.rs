//! Any text as a DiskSim drive description (the `.diskspecs`, the `.model`
//! it sources, the seek curve and any other file it sources, which may
//! source itself, split at NUL bytes): an error or a drive, never a panic
//! (nor a stack overflow, nor an include blow-up); an accepted drive
//! replays a short trace.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluice_sim::device::{diskspecs, Model};
use sluice_sim::validate::{parse_trace, validate};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut parts = text.splitn(4, '\0');
    let specs = parts.next().unwrap_or("");
    let model = parts.next().unwrap_or("").to_string();
    let seek = parts.next().unwrap_or("").to_string();
    let other = parts.next().map(str::to_string);
    let drive = diskspecs::parse_str("f.diskspecs", specs, |name| match name {
        n if n.ends_with(".model") => Some(model.clone()),
        n if n.ends_with(".seek") => Some(seek.clone()),
        _ => other.clone(),
    });
    if let Ok(spec) = drive {
        let m = Model::Hdd(spec);
        let cap = m.capacity().max(1);
        let trace: String = (0..16u64)
            .map(|i| format!("R Hit {} 8 1000 {}\n", (i * 7_919_993) % cap, i * 100))
            .collect();
        if let Ok(t) = parse_trace("t", &trace) {
            let _ = validate("fuzz", &m, &t);
        }
    }
});
