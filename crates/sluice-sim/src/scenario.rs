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
use sluice::{ClassConfig, Duration, Instant, NS_PER_MS, NS_PER_S};
use sluice_workload::trace::{self, Offsets, Timing, Trace};
use sluice_workload::{Replay, StartupTrace, THREAD_FILE_SECTORS};

use crate::device::presets::{self, PRESETS};
use crate::device::{diskspecs, InternalOrder, Model};
use crate::error::{Error, Result};

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
    ("startup", "replay of an application start-up trace (`trace` = xterm | gnometerm | bash | path; `replay` = s-suite (default: trace order, no think time, as the S suite's tool) | recorded (gaps slept, recorded sectors)); reports its start-up time; repeat with repeat_s (start again every repeat_s seconds) and pause_s (at least pause_s after the last ended); runs = N stops after N start-ups (default: one, or no limit when repeating)"),
    ("pool", "reservation queues (`weights` = [80, 20]), each keeping `outstanding` requests in flight: normal sizes (size_mean_sectors 8, size_sd_sectors 2), read_fraction 2/3, uniform positions over the file"),
    ("video", "video player: frames of request_kib (default 64) at `fps` (27) with `buffer_frames` (8) of read-ahead for clip_s (30) seconds; counts late frames"),
    ("trace", "replay of a block trace (`trace` = path; `format` = blkparse | fio-iolog | msr | spc | disksim; `timing` = afap (default: trace order, `outstanding` in flight) | recorded (each request at its recorded time, open loop); `offsets` = error (default) | wrap | scale for requests beyond the device); positions from offset_gib (default 0); reads synchronous, writes asynchronous"),
];

/// The device to simulate.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceConfig {
    /// The model, from a preset or a DiskSim description.
    pub model: Model,
    pub queue_depth: usize,
    pub internal: InternalOrder,
    /// `None` keeps the model's own write-back setting.
    pub write_cache: Option<bool>,
    /// `Some(false)` turns the drive's read cache and read-ahead off.
    pub read_cache: Option<bool>,
    /// Drive firmware ageing: a queued command older than this is served
    /// next. `None` (the default): off.
    pub max_command_age: Option<Duration>,
}

/// A loaded, validated scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub name: String,
    pub seed: u64,
    pub duration: Duration,
    pub warmup: Duration,
    /// End when every finite flow (start-up, video, `requests = N`) is done,
    /// even if greedy flows are still running.
    pub stop_after_finite: bool,
    pub device: DeviceConfig,
    pub scheduler: String,
    pub params: Params,
    /// Classes of flows (VIOS's OS instances), in file order; a flow's
    /// `class` indexes this list.
    pub classes: Vec<ClassConfig>,
    pub flows: Vec<FlowSpec>,
}

/// A scenario as its file states it: the keys of a scenario file, each
/// optional where the file's is. Read one from TOML ([`Scenario::parse`]) or
/// build one in code; [`build`](Self::build) checks it, applies the defaults
/// and expands it into a [`Scenario`] the same way for both, and
/// [`to_toml`](Self::to_toml) writes it as a scenario file.
///
/// ```
/// use sluice_sim::scenario::{FlowBuilder, Pattern, ScenarioBuilder};
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
}

/// A `[[class]]` table.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ClassKeys {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    quantum_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    inner: Option<String>,
}

fn one() -> u64 {
    1
}

/// The `[device]` table.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DeviceKeys {
    #[serde(skip_serializing_if = "Option::is_none")]
    preset: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    diskspecs: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    queue_depth: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    internal: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    write_cache: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    read_cache: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_command_age_ms: Option<f64>,
}

/// The `[scheduler]` table: the policy's name and its parameters.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
pub(crate) struct SchedulerKeys {
    pub(crate) name: String,
    #[serde(flatten)]
    pub(crate) params: BTreeMap<String, toml::Value>,
}

