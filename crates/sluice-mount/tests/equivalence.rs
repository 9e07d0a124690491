//! Correct before fast: the same random operations through the mount and
//! directly on a second copy must leave the same tree, byte for byte and
//! attribute for attribute, after every step, under every policy.
//!
//! Needs root and /dev/fuse (mounting FUSE); elsewhere each test says why
//! it is skipped, in one line, and passes.

use std::collections::BTreeMap;
use std::fs;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rand::{Rng, SeedableRng};
use sluice_mount::{Mount, Options};
use sluice_runtime::MountConfig;

/// Why the machine cannot run these tests, if it cannot.
fn cannot_mount() -> Option<&'static str> {
    if unsafe { libc::geteuid() } != 0 {
        return Some("needs root to mount FUSE");
    }
    if !Path::new("/dev/fuse").exists() {
        return Some("no /dev/fuse");
    }
    None
}

struct Mounted {
    _dir: tempfile::TempDir,
    src: PathBuf,
    mnt: PathBuf,
    reference: PathBuf,
    mount: Option<Mount>,
}

fn mount_with(scheduler: &str, read_only: bool, depth: usize) -> Mounted {
    let dir = tempfile::tempdir().unwrap();
    let (src, mnt, reference) = (
        dir.path().join("src"),
        dir.path().join("mnt"),
        dir.path().join("ref"),
    );
    for d in [&src, &mnt, &reference] {
        fs::create_dir(d).unwrap();
    }
    let config = MountConfig::default_for(scheduler).unwrap();
    let opts = Options {
        read_only,
        queue_depth: depth,
        ..Options::new(src.clone(), mnt.clone(), config)
    };
    let mount = Mount::start(opts).unwrap_or_else(|e| panic!("{scheduler}: {e}"));
    Mounted {
        _dir: dir,
        src,
        mnt,
        reference,
        mount: Some(mount),
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        if let Some(m) = self.mount.take() {
            let _ = m.stop();
        }
    }
}

/// Everything under `root` a caller can see: per path, its kind, size,
/// permission bits and contents (or link target).
fn snapshot(root: &Path) -> BTreeMap<PathBuf, (String, u64, u32, Vec<u8>)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let mut names: Vec<_> = fs::read_dir(root.join(&rel))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        for name in names {
            let r = rel.join(&name);
            let p = root.join(&r);
            let m = fs::symlink_metadata(&p).unwrap();
            let ft = m.file_type();
            let (kind, body) = if ft.is_dir() {
                stack.push(r.clone());
                ("dir", Vec::new())
            } else if ft.is_symlink() {
                (
                    "link",
                    fs::read_link(&p)
                        .unwrap()
                        .into_os_string()
                        .into_encoded_bytes(),
                )
            } else {
                ("file", fs::read(&p).unwrap())
            };
            let size = if ft.is_dir() { 0 } else { m.len() };
            out.insert(r, (kind.to_string(), size, m.mode() & 0o7777, body));
        }
    }
    out
}

/// One random step, applied the same way under `root`.
#[derive(Clone, Debug)]
enum Op {
    Write {
        name: String,
        offset: u64,
        data: Vec<u8>,
    },
    Truncate {
        name: String,
        size: u64,
    },
    Rename {
        from: String,
        to: String,
    },
    Read {
        name: String,
        offset: u64,
        len: usize,
    },
    Unlink {
        name: String,
    },
    Mkdir {
        name: String,
    },
    Chmod {
        name: String,
        mode: u32,
    },
    Symlink {
        name: String,
        target: String,
    },
}

fn random_op(rng: &mut impl Rng) -> Op {
    let names = ["a", "b", "c", "d/e", "d/f", "g"];
    let name = names[rng.gen_range(0..names.len())].to_string();
    match rng.gen_range(0..10) {
        0..=2 => {
            let len = rng.gen_range(1..70_000);
            Op::Write {
                name,
                offset: rng.gen_range(0..300_000),
                data: (0..len).map(|_| rng.gen()).collect(),
            }
        }
        3 => Op::Truncate {
            name,
            size: rng.gen_range(0..200_000),
        },
        4 => Op::Rename {
            from: name,
            to: names[rng.gen_range(0..names.len())].to_string(),
        },
        5 => Op::Read {
            name,
            offset: rng.gen_range(0..300_000),
            len: rng.gen_range(1..200_000),
        },
        6 => Op::Unlink { name },
        7 => Op::Mkdir {
            name: "d".to_string(),
        },
        8 => Op::Chmod {
            name,
            mode: [0o600, 0o644, 0o640, 0o755][rng.gen_range(0..4)],
        },
        _ => Op::Symlink {
            name,
            target: "a".to_string(),
        },
    }
}

