//! The engine: one io_uring, one [`Driver`], the targets and the requests
//! between them.

use std::collections::VecDeque;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;

use io_uring::{opcode, types, IoUring};
use sluice::{
    ClassConfig, CostModel, Direction, Driver, Duration, FlowConfig, FlowId, Instant, LastAnswer,
    Request, RequestId, Scheduler, SECTOR_BYTES,
};

use crate::buf::AlignedBuf;
use crate::clock::Clock;
use crate::cost::{LinearCost, SeekEstimate};
use crate::doorbell::{Doorbell, DOORBELL_TAG};
use crate::error::{Error, Result};
use crate::flows::FlowSlots;

mod merged;

use self::merged::{Groups, GROUP_BIT};
use crate::pending::{PendingTable, SLOT_BITS};
use crate::step::{Progress, Step};
use crate::target::{self, Target, TargetId, TargetInfo, TargetOptions};

/// Largest request: what one read or write syscall may transfer on Linux.
pub const MAX_REQUEST_BYTES: usize = 0x7fff_f000;

/// How the engine is set up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineConfig {
    /// Requests in flight at the targets at once (the driver's device queue
    /// depth; the policy decides the order of everything beyond it). At
    /// least 1.
    pub queue_depth: usize,
    /// The seek estimate position-aware policies are shown (see
    /// [`SeekEstimate`]).
    pub seek: SeekEstimate,
    /// Merge contiguous requests of a flow while the policy holds them, up
    /// to this many sectors (`None`: off, the default). A merged request
    /// goes to the kernel as one vectored read or write over the original
    /// buffers.
    pub merge_sectors: Option<u32>,
}

impl Default for EngineConfig {
    /// Queue depth 32 (a SATA drive's NCQ), the default seek estimate.
    fn default() -> Self {
        EngineConfig {
            queue_depth: 32,
            seek: SeekEstimate::default(),
            merge_sectors: None,
        }
    }
}

impl EngineConfig {
    /// The default configuration with this queue depth.
    pub fn with_queue_depth(queue_depth: usize) -> Self {
        EngineConfig {
            queue_depth,
            ..Self::default()
        }
    }
}

/// A request as the host hands it over: which flow, which target, what, where.
/// The buffer's length is the request's length; the engine keeps the buffer
/// until the request completes and hands it back in its [`Completion`].
#[derive(Debug)]
pub struct Submission {
    /// The flow it belongs to (added with [`Engine::add_flow`]).
    pub flow: FlowId,
    /// The target it goes to.
    pub target: TargetId,
    /// Read or write.
    pub dir: Direction,
    /// Byte offset in the target.
    pub offset: u64,
    /// Reads fill it, writes send it.
    pub buf: AlignedBuf,
    /// The issuer waits for it (BFQ and CFQ idle for sync flows and queue
    /// async writes together). [`Submission::read`] sets it, [`Submission::write`]
    /// clears it, as the papers' OS model does (reads sync, writes async).
    pub sync: bool,
}

impl Submission {
    /// A synchronous read of `buf.len()` bytes at `offset`.
    pub fn read(flow: FlowId, target: TargetId, offset: u64, buf: AlignedBuf) -> Self {
        Submission {
            flow,
            target,
            dir: Direction::Read,
            offset,
            buf,
            sync: true,
        }
    }

    /// An asynchronous write of `buf` at `offset`.
    pub fn write(flow: FlowId, target: TargetId, offset: u64, buf: AlignedBuf) -> Self {
        Submission {
            flow,
            target,
            dir: Direction::Write,
            offset,
            buf,
            sync: false,
        }
    }

    /// The same request with the sync flag set as given.
    pub fn sync(mut self, sync: bool) -> Self {
        self.sync = sync;
        self
    }
}

/// A finished request, reported exactly once.
#[derive(Debug)]
pub struct Completion {
    /// The id [`Engine::submit`] returned for it.
    pub id: RequestId,
    /// The flow it belonged to.
    pub flow: FlowId,
    /// The target it went to.
    pub target: TargetId,
    /// Read or write.
    pub dir: Direction,
    /// Byte offset in the target.
    pub offset: u64,
    /// Bytes transferred (a read may end short at the end of the file; a
    /// write completes whole or with an error), or the I/O error
    /// (ECANCELED, EIO, ...).
    pub result: io::Result<usize>,
    /// The submitted buffer, back to the host (reads: its first
    /// `result` bytes hold the data).
    pub buf: AlignedBuf,
    /// When the request was submitted to the engine (engine clock).
    pub arrival: Instant,
    /// When the policy dispatched it to the target.
    pub dispatched: Instant,
    /// When its last kernel completion was seen.
    pub completed: Instant,
    /// Device time attributed to it (each stretch split evenly among the
    /// requests in flight): what the policy was charged.
    pub disk_time: Duration,
    /// Submissions after the first (short transfers, EAGAIN, EINTR).
    pub resubmits: u32,
}

