//! [`ScenarioBuilder`] and [`FlowBuilder`]: a scenario's keys as its file
//! states them, read from TOML or set in code.

use super::*;

/// A scenario as its file states it: the keys of a scenario file, each
/// optional where the file's is. Read one from TOML ([`Scenario::parse`]) or
/// build one in code; [`build`](Self::build) checks it, applies the defaults
/// and expands it into a [`Scenario`] the same way for both, and
/// [`to_toml`](Self::to_toml) writes it as a scenario file.
///
/// ```
/// use sluice_runtime::scenario::{FlowBuilder, Pattern, ScenarioBuilder};
///
/// let s = ScenarioBuilder::new("10r-rand", 20.0)
///     .warmup_s(5.0)
///     .preset("maxtor-stm332061")
///     .scheduler("bfq+")
///     .param("low_latency", false)
///     .flow(FlowBuilder::new("r", Pattern::RandRead).count(10))
///     .build()
///     .unwrap();
/// assert_eq!(s.flows.len(), 10);
/// assert_eq!(s.flows[9].name, "r9");
/// ```
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioBuilder {
    pub(crate) name: String,
    #[serde(default = "one")]
    pub(crate) seed: u64,
    pub(crate) duration_s: f64,
    #[serde(default)]
    pub(crate) warmup_s: f64,
    /// End the run as soon as every finite flow is done.
    #[serde(default)]
    pub(crate) stop_after_finite: bool,
    /// Optional in the file: `sim` then says the preset is missing, `run`
    /// needs none.
    #[serde(default)]
    pub(crate) device: DeviceKeys,
    pub(crate) scheduler: SchedulerKeys,
    #[serde(rename = "flow", default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) flows: Vec<FlowBuilder>,
    #[serde(rename = "class", default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) classes: Vec<ClassKeys>,
    #[serde(rename = "group", default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) groups: Vec<super::GroupBuilder>,
    /// The `[cost]` table: the linear cost model policies may charge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cost: Option<CostKeys>,
    /// The `[os]` table: the page cache of buffered flows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) os: Option<OsKeys>,
    /// The `[fleet]` table: a trace's volumes over nodes (`sluice fleet`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) fleet: Option<super::FleetKeys>,
}

/// The `[os]` table.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OsKeys {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) memory_mib: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) dirty_background_ratio: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) dirty_ratio: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) dirty_expire_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) read_ahead_kb: Option<u64>,
}

/// The `[cost]` table (iocost's linear model; see `sluice::LinearCost`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CostKeys {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) read_seq_us: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) read_rand_us: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) write_seq_us: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) write_rand_us: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) per_kib_us: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) seq_threshold_kib: Option<f64>,
}

impl CostKeys {
    /// Every key set from `model`.
    pub fn from_model(m: &sluice::LinearCost) -> Self {
        CostKeys {
            read_seq_us: Some(m.read_seq_us),
            read_rand_us: Some(m.read_rand_us),
            write_seq_us: Some(m.write_seq_us),
            write_rand_us: Some(m.write_rand_us),
            per_kib_us: Some(m.per_kib_us),
            seq_threshold_kib: Some(m.seq_threshold_kib),
        }
    }

    /// The model, over the kernel's HDD defaults for keys not set; each key
    /// must be a finite number in 0..=1e7.
    pub fn model(&self) -> Result<sluice::LinearCost> {
        let d = sluice::LinearCost::default();
        let key = |name: &str, v: Option<f64>, default: f64| match v {
            None => Ok(default),
            Some(x) if x.is_finite() && (0.0..=1e7).contains(&x) => Ok(x),
            Some(x) => Err(fail(format!(
                "[cost] {name} must be a number in 0..=1e7 (got {})",
                sluice::short_number(x)
            ))),
        };
        let model = sluice::LinearCost {
            read_seq_us: key("read_seq_us", self.read_seq_us, d.read_seq_us)?,
            read_rand_us: key("read_rand_us", self.read_rand_us, d.read_rand_us)?,
            write_seq_us: key("write_seq_us", self.write_seq_us, d.write_seq_us)?,
            write_rand_us: key("write_rand_us", self.write_rand_us, d.write_rand_us)?,
            per_kib_us: key("per_kib_us", self.per_kib_us, d.per_kib_us)?,
            seq_threshold_kib: key(
                "seq_threshold_kib",
                self.seq_threshold_kib,
                d.seq_threshold_kib,
            )?,
        };
        charges_every_request(&model)?;
        Ok(model)
    }
}

