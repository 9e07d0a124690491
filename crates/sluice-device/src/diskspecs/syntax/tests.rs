use super::super::test_support::*;
use super::super::{embedded, parse_seek_curve, parse_str};
use crate::hdd::seek::SeekCurve;

#[test]
fn errors_name_file_line_and_parameter() {
    let text = ibm_text().replace(
        "Number of buffer segments = 7",
        "Number of buffer segments = seven",
    );
    let e = parse_with(&text, &[]).unwrap_err();
    let line = ibm_text()
        .lines()
        .position(|l| l.contains("Number of buffer segments"))
        .unwrap()
        + 1;
    assert_eq!(
            e.to_string(),
            format!(
                "x.diskspecs: line {line}: \"Number of buffer segments\": expected an integer, found `seven`"
            )
        );
    // Errors inside the model name the model file.
    let model = embedded("ibm18es.model")
        .unwrap()
        .replace("Head switch time = 0.062000,", "");
    let e = parse_with(ibm_text(), &[("ibm18es.model", &model)]).unwrap_err();
    assert_eq!(e.file, "ibm18es.model");
    assert_eq!(e.key.as_deref(), Some("Head switch time"));
    assert!(e.to_string().contains("missing"), "{e}");
    assert!(!e.to_string().contains('\n'));
}

#[test]
fn malformed_inputs_are_errors_not_panics() {
    let cases: &[(&str, &str)] = &[
        ("", "no `disksim_disk` block"),
        ("disksim_disk X {", "not closed"),
        ("disksim_disk X { Model }", "expected `Name = value`"),
        ("disksim_disk X { Model = }", "missing value"),
        ("disksim_disk X { Model = [1, 2 }", "expected `,` or `]`"),
        ("disksim_disk X { = 3 }", "missing parameter name"),
        ("} oops", "expected a block"),
        (
            "disksim_disk X { Model = source nowhere.model }",
            "cannot read",
        ),
        ("disksim_disk X { Model = 3 }", "expected a block"),
        (
            "disksim_disk X { Model = other { } }",
            "unsupported `other`",
        ),
        ("disksim_disk X { a = 1 b = 2 }", "expected `,`"),
        (
            "disksim_disk X { Model = source loop.model }",
            "nest too deeply",
        ),
    ];
    for (text, want) in cases {
        let e = parse_str("x.diskspecs", text, |name| {
            (name == "loop.model").then(|| "dm_disk M { a = source loop.model }".to_string())
        })
        .unwrap_err();
        assert!(e.to_string().contains(want), "{text:?}: {e}");
    }
}

#[test]
fn bad_seek_files_are_errors() {
    let cases: &[(&str, &str)] = &[
        ("", "empty"),
        ("Seek points: 3\n1, 1.0\n", "Seek distances measured"),
        (
            "Seek distances measured: 3\n1, 1.0\n2, 2.0\n",
            "announces 3",
        ),
        (
            "Seek distances measured: 2\n1, 1.0\n1, 2.0\n",
            "does not ascend",
        ),
        (
            "Seek distances measured: 2\n1, 1.0\nx, 2.0\n",
            "expected `distance",
        ),
        (
            "Seek distances measured: 1\n1, -1.0\n",
            "expected `distance",
        ),
    ];
    for (text, want) in cases {
        let e = parse_seek_curve("s.seek", text).unwrap_err();
        assert!(e.to_string().starts_with("s.seek: line "), "{e}");
        assert!(e.to_string().contains(want), "{text:?}: {e}");
    }
    let ok = parse_seek_curve(
        "s.seek",
        "Seek distances measured: 2\n1,\t1.5\n10,\t2.5\n\n",
    );
    assert_eq!(ok, Ok(SeekCurve::Table(vec![(1, 1.5), (10, 2.5)])));
}

#[test]
fn truncated_files_never_panic() {
    let text = ibm_text();
    for cut in (0..text.len()).step_by(7) {
        let _ = parse_with(&text[..cut], &[]);
    }
    let model = embedded("barracuda.model").unwrap();
    let spec = embedded("barracuda.diskspecs").unwrap();
    for cut in (0..model.len()).step_by(23) {
        let _ = parse_with(spec, &[("barracuda.model", &model[..cut])]);
    }
    let seek = embedded("barracuda.seek").unwrap();
    for cut in 0..seek.len() {
        let _ = parse_with(spec, &[("barracuda.seek", &seek[..cut])]);
    }
}

#[test]
fn syntax_is_tolerant() {
    // Comments, missing commas at line ends, case and spacing in names,
    // integers written as decimals.
    let text = ibm_text()
        .replace(
            "Max queue length = 1,",
            "max   QUEUE length = 4.000 # tagged\n",
        )
        .replace("Fast write level = 2,", "Fast write level = 0");
    let s = parse_with(&text, &[]).unwrap();
    assert_eq!(s.max_queue, 4);
    assert!(!s.cache.write_back);
}

/// Blocks `{ }` and topology nodes `[ ]` read their entries with one loop:
/// each still names what is left open, and a closed nesting still reads.
#[test]
fn unclosed_blocks_and_topology_nodes_say_which() {
    let no_files = |_: &str| None;
    let cases = [
        (
            "\ndisksim_disk X { a = 1,",
            "block `disksim_disk X` opened at line 2 is not closed with `}`",
        ),
        (
            "topology ctlr C [ bus B [ ], ",
            "topology node `C` is not closed with `]`",
        ),
        (
            "topology ctlr C [ bus B [ ",
            "topology node `B` is not closed",
        ),
    ];
    for (text, want) in cases {
        let e = parse_str("x.parv", text, no_files).unwrap_err();
        assert!(e.to_string().contains(want), "{text:?}: {e}");
    }
    // Closed, the nesting reads; what is missing then is the disk.
    let closed = "topology ctlr C [ bus B [ ], bus D [ ] ]";
    let e = parse_str("x.parv", closed, no_files).unwrap_err();
    assert!(e.to_string().contains("no `disksim_disk` block"), "{e}");
}