impl Completion {
    /// Bytes transferred (0 on error).
    pub fn bytes(&self) -> usize {
        self.result.as_ref().map_or(0, |&n| n)
    }

    /// Submission to completion.
    pub fn latency(&self) -> Duration {
        self.completed.saturating_duration_since(self.arrival)
    }

    /// Time waiting in the policy (submission to dispatch).
    pub fn queueing(&self) -> Duration {
        self.dispatched.saturating_duration_since(self.arrival)
    }
}

/// How long [`Engine::poll`] may block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// Not at all: dispatch, submit, collect what is ready, fire due timers.
    No,
    /// Until at least one completion is ready (at once if nothing is
    /// pending).
    Any,
    /// Until a completion is ready or this much time has passed, also when
    /// nothing is pending: a host's own timer (the next arrival of an
    /// open-loop replay) costs no thread and no spinning.
    For(std::time::Duration),
}

/// Counters of what the engine did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EngineStats {
    /// Requests accepted by `submit`.
    pub submitted: u64,
    /// Requests completed (successfully or not).
    pub completed: u64,
    /// Requests completed with an error.
    pub errors: u64,
    /// Submissions after the first (short transfers, EAGAIN, EINTR).
    pub resubmits: u64,
    /// Times the driver's wake-up came and `handle_timeout` was called.
    pub timer_fires: u64,
    /// `io_uring_enter` calls.
    pub enters: u64,
    /// Requests merged into a queued one (see [`EngineConfig::merge_sectors`]).
    pub merges: u64,
}

/// A request the engine holds: queued in the policy or in the kernel.
struct Pending {
    flow: FlowId,
    /// The flow's slot in [`FlowSlots`].
    slot: u32,
    target: TargetId,
    fd: i32,
    offset: u64,
    buf: AlignedBuf,
    progress: Progress,
    arrival: Instant,
}

enum Costs {
    Linear(LinearCost),
    Custom(Box<dyn CostModel>),
}

/// The real I/O engine: any sluice policy between a host's flows and real
/// targets, through io_uring. See the crate docs for the design.
pub struct Engine<P = Box<dyn Scheduler>> {
    pending: PendingTable<Pending>,
    /// Merged requests in the kernel.
    groups: Groups,
    /// Known flows, with the requests each has pending.
    flows: FlowSlots,
    /// Open targets by id; `None` where one was closed (its id is reused).
    targets: Vec<Option<Target>>,
    free_targets: Vec<u32>,
    ready: VecDeque<Completion>,
    driver: Driver<P>,
    costs: Costs,
    ring: IoUring,
    clock: Clock,
    /// Requests with an SQE pushed and no CQE reaped yet.
    in_kernel: usize,
    /// Sectors laid out so far (the next target's base).
    layout_end: u64,
    cqes: Vec<(u64, i32)>,
    /// The requests one `dispatch` took from the driver, and whether each
    /// is merged (kept to reuse its allocation).
    dispatched: Vec<(RequestId, bool)>,
    stats: EngineStats,
    /// The host's wake-up, when it asked for one ([`Engine::doorbell`]).
    doorbell: Option<Doorbell>,
    /// The doorbell rang since `poll` last returned.
    rung: bool,
}

fn ring_error(e: io::Error) -> Error {
    match e.raw_os_error() {
        Some(libc::ENOSYS | libc::EPERM | libc::EACCES | libc::EOPNOTSUPP) => Error::Unavailable(e),
        _ => Error::Ring(e),
    }
}

/// Errors of `io_uring_enter` after which the loop simply goes on: a signal,
/// the wait's timeout, a transient shortage.
fn benign(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EINTR | libc::ETIME | libc::EAGAIN | libc::EBUSY)
    )
}

