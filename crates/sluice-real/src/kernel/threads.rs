//! Requests as applications make them: each flow thread's requests are
//! synchronous `pread`/`pwrite` calls on an O_DIRECT descriptor, made by OS
//! threads of its own (as many as it keeps in flight), each thread in the
//! flow's cgroup, so the kernel's scheduler sees distinct tasks with their
//! weights.
//!
//! A worker that finishes a request measures it and runs the flow's
//! workload itself (under the run's one lock), and takes the flow's next
//! request itself when the workload asks for one at once, as an
//! application's thread would. Handing every completion to one coordinating
//! thread instead chains the flows' threads through it, and the kernel's
//! bfq then serves them alike whatever their weights (measured on a loop
//! device: 0.47 of the bytes to the flow weighted 300 against 100, where
//! independent threads get 0.8).

use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::thread::JoinHandle;

use anyhow::{bail, Result};
use sluice::{Direction, FlowConfig, FlowId, Instant, RequestId};
use sluice_uring::{AlignedBuf, Completion, Submission, TargetId};

use super::cgroup::{self, Blkio, Group};
use crate::host::Io;

/// What a worker does with a finished request, under the run's lock.
pub(super) trait Sink: Send + 'static {
    /// The backend inside the shared state.
    fn io(&mut self) -> &mut ThreadIo;
    /// Take the completion in: measure it, run the flow's workload.
    /// Returns whether the coordinator must look again (an earlier wake-up,
    /// a flow done, an error): it is not woken for nothing, as a thread
    /// that wakes at every completion costs the workers CPU and delays
    /// their next requests.
    fn completed(&mut self, c: Completion) -> bool;
    /// Keep `message` for the run's report.
    fn warn(&mut self, message: String);
}

/// The run's shared state and the condition its coordinator sleeps on.
pub(super) type Cell<S> = (Mutex<S>, Condvar);

/// One request for a worker.
pub(super) struct Job {
    id: RequestId,
    offset: u64,
    buf: AlignedBuf,
    write: bool,
}

/// A worker's answer.
struct Done {
    id: RequestId,
    flow: FlowId,
    worker: usize,
    result: io::Result<usize>,
    buf: AlignedBuf,
    started: Instant,
    finished: Instant,
}

/// One OS thread of a flow thread.
pub(super) struct Worker {
    tx: Option<Sender<Job>>,
    busy: bool,
    handle: Option<JoinHandle<()>>,
}

/// What a request waits for, besides its buffer.
struct Meta {
    flow: FlowId,
    target: TargetId,
    dir: Direction,
    offset: u64,
    arrival: Instant,
}

type Spawner =
    Box<dyn Fn(FlowId, usize, Option<PathBuf>) -> io::Result<(Sender<Job>, JoinHandle<()>)> + Send>;

/// The backend of `sluice kernel`.
pub(super) struct ThreadIo {
    start: std::time::Instant,
    file: Arc<File>,
    blkio: Option<Blkio>,
    /// Per scheduler flow: its cgroup (kept to the end) and workers.
    groups: HashMap<FlowId, (Option<Group>, Vec<Worker>)>,
    retired: Vec<(Option<Group>, Vec<Worker>)>,
    pending: HashMap<RequestId, Meta>,
    per_flow: HashMap<FlowId, usize>,
    /// Set while a worker of (flow, index) holds the lock after its
    /// request: a submission for that flow becomes its next job.
    self_slot: Option<(FlowId, usize)>,
    self_job: Option<Job>,
    /// Starts a worker thread (it knows the shared state).
    spawner: Option<Spawner>,
    next_id: u64,
    /// Requests completed (the report's `events`).
    pub completed: u64,
}

fn now_since(start: std::time::Instant) -> Instant {
    Instant::from_nanos(start.elapsed().as_nanos() as u64)
}

/// Whole synchronous transfer (short transfers continued, EINTR retried).
fn transfer(file: &File, buf: &mut [u8], offset: u64, write: bool) -> io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        let at = offset + done as u64;
        let r = if write {
            file.write_at(&buf[done..], at)
        } else {
            file.read_at(&mut buf[done..], at)
        };
        match r {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

/// A new open of the same file (O_DIRECT, same access), through /proc.
fn reopen(file: &File) -> io::Result<File> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::OpenOptionsExt;
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor we own.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    let write = flags >= 0 && flags & libc::O_ACCMODE == libc::O_RDWR;
    std::fs::OpenOptions::new()
        .read(true)
        .write(write)
        .custom_flags(libc::O_DIRECT | libc::O_CLOEXEC)
        .open(format!("/proc/self/fd/{fd}"))
}

