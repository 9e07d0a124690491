//! Where the flows' data lives: one file per flow in a folder (sluice's own
//! fresh folder, removed afterwards, or the user's `dir`), or regions of
//! one block device (`device`), laid end to end as the simulator lays
//! flows' files out on its disk.

use std::fs::{self, File};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{bail, Context, Result};

use crate::host::pattern_byte;
use crate::journal::{Change, Entry, Journal};
use crate::Refused;

/// The flows' files: removed when dropped (also on an error or Ctrl-C),
/// unless kept. Only what this run created is ever removed: every file is
/// created exclusively, and written down in the run's journal once made.
pub(super) struct Files {
    /// The folder sluice created (removed whole), or None with `dir`.
    own_dir: Option<PathBuf>,
    /// The files created, in order.
    pub paths: Vec<PathBuf>,
    dir: PathBuf,
    keep: bool,
    journal: Arc<Journal>,
    entries: Vec<Entry>,
}

impl Files {
    /// No files yet; they go in `dir`, or in a fresh private
    /// folder in the current directory.
    pub(super) fn new(dir: Option<&Path>, keep: bool, journal: &Arc<Journal>) -> Result<Files> {
        let mut entries = Vec::new();
        let (own_dir, dir) = match dir {
            Some(d) => (None, d.to_path_buf()),
            None => {
                let d = fresh_dir()?;
                match Change::created_folder(&d).and_then(|c| journal.record(c)) {
                    Ok(e) => entries.push(e),
                    Err(e) => {
                        let _ = fs::remove_dir(&d);
                        return Err(e);
                    }
                }
                (Some(d.clone()), d)
            }
        };
        Ok(Files {
            own_dir,
            paths: Vec::new(),
            dir,
            keep,
            journal: Arc::clone(journal),
            entries,
        })
    }

    /// Where the files go.
    pub(super) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Create file `name` in the folder: exclusively, never through a link
    /// (`O_CREAT|O_EXCL|O_NOFOLLOW`); a name that exists is refused and
    /// left as it is.
    pub(super) fn create(&mut self, name: &str) -> Result<(PathBuf, File)> {
        let path = self.dir.join(name);
        let file = match sluice_input::create_new(&path, 0o600) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(Refused(format!(
                    "{} exists: sluice never overwrites or removes a file it did not create; \
                     remove it or choose another --dir",
                    path.display()
                ))
                .into())
            }
            Err(e) if denied(&e) => {
                return Err(Refused(format!("cannot create {}: {e}", path.display())).into())
            }
            Err(e) => bail!("cannot create {}: {e}", path.display()),
        };
        // Written down right after the exclusive create, with what was
        // created: a kill in between leaves an empty file of sluice's name
        // behind, never a journal line that could name a user's file.
        if self.own_dir.is_none() {
            match Change::created_file(&path, &file).and_then(|c| self.journal.record(c)) {
                Ok(e) => self.entries.push(e),
                Err(e) => {
                    let _ = fs::remove_file(&path);
                    return Err(e);
                }
            }
        }
        self.paths.push(path.clone());
        Ok((path, file))
    }
}

impl Drop for Files {
    fn drop(&mut self) {
        if !self.keep {
            match &self.own_dir {
                Some(d) => {
                    let _ = fs::remove_dir_all(d);
                }
                None => {
                    for p in &self.paths {
                        let _ = fs::remove_file(p);
                    }
                }
            }
        }
        // Removed, or kept as asked: nothing for `sluice clean` to do.
        for e in self.entries.drain(..) {
            self.journal.undone(e);
        }
    }
}

/// A fresh private folder `sluice-run-PID-N` in the current directory.
fn fresh_dir() -> Result<PathBuf> {
    let cwd = std::env::current_dir().context("current directory")?;
    for n in 0..1000 {
        let d = cwd.join(format!("sluice-run-{}-{n}", std::process::id()));
        match fs::DirBuilder::new().mode(0o700).create(&d) {
            Ok(()) => return Ok(d),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => bail!("cannot create a folder in {}: {e}", cwd.display()),
        }
    }
    bail!("cannot create a fresh folder in {}", cwd.display())
}

/// The file name of flow `index` called `name` (only safe characters).
pub(super) fn file_name(index: usize, name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("sluice-{index:05}-{safe}.dat")
}

/// Whether `e` says a permission is missing (no write permission, a
/// read-only file system): a refusal, not bad input.
fn denied(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::{PermissionDenied, ReadOnlyFilesystem};
    matches!(e.kind(), PermissionDenied | ReadOnlyFilesystem)
}

/// Refuse a folder this process may not create files in (checked with
/// its effective ids before any file is made).
pub(crate) fn check_writable(dir: &Path) -> Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        bail!("`dir` {}: a path with a NUL byte", dir.display());
    };
    let flags = libc::W_OK | libc::X_OK;
    // SAFETY: a valid NUL-terminated path; faccessat only reads it.
    if unsafe { libc::faccessat(libc::AT_FDCWD, c.as_ptr(), flags, libc::AT_EACCESS) } != 0 {
        let e = std::io::Error::last_os_error();
        let why = format!("`dir` {}: cannot create files there ({e})", dir.display());
        if denied(&e) {
            return Err(Refused(why).into());
        }
        bail!(why);
    }
    Ok(())
}

