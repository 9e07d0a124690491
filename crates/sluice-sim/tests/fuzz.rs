//! Fuzzing in `cargo test`, bounded in time: no input makes the scenario
//! parser (group trees, limits and the cost model included), the DiskSim
//! parser or the trace readers panic, and what they
//! accept runs (briefly) without panicking. Inputs are the shipped files
//! with one number replaced by an awkward one (zero, negative, huge, NaN,
//! infinite, too many digits), or lines built from awkward pieces; proptest
//! shrinks a failure to the smallest such change. Structure is generated
//! too: nested lists and blocks (past the nesting limit), `source`
//! includes written to files (cycles and repeats), every trace format's
//! lines with wrapping numbers, and every kind of line end. Each property
//! is kept to a few seconds of a debug build, and each case to a bound;
//! `fuzz/` has cargo-fuzz targets for long runs; `fuzz_imports.rs` does
//! the same for the importers.

mod fuzzing;

use std::path::Path;

use fuzzing::*;
use proptest::prelude::*;
use proptest::sample::Index;
use sluice_runtime::Scenario;
use sluice_sim::device::{diskspecs, presets, Model};
use sluice_sim::validate::{parse_trace, validate};
use sluice_workload::startup::StartupTrace;

fn scenario_files() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dir in [root().join("scenarios"), root().join("scenarios/repro")] {
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        names.sort();
        for p in names {
            out.push((p.display().to_string(), read(p)));
        }
    }
    assert!(out.len() >= 5, "the shipped scenarios are there");
    out
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn scenario_parser_never_panics(file in any::<Index>(), which in any::<Index>(), by in value()) {
        let files = scenario_files();
        let (name, text) = &files[file.index(files.len())];
        let text = mutate(text, which, &by);
        match Scenario::parse(name, &text) {
            Ok(s) => run_briefly(s),
            Err(e) => {
                let m = e.to_string();
                prop_assert!(!m.contains('\n') && m.starts_with(name.as_str()), "{m}");
                let tail = m.rsplit(':').next().unwrap_or("").trim();
                prop_assert!(!tail.is_empty(), "empty message: {m}");
            }
        }
    }

    #[test]
    fn scenario_parser_survives_arbitrary_text(text in "[a-z_\\[\\]=\"\\n .0-9-]{0,200}") {
        let _ = Scenario::parse("f.toml", &text);
    }
}

fn disk_data(file: &str) -> String {
    read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../sluice-device/data/disksim")
            .join(file),
    )
}

/// Parse the IBM drive with `model` and `specs` in place of its files.
fn drive(specs: &str, model: &str) -> sluice_sim::Result<sluice_sim::device::hdd::HddSpec> {
    let seek = disk_data("ibm18es.seek");
    diskspecs::parse_str("ibm18es.diskspecs", specs, |name| match name {
        "ibm18es.model" => Some(model.to_string()),
        "ibm18es.seek" => Some(seek.clone()),
        _ => None,
    })
}

/// A short trace spread over a drive of `capacity` sectors.
fn short_trace(capacity: u64) -> String {
    (0..24u64)
        .map(|i| {
            let lbn = (i * 7_919_993) % capacity.max(1);
            format!(
                "{} Hit {lbn} {} 1000 {}\n",
                if i % 3 == 0 { "W" } else { "R" },
                1 + i % 16,
                i * 50
            )
        })
        .collect()
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn disksim_parser_never_panics(in_model in any::<bool>(), which in any::<Index>(), by in value()) {
        let (mut specs, mut model) = (disk_data("ibm18es.diskspecs"), disk_data("ibm18es.model"));
        if in_model {
            model = mutate(&model, which, &by);
        } else {
            specs = mutate(&specs, which, &by);
        }
        match drive(&specs, &model) {
            Ok(spec) => {
                let m = Model::Hdd(spec);
                let trace = parse_trace("t", &short_trace(m.capacity())).unwrap();
                let _ = validate("fuzz", &m, &trace);
            }
            Err(e) => {
                let m = e.to_string();
                prop_assert!(!m.contains('\n') && !m.trim_end().ends_with(':'), "{m}");
            }
        }
    }

    #[test]
    fn seek_curve_reader_never_panics(which in any::<Index>(), by in value()) {
        let text = mutate(&disk_data("ibm18es.seek"), which, &by);
        let _ = diskspecs::parse_seek_curve("x.seek", &text);
    }
}

