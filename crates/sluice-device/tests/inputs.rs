//! A DiskSim description's inputs: files that are none are refused before
//! they are read, nesting and includes are bounded, and line numbers hold
//! whatever the line ends.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sluice_device::diskspecs::{load, parse_str};
use sluice_input::testkit::{refused, scratch};
use sluice_input::Kind;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/disksim")
        .join(name)
}

/// A copy of ibm18es (diskspecs, model, seek) in a fresh directory.
fn ibm_copy(tag: &str) -> PathBuf {
    let dir = scratch(tag);
    for f in ["ibm18es.diskspecs", "ibm18es.model", "ibm18es.seek"] {
        std::fs::copy(data(f), dir.join(f)).unwrap();
    }
    dir
}

fn one_line(e: &impl std::fmt::Display) -> String {
    let e = e.to_string();
    assert!(!e.contains('\n'), "{e}");
    e
}

/// Defect 7: `/dev/zero` as a diskspecs (or what it sources, or its seek
/// curve) was read until the memory ran out; a FIFO blocked.
#[test]
fn special_and_oversized_description_files_are_refused() {
    let dir = scratch("diskspecs-inputs");
    for (path, words) in refused(&dir, Kind::DiskSpecs) {
        let e = one_line(&load(&path).unwrap_err());
        assert!(e.contains(words), "{}: {e}", path.display());
    }
    // What a description names: `source X.model`, and the seek curve.
    let ibm = ibm_copy("diskspecs-includes");
    let specs = std::fs::read_to_string(ibm.join("ibm18es.diskspecs")).unwrap();
    let model = std::fs::read_to_string(ibm.join("ibm18es.model")).unwrap();
    for (kind, what) in [(Kind::Include, "source"), (Kind::SeekFile, "seek curve")] {
        for (path, words) in refused(&dir, kind) {
            let p = path.to_str().unwrap();
            let (s, m) = match kind {
                Kind::Include => (
                    specs.replace("source ibm18es.model", &format!("source {p}")),
                    model.clone(),
                ),
                _ => (
                    specs.replace("source ibm18es.model", "source x.model"),
                    model.replace("ibm18es.seek", p),
                ),
            };
            std::fs::write(ibm.join("x.diskspecs"), s).unwrap();
            std::fs::write(ibm.join("x.model"), m).unwrap();
            let e = one_line(&load(&ibm.join("x.diskspecs")).unwrap_err());
            assert!(e.contains(words) && e.contains(what), "{p}: {e}");
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
    std::fs::remove_dir_all(ibm).unwrap();
}

/// Defect 4: 20,000 nested `[` (a 40 KB file) overflowed the parser's
/// stack; so did nested blocks.
#[test]
fn deep_nesting_is_an_error_naming_the_line_and_the_limit() {
    let n = 20_000;
    for text in [
        format!(
            "disksim_disk X {{ a = {}{} }}\n",
            "[".repeat(n),
            "]".repeat(n)
        ),
        format!(
            "disksim_disk X {{\n a = {}{} }}\n",
            "{ b = ".repeat(n),
            "}".repeat(n)
        ),
        format!(
            "disksim_disk X {{\n a = {}{} }}\n",
            "t { b = ".repeat(n),
            "}".repeat(n)
        ),
    ] {
        let e = one_line(&parse_str("x.diskspecs", &text, |_| None).unwrap_err());
        assert!(e.contains("nest more than 64 deep"), "{e}");
        assert!(e.starts_with("x.diskspecs: line "), "{e}");
    }
    // Across includes too: each file nests 40 deep.
    let deep = format!("blk B {{ a = {}1{} }}", "[".repeat(40), "]".repeat(40));
    let text = format!(
        "disksim_disk X {{ a = {}source d.model{} }}",
        "[".repeat(30),
        "]".repeat(30)
    );
    let e = one_line(&parse_str("x.diskspecs", &text, |_| Some(deep.clone())).unwrap_err());
    assert!(
        e.contains("nest more than 64 deep") && e.starts_with("d.model"),
        "{e}"
    );
    // 64 levels (the block and 63 lists) read.
    let ok = format!(
        "disksim_disk X {{ a = {}1{} }}",
        "[".repeat(63),
        "]".repeat(63)
    );
    let e = parse_str("x.diskspecs", &ok, |_| None).unwrap_err();
    assert!(!e.to_string().contains("nest"), "{e}");
}

/// Defect 5: 15 small files each sourcing the next ten times expanded to
/// 10^14 copies and ran out of memory; the expansion has a budget.
#[test]
fn exponential_includes_stop_at_the_expansion_budget() {
    let dir = ibm_copy("diskspecs-blowup");
    let specs = std::fs::read_to_string(dir.join("ibm18es.diskspecs")).unwrap();
    let x = sluice_input::testkit::include_blowup(&dir, &specs);
    let t = Instant::now();
    let e = one_line(&load(&x).unwrap_err());
    assert!(
        e.contains("more than 250000 parameters") || e.contains("MiB of text"),
        "{e}"
    );
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
    // The byte budget: one large file included many times.
    let big = format!("blk B {{ v = \"{}\" }}\n", "x".repeat(1 << 20));
    let text = format!(
        "disksim_disk X {{ {} }}",
        (0..80)
            .map(|k| format!("k{k} = source big.model"))
            .collect::<Vec<_>>()
            .join(",\n")
    );
    let e = one_line(&parse_str("x.diskspecs", &text, |_| Some(big.clone())).unwrap_err());
    assert!(e.contains("more than 64 MiB of text"), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Defect 16, DiskSim descriptions: a lone `\r` ends a line, so errors
/// name the right line in a file saved with CR line ends, and such a
/// file reads as its LF copy does.
#[test]
fn cr_line_ends_keep_line_numbers() {
    let text = "disksim_disk X {\r a = 1,\r b = [1, 2\r }\r";
    for eol in ["\n", "\r", "\r\n"] {
        let e = parse_str("x.diskspecs", &text.replace('\r', eol), |_| None).unwrap_err();
        assert_eq!(e.line, Some(4), "{eol:?}: {e}");
    }
    let specs = std::fs::read_to_string(data("ibm18es.diskspecs")).unwrap();
    let model = std::fs::read_to_string(data("ibm18es.model")).unwrap();
    let seek = std::fs::read_to_string(data("ibm18es.seek")).unwrap();
    let pick = |n: &str, cr: bool| {
        let t = if n.ends_with(".seek") { &seek } else { &model };
        Some(if cr { t.replace('\n', "\r") } else { t.clone() })
    };
    let lf = parse_str("x.diskspecs", &specs, |n| pick(n, false)).unwrap();
    let cr = parse_str("x.diskspecs", &specs.replace('\n', "\r"), |n| pick(n, true)).unwrap();
    assert_eq!(lf, cr);
}
