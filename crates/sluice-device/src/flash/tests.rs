//! The flash model driven as MQSim's synthetic flows drive it: each flow
//! keeps a fixed number of requests in the drive, at uniformly random
//! aligned addresses of its working set.

use super::*;
use crate::mqsim::SsdConfig;
use crate::{Command, Device};
use sluice::Instant;

/// A closed-loop flow.
#[derive(Clone, Copy)]
pub(super) struct Closed {
    pub depth: u32,
    pub write: bool,
    pub first: u64,
    pub sectors: u64,
    pub size: u32,
    pub align: u64,
    /// MQSim's `Percentage_of_Hot_Region` / 100 (0: uniform): that share
    /// of the range takes the other share of the requests.
    pub hot: f64,
}

/// Per flow: requests done and mean response time, us.
pub(super) fn run(spec: &FlashSpec, flows: &[Closed], stop_ns: u64, seed: u64) -> Vec<(u64, f64)> {
    run_with(spec, flows, stop_ns, seed).0
}

/// [`run`], with what the drive did. Every request issued completes.
pub(super) fn run_with(
    spec: &FlashSpec,
    flows: &[Closed],
    stop_ns: u64,
    seed: u64,
) -> (Vec<(u64, f64)>, FlashStats) {
    let mut dev = Flash::new(spec, 1 << 20);
    let mut rng = seed;
    let mut next_tag = 0u64;
    let mut issued: Vec<(u32, u64)> = Vec::new(); // tag -> (flow, arrival)
    let mut out = vec![(0u64, 0f64); flows.len()];
    let mut submit =
        |dev: &mut Flash, f: usize, now: u64, rng: &mut u64, issued: &mut Vec<(u32, u64)>| {
            let fl = flows[f];
            *rng = sluice::rng::splitmix(*rng);
            let mut lba = if fl.hot > 0.0 {
                let hot_end = (fl.sectors as f64 * fl.hot) as u64;
                let coin = (*rng >> 11) as f64 / (1u64 << 53) as f64;
                *rng = sluice::rng::splitmix(*rng);
                if coin < fl.hot {
                    fl.first + hot_end + *rng % (fl.sectors - hot_end).max(1)
                } else {
                    fl.first + *rng % hot_end.max(1)
                }
            } else {
                fl.first + *rng % fl.sectors
            };
            lba -= lba % fl.align;
            issued.push((f as u32, now));
            dev.submit(
                Instant::from_nanos(now),
                Command {
                    tag: next_tag,
                    flow: f as u32,
                    write: fl.write,
                    lbn: lba,
                    sectors: fl.size,
                },
            );
            next_tag += 1;
        };
    for (f, fl) in flows.iter().enumerate() {
        for _ in 0..fl.depth {
            submit(&mut dev, f, 1, &mut rng, &mut issued);
        }
    }
    while let Some(t) = dev.next_completion() {
        let now = t.as_nanos();
        while let Some(tag) = dev.pop_completion(t) {
            let (f, arrival) = issued[tag as usize];
            out[f as usize].0 += 1;
            out[f as usize].1 += (now - arrival) as f64 / 1000.0;
            if now <= stop_ns {
                submit(&mut dev, f as usize, now, &mut rng, &mut issued);
            }
        }
    }
    assert_eq!(out.iter().map(|o| o.0).sum::<u64>(), issued.len() as u64);
    let means = out
        .iter()
        .map(|&(n, sum)| (n, sum / n.max(1) as f64))
        .collect();
    (means, dev.stats())
}

pub(super) fn fast18() -> FlashSpec {
    let text = include_str!("../../data/mqsim/fast18-backend.xml");
    FlashSpec::from_mqsim("fast18", SsdConfig::parse("t", text).expect("parses"))
}

#[test]
fn backend_alone_at_depth_two_matches_mqsims_order() {
    let mut spec = fast18();
    spec.streams = vec![StreamSpec {
        chips: vec![0, 1],
        ..StreamSpec::default()
    }];
    let flow = Closed {
        depth: 2,
        write: false,
        first: 0,
        sectors: 15_000_000,
        size: 8,
        align: 16,
        hot: 0.0,
    };
    let r = run(&spec, &[flow], 200_000_000, 1);
    eprintln!("{r:?}");
    assert!(r[0].1 > 80.0 && r[0].1 < 110.0, "{r:?}");
}

