//! A rotating disk: zoned geometry, seek curve, rotation, controller
//! overheads, bus transfer, a segmented read cache with read-ahead, and a
//! command queue with the drive's own service order (NCQ/TCQ).

pub mod cache;
pub mod geometry;
pub mod mechanics;
pub mod seek;

use std::collections::VecDeque;

use sluice::{Nanos, NS_PER_MS};

use self::cache::{Lookup, ReadCache};
use self::geometry::Layout;
use self::mechanics::{Arm, Mechanics};
use self::seek::SeekCurve;
use super::{Command, Device, InternalOrder};

fn ms(x: f64) -> Nanos {
    (x * NS_PER_MS as f64).round() as Nanos
}

/// Controller overheads per command kind, after a read and after a write
/// (DiskSim's eight "overhead" parameters), in ms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Overheads {
    pub read_hit: [f64; 2],
    pub read_miss: [f64; 2],
    pub write_hit: [f64; 2],
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

/// Read cache layout.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CacheSpec {
    pub segments: usize,
    pub segment_sectors: u64,
    pub read_ahead_sectors: u64,
}

/// Everything that describes one disk drive model.
#[derive(Clone, Debug)]
pub struct HddSpec {
    pub name: String,
    pub layout: Layout,
    pub seek: SeekCurve,
    pub rpm: f64,
    pub head_switch_ms: f64,
    pub write_settle_ms: f64,
    pub overheads: Overheads,
    /// Host interface transfer time per sector.
    pub bus_ms_per_sector: f64,
    pub cache: CacheSpec,
}

impl HddSpec {
    /// Period of one revolution.
    pub fn period(&self) -> Nanos {
        (60.0e9 / self.rpm).round() as Nanos
    }
}

/// A command in service: its tag and completion time.
#[derive(Clone, Copy, Debug)]
struct Busy {
    tag: u64,
    done: Nanos,
}

/// The drive's state.
#[derive(Clone, Debug)]
pub struct Hdd {
    name: String,
    mech: Mechanics,
    overheads: Overheads,
    bus: Nanos,
    cache: ReadCache,
    arm: Arm,
    last_write: bool,
    depth: usize,
    order: InternalOrder,
    waiting: VecDeque<(Command, Nanos)>,
    busy: Option<Busy>,
    full_stroke: Nanos,
}

impl Hdd {
    /// A drive of model `spec` accepting `depth` commands served in `order`;
    /// `phase` sets the platter angle at time 0 (ns of rotation), so that a
    /// scenario's seed varies it.
    pub fn new(spec: &HddSpec, depth: usize, order: InternalOrder, phase: Nanos) -> Self {
        let period = spec.period();
        let mech = Mechanics {
            layout: spec.layout.clone(),
            seek: spec.seek.clone(),
            period,
            head_switch: ms(spec.head_switch_ms),
            write_settle: ms(spec.write_settle_ms),
            phase: phase % period,
        };
        let full_stroke = mech.seek.ns(mech.layout.cylinders().saturating_sub(1));
        Hdd {
            name: spec.name.clone(),
            cache: ReadCache::new(
                spec.cache.segments,
                spec.cache.segment_sectors,
                spec.cache.read_ahead_sectors,
            ),
            mech,
            overheads: spec.overheads,
            bus: ms(spec.bus_ms_per_sector),
            arm: Arm::default(),
            last_write: false,
            depth: depth.max(1),
            order,
            waiting: VecDeque::new(),
            busy: None,
            full_stroke,
        }
    }

    /// The mechanical model (for tests and tools).
    pub fn mechanics(&self) -> &Mechanics {
        &self.mech
    }

    /// Where the arm is at `t`: over the read-ahead stream, or where the
    /// last access left it.
    fn arm_now(&self, t: Nanos) -> Arm {
        match self.cache.streaming_at(&self.mech, t) {
            Some(lbn) => self.mech.arm_at(lbn),
            None => self.arm,
        }
    }

    fn overhead(&self, table: [f64; 2]) -> Nanos {
        ms(table[usize::from(self.last_write)])
    }

