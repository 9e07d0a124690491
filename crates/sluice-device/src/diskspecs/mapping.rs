//! DiskSim's parsed blocks mapped onto the drive model: the `disksim_disk`
//! block's controller and buffer figures, the `dm_disk` model's zoned
//! layout (`dm_layout_g1`) and mechanics (`dm_mech_g1`) with its seek curve.

use super::syntax::{Block, Entry, Files, Value};
use crate::hdd::geometry::{Layout, LayoutError, Sparing, SurfaceOrder, Zone};
use crate::hdd::seek::SeekCurve;
use crate::hdd::{CacheSpec, HddSpec, Interface, Overheads, ReadAheadStop};
use crate::{Error, Result};

/// The drive that file `file`'s blocks describe; `files` gives the seek
/// curve file they name.
pub(super) fn drive(file: &str, blocks: &[Block], files: &dyn Files) -> Result<HddSpec> {
    let attached = attachment(blocks);
    let disk = blocks
        .iter()
        .filter(|b| b.ty.eq_ignore_ascii_case("disksim_disk"))
        .find(|b| {
            attached
                .disk
                .is_none_or(|name| b.name.eq_ignore_ascii_case(name))
        })
        .ok_or_else(|| Error::new(file, "no `disksim_disk` block"))?;
    let model = disk.block("Model", "dm_disk")?;
    let layout = layout(model)?;
    let mech = model.block("Mechanical Model", "dm_mech_g1")?;
    let seek = seek_curve(mech, layout.cylinders(), files)?;
    let rpm = mech.req("Rotation speed (in rpms)")?;
    let rpm_value = rpm.num()?;
    if rpm_value <= 0.0 {
        return Err(rpm.err("must be positive".into()));
    }

    let scale = disk.num_or("Time scale for overheads", 1.0)?;
    let pair = |after_read: &str, after_write: &str| -> Result<[f64; 2]> {
        Ok([
            disk.time(after_read)? * scale,
            disk.time(after_write)? * scale,
        ])
    };
    let overheads = Overheads {
        read_hit: pair("Read hit over. after read", "Read hit over. after write")?,
        read_miss: pair("Read miss over. after read", "Read miss over. after write")?,
        write_hit: pair("Write hit over. after read", "Write hit over. after write")?,
        write_miss: pair(
            "Write miss over. after read",
            "Write miss over. after write",
        )?,
    };
    let segment: u64 = disk.count("Segment size (in blks)")?;
    let segments: usize = disk.count("Number of buffer segments")?;
    let caching = disk.int_or("Enable caching in buffer", 1)? != 0;
    let write_segments: u64 = disk.count("Maximum number of write segments")?;
    let read_ahead: u64 = disk.count("Maximum read-ahead (blks)")?;
    // DiskSim's "Buffer continuous read": 0 none, 1 to the track's end, 2
    // to the cylinder's (not modelled: read as 3), 3 the maximum count,
    // 4 DEC's whole-track prefetch.
    let continuous = disk.int_or("Buffer continuous read", 3)?;
    let cache = CacheSpec {
        segments: if caching { segments } else { 0 },
        segment_sectors: segment,
        read_ahead_sectors: if continuous == 0 {
            0
        } else {
            read_ahead.min(segment)
        },
        write_back: disk.req("Fast write level")?.int()? > 0,
        write_buffer_sectors: segment.saturating_mul(write_segments),
        read_ahead_stop: match continuous {
            1 => ReadAheadStop::TrackEnd,
            4 => ReadAheadStop::WholeTrack,
            _ => ReadAheadStop::Count,
        },
    };
    let max_queue: usize = disk.count("Max queue length")?;
    // Per sector across the interface: the slowest of the drive's own
    // figure, the bus it hangs on and a controller between it and the host
    // (DiskSim's `disk_get_blktranstime` and pass-through controller).
    let own = disk.time("Bulk sector transfer time")?;
    let mut bus = [own, own];
    if let Some(b) = attached
        .bus
        .and_then(|n| template(blocks, "disksim_bus", n))
    {
        bus[0] = bus[0].max(b.time_or("Read block transfer time", 0.0)?);
        bus[1] = bus[1].max(b.time_or("Write block transfer time", 0.0)?);
    }
    if let Some(c) = attached
        .ctlr
        .and_then(|n| template(blocks, "disksim_ctlr", n))
    {
        let t = c.time_or("Bulk sector transfer time", 0.0)?;
        bus = bus.map(|x| x.max(t));
    }
    // Watermarks as fractions of the request; as fractions of a segment
    // (by reqsize = 0) they are not modelled and count as none.
    let by_request = disk.int_or("Set watermark by reqsize", 1)? != 0;
    Ok(HddSpec {
        name: if disk.name.is_empty() {
            file.to_string()
        } else {
            disk.name.clone()
        },
        layout,
        seek,
        rpm: rpm_value,
        head_switch_ms: mech.time("Head switch time")?,
        // May be negative (see `Mechanics::write_settle_ns`).
        write_settle_ms: mech.req("Add. write settling delay")?.num()?,
        overheads,
        bus_ms_per_sector: bus[0],
        bus_write_ms_per_sector: bus[1],
        cache,
        max_queue: max_queue.max(1),
        full_stroke_ms: match mech.time_or("Full strobe seek time", 0.0)? {
            t if t > 0.0 => Some(t),
            _ => None,
        },
        interface: Interface {
            completion_ms: [
                disk.time_or("Read completion overhead", 0.0)? * scale,
                disk.time_or("Write completion overhead", 0.0)? * scale,
            ],
            reselect_ms: disk.time_or("First reselect overhead", 0.0)? * scale,
            read_watermark: if by_request {
                disk.num_or("High (read) water mark", 0.0)?.clamp(0.0, 1.0)
            } else {
                0.0
            },
            write_watermark: if by_request {
                disk.num_or("Low (write) water mark", 0.0)?.clamp(0.0, 1.0)
            } else {
                0.0
            },
        },
    })
}

