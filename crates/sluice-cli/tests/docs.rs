//! The README's first session runs as shown: each `target/release/sluice`
//! line of its first-session block, run from the repository's root, exits
//! 0 and prints something. (`repro bfq --quick` is left to the reproduction
//! tests: in a debug build it takes minutes. Every documented command's
//! flags are checked by the binary's `documented_commands` tests.)

use std::path::Path;
use std::process::Command;

#[test]
fn the_readmes_first_session_runs_as_shown() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let at = readme
        .find("A first session")
        .expect("the README has a first session");
    let block = readme[at..]
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a sh block after it");
    let mut ran = 0;
    for line in block.lines() {
        let Some(args) = line.trim().strip_prefix("target/release/sluice ") else {
            continue;
        };
        let args: Vec<&str> = args.split_whitespace().collect();
        if args.first() == Some(&"repro") {
            continue;
        }
        let out = Command::new(env!("CARGO_BIN_EXE_sluice"))
            .args(&args)
            .current_dir(&root)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "sluice {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !out.stdout.is_empty(),
            "sluice {} printed nothing",
            args.join(" ")
        );
        ran += 1;
    }
    assert!(
        ran >= 3,
        "only {ran} commands in the README's first session"
    );
}
