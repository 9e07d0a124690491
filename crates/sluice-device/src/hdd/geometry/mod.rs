//! Zoned recording layout: logical sector numbers to cylinder, surface and
//! angular position, as DiskSim's `dm_layout_g1` lays them out
//! (`diskmodel/layout_g1.c` and `layout_g1_load.c` of DiskSim 4.0).
//!
//! Within a zone, physical sectors are numbered cylinder by cylinder, each
//! cylinder's tracks in surface order (optionally alternating the surface
//! order from one cylinder to the next), and the sectors of a track in
//! angular order. Logical sectors fill that sequence, except for:
//!
//! * the zone's *empty space at the front* (DiskSim's `deadspace`): the first
//!   so many logical slots of the zone hold no logical sector;
//! * *spare* sectors: the last `spares` sectors of every track, cylinder,
//!   range of cylinders or zone, depending on the [`Sparing`] scheme;
//! * *slips*: defective physical sectors that are skipped, so that the later
//!   logical sectors of the same sparing unit (or, for the slip-to-end
//!   schemes, of the whole zone) shift by one slot;
//! * *defects* that are remapped: the logical sector that would sit on the
//!   defective sector lives on the given spare sector instead.
//!
//! Angular position: sector 0 of the zone's first track sits `offset` slots
//! after the index mark; every head switch within the zone shifts the first
//! sector of the next track by the track skew, every cylinder switch by the
//! cylinder skew (head switches within a cylinder plus one cylinder switch
//! per cylinder, so cylinder `c`, surface `h` of the zone is shifted by
//! `(h + (heads-1)*c) * track_skew + c * cyl_skew`). In some schemes every
//! slip on an earlier track or cylinder of the zone also pushes the layout
//! one sector further.

mod divisors;
mod zone_index;

use self::divisors::{Divisor, ZoneDivisors};
use self::zone_index::ZoneIndex;

/// How a zone reserves spare sectors and what a slipped sector does to the
/// logical sectors after it: DiskSim's "Sparing scheme used".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Sparing {
    /// Scheme 0: no spares; slips and defects are ignored.
    None,
    /// Scheme 1 ("track sparing"): `spares` whole tracks at the end of the
    /// zone. Slips and defects name *tracks* (zone-relative track numbers,
    /// counting the empty space at the front): a slipped track is skipped,
    /// shifting every later track of the zone by one; a defective track
    /// lives on the spare track given with it. Slips do not move the
    /// angular layout. Slips plus defects may not outnumber the spares.
    Tracks,
    /// Scheme 3: `spares` sectors at the end of every track; a slip shifts
    /// the rest of its track into them. Slips on earlier tracks of the zone
    /// push the angular layout one sector each.
    PerTrack,
    /// Scheme 2: `spares` sectors at the end of every cylinder; a slip
    /// shifts the rest of its cylinder into them. Slips on earlier cylinders
    /// push the angular layout one sector each.
    PerCylinder,
    /// Scheme 4: `spares` at the end of every cylinder are never used; a
    /// slip shifts every later logical sector of the zone by one (they fill
    /// the zone's end). Slips on earlier cylinders push the angular layout.
    PerCylinderSlipToEnd,
    /// Scheme 7 ("sectors at end"): a slip shifts every later logical sector
    /// of the zone by one; the zone's last sectors absorb them. DiskSim's
    /// LBN-to-PBN map also keeps `spares` unused sectors at the end of every
    /// cylinder. The default: with no spares and no slips it is the plain
    /// layout.
    #[default]
    AtEnd,
    /// Scheme 8: `spares` sectors at the end of every range of this many
    /// cylinders (a final partial range has none); a slip shifts the rest of
    /// its range into them.
    PerRange(u32),
    /// Scheme 9: `spares` sectors at the end of the zone; a slip shifts the
    /// rest of the zone into them.
    PerZone,
    /// Scheme 10: `spares` sectors at the end of the zone are never used; a
    /// slip shifts the rest of the zone (capacity drops by one per slip).
    PerZoneSlipToEnd,
}