/// A model under which some request costs nothing is refused: a flow of
/// free requests is always the cheapest, so a cost-charging policy serves
/// it before everyone else (an all-zero `[cost]` starved flows under yfq).
/// Every request costs something when `per_kib_us` is positive, or else
/// when every base cost is.
fn charges_every_request(m: &sluice::LinearCost) -> Result<()> {
    if m.per_kib_us > 0.0 {
        return Ok(());
    }
    let free: Vec<&str> = [
        ("read_seq_us", m.read_seq_us),
        ("read_rand_us", m.read_rand_us),
        ("write_seq_us", m.write_seq_us),
        ("write_rand_us", m.write_rand_us),
    ]
    .iter()
    .filter(|(_, us)| *us <= 0.0)
    .map(|(key, _)| *key)
    .collect();
    if free.is_empty() {
        return Ok(());
    }
    Err(fail(format!(
        "[cost] charges nothing for some requests: per_kib_us and {} are 0 (make per_kib_us or each of them positive)",
        free.join(", ")
    )))
}

/// A `[[class]]` table.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ClassKeys {
    pub(super) name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) quantum_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) inner: Option<String>,
}

fn one() -> u64 {
    1
}

/// The `[device]` table.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DeviceKeys {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) preset: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) diskspecs: Option<String>,
    /// An MQSim device configuration (`ssdconfig.xml`): a flash SSD.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) mqsim: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) queue_depth: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) internal: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) write_cache: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) read_cache: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) max_command_age_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) merge: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) max_request_kib: Option<u32>,
    /// `model = "rate"`: a device given by its IOPS and bandwidth.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) read_iops: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) read_mb_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) write_iops: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) write_mb_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) capacity_gib: Option<f64>,
}

/// The `[scheduler]` table: the policy's name and its parameters.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
pub(crate) struct SchedulerKeys {
    pub(crate) name: String,
    #[serde(flatten)]
    pub(crate) params: BTreeMap<String, toml::Value>,
}

impl SchedulerKeys {
    /// The parameters as the policies take them (scenarios and mount
    /// configurations read `[scheduler]` alike).
    pub(crate) fn to_params(&self) -> Result<Params> {
        let mut params = Params::default();
        for (k, v) in &self.params {
            let pv = match v {
                toml::Value::Boolean(b) => ParamValue::Bool(*b),
                toml::Value::Integer(i) => ParamValue::Int(*i),
                toml::Value::Float(x) => ParamValue::Float(*x),
                toml::Value::String(s) => ParamValue::Str(s.clone()),
                other => {
                    return Err(fail(format!(
                        "[scheduler] {k}: expected a boolean, number or string, got {}",
                        other.type_str()
                    )))
                }
            };
            params.insert(k, pv);
        }
        Ok(params)
    }
}

