use std::path::PathBuf;

use proptest::prelude::*;

use super::*;

/// MQSim's own configurations, copied into `data/mqsim/`.
fn shipped(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("data/mqsim")
        .join(name)
}

fn shipped_text(name: &str) -> String {
    std::fs::read_to_string(shipped(name)).expect("a shipped configuration")
}

/// The error `text` gives, which must be one line.
fn refusal(text: &str) -> String {
    let e = SsdConfig::parse("c.xml", text)
        .expect_err("a refusal")
        .to_string();
    assert!(!e.contains('\n'), "{e}");
    e
}

/// `ssdconfig.xml` with `from` replaced by `to` (once, and it must be there).
fn edited(from: &str, to: &str) -> String {
    let text = shipped_text("ssdconfig.xml");
    assert!(text.contains(from), "{from}");
    text.replacen(from, to, 1)
}

/// The 1-based line of `needle`'s first occurrence in `text`.
fn line_of(text: &str, needle: &str) -> usize {
    let at = text.find(needle).expect("the needle");
    text[..at].matches('\n').count() + 1
}

#[test]
fn mqsims_top_level_configuration_reads_whole() {
    let c = SsdConfig::load(&shipped("ssdconfig.xml")).unwrap();
    assert!(c.defaulted.is_empty(), "{:?}", c.defaulted);
    assert_eq!(c.host.pcie_lane_bandwidth, 1.0);
    assert_eq!(c.host.pcie_lane_count, 4);
    assert_eq!(c.host.sata_processing_delay, 400_000);
    assert_eq!(c.host.response_time_logging_period, 1_000_000);
    assert_eq!(c.device.seed, 321);
    assert!(!c.device.enabled_preconditioning);
    assert_eq!(c.device.io_queue_depth, 65535);
    assert_eq!(c.device.data_cache_capacity, 268_435_456);
    assert_eq!(c.device.data_cache_dram_data_rate, 100);
    assert_eq!(c.device.data_cache_dram_burst_size, 1);
    assert!(!c.device.ideal_mapping_table);
    assert_eq!(
        c.device.transaction_scheduling_policy,
        TransactionScheduling::PriorityOutOfOrder
    );
    assert_eq!(c.device.gc_block_selection_policy, GcVictimPolicy::Rga);
    assert_eq!(c.device.plane_allocation_scheme, PlaneAllocation::Cwdp);
    assert_eq!(c.device.overprovisioning_ratio, 0.07);
    assert_eq!(c.device.gc_hard_threshold, 0.005);
    assert_eq!(c.device.channel_transfer_rate, 333);
    assert_eq!(c.flash.flash_technology, FlashTechnology::Mlc);
    assert_eq!(c.flash.cmd_suspension_support, CommandSuspension::Erase);
    assert_eq!(c.flash.block_erase_latency, 3_800_000);
    assert_eq!(c.flash.page_metadata_capacity, 448);
    // 8 channels x 4 chips x 2 dies x 2 planes x 2048 blocks x 256 pages.
    assert_eq!(c.pages_total(), 67_108_864);
    assert_eq!(c.capacity_bytes(), 512 << 30);
    // MQSim: (unsigned int)(67108864 * (1 - 0.07)) = 62411243.
    assert_eq!(c.logical_pages(), 62_411_243);
    assert_eq!(c.logical_capacity_bytes(), 62_411_243 * 8192);
    // MQSim: (8192 / 1 / 2) x ((sim_time_type)(1000 / 333) x 2) = 4096 x 6 ns.
    assert_eq!(c.channel_transfer_ns(8192), 24_576);
}

