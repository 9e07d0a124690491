use super::geometry::Zone;
use super::*;
use crate::test_time::{at, ns};

/// A small drive: 2 heads, 1000 cylinders of 100 sectors, 6000 rpm
/// (10 ms per turn), fixed overheads, a 2-segment cache.
fn spec(write_back: bool) -> HddSpec {
    HddSpec {
        name: "t".into(),
        layout: Layout::new(2, vec![Zone::new(0, 999, 100, 10, 10)]).unwrap(),
        seek: SeekCurve::Table(vec![(1, 1.0), (999, 10.0)]),
        rpm: 6000.0,
        head_switch_ms: 0.5,
        write_settle_ms: 0.0,
        overheads: Overheads::uniform(0.1, 0.2),
        bus_ms_per_sector: 0.001,
        bus_write_ms_per_sector: 0.001,
        cache: CacheSpec {
            segments: 2,
            segment_sectors: 1000,
            read_ahead_sectors: 1000,
            write_back,
            write_buffer_sectors: 64,
            read_ahead_stop: ReadAheadStop::Count,
        },
        max_queue: 8,
        interface: Interface::default(),
        full_stroke_ms: None,
    }
}

fn cmd(tag: u64, write: bool, lbn: u64, sectors: u32) -> Command {
    Command {
        flow: 0,
        tag,
        write,
        lbn,
        sectors,
    }
}

/// Submit at `at`, run to completion, return the response time.
fn response(d: &mut Hdd, at: Instant, c: Command) -> Duration {
    d.submit(at, c);
    loop {
        let t = d.next_completion().expect("work in progress");
        if let Some(tag) = d.pop_completion(t) {
            assert_eq!(tag, c.tag);
            return t - at;
        }
    }
}

#[test]
fn read_miss_costs_overhead_positioning_and_transfer() {
    let mut d = Hdd::new(&spec(false), 1, InternalOrder::Fcfs, Duration::ZERO);
    // lbn 0 at t=0: 0.2 ms overhead, then wait for slot 0 (9.8 ms),
    // 8 sectors (0.8 ms), bus of the last sector.
    let r = response(&mut d, at(0), cmd(1, false, 0, 8));
    assert_eq!(r, ns(200_000 + 9_800_000 + 800_000 + 1_000));
}

#[test]
fn read_ahead_makes_the_next_read_a_cache_hit() {
    let mut d = Hdd::new(&spec(false), 1, InternalOrder::Fcfs, Duration::ZERO);
    let first = response(&mut d, at(0), cmd(1, false, 0, 8));
    // 50 ms later the read-ahead has buffered the rest of the segment.
    let hit = response(&mut d, at(50_000_000), cmd(2, false, 8, 8));
    assert_eq!(hit, ns(100_000 + 8 * 1_000));
    assert!(first > hit * 10);
}

#[test]
fn write_back_completes_at_bus_speed_and_flushes_when_idle() {
    let mut d = Hdd::new(&spec(true), 1, InternalOrder::Fcfs, Duration::ZERO);
    d.submit(at(0), cmd(1, true, 5000, 8));
    assert_eq!(d.next_completion(), Some(at(100_000 + 8_000)));
    assert_eq!(d.dirty_sectors(), 8);
    assert_eq!(d.pop_completion(at(108_000)), Some(1));
    // Idle: the drive starts writing the data back by itself, which
    // takes a seek and a rotational wait.
    let flush_end = d.next_completion().expect("destage scheduled");
    assert!(flush_end > at(108_000 + 1_000_000), "{flush_end:?}");
    assert_eq!(d.pop_completion(flush_end), None);
    assert_eq!(d.dirty_sectors(), 0);
    assert_eq!(d.next_completion(), None);
}

#[test]
fn a_full_write_buffer_makes_writes_wait_for_the_media() {
    let mut d = Hdd::new(&spec(true), 1, InternalOrder::Fcfs, Duration::ZERO);
    // 64 dirty sectors fill the buffer; the next write must destage.
    d.submit(at(0), cmd(1, true, 100_000, 64));
    d.submit(at(0), cmd(2, true, 150_000, 8));
    let mut done = vec![];
    while done.len() < 2 {
        let t = d.next_completion().unwrap();
        while let Some(tag) = d.pop_completion(t) {
            done.push((tag, t));
        }
    }
    assert!(done[0].1 < at(200_000), "{done:?}");
    assert!(
        done[1].1 > at(2_000_000),
        "second write waited for a destage: {done:?}"
    );
}

