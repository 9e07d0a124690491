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

/// The value a sysfs setting holds: the bracketed choice of a list
/// (`none [bfq] kyber`), else the whole text trimmed.
pub(crate) fn current_value(text: &str) -> String {
    let t = text.trim();
    match (t.find('['), t.find(']')) {
        (Some(a), Some(b)) if a < b => t[a + 1..b].to_string(),
        _ => t.to_string(),
    }
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
        let entry = journal.record(Change::Setting {
            file: file.clone(),
            before: before.clone(),
            set: want.to_string(),
        })?;
        if let Err(e) = fs::write(&file, want) {
            journal.undone(entry);
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
        })
    }
}

impl Drop for SchedulerGuard {
    fn drop(&mut self) {
        if let Err(e) = fs::write(&self.file, &self.before) {
            eprintln!(
                "warning: could not restore scheduler '{}' in {}: {e}",
                self.before,
                self.file.display()
            );
        } else {
            self.journal.undone(self.entry);
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
    fn a_regular_file_is_not_a_block_device() {
        let f = tempfile::NamedTempFile::new().unwrap();
        let e = queue_dir(f.path()).unwrap_err();
        assert!(e.0.contains("not a block device"), "{}", e.0);
    }
}
