//! Arm and platter: seek, head switch, rotational wait to the exact angle of
//! the target sector, and media transfer at the zone's rate.

use std::cell::Cell;

use sluice::{Duration, Instant};

use super::geometry::{Layout, Location};
use super::seek::SeekCurve;

/// Where the heads are: cylinder and active surface.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Arm {
    /// Cylinder.
    pub cyl: u32,
    /// Active head (surface).
    pub head: u32,
}

/// The timing of one media access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// When the first sector starts passing under the head.
    pub first: Instant,
    /// When the last sector has passed.
    pub end: Instant,
    /// Where the heads are afterwards.
    pub arm: Arm,
}

/// The mechanical model of a drive.
#[derive(Clone, Debug)]
pub struct Mechanics {
    /// The last few located runs of physically contiguous sectors.
    /// Streaming and positioning look up the same runs again and again (a
    /// random read alternates between the stream it leaves and its own
    /// track), and a full DiskSim-layout lookup costs a dozen divisions.
    pub(crate) run_cache: RunCache,
    /// Where each logical block lies.
    pub layout: Layout,
    /// Seek time by cylinder distance.
    pub seek: SeekCurve,
    /// Seek times already computed, by distance: the curve is a search and
    /// a float interpolation, asked again for the same few distances.
    pub(crate) seek_memo: SeekMemo,
    /// One revolution.
    pub period: Duration,
    /// Time to switch to another surface without a seek (a seek to another
    /// cylinder and surface takes the longer of the two).
    pub head_switch: Duration,
    /// Extra settling before writing after an arm movement, in ns
    /// (DiskSim's "Add. write settling delay"). It may be negative: the seek
    /// curve is measured for reads, and on some drives a write may start
    /// sooner after a movement than a read (DiskSim's `dec_rz26` and
    /// `hp_c3323a` descriptions give -0.483 and -0.642 ms). DiskSim adds it
    /// to any non-zero movement time of a write; so does the model, except
    /// that a movement never takes less than no time at all.
    pub write_settle_ns: i64,
    /// Where the platter is at time 0 (angle as time of rotation).
    pub phase: Duration,
}

impl Mechanics {
    /// Where `lbn` is, through a one-run cache: inside a cached run of
    /// contiguous sectors the location follows by arithmetic.
    pub fn locate(&self, lbn: u64) -> Location {
        if let Some(loc) = self.run_cache.get(lbn) {
            return loc;
        }
        let loc = self.layout.locate(lbn);
        self.run_cache.put(lbn, loc);
        loc
    }

    /// Angular position at time `t`, as time of rotation since the index
    /// mark.
    fn angle(&self, t: Instant) -> Duration {
        (t.since_origin() + self.phase) % self.period
    }

    /// Angle at which slot `slot` of a track with `spt` slots begins.
    fn slot_angle(&self, slot: u64, spt: u32) -> Duration {
        Duration::from_nanos(slot * self.period.as_nanos() / u64::from(spt))
    }

    /// Wait from `t` until the start of `slot` passes under the head.
    pub fn rotational_wait(&self, t: Instant, slot: u32, spt: u32) -> Duration {
        let target = self.slot_angle(u64::from(slot), spt);
        (target + self.period - self.angle(t)) % self.period
    }

    /// Time for `k` consecutive slots from `slot` to pass. Computed from
    /// absolute angles so that the platter position after a transfer is
    /// exactly the next slot's angle: no rounding drift over long streams.
    fn transfer(&self, slot: u32, k: u32, spt: u32) -> Duration {
        let s = u64::from(slot);
        self.slot_angle(s + u64::from(k), spt) - self.slot_angle(s, spt)
    }

    /// Arm movement from `from` to the track of `to` (seek, or head switch).
    pub fn move_time(&self, from: Arm, to: &Location, write: bool) -> Duration {
        let d = from.cyl.abs_diff(to.cyl);
        let t = if d > 0 {
            self.seek_memo
                .time(&self.seek, self.layout.cylinders(), d)
                .max(if from.head != to.head {
                    self.head_switch
                } else {
                    Duration::ZERO
                })
        } else if from.head != to.head {
            self.head_switch
        } else {
            Duration::ZERO
        };
        if write && !t.is_zero() {
            self.settled(t)
        } else {
            t
        }
    }

    /// A write's movement time `t` (non-zero) with the write settle added.
    fn settled(&self, t: Duration) -> Duration {
        let add = self.write_settle_ns;
        if add >= 0 {
            t + Duration::from_nanos(add.unsigned_abs())
        } else {
            t.saturating_sub(Duration::from_nanos(add.unsigned_abs()))
        }
    }

