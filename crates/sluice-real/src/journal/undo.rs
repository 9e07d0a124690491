//! Undoing the journals of runs that died. Every undo is harmless to
//! repeat and leaves alone what is no longer what sluice made (a setting
//! someone changed since, a path that is now a link, a pid now another
//! process's).

use std::fs::{self, OpenOptions};
use std::io::Read;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::{pending, try_lock, Change, Identity};

/// Journals larger than this are not sluice's (a run records a few
/// thousand lines at most).
const MAX_JOURNAL: u64 = 64 << 20;

/// What cleaning up after one run did, or that the run is alive.
#[derive(Debug)]
pub struct Cleaned {
    /// The run's pid and command, as its journal says.
    pub who: String,
    /// Still running: left alone.
    pub alive: bool,
    /// What was undone (or could not be), in order.
    pub done: Vec<String>,
}

impl std::fmt::Display for Cleaned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.alive {
            return write!(f, "{} is still running; left alone", self.who);
        }
        write!(f, "cleaned up after {}, which died: ", self.who)?;
        if self.done.is_empty() {
            f.write_str("nothing was left")
        } else {
            f.write_str(&self.done.join("; "))
        }
    }
}

/// At most this many passes of [`clean`]: each pass after the first only
/// takes the journals of processes an earlier pass stopped.
const MAX_PASSES: usize = 8;

/// Undo the journals in `dir` that no live run holds, newest change first
/// across all of them (a `versus` and the kernel run inside it keep two
/// journals, and the kernel run's scheduler must be set back before
/// versus's loop device goes), and delete them. Returns one [`Cleaned`]
/// per journal found (live ones too, marked alive), in the journals'
/// name order.
///
/// Stopping a process a dead run started (an emulator) can leave that
/// process's own journal behind (SIGKILL after the grace, or a process
/// ended before it could undo): it was alive when the folder was read, so
/// the folder is read again after any pass that stopped a process.
pub fn clean(dir: &Path) -> Result<Vec<Cleaned>> {
    let mut all: Vec<(PathBuf, Cleaned)> = Vec::new();
    for _ in 0..MAX_PASSES {
        let (pass, stopped) = clean_once(dir)?;
        for (path, c) in pass {
            match all.iter_mut().find(|(p, _)| *p == path) {
                // Alive in an earlier pass, cleaned in this one.
                Some(slot) if slot.1.alive && !c.alive => slot.1 = c,
                Some(_) => {}
                None => all.push((path, c)),
            }
        }
        if !stopped {
            break;
        }
    }
    all.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(all.into_iter().map(|(_, c)| c).collect())
}

/// One pass of [`clean`]: each journal found with what was done, and
/// whether a process was stopped.
fn clean_once(dir: &Path) -> Result<(Vec<(PathBuf, Cleaned)>, bool)> {
    let mut names: Vec<PathBuf> = fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "journal"))
        .collect();
    names.sort();
    let mut found: Vec<Found> = Vec::new();
    for path in names {
        if let Some(f) = take(&path)? {
            found.push(f);
        }
    }
    // Every dead journal's changes, newest first: by time, then (for the
    // untimed changes of older journals) by place in their journal.
    let mut order: Vec<(u64, usize, usize)> = Vec::new();
    for (j, f) in found.iter().enumerate() {
        for (k, p) in f.changes.iter().enumerate() {
            order.push((p.at, j, k));
        }
    }
    order.sort_by(|a, b| (b.0, b.2).cmp(&(a.0, a.2)).then(b.1.cmp(&a.1)));
    let mut done: Vec<Vec<String>> = vec![Vec::new(); found.len()];
    let mut stopped = false;
    for (_, j, k) in order {
        let change = &found[j].changes[k].change;
        if let Some(said) = undo(change) {
            stopped |= matches!(change, Change::Process { .. });
            done[j].push(said);
        }
    }
    let cleaned = found
        .into_iter()
        .zip(done)
        .map(|(f, done)| {
            if let Some(path) = &f.dead {
                let _ = fs::remove_file(path);
            }
            let c = Cleaned {
                who: f.who,
                alive: f.dead.is_none(),
                done,
            };
            (f.path, c)
        })
        .collect();
    Ok((cleaned, stopped))
}