/// A `[[flow]]` table: `count` flows alike (see [`ScenarioBuilder`]).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FlowBuilder {
    pub(super) name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) count: Option<u32>,
    /// What goes between the name and a copy's number (none in a
    /// scenario file; see [`FlowBuilder::copies_numbered_after_hash`]).
    #[serde(skip)]
    pub(super) copy_separator: Option<char>,
    pub(super) pattern: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) request_kib: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) file_gib: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) weight: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) start_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) offset_gib: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) think_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) outstanding: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) requests: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) trace: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) replay: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) repeat_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) pause_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) runs: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) fps: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) buffer_frames: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) clip_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) class: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) fragment_kib: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) weights: Option<Vec<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) size_mean_sectors: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) size_sd_sectors: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) read_fraction: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) format: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) timing: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) offsets: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) rate_iops: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) direct: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) reservation_iops: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) limit_iops: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) limit_mb_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) burst_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) group: Option<String>,
    pub(super) random_distribution: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) fsync_every: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) files: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) file_service: Option<String>,
    /// On an MQSim device: what MQSim sets per flow.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) ssd: Option<super::SsdKeys>,
    /// Trace flows: one flow, or one per volume or process (`flows`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) flows: Option<String>,
    /// Trace flows: the window of the trace replayed, s after its first
    /// arrival (`from_s`, `to_s`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) from_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) to_s: Option<f64>,
    /// Trace flows: arrivals divided by this (`speed`, default 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) speed: Option<f64>,
    /// A trace already read (a fleet's node): used instead of `trace`.
    #[serde(skip)]
    pub(super) trace_data: Option<Arc<Trace>>,
}

impl ScenarioBuilder {
    /// A scenario of `duration_s` seconds with the file's defaults: seed 1,
    /// no warm-up. It still needs a device, a scheduler and a flow.
    pub fn new(name: impl Into<String>, duration_s: f64) -> Self {
        ScenarioBuilder {
            name: name.into(),
            seed: one(),
            duration_s,
            warmup_s: 0.0,
            stop_after_finite: false,
            device: DeviceKeys::default(),
            scheduler: SchedulerKeys::default(),
            flows: Vec::new(),
            classes: Vec::new(),
            groups: Vec::new(),
            cost: None,
            os: None,
            fleet: None,
        }
    }

    /// The scenario's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The `[scheduler]` table: the policy's name and its parameters, in
    /// key order.
    pub fn policy(&self) -> (&str, &BTreeMap<String, toml::Value>) {
        (&self.scheduler.name, &self.scheduler.params)
    }

    /// `seed`.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// `warmup_s`: throughput counts only what completes after it.
    pub fn warmup_s(mut self, warmup_s: f64) -> Self {
        self.warmup_s = warmup_s;
        self
    }

    /// Shorten the run to at most `max_s` seconds, warm-up included (a
    /// warm-up as long as that is dropped): a quick look at a long run.
    pub fn cap_duration_s(mut self, max_s: f64) -> Self {
        if self.duration_s > max_s {
            self.duration_s = max_s;
            if self.warmup_s >= max_s {
                self.warmup_s = 0.0;
            }
        }
        self
    }

    /// `stop_after_finite`: end when every finite flow is done.
    pub fn stop_after_finite(mut self, stop: bool) -> Self {
        self.stop_after_finite = stop;
        self
    }

    /// `[device] preset`.
    pub fn preset(mut self, name: impl Into<String>) -> Self {
        self.device.preset = Some(name.into());
        self
    }

    /// `[device] diskspecs`: a DiskSim description (relative paths from the
    /// current directory).
    pub fn diskspecs(mut self, path: impl Into<String>) -> Self {
        self.device.diskspecs = Some(path.into());
        self
    }

    /// `[device] mqsim`: an MQSim device configuration (relative paths
    /// from the current directory), a flash SSD.
    pub fn mqsim(mut self, path: impl Into<String>) -> Self {
        self.device.mqsim = Some(path.into());
        self
    }

    /// `[device] queue_depth`.
    pub fn queue_depth(mut self, depth: u32) -> Self {
        self.device.queue_depth = Some(depth);
        self
    }

    /// `[device] internal`: the drive's own order (`fcfs`, `sstf`, `satf`).
    pub fn internal(mut self, order: impl Into<String>) -> Self {
        self.device.internal = Some(order.into());
        self
    }

    /// `[device] write_cache`.
    pub fn write_cache(mut self, on: bool) -> Self {
        self.device.write_cache = Some(on);
        self
    }

