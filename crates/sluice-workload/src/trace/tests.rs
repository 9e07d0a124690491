use super::*;

fn fixture(name: &str) -> String {
    let path = format!("{}/../../data/traces/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn read(name: &str, format: Format) -> Trace {
    Trace::parse(name, &fixture(name), format).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn blkparse_counts_each_queued_request_once() {
    let t = read("app.blkparse", Format::Blkparse);
    // Six reads and writes, each queued once; the discard, the flush,
    // the G/I/D/C events and the summary are not requests.
    assert_eq!(t.requests.len(), 6);
    let first = t.requests[0];
    assert_eq!((first.sector, first.sectors, first.write), (2048, 8, false));
    assert_eq!(first.at, Duration::ZERO);
    // 0.0009 s after the first queue event.
    assert_eq!(t.requests[1].at, Duration::from_micros(800));
    assert_eq!(t.requests.iter().filter(|r| r.write).count(), 2);
    // Read-ahead (RA) and sync writes (WS) count as reads and writes.
    assert_eq!(t.requests[3].sectors, 256);
}

#[test]
fn fio_iolog_reads_what_fio_wrote() {
    let t = read("fio-randrw.iolog", Format::FioIolog);
    assert_eq!(t.requests.len(), 24);
    assert_eq!(t.requests.iter().filter(|r| r.write).count(), 7);
    assert!(t.requests.iter().all(|r| r.sectors == 8));
    // fio's first read is at byte 1011712; its gaps are the 2 ms think
    // time plus the read, in microseconds.
    assert_eq!(t.requests[0].sector, 1011712 / 512);
    let gap = t.requests[1].at - t.requests[0].at;
    assert!(
        gap >= Duration::from_millis(2) && gap < Duration::from_millis(10),
        "{gap:?}"
    );
}

#[test]
fn fio_iolog_version_2_has_no_times_and_lays_files_end_to_end() {
    let text =
        "fio version 2 iolog\na add\nb add\na read 0 4096\nb write 512 1024\na read 8192 4096\n";
    let t = Trace::parse("v2", text, Format::FioIolog).unwrap();
    assert_eq!(t.requests.len(), 3);
    assert!(t.requests.iter().all(|r| r.at == Duration::ZERO));
    // File a reaches byte 12288 (sector 24); b starts there.
    assert_eq!(t.requests[1].sector, 24 + 1);
    assert!(t.requests[1].write);
}

#[test]
fn msr_reads_file_time_bytes_and_types() {
    let t = read("hm_0-sample.csv", Format::Msr);
    assert_eq!(t.requests.len(), 10);
    // 2,500 ticks of 100 ns apart.
    assert_eq!(t.requests[1].at, Duration::from_micros(250));
    assert_eq!(t.requests[1].sector, 4096 * 7919 / 512);
    assert_eq!(t.requests[1].sectors, 16);
    assert!(t.requests[0].write && !t.requests[1].write);
}

#[test]
fn spc_lays_asus_end_to_end() {
    let t = read("financial-sample.spc", Format::Spc);
    assert_eq!(t.requests.len(), 10);
    // ASU 0 reaches block 1000 + 97 * 8 + 1; ASU 1 starts after it.
    let asu0_end = (0..10)
        .step_by(2)
        .map(|i| 1000 + 97 * i + (1 + i % 8))
        .max()
        .unwrap();
    assert_eq!(t.requests[1].sector, asu0_end + 1097);
    assert_eq!(t.requests[1].at, Duration::from_micros(1500));
    assert_eq!(t.requests[2].sectors, 3);
    assert!(t.requests[0].write && !t.requests[1].write);
}

#[test]
fn disksim_arrivals_are_the_summed_gaps() {
    let t = read("ibm18es-head.disksim", Format::Disksim);
    assert_eq!(t.requests.len(), 12);
    assert_eq!((t.requests[0].sector, t.requests[0].sectors), (17317516, 4));
    // The first arrival is the time origin; the next is its gap later.
    assert_eq!(t.requests[1].at, Duration::from_micros(48203));
}

#[test]
fn bad_lines_are_errors_naming_file_and_line() {
    let cases = [
        (
            Format::Blkparse,
            "  8,0 1 1 0.1 9 Q R x + 8 [a]\n",
            "line 1",
            "sector",
        ),
        (
            Format::Msr,
            "1,h,0,Read,0,4096,1\n2,h,0,Erase,0,4096,1\n",
            "line 2",
            "Type: expected Read or Write, got 'Erase'",
        ),
        (
            Format::Spc,
            "0,1,512,r,0.1\n0,1,512,r\n",
            "line 2",
            "got 4 fields",
        ),
        (Format::Spc, "0,1,0x10,r,0.1\n", "line 1", "Size"),
        (
            Format::FioIolog,
            "fio version 9 iolog\n",
            "line 1",
            "header",
        ),
        (
            Format::FioIolog,
            "fio version 3 iolog\n5 f read 0\n",
            "line 2",
            "offset and a length",
        ),
        (
            Format::FioIolog,
            "fio version 3 iolog\n5 f scrub 0 1\n",
            "line 2",
            "scrub",
        ),
        (
            Format::Msr,
            "1,h,0,Read,0,999999999999,1\n",
            "line 1",
            "64 MiB",
        ),
        (Format::Blkparse, "garbage only\n", "t", "no read or write"),
        (
            Format::Blkparse,
            "253,0 1 1 0.1 9 Q R 8 + 8 [a]\n  8,0 1 2 0.1 9 Q R 16 + 8 [a]\n",
            "line 2",
            "device 8,0 in a trace of device 253,0",
        ),
    ];
    for (format, text, at, what) in cases {
        let e = Trace::parse("t", text, format).unwrap_err().to_string();
        assert!(
            e.starts_with("t: ") && e.contains(at) && e.contains(what),
            "{format:?}: {e}"
        );
    }
}

fn trace(sectors: &[(u64, u32)]) -> Trace {
    Trace {
        name: "t".into(),
        requests: sectors
            .iter()
            .enumerate()
            .map(|(i, &(sector, sectors))| Request {
                at: Duration::ZERO,
                sector,
                sectors,
                write: false,
                line: i as u32 + 1,
                source: 0,
            })
            .collect(),
        sources: Vec::new(),
    }
}

#[test]
fn offsets_beyond_the_space_are_refused_wrapped_or_scaled() {
    let t = trace(&[(0, 8), (500, 8), (992, 8)]);
    // All inside 1000 sectors: unchanged by any policy.
    for o in [Offsets::Error, Offsets::Wrap, Offsets::Scale] {
        assert_eq!(t.place(1000, o).unwrap(), t.requests);
    }
    let e = t.place(600, Offsets::Error).unwrap_err().to_string();
    assert!(e.contains("line 3") && e.contains("sector 992"), "{e}");
    let wrapped: Vec<u64> = t
        .place(600, Offsets::Wrap)
        .unwrap()
        .iter()
        .map(|r| r.sector)
        .collect();
    assert_eq!(wrapped, vec![0, 500, 392]);
    let scaled: Vec<u64> = t
        .place(600, Offsets::Scale)
        .unwrap()
        .iter()
        .map(|r| r.sector)
        .collect();
    // 1000 sectors onto 600: every offset times 0.6, the last kept inside.
    assert_eq!(scaled, vec![0, 300, 592]);
    // A request larger than the space fits no policy.
    assert!(trace(&[(0, 64)]).place(32, Offsets::Scale).is_err());
}

#[test]
fn arrivals_are_sorted_and_start_at_zero() {
    let text = "1000,h,0,Read,0,512,1\n500,h,0,Read,512,512,1\n";
    let t = Trace::parse("t", text, Format::Msr).unwrap();
    assert_eq!(t.requests[0].at, Duration::ZERO);
    assert_eq!(t.requests[0].line, 2);
    assert_eq!(t.requests[1].at, Duration::from_nanos(50_000));
}

#[test]
fn format_timing_and_offsets_names_round_trip() {
    for (n, f) in Format::ALL {
        assert_eq!(Format::parse(n), Some(f));
        assert_eq!(f.name(), n);
    }
    assert_eq!(Timing::parse("recorded"), Some(Timing::Recorded));
    assert_eq!(Offsets::parse("scale"), Some(Offsets::Scale));
    assert_eq!(Format::parse("csv"), None);
}

/// Issue 24, defect 3: `sector + count` near 2^64 wrapped past the bound
/// check (release builds have no overflow checks), and `count * 512`
/// wrapped a huge count to a 1-sector request. Both are now errors naming
/// the line.
#[test]
fn sectors_and_counts_near_2_to_the_64_are_refused_not_wrapped() {
    let wrap = "  8,0    1        1    0.1  4242  Q    W 18446744073709543424 + 8192 [app]\n";
    let e = Trace::parse("w.trace", wrap, Format::Blkparse)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("w.trace: line 1: sector: "), "{e}");
    let huge = "  8,0    1        1    0.1  4242  Q    R 0 + 36028797018963969 [app]\n";
    let e = Trace::parse("h.trace", huge, Format::Blkparse)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("h.trace: line 1: count: "), "{e}");
    // place() itself: a sector near 2^64 lies beyond the space, whatever
    // the reader let through.
    let t = trace(&[(u64::MAX - 4095, 8192)]);
    let e = t.place(1 << 20, Offsets::Error).unwrap_err().to_string();
    assert!(e.contains("line 1") && e.contains("beyond"), "{e}");
    assert_eq!(t.end(), u64::MAX);
    // Files laid end to end past any device: an error, not a wrap.
    let log = "fio version 2 iolog\na add\nb add\na read 9223372036854000000 4096\nb read 9223372036854000000 4096\n";
    let e = Trace::parse("l", log, Format::FioIolog)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("l: line 5: "), "{e}");
    // An arrival more than a year after the first (fio's v3 times in us).
    let log = "fio version 3 iolog\n0 a add\n0 a read 0 4096\n18446744073709551 a read 0 4096\n";
    let e = Trace::parse("l", log, Format::FioIolog)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("l: line 4: "), "{e}");
}

