//! Scenarios: what to simulate. A scenario is stated as a
//! [`ScenarioBuilder`] — the keys of a scenario file, read from TOML or set
//! in code — and [`ScenarioBuilder::build`] checks it and applies the
//! defaults. Parsing is strict: an unknown key, a wrong type or an
//! impossible value is a one-line error naming the file and the key.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sluice::policy::{ParamValue, Params};
use sluice::{ClassConfig, Duration, Instant, NS_PER_S};
use sluice_workload::trace::{self, Offsets, Timing, Trace};
use sluice_workload::{Replay, StartupTrace, THREAD_FILE_SECTORS};

use sluice_device::{InternalOrder, Model};

use crate::error::{Error, Result};

/// Setters of a builder's optional keys: `key(value)` sets `Some(value)`.
macro_rules! optional_keys {
    ($($(#[$doc:meta])* $key:ident: $t:ty;)*) => {$(
        $(#[$doc])*
        pub fn $key(mut self, value: $t) -> Self {
            self.$key = Some(value);
            self
        }
    )*};
}

mod builder;
mod expand;
mod fleet_keys;
pub(crate) mod groups;
mod kind;
pub(crate) mod location;
mod memory;
pub mod ssd;
#[cfg(test)]
mod tests;

pub(crate) use builder::SchedulerKeys;
pub use builder::{CostKeys, FlowBuilder, ScenarioBuilder};
use builder::{DeviceKeys, OsKeys};
pub use expand::MAX_SECONDS;
pub use fleet_keys::FleetKeys;
pub use groups::GroupBuilder;
pub(crate) use kind::Window;
use location::{key_line, value_names};
use sluice_device::diskspecs;
use sluice_device::presets::{self, PRESETS};
pub use ssd::SsdKeys;

use sluice_workload::{FlowKind, GreedyPattern, PoolSpec, StartupSpec, TraceSpec, VideoSpec};
/// The flows a scenario builds, from `sluice-workload`.
pub use sluice_workload::{FlowSpec, Pattern};

const KIB_SECTORS: u64 = 2;
const GIB_SECTORS: f64 = (1u64 << 30) as f64 / 512.0;

/// An error about no file in particular; [`Scenario::parse`] names the file.
fn fail(message: impl Into<String>) -> Error {
    Error::new("", message)
}

/// Flow patterns, for `sluice list`.
pub const PATTERNS: &[(&str, &str)] = &[
    ("seq-read", "greedy sequential reader: synchronous reads of request_kib (default 128, the read-ahead); greedy flows may cap their rate with rate_iops"),
    ("rand-read", "greedy random reader: synchronous reads of request_kib (default 4) at random aligned offsets"),
    ("seq-write", "greedy sequential writer: asynchronous writes, up to `outstanding` (default 16) in flight"),
    ("rand-write", "greedy random writer: asynchronous writes at random offsets, up to `outstanding` in flight"),
    ("startup", "replay of an application start-up trace (`trace` = xterm | gnometerm | bash | path; `replay` = s-suite (default: trace order, no think time, as the S suite's tool) | recorded (gaps slept, recorded sectors) | think (as s-suite, with the program's estimated CPU time slept before each record)); reports its start-up time; repeat with repeat_s (start again every repeat_s seconds) and pause_s (at least pause_s after the last ended); runs = N stops after N start-ups (default: one, or no limit when repeating)"),
    ("pool", "reservation queues (`weights` = [80, 20]), each keeping `outstanding` requests in flight: normal sizes (size_mean_sectors 8, size_sd_sectors 2), read_fraction 2/3, uniform positions over the file"),
    ("video", "video player: frames of request_kib (default 64) at `fps` (27) with `buffer_frames` (8) of read-ahead for clip_s (30) seconds; counts late frames"),
    ("trace", "replay of a block trace (`trace` = path; `format` = blkparse | fio-iolog | msr | spc | disksim | mqsim | alibaba | tencent | fiu | blktrace | ftrace-blk; `flows` = one (default) | volume | process: a flow per volume or process the trace names; `from_s`, `to_s`, `speed`: a window of the trace, replayed faster; `timing` = afap (default: trace order, `outstanding` in flight) | recorded (each request at its recorded time, open loop); `offsets` = error (default) | wrap | scale | mqsim for requests beyond the flow's space); positions from offset_gib (default 0), the space to the device's end or file_gib long; reads synchronous, writes asynchronous"),
];

/// The device to simulate.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceConfig {
    /// The model, from a preset or a DiskSim description.
    pub model: Model,
    /// How many requests the host keeps in the device at once (its command
    /// queue).
    pub queue_depth: usize,
    /// The order in which the drive serves its queued commands (default SATF).
    pub internal: InternalOrder,
    /// `None` keeps the model's own write-back setting.
    pub write_cache: Option<bool>,
    /// `Some(false)` turns the drive's read cache and read-ahead off.
    pub read_cache: Option<bool>,
    /// Drive firmware ageing: a queued command older than this is served
    /// next. `None` (the default): off.
    pub max_command_age: Option<Duration>,
    /// The block layer merges contiguous arrivals of a flow (`merge`,
    /// default true, as Linux's elevator does).
    pub merge: bool,
    /// The largest request merging builds, KiB (`max_request_kib`, default
    /// 512: Linux's `max_sectors_kb` in the 2.6.3x kernels the BFQ papers
    /// ran).
    pub max_request_kib: u32,
}

impl DeviceConfig {
    /// The largest merged request in sectors, or `None` when merging is off:
    /// what hosts give [`sluice::Driver::with_merging`].
    pub fn merge_sectors(&self) -> Option<u32> {
        self.merge.then_some(self.max_request_kib.saturating_mul(2))
    }
}

/// `[device] max_request_kib` when unset: Linux's 512 KiB.
pub const DEFAULT_MAX_REQUEST_KIB: u32 = 512;
/// The largest `max_request_kib` accepted (32 MiB, Linux's largest
/// `max_hw_sectors_kb` in practice is far below).
pub const MAX_REQUEST_KIB_LIMIT: u32 = 32 * 1024;

/// The `[os]` table: the page cache that buffered flows (`direct =
/// false`) go through, as Linux 2.6.3x's `vm` settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OsConfig {
    /// Memory, MiB (default 1024: the BFQ papers do not state their
    /// machines' memory).
    pub memory_mib: u64,
    /// Dirty memory (percent) over which background writeback starts
    /// (default 10).
    pub dirty_background_ratio: u64,
    /// Dirty and writeback memory (percent) over which a writer is
    /// throttled (default 20).
    pub dirty_ratio: u64,
    /// Age after which dirty data is written back (default 30 s).
    pub dirty_expire: Duration,
    /// Largest read-ahead window, KiB (default 128).
    pub read_ahead_kb: u64,
}