/// What a `.parv` run configuration connects the drive to: the instance
/// names, in its `topology`, of the disk, the bus it hangs on and the
/// controller above that bus. All `None` for a bare `.diskspecs`.
#[derive(Default)]
struct Attachment<'a> {
    disk: Option<&'a str>,
    bus: Option<&'a str>,
    ctlr: Option<&'a str>,
}

/// The template (`instantiate [ .. ] as TEMPLATE`) each instance is made
/// from, for the disk found in the topology.
fn attachment(blocks: &[Block]) -> Attachment<'_> {
    fn walk<'a>(node: &'a Block, path: &mut Vec<&'a Block>) -> Option<Vec<&'a Block>> {
        path.push(node);
        if node.ty.eq_ignore_ascii_case("disksim_disk") {
            return Some(path.clone());
        }
        for e in node.entries() {
            if let Value::Block(child) = &e.value {
                if let Some(p) = walk(child, path) {
                    return Some(p);
                }
            }
        }
        path.pop();
        None
    }
    let instance_of = |name: &str| -> Option<&str> {
        blocks
            .iter()
            .filter(|b| b.ty == "instantiate")
            .find(|b| {
                b.get("names").and_then(|e| e.list().ok()).is_some_and(|l| {
                    l.iter()
                        .any(|(v, _)| matches!(v, Value::Scalar(s) if s.eq_ignore_ascii_case(name)))
                })
            })
            .map(|b| b.name.as_str())
    };
    let Some(path) = blocks
        .iter()
        .filter(|b| b.ty == "topology")
        .flat_map(|b| b.entries())
        .find_map(|e| match &e.value {
            Value::Block(root) => walk(root, &mut Vec::new()),
            _ => None,
        })
    else {
        return Attachment::default();
    };
    let above = |ty: &str| {
        path.iter()
            .rev()
            .skip(1)
            .find(|n| n.ty.eq_ignore_ascii_case(ty))
            .and_then(|n| instance_of(&n.name))
    };
    Attachment {
        disk: path.last().and_then(|n| instance_of(&n.name)),
        bus: above("disksim_bus"),
        ctlr: above("disksim_ctlr"),
    }
}

/// The top-level block of type `ty` named `name`.
fn template<'a>(blocks: &'a [Block], ty: &str, name: &str) -> Option<&'a Block> {
    blocks
        .iter()
        .find(|b| b.ty.eq_ignore_ascii_case(ty) && b.name.eq_ignore_ascii_case(name))
}

