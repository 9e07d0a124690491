//! Targets: the files and block devices requests go to.

use std::fs::{File, OpenOptions};
use std::io::{self, Seek, SeekFrom};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use sluice::SECTOR_BYTES;

use crate::error::{Error, Result};

/// A target the engine has opened (index in open order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TargetId(pub u32);

/// How to open a target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetOptions {
    /// Ask for O_DIRECT (bypass the page cache). Where the file system
    /// refuses it (EINVAL at open), the target is opened buffered and
    /// [`TargetInfo::direct_fallback`] says why: the caller decides whether
    /// to warn or stop.
    pub direct: bool,
    /// Open for reading and writing (otherwise writes are refused at
    /// submission).
    pub write: bool,
    /// Create the file if it does not exist (implies `write`).
    pub create: bool,
    /// Set the file's length to this many bytes (regular files; implies
    /// `write`). New bytes read as zeros (a sparse file).
    pub size: Option<u64>,
    /// Writing to a block device destroys what it holds: opening one with
    /// `write` needs this too.
    pub allow_device_writes: bool,
}

impl Default for TargetOptions {
    /// Read-only, O_DIRECT.
    fn default() -> Self {
        TargetOptions {
            direct: true,
            write: false,
            create: false,
            size: None,
            allow_device_writes: false,
        }
    }
}

impl TargetOptions {
    /// Read-only, O_DIRECT.
    pub fn read_only() -> Self {
        Self::default()
    }

    /// Read-write, O_DIRECT, created if missing.
    pub fn read_write() -> Self {
        TargetOptions {
            write: true,
            create: true,
            ..Self::default()
        }
    }

    /// The same, with or without O_DIRECT.
    pub fn direct(mut self, direct: bool) -> Self {
        self.direct = direct;
        self
    }

    /// The same, with the file set to `bytes` long.
    pub fn size(mut self, bytes: u64) -> Self {
        self.size = Some(bytes);
        self
    }
}

/// What the engine knows of an opened target.
#[derive(Debug)]
pub struct TargetInfo {
    /// The path it was opened at.
    pub path: PathBuf,
    /// True when I/O bypasses the page cache.
    pub direct: bool,
    /// Set when O_DIRECT was asked for and refused: why, and that the target
    /// is buffered instead.
    pub direct_fallback: Option<String>,
    /// Opened for writing (`write`, `create` or `size` asked for it).
    pub writable: bool,
    /// A block device (else a regular file).
    pub block_device: bool,
    /// Size in bytes when opened.
    pub size: u64,
    /// Where the target starts in the policy's sector space: targets are
    /// laid end to end in open order (each on a 1 MiB boundary, at least
    /// 1 MiB long), as the simulator lays flows' files out on its disk, so
    /// that requests to distinct targets sit at distinct positions.
    pub base_sector: u64,
    /// Sectors reserved for it in that space.
    pub sectors: u64,
}

pub(crate) struct Target {
    pub file: File,
    pub info: TargetInfo,
    /// Requests submitted to it and not yet completed: a target is closed
    /// only when none is (the kernel holds its fd until then).
    pub pending: usize,
}

/// Sectors per region boundary (1 MiB).
const REGION_SECTORS: u64 = 2048;

pub(crate) fn open(path: &Path, opts: &TargetOptions, base_sector: u64) -> Result<Target> {
    let err = |source: io::Error| Error::Open {
        path: path.to_path_buf(),
        source,
    };
    let write = opts.write || opts.create || opts.size.is_some();
    let block_device = std::fs::metadata(path)
        .map(|m| m.file_type().is_block_device())
        .unwrap_or(false);
    if block_device && write && !opts.allow_device_writes {
        return Err(Error::DeviceWritesRefused {
            path: path.to_path_buf(),
        });
    }
    let open_with = |direct: bool| {
        let mut o = OpenOptions::new();
        o.read(true).write(write).create(opts.create);
        o.custom_flags(libc::O_CLOEXEC | if direct { libc::O_DIRECT } else { 0 });
        o.open(path)
    };
    let (file, direct, direct_fallback) = if opts.direct {
        match open_with(true) {
            Ok(f) => (f, true, None),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                let f = open_with(false).map_err(err)?;
                let why = format!("O_DIRECT refused ({e}): buffered I/O through the page cache");
                (f, false, Some(why))
            }
            Err(e) => return Err(err(e)),
        }
    } else {
        (open_with(false).map_err(err)?, false, None)
    };
    if let Some(size) = opts.size {
        if block_device {
            return Err(err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "size is for regular files, not block devices",
            )));
        }
        file.set_len(size).map_err(err)?;
    }
    let mut t = describe(file, path, direct, write, base_sector).map_err(err)?;
    t.info.direct_fallback = direct_fallback;
    Ok(t)
}

/// A file the host opened itself (see `Engine::adopt_target`): whether it
/// is writable and O_DIRECT is read from its status flags.
pub(crate) fn adopt(file: File, path: &Path, base_sector: u64) -> Result<Target> {
    // SAFETY: F_GETFL on an fd the `File` owns; no memory is passed.
    let flags = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETFL) };
    if flags < 0 {
        return Err(Error::Open {
            path: path.to_path_buf(),
            source: io::Error::last_os_error(),
        });
    }
    let write = flags & libc::O_ACCMODE != libc::O_RDONLY;
    let direct = flags & libc::O_DIRECT != 0;
    describe(file, path, direct, write, base_sector).map_err(|source| Error::Open {
        path: path.to_path_buf(),
        source,
    })
}

/// What the engine records of an open file: its size and its place in
/// the policy's sector space.
fn describe(
    mut file: File,
    path: &Path,
    direct: bool,
    writable: bool,
    base_sector: u64,
) -> io::Result<Target> {
    let block_device = file.metadata()?.file_type().is_block_device();
    // The end of a block device is its size (no ioctl needed).
    let size = file.seek(SeekFrom::End(0))?;
    let sectors = size.div_ceil(SECTOR_BYTES).div_ceil(REGION_SECTORS).max(1) * REGION_SECTORS;
    Ok(Target {
        file,
        info: TargetInfo {
            path: path.to_path_buf(),
            direct,
            direct_fallback: None,
            writable,
            block_device,
            size,
            base_sector,
            sectors,
        },
        pending: 0,
    })
}