impl Sparing {
    /// DiskSim's scheme number (0 to 10) and "Rangesize for sparing".
    ///
    /// Schemes 5 and 6 ("spares at the front of every cylinder", without
    /// and with slip-to-end) are DiskSim's schemes 2 and 4 as far as
    /// where logical sectors go: DiskSim 4.0's LBN-to-PBN map
    /// (`g1_ltop_sectpercylspare`) and its skew computation treat them
    /// exactly alike, the front placement shows only in its inverse
    /// (physical-to-logical) map, which a simulation never uses to time an
    /// access. The model follows the map DiskSim times accesses with.
    pub fn from_disksim(scheme: i64, rangesize: i64) -> Option<Self> {
        Some(match scheme {
            0 => Sparing::None,
            1 => Sparing::Tracks,
            2 | 5 => Sparing::PerCylinder,
            3 => Sparing::PerTrack,
            4 | 6 => Sparing::PerCylinderSlipToEnd,
            7 => Sparing::AtEnd,
            8 => Sparing::PerRange(u32::try_from(rangesize).ok().filter(|&r| r > 0)?),
            9 => Sparing::PerZone,
            10 => Sparing::PerZoneSlipToEnd,
            _ => return None,
        })
    }

    /// Slips shift the rest of the zone rather than the rest of their unit.
    fn slips_to_end(self) -> bool {
        matches!(
            self,
            Sparing::PerCylinderSlipToEnd | Sparing::AtEnd | Sparing::PerZoneSlipToEnd
        )
    }
}

/// The order of a cylinder's surfaces: DiskSim's "LBN-to-PBN mapping scheme".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SurfaceOrder {
    /// 0: every cylinder from surface 0 up.
    #[default]
    Normal,
    /// 1: odd cylinders of a zone (counting from the zone's first) run from
    /// the last surface down, so that a cylinder switch stays on a surface.
    AlternateInZone,
    /// 2: odd-numbered cylinders run from the last surface down.
    AlternateOdd,
}

impl SurfaceOrder {
    /// DiskSim's mapping scheme number.
    pub fn from_disksim(scheme: i64) -> Option<Self> {
        match scheme {
            0 => Some(SurfaceOrder::Normal),
            1 => Some(SurfaceOrder::AlternateInZone),
            2 => Some(SurfaceOrder::AlternateOdd),
            _ => None,
        }
    }

    fn head(self, logical: u64, cyl_in_zone: u64, cyl: u32, heads: u64) -> u64 {
        let reverse = match self {
            SurfaceOrder::Normal => false,
            SurfaceOrder::AlternateInZone => cyl_in_zone % 2 == 1,
            SurfaceOrder::AlternateOdd => cyl % 2 == 1,
        };
        if reverse {
            heads - 1 - logical
        } else {
            logical
        }
    }
}

/// One recording zone: a run of cylinders with the same sectors per track.
///
/// Sector numbers in `slips` and `defects` count the zone's physical sectors
/// from its first sector (cylinder by cylinder, track by track), including
/// the empty space at the front, as in DiskSim's model files.
#[derive(Clone, Debug, PartialEq)]
pub struct Zone {
    /// The zone's first cylinder.
    pub first_cyl: u32,
    /// The zone's last cylinder (inclusive).
    pub last_cyl: u32,
    /// Sectors per track.
    pub spt: u32,
    /// Sectors the first sector of a track is shifted after a head switch.
    pub track_skew: u32,
    /// Sectors the first sector of a track is shifted after a cylinder switch.
    pub cyl_skew: u32,
    /// Angular slot of the zone's first physical sector ("Offset of first
    /// block", in sectors).
    pub offset: u32,
    /// Logical slots at the front of the zone that hold no logical sector
    /// ("Empty space at zone front").
    pub empty_front: u64,
    /// Spare sectors per sparing unit ("Number of spares").
    pub spares: u32,
    /// Slipped physical sectors (sorted by [`Layout::new`]).
    pub slips: Vec<u64>,
    /// Remapped defects: (defective sector, spare sector it moves to).
    pub defects: Vec<(u64, u64)>,
    /// First logical sector of the zone (computed by [`Layout::new`]).
    pub first_lbn: u64,
    /// Logical sectors in the zone (computed by [`Layout::new`]).
    pub lbns: u64,
    /// Per slip, a key that makes the slips before a logical slot a binary
    /// search (see `Layout::physical`); for the slip-to-end schemes only the
    /// slips outside spare areas have one.
    keys: Vec<u64>,
    /// Constants [`Layout::locate`] divides by, prepared once: a lookup
    /// divides a dozen times and the divisors never change.
    div: ZoneDivisors,
}