/// A journal found by [`clean`]: locked by us (its run died) or held by
/// a live run.
struct Found {
    /// Where the journal was found.
    path: PathBuf,
    who: String,
    /// The journal's path if its run died (we hold its lock through
    /// `_file` until it is deleted); None for a live run's.
    dead: Option<PathBuf>,
    /// What is left to undo (nothing for a live run's).
    changes: Vec<super::Pending>,
    _file: std::fs::File,
}

/// Open and lock the journal at `path`: None when it is gone or not a
/// journal sluice wrote.
fn take(path: &Path) -> Result<Option<Found>> {
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK)
        .open(path)
    {
        Ok(f) => f,
        // Gone meanwhile (its run ended, or another clean took it).
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        // Not a journal sluice wrote (a link, a folder): not ours to undo,
        // and no reason to stop a run.
        Err(_) => return Ok(None),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Ok(None);
    }
    let Ok(free) = try_lock(&file) else {
        return Ok(None);
    };
    let held = !free;
    let mut bytes = Vec::new();
    (&file)
        .take(MAX_JOURNAL)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {}", path.display()))?;
    // Lines that are not JSON (a damaged file) are skipped, not fatal.
    let (who, changes) = pending(&String::from_utf8_lossy(&bytes));
    let who = match who {
        Some((pid, command)) => format!("sluice {command} (pid {pid})"),
        None => format!("the run of {}", path.display()),
    };
    if held {
        return Ok(Some(Found {
            path: path.to_path_buf(),
            who,
            dead: None,
            changes: Vec::new(),
            _file: file,
        }));
    }
    // Another clean may have taken this journal and deleted it between our
    // open and our lock: then the name is gone or names another file.
    match fs::symlink_metadata(path) {
        Ok(m) if m.ino() == meta.ino() && m.dev() == meta.dev() => {}
        _ => return Ok(None),
    }
    Ok(Some(Found {
        path: path.to_path_buf(),
        who,
        dead: Some(path.to_path_buf()),
        changes,
        _file: file,
    }))
}

