//! The values an element of MQSim's device configuration may hold: the
//! enumerations, spelled as MQSim spells them, and the checked readers of
//! numbers and flags. Each reader returns, on a bad value, what is
//! accepted, for the one-line error that names the element.

/// The longest time any element may state, in nanoseconds (1000 s): far
/// above any real figure, far below the clock's limit, so that sums of a
/// few of them cannot wrap.
pub const MAX_NS: u64 = 1_000_000_000_000;

/// A page is counted in 512-byte sectors (MQSim's `SECTOR_SIZE_IN_BYTE`).
pub const SECTOR_BYTES: u32 = 512;

/// Declares an enumeration of MQSim's: its variants, each with the text
/// MQSim's reader accepts for it (MQSim upper-cases the text first, so
/// case does not matter), `ALL` in MQSim's order, `name` and the reader.
macro_rules! mqsim_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// Every value, in the order MQSim's reader tries them.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The value as MQSim spells it in its files.
            pub fn name(self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )+
                }
            }

            /// The value `text` names, ignoring case as MQSim does; else
            /// what is accepted.
            pub(crate) fn parse(text: &str) -> Result<Self, String> {
                Self::ALL
                    .iter()
                    .copied()
                    .find(|v| v.name().eq_ignore_ascii_case(text))
                    .ok_or_else(|| {
                        let names: Vec<&str> = Self::ALL.iter().map(|v| v.name()).collect();
                        format!("one of {}", names.join(", "))
                    })
            }
        }
    };
}

mqsim_enum! {
    /// The memory behind the controller (`Memory_Type`; MQSim's
    /// `NVM::NVM_Type`, read in `Device_Parameter_Set.cpp`).
    pub enum MemoryType {
        /// NAND flash, the only memory MQSim models.
        Flash = "FLASH",
    }
}

mqsim_enum! {
    /// The host interface (`HostInterface_Type`; `HostInterface_Types`).
    pub enum HostInterface {
        /// NVMe: a submission and completion queue pair per flow.
        Nvme = "NVME",
        /// SATA with native command queueing.
        Sata = "SATA",
    }
}

mqsim_enum! {
    /// The data cache manager (`Caching_Mechanism`;
    /// `SSD_Components::Caching_Mechanism`).
    pub enum CachingMechanism {
        /// `Data_Cache_Manager_Flash_Simple`. MQSim stops on the FAST'18
        /// data-cache workloads with it ("The specified caching mode is
        /// not not support in simple cache manager!").
        Simple = "SIMPLE",
        /// `Data_Cache_Manager_Flash_Advanced`: read and write caching.
        Advanced = "ADVANCED",
    }
}

mqsim_enum! {
    /// How flows share the data cache (`Data_Cache_Sharing_Mode`;
    /// `SSD_Components::Cache_Sharing_Mode`).
    pub enum CacheSharingMode {
        /// One cache for all flows.
        Shared = "SHARED",
        /// An equal share per flow.
        EqualPartitioning = "EQUAL_PARTITIONING",
    }
}

mqsim_enum! {
    /// The FTL's address mapping (`Address_Mapping`;
    /// `SSD_Components::Flash_Address_Mapping_Type`).
    pub enum AddressMapping {
        /// Page-level mapping.
        PageLevel = "PAGE_LEVEL",
        /// Hybrid (block and page) mapping.
        Hybrid = "HYBRID",
    }
}

mqsim_enum! {
    /// How flows share the cached mapping table (`CMT_Sharing_Mode`;
    /// `SSD_Components::CMT_Sharing_Mode`). MQSim's reader accepts
    /// `EQUAL_PARTITIONING` for its `EQUAL_SIZE_PARTITIONING` (its writer's
    /// spelling, which its reader refuses).
    pub enum CmtSharingMode {
        /// One table cache for all flows.
        Shared = "SHARED",
        /// An equal share per flow.
        EqualPartitioning = "EQUAL_PARTITIONING",
    }
}