impl Zone {
    /// A zone with no offset, empty space, spares, slips or defects;
    /// `first_lbn` is filled in by [`Layout::new`].
    pub fn new(first_cyl: u32, last_cyl: u32, spt: u32, track_skew: u32, cyl_skew: u32) -> Self {
        Zone {
            first_cyl,
            last_cyl,
            spt,
            track_skew,
            cyl_skew,
            offset: 0,
            empty_front: 0,
            spares: 0,
            slips: Vec::new(),
            defects: Vec::new(),
            first_lbn: 0,
            lbns: 0,
            keys: Vec::new(),
            div: ZoneDivisors::placeholder(),
        }
    }

    /// Set the angular slot of the zone's first sector.
    pub fn with_offset(mut self, offset: u32) -> Self {
        self.offset = offset;
        self
    }

    /// Set the empty logical slots at the zone's front.
    pub fn with_empty_front(mut self, slots: u64) -> Self {
        self.empty_front = slots;
        self
    }

    /// Set the spare sectors per sparing unit.
    pub fn with_spares(mut self, spares: u32) -> Self {
        self.spares = spares;
        self
    }

    /// Set the slipped physical sectors (zone-relative).
    pub fn with_slips(mut self, slips: Vec<u64>) -> Self {
        self.slips = slips;
        self
    }

    /// Set the remapped defects: (defective sector, spare it moves to).
    pub fn with_defects(mut self, defects: Vec<(u64, u64)>) -> Self {
        self.defects = defects;
        self
    }

    fn cylinders(&self) -> u64 {
        u64::from(self.last_cyl - self.first_cyl + 1)
    }
}

/// Where a logical sector lives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Location {
    /// Cylinder.
    pub cyl: u32,
    /// Head (surface).
    pub head: u32,
    /// Angular slot of the sector on its track, 0..spt (after skew).
    pub slot: u32,
    /// Sectors per track of the sector's zone.
    pub spt: u32,
    /// Logical sectors from this one (inclusive) that follow it in
    /// consecutive slots of this track: the run ends at the track's end and
    /// before a slipped, spare or remapped sector.
    pub left_on_track: u32,
}

/// The whole surface layout.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    heads: u32,
    /// `heads`, prepared for division.
    div_heads: Divisor,
    /// Which zone holds a logical sector (the zones themselves are large).
    zone_index: ZoneIndex,
    zones: Vec<Zone>,
    sparing: Sparing,
    order: SurfaceOrder,
    capacity: u64,
    mapped: u64,
    cylinders: u32,
}

