//! Scenario parsing, building and error messages.

use super::memory::BYTES_BASE;
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
    let two = format!("{GOOD}\n[[flow]]\nname = \"w\"\npattern = \"seq-write\"\nweight = 2000\n");
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
        (
            "file_gib = 2",
            "file_gib = 2\nreservation_iops = 0",
            "reservation_iops",
        ),
        (
            "file_gib = 2",
            "file_gib = 2\nlimit_iops = 2e7",
            "limit_iops",
        ),
        (
            "file_gib = 2",
            "file_gib = 2\nlimit_iops = -1.0",
            "limit_iops",
        ),
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
        e.starts_with("s.toml: line 17: flow 'r': trace '/nonexistent/t': not an embedded trace"),
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

/// A recorded start-up replay issues its trace's writes (`WS`) as writes:
/// the flow may write, so a device refuses it without --allow-writes
/// before any I/O (it used to fail at the first write instead).
#[test]
fn a_recorded_startup_with_writes_may_write() {
    let trace = std::env::temp_dir().join(format!("sluice-ws-{}.trace", std::process::id()));
    std::fs::write(
        &trace,
        "app-1 \t   0     8   1000  Rand    0      0        R   0.0 START\n\
         app-1  .001     8   3000  Rand    0      0        WS   0.002   C\n",
    )
    .unwrap();
    let text = |replay: &str| {
        GOOD.replace("count = 3\n", "")
            .replace("file_gib = 2\n", "")
            .replace(
                "pattern = \"rand-read\"",
                &format!(
                    "pattern = \"startup\"\ntrace = {:?}\n{replay}",
                    trace.display().to_string()
                ),
            )
    };
    let recorded = parse(&text("replay = \"recorded\"")).unwrap();
    let other = parse(&text("")).unwrap();
    std::fs::remove_file(&trace).unwrap();
    assert!(recorded.flows[0].may_write());
    assert!(!other.flows[0].may_write(), "other replays read only");
}

