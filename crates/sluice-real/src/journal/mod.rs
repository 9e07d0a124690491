//! What a run changed on this machine, written down before (or, for what
//! only its creator can name, right after) each change, so that a run
//! that died — SIGKILL, a crash, a power cut of the terminal — can be
//! undone later by `sluice clean` or by the start of the next run.
//!
//! Each run keeps one journal file in the state folder ([`state_dir`]),
//! holding an exclusive `flock` on it while it lives. The kernel drops that
//! lock when the process dies, however it dies, so "a journal nobody holds"
//! is exactly "a run that died": no pid guessing, no pid reuse. Lines are
//! JSON, appended as the run goes: the changes, and which of them the run
//! undid itself. A run that ends normally undoes everything and deletes its
//! journal.
//!
//! The journal is not synced to disk: what it guards (schedulers, cgroups,
//! mounts, loop devices, processes) does not outlive a reboot either, and
//! the page cache keeps the lines for a process that is killed.

mod lock;
mod process;
mod system;
mod undo;

use std::fs::{self, File};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

pub use self::lock::DeviceLock;
pub use self::process::{hold_until_journaled, process_start, Started, GRACE};
pub use self::undo::{clean, unmount_if_mounted, Cleaned};

/// One change to the machine and how to take it back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// A folder sluice created (mode 0700) with the files it put there:
    /// removed whole, if it is still the folder created.
    Folder {
        /// The folder (absolute).
        path: PathBuf,
        /// What was created there; None in journals of older sluices,
        /// whose folder is then left alone.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        made: Option<Identity>,
    },
    /// A file sluice created (exclusively) in a folder it did not create:
    /// removed if it is still the file created.
    File {
        /// The file (absolute).
        path: PathBuf,
        /// What was created there; None in journals of older sluices,
        /// whose file is then left alone.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        made: Option<Identity>,
    },
    /// A sysfs setting (a device's scheduler, a tunable): `before` is written
    /// back if the file still says what sluice set.
    Setting {
        /// The sysfs file.
        file: PathBuf,
        /// Its value before the run.
        before: String,
        /// The value the run set.
        set: String,
    },
    /// A setting the kernel resets when a device's scheduler changes (the
    /// old scheduler's tunables, `nr_requests`): written back once the
    /// scheduler is (this entry is older than the scheduler's, and the
    /// undo goes newest first), whatever the file says then.
    Reset {
        /// The sysfs file.
        file: PathBuf,
        /// Its value before the run.
        before: String,
    },
    /// A cgroup (removed with rmdir once its threads are gone).
    Cgroup {
        /// The cgroup's folder.
        path: PathBuf,
    },
    /// A file system mounted at this folder (FUSE, or tracefs where it was
    /// not mounted): unmounted lazily, as a FUSE server that died answers
    /// nothing and a tracefs file still open must not stop the undo.
    Mount {
        /// The mount point.
        path: PathBuf,
    },
    /// A tracefs instance (`.../tracing/instances/NAME`) sluice created to
    /// trace a device: removed with rmdir, which also takes away its
    /// buffers and the events, clock and filters set in it.
    Tracing {
        /// The instance's folder.
        path: PathBuf,
    },
    /// A loop device over this file: detached.
    Loop {
        /// The loop device's backing file.
        backing: PathBuf,
    },
    /// A helper process sluice started (the emulator): stopped with SIGTERM,
    /// if that pid is still the same process.
    Process {
        /// Its pid.
        pid: i32,
        /// Its start time (`/proc/PID/stat` field 22), telling a reused pid
        /// apart.
        start: u64,
    },
}

/// Which file or folder a path held when sluice created it (device and
/// inode): a path that holds anything else later is never removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    /// The device (`st_dev`).
    pub dev: u64,
    /// The inode (`st_ino`).
    pub ino: u64,
}

impl Identity {
    /// The identity `meta` describes.
    pub fn of(meta: &fs::Metadata) -> Identity {
        Identity {
            dev: meta.dev(),
            ino: meta.ino(),
        }
    }
}