#[test]
fn mqsim_reads_the_shipped_traces() {
    let dir = format!(
        "{}/../sluice-repro/data/mqsim/wsrch/traces",
        env!("CARGO_MANIFEST_DIR")
    );
    let w = Trace::load(
        std::path::Path::new(&format!("{dir}/wsrch-small.trace")),
        Format::Mqsim,
    )
    .unwrap();
    // 24,782 line breaks; the last line has none.
    assert_eq!(w.requests.len(), 24783);
    // The first line: `11413000 0 657728 16 1`, a read; the second 152 us on.
    let r = w.requests[0];
    assert_eq!(
        (r.sector, r.sectors, r.write, r.at),
        (657728, 16, false, Duration::ZERO)
    );
    assert_eq!(
        w.requests[1].at,
        Duration::from_nanos(11_565_000 - 11_413_000)
    );
    let t = Trace::load(
        std::path::Path::new(&format!("{dir}/tpcc-small.trace")),
        Format::Mqsim,
    )
    .unwrap();
    assert_eq!(t.requests.len(), 6999);
    assert!(t.requests[0].write);
}

#[test]
fn mqsim_reads_numbers_as_strtoull_with_base_0() {
    let text = "0 dev 0x10 010 0\n5 dev 17 8 1\n\n\n";
    let t = Trace::parse("m", text, Format::Mqsim).unwrap();
    let got: Vec<(u64, u32, bool)> = t
        .requests
        .iter()
        .map(|r| (r.sector, r.sectors, r.write))
        .collect();
    assert_eq!(got, vec![(16, 8, true), (17, 8, false)]);
    assert_eq!(t.requests[1].at, Duration::from_nanos(5));
}

