//! Device models the simulator drives, behind one interface.

pub mod hdd;
pub mod presets;

use sluice::Nanos;

/// One command as the device sees it. `tag` is the driver's request id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Command {
    pub tag: u64,
    pub write: bool,
    pub lbn: u64,
    pub sectors: u32,
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
/// time, and answers cost questions for position-aware policies.
pub trait Device {
    /// Model name.
    fn name(&self) -> &str;
    /// Size in sectors.
    fn capacity(&self) -> u64;
    /// Commands the device accepts at once.
    fn queue_depth(&self) -> usize;
    /// Hand the device a command at `now` (the driver respects the depth).
    fn submit(&mut self, now: Nanos, cmd: Command);
    /// When the next command will complete, if any is in service.
    fn next_completion(&self) -> Option<Nanos>;
    /// The tag of a command completed at or before `now`, if any; call
    /// repeatedly until `None`.
    fn pop_completion(&mut self, now: Nanos) -> Option<u64>;
    /// Estimated seek time between two sectors.
    fn seek_time(&self, from: u64, to: u64) -> Nanos;
    /// Estimated seek plus rotation to begin `to`, leaving `from` at `now`.
    fn positioning_time(&self, now: Nanos, from: u64, to: u64) -> Nanos;
    /// Full-stroke seek time.
    fn full_stroke_seek(&self) -> Nanos;
}
