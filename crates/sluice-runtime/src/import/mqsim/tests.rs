use std::path::PathBuf;

use super::*;
use crate::import::tests::mangled;
use crate::scenario::Scenario;
use sluice_workload::{Distribution, FlowKind, GreedyPattern};

/// The sample experiments' folder.
fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../sluice-repro/data/mqsim")
}

const EXPERIMENTS: [&str; 5] = ["backend", "datacache", "qfs16", "qfs1024", "wsrch"];
const WORKLOADS: [&str; 3] = ["flow-1", "flow-2", "together"];

/// Sectors a plane gives the flows sharing it: 128 blocks x 256 pages x
/// 16 sectors, less 7% over-provisioning, over the sharers (truncated).
fn plane_sectors(sharers: u64) -> u64 {
    (524_288.0 * 0.93 / sharers as f64) as u64
}

/// An imported scenario, built with its paths from the output's folder.
fn imported(exp: &str, workload: &str, k: usize) -> (Imported, Scenario) {
    let dir = data().join(exp);
    let out = dir.join("out.toml");
    let imp = import(
        &dir.join(format!("{workload}.xml")),
        &dir.join("ssdconfig.xml"),
        k,
        Some(&out),
    )
    .unwrap_or_else(|e| panic!("{exp}/{workload} #{k}: {e}"));
    let config = SsdConfig::load(&dir.join("ssdconfig.xml")).unwrap();
    let s = imp
        .scenario
        .build_with_model(
            &dir,
            Model::Flash(Box::new(FlashSpec::from_mqsim("m", config))),
        )
        .unwrap();
    (imp, s)
}

/// A workload file's values of element `name`, scenario by scenario.
fn xml_values(exp: &str, workload: &str, name: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(data().join(exp).join(format!("{workload}.xml"))).unwrap();
    xml::scenarios(&text)
        .unwrap()
        .iter()
        .map(|s| {
            s.iter()
                .filter_map(|f| f.values.iter().find(|v| v.0 == name).map(|v| v.1.clone()))
                .collect()
        })
        .collect()
}

#[test]
fn every_sample_scenario_imports_with_mqsims_ranges_depths_and_sizes() {
    let mut scenarios = 0;
    for exp in EXPERIMENTS {
        for workload in WORKLOADS {
            let text =
                std::fs::read_to_string(data().join(exp).join(format!("{workload}.xml"))).unwrap();
            let n = scenario_count(&text).unwrap();
            let depths = xml_values(exp, workload, "Average_No_of_Reqs_in_Queue");
            let sets = xml_values(exp, workload, "Working_Set_Percentage");
            let hot = xml_values(exp, workload, "Percentage_of_Hot_Region");
            let reads = xml_values(exp, workload, "Read_Percentage");
            for k in 1..=n {
                scenarios += 1;
                let (imp, s) = imported(exp, workload, k);
                let together = workload == "together";
                assert_eq!(s.flows.len(), if together { 2 } else { 1 });
                assert_eq!(s.device.queue_depth, 65535);
                assert_eq!(s.scheduler, "noop");
                assert!(!s.device.merge);
                // Ranges end to end from sector 0, inside the drive.
                let Model::Flash(spec) = &s.device.model else {
                    panic!("a flash device")
                };
                assert_eq!(spec.streams.len(), s.flows.len());
                let mut next = 0;
                for (i, f) in s.flows.iter().enumerate() {
                    assert_eq!(f.file_start, next, "{exp}/{workload} #{k} flow {i}");
                    // The flows of a pair use the same planes or split
                    // the channels between them.
                    let st = &spec.streams[i];
                    let planes =
                        (st.channels.len() * st.chips.len() * st.dies.len() * st.planes.len())
                            as u64;
                    let lists = |x: &sluice_device::flash::StreamSpec| {
                        (
                            x.channels.clone(),
                            x.chips.clone(),
                            x.dies.clone(),
                            x.planes.clone(),
                        )
                    };
                    let shared = together && lists(&spec.streams[0]) == lists(&spec.streams[1]);
                    let range = planes * plane_sectors(if shared { 2 } else { 1 });
                    match &f.kind {
                        FlowKind::Greedy(g) => {
                            let ws: f64 = sets[k - 1][i].parse().unwrap();
                            let span = ((range - 1) as f64 * ws / 100.0) as u64 + 1;
                            assert_eq!(f.file_sectors, span, "{exp}/{workload} #{k} flow {i}");
                            assert_eq!(f.request_sectors, 8);
                            let depth: u32 = depths[k - 1][i].parse().unwrap();
                            assert_eq!(f.outstanding, depth);
                            let write = reads[k - 1][i] == "0";
                            assert_eq!(
                                *g,
                                if write {
                                    GreedyPattern::RandWrite
                                } else {
                                    GreedyPattern::RandRead
                                }
                            );
                            let h: u32 = hot[k - 1][i].parse().unwrap();
                            if h > 0 {
                                let z = 100.0 - f64::from(h);
                                assert_eq!(
                                    f.distribution,
                                    Distribution::Zoned(vec![(z, f64::from(h)), (f64::from(h), z)])
                                );
                            }
                            assert_eq!(s.duration, sluice::Duration::from_secs(10));
                        }
                        FlowKind::Trace(t) => {
                            assert_eq!(exp, "wsrch");
                            assert_eq!(f.file_sectors, {
                                let reach = t
                                    .requests
                                    .iter()
                                    .map(|r| r.sector + u64::from(r.sectors) - f.file_start)
                                    .max()
                                    .unwrap();
                                assert!(reach <= range);
                                reach
                            });
                            assert_eq!(t.timing, Timing::Recorded);
                        }
                        other => panic!("unexpected flow {other:?}"),
                    }
                    next += range;
                }
                assert!(next <= spec.capacity_sectors());
                // The TOML names the configuration and traces from its folder.
                let toml = imp.to_toml("t").unwrap();
                assert!(toml.contains("mqsim = \"ssdconfig.xml\""), "{toml}");
                if exp == "wsrch" {
                    assert!(toml.contains("trace = \"traces/"), "{toml}");
                }
            }
        }
    }
    // 8 x 3 (backend), 6 x 3 (datacache, qfs16, qfs1024), 1 x 3 (wsrch).
    assert_eq!(scenarios, 24 + 18 * 3 + 3);
}

