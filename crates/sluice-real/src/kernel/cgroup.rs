//! Flow weights for the kernel's bfq through cgroups: one group per flow
//! thread with its weight, each of the thread's OS threads moved into it,
//! the groups removed afterwards.
//!
//! cgroup v1's blkio controller takes single threads (`tasks`) and
//! `blkio.bfq.weight`. cgroup v2's io controller (`io.bfq.weight`) is a
//! domain controller: it weighs whole processes, never the threads of one,
//! so sluice's one-thread-per-flow model needs v1 and says so where only v2
//! is there.

use std::fs;
use std::path::{Path, PathBuf};

use std::sync::Arc;

use crate::journal::{Change, Entry, Journal};
use crate::Refused;

/// Where blkio groups are made.
#[derive(Clone, Debug)]
pub(super) struct Blkio {
    root: PathBuf,
    journal: Arc<Journal>,
}

/// Mount points of cgroup file systems from `/proc/self/mounts` text:
/// (v1 blkio mount, v2 mount).
pub(super) fn mounts(text: &str) -> (Option<PathBuf>, Option<PathBuf>) {
    let (mut v1, mut v2) = (None, None);
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 4 {
            continue;
        }
        match f[2] {
            "cgroup" if f[3].split(',').any(|o| o == "blkio") => v1 = Some(PathBuf::from(f[1])),
            "cgroup2" => v2 = Some(PathBuf::from(f[1])),
            _ => {}
        }
    }
    (v1, v2)
}

impl Blkio {
    /// The blkio hierarchy, or why there is none.
    pub(super) fn find(journal: &Arc<Journal>) -> Result<Self, Refused> {
        let text = fs::read_to_string("/proc/self/mounts")
            .map_err(|e| Refused(format!("/proc/self/mounts: {e}")))?;
        match mounts(&text) {
            (Some(root), _) => Ok(Blkio {
                root,
                journal: Arc::clone(journal),
            }),
            (None, Some(v2)) => Err(Refused(format!(
                "no cgroup v1 blkio hierarchy; cgroup v2 at {} weighs processes, not the threads \
                 sluice kernel runs its flows in (mount one: mount -t cgroup -o blkio none /sys/fs/cgroup/blkio)",
                v2.display()
            ))),
            (None, None) => Err(Refused(
                "no cgroup blkio controller mounted: flow weights cannot reach the kernel's bfq".into(),
            )),
        }
    }

    /// A new group `name` with `weight` (1..=1000).
    pub(super) fn group(&self, name: &str, weight: u32) -> anyhow::Result<Group> {
        let dir = self.root.join(name);
        let entry = self.journal.record(Change::Cgroup { path: dir.clone() })?;
        if let Err(e) = fs::create_dir(&dir) {
            self.journal.undone(entry);
            return Err(Refused(format!("cannot create cgroup {}: {e}", dir.display())).into());
        }
        let g = Group {
            dir,
            journal: Arc::clone(&self.journal),
            entry,
        };
        let wf = g.dir.join("blkio.bfq.weight");
        if !wf.exists() {
            return Err(Refused(format!(
                "{} is missing: the kernel's bfq does not take cgroup weights here",
                wf.display()
            ))
            .into());
        }
        fs::write(&wf, weight.clamp(1, 1000).to_string())
            .map_err(|e| Refused(format!("{}: {e}", wf.display())))?;
        Ok(g)
    }
}

/// One cgroup, removed on drop (once its threads are gone).
#[derive(Debug)]
pub(super) struct Group {
    dir: PathBuf,
    journal: Arc<Journal>,
    entry: Entry,
}

impl Group {
    /// The file a thread writes its id to, to join.
    pub(super) fn tasks(&self) -> PathBuf {
        self.dir.join("tasks")
    }
}

/// Move the calling thread into the group whose `tasks` file this is.
pub(super) fn join(tasks: &Path) -> std::io::Result<()> {
    // SAFETY: gettid has no preconditions.
    let tid = unsafe { libc::syscall(libc::SYS_gettid) };
    fs::write(tasks, tid.to_string())
}

impl Drop for Group {
    fn drop(&mut self) {
        // The threads have exited; a group is removed with rmdir.
        for _ in 0..50 {
            if fs::remove_dir(&self.dir).is_ok() || !self.dir.exists() {
                self.journal.undone(self.entry);
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        self.journal
            .warn(format!("could not remove cgroup {}", self.dir.display()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_blkio_and_v2_mounts() {
        let t = "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,nosuid 0 0\n\
                 cgroup /sys/fs/cgroup/blkio cgroup rw,nosuid,blkio 0 0\n\
                 cgroup /sys/fs/cgroup/cpu cgroup rw,cpu,cpuacct 0 0\n";
        let (v1, v2) = mounts(t);
        assert_eq!(v1, Some(PathBuf::from("/sys/fs/cgroup/blkio")));
        assert_eq!(v2, Some(PathBuf::from("/sys/fs/cgroup/unified")));
        assert_eq!(mounts("proc /proc proc rw 0 0\n"), (None, None));
    }
}
