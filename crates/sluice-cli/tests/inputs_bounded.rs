//! One input path, enforced (issue 43): every entry point of the binary
//! that reads a file goes through `sluice_input`'s bounded reader. Each is
//! fed a FIFO with no writer, `/dev/zero`, `/dev/urandom`, a 3 GiB sparse
//! file, a directory and a dangling link, and must refuse each at once:
//! a non-zero exit within seconds, at most two lines on stderr, no panic.
//! A second test keeps readers from bypassing it: no `File::open`,
//! `fs::read_to_string`, `fs::read` or `read_to_end` in the crates' (and
//! the Python module's) Rust sources outside tests and the places listed,
//! with why, in `ALLOWED`.
//!
//! A new command, option or scenario key that reads a file gets an entry
//! in `entries`; a new reader uses `sluice_input::read_text` (with a
//! `Kind` of its own) — see docs/architecture.md, "Reading input".

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use sluice_input::testkit::scratch;

/// How long one refusal may take (they take milliseconds; a debug build
/// on a loaded machine, seconds).
const LIMIT: Duration = Duration::from_secs(20);

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Run `sluice ARGS` in `dir`, killed after [`LIMIT`]: the exit code
/// (`None` if it had to be killed or died of a signal) and stderr.
fn run(dir: &Path, args: &[String]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sluice"))
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run sluice");
    let mut stderr = child.stderr.take().expect("stderr");
    // stderr is read on a thread that reports when the process closes it
    // (it exits); the wait for that report has the deadline.
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        let _ = tx.send(text);
    });
    match rx.recv_timeout(LIMIT) {
        Ok(err) => (child.wait().expect("wait").code(), err),
        Err(_) => {
            child.kill().expect("kill");
            child.wait().expect("wait");
            (None, format!("still running after {} s", LIMIT.as_secs()))
        }
    }
}

/// The bad files, made in `dir`: (what, path).
fn bad_files(dir: &Path) -> Vec<(&'static str, PathBuf)> {
    let fifo = dir.join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let sparse = dir.join("sparse");
    std::fs::File::create(&sparse)
        .and_then(|f| f.set_len(3 << 30))
        .expect("a sparse file");
    let sub = dir.join("a-directory");
    std::fs::create_dir(&sub).expect("a directory");
    let dangling = dir.join("dangling");
    std::os::unix::fs::symlink(dir.join("nowhere"), &dangling).expect("a link");
    vec![
        ("a FIFO", fifo),
        ("/dev/zero", PathBuf::from("/dev/zero")),
        ("/dev/urandom", PathBuf::from("/dev/urandom")),
        ("a 3 GiB sparse file", sparse),
        ("a directory", sub),
        ("a dangling link", dangling),
    ]
}

/// `text` written to `dir/name`, as an argument.
fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p.display().to_string()
}

/// A scenario in `dir` on `device` (a `[device]` line) with one flow
/// (its lines after `name`).
fn scenario(dir: &Path, name: &str, device: &str, flow: &str) -> String {
    write(
        dir,
        name,
        &format!(
            "name = \"x\"\nseed = 1\nduration_s = 1\nwarmup_s = 0\n[device]\n{device}\n\
             [scheduler]\nname = \"noop\"\n[[flow]]\nname = \"f\"\n{flow}\n"
        ),
    )
}

/// A scenario replaying `trace` in `format`.
fn trace_flow(dir: &Path, trace: &str, format: &str) -> String {
    scenario(
        dir,
        &format!("trace-{format}.toml"),
        "preset = \"maxtor-stm332061\"",
        &format!("pattern = \"trace\"\ntrace = \"{trace}\"\nformat = \"{format}\""),
    )
}

/// A scenario on the DiskSim drive described by `diskspecs`.
fn on_diskspecs(dir: &Path, name: &str, diskspecs: &str) -> String {
    scenario(
        dir,
        name,
        &format!("diskspecs = \"{diskspecs}\""),
        "pattern = \"rand-read\"",
    )
}

