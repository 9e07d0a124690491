//! Zoned recording layout: logical sector numbers to cylinder, surface and
//! angular position, as DiskSim's `dm_layout_g1` lays them out (each
//! cylinder's tracks in surface order, then the next cylinder; every track
//! switch shifts the first sector by the zone's skew so that the head is
//! ready when it arrives).

/// One recording zone: a run of cylinders with the same sectors per track.
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
    /// First logical sector of the zone (computed by [`Layout::new`]).
    pub first_lbn: u64,
}

impl Zone {
    /// A zone; `first_lbn` is filled in by [`Layout::new`].
    pub fn new(first_cyl: u32, last_cyl: u32, spt: u32, track_skew: u32, cyl_skew: u32) -> Self {
        Zone {
            first_cyl,
            last_cyl,
            spt,
            track_skew,
            cyl_skew,
            first_lbn: 0,
        }
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
    /// Logical sectors left on this track from this one (inclusive).
    pub left_on_track: u32,
}

/// The whole surface layout.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    heads: u32,
    zones: Vec<Zone>,
    capacity: u64,
    cylinders: u32,
}

/// A layout that makes no sense.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum LayoutError {
    #[error("a disk needs at least one surface and one zone")]
    Empty,
    #[error(
        "zone {0}: cylinders must ascend without overlap and sectors per track must be positive"
    )]
    BadZone(usize),
}

impl Layout {
    /// Build a layout from zones in ascending cylinder order.
    pub fn new(heads: u32, mut zones: Vec<Zone>) -> Result<Self, LayoutError> {
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
            z.first_lbn = lbn;
            lbn += z.cylinders() * u64::from(heads) * u64::from(z.spt);
        }
        let cylinders = zones.last().map_or(0, |z| z.last_cyl + 1);
        Ok(Layout {
            heads,
            zones,
            capacity: lbn,
            cylinders,
        })
    }

    /// Logical sectors on the disk.
    pub fn capacity(&self) -> u64 {
        self.capacity
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

    /// Where logical sector `lbn` is. Sectors past the end map to the last one.
    pub fn locate(&self, lbn: u64) -> Location {
        let lbn = lbn.min(self.capacity.saturating_sub(1));
        let zi = self.zones.partition_point(|z| z.first_lbn <= lbn) - 1;
        let z = &self.zones[zi];
        let spt = u64::from(z.spt);
        let rel = lbn - z.first_lbn;
        let track = rel / spt;
        let index = rel % spt;
        let heads = u64::from(self.heads);
        let cyl_rel = track / heads;
        let head = track % heads;
        // Every earlier track boundary in the zone shifted the layout: head
        // switches by the track skew, cylinder switches by the cylinder skew.
        let skew = (track - cyl_rel) * u64::from(z.track_skew) + cyl_rel * u64::from(z.cyl_skew);
        let slot = (index + skew) % spt;
        Location {
            cyl: z.first_cyl + cyl_rel as u32,
            head: head as u32,
            slot: slot as u32,
            spt: z.spt,
            left_on_track: (spt - index) as u32,
        }
    }

    /// Cylinder of a logical sector (cheap path for seek estimates).
    pub fn cylinder_of(&self, lbn: u64) -> u32 {
        self.locate(lbn).cyl
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_zone() -> Layout {
        // 2 heads; zone 0: cylinders 0-9 at 100 spt; zone 1: 10-19 at 50 spt.
        Layout::new(
            2,
            vec![Zone::new(0, 9, 100, 10, 20), Zone::new(10, 19, 50, 5, 7)],
        )
        .unwrap()
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
    }

    #[test]
    fn skew_wraps_around_the_track() {
        let l = Layout::new(1, vec![Zone::new(0, 99, 10, 3, 3)]).unwrap();
        // Track 4 of a one-head zone: 4 cylinder switches of 3 = 12 = slot 2.
        assert_eq!(l.locate(40).slot, 2);
    }

    #[test]
    fn rejects_overlapping_or_empty_zones() {
        assert_eq!(
            Layout::new(0, vec![Zone::new(0, 1, 10, 0, 0)]),
            Err(LayoutError::Empty)
        );
        let bad = vec![Zone::new(0, 5, 10, 0, 0), Zone::new(5, 9, 10, 0, 0)];
        assert_eq!(Layout::new(1, bad), Err(LayoutError::BadZone(1)));
    }
}
