//! The timing core: a drive model fed requests at given instants, saying
//! which complete when. Pure (no clock, no threads, no FUSE), so the tests
//! drive it with made-up instants; [`crate::Emulator`] drives it with a
//! monotonic clock.

use std::collections::{HashMap, VecDeque};

use sluice::{Instant, SECTOR_BYTES};
use sluice_device::{build, Command, Device, InternalOrder, Model, Setup};

/// What a request asks of the drive: a byte range to read or write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Io {
    /// A write (else a read).
    pub write: bool,
    /// Byte offset.
    pub offset: u64,
    /// Bytes (a zero-length request still costs the drive a command).
    pub len: u32,
}

impl Io {
    /// A read of `len` bytes at byte `offset`.
    pub fn read(offset: u64, len: u32) -> Self {
        Io {
            write: false,
            offset,
            len,
        }
    }

    /// A write of `len` bytes at byte `offset`.
    pub fn write(offset: u64, len: u32) -> Self {
        Io {
            write: true,
            offset,
            len,
        }
    }

    /// The sectors the range touches, as the drive command covering them.
    fn command(&self, tag: u64, capacity: u64) -> Command {
        let first = self.offset / SECTOR_BYTES;
        let end = (self.offset + u64::from(self.len)).div_ceil(SECTOR_BYTES);
        let first = first.min(capacity.saturating_sub(1));
        let end = end.clamp(first + 1, capacity.max(first + 1));
        Command {
            flow: 0,
            tag,
            write: self.write,
            lbn: first,
            sectors: (end - first).min(u64::from(u32::MAX)) as u32,
        }
    }
}

/// A drive model with its command queue and, in front of it, the host's
/// queue of requests the drive has no room for yet (served first come,
/// first served, as the kernel's `none` scheduler hands them on).
///
/// `T` is whatever the caller needs back when a request completes (a FUSE
/// reply, a test's label).
pub struct TimingCore<T> {
    device: Box<dyn Device>,
    capacity: u64,
    depth: usize,
    /// Requests waiting for room in the drive's queue.
    waiting: VecDeque<(Command, T)>,
    /// Requests in the drive, by tag.
    in_drive: HashMap<u64, T>,
    next_tag: u64,
    /// Where the model's clock is: the last instant it was handed.
    model_now: Instant,
    /// Completed, not yet collected by [`TimingCore::complete`].
    done: Vec<(Instant, T)>,
}

impl<T> TimingCore<T> {
    /// A fresh drive of `model` that accepts `queue_depth` commands at once
    /// and orders them by `internal`.
    pub fn new(model: &Model, queue_depth: usize, internal: InternalOrder, seed: u64) -> Self {
        let device = build(
            model,
            &Setup {
                queue_depth,
                internal,
                write_cache: None,
                read_cache: None,
                max_command_age: None,
                seed,
            },
        );
        let depth = device.queue_depth().max(1);
        TimingCore {
            device,
            capacity: model.capacity(),
            depth,
            waiting: VecDeque::new(),
            in_drive: HashMap::new(),
            next_tag: 0,
            model_now: Instant::ZERO,
            done: Vec::new(),
        }
    }

    /// Requests not yet complete (in the drive or waiting for it).
    pub fn outstanding(&self) -> usize {
        self.waiting.len() + self.in_drive.len()
    }

    /// A request arrives at `now` (instants handed to the core never go
    /// backwards: an earlier one is taken as the latest seen).
    pub fn submit(&mut self, now: Instant, io: Io, payload: T) {
        let now = now.max(self.model_now);
        // Bring the model up to `now` first: what completed before this
        // arrival frees room at the instant it completed.
        self.advance(now);
        let cmd = io.command(self.next_tag, self.capacity);
        self.next_tag += 1;
        self.waiting.push_back((cmd, payload));
        self.fill(now);
    }