/// Write 8 sectors at 5000 and let the drive start writing them back
/// on its own; returns when that destage ends.
fn idle_destage_of_one_write(d: &mut Hdd) -> Instant {
    d.submit(at(0), cmd(1, true, 5000, 8));
    assert_eq!(d.pop_completion(at(108_000)), Some(1));
    d.next_completion().expect("idle destage under way")
}

#[test]
fn a_write_continuing_the_destage_joins_it() {
    let mut d = Hdd::new(&spec(true), 1, InternalOrder::Fcfs, Duration::ZERO);
    let end = idle_destage_of_one_write(&mut d);
    // The continuation crosses the bus at once (0.1 ms overhead, 8 us)
    // and the head writes it straight after: 8 more slots of a
    // 100-slot, 10 ms track, with no rotational wait.
    d.submit(at(200_000), cmd(2, true, 5008, 8));
    assert_eq!(d.next_completion(), Some(at(308_000)));
    assert_eq!(d.pop_completion(at(308_000)), Some(2));
    assert_eq!(d.next_completion(), Some(end + ns(800_000)));
    assert_eq!(d.pop_completion(end + ns(800_000)), None);
    assert_eq!(d.dirty_sectors(), 0);
}

#[test]
fn a_write_elsewhere_waits_for_the_destage() {
    let mut d = Hdd::new(&spec(true), 1, InternalOrder::Fcfs, Duration::ZERO);
    let end = idle_destage_of_one_write(&mut d);
    d.submit(at(200_000), cmd(2, true, 7000, 8));
    assert_eq!(d.next_completion(), Some(end));
    assert_eq!(d.pop_completion(end), None);
    assert_eq!(d.next_completion(), Some(end + ns(108_000)));
}

#[test]
fn a_waiting_read_stops_writes_joining_the_destage() {
    let mut d = Hdd::new(&spec(true), 1, InternalOrder::Fcfs, Duration::ZERO);
    let end = idle_destage_of_one_write(&mut d);
    d.submit(at(150_000), cmd(2, false, 90_000, 8));
    d.submit(at(200_000), cmd(3, true, 5008, 8));
    // The destage ends as it was; the read goes first, then the write.
    assert_eq!(d.next_completion(), Some(end));
    assert_eq!(completion_order(&mut d), vec![2, 3]);
}

#[test]
fn a_joined_write_waits_for_buffer_room_as_the_head_drains_it() {
    let mut d = Hdd::new(&spec(true), 1, InternalOrder::Fcfs, Duration::ZERO);
    let end = idle_destage_of_one_write(&mut d);
    // Two 32-sector continuations fill the 64-sector buffer; an 8-sector
    // one gets in when the head has written the first of them (3.2 ms
    // after the original run's end), then crosses the bus.
    d.submit(at(200_000), cmd(2, true, 5008, 32));
    assert_eq!(d.pop_completion(at(332_000)), Some(2));
    d.submit(at(332_000), cmd(3, true, 5040, 32));
    assert_eq!(d.pop_completion(at(464_000)), Some(3));
    d.submit(at(464_000), cmd(4, true, 5072, 8));
    let taken = end + ns(3_200_000 + 100_000 + 8_000);
    assert_eq!(d.next_completion(), Some(taken));
    assert_eq!(d.pop_completion(taken), Some(4));
    assert_eq!(d.next_completion(), Some(end + ns(7_200_000)));
}

/// The small drive, write-through, its bus at `bus_ms` per sector
/// both ways, with `interface`.
fn through(bus_ms: f64, interface: Interface) -> Hdd {
    let mut s = spec(false);
    s.bus_ms_per_sector = bus_ms;
    s.bus_write_ms_per_sector = bus_ms;
    s.interface = interface;
    Hdd::new(&s, 1, InternalOrder::Fcfs, Duration::ZERO)
}

#[test]
fn a_write_through_write_moves_the_arm_while_its_data_crosses_the_bus() {
    // 0.2 ms overhead, then slot 5 passes at 0.5 ms: the 8 sectors'
    // data (0.4 ms on the bus) need not all be in first.
    let mut d = through(0.05, Interface::default());
    assert_eq!(
        response(&mut d, at(0), cmd(1, true, 5, 8)),
        ns(500_000 + 800_000)
    );
}

