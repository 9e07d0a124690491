//! Whose request is it: the FUSE request's thread id turned into a flow,
//! as the kernel's schedulers see them (BFQ and CFQ keep one queue per
//! process), or per thread, user or cgroup.
//!
//! FUSE hands us the id of the calling *thread* (`Request::pid`), its user
//! and nothing else; the process, its name and its cgroup come from
//! `/proc`. Those reads are cached per thread id together with the
//! thread's start time, which is checked again at most once a second, so a
//! reused id is not taken for the thread that had it before.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use sluice::{FlowConfig, FlowId};
use sluice_runtime::mount_config::{MountConfig, ProcessInfo};

/// How requests are grouped into flows (`--by`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FlowsBy {
    /// One flow per process (thread group), named `comm[pid]`: the
    /// kernel's BFQ and CFQ.
    #[default]
    Process,
    /// One flow per thread, named `comm[tid]`.
    Thread,
    /// One flow per user, named `uid N`.
    Uid,
    /// One flow per cgroup (v2), named by its path.
    Cgroup,
}

impl FlowsBy {
    /// The value `--by` takes.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "process" => FlowsBy::Process,
            "thread" => FlowsBy::Thread,
            "uid" => FlowsBy::Uid,
            "cgroup" => FlowsBy::Cgroup,
            _ => return None,
        })
    }
}

/// What tells one flow from another.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum FlowKey {
    /// A process or thread: its id and start time (ids are reused).
    Task(u32, u64),
    Uid(u32),
    Cgroup(String),
}

/// A flow seen for the first time: the engine adds it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct NewFlow {
    pub id: FlowId,
    pub name: String,
    /// The `[[class]]` it matched (its name, else `class N`), if any.
    pub class: Option<String>,
    pub config: FlowConfig,
}

/// What `/proc` says of a thread.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Task {
    /// Its process (thread group) id.
    pub tgid: u32,
    /// Its start time (`stat` field 22), telling a reused id apart.
    pub start: u64,
    /// The process's start time (its threads each have their own).
    pub process_start: u64,
    /// The process's name (`comm`; the thread's with `--by thread`).
    pub comm: String,
    pub cgroup: String,
}