    /// `[device] read_cache`.
    pub fn read_cache(mut self, on: bool) -> Self {
        self.device.read_cache = Some(on);
        self
    }

    /// `[device] max_command_age_ms`: drive firmware ageing.
    pub fn max_command_age_ms(mut self, ms: f64) -> Self {
        self.device.max_command_age_ms = Some(ms);
        self
    }

    /// `[device] merge`: whether the block layer merges contiguous
    /// arrivals (default true).
    pub fn merge(mut self, on: bool) -> Self {
        self.device.merge = Some(on);
        self
    }

    /// `[device] max_request_kib`: the largest request merging builds
    /// (default 512, Linux's `max_sectors_kb` of the papers' kernels).
    pub fn max_request_kib(mut self, kib: u32) -> Self {
        self.device.max_request_kib = Some(kib);
        self
    }

    /// `[device] model = "rate"`: a device that serves its commands one at
    /// a time, in order, each for `1/iops + bytes/bandwidth` of its
    /// direction (`sluice_device::rate`). `read_iops` and `read_mb_s`
    /// (MB = 10^6 bytes; `None`: no such term, but not both `None`),
    /// likewise for writes (both `None`: as reads), and its size in GiB
    /// (`None`: 1024).
    pub fn rate_device(
        mut self,
        read: (Option<f64>, Option<f64>),
        write: (Option<f64>, Option<f64>),
        capacity_gib: Option<f64>,
    ) -> Self {
        self.device.model = Some("rate".into());
        (self.device.read_iops, self.device.read_mb_s) = read;
        (self.device.write_iops, self.device.write_mb_s) = write;
        self.device.capacity_gib = capacity_gib;
        self
    }

    /// `[scheduler] name`: the policy.
    pub fn scheduler(mut self, policy: impl Into<String>) -> Self {
        self.scheduler.name = policy.into();
        self
    }

    /// A `[scheduler]` parameter.
    pub fn param(mut self, name: impl Into<String>, value: impl Into<toml::Value>) -> Self {
        self.scheduler.params.insert(name.into(), value.into());
        self
    }

    /// A `[[class]]` of flows.
    pub fn class(
        mut self,
        name: impl Into<String>,
        quantum_ms: f64,
        inner: impl Into<String>,
    ) -> Self {
        self.classes.push(ClassKeys {
            name: name.into(),
            quantum_ms: Some(quantum_ms),
            inner: Some(inner.into()),
        });
        self
    }

    /// `[os]`: the page cache buffered flows (`direct = false`) go
    /// through: memory (MiB), `dirty_background_ratio` and `dirty_ratio`
    /// (percent of memory), `dirty_expire_s`, `read_ahead_kb`.
    pub fn os(
        mut self,
        memory_mib: u64,
        dirty_background_ratio: u64,
        dirty_ratio: u64,
        dirty_expire_s: f64,
        read_ahead_kb: u64,
    ) -> Self {
        self.os = Some(OsKeys {
            memory_mib: Some(memory_mib),
            dirty_background_ratio: Some(dirty_background_ratio),
            dirty_ratio: Some(dirty_ratio),
            dirty_expire_s: Some(dirty_expire_s),
            read_ahead_kb: Some(read_ahead_kb),
        });
        self
    }

    /// The `[cost]` table: every key from `model`.
    pub fn cost(mut self, model: &sluice::LinearCost) -> Self {
        self.cost = Some(CostKeys::from_model(model));
        self
    }

    /// A `[[group]]`.
    pub fn group(mut self, group: super::GroupBuilder) -> Self {
        self.groups.push(group);
        self
    }

    /// A `[[flow]]`.
    pub fn flow(mut self, flow: FlowBuilder) -> Self {
        self.flows.push(flow);
        self
    }

    /// Check the scenario and expand it, as [`Scenario::parse`] does a
    /// file's (relative paths from the current directory). Errors name no
    /// file.
    pub fn build(&self) -> Result<Scenario> {
        Scenario::from_raw(self, Path::new(""), false)
    }

