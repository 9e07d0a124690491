use super::*;
use sluice::policy::ParamValue;

const EXAMPLE: &str = r#"
[scheduler]
name = "bfq"
timeout_ms = 100

[[group]]
name = "batch"
weight = 50

[[class]]
name = "readers"
match = { comm = "dd", uid = 1000, cgroup = "/user.slice" }
weight = 300

[[class]]
match = { uid = 1000 }
limit_iops = 500
group = "batch"

[[class]]
name = "rest"
match = {}
weight = 10
"#;

/// The example's `[scheduler]` parameters.
fn timeout_100() -> Params {
    let mut p = Params::default();
    p.insert("timeout_ms", ParamValue::Int(100));
    p
}

fn process<'a>(comm: &'a str, uid: u32, cgroup: &'a str) -> ProcessInfo<'a> {
    ProcessInfo { comm, uid, cgroup }
}

/// The error `text` gives, with its line.
fn refused(text: &str) -> (Option<usize>, String) {
    let e = MountConfig::parse("m.toml", text).unwrap_err();
    let shown = e.to_string();
    assert!(shown.starts_with("m.toml: "), "{shown}");
    assert!(!shown.contains('\n'), "{shown}");
    (e.line, shown)
}

#[test]
fn the_documented_example_parses() {
    let c = MountConfig::parse("m.toml", EXAMPLE).unwrap();
    assert_eq!(c.scheduler, "bfq");
    assert_eq!(c.params, timeout_100());
    assert_eq!(c.groups.len(), 1);
    assert_eq!(c.groups[0].name, "batch");
    assert_eq!(c.groups[0].qos.weight, 50);
    assert_eq!(c.classes.len(), 3);
    let readers = &c.classes[0];
    assert_eq!(readers.name.as_deref(), Some("readers"));
    assert_eq!(
        readers.matcher,
        ProcessMatch {
            comm: Some("dd".into()),
            uid: Some(1000),
            cgroup: Some("/user.slice".into()),
        }
    );
    assert_eq!(readers.flow.qos.weight, 300);
    assert_eq!(readers.flow.group, None);
    let second = &c.classes[1];
    assert_eq!(second.name, None);
    assert_eq!(second.flow.qos.weight, 100);
    assert_eq!(second.flow.qos.limit_iops, Some(500.0));
    assert_eq!(second.flow.group, Some(0));
    assert!(c.policy().is_ok());
}

#[test]
fn the_first_matching_class_applies() {
    let c = MountConfig::parse("m.toml", EXAMPLE).unwrap();
    let (class, flow) = c.flow_for(&process("dd", 1000, "/user.slice/session-2.scope"));
    assert_eq!((class, flow.qos.weight), (Some(0), 300));
    // Same user, another program: the second class, not the catch-all.
    let (class, flow) = c.flow_for(&process("cat", 1000, "/user.slice"));
    assert_eq!((class, flow.group), (Some(1), Some(0)));
    // `dd` outside the cgroup falls through to the uid class.
    let (class, _) = c.flow_for(&process("dd", 1000, "/system.slice"));
    assert_eq!(class, Some(1));
    let (class, flow) = c.flow_for(&process("dd", 0, "/"));
    assert_eq!((class, flow.qos.weight), (Some(2), 10));
}

#[test]
fn an_unmatched_process_gets_weight_100() {
    let text = "[[class]]\nmatch = { comm = \"dd\" }\nweight = 300\n";
    let c = MountConfig::parse("m.toml", text).unwrap();
    assert_eq!(c.scheduler, MountConfig::DEFAULT_SCHEDULER);
    let (class, flow) = c.flow_for(&process("cat", 0, "/"));
    assert_eq!(class, None);
    assert_eq!(flow, FlowConfig::weighted(100));
    let bare = MountConfig::default_for("noop").unwrap();
    assert_eq!(
        bare.flow_for(&process("dd", 0, "/")),
        (None, FlowConfig::weighted(100))
    );
}

#[test]
fn an_empty_file_is_the_default_policy() {
    let c = MountConfig::parse("m.toml", "").unwrap();
    assert_eq!(
        c,
        MountConfig::default_for(MountConfig::DEFAULT_SCHEDULER).unwrap()
    );
    assert!(MountConfig::default_for("no-such-policy").is_err());
}

