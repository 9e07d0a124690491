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