#[test]
fn a_write_watermark_holds_the_media_until_that_share_of_data_is_in() {
    // All the data first (at 0.6 ms): slot 5 is missed, one more turn.
    let mut d = through(
        0.05,
        Interface {
            write_watermark: 1.0,
            ..Interface::default()
        },
    );
    assert_eq!(
        response(&mut d, at(0), cmd(1, true, 5, 8)),
        ns(10_500_000 + 800_000)
    );
}

#[test]
fn the_head_never_overtakes_a_slow_bus() {
    // 0.15 ms a sector on the bus, 0.1 on the media: the first of 8
    // sectors may go at 0.2 + (1.2 - 0.7) = 0.7 ms at the earliest.
    let mut d = through(0.15, Interface::default());
    assert_eq!(
        response(&mut d, at(0), cmd(1, true, 5, 8)),
        ns(10_500_000 + 800_000)
    );
    let mut d = through(0.15, Interface::default());
    assert_eq!(
        response(&mut d, at(0), cmd(1, true, 8, 8)),
        ns(800_000 + 800_000)
    );
}

#[test]
fn completion_overheads_end_every_command() {
    let i = Interface {
        completion_ms: [0.3, 0.4],
        ..Interface::default()
    };
    let mut d = through(0.001, i);
    // The read miss of read_miss_costs_overhead_positioning_and_transfer.
    assert_eq!(
        response(&mut d, at(0), cmd(1, false, 0, 8)),
        ns(10_801_000 + 300_000)
    );
    let mut d = through(0.001, i);
    assert_eq!(
        response(&mut d, at(0), cmd(1, true, 5, 8)),
        ns(1_300_000 + 400_000)
    );
}

#[test]
fn a_read_miss_reconnects_at_its_watermark_after_the_reselect() {
    // Sectors 0-7 pass from 10.0 to 10.8 ms. At once: the bus (1.6 ms)
    // from 10.0; at half the data plus 0.05 ms: from 10.45.
    let mut d = through(0.2, Interface::default());
    assert_eq!(response(&mut d, at(0), cmd(1, false, 0, 8)), ns(11_600_000));
    let i = Interface {
        read_watermark: 0.5,
        reselect_ms: 0.05,
        ..Interface::default()
    };
    let mut d = through(0.2, i);
    assert_eq!(response(&mut d, at(0), cmd(1, false, 0, 8)), ns(12_050_000));
}

#[test]
fn read_ahead_to_the_track_end_stops_there() {
    for stop in [ReadAheadStop::Count, ReadAheadStop::TrackEnd] {
        let mut s = spec(false);
        s.cache.read_ahead_stop = stop;
        let mut d = Hdd::new(&s, 1, InternalOrder::Fcfs, Duration::ZERO);
        response(&mut d, at(0), cmd(1, false, 0, 8));
        // Track 0 holds sectors 0-99; 104 is on the next track.
        let same_track = response(&mut d, at(50_000_000), cmd(2, false, 16, 8));
        let next_track = response(&mut d, at(100_000_000), cmd(3, false, 104, 8));
        assert_eq!(same_track, ns(108_000), "{stop:?}");
        assert_eq!(
            next_track == ns(108_000),
            stop == ReadAheadStop::Count,
            "{next_track:?}"
        );
    }
}

#[test]
fn a_partial_hit_reads_only_the_missing_sectors() {
    let mut s = spec(false);
    s.cache.read_ahead_sectors = 10;
    let mut d = Hdd::new(&s, 1, InternalOrder::Fcfs, Duration::ZERO);
    response(&mut d, at(0), cmd(1, false, 0, 8));
    // The read-ahead stopped at 18 long ago. At 51.2 ms the head is
    // past 10 but before 18: reading 18-29 takes under a turn, reading
    // 10-29 from the media a whole one more.
    let r = response(&mut d, at(51_000_000), cmd(2, false, 10, 20));
    assert!(r < ns(5_000_000), "{r:?}");
}