/// Read `/proc` for thread `tid` (`None`: it is gone, or id 0, a request
/// the kernel made itself).
pub(crate) fn task(tid: u32, by: FlowsBy) -> Option<Task> {
    if tid == 0 {
        return None;
    }
    let status = std::fs::read_to_string(format!("/proc/{tid}/status")).ok()?;
    let tgid = status
        .lines()
        .find_map(|l| l.strip_prefix("Tgid:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(tid);
    let start = start_time(tid)?;
    let process_start = if tgid == tid {
        start
    } else {
        start_time(tgid)?
    };
    let named = if by == FlowsBy::Thread { tid } else { tgid };
    let comm = std::fs::read_to_string(format!("/proc/{named}/comm"))
        .map(|c| c.trim_end_matches('\n').to_string())
        .unwrap_or_default();
    let cgroup = std::fs::read_to_string(format!("/proc/{tgid}/cgroup"))
        .ok()
        .and_then(|c| {
            c.lines()
                .find_map(|l| l.strip_prefix("0::").map(str::to_string))
        })
        .unwrap_or_default();
    Some(Task {
        tgid,
        start,
        process_start,
        comm,
        cgroup,
    })
}

/// Field 22 of `/proc/TID/stat` (after the parenthesised name, which may
/// hold spaces and parentheses itself).
fn start_time(tid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{tid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    // Fields from the third on; the start time is the 22nd overall.
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// How often a cached thread's start time is checked again.
const RECHECK: Duration = Duration::from_secs(1);
/// Threads cached at most (a fork bomb does not grow us without bound).
const MAX_CACHED: usize = 1 << 16;
/// Flows alive at once at most; requests of later ones go to one
/// `(other)` flow.
pub(crate) const MAX_FLOWS: usize = 1 << 16;
/// How often flows of processes (threads) are checked for having exited.
const SWEEP: Duration = Duration::from_secs(1);

struct Cached {
    start: u64,
    checked: Instant,
    flow: FlowId,
}

/// Thread id to flow, with the flows made so far.
pub(crate) struct Attribution {
    by: FlowsBy,
    config: MountConfig,
    threads: HashMap<u32, Cached>,
    flows: HashMap<FlowKey, FlowId>,
    next: u32,
    /// Where requests go once `MAX_FLOWS` flows exist.
    overflow: Option<FlowId>,
    last_sweep: Option<Instant>,
}

impl Attribution {
    pub(crate) fn new(by: FlowsBy, config: MountConfig) -> Self {
        Attribution {
            by,
            config,
            threads: HashMap::new(),
            flows: HashMap::new(),
            next: 0,
            overflow: None,
            last_sweep: None,
        }
    }

    /// The flow of a request from thread `tid` of user `uid`, and the flow
    /// to add first when it is new.
    pub(crate) fn flow_of(
        &mut self,
        tid: u32,
        uid: u32,
        now: Instant,
    ) -> (FlowId, Option<NewFlow>) {
        if let Some(c) = self.threads.get_mut(&tid) {
            if now.duration_since(c.checked) < RECHECK {
                return (c.flow, None);
            }
            if start_time(tid) == Some(c.start) {
                c.checked = now;
                return (c.flow, None);
            }
        }
        let task = task(tid, self.by);
        let (flow, new) = self.flow_for(tid, uid, task.as_ref());
        if let Some(t) = task {
            if self.threads.len() >= MAX_CACHED {
                self.threads.clear();
            }
            self.threads.insert(
                tid,
                Cached {
                    start: t.start,
                    checked: now,
                    flow,
                },
            );
        }
        (flow, new)
    }

    /// Flows of processes (threads) that have exited since the last
    /// sweep, at most one sweep a second: the engine removes them from the
    /// policy, as the kernel frees a process's queue when it exits.
    pub(crate) fn gone(&mut self, now: Instant) -> Vec<FlowId> {
        if self
            .last_sweep
            .is_some_and(|t| now.duration_since(t) < SWEEP)
        {
            return Vec::new();
        }
        self.last_sweep = Some(now);
        let mut gone = Vec::new();
        self.flows.retain(|key, id| match key {
            FlowKey::Task(pid, start) if *pid != 0 => {
                let alive = start_time(*pid) == Some(*start);
                if !alive {
                    gone.push(*id);
                }
                alive
            }
            _ => true,
        });
        if !gone.is_empty() {
            self.threads.retain(|_, c| !gone.contains(&c.flow));
        }
        gone
    }

    /// The flow of `task` (thread `tid`, user `uid`; `None`: gone or the
    /// kernel's own), made when new.
    fn flow_for(&mut self, tid: u32, uid: u32, task: Option<&Task>) -> (FlowId, Option<NewFlow>) {
        let unknown = Task::default();
        let t = task.unwrap_or(&unknown);
        let (key, name) = match self.by {
            FlowsBy::Process => (
                FlowKey::Task(t.tgid, t.process_start),
                format!("{}[{}]", t.comm, t.tgid),
            ),
            FlowsBy::Thread => (FlowKey::Task(tid, t.start), format!("{}[{tid}]", t.comm)),
            FlowsBy::Uid => (FlowKey::Uid(uid), format!("uid {uid}")),
            FlowsBy::Cgroup => (FlowKey::Cgroup(t.cgroup.clone()), t.cgroup.clone()),
        };
        let (key, name) = if task.is_none() && self.by != FlowsBy::Uid {
            // A thread gone before we looked, or a request with no caller.
            (FlowKey::Task(0, 0), "(unknown)".to_string())
        } else {
            (key, name)
        };
        if let Some(&id) = self.flows.get(&key) {
            return (id, None);
        }
        let full = self.flows.len() >= MAX_FLOWS;
        if full {
            if let Some(id) = self.overflow {
                return (id, None);
            }
        }
        let (class, config) = self.config.flow_for(&ProcessInfo {
            comm: &t.comm,
            uid,
            cgroup: &t.cgroup,
        });
        let class = class.map(|i| {
            self.config.classes[i]
                .name
                .clone()
                .unwrap_or_else(|| format!("class {i}"))
        });
        let id = FlowId(self.next);
        self.next += 1;
        let name = if full {
            self.overflow = Some(id);
            "(other)".to_string()
        } else {
            self.flows.insert(key, id);
            name
        };
        (
            id,
            Some(NewFlow {
                id,
                name,
                class,
                config,
            }),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> MountConfig {
        MountConfig::parse(
            "t.toml",
            "[scheduler]\nname = \"bfq\"\n[[class]]\nmatch = { comm = \"heavy\" }\nweight = 300\n",
        )
        .unwrap()
    }

    #[test]
    fn this_process_is_one_flow_named_comm_and_pid_under_its_class() {
        let me = std::process::id();
        let mut a = Attribution::new(FlowsBy::Process, config());
        let now = Instant::now();
        let (f, new) = a.flow_of(me, 0, now);
        let new = new.expect("a new flow");
        let comm = std::fs::read_to_string("/proc/self/comm").unwrap();
        assert_eq!(new.name, format!("{}[{me}]", comm.trim_end()));
        assert_eq!(new.config.qos.weight, 100, "unmatched: the default weight");
        assert_eq!(a.flow_of(me, 0, now), (f, None), "cached");
    }

    #[test]
    fn another_thread_of_a_process_is_the_same_flow_but_not_by_thread() {
        // Keyed once by the thread's own start time, each thread of a
        // process made a flow of its own under the process's name.
        let me = std::process::id();
        let mut a = Attribution::new(FlowsBy::Process, config());
        let now = Instant::now();
        let (f, _) = a.flow_of(me, 0, now);
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let (tid_tx, tid_rx) = std::sync::mpsc::channel();
        let other = std::thread::spawn(move || {
            // SAFETY: gettid has no preconditions.
            tid_tx.send(unsafe { libc::gettid() } as u32).unwrap();
            let _ = rx.recv();
        });
        let tid = tid_rx.recv().unwrap();
        assert_eq!(a.flow_of(tid, 0, now), (f, None), "thread {tid} of {me}");
        let mut by_thread = Attribution::new(FlowsBy::Thread, config());
        let (_, n) = by_thread.flow_of(tid, 0, now);
        assert!(n.unwrap().name.ends_with(&format!("[{tid}]")));
        drop(tx);
        other.join().unwrap();
    }

    #[test]
    fn a_gone_thread_and_the_kernels_requests_share_one_unknown_flow() {
        let mut a = Attribution::new(FlowsBy::Process, config());
        let now = Instant::now();
        let (f0, n0) = a.flow_of(0, 0, now);
        assert_eq!(n0.unwrap().name, "(unknown)");
        let (f1, n1) = a.flow_of(u32::MAX - 1, 0, now);
        assert_eq!((f1, n1), (f0, None));
    }

    #[test]
    fn users_are_flows_by_uid() {
        let mut a = Attribution::new(FlowsBy::Uid, config());
        let now = Instant::now();
        let (f, n) = a.flow_of(0, 1000, now);
        assert_eq!(n.unwrap().name, "uid 1000");
        assert_eq!(a.flow_of(0, 1000, now), (f, None));
        assert_ne!(a.flow_of(0, 1001, now).0, f);
    }

    #[test]
    fn by_cgroup_a_flow_is_named_by_the_cgroup_v2_path() {
        let me = std::process::id();
        let want = std::fs::read_to_string("/proc/self/cgroup")
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("0::").map(str::to_string))
            .unwrap_or_default();
        let mut a = Attribution::new(FlowsBy::Cgroup, config());
        let (f, n) = a.flow_of(me, 0, Instant::now());
        assert_eq!(n.unwrap().name, want);
        // Every process of the cgroup is the same flow.
        let (g, _) = a.flow_of(std::os::unix::process::parent_id(), 0, Instant::now());
        let parent_cgroup = task(std::os::unix::process::parent_id(), FlowsBy::Cgroup)
            .map(|t| t.cgroup)
            .unwrap_or_default();
        assert_eq!(f == g, parent_cgroup == want);
    }

    #[test]
    fn start_time_reads_past_a_name_with_spaces_and_parentheses() {
        assert!(start_time(std::process::id()).is_some());
    }
}