    /// Seek plus rotational wait to begin accessing `lbn` with the arm
    /// leaving `from` at `start`.
    pub fn positioning(&self, start: Instant, from: Arm, lbn: u64, write: bool) -> Duration {
        let loc = self.locate(lbn);
        let t = start + self.move_time(from, &loc, write);
        (t + self.rotational_wait(t, loc.slot, loc.spt)) - start
    }

    /// Access `n` sectors from `lbn`, the arm leaving `from` at `start`.
    /// Crossing a track costs a head switch (or a one-cylinder seek) and the
    /// wait for the skewed first sector of the next track.
    pub fn access(&self, start: Instant, from: Arm, lbn: u64, n: u32, write: bool) -> Access {
        let mut loc = self.locate(lbn);
        let mut t = start + self.move_time(from, &loc, write);
        t += self.rotational_wait(t, loc.slot, loc.spt);
        let first = t;
        let mut lbn = lbn;
        let mut left = n.max(1);
        loop {
            let k = left.min(loc.left_on_track);
            t += self.transfer(loc.slot, k, loc.spt);
            left -= k;
            lbn += u64::from(k);
            let arm = Arm {
                cyl: loc.cyl,
                head: loc.head,
            };
            if left == 0 || lbn >= self.layout.capacity() {
                return Access { first, end: t, arm };
            }
            let next = self.locate(lbn);
            t += self.move_time(arm, &next, write);
            t += self.rotational_wait(t, next.slot, next.spt);
            loc = next;
        }
    }

    /// The arm position over logical sector `lbn`.
    pub fn arm_at(&self, lbn: u64) -> Arm {
        let l = self.locate(lbn);
        Arm {
            cyl: l.cyl,
            head: l.head,
        }
    }

    /// Streaming: the head has just read sector `from - 1` at `t0` and keeps
    /// reading. When has it read everything below `to`?
    pub fn stream_time(&self, from: u64, t0: Instant, to: u64) -> Instant {
        if to <= from {
            return t0;
        }
        let arm = self.arm_at(from.saturating_sub(1));
        self.access(t0, arm, from, (to - from) as u32, false).end
    }

    /// Streaming from `from` at `t0`: the first sector not yet read at `t`,
    /// at most `limit`.
    pub fn stream_progress(&self, from: u64, t0: Instant, t: Instant, limit: u64) -> u64 {
        self.stream_walk(from, t0, t, limit).0
    }

    /// [`Mechanics::stream_progress`], and when the walk reached `limit`
    /// (or the drive's end) by `t`, the instant it did: what
    /// [`Mechanics::stream_time`] gives for that end, found by the same
    /// steps, so one walk answers both.
    pub fn stream_walk(
        &self,
        from: u64,
        t0: Instant,
        t: Instant,
        limit: u64,
    ) -> (u64, Option<Instant>) {
        let mut lbn = from;
        let mut arm = self.arm_at(from.saturating_sub(1));
        let mut now = t0;
        while lbn < limit && lbn < self.layout.capacity() {
            let loc = self.locate(lbn);
            now += self.move_time(arm, &loc, false);
            now += self.rotational_wait(now, loc.slot, loc.spt);
            if now >= t {
                return (lbn, None);
            }
            let room = (limit - lbn).min(u64::from(loc.left_on_track)) as u32;
            // Sectors fully passed by `t`: estimate from the angle, then fix
            // the rounding by checking the neighbours.
            let elapsed = t - now;
            let base = self.slot_angle(u64::from(loc.slot), loc.spt);
            // In u64 when the product fits (any wait short of days): the
            // same quotient without a 128-bit division.
            let period = self.period.as_nanos();
            let passed = match elapsed
                .as_nanos()
                .checked_add(base.as_nanos())
                .and_then(|x| x.checked_mul(u64::from(loc.spt)))
            {
                Some(x) => u128::from(x / period),
                None => {
                    (u128::from(elapsed.as_nanos()) + u128::from(base.as_nanos()))
                        * u128::from(loc.spt)
                        / u128::from(period)
                }
            };
            let mut k = passed
                .saturating_sub(u128::from(loc.slot))
                .min(u128::from(room)) as u32;
            while k > 0 && self.transfer(loc.slot, k, loc.spt) > elapsed {
                k -= 1;
            }
            while k < room && self.transfer(loc.slot, k + 1, loc.spt) <= elapsed {
                k += 1;
            }
            lbn += u64::from(k);
            if k < room {
                return (lbn, None);
            }
            now += self.transfer(loc.slot, k, loc.spt);
            arm = Arm {
                cyl: loc.cyl,
                head: loc.head,
            };
        }
        (lbn.min(limit), Some(now))
    }
}

/// Most distances the seek memo covers (4 bytes each): drives with more
/// cylinders compute seeks beyond this every time.
const MEMO_DISTANCES: u32 = 1 << 20;

