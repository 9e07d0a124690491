//! MQSim's workload file (`workload.xml` of CMU-SAFARI/MQSim) as a
//! scenario on the MQSim device its `ssdconfig.xml` describes
//! (`[device] mqsim`). One `<IO_Scenario>` (the `scenario`-th, from 1)
//! becomes the scenario; its flows, in order, become flows `flow-1`,
//! `flow-2`, ... (as `sluice repro mqsim` names them) with an `ssd` table each.
//!
//! | MQSim | scenario |
//! | --- | --- |
//! | the flow's logical range (`Logical_Address_Partitioning_Unit.cpp`: a plane shared by k flows gives each 1/k of its sectors less over-provisioning; ranges end to end in flow order) | `offset_gib` = its start, `file_gib` = its length (synthetic: `Working_Set_Percentage` of it, as `IO_Flow_Synthetic.cpp`: `start + (end - start) x ws`, inclusive; outside 1..=100 taken as 100, as `Host_System.cpp` does) |
//! | `QUEUE_DEPTH`, `Average_No_of_Reqs_in_Queue` | a closed-loop flow, `outstanding` = that many |
//! | `BANDWIDTH`, `Bandwidth` | `rate_iops` = 10^9 / MQSim's mean gap (`Host_System.cpp`, in integers), `outstanding` 4096 |
//! | `Read_Percentage` 100 / 0 / p | a reader / a writer / `rand-read` with `read_fraction` = p / 100 (MQSim draws each request's direction) |
//! | `RANDOM_UNIFORM` / `STREAMING` | `rand-*` / `seq-*` |
//! | `RANDOM_HOTCOLD`, `Percentage_of_Hot_Region` = h | `random_distribution = "zoned:(100-h)/h:h/(100-h)"` (MQSim sends (100 - h)% of requests to the first h% of the range) |
//! | `FIXED`, `Average_Request_Size` (sectors) | `request_kib` = sectors / 2 |
//! | `Stop_Time` (ns) / `Total_Requests_To_Generate` | `duration_s` (the longest) / `requests` |
//! | `Seed` | the scenario's `seed` (the first synthetic flow's; flows draw from their own streams of it) |
//! | trace-based, `File_Path` | `pattern = "trace"`, `format = "mqsim"`, `timing = "recorded"`, `offsets = "mqsim"`, `start_s` = the first arrival |
//! | `Priority_Class`, `Device_Level_Data_Caching_Mode`, `*_IDs`, `Initial_Occupancy_Percentage` | the flow's `ssd` table |
//! | `IO_Queue_Depth` | `[device] queue_depth` (scheduler `noop`, no merging) |
//!
//! What cannot be mapped is refused by name (`NORMAL` sizes, a mixed
//! `STREAMING` flow, an odd request size, replays and partial traces, time
//! units other than nanoseconds); what is approximated is in the notes.

mod ranges;
mod values;
mod xml;

#[cfg(test)]
mod tests;

use std::path::{Component, Path, PathBuf};

use sluice_device::flash::{FlashSpec, StreamCaching, StreamPriority};
use sluice_device::mqsim::{HostInterface, SsdConfig};
use sluice_device::Model;
use sluice_workload::trace::{Format, Offsets, Timing};

use self::ranges::{Range, Resources};
use self::values::Values;
use super::{fail, Imported, Kind};
use crate::error::Result;
use crate::scenario::ssd::{name_of, CACHING, PRIORITIES};
use crate::scenario::{FlowBuilder, Pattern, ScenarioBuilder, SsdKeys};

/// The most flows a scenario may have (MQSim numbers its queues in 16 bits).
pub const MAX_FLOWS: usize = 4096;

/// Outstanding requests of an open-loop (`BANDWIDTH`) flow: sluice's most.
const OPEN_LOOP_OUTSTANDING: u32 = 4096;

const GIB_SECTORS: f64 = (1u64 << 21) as f64;

