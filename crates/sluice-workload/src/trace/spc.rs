//! SPC traces (the UMass Trace Repository's financial and web-search
//! traces): CSV lines of `ASU,LBA,Size,Opcode,Timestamp[,...]`, the LBA in
//! 512-byte blocks, the size in bytes, the opcode `r` or `w`, the time in
//! seconds. Each application storage unit (ASU) is its own address space:
//! they are laid end to end in ASU order, each as large as the highest
//! block the trace reaches in it.

use std::collections::BTreeMap;

use super::{csv_lines, Raw};
use crate::error::Result;

/// Every request of `text`.
pub(crate) fn parse(file: &str, text: &str) -> Result<Vec<Raw>> {
    let mut out = Vec::new();
    let mut asus = Vec::new();
    for (line, f) in csv_lines(file, text) {
        if f.len() < 5 {
            return Err(line.error(format!(
                "expected ASU,LBA,Size,Opcode,Timestamp; got {} fields",
                f.len()
            )));
        }
        let write = match f[3].trim() {
            "r" | "R" => false,
            "w" | "W" => true,
            other => return Err(line.error(format!("Opcode: expected r or w, got '{other}'"))),
        };
        let asu: u32 = line.number("ASU", f[0])?;
        let lba: u64 = line.number("LBA", f[1])?;
        if lba > i64::MAX as u64 / 512 {
            return Err(line.error(format!("LBA: {lba} is beyond any device")));
        }
        let size: u64 = line.number("Size", f[2])?;
        if size == 0 {
            continue;
        }
        out.push(Raw {
            at_ns: line.seconds("Timestamp", f[4])?,
            sector: lba,
            sectors: line.size_sectors("Size", size)?,
            write,
            line: line.number as u32,
            source: 0,
        });
        asus.push(asu);
    }
    // Each ASU's extent, then their bases end to end.
    let mut extent: BTreeMap<u32, u64> = BTreeMap::new();
    for (r, &a) in out.iter().zip(&asus) {
        let e = extent.entry(a).or_default();
        *e = (*e).max(r.sector.saturating_add(u64::from(r.sectors)));
    }
    let mut base = BTreeMap::new();
    let mut next = 0u64;
    for (&a, &e) in &extent {
        base.insert(a, next);
        next = next.saturating_add(e);
    }
    super::add_bases(file, "ASUs", &mut out, asus.iter().map(|a| base[a]))?;
    Ok(out)
}
