//! An NVMe (or SATA) flash SSD modelled as MQSim models one ("MQSim: A
//! Framework for Enabling Realistic Studies of Modern Multi-Queue SSD
//! Devices", FAST'18): the host interface with one submission queue per
//! flow, the DRAM data cache, the FTL (page mapping, plane allocation,
//! garbage collection), the transaction scheduler and the flash back end
//! (channels x chips x dies x planes). Its parameters are MQSim's device
//! configuration ([`SsdConfig`]), read as MQSim reads it, plus what MQSim
//! sets per flow ([`StreamSpec`]).

mod backend;
pub mod blocks;
mod cache;
mod device;
mod ftl;
pub mod geometry;
mod lru;
mod mapping;
mod nvme;
mod pcie;
mod timing;
mod wa;
mod work;

pub use self::device::{Flash, FlashStats};
pub use self::wa::{uniform_random_write_amplification, WaStudy};

use crate::mqsim::SsdConfig;

/// Whether a flow's writes stop in the DRAM cache (MQSim's
/// `Device_Level_Data_Caching_Mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum StreamCaching {
    /// Writes complete once in the cache; reads may hit it.
    #[default]
    WriteCache,
    /// Reads may hit the cache; writes go to flash.
    ReadCache,
    /// Both.
    WriteReadCache,
    /// No caching.
    TurnedOff,
}

/// NVMe priority class of a flow's submission queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, PartialOrd, Ord)]
pub enum StreamPriority {
    /// Served first.
    Urgent,
    /// High.
    #[default]
    High,
    /// Medium.
    Medium,
    /// Low.
    Low,
}

/// What MQSim sets per flow: its queue's priority, its caching mode and
/// the flash resources its addresses map onto.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamSpec {
    /// The submission queue's priority class.
    pub priority: StreamPriority,
    /// The flow's caching mode.
    pub caching: StreamCaching,
    /// Channels the flow's pages go to (empty: all).
    pub channels: Vec<u32>,
    /// Chips on each channel (empty: all).
    pub chips: Vec<u32>,
    /// Dies on each chip (empty: all).
    pub dies: Vec<u32>,
    /// Planes on each die (empty: all).
    pub planes: Vec<u32>,
    /// Share of the flow's logical pages written before the run (MQSim's
    /// `Initial_Occupancy_Percentage` / 100), used only with
    /// preconditioning.
    pub initial_occupancy: f64,
    /// The first sector of the flow's logical range on the drive: MQSim
    /// maps each flow's pages from its own range's start (a flow's page 0
    /// lands on its first channel, chip, die and plane).
    pub first_sector: u64,
}

impl Default for StreamSpec {
    fn default() -> Self {
        StreamSpec {
            priority: StreamPriority::High,
            caching: StreamCaching::WriteCache,
            channels: Vec::new(),
            chips: Vec::new(),
            dies: Vec::new(),
            planes: Vec::new(),
            initial_occupancy: 0.0,
            first_sector: 0,
        }
    }
}

/// A flash SSD model: MQSim's device configuration and the per-flow
/// settings. Flows are the scenario's, in order (flow 0 is MQSim's
/// flow 1); a flow past the list takes [`StreamSpec::default`].
#[derive(Clone, Debug, PartialEq)]
pub struct FlashSpec {
    /// Model name.
    pub name: String,
    /// MQSim's configuration.
    pub config: SsdConfig,
    /// Per-flow settings.
    pub streams: Vec<StreamSpec>,
}

impl FlashSpec {
    /// The model of an MQSim configuration, named `name`, every flow with
    /// the default settings.
    pub fn from_mqsim(name: &str, config: SsdConfig) -> Self {
        FlashSpec {
            name: name.to_string(),
            config,
            streams: Vec::new(),
        }
    }

    /// The host-visible capacity, sectors.
    pub fn capacity_sectors(&self) -> u64 {
        self.config.logical_capacity_bytes() / u64::from(crate::mqsim::SECTOR_BYTES)
    }

    /// The settings of flow `flow`.
    pub fn stream(&self, flow: usize) -> StreamSpec {
        self.streams.get(flow).cloned().unwrap_or_default()
    }

    /// The caching mode, priority and first sector of flow `flow`, without
    /// copying its resource lists.
    pub(crate) fn stream_basics(&self, flow: usize) -> (StreamCaching, StreamPriority, u64) {
        self.streams
            .get(flow)
            .map_or((StreamCaching::WriteCache, StreamPriority::High, 0), |s| {
                (s.caching, s.priority, s.first_sector)
            })
    }
}

impl FlashSpec {
    /// Commands the host may keep in the drive: MQSim's `IO_Queue_Depth`
    /// per submission queue (NVMe), or NCQ's 32 (SATA).
    pub fn max_queue(&self) -> usize {
        match self.config.device.host_interface {
            crate::mqsim::HostInterface::Sata => 32,
            _ => usize::from(self.config.device.io_queue_depth).max(1),
        }
    }
}

#[cfg(test)]
mod tests;