#[test]
fn the_backend_pair_shares_its_planes_as_mqsim_computes() {
    let (imp, s) = imported("backend", "together", 8);
    // 64 planes shared by both flows: 243,793 sectors each per plane.
    assert_eq!(plane_sectors(2), 243_793);
    assert_eq!(s.flows[1].file_start, 64 * 243_793);
    assert_eq!(s.flows[0].file_sectors, 7_801_376);
    // Alone, a flow has its planes to itself.
    let (_, alone) = imported("backend", "flow-1", 1);
    assert_eq!(alone.flows[0].file_sectors, (64 * 487_587 - 1) / 2 + 1);
    // Seeds: flow 1's, and the other one named.
    assert_eq!(s.seed, 798);
    assert!(
        imp.notes.iter().any(|n| n.contains("6533")),
        "{:?}",
        imp.notes
    );
    // The stray <Intensity> element is named, not dropped silently.
    let (imp, _) = imported("backend", "together", 1);
    assert!(
        imp.notes.iter().any(|n| n.contains("<Intensity>")),
        "{:?}",
        imp.notes
    );
}

#[test]
fn a_trace_flow_starts_at_its_first_arrival() {
    let (_, s) = imported("wsrch", "flow-1", 1);
    // wsrch-small's first line: 11413000 ns.
    assert_eq!(
        s.flows[0].start,
        sluice::Instant::ZERO + sluice::Duration::from_nanos(11_413_000)
    );
    assert!(s.stop_after_finite);
}

/// A one-flow workload file with `body` as the flow's values.
fn one_flow(body: &str) -> String {
    format!(
        "<MQSim_IO_Scenarios><IO_Scenario><IO_Flow_Parameter_Set_Synthetic>{body}</IO_Flow_Parameter_Set_Synthetic></IO_Scenario></MQSim_IO_Scenarios>"
    )
}

