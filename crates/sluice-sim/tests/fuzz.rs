//! Fuzzing in `cargo test`, bounded in time: no input makes the scenario
//! parser, the DiskSim parser or the trace readers panic, and what they
//! accept runs (briefly) without panicking. Inputs are the shipped files
//! with one number replaced by an awkward one (zero, negative, huge, NaN,
//! infinite, too many digits), or lines built from awkward pieces; proptest
//! shrinks a failure to the smallest such change. Structure is generated
//! too: nested lists and blocks (past the nesting limit), `source`
//! includes written to files (cycles and repeats), every trace format's
//! lines with wrapping numbers, and every kind of line end. Each property
//! is kept to a few seconds of a debug build, and each case to a bound;
//! `fuzz/` has cargo-fuzz targets for long runs.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::sample::Index;
use sluice::Duration;
use sluice_runtime::Scenario;
use sluice_sim::device::{diskspecs, presets, Model};
use sluice_sim::validate::{parse_trace, validate};
use sluice_workload::startup::StartupTrace;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: PathBuf) -> String {
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Awkward values for a number.
const BAD: &[&str] = &[
    "0",
    "-1",
    "1",
    "0.5",
    "-0.0",
    "1e300",
    "-1e300",
    "1e-300",
    "nan",
    "inf",
    "-inf",
    "18446744073709551616",
    "9223372036854775807",
    "4294967296",
    "99999999999",
    "1.3e11",
    "4000000000",
    "",
    "x",
    // Past u64 and i64, and near them: sums and products of these wrap.
    "18446744073709551615",
    "9223372036854775808",
    "18446744073709543424",
    "-9223372036854775808",
    "-18446744073709551616",
    "36028797018963968",
    "340282366920938463463374607431768211456",
];

/// Byte ranges of the numbers in `text` (not parts of words).
fn numbers(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts =
            b[i].is_ascii_digit() || (b[i] == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_digit));
        let after_word = i > 0
            && (b[i - 1].is_ascii_alphabetic() || b[i - 1] == b'_' || b[i - 1].is_ascii_digit());
        if starts && !after_word {
            let mut j = i + 1;
            while j < b.len()
                && (b[j].is_ascii_digit() || matches!(b[j], b'.' | b'e' | b'E' | b'+' | b'-'))
            {
                j += 1;
            }
            out.push((i, j));
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// `text` with its `which`th number replaced by `by`.
fn mutate(text: &str, which: Index, by: &str) -> String {
    let spans = numbers(text);
    if spans.is_empty() {
        return text.to_string();
    }
    let (a, b) = spans[which.index(spans.len())];
    format!("{}{by}{}", &text[..a], &text[b..])
}

/// A value to put in place of a number: an awkward one or any number.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(BAD).prop_map(str::to_string),
        1 => any::<f64>().prop_map(|x| x.to_string()),
        1 => any::<i64>().prop_map(|x| x.to_string()),
    ]
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        max_shrink_iters: 200,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Run an accepted scenario for a moment of simulated time.
fn run_briefly(mut s: Scenario) {
    let in_flight: u64 = s.flows.iter().map(|f| u64::from(f.outstanding)).sum();
    if s.flows.len() > 64 || in_flight > 4096 {
        // Accepted and bounded in memory (see check_memory); too slow for a
        // debug build's fuzz loop.
        return;
    }
    s.duration = s.duration.min(Duration::from_millis(100));
    s.warmup = Duration::from_nanos(0);
    let _ = sluice_sim::simulate(&s);
}

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
    fn block_trace_readers_never_panic(text in lines(0..8), which in 0usize..5, space in 1u64..1_000_000) {
        use sluice_workload::trace::{Format, Offsets, Trace};
        let (_, format) = Format::ALL[which];
        for header in ["", "fio version 3 iolog\n", "fio version 2 iolog\n"] {
            if let Ok(t) = Trace::parse("t", &format!("{header}{}", text.replace(' ', ",")), format) {
                for o in [Offsets::Error, Offsets::Wrap, Offsets::Scale] {
                    let _ = t.place(space, o);
                }
            }
            if let Ok(t) = Trace::parse("t", &format!("{header}{text}"), format) {
                for o in [Offsets::Error, Offsets::Wrap, Offsets::Scale] {
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

/// Longest a single case may take in a debug build: every reader is
/// bounded, so more is a hang in the making.
const CASE_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

/// A number a reader must survive: an awkward one, a small one, or one
/// that wraps a sum or a product.
fn num() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => value(),
        3 => (0u64..100_000).prop_map(|x| x.to_string()),
        1 => prop::sample::select(&[u64::MAX, 1 << 63, 18446744073709543424, (1 << 55) + 1, 1 << 32][..])
            .prop_map(|x| x.to_string()),
    ]
}

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