impl<P: Scheduler> Engine<P> {
    /// An engine driving `policy` with `config.queue_depth` requests in
    /// flight at most. Fails with [`Error::Unavailable`] where the kernel
    /// has no usable io_uring (ENOSYS, EPERM, or older than Linux 5.11,
    /// whose waits cannot carry a timeout).
    pub fn new(policy: P, config: EngineConfig) -> Result<Self> {
        let depth = config.queue_depth.max(1);
        let entries = depth.min(4096).next_power_of_two() as u32;
        let ring = IoUring::new(entries).map_err(ring_error)?;
        if !ring.params().is_feature_ext_arg() {
            return Err(Error::Unavailable(io::Error::new(
                io::ErrorKind::Unsupported,
                "io_uring without IORING_FEAT_EXT_ARG (Linux 5.11 or later is needed)",
            )));
        }
        let mut driver = Driver::new(policy, depth);
        if let Some(max) = config.merge_sectors {
            driver = driver.with_merging(max);
        }
        Ok(Engine {
            groups: Groups::default(),
            pending: PendingTable::with_capacity(2 * depth),
            flows: FlowSlots::default(),
            targets: Vec::new(),
            free_targets: Vec::new(),
            ready: VecDeque::with_capacity(depth),
            driver,
            costs: Costs::Linear(LinearCost {
                estimate: config.seek,
                capacity: 0,
            }),
            ring,
            clock: Clock::start(),
            in_kernel: 0,
            layout_end: 0,
            cqes: Vec::with_capacity(entries as usize * 2),
            dispatched: Vec::with_capacity(depth.min(4096)),
            stats: EngineStats::default(),
            doorbell: None,
            rung: false,
        })
    }

    /// The engine's clock: time since the engine started.
    pub fn now(&self) -> Instant {
        self.clock.now()
    }

    /// Open a file or block device. See [`TargetOptions`]; check
    /// [`TargetInfo::direct_fallback`] through [`Engine::target`] to learn
    /// whether O_DIRECT was refused.
    pub fn open_target(
        &mut self,
        path: impl AsRef<Path>,
        opts: &TargetOptions,
    ) -> Result<TargetId> {
        let t = target::open(path.as_ref(), opts, self.layout_end)?;
        Ok(self.place(t))
    }

    /// Take a file the host opened itself (say with `openat2` beneath a
    /// directory it serves): reads and writes go to it as to any target.
    /// Whether it is writable and O_DIRECT is read from the file's flags;
    /// `path` only names it in errors and [`TargetInfo`].
    pub fn adopt_target(
        &mut self,
        file: std::fs::File,
        path: impl AsRef<Path>,
    ) -> Result<TargetId> {
        let t = target::adopt(file, path.as_ref(), self.layout_end)?;
        Ok(self.place(t))
    }

    /// Lay a new target out after the others, under a free id.
    fn place(&mut self, t: Target) -> TargetId {
        self.layout_end += t.info.sectors;
        if let Costs::Linear(c) = &mut self.costs {
            c.capacity = self.layout_end;
        }
        match self.free_targets.pop() {
            Some(i) => {
                self.targets[i as usize] = Some(t);
                TargetId(i)
            }
            None => {
                self.targets.push(Some(t));
                TargetId(self.targets.len() as u32 - 1)
            }
        }
    }

    /// Close a target none of whose requests is pending (else
    /// [`Error::TargetBusy`]: the kernel may still hold its fd). Its id
    /// may name a later target.
    pub fn close_target(&mut self, id: TargetId) -> Result<()> {
        let Some(t) = self.targets.get(id.0 as usize).and_then(Option::as_ref) else {
            return Err(Error::UnknownTarget(id));
        };
        if t.pending > 0 {
            return Err(Error::TargetBusy {
                target: id,
                pending: t.pending,
            });
        }
        self.targets[id.0 as usize] = None;
        self.free_targets.push(id.0);
        Ok(())
    }

    /// What the engine knows of a target.
    pub fn target(&self, id: TargetId) -> Option<&TargetInfo> {
        self.targets
            .get(id.0 as usize)
            .and_then(Option::as_ref)
            .map(|t| &t.info)
    }