/// A skew or offset in sectors: DiskSim truncates sector counts to whole
/// sectors; revolutions are rounded to the nearest sector.
fn sectors(e: &Entry, revolutions: bool, spt: u32) -> Result<u32> {
    let x = e.num()?;
    if x < 0.0 {
        return Err(e.err(format!(
            "negative values (DiskSim's \"compute it\" codes) are not supported ({})",
            sluice::short_number(x)
        )));
    }
    let s = if revolutions {
        (x * f64::from(spt)).round()
    } else {
        x.trunc()
    };
    if s > f64::from(u32::MAX) {
        return Err(e.err(format!("{} is out of range", sluice::short_number(x))));
    }
    Ok(s as u32)
}

fn skew_units(e: Option<&Entry>, default: bool) -> Result<bool> {
    let Some(e) = e else {
        return Ok(default);
    };
    match e.scalar()? {
        s if s.eq_ignore_ascii_case("sectors") => Ok(false),
        s if s.eq_ignore_ascii_case("revolutions") => Ok(true),
        s => Err(e.err(format!("expected `sectors` or `revolutions`, found `{s}`"))),
    }
}

fn layout(model: &Block) -> Result<Layout> {
    let surfaces = model.req("Number of data surfaces")?;
    let heads: u32 = surfaces.count()?;
    if heads == 0 {
        return Err(surfaces.err("must be positive".into()));
    }
    let cyl_entry = model.req("Number of cylinders")?;
    let cylinders: u32 = cyl_entry.count()?;
    let count_entry = model.req("Block count")?;
    let blocks: u64 = count_entry.count()?;
    if blocks == 0 {
        return Err(count_entry.err("must be positive".into()));
    }
    let g1 = model.block("Layout Model", "dm_layout_g1")?;
    let order = match g1.get("LBN-to-PBN mapping scheme") {
        None => SurfaceOrder::Normal,
        Some(e) => SurfaceOrder::from_disksim(e.int()?)
            .ok_or_else(|| e.err("unsupported mapping scheme (0, 1 and 2 are supported)".into()))?,
    };
    let scheme = g1.req("Sparing scheme used")?;
    let range = g1.int_or("Rangesize for sparing", 1)?;
    let sparing =
        Sparing::from_disksim(scheme.int()?, range).ok_or_else(|| match scheme.int() {
            Ok(8) => g1.get("Rangesize for sparing").map_or_else(
                || scheme.err("needs a positive \"Rangesize for sparing\"".into()),
                |e| e.err("must be positive".into()),
            ),
            Ok(s) => scheme.err(format!(
                "unsupported sparing scheme {s} (DiskSim's are 0 to 10)"
            )),
            Err(e) => e,
        })?;
    let revolutions = skew_units(g1.get("Skew units"), false)?;
    let list = g1.req("Zones")?;
    let mut zones = Vec::new();
    let mut places = Vec::new();
    for (value, at) in list.list()? {
        let Value::Block(z) = value else {
            return Err(at.error(
                Some(&list.key),
                "expected a `dm_layout_g1_zone { ... }` block".into(),
            ));
        };
        zones.push(zone(z, revolutions)?);
        places.push(z.at.clone());
    }
    let layout = Layout::with_scheme(heads, zones, sparing, order).map_err(|e| {
        let zone = match e {
            LayoutError::Empty => None,
            LayoutError::BadZone(zone)
            | LayoutError::BadSpares { zone, .. }
            | LayoutError::BadEmptySpace { zone, .. }
            | LayoutError::BadSlip { zone, .. }
            | LayoutError::TooManySlips { zone, .. }
            | LayoutError::BadDefect { zone, .. } => places.get(zone),
        };
        let at = zone.unwrap_or(&list.at);
        at.error(Some(&list.key), e.to_string())
    })?;
    // DiskSim does not check this; one of its own validation drives
    // (hp_c2490a: "Number of cylinders = 2629", last zone ending at
    // cylinder 2629) counts the last cylinder number instead of the
    // cylinders. Accept that, refuse anything further out.
    if layout.cylinders() > cylinders.saturating_add(1) {
        return Err(cyl_entry.err(format!(
            "the zones reach cylinder {}",
            layout.cylinders() - 1
        )));
    }
    // The zones' total is the capacity, whatever "Block count" says, as
    // DiskSim's layout loader has it: hp_c3323a's count (1,743,672) is
    // short of its zones (2,056,008) and of its measured trace's blocks.
    Ok(layout)
}

