//! Where a page lives: the drive's shape (channels x chips x dies x planes
//! x blocks x pages), a flat plane index, and the static plane allocation
//! schemes that decide which plane a logical page goes to.

use crate::mqsim::{PlaneAllocation, SsdConfig};

/// The drive's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Flash channels.
    pub channels: u32,
    /// Chips on each channel.
    pub chips: u32,
    /// Dies in each chip.
    pub dies: u32,
    /// Planes in each die.
    pub planes: u32,
    /// Blocks in each plane.
    pub blocks: u32,
    /// Pages in each block.
    pub pages: u32,
    /// Sectors (512 bytes) in a page.
    pub page_sectors: u32,
}

impl Geometry {
    /// The shape an MQSim configuration gives.
    pub fn of(config: &SsdConfig) -> Self {
        Geometry {
            channels: config.device.flash_channel_count.max(1),
            chips: config.device.chip_no_per_channel.max(1),
            dies: config.flash.die_no_per_chip.max(1),
            planes: config.flash.plane_no_per_die.max(1),
            blocks: config.flash.block_no_per_plane.max(1),
            pages: config.flash.page_no_per_block.max(1),
            page_sectors: (config.flash.page_capacity / crate::mqsim::SECTOR_BYTES).clamp(1, 64),
        }
    }

    /// Planes in the drive.
    pub fn plane_count(&self) -> usize {
        (self.channels * self.chips * self.dies * self.planes) as usize
    }

    /// Chips in the drive.
    pub fn chip_count(&self) -> usize {
        (self.channels * self.chips) as usize
    }

    /// The flat index of a plane.
    pub fn plane_index(&self, at: Place) -> usize {
        (((at.channel * self.chips + at.chip) * self.dies + at.die) * self.planes + at.plane)
            as usize
    }

    /// The flat index of the chip holding plane `plane`.
    pub fn chip_of_plane(&self, plane: usize) -> usize {
        plane / (self.dies * self.planes) as usize
    }

    /// The die (within its chip) holding plane `plane`.
    pub fn die_of_plane(&self, plane: usize) -> u32 {
        (plane as u32 / self.planes) % self.dies
    }

    /// The plane (within its die) of flat plane `plane`.
    pub fn plane_in_die(&self, plane: usize) -> u32 {
        plane as u32 % self.planes
    }

    /// The channel of flat chip index `chip`.
    pub fn channel_of_chip(&self, chip: usize) -> usize {
        chip / self.chips as usize
    }
}

/// A plane's coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Place {
    /// Channel.
    pub channel: u32,
    /// Chip on the channel.
    pub chip: u32,
    /// Die in the chip.
    pub die: u32,
    /// Plane in the die.
    pub plane: u32,
}

/// The resources a flow's pages are spread over, and the order of the
/// spreading: MQSim's per-flow address mapping domain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Domain {
    /// Channel ids the flow uses.
    pub channels: Vec<u32>,
    /// Chip ids.
    pub chips: Vec<u32>,
    /// Die ids.
    pub dies: Vec<u32>,
    /// Plane ids.
    pub planes: Vec<u32>,
    /// The scheme's letters, fastest-varying first: `C` channel, `W` way
    /// (chip), `D` die, `P` plane.
    order: [u8; 4],
}

impl Domain {
    /// A domain over the given ids (empty: every one of the drive's) with
    /// allocation `scheme`.
    pub fn new(geometry: &Geometry, scheme: PlaneAllocation, ids: [&[u32]; 4]) -> Domain {
        let pick = |given: &[u32], n: u32| -> Vec<u32> {
            let kept: Vec<u32> = given.iter().copied().filter(|&i| i < n).collect();
            if kept.is_empty() {
                (0..n).collect()
            } else {
                kept
            }
        };
        let name = scheme.name().as_bytes();
        let mut order = *b"CWDP";
        if name.len() == 4 {
            order.copy_from_slice(name);
        }
        Domain {
            channels: pick(ids[0], geometry.channels),
            chips: pick(ids[1], geometry.chips),
            dies: pick(ids[2], geometry.dies),
            planes: pick(ids[3], geometry.planes),
            order,
        }
    }

    /// The plane logical page `lpa` of this domain goes to: a mixed-radix
    /// digit per resource, the scheme's first letter varying fastest (as
    /// every static scheme of MQSim's `Address_Mapping_Unit_Page_Level`
    /// does).
    pub fn place(&self, lpa: u64) -> Place {
        let mut rest = lpa;
        let mut at = Place::default();
        for letter in self.order {
            let ids = match letter {
                b'C' => &self.channels,
                b'W' => &self.chips,
                b'D' => &self.dies,
                _ => &self.planes,
            };
            let n = ids.len().max(1) as u64;
            let id = ids[(rest % n) as usize];
            rest /= n;
            match letter {
                b'C' => at.channel = id,
                b'W' => at.chip = id,
                b'D' => at.die = id,
                _ => at.plane = id,
            }
        }
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geo() -> Geometry {
        Geometry {
            channels: 8,
            chips: 4,
            dies: 2,
            planes: 2,
            blocks: 16,
            pages: 8,
            page_sectors: 16,
        }
    }

    #[test]
    fn cwdp_stripes_channels_first_then_chips_dies_planes() {
        let d = Domain::new(&geo(), PlaneAllocation::Cwdp, [&[], &[0, 1], &[], &[]]);
        assert_eq!(
            d.place(0),
            Place {
                channel: 0,
                chip: 0,
                die: 0,
                plane: 0
            }
        );
        assert_eq!(d.place(7).channel, 7);
        assert_eq!(
            d.place(8),
            Place {
                channel: 0,
                chip: 1,
                die: 0,
                plane: 0
            }
        );
        assert_eq!(
            d.place(16),
            Place {
                channel: 0,
                chip: 0,
                die: 1,
                plane: 0
            }
        );
        assert_eq!(
            d.place(32),
            Place {
                channel: 0,
                chip: 0,
                die: 0,
                plane: 1
            }
        );
        assert_eq!(d.place(64), d.place(0));
    }

    #[test]
    fn way_first_schemes_vary_the_chip_fastest() {
        let d = Domain::new(&geo(), PlaneAllocation::Wcdp, [&[], &[], &[], &[]]);
        assert_eq!(
            d.place(1),
            Place {
                channel: 0,
                chip: 1,
                die: 0,
                plane: 0
            }
        );
        assert_eq!(
            d.place(4),
            Place {
                channel: 1,
                chip: 0,
                die: 0,
                plane: 0
            }
        );
    }

    #[test]
    fn ids_outside_the_drive_are_dropped() {
        let d = Domain::new(&geo(), PlaneAllocation::Cwdp, [&[9, 1], &[7], &[], &[]]);
        assert_eq!(d.channels, vec![1]);
        assert_eq!(d.chips, vec![0, 1, 2, 3]);
    }

    #[test]
    fn flat_indices_round_trip() {
        let g = geo();
        let at = Place {
            channel: 3,
            chip: 2,
            die: 1,
            plane: 1,
        };
        let p = g.plane_index(at);
        assert_eq!(g.chip_of_plane(p), 3 * 4 + 2);
        assert_eq!(g.die_of_plane(p), 1);
        assert_eq!(g.plane_in_die(p), 1);
        assert_eq!(g.channel_of_chip(g.chip_of_plane(p)), 3);
    }
}