    /// When the next request completes (or the model next needs to be
    /// woken for its own work), if anything is under way.
    pub fn next_event(&self) -> Option<Instant> {
        if !self.done.is_empty() {
            return Some(self.model_now);
        }
        self.device.next_completion()
    }

    /// Everything that completed at or before `now`, in completion order,
    /// each with the instant the model completed it.
    pub fn complete(&mut self, now: Instant) -> Vec<(Instant, T)> {
        let now = now.max(self.model_now);
        self.advance(now);
        std::mem::take(&mut self.done)
    }

    /// Step the model through its events up to `now` in time order: each
    /// completion frees a queue slot at the instant it happens, so a late
    /// wake-up of the caller delays replies but never the model.
    fn advance(&mut self, now: Instant) {
        while let Some(t) = self.device.next_completion() {
            if t > now {
                break;
            }
            let t = t.max(self.model_now);
            self.model_now = t;
            let before = self.done.len();
            while let Some(tag) = self.device.pop_completion(t) {
                if let Some(p) = self.in_drive.remove(&tag) {
                    self.done.push((t, p));
                }
            }
            self.fill(t);
            if self.done.len() == before && self.device.next_completion() == Some(t) {
                // An event the model does not move past: leave it for now.
                break;
            }
        }
        self.model_now = now;
    }