/// MQSim's figures for the FAST'18 back-end contention sweep, measured here
/// (`crates/sluice-repro/data/mqsim/mqsim-results.json`): flow 2's queue
/// depth, its response time alone, and both flows' together (us).
const BACKEND: [(u32, f64, f64); 3] = [(2, 92.0, 99.0), (16, 151.0, 161.0), (256, 1585.0, 1597.0)];

#[test]
fn back_end_contention_matches_mqsim_within_ten_percent() {
    let mut spec = fast18();
    let s = StreamSpec {
        chips: vec![0, 1],
        ..StreamSpec::default()
    };
    spec.streams = vec![s.clone(), s];
    let half = 15_600_000u64;
    let f1 = Closed {
        depth: 2,
        write: false,
        first: 0,
        sectors: half / 2,
        size: 8,
        align: 16,
        hot: 0.0,
    };
    for (qd, alone_us, together_us) in BACKEND {
        let f2 = Closed {
            depth: qd,
            write: false,
            first: half,
            sectors: half / 2,
            size: 8,
            align: 16,
            hot: 0.0,
        };
        let alone = run(&spec, &[f2], 300_000_000, 2);
        let both = run(&spec, &[f1, f2], 300_000_000, 3);
        let near = |ours: f64, theirs: f64| (ours / theirs - 1.0).abs() < 0.10;
        assert!(near(alone[0].1, alone_us), "depth {qd} alone: {alone:?}");
        assert!(
            near(both[0].1, together_us),
            "depth {qd} together: {both:?}"
        );
        assert!(
            near(both[1].1, together_us),
            "depth {qd} together: {both:?}"
        );
    }
}

/// The data-cache contention sweep's last scenario: flow 1 writes a small
/// hot set the cache holds (20 us alone), flow 2 writes the whole drive at
/// depth 256; together flow 1 waits behind flow 2's write-backs. MQSim
/// measured here: 20 us alone, 12,216 us flow 2 alone, 12,223 / 12,216 us
/// together.
#[test]
fn data_cache_contention_matches_mqsim_within_ten_percent() {
    let mut spec = fast18();
    let a = StreamSpec {
        channels: vec![0, 1, 2, 3],
        ..StreamSpec::default()
    };
    let b = StreamSpec {
        channels: vec![4, 5, 6, 7],
        first_sector: 31_000_000,
        ..StreamSpec::default()
    };
    spec.streams = vec![a, b];
    let f1 = Closed {
        depth: 8,
        write: true,
        first: 0,
        sectors: 310_000,
        size: 8,
        align: 16,
        hot: 0.01,
    };
    let f2 = Closed {
        depth: 256,
        write: true,
        first: 31_000_000,
        sectors: 31_000_000,
        size: 8,
        align: 16,
        hot: 0.5,
    };
    let mut only2 = spec.clone();
    only2.streams = vec![spec.streams[1].clone()];
    let near = |ours: f64, theirs: f64| (ours / theirs - 1.0).abs() < 0.10;
    let alone1 = run(&spec, &[f1], 300_000_000, 1);
    assert!(near(alone1[0].1, 20.0), "{alone1:?}");
    let alone2 = run(&only2, &[f2], 1_000_000_000, 1);
    assert!(near(alone2[0].1, 12_216.0), "{alone2:?}");
    let both = run(&spec, &[f1, f2], 1_000_000_000, 1);
    assert!(
        near(both[0].1, 12_223.0) && near(both[1].1, 12_216.0),
        "{both:?}"
    );
}

/// With a limited mapping table (MQSim's top-level configuration), a
/// page's first access reads its translation page from flash first: reads
/// over a large range wait for those reads, and later reads of the same
/// pages do not.
#[test]
fn a_cmt_miss_costs_a_translation_read() {
    let text = include_str!("../../data/mqsim/ssdconfig.xml");
    let config = SsdConfig::parse("t", text).expect("parses");
    assert!(!config.device.ideal_mapping_table);
    let spec = FlashSpec::from_mqsim("wsrch", config);
    let ideal = {
        let mut s = spec.clone();
        s.config.device.ideal_mapping_table = true;
        s
    };
    let wide = Closed {
        depth: 4,
        write: false,
        first: 0,
        sectors: 400_000_000,
        size: 8,
        align: 16,
        hot: 0.0,
    };
    let limited = run(&spec, &[wide], 50_000_000, 5);
    let unlimited = run(&ideal, &[wide], 50_000_000, 5);
    assert!(
        limited[0].1 > unlimited[0].1 * 1.3,
        "{limited:?} vs {unlimited:?}"
    );
    let narrow = Closed {
        sectors: 1_600,
        ..wide
    };
    let warm = run(&spec, &[narrow], 50_000_000, 5);
    let warm_ideal = run(&ideal, &[narrow], 50_000_000, 5);
    assert!(
        (warm[0].1 / warm_ideal[0].1 - 1.0).abs() < 0.05,
        "{warm:?} vs {warm_ideal:?}"
    );
}