/// Read the workload file, the device configuration and the `scenario`-th
/// scenario (from 1), for a scenario file to be written at `output`
/// (`None`: the current directory): the configuration's and the traces'
/// paths are written relative to its folder.
pub fn import(
    workload: &Path,
    ssdconfig: &Path,
    scenario: usize,
    output: Option<&Path>,
) -> Result<Imported> {
    let text = super::read_input(workload, Kind::MqsimWorkload)?;
    let config = SsdConfig::load(ssdconfig).map_err(|e| fail(e.to_string()))?;
    let out_dir = match output.and_then(Path::parent) {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let config_path = relative(&out_dir, ssdconfig)?;
    let trace_dir = relative(
        &out_dir,
        workload
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new(".")),
    )?;
    let name = workload
        .file_stem()
        .map_or("mqsim".into(), |s| s.to_string_lossy().into_owned());
    convert(&Input {
        xml: &text,
        name: &name,
        config,
        config_path: &config_path.to_string_lossy(),
        scenario,
        trace_dir: Some(&trace_dir),
        base: &out_dir,
    })
    .map_err(|e| fail(format!("{}: {}", workload.display(), e.message)))
}

/// As [`import`] without files: the workload's XML (named `workload_name`
/// in the scenario's name), the device configuration already read, the
/// path `[device] mqsim` is to name, the scenario (from 1) and the folder
/// trace flows' `File_Path`s are relative to (as written into the
/// scenario; `None`: a trace flow is refused). The scenario is checked
/// with paths from the current directory.
pub fn import_text(
    workload_xml: &str,
    workload_name: &str,
    config: SsdConfig,
    config_path_for_toml: &str,
    scenario: usize,
    trace_dir: Option<&Path>,
) -> Result<Imported> {
    convert(&Input {
        xml: workload_xml,
        name: workload_name,
        config,
        config_path: config_path_for_toml,
        scenario,
        trace_dir,
        base: Path::new(""),
    })
}

/// How many `<IO_Scenario>`s a workload file holds (it must be one).
pub fn scenario_count(workload_xml: &str) -> Result<usize> {
    Ok(xml::scenarios(workload_xml)?.len())
}

struct Input<'a> {
    xml: &'a str,
    name: &'a str,
    config: SsdConfig,
    config_path: &'a str,
    scenario: usize,
    trace_dir: Option<&'a Path>,
    /// Where the written paths are relative to, for the check.
    base: &'a Path,
}

/// One flow, read.
struct Flow {
    ssd: SsdKeys,
    resources: Resources,
    kind: FlowKind,
}

enum FlowKind {
    Synthetic(Synthetic),
    Trace { path: String, line: usize },
}

struct Synthetic {
    working_set: f64,
    write: bool,
    /// Mixed flows: the share of reads.
    read_fraction: Option<f64>,
    sequential: bool,
    hot_percent: Option<u32>,
    request_sectors: u32,
    alignment: Option<u32>,
    seed: u64,
    /// `Some(n)`: closed loop with n in flight; `None`: open loop.
    outstanding: Option<u32>,
    rate_iops: Option<f64>,
    stop_ns: u64,
    requests: u64,
}

fn convert(input: &Input) -> Result<Imported> {
    let all = xml::scenarios(input.xml)?;
    if all.is_empty() {
        return Err(fail("the file holds no <IO_Scenario>"));
    }
    let Some(raw) = input.scenario.checked_sub(1).and_then(|i| all.get(i)) else {
        return Err(fail(format!(
            "--scenario {}: the file holds scenarios 1..={}",
            input.scenario,
            all.len()
        )));
    };
    if raw.is_empty() {
        return Err(fail(format!("scenario {} holds no flow", input.scenario)));
    }
    if raw.len() > MAX_FLOWS {
        return Err(fail(format!(
            "scenario {} holds {} flows; at most {MAX_FLOWS}",
            input.scenario,
            raw.len()
        )));
    }
    let config = &input.config;
    let mut notes = Vec::new();
    let mut flows = Vec::with_capacity(raw.len());
    for (i, r) in raw.iter().enumerate() {
        let v = Values::new(i + 1, r)?;
        for (name, line) in v.unknown() {
            notes.push(format!(
                "flow {}: <{}> (line {line}) is not an MQSim parameter of this flow; MQSim ignores it, so does this import",
                i + 1,
                xml::quote(&name)
            ));
        }
        flows.push(read_flow(&v, r.trace, config, &mut notes)?);
    }
    let resources: Vec<Resources> = flows.iter().map(|f| f.resources.clone()).collect();
    let ranges = ranges::ranges(config, &resources)?;
    let scenario = build(input, &flows, &ranges, &mut notes)?;
    let spec = FlashSpec::from_mqsim("mqsim", input.config.clone());
    if let Err(e) = scenario.build_with_model(input.base, Model::Flash(Box::new(spec))) {
        return Err(fail(format!("the scenario it makes would not run: {e}")));
    }
    Ok(Imported { scenario, notes })
}