impl Change {
    /// The folder this process just created at `path`: by its absolute
    /// path, as the undo may run from another directory, and its identity.
    pub fn created_folder(path: &Path) -> Result<Change> {
        let path = absolute(path)?;
        let meta = fs::symlink_metadata(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        if !meta.is_dir() {
            bail!("{} is not the folder sluice created", path.display());
        }
        Ok(Change::Folder {
            path,
            made: Some(Identity::of(&meta)),
        })
    }

    /// The file this process just created (exclusively) at `path` and
    /// holds open as `file`: by its absolute path and identity.
    pub fn created_file(path: &Path, file: &File) -> Result<Change> {
        let meta = file
            .metadata()
            .with_context(|| format!("cannot read {}", path.display()))?;
        Ok(Change::File {
            path: absolute(path)?,
            made: Some(Identity::of(&meta)),
        })
    }
}

/// `path` with its folder made canonical (links and `..` resolved against
/// this process's directory) and its last part kept as it is, so that the
/// path names the entry itself, never what a link there points to.
fn absolute(path: &Path) -> Result<PathBuf> {
    let name = path
        .file_name()
        .with_context(|| format!("{} names no file", path.display()))?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let parent = fs::canonicalize(parent)
        .with_context(|| format!("cannot resolve the folder of {}", path.display()))?;
    Ok(parent.join(name))
}

/// One line of a journal file.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Line {
    /// The first line: who wrote the journal.
    Begin { pid: u32, command: String },
    /// Change `id` was made (or is about to be) at `at` ([`now`]); older
    /// journals wrote no time (0).
    Change {
        id: u64,
        change: Change,
        #[serde(default)]
        at: u64,
    },
    /// The run undid change `id` itself.
    Undone { id: u64 },
}

/// A journal entry, to mark undone when the run has undone it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use = "mark the entry undone once the change is taken back"]
pub struct Entry(u64);

/// A run's journal: held (locked) while it lives, deleted when dropped
/// (the run has undone what it changed by then).
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: Mutex<(File, u64)>,
    /// Warnings of the run this journal belongs to, for its report: the
    /// library never prints them.
    warnings: Mutex<Vec<String>>,
}

/// The folder of journals and device locks: `$SLUICE_STATE_DIR`, or
/// `/run/sluice` for root, or `$XDG_RUNTIME_DIR/sluice`, or
/// `/tmp/sluice-UID`. Created private (0700); one that is someone else's,
/// a link, or open to others is refused.
pub fn state_dir() -> Result<PathBuf> {
    // SAFETY: geteuid has no preconditions.
    let uid = unsafe { libc::geteuid() };
    let dir = match std::env::var_os("SLUICE_STATE_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ if uid == 0 => PathBuf::from("/run/sluice"),
        _ => match std::env::var_os("XDG_RUNTIME_DIR") {
            Some(d) if !d.is_empty() => PathBuf::from(d).join("sluice"),
            _ => std::env::temp_dir().join(format!("sluice-{uid}")),
        },
    };
    match fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => bail!("cannot create sluice's state folder {}: {e}", dir.display()),
    }
    let meta = fs::symlink_metadata(&dir)
        .with_context(|| format!("sluice's state folder {}", dir.display()))?;
    if !meta.is_dir() || meta.uid() != uid || meta.permissions().mode() & 0o077 != 0 {
        bail!(
            "sluice's state folder {} is not a private folder of this user (mode 0700, owner uid {uid}); \
             remove it or set SLUICE_STATE_DIR",
            dir.display()
        );
    }
    Ok(dir)
}

/// Take an exclusive `flock` on `file` without waiting: false if another
/// open file holds it.
fn try_lock(file: &File) -> std::io::Result<bool> {
    // SAFETY: flock on a descriptor we own.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
        Ok(false)
    } else {
        Err(e)
    }
}

impl Journal {
    /// A new journal for this process's `command` (`run`, `kernel`, ...),
    /// locked; journals of runs that died are cleaned up first (what was
    /// done is the journal's first warnings), except in a process another
    /// run started ([`Journal::spawn`]), which would find its own parent's
    /// journal among them.
    pub fn begin(command: &str) -> Result<Journal> {
        let dir = state_dir()?;
        if process::STARTED_BY_A_RUN.load(std::sync::atomic::Ordering::Relaxed) {
            return Self::begin_in(&dir, command);
        }
        Self::begin_cleaning(&dir, command)
    }