#[test]
fn mqsim_bad_lines_are_errors_naming_file_and_line() {
    for (text, line, says) in [
        ("1 0 0 8 1\n\n2 0 0 8 1\n", "line 3", "blank line 2"),
        ("1 0 0 8\n", "line 1", "got 4 fields"),
        ("1 0 0 8 1 9\n", "line 1", "got 6 fields"),
        ("5 0 0 8 1\n4 0 0 8 1\n", "line 2", "before the line above"),
        ("1.5 0 0 8 1\n", "line 1", "whole nanoseconds"),
        ("-1 0 0 8 1\n", "line 1", "whole nanoseconds"),
        ("1 0 -8 8 1\n", "line 1", "lba: expected a number"),
        ("1 0 0x 8 1\n", "line 1", "lba: expected a number"),
        ("1 0 09 8 1\n", "line 1", "lba: expected a number"),
        ("1 0 99999999999999999999 8 1\n", "line 1", "lba"),
        ("1 0 36028797018963968 8 1\n", "line 1", "beyond any device"),
        ("1 0 0 0 1\n", "line 1", "size_sectors: 0"),
        ("1 0 0 131073 1\n", "line 1", "size_sectors: 131073"),
        ("1 0 0 8 2\n", "line 1", "expected 0 (write) or 1 (read)"),
        ("1 0 0 8 W\n", "line 1", "got 'W'"),
        ("99999999999999999999 0 0 8 1\n", "line 1", "time"),
        ("32000000000000001 0 0 8 1\n", "line 1", "more than a year"),
        ("", "m", "no read or write"),
        ("\n\n", "m", "no read or write"),
    ] {
        let e = Trace::parse("m", text, Format::Mqsim)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("m") && e.contains(line) && e.contains(says) && !e.contains('\n'),
            "{text:?}: {e}"
        );
    }
}

