//! A rotating disk: zoned geometry, seek curve, rotation, controller
//! overheads, bus transfer, a segmented read cache with read-ahead, and a
//! command queue with the drive's own service order (NCQ/TCQ).
//!
//! An idle drive starts the first command that reaches it at once: it does
//! not wait to see what else the host may send. Its own order (FCFS, SSTF,
//! SATF) chooses among the commands that wait while it is busy. Optional
//! firmware ageing (`max_command_age`) serves a command that has waited
//! longer than that next, whatever the order says.
//!
//! Write-back: a write completes once its data is in the buffer; an idle
//! drive writes dirty data to the media. A write that continues the run the
//! drive is writing back, arriving while nothing else waits, joins that run
//! (as DiskSim's "combine sequential writes"): the head keeps streaming
//! instead of losing a revolution between one write's destage and the next.

pub mod cache;
pub mod geometry;
pub mod mechanics;
pub mod seek;

use std::collections::VecDeque;

use sluice::time::earliest;
use sluice::{CostModel, Duration, Instant, NS_PER_MS};

use self::cache::{Lookup, ReadCache};
use self::geometry::Layout;
use self::mechanics::{Arm, Mechanics};
use self::seek::SeekCurve;
use super::{Command, Device, InternalOrder};

/// Milliseconds as the model's figures give them, to the nearest ns.
fn ms(x: f64) -> Duration {
    Duration::from_millis_f64(x)
}

/// [`Overheads`] and the interface's delays, each to the nearest ns.
#[derive(Clone, Copy, Debug)]
struct OverheadTimes {
    read_hit: [Duration; 2],
    read_miss: [Duration; 2],
    write_hit: [Duration; 2],
    write_miss: [Duration; 2],
    /// [`Interface::reselect_ms`].
    reselect: Duration,
    /// [`Interface::completion_ms`].
    completion: [Duration; 2],
}

impl OverheadTimes {
    fn new(o: &Overheads, i: &Interface) -> Self {
        let both = |t: [f64; 2]| t.map(ms);
        OverheadTimes {
            read_hit: both(o.read_hit),
            read_miss: both(o.read_miss),
            write_hit: both(o.write_hit),
            write_miss: both(o.write_miss),
            reselect: ms(i.reselect_ms),
            completion: both(i.completion_ms),
        }
    }
}

/// Controller overheads per command kind, after a read and after a write
/// (DiskSim's eight "overhead" parameters), in ms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Overheads {
    /// A read served from the buffer: [after a read, after a write], ms.
    pub read_hit: [f64; 2],
    /// A read that goes to the media: [after a read, after a write], ms.
    pub read_miss: [f64; 2],
    /// A write taken into the write-back buffer: [after a read, after a
    /// write], ms.
    pub write_hit: [f64; 2],
    /// A write-through write: [after a read, after a write], ms.
    pub write_miss: [f64; 2],
}

impl Overheads {
    /// The same overhead for every kind of command.
    pub fn uniform(read_hit: f64, miss: f64) -> Self {
        Overheads {
            read_hit: [read_hit; 2],
            read_miss: [miss; 2],
            write_hit: [read_hit; 2],
            write_miss: [miss; 2],
        }
    }
}

/// How the drive talks to the host around the data (DiskSim's interface
/// parameters); all zero for drives described by datasheet figures.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Interface {
    /// Sent after the last data, before the host sees the completion: read,
    /// write ("Read/Write completion overhead"), ms.
    pub completion_ms: [f64; 2],
    /// A read miss reconnects to the host to send its data: the cost of
    /// that reconnection ("First reselect overhead"), ms.
    pub reselect_ms: f64,
    /// A read miss reconnects once this fraction of its data is in the
    /// buffer ("High (read) water mark", by request size); 0: at once.
    pub read_watermark: f64,
    /// A write-through write starts on the media once this fraction of its
    /// data is in the buffer ("Low (write) water mark", by request size);
    /// 0: as soon as the head may.
    pub write_watermark: f64,
}