    /// Serve `cmd` starting at `t`; returns its completion time.
    fn serve(&mut self, t: Nanos, cmd: &Command) -> Nanos {
        let n = cmd.sectors.max(1);
        let bus = self.bus * u64::from(n);
        let done = if !cmd.write {
            match self.cache.lookup(&self.mech, t, cmd.lbn, n) {
                Lookup::Hit => t + self.overhead(self.overheads.read_hit) + bus,
                Lookup::Stream(ready) => {
                    (t + self.overhead(self.overheads.read_hit) + bus).max(ready + self.bus)
                }
                Lookup::Miss => {
                    let start = t + self.overhead(self.overheads.read_miss);
                    let arm = self.leave_stream(start);
                    let a = self.mech.access(start, arm, cmd.lbn, n, false);
                    self.arm = a.arm;
                    self.cache.fill(cmd.lbn, n, a.end);
                    (a.end + self.bus).max(a.first + bus)
                }
            }
        } else {
            // Write-through: the data crosses the bus, then goes to media.
            let start = t + self.overhead(self.overheads.write_miss) + bus;
            let arm = self.leave_stream(start);
            self.cache.invalidate(cmd.lbn, n);
            let a = self.mech.access(start, arm, cmd.lbn, n, true);
            self.arm = a.arm;
            a.end
        };
        self.last_write = cmd.write;
        done
    }

    /// Stop any read-ahead at `t`; the arm is where the stream got to.
    fn leave_stream(&mut self, t: Nanos) -> Arm {
        match self.cache.stop(&self.mech, t) {
            Some(lbn) => self.mech.arm_at(lbn),
            None => self.arm,
        }
    }

    /// Pick the next waiting command by the drive's own order.
    fn pick(&self, t: Nanos) -> usize {
        match self.order {
            InternalOrder::Fcfs => 0,
            InternalOrder::Sstf => {
                let arm = self.arm_now(t);
                (0..self.waiting.len())
                    .min_by_key(|&i| {
                        self.mech
                            .layout
                            .cylinder_of(self.waiting[i].0.lbn)
                            .abs_diff(arm.cyl)
                    })
                    .unwrap_or(0)
            }
            InternalOrder::Satf => {
                let arm = self.arm_now(t);
                (0..self.waiting.len())
                    .min_by_key(|&i| {
                        let c = &self.waiting[i].0;
                        self.mech.positioning(t, arm, c.lbn, c.write)
                    })
                    .unwrap_or(0)
            }
        }
    }

    fn start_next(&mut self, t: Nanos) {
        if self.busy.is_some() || self.waiting.is_empty() {
            return;
        }
        let i = self.pick(t);
        let (cmd, _) = self.waiting.remove(i).expect("index from pick");
        let done = self.serve(t, &cmd);
        self.busy = Some(Busy { tag: cmd.tag, done });
    }
}

impl Device for Hdd {
    fn name(&self) -> &str {
        &self.name
    }

    fn capacity(&self) -> u64 {
        self.mech.layout.capacity()
    }

    fn queue_depth(&self) -> usize {
        self.depth
    }

    fn submit(&mut self, now: Nanos, cmd: Command) {
        self.waiting.push_back((cmd, now));
        self.start_next(now);
    }

    fn next_completion(&self) -> Option<Nanos> {
        self.busy.map(|b| b.done)
    }

    fn pop_completion(&mut self, now: Nanos) -> Option<u64> {
        match self.busy {
            Some(b) if b.done <= now => {
                self.busy = None;
                self.start_next(b.done);
                Some(b.tag)
            }
            _ => None,
        }
    }

    fn seek_time(&self, from: u64, to: u64) -> Nanos {
        let l = &self.mech.layout;
        self.mech
            .seek
            .ns(l.cylinder_of(from).abs_diff(l.cylinder_of(to)))
    }

    fn positioning_time(&self, now: Nanos, from: u64, to: u64) -> Nanos {
        self.mech
            .positioning(now, self.mech.arm_at(from), to, false)
    }

    fn full_stroke_seek(&self) -> Nanos {
        self.full_stroke
    }
}