/// A layout that makes no sense.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum LayoutError {
    /// No surface, no zone, or no logical sector at all.
    #[error("a disk needs at least one surface, one zone and one logical sector")]
    Empty,
    /// The zone at this index (from 0) overlaps or precedes the one before,
    /// has no sectors per track, or is too large.
    #[error(
        "zone {0}: cylinders must ascend without overlap and sectors per track must be positive"
    )]
    BadZone(usize),
    /// A zone's spares fill a whole sparing unit.
    #[error("zone {zone}: {spares} spares leave no room in a sparing unit of {unit} sectors")]
    BadSpares {
        /// The zone's index, from 0.
        zone: usize,
        /// Its spares per sparing unit (whole tracks under track sparing).
        spares: u32,
        /// The sparing unit's size in sectors.
        unit: u64,
    },
    /// A zone's empty front space is larger than the zone.
    #[error(
        "zone {zone}: empty space at the front ({empty}) exceeds the zone's {slots} logical slots"
    )]
    BadEmptySpace {
        /// The zone's index, from 0.
        zone: usize,
        /// The empty logical slots asked for.
        empty: u64,
        /// The zone's logical slots.
        slots: u64,
    },
    /// A slip lies outside its zone.
    #[error("zone {zone}: slipped sector {sector} is outside the zone's {size} sectors")]
    BadSlip {
        /// The zone's index, from 0.
        zone: usize,
        /// The slipped sector (a track under track sparing).
        sector: u64,
        /// The zone's physical sectors (tracks under track sparing).
        size: u64,
    },
    /// A sparing unit has more slips than spares.
    #[error("zone {zone}: more slips than spares in the sparing unit that holds sector {sector}")]
    TooManySlips {
        /// The zone's index, from 0.
        zone: usize,
        /// The slip that found no spare left (under track sparing, the
        /// first sector of the last slipped track).
        sector: u64,
    },
    /// A defect or its remapped place lies outside its zone.
    #[error("zone {zone}: defect {defect} -> {remap} is outside the zone's {size} sectors")]
    BadDefect {
        /// The zone's index, from 0.
        zone: usize,
        /// The defective sector (a track under track sparing).
        defect: u64,
        /// The spare it moves to (a track under track sparing).
        remap: u64,
        /// The zone's physical sectors (tracks under track sparing).
        size: u64,
    },
}

/// Sectors a zone may have (2^48: 144 PB of 512-byte sectors).
const MAX_ZONE_SECTORS: u64 = 1 << 48;

/// Sparing geometry of one zone, in sectors.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Units {
    /// Sectors per sparing unit.
    size: u64,
    /// Logical slots per full unit.
    logical: u64,
    /// Full units.
    full: u64,
    /// Sectors (all logical) of a final partial unit.
    partial: u64,
}

impl Layout {
    /// Build a layout from zones in ascending cylinder order, with the
    /// default sparing scheme ([`Sparing::AtEnd`]) and surface order.
    pub fn new(heads: u32, zones: Vec<Zone>) -> Result<Self, LayoutError> {
        Self::with_scheme(heads, zones, Sparing::default(), SurfaceOrder::default())
    }

    /// Build a layout with an explicit sparing scheme and surface order.
    pub fn with_scheme(
        heads: u32,
        mut zones: Vec<Zone>,
        sparing: Sparing,
        order: SurfaceOrder,
    ) -> Result<Self, LayoutError> {
        if heads == 0 || zones.is_empty() {
            return Err(LayoutError::Empty);
        }
        let mut lbn = 0u64;
        let mut prev_last: Option<u32> = None;
        for (i, z) in zones.iter_mut().enumerate() {
            if z.spt == 0 || z.last_cyl < z.first_cyl || prev_last.is_some_and(|p| z.first_cyl <= p)
            {
                return Err(LayoutError::BadZone(i));
            }
            prev_last = Some(z.last_cyl);
            // Keep every sector number of the zone far from overflow.
            let size = u64::from(z.spt)
                .checked_mul(u64::from(heads))
                .and_then(|t| t.checked_mul(z.cylinders()));
            if size.is_none_or(|s| s > MAX_ZONE_SECTORS) {
                return Err(LayoutError::BadZone(i));
            }
            prepare_zone(i, z, heads, sparing)?;
            z.div = ZoneDivisors::new(z, heads, sparing);
            z.first_lbn = lbn;
            lbn = lbn.checked_add(z.lbns).ok_or(LayoutError::BadZone(i))?;
        }
        if lbn == 0 {
            return Err(LayoutError::Empty);
        }
        let cylinders = zones.last().map_or(0, |z| z.last_cyl + 1);
        Ok(Layout {
            heads,
            div_heads: Divisor::new(u64::from(heads)),
            zone_index: ZoneIndex::new(zones.iter().map(|z| z.first_lbn).collect(), lbn),
            zones,
            sparing,
            order,
            capacity: lbn,
            mapped: lbn,
            cylinders,
        })
    }