/// [`SeekCurve::time`] by distance, filled in as distances are asked.
#[derive(Clone, Debug, Default)]
pub(crate) struct SeekMemo {
    /// Nanoseconds + 1 by distance; 0 when not yet computed. Four bytes
    /// (seeks up to 4.29 s; a longer one is computed every time): random
    /// requests look up distances all over the table, and half the bytes
    /// miss the cache half as often.
    ns: std::cell::OnceCell<Box<[Cell<u32>]>>,
}

impl SeekMemo {
    /// The seek over `d` cylinders on a drive of `cylinders`.
    fn time(&self, curve: &SeekCurve, cylinders: u32, d: u32) -> Duration {
        let size = cylinders.min(MEMO_DISTANCES);
        if d >= size {
            return curve.time(d);
        }
        let table = self
            .ns
            .get_or_init(|| (0..size).map(|_| Cell::new(0)).collect());
        match table[d as usize].get() {
            0 => {
                let t = curve.time(d);
                if let Ok(n) = u32::try_from(t.as_nanos().saturating_add(1)) {
                    table[d as usize].set(n);
                }
                t
            }
            n => Duration::from_nanos(u64::from(n - 1)),
        }
    }
}

/// Runs the cache holds: a random read's own track, the stream it left and
/// the track the stream reached.
const RUNS: usize = 4;

/// A few located runs, replaced round-robin. Inside a run the location of a
/// later sector follows by arithmetic.
#[derive(Clone, Debug, Default)]
pub(crate) struct RunCache {
    /// (first lbn, its location); an empty slot has `left_on_track` 0.
    runs: [Cell<(u64, Location)>; RUNS],
    /// The slot the next miss replaces.
    next: Cell<usize>,
}

impl RunCache {
    fn get(&self, lbn: u64) -> Option<Location> {
        self.runs.iter().find_map(|run| {
            let (first, loc) = run.get();
            let d = lbn.wrapping_sub(first);
            (d < u64::from(loc.left_on_track)).then(|| {
                // slot < spt and d < left_on_track <= spt, so
                // one subtraction brings the sum back onto the track.
                let d = d as u32;
                let slot = loc.slot + d;
                Location {
                    slot: if slot >= loc.spt {
                        slot - loc.spt
                    } else {
                        slot
                    },
                    left_on_track: loc.left_on_track - d,
                    ..loc
                }
            })
        })
    }

    fn put(&self, lbn: u64, loc: Location) {
        let i = self.next.get();
        self.runs[i].set((lbn, loc));
        self.next.set((i + 1) % RUNS);
    }
}

