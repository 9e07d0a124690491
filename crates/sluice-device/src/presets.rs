//! Built-in drive models by name. Every number says where it comes from;
//! "assumed" marks a value no source gives, chosen as typical for the
//! drive's class, and the docs list them.

use sluice::Duration;

use super::hdd::geometry::{Layout, Zone};
use super::hdd::seek::SeekCurve;
use super::hdd::{CacheSpec, HddSpec, Overheads};
use super::ssd::SsdSpec;
use super::Model;

/// A preset's name and one-line description, for `sluice list`.
#[derive(Clone, Copy, Debug)]
pub struct PresetInfo {
    /// The name a scenario's `[device] preset` gives.
    pub name: &'static str,
    /// What drive it models, in one line.
    pub summary: &'static str,
}

/// The presets this build provides.
pub const PRESETS: &[PresetInfo] = &[
    PresetInfo {
        name: "ibm-dnes-309170w",
        summary:
            "IBM Ultrastar 18ES 9.1 GB, 7200 rpm: DiskSim's validated description (Nam-Park's disk)",
    },
    PresetInfo {
        name: "seagate-st32171w",
        summary: "Seagate Barracuda ST32171W 2.1 GB, 7200 rpm: DiskSim's validated description",
    },
    PresetInfo {
        name: "maxtor-6l080l0",
        summary: "82 GB, 7200 rpm, 55 MB/s outer zone, no NCQ (BFQ paper, first system)",
    },
    PresetInfo {
        name: "maxtor-7l250s0",
        summary: "250 GB, 7200 rpm, 61 MB/s outer zone, NCQ depth 32 (BFQ paper, second system)",
    },
    PresetInfo {
        name: "maxtor-stm332061",
        summary:
            "320 GB, 7200 rpm, 89 MB/s outer zone, 55 MB/s inner, no NCQ (BFQ paper, third system)",
    },
    PresetInfo {
        name: "wd-raptor-150",
        summary: "WD Raptor 150 GB, 10,000 rpm SATA, NCQ depth 32 (VIOS paper's disk)",
    },
    PresetInfo {
        name: "seagate-st39173w",
        summary: "Seagate Barracuda 9LP 9.1 GB, 7200 rpm wide SCSI, TCQ (YFQ paper's disk)",
    },
    PresetInfo {
        name: "ssd-sata",
        summary:
            "generic SATA SSD: 8 channels x 4 dies, 4 KiB pages, 50 us read, 500 us program, NCQ 32",
    },
    PresetInfo {
        name: "mqsim-fast18",
        summary: "MQSim's FAST'18 NVMe SSD: 512 GiB MLC, 8 channels x 4 chips x 2 dies x 2 planes, queue fetch 512",
    },
    PresetInfo {
        name: "mqsim-fast18-qfs16",
        summary: "MQSim's FAST'18 NVMe SSD with a queue fetch size of 16",
    },
    PresetInfo {
        name: "mqsim-fast18-qfs1024",
        summary: "MQSim's FAST'18 NVMe SSD with a queue fetch size of 1024",
    },
    PresetInfo {
        name: "mqsim-default",
        summary: "MQSim's example ssdconfig.xml: 8 channels x 4 chips, limited mapping table, PRIORITY_OUT_OF_ORDER",
    },
];

/// An MQSim configuration shipped with MQSim (`data/mqsim/`, MIT licence)
/// as a flash SSD preset.
fn mqsim_preset(name: &str, text: &str) -> Model {
    let config =
        crate::mqsim::SsdConfig::parse(name, text).expect("shipped MQSim configurations parse");
    Model::Flash(Box::new(crate::flash::FlashSpec::from_mqsim(name, config)))
}

/// A drive given as a preset's name or a DiskSim description's path (how
/// `validate` and the Python package take a drive): the preset first, else
/// the file.
pub fn preset_or_diskspecs(disk: &str) -> crate::Result<Model> {
    if let Some(model) = preset(disk) {
        return Ok(model);
    }
    if names_a_file(disk) {
        return Ok(Model::Hdd(crate::diskspecs::load(disk.as_ref())?));
    }
    Err(crate::Error::new(
        disk,
        "neither a preset (see `sluice list`) nor an existing .diskspecs file",
    ))
}

