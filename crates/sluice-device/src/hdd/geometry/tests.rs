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
    let layout = |s| Layout::with_scheme(2, vec![zone.clone()], s, SurfaceOrder::Normal).unwrap();
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
    let l = Layout::with_scheme(1, vec![zone], Sparing::PerTrack, SurfaceOrder::Normal).unwrap();
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
    let l = Layout::with_scheme(2, vec![zone], Sparing::AtEnd, SurfaceOrder::AlternateOdd).unwrap();
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
