//! The kernel's I/O scheduler of a block device: which are offered, which
//! is active, and setting one for a run with the old one restored after
//! (on drop: also on an error or Ctrl-C).

use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use std::sync::Arc;

use crate::journal::{Change, Entry, Journal};
use crate::Refused;

/// `/sys/dev/block/MAJ:MIN/queue` of the disk holding block device `dev`
/// (a partition's scheduler is its disk's).
pub fn queue_dir(dev: &Path) -> Result<PathBuf, Refused> {
    let meta = fs::metadata(dev).map_err(|e| Refused(format!("{}: {e}", dev.display())))?;
    if !meta.file_type().is_block_device() {
        return Err(Refused(format!(
            "{} is not a block device (sluice kernel needs one: a disk, a partition or a loop device)",
            dev.display()
        )));
    }
    let rdev = meta.rdev();
    let base = PathBuf::from(format!(
        "/sys/dev/block/{}:{}",
        libc::major(rdev),
        libc::minor(rdev)
    ));
    for q in [base.join("queue"), base.join("../queue")] {
        if q.join("scheduler").exists() {
            return Ok(q);
        }
    }
    Err(Refused(format!(
        "{}: no queue/scheduler under {} (is sysfs mounted?)",
        dev.display(),
        base.display()
    )))
}

/// The schedulers offered and the active one, from `queue/scheduler`
/// (`none [mq-deadline] kyber bfq`).
pub(super) fn parse_schedulers(text: &str) -> (Vec<String>, Option<String>) {
    let mut offered = Vec::new();
    let mut active = None;
    for w in text.split_whitespace() {
        match w.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
            Some(a) => {
                active = Some(a.to_string());
                offered.push(a.to_string());
            }
            None => offered.push(w.to_string()),
        }
    }
    (offered, active)
}

/// The scheduler set for the run; the old one comes back on drop.
pub struct SchedulerGuard {
    file: PathBuf,
    before: String,
    journal: Arc<Journal>,
    entry: Entry,
    /// What switching away from the old scheduler resets (its tunables,
    /// `nr_requests`), with their values before: written back after it.
    reset: Vec<(PathBuf, String, Entry)>,
}

impl SchedulerGuard {
    /// Check that `want` is offered and that we may set it, then set it
    /// (written down in `journal` first, so that a run that dies can be
    /// undone).
    pub fn set(queue: &Path, want: &str, journal: &Arc<Journal>) -> anyhow::Result<Self> {
        let file = queue.join("scheduler");
        let text =
            fs::read_to_string(&file).map_err(|e| Refused(format!("{}: {e}", file.display())))?;
        let (offered, active) = parse_schedulers(&text);
        if !offered.iter().any(|o| o == want) {
            return Err(Refused(format!(
                "the kernel offers no '{want}' scheduler for this device (offered: {}); for bfq try `modprobe bfq`",
                offered.join(", ")
            ))
            .into());
        }
        let before = active.unwrap_or_else(|| "none".to_string());
        // Recorded before the switch, so undone after the scheduler is.
        let mut reset = Vec::new();
        if before != want {
            for (file, value) in reset_by_switch(queue) {
                let entry = journal.record(Change::Reset {
                    file: file.clone(),
                    before: value.clone(),
                })?;
                reset.push((file, value, entry));
            }
        }
        let entry = journal.record(Change::Setting {
            file: file.clone(),
            before: before.clone(),
            set: want.to_string(),
        })?;
        if let Err(e) = fs::write(&file, want) {
            journal.undone(entry);
            for (_, _, r) in reset {
                journal.undone(r);
            }
            return Err(Refused(format!(
                "cannot set the scheduler in {} ({e}): sluice kernel needs root",
                file.display()
            ))
            .into());
        }
        Ok(SchedulerGuard {
            file,
            before,
            journal: Arc::clone(journal),
            entry,
            reset,
        })
    }
}

/// The settings a scheduler switch resets, with their values now: every
/// writable tunable of the active scheduler (`queue/iosched/*`) and
/// `queue/nr_requests`, in name order.
fn reset_by_switch(queue: &Path) -> Vec<(PathBuf, String)> {
    use std::os::unix::fs::PermissionsExt;
    let mut files: Vec<PathBuf> = fs::read_dir(queue.join("iosched"))
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    files.push(queue.join("nr_requests"));
    files
        .into_iter()
        .filter(|f| {
            fs::metadata(f).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o200 != 0)
        })
        .filter_map(|f| {
            let value = fs::read_to_string(&f).ok()?.trim().to_string();
            Some((f, value))
        })
        .collect()
}

