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
    pub first_cyl: u32,
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    pub cyl: u32,
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
    #[error("a disk needs at least one surface, one zone and one logical sector")]
    Empty,
    #[error(
        "zone {0}: cylinders must ascend without overlap and sectors per track must be positive"
    )]
    BadZone(usize),
    #[error("zone {zone}: {spares} spares leave no room in a sparing unit of {unit} sectors")]
    BadSpares { zone: usize, spares: u32, unit: u64 },
    #[error(
        "zone {zone}: empty space at the front ({empty}) exceeds the zone's {slots} logical slots"
    )]
    BadEmptySpace { zone: usize, empty: u64, slots: u64 },
    #[error("zone {zone}: slipped sector {sector} is outside the zone's {size} sectors")]
    BadSlip { zone: usize, sector: u64, size: u64 },
    #[error("zone {zone}: more slips than spares in the sparing unit that holds sector {sector}")]
    TooManySlips { zone: usize, sector: u64 },
    #[error("zone {zone}: defect {defect} -> {remap} is outside the zone's {size} sectors")]
    BadDefect {
        zone: usize,
        defect: u64,
        remap: u64,
        size: u64,
    },
}

/// Sectors a zone may have (2^48: 144 PB of 512-byte sectors).
const MAX_ZONE_SECTORS: u64 = 1 << 48;

