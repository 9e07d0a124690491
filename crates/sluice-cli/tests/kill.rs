//! Issue 43: a run killed with SIGKILL at any moment leaves nothing that
//! `sluice clean` does not undo. Each command that changes the machine
//! (`versus`, `kernel`, `emulate`, `calibrate`, `fio --run`, `run`) is
//! killed at several moments — after its journal has recorded 1, 2, 3...
//! changes — and the machine after `sluice clean` is compared with the
//! machine before: mounts, loop devices, tracefs instances, cgroups, the
//! test device's scheduler and tunables, and sluice processes. One test,
//! the commands one after the other, so that no other run of this test
//! shows in what is compared.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{root, write_in};

/// What a killed run could leave on the machine, as far as this test's
/// runs can touch it.
#[derive(Debug, PartialEq, Eq)]
struct System {
    /// /proc/mounts lines under the test's folder.
    mounts: Vec<String>,
    /// Loop devices over files under the test's folder.
    loops: Vec<String>,
    /// tracefs instances sluice names (`sluice-*`).
    tracing: Vec<String>,
    /// Cgroups sluice names (`sluice-*`), in every hierarchy.
    cgroups: Vec<String>,
    /// The test device's scheduler, nr_requests and scheduler tunables.
    queue: Vec<(String, String)>,
    /// Processes running the sluice under test.
    processes: Vec<String>,
}

/// Names of the entries of `dir` starting with `sluice-`, with `dir`.
fn sluice_entries(dir: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("sluice-"))
        .map(|e| e.path().display().to_string())
        .collect();
    out.sort();
    out
}

fn snapshot(top: &Path, queue: Option<&Path>) -> System {
    let top_s = top.display().to_string();
    let mounts = fs::read_to_string("/proc/mounts")
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains(&top_s))
        .map(String::from)
        .collect();
    let mut loops: Vec<String> = fs::read_dir("/sys/block")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter_map(|e| {
                    let back = fs::read_to_string(e.path().join("loop/backing_file")).ok()?;
                    back.contains(&top_s)
                        .then(|| format!("{} {}", e.file_name().to_string_lossy(), back.trim()))
                })
                .collect()
        })
        .unwrap_or_default();
    loops.sort();
    let mut tracing = sluice_entries(Path::new("/sys/kernel/tracing/instances"));
    tracing.extend(sluice_entries(Path::new(
        "/sys/kernel/debug/tracing/instances",
    )));
    let mut cgroups = Vec::new();
    for hierarchy in fs::read_dir("/sys/fs/cgroup")
        .into_iter()
        .flatten()
        .flatten()
    {
        cgroups.extend(sluice_entries(&hierarchy.path()));
    }
    cgroups.extend(sluice_entries(Path::new("/sys/fs/cgroup")));
    let mut settings = Vec::new();
    if let Some(q) = queue {
        for name in ["scheduler", "nr_requests", "rotational", "max_sectors_kb"] {
            settings.push((name.to_string(), read_trimmed(&q.join(name))));
        }
        if let Ok(d) = fs::read_dir(q.join("iosched")) {
            let mut tunables: Vec<(String, String)> = d
                .filter_map(|e| e.ok())
                .map(|e| {
                    (
                        format!("iosched/{}", e.file_name().to_string_lossy()),
                        read_trimmed(&e.path()),
                    )
                })
                .collect();
            tunables.sort();
            settings.extend(tunables);
        }
    }
    System {
        mounts,
        loops,
        tracing,
        cgroups,
        queue: settings,
        processes: sluice_processes(top),
    }
}

fn read_trimmed(path: &Path) -> String {
    fs::read_to_string(path)
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// Live processes (zombies aside) whose program is the sluice under test,
/// working under `top` (the runs this test started, and theirs).
fn sluice_processes(top: &Path) -> Vec<String> {
    let exe = fs::canonicalize(env!("CARGO_BIN_EXE_sluice")).unwrap();
    let mut out: Vec<String> = fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            fs::read_link(e.path().join("exe")).is_ok_and(|x| x == exe)
                && fs::read_link(e.path().join("cwd")).is_ok_and(|d| d.starts_with(top))
                && !fs::read_to_string(e.path().join("stat"))
                    .unwrap_or_default()
                    .rsplit(')')
                    .next()
                    .is_some_and(|rest| rest.trim_start().starts_with('Z'))
        })
        .map(|e| {
            let cmd = fs::read(e.path().join("cmdline")).unwrap_or_default();
            format!(
                "{} {}",
                e.file_name().to_string_lossy(),
                String::from_utf8_lossy(&cmd).replace('\0', " ")
            )
        })
        .collect();
    out.sort();
    out
}

