//! The trace readers' inputs: files that are no trace are refused before
//! they are read, every line end splits lines, and no request line is
//! taken for a header.

use std::path::Path;

use sluice_input::testkit::{refused, scratch};
use sluice_input::Kind;
use sluice_workload::startup::StartupTrace;
use sluice_workload::trace::{disksim, Format, Trace};

fn fixture(name: &str) -> String {
    let path = format!("{}/../../data/traces/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn one_line(e: &impl std::fmt::Display) -> String {
    let e = e.to_string();
    assert!(!e.contains('\n'), "{e}");
    e
}

/// Defect 7: `/dev/zero` as a trace was read until the memory ran out, a
/// FIFO blocked the run.
#[test]
fn special_and_oversized_trace_files_are_refused() {
    let dir = scratch("trace-inputs");
    for (path, words) in refused(&dir, Kind::Trace) {
        for format in [Format::Blkparse, Format::Msr, Format::Disksim] {
            let e = one_line(&Trace::load(&path, format).unwrap_err());
            assert!(e.contains(words), "{}: {e}", path.display());
        }
        let e = one_line(&disksim::load_trace(&path).unwrap_err());
        assert!(e.contains(words), "{}: {e}", path.display());
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Defect 7, start-up traces: the same refusals, through `resolve`.
#[test]
fn special_and_oversized_startup_traces_are_refused() {
    let dir = scratch("startup-inputs");
    for (path, words) in refused(&dir, Kind::StartupTrace) {
        let e =
            one_line(&StartupTrace::resolve(path.to_str().unwrap(), Path::new("/")).unwrap_err());
        assert!(e.contains(words), "{}: {e}", path.display());
    }
    let e = StartupTrace::resolve("no-such", &dir)
        .unwrap_err()
        .to_string();
    assert!(e.contains("not an embedded trace"), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Defect 16: a DiskSim trace with CR line ends read as one request (its
/// first), silently; every reader now splits at `\r` too, and counts lines
/// the same way (errors name the right line).
#[test]
fn cr_only_line_ends_split_lines_in_every_reader() {
    let cases = [
        ("ibm18es-head.disksim", Format::Disksim),
        ("app.blkparse", Format::Blkparse),
        ("hm_0-sample.csv", Format::Msr),
        ("financial-sample.spc", Format::Spc),
        ("fio-randrw.iolog", Format::FioIolog),
    ];
    for (name, format) in cases {
        let lf = fixture(name);
        let want = Trace::parse(name, &lf, format).unwrap();
        for (how, text) in [
            ("CR", lf.replace('\n', "\r")),
            ("CRLF", lf.replace('\n', "\r\n")),
            ("no final line end", lf.trim_end().to_string()),
        ] {
            let got = Trace::parse(name, &text, format).unwrap_or_else(|e| panic!("{how}: {e}"));
            assert_eq!(got, want, "{name} with {how} line ends");
        }
        // A bad third line is named as line 3 whatever the line ends.
        let mut lines: Vec<&str> = sluice_input::lines(&lf).collect();
        lines[2] = "garbage, R, 1 2 3 4 5 6 7 8 9 Q R x + y";
        for end in ["\n", "\r", "\r\n"] {
            if let Err(e) = Trace::parse(name, &lines.join(end), format) {
                assert_eq!(e.line, Some(3), "{name}: {e}");
            }
        }
    }
    let lf = fixture("ibm18es-head.disksim");
    let n = disksim::parse_trace("t", &lf).unwrap().len();
    assert_eq!(
        disksim::parse_trace("t", &lf.replace('\n', "\r"))
            .unwrap()
            .len(),
        n
    );
    // Start-up traces too.
    let text = "a-1 0 8 100 Rand 0 0 RM 0 START\ra-1 .5 8 108 Seq 0 8 RA 0.5 C\rb-2 0 16 50 Rand 0 0 WS 0.6 C\r";
    let t = StartupTrace::parse("t", "t", text).unwrap();
    assert_eq!(t.records.len(), 3);
    let e = StartupTrace::parse("t", "t", &text.replace("b-2 0 16", "b-2 x 16")).unwrap_err();
    assert_eq!(e.line, Some(3), "{e}");
}

/// Defect 16: an MSR trace whose first line has a fractional timestamp
/// lost that request as a "header".
#[test]
fn msr_first_line_with_a_fractional_timestamp_is_a_request() {
    let msr =
        "128166372003061629{},hm,0,Read,0,4096,300\n128166372003064129,hm,0,Read,8192,4096,310\n\
               128166372003066129,hm,0,Write,16384,4096,310\n";
    let int = Trace::parse("m", &msr.replace("{}", ""), Format::Msr).unwrap();
    let frac = Trace::parse("m", &msr.replace("{}", ".5"), Format::Msr).unwrap();
    assert_eq!(int.requests.len(), 3);
    assert_eq!(frac.requests.len(), 3);
    // Half a tick is 50 ns: the gaps shrink by that.
    assert_eq!(
        (int.requests[1].at - int.requests[0].at).as_nanos(),
        (frac.requests[1].at - frac.requests[0].at).as_nanos() + 50
    );
    // A header is still skipped; a first line that is neither is an error.
    let header = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n";
    let with = Trace::parse(
        "m",
        &format!("{header}{}", msr.replace("{}", "")),
        Format::Msr,
    )
    .unwrap();
    assert_eq!(with.requests.len(), 3);
    let e = Trace::parse("m", &msr.replace("{}", ".5x"), Format::Msr).unwrap_err();
    assert_eq!(e.line, Some(1), "{e}");
    assert!(one_line(&e).contains("Timestamp"), "{e}");
}

/// Found writing the fuzzers: a blkparse count past 2^55 overflowed its
/// byte size (a panic in a debug build), and many SPC ASUs or fio files
/// at the largest offset, laid end to end, wrapped their sectors.
#[test]
fn huge_counts_and_many_far_files_are_errors_not_overflows() {
    let e = Trace::parse(
        "b",
        "8,0 1 1 0.1 1 Q R 0 + 36028797018963968 [a]\n",
        Format::Blkparse,
    )
    .unwrap_err();
    assert!(one_line(&e).contains("count"), "{e}");
    let spc: String = (0..2000)
        .map(|a| format!("{a},18014398509481983,512,r,0.0\n"))
        .collect();
    let e = Trace::parse("s", &spc, Format::Spc).unwrap_err();
    assert!(one_line(&e).contains("ASUs laid end to end"), "{e}");
    let fio: String = std::iter::once("fio version 2 iolog\n".to_string())
        .chain((0..2000).map(|f| format!("f{f} read 9223372036854775295 512\n")))
        .collect();
    let e = Trace::parse("f", &fio, Format::FioIolog).unwrap_err();
    assert!(one_line(&e).contains("files laid end to end"), "{e}");
}