/// MQSim's names of priorities and caching modes, with the scenario's.
const PRIORITY: [(&str, StreamPriority); 4] = [
    ("URGENT", StreamPriority::Urgent),
    ("HIGH", StreamPriority::High),
    ("MEDIUM", StreamPriority::Medium),
    ("LOW", StreamPriority::Low),
];
const CACHING_MODE: [(&str, StreamCaching); 4] = [
    ("WRITE_CACHE", StreamCaching::WriteCache),
    ("READ_CACHE", StreamCaching::ReadCache),
    ("WRITE_READ_CACHE", StreamCaching::WriteReadCache),
    ("TURNED_OFF", StreamCaching::TurnedOff),
];

fn read_flow(v: &Values, trace: bool, config: &SsdConfig, notes: &mut Vec<String>) -> Result<Flow> {
    let d = &config.device;
    let f = &config.flash;
    let priority = v.choice("Priority_Class", &PRIORITY)?;
    let caching = v.choice("Device_Level_Data_Caching_Mode", &CACHING_MODE)?;
    let resources = Resources {
        channels: v.ids("Channel_IDs", d.flash_channel_count)?,
        chips: v.ids("Chip_IDs", d.chip_no_per_channel)?,
        dies: v.ids("Die_IDs", f.die_no_per_chip)?,
        planes: v.ids("Plane_IDs", f.plane_no_per_die)?,
    };
    let occupancy: u32 = v.number("Initial_Occupancy_Percentage")?;
    if occupancy > 100 {
        let (_, line) = v.text("Initial_Occupancy_Percentage")?;
        return Err(v.error(line, "<Initial_Occupancy_Percentage> must be 0..=100"));
    }
    let sata = d.host_interface == HostInterface::Sata;
    let list = |l: &Vec<u32>| (!sata).then(|| l.clone());
    let ssd = SsdKeys {
        priority: Some(name_of(&PRIORITIES, priority).to_string()),
        caching: Some(name_of(&CACHING, caching).to_string()),
        channels: list(&resources.channels),
        chips: list(&resources.chips),
        dies: list(&resources.dies),
        planes: list(&resources.planes),
        initial_occupancy: Some(f64::from(occupancy) / 100.0),
    };
    if sata && v.number == 1 {
        notes.push(
            "SATA: MQSim gives every flow every channel, chip, die and plane (the flows' *_IDs are not used)"
                .into(),
        );
    }
    let kind = if trace {
        read_trace(v, notes)?
    } else {
        FlowKind::Synthetic(read_synthetic(v, notes)?)
    };
    Ok(Flow {
        ssd,
        resources,
        kind,
    })
}

fn read_trace(v: &Values, notes: &mut Vec<String>) -> Result<FlowKind> {
    let (path, line) = v.text("File_Path")?;
    if path.is_empty() {
        return Err(v.error(line, "<File_Path> is empty"));
    }
    let unit = v.choice(
        "Time_Unit",
        &[("NANOSECOND", 0), ("PICOSECOND", 1), ("MICROSECOND", 2)],
    )?;
    if unit != 0 {
        let (t, line) = v.text("Time_Unit")?;
        return Err(v.error(
            line,
            format!("<Time_Unit> {t}: MQSim reads every trace's times as nanoseconds whatever the unit says (it never uses it); say NANOSECOND, or convert the trace"),
        ));
    }
    let relay: i64 = v.number("Relay_Count")?;
    if relay != 1 {
        let (_, line) = v.text("Relay_Count")?;
        return Err(v.error(
            line,
            format!("<Relay_Count> {relay}: replaying a trace more than once is not supported (a trace flow plays its trace once)"),
        ));
    }
    let percent: i64 = v.number("Percentage_To_Be_Executed")?;
    if percent < 100 {
        let (_, line) = v.text("Percentage_To_Be_Executed")?;
        return Err(v.error(
            line,
            format!("<Percentage_To_Be_Executed> {percent}: playing part of a trace is not supported (cut the trace instead)"),
        ));
    }
    if percent > 100 {
        notes.push(format!(
            "flow {}: Percentage_To_Be_Executed {percent} taken as 100, as MQSim does",
            v.number
        ));
    }
    Ok(FlowKind::Trace {
        path: path.to_string(),
        line,
    })
}