/// Buffer layout: read segments with read-ahead, and the write-back part.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CacheSpec {
    /// Read segments (0 = no read caching).
    pub segments: usize,
    /// Size of one read segment, in sectors.
    pub segment_sectors: u64,
    /// Sectors read ahead after a read miss (at most a segment).
    pub read_ahead_sectors: u64,
    /// Write-back ("fast write"): a write completes once its data is in the
    /// buffer; the drive writes it to the media later, when idle or when
    /// the buffer is full. Scenarios can switch it with `write_cache`.
    pub write_back: bool,
    /// Dirty sectors the buffer holds before a write must wait for space.
    pub write_buffer_sectors: u64,
    /// Where read-ahead stops.
    pub read_ahead_stop: ReadAheadStop,
}

/// Where a read's read-ahead stops (DiskSim's "Buffer continuous read").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReadAheadStop {
    /// `read_ahead_sectors` past the read.
    #[default]
    Count,
    /// As `Count`, but not past the end of the track the read ended on
    /// (DiskSim's 1): the drive does not switch heads or seek to read ahead.
    TrackEnd,
    /// To the end of the track holding the sector after the read, and
    /// through one more track when the read's segment began on an earlier
    /// track, whatever `read_ahead_sectors` says (DiskSim's 4, DEC's
    /// prefetch). A segment smaller than that keeps only the last sectors
    /// read, so the ones right after the read may be gone by the time the
    /// next read asks for them.
    WholeTrack,
}

/// Everything that describes one disk drive model.
#[derive(Clone, Debug, PartialEq)]
pub struct HddSpec {
    /// Model name.
    pub name: String,
    /// Where each logical block lies: zones, cylinders, surfaces, skews.
    pub layout: Layout,
    /// Seek time by cylinder distance.
    pub seek: SeekCurve,
    /// Spindle speed, revolutions per minute.
    pub rpm: f64,
    /// Time to switch to another surface of the same cylinder, ms.
    pub head_switch_ms: f64,
    /// Added to a write's arm movement; may be negative (DiskSim allows it).
    pub write_settle_ms: f64,
    /// Controller overheads per command kind.
    pub overheads: Overheads,
    /// Host interface transfer time per sector read.
    pub bus_ms_per_sector: f64,
    /// Host interface transfer time per sector written (older SCSI buses
    /// differ by direction).
    pub bus_write_ms_per_sector: f64,
    /// The buffer: read segments, read-ahead and write-back.
    pub cache: CacheSpec,
    /// Commands the drive can queue (1 = no NCQ/TCQ); scenarios choose the
    /// depth actually used with `queue_depth`.
    pub max_queue: usize,
    /// Host interface delays around the data.
    pub interface: Interface,
    /// The full-stroke seek time the description states (DiskSim's "Full
    /// strobe seek time"), ms; `None`: the seek curve's time at the last
    /// cylinder. An extracted curve stops short of the last cylinder and
    /// extrapolating its noisy tail overshoots (13.09 ms for the IBM
    /// DNES-309170W, which states 12.742 ms), so the stated figure wins.
    pub full_stroke_ms: Option<f64>,
}

impl HddSpec {
    /// Period of one revolution.
    pub fn period(&self) -> Duration {
        Duration::from_nanos_f64(60.0e9 / self.rpm)
    }
}

/// What the mechanism is doing: a host command (tagged) or writing dirty
/// buffer data back to the media (untagged).
#[derive(Clone, Copy, Debug)]
struct Busy {
    tag: Option<u64>,
    done: Instant,
}

/// Dirty data waiting in the buffer to be written to the media.
#[derive(Clone, Debug, Default)]
struct WriteBack {
    enabled: bool,
    capacity: u64,
    extents: VecDeque<(u64, u32)>,
    dirty: u64,
    /// The idle destage under way: the sector after the last one it
    /// writes, and the pieces host writes added to it, each with the time
    /// the head finishes it (they hold buffer room until then).
    running: Option<(u64, VecDeque<(Instant, u32)>)>,
}

impl WriteBack {
    /// Take a write into the buffer, merging it with the newest extent when
    /// it continues it.
    fn absorb(&mut self, lbn: u64, n: u32) {
        self.dirty += u64::from(n);
        if let Some(last) = self.extents.back_mut() {
            if last.0 + u64::from(last.1) == lbn
                && u64::from(last.1) + u64::from(n) <= u64::from(u32::MAX)
            {
                last.1 += n;
                return;
            }
        }
        self.extents.push_back((lbn, n));
    }

    fn has_room(&self, n: u32) -> bool {
        self.dirty + u64::from(n) <= self.capacity
    }