/// Bytes free for an unprivileged user on the file system holding `dir`.
pub(crate) fn free_bytes(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: a valid NUL-terminated path and a statvfs to fill.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    Some(st.f_bavail as u64 * st.f_frsize as u64)
}

/// The active kernel I/O scheduler of the block device `path` is, or holds
/// (`/sys/dev/block/MAJ:MIN[/..]/queue/scheduler`), if there is one.
pub(super) fn kernel_scheduler(path: &Path) -> Option<String> {
    let meta = fs::metadata(path).ok()?;
    let dev = if meta.file_type().is_block_device() {
        meta.rdev()
    } else {
        meta.dev()
    };
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let base = PathBuf::from(format!("/sys/dev/block/{major}:{minor}"));
    let text = fs::read_to_string(base.join("queue/scheduler"))
        .or_else(|_| fs::read_to_string(base.join("../queue/scheduler")))
        .ok()?;
    // A list without a bracketed choice names none.
    let v = crate::host::current_value(&text);
    (!v.is_empty() && !v.contains(' ')).then_some(v)
}

/// Fill flow `flow`'s new file `f` (at `path`), `bytes` long, with its
/// pattern, on disk before the clock starts. Stops early (with an error)
/// when `stop` is raised.
pub(super) fn fill(
    mut f: File,
    path: &Path,
    flow: usize,
    bytes: u64,
    stop: &AtomicBool,
) -> Result<()> {
    let ctx = || format!("cannot fill {}", path.display());
    const CHUNK: u64 = 1 << 20;
    // The pattern repeats every 251 bytes: build one chunk plus a period
    // and start each write at the chunk's phase.
    let big: Vec<u8> = (0..CHUNK + 251).map(|p| pattern_byte(flow, p)).collect();
    let mut pos = 0;
    while pos < bytes {
        if stop.load(Ordering::Relaxed) {
            bail!("interrupted while creating {}", path.display());
        }
        let n = (bytes - pos).min(CHUNK) as usize;
        let phase = (pos % 251) as usize;
        f.write_all(&big[phase..phase + n]).with_context(ctx)?;
        pos += n as u64;
    }
    f.sync_all().with_context(ctx)?;
    Ok(())
}

/// Make flow `flow`'s new file `f` (at `path`) a sparse file `bytes` long
/// with only `extents` (byte offset, length) filled with its pattern: a
/// recorded start-up replay reads a few hundred places of a span as large
/// as the disk it was recorded on.
pub(super) fn fill_extents(
    f: File,
    path: &Path,
    flow: usize,
    bytes: u64,
    extents: &[(u64, u64)],
) -> Result<()> {
    use std::os::unix::fs::FileExt;
    let ctx = || format!("cannot fill {}", path.display());
    f.set_len(bytes).with_context(ctx)?;
    for &(at, len) in extents {
        let len = len.min(bytes.saturating_sub(at));
        let data: Vec<u8> = (at..at + len).map(|p| pattern_byte(flow, p)).collect();
        f.write_all_at(&data, at).with_context(ctx)?;
    }
    f.sync_all().with_context(ctx)?;
    // Out of the page cache: the run's O_DIRECT reads find nothing cached
    // there to write back or invalidate first.
    // SAFETY: a valid descriptor; advice only.
    unsafe {
        libc::posix_fadvise(
            std::os::fd::AsRawFd::as_raw_fd(&f),
            0,
            0,
            libc::POSIX_FADV_DONTNEED,
        )
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 43, defect 1: a file made in a relative `--dir` is journaled
    /// by its absolute path and identity, so a clean from elsewhere finds
    /// it (and only it).
    #[test]
    fn a_relative_dir_is_journaled_absolute_with_what_was_created() {
        let state = tempfile::tempdir().unwrap();
        let work = tempfile::tempdir().unwrap();
        let cwd = std::env::current_dir().unwrap().canonicalize().unwrap();
        let mut rel = PathBuf::new();
        for _ in cwd.components().skip(1) {
            rel.push("..");
        }
        let canonical = work.path().canonicalize().unwrap();
        let rel = rel.join(canonical.strip_prefix("/").unwrap());
        let journal = Arc::new(Journal::begin_in(state.path(), "test").unwrap());
        let mut files = Files::new(Some(&rel), false, &journal).unwrap();
        let (_, f) = files.create("sluice-00000-a.dat").unwrap();
        let ino = f.metadata().unwrap().ino();
        let text = fs::read_to_string(journal.path()).unwrap();
        let want = format!(
            "\"path\":\"{}\",\"made\":{{\"dev\":{},\"ino\":{ino}}}",
            canonical.join("sluice-00000-a.dat").display(),
            f.metadata().unwrap().dev()
        );
        assert!(text.contains(&want), "{text}");
        drop(files);
        assert!(!canonical.join("sluice-00000-a.dat").exists());
    }

    #[test]
    fn file_names_keep_only_safe_characters() {
        assert_eq!(file_name(3, "a b/c-d"), "sluice-00003-a_b_c-d.dat");
    }
}