fn read_synthetic(v: &Values, notes: &mut Vec<String>) -> Result<Synthetic> {
    let n = v.number;
    let mut working_set: i64 = v.number("Working_Set_Percentage")?;
    if !(1..=100).contains(&working_set) {
        notes.push(format!(
            "flow {n}: Working_Set_Percentage {working_set} taken as 100, as MQSim does"
        ));
        working_set = 100;
    }
    let queue_depth = v.choice(
        "Synthetic_Generator_Type",
        &[("QUEUE_DEPTH", true), ("BANDWIDTH", false)],
    )?;
    let read: i64 = v.number("Read_Percentage")?;
    // MQSim: a read when a uniform draw in [0, 1] is at most the share.
    let (write, read_fraction) = match read {
        100 => (false, None),
        0 => (true, None),
        1..=99 => (false, Some(read as f64 / 100.0)),
        _ => {
            // MQSim keeps it in a `char`: larger values wrap.
            let (_, line) = v.text("Read_Percentage")?;
            return Err(v.error(line, format!("<Read_Percentage> {read}: 0..=100")));
        }
    };
    #[derive(Clone, Copy, PartialEq)]
    enum Address {
        Streaming,
        Uniform,
        HotCold,
    }
    let address = v.choice(
        "Address_Distribution",
        &[
            ("STREAMING", Address::Streaming),
            ("RANDOM_UNIFORM", Address::Uniform),
            ("RANDOM_HOTCOLD", Address::HotCold),
        ],
    )?;
    if read_fraction.is_some() && address == Address::Streaming {
        let (_, line) = v.text("Read_Percentage")?;
        return Err(v.error(
            line,
            format!("<Read_Percentage> {read} with STREAMING: a sequential flow here reads or writes, not both"),
        ));
    }
    let hot_percent = if address == Address::HotCold {
        let h: i64 = v.number("Percentage_of_Hot_Region")?;
        if !(1..=99).contains(&h) {
            let (_, line) = v.text("Percentage_of_Hot_Region")?;
            return Err(v.error(
                line,
                format!("<Percentage_of_Hot_Region> {h}: a hot region needs 1..=99 percent (MQSim's regions are empty otherwise)"),
            ));
        }
        Some(h as u32)
    } else {
        None
    };
    let aligned = v.choice(
        "Generated_Aligned_Addresses",
        &[("TRUE", true), ("FALSE", false)],
    )?;
    let alignment = if aligned {
        let a: u32 = v.number("Address_Alignment_Unit")?;
        if a == 0 {
            let (_, line) = v.text("Address_Alignment_Unit")?;
            return Err(v.error(line, "<Address_Alignment_Unit> 0 (MQSim divides by it)"));
        }
        Some(a)
    } else {
        None
    };
    let fixed = v.choice(
        "Request_Size_Distribution",
        &[("FIXED", true), ("NORMAL", false)],
    )?;
    if !fixed {
        let (_, line) = v.text("Request_Size_Distribution")?;
        return Err(v.error(
            line,
            "<Request_Size_Distribution> NORMAL: only FIXED request sizes are supported",
        ));
    }
    let size: u32 = v.number("Average_Request_Size")?;
    if size == 0 || size % 2 != 0 || size > 131_072 {
        let (_, line) = v.text("Average_Request_Size")?;
        return Err(v.error(
            line,
            format!("<Average_Request_Size> {size} sectors: a request here is a whole number of KiB (an even number of sectors, 2..=131072)"),
        ));
    }
    let seed: i64 = v.number("Seed")?;
    if seed < 0 {
        let (_, line) = v.text("Seed")?;
        return Err(v.error(line, format!("<Seed> {seed}: a seed here is 0 or more")));
    }
    let (outstanding, rate_iops) = if queue_depth {
        let q: u32 = v.number("Average_No_of_Reqs_in_Queue")?;
        if !(1..=4096).contains(&q) {
            let (_, line) = v.text("Average_No_of_Reqs_in_Queue")?;
            return Err(v.error(
                line,
                format!("<Average_No_of_Reqs_in_Queue> {q}: 1..=4096 in flight"),
            ));
        }
        (Some(q), None)
    } else {
        let bandwidth: u32 = v.number("Bandwidth")?;
        // Host_System.cpp, in integers: 10^9 / ((Bandwidth / 512) / size).
        let per_s = u64::from(bandwidth) / 512 / u64::from(size);
        if per_s == 0 {
            let (_, line) = v.text("Bandwidth")?;
            return Err(v.error(
                line,
                format!("<Bandwidth> {bandwidth} B/s: less than one request a second (MQSim divides by zero)"),
            ));
        }
        let gap_ns = 1_000_000_000 / per_s;
        notes.push(format!(
            "flow {n}: BANDWIDTH: one request every {gap_ns} ns, evenly spaced (rate_iops; MQSim draws exponential gaps of that mean: no Poisson arrivals here), up to {OPEN_LOOP_OUTSTANDING} in flight"
        ));
        (None, Some(1e9 / gap_ns as f64))
    };
    let stop_ns: u64 = v.number("Stop_Time")?;
    let requests: u64 = if stop_ns == 0 {
        let r: u64 = v.number("Total_Requests_To_Generate")?;
        if r == 0 {
            let (_, line) = v.text("Total_Requests_To_Generate")?;
            return Err(v.error(
                line,
                "<Stop_Time> and <Total_Requests_To_Generate> are both 0: the flow never stops",
            ));
        }
        r
    } else {
        0
    };
    Ok(Synthetic {
        working_set: working_set as f64 / 100.0,
        write,
        read_fraction,
        sequential: address == Address::Streaming,
        hot_percent,
        request_sectors: size,
        alignment,
        seed: seed as u64,
        outstanding,
        rate_iops,
        stop_ns,
        requests,
    })
}