#[test]
fn mqsim_fold_keeps_up_to_space_less_one_and_folds_modulo_it() {
    // Space 1000: MQSim's end - start is 999.
    let t = trace(&[(999, 1), (1000, 8), (2500, 8), (995, 8)]);
    let placed: Vec<u64> = t
        .place(1000, Offsets::Mqsim)
        .unwrap()
        .iter()
        .map(|r| r.sector)
        .collect();
    // 999 kept; 1000 % 999 = 1; 2500 % 999 = 502; 995 + 8 runs past: moved
    // back to end at 1000.
    assert_eq!(placed, vec![999, 1, 502, 992]);
    // A space of one sector folds everything to 0.
    let one = trace(&[(7, 1)]).place(1, Offsets::Mqsim).unwrap();
    assert_eq!(one[0].sector, 0);
    assert_eq!(Offsets::parse("mqsim"), Some(Offsets::Mqsim));
}

fn split(name: &str, format: Format, split: Split, seed: u64) -> Trace {
    Trace::parse_with(name, &fixture(name), format, ReadOptions { split, seed })
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Requests per source, by source name.
fn per_source(t: &Trace) -> Vec<(String, usize)> {
    let mut n = vec![0; t.sources.len()];
    for r in &t.requests {
        n[r.source as usize] += 1;
    }
    t.sources.iter().cloned().zip(n).collect()
}

#[test]
fn alibaba_reads_bytes_and_microseconds_and_splits_by_volume() {
    let t = read("alibaba-sample.csv", Format::Alibaba);
    assert_eq!(t.requests.len(), 24);
    assert!(t.sources.is_empty());
    // Line 1: 7,W,70807552,16384,1577808000000900.
    let first = t.requests[0];
    assert_eq!(
        (first.sector, first.sectors, first.write),
        (70807552 / 512, 32, true)
    );
    // Line 2 arrives 480 µs later.
    assert_eq!(t.requests[1].at, Duration::from_micros(480));
    let v = split("alibaba-sample.csv", Format::Alibaba, Split::Volume, 1);
    assert_eq!(
        per_source(&v),
        [("7".into(), 8), ("213".into(), 8), ("640".into(), 8)]
    );
    assert_eq!(v.requests[1].source, 1);
    for (text, says) in [
        ("1,R,0,4096\n", "got 4 fields"),
        ("1,X,0,4096,5\n", "opcode: expected R or W"),
        ("1,R,-5,4096,5\n", "offset: expected a number"),
        ("1,R,0,4096,5\n1,R,0,4096,5,6\n", "line 2"),
    ] {
        let e = Trace::parse("a", text, Format::Alibaba)
            .unwrap_err()
            .to_string();
        assert!(e.contains(says), "{text:?}: {e}");
    }
}

#[test]
fn tencent_spreads_a_seconds_arrivals_by_the_seed() {
    let a = split("tencent-sample.csv", Format::Tencent, Split::Volume, 1);
    assert_eq!(a.requests.len(), 20);
    assert_eq!(
        per_source(&a),
        [("1063".into(), 7), ("1107".into(), 7), ("2951".into(), 6)]
    );
    // Sectors, sizes and directions as written (line 2: 68408616, 8, write).
    let l2 = a.requests.iter().find(|r| r.line == 2).unwrap();
    assert_eq!((l2.sector, l2.sectors, l2.write), (68408616, 8, true));
    // Each request stays inside its second (the first request's second is
    // the trace's second 0, so line k's second is `(k - 2) / 6`).
    let t0 = 1538323200u64;
    let text = fixture("tencent-sample.csv");
    let secs: Vec<u64> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().parse::<u64>().unwrap() - t0)
        .collect();
    let first_ns = a.requests.iter().map(|r| r.at).min().unwrap();
    assert_eq!(first_ns, Duration::ZERO);
    let mut by_line = a.requests.clone();
    by_line.sort_by_key(|r| r.line);
    // Arrivals are from the first; within a second their order is drawn.
    let offset0 = {
        let t = Trace::parse_with(
            "x",
            "1,0,8,0,9\n",
            Format::Tencent,
            ReadOptions {
                split: Split::One,
                seed: 1,
            },
        )
        .unwrap();
        t.requests[0].at
    };
    assert_eq!(offset0, Duration::ZERO);
    for w in by_line.windows(2) {
        let (s0, s1) = (secs[w[0].line as usize - 2], secs[w[1].line as usize - 2]);
        if s1 > s0 {
            assert!(w[1].at > w[0].at, "{w:?}");
        }
    }
    let span = a.requests.last().unwrap().at;
    assert!(
        span < Duration::from_secs(secs.last().unwrap() + 1),
        "{span:?}"
    );
    // The same seed, the same arrivals; another seed, others.
    let b = split("tencent-sample.csv", Format::Tencent, Split::Volume, 1);
    let c = split("tencent-sample.csv", Format::Tencent, Split::Volume, 2);
    assert_eq!(a, b);
    assert_ne!(a.requests, c.requests);
    let e = Trace::parse("t", "1,0,8,2,9\n", Format::Tencent)
        .unwrap_err()
        .to_string();
    assert!(e.contains("IOType: expected 0 (read) or 1 (write)"), "{e}");
}