/// Issue 24, defect 11: a flow name with a newline, NUL, escape or bidi
/// override is refused, naming the flow by index with the name escaped; a
/// name with a comma and a quote is legal.
#[test]
fn flow_names_with_control_or_bidi_characters_are_refused() {
    for (toml_name, shown) in [
        (r#""a\nb""#, r"a\nb"),
        (r#""a\u0000""#, r"a\u{0}"),
        (r#""x\u001b[2J""#, r"x\u{1b}[2J"),
        (r#""evil\u202Etxt""#, r"evil\u{202e}txt"),
        (r#""i\u2067""#, r"i\u{2067}"),
    ] {
        let text = GOOD.replace(r#"name = "r""#, &format!("name = {toml_name}"));
        let e = parse(&text).unwrap_err().to_string();
        assert!(
            e.contains("flow 0: the name \"") && e.contains(shown),
            "{e}"
        );
        assert!(!e.chars().any(crate::names::unsafe_char), "{e:?}");
        assert!(!e.contains('\n'));
    }
    let s = parse(&GOOD.replace(r#"name = "r""#, r#"name = "a,b\"c""#)).unwrap();
    assert_eq!(s.flows[0].name, "a,b\"c0");
    let e = parse(&GOOD.replace(r#"name = "t""#, r#"name = "t\r""#)).unwrap_err();
    assert!(e.to_string().contains(r#"name: the name "t\r""#), "{e}");
}

/// Issue 24, defect 6: a trace flow with count = 100000 held 100,000
/// copies of its request list (about 32 GB); the copies now share one
/// list, and the estimate counts it once.
#[test]
fn copies_of_a_trace_flow_share_one_list_counted_once() {
    let trace = format!(
        "{}/../../data/traces/ibm18es-head.disksim",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = GOOD.replace(
        "pattern = \"rand-read\"\nfile_gib = 2",
        &format!(
            "pattern = \"trace\"\ntrace = \"{trace}\"\nformat = \"disksim\"\noffsets = \"wrap\""
        ),
    );
    let one = parse(&text.replace("count = 3", "count = 1")).unwrap();
    let many = parse(&text.replace("count = 3", "count = 1000")).unwrap();
    let list = |s: &Scenario, i: usize| match &s.flows[i].kind {
        FlowKind::Trace(t) => Arc::clone(&t.requests),
        _ => panic!("a trace flow"),
    };
    assert!(Arc::ptr_eq(&list(&many, 0), &list(&many, 999)));
    let n = list(&one, 0).len() as u64;
    let size = std::mem::size_of::<trace::Request>() as u64;
    assert!(one.memory_estimate() >= BYTES_BASE + n * size);
    // 999 more copies cost their flow state, not 999 more lists.
    let extra = many.memory_estimate() - one.memory_estimate();
    assert_eq!(
        extra,
        999 * (many.memory_estimate() - BYTES_BASE - n * size) / 1000
    );
    // The campaign's 100,000 copies: refused under a 4 GiB limit, by the
    // estimate (each served copy's latency histogram), in no time.
    let all = parse(&text.replace("count = 3", "count = 100000")).unwrap();
    let e = all.check_memory_against(4 << 30).unwrap_err().to_string();
    assert!(
        e.contains("by sluice's estimate") && e.contains("100000 flows"),
        "{e}"
    );
}

#[test]
fn os_table_and_direct_have_linux_defaults_and_are_read() {
    let s = parse(GOOD).unwrap();
    assert_eq!(s.os, OsConfig::default());
    assert_eq!(s.os.memory_mib, 1024);
    assert!(s.flows.iter().all(|f| f.direct), "direct by default");
    let text = GOOD.replace("file_gib = 2", "file_gib = 2\ndirect = false")
        + "[os]\nmemory_mib = 512\ndirty_background_ratio = 5\ndirty_ratio = 40\ndirty_expire_s = 3\nread_ahead_kb = 256\n";
    let s = parse(&text).unwrap();
    assert!(s.flows.iter().all(|f| !f.direct));
    assert_eq!(
        s.os,
        OsConfig {
            memory_mib: 512,
            dirty_background_ratio: 5,
            dirty_ratio: 40,
            dirty_expire: Duration::from_secs(3),
            read_ahead_kb: 256,
        }
    );
    // And back through a builder.
    let b = ScenarioBuilder::new("b", 1.0)
        .preset("maxtor-stm332061")
        .scheduler("noop")
        .os(512, 5, 40, 3.0, 256)
        .flow(FlowBuilder::new("w", Pattern::SeqWrite).direct(false));
    let back = Scenario::parse("b.toml", &b.to_toml().unwrap()).unwrap();
    assert_eq!(back.os, s.os);
    assert!(!back.flows[0].direct);
}

#[test]
fn os_values_out_of_range_are_one_line_errors() {
    for (keys, want) in [
        (
            "memory_mib = 8",
            "[os] memory_mib must be 16..=16384 (got 8)",
        ),
        ("memory_mib = 100000", "memory_mib must be 16..=16384"),
        (
            "dirty_ratio = 101",
            "[os] dirty_ratio must be 0..=100 (got 101)",
        ),
        (
            "dirty_background_ratio = 20\ndirty_ratio = 20",
            "dirty_background_ratio (20) must be below dirty_ratio (20)",
        ),
        (
            "dirty_expire_s = -1",
            "[os] dirty_expire_s must be a number of seconds",
        ),
        (
            "read_ahead_kb = 100000",
            "[os] read_ahead_kb must be 0..=65536",
        ),
        ("swappiness = 60", "swappiness"),
    ] {
        let e = error(&format!("{GOOD}[os]\n{keys}\n"));
        assert!(e.contains(want), "{keys}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
    assert!(error(&GOOD.replace("file_gib = 2", "direct = 1")).contains("direct"));
}

#[test]
fn a_buffered_flow_counts_its_page_cache_in_the_memory_estimate() {
    let direct = parse(GOOD).unwrap();
    let buffered = parse(&GOOD.replace("file_gib = 2", "direct = false")).unwrap();
    assert!(buffered.memory_estimate() >= direct.memory_estimate() + (1024 << 8) * 64);
}

#[test]
fn merging_is_on_at_512_kib_unless_the_device_table_says_otherwise() {
    let s = parse(GOOD).unwrap();
    assert!(s.device.merge);
    assert_eq!(s.device.merge_sectors(), Some(1024));
    let with = |extra: &str| {
        GOOD.replace(
            "preset = \"maxtor-stm332061\"",
            &format!("preset = \"maxtor-stm332061\"\n{extra}"),
        )
    };
    assert_eq!(
        parse(&with("merge = false"))
            .unwrap()
            .device
            .merge_sectors(),
        None
    );
    let s = parse(&with("max_request_kib = 1024")).unwrap();
    assert_eq!(s.device.merge_sectors(), Some(2048));
    for bad in ["0", "40000"] {
        let e = error(&with(&format!("max_request_kib = {bad}")));
        assert!(
            e.contains("[device] max_request_kib must be 1..=") && !e.contains('\n'),
            "{bad}: {e}"
        );
    }
    assert!(error(&with("merge = 3")).contains("merge"));
}

#[test]
fn a_real_run_refuses_the_modelled_page_cache() {
    let text = GOOD.replace("file_gib = 2", "file_gib = 2\ndirect = false");
    assert!(!parse(&text).unwrap().flows[0].direct);
    let e = Scenario::parse_real("s.toml", &text)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("flow 'r'") && e.contains("direct = false") && e.contains("sluice sim"),
        "{e}"
    );
}

#[test]
fn cap_duration_shortens_a_run_and_drops_a_warmup_as_long() {
    let b = ScenarioBuilder::new("c", 100.0).warmup_s(2.0);
    assert_eq!(b.clone().cap_duration_s(5.0).duration_s, 5.0);
    assert_eq!(b.clone().cap_duration_s(5.0).warmup_s, 2.0);
    assert_eq!(b.clone().cap_duration_s(500.0).duration_s, 100.0);
    let short = b.cap_duration_s(1.0);
    assert_eq!((short.duration_s, short.warmup_s), (1.0, 0.0));
}

#[test]
fn reservation_and_limit_reach_the_flow_spec() {
    let text = GOOD.replace(
        "file_gib = 2",
        "file_gib = 2\nreservation_iops = 40.5\nlimit_iops = 100",
    );
    let s = parse(&text).unwrap();
    assert!(s
        .flows
        .iter()
        .all(|f| f.qos.reservation_iops == Some(40.5) && f.qos.limit_iops == Some(100.0)));
    let s = parse(GOOD).unwrap();
    assert!(s
        .flows
        .iter()
        .all(|f| f.qos.reservation_iops.is_none() && f.qos.limit_iops.is_none()));
}

const TREE: &str = r#"
[[group]]
name = "A"
weight = 300
[[group]]
name = "A1"
parent = "A"
limit_mb_s = 20
burst_ms = 50
scheduler = "noop"
[[group]]
name = "B"
"#;

fn with_tree(flow_keys: &str, tree: &str) -> String {
    format!(
        "{}\n{tree}",
        GOOD.replace("file_gib = 2", &format!("file_gib = 2\n{flow_keys}"))
    )
}

#[test]
fn groups_reach_the_scenario_and_flows_name_theirs() {
    let s = parse(&with_tree(
        "group = \"A1\"\nlimit_mb_s = 5\nburst_ms = 10",
        TREE,
    ))
    .unwrap();
    assert_eq!(s.groups.len(), 3);
    assert_eq!((s.groups[0].qos.weight, s.groups[0].parent), (300, None));
    assert_eq!(s.groups[1].parent, Some(0));
    assert_eq!(s.groups[1].qos.limit_mb_s, Some(20.0));
    assert_eq!(s.groups[1].qos.burst, Some(Duration::from_millis(50)));
    assert_eq!(
        s.groups[1].scheduler.as_ref().map(|x| x.0.as_str()),
        Some("noop")
    );
    // Unset: weight 100, the scenario's policy.
    assert_eq!(
        (s.groups[2].qos.weight, &s.groups[2].scheduler),
        (100, &None)
    );
    assert!(s.flows.iter().all(|f| f.group == Some(1)
        && f.qos.limit_mb_s == Some(5.0)
        && f.qos.burst == Some(Duration::from_millis(10))));
    // The policy is the scenario's inside a tree.
    assert_eq!(s.policy().unwrap().name(), "clook");
}

#[test]
fn bad_groups_name_their_key() {
    for (keys, tree, needle) in [
        (
            "group = \"Z\"",
            TREE,
            "no [[group]] named 'Z' (defined: A, A1, B)",
        ),
        (
            "group = \"A\"",
            "",
            "no [[group]] named 'A' (defined: none)",
        ),
        (
            "",
            "[[group]]\nname = \"A\"\n[[group]]\nname = \"A\"",
            "defined twice",
        ),
        (
            "",
            "[[group]]\nname = \"A\"\nweight = 0",
            "weight must be 1..=1000",
        ),
        (
            "",
            "[[group]]\nname = \"A\"\nparent = \"Q\"",
            "parent: no [[group]] named 'Q'",
        ),
        (
            "",
            "[[group]]\nname = \"A\"\nparent = \"B\"\n[[group]]\nname = \"B\"\nparent = \"A\"",
            "cycle",
        ),
        ("", "[[group]]\nname = \"A\"\nlimit_mb_s = 0", "limit_mb_s"),
        (
            "",
            "[[group]]\nname = \"A\"\nscheduler = \"lifo\"",
            "unknown policy 'lifo'",
        ),
        ("", "[[group]]\nname = \"A\"\ncolour = 1", "colour"),
        ("limit_mb_s = -2", "", "limit_mb_s must be a number of MB/s"),
        ("burst_ms = 0", "", "burst_ms must be"),
    ] {
        let e = error(&with_tree(keys, tree));
        assert!(e.contains(needle), "{keys} / {tree}: {e}");
    }
}

#[test]
fn a_tree_writes_back_as_it_reads() {
    let b = ScenarioBuilder::new("t", 10.0)
        .preset("maxtor-stm332061")
        .scheduler("bfq")
        .group(GroupBuilder::new("A").weight(300).limit_iops(50.0))
        .group(
            GroupBuilder::new("A1")
                .parent("A")
                .scheduler("noop")
                .burst_ms(20.0),
        )
        .flow(
            FlowBuilder::new("r", Pattern::RandRead)
                .group("A1".into())
                .limit_mb_s(1.5),
        );
    let text = b.to_toml().unwrap();
    let back = parse(&text).unwrap();
    assert_eq!(back, b.build().unwrap());
    assert_eq!(back.groups[0].qos.limit_iops, Some(50.0));
}

#[test]
fn the_cost_table_reaches_the_scenario_over_the_kernels_defaults() {
    let s = parse(&format!(
        "{GOOD}\n[cost]\nread_rand_us = 5000\nper_kib_us = 2.5\n"
    ))
    .unwrap();
    assert_eq!((s.cost.read_rand_us, s.cost.per_kib_us), (5000.0, 2.5));
    assert_eq!(
        s.cost.write_rand_us,
        sluice::LinearCost::default().write_rand_us
    );
    assert_eq!(parse(GOOD).unwrap().cost, sluice::LinearCost::default());
    let e = error(&format!("{GOOD}\n[cost]\nper_kib_us = -1\n"));
    assert!(
        e.contains("[cost] per_kib_us must be a number in 0..=1e7"),
        "{e}"
    );
    let e = error(&format!("{GOOD}\n[cost]\nper_page_us = 1\n"));
    assert!(e.contains("per_page_us"), "{e}");
    // And it writes back as it reads.
    let b = ScenarioBuilder::new("t", 10.0)
        .preset("maxtor-stm332061")
        .scheduler("yfq")
        .param("charge", "cost")
        .cost(&sluice::LinearCost::default())
        .flow(FlowBuilder::new("r", Pattern::RandRead));
    assert_eq!(parse(&b.to_toml().unwrap()).unwrap(), b.build().unwrap());
}

/// GOOD on a rate device with these `[device]` keys.
fn on_rate(keys: &str) -> String {
    GOOD.replace(
        "preset = \"maxtor-stm332061\"",
        &format!("model = \"rate\"\n{keys}"),
    )
}

#[test]
fn a_rate_device_takes_its_iops_and_bandwidth() {
    let s = parse(&on_rate(
        "read_iops = 1000\nread_mb_s = 100\nqueue_depth = 8",
    ))
    .unwrap();
    let Model::Rate(spec) = &s.device.model else {
        panic!("not a rate device: {:?}", s.device.model);
    };
    assert_eq!(spec.read.iops, Some(1000.0));
    assert_eq!(spec.read.bytes_per_s, Some(100e6));
    // Writes as reads when no write key is given; 1 TiB by default.
    assert_eq!(spec.write, spec.read);
    assert_eq!(spec.capacity_sectors, (1024.0 * GIB_SECTORS) as u64);
    assert_eq!(s.device.queue_depth, 8);
    let s = parse(&on_rate(
        "read_mb_s = 1\nwrite_iops = 50\ncapacity_gib = 10",
    ))
    .unwrap();
    let Model::Rate(spec) = &s.device.model else {
        panic!("not a rate device");
    };
    assert_eq!((spec.read.iops, spec.write.iops), (None, Some(50.0)));
    assert_eq!(spec.write.bytes_per_s, None);
    assert_eq!(spec.capacity_sectors, (10.0 * GIB_SECTORS) as u64);
}

#[test]
fn rate_device_keys_are_checked_in_one_line() {
    for (keys, want) in [
        ("", "needs read_iops or read_mb_s"),
        ("read_iops = 0", "read_iops must be a number with 0 < x"),
        ("read_iops = -5", "read_iops must be"),
        ("read_iops = 1e12", "read_iops must be"),
        ("read_mb_s = nan", "read_mb_s must be"),
        ("read_iops = 100\nwrite_mb_s = 0", "write_mb_s must be"),
        ("read_iops = 100\ncapacity_gib = 0", "capacity_gib must be"),
        (
            "read_iops = 100\npreset = \"ssd-sata\"",
            "either model = \"rate\" or preset",
        ),
    ] {
        let e = error(&on_rate(keys));
        assert!(e.contains(want), "{keys}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
    let e = error(&GOOD.replace("preset = \"maxtor-stm332061\"", "model = \"tape\""));
    assert!(e.contains("unknown model 'tape'"), "{e}");
    let e = error(&GOOD.replace(
        "preset = \"maxtor-stm332061\"",
        "preset = \"maxtor-stm332061\"\nread_iops = 5",
    ));
    assert!(
        e.contains("read_iops applies only to model = \"rate\""),
        "{e}"
    );
}

#[test]
fn a_rate_device_round_trips_through_the_builder() {
    let b = ScenarioBuilder::new("r", 5.0)
        .rate_device((Some(200.0), None), (None, Some(50.0)), Some(20.0))
        .scheduler("noop")
        .flow(FlowBuilder::new("a", Pattern::RandRead));
    let text = b.to_toml().unwrap();
    assert!(text.contains("model = \"rate\""), "{text}");
    let s = Scenario::parse("r.toml", &text).unwrap();
    assert_eq!(s.device.model, b.build().unwrap().device.model);
}
#[test]
fn random_distribution_and_fsync_every_reach_the_flow_spec_or_say_why_not() {
    let text = GOOD.replace(
        "file_gib = 2",
        "file_gib = 2\nrandom_distribution = \"zipf:1.2\"",
    );
    let s = parse(&text).unwrap();
    assert!(s.flows.iter().all(|f| f.distribution
        == sluice_workload::Distribution::Zipf {
            theta: 1.2,
            center: None
        }));
    assert!(parse(GOOD).unwrap().flows.iter().all(|f| f.distribution
        == sluice_workload::Distribution::Uniform
        && f.fsync_every.is_none()));
    for (to, needle) in [
        ("random_distribution = \"zipf:1\"", "zipf's theta"),
        ("random_distribution = \"zoned:60/10\"", "not 100"),
        ("random_distribution = \"sideways\"", "'sideways' is not"),
        ("fsync_every = 0", "fsync_every must be at least 1"),
        ("fsync_every = 8", "seq-write and rand-write"),
    ] {
        let text = GOOD.replace("file_gib = 2", &format!("file_gib = 2\n{to}"));
        let e = error(&text);
        assert!(e.contains(needle) && !e.contains('\n'), "{to}: {e}");
        let line = text.lines().position(|l| l == to).unwrap() + 1;
        assert!(e.contains(&format!("line {line}:")), "{to}: {e}");
    }
    let w = GOOD
        .replace("rand-read", "rand-write")
        .replace("file_gib = 2", "file_gib = 2\nfsync_every = 8");
    assert!(parse(&w)
        .unwrap()
        .flows
        .iter()
        .all(|f| f.fsync_every == Some(8)));
}

#[test]
fn files_and_file_service_reach_the_flow_spec_or_say_why_not() {
    use sluice_workload::FileService;
    let text = GOOD.replace(
        "file_gib = 2",
        "file_gib = 2\nfiles = 4\nfile_service = \"roundrobin:8\"",
    );
    let s = parse(&text).unwrap();
    assert!(s
        .flows
        .iter()
        .all(|f| f.files == 4 && f.file_service == FileService::RoundRobin(8)));
    assert!(parse(GOOD)
        .unwrap()
        .flows
        .iter()
        .all(|f| f.files == 1 && f.file_service == FileService::RoundRobin(1)));
    for (to, needle) in [
        ("files = 0", "files must be 1..=1000000"),
        ("file_service = \"sideways\"", "expected roundrobin[:N]"),
        ("files = 1000000", "smaller than a request"),
    ] {
        let text = GOOD.replace("file_gib = 2", &format!("file_gib = 2\n{to}"));
        let e = error(&text);
        assert!(e.contains(needle) && !e.contains('\n'), "{to}: {e}");
        let line = text.lines().position(|l| l == to).unwrap() + 1;
        assert!(e.contains(&format!("line {line}:")), "{to}: {e}");
    }
}

#[test]
fn json_with_a_files_keys_is_the_same_scenario() {
    let json = r#"{"name": "t", "seed": 3, "duration_s": 10, "warmup_s": 1,
        "device": {"preset": "maxtor-stm332061"}, "scheduler": {"name": "clook"},
        "flow": [{"name": "r", "count": 3, "pattern": "rand-read", "file_gib": 2}]}"#;
    assert_eq!(
        Scenario::from_json("d/<dict>", json, false).unwrap(),
        parse(GOOD).unwrap()
    );
    let e = Scenario::from_json("<dict>", &json.replace("\"count\"", "\"cuont\""), false)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("<dict>: unknown field `cuont`"), "{e}");
    assert!(!e.contains("column"), "{e}");
    let e = Scenario::from_json(
        "<dict>",
        &json.replace("\"file_gib\": 2", "\"file_gib\": -2"),
        false,
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("<dict>: ") && e.contains("file_gib"), "{e}");
}

/// Issue 43 defect 12: a reservation above the limit was accepted in
/// silence (mclock cut it to the limit); refused in one line naming the
/// flow or group, under every policy.
#[test]
fn mclock_refuses_a_reservation_above_the_limit() {
    let flow = GOOD.replace("clook", "mclock").replace(
        "file_gib = 2",
        "file_gib = 2\nreservation_iops = 100\nlimit_iops = 10",
    );
    let e = error(&flow);
    assert!(
        e.contains("flow 'r'") && e.contains("reservation_iops (100) is above limit_iops (10)"),
        "{e}"
    );
    assert!(!e.contains('\n'), "{e}");
    let e = error(&flow.replace("limit_iops = 10", "limit_iops = 1e-300"));
    assert!(e.contains("limit_iops (1e-300)") && e.len() < 200, "{e}");
    let group = GOOD.replace("clook", "noop")
        + "[[group]]\nname = \"g\"\nreservation_iops = 5\nlimit_iops = 4\n";
    let e = error(&group);
    assert!(e.contains("'g'") && e.contains("reservation"), "{e}");
    // Equal is fine: the reservation is the limit.
    let equal = flow.replace("limit_iops = 10", "limit_iops = 100");
    assert!(parse(&equal).is_ok());
}

/// Issue 43 defect 10: an all-zero `[cost]` was accepted, and under
/// `charge = "cost"` it starved flows. A model under which a request
/// costs nothing is refused in one line naming the keys.
#[test]
fn a_cost_model_that_charges_nothing_is_refused() {
    let zero = "[cost]\nread_seq_us = 0\nread_rand_us = 0\nwrite_seq_us = 0\nwrite_rand_us = 0\nper_kib_us = 0\n";
    let e = error(&format!("{GOOD}\n{zero}"));
    assert!(
        e.contains("[cost] charges nothing")
            && e.contains(
                "per_kib_us and read_seq_us, read_rand_us, write_seq_us, write_rand_us are 0"
            ),
        "{e}"
    );
    assert!(!e.contains('\n'), "{e}");
    // Free sequential writes alone are refused too; a per-KiB cost or
    // every base cost positive is accepted (the kernel's HDD model has
    // write_seq_us = 0 beside a per-KiB cost).
    let e = error(&format!(
        "{GOOD}\n[cost]\nper_kib_us = 0\nwrite_seq_us = 0\n"
    ));
    assert!(e.contains("per_kib_us and write_seq_us are 0"), "{e}");
    let bases = "[cost]\nper_kib_us = 0\nread_seq_us = 1\nread_rand_us = 1\nwrite_seq_us = 1\nwrite_rand_us = 1\n";
    assert!(parse(&format!("{GOOD}\n{bases}")).is_ok());
    assert!(parse(&format!(
        "{GOOD}\n{}",
        zero.replace("per_kib_us = 0", "per_kib_us = 0.001")
    ))
    .is_ok());
}

/// Issue 43, defect 12: `burst_ms = 1e300` was quoted back as 301 digits;
/// every out-of-range number a scenario gives is quoted short.
#[test]
fn out_of_range_floats_are_quoted_short() {
    for (keys, quoted) in [
        ("limit_iops = 5\nburst_ms = 1e300", "(got 1e300)"),
        ("limit_iops = 1e300", "(got 1e300)"),
        ("think_ms = -1e-300", "(got -1e-300)"),
        ("start_s = 1e300", "(got 1e300)"),
        ("rate_iops = 1e-300", "(got 1e-300)"),
        ("offset_gib = 1e300", "got 1e300)"),
    ] {
        let e = error(&with_tree(keys, ""));
        assert!(e.ends_with(quoted) && e.len() < 200, "{keys}: {e}");
    }
    let e = error(&GOOD.replace("file_gib = 2", "file_gib = -1e300"));
    assert!(e.ends_with("(got -1e300)"), "{e}");
    let e = error(&on_rate("read_iops = 1e300"));
    assert!(e.ends_with("(got 1e300)") && e.len() < 200, "{e}");
    let e = error(&format!("{GOOD}\n[cost]\nper_kib_us = 1e300"));
    assert!(e.ends_with("(got 1e300)"), "{e}");
    let e = error(&GOOD.replace(
        "[scheduler]\nname = \"clook\"",
        "[scheduler]\nname = \"bfq\"\ntimeout_ms = 1e300",
    ));
    assert!(e.ends_with("got 1e300"), "{e}");
}

/// Issue 43, defect 12: `[[group]]` names skipped the control and bidi
/// check that flow names have.
#[test]
fn group_names_with_control_or_bidi_characters_are_refused() {
    for (toml_name, shown) in [
        (r#""a\nb""#, r"a\nb"),
        (r#""evil\u202Etxt""#, r"evil\u{202e}txt"),
    ] {
        let e = error(&with_tree("", &format!("[[group]]\nname = {toml_name}")));
        assert!(
            e.contains("group 0: the name \"") && e.contains(shown),
            "{e}"
        );
        assert!(!e.chars().any(crate::names::unsafe_char), "{e:?}");
    }
    let e = error(&format!(
        "{GOOD}\n[[class]]\nname = \"c\\u001b[2J\"\nquantum_ms = 5"
    ));
    assert!(e.contains(r"class 0: the name "), "{e}");
}

/// Issue 43, defect 12: an empty scenario, flow, group or class name was
/// accepted (a report row with no name, a group no flow can name).
#[test]
fn empty_scenario_flow_group_and_class_names_are_refused() {
    for (text, what) in [
        (GOOD.replace(r#"name = "t""#, r#"name = """#), "name: "),
        (GOOD.replace(r#"name = "r""#, r#"name = """#), "flow 0: "),
        (with_tree("", "[[group]]\nname = \"\""), "group 0: "),
        (format!("{GOOD}\n[[class]]\nname = \"\""), "class 0: "),
    ] {
        let e = error(&text);
        assert!(e.contains(&format!("{what}name must not be empty")), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }
}

/// `replay = "think"` is a start-up replay mode; an unknown mode's error
/// lists it with the others.
#[test]
fn the_replay_key_accepts_think_and_lists_it_when_unknown() {
    let text = |replay: &str| {
        GOOD.replace("count = 3\n", "")
            .replace("file_gib = 2\n", "")
            .replace(
                "pattern = \"rand-read\"",
                &format!("pattern = \"startup\"\ntrace = \"xterm\"\nreplay = \"{replay}\""),
            )
    };
    let s = parse(&text("think")).unwrap();
    match &s.flows[0].kind {
        sluice_workload::FlowKind::Startup(st) => assert_eq!(st.replay, Replay::Think),
        other => panic!("not a start-up: {other:?}"),
    }
    // Placed as an s-suite replay: one 20 MB file per thread.
    assert_eq!(
        s.flows[0].file_sectors,
        2 * sluice_workload::THREAD_FILE_SECTORS
    );
    let e = error(&text("thinking"));
    assert!(
        e.contains("replay: unknown value 'thinking' (valid: s-suite, recorded, think)"),
        "{e}"
    );
}

/// A scenario on the backend experiment's MQSim configuration: two flows
/// (the first `count = 2`), `ssd` tables as `tables` gives them.
fn on_mqsim(tables: [&str; 2]) -> String {
    let config = format!(
        "{}/../sluice-repro/data/mqsim/backend/ssdconfig.xml",
        env!("CARGO_MANIFEST_DIR")
    );
    format!(
        "name = \"m\"\nduration_s = 1\n[device]\nmqsim = \"{config}\"\nqueue_depth = 8\n\
         [scheduler]\nname = \"noop\"\n\
         [[flow]]\nname = \"a\"\ncount = 2\npattern = \"rand-read\"\nfile_gib = 1\n{}\n\
         [[flow]]\nname = \"b\"\npattern = \"rand-write\"\nfile_gib = 1\n{}\n",
        tables[0], tables[1]
    )
}

#[test]
fn an_mqsim_device_takes_each_flows_ssd_table_in_flow_order() {
    let s = parse(&on_mqsim([
        "ssd = { priority = \"urgent\", caching = \"off\", channels = [0, 3], planes = [1], initial_occupancy = 0.75 }",
        "ssd = { priority = \"low\", dies = [1] }",
    ]))
    .unwrap();
    let Model::Flash(spec) = &s.device.model else {
        panic!("a flash model: {:?}", s.device.model.name())
    };
    use sluice_device::flash::{StreamCaching, StreamPriority};
    // `count = 2` gives two flows the same table, each its own range's
    // first sector (where its page numbering starts); then flow b.
    assert_eq!(spec.streams.len(), 3);
    let starts: Vec<u64> = spec.streams.iter().map(|x| x.first_sector).collect();
    let gib = 1 << 21;
    assert_eq!(starts, vec![0, gib, 2 * gib]);
    assert_eq!(
        sluice_device::flash::StreamSpec {
            first_sector: 0,
            ..spec.streams[1].clone()
        },
        spec.streams[0]
    );
    let a = &spec.streams[0];
    assert_eq!(
        (
            a.priority,
            a.caching,
            &a.channels[..],
            &a.planes[..],
            a.initial_occupancy
        ),
        (
            StreamPriority::Urgent,
            StreamCaching::TurnedOff,
            &[0, 3][..],
            &[1][..],
            0.75
        )
    );
    assert!(a.chips.is_empty() && a.dies.is_empty());
    let b = &spec.streams[2];
    assert_eq!(
        (b.priority, b.caching, &b.dies[..]),
        (StreamPriority::Low, StreamCaching::WriteCache, &[1][..])
    );
    // Without tables: every flow the default.
    let s = parse(&on_mqsim(["", ""])).unwrap();
    let Model::Flash(spec) = &s.device.model else {
        panic!("a flash model")
    };
    assert!(spec.streams.iter().all(|x| *x
        == sluice_device::flash::StreamSpec {
            first_sector: x.first_sector,
            ..Default::default()
        }));
    assert_eq!(spec.streams.len(), 3);
}

#[test]
fn bad_ssd_tables_are_one_line_errors() {
    for (table, says) in [
        (
            "ssd = { priority = \"top\" }",
            "ssd.priority: unknown value 'top' (valid: urgent, high, medium, low)",
        ),
        (
            "ssd = { caching = \"on\" }",
            "ssd.caching: unknown value 'on'",
        ),
        (
            "ssd = { channels = [8] }",
            "ssd.channels: 8 is not one of the drive's 0..8",
        ),
        ("ssd = { chips = [0, 0] }", "ssd.chips: 0 is listed twice"),
        ("ssd = { planes = [] }", "ssd.planes is empty"),
        (
            "ssd = { initial_occupancy = 1.5 }",
            "ssd.initial_occupancy must be 0..=1",
        ),
        ("ssd = { colour = 1 }", "unknown field `colour`"),
        ("ssd = { dies = [-1] }", "ssd"),
    ] {
        let e = error(&on_mqsim(["", table]));
        assert!(
            e.starts_with("s.toml: ") && e.contains(says) && !e.contains('\n'),
            "{table}: {e}"
        );
    }
    // `ssd` on another device.
    let e = error(&GOOD.replace("file_gib = 2", "file_gib = 2\nssd = { priority = \"low\" }"));
    assert!(
        e.contains("flow 'r': ssd applies only to an MQSim device"),
        "{e}"
    );
    // One model only; a missing configuration names its path.
    let e = error(&on_mqsim(["", ""]).replace("[device]\n", "[device]\npreset = \"ssd-sata\"\n"));
    assert!(e.contains("give one of preset, diskspecs and mqsim"), "{e}");
    let e = error(&on_mqsim(["", ""]).replace("backend/ssdconfig.xml", "none.xml"));
    assert!(
        e.contains("[device] mqsim: ") && e.contains("none.xml"),
        "{e}"
    );
}

#[test]
fn an_mqsim_scenario_writes_back_its_ssd_tables() {
    let text = on_mqsim(["ssd = { priority = \"medium\", chips = [1] }", ""]);
    let raw: ScenarioBuilder = toml::from_str(&text).unwrap();
    let again: ScenarioBuilder = toml::from_str(&raw.to_toml().unwrap()).unwrap();
    assert_eq!(raw, again);
    assert_eq!(
        parse(&text).unwrap(),
        Scenario::parse("s.toml", &raw.to_toml().unwrap()).unwrap()
    );
}

#[test]
fn a_trace_flows_space_is_bounded_by_file_gib() {
    let dir = sluice_input::testkit::scratch("mqsim-trace-space");
    let trace = dir.join("t.trace");
    // Sector 2^21 (1 GiB) + 5: folded into a 1 GiB space as MQSim folds it.
    std::fs::write(&trace, "0 0 2097157 8 1\n10 0 8 8 0\n").unwrap();
    let text = GOOD
        .replace("count = 3\n", "")
        .replace(
            "pattern = \"rand-read\"\nfile_gib = 2",
            &format!(
                "pattern = \"trace\"\ntrace = \"{}\"\nformat = \"mqsim\"\noffsets = \"mqsim\"\nfile_gib = 1\noffset_gib = 2",
                trace.display()
            ),
        );
    let s = parse(&text).unwrap();
    let FlowKind::Trace(t) = &s.flows[0].kind else {
        panic!("a trace flow")
    };
    let base = 2 * 2097152;
    // 2097157 % (2^21 - 1) = 6.
    assert_eq!(
        (t.requests[0].sector, t.requests[1].sector),
        (base + 6, base + 8)
    );
    assert!(t.requests[1].write && !t.requests[0].write);
    // Without file_gib the space runs to the device's end: kept as is.
    let s = parse(&text.replace("file_gib = 1\n", "")).unwrap();
    let FlowKind::Trace(t) = &s.flows[0].kind else {
        panic!("a trace flow")
    };
    assert_eq!(t.requests[0].sector, base + 2097157);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn read_fraction_mixes_random_flows_and_is_refused_elsewhere() {
    let s = parse(&GOOD.replace("file_gib = 2", "file_gib = 2\nread_fraction = 0.25")).unwrap();
    assert!(s.flows.iter().all(|f| f.read_fraction == Some(0.25)));
    assert_eq!(parse(GOOD).unwrap().flows[0].read_fraction, None);
    let e = error(&GOOD.replace("file_gib = 2", "file_gib = 2\nread_fraction = 1.5"));
    assert!(e.contains("read_fraction must be 0..=1 (got 1.5)"), "{e}");
    let e = error(
        &GOOD
            .replace("rand-read", "seq-read")
            .replace("file_gib = 2", "file_gib = 2\nread_fraction = 0.5"),
    );
    assert!(
        e.contains("read_fraction applies to pool, rand-read and rand-write flows only"),
        "{e}"
    );
}

/// A scenario of one trace flow over `trace` (alibaba format) with `keys`.
fn alibaba_flow(keys: &str) -> String {
    let trace = format!(
        "{}/../../data/traces/alibaba-sample.csv",
        env!("CARGO_MANIFEST_DIR")
    );
    format!(
        "name = \"t\"\nduration_s = 100\n[device]\npreset = \"ssd-sata\"\n[scheduler]\nname = \"noop\"\n\
         [[flow]]\nname = \"t\"\npattern = \"trace\"\ntrace = \"{trace}\"\nformat = \"alibaba\"\n\
         offsets = \"wrap\"\n{keys}"
    )
}

fn requests(s: &Scenario, i: usize) -> Arc<Vec<trace::Request>> {
    match &s.flows[i].kind {
        FlowKind::Trace(t) => Arc::clone(&t.requests),
        _ => panic!("a trace flow"),
    }
}

/// Issue 48: `flows = "volume"` makes a flow per volume, named by it, each
/// in its own share of the device (volumes are separate address spaces).
#[test]
fn a_trace_split_by_volume_is_a_flow_per_volume_in_its_own_space() {
    let whole = parse(&alibaba_flow("")).unwrap();
    assert_eq!(whole.flows.len(), 1);
    let s = parse(&alibaba_flow("flows = \"volume\"")).unwrap();
    let names: Vec<&str> = s.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["7", "213", "640"]);
    let capacity = s.device.model.capacity();
    let share = capacity / 3;
    let mut total = 0;
    for (i, f) in s.flows.iter().enumerate() {
        assert_eq!(f.file_start, share * i as u64);
        let r = requests(&s, i);
        total += r.len();
        for q in r.iter() {
            assert!(
                q.sector >= f.file_start && q.sector + u64::from(q.sectors) <= f.file_start + share
            );
        }
    }
    assert_eq!(total, requests(&whole, 0).len());
    // Arrivals keep the trace's clock, not each volume's own.
    assert_eq!(requests(&s, 1)[0].at, requests(&whole, 0)[1].at);
    // A flow per volume is not `count` copies.
    let e = parse(&alibaba_flow("flows = \"volume\"\ncount = 2")).unwrap_err();
    assert!(
        e.to_string().contains("count applies to flows = \"one\""),
        "{e}"
    );
    let e = parse(&alibaba_flow("flows = \"process\"")).unwrap_err();
    assert!(e.to_string().contains("names no process"), "{e}");
    let e = parse(&alibaba_flow("flows = \"disk\"")).unwrap_err();
    assert!(e.to_string().contains("flows: unknown value 'disk'"), "{e}");
}

/// Issue 48: `from_s`, `to_s` and `speed` cut the trace and speed it up,
/// arrivals counted from `from_s`.
#[test]
fn a_trace_window_keeps_its_requests_and_counts_from_its_start() {
    let whole = requests(&parse(&alibaba_flow("")).unwrap(), 0);
    let (from, to) = (whole[5].at, whole[15].at);
    let keys = format!(
        "from_s = {}\nto_s = {}\nspeed = 2",
        from.as_secs_f64(),
        to.as_secs_f64()
    );
    let cut = requests(&parse(&alibaba_flow(&keys)).unwrap(), 0);
    assert_eq!(cut.len(), 10);
    for (c, w) in cut.iter().zip(&whole[5..15]) {
        assert_eq!(c.sector, w.sector);
        let want = (w.at - from).as_nanos() as f64 / 2.0;
        assert!((c.at.as_nanos() as f64 - want).abs() <= 1.0, "{c:?} {w:?}");
    }
    for (keys, says) in [
        ("from_s = 5\nto_s = 1", "to_s must be after from_s"),
        ("speed = 0", "speed must be"),
        ("from_s = 99999", "no request arrives between"),
    ] {
        let e = parse(&alibaba_flow(keys)).unwrap_err().to_string();
        assert!(e.contains(says), "{keys}: {e}");
    }
    let e = parse(&GOOD.replace("file_gib = 2", "file_gib = 2\nspeed = 2"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("speed applies only to pattern = \"trace\""),
        "{e}"
    );
}