/// True when `disk`, given where a drive is named, is a DiskSim
/// description's path rather than a preset's name.
pub fn names_a_file(disk: &str) -> bool {
    disk.ends_with(".diskspecs") || std::path::Path::new(disk).exists()
}

/// Look a preset up by name.
pub fn preset(name: &str) -> Option<Model> {
    Some(match name {
        "ibm-dnes-309170w" => Model::Hdd(from_disksim("ibm18es", name, 64)),
        "seagate-st32171w" => Model::Hdd(from_disksim("barracuda", name, 64)),
        "maxtor-6l080l0" => Model::Hdd(maxtor_6l080l0()),
        "maxtor-7l250s0" => Model::Hdd(maxtor_7l250s0()),
        "maxtor-stm332061" => Model::Hdd(maxtor_stm332061()),
        "wd-raptor-150" => Model::Hdd(wd_raptor_150()),
        "seagate-st39173w" => Model::Hdd(seagate_st39173w()),
        "ssd-sata" => Model::Ssd(ssd_sata()),
        "mqsim-fast18" => mqsim_preset(
            name,
            include_str!("../data/mqsim/ssdconfig-backend-contention.xml"),
        ),
        "mqsim-fast18-qfs16" => mqsim_preset(
            name,
            include_str!("../data/mqsim/ssdconfig-queue-fetch-size=16.xml"),
        ),
        "mqsim-fast18-qfs1024" => mqsim_preset(
            name,
            include_str!("../data/mqsim/ssdconfig-queue-fetch-size=1024.xml"),
        ),
        "mqsim-default" => mqsim_preset(name, include_str!("../data/mqsim/ssdconfig.xml")),
        _ => return None,
    })
}

/// A drive from DiskSim's validated descriptions (copied with their
/// licence into `crates/sluice-device/data/disksim/`). The validation runs
/// used a drive queue of 1; the real drives are SCSI with tagged queueing,
/// so the preset allows `max_queue` commands.
fn from_disksim(file: &str, name: &str, max_queue: usize) -> HddSpec {
    let mut spec =
        super::diskspecs::load_embedded(file).expect("embedded DiskSim descriptions parse");
    spec.name = name.to_string();
    spec.max_queue = max_queue;
    spec
}

/// Inner-zone rate as a fraction of the outer zone's, for drives whose
/// datasheet gives only the maximum: 55/89, measured on the STM332061 by the
/// BFQ paper (its note on zoned recording).
const INNER_TO_OUTER: f64 = 55.0 / 89.0;

/// Write settle assumed for datasheet-derived drives (DiskSim's validated
/// drives of 1999: 0.05-0.13 ms).
const DATASHEET_WRITE_SETTLE_MS: f64 = 0.1;

/// The figures a datasheet-derived drive needs.
struct Datasheet {
    name: &'static str,
    capacity: u64,
    rpm: f64,
    heads: u32,
    outer_mb_s: f64,
    inner_mb_s: f64,
    track_to_track_ms: f64,
    average_seek_ms: f64,
    /// The longest track switch (a write's: head switch plus write settle),
    /// which the skews hide.
    switch_ms: f64,
    bus_mb_s: f64,
    buffer_mib: u64,
    max_queue: usize,
}