#[test]
fn every_fast18_configuration_reads_with_its_own_values() {
    let read = |name: &str| {
        let c = SsdConfig::load(&shipped(name)).unwrap_or_else(|e| panic!("{e}"));
        assert!(c.defaulted.is_empty(), "{name}: {:?}", c.defaulted);
        assert_eq!(c.capacity_bytes(), 512 << 30, "{name}");
        assert_eq!(c.device.data_cache_dram_data_rate, 400, "{name}");
        assert_eq!(c.device.data_cache_dram_burst_size, 2, "{name}");
        assert!(c.device.ideal_mapping_table, "{name}");
        assert_eq!(
            c.device.transaction_scheduling_policy,
            TransactionScheduling::OutOfOrder,
            "{name}"
        );
        c
    };
    let backend = read("ssdconfig-backend-contention.xml");
    assert!(!backend.device.enabled_preconditioning);
    assert_eq!(backend.device.caching_mechanism, CachingMechanism::Advanced);
    assert_eq!(backend.device.queue_fetch_size, 512);
    let cache = read("ssdconfig-datacache-contention.xml");
    assert!(cache.device.enabled_preconditioning);
    assert_eq!(cache.device.caching_mechanism, CachingMechanism::Simple);
    assert_eq!(
        read("ssdconfig-queue-fetch-size=16.xml")
            .device
            .queue_fetch_size,
        16
    );
    assert_eq!(
        read("ssdconfig-queue-fetch-size=1024.xml")
            .device
            .queue_fetch_size,
        1024
    );
}

#[test]
fn the_defaults_are_those_mqsim_writes_when_it_has_no_configuration() {
    let c = SsdConfig::load(&shipped("ssdconfig-defaults.xml")).unwrap();
    assert!(c.defaulted.is_empty(), "{:?}", c.defaulted);
    assert_eq!(c.host, HostParameters::default());
    assert_eq!(c.device, DeviceParameters::default());
    assert_eq!(c.flash, FlashParameters::default());
}

#[test]
fn an_unknown_element_is_named_with_its_set_and_line() {
    let text = edited("<Seed>321</Seed>", "<Seed>321</Seed><Foo>1</Foo>");
    let line = line_of(&text, "<Foo>");
    assert_eq!(
        refusal(&text),
        format!("c.xml: line {line}: unknown element <Foo> in <Device_Parameter_Set>")
    );
    // In the flash set, and an unknown set at the top.
    let text = edited("<Page_Capacity>", "<Page_Size>1</Page_Size><Page_Capacity>");
    assert!(refusal(&text).ends_with("unknown element <Page_Size> in <Flash_Parameter_Set>"));
    let text = edited(
        "<Host_Parameter_Set>",
        "<IO_Scenario></IO_Scenario><Host_Parameter_Set>",
    );
    assert!(refusal(&text).ends_with("unknown element <IO_Scenario> in <Execution_Parameter_Set>"));
    // A flash element one level too high is unknown there too.
    let text = edited("<Seed>", "<Page_Capacity>8192</Page_Capacity><Seed>");
    assert!(refusal(&text).contains("unknown element <Page_Capacity> in <Device_Parameter_Set>"));
}