/// The most a scenario may last, ns (sluice's 10^7 s).
const MAX_NS: u64 = 10_000_000 * 1_000_000_000;

fn build(
    input: &Input,
    flows: &[Flow],
    ranges: &[Range],
    notes: &mut Vec<String>,
) -> Result<ScenarioBuilder> {
    let synthetic = || {
        flows.iter().filter_map(|f| match &f.kind {
            FlowKind::Synthetic(s) => Some(s),
            FlowKind::Trace { .. } => None,
        })
    };
    let stop_ns = synthetic().map(|s| s.stop_ns).max().unwrap_or(0);
    if stop_ns > MAX_NS {
        return Err(fail(format!(
            "<Stop_Time> {stop_ns} ns: at most {MAX_NS} ns (10^7 s)"
        )));
    }
    let timed = stop_ns > 0;
    if synthetic().map(|s| s.stop_ns).any(|t| t != stop_ns) {
        notes.push(format!(
            "the flows' Stop_Time differ: every flow runs to the longest, {stop_ns} ns"
        ));
    }
    let has_trace = flows
        .iter()
        .any(|f| matches!(f.kind, FlowKind::Trace { .. }));
    if timed && has_trace {
        notes.push("the run ends at Stop_Time; MQSim plays the traces to their end".into());
    }
    let duration_s = if timed {
        stop_ns as f64 / 1e9
    } else {
        crate::scenario::MAX_SECONDS
    };
    let seed = synthetic().map(|s| s.seed).next();
    if let Some(s) = seed {
        let others: Vec<u64> = synthetic().skip(1).map(|s| s.seed).collect();
        if !others.is_empty() {
            notes.push(format!(
                "seed {s} (flow 1's Seed): sluice has one seed per scenario, each flow drawing from its own stream of it; the other flows' Seed ({}) are not used",
                others
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    let depth = input.config.device.io_queue_depth;
    let max_queue = FlashSpec::from_mqsim("", input.config.clone()).max_queue();
    let mut b = ScenarioBuilder::new(
        format!("{} scenario {}", input.name, input.scenario),
        duration_s,
    )
    .seed(seed.unwrap_or(1))
    .mqsim(input.config_path)
    .queue_depth(max_queue as u32)
    .merge(false)
    .scheduler("noop")
    .stop_after_finite(!timed);
    let closed: u64 = synthetic()
        .map(|s| u64::from(s.outstanding.unwrap_or(OPEN_LOOP_OUTSTANDING)))
        .sum();
    notes.push(format!(
        "[device] queue_depth {max_queue} (MQSim's IO_Queue_Depth {depth} per flow's queue); scheduler noop, no merging: the host passes requests on as MQSim's does{}",
        if closed > max_queue as u64 {
            format!(" (but the flows keep up to {closed} in flight: the host holds the rest)")
        } else {
            String::new()
        }
    ));
    for (i, (f, r)) in flows.iter().zip(ranges).enumerate() {
        let n = i + 1;
        let name = format!("flow-{n}");
        let offset_gib = r.start as f64 / GIB_SECTORS;
        let flow = match &f.kind {
            FlowKind::Synthetic(s) => synthetic_flow(&name, n, s, r, notes),
            FlowKind::Trace { path, line } => {
                let Some(dir) = input.trace_dir else {
                    return Err(fail(format!(
                        "line {line}: flow {n}: a trace flow needs the folder its File_Path is relative to"
                    )));
                };
                let path = if dir == Path::new(".") {
                    PathBuf::from(path)
                } else {
                    dir.join(path)
                };
                let start_s = first_arrival_s(&input.base.join(&path))
                    .map_err(|e| fail(format!("line {line}: flow {n}: {}", e.message)))?;
                FlowBuilder::new(&name, Pattern::Trace)
                    .trace(path.to_string_lossy())
                    .format(Format::Mqsim)
                    .timing(Timing::Recorded)
                    .offsets(Offsets::Mqsim)
                    .file_gib(r.sectors as f64 / GIB_SECTORS)
                    .start_s(start_s)
            }
        };
        b = b.flow(flow.offset_gib(offset_gib).ssd(f.ssd.clone()));
    }
    Ok(b)
}

fn synthetic_flow(
    name: &str,
    n: usize,
    s: &Synthetic,
    r: &Range,
    notes: &mut Vec<String>,
) -> FlowBuilder {
    let pattern = match (s.sequential, s.write) {
        (true, false) => Pattern::SeqRead,
        (true, true) => Pattern::SeqWrite,
        (false, false) => Pattern::RandRead,
        (false, true) => Pattern::RandWrite,
    };
    // IO_Flow_Synthetic.cpp: end = start + (end - start) x ws, truncated,
    // inclusive.
    let last = r.sectors - 1;
    let span = (r.start as f64 + last as f64 * s.working_set) as u64 - r.start + 1;
    let mut flow = FlowBuilder::new(name, pattern)
        .request_kib(s.request_sectors / 2)
        .file_gib(span as f64 / GIB_SECTORS)
        .outstanding(s.outstanding.unwrap_or(OPEN_LOOP_OUTSTANDING));
    if let Some(r) = s.rate_iops {
        flow = flow.rate_iops(r);
    }
    if let Some(f) = s.read_fraction {
        flow = flow.read_fraction(f);
    }
    if s.requests > 0 {
        flow = flow.requests(s.requests);
    }
    if let Some(h) = s.hot_percent {
        flow = flow.random_distribution(format!("zoned:{}/{h}:{h}/{}", 100 - h, 100 - h));
    }
    match s.alignment {
        Some(a) if a == s.request_sectors => {}
        Some(a) => notes.push(format!(
            "flow {n}: MQSim aligns start addresses to {a} sectors; here to the request size, {} sectors",
            s.request_sectors
        )),
        None => notes.push(format!(
            "flow {n}: MQSim's addresses are not aligned; here they are aligned to the request size, {} sectors",
            s.request_sectors
        )),
    }
    if s.sequential {
        notes.push(format!(
            "flow {n}: STREAMING starts at a random address of the range in MQSim; here at its start"
        ));
    }
    flow
}

/// The first arrival of an MQSim trace, s: MQSim issues the first request
/// at its recorded time (a trace flow's arrivals count from its first).
fn first_arrival_s(path: &Path) -> Result<f64> {
    let text = sluice_input::read_text(path, Kind::Trace).map_err(|e| fail(e.to_string()))?;
    // A bad first field is the trace reader's to report, when the
    // scenario is checked.
    let first = text
        .split_ascii_whitespace()
        .next()
        .and_then(|t| t.parse::<u64>().ok())
        .unwrap_or(0);
    Ok(first as f64 / 1e9)
}

/// `to` as a path from folder `from` (both from the current directory,
/// or absolute).
fn relative(from: &Path, to: &Path) -> Result<PathBuf> {
    let cwd = std::env::current_dir().map_err(|e| fail(format!("the current directory: {e}")))?;
    let abs = |p: &Path| normal(&cwd.join(p));
    let (from, to) = (abs(from), abs(to));
    let common = from
        .components()
        .zip(to.components())
        .take_while(|(a, b)| a == b)
        .count();
    let mut out = PathBuf::new();
    for _ in from.components().skip(common) {
        out.push("..");
    }
    for c in to.components().skip(common) {
        out.push(c);
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    Ok(out)
}

/// `p` without `.` and with `..` applied (no file system access).
fn normal(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}