#[test]
fn whole_track_read_ahead_ignores_the_count_and_wraps_the_segment() {
    let hit = ns(108_000);
    let run = |stop| {
        let mut s = spec(false);
        s.cache.segment_sectors = 50;
        s.cache.read_ahead_sectors = 10;
        s.cache.read_ahead_stop = stop;
        let mut d = Hdd::new(&s, 1, InternalOrder::Fcfs, Duration::ZERO);
        response(&mut d, at(0), cmd(1, false, 0, 8));
        // Long after: is the track's tail (past the count) buffered,
        // and what was right after the read?
        let tail = response(&mut d, at(50_000_000), cmd(2, false, 90, 8));
        let mut d = Hdd::new(&s, 1, InternalOrder::Fcfs, Duration::ZERO);
        response(&mut d, at(0), cmd(1, false, 0, 8));
        let next = response(&mut d, at(50_000_000), cmd(2, false, 8, 8));
        (tail == hit, next == hit)
    };
    assert_eq!(run(ReadAheadStop::Count), (false, true));
    // The stream read to sector 100 into a 50-sector segment: 50-99
    // are kept, 8-15 were overwritten.
    assert_eq!(run(ReadAheadStop::WholeTrack), (true, false));
    // A read that crosses onto track 1 reads ahead through track 2.
    let mut s = spec(false);
    s.cache.read_ahead_stop = ReadAheadStop::WholeTrack;
    let mut d = Hdd::new(&s, 1, InternalOrder::Fcfs, Duration::ZERO);
    response(&mut d, at(0), cmd(1, false, 96, 8));
    assert_eq!(
        response(&mut d, at(100_000_000), cmd(2, false, 290, 8)),
        hit
    );
    assert_ne!(
        response(&mut d, at(200_000_000), cmd(3, false, 310, 8)),
        hit
    );
}

#[test]
fn write_through_goes_to_the_media() {
    let mut d = Hdd::new(&spec(false), 1, InternalOrder::Fcfs, Duration::ZERO);
    let r = response(&mut d, at(0), cmd(1, true, 50_000, 8));
    assert!(r > ns(1_000_000), "{r:?}");
    assert_eq!(d.dirty_sectors(), 0);
}

#[test]
fn an_idle_drive_starts_the_first_command_that_reaches_it() {
    let mut d = Hdd::new(&spec(false), 4, InternalOrder::Satf, Duration::ZERO);
    // Two commands at the same instant: lbn 0 has just passed under the
    // head (almost a full turn away), 300 is one cylinder and a short
    // turn away. SATF would take 300 first, but the drive is idle when
    // lbn 0 reaches it and starts it at once.
    d.submit(at(0), cmd(1, false, 0, 8));
    assert_eq!(
        d.next_completion(),
        Some(at(200_000 + 9_800_000 + 800_000 + 1_000)),
        "started at once, as alone"
    );
    d.submit(at(0), cmd(2, false, 300, 8));
    assert_eq!(completion_order(&mut d), vec![1, 2]);
}

#[test]
fn satf_orders_the_commands_that_wait() {
    let mut d = Hdd::new(&spec(false), 4, InternalOrder::Satf, Duration::ZERO);
    // The first command keeps the drive busy; of the two that wait,
    // 300 (one cylinder away) is reached long before 190,000
    // (cylinder 950).
    d.submit(at(0), cmd(1, false, 0, 8));
    d.submit(at(0), cmd(2, false, 190_000, 8));
    d.submit(at(0), cmd(3, false, 300, 8));
    assert_eq!(completion_order(&mut d), vec![1, 3, 2]);
    // FCFS keeps arrival order.
    let mut f = Hdd::new(&spec(false), 4, InternalOrder::Fcfs, Duration::ZERO);
    for c in [
        cmd(1, false, 0, 8),
        cmd(2, false, 190_000, 8),
        cmd(3, false, 300, 8),
    ] {
        f.submit(at(0), c);
    }
    assert_eq!(completion_order(&mut f), vec![1, 2, 3]);
}

#[test]
fn an_aged_command_is_served_next() {
    let run = |age_ms: Option<u64>| {
        let mut d = Hdd::new(&spec(false), 4, InternalOrder::Satf, Duration::ZERO)
            .with_max_command_age(age_ms.map(Duration::from_millis));
        // As above: SATF prefers 3 over 2 when 1 completes, at 10.8 ms.
        d.submit(at(0), cmd(1, false, 0, 8));
        d.submit(at(0), cmd(2, false, 190_000, 8));
        d.submit(at(0), cmd(3, false, 300, 8));
        completion_order(&mut d)
    };
    assert_eq!(run(None), vec![1, 3, 2]);
    // Both waited 10.8 ms, past a 5 ms limit: the oldest goes first.
    assert_eq!(run(Some(5)), vec![1, 2, 3]);
    // Neither is old enough for a 20 ms limit.
    assert_eq!(run(Some(20)), vec![1, 3, 2]);
}

/// The tags of everything submitted, in completion order.
fn completion_order(d: &mut Hdd) -> Vec<u64> {
    let mut order = vec![];
    while let Some(t) = d.next_completion() {
        while let Some(tag) = d.pop_completion(t) {
            order.push(tag);
        }
    }
    order
}