    /// Limit the logical capacity to `blocks` when the zones hold more;
    /// sectors past it do not exist. A count above what the zones hold
    /// changes nothing. (DiskSim descriptions do not use this: DiskSim
    /// takes the zones' total, whatever their "Block count" says.)
    pub fn cap_capacity(mut self, blocks: u64) -> Self {
        self.capacity = self.mapped.min(blocks.max(1));
        self
    }

    /// Logical sectors on the disk.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Logical sectors the zones hold (the capacity before any cap).
    pub fn mapped_capacity(&self) -> u64 {
        self.mapped
    }

    /// Cylinders (highest cylinder number + 1).
    pub fn cylinders(&self) -> u32 {
        self.cylinders
    }

    /// Recording surfaces (heads).
    pub fn heads(&self) -> u32 {
        self.heads
    }

    /// The zones, outermost first.
    pub fn zones(&self) -> &[Zone] {
        &self.zones
    }

    /// The sparing scheme.
    pub fn sparing(&self) -> Sparing {
        self.sparing
    }

    /// The surface order within a cylinder.
    pub fn surface_order(&self) -> SurfaceOrder {
        self.order
    }

    /// Where logical sector `lbn` is. Sectors past the end map to the last one.
    pub fn locate(&self, lbn: u64) -> Location {
        let lbn = lbn.min(self.capacity - 1);
        let zi = self.zone_index.zone_of(lbn);
        let z = &self.zones[zi];
        let rel = lbn - z.first_lbn;
        let (mut p, mut run) = self.physical(z, rel + z.empty_front);
        if !matches!(self.sparing, Sparing::None | Sparing::Tracks) && !z.defects.is_empty() {
            let i = z.defects.partition_point(|d| d.0 < p);
            match z.defects.get(i) {
                Some(&(d, remap)) if d == p && remap != d => {
                    p = remap;
                    run = 1;
                }
                _ => {
                    let j = z.defects.partition_point(|d| d.0 <= p);
                    if let Some(&(d, _)) = z.defects.get(j) {
                        run = run.min(d - p);
                    }
                }
            }
        }
        let spt = u64::from(z.spt);
        let heads = u64::from(self.heads);
        let d = &z.div;
        let (track, sector) = d.spt.div_rem(p);
        let (cyl_rel, logical_head) = self.div_heads.div_rem(track);
        let cyl = z.first_cyl + cyl_rel as u32;
        let head = self.order.head(logical_head, cyl_rel, cyl, heads);
        // Every earlier track boundary in the zone shifted the layout: head
        // switches by the track skew, cylinder switches by the cylinder skew.
        let switches = d.spt.rem(logical_head + (heads - 1) * cyl_rel);
        let skew = d.spt.rem(switches * d.track_skew) + d.spt.rem(d.spt.rem(cyl_rel) * d.cyl_skew);
        let pushed = match self.sparing {
            Sparing::PerTrack => z.slips.partition_point(|&s| s < track * spt) as u64,
            Sparing::PerCylinder | Sparing::PerCylinderSlipToEnd => {
                z.slips.partition_point(|&s| s < cyl_rel * heads * spt) as u64
            }
            _ => 0,
        };
        let slot = d.spt.rem(u64::from(z.offset) + skew + pushed + sector);
        let zone_end = (z.first_lbn + z.lbns).min(self.capacity);
        let left = run.min(spt - sector).min(zone_end - lbn);
        Location {
            cyl,
            head: head as u32,
            slot: slot as u32,
            spt: z.spt,
            left_on_track: left as u32,
        }
    }

    /// Cylinder of a logical sector (cheap path for seek estimates).
    pub fn cylinder_of(&self, lbn: u64) -> u32 {
        self.locate(lbn).cyl
    }