impl Default for OsConfig {
    fn default() -> Self {
        OsConfig {
            memory_mib: 1024,
            dirty_background_ratio: 10,
            dirty_ratio: 20,
            dirty_expire: Duration::from_secs(30),
            read_ahead_kb: 128,
        }
    }
}

/// A loaded, validated scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// The scenario's name (`name`).
    pub name: String,
    /// Seed of the random draws: the flows' and the device model's.
    pub seed: u64,
    /// How long the run lasts (`duration_s`).
    pub duration: Duration,
    /// Completions before this are not measured (`warmup_s`).
    pub warmup: Duration,
    /// End when every finite flow (start-up, video, `requests = N`) is done,
    /// even if greedy flows are still running.
    pub stop_after_finite: bool,
    /// The device to simulate.
    pub device: DeviceConfig,
    /// The scheduling policy's name (`[scheduler] name`).
    pub scheduler: String,
    /// The policy's parameters (the other `[scheduler]` keys).
    pub params: Params,
    /// Classes of flows (VIOS's OS instances), in file order; a flow's
    /// `class` indexes this list.
    pub classes: Vec<ClassConfig>,
    /// Groups of flows (`[[group]]`), in file order; a flow's `group`
    /// indexes this list.
    pub groups: Vec<sluice::policy::GroupConfig>,
    /// The flows, each `count` expanded into its copies, in file order.
    pub flows: Vec<FlowSpec>,
    /// The page cache of buffered flows (`[os]`).
    pub os: OsConfig,
    /// The cost model policies set to `charge = "cost"` charge (`[cost]`;
    /// the kernel's HDD model when absent).
    pub cost: sluice::LinearCost,
}