#[test]
fn a_cgroup_matches_itself_and_below_at_a_slash_only() {
    let m = ProcessMatch {
        cgroup: Some("/a".into()),
        ..ProcessMatch::default()
    };
    assert!(m.matches(&process("x", 0, "/a")));
    assert!(m.matches(&process("x", 0, "/a/b")));
    assert!(!m.matches(&process("x", 0, "/ab")));
    assert!(!m.matches(&process("x", 0, "/")));
    let root = ProcessMatch {
        cgroup: Some("/".into()),
        ..ProcessMatch::default()
    };
    assert!(root.matches(&process("x", 0, "/ab")));
    // A trailing slash in the file is the same cgroup.
    let text = "[[class]]\nmatch = { cgroup = \"/a/\" }\n";
    let c = MountConfig::parse("m.toml", text).unwrap();
    assert_eq!(c.classes[0].matcher.cgroup.as_deref(), Some("/a"));
    assert_eq!(c.flow_for(&process("x", 0, "/a")).0, Some(0));
    assert_eq!(c.flow_for(&process("x", 0, "/ab")).0, None);
}

#[test]
fn every_given_match_key_must_hold() {
    let m = ProcessMatch {
        comm: Some("dd".into()),
        uid: Some(5),
        cgroup: None,
    };
    assert!(m.matches(&process("dd", 5, "/")));
    assert!(!m.matches(&process("dd", 6, "/")));
    assert!(!m.matches(&process("ddx", 5, "/")));
    assert!(ProcessMatch::default().matches(&process("anything", 7, "/x")));
}

#[test]
fn an_unknown_key_is_refused_at_its_line() {
    let (line, e) = refused("[[class]]\nmatch = {}\nwieght = 3\n");
    assert!(e.contains("line 3") && e.contains("wieght"), "{e}");
    assert_eq!(line, None); // the line is in the message, as scenarios give it
    let (_, e) = refused("[[class]]\nmatch = { pid = 3 }\n");
    assert!(e.contains("pid"), "{e}");
    let (_, e) = refused("[mount]\nx = 1\n");
    assert!(e.contains("mount"), "{e}");
}

#[test]
fn weight_0_is_refused_naming_the_key_and_line() {
    let (line, e) = refused("[[class]]\nname = \"a\"\nmatch = {}\nweight = 0\n");
    assert_eq!(line, Some(4), "{e}");
    assert!(
        e.contains("[[class]] 'a': weight must be 1..=1000 (got 0)"),
        "{e}"
    );
}

#[test]
fn a_class_naming_an_undefined_group_is_refused() {
    let text = "[[group]]\nname = \"batch\"\n[[class]]\nmatch = {}\ngroup = \"bach\"\n";
    let (line, e) = refused(text);
    assert_eq!(line, Some(5), "{e}");
    assert!(
        e.contains("[[class]] 1: group: no [[group]] named 'bach' (defined: batch)"),
        "{e}"
    );
}

#[test]
fn a_comm_longer_than_the_kernel_keeps_is_refused() {
    let (line, e) = refused("[[class]]\nmatch = { comm = \"a-very-long-name\" }\n");
    assert_eq!(line, Some(2), "{e}");
    assert!(
        e.contains("match.comm must be 1..=15 bytes (got 16)"),
        "{e}"
    );
    assert!(e.contains("the kernel cuts"), "{e}");
    let (_, e) = refused("[[class]]\nmatch = { comm = \"\" }\n");
    assert!(e.contains("match.comm"), "{e}");
    assert!(MountConfig::parse(
        "m.toml",
        "[[class]]\nmatch = { comm = \"fifteen-bytes-x\" }\n"
    )
    .is_ok());
}

#[test]
fn a_cgroup_without_a_leading_slash_is_refused() {
    let (line, e) = refused("[[class]]\nmatch = { cgroup = \"user.slice\" }\n");
    assert_eq!(line, Some(2), "{e}");
    assert!(
        e.contains("match.cgroup must be a path from the cgroup root, starting with '/'"),
        "{e}"
    );
}

#[test]
fn other_bad_keys_are_refused_naming_them() {
    for (text, says, line) in [
        ("[[class]]\nmatch = { uid = -1 }\n", "uid", None),
        (
            "[[class]]\nmatch = {}\nlimit_iops = 0\n",
            "limit_iops must be",
            Some(3),
        ),
        (
            "[[class]]\nmatch = {}\nreservation_iops = 9\nlimit_iops = 5\n",
            "reservation_iops (9) is above limit_iops (5)",
            Some(3),
        ),
        (
            "[[class]]\nmatch = {}\nburst_ms = 0\n",
            "burst_ms must be",
            Some(3),
        ),
        (
            "[[class]]\nname = \"\"\nmatch = {}\n",
            "name must not be empty",
            Some(2),
        ),
        (
            "[[class]]\nname = \"a\"\nmatch = {}\n[[class]]\nname = \"a\"\nmatch = {}\n",
            "'a' is defined twice",
            Some(5),
        ),
        ("[[class]]\nweight = 2\n", "match", None),
        ("[scheduler]\nname = \"nope\"\n", "[scheduler]", Some(1)),
        (
            "[scheduler]\nname = \"bfq\"\ntimeout_ms = [1]\n",
            "[scheduler] timeout_ms: expected",
            Some(3),
        ),
        (
            "[scheduler]\nname = \"mclock\"\ntimeout_ms = 3\n",
            "no parameter 'timeout_ms'",
            Some(3),
        ),
        (
            "[[group]]\nname = \"g\"\nweight = 0\n",
            "[[group]] 'g': weight must be",
            Some(3),
        ),
        (
            "[[group]]\nname = \"g\"\n[[group]]\nname = \"g\"\n",
            "'g' is defined twice",
            Some(4),
        ),
        (
            "[[group]]\nname = \"\"\n",
            "name must not be empty",
            Some(2),
        ),
    ] {
        let (at, e) = refused(text);
        assert!(e.contains(says), "{text:?}: {e}");
        if line.is_some() {
            assert_eq!(at, line, "{text:?}: {e}");
        }
    }
}