/// A copy in `dir` of a shipped DiskSim file with `from` replaced by `to`.
fn disksim_copy(dir: &Path, name: &str, file: &str, from: &str, to: &str) -> String {
    let shipped = root().join("crates/sluice-device/data/disksim").join(file);
    let text = std::fs::read_to_string(shipped).expect("a shipped DiskSim file");
    assert!(text.contains(from), "{file} holds {from}");
    write(dir, name, &text.replacen(from, to, 1))
}

/// A block device of this machine (`/dev/NAME` of an entry of
/// `/sys/block`), for `kernel`'s `--device`: it is only looked up, never
/// changed (the scenario is refused first).
fn block_device() -> Option<String> {
    let mut names: Vec<String> = std::fs::read_dir("/sys/block")
        .ok()?
        .filter_map(|e| Some(e.ok()?.file_name().to_string_lossy().into_owned()))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|n| format!("/dev/{n}"))
        .find(|d| Path::new(d).exists())
}

/// An entry point: its name and the arguments that make it read `path`
/// (files it needs besides are made in `dir`).
type Entry = (&'static str, Box<dyn Fn(&Path, &str) -> Vec<String>>);

/// Every entry point of the binary that reads a file a user names.
fn entries() -> Vec<Entry> {
    let data = root().join("data");
    let import = |f: &str| data.join("import").join(f).display().to_string();
    let (sea, props) = (import("tau_nemesis.yaml"), import("i4i.2xlarge.yaml"));
    let trace = data.join("traces/ibm18es-validate-head.trace");
    let trace = trace.display().to_string();
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let mut e: Vec<Entry> = vec![
        (
            "sim SCENARIO",
            Box::new(move |_, p| args(&["sim", p, "--json"])),
        ),
        (
            "compare SCENARIO",
            Box::new(move |_, p| args(&["compare", p])),
        ),
        (
            "run SCENARIO",
            Box::new(move |_, p| args(&["run", p, "--duration", "1"])),
        ),
        (
            "versus SCENARIO",
            Box::new(move |_, p| args(&["versus", p, "--preset", "maxtor-stm332061"])),
        ),
        (
            "emulate --diskspecs",
            Box::new(move |_, p| {
                args(&[
                    "emulate",
                    "--diskspecs",
                    p,
                    "--size-gib",
                    "1",
                    "--mount",
                    "/nonexistent/sluice-mnt",
                ])
            }),
        ),
        (
            "validate --trace",
            Box::new(move |_, p| args(&["validate", "--disk", "ibm-dnes-309170w", "--trace", p])),
        ),
        ("validate --disk", {
            let trace = trace.clone();
            Box::new(move |_, p| args(&["validate", "--disk", p, "--trace", &trace]))
        }),
        ("fio JOBFILE", Box::new(move |_, p| args(&["fio", p]))),
        (
            "fio include",
            Box::new(move |d, p| {
                let job = write(
                    d,
                    "include.fio",
                    &format!("include {p}\n[j]\nrw=read\nsize=1m\n"),
                );
                args(&["fio", &job])
            }),
        ),
        (
            "fio --diskspecs",
            Box::new(move |d, p| {
                let job = write(d, "job.fio", "[j]\nrw=read\nsize=1m\n");
                args(&["fio", &job, "--diskspecs", p])
            }),
        ),
        (
            "import dmclock",
            Box::new(move |_, p| args(&["import", "dmclock", p])),
        ),
        ("import seastar CONF", {
            let props = props.clone();
            Box::new(move |_, p| args(&["import", "seastar", p, "--io-properties", &props]))
        }),
        (
            "import seastar --io-properties",
            Box::new(move |_, p| args(&["import", "seastar", &sea, "--io-properties", p])),
        ),
        (
            "report RESULT.json",
            Box::new(move |d, p| {
                args(&["report", p, "-o", &d.join("r.html").display().to_string()])
            }),
        ),
        (
            "report LOG.csv",
            Box::new(move |d, p| {
                // A request log is known by its name: link one to the file.
                let log = d.join("requests.csv");
                let _ = std::fs::remove_file(&log);
                std::os::unix::fs::symlink(p, &log).expect("a link");
                let out = d.join("l.html").display().to_string();
                args(&["report", &log.display().to_string(), "-o", &out])
            }),
        ),
        (
            "scenario [device] diskspecs",
            Box::new(move |d, p| args(&["sim", &on_diskspecs(d, "diskspecs.toml", p)])),
        ),
        (
            "DiskSim `source` file",
            Box::new(move |d, p| {
                let source = format!("Model = source {p},");
                let specs = disksim_copy(
                    d,
                    "source.diskspecs",
                    "atlas10k.diskspecs",
                    "Model = source atlas10k.model,",
                    &source,
                );
                args(&["sim", &on_diskspecs(d, "source.toml", &specs)])
            }),
        ),
        (
            "DiskSim seek curve",
            Box::new(move |d, p| {
                let curve = format!("Full seek curve = {p},");
                disksim_copy(
                    d,
                    "seek.model",
                    "atlas10k.model",
                    "Full seek curve = atlas10k.seek,",
                    &curve,
                );
                let source = format!("Model = source {},", d.join("seek.model").display());
                let specs = disksim_copy(
                    d,
                    "seek.diskspecs",
                    "atlas10k.diskspecs",
                    "Model = source atlas10k.model,",
                    &source,
                );
                args(&["sim", &on_diskspecs(d, "seek.toml", &specs)])
            }),
        ),
        (
            "startup trace",
            Box::new(move |d, p| {
                let s = scenario(
                    d,
                    "startup.toml",
                    "preset = \"maxtor-stm332061\"",
                    &format!("pattern = \"startup\"\ntrace = \"{p}\""),
                );
                args(&["sim", &s])
            }),
        ),
    ];
    // The scenario is read after the device is found (nothing is changed
    // before both are checked): it takes a block device.
    match block_device() {
        Some(dev) => e.push((
            "kernel SCENARIO",
            Box::new(move |_, p| {
                args(&["kernel", p, "--device", &dev, "--kernel-scheduler", "bfq"])
            }),
        )),
        None => eprintln!("kernel SCENARIO: skipped, no block device in /sys/block to name"),
    }
    for format in ["blkparse", "fio-iolog", "msr", "spc", "disksim"] {
        e.push((
            "trace flow",
            Box::new(move |d, p| args(&["sim", &trace_flow(d, p, format), "--json"])),
        ));
    }
    e
}

/// Why the run of `entry` on `bad` is not a refusal, if it is not one.
fn not_refused(entry: &str, bad: &str, code: Option<i32>, err: &str) -> Option<String> {
    let lines = err.trim().lines().count();
    let refused = matches!(code, Some(c) if c > 0 && c != 101)
        && !err.contains("panicked")
        && (1..=2).contains(&lines);
    (!refused).then(|| {
        format!(
            "{entry} <- {bad}: exit {code:?}, {lines} lines: {}",
            err.trim()
        )
    })
}

#[test]
fn every_entry_point_refuses_files_it_cannot_read_at_once() {
    let dir = scratch("inputs-bounded");
    let bad = bad_files(&dir);
    let mut failures = Vec::new();
    let mut runs = 0;
    for (entry, argv) in entries() {
        for (what, path) in &bad {
            // Each run in a folder of its own (run, fio and report make
            // files in theirs).
            let cwd = scratch("inputs-bounded-run");
            let (code, err) = run(&cwd, &argv(&cwd, &path.display().to_string()));
            failures.extend(not_refused(entry, what, code, &err));
            // Refused for the file, not for something else.
            let name = path
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into_owned());
            if !(err.contains(&name) || err.contains("requests.csv")) {
                failures.push(format!(
                    "{entry} <- {what}: the error does not name it: {}",
                    err.trim()
                ));
            }
            runs += 1;
            let _ = std::fs::remove_dir_all(&cwd);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(runs >= 25 * 6, "{runs} runs");
    assert!(
        failures.is_empty(),
        "{} of {runs} runs not refused:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Where a read may bypass `sluice_input`, with why: the system's own
/// files (sysfs, procfs, tracefs) and the journal sluice itself writes,
/// never input a user names. A read of a literal `/proc/` or `/sys/` path
/// is allowed anywhere.
const ALLOWED: [(&str, &str); 6] = [
    ("crates/sluice-input/src/", "the bounded reader itself"),
    (
        "crates/sluice-real/src/kernel/",
        "sysfs, procfs and tracefs: the kernel's own files",
    ),
    (
        "crates/sluice-real/src/journal/",
        "the journal sluice writes; /proc and /sys",
    ),
    (
        "crates/sluice-real/src/run/files.rs",
        "sysfs: a device's scheduler",
    ),
    (
        "crates/sluice-real/src/run/mod.rs",
        "--verify opens the files the run itself wrote",
    ),
    (
        "crates/sluice-cli/src/documented_commands.rs",
        "a test of the docs (a cfg(test) module)",
    ),
];

/// Calls that read a whole file or open one for reading.
const READS: [&str; 4] = [
    "File::open(",
    "fs::read_to_string(",
    "fs::read(",
    "read_to_end(",
];

/// Whether the read at byte `at` of `text` (the file `file`) is test code:
/// a tests file, or after the file's `#[cfg(test)]` module.
fn in_tests(file: &str, text: &str, at: usize) -> bool {
    let module = ["#[cfg(test)]\nmod ", "#[cfg(test)]\npub(crate) mod "]
        .iter()
        .filter_map(|m| text.find(m))
        .min();
    file.ends_with("/tests.rs") || file.contains("/tests/") || module.is_some_and(|m| m < at)
}

/// Whether the read at byte `at` of `text` names a system file (`"/proc/`
/// or `"/sys/` on its line).
fn of_the_system(text: &str, at: usize) -> bool {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let line = &text[start..end];
    line.contains("\"/proc/") || line.contains("\"/sys/")
}

#[test]
fn no_reader_bypasses_the_bounded_reader() {
    let mut found = Vec::new();
    let mut files = Vec::new();
    let crates = root().join("crates");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&crates)
        .expect("crates/")
        .map(|e| e.expect("an entry").path().join("src"))
        .collect();
    // The Python package's native module reads files too.
    dirs.push(root().join("python/src"));
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten() {
            let p = e.expect("an entry").path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    assert!(files.len() > 100, "{} source files", files.len());
    for p in files {
        let rel = p.strip_prefix(root()).unwrap_or(&p).display().to_string();
        let rel = rel.trim_start_matches("./").to_string();
        let text = std::fs::read_to_string(&p).expect("a source file");
        for call in READS {
            for (at, _) in text.match_indices(call) {
                let allowed = ALLOWED.iter().any(|(prefix, _)| rel.starts_with(prefix));
                if !allowed && !in_tests(&rel, &text, at) && !of_the_system(&text, at) {
                    let line = text[..at].lines().count();
                    found.push(format!("{rel}:{line}: {call}"));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "files read without sluice_input::read_text (use it, with a Kind of the file's own; \
         or, for a system file, list it in ALLOWED with why):\n{}",
        found.join("\n")
    );
}

/// The guard finds what it is for: a read in a source file that is not
/// test code and not of a system file.
#[test]
fn the_bypass_guard_sees_reads_outside_tests() {
    let text = "fn f() { std::fs::read_to_string(p); }\nfn g() { fs::read(\"/proc/x\"); }\n\
                #[cfg(test)]\nmod tests { fs::read(p); }\n";
    let at = text.find("fs::read_to_string(").unwrap();
    assert!(!in_tests("crates/x/src/lib.rs", text, at) && !of_the_system(text, at));
    let at = text.find("fs::read(\"").unwrap();
    assert!(of_the_system(text, at) && !in_tests("crates/x/src/lib.rs", text, at));
    let at = text.find("fs::read(p)").unwrap();
    assert!(in_tests("crates/x/src/lib.rs", text, at));
    assert!(in_tests("crates/x/src/a/tests.rs", text, 0));
}
