//! The commands the README and docs/ show must still be commands: each
//! concrete `sluice ...` line in their code blocks parses with today's
//! flags (the ones a test can run quickly are run in tests/docs.rs).

use super::Cli;
use clap::Parser;
use std::path::Path;

/// The `sluice` commands in `text`'s code blocks, as argument lists
/// (continuation lines joined, comments cut), with their line numbers:
/// every line of a `sh` block, the `$ ` lines of other blocks (the rest
/// is sample output).
fn commands(text: &str) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    let mut block: Option<bool> = None; // Some(is a shell block)
    let mut pending: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        if let Some(info) = line.trim_start().strip_prefix("```") {
            block = match block {
                Some(_) => None,
                None => Some(matches!(info.trim(), "sh" | "bash" | "shell")),
            };
            continue;
        }
        let Some(shell) = block else {
            continue;
        };
        let prompt = line.trim().starts_with("$ ");
        if !shell && !prompt && pending.is_none() {
            continue;
        }
        let mut l = line.trim().trim_start_matches("$ ").to_string();
        if let Some((n, head)) = pending.take() {
            l = format!("{head} {l}");
            pending = Some((n, String::new()));
        }
        let start = pending.take().map_or(i + 1, |p| p.0);
        // A comment, an aligned description (two spaces or more), a
        // redirection or a pipe ends the command.
        for end in [" # ", "  ", " > ", " | ", " 2>"] {
            if let Some(c) = l.find(end) {
                l.truncate(c);
            }
        }
        let l = l.trim().to_string();
        if let Some(head) = l.strip_suffix('\\') {
            pending = Some((start, head.trim().to_string()));
            continue;
        }
        let rest = [
            "sluice ",
            "target/release/sluice ",
            "cargo run --release -- ",
        ]
        .iter()
        .find_map(|p| l.strip_prefix(p));
        if let Some(rest) = rest {
            out.push((start, rest.split_whitespace().map(String::from).collect()));
        }
    }
    out
}

/// A synopsis line (placeholders, alternatives), not a command to run.
fn is_synopsis(words: &[String]) -> bool {
    words.iter().any(|w| {
        w.contains(['[', '|', '<'])
            || w.contains("...")
            || w.len() > 1
                && w.chars()
                    .all(|c| c.is_ascii_uppercase() || c == '_' || c == '.')
    })
}

#[test]
fn every_concrete_command_in_the_readme_and_docs_parses() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<_> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    let mut parsed = 0;
    let mut bad = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (line, words) in commands(&text) {
            if is_synopsis(&words) {
                continue;
            }
            let argv = std::iter::once("sluice".to_string()).chain(words.iter().cloned());
            let missing = missing_files(&root, &words);
            if !missing.is_empty() {
                bad.push(format!(
                    "{}:{line}: no {}",
                    f.file_name().unwrap().to_string_lossy(),
                    missing.join(", ")
                ));
            }
            match Cli::try_parse_from(argv) {
                Ok(_) => parsed += 1,
                Err(e)
                    if matches!(
                        e.kind(),
                        clap::error::ErrorKind::DisplayHelp
                            | clap::error::ErrorKind::DisplayVersion
                    ) =>
                {
                    parsed += 1
                }
                Err(e) => bad.push(format!(
                    "{}:{line}: sluice {}: {}",
                    f.file_name().unwrap().to_string_lossy(),
                    words.join(" "),
                    e.to_string().lines().next().unwrap_or_default()
                )),
            }
        }
    }
    assert!(
        bad.is_empty(),
        "documented commands that no longer parse:\n{}",
        bad.join("\n")
    );
    assert!(
        parsed >= 8,
        "only {parsed} commands found: is the extraction broken?"
    );
}

/// Files of the repository a command names exist (`scenarios/...`,
/// `data/...`).
fn missing_files(root: &Path, words: &[String]) -> Vec<String> {
    words
        .iter()
        .filter(|w| w.starts_with("scenarios/") || w.starts_with("data/"))
        .filter(|w| !root.join(w.as_str()).exists())
        .cloned()
        .collect()
}

#[test]
fn every_example_in_the_help_parses_and_names_files_that_exist() {
    use clap::CommandFactory;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cli = Cli::command();
    let mut texts = vec![cli
        .get_after_help()
        .map(|h| h.to_string())
        .unwrap_or_default()];
    for sub in cli.get_subcommands() {
        texts.push(
            sub.get_after_help()
                .map(|h| h.to_string())
                .unwrap_or_default(),
        );
    }
    let mut checked = 0;
    let mut bad = Vec::new();
    for t in &texts {
        // The help's examples as one code block.
        for (_, words) in commands(&format!("```sh\n{t}\n```\n")) {
            if is_synopsis(&words) {
                continue;
            }
            let argv = std::iter::once("sluice".to_string()).chain(words.iter().cloned());
            if let Err(e) = Cli::try_parse_from(argv) {
                bad.push(format!(
                    "sluice {}: {}",
                    words.join(" "),
                    e.to_string().lines().next().unwrap_or_default()
                ));
            }
            let missing = missing_files(&root, &words);
            if !missing.is_empty() {
                bad.push(format!(
                    "sluice {}: no {}",
                    words.join(" "),
                    missing.join(", ")
                ));
            }
            checked += 1;
        }
    }
    assert!(
        bad.is_empty(),
        "help examples that fail:\n{}",
        bad.join("\n")
    );
    assert!(
        checked >= 10,
        "only {checked} examples found in the help texts"
    );
}

#[test]
fn continuation_lines_and_comments_are_read_as_one_command() {
    let t = "text\n```sh\n$ sluice versus a.toml --preset p \\\n    --repeat 3  # three\nsluice list\n```\nsluice sim not-in-a-block\n";
    let c = commands(t);
    assert_eq!(c.len(), 2, "{c:?}");
    assert_eq!(
        c[0].1,
        ["versus", "a.toml", "--preset", "p", "--repeat", "3"]
    );
    assert_eq!(c[1].1, ["list"]);
    assert!(is_synopsis(&["sim".into(), "SCENARIO".into()]));
    assert!(!is_synopsis(&[
        "sim".into(),
        "scenarios/10r-rand.toml".into()
    ]));
}