    /// When a write of `n` sectors arriving at `now` finds room in the
    /// buffer beside the running destage: sectors joined to that destage
    /// hold room until the head has written them (a piece counts whole
    /// until it is done). `None` when it never would.
    fn room_for_joined(&self, now: Instant, n: u32) -> Option<Instant> {
        let free = self.capacity.checked_sub(self.dirty + u64::from(n))?;
        let pieces = self.running.as_ref().map(|(_, p)| p)?;
        let mut held: u64 = pieces
            .iter()
            .filter(|(end, _)| *end > now)
            .map(|&(_, k)| u64::from(k))
            .sum();
        let mut at = now;
        for &(end, k) in pieces.iter().filter(|(end, _)| *end > now) {
            if held <= free {
                break;
            }
            held -= u64::from(k);
            at = end;
        }
        Some(at)
    }
}

/// How far the drive reads ahead after a read: at most `sectors` (a
/// segment), stopping as `stop` says.
#[derive(Clone, Copy, Debug)]
struct ReadAhead {
    sectors: u64,
    stop: ReadAheadStop,
}

impl ReadAhead {
    /// The sector before which read-ahead after a read of `[lbn, lbn+n)`
    /// stops, the read's segment starting at sector `start`.
    fn limit(self, m: &Mechanics, start: u64, lbn: u64, n: u32) -> u64 {
        let read_ahead = self.sectors;
        let end = lbn + u64::from(n);
        match self.stop {
            ReadAheadStop::Count => end + read_ahead,
            ReadAheadStop::TrackEnd => {
                let last = end - 1;
                (end + read_ahead).min(last + u64::from(m.locate(last).left_on_track))
            }
            ReadAheadStop::WholeTrack => {
                if end >= m.layout.capacity() {
                    return end;
                }
                let next = m.locate(end);
                let track_end = end + u64::from(next.left_on_track);
                let first = m.locate(start.min(end - 1));
                if (first.cyl, first.head) == (next.cyl, next.head) {
                    track_end
                } else {
                    track_end + u64::from(m.locate(lbn).spt)
                }
            }
        }
    }
}

/// The drive's state.
#[derive(Clone, Debug)]
pub struct Hdd {
    name: String,
    mech: Mechanics,
    /// The controller overheads and the interface's fixed delays, as
    /// times: converted once, not per command.
    overheads: OverheadTimes,
    /// Interface transfer per sector: read, write.
    bus: [Duration; 2],
    cache: ReadCache,
    read_ahead: ReadAhead,
    write_back: WriteBack,
    interface: Interface,
    arm: Arm,
    last_write: bool,
    depth: usize,
    order: InternalOrder,
    /// Firmware ageing: a command that has waited longer is served next.
    max_age: Option<Duration>,
    /// Commands waiting for the mechanism, in arrival order, with their
    /// arrival times.
    waiting: VecDeque<(Instant, Command)>,
    busy: Option<Busy>,
    /// Host writes taken into the buffer while the mechanism writes back,
    /// with the times their bus transfers end (their completions).
    joined: VecDeque<(Instant, u64)>,
    done: VecDeque<u64>,
    full_stroke: Duration,
}

impl Hdd {
    /// A drive of model `spec` accepting `depth` commands served in `order`;
    /// `phase` sets the platter angle at time 0 (as time of rotation), so
    /// that a scenario's seed varies it.
    pub fn new(spec: &HddSpec, depth: usize, order: InternalOrder, phase: Duration) -> Self {
        let period = spec.period();
        let mech = Mechanics {
            run_cache: Default::default(),
            seek_memo: Default::default(),
            layout: spec.layout.clone(),
            seek: spec.seek.clone(),
            period,
            head_switch: ms(spec.head_switch_ms),
            write_settle_ns: (spec.write_settle_ms * NS_PER_MS as f64).round() as i64,
            phase: phase % period,
        };
        let full_stroke = match spec.full_stroke_ms {
            Some(stated) => Duration::from_nanos_f64(stated * NS_PER_MS as f64),
            None => mech.seek.time(mech.layout.cylinders().saturating_sub(1)),
        };
        Hdd {
            name: spec.name.clone(),
            cache: ReadCache::new(spec.cache.segments, spec.cache.segment_sectors),
            read_ahead: ReadAhead {
                sectors: spec
                    .cache
                    .read_ahead_sectors
                    .min(spec.cache.segment_sectors),
                stop: spec.cache.read_ahead_stop,
            },
            write_back: WriteBack {
                enabled: spec.cache.write_back && spec.cache.write_buffer_sectors > 0,
                capacity: spec.cache.write_buffer_sectors,
                ..WriteBack::default()
            },
            mech,
            interface: spec.interface,
            overheads: OverheadTimes::new(&spec.overheads, &spec.interface),
            bus: [ms(spec.bus_ms_per_sector), ms(spec.bus_write_ms_per_sector)],
            arm: Arm::default(),
            last_write: false,
            depth: depth.max(1),
            order,
            max_age: None,
            waiting: VecDeque::new(),
            busy: None,
            joined: VecDeque::new(),
            done: VecDeque::new(),
            full_stroke,
        }
    }