/// A trace line from awkward pieces.
fn field() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => value(),
        1 => prop::sample::select(&["R", "W", "Hit", "Seq", "Rand", "RA", "RM", "WS", "a-1", "\t"][..]).prop_map(str::to_string),
        1 => (0u64..100_000).prop_map(|x| x.to_string()),
    ]
}

fn lines(width: std::ops::Range<usize>) -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::collection::vec(field(), width).prop_map(|f| f.join(" ")),
        0..12,
    )
    .prop_map(|l| l.join("\n"))
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn validation_trace_reader_never_panics(text in lines(0..8)) {
        if let Ok(trace) = parse_trace("t", &text) {
            let m = presets::preset("ssd-sata").unwrap();
            let _ = validate("fuzz", &m, &trace);
            let m = presets::preset("maxtor-stm332061").unwrap();
            let _ = validate("fuzz", &m, &trace);
        }
    }

    #[test]
    fn startup_trace_reader_never_panics(text in lines(6..10), recorded in any::<bool>()) {
        if StartupTrace::parse("t", "t.trace", &text).is_ok() {
            // Replay what was accepted.
            let dir = std::env::temp_dir().join(format!("sluice-fuzz-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("t.trace"), &text).unwrap();
            let scenario = format!(
                "name = \"f\"\nduration_s = 1\n[device]\npreset = \"maxtor-stm332061\"\n[scheduler]\nname = \"bfq+\"\n[[flow]]\nname = \"s\"\npattern = \"startup\"\ntrace = \"t.trace\"\nreplay = \"{}\"\n",
                if recorded { "recorded" } else { "s-suite" }
            );
            if let Ok(s) = Scenario::parse(&dir.join("f.toml").display().to_string(), &scenario) {
                run_briefly(s);
            }
        }
    }
}

#[test]
fn mutation_finds_every_number_of_a_line() {
    let t = "a = 1\nb_2 = -3.5e2\nc = [80, 20]\n";
    let spans: Vec<&str> = numbers(t).into_iter().map(|(a, b)| &t[a..b]).collect();
    assert_eq!(spans, ["1", "-3.5e2", "80", "20"]);
}

proptest! {
    #![proptest_config(config(128))]

    /// The block-trace readers never panic, and what they accept places
    /// onto any space or is refused.
    #[test]
    fn block_trace_readers_never_panic(text in lines(0..8), which in 0usize..6, space in 1u64..1_000_000) {
        use sluice_workload::trace::{Format, Offsets, Trace};
        let (_, format) = Format::ALL[which];
        for header in ["", "fio version 3 iolog\n", "fio version 2 iolog\n"] {
            if let Ok(t) = Trace::parse("t", &format!("{header}{}", text.replace(' ', ",")), format) {
                for (_, o) in Offsets::ALL {
                    let _ = t.place(space, o);
                }
            }
            if let Ok(t) = Trace::parse("t", &format!("{header}{text}"), format) {
                for (_, o) in Offsets::ALL {
                    if let Ok(p) = t.place(space, o) {
                        prop_assert!(p.iter().all(|r| r.sector + u64::from(r.sectors) <= space));
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Generated structure

/// Line ends: `\n`, `\r\n`, a lone `\r`.
fn eol() -> impl Strategy<Value = &'static str> {
    prop::sample::select(&["\n", "\r\n", "\r"][..])
}

/// `lines` joined by `ends` (cycled), with a line end after the last one
/// when `last`.
fn join(lines: &[String], ends: &[&str], last: bool) -> String {
    let mut s = String::new();
    for (i, l) in lines.iter().enumerate() {
        s.push_str(l);
        if i + 1 < lines.len() || last {
            s.push_str(ends[i % ends.len()]);
        }
    }
    s
}

/// One line of trace format `which` (0..5: blkparse, fio iolog, MSR, SPC,
/// DiskSim; 5: a start-up trace), its fields awkward.
fn trace_line(which: usize) -> BoxedStrategy<String> {
    let pick = |s: &'static [&'static str]| prop::sample::select(s);
    match which {
        0 => (
            (0u8..2, num(), num(), num()),
            (
                pick(&["Q", "Q", "D", "C", "G"]),
                pick(&["R", "W", "RA", "WS", "D", "FWS", "N"]),
            ),
            (num(), num()),
        )
            .prop_map(|((dev, seq, time, pid), (act, rwbs), (sector, count))| {
                format!("  8,{dev} 1 {seq} {time} {pid} {act} {rwbs} {sector} + {count} [app]")
            })
            .boxed(),
        1 => (
            num(),
            0u8..3,
            pick(&["read", "write", "add", "open", "close", "trim", "wait"]),
            num(),
            num(),
        )
            .prop_map(|(t, f, a, off, len)| format!("{t} f{f} {a} {off} {len}"))
            .boxed(),
        2 => (
            num(),
            pick(&["", ".5", ".25", ".x"]),
            num(),
            pick(&["Read", "Write", "x"]),
            num(),
            num(),
            num(),
        )
            .prop_map(|(t, frac, disk, ty, off, size, resp)| {
                format!("{t}{frac},hm,{disk},{ty},{off},{size},{resp}")
            })
            .boxed(),
        3 => (num(), num(), num(), pick(&["r", "w", "x"]), num())
            .prop_map(|(asu, lba, size, op, t)| format!("{asu},{lba},{size},{op},{t}"))
            .boxed(),
        4 => (pick(&["R", "W", "X"]), num(), num(), num(), num())
            .prop_map(|(rw, lbn, n, resp, gap)| format!("{rw} Hit {lbn} {n} {resp} {gap}"))
            .boxed(),
        _ => (
            (0u8..3, num(), num(), num()),
            (
                pick(&["Rand", "Seq"]),
                num(),
                num(),
                pick(&["RA", "RM", "R", "WS", "X"]),
                num(),
            ),
        )
            .prop_map(|((k, think, n, sector), (how, a, b, act, t))| {
                format!("a-{k} {think} {n} {sector} {how} {a} {b} {act} {t} C")
            })
            .boxed(),
    }
}

/// What reading `text` as format `which` gives: the requests, or the
/// error's line and message.
fn read_as(which: usize, text: &str) -> Result<String, (Option<usize>, String)> {
    use sluice_workload::trace::{Format, Trace};
    let shown = |e: sluice_sim::Error| (e.line, e.message);
    let formats = [
        Format::Blkparse,
        Format::FioIolog,
        Format::Msr,
        Format::Spc,
        Format::Disksim,
    ];
    match which {
        0..=4 => Trace::parse("t", text, formats[which])
            .map(|t| format!("{:?}", t.requests))
            .map_err(shown),
        _ => StartupTrace::parse("t", "t", text)
            .map(|t| format!("{:?}", t.records))
            .map_err(shown),
    }
}

proptest! {
    #![proptest_config(config(128))]

    /// Every trace reader on its own format's lines, awkward numbers in
    /// every field: no panic, a one-line error naming a line of the text,
    /// and the same result whatever the line ends (defect 16).
    #[test]
    fn structured_trace_lines_never_panic_and_line_ends_do_not_matter(
        (which, lines) in (0usize..6).prop_flat_map(|w| (Just(w), prop::collection::vec(trace_line(w), 0..10))),
        ends in prop::collection::vec(eol(), 1..4),
        last in any::<bool>(),
    ) {
        let header = if which == 1 { vec!["fio version 3 iolog".to_string()] } else { vec![] };
        let lines: Vec<String> = header.into_iter().chain(lines).collect();
        let start = std::time::Instant::now();
        let lf = read_as(which, &join(&lines, &["\n"], true));
        let mixed = read_as(which, &join(&lines, &ends, last));
        if let Err((line, m)) = &lf {
            prop_assert!(!m.contains('\n'), "{m}");
            prop_assert!(line.is_none_or(|l| l >= 1 && l <= lines.len()), "{line:?} of {}", lines.len());
        }
        prop_assert_eq!(&lf, &mixed);
        if which == 4 {
            let _ = parse_trace("t", &join(&lines, &ends, last));
        }
        prop_assert!(start.elapsed() < CASE_LIMIT);
    }
}

/// A DiskSim parameter value, generated: a number, a word, a list, a
/// block, or `source` of one of the generated files.
#[derive(Clone, Debug)]
enum Value {
    Scalar(String),
    List(Vec<Value>),
    Block(String, Vec<(String, Value)>),
    Source(usize),
}

/// How many `.model` files a description may source.
const MODELS: usize = 4;

fn disksim_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        4 => num().prop_map(Value::Scalar),
        1 => prop::sample::select(&["none", "x.seek", "extracted", "ibm18es.seek"][..]).prop_map(|s| Value::Scalar(s.into())),
        2 => (0..MODELS).prop_map(Value::Source),
    ];
    leaf.prop_recursive(12, 96, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::List),
            (
                prop::sample::select(&["", "blk", "dm_disk", "disksim_disk"][..]),
                prop::collection::vec(("[A-Za-z][A-Za-z ]{0,6}", inner), 0..6),
            )
                .prop_map(|(ty, e)| Value::Block(ty.to_string(), e)),
        ]
    })
}

