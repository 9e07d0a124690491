//! Each flow's logical address range, as MQSim's
//! `Logical_Address_Partitioning_Unit.cpp` computes it: a plane shared by
//! k flows gives each of them 1/k of its logical sectors (its sectors less
//! the over-provisioned share, truncated per plane); a flow's range is the
//! sum over the planes its resource lists name, and the ranges are laid
//! end to end in flow order from sector 0. On SATA every flow has every
//! plane (`SSD_Device.cpp`).

use std::collections::HashMap;

use sluice_device::mqsim::{HostInterface, SsdConfig, SECTOR_BYTES};

use crate::error::Result;
use crate::import::fail;

/// The most (flow, plane) pairs counted: MQSim's largest shipped
/// configurations have 128 planes.
const MAX_PAIRS: usize = 1 << 22;

/// A flow's resources: channel, chip, die and plane numbers (sorted, each
/// once, as MQSim's `std::set` keeps them).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Resources {
    pub(super) channels: Vec<u32>,
    pub(super) chips: Vec<u32>,
    pub(super) dies: Vec<u32>,
    pub(super) planes: Vec<u32>,
}

/// A flow's range: first sector and length (MQSim's `start_lha` and
/// `end_lha - start_lha + 1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Range {
    pub(super) start: u64,
    pub(super) sectors: u64,
}

/// Every flow's range, in flow order.
pub(super) fn ranges(config: &SsdConfig, flows: &[Resources]) -> Result<Vec<Range>> {
    let all = |n: u32| (0..n).collect::<Vec<u32>>();
    let d = &config.device;
    let f = &config.flash;
    let sata = d.host_interface == HostInterface::Sata;
    let lists: Vec<Resources> = flows
        .iter()
        .map(|r| {
            if sata {
                Resources {
                    channels: all(d.flash_channel_count),
                    chips: all(d.chip_no_per_channel),
                    dies: all(f.die_no_per_chip),
                    planes: all(f.plane_no_per_die),
                }
            } else {
                r.clone()
            }
        })
        .collect();
    let planes_of =
        |r: &Resources| r.channels.len() * r.chips.len() * r.dies.len() * r.planes.len();
    let pairs: usize = lists
        .iter()
        .map(planes_of)
        .fold(0usize, usize::saturating_add);
    if pairs > MAX_PAIRS {
        return Err(fail(format!(
            "the flows' resource lists name {pairs} (flow, plane) pairs; at most {MAX_PAIRS}"
        )));
    }
    let mut sharing: HashMap<[u32; 4], u32> = HashMap::new();
    for r in &lists {
        for k in planes(r) {
            *sharing.entry(k).or_insert(0) += 1;
        }
    }
    // MQSim multiplies these three in an `unsigned int`.
    let sectors_per_page = f.page_capacity / SECTOR_BYTES;
    let per_plane = u64::from(f.block_no_per_plane)
        * u64::from(f.page_no_per_block)
        * u64::from(sectors_per_page);
    if per_plane > u64::from(u32::MAX) {
        return Err(fail(format!(
            "a plane holds {per_plane} sectors; MQSim counts them in 32 bits"
        )));
    }
    let kept = 1.0 - d.overprovisioning_ratio;
    let mut out = Vec::with_capacity(lists.len());
    let mut next = 0u64;
    for r in &lists {
        let count: u64 = planes(r)
            .map(|k| {
                let share = f64::from(sharing.get(&k).copied().unwrap_or(1));
                (per_plane as f64 * kept * 1.0 / share) as u64
            })
            .sum();
        if count == 0 {
            return Err(fail(
                "a flow gets no logical space (its planes are shared too widely)".to_string(),
            ));
        }
        out.push(Range {
            start: next,
            sectors: count,
        });
        next += count;
    }
    Ok(out)
}

/// The (channel, chip, die, plane) of every plane a flow's lists name.
fn planes(r: &Resources) -> impl Iterator<Item = [u32; 4]> + '_ {
    r.channels.iter().flat_map(move |&c| {
        r.chips.iter().flat_map(move |&h| {
            r.dies
                .iter()
                .flat_map(move |&i| r.planes.iter().map(move |&p| [c, h, i, p]))
        })
    })
}