#[test]
fn fiu_splits_by_process_or_by_device() {
    let t = read("fiu-sample.trace", Format::Fiu);
    assert_eq!(t.requests.len(), 18);
    assert_eq!(t.requests.iter().filter(|r| r.write).count(), 6);
    assert!(t.requests.iter().all(|r| r.sectors == 8));
    // 5 µs between the first two lines.
    assert_eq!(t.requests[1].at, Duration::from_micros(5));
    let p = split("fiu-sample.trace", Format::Fiu, Split::Process, 1);
    assert_eq!(
        per_source(&p),
        [
            ("nfsd-4362".into(), 6),
            ("nfsd-4363".into(), 6),
            ("syslogd-2010".into(), 6)
        ]
    );
    let v = split("fiu-sample.trace", Format::Fiu, Split::Volume, 1);
    assert_eq!(per_source(&v), [("8,16".into(), 5), ("8,0".into(), 13)]);
    let e = Trace::parse("f", "1 2 p 3 8 X 8 0 ab\n", Format::Fiu)
        .unwrap_err()
        .to_string();
    assert!(e.contains("op: expected R or W"), "{e}");
}

#[test]
fn ftrace_blk_counts_queue_events_of_a_real_capture() {
    let t = read("ftrace-blk-sample.txt", Format::FtraceBlk);
    // Recorded: dd read 5 x 4 KiB while another dd wrote 3 x 8 KiB.
    assert_eq!(t.requests.len(), 8);
    assert_eq!(t.requests.iter().filter(|r| r.write).count(), 3);
    assert!(t
        .requests
        .iter()
        .all(|r| r.sectors == if r.write { 16 } else { 8 }));
    let p = split(
        "ftrace-blk-sample.txt",
        Format::FtraceBlk,
        Split::Process,
        1,
    );
    let names: Vec<(String, usize)> = per_source(&p);
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names.iter().all(|(n, _)| n.starts_with("dd-")), "{names:?}");
    let v = split("ftrace-blk-sample.txt", Format::FtraceBlk, Split::Volume, 1);
    assert_eq!(v.sources.len(), 1);
    // A queue event without its sector is refused; other events are not requests.
    let bad = "  dd-1 [000] d..1. 1.5:   7,1    Q  RS\n";
    let e = Trace::parse("b", bad, Format::FtraceBlk)
        .unwrap_err()
        .to_string();
    assert!(e.contains("b:1") || e.contains("line 1"), "{e}");
    let other =
        "  dd-1 [000] d..1. 1.5:   7,1    D  RS 0 + 8 [dd]\n  dd-1 [000] 2.0: 7,1 Q R 8 + 8 [dd]\n";
    let t = Trace::parse("o", other, Format::FtraceBlk).unwrap();
    assert_eq!(t.requests.len(), 1);
    // A `(tgid)` after the task, a cgroup before the action, an uptime of
    // more than a year: read; a note of lost events: refused.
    let more =
        "  kworker/u8:2-77 (77) [001] ..... 40000000.000100: 7,1 1a,2 Q WS 16 + 8 [kworker/u8:2]\n\
                  dd-9 [000] 40000000.000200: 7,1 Q R 64 + 8 [dd]\n";
    let t = Trace::parse_with(
        "m",
        more,
        Format::FtraceBlk,
        ReadOptions {
            split: Split::Process,
            seed: 1,
        },
    )
    .unwrap();
    assert_eq!(t.sources, ["kworker/u8:2-77", "dd-9"]);
    assert_eq!(t.requests[1].at, Duration::from_micros(100));
    assert!(t.requests[0].write && t.requests[0].sector == 16);
    let lost = "CPU:1 [LOST 12 EVENTS]\n";
    let e = Trace::parse("l", lost, Format::FtraceBlk)
        .unwrap_err()
        .to_string();
    assert!(e.contains("lost events") && e.contains("line 1"), "{e}");
}