impl Scenario {
    /// The scenario's policy, ready for a driver: the `[scheduler]` with the
    /// classes, the groups and the `[cost]` charge model ([`sluice::policy::build`]
    /// enforces the flows' limits under every policy).
    pub fn policy(&self) -> std::result::Result<Box<dyn sluice::Scheduler>, sluice::Error> {
        let context = sluice::policy::BuildContext {
            charge: self.cost,
            groups: self.groups.clone(),
            classes: self.classes.clone(),
        };
        sluice::policy::build(&self.scheduler, &self.params, &context)
    }

    /// Load a scenario file.
    pub fn load(path: &Path) -> Result<Self> {
        let file = path.display().to_string();
        let text = sluice_input::read_text(path, sluice_input::Kind::Scenario)?;
        Self::parse(&file, &text)
    }

    /// Parse scenario text; `file` names it in errors.
    pub fn parse(file: &str, text: &str) -> Result<Self> {
        Self::parse_for(file, text, false)
    }

    /// Load a scenario file for the real I/O engine (`sluice run`): as
    /// [`Scenario::load`], except that `[device]` may name no model (the
    /// real target replaces it; only `queue_depth` counts), in which case
    /// the files may be as large and the queue as deep (4096) as wanted.
    pub fn load_real(path: &Path) -> Result<Self> {
        let file = path.display().to_string();
        let text = sluice_input::read_text(path, sluice_input::Kind::Scenario)?;
        Self::parse_real(&file, &text)
    }

    /// Parse scenario text for the real I/O engine (see [`Scenario::load_real`]).
    pub fn parse_real(file: &str, text: &str) -> Result<Self> {
        Self::parse_for(file, text, true)
    }

    /// Read a scenario from JSON with a scenario file's keys (what the
    /// Python package makes of a dict): as [`Scenario::parse`], with no TOML
    /// in between; `real` as [`Scenario::parse_real`]. `file` names it in
    /// errors, and relative paths resolve against its folder.
    pub fn from_json(file: &str, json: &str, real: bool) -> Result<Self> {
        let raw: ScenarioBuilder = serde_json::from_str(json).map_err(|e| {
            // A dict has no lines: drop serde_json's position.
            let msg = e.to_string();
            let at = format!(" at line {} column {}", e.line(), e.column());
            Error::new(file, msg.strip_suffix(&at).unwrap_or(&msg))
        })?;
        let base = Path::new(file).parent().unwrap_or(Path::new("."));
        Self::from_raw(&raw, base, real).map_err(|e| Error {
            file: file.into(),
            ..e
        })
    }

    /// A scenario of `raw`, its relative paths from `base` (a fleet's
    /// node).
    pub(crate) fn from_builder_in(raw: &ScenarioBuilder, base: &Path) -> Result<Self> {
        Self::from_raw(raw, base, false)
    }

    fn parse_for(file: &str, text: &str, real: bool) -> Result<Self> {
        let raw: ScenarioBuilder =
            toml::from_str(text).map_err(|e| location::toml_error(file, text, &e))?;
        let base = Path::new(file).parent().unwrap_or(Path::new("."));
        // Errors below name no file (see `fail`): this one, and the line of
        // the key they are about when the text has it.
        Self::from_raw(&raw, base, real).map_err(|e| Error {
            file: file.into(),
            line: e.line.or_else(|| key_line(text, &e.message)),
            ..e
        })
    }
}
