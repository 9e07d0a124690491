//! One run per block device: a run that sets a device's scheduler or does
//! I/O on it holds an exclusive `flock` on a lock file named after the
//! device's number in the state folder. A second run is refused instead of
//! setting its own scheduler over the first's (and restoring the wrong one
//! after). The kernel drops the lock when its holder dies.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

use anyhow::{Context, Result};

use super::{state_dir, try_lock};
use crate::Refused;

/// A block device held by this run until dropped.
#[derive(Debug)]
pub struct DeviceLock {
    _file: File,
}

impl DeviceLock {
    /// Hold block device `dev` (by its device number, whatever the path
    /// names it), or refuse if another run holds it.
    pub fn take(dev: &Path) -> Result<DeviceLock> {
        Self::take_in(&state_dir()?, dev)
    }

    /// [`DeviceLock::take`] with its lock file in `dir`.
    pub fn take_in(dir: &Path, dev: &Path) -> Result<DeviceLock> {
        let meta = std::fs::metadata(dev).with_context(|| format!("{}", dev.display()))?;
        let rdev = if meta.file_type().is_block_device() {
            meta.rdev()
        } else {
            meta.dev()
        };
        let path = dir.join(format!(
            "device-{}-{}.lock",
            libc::major(rdev),
            libc::minor(rdev)
        ));
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&path)
            .with_context(|| format!("opening the device lock {}", path.display()))?;
        if !try_lock(&file).with_context(|| format!("locking {}", path.display()))? {
            let mut holder = String::new();
            let _ = (&file).take(64).read_to_string(&mut holder);
            let holder = holder.trim();
            return Err(Refused(format!(
                "{} is in use by another sluice run{}; wait for it to end or stop it",
                dev.display(),
                if holder.is_empty() {
                    String::new()
                } else {
                    format!(" (pid {holder})")
                }
            ))
            .into());
        }
        // Ours now: say who holds it, for the message above.
        file.set_len(0)?;
        file.seek(SeekFrom::Start(0))?;
        write!(file, "{}", std::process::id())?;
        Ok(DeviceLock { _file: file })
    }
}