    /// A doorbell another thread rings to end a blocking [`Engine::poll`]
    /// early (say, when it has queued work for the engine's thread): `poll`
    /// then returns even with no completion ready. One per engine; later
    /// calls return the same doorbell.
    pub fn doorbell(&mut self) -> Result<Doorbell> {
        if let Some(d) = &self.doorbell {
            return Ok(d.clone());
        }
        let d = Doorbell::new().map_err(Error::Ring)?;
        self.doorbell = Some(d.clone());
        self.arm_doorbell()?;
        Ok(d)
    }

    /// Keep one poll of the doorbell's eventfd in the ring (not counted in
    /// `in_kernel`: it holds no buffer the kernel could write).
    fn arm_doorbell(&mut self) -> Result<()> {
        let Some(d) = &self.doorbell else {
            return Ok(());
        };
        let entry = opcode::PollAdd::new(types::Fd(d.raw_fd()), libc::POLLIN as u32)
            .build()
            .user_data(DOORBELL_TAG);
        loop {
            // SAFETY: a poll holds no memory of ours; the eventfd lives in
            // `self.doorbell` as long as the ring.
            if unsafe { self.ring.submission().push(&entry) }.is_ok() {
                return Ok(());
            }
            self.enter(0, None)?;
        }
    }

    /// Replace the seek estimate by the host's own cost model (its
    /// capacity should cover the targets as laid out: see
    /// [`TargetInfo::base_sector`]).
    pub fn set_seek_model(&mut self, costs: Box<dyn CostModel>) {
        self.costs = Costs::Custom(costs);
    }

    /// A class of flows (VIOS's OS instance, a cgroup), before flows name it.
    pub fn add_class(&mut self, class: u32, config: &ClassConfig) -> Result<()> {
        let now = self.now();
        self.driver.add_class(now, class, config)?;
        Ok(())
    }

    /// A flow appears, with its weight and class.
    pub fn add_flow(&mut self, flow: FlowId, config: &FlowConfig) -> Result<()> {
        if !self.flows.add(flow) {
            return Err(Error::FlowExists(flow));
        }
        let now = self.now();
        self.driver.add_flow(now, flow, config);
        Ok(())
    }

    /// Change a flow's weight.
    pub fn set_weight(&mut self, flow: FlowId, weight: u32) -> Result<()> {
        if self.flows.slot(flow).is_none() {
            return Err(Error::UnknownFlow(flow));
        }
        let now = self.now();
        self.driver.set_weight(now, flow, weight);
        Ok(())
    }

    /// Remove a flow that has nothing pending.
    pub fn remove_flow(&mut self, flow: FlowId) -> Result<()> {
        let Some(slot) = self.flows.slot(flow) else {
            return Err(Error::UnknownFlow(flow));
        };
        let pending = self.flows.pending(slot);
        if pending > 0 {
            return Err(Error::FlowBusy { flow, pending });
        }
        self.flows.remove(flow);
        let now = self.now();
        self.driver.remove_flow(now, flow);
        Ok(())
    }

    /// Hand a request to the policy. Nothing reaches the kernel until the
    /// next [`Engine::poll`], so a batch of submissions is scheduled as a
    /// whole. A refused request (unknown flow or target, empty, misaligned
    /// for O_DIRECT, a write to a read-only target) is not queued and its
    /// buffer is dropped.
    pub fn submit(&mut self, s: Submission) -> Result<RequestId> {
        let now = self.now();
        let Some(t) = self
            .targets
            .get(s.target.0 as usize)
            .and_then(Option::as_ref)
        else {
            return Err(Error::UnknownTarget(s.target));
        };
        let Some(slot) = self.flows.slot(s.flow) else {
            return Err(Error::UnknownFlow(s.flow));
        };
        let len = s.buf.len();
        let invalid = |m: String| Err(Error::InvalidRequest(m));
        if len == 0 || len > MAX_REQUEST_BYTES {
            return invalid(format!(
                "length {len}: expected 1..={MAX_REQUEST_BYTES} bytes"
            ));
        }
        if s.offset.checked_add(len as u64).is_none() {
            return invalid(format!("offset {} + length {len} overflows", s.offset));
        }
        if s.dir == Direction::Write && !t.info.writable {
            return invalid(format!("{} is opened read-only", t.info.path.display()));
        }
        if t.info.direct
            && !(s.offset.is_multiple_of(SECTOR_BYTES) && (len as u64).is_multiple_of(SECTOR_BYTES))
        {
            return invalid(format!(
                "O_DIRECT target {}: offset {} and length {len} must be multiples of 512",
                t.info.path.display(),
                s.offset
            ));
        }
        let first = s.offset % SECTOR_BYTES;
        let (flow, target, offset, dir, sync) = (s.flow, s.target, s.offset, s.dir, s.sync);
        let (base_sector, fd, direct) = (t.info.base_sector, t.file.as_raw_fd(), t.info.direct);
        let id = self
            .pending
            .insert(|_| Pending {
                flow,
                slot,
                target,
                fd,
                offset,
                progress: Progress::new(dir, len, direct),
                buf: s.buf,
                arrival: now,
            })
            .ok_or_else(|| {
                Error::InvalidRequest(format!(
                    "{} requests pending: the engine holds at most 2^{SLOT_BITS}",
                    self.pending.len()
                ))
            })?;
        let request = Request {
            id,
            origin: id,
            flow,
            dir,
            sync,
            sector: base_sector + offset / SECTOR_BYTES,
            sectors: (first + len as u64).div_ceil(SECTOR_BYTES) as u32,
            arrival: now,
        };
        self.flows.up(slot);
        if let Some(Some(t)) = self.targets.get_mut(target.0 as usize) {
            t.pending += 1;
        }
        self.driver.add(now, request);
        self.stats.submitted += 1;
        Ok(id)
    }

