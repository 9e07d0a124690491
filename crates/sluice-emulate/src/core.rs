//! The timing core: a drive model fed requests at given instants, saying
//! which complete when. Pure (no clock, no threads, no FUSE), so the tests
//! drive it with made-up instants; [`crate::Emulator`] drives it with a
//! monotonic clock.

use std::collections::{HashMap, VecDeque};

use sluice::{Instant, SECTOR_BYTES};
use sluice_sim::device::{build, Command, Device, InternalOrder, Model, Setup};

/// What a request asks of the drive: a byte range to read or write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Io {
    pub write: bool,
    /// Byte offset.
    pub offset: u64,
    /// Bytes (a zero-length request still costs the drive a command).
    pub len: u32,
}

impl Io {
    pub fn read(offset: u64, len: u32) -> Self {
        Io {
            write: false,
            offset,
            len,
        }
    }

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
