//! MQSim's three parameter sets, one declaration per element: its field,
//! unit, MQSim's default (used when the element is absent, as MQSim does)
//! and the reader of its text. Sources: MQSim's `src/exec/`
//! `Host_Parameter_Set.cpp`, `Device_Parameter_Set.cpp` and
//! `Flash_Parameter_Set.cpp` (and their `.h`), commit 7ec40e3.

use super::values::{self, *};

/// Declares one of MQSim's parameter sets: the struct (a field per
/// element, with its doc), `Default` (MQSim's defaults), the element
/// names in MQSim's order and the setter that reads an element's text.
macro_rules! parameter_set {
    (
        $(#[$meta:meta])*
        pub struct $name:ident in $set:literal {
            $(
                $(#[$fmeta:meta])*
                $field:ident: $ty:ty = $default:expr, $element:literal, $read:expr;
            )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq)]
        pub struct $name {
            $( $(#[$fmeta])* pub $field: $ty, )+
        }

        /// MQSim's defaults: what it uses for an element a file leaves out.
        impl Default for $name {
            fn default() -> Self {
                $name { $( $field: $default, )+ }
            }
        }

        impl $name {
            /// The element that holds this set.
            pub const ELEMENT: &'static str = $set;

            /// The set's value elements, in MQSim's order.
            pub const ELEMENTS: &'static [&'static str] = &[$($element),+];

            /// Read the text of the value element `element` into its
            /// field: `None` if the set has no such element, else what is
            /// accepted when the text is not.
            pub(crate) fn set(&mut self, element: &str, text: &str) -> Option<Result<(), String>> {
                match element {
                    $( $element => Some($read(text).map(|v| self.$field = v)), )+
                    _ => None,
                }
            }
        }
    };
}

parameter_set! {
    /// `<Host_Parameter_Set>`: the host's link to the device
    /// (`Host_Parameter_Set.cpp`). MQSim's workload definitions, which it
    /// keeps in the same class, come from another file.
    pub struct HostParameters in "Host_Parameter_Set" {
        /// One PCIe lane's bandwidth, GB/s (`PCIe_Lane_Bandwidth`; default 0.4).
        pcie_lane_bandwidth: f64 = 0.4, "PCIe_Lane_Bandwidth", values::gigabytes_per_second;
        /// PCIe lanes (`PCIe_Lane_Count`; default 4).
        pcie_lane_count: u32 = 4, "PCIe_Lane_Count", values::count;
        /// The hardware and software delay of sending or receiving one
        /// SATA message, ns (`SATA_Processing_Delay`; default 0: MQSim
        /// leaves it unset).
        sata_processing_delay: u64 = 0, "SATA_Processing_Delay", values::nanos;
        /// Whether MQSim logs response times per period
        /// (`Enable_ResponseTime_Logging`; default false).
        enable_response_time_logging: bool = false, "Enable_ResponseTime_Logging", values::flag;
        /// That logging period, ns (`ResponseTime_Logging_Period_Length`;
        /// default 400000).
        response_time_logging_period: u64 = 400_000,
            "ResponseTime_Logging_Period_Length", values::period;
    }
}

parameter_set! {
    /// `<Device_Parameter_Set>`: the controller, its DRAM, the FTL and the
    /// channels (`Device_Parameter_Set.cpp`). Its `<Flash_Parameter_Set>`
    /// is [`FlashParameters`].
    pub struct DeviceParameters in "Device_Parameter_Set" {
        /// Seed of the device's random generators (`Seed`; default 123).
        seed: i32 = 123, "Seed", values::seed;
        /// Whether the device is brought to a steady state before the run
        /// (`Enabled_Preconditioning`; default true).
        enabled_preconditioning: bool = true, "Enabled_Preconditioning", values::flag;
        /// The memory (`Memory_Type`; default FLASH).
        memory_type: MemoryType = MemoryType::Flash, "Memory_Type", MemoryType::parse;
        /// The host interface (`HostInterface_Type`; default NVME).
        host_interface: HostInterface = HostInterface::Nvme,
            "HostInterface_Type", HostInterface::parse;
        /// NVMe: each submission and completion queue's length; SATA: the
        /// NCQ's depth; requests (`IO_Queue_Depth`; default 1024).
        io_queue_depth: u16 = 1024, "IO_Queue_Depth", values::queue_length;
        /// NVMe: the most requests of one submission queue the controller
        /// holds fetched and unfinished, requests (`Queue_Fetch_Size`;
        /// default 512; `Host_Interface_NVMe.cpp`).
        queue_fetch_size: u16 = 512, "Queue_Fetch_Size", values::queue_length;
        /// The data cache manager (`Caching_Mechanism`; default ADVANCED).
        caching_mechanism: CachingMechanism = CachingMechanism::Advanced,
            "Caching_Mechanism", CachingMechanism::parse;
        /// How flows share the data cache, NVMe only
        /// (`Data_Cache_Sharing_Mode`; default SHARED).
        data_cache_sharing_mode: CacheSharingMode = CacheSharingMode::Shared,
            "Data_Cache_Sharing_Mode", CacheSharingMode::parse;
        /// The data cache, bytes (`Data_Cache_Capacity`; default 536870912).
        data_cache_capacity: u32 = 512 << 20, "Data_Cache_Capacity", values::amount;
        /// The cache DRAM's row, bytes (`Data_Cache_DRAM_Row_Size`; default 8192).
        data_cache_dram_row_size: u32 = 8192, "Data_Cache_DRAM_Row_Size", values::count;
        /// The cache DRAM's data rate, MT/s (`Data_Cache_DRAM_Data_Rate`; default 800).
        data_cache_dram_data_rate: u32 = 800, "Data_Cache_DRAM_Data_Rate", values::count;
        /// Bytes the cache DRAM moves per burst, which depends on its chip
        /// count (`Data_Cache_DRAM_Data_Busrt_Size`, MQSim's spelling; default 4).
        data_cache_dram_burst_size: u32 = 4, "Data_Cache_DRAM_Data_Busrt_Size", values::count;
        /// The cache DRAM's tRCD, ns (`Data_Cache_DRAM_tRCD`; default 13).
        data_cache_dram_t_rcd: u64 = 13, "Data_Cache_DRAM_tRCD", values::nanos;
        /// The cache DRAM's tCL, ns (`Data_Cache_DRAM_tCL`; default 13).
        data_cache_dram_t_cl: u64 = 13, "Data_Cache_DRAM_tCL", values::nanos;
        /// The cache DRAM's tRP, ns (`Data_Cache_DRAM_tRP`; default 13).
        data_cache_dram_t_rp: u64 = 13, "Data_Cache_DRAM_tRP", values::nanos;
        /// The FTL's mapping (`Address_Mapping`; default PAGE_LEVEL).
        address_mapping: AddressMapping = AddressMapping::PageLevel,
            "Address_Mapping", AddressMapping::parse;
        /// Whether the whole mapping table sits in DRAM, so that a mapping
        /// never costs a flash read (`Ideal_Mapping_Table`; default false).
        ideal_mapping_table: bool = false, "Ideal_Mapping_Table", values::flag;
        /// The cached mapping table (CMT), bytes (`CMT_Capacity`; default 2097152).
        cmt_capacity: u32 = 2 << 20, "CMT_Capacity", values::amount;
        /// How flows share the CMT (`CMT_Sharing_Mode`; default SHARED).
        cmt_sharing_mode: CmtSharingMode = CmtSharingMode::Shared,
            "CMT_Sharing_Mode", CmtSharingMode::parse;
        /// How logical pages spread over the back end
        /// (`Plane_Allocation_Scheme`; default CWDP).
        plane_allocation_scheme: PlaneAllocation = PlaneAllocation::Cwdp,
            "Plane_Allocation_Scheme", PlaneAllocation::parse;
        /// The scheduler of flash transactions
        /// (`Transaction_Scheduling_Policy`; default OUT_OF_ORDER).
        transaction_scheduling_policy: TransactionScheduling = TransactionScheduling::OutOfOrder,
            "Transaction_Scheduling_Policy", TransactionScheduling::parse;
        /// The share of the flash kept spare, hidden from the host
        /// (`Overprovisioning_Ratio`; default 0.07; MQSim warns below 0.05).
        overprovisioning_ratio: f64 = 0.07, "Overprovisioning_Ratio", values::share_below_one;
        /// GC runs on a plane whose free blocks fall below this share of
        /// its blocks (`GC_Exec_Threshold`; default 0.05; MQSim makes the
        /// count at least 1, `GC_and_WL_Unit_Base.cpp`).
        gc_exec_threshold: f64 = 0.05, "GC_Exec_Threshold", values::fraction;
        /// How GC picks its victim (`GC_Block_Selection_Policy`; default RGA).
        gc_block_selection_policy: GcVictimPolicy = GcVictimPolicy::Rga,
            "GC_Block_Selection_Policy", GcVictimPolicy::parse;
        /// Whether GC moves pages with copyback, inside the die
        /// (`Use_Copyback_for_GC`; default false).
        use_copyback_for_gc: bool = false, "Use_Copyback_for_GC", values::flag;
        /// Whether user requests may preempt GC (`Preemptible_GC_Enabled`; default true).
        preemptible_gc_enabled: bool = true, "Preemptible_GC_Enabled", values::flag;
        /// Preemptible GC stops yielding to user requests when a plane's
        /// free blocks fall below this share (`GC_Hard_Threshold`; default 0.005).
        gc_hard_threshold: f64 = 0.005, "GC_Hard_Threshold", values::fraction;
        /// Dynamic wear levelling (`Dynamic_Wearleveling_Enabled`; default true).
        dynamic_wearleveling_enabled: bool = true, "Dynamic_Wearleveling_Enabled", values::flag;
        /// Static wear levelling (`Static_Wearleveling_Enabled`; default true).
        static_wearleveling_enabled: bool = true, "Static_Wearleveling_Enabled", values::flag;
        /// The erase-count gap that starts static wear levelling, erases
        /// (`Static_Wearleveling_Threshold`; default 100).
        static_wearleveling_threshold: u32 = 100, "Static_Wearleveling_Threshold", values::amount;
        /// A read suspends an erase with less than this left, ns
        /// (`Preferred_suspend_erase_time_for_read`; default 700000). MQSim's
        /// reader looks for `Prefered_suspend_erase_time_for_read`, so the
        /// spelling its own files use is ignored there (and its default,
        /// the same 700000, applies); both spellings are read here.
        preferred_suspend_erase_time_for_read: u64 = 700_000,
            "Preferred_suspend_erase_time_for_read", values::nanos;
        /// A write suspends an erase with less than this left, ns
        /// (`Preferred_suspend_erase_time_for_write`; default 700000).
        preferred_suspend_erase_time_for_write: u64 = 700_000,
            "Preferred_suspend_erase_time_for_write", values::nanos;
        /// A read suspends a program with less than this left, ns
        /// (`Preferred_suspend_write_time_for_read`; default 100000).
        preferred_suspend_write_time_for_read: u64 = 100_000,
            "Preferred_suspend_write_time_for_read", values::nanos;
        /// Flash channels (`Flash_Channel_Count`; default 8).
        flash_channel_count: u32 = 8, "Flash_Channel_Count", values::count;
        /// A channel's width, bytes (`Flash_Channel_Width`; default 1).
        flash_channel_width: u32 = 1, "Flash_Channel_Width", values::count;
        /// A channel's transfer rate, MT/s (`Channel_Transfer_Rate`; default 300).
        channel_transfer_rate: u32 = 300, "Channel_Transfer_Rate", values::count;
        /// Chips (ways) per channel (`Chip_No_Per_Channel`; default 4).
        chip_no_per_channel: u32 = 4, "Chip_No_Per_Channel", values::count;
        /// The channel protocol (`Flash_Comm_Protocol`; default NVDDR2).
        flash_comm_protocol: FlashProtocol = FlashProtocol::Nvddr2,
            "Flash_Comm_Protocol", FlashProtocol::parse;
    }
}

impl DeviceParameters {
    /// The element's name as this set knows it: MQSim's reader spells one
    /// element `Prefered_...` while its files spell it `Preferred_...`.
    pub(crate) fn canonical(element: &str) -> &str {
        match element {
            "Prefered_suspend_erase_time_for_read" => "Preferred_suspend_erase_time_for_read",
            other => other,
        }
    }
}

parameter_set! {
    /// `<Flash_Parameter_Set>`, inside `<Device_Parameter_Set>`: the flash
    /// chips (`Flash_Parameter_Set.cpp`).
    pub struct FlashParameters in "Flash_Parameter_Set" {
        /// Bits per cell (`Flash_Technology`; default MLC).
        flash_technology: FlashTechnology = FlashTechnology::Mlc,
            "Flash_Technology", FlashTechnology::parse;
        /// What a read may suspend (`CMD_Suspension_Support`; default ERASE).
        cmd_suspension_support: CommandSuspension = CommandSuspension::Erase,
            "CMD_Suspension_Support", CommandSuspension::parse;
        /// Reading an LSB page, ns (`Page_Read_Latency_LSB`; default 75000).
        page_read_latency_lsb: u64 = 75_000, "Page_Read_Latency_LSB", values::nanos;
        /// Reading a CSB page (TLC), ns (`Page_Read_Latency_CSB`; default 75000).
        page_read_latency_csb: u64 = 75_000, "Page_Read_Latency_CSB", values::nanos;
        /// Reading an MSB page, ns (`Page_Read_Latency_MSB`; default 75000).
        page_read_latency_msb: u64 = 75_000, "Page_Read_Latency_MSB", values::nanos;
        /// Programming an LSB page, ns (`Page_Program_Latency_LSB`; default 750000).
        page_program_latency_lsb: u64 = 750_000, "Page_Program_Latency_LSB", values::nanos;
        /// Programming a CSB page (TLC), ns (`Page_Program_Latency_CSB`; default 750000).
        page_program_latency_csb: u64 = 750_000, "Page_Program_Latency_CSB", values::nanos;
        /// Programming an MSB page, ns (`Page_Program_Latency_MSB`; default 750000).
        page_program_latency_msb: u64 = 750_000, "Page_Program_Latency_MSB", values::nanos;
        /// Erasing a block, ns (`Block_Erase_Latency`; default 3800000).
        block_erase_latency: u64 = 3_800_000, "Block_Erase_Latency", values::nanos;
        /// Program/erase cycles a block endures, cycles
        /// (`Block_PE_Cycles_Limit`; default 10000).
        block_pe_cycles_limit: u32 = 10_000, "Block_PE_Cycles_Limit", values::amount;
        /// Suspending an erase, ns (`Suspend_Erase_Time`; default 700000).
        suspend_erase_time: u64 = 700_000, "Suspend_Erase_Time", values::nanos;
        /// Suspending a program, ns (`Suspend_Program_Time`; default 100000).
        suspend_program_time: u64 = 100_000, "Suspend_Program_Time", values::nanos;
        /// Dies per chip (`Die_No_Per_Chip`; default 2).
        die_no_per_chip: u32 = 2, "Die_No_Per_Chip", values::count;
        /// Planes per die (`Plane_No_Per_Die`; default 2).
        plane_no_per_die: u32 = 2, "Plane_No_Per_Die", values::count;
        /// Blocks per plane (`Block_No_Per_Plane`; default 2048).
        block_no_per_plane: u32 = 2048, "Block_No_Per_Plane", values::count;
        /// Pages per block (`Page_No_Per_Block`; default 256).
        page_no_per_block: u32 = 256, "Page_No_Per_Block", values::count;
        /// A page's data, bytes, a multiple of 512 (`Page_Capacity`; default 8192).
        page_capacity: u32 = 8192, "Page_Capacity", values::page_bytes;
        /// A page's spare area, bytes (`Page_Metadat_Capacity`, MQSim's
        /// spelling; default 1872).
        page_metadata_capacity: u32 = 1872, "Page_Metadat_Capacity", values::amount;
    }
}
