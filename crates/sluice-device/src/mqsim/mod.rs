//! MQSim's device configuration (`ssdconfig.xml`), read as MQSim reads
//! it: the first brick of `[device] mqsim = "ssdconfig.xml"` (the SSD
//! model that will use it is still to come).
//!
//! MQSim (Tavakkol et al., FAST'18; github.com/CMU-SAFARI/MQSim) describes
//! a drive in one XML file: `<Execution_Parameter_Set>` holds
//! `<Host_Parameter_Set>` (the PCIe or SATA link) and
//! `<Device_Parameter_Set>` (controller, DRAM cache, FTL, channels), which
//! holds `<Flash_Parameter_Set>` (the chips). Each value element has a
//! field here, typed, in MQSim's unit; an element a file leaves out takes
//! MQSim's default, as in MQSim, and is listed in
//! [`SsdConfig::defaulted`]. Unlike MQSim, which skips elements it does
//! not know and reads `8abc` as 8 and `yes` as true, an unknown or
//! repeated element, a bad value, a missing `<Device_Parameter_Set>` and
//! malformed XML are one-line errors with the line.

mod config;
mod reader;
mod values;

#[cfg(test)]
mod tests;

use std::path::Path;

use sluice_input::Kind;

pub use self::config::{DeviceParameters, FlashParameters, HostParameters};
pub use self::values::{
    AddressMapping, CacheSharingMode, CachingMechanism, CmtSharingMode, CommandSuspension,
    FlashProtocol, FlashTechnology, GcVictimPolicy, HostInterface, MemoryType, PlaneAllocation,
    TransactionScheduling, MAX_NS, SECTOR_BYTES,
};
use crate::Result;

/// An MQSim device configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct SsdConfig {
    /// `<Host_Parameter_Set>`.
    pub host: HostParameters,
    /// `<Device_Parameter_Set>`, without its flash set.
    pub device: DeviceParameters,
    /// `<Device_Parameter_Set>`'s `<Flash_Parameter_Set>`.
    pub flash: FlashParameters,
    /// The value elements the file left out, which took MQSim's
    /// defaults, in MQSim's order: for a caller to warn about.
    pub defaulted: Vec<&'static str>,
}

impl SsdConfig {
    /// Read the configuration at `path` (bounded: [`Kind::MqsimConfig`],
    /// at most 1 MiB, a regular file, UTF-8).
    pub fn load(path: &Path) -> Result<Self> {
        let text = sluice_input::read_text(path, Kind::MqsimConfig)?;
        Self::parse(&path.display().to_string(), &text)
    }

    /// Read the configuration `text`; `file` names it in errors.
    pub fn parse(file: &str, text: &str) -> Result<Self> {
        reader::read(file, text)
    }

    /// Planes in the drive: channels x chips x dies x planes.
    pub fn planes_total(&self) -> u64 {
        u64::from(self.device.flash_channel_count)
            .saturating_mul(self.device.chip_no_per_channel.into())
            .saturating_mul(self.flash.die_no_per_chip.into())
            .saturating_mul(self.flash.plane_no_per_die.into())
    }

    /// Physical pages in the drive: planes x blocks x pages.
    pub fn pages_total(&self) -> u64 {
        self.planes_total()
            .saturating_mul(self.flash.block_no_per_plane.into())
            .saturating_mul(self.flash.page_no_per_block.into())
    }

    /// Physical capacity, bytes: every page's data (spare areas aside).
    pub fn capacity_bytes(&self) -> u64 {
        self.pages_total()
            .saturating_mul(self.flash.page_capacity.into())
    }

    /// The pages the host may address: the physical pages less the
    /// over-provisioned share, rounded down as MQSim does
    /// (`Address_Mapping_Unit_Base.cpp`: `total_physical_pages_no * (1 -
    /// overprovisioning_ratio)`, in doubles, truncated).
    pub fn logical_pages(&self) -> u64 {
        let kept = 1.0 - self.device.overprovisioning_ratio.clamp(0.0, 1.0);
        // Exact: pages_total is below 2^53 for any configuration `parse`
        // accepts (at most 2^32 - 1 pages).
        (self.pages_total() as f64 * kept) as u64
    }

    /// The capacity the host sees, bytes: [`Self::logical_pages`] pages.
    pub fn logical_capacity_bytes(&self) -> u64 {
        self.logical_pages()
            .saturating_mul(self.flash.page_capacity.into())
    }

    /// The time `bytes` take over a flash channel, ns, as MQSim's NV-DDR2
    /// channel counts it (`ONFI_Channel_NVDDR2.h`, `SSD_Device.cpp`): one
    /// transfer of `Flash_Channel_Width` bytes per cycle of `1000 /
    /// Channel_Transfer_Rate` ns, truncated to whole ns. MQSim's
    /// truncation makes the cycle 0 above 1000 MT/s; it is at least 1 ns
    /// here. For an even number of transfers (any page or sector) this is
    /// MQSim's figure exactly; an odd one is rounded up, not down.
    pub fn channel_transfer_ns(&self, bytes: u64) -> u64 {
        let rate = u64::from(self.device.channel_transfer_rate.max(1));
        let cycle_ns = (1000 / rate).max(1);
        let width = u64::from(self.device.flash_channel_width.max(1));
        bytes.div_ceil(width).saturating_mul(cycle_ns)
    }

    /// Refuse a geometry with more pages than MQSim can count: it keeps
    /// the drive's physical page count in an `unsigned int`
    /// (`Address_Mapping_Unit_Base.cpp`), 32 bits.
    fn check_geometry(&self) -> std::result::Result<(), String> {
        let pages = self.pages_total();
        if pages > u64::from(u32::MAX) {
            return Err(format!(
                "the flash holds {pages} pages (channels x chips x dies x planes x blocks x \
                 pages); MQSim counts them in 32 bits: at most {}",
                u32::MAX
            ));
        }
        Ok(())
    }
}