/// A small drive overwritten at random collects garbage: blocks are
/// erased, valid pages moved, and every request still completes.
#[test]
fn overwriting_a_small_drive_collects_garbage() {
    let mut spec = fast18();
    let d = &mut spec.config.device;
    d.flash_channel_count = 1;
    d.chip_no_per_channel = 1;
    let f = &mut spec.config.flash;
    f.die_no_per_chip = 1;
    f.plane_no_per_die = 1;
    f.block_no_per_plane = 32;
    f.page_no_per_block = 16;
    spec.streams = vec![StreamSpec {
        caching: StreamCaching::TurnedOff,
        ..StreamSpec::default()
    }];
    let logical = spec.capacity_sectors();
    let w = Closed {
        depth: 4,
        write: true,
        first: 0,
        sectors: logical,
        size: 16,
        align: 16,
        hot: 0.0,
    };
    let (done, s) = run_with(&spec, &[w], 3_000_000_000, 9);
    assert!(done[0].0 > 1_000, "{done:?}");
    assert!(s.erases > 0 && s.gc_programs > 0, "{s:?}");
    assert!(s.write_amplification() > 1.0, "{s:?}");
}

/// With preconditioning on, each flow's initial occupancy is written before
/// the run: the pages are mapped (a first read finds them in place) and
/// the free pool is smaller; the counters start at zero.
#[test]
fn preconditioning_fills_each_flows_share() {
    let mut spec = fast18();
    let d = &mut spec.config.device;
    d.flash_channel_count = 1;
    d.chip_no_per_channel = 1;
    spec.config.flash.block_no_per_plane = 64;
    spec.config.flash.page_no_per_block = 32;
    spec.streams = vec![StreamSpec {
        initial_occupancy: 0.5,
        ..StreamSpec::default()
    }];
    let fresh = Flash::new(&spec, 8);
    spec.config.device.enabled_preconditioning = true;
    let filled = Flash::new(&spec, 8);
    let free = |f: &Flash| {
        (0..4)
            .map(|p| f.parts.ftl.blocks.free_blocks(p))
            .sum::<u32>()
    };
    assert!(
        free(&filled) + 100 < free(&fresh),
        "{} vs {}",
        free(&filled),
        free(&fresh)
    );
    assert_eq!(filled.stats().user_programs, 0);
    assert!(filled.parts.ftl.is_mapped(0, 0));
    assert!(!fresh.parts.ftl.is_mapped(0, 0));
}

/// SATA: one native command queue of 32 for the whole drive. Beyond 32
/// outstanding, requests wait in the host, so a flow keeping 128 waits
/// about four times as long as one keeping 32, at the same throughput;
/// NVMe fetches all 128 into the drive and does more.
#[test]
fn sata_holds_at_most_32_commands() {
    let mut sata = fast18();
    sata.config.device.host_interface = crate::mqsim::HostInterface::Sata;
    sata.config.host.sata_processing_delay = 0;
    let flow = |depth| Closed {
        depth,
        write: false,
        first: 0,
        sectors: 20_000_000,
        size: 8,
        align: 16,
        hot: 0.0,
    };
    let q32 = run(&sata, &[flow(32)], 100_000_000, 4);
    let q128 = run(&sata, &[flow(128)], 100_000_000, 4);
    let ratio = q128[0].1 / q32[0].1;
    assert!(ratio > 3.5 && ratio < 4.5, "{q32:?} {q128:?}");
    let nvme = run(&fast18(), &[flow(128)], 100_000_000, 4);
    assert!(
        nvme[0].0 > q128[0].0 && nvme[0].1 < q128[0].1,
        "{nvme:?} vs {q128:?}"
    );
}