#[test]
fn streaming_a_file_reads_what_parsing_its_text_does() {
    for (name, format, split) in [
        ("alibaba-sample.csv", Format::Alibaba, Split::Volume),
        ("tencent-sample.csv", Format::Tencent, Split::Volume),
        ("fiu-sample.trace", Format::Fiu, Split::Process),
        ("ftrace-blk-sample.txt", Format::FtraceBlk, Split::Process),
        ("mqsim-sample.trace", Format::Mqsim, Split::Volume),
    ] {
        let path = format!("{}/../../data/traces/{name}", env!("CARGO_MANIFEST_DIR"));
        let options = ReadOptions { split, seed: 7 };
        let streamed = Trace::load_with(Path::new(&path), format, options).unwrap();
        let parsed = Trace::parse_with(&path, &fixture(name), format, options).unwrap();
        assert_eq!(streamed, parsed, "{name}");
    }
}

#[test]
fn a_split_the_format_cannot_make_is_refused() {
    let e = Trace::parse_with(
        "a",
        "1,R,0,4096,5\n",
        Format::Alibaba,
        ReadOptions {
            split: Split::Process,
            seed: 1,
        },
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("names no process") && e.contains("\"volume\""),
        "{e}"
    );
}

/// A reader's list becomes the trace's in place only if the two types are
/// laid out alike.
#[test]
fn a_raw_request_is_laid_out_as_a_request() {
    assert_eq!(std::mem::size_of::<Raw>(), std::mem::size_of::<Request>());
    assert_eq!(std::mem::align_of::<Raw>(), std::mem::align_of::<Request>());
    assert_eq!(std::mem::size_of::<Request>(), 32);
}

