//! What the host interface holds between events; what it does is in the parent
//! module.

use crate::flash::pcie::Link;
use crate::flash::work::{Request, Slab};
use crate::mqsim::{HostInterface, SsdConfig};
use crate::Command;
use std::collections::VecDeque;

/// SATA's native command queue: commands the drive holds at once.
pub(crate) const NCQ_DEPTH: u32 = 32;

/// One submission queue.
#[derive(Clone, Debug, Default)]
pub(crate) struct Queue {
    /// Entries written by the host, not yet fetched, in order.
    pub(crate) entries: VecDeque<Command>,
    /// Doorbells that reached the drive.
    pub(crate) rung: u64,
    /// Entries fetched.
    pub(crate) fetched: u64,
    /// Entries fetched and not yet finished.
    pub(crate) under_way: u32,
}

/// The host side of the drive.
#[derive(Clone, Debug)]
pub(crate) struct Host {
    pub(crate) link: Link,
    pub(crate) fetch_size: u32,
    pub(crate) sata: bool,
    /// SATA: the host adapter's time per command.
    pub(crate) sata_delay: u64,
    pub(crate) queues: Vec<Queue>,
    /// Requests fetched, by index.
    pub(crate) requests: Slab<Request>,
}

impl Host {
    /// The host interface of configuration `c`.
    pub(crate) fn new(c: &SsdConfig) -> Self {
        let sata = c.device.host_interface == HostInterface::Sata;
        Host {
            link: Link::new(c.host.pcie_lane_count, c.host.pcie_lane_bandwidth),
            fetch_size: if sata {
                NCQ_DEPTH
            } else {
                u32::from(c.device.queue_fetch_size).max(1)
            },
            sata,
            sata_delay: c.host.sata_processing_delay,
            queues: Vec::new(),
            requests: Slab::default(),
        }
    }

    pub(crate) fn queue_of(&self, flow: u32) -> usize {
        if self.sata {
            0
        } else {
            flow as usize
        }
    }
}
