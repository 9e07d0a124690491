//! Built-in drive models by name. Every number says where it comes from;
//! "assumed" marks a value no source gives, chosen as typical for the
//! drive's class, and the docs list them.

use super::hdd::geometry::{Layout, Zone};
use super::hdd::seek::SeekCurve;
use super::hdd::{CacheSpec, HddSpec, Overheads};

/// A preset's name and one-line description, for `sluice list`.
#[derive(Clone, Copy, Debug)]
pub struct PresetInfo {
    pub name: &'static str,
    pub summary: &'static str,
}

/// The presets this build provides.
pub const PRESETS: &[PresetInfo] = &[PresetInfo {
    name: "maxtor-stm332061",
    summary:
        "320 GB, 7200 rpm, 89 MB/s outer zone, 55 MB/s inner, no NCQ (BFQ paper, third system)",
}];

/// Look a preset up by name.
pub fn preset(name: &str) -> Option<HddSpec> {
    match name {
        "maxtor-stm332061" => Some(maxtor_stm332061()),
        _ => None,
    }
}

/// Zoned layout from datasheet-level figures: `zones` zones of equal
/// cylinder count whose sustained rates fall linearly from `outer_mb_s` to
/// `inner_mb_s` (recording density is constant, so sectors per track grow
/// with the radius). Each track switch costs `switch_ms` (head switch or
/// one-cylinder seek, whichever the skew must hide); sectors per track are
/// chosen so that reading track after track, skews included, gives the
/// stated rate: rate = spt * 512 B / (revolution + switch).
pub fn zoned_layout(
    capacity: u64,
    heads: u32,
    zones: u32,
    rpm: f64,
    outer_mb_s: f64,
    inner_mb_s: f64,
    switch_ms: f64,
) -> Layout {
    let rev_ms = 60_000.0 / rpm;
    let spts: Vec<u32> = (0..zones)
        .map(|z| {
            let f = f64::from(z) / f64::from((zones - 1).max(1));
            let rate = outer_mb_s + (inner_mb_s - outer_mb_s) * f;
            (rate * 1e6 * (rev_ms + switch_ms) / 1e3 / 512.0).round() as u32
        })
        .collect();
    let per_cyl: u64 = spts.iter().map(|&s| u64::from(s) * u64::from(heads)).sum();
    let cyl_per_zone = capacity.div_ceil(per_cyl) as u32;
    let zs = spts
        .iter()
        .enumerate()
        .map(|(i, &spt)| {
            let skew = (switch_ms / rev_ms * f64::from(spt)).ceil() as u32;
            let first = i as u32 * cyl_per_zone;
            Zone::new(first, first + cyl_per_zone - 1, spt, skew, skew)
        })
        .collect();
    Layout::new(heads, zs).expect("preset layouts are valid")
}

/// Full-stroke seek time for a datasheet that gives only track-to-track and
/// average: (full - t2t) = 1.96 (average - t2t), the ratio measured on the
/// extracted seek curves of the two real drives in DiskSim's validation set
/// (IBM DNES-309170W: 1.92; Seagate ST32171W: 2.00, with the average taken
/// as the mean over uniformly random seeks).
pub fn full_stroke_from_average(track_to_track: f64, average: f64) -> f64 {
    track_to_track + 1.96 * (average - track_to_track)
}

/// Maxtor (Seagate) DiamondMax STM332061 series, 320 GB: the third system of
/// the BFQ paper ("Improving Application Responsiveness with the BFQ Disk
/// I/O Scheduler", Table 1), on which its throughput and start-up results
/// were measured.
fn maxtor_stm332061() -> HddSpec {
    // 320 GB (Table 1) = 625,142,448 sectors, the IDEMA LBA count for 320 GB.
    let capacity = 625_142_448;
    // 7200 rpm: the drive family's datasheet.
    let rpm = 7200.0;
    // One 320 GB platter, two surfaces (the family's areal density): assumed.
    let heads = 2;
    // 89 MB/s read peak rate (Table 1); the peak falls to 55 MB/s in the
    // inner zone (the paper's discussion of its peak-rate estimator).
    let (outer, inner) = (89.0, 55.0);
    // Seek: 8.5 ms average read seek (family datasheet); 0.8 ms
    // track-to-track assumed, typical of 7200 rpm desktop drives of 2008.
    let (t2t, avg) = (0.8, 8.5);
    let full = full_stroke_from_average(t2t, avg);
    // Head switch (with settle) 1.0 ms: assumed; the skews hide it.
    let switch_ms = 1.0;
    let layout = zoned_layout(capacity, heads, 16, rpm, outer, inner, switch_ms);
    let seek = SeekCurve::lee_from_datasheet(t2t, avg, full, layout.cylinders());
    HddSpec {
        name: "maxtor-stm332061".into(),
        seek,
        rpm,
        head_switch_ms: switch_ms,
        write_settle_ms: 0.1, // assumed (DiskSim's validated drives: 0.05-0.13)
        // Controller overheads assumed: about half of the 1999 drives in
        // DiskSim's validation set (ibm18es: 0.08 ms hit, 0.25 ms miss).
        overheads: Overheads::uniform(0.05, 0.15),
        // SATA 3 Gb/s: 300 MB/s, 1.7 µs per sector.
        bus_ms_per_sector: 512.0 / 300e6 * 1e3,
        // 16 MB buffer (family datasheet) as 16 segments of 1 MiB, each
        // reading ahead up to a full segment: assumed split.
        cache: CacheSpec {
            segments: 16,
            segment_sectors: 2048,
            read_ahead_sectors: 2048,
        },
        layout,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_preset_exists() {
        for p in PRESETS {
            let spec = preset(p.name).unwrap();
            assert_eq!(spec.name, p.name);
        }
        assert!(preset("no-such-disk").is_none());
    }

    #[test]
    fn stm332061_holds_320_gb() {
        let s = preset("maxtor-stm332061").unwrap();
        let cap = s.layout.capacity();
        assert!(
            (625_142_448..625_142_448 + 16 * 2 * 2000).contains(&cap),
            "{cap}"
        );
    }

    #[test]
    fn zoned_layout_gives_the_stated_sustained_rates() {
        let l = zoned_layout(625_142_448, 2, 16, 7200.0, 89.0, 55.0, 1.0);
        let rate = |z: &Zone| {
            // One track plus its skew per (revolution * (spt + skew) / spt).
            let rev = 60.0 / 7200.0;
            f64::from(z.spt) * 512.0
                / (rev * f64::from(z.spt + z.track_skew) / f64::from(z.spt))
                / 1e6
        };
        let zs = l.zones();
        assert!((rate(&zs[0]) - 89.0).abs() < 1.0, "{}", rate(&zs[0]));
        assert!((rate(zs.last().unwrap()) - 55.0).abs() < 1.0);
    }
}