    /// [`Journal::begin`] in `dir`.
    fn begin_cleaning(dir: &Path, command: &str) -> Result<Journal> {
        let cleaned = clean(dir)?;
        let j = Self::begin_in(dir, command)?;
        for c in cleaned.into_iter().filter(|c| !c.alive) {
            j.warn(c.to_string());
        }
        Ok(j)
    }

    /// Keep `message` (one line) for the run's report.
    pub fn warn(&self, message: String) {
        self.warnings
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(message);
    }

    /// The warnings kept so far, oldest first; the journal keeps none.
    pub fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut *self.warnings.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// [`Journal::begin`] in `dir`, without cleaning up first.
    pub fn begin_in(dir: &Path, command: &str) -> Result<Journal> {
        let pid = std::process::id();
        for n in 0..10_000u32 {
            let path = dir.join(format!("run-{pid}-{n}.journal"));
            let file = match sluice_input::create_new(&path, 0o600) {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => bail!("cannot create a journal in {}: {e}", dir.display()),
            };
            if !try_lock(&file).with_context(|| format!("locking {}", path.display()))? {
                bail!("{} is locked by another process", path.display());
            }
            let j = Journal {
                path,
                file: Mutex::new((file, 0)),
                warnings: Mutex::new(Vec::new()),
            };
            j.write(&Line::Begin {
                pid,
                command: command.to_string(),
            })?;
            return Ok(j);
        }
        bail!("cannot create a journal in {}", dir.display())
    }

    /// Where the journal is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write(&self, line: &Line) -> Result<()> {
        let mut text = serde_json::to_string(line).context("journal line")?;
        text.push('\n');
        let mut g = self.file.lock().unwrap_or_else(|p| p.into_inner());
        g.0.write_all(text.as_bytes())
            .with_context(|| format!("writing the journal {}", self.path.display()))
    }

    /// Write `change` down (before making it, or right after for what only
    /// its making names).
    pub fn record(&self, change: Change) -> Result<Entry> {
        let id = {
            let mut g = self.file.lock().unwrap_or_else(|p| p.into_inner());
            g.1 += 1;
            g.1
        };
        self.write(&Line::Change {
            id,
            change,
            at: now(),
        })?;
        Ok(Entry(id))
    }

    /// The run took `entry`'s change back itself.
    pub fn undone(&self, entry: Entry) {
        // Best effort: a journal that cannot be written any more only means
        // a later `sluice clean` retries an undo that is harmless to repeat.
        let _ = self.write(&Line::Undone { id: entry.0 });
    }
}

impl Drop for Journal {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// When a change is recorded: nanoseconds of `CLOCK_BOOTTIME`, one clock
/// for every process until the next boot (which ends what a journal
/// guards anyway), so that `clean` can undo the changes of several
/// journals — a `versus` and the kernel run inside it — newest first
/// across them.
pub(crate) fn now() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec we own.
    if unsafe { libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut t) } != 0 {
        return 0;
    }
    (t.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(t.tv_nsec as u64)
}

/// A change not yet undone and when it was made ([`now`]; 0 in older
/// journals).
#[derive(Clone, Debug, PartialEq)]
struct Pending {
    at: u64,
    change: Change,
}

/// What is left to undo in a journal's text: its writer's pid and command,
/// and the changes not marked undone, in the order they were made.
fn pending(text: &str) -> (Option<(u32, String)>, Vec<Pending>) {
    let mut who = None;
    let mut changes: Vec<(u64, Pending)> = Vec::new();
    for line in text.lines() {
        match serde_json::from_str::<Line>(line) {
            Ok(Line::Begin { pid, command }) => who = Some((pid, command)),
            Ok(Line::Change { id, change, at }) => changes.push((id, Pending { at, change })),
            Ok(Line::Undone { id }) => changes.retain(|(i, _)| *i != id),
            // A line cut short by the kill: nothing was recorded by it.
            Err(_) => {}
        }
    }
    (who, changes.into_iter().map(|c| c.1).collect())
}

#[cfg(test)]
mod tests;