#[test]
fn a_bad_value_names_the_element_the_value_and_what_is_accepted() {
    let text = edited("<HostInterface_Type>NVME<", "<HostInterface_Type>NVMEX<");
    let line = line_of(&text, "<HostInterface_Type>");
    assert_eq!(
        refusal(&text),
        format!(
            "c.xml: line {line}: bad value \"NVMEX\" for <HostInterface_Type>: expected one of NVME, SATA"
        )
    );
    for (from, to, says) in [
        (
            "<Flash_Channel_Count>8<",
            "<Flash_Channel_Count>8abc<",
            "bad value \"8abc\" for <Flash_Channel_Count>: expected an integer from 1 to 4294967295",
        ),
        (
            "<Flash_Channel_Count>8<",
            "<Flash_Channel_Count>0<",
            "expected an integer from 1 to",
        ),
        (
            "<IO_Queue_Depth>65535<",
            "<IO_Queue_Depth>65536<",
            "expected an integer from 1 to 65535",
        ),
        (
            "<Enabled_Preconditioning>false<",
            "<Enabled_Preconditioning>no<",
            "expected true or false",
        ),
        (
            "<Overprovisioning_Ratio>0.07<",
            "<Overprovisioning_Ratio>1.0<",
            "expected a number from 0 up to (not including) 1",
        ),
        (
            "<GC_Exec_Threshold>0.05000<",
            "<GC_Exec_Threshold>NaN<",
            "expected a number from 0 to 1",
        ),
        (
            "<Page_Capacity>8192<",
            "<Page_Capacity>8000<",
            "expected a positive multiple of 512 (bytes)",
        ),
        (
            "<Block_Erase_Latency>3800000<",
            "<Block_Erase_Latency>99999999999999999999<",
            "(nanoseconds)",
        ),
        ("<Seed>321<", "<Seed>-<", "bad value \"-\" for <Seed>"),
        (
            "<Plane_Allocation_Scheme>CWDP<",
            "<Plane_Allocation_Scheme>CWDX<",
            "expected one of CDPW, CDWP,",
        ),
        (
            "<Memory_Type>FLASH<",
            "<Memory_Type/><X>",
            "bad value \"\" for <Memory_Type>: expected one of FLASH",
        ),
    ] {
        let e = refusal(&edited(from, to));
        assert!(e.contains(says), "{to}: {e}");
    }
    // A long value is quoted short.
    let e = refusal(&edited(
        "<Seed>321<",
        &format!("<Seed>{}<", "9".repeat(500)),
    ));
    assert!(e.len() < 200, "{e}");
}

#[test]
fn values_read_as_mqsim_reads_them_case_and_white_space_aside() {
    let text = edited("<HostInterface_Type>NVME<", "<HostInterface_Type> sata\n<")
        .replacen(
            "<Enabled_Preconditioning>false<",
            "<Enabled_Preconditioning>TRUE<",
            1,
        )
        .replacen(
            "<CMT_Sharing_Mode>SHARED<",
            "<CMT_Sharing_Mode>equal_partitioning<",
            1,
        );
    let c = SsdConfig::parse("c.xml", &text).unwrap();
    assert_eq!(c.device.host_interface, HostInterface::Sata);
    assert!(c.device.enabled_preconditioning);
    assert_eq!(c.device.cmt_sharing_mode, CmtSharingMode::EqualPartitioning);
    // Every value of every enumeration reads back as itself.
    for v in PlaneAllocation::ALL {
        assert_eq!(PlaneAllocation::parse(v.name()), Ok(*v));
    }
    assert_eq!(PlaneAllocation::ALL.len(), 24);
    for v in GcVictimPolicy::ALL {
        assert_eq!(GcVictimPolicy::parse(&v.name().to_lowercase()), Ok(*v));
    }
}

#[test]
fn mqsims_misspelt_suspend_element_is_the_same_element() {
    let text = edited(
        "<Preferred_suspend_erase_time_for_read>700000<",
        "<Prefered_suspend_erase_time_for_read>5<",
    )
    .replacen(
        "</Preferred_suspend_erase_time_for_read>",
        "</Prefered_suspend_erase_time_for_read>",
        1,
    );
    let c = SsdConfig::parse("c.xml", &text).unwrap();
    assert_eq!(c.device.preferred_suspend_erase_time_for_read, 5);
    let both = edited(
        "<Seed>",
        "<Prefered_suspend_erase_time_for_read>5</Prefered_suspend_erase_time_for_read><Seed>",
    );
    assert!(refusal(&both)
        .contains("<Preferred_suspend_erase_time_for_read> given twice in <Device_Parameter_Set>"));
}

#[test]
fn an_element_given_twice_is_refused_with_both_lines() {
    let text = edited("<Seed>321</Seed>", "<Seed>321</Seed>\n<Seed>5</Seed>");
    let first = line_of(&text, "<Seed>");
    assert_eq!(
        refusal(&text),
        format!(
            "c.xml: line {}: <Seed> given twice in <Device_Parameter_Set> (first at line {first})",
            first + 1
        )
    );
    let text = edited(
        "</Device_Parameter_Set>",
        "</Device_Parameter_Set><Device_Parameter_Set/>",
    );
    assert!(
        refusal(&text).contains("<Device_Parameter_Set> given twice in <Execution_Parameter_Set>")
    );
}