    /// Hand the drive waiting requests while it has room.
    fn fill(&mut self, now: Instant) {
        while self.in_drive.len() < self.depth {
            let Some((cmd, payload)) = self.waiting.pop_front() else {
                break;
            };
            self.in_drive.insert(cmd.tag, payload);
            self.device.submit(now, cmd);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sluice::Duration;
    use sluice_device::presets::preset;

    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * KIB;

    fn core<T>(name: &str, depth: usize, internal: InternalOrder) -> TimingCore<T> {
        TimingCore::new(&preset(name).unwrap(), depth, internal, 1)
    }

    /// Run until everything completes, waking exactly at each event (as
    /// a perfect clock would); the completions in order.
    fn drain<T>(c: &mut TimingCore<T>) -> Vec<(Instant, T)> {
        let mut all = Vec::new();
        while let Some(t) = c.next_event() {
            all.extend(c.complete(t));
        }
        all
    }

    #[test]
    fn sectors_cover_the_bytes() {
        let cap = 1 << 30;
        let c = Io::read(4096, 4096).command(7, cap);
        assert_eq!((c.tag, c.lbn, c.sectors, c.write), (7, 8, 8, false));
        let c = Io::write(100, 10).command(0, cap);
        assert_eq!((c.lbn, c.sectors, c.write), (0, 1, true));
        let c = Io::read(500, 24).command(0, cap);
        assert_eq!((c.lbn, c.sectors), (0, 2));
        // Past the end: clamped to the drive.
        let c = Io::read(cap * 512, 4096).command(0, cap);
        assert_eq!((c.lbn, c.sectors), (cap - 1, 1));
    }

    #[test]
    fn a_random_4k_read_on_the_maxtor_takes_milliseconds() {
        let mut c = core("maxtor-stm332061", 1, InternalOrder::Satf);
        let mut total = Duration::ZERO;
        let mut now = Instant::ZERO;
        let n = 200u64;
        let span = 8 << 30; // kernel.py's 8 GiB file
        for i in 0..n {
            let offset = (spread(i) % (span / 4096)) * 4096;
            c.submit(now, Io::read(offset, 4096), "r");
            let t = c.next_event().expect("the read is under way");
            assert!(c.complete(t - Duration::from_nanos(1)).is_empty());
            let done = c.complete(t);
            assert_eq!(done.len(), 1);
            total += t - now;
            now = t + Duration::from_millis(1); // think time, so no read-ahead hits
        }
        let mean_ms = total.as_millis_f64() / n as f64;
        assert!(
            (4.0..=25.0).contains(&mean_ms),
            "mean 4 KiB random read {mean_ms:.2} ms"
        );
    }

    /// A well-spread number from `i` (splitmix64's finaliser).
    fn spread(i: u64) -> u64 {
        let mut x = i.wrapping_add(0x9E37_79B9_7F4A_7C15);
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^ (x >> 31)
    }

    #[test]
    fn sequential_reads_stream_at_the_media_rate() {
        let mut c = core("maxtor-stm332061", 1, InternalOrder::Satf);
        let mut now = Instant::ZERO;
        let (req, total) = (128 * KIB, 64 * MIB);
        // The first read pays a seek; time the rest.
        c.submit(now, Io::read(0, req as u32), "first");
        now = c.next_event().unwrap();
        c.complete(now);
        let start = now;
        let mut off = req;
        while off < total {
            c.submit(now, Io::read(off, req as u32), "seq");
            now = c.next_event().unwrap();
            assert_eq!(c.complete(now).len(), 1);
            off += req;
        }
        let mb_s = (total - req) as f64 / 1e6 / (now - start).as_secs_f64();
        // The drive's outer zone: 89 MB/s (its preset's summary).
        assert!((60.0..=100.0).contains(&mb_s), "{mb_s:.1} MB/s");
    }

    #[test]
    fn a_queueing_drive_serves_the_nearer_request_first() {
        for (internal, order) in [
            (InternalOrder::Satf, ["busy", "near", "far"]),
            (InternalOrder::Fcfs, ["busy", "far", "near"]),
        ] {
            let mut c = core("maxtor-7l250s0", 32, internal);
            // Park the head at 1 GiB.
            c.submit(Instant::ZERO, Io::read(1 << 30, 4096), "park");
            let t = c.next_event().unwrap();
            c.complete(t);
            // While the drive is busy, two requests queue in it: one
            // 100 GiB away, then one near the head.
            c.submit(t, Io::read((1 << 30) + MIB, 4096), "busy");
            c.submit(t, Io::read(100 << 30, 4096), "far");
            c.submit(t, Io::read((1 << 30) + 64 * KIB, 4096), "near");
            let got: Vec<_> = drain(&mut c).into_iter().map(|(_, p)| p).collect();
            assert_eq!(got, order, "{internal:?}");
        }
    }

    #[test]
    fn without_room_in_the_drive_requests_wait_in_arrival_order() {
        let mut c = core("maxtor-stm332061", 1, InternalOrder::Satf);
        c.submit(Instant::ZERO, Io::read(50 << 30, 4096), "a");
        c.submit(Instant::ZERO, Io::read(1 << 20, 4096), "b");
        c.submit(Instant::ZERO, Io::read(200 << 30, 4096), "c");
        assert_eq!(c.outstanding(), 3);
        let got: Vec<_> = drain(&mut c).into_iter().map(|(_, p)| p).collect();
        assert_eq!(got, ["a", "b", "c"]);
        assert_eq!(c.outstanding(), 0);
        assert_eq!(c.next_event(), None);
    }

    #[test]
    fn a_late_wake_up_delays_replies_but_not_the_model() {
        let run = |late: bool| {
            let mut c = core("maxtor-7l250s0", 4, InternalOrder::Satf);
            for i in 0..12u64 {
                let offset = (spread(i) % (1 << 26)) * 4096;
                c.submit(Instant::ZERO, Io::read(offset, 4096), i);
            }
            if late {
                // One wake-up long after everything is done.
                c.complete(Instant::from_nanos(10 * sluice::NS_PER_S))
            } else {
                drain(&mut c)
            }
        };
        let (late, punctual) = (run(true), run(false));
        assert_eq!(late.len(), 12);
        assert_eq!(late, punctual);
    }

    #[test]
    fn writes_complete_too() {
        let mut c = core("maxtor-stm332061", 1, InternalOrder::Satf);
        c.submit(Instant::ZERO, Io::write(1 << 30, 64 * 1024), "w");
        let done = drain(&mut c);
        assert_eq!(done.len(), 1);
        assert!(done[0].0 > Instant::ZERO);
    }
}
