//! Drive models behind one interface: the HDD (mechanics, cache, command
//! queue, DiskSim drive descriptions), the SSD, the rate device (IOPS and
//! bandwidth, as Seastar's and dmClock's configurations state one) and the
//! presets; and the reader of MQSim's SSD configurations ([`mqsim`]). The
//! simulator drives them in virtual time, the emulator (`sluice emulate`)
//! in real time; neither depends on the other.

pub mod diskspecs;
mod error;
pub mod flash;
pub mod hdd;
pub mod mqsim;
pub mod presets;
pub mod rate;
pub mod ssd;

/// Instants and durations from raw nanoseconds, for the device tests.
#[cfg(test)]
pub(crate) mod test_time {
    use sluice::{Duration, Instant};

    pub(crate) fn at(ns: u64) -> Instant {
        Instant::from_nanos(ns)
    }

    pub(crate) fn ns(ns: u64) -> Duration {
        Duration::from_nanos(ns)
    }
}

pub use self::error::{Error, Result};
use self::flash::{Flash, FlashSpec};
use self::hdd::{Hdd, HddSpec};
use self::rate::{Rate, RateSpec};
use self::ssd::{Ssd, SsdSpec};

use sluice::{CostModel, Duration, Instant, Request};

/// One command as the device sees it. `tag` is the driver's request id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Command {
    /// The driver's request id, returned on completion.
    pub tag: u64,
    /// The flow the request belongs to (the NVMe submission queue a flash
    /// SSD puts it in; other models ignore it).
    pub flow: u32,
    /// A write (else a read).
    pub write: bool,
    /// First logical block (512-byte sector).
    pub lbn: u64,
    /// Length in sectors.
    pub sectors: u32,
}

impl Command {
    /// The command that serves a scheduler's request (tagged with its id).
    pub fn of(r: &Request) -> Self {
        Command {
            tag: r.id.0,
            flow: r.flow.0,
            write: r.is_write(),
            lbn: r.sector,
            sectors: r.sectors,
        }
    }
}

/// The order in which a drive with a command queue serves it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InternalOrder {
    /// In arrival order.
    Fcfs,
    /// Shortest seek (cylinder distance) first.
    Sstf,
    /// Shortest access time (seek plus rotation) first, as NCQ drives do.
    Satf,
}

impl InternalOrder {
    /// Parse a scenario's `internal` value.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "fcfs" => Some(InternalOrder::Fcfs),
            "sstf" => Some(InternalOrder::Sstf),
            "satf" => Some(InternalOrder::Satf),
            _ => None,
        }
    }
}

/// A simulated storage device: accepts commands, completes them in virtual
/// time, and answers cost questions for position-aware policies (its
/// [`CostModel`] half).
pub trait Device: CostModel {
    /// Model name.
    fn name(&self) -> &str;
    /// Commands the device accepts at once.
    fn queue_depth(&self) -> usize;
    /// Hand the device a command at `now` (the driver respects the depth).
    fn submit(&mut self, now: Instant, cmd: Command);
    /// When the device's next internal event happens (a command completes,
    /// or background work such as a write-back step ends), if any.
    fn next_completion(&self) -> Option<Instant>;
    /// Advance to `now` and return the tag of a command completed at or
    /// before it, if any; call repeatedly until `None`.
    fn pop_completion(&mut self, now: Instant) -> Option<u64>;
}

/// A device model: what a preset or a DiskSim description gives.
#[derive(Clone, Debug, PartialEq)]
// A model is built once per run and cloned rarely: its size does not matter.
#[allow(clippy::large_enum_variant)]
pub enum Model {
    /// A hard disk.
    Hdd(HddSpec),
    /// A solid-state drive.
    Ssd(SsdSpec),
    /// A flash SSD modelled as MQSim models one ([`flash`]).
    Flash(Box<FlashSpec>),
    /// A device with a capacity in IOPS and bandwidth ([`rate`]).
    Rate(RateSpec),
}

impl Model {
    /// Model name.
    pub fn name(&self) -> &str {
        match self {
            Model::Hdd(s) => &s.name,
            Model::Ssd(s) => &s.name,
            Model::Flash(s) => &s.name,
            Model::Rate(s) => &s.name,
        }
    }

    /// Size in sectors.
    pub fn capacity(&self) -> u64 {
        match self {
            Model::Hdd(s) => s.layout.capacity(),
            Model::Ssd(s) => s.capacity_sectors,
            Model::Flash(s) => s.capacity_sectors(),
            Model::Rate(s) => s.capacity_sectors,
        }
    }

    /// The deepest command queue the device supports.
    pub fn max_queue(&self) -> usize {
        match self {
            Model::Hdd(s) => s.max_queue,
            Model::Ssd(s) => s.max_queue,
            Model::Flash(s) => s.max_queue(),
            Model::Rate(s) => s.max_queue,
        }
    }

    /// Whether the model reorders its command queue (so that ageing means
    /// something).
    pub fn reorders(&self) -> bool {
        matches!(self, Model::Hdd(_))
    }

    /// Whether the model has a write-back cache to switch.
    pub fn has_write_cache(&self) -> bool {
        matches!(self, Model::Hdd(_))
    }
}

/// How to instantiate a model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Setup {
    /// Commands the driver may keep in the device.
    pub queue_depth: usize,
    /// The drive's own order among queued commands.
    pub internal: InternalOrder,
    /// Override the model's write-back setting.
    pub write_cache: Option<bool>,
    /// `Some(false)`: no read caching or read-ahead.
    pub read_cache: Option<bool>,
    /// Drive firmware ageing: a queued command older than this is served
    /// next (`None`: off). Disks only.
    pub max_command_age: Option<Duration>,
    /// Seeds device state that no scenario sets, such as the platter angle.
    pub seed: u64,
}

/// Build a device of `model` as `setup` says.
pub fn build(model: &Model, setup: &Setup) -> Box<dyn Device> {
    match model {
        Model::Hdd(spec) => {
            let mut spec = spec.clone();
            if let Some(wc) = setup.write_cache {
                spec.cache.write_back = wc;
            }
            if setup.read_cache == Some(false) {
                spec.cache.segments = 0;
                spec.cache.read_ahead_sectors = 0;
            }
            let phase = Duration::from_nanos(sluice::rng::splitmix(setup.seed)) % spec.period();
            Box::new(
                Hdd::new(&spec, setup.queue_depth, setup.internal, phase)
                    .with_max_command_age(setup.max_command_age),
            )
        }
        Model::Ssd(spec) => Box::new(Ssd::new(spec, setup.queue_depth)),
        Model::Flash(spec) => Box::new(Flash::new(spec, setup.queue_depth)),
        Model::Rate(spec) => Box::new(Rate::new(spec, setup.queue_depth)),
    }
}