#[test]
fn more_than_1000_classes_are_refused() {
    let text = "[[class]]\nmatch = {}\n".repeat(MAX_CLASSES + 1);
    let (_, e) = refused(&text);
    assert!(e.contains("1001 [[class]] tables: at most 1000"), "{e}");
    let text = "[[class]]\nmatch = {}\n".repeat(MAX_CLASSES);
    assert_eq!(
        MountConfig::parse("m.toml", &text).unwrap().classes.len(),
        1000
    );
}

#[test]
fn the_same_scheduler_keeps_the_file_params_another_drops_them() {
    let c = MountConfig::parse("m.toml", EXAMPLE).unwrap();
    let same = c.clone().with_scheduler("bfq").unwrap();
    assert_eq!(same.params, timeout_100());
    assert_eq!(same, c);
    let other = c.clone().with_scheduler("mclock").unwrap();
    assert_eq!(other.scheduler, "mclock");
    assert!(other.params.is_empty());
    assert_eq!(other.classes, c.classes);
    assert!(other.policy().is_ok());
    let e = c.with_scheduler("no-such-policy").unwrap_err().to_string();
    assert!(e.contains("no-such-policy") && !e.contains('\n'), "{e}");
}

#[test]
fn a_group_naming_the_file_policy_keeps_it_under_another_scheduler() {
    let text = "[scheduler]\nname = \"bfq\"\n[[group]]\nname = \"g\"\nscheduler = \"bfq\"\n";
    let c = MountConfig::parse("m.toml", text).unwrap();
    assert_eq!(c.groups[0].scheduler, None);
    let other = c.with_scheduler("noop").unwrap();
    assert_eq!(
        other.groups[0].scheduler.as_ref().map(|s| s.0.as_str()),
        Some("bfq")
    );
}

#[test]
fn load_reads_a_file_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mount.toml");
    std::fs::write(&path, EXAMPLE).unwrap();
    assert_eq!(MountConfig::load(&path).unwrap().classes.len(), 3);
    std::fs::write(&path, "[[class]]\nmatch = {}\nweight = 0\n").unwrap();
    let e = MountConfig::load(&path).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("{}: line 3: ", path.display())),
        "{e}"
    );
    let e = MountConfig::load(&dir.path().join("absent.toml"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("absent.toml"), "{e}");
}

#[test]
fn mutated_configurations_never_panic_and_err_in_one_line() {
    // Characters that make TOML and the checks take other branches.
    const PIECES: [&str; 12] = [
        "\"",
        "=",
        "[",
        "]",
        "{",
        "}",
        "\n",
        "-1",
        "0",
        "/",
        "99999999999",
        "comm",
    ];
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut refused = 0;
    for _ in 0..2000 {
        let mut text = EXAMPLE.to_string();
        for _ in 0..1 + next() % 3 {
            let at = (next() as usize) % text.len();
            let at = (0..=at)
                .rev()
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(0);
            let piece = PIECES[(next() as usize) % PIECES.len()];
            if next() % 2 == 0 {
                text.insert_str(at, piece);
            } else {
                let end = (at + 1..=text.len())
                    .find(|&i| text.is_char_boundary(i))
                    .unwrap_or(text.len());
                text.replace_range(at..end, piece);
            }
        }
        match MountConfig::parse("m.toml", &text) {
            Ok(c) => assert!(c.policy().is_ok(), "{text}"),
            Err(e) => {
                refused += 1;
                let shown = e.to_string();
                assert!(
                    shown.starts_with("m.toml: ") && !shown.contains('\n'),
                    "{shown}"
                );
            }
        }
    }
    // Both paths are taken: some mutants are refused, some still parse.
    assert!(refused > 100 && refused < 2000, "{refused} refused");
}