    /// Firmware ageing: with `Some(age)`, a waiting command older than `age`
    /// is served next (the oldest first), whatever the internal order
    /// prefers; `None` (the default) leaves the order alone.
    pub fn with_max_command_age(mut self, age: Option<Duration>) -> Self {
        self.max_age = age;
        self
    }

    /// The mechanical model (for tests and tools).
    pub fn mechanics(&self) -> &Mechanics {
        &self.mech
    }

    /// Sectors of written data not yet on the media.
    pub fn dirty_sectors(&self) -> u64 {
        self.write_back.dirty
    }

    /// Where the arm is at `t`: over the read-ahead stream, or where the
    /// last access left it.
    fn arm_now(&self, t: Instant) -> Arm {
        match self.cache.streaming_at(&self.mech, t) {
            Some(lbn) => self.mech.arm_at(lbn),
            None => self.arm,
        }
    }

    fn overhead(&self, table: [Duration; 2]) -> Duration {
        table[usize::from(self.last_write)]
    }

    /// Serve `cmd` starting at `t`; returns its completion time.
    fn serve(&mut self, t: Instant, cmd: &Command) -> Instant {
        let n = cmd.sectors.max(1);
        let per_sector = self.bus[usize::from(cmd.write)];
        let bus = per_sector * u64::from(n);
        let done = if !cmd.write {
            let (mech, read_ahead) = (&self.mech, self.read_ahead);
            let limit = |start| read_ahead.limit(mech, start, cmd.lbn, n);
            match self.cache.lookup(&self.mech, t, cmd.lbn, n, limit) {
                Lookup::Hit => t + self.overhead(self.overheads.read_hit) + bus,
                Lookup::Stream(ready) => {
                    (t + self.overhead(self.overheads.read_hit) + bus).max(ready + per_sector)
                }
                found @ (Lookup::Miss | Lookup::Partial(_)) => {
                    // A partial hit reads from the first sector missing.
                    let from = match found {
                        Lookup::Partial(from) => from,
                        _ => cmd.lbn,
                    };
                    let missing = (cmd.lbn + u64::from(n) - from) as u32;
                    let start = t + self.overhead(self.overheads.read_miss);
                    let arm = self.leave_stream(start);
                    let a = self.mech.access(start, arm, from, missing, false);
                    self.arm = a.arm;
                    let limit = self.read_ahead.limit(&self.mech, cmd.lbn, cmd.lbn, n);
                    self.cache.fill(cmd.lbn, n, a.end, limit);
                    // The drive reconnects once the watermark's share of
                    // the data is buffered, then the bus carries it; it
                    // cannot finish before the last sector is read.
                    let i = &self.interface;
                    let span = (a.end - a.first).as_nanos() as f64;
                    let mark = a.first + Duration::from_nanos((span * i.read_watermark) as u64);
                    let send = mark + self.overheads.reselect;
                    (a.end + per_sector).max(send + bus)
                }
            }
        } else if self.write_back.enabled && u64::from(n) <= self.write_back.capacity {
            // Write-back: make room by writing older data out first if the
            // buffer is full, then take the data at bus speed.
            let mut t = t;
            while !self.write_back.has_room(n) {
                t = self.destage(t);
            }
            self.cache.invalidate(cmd.lbn, n);
            self.write_back.absorb(cmd.lbn, n);
            t + self.overhead(self.overheads.write_hit) + bus
        } else {
            // Write-through: the arm moves while the data crosses the bus;
            // the head writes a sector once its data is in the buffer and
            // never overtakes the transfer (a slow bus delays the start).
            let start = t + self.overhead(self.overheads.write_miss);
            self.cache.invalidate(cmd.lbn, n);
            self.write_through(start, cmd.lbn, n, per_sector)
        };
        self.last_write = cmd.write;
        done + self.overheads.completion[usize::from(cmd.write)]
    }