/// Sparing geometry of one zone, in sectors.
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
            z.first_lbn = lbn;
            lbn = lbn.checked_add(z.lbns).ok_or(LayoutError::BadZone(i))?;
        }
        if lbn == 0 {
            return Err(LayoutError::Empty);
        }
        let cylinders = zones.last().map_or(0, |z| z.last_cyl + 1);
        Ok(Layout {
            heads,
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
        let zi = self.zones.partition_point(|z| z.first_lbn <= lbn) - 1;
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
        let track = p / spt;
        let sector = p % spt;
        let cyl_rel = track / heads;
        let logical_head = track % heads;
        let cyl = z.first_cyl + cyl_rel as u32;
        let head = self.order.head(logical_head, cyl_rel, cyl, heads);
        // Every earlier track boundary in the zone shifted the layout: head
        // switches by the track skew, cylinder switches by the cylinder skew.
        let switches = (logical_head + (heads - 1) * cyl_rel) % spt;
        let skew = switches * (u64::from(z.track_skew) % spt) % spt
            + cyl_rel % spt * (u64::from(z.cyl_skew) % spt) % spt;
        let pushed = match self.sparing {
            Sparing::PerTrack => z.slips.partition_point(|&s| s < track * spt) as u64,
            Sparing::PerCylinder | Sparing::PerCylinderSlipToEnd => {
                z.slips.partition_point(|&s| s < cyl_rel * heads * spt) as u64
            }
            _ => 0,
        };
        let slot = (u64::from(z.offset) + skew + pushed + sector) % spt;
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
        let u = units(z, self.heads, self.sparing);
        if self.sparing.slips_to_end() {
            // Slots fill the sectors outside spare areas in order; count in
            // that "usable" numbering. keys[i] = usable index of slip i
            // minus i, so slip i comes before slot q iff keys[i] <= q.
            let c = z.keys.partition_point(|&k| k <= q);
            let usable = q + c as u64;
            let within = usable % u.logical;
            let p = usable / u.logical * u.size + within;
            let mut run = u.logical - within;
            if let Some(&k) = z.keys.get(c) {
                run = run.min(k + c as u64 - usable);
            }
            (p, run)
        } else {
            // Slips shift only the rest of their unit, into its spares.
            let (unit, offset, slots) = if q < u.full * u.logical {
                (q / u.logical, q % u.logical, u.logical)
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

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    fn two_zone() -> Layout {
        // 2 heads; zone 0: cylinders 0-9 at 100 spt; zone 1: 10-19 at 50 spt.
        Layout::new(
            2,
            vec![Zone::new(0, 9, 100, 10, 20), Zone::new(10, 19, 50, 5, 7)],
        )
        .unwrap()
    }

    /// Physical (cylinder, head, sector) of every logical sector, checking
    /// on the way that each run of `left_on_track` sectors is a run of
    /// consecutive slots on one track.
    fn walk(l: &Layout) -> Vec<(u32, u32, u32)> {
        let mut out = Vec::new();
        let mut lbn = 0;
        while lbn < l.capacity() {
            let a = l.locate(lbn);
            assert!(a.left_on_track >= 1, "lbn {lbn}");
            for k in 0..a.left_on_track {
                let b = l.locate(lbn + u64::from(k));
                assert_eq!(
                    (b.cyl, b.head, b.spt),
                    (a.cyl, a.head, a.spt),
                    "lbn {lbn}+{k}"
                );
                assert_eq!(b.slot, (a.slot + k) % a.spt, "lbn {lbn}+{k}");
                assert_eq!(b.left_on_track, a.left_on_track - k, "lbn {lbn}+{k}");
                out.push((b.cyl, b.head, b.slot));
            }
            lbn += u64::from(a.left_on_track);
        }
        let distinct: HashSet<_> = out.iter().collect();
        assert_eq!(distinct.len(), out.len(), "two sectors share a place");
        out
    }

    #[test]
    fn capacity_is_the_sum_of_zone_tracks() {
        assert_eq!(two_zone().capacity(), 10 * 2 * 100 + 10 * 2 * 50);
        assert_eq!(two_zone().cylinders(), 20);
    }

    #[test]
    fn sectors_fill_a_cylinder_surface_by_surface() {
        let l = two_zone();
        let a = l.locate(0);
        assert_eq!((a.cyl, a.head, a.slot, a.left_on_track), (0, 0, 0, 100));
        let b = l.locate(99);
        assert_eq!((b.cyl, b.head, b.slot, b.left_on_track), (0, 0, 99, 1));
        // Next track: same cylinder, head 1, shifted by the track skew.
        let c = l.locate(100);
        assert_eq!((c.cyl, c.head, c.slot), (0, 1, 10));
        // Next cylinder: one head switch and one cylinder switch so far.
        let d = l.locate(200);
        assert_eq!((d.cyl, d.head, d.slot), (1, 0, 10 + 20));
    }

    #[test]
    fn second_zone_starts_after_the_first() {
        let l = two_zone();
        let z = l.locate(2000);
        assert_eq!((z.cyl, z.head, z.slot, z.spt), (10, 0, 0, 50));
        let last = l.locate(l.capacity() - 1);
        assert_eq!(
            (last.cyl, last.head, last.spt, last.left_on_track),
            (19, 1, 50, 1)
        );
        assert_eq!(walk(&l).len() as u64, l.capacity());
    }

    #[test]
    fn skew_wraps_around_the_track() {
        let l = Layout::new(1, vec![Zone::new(0, 99, 10, 3, 3)]).unwrap();
        // Track 4 of a one-head zone: 4 cylinder switches of 3 = 12 = slot 2.
        assert_eq!(l.locate(40).slot, 2);
    }

    #[test]
    fn skews_accumulate_per_zone_with_head_and_cylinder_switches() {
        // 3 heads: cylinder 2, head 1 has had 1 + 2*2 = 5 head switches and
        // 2 cylinder switches: 5*7 + 2*11 = 57 = slot 57 % 50 = 7.
        let l = Layout::new(3, vec![Zone::new(0, 9, 50, 7, 11)]).unwrap();
        let a = l.locate((2 * 3 + 1) * 50);
        assert_eq!((a.cyl, a.head, a.slot), (2, 1, 7));
        // A zone restarts the count at its own first cylinder.
        let l = Layout::new(
            3,
            vec![Zone::new(0, 4, 50, 7, 11), Zone::new(5, 9, 40, 7, 11)],
        )
        .unwrap();
        let b = l.locate(5 * 3 * 50);
        assert_eq!((b.cyl, b.head, b.slot), (5, 0, 0));
    }

    #[test]
    fn a_slip_skips_its_sector_and_shifts_later_sectors() {
        // 1 head, 10 sectors per track, no skew; sector 13 is slipped.
        let l = Layout::new(1, vec![Zone::new(0, 9, 10, 0, 0).with_slips(vec![13])]).unwrap();
        assert_eq!(l.capacity(), 99);
        let a = l.locate(10);
        assert_eq!((a.cyl, a.slot, a.left_on_track), (1, 0, 3));
        let b = l.locate(12);
        assert_eq!((b.cyl, b.slot, b.left_on_track), (1, 2, 1));
        // Logical 13 sits on sector 14: one slot later.
        let c = l.locate(13);
        assert_eq!((c.cyl, c.slot, c.left_on_track), (1, 4, 6));
        // Every later sector is one slot on, across the track boundary.
        let d = l.locate(19);
        assert_eq!((d.cyl, d.slot, d.left_on_track), (2, 0, 10));
        let last = l.locate(98);
        assert_eq!((last.cyl, last.slot, last.left_on_track), (9, 9, 1));
        let places = walk(&l);
        assert!(!places.contains(&(1, 0, 3)));
    }

    #[test]
    fn consecutive_slips_and_a_slip_at_a_track_start() {
        let l = Layout::new(
            2,
            vec![Zone::new(0, 4, 10, 2, 3).with_slips(vec![20, 5, 6, 20])],
        )
        .unwrap();
        // Duplicates count once; the list is sorted.
        assert_eq!(l.zones()[0].slips, vec![5, 6, 20]);
        assert_eq!(l.capacity(), 100 - 3);
        assert_eq!(l.locate(4).left_on_track, 1);
        // Logical 5 sits on sector 7.
        assert_eq!(l.locate(5).slot, 7);
        // Logical 17 would be sector 19 (cylinder 0, head 1, sector 9); the
        // next one skips sector 20 (cylinder 1, head 0, sector 0) for 21:
        // 1 head switch + 1 cylinder switch so far, skew 2 + 3, slot 6.
        let a = l.locate(18);
        assert_eq!((a.cyl, a.head, a.slot), (1, 0, 6));
        assert_eq!(walk(&l).len(), 97);
    }

    #[test]
    fn slips_at_end_shift_the_whole_rest_of_the_zone() {
        // Scheme 7: a slip on cylinder 0 moves every later sector of the
        // zone by one, on later cylinders too, but not the next zone's.
        let l = Layout::with_scheme(
            1,
            vec![
                Zone::new(0, 4, 10, 0, 0).with_slips(vec![0]),
                Zone::new(5, 9, 10, 0, 0),
            ],
            Sparing::AtEnd,
            SurfaceOrder::Normal,
        )
        .unwrap();
        assert_eq!(l.capacity(), 99);
        assert_eq!(l.locate(0).slot, 1);
        let a = l.locate(9);
        assert_eq!((a.cyl, a.slot, a.left_on_track), (1, 0, 10));
        assert_eq!(l.locate(48).cyl, 4);
        let b = l.locate(49);
        assert_eq!((b.cyl, b.slot), (5, 0));
        walk(&l);
    }

    #[test]
    fn range_sparing_reserves_spares_at_each_range_end() {
        // Scheme 8, ranges of 2 cylinders of 2 tracks of 10 = 40 sectors,
        // 3 spares each; 5 cylinders = 2 full ranges + a partial one that
        // keeps all its sectors.
        let zone = Zone::new(0, 4, 10, 0, 0).with_spares(3);
        let l = Layout::with_scheme(
            2,
            vec![zone.clone()],
            Sparing::PerRange(2),
            SurfaceOrder::Normal,
        )
        .unwrap();
        assert_eq!(l.capacity(), 2 * 37 + 20);
        // The run on the range's last track stops before the spares.
        let a = l.locate(30);
        assert_eq!((a.cyl, a.head, a.slot, a.left_on_track), (1, 1, 0, 7));
        // The next range starts on cylinder 2.
        let b = l.locate(37);
        assert_eq!((b.cyl, b.head, b.slot, b.left_on_track), (2, 0, 0, 10));
        // The partial range has no spares.
        assert_eq!(l.locate(74).cyl, 4);
        assert_eq!(l.locate(93).left_on_track, 1);
        walk(&l);

        // A slip moves the rest of its range into a spare, not the next
        // range; the capacity does not change.
        let l = Layout::with_scheme(
            2,
            vec![zone.with_slips(vec![12, 45])],
            Sparing::PerRange(2),
            SurfaceOrder::Normal,
        )
        .unwrap();
        assert_eq!(l.capacity(), 2 * 37 + 20);
        assert_eq!(l.locate(11).left_on_track, 1);
        assert_eq!(l.locate(12).slot, 3);
        assert_eq!(l.locate(36).left_on_track, 1);
        assert_eq!((l.locate(36).cyl, l.locate(36).slot), (1, 7));
        let c = l.locate(37);
        assert_eq!((c.cyl, c.slot, c.left_on_track), (2, 0, 5));
        assert_eq!(l.locate(42).slot, 6);
        walk(&l);
    }

    #[test]
    fn range_sparing_rejects_more_slips_than_spares() {
        let zone = Zone::new(0, 3, 10, 0, 0)
            .with_spares(1)
            .with_slips(vec![1, 2]);
        assert_eq!(
            Layout::with_scheme(1, vec![zone], Sparing::PerRange(2), SurfaceOrder::Normal),
            Err(LayoutError::TooManySlips { zone: 0, sector: 2 })
        );
    }

    #[test]
    fn per_track_and_per_cylinder_spares() {
        let zone = Zone::new(0, 1, 10, 0, 0).with_spares(2);
        let layout =
            |s| Layout::with_scheme(2, vec![zone.clone()], s, SurfaceOrder::Normal).unwrap();
        let t = layout(Sparing::PerTrack);
        assert_eq!(t.capacity(), 4 * 8);
        assert_eq!(t.locate(0).left_on_track, 8);
        assert_eq!((t.locate(8).head, t.locate(8).slot), (1, 0));
        walk(&t);
        let c = layout(Sparing::PerCylinder);
        assert_eq!(c.capacity(), 2 * 18);
        assert_eq!(c.locate(10).left_on_track, 8);
        assert_eq!(c.locate(18).cyl, 1);
        walk(&c);
        let z = Layout::with_scheme(2, vec![zone], Sparing::PerZone, SurfaceOrder::Normal).unwrap();
        assert_eq!(z.capacity(), 38);
        assert_eq!(z.locate(30).left_on_track, 8);
        walk(&z);
    }

    #[test]
    fn slips_push_the_skew_in_per_track_sparing() {
        // Scheme 3 with one spare per track: the slip on track 0 pushes the
        // layout of every later track one sector on.
        let zone = Zone::new(0, 1, 10, 0, 0).with_spares(1).with_slips(vec![3]);
        let l =
            Layout::with_scheme(1, vec![zone], Sparing::PerTrack, SurfaceOrder::Normal).unwrap();
        assert_eq!(l.capacity(), 18);
        assert_eq!(l.locate(3).slot, 4);
        assert_eq!(l.locate(8).slot, 9);
        let next = l.locate(9);
        assert_eq!((next.cyl, next.slot, next.left_on_track), (1, 1, 9));
        walk(&l);
    }

    #[test]
    fn no_sparing_ignores_slips_and_spares() {
        let zone = Zone::new(0, 1, 10, 0, 0).with_spares(2).with_slips(vec![3]);
        let l = Layout::with_scheme(1, vec![zone], Sparing::None, SurfaceOrder::Normal).unwrap();
        assert_eq!(l.capacity(), 20);
        assert_eq!(l.locate(3).slot, 3);
        assert_eq!(l.locate(0).left_on_track, 10);
    }

    #[test]
    fn offset_of_first_block_turns_the_whole_zone() {
        let l = Layout::new(2, vec![Zone::new(0, 9, 10, 2, 3).with_offset(4)]).unwrap();
        assert_eq!(l.locate(0).slot, 4);
        assert_eq!(l.locate(7).slot, 1);
        // Head 1: 4 + track skew 2.
        assert_eq!(l.locate(10).slot, 6);
        // Cylinder 1: 4 + one head switch and one cylinder switch.
        assert_eq!(l.locate(20).slot, 9);
        walk(&l);
    }

    #[test]
    fn empty_space_at_the_front_holds_no_sectors() {
        // 15 empty slots: logical 0 sits on head 1, sector 5 of cylinder 0.
        let l = Layout::new(2, vec![Zone::new(0, 9, 10, 2, 3).with_empty_front(15)]).unwrap();
        assert_eq!(l.capacity(), 200 - 15);
        let a = l.locate(0);
        assert_eq!((a.cyl, a.head, a.slot, a.left_on_track), (0, 1, 7, 5));
        let b = l.locate(5);
        assert_eq!((b.cyl, b.head, b.slot), (1, 0, 5));
        walk(&l);
        assert_eq!(
            Layout::new(1, vec![Zone::new(0, 0, 10, 0, 0).with_empty_front(11)]),
            Err(LayoutError::BadEmptySpace {
                zone: 0,
                empty: 11,
                slots: 10
            })
        );
    }

    #[test]
    fn cylinders_between_zones_are_skipped() {
        // Cylinder 5 belongs to no zone (like cylinder 257 of the ibm18es).
        let l = Layout::new(
            2,
            vec![Zone::new(0, 4, 10, 1, 1), Zone::new(6, 9, 10, 1, 1)],
        )
        .unwrap();
        assert_eq!(l.capacity(), 9 * 20);
        assert_eq!(l.cylinders(), 10);
        assert_eq!(l.locate(99).cyl, 4);
        let a = l.locate(100);
        assert_eq!((a.cyl, a.head, a.slot), (6, 0, 0));
        assert!(walk(&l).iter().all(|&(c, _, _)| c != 5));
    }

    #[test]
    fn remapped_defects_move_one_sector_to_its_spare() {
        // Scheme 9, 2 spares at the zone end (sectors 18, 19); sector 5 is
        // defective and remapped to sector 18.
        let zone = Zone::new(0, 1, 10, 0, 0)
            .with_spares(2)
            .with_defects(vec![(5, 18)]);
        let l = Layout::with_scheme(1, vec![zone], Sparing::PerZone, SurfaceOrder::Normal).unwrap();
        assert_eq!(l.capacity(), 18);
        assert_eq!(l.locate(0).left_on_track, 5);
        let d = l.locate(5);
        assert_eq!((d.cyl, d.slot, d.left_on_track), (1, 8, 1));
        let e = l.locate(6);
        assert_eq!((e.cyl, e.slot, e.left_on_track), (0, 6, 4));
        walk(&l);
    }

    #[test]
    fn alternating_surface_order() {
        let zone = Zone::new(3, 6, 10, 0, 0);
        let l = Layout::with_scheme(
            2,
            vec![zone.clone()],
            Sparing::AtEnd,
            SurfaceOrder::AlternateInZone,
        )
        .unwrap();
        assert_eq!((l.locate(0).cyl, l.locate(0).head), (3, 0));
        assert_eq!((l.locate(20).cyl, l.locate(20).head), (4, 1));
        assert_eq!((l.locate(30).cyl, l.locate(30).head), (4, 0));
        let l =
            Layout::with_scheme(2, vec![zone], Sparing::AtEnd, SurfaceOrder::AlternateOdd).unwrap();
        assert_eq!((l.locate(0).cyl, l.locate(0).head), (3, 1));
        assert_eq!((l.locate(20).cyl, l.locate(20).head), (4, 0));
        walk(&l);
    }

    #[test]
    fn capacity_cap_cuts_the_last_sectors() {
        let l = two_zone().cap_capacity(2010);
        assert_eq!((l.capacity(), l.mapped_capacity()), (2010, 3000));
        assert_eq!(l.locate(2005).left_on_track, 5);
        assert_eq!(l.locate(5000), l.locate(2009));
        assert_eq!(two_zone().cap_capacity(10_000).capacity(), 3000);
    }

    #[test]
    fn disksim_scheme_numbers() {
        assert_eq!(Sparing::from_disksim(7, 1), Some(Sparing::AtEnd));
        assert_eq!(Sparing::from_disksim(8, 6), Some(Sparing::PerRange(6)));
        assert_eq!(Sparing::from_disksim(8, 0), None);
        assert_eq!(Sparing::from_disksim(1, 1), Some(Sparing::Tracks));
        assert_eq!(Sparing::from_disksim(5, 1), Some(Sparing::PerCylinder));
        assert_eq!(
            Sparing::from_disksim(6, 1),
            Some(Sparing::PerCylinderSlipToEnd)
        );
        assert_eq!(Sparing::from_disksim(11, 1), None);
        assert_eq!(Sparing::from_disksim(-1, 1), None);
        assert_eq!(
            SurfaceOrder::from_disksim(1),
            Some(SurfaceOrder::AlternateInZone)
        );
    }

    /// Every DiskSim sparing scheme on one small zone (2 heads, cylinders
    /// 0-3, 10 sectors per track, no skew, 2 spares, one slip): where
    /// logical sector 25 goes, worked out by hand from DiskSim 4.0's
    /// LBN-to-PBN map and skew rules (`layout_g1.c`), and the capacity its
    /// `blksinband` gives.
    #[test]
    fn each_disksim_sparing_scheme_maps_a_known_sector() {
        // (scheme, capacity, (cyl, head, slot) of logical 25)
        let cases: [(i64, u64, (u32, u32, u32)); 11] = [
            (0, 80, (1, 0, 5)),
            // Spare tracks: slipped track 1 pushes logical track 2 to 3.
            (1, 60, (1, 1, 5)),
            // 18 logical per cylinder: 25 = cylinder 1, offset 7; the slip
            // on cylinder 0 pushes the angular layout one sector.
            (2, 72, (1, 0, 8)),
            // 8 per track: track 3, offset 1; one slip on an earlier track.
            (3, 64, (1, 1, 2)),
            // As 2, and the earlier slip shifts the rest of the zone.
            (4, 71, (1, 0, 9)),
            (5, 72, (1, 0, 8)),
            (6, 71, (1, 0, 9)),
            // As 4 without the skew push.
            (7, 71, (1, 0, 8)),
            // Ranges of 2 cylinders (38 logical): the slip at 13 shifts
            // 25 to physical 26 of range 0.
            (8, 76, (1, 0, 6)),
            (9, 78, (1, 0, 6)),
            (10, 77, (1, 0, 6)),
        ];
        for (scheme, capacity, want) in cases {
            let sparing = Sparing::from_disksim(scheme, 2).unwrap();
            let slip = if scheme == 1 { 1 } else { 13 };
            let zone = Zone::new(0, 3, 10, 0, 0)
                .with_spares(2)
                .with_slips(vec![slip]);
            let l = Layout::with_scheme(2, vec![zone], sparing, SurfaceOrder::Normal).unwrap();
            assert_eq!(l.capacity(), capacity, "scheme {scheme}");
            let a = l.locate(25);
            assert_eq!((a.cyl, a.head, a.slot), want, "scheme {scheme}");
            walk(&l);
        }
    }

    #[test]
    fn track_sparing_remaps_a_defective_track_to_a_spare_track() {
        // Tracks 6 and 7 are the spares; track 2 is defective, its data on
        // spare track 7 (cylinder 3, head 1); track 1 is slipped.
        let zone = Zone::new(0, 3, 10, 0, 0)
            .with_spares(2)
            .with_slips(vec![1])
            .with_defects(vec![(3, 7)]);
        let l = Layout::with_scheme(2, vec![zone], Sparing::Tracks, SurfaceOrder::Normal).unwrap();
        assert_eq!(l.capacity(), 60);
        // Logical track 2 is past the slip: physical track 3, remapped.
        let a = l.locate(25);
        assert_eq!((a.cyl, a.head, a.slot, a.left_on_track), (3, 1, 5, 5));
        // Logical track 1 is physical track 2, not remapped.
        let b = l.locate(12);
        assert_eq!((b.cyl, b.head, b.slot), (1, 0, 2));
        walk(&l);
        // Slips and defects may not outnumber the spare tracks.
        let zone = Zone::new(0, 3, 10, 0, 0)
            .with_spares(1)
            .with_slips(vec![1])
            .with_defects(vec![(3, 7)]);
        assert!(matches!(
            Layout::with_scheme(2, vec![zone], Sparing::Tracks, SurfaceOrder::Normal),
            Err(LayoutError::TooManySlips { zone: 0, .. })
        ));
    }

    #[test]
    fn absurd_sizes_are_rejected_not_overflowed() {
        let huge = Zone::new(0, u32::MAX - 1, u32::MAX, u32::MAX, u32::MAX);
        assert_eq!(
            Layout::new(u32::MAX, vec![huge]),
            Err(LayoutError::BadZone(0))
        );
        // A range longer than the zone: one partial range, no spares.
        let l = Layout::with_scheme(
            2,
            vec![Zone::new(0, 3, 10, u32::MAX, u32::MAX).with_spares(5)],
            Sparing::PerRange(u32::MAX),
            SurfaceOrder::Normal,
        )
        .unwrap();
        assert_eq!(l.capacity(), 80);
        walk(&l);
    }

    #[test]
    fn rejects_overlapping_or_empty_zones() {
        assert_eq!(
            Layout::new(0, vec![Zone::new(0, 1, 10, 0, 0)]),
            Err(LayoutError::Empty)
        );
        let bad = vec![Zone::new(0, 5, 10, 0, 0), Zone::new(5, 9, 10, 0, 0)];
        assert_eq!(Layout::new(1, bad), Err(LayoutError::BadZone(1)));
        assert_eq!(
            Layout::new(1, vec![Zone::new(0, 1, 10, 0, 0).with_slips(vec![20])]),
            Err(LayoutError::BadSlip {
                zone: 0,
                sector: 20,
                size: 20
            })
        );
        assert_eq!(
            Layout::with_scheme(
                1,
                vec![Zone::new(0, 1, 10, 0, 0).with_spares(10)],
                Sparing::PerTrack,
                SurfaceOrder::Normal
            ),
            Err(LayoutError::BadSpares {
                zone: 0,
                spares: 10,
                unit: 10
            })
        );
    }
}