/// Apply `op` under `root`: what the caller saw (data read, or the error).
fn apply(root: &Path, op: &Op) -> Result<Vec<u8>, i32> {
    let code = |e: std::io::Error| e.raw_os_error().unwrap_or(-1);
    match op {
        Op::Write { name, offset, data } => {
            let mut f = fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .open(root.join(name))
                .map_err(code)?;
            f.seek(SeekFrom::Start(*offset)).map_err(code)?;
            f.write_all(data).map_err(code)?;
            Ok(Vec::new())
        }
        Op::Truncate { name, size } => {
            let f = fs::OpenOptions::new()
                .write(true)
                .open(root.join(name))
                .map_err(code)?;
            f.set_len(*size).map_err(code)?;
            Ok(Vec::new())
        }
        Op::Rename { from, to } => fs::rename(root.join(from), root.join(to))
            .map(|_| Vec::new())
            .map_err(code),
        Op::Read { name, offset, len } => {
            let mut f = fs::File::open(root.join(name)).map_err(code)?;
            f.seek(SeekFrom::Start(*offset)).map_err(code)?;
            let mut buf = vec![0; *len];
            let mut got = 0;
            loop {
                let n = f.read(&mut buf[got..]).map_err(code)?;
                if n == 0 || got + n == buf.len() {
                    got += n;
                    break;
                }
                got += n;
            }
            buf.truncate(got);
            Ok(buf)
        }
        Op::Unlink { name } => fs::remove_file(root.join(name))
            .map(|_| Vec::new())
            .map_err(code),
        Op::Mkdir { name } => fs::create_dir(root.join(name))
            .map(|_| Vec::new())
            .map_err(code),
        Op::Chmod { name, mode } => {
            fs::set_permissions(root.join(name), fs::Permissions::from_mode(*mode))
                .map(|_| Vec::new())
                .map_err(code)
        }
        Op::Symlink { name, target } => std::os::unix::fs::symlink(target, root.join(name))
            .map(|_| Vec::new())
            .map_err(code),
    }
}

/// `steps` random operations through the mount and on the reference,
/// compared after each.
fn same_as_a_direct_copy(scheduler: &str, depth: usize, steps: usize, seed: u64) {
    let m = mount_with(scheduler, false, depth);
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    for step in 0..steps {
        let op = random_op(&mut rng);
        let through = apply(&m.mnt, &op);
        let direct = apply(&m.reference, &op);
        assert_eq!(
            through.as_ref().map(Vec::len),
            direct.as_ref().map(Vec::len),
            "{scheduler}: step {step} {op:?}: the mount answered otherwise"
        );
        assert!(
            through == direct,
            "{scheduler}: step {step} {op:?}: different data read"
        );
        let (a, b) = (snapshot(&m.mnt), snapshot(&m.reference));
        assert_eq!(
            a.keys().collect::<Vec<_>>(),
            b.keys().collect::<Vec<_>>(),
            "{scheduler}: step {step} {op:?}: names"
        );
        for (k, va) in &a {
            assert!(
                va == &b[k],
                "{scheduler}: step {step} {op:?}: {} differs",
                k.display()
            );
        }
        assert_eq!(
            snapshot(&m.src).len(),
            a.len(),
            "{scheduler}: SRC holds what the mount shows"
        );
    }
}

#[test]
fn random_operations_through_the_mount_match_a_direct_copy_under_every_policy() {
    if let Some(why) = cannot_mount() {
        eprintln!("skipped: {why}");
        return;
    }
    for (i, info) in sluice::policy::POLICIES.iter().enumerate() {
        same_as_a_direct_copy(info.name, 1 + i % 4, 60, i as u64);
    }
}

#[test]
fn a_longer_run_at_depth_eight_under_bfq_plus() {
    if let Some(why) = cannot_mount() {
        eprintln!("skipped: {why}");
        return;
    }
    same_as_a_direct_copy("bfq+", 8, 400, 99);
}

#[test]
fn read_only_refuses_every_change_with_erofs() {
    if let Some(why) = cannot_mount() {
        eprintln!("skipped: {why}");
        return;
    }
    let m = mount_with("noop", true, 1);
    fs::write(m.src.join("x"), b"data").unwrap();
    assert_eq!(fs::read(m.mnt.join("x")).unwrap(), b"data");
    let erofs = |r: std::io::Result<()>| r.unwrap_err().raw_os_error() == Some(libc::EROFS);
    assert!(erofs(fs::write(m.mnt.join("y"), b"1")));
    assert!(erofs(
        fs::OpenOptions::new()
            .write(true)
            .open(m.mnt.join("x"))
            .map(drop)
    ));
    assert!(erofs(fs::remove_file(m.mnt.join("x"))));
    assert!(erofs(fs::create_dir(m.mnt.join("z"))));
    assert!(erofs(fs::rename(m.mnt.join("x"), m.mnt.join("w"))));
    assert_eq!(fs::read(m.src.join("x")).unwrap(), b"data");
    assert!(!m.src.join("y").exists());
}