/// `v` as DiskSim text, its lines ended by `eol`.
fn render(v: &Value, eol: &str) -> String {
    match v {
        Value::Scalar(s) => s.clone(),
        Value::Source(k) => format!("source m{k}.model"),
        Value::List(items) => {
            let items: Vec<String> = items.iter().map(|i| render(i, eol)).collect();
            format!("[ {} ]", items.join(", "))
        }
        Value::Block(ty, entries) => {
            let e: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{k} = {}", render(v, eol)))
                .collect();
            format!("{ty} {{{eol}{}{eol}}}", e.join(&format!(",{eol}")))
        }
    }
}

proptest! {
    #![proptest_config(config(64))]

    /// A drive description with a generated parameter, whose `.model`
    /// files (written to a directory and read from there) nest, repeat
    /// and source each other, cycles included: an error or a drive, never
    /// a panic, bounded in time (defects 4, 5, 7, 16).
    #[test]
    fn generated_descriptions_and_includes_never_panic(
        junk in disksim_value(),
        models in prop::collection::vec(disksim_value(), MODELS),
        end in eol(),
    ) {
        let dir = std::env::temp_dir().join(format!(
            "sluice-fuzz-ds-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        for f in ["ibm18es.model", "ibm18es.seek"] {
            std::fs::write(dir.join(f), disk_data(f)).unwrap();
        }
        for (k, m) in models.iter().enumerate() {
            let body = match m {
                Value::Block(..) => render(m, end),
                other => format!("blk B {{ v = {} }}", render(other, end)),
            };
            std::fs::write(dir.join(format!("m{k}.model")), format!("{body}{end}")).unwrap();
        }
        let specs = disk_data("ibm18es.diskspecs").replacen(
            "Model = source ibm18es.model,",
            &format!("Model = source ibm18es.model,\n   Junk = {},", render(&junk, end)),
            1,
        );
        std::fs::write(dir.join("x.diskspecs"), specs.replace('\n', end)).unwrap();
        let start = std::time::Instant::now();
        let got = diskspecs::load(&dir.join("x.diskspecs"));
        prop_assert!(start.elapsed() < CASE_LIMIT, "{:?}", start.elapsed());
        if let Err(e) = got {
            let m = e.to_string();
            prop_assert!(!m.contains('\n') && !m.trim_end().ends_with(':'), "{m}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Lists and blocks nested up to far past the limit, closed or not:
    /// an error naming the limit past it, never a stack overflow.
    #[test]
    fn deep_nesting_never_overflows(
        openers in prop::collection::vec(prop::sample::select(&["[", "{ k = ", "t { k = ", "[1, ", "[ source m.model, "][..]), 0..400),
        closed in any::<bool>(),
        end in eol(),
    ) {
        let close: String = openers.iter().rev().map(|o| if o.contains('{') { "}" } else { "]" }).collect();
        let text = format!(
            "disksim_disk X {{{end} a = {}1{}{end}}}{end}",
            openers.concat(),
            if closed { close.as_str() } else { "" }
        );
        let inner = format!("blk B {{ v = {}1{} }}", openers.concat(), close);
        let start = std::time::Instant::now();
        let e = diskspecs::parse_str("x.diskspecs", &text, |_| Some(inner.clone())).unwrap_err();
        prop_assert!(start.elapsed() < CASE_LIMIT);
        let m = e.to_string();
        prop_assert!(!m.contains('\n'), "{m}");
        // Past the limit, the nesting is named (or first the includes,
        // which nest too: the inner file sources itself).
        if openers.len() >= 64 {
            prop_assert!(m.contains("nest more than 64 deep") || m.contains("includes nest too deeply"), "{m}");
        }
    }
}

// ---------------------------------------------------------------------------
// Groups, limits and the cost model

/// A value for a QoS or cost key: mostly plausible, so that scenarios run.
fn qos_value() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (0u32..2000).prop_map(|x| x.to_string()),
        2 => (0u32..100, 1u32..1000).prop_map(|(a, b)| format!("{a}.{b}")),
        1 => num(),
    ]
}

const QOS_KEYS: &[&str] = &[
    "weight",
    "reservation_iops",
    "limit_iops",
    "limit_mb_s",
    "burst_ms",
];

const POLICIES: &[&str] = &[
    "noop",
    "clook",
    "cfq",
    "bfq",
    "bfq+",
    "yfq",
    "mclock",
    "seastar-fq",
    "vios",
    "deadline",
    "dor",
    "bsd",
    "nope",
];

/// Names a group or a flow's `group` may give besides a generated group's
/// (`gN`): repeated, empty, or naming no group.
const GROUP_NAMES: &[&str] = &["g0", "g1", "", "none", "g0\u{202e}"];

/// A reference to a group: the `k`th (mod how many there are; an earlier
/// one mostly, for a parent) or, now and then, a junk name.
fn group_ref() -> impl Strategy<Value = Result<usize, &'static str>> {
    prop_oneof![9 => any::<usize>().prop_map(Ok), 1 => prop::sample::select(GROUP_NAMES).prop_map(Err)]
}

/// The name `r` gives among `n` groups, seen from group `from` (a parent
/// is an earlier group, unless `any`: itself, a later one, a cycle).
fn group_name(r: &Result<usize, &str>, n: usize, from: Option<usize>, any: bool) -> String {
    match (r, from) {
        (Err(junk), _) => (*junk).to_string(),
        (Ok(k), Some(i)) if !any && i > 0 => format!("g{}", k % i),
        (Ok(k), _) => format!("g{}", k % n.max(1)),
    }
}

/// QoS keys with generated values (a weight mostly whole), as lines.
fn qos_lines() -> impl Strategy<Value = String> {
    let weight = prop_oneof![6 => (1u32..1000).prop_map(|x| x.to_string()), 1 => qos_value()];
    (
        prop::option::of(weight),
        prop::collection::btree_map(prop::sample::select(&QOS_KEYS[1..]), qos_value(), 0..4),
    )
        .prop_map(|(weight, kv)| {
            let mut lines: String = kv.iter().map(|(k, v)| format!("{k} = {v}\n")).collect();
            if let Some(w) = weight {
                lines.push_str(&format!("weight = {w}\n"));
            }
            lines
        })
}

/// A `[[group]]`: a junk name now and then, a parent, its QoS keys and
/// maybe a policy of its own.
type GroupSpec = (
    Option<&'static str>,
    Option<(Result<usize, &'static str>, bool)>,
    String,
    Option<&'static str>,
);

fn group_spec() -> impl Strategy<Value = GroupSpec> {
    (
        prop::option::weighted(0.05, prop::sample::select(GROUP_NAMES)),
        prop::option::of((group_ref(), prop::bool::weighted(0.1))),
        qos_lines(),
        prop::option::of(prop::sample::select(POLICIES)),
    )
}

/// Group `i` of `n` as TOML.
fn group_table(i: usize, n: usize, (junk, parent, qos, policy): &GroupSpec) -> String {
    let name = junk.map_or(format!("g{i}"), str::to_string);
    let mut t = format!("[[group]]\nname = \"{name}\"\n{qos}");
    if let Some((p, any)) = parent.as_ref().filter(|_| i > 0 || junk.is_some()) {
        t.push_str(&format!(
            "parent = \"{}\"\n",
            group_name(p, n, Some(i), *any)
        ));
    }
    if let Some(p) = policy {
        t.push_str(&format!("scheduler = \"{p}\"\n"));
    }
    t
}

/// A `[[flow]]`'s keys (its name and group aside), and its group.
fn flow_table() -> impl Strategy<Value = (String, Option<Result<usize, &'static str>>)> {
    (
        prop::sample::select(&["rand-read", "seq-read", "seq-write", "rand-write"][..]),
        prop::option::of(group_ref()),
        qos_lines(),
        any::<bool>(),
    )
        .prop_map(|(pattern, group, qos, direct)| {
            let t = format!("pattern = \"{pattern}\"\nfile_gib = 1\ndirect = {direct}\n{qos}");
            (t, group)
        })
}

/// A `[cost]` table with some of its keys.
fn cost_table() -> impl Strategy<Value = String> {
    let keys = &[
        "read_seq_us",
        "read_rand_us",
        "write_seq_us",
        "write_rand_us",
        "per_kib_us",
        "seq_threshold_kib",
    ][..];
    prop::collection::btree_map(prop::sample::select(keys), qos_value(), 0..7).prop_map(|kv| {
        format!(
            "[cost]\n{}",
            kv.iter()
                .map(|(k, v)| format!("{k} = {v}\n"))
                .collect::<String>()
        )
    })
}

proptest! {
    #![proptest_config(config(64))]

    /// Generated group trees (cycles, self-parents, missing and repeated
    /// names, a policy per group), limits, reservations and bursts on
    /// groups and flows, and a `[cost]` table charged or not: an error in
    /// one line naming the file, or a scenario that runs.
    #[test]
    fn generated_groups_limits_and_costs_never_panic(
        policy in prop::sample::select(POLICIES),
        charge in prop::option::of(prop::sample::select(&["sectors", "time", "cost", "ios", "x"][..])),
        at_limit in prop::option::of(prop::sample::select(&["wait", "allow", "x"][..])),
        anywhere in prop::bool::weighted(0.1),
        device in prop::sample::select(&["preset = \"ssd-sata\"", "preset = \"maxtor-stm332061\"",
            "model = \"rate\"\nread_iops = 1000\nwrite_mb_s = 100"][..]),
        groups in prop::collection::vec(group_spec(), 0..5),
        flows in prop::collection::vec(flow_table(), 1..4),
        cost in prop::option::of(cost_table()),
    ) {
        // Parameters where the policy takes them (mostly).
        let mut scheduler = format!("[scheduler]\nname = \"{policy}\"\n");
        if let Some(c) = charge.filter(|_| ["bfq", "bfq+", "yfq", "mclock"].contains(&policy) || anywhere) {
            scheduler.push_str(&format!("charge = \"{c}\"\n"));
        }
        if let Some(a) = at_limit.filter(|_| policy == "mclock" || anywhere) {
            scheduler.push_str(&format!("at_limit = \"{a}\"\n"));
        }
        let text = format!(
            "name = \"tree\"\nduration_s = 1\n[device]\n{device}\n{scheduler}{}{}{}",
            cost.unwrap_or_default(),
            groups.iter().enumerate().map(|(i, g)| group_table(i, groups.len(), g)).collect::<String>(),
            flows
                .iter()
                .enumerate()
                .map(|(i, (f, g))| {
                    let group = g.as_ref().map_or(String::new(), |g| {
                        format!("group = \"{}\"\n", group_name(g, groups.len(), None, true))
                    });
                    format!("[[flow]]\nname = \"f{i}\"\n{f}{group}")
                })
                .collect::<String>()
        );
        let start = std::time::Instant::now();
        match Scenario::parse("tree.toml", &text) {
            Ok(s) => run_briefly(s),
            Err(e) => {
                let m = e.to_string();
                prop_assert!(!m.contains('\n') && m.starts_with("tree.toml"), "{m}");
            }
        }
        prop_assert!(start.elapsed() < CASE_LIMIT, "{:?}", start.elapsed());
    }
}