/// Build a drive from datasheet figures; the parts no datasheet gives
/// (controller overheads, the buffer's split into segments, write settle)
/// are the same assumptions for every such preset, stated here once:
/// overheads 0.05 ms for a cache hit and 0.15 ms for a miss (about half of
/// the 1999 drives in DiskSim's validation set), 0.1 ms write settle (those
/// drives: 0.05-0.13 ms), 16 read segments sharing the buffer, each reading
/// ahead a full segment, and an eighth of the buffer for write-back data.
///
/// `switch_ms` is the longest track switch, a write's, settle included: a
/// drive maker sizes the skews so that neither a sequential read nor a
/// sequential write loses a revolution at a track boundary. A read's head
/// switch is that less the write settle.
fn from_datasheet(d: &Datasheet) -> HddSpec {
    let layout = zoned_layout(
        d.capacity,
        d.heads,
        16,
        d.rpm,
        d.outer_mb_s,
        d.inner_mb_s,
        d.switch_ms,
    );
    let full = full_stroke_from_average(d.track_to_track_ms, d.average_seek_ms);
    let seek = SeekCurve::lee_from_datasheet(
        d.track_to_track_ms,
        d.average_seek_ms,
        full,
        layout.cylinders(),
    );
    let buffer_sectors = d.buffer_mib * 2048;
    HddSpec {
        name: d.name.into(),
        layout,
        seek,
        rpm: d.rpm,
        head_switch_ms: d.switch_ms - DATASHEET_WRITE_SETTLE_MS,
        write_settle_ms: DATASHEET_WRITE_SETTLE_MS,
        overheads: Overheads::uniform(0.05, 0.15),
        bus_ms_per_sector: 512.0 / (d.bus_mb_s * 1e6) * 1e3,
        bus_write_ms_per_sector: 512.0 / (d.bus_mb_s * 1e6) * 1e3,
        cache: CacheSpec {
            segments: 16,
            segment_sectors: (buffer_sectors / 16).max(64),
            read_ahead_sectors: (buffer_sectors / 16).max(64),
            write_back: true,
            write_buffer_sectors: (buffer_sectors / 8).max(64),
            read_ahead_stop: Default::default(),
        },
        max_queue: d.max_queue,
        full_stroke_ms: None,
        interface: Default::default(),
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
    from_datasheet(&Datasheet {
        name: "maxtor-stm332061",
        // 320 GB (Table 1) = 625,142,448 sectors, the IDEMA count for 320 GB.
        capacity: 625_142_448,
        // 7200 rpm: the drive family's datasheet.
        rpm: 7200.0,
        // One 320 GB platter, two surfaces: assumed from the family's density.
        heads: 2,
        // 89 MB/s read peak (Table 1), falling to 55 MB/s in the inner zone
        // (the paper's discussion of its peak-rate estimator).
        outer_mb_s: 89.0,
        inner_mb_s: 55.0,
        // 8.5 ms average read seek (family datasheet); track-to-track
        // assumed, typical of 7200 rpm desktop drives of 2008.
        track_to_track_ms: 0.8,
        average_seek_ms: 8.5,
        // Head switch with settle, hidden by the skews: assumed.
        switch_ms: 1.0,
        // SATA 3 Gb/s.
        bus_mb_s: 300.0,
        // 16 MB buffer (family datasheet).
        buffer_mib: 16,
        // No NCQ (Table 1).
        max_queue: 1,
    })
}

/// Maxtor DiamondMax 10 6L080L0, 82 GB parallel ATA: the BFQ paper's first
/// system (Table 1), used for its video-playback results.
fn maxtor_6l080l0() -> HddSpec {
    from_datasheet(&Datasheet {
        name: "maxtor-6l080l0",
        // 82 GB (Table 1): 160,086,528 sectors, the IDEMA count for 82 GB.
        capacity: 160_086_528,
        rpm: 7200.0,
        // One platter, two surfaces: assumed.
        heads: 2,
        // 55 MB/s read peak (Table 1); inner zone by the STM332061's ratio.
        outer_mb_s: 55.0,
        inner_mb_s: 55.0 * INNER_TO_OUTER,
        // "< 9.0 ms" average seek (family datasheet); track-to-track assumed.
        track_to_track_ms: 0.8,
        average_seek_ms: 9.0,
        switch_ms: 1.0,
        // Ultra ATA/133.
        bus_mb_s: 133.0,
        // 2 MB buffer: the "L0" suffix of Maxtor's model numbers.
        buffer_mib: 2,
        max_queue: 1,
    })
}

/// Maxtor MaXLine III 7L250S0, 250 GB SATA with NCQ: the BFQ paper's second
/// system (Table 1), the one with command queueing.
fn maxtor_7l250s0() -> HddSpec {
    from_datasheet(&Datasheet {
        name: "maxtor-7l250s0",
        // 250 GB (Table 1): 488,397,168 sectors, the IDEMA count for 250 GB.
        capacity: 488_397_168,
        rpm: 7200.0,
        // Two platters, four surfaces: assumed.
        heads: 4,
        // 61 MB/s read peak (Table 1); inner zone by the STM332061's ratio.
        outer_mb_s: 61.0,
        inner_mb_s: 61.0 * INNER_TO_OUTER,
        // "< 9 ms" average seek (family datasheet); track-to-track assumed.
        track_to_track_ms: 0.8,
        average_seek_ms: 9.0,
        switch_ms: 1.0,
        // SATA 1.5 Gb/s.
        bus_mb_s: 150.0,
        // 16 MB buffer (the "S0" suffix and family datasheet).
        buffer_mib: 16,
        // NCQ with 32 tags (SATA NCQ; Table 1 says NCQ-capable).
        max_queue: 32,
    })
}

/// Western Digital Raptor WD1500ADFD, 150 GB, 10,000 rpm SATA: the disk of
/// the VIOS paper ("Virtual I/O Scheduler", §5.1: a 10,000 RPM 150 GB SATA
/// disk).
fn wd_raptor_150() -> HddSpec {
    from_datasheet(&Datasheet {
        name: "wd-raptor-150",
        // 150 GB: 293,046,768 sectors, the IDEMA count for 150 GB.
        capacity: 293_046_768,
        rpm: 10_000.0,
        // Two platters, four surfaces: assumed.
        heads: 4,
        // 84 MB/s maximum sustained (datasheet); inner zone by ratio.
        outer_mb_s: 84.0,
        inner_mb_s: 84.0 * INNER_TO_OUTER,
        // 4.6 ms average read seek (datasheet); track-to-track assumed.
        track_to_track_ms: 0.6,
        average_seek_ms: 4.6,
        switch_ms: 0.8,
        // SATA 1.5 Gb/s.
        bus_mb_s: 150.0,
        // 16 MB buffer (datasheet).
        buffer_mib: 16,
        // NCQ, 32 tags.
        max_queue: 32,
    })
}

/// Seagate Barracuda 9LP ST39173W, 9.1 GB fast wide SCSI: the disk of the
/// YFQ paper ("Disk Scheduling with Quality of Service Guarantees", §3.1).
/// The paper measured 155 Mb/s (19.4 MB/s) for sequential raw reads; that
/// is the outer-zone rate used here.
fn seagate_st39173w() -> HddSpec {
    from_datasheet(&Datasheet {
        name: "seagate-st39173w",
        // 9.1 GB: 17,783,240 sectors (datasheet).
        capacity: 17_783_240,
        rpm: 7200.0,
        // Ten surfaces: assumed (five platters, as the 9LP's 9 GB model).
        heads: 10,
        outer_mb_s: 19.4,
        inner_mb_s: 19.4 * INNER_TO_OUTER,
        // 7.1 ms average read seek, 0.6 ms track-to-track (datasheet).
        track_to_track_ms: 0.6,
        average_seek_ms: 7.1,
        switch_ms: 0.8,
        // Fast wide SCSI: 20 MB/s.
        bus_mb_s: 20.0,
        // 1 MB buffer (datasheet).
        buffer_mib: 1,
        // SCSI tagged queueing; FreeBSD pipelined 4 requests into it.
        max_queue: 64,
    })
}

/// A generic SATA SSD of the MLC era: enough that IOPS scale with the queue
/// depth and writes cost more than reads. All figures assumed, typical of
/// 2010-2012 controllers and NAND datasheets.
fn ssd_sata() -> SsdSpec {
    SsdSpec {
        name: "ssd-sata".into(),
        // 128 GB.
        capacity_sectors: 250_069_680,
        channels: 8,
        dies_per_channel: 4,
        page_sectors: 8,
        // MLC NAND: 50 µs page read, 500 µs program (ONFI-era datasheets).
        read: Duration::from_micros(50),
        program: Duration::from_micros(500),
        // 4 KiB over a 166 MB/s ONFI 2 channel.
        channel_page: Duration::from_micros(25),
        // SATA 3 Gb/s: 300 MB/s.
        link_sector: Duration::from_nanos(1_707),
        overhead: Duration::from_micros(20),
        max_queue: 32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_preset_exists() {
        for p in PRESETS {
            let model = preset(p.name).unwrap();
            assert_eq!(model.name(), p.name);
        }
        assert!(preset("no-such-disk").is_none());
    }

    #[test]
    fn a_drive_is_a_preset_first_then_a_description_file() {
        let by_name = preset_or_diskspecs("maxtor-stm332061").unwrap();
        assert_eq!(by_name.name(), "maxtor-stm332061");
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/data/disksim/atlas10k.diskspecs"
        );
        assert!(matches!(preset_or_diskspecs(path), Ok(Model::Hdd(_))));
        let e = preset_or_diskspecs("no-such-disk").unwrap_err();
        assert_eq!(e.file, "no-such-disk");
        assert!(e.to_string().contains("neither a preset"), "{e}");
        assert!(names_a_file("x.diskspecs") && !names_a_file("no-such-disk"));
    }

    #[test]
    fn the_nam_park_drives_own_full_stroke_is_its_descriptions() {
        // DiskSim's ibm18es.model states "Full strobe seek time = 12.742";
        // its extracted curve ends at 12.853 ms (11,377 cylinders), and
        // the drive has 11,474. Nam and Park's text says 17.742 ms.
        use sluice::CostModel;
        let Some(Model::Hdd(spec)) = preset("ibm-dnes-309170w") else {
            panic!("a disk preset")
        };
        let d = crate::hdd::Hdd::new(&spec, 4, crate::InternalOrder::Fcfs, Duration::ZERO);
        let ms = d.full_stroke_seek().as_nanos() as f64 / 1e6;
        assert!((12.742..=12.9).contains(&ms), "{ms} ms");
    }

    #[test]
    fn stm332061_holds_320_gb() {
        let cap = preset("maxtor-stm332061").unwrap().capacity();
        assert!(
            (625_142_448..625_142_448 + 16 * 2 * 2000).contains(&cap),
            "{cap}"
        );
    }

    /// MB/s of a stream of `sectors`-sized requests from sector 0, one at
    /// a time, on a drive with write-back caching.
    fn streaming_mb_s(name: &str, write: bool, sectors: u32, count: u64) -> f64 {
        use crate::{Command, Device, InternalOrder};
        let Some(Model::Hdd(spec)) = preset(name) else {
            panic!("{name} is a disk preset")
        };
        let mut d = crate::hdd::Hdd::new(&spec, 1, InternalOrder::Fcfs, Duration::ZERO);
        let mut now = sluice::Instant::ZERO;
        for tag in 0..count {
            let lbn = tag * u64::from(sectors);
            d.submit(
                now,
                Command {
                    flow: 0,
                    tag,
                    write,
                    lbn,
                    sectors,
                },
            );
            loop {
                now = d.next_completion().expect("work under way");
                if d.pop_completion(now).is_some() {
                    break;
                }
            }
        }
        (count * u64::from(sectors) * 512) as f64 / now.since_origin().as_secs_f64() / 1e6
    }

    #[test]
    fn a_datasheet_drive_writes_sequentially_at_its_read_rate() {
        // The skews hide a write's track switch and the buffer streams a
        // sequential writer into the media: writes keep up with reads
        // (89 MB/s on the outer zone), 128 KiB at a time, over 40 MB.
        let read = streaming_mb_s("maxtor-stm332061", false, 256, 300);
        let write = streaming_mb_s("maxtor-stm332061", true, 256, 300);
        assert!((86.0..92.0).contains(&read), "read {read:.1} MB/s");
        assert!(
            write > 0.97 * read,
            "write {write:.1} MB/s against read {read:.1}"
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