proptest::proptest! {
    /// No line makes a reader panic: each is a request, skipped, or a
    /// refusal naming its line. Lines are built from the formats' own
    /// pieces so that they get past the first checks.
    #[test]
    fn the_new_readers_never_panic(
        pieces in proptest::collection::vec(
            proptest::sample::select(vec![
                "0", "1", "R", "W", "RS", "WS", "Q", "D", "+", "8", ",", " ", "-", "[000]", "d..1.",
                "12.5:", "7,1", "[dd]", "18446744073709551615", "99999999999999999999", "-3",
                "4096", "x", "\t", "1538323200", "nfsd", ":", "#",
            ]),
            0..14,
        ),
        split in proptest::sample::select(vec![Split::One, Split::Volume, Split::Process]),
    ) {
        let line: String = pieces.concat();
        for format in [Format::Alibaba, Format::Tencent, Format::Fiu, Format::FtraceBlk, Format::Mqsim] {
            let _ = Trace::parse_with("p", &line, format, ReadOptions { split, seed: 3 });
            let two = format!("{line}\n{line}\n");
            let _ = Trace::parse_with("p", &two, format, ReadOptions { split, seed: 3 });
        }
    }
}

/// A real capture's binary files give the requests blkparse's text of
/// the same files gives (see data/traces/README.md for how it was made).
#[test]
fn blktrace_binary_reads_what_blkparse_prints() {
    let dir = format!("{}/../../data/traces", env!("CARGO_MANIFEST_DIR"));
    let bin = Trace::load(Path::new(&format!("{dir}/loop-capture")), Format::Blktrace).unwrap();
    let text = read("loop-capture.blkparse", Format::Blkparse);
    assert_eq!(bin.requests.len(), 40);
    let key = |t: &Trace| {
        let mut v: Vec<(Duration, u64, u32, bool)> = t
            .requests
            .iter()
            .map(|r| (r.at, r.sector, r.sectors, r.write))
            .collect();
        v.sort();
        v
    };
    assert_eq!(key(&bin), key(&text));
    let v = Trace::load_with(
        Path::new(&format!("{dir}/loop-capture")),
        Format::Blktrace,
        ReadOptions {
            split: Split::Volume,
            seed: 1,
        },
    )
    .unwrap();
    assert_eq!(v.sources, ["7,1"]);
}

#[test]
fn mqsim_splits_by_device() {
    let t = split("mqsim-sample.trace", Format::Mqsim, Split::Volume, 1);
    assert_eq!(t.requests.len(), 12);
    assert_eq!(per_source(&t), [("0".into(), 6), ("1".into(), 6)]);
    assert_eq!(t.requests.iter().filter(|r| r.write).count(), 4);
}