const GOOD: &str = "<Priority_Class>LOW</Priority_Class>\
<Device_Level_Data_Caching_Mode>TURNED_OFF</Device_Level_Data_Caching_Mode>\
<Channel_IDs>1,0,1</Channel_IDs><Chip_IDs>0</Chip_IDs><Die_IDs>0</Die_IDs><Plane_IDs>0</Plane_IDs>\
<Initial_Occupancy_Percentage>50</Initial_Occupancy_Percentage>\
<Working_Set_Percentage>0</Working_Set_Percentage>\
<Synthetic_Generator_Type>BANDWIDTH</Synthetic_Generator_Type>\
<Read_Percentage>0</Read_Percentage>\
<Address_Distribution>STREAMING</Address_Distribution>\
<Percentage_of_Hot_Region>0</Percentage_of_Hot_Region>\
<Generated_Aligned_Addresses>false</Generated_Aligned_Addresses>\
<Address_Alignment_Unit>8</Address_Alignment_Unit>\
<Request_Size_Distribution>FIXED</Request_Size_Distribution>\
<Average_Request_Size>16</Average_Request_Size>\
<Variance_Request_Size>0</Variance_Request_Size>\
<Seed>12</Seed>\
<Average_No_of_Reqs_in_Queue>1</Average_No_of_Reqs_in_Queue>\
<Bandwidth>8192000</Bandwidth>\
<Stop_Time>0</Stop_Time>\
<Total_Requests_To_Generate>500</Total_Requests_To_Generate>";

fn config() -> SsdConfig {
    SsdConfig::load(&data().join("backend/ssdconfig.xml")).unwrap()
}

fn text_import(xml: &str) -> Result<Imported> {
    import_text(xml, "w", config(), "c.xml", 1, None)
}

#[test]
fn a_bandwidth_flow_is_open_loop_at_mqsims_mean_gap() {
    let imp = text_import(&one_flow(GOOD)).unwrap();
    let s = imp
        .scenario
        .build_with_model(
            Path::new(""),
            Model::Flash(Box::new(FlashSpec::from_mqsim("m", config()))),
        )
        .unwrap();
    let f = &s.flows[0];
    // 8,192,000 B/s / 512 / 16 sectors = 1000 requests/s: a gap of 1 ms.
    assert_eq!(f.rate_interval, Some(sluice::Duration::from_millis(1)));
    assert_eq!(f.kind, FlowKind::Greedy(GreedyPattern::SeqWrite));
    assert_eq!(
        (f.requests, f.outstanding, f.request_sectors),
        (Some(500), 4096, 16)
    );
    assert_eq!(s.seed, 12);
    assert!(s.stop_after_finite);
    // One plane, channel list deduplicated and sorted: 2 planes.
    let Model::Flash(spec) = &s.device.model else {
        panic!("flash")
    };
    let st = &spec.streams[0];
    assert_eq!(st.channels, vec![0, 1]);
    assert_eq!(st.initial_occupancy, 0.5);
    assert_eq!(st.priority, StreamPriority::Low);
    assert_eq!(st.caching, StreamCaching::TurnedOff);
    // Working set 0 is MQSim's 100: the whole two planes.
    assert_eq!(f.file_sectors, 2 * plane_sectors(1));
    for says in ["taken as 100", "evenly spaced", "not aligned", "STREAMING"] {
        assert!(
            imp.notes.iter().any(|n| n.contains(says)),
            "{says}: {:?}",
            imp.notes
        );
    }
}

#[test]
fn what_cannot_be_mapped_is_refused_by_name() {
    for (from, to, says) in [
        (
            "<Read_Percentage>0<",
            "<Read_Percentage>70<",
            "<Read_Percentage> 70",
        ),
        ("FIXED", "NORMAL", "NORMAL"),
        (
            "<Average_Request_Size>16<",
            "<Average_Request_Size>7<",
            "<Average_Request_Size> 7",
        ),
        (
            "STREAMING",
            "RANDOM_HOTCOLD",
            "<Percentage_of_Hot_Region> 0",
        ),
        ("<Seed>12<", "<Seed>-3<", "<Seed> -3"),
        ("<Bandwidth>8192000<", "<Bandwidth>100<", "<Bandwidth> 100"),
        (
            "<Total_Requests_To_Generate>500<",
            "<Total_Requests_To_Generate>0<",
            "never stops",
        ),
        (
            "<Chip_IDs>0<",
            "<Chip_IDs>4<",
            "<Chip_IDs>: 4 is not one of the drive's 0..4",
        ),
        (
            "<Chip_IDs>0<",
            "<Chip_IDs>a<",
            "<Chip_IDs>: expected numbers",
        ),
        ("<Seed>12</Seed>", "", "<Seed> is missing"),
        (
            "<Priority_Class>LOW<",
            "<Priority_Class>TOP<",
            "unknown value 'TOP'",
        ),
        (
            "<Seed>12</Seed>",
            "<Seed>12</Seed><Seed>1</Seed>",
            "given twice",
        ),
        (
            "<Stop_Time>0<",
            "<Stop_Time>99999999999999999999<",
            "<Stop_Time>",
        ),
        (
            "<Stop_Time>0<",
            "<Stop_Time>10000000000000000001<",
            "10^7 s",
        ),
        (
            "<Initial_Occupancy_Percentage>50<",
            "<Initial_Occupancy_Percentage>101<",
            "0..=100",
        ),
    ] {
        let xml = one_flow(&GOOD.replace(from, to));
        assert_ne!(xml, one_flow(GOOD), "{from}");
        let e = text_import(&xml).unwrap_err().to_string();
        assert!(e.contains(says) && !e.contains('\n'), "{to}: {e}");
        assert!(
            e.contains("line 1: flow 1") || e.contains("Stop_Time"),
            "{e}"
        );
    }
}