#[test]
fn links_inside_src_stay_links_and_never_lead_out() {
    if let Some(why) = cannot_mount() {
        eprintln!("skipped: {why}");
        return;
    }
    let m = mount_with("noop", false, 1);
    let outside = m.src.parent().unwrap().join("outside");
    fs::create_dir(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, m.src.join("out")).unwrap();
    let meta = fs::symlink_metadata(m.mnt.join("out")).unwrap();
    assert!(meta.file_type().is_symlink());
    // Written through the link: the kernel follows it on the caller's side
    // (to the real `outside`), never through the mount.
    assert_eq!(fs::read_link(m.mnt.join("out")).unwrap(), outside);
}

#[test]
fn stats_count_each_flows_bytes() {
    if let Some(why) = cannot_mount() {
        eprintln!("skipped: {why}");
        return;
    }
    let mut m = mount_with("bfq", false, 1);
    fs::write(m.mnt.join("f"), vec![7u8; 1 << 20]).unwrap();
    let stats = m.mount.take().unwrap().stop().unwrap();
    assert_eq!(stats.schema, "sluice.mount/1");
    let me = stats
        .flows
        .iter()
        .find(|f| f.name.ends_with(&format!("[{}]", std::process::id())))
        .expect("this process is a flow");
    assert_eq!(me.bytes, 1 << 20);
    assert!(me.writes >= 1 && me.lat_max_ms > 0.0);
}

#[test]
fn the_engine_thread_ends_when_the_mount_goes_from_outside() {
    if let Some(why) = cannot_mount() {
        eprintln!("skipped: {why}");
        return;
    }
    // The file system used to wake the engine before its channel closed:
    // the engine slept again and `stop` never returned.
    for _ in 0..20 {
        let mut m = mount_with("noop", false, 1);
        fs::write(m.mnt.join("f"), b"x").unwrap();
        let c = std::ffi::CString::new(m.mnt.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::umount2(c.as_ptr(), 0) }, 0);
        let mount = m.mount.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(mount.stop().map(|s| s.flows.len()));
        });
        let got = rx.recv_timeout(std::time::Duration::from_secs(30));
        assert!(
            matches!(got, Ok(Ok(1))),
            "stop after an outside umount: {got:?}"
        );
    }
}

#[test]
fn an_exited_processes_flow_is_removed_and_its_totals_kept() {
    if let Some(why) = cannot_mount() {
        eprintln!("skipped: {why}");
        return;
    }
    let mut m = mount_with("bfq", false, 1);
    fs::write(m.src.join("f"), vec![1u8; 65536]).unwrap();
    let status = std::process::Command::new("cat")
        .arg(m.mnt.join("f"))
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    // Exited processes are looked for at most once a second, on a request.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    fs::write(m.mnt.join("g"), b"after").unwrap();
    let stats = m.mount.take().unwrap().stop().unwrap();
    let cat = stats
        .flows
        .iter()
        .find(|f| f.name.starts_with("cat["))
        .expect("cat's flow");
    assert!(cat.exited, "{cat:?}");
    assert_eq!(cat.bytes, 65536);
    let me = stats
        .flows
        .iter()
        .find(|f| f.name.ends_with(&format!("[{}]", std::process::id())))
        .unwrap();
    assert!(!me.exited);
}

#[test]
fn odd_requests_get_errors_and_the_mount_keeps_serving() {
    use std::os::unix::fs::FileExt;
    if let Some(why) = cannot_mount() {
        eprintln!("skipped: {why}");
        return;
    }
    let m = mount_with("yfq", false, 2);
    let path = m.mnt.join("f");
    fs::write(&path, b"0123456789").unwrap();
    let f = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    let mut buf = [0u8; 16];
    // Far beyond the end, and past what an offset can hold with a length.
    assert_eq!(f.read_at(&mut buf, 1 << 40).unwrap(), 0);
    assert!(f
        .read_at(&mut buf, (i64::MAX - 4) as u64)
        .map(|n| n == 0)
        .unwrap_or(true));
    assert!(f.write_at(b"x", i64::MAX as u64).is_err());
    // Calls the mount does not implement: an error, no panic.
    let fd = std::os::fd::AsRawFd::as_raw_fd(&f);
    assert_eq!(unsafe { libc::fallocate(fd, 0, 0, 4096) }, -1);
    let mut big = vec![0u8; 1 << 20];
    let name = std::ffi::CString::new("user.none").unwrap();
    let p = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    let r = unsafe {
        libc::getxattr(
            p.as_ptr(),
            name.as_ptr(),
            big.as_mut_ptr().cast(),
            big.len(),
        )
    };
    assert_eq!(r, -1);
    let r = unsafe { libc::listxattr(p.as_ptr(), big.as_mut_ptr().cast(), big.len()) };
    assert!(r >= 0);
    assert!(fs::read(m.mnt.join("no/such")).is_err());
    assert!(fs::create_dir(m.mnt.join("f/inside")).is_err());
    // Still serving.
    assert_eq!(fs::read(&path).unwrap(), b"0123456789");
}