fn zone(z: &Block, revolutions: bool) -> Result<Zone> {
    let first: u32 = z.count("First cylinder number")?;
    let last: u32 = z.count("Last cylinder number")?;
    let spt_entry = z.req("Blocks per track")?;
    let spt: u32 = spt_entry.count()?;
    if spt == 0 {
        return Err(spt_entry.err("must be positive".into()));
    }
    let revolutions = skew_units(z.get("Skew units"), revolutions)?;
    let track_skew = sectors(z.req("Skew for track switch")?, revolutions, spt)?;
    let cyl_skew = sectors(z.req("Skew for cylinder switch")?, revolutions, spt)?;
    let offset = match z.get("Offset of first block") {
        Some(e) => sectors(e, revolutions, spt)? % spt,
        None => 0,
    };
    let empty: u64 = match z.get("Empty space at zone front") {
        Some(e) => e.count()?,
        None => 0,
    };
    let spares: u32 = match z.get("Number of spares") {
        Some(e) => e.count()?,
        None => 0,
    };
    let slips = match z.get("slips") {
        Some(e) => e.ints()?,
        None => Vec::new(),
    };
    let defects = match z.get("defects") {
        Some(e) => {
            let v = e.ints()?;
            if v.len() % 2 != 0 {
                return Err(
                    e.err("expected pairs `defective sector, spare sector`: odd count".into())
                );
            }
            v.chunks(2).map(|p| (p[0], p[1])).collect()
        }
        None => Vec::new(),
    };
    Ok(Zone::new(first, last, spt, track_skew, cyl_skew)
        .with_offset(offset)
        .with_empty_front(empty)
        .with_spares(spares)
        .with_slips(slips)
        .with_defects(defects))
}

fn seek_curve(mech: &Block, cylinders: u32, files: &dyn Files) -> Result<SeekCurve> {
    let kind = mech.req("Seek type")?;
    let max = cylinders.saturating_sub(1).max(1);
    match kind.scalar()?.to_ascii_lowercase().as_str() {
        "extracted" => {
            let e = mech.req("Full seek curve")?;
            let name = e.scalar()?;
            let (file, text) = files
                .open(&e.at.file, name, sluice_input::Kind::SeekFile)
                .map_err(|m| e.err(format!("cannot read the seek curve: {m}")))?;
            super::parse_seek_curve(&file, &text)
        }
        "curve" => Ok(SeekCurve::lee_from_datasheet(
            mech.time("Single cylinder seek time")?,
            mech.time("Average seek time")?,
            mech.time("Full strobe seek time")?,
            cylinders,
        )),
        "linear" => {
            // Straight lines through the single-cylinder, average (at a
            // third of the stroke) and full-stroke times.
            let mut points = vec![(1, mech.time("Single cylinder seek time")?)];
            for (d, key) in [
                (max / 3, "Average seek time"),
                (max, "Full strobe seek time"),
            ] {
                let t = mech.time(key)?;
                if points.last().is_some_and(|&(p, _)| d > p) {
                    points.push((d, t));
                }
            }
            Ok(SeekCurve::Table(points))
        }
        "constant" => Ok(SeekCurve::Table(vec![(
            1,
            mech.time("Constant seek time")?,
        )])),
        kind @ ("hpl" | "hplplus10") => {
            let e = mech.req("HPL seek equation values")?;
            let v = e.nums(6)?;
            let first10 = if kind == "hplplus10" {
                Some(mech.req("First ten seek times")?.nums(10)?)
            } else {
                None
            };
            Ok(hpl_table(&v, first10.as_deref(), max))
        }
        other => Err(kind.err(format!(
            "unsupported seek type `{other}` (extracted, curve, linear, constant, hpl, hplplus10)"
        ))),
    }
}