    /// The physical sector (zone-relative) that holds logical slot `q` of
    /// zone `z`, and how many consecutive physical sectors from it hold
    /// consecutive logical slots (ignoring track ends).
    fn physical(&self, z: &Zone, q: u64) -> (u64, u64) {
        if self.sparing == Sparing::None {
            return (q, u64::MAX);
        }
        if self.sparing == Sparing::Tracks {
            return spare_tracks_physical(z, q);
        }
        let u = z.div.units;
        if self.sparing.slips_to_end() {
            // Slots fill the sectors outside spare areas in order; count in
            // that "usable" numbering. keys[i] = usable index of slip i
            // minus i, so slip i comes before slot q iff keys[i] <= q.
            let c = z.keys.partition_point(|&k| k <= q);
            let usable = q + c as u64;
            let (unit, within) = z.div.logical.div_rem(usable);
            let p = unit * u.size + within;
            let mut run = u.logical - within;
            if let Some(&k) = z.keys.get(c) {
                run = run.min(k + c as u64 - usable);
            }
            (p, run)
        } else {
            // Slips shift only the rest of their unit, into its spares.
            let (unit, offset, slots) = if q < u.full * u.logical {
                let (unit, offset) = z.div.logical.div_rem(q);
                (unit, offset, u.logical)
            } else {
                (u.full, q - u.full * u.logical, u.partial)
            };
            let start = unit * u.size;
            let a = z.slips.partition_point(|&s| s < start);
            let b = z.slips.partition_point(|&s| s < start + u.size);
            let c = a + z.keys[a..b].partition_point(|&k| k <= offset);
            let p = start + offset + (c - a) as u64;
            let mut run = slots - offset;
            if c < b {
                run = run.min(z.slips[c] - p);
            }
            (p, run)
        }
    }
}

/// Track sparing: the physical sector holding logical slot `q` of zone `z`
/// and the run of slots that follow it on its track. `keys[i]` is slip `i`
/// (a track) minus its rank, so slip `i` comes before logical track `t`
/// iff `keys[i] <= t`.
fn spare_tracks_physical(z: &Zone, q: u64) -> (u64, u64) {
    let spt = u64::from(z.spt);
    let logical_track = q / spt;
    let sector = q % spt;
    let mut track = logical_track + z.keys.partition_point(|&k| k <= logical_track) as u64;
    // A defective track lives on its spare track (defects are sorted).
    if let Ok(i) = z.defects.binary_search_by_key(&track, |d| d.0) {
        track = z.defects[i].1;
    }
    (track * spt + sector, spt - sector)
}

/// Check a track-sparing zone's slips and defects (track numbers) and
/// compute its logical sectors and keys.
fn prepare_spare_tracks(i: usize, z: &mut Zone, heads: u32) -> Result<(), LayoutError> {
    let spt = u64::from(z.spt);
    let tracks = u64::from(heads) * z.cylinders();
    let spares = u64::from(z.spares);
    if spares >= tracks {
        return Err(LayoutError::BadSpares {
            zone: i,
            spares: z.spares,
            unit: tracks * spt,
        });
    }
    z.slips.sort_unstable();
    z.slips.dedup();
    if let Some(&s) = z.slips.iter().find(|&&s| s >= tracks) {
        return Err(LayoutError::BadSlip {
            zone: i,
            sector: s,
            size: tracks,
        });
    }
    z.defects.sort_unstable();
    z.defects.dedup_by_key(|d| d.0);
    if let Some(&(d, r)) = z.defects.iter().find(|&&(d, r)| d >= tracks || r >= tracks) {
        return Err(LayoutError::BadDefect {
            zone: i,
            defect: d,
            remap: r,
            size: tracks,
        });
    }
    if (z.slips.len() + z.defects.len()) as u64 > spares {
        let sector = z.slips.last().copied().unwrap_or(0) * spt;
        return Err(LayoutError::TooManySlips { zone: i, sector });
    }
    z.keys = z
        .slips
        .iter()
        .enumerate()
        .map(|(rank, &s)| s - rank as u64)
        .collect();
    let slots = (tracks - spares) * spt;
    set_lbns(i, z, slots)
}