    /// Write `n` sectors from `lbn` whose data arrives over the bus at
    /// `per_sector` from `start`, the arm leaving at `start` too: the first
    /// sector waits for its data, and the media start is late enough that
    /// no sector is reached before its data has arrived.
    fn write_through(&mut self, start: Instant, lbn: u64, n: u32, per_sector: Duration) -> Instant {
        let arm = self.leave_stream(start);
        let loc = self.mech.locate(lbn);
        let media = self.mech.period / u64::from(loc.spt.max(1));
        let lead = (per_sector * u64::from(n)).saturating_sub(media * u64::from(n - 1));
        let mark = Duration::from_nanos(
            ((per_sector * u64::from(n)).as_nanos() as f64 * self.interface.write_watermark) as u64,
        );
        let ready = start + lead.max(per_sector).max(mark);
        let mut a = self.mech.access(start, arm, lbn, n, true);
        if a.first < ready {
            // On the track in time, but the data is not: the next pass.
            a = self.mech.access(ready, self.mech.arm_at(lbn), lbn, n, true);
        }
        self.arm = a.arm;
        a.end
    }

    fn media_write(&mut self, start: Instant, lbn: u64, n: u32) -> Instant {
        let arm = self.leave_stream(start);
        let a = self.mech.access(start, arm, lbn, n, true);
        self.arm = a.arm;
        a.end
    }

    /// Write the oldest dirty extent to the media from `t`; returns when done.
    fn destage(&mut self, t: Instant) -> Instant {
        match self.write_back.extents.pop_front() {
            Some((lbn, n)) => {
                self.write_back.dirty -= u64::from(n);
                self.media_write(t, lbn, n)
            }
            None => t,
        }
    }

    /// Stop any read-ahead at `t`; the arm is where the stream got to.
    fn leave_stream(&mut self, t: Instant) -> Arm {
        match self.cache.stop(&self.mech, t) {
            Some(lbn) => self.mech.arm_at(lbn),
            None => self.arm,
        }
    }

    /// Pick the next waiting command by the drive's own order, unless the
    /// oldest has waited past the ageing limit.
    fn pick(&self, t: Instant) -> usize {
        if let (Some(max), Some(&(arrived, _))) = (self.max_age, self.waiting.front()) {
            // Waiting is in arrival order: if any command is too old, the
            // front one is.
            if t.saturating_duration_since(arrived) > max {
                return 0;
            }
        }
        match self.order {
            InternalOrder::Fcfs => 0,
            InternalOrder::Sstf => {
                let arm = self.arm_now(t);
                (0..self.waiting.len())
                    .min_by_key(|&i| {
                        self.mech
                            .layout
                            .cylinder_of(self.waiting[i].1.lbn)
                            .abs_diff(arm.cyl)
                    })
                    .unwrap_or(0)
            }
            InternalOrder::Satf => {
                let arm = self.arm_now(t);
                (0..self.waiting.len())
                    .min_by_key(|&i| {
                        let c = &self.waiting[i].1;
                        if c.write && self.write_back.enabled && self.write_back.has_room(c.sectors)
                        {
                            Duration::ZERO // straight into the buffer
                        } else {
                            // The arm moves once the controller overhead is
                            // over: judge the rotational position from then,
                            // or SATF favours targets it will just miss.
                            let table = if c.write {
                                self.overheads.write_miss
                            } else {
                                self.overheads.read_miss
                            };
                            let start = t + self.overhead(table);
                            self.mech.positioning(start, arm, c.lbn, c.write)
                        }
                    })
                    .unwrap_or(0)
            }
        }
    }

    /// With the mechanism free at `t`: serve a waiting command, or else
    /// write dirty data back while idle.
    fn start_next(&mut self, t: Instant) {
        if self.busy.is_some() {
            return;
        }
        if !self.waiting.is_empty() {
            let i = self.pick(t);
            let (_, cmd) = self.waiting.remove(i).expect("index from pick");
            let done = self.serve(t, &cmd);
            self.busy = Some(Busy {
                tag: Some(cmd.tag),
                done,
            });
        } else if let Some(&(lbn, n)) = self.write_back.extents.front() {
            let done = self.destage(t);
            self.write_back.running = Some((lbn + u64::from(n), VecDeque::new()));
            self.busy = Some(Busy { tag: None, done });
        }
    }

