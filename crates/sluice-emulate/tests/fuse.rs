//! Through FUSE: mount an emulated drive, time reads on it, write and read
//! back, unmount. Skipped (with the reason) where not root or /dev/fuse is
//! missing; the mount is undone even when an assertion fails (the
//! emulator unmounts when dropped).

use std::fs::OpenOptions;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::Instant;

use sluice_emulate::{model, Emulator, Options, Unmount};

fn skip_reason() -> Option<&'static str> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some("not root (mounting FUSE without fusermount needs root)");
    }
    if !Path::new("/dev/fuse").exists() {
        return Some("no /dev/fuse");
    }
    None
}

fn is_mountpoint(dir: &Path) -> bool {
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    mounts
        .lines()
        .any(|l| l.split_whitespace().nth(1) == Some(dir.to_str().unwrap()))
}

/// A 4 KiB-aligned buffer of `len` bytes inside `v`.
fn aligned(v: &mut [u8], len: usize) -> &mut [u8] {
    let skip = v.as_ptr().align_offset(4096);
    &mut v[skip..skip + len]
}

#[test]
fn reads_take_the_drives_time_and_data_comes_back() {
    if let Some(why) = skip_reason() {
        eprintln!("skipped: {why}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let m = model(Some("maxtor-stm332061"), None).unwrap();
    let emu = Emulator::start(&Options::new(m, 8 << 30, mnt.clone())).unwrap();
    assert!(is_mountpoint(&mnt));
    let disk = emu.disk_path();
    assert_eq!(std::fs::metadata(&disk).unwrap().len(), 8 << 30);

    let mut f = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_DIRECT)
        .open(&disk)
        .unwrap();
    let mut store = vec![0u8; 1 << 20];
    // Random 4 KiB reads: milliseconds each, zeros where nothing was written.
    let n = 20u64;
    let start = Instant::now();
    for i in 0..n {
        let off = (i * 7919 * 104_729) % ((8 << 30) / 4096) * 4096;
        f.seek(SeekFrom::Start(off)).unwrap();
        let buf = aligned(&mut store, 4096);
        buf.fill(1);
        f.read_exact(buf).unwrap();
        assert!(buf.iter().all(|&b| b == 0));
    }
    let mean_ms = start.elapsed().as_secs_f64() * 1e3 / n as f64;
    assert!(
        (2.0..=40.0).contains(&mean_ms),
        "mean random 4 KiB read through FUSE: {mean_ms:.2} ms"
    );

    // Write 64 KiB and read it back.
    let pattern: Vec<u8> = (0..65536u32).map(|i| (i % 253) as u8 + 1).collect();
    f.seek(SeekFrom::Start(3 << 30)).unwrap();
    aligned(&mut store, 65536).copy_from_slice(&pattern);
    f.write_all(aligned(&mut store, 65536)).unwrap();
    f.seek(SeekFrom::Start(3 << 30)).unwrap();
    let buf = aligned(&mut store, 65536);
    buf.fill(0);
    f.read_exact(buf).unwrap();
    assert!(buf == &pattern[..], "data read back differs");
    drop(f);

    assert!(emu.served() >= n + 2);
    assert_eq!(emu.stop().unwrap(), Unmount::Clean);
    assert!(!is_mountpoint(&mnt), "still mounted after stop");
}