/// Changes recorded so far in every journal in `state`.
fn changes(state: &Path) -> usize {
    fs::read_dir(state)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "journal"))
        .map(|e| {
            fs::read_to_string(e.path())
                .unwrap_or_default()
                .lines()
                .filter(|l| l.starts_with("{\"change\""))
                .count()
        })
        .sum()
}

fn start(cwd: &Path, state: &Path, args: &[String]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_sluice"))
        .current_dir(cwd)
        .env("SLUICE_STATE_DIR", state)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start sluice")
}

/// When a run is killed.
#[derive(Clone, Debug)]
enum Moment {
    /// Once its journals hold this many changes.
    Changes(usize),
    /// This long after its journals hold this many changes (in the
    /// middle of its I/O).
    Later(usize, Duration),
    /// Once this path exists (the emulated disk is served).
    Exists(PathBuf),
}

impl Moment {
    /// Whether the moment has come; `since` is when the run's journals
    /// first held `n` changes, for [`Moment::Later`].
    fn reached(&self, state: &Path, since: &mut Option<Instant>) -> bool {
        match self {
            Moment::Changes(n) => changes(state) >= *n,
            Moment::Later(n, wait) => {
                if since.is_none() && changes(state) >= *n {
                    *since = Some(Instant::now());
                }
                since.is_some_and(|t| t.elapsed() >= *wait)
            }
            Moment::Exists(p) => p.exists(),
        }
    }
}

/// Run `args` and SIGKILL it at `moment`. False when it ended by itself
/// first (the moment is never reached).
fn kill_at(cwd: &Path, state: &Path, args: &[String], moment: &Moment) -> bool {
    let mut child = start(cwd, state, args);
    let t = Instant::now();
    let mut since = None;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let out = child.wait_with_output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                status.success() || common::no_uring(&err),
                "{args:?} failed before {moment:?}: {err}"
            );
            return false;
        }
        if moment.reached(state, &mut since) {
            child.kill().unwrap();
            child.wait().unwrap();
            return true;
        }
        assert!(
            t.elapsed() < Duration::from_secs(120),
            "{args:?}: no {moment:?} in 120 s"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// `sluice clean` with the journals in `state`: what it printed.
fn clean(state: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_sluice"))
        .env("SLUICE_STATE_DIR", state)
        .arg("clean")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Kill `args` at each of `moments` in turn and check that `clean` puts
/// the machine back; stops at the first moment the run does not reach.
fn killed_at_every_moment_is_undone(
    top: &Path,
    queue: Option<&Path>,
    args: &[String],
    moments: &[Moment],
) -> usize {
    let mut killed = 0;
    for (k, moment) in moments.iter().enumerate() {
        let state = top.join(format!("state-{}-{k}", args[0]));
        fs::create_dir(&state).unwrap();
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&state, fs::Permissions::from_mode(0o700)).unwrap();
        }
        let cwd = top.join(format!("cwd-{}-{k}", args[0]));
        fs::create_dir(&cwd).unwrap();
        let before = snapshot(top, queue);
        let reached = kill_at(&cwd, &state, args, moment);
        let said = if reached {
            clean(&state)
        } else {
            String::new()
        };
        // Some undoing finishes after `clean` returns (a loop device still
        // open detaches on its last close; a lazily unmounted FUSE server
        // ends when its last user goes): wait for the machine to settle.
        let t = Instant::now();
        let mut after = snapshot(top, queue);
        while after != before && t.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(50));
            after = snapshot(top, queue);
        }
        assert_eq!(
            after, before,
            "{args:?} killed at {moment:?}; clean said: {said}"
        );
        assert_eq!(changes(&state), 0, "journals left in {}", state.display());
        if !reached {
            break;
        }
        killed += 1;
    }
    killed
}