impl Drop for SchedulerGuard {
    fn drop(&mut self) {
        if let Err(e) = fs::write(&self.file, &self.before) {
            self.journal.warn(format!(
                "could not restore scheduler '{}' in {}: {e}",
                self.before,
                self.file.display()
            ));
        } else {
            self.journal.undone(self.entry);
        }
        for (file, value, entry) in self.reset.drain(..) {
            let now = fs::read_to_string(&file).unwrap_or_default();
            if now.trim() == value {
                self.journal.undone(entry);
                continue;
            }
            match fs::write(&file, &value) {
                Ok(()) => self.journal.undone(entry),
                Err(e) => self.journal.warn(format!(
                    "could not restore '{value}' in {}: {e}",
                    file.display()
                )),
            }
        }
    }
}

/// A kernel scheduler tunable (`NAME=VALUE`, a file under
/// `queue/iosched/`), as `NAME=VALUE` text gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tunable {
    /// The file's name under `queue/iosched/` (`low_latency`, `slice_idle`).
    pub name: String,
    /// What to write to it.
    pub value: String,
}

impl std::str::FromStr for Tunable {
    type Err = String;

    /// `NAME=VALUE`: NAME a plain file name (letters, digits, `_`), VALUE
    /// at most 64 printable characters.
    fn from_str(s: &str) -> Result<Self, String> {
        let (name, value) = s
            .split_once('=')
            .ok_or_else(|| format!("'{s}': expected NAME=VALUE (e.g. low_latency=0)"))?;
        let (name, value) = (name.trim(), value.trim());
        if name.is_empty()
            || name.len() > 64
            || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            return Err(format!(
                "'{name}': a tunable is a file name under queue/iosched/ (letters, digits, _)"
            ));
        }
        if value.is_empty() || value.len() > 64 || value.chars().any(|c| c.is_control()) {
            return Err(format!(
                "'{s}': the value must be 1 to 64 printable characters"
            ));
        }
        Ok(Tunable {
            name: name.to_string(),
            value: value.to_string(),
        })
    }
}

/// Sysfs settings set for a run (a scheduler's tunables, a queue's
/// limits); each comes back to its old value on drop, in reverse order.
/// A scheduler's tunables are dropped before the scheduler is restored.
pub struct SettingsGuard {
    set: Vec<(PathBuf, String, Entry)>,
    journal: Arc<Journal>,
}

impl SettingsGuard {
    /// Set `tunables` in `queue/iosched/` of the scheduler just set (each
    /// written down in `journal` first). A tunable the scheduler does not
    /// have is refused, naming the ones it has; one the kernel rejects is
    /// refused with its error. On a refusal the ones already set are
    /// restored.
    pub fn tunables(
        queue: &Path,
        scheduler: &str,
        tunables: &[Tunable],
        journal: &Arc<Journal>,
    ) -> anyhow::Result<Self> {
        Self::set_in(
            &queue.join("iosched"),
            "`tunables`",
            &format!("the kernel's {scheduler}"),
            tunables,
            journal,
        )
    }

    /// Set `settings` among a device's `queue/` files (`rotational`,
    /// `max_sectors_kb`, `nr_requests`), as [`SettingsGuard::tunables`] does.
    pub fn queue(
        queue: &Path,
        settings: &[Tunable],
        journal: &Arc<Journal>,
    ) -> anyhow::Result<Self> {
        Self::set_in(
            queue,
            "queue setting",
            "the device's queue",
            settings,
            journal,
        )
    }

    fn set_in(
        dir: &Path,
        flag: &str,
        owner: &str,
        tunables: &[Tunable],
        journal: &Arc<Journal>,
    ) -> anyhow::Result<Self> {
        let mut guard = SettingsGuard {
            set: Vec::new(),
            journal: Arc::clone(journal),
        };
        for t in tunables {
            let file = dir.join(&t.name);
            let before = match fs::read_to_string(&file) {
                Ok(b) => b.trim().to_string(),
                Err(_) => {
                    let mut has: Vec<String> = fs::read_dir(dir)
                        .map(|d| {
                            d.filter_map(|e| e.ok())
                                .map(|e| e.file_name().to_string_lossy().into_owned())
                                .collect()
                        })
                        .unwrap_or_default();
                    has.sort();
                    return Err(Refused(format!(
                        "{flag} {}: {owner} has no tunable '{}' (it has: {})",
                        t.name,
                        t.name,
                        if has.is_empty() {
                            "none".to_string()
                        } else {
                            has.join(", ")
                        }
                    ))
                    .into());
                }
            };
            let entry = journal.record(Change::Setting {
                file: file.clone(),
                before: before.clone(),
                set: t.value.clone(),
            })?;
            if let Err(e) = fs::write(&file, &t.value) {
                journal.undone(entry);
                return Err(Refused(format!(
                    "{flag} {}={}: the kernel refused it ({e})",
                    t.name, t.value
                ))
                .into());
            }
            guard.set.push((file, before, entry));
        }
        Ok(guard)
    }
}