/// A `[[flow]]` table: `count` flows alike (see [`ScenarioBuilder`]).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FlowBuilder {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    count: Option<u32>,
    pattern: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    request_kib: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file_gib: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    weight: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    offset_gib: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    think_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    outstanding: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    requests: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    trace: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    replay: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    repeat_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pause_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    runs: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fps: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    buffer_frames: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    clip_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    class: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fragment_kib: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    weights: Option<Vec<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    size_mean_sectors: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    size_sd_sectors: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    read_fraction: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    format: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timing: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    offsets: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rate_iops: Option<f64>,
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
        }
    }

    /// The scenario's name.
    pub fn name(&self) -> &str {
        &self.name
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

/// Setters of optional `[[flow]]` keys.
macro_rules! flow_keys {
    ($($(#[$doc:meta])* $key:ident: $t:ty;)*) => {$(
        $(#[$doc])*
        pub fn $key(mut self, value: $t) -> Self {
            self.$key = Some(value);
            self
        }
    )*};
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

    flow_keys! {
        /// `count` flows alike, named `name0`, `name1`, ...
        count: u32;
        request_kib: u32;
        file_gib: f64;
        weight: u32;
        start_s: f64;
        /// Where the flow's file starts (default: after the files so far).
        offset_gib: f64;
        think_ms: f64;
        outstanding: u32;
        /// Stop after this many requests.
        requests: u64;
        repeat_s: f64;
        pause_s: f64;
        runs: u64;
        fps: f64;
        buffer_frames: u32;
        clip_s: f64;
        fragment_kib: u32;
        /// At most this many issues per second (greedy flows).
        rate_iops: f64;
        weights: Vec<u32>;
        size_mean_sectors: f64;
        size_sd_sectors: f64;
        read_fraction: f64;
    }

    /// Start-up flows: the trace, `xterm`, `gnometerm`, `bash` or a path.
    pub fn trace(mut self, trace: impl Into<String>) -> Self {
        self.trace = Some(trace.into());
        self
    }

    /// Trace flows: the trace's format (`blkparse`, `fio-iolog`, `msr`,
    /// `spc`, `disksim`).
    pub fn format(mut self, format: trace::Format) -> Self {
        self.format = Some(format.name().to_string());
        self
    }

    /// Start-up flows: `s-suite` (the default) or `recorded`.
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

/// Settings of start-up and video flows, read once per `[[flow]]`.
#[derive(Default)]
struct KindKeys {
    pool_weights: Vec<u32>,
    size_mean: f64,
    size_sd: f64,
    read_fraction: f64,
    trace: Option<Arc<StartupTrace>>,
    replay: Replay,
    /// Trace flows: the trace as read, its timing and offset policy.
    block_trace: Option<Arc<Trace>>,
    timing: Timing,
    offsets: Offsets,
    repeat: Option<(Duration, Duration)>,
    frame_period: Duration,
    buffer_frames: u32,
    requests: Option<u64>,
}

/// The line of the key a value error is about: `flow 'NAME': key ...`
/// in that flow's table, `[device] key ...` in `[device]`, `key ...` at the
/// top. `None` when the message names no key the text sets.
fn key_line(text: &str, message: &str) -> Option<usize> {
    let ident = |s: &str| -> Option<String> {
        let k: String = s
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        (!k.is_empty()).then_some(k)
    };
    let (table, flow, rest) = if let Some(r) = message.strip_prefix("flow '") {
        let (name, rest) = r.split_once("': ")?;
        ("[[flow]]", Some(name), rest)
    } else if let Some(rest) = message.strip_prefix("[device] ") {
        ("[device]", None, rest)
    } else {
        ("", None, message)
    };
    let key = ident(rest)?;
    let assigns = |line: &str, k: &str| {
        line.trim_start()
            .strip_prefix(k)
            .is_some_and(|r| r.trim_start().starts_with('='))
    };
    // Tables by their header lines; the top level before the first one.
    let mut current = String::new();
    let mut block: Vec<(usize, &str)> = Vec::new();
    let mut found = None;
    let mut check = |current: &str, block: &[(usize, &str)]| {
        if found.is_some() || current != table {
            return;
        }
        let named = |n: &str| {
            block.iter().any(|(_, l)| {
                assigns(l, "name")
                    && l.split_once('=')
                        .is_some_and(|(_, v)| v.trim().trim_matches('"') == n)
            })
        };
        if flow.is_none_or(named) {
            found = block
                .iter()
                .find(|(_, l)| assigns(l, &key))
                .map(|(i, _)| i + 1);
        }
    };
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.starts_with('[') {
            check(&current, &block);
            current = t.split('#').next().unwrap_or("").trim().to_string();
            block.clear();
        } else {
            block.push((i, line));
        }
    }
    check(&current, &block);
    found
}

/// The names of a key's valid values, for its error message.
fn value_names<T>(all: &[(&str, T)]) -> String {
    all.iter().map(|n| n.0).collect::<Vec<_>>().join(", ")
}

/// 1-based line of byte offset `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())]
        .bytes()
        .filter(|&b| b == b'\n')
        .count()
        + 1
}

/// The longest time a scenario may state, in seconds (about 116 days).
pub const MAX_SECONDS: f64 = 1e7;

fn seconds(key: &str, v: f64, min: f64) -> Result<Duration> {
    if !v.is_finite() || v < min || v > MAX_SECONDS {
        return Err(fail(format!(
            "{key} must be a number of seconds in {min}..={MAX_SECONDS} (got {v})"
        )));
    }
    Ok(Duration::from_nanos((v * NS_PER_S as f64).round() as u64))
}

/// Memory a simulation takes per flow (queues, counters, a latency
/// histogram), and per request in flight; measured on the release build and
/// rounded up.
const BYTES_PER_FLOW: u64 = 24 << 10;
const BYTES_PER_REQUEST: u64 = 160;
const BYTES_BASE: u64 = 64 << 20;

/// The memory this machine has available (Linux's `MemAvailable`), if known.
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

impl Scenario {
    /// About how many bytes simulating this scenario needs: its flows and
    /// the requests they keep in flight.
    pub fn memory_estimate(&self) -> u64 {
        let in_flight: u64 = self
            .flows
            .iter()
            .map(|f| u64::from(f.outstanding) * f.pool_weights.len().max(1) as u64)
            .sum();
        BYTES_BASE
            .saturating_add((self.flows.len() as u64).saturating_mul(BYTES_PER_FLOW))
            .saturating_add(in_flight.saturating_mul(BYTES_PER_REQUEST))
    }

    /// Refuse, before it starts, a simulation that needs more memory than
    /// the machine has available.
    pub fn check_memory(&self) -> Result<()> {
        match available_memory() {
            Some(avail) => self.check_memory_against(avail),
            None => Ok(()),
        }
    }

    fn check_memory_against(&self, available: u64) -> Result<()> {
        let need = self.memory_estimate();
        if need <= available {
            return Ok(());
        }
        let in_flight: u64 = self
            .flows
            .iter()
            .map(|f| u64::from(f.outstanding) * f.pool_weights.len().max(1) as u64)
            .sum();
        let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
        Err(fail(format!(
            "scenario '{}' needs about {:.1} GiB of memory ({} flows, {in_flight} requests in flight) and this machine has {:.1} GiB available: lower count or outstanding",
            self.name,
            gib(need),
            self.flows.len(),
            gib(available)
        )))
    }

    /// Load a scenario file.
    pub fn load(path: &Path) -> Result<Self> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::new(file.clone(), format!("cannot read scenario: {e}")))?;
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
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::new(file.clone(), format!("cannot read scenario: {e}")))?;
        Self::parse_real(&file, &text)
    }

    /// Parse scenario text for the real I/O engine (see [`Scenario::load_real`]).
    pub fn parse_real(file: &str, text: &str) -> Result<Self> {
        Self::parse_for(file, text, true)
    }

    fn parse_for(file: &str, text: &str, real: bool) -> Result<Self> {
        let err = |message: String| Error::new(file, message);
        let raw: ScenarioBuilder = toml::from_str(text).map_err(|e| {
            let msg = e.message().replace('\n', " ");
            let msg = if msg.trim().is_empty() {
                // The parser says nothing when the file ends inside a
                // value (`name =` on the last line).
                "a value is missing after `=` (the file ends there)".to_string()
            } else {
                msg
            };
            match e.span() {
                Some(span) => {
                    // Quote the offending line: it names the key even when
                    // the parser's message only names the expected type.
                    let line = line_of(text, span.start);
                    let src = text.lines().nth(line - 1).unwrap_or("").trim();
                    if src.is_empty() {
                        err(format!("line {line}: {msg}"))
                    } else {
                        err(format!("line {line} ({src}): {msg}"))
                    }
                }
                None => err(msg),
            }
        })?;
        let base = Path::new(file).parent().unwrap_or(Path::new("."));
        // Errors below name no file (see `fail`): this one, and the line of
        // the key they are about when the text has it.
        Self::from_raw(&raw, base, real).map_err(|e| Error {
            file: file.into(),
            line: e.line.or_else(|| key_line(text, &e.message)),
            ..e
        })
    }

    /// The device model a `[device]` table names.
    fn model(dev: &DeviceKeys, base: &Path, real: bool) -> Result<Model> {
        match (&dev.preset, &dev.diskspecs) {
            (None, None) if real => Ok(Self::real_target()),
            (Some(_), Some(_)) => Err(fail("[device]: give either preset or diskspecs, not both")),
            (None, None) => Err(fail("[device]: missing preset (or diskspecs = \"path\")")),
            (Some(name), None) => presets::preset(name).ok_or_else(|| {
                let names: Vec<_> = PRESETS.iter().map(|p| p.name).collect();
                fail(format!(
                    "[device] preset: unknown preset '{name}' (available: {})",
                    names.join(", ")
                ))
            }),
            (None, Some(path)) => {
                let p = base.join(path);
                diskspecs::load(&p)
                    .map(Model::Hdd)
                    .map_err(|e| fail(format!("[device] diskspecs: {e}")))
            }
        }
    }

    /// Where copy `i` of a flow's file starts: at `offset_gib` (copies one
    /// after another), or after the files laid out so far.
    fn place(
        f: &FlowBuilder,
        i: u32,
        file_sectors: u64,
        next_free: u64,
        capacity: u64,
    ) -> Result<u64> {
        match f.offset_gib {
            Some(g) => {
                let start = Self::offset(g, capacity)?;
                Ok(start.saturating_add(u64::from(i).saturating_mul(file_sectors)))
            }
            None => Ok(next_free),
        }
    }

    /// `offset_gib` in sectors: a number inside the device.
    fn offset(g: f64, capacity: u64) -> Result<u64> {
        let max = capacity as f64 / GIB_SECTORS;
        if !g.is_finite() || g < 0.0 || g * GIB_SECTORS >= capacity as f64 {
            return Err(fail(format!(
                "offset_gib must be 0..{max:.1} (inside the device; got {g})"
            )));
        }
        Ok((g * GIB_SECTORS) as u64)
    }

    /// Keys that only start-up or video flows take.
    fn kind_keys(f: &FlowBuilder, pattern: Pattern, base: &Path) -> Result<KindKeys> {
        let mut k = KindKeys::default();
        let only = |key: &str, set: bool, which: Pattern| {
            if set && pattern != which {
                Err(fail(format!(
                    "{key} applies only to pattern = \"{}\"",
                    if which == Pattern::Startup {
                        "startup"
                    } else {
                        "video"
                    }
                )))
            } else {
                Ok(())
            }
        };
        if f.trace.is_some() && !matches!(pattern, Pattern::Startup | Pattern::Trace) {
            return Err(fail(
                "trace applies only to pattern = \"startup\" or \"trace\"",
            ));
        }
        for (key, set) in [
            ("format", f.format.is_some()),
            ("timing", f.timing.is_some()),
            ("offsets", f.offsets.is_some()),
        ] {
            if set && pattern != Pattern::Trace {
                return Err(fail(format!("{key} applies only to pattern = \"trace\"")));
            }
        }
        only("replay", f.replay.is_some(), Pattern::Startup)?;
        only("repeat_s", f.repeat_s.is_some(), Pattern::Startup)?;
        only("pause_s", f.pause_s.is_some(), Pattern::Startup)?;
        only("runs", f.runs.is_some(), Pattern::Startup)?;
        only("fps", f.fps.is_some(), Pattern::Video)?;
        only("buffer_frames", f.buffer_frames.is_some(), Pattern::Video)?;
        only("clip_s", f.clip_s.is_some(), Pattern::Video)?;
        only("weights", f.weights.is_some(), Pattern::Pool)?;
        only(
            "size_mean_sectors",
            f.size_mean_sectors.is_some(),
            Pattern::Pool,
        )?;
        only(
            "size_sd_sectors",
            f.size_sd_sectors.is_some(),
            Pattern::Pool,
        )?;
        only("read_fraction", f.read_fraction.is_some(), Pattern::Pool)?;
        match pattern {
            Pattern::Trace => {
                let path = f.trace.as_deref().ok_or_else(|| {
                    fail("a trace flow needs trace = \"path\" and format = \"...\"")
                })?;
                let format = f.format.as_deref().ok_or_else(|| {
                    fail(format!(
                        "a trace flow needs format = one of {}",
                        value_names(&trace::Format::ALL)
                    ))
                })?;
                let format = trace::Format::parse(format).ok_or_else(|| {
                    fail(format!(
                        "format: unknown value '{format}' (valid: {})",
                        value_names(&trace::Format::ALL)
                    ))
                })?;
                if let Some(t) = &f.timing {
                    k.timing = Timing::parse(t).ok_or_else(|| {
                        fail(format!(
                            "timing: unknown value '{t}' (valid: {})",
                            value_names(&Timing::ALL)
                        ))
                    })?;
                }
                if let Some(o) = &f.offsets {
                    k.offsets = Offsets::parse(o).ok_or_else(|| {
                        fail(format!(
                            "offsets: unknown value '{o}' (valid: {})",
                            value_names(&Offsets::ALL)
                        ))
                    })?;
                }
                k.block_trace = Some(Arc::new(Trace::load(&base.join(path), format)?));
            }
            Pattern::Startup => {
                let spec = f.trace.as_deref().ok_or_else(|| {
                    fail("a startup flow needs trace = \"xterm\" | \"gnometerm\" | \"bash\" | \"path\"")
                })?;
                k.trace = Some(StartupTrace::resolve(spec, base)?);
                if let Some(r) = &f.replay {
                    k.replay = Replay::parse(r).ok_or_else(|| {
                        let names: Vec<_> = Replay::ALL.iter().map(|m| m.0).collect();
                        fail(format!(
                            "replay: unknown value '{r}' (valid: {})",
                            names.join(", ")
                        ))
                    })?;
                }
                if f.repeat_s.is_some() || f.pause_s.is_some() {
                    let period = seconds("repeat_s", f.repeat_s.unwrap_or(0.0), 0.0)?;
                    let pause = seconds("pause_s", f.pause_s.unwrap_or(0.0), 0.0)?;
                    k.repeat = Some((period, pause));
                }
                if f.runs == Some(0) {
                    return Err(fail("runs must be at least 1"));
                }
            }
            Pattern::Pool => {
                let w = f.weights.clone().unwrap_or_else(|| vec![80, 20]);
                if w.is_empty() || w.len() > 64 || w.iter().any(|&x| !(1..=1000).contains(&x)) {
                    return Err(fail("weights must list 1..=64 weights, each 1..=1000"));
                }
                k.pool_weights = w;
                k.size_mean = f.size_mean_sectors.unwrap_or(8.0);
                k.size_sd = f.size_sd_sectors.unwrap_or(2.0);
                k.read_fraction = f.read_fraction.unwrap_or(2.0 / 3.0);
                // Sizes up to 64 MiB, as request_kib.
                if !(1.0..=131_072.0).contains(&k.size_mean) {
                    return Err(fail(format!(
                        "size_mean_sectors must be 1..=131072 (got {})",
                        k.size_mean
                    )));
                }
                if !(0.0..=131_072.0).contains(&k.size_sd) {
                    return Err(fail(format!(
                        "size_sd_sectors must be 0..=131072 (got {})",
                        k.size_sd
                    )));
                }
                if !(0.0..=1.0).contains(&k.read_fraction) {
                    return Err(fail(format!(
                        "read_fraction must be 0..=1 (got {})",
                        k.read_fraction
                    )));
                }
            }
            Pattern::Video => {
                let fps = f.fps.unwrap_or(27.0);
                if !fps.is_finite() || !(0.1..=1000.0).contains(&fps) {
                    return Err(fail(format!("fps must be 0.1..=1000 (got {fps})")));
                }
                let clip = f.clip_s.unwrap_or(30.0);
                if !clip.is_finite() || !(0.1..=1e6).contains(&clip) {
                    return Err(fail(format!(
                        "clip_s must be a positive number of seconds (got {clip})"
                    )));
                }
                k.frame_period = Duration::from_nanos((NS_PER_S as f64 / fps).round() as u64);
                k.buffer_frames = f.buffer_frames.unwrap_or(8);
                k.requests = Some(((clip * fps).round() as u64).max(1));
            }
            _ => {}
        }
        Ok(k)
    }

    /// The stand-in model of a real target: no size limit worth the name
    /// (512 TiB; free space is the real engine's check), a queue up to 4096.
    fn real_target() -> Model {
        match presets::preset("ssd-sata") {
            Some(Model::Ssd(mut s)) => {
                s.name = "real".into();
                s.capacity_sectors = 1 << 40;
                s.max_queue = 4096;
                Model::Ssd(s)
            }
            _ => unreachable!("ssd-sata is an SSD preset"),
        }
    }

    fn from_raw(raw: &ScenarioBuilder, base: &Path, real: bool) -> Result<Self> {
        let duration = seconds("duration_s", raw.duration_s, 0.001)?;
        let warmup = seconds("warmup_s", raw.warmup_s, 0.0)?;
        if warmup >= duration {
            return Err(fail(if raw.warmup_s < raw.duration_s {
                format!(
                    "warmup_s ({}) must end at least a nanosecond before duration_s ({}); both round to {} ns",
                    raw.warmup_s,
                    raw.duration_s,
                    duration.as_nanos()
                )
            } else {
                format!(
                    "warmup_s ({}) must be shorter than duration_s ({})",
                    raw.warmup_s, raw.duration_s
                )
            }));
        }
        let model = Self::model(&raw.device, base, real)?;
        let queue_depth = raw.device.queue_depth.unwrap_or(1);
        let max = model.max_queue();
        if queue_depth == 0 || queue_depth as usize > max {
            return Err(fail(format!(
                "[device] queue_depth must be 1..={max} for {} (got {queue_depth})",
                model.name()
            )));
        }
        if (raw.device.write_cache.is_some() || raw.device.read_cache.is_some())
            && !model.has_write_cache()
        {
            let key = if raw.device.write_cache.is_some() {
                "write_cache"
            } else {
                "read_cache"
            };
            return Err(fail(format!(
                "[device] {key}: {} has no drive cache to switch",
                model.name()
            )));
        }
        let max_command_age = match raw.device.max_command_age_ms {
            None => None,
            Some(x) if !x.is_finite() || x <= 0.0 || x > 1e7 => {
                return Err(fail(format!(
                    "[device] max_command_age_ms must be a number of milliseconds in (0, 1e7] (got {x})"
                )))
            }
            Some(_) if !model.reorders() => {
                return Err(fail(format!(
                    "[device] max_command_age_ms: {} does not reorder its commands",
                    model.name()
                )))
            }
            Some(x) => Some(Duration::from_nanos((x * NS_PER_MS as f64).round() as u64)),
        };
        let internal = match raw.device.internal.as_deref() {
            None => InternalOrder::Satf,
            Some(s) => InternalOrder::parse(s).ok_or_else(|| {
                fail(format!(
                    "[device] internal: unknown order '{s}' (expected fcfs, sstf or satf)"
                ))
            })?,
        };
        let mut params = Params::default();
        for (k, v) in &raw.scheduler.params {
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
        sluice::policy::build(&raw.scheduler.name, &params)
            .map_err(|e| fail(format!("[scheduler] {e}")))?;
        let mut classes: Vec<ClassConfig> = Vec::new();
        for c in &raw.classes {
            if classes.iter().any(|k| k.name == c.name) {
                return Err(fail(format!("[[class]] '{}' is defined twice", c.name)));
            }
            let q = c.quantum_ms.unwrap_or(20.0);
            if !q.is_finite() || !(0.001..=1e6).contains(&q) {
                return Err(fail(format!(
                    "[[class]] '{}': quantum_ms must be a positive number of ms (got {q})",
                    c.name
                )));
            }
            let inner = c.inner.clone().unwrap_or_else(|| "noop".into());
            sluice::policy::build(&inner, &Params::default())
                .map_err(|e| fail(format!("[[class]] '{}': inner: {e}", c.name)))?;
            classes.push(ClassConfig {
                name: c.name.clone(),
                quantum: Duration::from_nanos((q * NS_PER_MS as f64).round() as u64),
                inner,
            });
        }
        if raw.flows.is_empty() {
            return Err(fail("no [[flow]]: a scenario needs at least one flow"));
        }
        let capacity = model.capacity();
        let mut flows = Vec::new();
        let mut next_free = 0u64;
        for f in &raw.flows {
            // Errors about a flow name it first (and quote a trace file's
            // error whole).
            let ctx = |e: Error| fail(format!("flow '{}': {e}", f.name));
            let pattern = Pattern::parse(&f.pattern).ok_or_else(|| {
                let names: Vec<_> = PATTERNS.iter().map(|p| p.0).collect();
                ctx(fail(format!(
                    "pattern: unknown pattern '{}' (available: {})",
                    f.pattern,
                    names.join(", ")
                )))
            })?;
            let count = f.count.unwrap_or(1);
            if count == 0 || count > 100_000 {
                return Err(ctx(fail(format!("count must be 1..=100000 (got {count})"))));
            }
            let default_kib = match pattern {
                Pattern::Video => 64,
                p if p.is_sequential() => 128,
                _ => 4,
            };
            let kib = f.request_kib.unwrap_or(default_kib);
            if kib == 0 || kib > 65_536 {
                return Err(ctx(fail(format!(
                    "request_kib must be 1..=65536 (got {kib})"
                ))));
            }
            let request_sectors = kib * KIB_SECTORS as u32;
            let file_gib = f.file_gib.unwrap_or(5.0);
            if !file_gib.is_finite() || file_gib <= 0.0 {
                return Err(ctx(fail(format!(
                    "file_gib must be positive (got {file_gib})"
                ))));
            }
            let file_sectors = ((file_gib * GIB_SECTORS) as u64).max(u64::from(request_sectors));
            let weight = f.weight.unwrap_or(100);
            if !(1..=1000).contains(&weight) {
                return Err(ctx(fail(format!("weight must be 1..=1000 (got {weight})"))));
            }
            let start =
                Instant::ZERO + seconds("start_s", f.start_s.unwrap_or(0.0), 0.0).map_err(ctx)?;
            let think_ms = f.think_ms.unwrap_or(0.0);
            if !think_ms.is_finite() || !(0.0..=1e7).contains(&think_ms) {
                return Err(ctx(fail(format!(
                    "think_ms must be a number of ms in 0..=1e7 (got {think_ms})"
                ))));
            }
            let outstanding = f
                .outstanding
                .unwrap_or(if pattern.is_write() { 16 } else { 1 });
            if !(1..=4096).contains(&outstanding) {
                return Err(ctx(fail(format!(
                    "outstanding must be 1..=4096 (got {outstanding})"
                ))));
            }
            if f.requests == Some(0) {
                return Err(ctx(fail("requests must be at least 1")));
            }
            let rate_interval = match f.rate_iops {
                None => None,
                Some(r) if r.is_finite() && (0.001..=1e7).contains(&r) => {
                    if !matches!(
                        pattern,
                        Pattern::SeqRead
                            | Pattern::RandRead
                            | Pattern::SeqWrite
                            | Pattern::RandWrite
                    ) {
                        return Err(ctx(fail(
                            "rate_iops applies to greedy readers and writers only",
                        )));
                    }
                    Some(Duration::from_nanos((1e9 / r).round() as u64))
                }
                Some(r) => {
                    return Err(ctx(fail(format!(
                        "rate_iops must be 0.001..=1e7 (got {r})"
                    ))))
                }
            };
            let kind = Self::kind_keys(f, pattern, base).map_err(ctx)?;
            if f.fragment_kib == Some(0) || f.fragment_kib.is_some_and(|k| k > 65_536) {
                return Err(ctx(fail("fragment_kib must be 1..=65536")));
            }
            if f.fragment_kib.is_some() && matches!(pattern, Pattern::Startup | Pattern::Video) {
                return Err(ctx(fail(
                    "fragment_kib applies to greedy readers and writers only",
                )));
            }
            let class = match &f.class {
                None => None,
                Some(name) => Some(classes.iter().position(|c| &c.name == name).ok_or_else(
                    || {
                        let names: Vec<_> = classes.iter().map(|c| c.name.as_str()).collect();
                        ctx(fail(format!(
                            "class: no [[class]] named '{name}' (defined: {})",
                            if names.is_empty() {
                                "none".to_string()
                            } else {
                                names.join(", ")
                            }
                        )))
                    },
                )? as u32),
            };
            for i in 0..count {
                let recorded = pattern == Pattern::Startup && kind.replay == Replay::Recorded;
                let (file_start, file_sectors) = if pattern == Pattern::Startup && !recorded {
                    // The S suite's replay: one 20 MB file per thread, laid
                    // out like any flow's file.
                    let threads = kind.trace.as_ref().map_or(1, |t| t.threads.len() as u64);
                    let sectors = threads * THREAD_FILE_SECTORS;
                    (
                        Self::place(f, i, sectors, next_free, capacity).map_err(ctx)?,
                        sectors,
                    )
                } else if recorded || pattern == Pattern::Trace {
                    // A recorded replay or a block trace keeps the trace's
                    // positions, from offset_gib if given (a start-up's
                    // wrapped onto the device, a block trace's by its
                    // `offsets`).
                    let off = Self::offset(f.offset_gib.unwrap_or(0.0), capacity).map_err(ctx)?;
                    (off, capacity - off)
                } else {
                    (
                        Self::place(f, i, file_sectors, next_free, capacity).map_err(ctx)?,
                        file_sectors,
                    )
                };
                if let Some(t) = &kind.trace {
                    let largest = t.records.iter().map(|r| r.sectors).max().unwrap_or(0);
                    if u64::from(largest) > file_sectors {
                        return Err(ctx(fail(format!(
                            "trace '{}' has a request of {largest} sectors, more than the {file_sectors} sectors it may use on {}",
                            t.name,
                            model.name()
                        ))));
                    }
                }
                let end = file_start.saturating_add(file_sectors);
                if end > capacity {
                    return Err(ctx(fail(format!(
                        "file ends at {:.1} GiB, past the end of {} ({:.1} GiB): lower file_gib, offset_gib or count",
                        end as f64 / GIB_SECTORS,
                        model.name(),
                        capacity as f64 / GIB_SECTORS
                    ))));
                }
                // A block trace's requests, placed in the space from
                // file_start; its file is as long as the trace reaches.
                let (trace_requests, file_sectors) = match &kind.block_trace {
                    Some(t) => {
                        let mut placed = t.place(file_sectors, kind.offsets).map_err(ctx)?;
                        let reach = placed
                            .iter()
                            .map(|r| r.sector + u64::from(r.sectors))
                            .max()
                            .unwrap_or(1);
                        for r in &mut placed {
                            r.sector += file_start;
                        }
                        (Some(Arc::new(placed)), reach)
                    }
                    None => (None, file_sectors),
                };
                if !recorded && pattern != Pattern::Trace {
                    next_free = next_free.max(end);
                }
                let name = if count > 1 {
                    format!("{}{}", f.name, i)
                } else {
                    f.name.clone()
                };
                flows.push(FlowSpec {
                    name,
                    pattern,
                    request_sectors,
                    file_start,
                    file_sectors,
                    weight,
                    start,
                    think: Duration::from_nanos((think_ms * NS_PER_MS as f64).round() as u64),
                    outstanding,
                    requests: kind.requests.or(f.requests),
                    trace: kind.trace.clone(),
                    replay: kind.replay,
                    repeat: kind.repeat,
                    runs: f.runs,
                    frame_period: kind.frame_period,
                    buffer_frames: kind.buffer_frames,
                    class,
                    fragment_sectors: f.fragment_kib.map(|k| k * KIB_SECTORS as u32),
                    pool_weights: kind.pool_weights.clone(),
                    size_mean: kind.size_mean,
                    size_sd: kind.size_sd,
                    read_fraction: kind.read_fraction,
                    trace_requests,
                    timing: kind.timing,
                    rate_interval,
                });
            }
        }
        let mut names: Vec<&str> = flows.iter().map(|f| f.name.as_str()).collect();
        names.sort_unstable();
        if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
            return Err(fail(format!(
                "flow name '{}' is used twice (names must be unique; a flow with count = N is named name0..nameN-1)",
                w[0]
            )));
        }
        Ok(Scenario {
            name: raw.name.clone(),
            seed: raw.seed,
            duration,
            warmup,
            stop_after_finite: raw.stop_after_finite,
            device: DeviceConfig {
                model,
                queue_depth: queue_depth as usize,
                internal,
                write_cache: raw.device.write_cache,
                read_cache: raw.device.read_cache,
                max_command_age,
            },
            scheduler: raw.scheduler.name.clone(),
            params,
            classes,
            flows,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
name = "t"
seed = 3
duration_s = 10
warmup_s = 1

[device]
preset = "maxtor-stm332061"

[scheduler]
name = "clook"

[[flow]]
name = "r"
count = 3
pattern = "rand-read"
file_gib = 2
"#;

    fn parse(text: &str) -> Result<Scenario> {
        Scenario::parse("s.toml", text)
    }

    #[test]
    fn expands_counts_and_lays_files_out_one_after_another() {
        let s = parse(GOOD).unwrap();
        assert_eq!(s.flows.len(), 3);
        assert_eq!(s.flows[2].name, "r2");
        assert_eq!(s.flows[1].file_start, s.flows[0].file_sectors);
        assert_eq!(s.flows[0].request_sectors, 8);
        assert_eq!(s.flows[0].outstanding, 1);
        assert_eq!(
            (s.seed, s.duration, s.warmup),
            (3, Duration::from_secs(10), Duration::from_secs(1))
        );
    }

    #[test]
    fn offset_places_a_file() {
        let s = parse(&GOOD.replace("file_gib = 2", "file_gib = 2\noffset_gib = 100")).unwrap();
        assert_eq!(s.flows[0].file_start, (100.0 * GIB_SECTORS) as u64);
    }

    fn error(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    #[test]
    fn unknown_key_is_named_with_its_line() {
        let e = error(&GOOD.replace("seed = 3", "seed = 3\ncolour = \"red\""));
        assert!(
            e.starts_with("s.toml: line ") && e.contains("colour"),
            "{e}"
        );
        assert!(!e.contains('\n'), "{e}");
    }

    #[test]
    fn value_errors_name_the_line_of_their_key() {
        let two =
            format!("{GOOD}\n[[flow]]\nname = \"w\"\npattern = \"seq-write\"\nweight = 2000\n");
        let e = Scenario::parse("t.toml", &two).unwrap_err().to_string();
        let line = two.lines().position(|l| l == "weight = 2000").unwrap() + 1;
        assert!(
            e.starts_with(&format!("t.toml: line {line}: flow 'w': weight")),
            "{e}"
        );
        let dev = GOOD.replace(
            "preset = \"maxtor-stm332061\"",
            "preset = \"maxtor-stm332061\"\nqueue_depth = 0",
        );
        let e = Scenario::parse("t.toml", &dev).unwrap_err().to_string();
        let line = dev.lines().position(|l| l == "queue_depth = 0").unwrap() + 1;
        assert!(
            e.starts_with(&format!("t.toml: line {line}: [device] queue_depth")),
            "{e}"
        );
        let top = GOOD.replace("duration_s = 10", "duration_s = -4");
        let e = Scenario::parse("t.toml", &top).unwrap_err().to_string();
        assert!(e.starts_with("t.toml: line 4: duration_s"), "{e}");
        // A message about no key of the file names no line.
        assert_eq!(
            key_line(GOOD, "flow 'r': the file ends past the disk"),
            None
        );
        assert_eq!(key_line(GOOD, "flow 'zz': count must be"), None);
    }

    #[test]
    fn bad_values_name_their_key() {
        for (from, to, needle) in [
            ("maxtor-stm332061", "no-such-disk", "no-such-disk"),
            ("\"clook\"", "\"nope\"", "nope"),
            (
                "file_gib = 2",
                "file_gib = 2\nrequest_kib = 0",
                "request_kib",
            ),
            ("file_gib = 2", "file_gib = 2\nweight = 0", "weight"),
            ("file_gib = 2", "file_gib = 400", "past the end"),
            ("rand-read", "sideways", "sideways"),
            ("warmup_s = 1", "warmup_s = 20", "warmup_s"),
            ("seed = 3", "seed = \"x\"", "seed"),
            (
                "name = \"clook\"",
                "name = \"clook\"\nquantum = 3",
                "quantum",
            ),
        ] {
            let e = error(&GOOD.replace(from, to));
            assert!(e.contains(needle), "{from} -> {to}: {e}");
            assert!(e.starts_with("s.toml: "), "{e}");
        }
    }

    #[test]
    fn max_command_age_is_off_unless_set_and_range_checked() {
        assert_eq!(parse(GOOD).unwrap().device.max_command_age, None);
        let with = |v: &str| {
            GOOD.replace(
                "preset = \"maxtor-stm332061\"",
                &format!("preset = \"maxtor-stm332061\"\nmax_command_age_ms = {v}"),
            )
        };
        let s = parse(&with("1500")).unwrap();
        assert_eq!(s.device.max_command_age, Some(Duration::from_millis(1500)));
        let s = parse(&with("2.5")).unwrap();
        assert_eq!(s.device.max_command_age, Some(Duration::from_micros(2500)));
        for bad in ["0", "-3", "1e9"] {
            let e = error(&with(bad));
            assert!(
                e.starts_with("s.toml: line 9: [device] max_command_age_ms must be")
                    && !e.contains('\n'),
                "{bad}: {e}"
            );
        }
        let e = error(&with("10").replace("maxtor-stm332061", "ssd-sata"));
        assert!(
            e.contains("max_command_age_ms") && e.contains("ssd-sata"),
            "{e}"
        );
    }

    #[test]
    fn classes_are_parsed_and_flows_name_them() {
        let text = GOOD.replace("file_gib = 2", "file_gib = 2\nclass = \"os2\"")
            + "\n[[class]]\nname = \"os1\"\n\n[[class]]\nname = \"os2\"\nquantum_ms = 40\ninner = \"clook\"\n";
        let s = parse(&text).unwrap();
        assert_eq!(s.classes.len(), 2);
        assert_eq!(s.classes[1].quantum, Duration::from_millis(40));
        assert_eq!(s.classes[1].inner, "clook");
        assert_eq!(s.classes[0].inner, "noop");
        assert!(s.flows.iter().all(|f| f.class == Some(1)));
        let e = error(&GOOD.replace("file_gib = 2", "file_gib = 2\nclass = \"nope\""));
        assert!(e.contains("nope") && e.contains("class"), "{e}");
        let e = error(&(GOOD.to_string() + "\n[[class]]\nname = \"c\"\ninner = \"bogus\"\n"));
        assert!(e.contains("bogus"), "{e}");
    }

    /// `GOOD` stated in code.
    fn good() -> ScenarioBuilder {
        ScenarioBuilder::new("t", 10.0)
            .seed(3)
            .warmup_s(1.0)
            .preset("maxtor-stm332061")
            .scheduler("clook")
            .flow(
                FlowBuilder::new("r", Pattern::RandRead)
                    .count(3)
                    .file_gib(2.0),
            )
    }

    #[test]
    fn a_builder_gives_what_its_file_gives() {
        assert_eq!(good().build().unwrap(), parse(GOOD).unwrap());
        assert_eq!(toml::from_str::<ScenarioBuilder>(GOOD).unwrap(), good());
        let e = good().scheduler("nope").build().unwrap_err().to_string();
        assert!(e.starts_with("[scheduler] unknown policy 'nope'"), "{e}");
    }

    #[test]
    fn to_toml_reads_back_as_the_same_scenario() {
        let b = good()
            .stop_after_finite(true)
            .preset("maxtor-7l250s0")
            .queue_depth(32)
            .internal("fcfs")
            .write_cache(false)
            .max_command_age_ms(250.0)
            .scheduler("bfq+")
            .param("low_latency", false)
            .param("raised_idle_factor", 3)
            .param("peak_rate_lpf", true)
            .class("os1", 20.0, "noop")
            .flow(
                FlowBuilder::new("w", Pattern::SeqWrite)
                    .file_gib(5e9 / 1073741824.0)
                    .offset_gib(100.0 / 3.0)
                    .think_ms(0.1)
                    .class("os1"),
            )
            .flow(
                FlowBuilder::new("xterm", Pattern::Startup)
                    .trace("xterm")
                    .start_s(5.0)
                    .runs(3)
                    .pause_s(1.0),
            )
            .flow(
                FlowBuilder::new("video", Pattern::Video)
                    .fps(27.0)
                    .clip_s(30.0)
                    .buffer_frames(8),
            )
            .flow(FlowBuilder::new("rq", Pattern::Pool).weights(vec![80, 20]));
        let text = b.to_toml().unwrap();
        assert_eq!(
            toml::from_str::<ScenarioBuilder>(&text).unwrap(),
            b,
            "{text}"
        );
        assert_eq!(
            Scenario::parse("s.toml", &text).unwrap(),
            b.build().unwrap(),
            "{text}"
        );
    }

    #[test]
    fn errors_name_the_file_once() {
        let e = parse(&GOOD.replace("file_gib = 2", "file_gib = 2\nstart_s = -1")).unwrap_err();
        assert_eq!(
            (e.file.as_str(), e.line, e.key.as_deref()),
            ("s.toml", Some(18), None)
        );
        assert_eq!(
            e.to_string(),
            "s.toml: line 18: flow 'r': start_s must be a number of seconds in 0..=10000000 (got -1)"
        );
        let e = error(&GOOD.replace(
            "pattern = \"rand-read\"",
            "pattern = \"startup\"\ntrace = \"/nonexistent/t\"",
        ));
        assert!(
            e.starts_with(
                "s.toml: line 17: flow 'r': trace '/nonexistent/t': not an embedded trace"
            ),
            "{e}"
        );
    }

    #[test]
    fn a_scenario_larger_than_memory_is_refused_with_its_estimate() {
        let s = parse(GOOD).unwrap();
        let need = s.memory_estimate();
        assert!(need > BYTES_BASE && need < 100 << 20, "{need}");
        assert!(s.check_memory_against(need).is_ok());
        let e = s.check_memory_against(need - 1).unwrap_err().to_string();
        assert!(e.contains("GiB of memory") && e.contains("3 flows"), "{e}");
        let big = parse(
            &GOOD
                .replace("count = 3", "count = 100000\noutstanding = 4096")
                .replace("file_gib = 2", "file_gib = 0.001"),
        )
        .unwrap();
        assert!(
            big.memory_estimate() > 50 << 30,
            "{}",
            big.memory_estimate()
        );
    }

    #[test]
    fn impossible_flow_values_are_refused() {
        for (from, to, needle) in [
            (
                "file_gib = 2",
                "file_gib = 2\noffset_gib = 9e12",
                "offset_gib",
            ),
            (
                "file_gib = 2",
                "file_gib = 2\noffset_gib = nan",
                "offset_gib",
            ),
            (
                "file_gib = 2",
                "file_gib = 2\noffset_gib = -1",
                "offset_gib",
            ),
            (
                "file_gib = 2",
                "file_gib = 2\nthink_ms = 1e300",
                "think_ms must be a number of ms in 0..=1e7",
            ),
            (
                "duration_s = 10",
                "duration_s = 1e300",
                "duration_s must be a number of seconds in 0.001..=10000000",
            ),
            ("count = 3", "count = 1", "used twice"),
        ] {
            let text = GOOD.replace(from, to);
            let text = if needle == "used twice" {
                format!("{text}\n[[flow]]\nname = \"r\"\npattern = \"seq-read\"\n")
            } else {
                text
            };
            let e = error(&text);
            assert!(e.contains(needle), "{to}: {e}");
            assert!(e.starts_with("s.toml: ") && !e.contains('\n'), "{e}");
        }
        // A startup replay at a negative or NaN offset is refused, not clamped.
        for off in ["-3", "nan"] {
            let e = error(&GOOD.replace(
                "pattern = \"rand-read\"",
                &format!("pattern = \"startup\"\ntrace = \"xterm\"\nreplay = \"recorded\"\noffset_gib = {off}"),
            ).replace("count = 3\n", "").replace("file_gib = 2\n", ""));
            assert!(e.contains("offset_gib"), "{off}: {e}");
        }
        // Pool sizes stay within bounds.
        let pool = GOOD.replace("count = 3\n", "").replace("rand-read", "pool");
        let e = error(&pool.replace("file_gib = 2", "file_gib = 2\nsize_mean_sectors = 1e12"));
        assert!(e.contains("size_mean_sectors must be 1..=131072"), "{e}");
        let e = error(&pool.replace("file_gib = 2", "file_gib = 2\nsize_sd_sectors = -1"));
        assert!(e.contains("size_sd_sectors"), "{e}");
    }

    #[test]
    fn messages_say_what_is_wrong() {
        // A value missing at the very end of the file.
        let e = error(&format!("{GOOD}name ="));
        let tail = e.split_once("):").map(|(_, t)| t.trim()).unwrap_or("");
        assert!(e.contains("line ") && !tail.is_empty(), "{e}");
        // read_cache on a drive without one names read_cache.
        let e = error(&GOOD.replace(
            "preset = \"maxtor-stm332061\"",
            "preset = \"ssd-sata\"\nread_cache = false",
        ));
        assert!(
            e.contains("read_cache") && !e.contains("write_cache"),
            "{e}"
        );
        // A warm-up that rounds to the duration says so.
        let e = error(&GOOD.replace("warmup_s = 1", "warmup_s = 9.9999999999"));
        assert!(e.contains("round"), "{e}");
    }

    #[test]
    fn missing_file_names_the_path() {
        let e = Scenario::load(Path::new("/nonexistent/x.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("/nonexistent/x.toml: "), "{e}");
    }
}