/// Take `change` back; what was done, or None when there was nothing to do.
fn undo(change: &Change) -> Option<String> {
    match change {
        Change::Folder { path, made } => {
            let m = match ours(path, *made, "folder") {
                Ok(m) => m,
                Err(warning) => return warning,
            };
            if !m.is_dir() {
                return None;
            }
            Some(match fs::remove_dir_all(path) {
                Ok(()) => format!("removed folder {}", path.display()),
                Err(e) => format!("could not remove folder {}: {e}", path.display()),
            })
        }
        Change::File { path, made } => {
            let m = match ours(path, *made, "file") {
                Ok(m) => m,
                Err(warning) => return warning,
            };
            if !m.is_file() {
                return None;
            }
            Some(match fs::remove_file(path) {
                Ok(()) => format!("removed file {}", path.display()),
                Err(e) => format!("could not remove file {}: {e}", path.display()),
            })
        }
        Change::Setting { file, before, set } => {
            let now = fs::read_to_string(file).ok()?;
            if before == set || crate::host::current_value(&now) != *set {
                return None;
            }
            Some(match fs::write(file, before) {
                Ok(()) => format!("set {} back to {before} (was {set})", file.display()),
                Err(e) => format!("could not set {} back to {before}: {e}", file.display()),
            })
        }
        Change::Reset { file, before } => {
            let now = fs::read_to_string(file).ok()?;
            if crate::host::current_value(&now) == *before {
                return None;
            }
            Some(match fs::write(file, before) {
                Ok(()) => format!("set {} back to {before}", file.display()),
                Err(e) => format!("could not set {} back to {before}: {e}", file.display()),
            })
        }
        Change::Cgroup { path } => {
            fs::symlink_metadata(path).ok()?;
            // The run's threads died with it, but the kernel may take a
            // moment to empty the group.
            let mut last = None;
            for _ in 0..50 {
                match fs::remove_dir(path) {
                    Ok(()) => return Some(format!("removed cgroup {}", path.display())),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
                    Err(e) => last = Some(e),
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Some(format!(
                "could not remove cgroup {}: {}",
                path.display(),
                last.map_or_else(String::new, |e| e.to_string())
            ))
        }
        Change::Mount { path } => Some(match unmount_if_mounted(path)? {
            Ok(()) => format!("unmounted {}", path.display()),
            Err(e) => format!("could not unmount {}: {e}", path.display()),
        }),
        Change::Tracing { path } => {
            if !fs::symlink_metadata(path).ok()?.is_dir() {
                return None;
            }
            // A tracefs instance goes with rmdir, buffers and all; its run
            // died, so no file of it is open any more.
            Some(match fs::remove_dir(path) {
                Ok(()) => format!("removed tracing instance {}", path.display()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
                Err(e) => format!("could not remove tracing instance {}: {e}", path.display()),
            })
        }
        Change::Loop { backing } => {
            let devs = super::system::loops_over(backing);
            if devs.is_empty() {
                return None;
            }
            let said: Vec<String> = devs
                .iter()
                .map(|d| match super::system::detach_loop(d) {
                    Ok(()) => format!("detached {}", d.display()),
                    Err(e) => format!("could not detach {}: {e}", d.display()),
                })
                .collect();
            Some(said.join("; "))
        }
        Change::Process { pid, start } => match super::process::stop(*pid, *start) {
            super::process::Stopped::Gone => None,
            super::process::Stopped::Ended => Some(format!("stopped process {pid}")),
            super::process::Stopped::Killed => Some(format!(
                "killed process {pid} (it did not end within {} s of SIGTERM)",
                super::process::GRACE.as_secs()
            )),
            super::process::Stopped::Stuck => {
                Some(format!("could not stop process {pid}: it outlived SIGKILL"))
            }
        },
    }
}

/// Whether `path` still holds what sluice created there (`made`): its
/// metadata if so, else `Err` with the warning to give (None when there is
/// nothing there). A relative path (older journals) is never resolved
/// against this process's directory, which may be another than the run's.
fn ours(path: &Path, made: Option<Identity>, what: &str) -> Result<fs::Metadata, Option<String>> {
    if path.is_relative() {
        return Err(Some(format!(
            "warning: left {what} {} alone: an older sluice wrote it down relative to a \
             directory that is not known now; remove it yourself if it is sluice's",
            path.display()
        )));
    }
    let m = fs::symlink_metadata(path).map_err(|_| None)?;
    match made {
        Some(id) if Identity::of(&m) == id => Ok(m),
        Some(_) => Err(Some(format!(
            "warning: left {what} {} alone: it is not the one sluice created (replaced since)",
            path.display()
        ))),
        None => Err(Some(format!(
            "warning: left {what} {} alone: an older sluice's journal does not say which \
             {what} it created; remove it yourself if it is sluice's",
            path.display()
        ))),
    }
}

/// Unmount `path` lazily if it is a mount point (a FUSE server that died
/// answers nothing, and a lazy unmount does not wait for it); None when
/// nothing is mounted there. The undo of [`Change::Mount`], and what a run
/// does itself once its emulator has stopped.
pub fn unmount_if_mounted(path: &Path) -> Option<std::io::Result<()>> {
    is_mount_point(path).then(|| crate::host::unmount_lazily(path))
}

/// Whether `path` is a mount point (listed in /proc/self/mounts).
fn is_mount_point(path: &Path) -> bool {
    let Ok(text) = fs::read_to_string("/proc/self/mounts") else {
        return false;
    };
    let want = path.to_string_lossy();
    text.lines().any(|l| {
        l.split_whitespace()
            .nth(1)
            .is_some_and(|m| unescape_mount(m) == want)
    })
}

/// /proc/self/mounts writes space, tab, newline and backslash as octal
/// escapes.
fn unescape_mount(s: &str) -> String {
    s.replace("\\040", " ")
        .replace("\\011", "\t")
        .replace("\\012", "\n")
        .replace("\\134", "\\")
}