    /// As [`build`](Self::build), relative paths from `base` (a scenario
    /// file's folder) and with `model` in place of the one `[device]`
    /// names: for an importer that holds the drive's description already
    /// (the `[device]` keys are still checked against it, and the flows'
    /// `ssd` tables fill its streams).
    pub fn build_with_model(&self, base: &Path, model: Model) -> Result<Scenario> {
        Scenario::from_raw_with(self, base, false, Some(model))
    }

    /// The scenario for `sluice run`: no drive model needed.
    pub fn build_real(&self) -> Result<Scenario> {
        Scenario::from_raw(self, Path::new(""), true)
    }

    /// The scenario as a scenario file that [`Scenario::parse`] reads back
    /// into this builder.
    pub fn to_toml(&self) -> Result<String> {
        toml::to_string(self).map_err(|e| {
            fail(format!(
                "cannot write scenario '{}' as TOML: {e}",
                self.name
            ))
        })
    }
}

impl FlowBuilder {
    /// A flow (`count` = 1) with every other key at its default.
    pub fn new(name: impl Into<String>, pattern: Pattern) -> Self {
        FlowBuilder {
            name: name.into(),
            pattern: pattern.name().to_string(),
            ..FlowBuilder::default()
        }
    }

    /// Name copies `name#0`, `name#1`, ... instead of `name0`, `name1`:
    /// fio's clones, where `[j1]` and `[j11]` with numjobs would both
    /// make `j110`. Not a scenario-file key.
    pub fn copies_numbered_after_hash(mut self) -> Self {
        self.copy_separator = Some('#');
        self
    }

    optional_keys! {
        /// `count` flows alike, named `name0`, `name1`, ...
        count: u32;
        /// Size of each request, KiB (default 128 for sequential flows, 64
        /// for video, else 4).
        request_kib: u32;
        /// Size of the flow's file, GiB (default 5).
        file_gib: f64;
        /// Scheduler weight, 1..=1000 (default 100).
        weight: u32;
        /// Reserved rate, IOPS, 0 < x <= 1e7 (default none): the minimum
        /// the `mclock` scheduler serves the flow (each of its threads)
        /// while it is backlogged. Other schedulers ignore it.
        reservation_iops: f64;
        /// Rate cap, IOPS, 0 < x <= 1e7 (default none): the most the flow
        /// (each of its threads) is served, under every scheduler (`mclock`
        /// by its limit tags, the others by a token bucket).
        limit_iops: f64;
        /// Rate cap, MB/s, 0 < x <= 1e6 (default none), under every
        /// scheduler.
        limit_mb_s: f64;
        /// How far ahead of its limits the flow may run after a pause, ms
        /// (default 100: blk-throttle's slice on disks).
        burst_ms: f64;
        /// The `[[group]]` the flow belongs to (default: the root).
        group: String;
        /// Random-offset flows (rand-read, rand-write, pool): where the
        /// offsets fall, as fio's `random_distribution`: `random` (the
        /// default), `zipf:THETA`, `pareto:H`, `normal:DEV`, each with an
        /// optional `:CENTER` (0..=1), or `zoned:A/S:A/S...` (A percent
        /// of the accesses to the next S percent of the file).
        random_distribution: String;
        /// Greedy writers: after every this many writes, wait for all of
        /// them before the next (fio's `fsync=N`).
        fsync_every: u64;
        /// Greedy flows: the file is this many files of equal length, one
        /// after another (fio's `nrfiles`; default 1).
        files: u32;
        /// Greedy flows with several files: `roundrobin[:N]` (the default:
        /// the next file after every N requests), `sequential` or `random`
        /// (fio's `file_service_type`).
        file_service: String;
        /// When the flow starts, s (default 0).
        start_s: f64;
        /// Where the flow's file starts (default: after the files so far).
        offset_gib: f64;
        /// Pause between a completion and the next issue (a paced writer:
        /// between issues), ms (default 0).
        think_ms: f64;
        /// Requests kept in flight (default 16 for writers, else 1).
        outstanding: u32;
        /// Stop after this many requests.
        requests: u64;
        /// Start-up flows: start again every `repeat_s` seconds.
        repeat_s: f64;
        /// Start-up flows: wait at least `pause_s` seconds after a start-up
        /// ends before the next.
        pause_s: f64;
        /// Start-up flows: stop after this many start-ups.
        runs: u64;
        /// Video flows: frames per second (default 27).
        fps: f64;
        /// Video flows: frames read ahead of the display (default 8).
        buffer_frames: u32;
        /// Video flows: the clip's length, s (default 30).
        clip_s: f64;
        /// Split each request into fragments of at most this many KiB,
        /// issued together.
        fragment_kib: u32;
        /// At most this many issues per second (greedy flows).
        rate_iops: f64;
        /// Pool flows: each reservation queue's weight (default `[80, 20]`).
        weights: Vec<u32>;
        /// Pool flows: mean request size, sectors (default 8).
        size_mean_sectors: f64;
        /// Pool flows: standard deviation of the request size, sectors
        /// (default 2).
        size_sd_sectors: f64;
        /// Pool flows: the fraction of requests that read (default 2/3);
        /// rand-read and rand-write flows: each request reads with this
        /// probability, else writes (default: the pattern's direction).
        read_fraction: f64;
        /// Straight to the disk (default true); false goes through the
        /// modelled page cache (`[os]`).
        direct: bool;
        /// Trace flows: replay from this many seconds after the trace's
        /// first arrival (default 0).
        from_s: f64;
        /// Trace flows: replay up to this many seconds after the trace's
        /// first arrival (default: to its end).
        to_s: f64;
        /// Trace flows: arrivals divided by this (2: twice as fast;
        /// default 1).
        speed: f64;
    }