/// A worker's life: join the cgroup, then do jobs and report each.
fn work<S: Sink>(
    cell: Weak<Cell<S>>,
    file: Arc<File>,
    start: std::time::Instant,
    flow: FlowId,
    index: usize,
    tasks: Option<PathBuf>,
    rx: std::sync::mpsc::Receiver<Job>,
) {
    if let Some(t) = tasks {
        if let Err(e) = cgroup::join(&t) {
            if let Some(cell) = cell.upgrade() {
                let mut sink = cell.0.lock().unwrap_or_else(|p| p.into_inner());
                sink.warn(format!("joining {}: {e}", t.display()));
            }
        }
    }
    let mut next: Option<Job> = None;
    loop {
        let mut job = match next.take() {
            Some(j) => j,
            None => match rx.recv() {
                Ok(j) => j,
                Err(_) => return,
            },
        };
        let started = now_since(start);
        let result = transfer(&file, &mut job.buf, job.offset, job.write);
        let finished = now_since(start);
        let Some(cell) = cell.upgrade() else {
            return;
        };
        let mut st = match cell.0.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        let io = st.io();
        io.self_slot = Some((flow, index));
        let c = io.finish(Done {
            id: job.id,
            flow,
            worker: index,
            result,
            buf: job.buf,
            started,
            finished,
        });
        let wake = st.completed(c);
        let io = st.io();
        next = io.self_job.take();
        io.self_slot = None;
        drop(st);
        if wake {
            cell.1.notify_one();
        }
    }
}

impl ThreadIo {
    /// Requests go to `file` (the device, opened O_DIRECT); with `blkio`,
    /// each flow thread's OS threads join a group with its weight.
    pub(super) fn new(file: File, blkio: Option<Blkio>) -> Self {
        ThreadIo {
            start: std::time::Instant::now(),
            file: Arc::new(file),
            blkio,
            groups: HashMap::new(),
            retired: Vec::new(),
            pending: HashMap::new(),
            per_flow: HashMap::new(),
            self_slot: None,
            self_job: None,
            spawner: None,
            next_id: 0,
            completed: 0,
        }
    }

    /// Connect the backend to the shared state its workers report to.
    pub(super) fn connect<S: Sink>(&mut self, cell: Weak<Cell<S>>) {
        let file = Arc::clone(&self.file);
        let start = self.start;
        self.spawner = Some(Box::new(move |flow, index, tasks| {
            let (tx, rx) = channel::<Job>();
            // Each OS thread opens the device itself, as separate
            // applications do (its own open file, not a shared one).
            let own = reopen(&file)
                .map(Arc::new)
                .unwrap_or_else(|_| Arc::clone(&file));
            let (cell, file) = (cell.clone(), own);
            let (ready, started) = std::sync::mpsc::sync_channel::<()>(1);
            let handle = std::thread::Builder::new()
                .name(format!("sluice-flow-{}", flow.0))
                .spawn(move || {
                    let _ = ready.send(());
                    work(cell, file, start, flow, index, tasks, rx)
                })?;
            // Wait until the thread runs: the runtime's start-up of a new
            // thread (its signal stack) aborts the process when it cannot
            // map memory, so no other allocation of this thread's may race
            // it to the last of an address-space limit; a spawn that finds
            // no room then fails here, as an error.
            let _ = started.recv();
            Ok((tx, handle))
        }));
    }

    fn spawn(&mut self, flow: FlowId) -> Result<usize> {
        let tasks: Option<PathBuf> = self
            .groups
            .get(&flow)
            .and_then(|g| g.0.as_ref())
            .map(Group::tasks);
        let index = self.groups.get(&flow).map_or(0, |g| g.1.len());
        let Some(spawner) = &self.spawner else {
            bail!("the thread backend is not connected to a run");
        };
        let (tx, handle) = match spawner(flow, index, tasks) {
            Ok(x) => x,
            Err(e) => bail!(
                "cannot start a thread for flow {}: {e} (sluice kernel makes one OS thread per \
                 request in flight: lower count or outstanding, or raise ulimit -u / -v)",
                flow.0
            ),
        };
        let workers = &mut self.groups.get_mut(&flow).expect("registered").1;
        workers.push(Worker {
            tx: Some(tx),
            busy: false,
            handle: Some(handle),
        });
        Ok(index)
    }