mqsim_enum! {
    /// The order in which consecutive logical pages are spread over the
    /// back end (`Plane_Allocation_Scheme`;
    /// `SSD_Components::Flash_Plane_Allocation_Scheme_Type`): a permutation
    /// of C (channel), W (way: chip), D (die) and P (plane), the first
    /// letter varying fastest.
    pub enum PlaneAllocation {
        /// Channel, die, plane, way.
        Cdpw = "CDPW",
        /// Channel, die, way, plane.
        Cdwp = "CDWP",
        /// Channel, plane, die, way.
        Cpdw = "CPDW",
        /// Channel, plane, way, die.
        Cpwd = "CPWD",
        /// Channel, way, die, plane (MQSim's default).
        Cwdp = "CWDP",
        /// Channel, way, plane, die.
        Cwpd = "CWPD",
        /// Die, channel, plane, way.
        Dcpw = "DCPW",
        /// Die, channel, way, plane.
        Dcwp = "DCWP",
        /// Die, plane, channel, way.
        Dpcw = "DPCW",
        /// Die, plane, way, channel.
        Dpwc = "DPWC",
        /// Die, way, channel, plane.
        Dwcp = "DWCP",
        /// Die, way, plane, channel.
        Dwpc = "DWPC",
        /// Plane, channel, die, way.
        Pcdw = "PCDW",
        /// Plane, channel, way, die.
        Pcwd = "PCWD",
        /// Plane, die, channel, way.
        Pdcw = "PDCW",
        /// Plane, die, way, channel.
        Pdwc = "PDWC",
        /// Plane, way, channel, die.
        Pwcd = "PWCD",
        /// Plane, way, die, channel.
        Pwdc = "PWDC",
        /// Way, channel, die, plane.
        Wcdp = "WCDP",
        /// Way, channel, plane, die.
        Wcpd = "WCPD",
        /// Way, die, channel, plane.
        Wdcp = "WDCP",
        /// Way, die, plane, channel.
        Wdpc = "WDPC",
        /// Way, plane, channel, die.
        Wpcd = "WPCD",
        /// Way, plane, die, channel.
        Wpdc = "WPDC",
    }
}

mqsim_enum! {
    /// The transaction scheduling unit inside the SSD
    /// (`Transaction_Scheduling_Policy`; `SSD_Components::Flash_Scheduling_Type`).
    pub enum TransactionScheduling {
        /// Out of order, one queue per chip and operation (`TSU_OutOfOrder`).
        OutOfOrder = "OUT_OF_ORDER",
        /// Out of order with a queue per NVMe priority class (`TSU_Priority_OutOfOrder`).
        PriorityOutOfOrder = "PRIORITY_OUT_OF_ORDER",
        /// FLIN, fairness-aware (`TSU_FLIN`, Tavakkol et al., ISCA'18).
        Flin = "FLIN",
    }
}

mqsim_enum! {
    /// How garbage collection picks its victim block
    /// (`GC_Block_Selection_Policy`; `SSD_Components::GC_Block_Selection_Policy_Type`).
    pub enum GcVictimPolicy {
        /// The block with the fewest valid pages.
        Greedy = "GREEDY",
        /// Randomized greedy: the greediest of a random sample (MQSim's default).
        Rga = "RGA",
        /// A random block that is not being written.
        Random = "RANDOM",
        /// A random full block.
        RandomP = "RANDOM_P",
        /// A random full block with at least a threshold of invalid pages.
        RandomPp = "RANDOM_PP",
        /// The block used longest ago.
        Fifo = "FIFO",
    }
}

mqsim_enum! {
    /// The protocol on the flash channels (`Flash_Comm_Protocol`;
    /// `SSD_Components::ONFI_Protocol`).
    pub enum FlashProtocol {
        /// ONFI NV-DDR2, the only protocol MQSim models.
        Nvddr2 = "NVDDR2",
    }
}

mqsim_enum! {
    /// Bits per cell (`Flash_Technology`; `Flash_Technology_Type`, read
    /// in `Flash_Parameter_Set.cpp`).
    pub enum FlashTechnology {
        /// One bit per cell: LSB pages only.
        Slc = "SLC",
        /// Two: LSB and MSB pages.
        Mlc = "MLC",
        /// Three: LSB, CSB and MSB pages.
        Tlc = "TLC",
    }
}