    /// Trace flows: one flow for the whole trace (the default), or one per
    /// volume or process it names, each named by it.
    pub fn split(mut self, split: trace::Split) -> Self {
        self.flows = Some(split.name().to_string());
        self
    }

    /// Trace flows: replay `trace`, already read, instead of a file (the
    /// `trace` and `format` keys are then not needed).
    pub fn trace_data(mut self, trace: Arc<Trace>) -> Self {
        self.trace_data = Some(trace);
        self
    }

    /// Start-up flows: the trace, `xterm`, `gnometerm`, `bash` or a path.
    pub fn trace(mut self, trace: impl Into<String>) -> Self {
        self.trace = Some(trace.into());
        self
    }

    /// Trace flows: the trace's format (see [`trace::Format::ALL`]).
    pub fn format(mut self, format: trace::Format) -> Self {
        self.format = Some(format.name().to_string());
        self
    }

    /// Trace flows: recorded arrivals or as fast as `outstanding` allows.
    pub fn timing(mut self, timing: trace::Timing) -> Self {
        self.timing = Timing::ALL
            .iter()
            .find(|(_, t)| *t == timing)
            .map(|(n, _)| n.to_string());
        self
    }

    /// Trace flows: what to do with requests beyond the flow's space.
    pub fn offsets(mut self, offsets: trace::Offsets) -> Self {
        self.offsets = Offsets::ALL
            .iter()
            .find(|(_, o)| *o == offsets)
            .map(|(n, _)| n.to_string());
        self
    }

    /// On an MQSim device (`[device] mqsim`): the flow's `ssd` table.
    pub fn ssd(mut self, keys: super::SsdKeys) -> Self {
        self.ssd = Some(keys);
        self
    }

    /// Start-up flows: `s-suite` (the default), `recorded` or `think`.
    pub fn replay(mut self, replay: Replay) -> Self {
        self.replay = Some(replay.name().to_string());
        self
    }

    /// The `[[class]]` the flow belongs to.
    pub fn class(mut self, class: impl Into<String>) -> Self {
        self.class = Some(class.into());
        self
    }
}