    fn finish(&mut self, d: Done) -> Completion {
        if let Some(w) = self
            .groups
            .get_mut(&d.flow)
            .and_then(|g| g.1.get_mut(d.worker))
        {
            w.busy = false;
        }
        let m = self
            .pending
            .remove(&d.id)
            .expect("a worker answers its own job");
        if let Some(n) = self.per_flow.get_mut(&m.flow) {
            *n = n.saturating_sub(1);
        }
        self.completed += 1;
        Completion {
            id: d.id,
            flow: m.flow,
            target: m.target,
            dir: m.dir,
            offset: m.offset,
            result: d.result,
            buf: d.buf,
            arrival: m.arrival,
            dispatched: d.started,
            completed: d.finished,
            disk_time: d.finished.saturating_duration_since(d.started),
            resubmits: 0,
        }
    }

    /// Stop handing out work and take the workers out with their cgroups;
    /// join them without the run's lock (a worker finishing its request
    /// takes it).
    pub(super) fn take_workers(&mut self) -> Stopped {
        let mut all: Vec<(Option<Group>, Vec<Worker>)> = self.groups.drain().map(|x| x.1).collect();
        all.append(&mut self.retired);
        for (_, workers) in &mut all {
            for w in workers.iter_mut() {
                w.tx = None;
            }
        }
        self.spawner = None;
        self.self_job = None;
        Stopped(all)
    }
}

/// Workers told to stop, with their cgroups.
pub(super) struct Stopped(Vec<(Option<Group>, Vec<Worker>)>);

impl Stopped {
    /// Wait for every worker thread, then remove the cgroups.
    pub(super) fn join(mut self) {
        for (_, workers) in &mut self.0 {
            for w in workers.iter_mut() {
                if let Some(h) = w.handle.take() {
                    let _ = h.join();
                }
            }
        }
    }
}

impl Io for ThreadIo {
    fn now(&self) -> Instant {
        now_since(self.start)
    }

    fn add_flow(&mut self, id: FlowId, config: &FlowConfig) -> Result<()> {
        let group = match &self.blkio {
            Some(b) => {
                let name = format!("sluice-{}-{}", std::process::id(), id.0);
                Some(b.group(&name, config.qos.weight)?)
            }
            None => None,
        };
        self.groups.insert(id, (group, Vec::new()));
        self.per_flow.insert(id, 0);
        Ok(())
    }

    fn remove_flow(&mut self, id: FlowId) -> Result<()> {
        if let Some(mut g) = self.groups.remove(&id) {
            for w in &mut g.1 {
                w.tx = None;
            }
            self.retired.push(g);
        }
        self.per_flow.remove(&id);
        Ok(())
    }

    fn pending_of(&self, id: FlowId) -> usize {
        self.per_flow.get(&id).copied().unwrap_or(0)
    }

    fn submit(&mut self, s: Submission) -> Result<RequestId> {
        if !self.groups.contains_key(&s.flow) {
            bail!("unknown flow {}", s.flow.0);
        }
        // The worker that just finished a request of this flow takes the
        // next one itself (no hand-over, as the application's own thread).
        let own = match self.self_slot {
            Some((f, w)) if f == s.flow && self.self_job.is_none() => {
                self.groups[&s.flow].1.get(w).filter(|x| !x.busy).map(|_| w)
            }
            _ => None,
        };
        let idle = own.or_else(|| self.groups[&s.flow].1.iter().position(|w| !w.busy));
        let worker = match idle {
            Some(i) => i,
            None => self.spawn(s.flow)?,
        };
        let id = RequestId(self.next_id);
        self.next_id += 1;
        let now = self.now();
        self.pending.insert(
            id,
            Meta {
                flow: s.flow,
                target: s.target,
                dir: s.dir,
                offset: s.offset,
                arrival: now,
            },
        );
        *self.per_flow.entry(s.flow).or_default() += 1;
        let w = &mut self.groups.get_mut(&s.flow).expect("checked").1[worker];
        w.busy = true;
        let job = Job {
            id,
            offset: s.offset,
            buf: s.buf,
            write: s.dir == Direction::Write,
        };
        if own == Some(worker) {
            self.self_job = Some(job);
            return Ok(id);
        }
        match w.tx.as_ref().map(|tx| tx.send(job)) {
            Some(Ok(())) => Ok(id),
            _ => bail!("the thread of flow {} stopped", s.flow.0),
        }
    }
}