/// Ruemmler and Wilkes' seek equation as DiskSim evaluates it, sampled
/// densely enough for linear interpolation: `v[1] + v[2]*sqrt(d)` below the
/// division point `v[0]`, `v[3] + v[4]*d` from it on; `v[5]` (unless -1) is
/// the single-cylinder time; `first10` gives distances 1 to 10.
fn hpl_table(v: &[f64], first10: Option<&[f64]>, max: u32) -> SeekCurve {
    let t = |d: u32| -> f64 {
        let x = f64::from(d);
        let t = match first10 {
            Some(f) if d <= 10 => f[d as usize - 1],
            _ if d == 1 && v[5] != -1.0 => v[5],
            _ if x < v[0] => v[1] + v[2] * x.sqrt(),
            _ => v[3] + v[4] * x,
        };
        t.max(0.0)
    };
    let mut ds: Vec<u32> = (1..=max.min(2048)).collect();
    let mut x = 2048.0f64;
    while x < f64::from(max) {
        x *= 1.002;
        ds.push((x as u32).min(max));
    }
    ds.push(max);
    // Both sides of the division point.
    if v[0] >= 1.0 && v[0] <= f64::from(max) {
        let s = v[0].ceil() as u32;
        ds.extend([s, s.saturating_sub(1).max(1)]);
    }
    ds.sort_unstable();
    ds.dedup();
    let points = ds.into_iter().map(|d| (d, t(d))).collect();
    SeekCurve::Table(points)
}

#[cfg(test)]
mod tests {
    use super::super::embedded;
    use super::super::test_support::*;
    use super::*;

    #[test]
    fn ibm18es_loads_with_its_figures() {
        let s = ibm();
        assert_eq!(s.name, "IBM_DNES-309170W_validate");
        assert_eq!(s.layout.heads(), 5);
        assert_eq!(s.layout.cylinders(), 11474);
        assert_eq!(s.layout.zones().len(), 55);
        assert_eq!(s.layout.sparing(), Sparing::AtEnd);
        assert_eq!(s.rpm, 7200.0);
        assert_eq!(s.bus_ms_per_sector, 0.101);
        assert_eq!((s.cache.segments, s.cache.segment_sectors), (7, 511));
        assert_eq!(s.cache.read_ahead_sectors, 511);
        assert!(s.cache.write_back);
        assert_eq!(s.cache.write_buffer_sectors, 511);
        assert_eq!(s.overheads.read_miss, [0.25229, 0.42386]);
        assert_eq!(s.overheads.read_hit, [0.082, 0.121]);
        assert_eq!(s.overheads.write_hit, [0.083, 0.1852]);
        assert_eq!(s.overheads.write_miss, [0.49386, 0.79329]);
        assert_eq!(s.head_switch_ms, 0.062);
        assert_eq!(s.write_settle_ms, 0.126);
        assert_eq!(s.max_queue, 1);
        let SeekCurve::Table(points) = &s.seek else {
            panic!("extracted seek curve expected");
        };
        assert_eq!(points.len(), 151);
        assert_eq!(points[0], (1, 1.062));
        assert_eq!(points[150], (11377, 12.853));
        let z0 = &s.layout.zones()[0];
        assert_eq!((z0.first_cyl, z0.last_cyl, z0.spt), (0, 256, 390));
        assert_eq!(
            (z0.track_skew, z0.cyl_skew, z0.empty_front),
            (58, 101, 1950)
        );
        assert_eq!(z0.slips, vec![199078, 346029, 384777]);
    }

    #[test]
    fn barracuda_loads_with_its_figures() {
        let s = barracuda();
        assert_eq!(s.layout.heads(), 5);
        assert_eq!(s.layout.cylinders(), 5172);
        assert_eq!(s.layout.sparing(), Sparing::PerRange(6));
        assert_eq!(s.bus_ms_per_sector, 0.134);
        assert_eq!((s.cache.segments, s.cache.segment_sectors), (3, 281));
        assert_eq!(s.overheads.write_hit, [1.01, 0.9291]);
        assert_eq!((s.head_switch_ms, s.write_settle_ms), (0.1, 0.0));
        assert!(matches!(&s.seek, SeekCurve::Table(p) if p.len() == 87));
        assert_eq!(s.layout.zones()[0].spares, 88);
    }