#[test]
fn trace_flows_refuse_what_a_trace_flow_cannot_play() {
    let trace = |unit: &str, relay: u32, pct: u32| {
        format!(
            "<MQSim_IO_Scenarios><IO_Scenario><IO_Flow_Parameter_Set_Trace_Based>\
<Priority_Class>HIGH</Priority_Class><Device_Level_Data_Caching_Mode>WRITE_CACHE</Device_Level_Data_Caching_Mode>\
<Channel_IDs>0</Channel_IDs><Chip_IDs>0</Chip_IDs><Die_IDs>0</Die_IDs><Plane_IDs>0</Plane_IDs>\
<Initial_Occupancy_Percentage>0</Initial_Occupancy_Percentage>\
<File_Path>traces/tpcc-small.trace</File_Path><Percentage_To_Be_Executed>{pct}</Percentage_To_Be_Executed>\
<Relay_Count>{relay}</Relay_Count><Time_Unit>{unit}</Time_Unit>\
</IO_Flow_Parameter_Set_Trace_Based></IO_Scenario></MQSim_IO_Scenarios>"
        )
    };
    let dir = data().join("wsrch");
    let with_dir = |xml: &str| import_text(xml, "w", config(), "c.xml", 1, Some(&dir));
    let ok = with_dir(&trace("NANOSECOND", 1, 100)).unwrap();
    let toml = ok.to_toml("t").unwrap();
    assert!(
        toml.contains("format = \"mqsim\"") && toml.contains("offsets = \"mqsim\""),
        "{toml}"
    );
    for (xml, says) in [
        (trace("MICROSECOND", 1, 100), "<Time_Unit> MICROSECOND"),
        (trace("NANOSECOND", 2, 100), "<Relay_Count> 2"),
        (trace("NANOSECOND", 1, 50), "<Percentage_To_Be_Executed> 50"),
    ] {
        let e = with_dir(&xml).unwrap_err().to_string();
        assert!(e.contains(says), "{e}");
    }
    let over = with_dir(&trace("NANOSECOND", 1, 150)).unwrap();
    assert!(
        over.notes.iter().any(|n| n.contains("150 taken as 100")),
        "{:?}",
        over.notes
    );
    let e = text_import(&trace("NANOSECOND", 1, 100))
        .unwrap_err()
        .to_string();
    assert!(e.contains("needs the folder"), "{e}");
}