    /// Take write `cmd`, arriving at `now`, into the idle destage under way
    /// if it continues that run, nothing else waits, the buffer has room
    /// for it, and its first sector reaches the buffer before the head
    /// reaches that sector. Returns whether it was taken.
    fn join_destage(&mut self, now: Instant, cmd: &Command) -> bool {
        let n = cmd.sectors.max(1);
        let (Some(busy), Some((next, _))) = (self.busy, self.write_back.running.as_ref()) else {
            return false;
        };
        if !cmd.write || busy.tag.is_some() || !self.waiting.is_empty() || cmd.lbn != *next {
            return false;
        }
        // The data crosses the bus once the buffer has room for it: the
        // drive drains the run into the media and refills behind the head.
        let Some(room) = self.write_back.room_for_joined(now, n) else {
            return false;
        };
        let per_sector = self.bus[1];
        let taken = room + self.overhead(self.overheads.write_hit);
        if taken + per_sector > busy.done {
            return false;
        }
        // The head is at `cmd.lbn` exactly when the run so far ends, so the
        // continued access starts there with no rotational wait.
        let a = self.mech.access(busy.done, self.arm, cmd.lbn, n, true);
        self.arm = a.arm;
        self.cache.invalidate(cmd.lbn, n);
        if let Some((next, pieces)) = self.write_back.running.as_mut() {
            *next = cmd.lbn + u64::from(n);
            pieces.retain(|(end, _)| *end > now);
            pieces.push_back((a.end, n));
        }
        self.busy = Some(Busy {
            tag: None,
            done: a.end,
        });
        self.last_write = true;
        self.joined
            .push_back((taken + per_sector * u64::from(n), cmd.tag));
        true
    }
}

impl Device for Hdd {
    fn name(&self) -> &str {
        &self.name
    }

    fn queue_depth(&self) -> usize {
        self.depth
    }

    fn submit(&mut self, now: Instant, cmd: Command) {
        if self.write_back.enabled && self.join_destage(now, &cmd) {
            return;
        }
        self.waiting.push_back((now, cmd));
        // An idle drive starts the first command that reaches it: commands
        // the host sends at the same instant still arrive one after the
        // other, and the drive does not wait for a batch. The rest wait,
        // and the internal order chooses among them.
        self.start_next(now);
    }

    fn next_completion(&self) -> Option<Instant> {
        let joined = self.joined.front().map(|&(t, _)| t);
        earliest([self.busy.map(|b| b.done), joined])
    }

    fn pop_completion(&mut self, now: Instant) -> Option<u64> {
        loop {
            let busy = self.busy.filter(|b| b.done <= now);
            let joined = self.joined.front().copied().filter(|&(t, _)| t <= now);
            match (busy, joined) {
                // Earliest first; a joined write before the mechanism's
                // event at the same instant (it was taken earlier).
                (_, Some((t, tag))) if busy.is_none_or(|b| t <= b.done) => {
                    self.joined.pop_front();
                    self.done.push_back(tag);
                }
                (Some(b), _) => {
                    self.busy = None;
                    match b.tag {
                        Some(tag) => self.done.push_back(tag),
                        // An idle destage ended: nothing joins it any more.
                        None => self.write_back.running = None,
                    }
                    self.start_next(b.done);
                }
                _ => break,
            }
        }
        self.done.pop_front()
    }
}

impl CostModel for Hdd {
    fn capacity(&self) -> u64 {
        self.mech.layout.capacity()
    }

    fn seek_time(&self, from: u64, to: u64) -> Duration {
        let l = &self.mech.layout;
        self.mech
            .seek
            .time(l.cylinder_of(from).abs_diff(l.cylinder_of(to)))
    }

    fn positioning_time(&self, now: Instant, from: u64, to: u64) -> Duration {
        self.mech
            .positioning(now, self.mech.arm_at(from), to, false)
    }

    fn full_stroke_seek(&self) -> Duration {
        self.full_stroke
    }
}

#[cfg(test)]
mod tests;
