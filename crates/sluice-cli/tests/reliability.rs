//! Regression tests of the adversarial campaign's defects in the real
//! hosts: no hang at any completion rate, no file opened through a planted
//! name, bad blocks exit 3, and what a killed run left is undone by
//! `sluice clean`. Tests needing io_uring or root skip with a reason.

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{no_uring, root, write_in};

/// `sluice ARGS` started in `cwd` with its journals in `state`.
fn start(cwd: &Path, state: &Path, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_sluice"))
        .current_dir(cwd)
        .env("SLUICE_STATE_DIR", state)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start sluice")
}

/// Wait up to `limit` for `child`: its exit code and stderr, or None
/// (killed) if it was still running.
fn wait(mut child: Child, limit: Duration) -> Option<(i32, String)> {
    let t = Instant::now();
    while t.elapsed() < limit {
        if let Some(status) = child.try_wait().unwrap() {
            let out = child.wait_with_output().unwrap();
            return Some((
                status.code().unwrap_or(-1),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// `sluice clean` with its journals in `state`: whether it succeeded,
/// and what it printed.
fn clean(state: &Path) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sluice"))
        .env("SLUICE_STATE_DIR", state)
        .arg("clean")
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// A loop device over a fresh sparse image of `bytes` in `dir`; None
/// (the test skips) where one cannot be made.
fn loop_device(dir: &Path, bytes: u64) -> Option<common::Loop> {
    let img = dir.join("disk.img");
    std::fs::File::create(&img).unwrap().set_len(bytes).unwrap();
    common::loop_over(&img, false)
}

/// `child` (a run in real time with its files in `work`) ends by itself
/// within a minute, exit 0, leaving nothing in `work`; a test without
/// io_uring skips.
fn ends_on_time_leaving_nothing(child: Child, work: &Path) {
    let (code, err) = wait(child, Duration::from_secs(60)).expect("still running after 60 s");
    if no_uring(&err) {
        return;
    }
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_dir(work).unwrap().count(), 0, "files left");
}

/// A private folder for the runs' journals (sluice refuses one others
/// may write to).
fn state_dir() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    d
}

fn scenario(flows: &str, seconds: f64, queue_depth: u32) -> String {
    format!(
        "name = \"rel\"\nseed = 1\nduration_s = {seconds}\nwarmup_s = 0\n[device]\n\
         queue_depth = {queue_depth}\n[scheduler]\nname = \"noop\"\n{flows}"
    )
}

/// Defect 1: at queue depth 1024 on a 1 MiB file the completions never
/// ran out and the loop never looked at the clock or the signals.
#[test]
fn a_run_at_queue_depth_1024_ends_on_time() {
    let dir = tempfile::tempdir().unwrap();
    let state = state_dir();
    let s = write_in(
        dir.path(),
        "qd.toml",
        &scenario(
            "[[flow]]\nname = \"r\"\npattern = \"rand-read\"\nfile_gib = 0.001\noutstanding = 1024\n",
            0.5,
            1024,
        ),
    );
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let child = start(&work, state.path(), &["run", s.to_str().unwrap()]);
    ends_on_time_leaving_nothing(child, &work);
}

/// Defect 2: a link or a file planted under a flow's file name in --dir
/// was truncated, filled and removed (through the link: its target).
#[test]
fn a_planted_name_in_dir_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let state = state_dir();
    let s = write_in(
        dir.path(),
        "one.toml",
        &scenario(
            "[[flow]]\nname = \"r\"\npattern = \"seq-read\"\nfile_gib = 0.001\n",
            0.2,
            1,
        ),
    );
    let victim = write_in(dir.path(), "victim", "precious");
    for planted in ["link", "plain"] {
        let d = dir.path().join(planted);
        std::fs::create_dir(&d).unwrap();
        let name = d.join("sluice-00000-r.dat");
        if planted == "link" {
            std::os::unix::fs::symlink(&victim, &name).unwrap();
        } else {
            std::fs::write(&name, "theirs").unwrap();
        }
        let child = start(
            dir.path(),
            state.path(),
            &["run", s.to_str().unwrap(), "--dir", d.to_str().unwrap()],
        );
        let (code, err) = wait(child, Duration::from_secs(60)).expect("no exit");
        assert_eq!(code, 2, "{planted}: {err}");
        assert!(err.contains("exists"), "{planted}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(name.symlink_metadata().is_ok(), "{planted}: removed");
        if planted == "link" {
            assert!(name.symlink_metadata().unwrap().file_type().is_symlink());
        } else {
            assert_eq!(std::fs::read_to_string(&name).unwrap(), "theirs");
        }
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
}

/// Defect 9: a run whose file another process zeroed mid-run reported
/// the bad blocks and exited 0.
#[test]
fn verify_finding_bad_blocks_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    let state = state_dir();
    let s = write_in(
        dir.path(),
        "w.toml",
        &scenario(
            "[[flow]]\nname = \"w\"\npattern = \"rand-write\"\nrequest_kib = 4\nfile_gib = 0.001\n\
             think_ms = 5\noutstanding = 1\n",
            3.0,
            1,
        ),
    );
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let mut child = start(
        &work,
        state.path(),
        &["run", s.to_str().unwrap(), "--verify", "--json"],
    );
    // Once the run has stamped blocks of its file (it has started and
    // written), zero the file under it.
    // 512 blocks: 64 of the file's 256 4 KiB places written, about a
    // quarter of the run's writes.
    let zeroed = common::run_started(
        &mut child,
        &work,
        1,
        common::file_bytes(0.001),
        Duration::from_secs(30),
    ) && zero_once_stamped(&work, 512, Duration::from_secs(30));
    let (code, err) = wait(child, Duration::from_secs(60)).expect("no exit");
    if no_uring(&err) {
        return;
    }
    assert!(zeroed, "the flow's file never appeared: {err}");
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("--verify"), "{err}");
}

/// Wait up to `limit` until the one flow file under `work` holds `blocks`
/// 512-byte blocks stamped by the run's `--verify` (its magic,
/// `SLUICEVB`), then zero the file's first MiB; whether it did. Enough
/// blocks are stamped that some are surely not written again before the
/// run ends, and read back as zeros.
fn zero_once_stamped(work: &Path, blocks: usize, limit: Duration) -> bool {
    use std::os::unix::fs::FileExt;
    let file = || {
        std::fs::read_dir(work)
            .ok()?
            .flatten()
            .find_map(|d| std::fs::read_dir(d.path()).ok()?.flatten().next())
            .map(|f| f.path())
    };
    let stamped = |p: &Path| {
        std::fs::read(p).is_ok_and(|b| {
            b.chunks(512)
                .filter(|blk| blk.starts_with(b"SLUICEVB"))
                .count()
                >= blocks
        })
    };
    let t = Instant::now();
    while t.elapsed() < limit {
        if let Some(p) = file().filter(|p| stamped(p)) {
            let f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
            f.write_all_at(&vec![0u8; 1 << 20], 0).unwrap();
            // Buffered writes under the run's O_DIRECT ones: the kernel may
            // flag the collision as EIO at fsync; the zeros are in the file
            // either way.
            let _ = f.sync_all();
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// Defect 14: a run killed with SIGKILL left its folder, and nothing
/// found it later; `sluice clean` removes it from its journal.
#[test]
fn clean_removes_what_a_killed_run_left() {
    let dir = tempfile::tempdir().unwrap();
    let state = state_dir();
    let s = write_in(
        dir.path(),
        "long.toml",
        &scenario(
            "[[flow]]\nname = \"r\"\npattern = \"rand-read\"\nfile_gib = 0.01\n",
            30.0,
            4,
        ),
    );
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let mut child = start(&work, state.path(), &["run", s.to_str().unwrap()]);
    let started = common::run_started(
        &mut child,
        &work,
        1,
        common::file_bytes(0.01),
        Duration::from_secs(20),
    );
    if !started {
        let (_, err) = wait(child, Duration::from_secs(10)).unwrap_or_default();
        if no_uring(&err) {
            return;
        }
        panic!("the run never started: {err}");
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let left: Vec<_> = std::fs::read_dir(&work).unwrap().flatten().collect();
    assert_eq!(left.len(), 1, "the killed run's folder");
    let (ok, said) = clean(state.path());
    assert!(ok, "{said}");
    assert!(said.contains("removed folder"), "{said}");
    assert_eq!(std::fs::read_dir(&work).unwrap().count(), 0, "{said}");
    assert!(clean(state.path()).1.contains("nothing to clean"));
}

/// Defects 8 and 12 and 14 on a device: threads that cannot start leave
/// no cgroups, a second run on a held device is refused, and the
/// scheduler of a killed kernel run comes back with `sluice clean`.
/// Root and a loop device needed.
#[test]
fn kernel_runs_hold_their_device_and_are_undone() {
    if !root() {
        eprintln!("skipped: needs root (loop device, kernel scheduler, cgroups)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let state = state_dir();
    let Some(lo) = loop_device(dir.path(), 64 << 20) else {
        return;
    };
    let sched = lo.scheduler_file();
    let before = std::fs::read_to_string(&sched).unwrap();
    let s = write_in(
        dir.path(),
        "k.toml",
        &scenario(
            "[[flow]]\nname = \"a\"\npattern = \"rand-read\"\nfile_gib = 0.01\n\
             [[flow]]\nname = \"b\"\npattern = \"rand-read\"\nfile_gib = 0.01\n",
            30.0,
            4,
        ),
    );
    let args = [
        "kernel",
        s.to_str().unwrap(),
        "--device",
        &lo.dev,
        "--kernel-scheduler",
        "mq-deadline",
    ];
    let mut first = start(dir.path(), state.path(), &args);
    let t = Instant::now();
    while !std::fs::read_to_string(&sched)
        .unwrap()
        .contains("[mq-deadline]")
        && t.elapsed() < Duration::from_secs(20)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    let second = start(dir.path(), state.path(), &args);
    let (code, err) = wait(second, Duration::from_secs(30)).expect("no exit");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("in use"), "{err}");
    first.kill().unwrap();
    first.wait().unwrap();
    assert!(std::fs::read_to_string(&sched)
        .unwrap()
        .contains("[mq-deadline]"));
    assert!(clean(state.path()).0);
    assert_eq!(std::fs::read_to_string(&sched).unwrap(), before);
}

/// Defect 8: under bfq, a run whose flow threads cannot all start (300
/// flows × 64 in flight under a 4 GiB address-space cap) left one cgroup
/// per flow behind. Root, a loop device, bfq and cgroup v1 blkio needed.
#[test]
fn threads_that_cannot_start_leave_no_cgroups() {
    if !root() {
        eprintln!("skipped: needs root (loop device, kernel scheduler, cgroups)");
        return;
    }
    let blkio = Path::new("/sys/fs/cgroup/blkio");
    if !blkio.is_dir() {
        eprintln!("skipped: no cgroup v1 blkio hierarchy");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let state = state_dir();
    let Some(lo) = loop_device(dir.path(), 1 << 30) else {
        return;
    };
    if !std::fs::read_to_string(lo.scheduler_file())
        .unwrap()
        .contains("bfq")
    {
        eprintln!("skipped: the kernel offers no bfq");
        return;
    }
    let s = write_in(
        dir.path(),
        "many.toml",
        &scenario(
            "[[flow]]\nname = \"r\"\npattern = \"rand-read\"\nfile_gib = 0.001\ncount = 300\n\
             outstanding = 64\n",
            2.0,
            4,
        ),
    );
    let child = Command::new("prlimit")
        .arg(format!("--as={}", 4u64 << 30))
        .arg(env!("CARGO_BIN_EXE_sluice"))
        .args(["kernel", s.to_str().unwrap(), "--device", &lo.dev])
        .args(["--kernel-scheduler", "bfq"])
        .env("SLUICE_STATE_DIR", state.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let (code, err) = wait(child, Duration::from_secs(120)).expect("no exit");
    let left: Vec<_> = std::fs::read_dir(blkio)
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(&format!("sluice-{pid}-"))
        })
        .collect();
    assert!(
        left.is_empty(),
        "{} cgroups left; {code}: {err}",
        left.len()
    );
}

/// Files sluice writes where the user points it (`report -o`) are created
/// exclusively too: an existing file is not truncated, a planted link not
/// followed.
#[test]
fn report_output_is_never_written_through_an_existing_name() {
    let dir = tempfile::tempdir().unwrap();
    let scen = common::workspace().join("scenarios/10r-rand.toml");
    let (code, out, err) =
        common::sluice_in(dir.path(), &["sim", scen.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    write_in(dir.path(), "r.json", &out);
    let victim = write_in(dir.path(), "victim", "precious");
    std::os::unix::fs::symlink(&victim, dir.path().join("link.html")).unwrap();
    write_in(dir.path(), "old.html", "old");
    for name in ["link.html", "old.html"] {
        let (code, _, err) = common::sluice_in(dir.path(), &["report", "r.json", "-o", name]);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(err.contains("exists"), "{err}");
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("old.html")).unwrap(),
        "old"
    );
    let (code, _, err) = common::sluice_in(dir.path(), &["report", "r.json", "-o", "new.html"]);
    assert_eq!(code, 0, "{err}");
}

/// Defect 14 for `versus`: killed with SIGKILL it left an emulator
/// running, its FUSE mount, a loop device over it and its folder, and
/// nothing found them later; `sluice clean` undoes them all. Root and
/// /dev/fuse needed.
#[test]
fn clean_undoes_a_killed_versus() {
    if !root() || !Path::new("/dev/fuse").exists() {
        eprintln!("skipped: needs root and /dev/fuse");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let state = state_dir();
    let scen = common::workspace().join("scenarios/versus/startup-xterm-10r-seq.toml");
    let mut child = start(
        dir.path(),
        state.path(),
        &[
            "versus",
            scen.to_str().unwrap(),
            "--preset",
            "maxtor-stm332061",
        ],
    );
    let top = dir.path().join(format!("sluice-versus-{}", child.id()));
    let backing = top.join("mnt/disk.img");
    // The loop devices over the emulated disk: by the path while the file
    // system is mounted, by the path a lazily unmounted one leaves
    // ("/disk.img") once it is not.
    let loops_over = |paths: &[&str]| {
        let out = Command::new("losetup")
            .args(["--list", "--noheadings", "--output", "NAME,BACK-FILE"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| {
                let mut f = l.split_whitespace();
                let (name, back) = (f.next()?, f.next()?);
                paths.contains(&back).then(|| name.to_string())
            })
            .collect::<Vec<String>>()
    };
    let ours = backing.to_str().unwrap().to_string();
    let loops = || loops_over(&[&ours]).len();
    let mounted = || {
        std::fs::read_to_string("/proc/mounts")
            .unwrap()
            .contains(top.to_str().unwrap())
    };
    let t = Instant::now();
    while loops() == 0 && t.elapsed() < Duration::from_secs(60) {
        if child.try_wait().unwrap().is_some() {
            eprintln!("skipped: versus ended before its loop device appeared");
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(loops() > 0, "no loop device over {}", backing.display());
    let devices = loops_over(&[&ours]);
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(top.exists(), "the killed versus left its folder");
    let (ok, said) = clean(state.path());
    assert!(ok, "{said}");
    // A loop device still open (udev probing it) detaches on its last
    // close: wait for that too.
    let left = || -> Vec<String> {
        loops_over(&[&ours, "/disk.img"])
            .into_iter()
            .filter(|d| devices.contains(d))
            .collect()
    };
    let t = Instant::now();
    while (mounted() || !left().is_empty()) && t.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left = left();
    assert!(left.is_empty(), "{left:?} still attached: {said}");
    assert!(!mounted(), "{said}");
    assert!(!top.exists(), "{said}");
    let emulator = || {
        let out = Command::new("pgrep")
            .args(["-f", &format!("emulate .*{}", top.display())])
            .output()
            .unwrap();
        !String::from_utf8_lossy(&out.stdout).trim().is_empty()
    };
    let t = Instant::now();
    while emulator() && t.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!emulator(), "an emulator is left: {said}");
}

/// Defect 1 through `sluice fio --run`: `iodepth=1024` on a 1 MiB file
/// spun forever the same way.
#[test]
fn fio_run_at_iodepth_1024_ends_on_time() {
    let dir = tempfile::tempdir().unwrap();
    let state = state_dir();
    let job = write_in(
        dir.path(),
        "deep.fio",
        "[j]\nrw=randread\nbs=4k\nsize=1m\niodepth=1024\nruntime=500ms\ntime_based\n",
    );
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let child = start(
        dir.path(),
        state.path(),
        &[
            "fio",
            job.to_str().unwrap(),
            "--run",
            "--dir",
            work.to_str().unwrap(),
        ],
    );
    ends_on_time_leaving_nothing(child, &work);
}

/// A 40 KB line quoted back whole made a 40 KB "one-line" error: input is
/// quoted in excerpts, and a fio job file line is bounded.
#[test]
fn errors_quote_long_input_lines_in_excerpts() {
    let dir = tempfile::tempdir().unwrap();
    let toml = write_in(
        dir.path(),
        "deep.toml",
        &format!(
            "name = \"x\"\na = {}{}\n",
            "[".repeat(20000),
            "]".repeat(20000)
        ),
    );
    let fio = write_in(
        dir.path(),
        "long.fio",
        &format!("[j]\nrw=read\ndirectory={}\n", "d".repeat(50_000)),
    );
    for (args, what) in [
        (vec!["sim", toml.to_str().unwrap()], "toml"),
        (vec!["fio", fio.to_str().unwrap()], "fio"),
    ] {
        let (code, _, err) = common::sluice_in(dir.path(), &args);
        assert_eq!(code, 1, "{what}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{what}");
        assert!(err.len() < 400, "{what}: {} bytes", err.len());
    }
}

/// Defect 13: a recorded start-up replay whose trace writes (`WS`) was
/// accepted on a device without --allow-writes and failed at its first
/// write, after reads had reached the device. Root and a loop device
/// needed.
#[test]
fn a_startup_trace_that_writes_is_refused_on_a_device_before_any_io() {
    if !root() {
        eprintln!("skipped: needs root (loop device)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let Some(lo) = loop_device(dir.path(), 64 << 20) else {
        return;
    };
    let trace = write_in(
        dir.path(),
        "ws.trace",
        "app-1 \t   0     8   1000  Rand    0      0        R   0.0 START\n\
         app-1  .001     8   2000  Rand    0      0        R   0.001   C\n\
         app-1  .001     8   3000  Rand    0      0        WS   0.002   C\n",
    );
    let s = write_in(
        dir.path(),
        "ws.toml",
        &scenario(
            &format!(
                "[[flow]]\nname = \"g\"\npattern = \"startup\"\ntrace = {:?}\nreplay = \"recorded\"\n",
                trace.display().to_string()
            ),
            3.0,
            1,
        ),
    );
    let name = Path::new(&lo.dev).file_name().unwrap().to_str().unwrap();
    let ios = || {
        let stat = std::fs::read_to_string(format!("/sys/block/{name}/stat")).unwrap();
        let f: Vec<u64> = stat
            .split_whitespace()
            .map(|x| x.parse().unwrap())
            .collect();
        f[0] + f[4]
    };
    // udev probes a new device: counted once its queue of events is
    // empty (the probe done), not after a guessed pause.
    let _ = Command::new("udevadm")
        .args(["settle", "--timeout=10"])
        .status();
    let before = ios();
    let (code, _, err) = common::sluice_in(
        dir.path(),
        &["run", s.to_str().unwrap(), "--device", &lo.dev],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("writes") && err.contains("--allow-writes"),
        "{err}"
    );
    assert_eq!(ios(), before, "I/O reached the device before the refusal");
}