/// Zone `i`'s logical blocks: its `slots` after the empty space at its
/// front, which must fit in them.
fn set_lbns(i: usize, z: &mut Zone, slots: u64) -> Result<(), LayoutError> {
    if z.empty_front > slots {
        return Err(LayoutError::BadEmptySpace {
            zone: i,
            empty: z.empty_front,
            slots,
        });
    }
    z.lbns = slots - z.empty_front;
    Ok(())
}

/// The sparing units of zone `z`.
fn units(z: &Zone, heads: u32, sparing: Sparing) -> Units {
    let track = u64::from(z.spt);
    let cyl = track * u64::from(heads);
    let all = cyl * z.cylinders();
    let spares = u64::from(z.spares);
    let (size, full) = match sparing {
        Sparing::None => (all, 1),
        // Whole spare tracks: see `spare_tracks_physical`.
        Sparing::Tracks => (all, 1),
        Sparing::PerTrack => (track, all / track),
        Sparing::PerCylinder | Sparing::PerCylinderSlipToEnd | Sparing::AtEnd => {
            (cyl, z.cylinders())
        }
        Sparing::PerRange(r) => {
            let r = u64::from(r.max(1));
            (cyl * r.min(z.cylinders()), z.cylinders() / r)
        }
        Sparing::PerZone | Sparing::PerZoneSlipToEnd => (all, 1),
    };
    let spares = if sparing == Sparing::None { 0 } else { spares };
    Units {
        size,
        logical: size.saturating_sub(spares),
        full,
        partial: all - full * size,
    }
}

/// Check a zone's sparing data and compute its logical sectors and keys.
fn prepare_zone(i: usize, z: &mut Zone, heads: u32, sparing: Sparing) -> Result<(), LayoutError> {
    if sparing == Sparing::Tracks {
        return prepare_spare_tracks(i, z, heads);
    }
    let u = units(z, heads, sparing);
    let size = u64::from(z.spt) * u64::from(heads) * z.cylinders();
    if sparing != Sparing::None && u.logical == 0 {
        return Err(LayoutError::BadSpares {
            zone: i,
            spares: z.spares,
            unit: u.size,
        });
    }
    z.slips.sort_unstable();
    z.slips.dedup();
    if let Some(&s) = z.slips.iter().find(|&&s| s >= size) {
        return Err(LayoutError::BadSlip {
            zone: i,
            sector: s,
            size,
        });
    }
    z.defects.sort_unstable();
    if let Some(&(d, r)) = z.defects.iter().find(|&&(d, r)| d >= size || r >= size) {
        return Err(LayoutError::BadDefect {
            zone: i,
            defect: d,
            remap: r,
            size,
        });
    }
    z.keys.clear();
    let slots = match sparing {
        Sparing::None => size,
        _ if sparing.slips_to_end() => {
            for &s in &z.slips {
                let within = s % u.size;
                if within < u.logical {
                    let usable = s / u.size * u.logical + within;
                    z.keys.push(usable - z.keys.len() as u64);
                }
            }
            u.full * u.logical - z.keys.len() as u64
        }
        _ => {
            // keys[i] = offset of slip i in its unit minus its rank there.
            let mut unit = u64::MAX;
            let mut rank = 0u64;
            for &s in &z.slips {
                if s / u.size != unit {
                    unit = s / u.size;
                    rank = 0;
                }
                let room = if unit < u.full { u.size - u.logical } else { 0 };
                if rank >= room {
                    return Err(LayoutError::TooManySlips { zone: i, sector: s });
                }
                z.keys.push(s % u.size - rank);
                rank += 1;
            }
            u.full * u.logical + u.partial
        }
    };
    set_lbns(i, z, slots)
}

#[cfg(test)]
mod tests;
