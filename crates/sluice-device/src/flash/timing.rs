//! How long things take inside the drive: the ONFI NV-DDR2 channel's
//! command and data cycles (`ONFI_Channel_NVDDR2`), the flash array's
//! read, program and erase latencies by page type (`Flash_Chip`), and the
//! DRAM cache's access time (`Data_Cache_Manager_Base`), each computed
//! as MQSim computes it, in whole nanoseconds.

use crate::mqsim::{FlashTechnology, SsdConfig};

/// ONFI NV-DDR2 protocol times, ns (MQSim's defaults).
const T_CS: u64 = 20;
const T_WC: u64 = 25;
const T_WB: u64 = 100;
const T_RR: u64 = 20;
const T_DBSY: u64 = 500;
const T_ADL: u64 = 70;
const T_WPST: u64 = 6;
const T_WPSTH: u64 = 15;
const T_CALS: u64 = 15;
/// The ready/busy signal's delay after a read (`Flash_Chip`'s default).
const RB_DELAY_READ: u64 = 20;

/// Every duration the model needs, fixed for a configuration.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Timing {
    /// Read command and address cycles for 1..=4 planes.
    pub(crate) read_command: [u64; 5],
    /// Program command, address (and set-up) cycles for 1..=4 planes.
    pub(crate) program_command: [u64; 5],
    /// Erase command cycles for 1..=4 planes.
    pub(crate) erase_command: [u64; 5],
    /// One two-byte-unit cycle of data in or out (`t_RC` = `t_DSC`).
    pub(crate) two_unit: u64,
    /// Channel width, bytes.
    pub(crate) width: u64,
    /// Array read latency by page type.
    pub(crate) read: Vec<u64>,
    /// Array program latency by page type.
    pub(crate) program: Vec<u64>,
    /// Block erase latency.
    pub(crate) erase: u64,
    technology: FlashTechnology,
    dram: Dram,
}

/// The DRAM cache's timing.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Dram {
    row: u64,
    burst: u64,
    burst_ns: f64,
    t_rcd: u64,
    t_cl: u64,
    t_rp: u64,
}

impl Timing {
    /// The timing of configuration `c`.
    pub(crate) fn of(c: &SsdConfig) -> Self {
        // MQSim passes (int)(1000 / rate) * 2 as both t_RC and t_DSC.
        let two_unit = (1000 / u64::from(c.device.channel_transfer_rate.max(1))).max(1) * 2;
        let cmd = |n: u64, first: u64, each: u64, last: u64| first + (n - 1) * each + last;
        let mut read_command = [0; 5];
        let mut program_command = [0; 5];
        let mut erase_command = [0; 5];
        for n in 1..=4u64 {
            read_command[n as usize] = cmd(n, T_CS + 6 * T_WC, T_DBSY + 6 * T_WC, T_WB + T_RR);
            let middle = T_WC * 5 + T_ADL + T_WPST + T_CALS + T_WB;
            program_command[n as usize] =
                T_CS + (n - 1) * (middle + T_DBSY) + (T_WC * 6 + T_ADL + T_WPST + T_WPSTH + T_WB);
            erase_command[n as usize] =
                T_CS + T_WC * 4 + T_WB + (n - 1) * (T_DBSY + T_WC * 4 + T_WB);
        }
        let f = &c.flash;
        let (read, program) = match f.flash_technology {
            FlashTechnology::Slc => (
                vec![f.page_read_latency_lsb],
                vec![f.page_program_latency_lsb],
            ),
            FlashTechnology::Mlc => (
                vec![f.page_read_latency_lsb, f.page_read_latency_msb],
                vec![f.page_program_latency_lsb, f.page_program_latency_msb],
            ),
            FlashTechnology::Tlc => (
                vec![
                    f.page_read_latency_lsb,
                    f.page_read_latency_csb,
                    f.page_read_latency_msb,
                ],
                vec![
                    f.page_program_latency_lsb,
                    f.page_program_latency_csb,
                    f.page_program_latency_msb,
                ],
            ),
        };
        let d = &c.device;
        Timing {
            read_command,
            program_command,
            erase_command,
            two_unit,
            width: u64::from(d.flash_channel_width.max(1)),
            read,
            program,
            erase: f.block_erase_latency,
            technology: f.flash_technology,
            dram: Dram {
                row: u64::from(d.data_cache_dram_row_size.max(1)),
                burst: u64::from(d.data_cache_dram_burst_size.max(1)),
                burst_ns: 1e9 / (f64::from(d.data_cache_dram_data_rate.max(1)) * 1e6),
                t_rcd: d.data_cache_dram_t_rcd,
                t_cl: d.data_cache_dram_t_cl,
                t_rp: d.data_cache_dram_t_rp,
            },
        }
    }

    /// Moving `bytes` over the channel, either way.
    pub(crate) fn transfer(&self, bytes: u64) -> u64 {
        bytes / self.width / 2 * self.two_unit
    }

    /// The page type of page `page` of a block (`Flash_Chip`).
    fn page_type(&self, page: u32) -> usize {
        match self.technology {
            FlashTechnology::Slc => 0,
            FlashTechnology::Mlc => (page % 2) as usize,
            FlashTechnology::Tlc => {
                if page <= 5 {
                    0
                } else if page <= 7 {
                    1
                } else {
                    ((page - 8) >> 1) as usize % 3
                }
            }
        }
    }

    /// The array's read of page `page`, with the ready/busy delay.
    pub(crate) fn read_latency(&self, page: u32) -> u64 {
        self.read[self.page_type(page).min(self.read.len() - 1)] + RB_DELAY_READ
    }

    /// The array's program of page `page`.
    pub(crate) fn program_latency(&self, page: u32) -> u64 {
        self.program[self.page_type(page).min(self.program.len() - 1)]
    }

    /// A DRAM access of `bytes` (`estimate_dram_access_time`).
    pub(crate) fn dram(&self, bytes: u64) -> u64 {
        let d = &self.dram;
        if bytes <= d.row {
            d.t_rcd + d.t_cl + ((bytes / d.burst / 2) as f64 * d.burst_ns) as u64
        } else {
            let per_row =
                d.t_rcd + d.t_cl + ((d.row / d.burst / 2) as f64 * d.burst_ns) as u64 + d.t_rp;
            let rows = (bytes / d.row / 2) as f64;
            (per_row as f64 * rows) as u64
                + d.t_rcd
                + d.t_cl
                + ((bytes % d.row) as f64 / (d.burst as f64 * d.burst_ns)) as u64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fast18() -> Timing {
        let text = include_str!("../../data/mqsim/fast18-backend.xml");
        Timing::of(&SsdConfig::parse("t", text).expect("parses"))
    }

    #[test]
    fn channel_cycles_are_mqsims_at_333_mts() {
        let t = fast18();
        assert_eq!(t.two_unit, 6);
        assert_eq!(t.transfer(4096), 12_288);
        assert_eq!(t.read_command[1], 290);
        assert_eq!(t.program_command[1], 361);
        assert_eq!(t.read_command[2], 290 + 650);
        assert_eq!(t.erase_command[1], 220);
    }

    #[test]
    fn latencies_follow_the_page_type() {
        let t = fast18();
        assert_eq!(t.read_latency(0), 75_020);
        assert_eq!(t.program_latency(1), 750_000);
    }

    #[test]
    fn dram_access_of_a_page_within_a_row() {
        let t = fast18();
        // 13 + 13 + 4096 / 2 / 2 bursts of 2.5 ns
        assert_eq!(t.dram(4096), 2586);
    }
}