/// A test drive: one head, `cylinders` cylinders of 100 sectors with skews
/// of 10, 10 ms per revolution, a 0.5 ms head switch, seeks from 1 ms (one
/// cylinder) to `full_seek_ms` (full stroke).
#[cfg(test)]
pub(crate) fn test_mechanics(cylinders: u32, full_seek_ms: f64, write_settle_ns: i64) -> Mechanics {
    use super::geometry::Zone;
    let last = cylinders - 1;
    Mechanics {
        run_cache: Default::default(),
        seek_memo: Default::default(),
        layout: Layout::new(1, vec![Zone::new(0, last, 100, 10, 10)]).unwrap(),
        seek: SeekCurve::Table(vec![(1, 1.0), (last, full_seek_ms)]),
        period: Duration::from_millis(10),
        head_switch: Duration::from_micros(500),
        write_settle_ns,
        phase: Duration::ZERO,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_time::{at, ns};

    /// 1 head, 100 cylinders of 100 sectors, 10 ms per revolution, skew 10.
    fn mech() -> Mechanics {
        test_mechanics(100, 5.0, 200_000)
    }

    #[test]
    fn rotational_wait_is_the_angular_distance_to_the_sector() {
        let m = mech();
        // At t=0 the head is over slot 0; slot 25 is a quarter turn away.
        assert_eq!(m.rotational_wait(at(0), 25, 100), ns(2_500_000));
        // Just past slot 25: nearly a full turn.
        assert_eq!(m.rotational_wait(at(2_500_001), 25, 100), ns(9_999_999));
        assert_eq!(m.rotational_wait(at(12_500_000), 25, 100), Duration::ZERO);
    }

    #[test]
    fn one_track_transfer_takes_its_share_of_a_revolution() {
        let m = mech();
        let a = m.access(at(0), Arm::default(), 0, 50, false);
        assert_eq!((a.first, a.end), (at(0), at(5_000_000)));
    }

    #[test]
    fn access_adds_seek_then_waits_for_the_sector() {
        let m = mech();
        // lbn 1000 = cylinder 10; its slot is shifted by 10 cylinder skews
        // of 10 = 100 = slot 0. Seek of 10 cylinders: 1 + 4*(9/98) ms.
        let a = m.access(at(0), Arm::default(), 1000, 1, false);
        let seek = at(0) + m.seek.time(10);
        assert_eq!(a.first, seek + m.rotational_wait(seek, 0, 100));
        assert_eq!(a.arm, Arm { cyl: 10, head: 0 });
        // A write after moving also waits for the settle time.
        let w = m.access(at(0), Arm::default(), 1000, 1, true);
        let t = seek + ns(200_000);
        assert_eq!(w.first, t + m.rotational_wait(t, 0, 100));
    }

    #[test]
    fn a_negative_write_settle_shortens_a_write_movement() {
        let mut m = mech();
        m.write_settle_ns = -300_000;
        let to = m.locate(1000);
        let seek = m.seek.time(10);
        assert_eq!(m.move_time(Arm::default(), &to, true), seek - ns(300_000));
        assert_eq!(m.move_time(Arm::default(), &to, false), seek);
        // No movement, no settle; never below zero.
        assert_eq!(
            m.move_time(Arm { cyl: 10, head: 0 }, &to, true),
            Duration::ZERO
        );
        m.write_settle_ns = -1_000_000_000;
        assert_eq!(m.move_time(Arm::default(), &to, true), Duration::ZERO);
    }

    #[test]
    fn crossing_a_track_costs_the_skew() {
        let m = mech();
        // 200 sectors from 0: track 0, switch to cylinder 1 (1 ms seek),
        // whose first sector sits 10 slots (1 ms) later: exactly one skew.
        let a = m.access(at(0), Arm::default(), 0, 200, false);
        assert_eq!(a.end, at(10_000_000 + 1_000_000 + 10_000_000));
    }

    #[test]
    fn stream_progress_inverts_stream_time() {
        let m = mech();
        for to in [1u64, 37, 100, 101, 150, 420] {
            let t = m.stream_time(0, at(0), to);
            assert_eq!(m.stream_progress(0, at(0), t, 10_000), to, "to={to}");
            assert!(
                m.stream_progress(0, at(0), t - ns(1), 10_000) < to,
                "to={to}"
            );
        }
        assert_eq!(m.stream_progress(0, at(0), at(u64::MAX / 4), 333), 333);
    }

    #[test]
    fn a_finished_stream_walk_ends_when_stream_time_says() {
        let m = mech();
        for (from, limit) in [(0u64, 1u64), (0, 37), (5, 100), (99, 101), (0, 420), (7, 7)] {
            let done = m.stream_time(from, at(0), limit);
            assert_eq!(m.stream_walk(from, at(0), done, limit), (limit, Some(done)));
            if limit > from {
                let (front, end) = m.stream_walk(from, at(0), done - ns(1), limit);
                assert!(front < limit && end.is_none(), "{from}..{limit}");
            }
        }
    }

    #[test]
    fn the_seek_memo_never_changes_a_time() {
        let m = mech();
        let cyl = m.layout.cylinders();
        // Twice: computed, then from the memo; past the table too.
        for _ in 0..2 {
            for d in (1..cyl + 3).rev() {
                assert_eq!(m.seek_memo.time(&m.seek, cyl, d), m.seek.time(d), "d={d}");
            }
        }
        assert_eq!(
            m.seek_memo.time(&m.seek, 1 << 21, 1 << 20),
            m.seek.time(1 << 20)
        );
        // Seeks past what the memo's four bytes hold are computed each time.
        let slow = test_mechanics(100, 9_000.0, 0);
        for _ in 0..2 {
            for d in 1..100 {
                let t = slow.seek_memo.time(&slow.seek, 100, d);
                assert_eq!(t, slow.seek.time(d), "d={d}");
            }
        }
        assert!(slow.seek.time(99).as_nanos() > u64::from(u32::MAX));
    }

    #[test]
    fn the_run_cache_never_changes_a_location() {
        let model = crate::presets::preset("ibm-dnes-309170w").unwrap();
        let crate::Model::Hdd(spec) = model else {
            unreachable!()
        };
        let m = Mechanics {
            run_cache: Default::default(),
            seek_memo: Default::default(),
            layout: spec.layout.clone(),
            seek: spec.seek.clone(),
            period: spec.period(),
            head_switch: ns(1),
            write_settle_ns: 0,
            phase: Duration::ZERO,
        };
        let cap = m.layout.capacity();
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Runs of nearby lookups (cache hits) mixed with far jumps.
            let base = x % cap;
            for d in [0, 1, 5, 300, 2] {
                let lbn = (base + d).min(cap - 1);
                assert_eq!(m.locate(lbn), m.layout.locate(lbn), "lbn {lbn}");
            }
        }
    }
}