#[test]
fn a_missing_device_set_is_refused_and_missing_values_take_mqsims_defaults() {
    let text = shipped_text("ssdconfig.xml");
    let start = text.find("<Device_Parameter_Set>").unwrap();
    let end = text.find("</Device_Parameter_Set>").unwrap() + "</Device_Parameter_Set>".len();
    let without = format!("{}{}", &text[..start], &text[end..]);
    assert_eq!(
        refusal(&without),
        "c.xml: line 2: no <Device_Parameter_Set> in <Execution_Parameter_Set>: the device is required"
    );
    assert_eq!(
        refusal("<?xml version=\"1.0\"?>\n<!-- nothing -->\n"),
        "c.xml: no <Execution_Parameter_Set> element: not an MQSim device configuration"
    );
    let c = SsdConfig::parse(
        "c.xml",
        "<Execution_Parameter_Set><Device_Parameter_Set/></Execution_Parameter_Set>",
    )
    .unwrap();
    assert_eq!(c.host, HostParameters::default());
    assert_eq!(c.device, DeviceParameters::default());
    assert_eq!(c.flash, FlashParameters::default());
    assert_eq!(c.defaulted.len(), 5 + 38 + 18);
    assert_eq!(c.defaulted[0], "PCIe_Lane_Bandwidth");
    assert_eq!(c.device.io_queue_depth, 1024);
    assert_eq!(c.flash.page_metadata_capacity, 1872);
    // One element left out: that one is listed.
    let c = SsdConfig::parse("c.xml", &edited("<Seed>321</Seed>", "")).unwrap();
    assert_eq!(c.defaulted, ["Seed"]);
    assert_eq!(c.device.seed, 123);
}

#[test]
fn malformed_xml_and_misplaced_content_are_one_line_errors() {
    let text = shipped_text("ssdconfig.xml");
    for (bad, says) in [
        (
            text.replacen("</Seed>", "</Sed>", 1),
            "malformed XML:".to_string(),
        ),
        (
            text[..text.find("</Flash_Parameter_Set>").unwrap()].to_string(),
            "the file ends inside <Flash_Parameter_Set>".to_string(),
        ),
        (
            text[..text.len() / 2].to_string(),
            "malformed XML: syntax error: tag not closed".to_string(),
        ),
        (
            text.replacen("<Seed>", "<Seed>&", 1),
            "malformed XML:".into(),
        ),
        (
            text.replacen("<Seed>321", "<Seed><Seed>3</Seed>", 1),
            "element <Seed> inside <Seed>, which holds a value".into(),
        ),
        (
            text.replacen("<Seed>", "junk<Seed>", 1),
            "text \"junk\" in <Device_Parameter_Set>, where only elements belong".into(),
        ),
        (
            text.replacen("<Seed>", "<Seed unit=\"x\">", 1),
            "<Seed> has attributes; MQSim's format has none".into(),
        ),
        (
            text.replacen("321", "&bogus;", 1),
            "unknown reference &bogus;".into(),
        ),
        (
            format!("{text}<Execution_Parameter_Set/>"),
            "element <Execution_Parameter_Set> after </Execution_Parameter_Set>".into(),
        ),
        (
            "<MQSim_IO_Scenarios></MQSim_IO_Scenarios>".into(),
            "the root element is <MQSim_IO_Scenarios>, not <Execution_Parameter_Set>".into(),
        ),
        (
            text.replacen("<?xml", "<!DOCTYPE x><?xml", 1),
            "DOCTYPE".into(),
        ),
    ] {
        let e = refusal(&bad);
        assert!(e.contains(&says), "{says}: {e}");
        assert!(e.starts_with("c.xml: line "), "{e}");
    }
    // Character and predefined references resolve.
    let c = SsdConfig::parse(
        "c.xml",
        &text.replacen("<Seed>321", "<Seed>&#51;2&#x31;", 1),
    );
    assert_eq!(c.unwrap().device.seed, 321);
}