mqsim_enum! {
    /// Which flash commands a read may suspend (`CMD_Suspension_Support`;
    /// `NVM::FlashMemory::Command_Suspension_Mode`).
    pub enum CommandSuspension {
        /// None.
        None = "NONE",
        /// Erases (MQSim's default).
        Erase = "ERASE",
        /// Programs.
        Program = "PROGRAM",
        /// Programs and erases.
        ProgramErase = "PROGRAM_ERASE",
    }
}

/// A flag: `true` or `false`, any case. (MQSim takes anything but
/// `false` for true; a typo should not turn a feature on.)
pub(crate) fn flag(text: &str) -> Result<bool, String> {
    if text.eq_ignore_ascii_case("true") {
        Ok(true)
    } else if text.eq_ignore_ascii_case("false") {
        Ok(false)
    } else {
        Err("true or false".into())
    }
}

/// Decimal digits only (MQSim's `stoul` would read `8abc` as 8).
fn integer(text: &str, min: u64, max: u64) -> Result<u64, String> {
    let accepted = || format!("an integer from {min} to {max}");
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(accepted());
    }
    match text.parse::<u64>() {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(accepted()),
    }
}

/// A count of things that must exist (channels, dies, pages...): 1 and up,
/// MQSim's `unsigned int`.
pub(crate) fn count(text: &str) -> Result<u32, String> {
    integer(text, 1, u32::MAX.into()).map(|v| v as u32)
}

/// A size or count that may be 0 (a cache's bytes, a cycle limit):
/// MQSim's `unsigned int`.
pub(crate) fn amount(text: &str) -> Result<u32, String> {
    integer(text, 0, u32::MAX.into()).map(|v| v as u32)
}

/// A queue length: 1 to 65535 (MQSim's `uint16_t`, which it fills by a
/// cast that would wrap 65536 to 0).
pub(crate) fn queue_length(text: &str) -> Result<u16, String> {
    integer(text, 1, u16::MAX.into()).map(|v| v as u16)
}

/// A time in nanoseconds, 0 to [`MAX_NS`].
pub(crate) fn nanos(text: &str) -> Result<u64, String> {
    integer(text, 0, MAX_NS).map_err(|e| format!("{e} (nanoseconds)"))
}

/// A period in nanoseconds, 1 to [`MAX_NS`].
pub(crate) fn period(text: &str) -> Result<u64, String> {
    integer(text, 1, MAX_NS).map_err(|e| format!("{e} (nanoseconds)"))
}

/// The random seed: MQSim's `int` (read by `stoi`).
pub(crate) fn seed(text: &str) -> Result<i32, String> {
    let accepted = || format!("an integer from {} to {}", i32::MIN, i32::MAX);
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(accepted());
    }
    text.parse().map_err(|_| accepted())
}

/// A page's bytes: a positive multiple of 512, since MQSim counts a page
/// in sectors (`Page_Capacity / SECTOR_SIZE_IN_BYTE`, `SSD_Device.cpp`).
pub(crate) fn page_bytes(text: &str) -> Result<u32, String> {
    let accepted = || format!("a positive multiple of {SECTOR_BYTES} (bytes)");
    match count(text) {
        Ok(v) if v % SECTOR_BYTES == 0 => Ok(v),
        _ => Err(accepted()),
    }
}

/// A decimal number, finite.
fn real(text: &str) -> Option<f64> {
    let ok = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'));
    text.parse::<f64>().ok().filter(|v| ok && v.is_finite())
}

/// A share of the flash: 0 up to but not including 1.
pub(crate) fn share_below_one(text: &str) -> Result<f64, String> {
    real(text)
        .filter(|v| (0.0..1.0).contains(v))
        .ok_or_else(|| "a number from 0 up to (not including) 1".into())
}

/// A fraction: 0 to 1.
pub(crate) fn fraction(text: &str) -> Result<f64, String> {
    real(text)
        .filter(|v| (0.0..=1.0).contains(v))
        .ok_or_else(|| "a number from 0 to 1".into())
}

/// A bandwidth in GB/s: above 0, at most 10^6.
pub(crate) fn gigabytes_per_second(text: &str) -> Result<f64, String> {
    real(text)
        .filter(|v| *v > 0.0 && *v <= 1e6)
        .ok_or_else(|| "a number above 0, at most 1000000 (GB/s)".into())
}