    /// Make progress: fire the driver's wake-up when due, let the policy
    /// dispatch into free slots, submit to the kernel, collect completions;
    /// block as `wait` allows (in `io_uring_enter`, with the driver's
    /// wake-up as its timeout: no thread sleeps and nothing spins). Returns
    /// how many completions are ready; take them with
    /// [`Engine::next_completion`] or [`Engine::completions`].
    pub fn poll(&mut self, wait: Wait) -> Result<usize> {
        let until = match wait {
            Wait::For(d) => Some(self.now().saturating_add(Duration::from_nanos(
                u64::try_from(d.as_nanos()).unwrap_or(u64::MAX),
            ))),
            _ => None,
        };
        loop {
            self.advance()?;
            let now = self.now();
            let ready = self.ready.len();
            let block =
                ready == 0 && !self.rung && wait != Wait::No && until.is_none_or(|u| now < u);
            if !block {
                if self.ring.submission().is_empty() {
                    self.rung = false;
                    return Ok(ready);
                }
                self.enter(0, None)?;
                continue;
            }
            let timer = self.driver.poll_timeout();
            let deadline = sluice::time::earliest([timer, until]);
            if self.in_kernel == 0 && timer.is_none() && !self.pending.is_empty() {
                return Err(Error::Stalled {
                    policy: self.driver.policy().name().to_string(),
                    queued: self.driver.queued(),
                });
            }
            if self.in_kernel == 0 && deadline.is_none() && self.doorbell.is_none() {
                // `Wait::Any` with nothing pending: nothing will ever come.
                return Ok(0);
            }
            // A wake-up already due was fired by `advance`; one the policy
            // left in the past anyway is retried a millisecond on, not spun on.
            let wait_for = deadline.map(|d| {
                let left = d.saturating_duration_since(now);
                if left.is_zero() {
                    Duration::from_millis(1)
                } else {
                    left
                }
            });
            self.enter(1, wait_for)?;
        }
    }

    /// The next ready completion, if any (each request's exactly once).
    pub fn next_completion(&mut self) -> Option<Completion> {
        self.ready.pop_front()
    }