#[test]
fn stray_text_is_reported_at_its_own_line_not_the_previous_tags() {
    let stray = edited("<Seed>", "junk<Seed>");
    let line = line_of(&stray, "junk");
    let says = format!("c.xml: line {line}: text \"junk\" in <Device_Parameter_Set>");
    assert!(refusal(&stray).starts_with(&says), "{}", refusal(&stray));
    let stray = stray.replace('\n', "\r\n");
    assert!(refusal(&stray).starts_with(&says), "{}", refusal(&stray));
}

#[test]
fn a_geometry_mqsim_cannot_count_is_refused() {
    let text = edited("<Block_No_Per_Plane>2048<", "<Block_No_Per_Plane>200000<");
    assert_eq!(
        refusal(&text),
        "c.xml: the flash holds 6553600000 pages (channels x chips x dies x planes x blocks x \
         pages); MQSim counts them in 32 bits: at most 4294967295"
    );
}

#[test]
fn channel_transfers_never_take_zero_time_on_fast_channels() {
    let mut c = SsdConfig::parse("c.xml", &shipped_text("ssdconfig.xml")).unwrap();
    c.device.channel_transfer_rate = 1600;
    c.device.flash_channel_width = 2;
    assert_eq!(c.channel_transfer_ns(8192), 4096);
    assert_eq!(c.channel_transfer_ns(3), 2);
    c.device.channel_transfer_rate = 0;
    c.device.flash_channel_width = 0;
    assert_eq!(c.channel_transfer_ns(u64::MAX), u64::MAX);
}

#[test]
fn load_is_bounded_like_every_input() {
    let dir = sluice_input::testkit::scratch("mqsim-config");
    for (path, says) in sluice_input::testkit::refused(&dir, Kind::MqsimConfig) {
        let e = SsdConfig::load(&path).unwrap_err().to_string();
        assert!(e.contains(says) && !e.contains('\n'), "{e}");
    }
    // A real file just over 1 MiB: a configuration padded with a comment.
    let big = dir.join("padded.xml");
    let text = shipped_text("ssdconfig.xml");
    let pad = (1usize << 20) + 1 - text.len() - "<!---->".len();
    std::fs::write(&big, format!("{text}<!--{}-->", " ".repeat(pad))).unwrap();
    let e = SsdConfig::load(&big).unwrap_err().to_string();
    assert!(
        e.ends_with("an MQSim device configuration may be at most 1 MiB"),
        "{e}"
    );
    let e = SsdConfig::load(&dir.join("none.xml"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("none.xml: cannot read") && !e.contains('\n'),
        "{e}"
    );
}

proptest! {
    /// Any few byte edits of a real configuration: a configuration or a
    /// one-line error, never a panic; and what is accepted stays in the
    /// bounds a model relies on.
    #[test]
    fn edited_configurations_never_panic(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..8),
    ) {
        let mut bytes = shipped_text("ssdconfig.xml").into_bytes();
        for (at, byte, how) in edits {
            let i = at.index(bytes.len() + 1);
            match how {
                0 if i < bytes.len() => bytes[i] = byte,
                1 => bytes.insert(i, byte),
                _ if i < bytes.len() => {
                    bytes.remove(i);
                }
                _ => bytes.push(byte),
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        match SsdConfig::parse("c.xml", &text) {
            Ok(c) => {
                prop_assert!(c.pages_total() <= u64::from(u32::MAX));
                prop_assert!(c.flash.page_capacity % SECTOR_BYTES == 0);
                prop_assert!(c.logical_capacity_bytes() <= c.capacity_bytes());
            }
            Err(e) => prop_assert!(!e.to_string().contains('\n'), "{}", e),
        }
    }
}