#[test]
fn scenario_numbers_and_structure_are_checked() {
    let xml = one_flow(GOOD);
    let e = import_text(&xml, "w", config(), "c.xml", 2, None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("--scenario 2: the file holds scenarios 1..=1"),
        "{e}"
    );
    let e = import_text(&xml, "w", config(), "c.xml", 0, None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("--scenario 0"), "{e}");
    for (bad, says) in [
        ("", "no <MQSim_IO_Scenarios>"),
        ("<MQSim_IO_Scenarios/>", "no <IO_Scenario>"),
        (
            "<MQSim_IO_Scenarios><IO_Scenario/></MQSim_IO_Scenarios>",
            "holds no flow",
        ),
        (
            "<Execution_Parameter_Set/>",
            "unexpected element <Execution_Parameter_Set>",
        ),
        (
            "<MQSim_IO_Scenarios><IO_Scenario><X/></IO_Scenario></MQSim_IO_Scenarios>",
            "unexpected element <X>",
        ),
        (
            "<MQSim_IO_Scenarios>stray</MQSim_IO_Scenarios>",
            "text 'stray'",
        ),
        (
            "<MQSim_IO_Scenarios><IO_Scenario>",
            "ends inside <IO_Scenario>",
        ),
        ("<MQSim_IO_Scenarios></IO_Scenario>", "malformed XML"),
        ("<!DOCTYPE x><MQSim_IO_Scenarios/>", "DOCTYPE"),
    ] {
        let e = text_import(bad).unwrap_err().to_string();
        assert!(e.contains(says) && !e.contains('\n'), "{bad}: {e}");
    }
    // A value element holding an element: refused where it opens.
    let nested = one_flow(&GOOD.replace("<Seed>12</Seed>", "<Seed><a>1</a></Seed>"));
    let e = text_import(&nested).unwrap_err().to_string();
    assert!(e.contains("unexpected element <a>"), "{e}");
}

#[test]
fn hostile_workload_files_fail_in_one_line_or_import() {
    let text = std::fs::read_to_string(data().join("datacache/together.xml")).unwrap();
    // The first scenario only, to keep the cases few.
    let end = text.find("</IO_Scenario>").unwrap() + "</IO_Scenario>".len();
    let first = format!("{}\n</MQSim_IO_Scenarios>\n", &text[..end]);
    let junk = [
        "",
        "<",
        "<IO_Scenario>",
        "</MQSim_IO_Scenarios>",
        "<Seed>&#0;</Seed>",
        "<Seed>&bogus;</Seed>",
        "<![CDATA[x]]>",
        "<Average_Request_Size>4294967296</Average_Request_Size>",
        "<Working_Set_Percentage>-5</Working_Set_Percentage>",
        "<Channel_IDs>,</Channel_IDs>",
        "\u{202e}",
    ];
    let cases = mangled(&first, &junk);
    assert!(cases.len() > 1000);
    for c in cases {
        match text_import(&c) {
            Err(e) => {
                let e = e.to_string();
                assert!(!e.is_empty() && !e.contains('\n'), "{e}");
            }
            Ok(imp) => {
                imp.scenario
                    .build_with_model(
                        Path::new(""),
                        Model::Flash(Box::new(FlashSpec::from_mqsim("m", config()))),
                    )
                    .unwrap_or_else(|e| panic!("{c}\n-> {e}"));
            }
        }
    }
    // Deep nesting is refused at the first element past the format's depth.
    let deep = format!("{}{}", one_flow(""), "<a>".repeat(100_000));
    assert!(text_import(&deep).is_err());
    let deep = "<MQSim_IO_Scenarios><IO_Scenario><IO_Flow_Parameter_Set_Synthetic><Seed>"
        .to_string()
        + &"<a>".repeat(100_000);
    let e = text_import(&deep).unwrap_err().to_string();
    assert!(e.contains("unexpected element <a>"), "{e}");
}

#[test]
fn paths_are_written_from_the_output_folder() {
    let p = relative(Path::new("/a/b/out"), Path::new("/a/c/x.xml")).unwrap();
    assert_eq!(p, PathBuf::from("../../c/x.xml"));
    let p = relative(Path::new("/a/b"), Path::new("/a/b/./t/../x.xml")).unwrap();
    assert_eq!(p, PathBuf::from("x.xml"));
    assert_eq!(
        relative(Path::new("/a"), Path::new("/a")).unwrap(),
        PathBuf::from(".")
    );
}

#[test]
fn a_mixed_random_flow_reads_its_share() {
    let xml = one_flow(
        &GOOD
            .replace("<Read_Percentage>0<", "<Read_Percentage>70<")
            .replace("STREAMING", "RANDOM_UNIFORM"),
    );
    let imp = text_import(&xml).unwrap();
    let s = imp
        .scenario
        .build_with_model(
            Path::new(""),
            Model::Flash(Box::new(FlashSpec::from_mqsim("m", config()))),
        )
        .unwrap();
    assert_eq!(s.flows[0].kind, FlowKind::Greedy(GreedyPattern::RandRead));
    assert_eq!(s.flows[0].read_fraction, Some(0.7));
}