    /// Take every ready completion.
    pub fn completions(&mut self) -> impl Iterator<Item = Completion> + '_ {
        self.ready.drain(..)
    }

    /// Run until every submitted request has completed; returns the
    /// completions not taken before, in completion order. On an error the
    /// completions gathered so far stay ready ([`Engine::next_completion`]),
    /// so that each is still reported exactly once.
    pub fn run_until_idle(&mut self) -> Result<Vec<Completion>> {
        let mut out = Vec::with_capacity(self.pending.len() + self.ready.len());
        while !self.pending.is_empty() {
            if let Err(e) = self.poll(Wait::Any) {
                for c in out.into_iter().rev() {
                    self.ready.push_front(c);
                }
                return Err(e);
            }
            out.extend(self.ready.drain(..));
        }
        out.extend(self.ready.drain(..));
        Ok(out)
    }

    /// Requests submitted and not yet completed (queued in the policy or in
    /// the kernel).
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Requests pending for one flow.
    pub fn pending_of(&self, flow: FlowId) -> usize {
        self.flows.pending_of(flow)
    }

    /// Requests the policy has dispatched that have not completed.
    pub fn in_flight(&self) -> usize {
        self.driver.in_flight()
    }

    /// The queue depth the engine keeps.
    pub fn queue_depth(&self) -> usize {
        self.driver.queue_depth()
    }

    /// What the policy answered the last time a slot was free.
    pub fn last_answer(&self) -> LastAnswer {
        self.driver.last_answer()
    }

    /// The driver's next wake-up (engine clock), if any.
    pub fn next_wakeup(&self) -> Option<Instant> {
        self.driver.poll_timeout()
    }

    /// The policy (its name, its statistics).
    pub fn policy(&self) -> &P {
        self.driver.policy()
    }

    /// The policy, to change its settings between calls.
    pub fn policy_mut(&mut self) -> &mut P {
        self.driver.policy_mut()
    }

    /// What the engine did so far.
    pub fn stats(&self) -> EngineStats {
        EngineStats {
            merges: self.driver.merges(),
            ..self.stats
        }
    }

    /// Fire a due wake-up, dispatch, reap: until nothing changes. No syscall.
    fn advance(&mut self) -> Result<()> {
        loop {
            let now = self.now();
            if self.driver.poll_timeout().is_some_and(|t| t <= now) {
                self.driver.handle_timeout(now);
                self.stats.timer_fires += 1;
            }
            self.dispatch(now)?;
            if self.reap()? == 0 {
                return Ok(());
            }
        }
    }

    /// Let the policy fill the free slots, then queue an SQE for each. The
    /// requests are all taken first and their pending entries fetched
    /// together: written at submission, they are cold by the time a
    /// backlog of thousands reaches dispatch, and one miss per SQE in turn
    /// cost more than the policy's decision (`engine-4096-flows` bench).
    fn dispatch(&mut self, now: Instant) -> Result<()> {
        let mut batch = std::mem::take(&mut self.dispatched);
        batch.clear();
        let costs: &dyn CostModel = match &self.costs {
            Costs::Linear(c) => c,
            Costs::Custom(c) => c.as_ref(),
        };
        while let Some(r) = self.driver.poll_dispatch(now, costs) {
            let merged = !self.driver.parts_of(r.id).is_empty();
            if !merged {
                self.pending.prefetch(r.id);
            }
            batch.push((r.id, merged));
        }
        let mut result = Ok(());
        for &(id, merged) in &batch {
            result = if merged {
                self.push_group(id)
            } else {
                self.push(id)
            };
            if result.is_err() {
                break;
            }
        }
        self.dispatched = batch;
        result
    }

    /// Queue the SQE for what is left of request `id`.
    fn push(&mut self, id: RequestId) -> Result<()> {
        let p = self
            .pending
            .get_mut(id)
            .expect("dispatched requests are pending");
        let done = p.progress.done;
        let len = (p.progress.len - done) as u32;
        let offset = p.offset + done as u64;
        // SAFETY (of the pointer's later use by the kernel): the buffer is
        // a separate allocation owned by `Pending` until the CQE is reaped
        // (or by `Drop`, which waits for the kernel), and `done < len`.
        let ptr = unsafe { p.buf.as_mut_ptr().add(done) };
        let fd = types::Fd(p.fd);
        let entry = match p.progress.dir {
            Direction::Read => opcode::Read::new(fd, ptr, len).offset(offset).build(),
            Direction::Write => opcode::Write::new(fd, ptr, len).offset(offset).build(),
        }
        .user_data(id.0);
        self.push_entry(&entry)
    }

    /// Queue one SQE, submitting first if the SQ is full.
    fn push_entry(&mut self, entry: &io_uring::squeue::Entry) -> Result<()> {
        loop {
            // SAFETY: the buffer and the fd outlive the operation (above;
            // targets are closed only when the engine drops).
            if unsafe { self.ring.submission().push(entry) }.is_ok() {
                break;
            }
            // The SQ is full (a queue depth above the ring's size): submit.
            self.enter(0, None)?;
        }
        self.in_kernel += 1;
        Ok(())
    }

    /// Process every CQE ready; returns how many.
    fn reap(&mut self) -> Result<usize> {
        let mut cqes = std::mem::take(&mut self.cqes);
        cqes.clear();
        cqes.extend(self.ring.completion().map(|c| (c.user_data(), c.result())));
        // Each completion reads its pending entry: fetch them together.
        for &(user_data, _) in &cqes {
            self.pending.prefetch(RequestId(user_data & !GROUP_BIT));
        }
        let n = cqes.len();
        let now = self.now();
        let mut result = Ok(());
        for &(user_data, res) in &cqes {
            if user_data == DOORBELL_TAG {
                self.rung = true;
                if let Some(d) = &self.doorbell {
                    d.reset();
                }
                if let Err(e) = self.arm_doorbell() {
                    result = Err(e);
                }
                continue;
            }
            if user_data & GROUP_BIT != 0 {
                self.in_kernel -= 1;
                if let Err(e) = self.group_result(now, RequestId(user_data & !GROUP_BIT), res) {
                    result = Err(e);
                }
                continue;
            }
            let id = RequestId(user_data);
            let Some(p) = self.pending.get_mut(id) else {
                debug_assert!(false, "CQE for unknown request {id:?}");
                continue;
            };
            self.in_kernel -= 1;
            match p.progress.on_result(res) {
                Step::Resubmit => {
                    self.stats.resubmits += 1;
                    if let Err(e) = self.push(id) {
                        result = Err(e);
                    }
                }
                Step::Done(r) => match self.groups.lead_of(id) {
                    Some(lead) => self.part_done(now, lead, id, r),
                    None => self.finish(now, id, r),
                },
            }
        }
        self.cqes = cqes;
        result.map(|()| n)
    }

    fn finish(&mut self, now: Instant, id: RequestId, result: io::Result<usize>) {
        let p = self.pending.remove(id).expect("checked by the caller");
        let service = match self.driver.complete(now, id) {
            Ok(c) => c.service,
            // Cannot happen: every request in the kernel was dispatched.
            Err(_) => sluice::Service {
                dispatched: now,
                completed: now,
                disk_time: Duration::ZERO,
            },
        };
        let resubmits = p.progress.resubmits;
        self.deliver(id, p, result, service, resubmits);
    }

    /// Hand request `id` back to the host, exactly once.
    fn deliver(
        &mut self,
        id: RequestId,
        p: Pending,
        result: io::Result<usize>,
        service: sluice::Service,
        resubmits: u32,
    ) {
        self.flows.down(p.slot);
        if let Some(Some(t)) = self.targets.get_mut(p.target.0 as usize) {
            t.pending -= 1;
        }
        self.stats.completed += 1;
        self.stats.errors += u64::from(result.is_err());
        self.ready.push_back(Completion {
            id,
            flow: p.flow,
            target: p.target,
            dir: p.progress.dir,
            offset: p.offset,
            result,
            buf: p.buf,
            arrival: p.arrival,
            dispatched: service.dispatched,
            completed: service.completed,
            disk_time: service.disk_time,
            resubmits,
        });
    }

    /// Submit the SQ and wait for `want` completions, at most `timeout`.
    fn enter(&mut self, want: usize, timeout: Option<Duration>) -> Result<()> {
        self.stats.enters += 1;
        let submitter = self.ring.submitter();
        let r = match timeout {
            Some(t) => {
                let ns = t.as_nanos();
                let ts = types::Timespec::new()
                    .sec(ns / 1_000_000_000)
                    .nsec((ns % 1_000_000_000) as u32);
                let args = types::SubmitArgs::new().timespec(&ts);
                submitter.submit_with_args(want, &args)
            }
            None => submitter.submit_and_wait(want),
        };
        match r {
            Ok(_) => Ok(()),
            Err(e) if benign(&e) => Ok(()),
            Err(e) => Err(Error::Ring(e)),
        }
    }
}

impl<P> Drop for Engine<P> {
    /// Wait for the kernel to finish every operation it holds before the
    /// buffers and files go (it would otherwise write into freed memory).
    fn drop(&mut self) {
        while self.in_kernel > 0 {
            match self.ring.submit_and_wait(1) {
                Ok(_) => {}
                Err(e) if benign(&e) => {}
                Err(_) => {
                    // The ring is broken: leak the buffers rather than free
                    // memory the kernel may still write.
                    for p in self.pending.drain() {
                        std::mem::forget(p.buf);
                    }
                    return;
                }
            }
            let n = self.ring.completion().count();
            self.in_kernel = self.in_kernel.saturating_sub(n);
        }
    }
}