/// Kill after each of `counts` journaled changes, then at 0.3 and 0.7 s
/// after the last of them.
fn after(counts: &[usize]) -> Vec<Moment> {
    let mut moments: Vec<Moment> = counts.iter().map(|&n| Moment::Changes(n)).collect();
    if let Some(&last) = counts.last() {
        for ms in [300, 700] {
            moments.push(Moment::Later(last, Duration::from_millis(ms)));
        }
    }
    moments
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

const SCENARIO: &str = "name = \"kill\"\nseed = 1\nduration_s = 1\nwarmup_s = 0\n\
    [device]\npreset = \"maxtor-stm332061\"\nqueue_depth = 1\n[scheduler]\nname = \"bfq\"\n\
    [[flow]]\nname = \"a\"\npattern = \"rand-read\"\nfile_gib = 0.01\n\
    [[flow]]\nname = \"b\"\npattern = \"seq-read\"\nfile_gib = 0.01\n";

#[test]
fn a_run_killed_at_any_moment_is_undone_by_clean() {
    let dir = tempfile::tempdir().unwrap();
    let top = fs::canonicalize(dir.path()).unwrap();
    let scenario = write_in(&top, "kill.toml", SCENARIO);
    let scenario = scenario.to_str().unwrap();
    let job = write_in(
        &top,
        "kill.fio",
        "[r]\nrw=randread\nbs=4k\nsize=8m\nruntime=1\ntime_based\n",
    );
    let probes = top.join("probes");
    fs::create_dir(&probes).unwrap();
    let mut killed = Vec::new();
    // Without root: the runs on files.
    for (args, moments) in [
        (strings(&["run", scenario]), after(&[1])),
        (
            strings(&["fio", job.to_str().unwrap(), "--run"]),
            after(&[1]),
        ),
        (
            strings(&[
                "calibrate",
                "--dir",
                probes.to_str().unwrap(),
                "--seconds",
                "0.2",
                "--file-mib",
                "4",
            ]),
            after(&[1]),
        ),
    ] {
        let n = killed_at_every_moment_is_undone(&top, None, &args, &moments);
        killed.push(format!("{} x{n}", args[0]));
    }
    if !root() || !Path::new("/dev/fuse").exists() {
        eprintln!("kernel, emulate and versus skipped: need root, loop devices and /dev/fuse");
        return;
    }
    // The kernel's schedulers on a loop device made for the test.
    let img = top.join("disk.img");
    fs::File::create(&img).unwrap().set_len(256 << 20).unwrap();
    let Some(lo) = common::loop_over(&img, false) else {
        return;
    };
    let queue = PathBuf::from(lo.scheduler_file())
        .parent()
        .unwrap()
        .to_path_buf();
    let kernel = strings(&[
        "kernel",
        scenario,
        "--device",
        &lo.dev,
        "--kernel-scheduler",
        "mq-deadline",
    ]);
    let n = killed_at_every_moment_is_undone(&top, Some(&queue), &kernel, &after(&[1, 2, 3, 4, 6]));
    killed.push(format!("kernel x{n}"));
    drop(lo);
    let mount = top.join("emulated");
    fs::create_dir(&mount).unwrap();
    let emulate = strings(&[
        "emulate",
        "--preset",
        "maxtor-stm332061",
        "--size-gib",
        "1",
        "--mount",
        mount.to_str().unwrap(),
    ]);
    // The emulator journals its mount, then serves until killed: the
    // second change never comes, so kill it once it serves too.
    let moments = [Moment::Changes(1), Moment::Exists(mount.join("disk.img"))];
    let n = killed_at_every_moment_is_undone(&top, None, &emulate, &moments);
    killed.push(format!("emulate x{n}"));
    let versus = strings(&[
        "versus",
        scenario,
        "--preset",
        "maxtor-stm332061",
        "--repeat",
        "1",
    ]);
    let n = killed_at_every_moment_is_undone(
        &top,
        None,
        &versus,
        &after(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 12]),
    );
    killed.push(format!("versus x{n}"));
    eprintln!("killed: {}", killed.join(", "));
}

/// A sluice started by another (`Journal::spawn`) whose parent died
/// before journaling it ends at once, having done nothing: here the
/// parent's pipe is closed before any "go".
#[test]
fn a_started_sluice_whose_parent_died_first_does_nothing() {
    let out = Command::new(env!("CARGO_BIN_EXE_sluice"))
        .env("SLUICE_HOLD_UNTIL_JOURNALED", "1")
        .arg("list")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(out.stdout.is_empty(), "it ran: {out:?}");
    let (code, listed, _) = common::sluice(&["list"]);
    assert_eq!(code, 0);
    assert!(!listed.is_empty());
}
