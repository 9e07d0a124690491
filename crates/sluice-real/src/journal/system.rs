//! The system calls behind undoing a mount and a loop device.

use std::fs::{self, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// `LOOP_CLR_FD` from linux/loop.h: detach a loop device from its file.
const LOOP_CLR_FD: libc::c_ulong = 0x4C01;

/// The loop devices whose backing file is `backing` (as
/// `/sys/block/loopN/loop/backing_file` names it; a file deleted since is
/// named with " (deleted)" after it).
pub(super) fn loops_over(backing: &Path) -> Vec<PathBuf> {
    let want = backing.as_os_str().as_bytes();
    let Ok(entries) = fs::read_dir("/sys/block") else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().as_bytes().starts_with(b"loop"))
        .filter(|e| {
            fs::read(e.path().join("loop/backing_file")).is_ok_and(|b| {
                let b = b.strip_suffix(b"\n").unwrap_or(&b);
                b == want || b.strip_suffix(b" (deleted)") == Some(want)
            })
        })
        .map(|e| Path::new("/dev").join(e.file_name()))
        .collect();
    found.sort();
    found
}

/// Detach loop device `dev` from its file.
pub(super) fn detach_loop(dev: &Path) -> std::io::Result<()> {
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_CLOEXEC | libc::O_NOFOLLOW)
        .open(dev)?;
    // SAFETY: an ioctl without arguments on a descriptor we own.
    if unsafe { libc::ioctl(f.as_raw_fd(), LOOP_CLR_FD as _, 0) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}