impl Drop for SettingsGuard {
    fn drop(&mut self) {
        while let Some((file, before, entry)) = self.set.pop() {
            match fs::write(&file, &before) {
                Ok(()) => self.journal.undone(entry),
                Err(e) => self.journal.warn(format!(
                    "could not restore '{before}' in {}: {e}",
                    file.display()
                )),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bracketed_scheduler_is_active() {
        let (o, a) = parse_schedulers("none [mq-deadline] kyber bfq\n");
        assert_eq!(o, vec!["none", "mq-deadline", "kyber", "bfq"]);
        assert_eq!(a.as_deref(), Some("mq-deadline"));
        let (o, a) = parse_schedulers("[none] \n");
        assert_eq!((o.len(), a.as_deref()), (1, Some("none")));
    }

    #[test]
    fn a_tunable_is_a_plain_name_and_a_short_value() {
        let t: Tunable = "low_latency=0".parse().unwrap();
        assert_eq!((t.name.as_str(), t.value.as_str()), ("low_latency", "0"));
        let t: Tunable = " timeout_sync = 125 ".parse().unwrap();
        assert_eq!((t.name.as_str(), t.value.as_str()), ("timeout_sync", "125"));
        for bad in [
            "low_latency",
            "=1",
            "../scheduler=bfq",
            "a/b=1",
            "x=",
            "x=a\nb",
        ] {
            assert!(bad.parse::<Tunable>().is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn tunables_come_back_in_reverse_order_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let queue = dir.path();
        std::fs::create_dir(queue.join("iosched")).unwrap();
        std::fs::write(queue.join("iosched/low_latency"), "1\n").unwrap();
        std::fs::write(queue.join("iosched/slice_idle"), "8\n").unwrap();
        let journal = Arc::new(Journal::begin_in(dir.path(), "test").unwrap());
        let want: Vec<Tunable> = vec![
            "low_latency=0".parse().unwrap(),
            "slice_idle=0".parse().unwrap(),
        ];
        let g = SettingsGuard::tunables(queue, "bfq", &want, &journal).unwrap();
        assert_eq!(
            std::fs::read_to_string(queue.join("iosched/low_latency")).unwrap(),
            "0"
        );
        assert_eq!(
            std::fs::read_to_string(queue.join("iosched/slice_idle")).unwrap(),
            "0"
        );
        drop(g);
        assert_eq!(
            std::fs::read_to_string(queue.join("iosched/low_latency")).unwrap(),
            "1"
        );
        assert_eq!(
            std::fs::read_to_string(queue.join("iosched/slice_idle")).unwrap(),
            "8"
        );
        let missing: Vec<Tunable> = vec![
            "low_latency=0".parse().unwrap(),
            "quantum=4".parse().unwrap(),
        ];
        let e = SettingsGuard::tunables(queue, "bfq", &missing, &journal)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("no tunable 'quantum'") && e.contains("low_latency, slice_idle"),
            "{e}"
        );
        assert_eq!(
            std::fs::read_to_string(queue.join("iosched/low_latency")).unwrap(),
            "1",
            "the one set before the refusal is restored"
        );
    }

    /// Issue 43, defect 2: loop0 on bfq with its tunables and
    /// `nr_requests` changed, a run under mq-deadline left bfq with the
    /// kernel's defaults. The switch resets them; the guard writes them
    /// back after the scheduler.
    #[test]
    fn kernel_tunables_survive_a_scheduler_switch() {
        let dir = tempfile::tempdir().unwrap();
        let queue = dir.path();
        let put = |f: &str, v: &str| std::fs::write(queue.join(f), v).unwrap();
        let get = |f: &str| std::fs::read_to_string(queue.join(f)).unwrap();
        std::fs::create_dir(queue.join("iosched")).unwrap();
        put("scheduler", "mq-deadline [bfq] none\n");
        put("iosched/slice_idle", "3\n");
        put("iosched/low_latency", "0\n");
        put("iosched/back_seek_penalty", "77\n");
        put("nr_requests", "64\n");
        let journal = Arc::new(Journal::begin_in(dir.path(), "test").unwrap());
        let g = SchedulerGuard::set(queue, "mq-deadline", &journal).unwrap();
        assert_eq!(get("scheduler"), "mq-deadline");
        // What the kernel does on the switch and back: bfq's defaults.
        put("iosched/slice_idle", "8\n");
        put("iosched/low_latency", "1\n");
        put("iosched/back_seek_penalty", "2\n");
        put("nr_requests", "256\n");
        drop(g);
        assert_eq!(get("scheduler"), "bfq");
        assert_eq!(
            [
                get("iosched/slice_idle"),
                get("iosched/low_latency"),
                get("iosched/back_seek_penalty"),
                get("nr_requests"),
            ],
            ["3", "0", "77", "64"]
        );
        assert!(journal.take_warnings().is_empty());
    }

    #[test]
    fn a_regular_file_is_not_a_block_device() {
        let f = tempfile::NamedTempFile::new().unwrap();
        let e = queue_dir(f.path()).unwrap_err();
        assert!(e.0.contains("not a block device"), "{}", e.0);
    }
}
