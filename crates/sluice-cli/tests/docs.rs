//! The commands the README and docs/ show in shell blocks run as shown:
//! each `sluice` line (or `target/release/sluice`) of a ```sh block, run
//! from the repository's root, exits 0 and prints something. Commands that
//! need root or take minutes in a debug build (`repro`, `run`, `kernel`,
//! `versus`, `emulate`, `mount`, `clean`) are only parsed, by the binary's
//! `documented_commands` tests, which also check every other block's `$`
//! lines and every `--help` example.

use std::path::Path;
use std::process::Command;

/// The `sluice` command lines of `text`'s ```sh blocks.
fn shell_commands(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut shell = None;
    for line in text.lines() {
        if let Some(info) = line.trim_start().strip_prefix("```") {
            shell = match shell {
                Some(_) => None,
                None => Some(info.trim() == "sh"),
            };
            continue;
        }
        if shell != Some(true) {
            continue;
        }
        let mut l = line.trim().to_string();
        for end in [" # ", "  "] {
            if let Some(c) = l.find(end) {
                l.truncate(c);
            }
        }
        let rest = ["target/release/sluice ", "sluice "]
            .iter()
            .find_map(|p| l.strip_prefix(p));
        if let Some(rest) = rest {
            out.push(rest.split_whitespace().map(String::from).collect());
        }
    }
    out
}

#[test]
fn the_shell_blocks_of_the_readme_and_docs_run_as_shown() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = vec![root.join("README.md")];
    for e in std::fs::read_dir(root.join("docs")).unwrap().flatten() {
        if e.path().extension().is_some_and(|x| x == "md") {
            files.push(e.path());
        }
    }
    let mut ran = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for args in shell_commands(&text) {
            let slow_or_root = [
                "repro", "run", "kernel", "versus", "emulate", "mount", "clean",
            ];
            if args
                .first()
                .is_some_and(|a| slow_or_root.contains(&a.as_str()))
            {
                continue;
            }
            let out = Command::new(env!("CARGO_BIN_EXE_sluice"))
                .args(&args)
                .current_dir(&root)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}: sluice {}: {}",
                f.display(),
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
    }
    assert!(
        ran >= 3,
        "only {ran} commands run from the docs' shell blocks"
    );
}