    #[test]
    fn interface_parameters_are_read() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/disksim");
        let hp = crate::diskspecs::load(&dir.join("hp_c2247a.diskspecs")).unwrap();
        assert_eq!(hp.interface.completion_ms, [0.05665, 0.05045]);
        assert_eq!(hp.interface.reselect_ms, 0.16249);
        assert_eq!(
            (hp.interface.read_watermark, hp.interface.write_watermark),
            (0.75, 0.75)
        );
        assert_eq!(hp.cache.read_ahead_stop, ReadAheadStop::Count);
        let atlas = crate::diskspecs::load(&dir.join("atlas_III.diskspecs")).unwrap();
        assert_eq!(atlas.cache.read_ahead_stop, ReadAheadStop::WholeTrack);
        let dec = crate::diskspecs::load(&dir.join("dec_rz26.diskspecs")).unwrap();
        assert_eq!(dec.cache.read_ahead_stop, ReadAheadStop::TrackEnd);
        assert_eq!(atlas.interface.write_watermark, 0.0);
    }

    #[test]
    fn a_parv_adds_the_bus_the_drive_hangs_on() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/disksim");
        let parv = crate::diskspecs::load(&dir.join("hp_c2247a.parv")).unwrap();
        assert_eq!(parv.name, "HP_C2247A_validate");
        // BUS1, between the drive and CTLR0, is slower than the drive's
        // own figure (0): DiskSim takes the slower per direction.
        assert_eq!(parv.bus_ms_per_sector, 0.17010);
        assert_eq!(parv.bus_write_ms_per_sector, 0.18686);
        assert_eq!(parv.layout.sparing(), Sparing::Tracks);
        let bare = crate::diskspecs::load(&dir.join("hp_c2247a.diskspecs")).unwrap();
        assert_eq!(
            (bare.bus_ms_per_sector, bare.bus_write_ms_per_sector),
            (0.0, 0.0)
        );
        assert_eq!(bare.layout, parv.layout);
        // A negative write settle is taken as given.
        let dec = crate::diskspecs::load(&dir.join("dec_rz26.parv")).unwrap();
        assert_eq!(dec.write_settle_ms, -0.483);
        assert_eq!(dec.bus_ms_per_sector, 0.07069);
    }

    #[test]
    fn data_file_layouts_hold_what_their_zones_hold() {
        // DiskSim ignores "Block count" (17,916,240; 4,110,000; 1,743,672)
        // and takes the zones' total.
        let (i, b) = (ibm(), barracuda());
        assert_eq!(i.layout.capacity(), 18_033_753);
        assert_eq!(b.layout.capacity(), 4_217_670);
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/disksim");
        let hp = crate::diskspecs::load(&dir.join("hp_c3323a.parv")).unwrap();
        assert_eq!(hp.layout.capacity(), 2_056_008);
    }

    #[test]
    fn ibm18es_first_cylinder_is_empty_space() {
        // "Empty space at zone front = 1950" = the 5 tracks of cylinder 0.
        let l = ibm().layout;
        let a = l.locate(0);
        // Cylinder 1: 4 head switches of 58 and one cylinder switch of 101.
        assert_eq!((a.cyl, a.head, a.slot, a.left_on_track), (1, 0, 333, 390));
    }

    #[test]
    fn ibm18es_slips_shift_the_rest_of_their_zone() {
        let l = ibm().layout;
        // Zone 0's first slip is physical sector 199078: logical 197128
        // would sit there (1950 empty slots before it), so the run before
        // it ends, and logical 197128 moves to sector 199079.
        let p = 199_078u64;
        let (track, sector) = (p / 390, p % 390);
        let before = l.locate(197_127);
        assert_eq!(before.left_on_track, 1);
        assert_eq!(u64::from(before.cyl), track / 5);
        let after = l.locate(197_128);
        assert_eq!(after.slot, (before.slot + 2) % 390);
        assert_eq!(u64::from(after.left_on_track), 390 - (sector + 1));
        // Zone 1 (cylinders 258-377) is not shifted: cylinder 257 is in no
        // zone.
        let z1 = &l.zones()[1];
        assert_eq!(z1.first_lbn, 257 * 5 * 390 - 1950 - 3);
        let a = l.locate(z1.first_lbn);
        assert_eq!((a.cyl, a.head, a.slot), (258, 0, 0));
        assert_eq!(l.locate(z1.first_lbn - 1).cyl, 256);
    }

    #[test]
    fn barracuda_ranges_end_in_spares() {
        let l = barracuda().layout;
        // Zone 0: ranges of 6 cylinders of 5 x 186 sectors, 88 spares each.
        let per_range = 6 * 5 * 186 - 88;
        let last = l.locate(per_range - 1);
        assert_eq!((last.cyl, last.head, last.left_on_track), (5, 4, 1));
        assert_eq!(last.slot, (24 * 37 + 5 * 52 + 97) % 186);
        let next = l.locate(per_range);
        assert_eq!((next.cyl, next.head), (6, 0));
        // Slip 112508 is in range 20 (sectors 111600..), offset 908.
        let lbn = 20 * per_range + 908;
        assert_eq!(l.locate(lbn - 1).left_on_track, 1);
        let a = l.locate(lbn);
        assert_eq!(a.slot, (l.locate(lbn - 1).slot + 2) % 186);
    }

    #[test]
    fn missing_required_parameters_are_named() {
        for key in [
            "Bulk sector transfer time",
            "Max queue length",
            "Read miss over. after write",
            "Segment size (in blks)",
        ] {
            let text: String = ibm_text()
                .lines()
                .filter(|l| !l.contains(key))
                .collect::<Vec<_>>()
                .join("\n");
            let e = parse_with(&text, &[]).unwrap_err();
            assert_eq!(e.key.as_deref(), Some(key), "{e}");
            assert_eq!(e.line, Some(1), "{e}");
        }
    }

    #[test]
    fn bad_model_values_are_errors() {
        let model = embedded("ibm18es.model").unwrap();
        let cases: &[(&str, &str, &str)] = &[
            (
                "Sparing scheme used = 7",
                "Sparing scheme used = 11",
                "unsupported sparing scheme 11",
            ),
            (
                "Number of data surfaces = 5",
                "Number of data surfaces = 0",
                "must be positive",
            ),
            (
                "Number of cylinders = 11474",
                "Number of cylinders = 100",
                "the zones reach",
            ),
            (
                "Blocks per track = 390",
                "Blocks per track = -390",
                "out of range",
            ),
            (
                "Last cylinder number = 256",
                "Last cylinder number = 300",
                "must ascend",
            ),
            (
                "slips = [\n               199078",
                "slips = [\n               99999999",
                "outside",
            ),
            ("defects = []", "defects = [1]", "odd count"),
            (
                "Seek type = extracted",
                "Seek type = magic",
                "unsupported seek type",
            ),
            (
                "Full seek curve = ibm18es.seek",
                "Full seek curve = none.seek",
                "cannot read",
            ),
            (
                "Skew for track switch = 58.000000",
                "Skew for track switch = -1",
                "not supported",
            ),
        ];
        for (from, to, want) in cases {
            assert!(model.contains(from), "{from}");
            let m = model.replacen(from, to, 1);
            let e = parse_with(ibm_text(), &[("ibm18es.model", &m)]).unwrap_err();
            assert!(e.to_string().contains(want), "{to}: {e}");
            assert!(e.line.is_some(), "{e}");
        }
    }

    #[test]
    fn formula_seek_types() {
        let model = embedded("ibm18es.model").unwrap();
        let with = |seek: &str| {
            let m = model.replace(
                "Seek type = extracted,",
                &format!("Seek type = {seek},\nAverage seek time = 6.0,\nConstant seek time = 3.0,\nHPL seek equation values = [ 600, 1.5, 0.2, 4.0, 0.0007, 1.1 ],\nFirst ten seek times = [1,2,3,4,5,6,7,8,9,10],"),
            );
            parse_with(ibm_text(), &[("ibm18es.model", &m)])
                .unwrap()
                .seek
        };
        let curve = with("curve");
        assert!((curve.ms(1) - 1.086).abs() < 1e-9);
        assert!((curve.ms(11474) - 12.742).abs() < 0.01);
        let linear = with("linear");
        assert_eq!(linear.ms(1), 1.086);
        assert_eq!(linear.ms(11473), 12.742);
        assert_eq!(with("constant").ms(5000), 3.0);
        let hpl = with("hpl");
        assert_eq!(hpl.ms(1), 1.1);
        assert!((hpl.ms(400) - (1.5 + 0.2 * 20.0)).abs() < 1e-9);
        assert!((hpl.ms(9000) - (4.0 + 0.0007 * 9000.0)).abs() < 0.01);
        assert_eq!(with("hplplus10").ms(7), 7.0);
    }
}
