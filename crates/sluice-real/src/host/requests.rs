//! A real run's requests: the I/O path they take (the io_uring engine, or
//! OS threads under the kernel's scheduler), the books kept on them (target,
//! buffer, stamp, arrival), and the runtime's [`Backend`] made of the two.

use std::cmp::Reverse;
use std::collections::HashMap;
use std::ops::Range;

use anyhow::{Context, Result};
use sluice::{FlowConfig, FlowId, Instant, RequestId, Scheduler};
use sluice_runtime::population::Agenda;
use sluice_runtime::population::Measured;
use sluice_runtime::request_log::RequestRecord;
use sluice_runtime::timeline::Bins;
use sluice_runtime::{Backend, Population};
use sluice_uring::{AlignedBuf, Completion, Engine, Submission, TargetId};
use sluice_workload::{FlowSpec, Issue};

use super::verify::{Stamped, Verifier};

/// The non-zero byte at `pos` of flow `flow`'s file (and of written data).
pub(crate) fn pattern_byte(flow: usize, pos: u64) -> u8 {
    ((pos.wrapping_mul(31).wrapping_add(flow as u64 * 7)) % 251) as u8 + 1
}

/// Where a real run's requests go.
pub(crate) trait Io {
    /// The I/O path's clock.
    fn now(&self) -> Instant;
    /// Register scheduler flow `id` (a flow's thread) with its weight and class.
    fn add_flow(&mut self, id: FlowId, config: &FlowConfig) -> Result<()>;
    /// Forget scheduler flow `id`, which has nothing pending.
    fn remove_flow(&mut self, id: FlowId) -> Result<()>;
    /// Requests of scheduler flow `id` submitted and not completed.
    fn pending_of(&self, id: FlowId) -> usize;
    /// Hand a request over; returns the id its completion will carry.
    fn submit(&mut self, s: Submission) -> Result<RequestId>;
}

impl<P: Scheduler> Io for Engine<P> {
    fn now(&self) -> Instant {
        Engine::now(self)
    }
    fn add_flow(&mut self, id: FlowId, config: &FlowConfig) -> Result<()> {
        Ok(Engine::add_flow(self, id, config)?)
    }
    fn remove_flow(&mut self, id: FlowId) -> Result<()> {
        Ok(Engine::remove_flow(self, id)?)
    }
    fn pending_of(&self, id: FlowId) -> usize {
        Engine::pending_of(self, id)
    }
    fn submit(&mut self, s: Submission) -> Result<RequestId> {
        Ok(Engine::submit(self, s)?)
    }
}

/// One request's bookkeeping: which flow, which scheduler flow, since when.
pub(crate) struct Pending {
    pub(crate) flow: usize,
    pub(crate) sched_flow: FlowId,
    pub(crate) arrival: Instant,
    /// Writes under `verify`: the stamp.
    pub(crate) stamp: Option<Stamped>,
    /// What the flow asked for, in its own sectors, for the request log.
    pub(crate) asked: Asked,
}

/// A request as its flow issued it: the request log's columns that the
/// completion does not carry.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Asked {
    /// First sector in the flow's address space (as the simulator logs it).
    pub(crate) sector: u64,
    /// Length in sectors.
    pub(crate) sectors: u32,
    /// The issuer waits for it.
    pub(crate) sync: bool,
}

/// The books of a real run's requests: where each flow's data is, the
/// requests in flight, reusable buffers, and what `verify` and
/// `timeline_ms` record.
pub(crate) struct Book {
    /// Each flow's target, by flow index (one block device for all, or a
    /// file each).
    pub(crate) targets: Vec<TargetId>,
    /// Where each flow's data starts in its target (bytes; 0 for files).
    pub(crate) bases: Vec<u64>,
    /// `verify`: the stamps of the writes.
    pub(crate) verifier: Option<Verifier>,
    /// Scheduler flows of replaced processes, removed once idle.
    pub(crate) retired: Vec<FlowId>,
    /// The requests submitted and not yet completed, by id.
    pub(crate) pending: HashMap<RequestId, Pending>,
    /// Reusable buffers.
    pub(crate) spare: Vec<AlignedBuf>,
    /// `timeline_ms`: bytes per flow per bin of wall-clock time.
    pub(crate) timeline: Option<Bins>,
    /// `log_requests`: every completed request, in completion order.
    pub(crate) log: Option<Vec<RequestRecord>>,
}

impl Book {
    /// The books of flows whose data is in `targets` from `bases` (bytes).
    pub(crate) fn new(targets: Vec<TargetId>, bases: Vec<u64>, verifier: Option<Verifier>) -> Self {
        Book {
            targets,
            bases,
            verifier,
            retired: Vec::new(),
            pending: HashMap::new(),
            spare: Vec::new(),
            timeline: None,
            log: None,
        }
    }

    /// Arrival of the oldest request still pending, per flow (of `flows`).
    pub(crate) fn oldest_pending(&self, flows: usize) -> Vec<Option<Instant>> {
        let pending = self.pending.values().map(|p| (p.flow, p.arrival));
        sluice_runtime::report::oldest_pending(flows, pending)
    }

    /// Remove retired scheduler flows that have nothing pending.
    pub(crate) fn reap_retired(&mut self, io: &mut dyn Io) -> Result<()> {
        let mut i = 0;
        while i < self.retired.len() {
            let id = self.retired[i];
            if io.pending_of(id) == 0 {
                io.remove_flow(id)?;
                self.retired.swap_remove(i);
            } else {
                i += 1;
            }
        }
        Ok(())
    }

    fn buffer(&mut self, len: usize) -> AlignedBuf {
        match self.spare.iter().position(|b| b.capacity() >= len) {
            Some(i) => {
                let mut b = self.spare.swap_remove(i);
                b.set_len(len);
                b
            }
            None => AlignedBuf::zeroed(len),
        }
    }
}

/// The runtime's backend for a real run: an I/O path and the books.
pub(crate) struct Host<'a> {
    /// The I/O path: the io_uring engine, or the kernel run's threads.
    pub(crate) io: &'a mut dyn Io,
    /// The books on the requests.
    pub(crate) book: &'a mut Book,
}

impl Backend for Host<'_> {
    type Error = anyhow::Error;

    fn add_thread(&mut self, _now: Instant, id: FlowId, config: &FlowConfig) -> Result<()> {
        self.io.add_flow(id, config)
    }

    /// Removed once idle: the I/O path still owes their requests.
    fn retire_threads(&mut self, _now: Instant, ids: Range<u32>) -> Result<()> {
        self.book.retired.extend(ids.map(FlowId));
        self.book.reap_retired(self.io)
    }

    fn issue(
        &mut self,
        now: Instant,
        f: usize,
        spec: &FlowSpec,
        sched_flow: FlowId,
        i: Issue,
    ) -> Result<()> {
        let book = &mut *self.book;
        let offset = i.sector.saturating_sub(spec.file_start) * 512;
        let len = i.sectors as usize * 512;
        let mut buf = book.buffer(len);
        let mut stamp = None;
        let at = book.bases[f] + offset;
        let sub = if i.write {
            if let Some(v) = &mut book.verifier {
                stamp = Some(v.stamp(f as u32, offset, &mut buf));
            } else if buf[0] == 0 {
                for (k, b) in buf.iter_mut().enumerate() {
                    *b = pattern_byte(f, offset + k as u64);
                }
            }
            Submission::write(sched_flow, book.targets[f], at, buf)
        } else {
            Submission::read(sched_flow, book.targets[f], at, buf)
        }
        .sync(i.sync);
        let id = self
            .io
            .submit(sub)
            .with_context(|| format!("flow '{}'", spec.name))?;
        book.pending.insert(
            id,
            Pending {
                flow: f,
                sched_flow,
                arrival: now,
                stamp,
                asked: Asked {
                    sector: i.sector,
                    sectors: i.sectors,
                    sync: i.sync,
                },
            },
        );
        Ok(())
    }
}

/// A write completed after the clock stopped: record it for verification.
pub(crate) fn settle(
    v: &mut Verifier,
    pending: &HashMap<RequestId, Pending>,
    c: &Completion,
    rel: impl Fn(Instant) -> Instant,
) {
    if let Some(p) = pending.get(&c.id) {
        if let Some(w) = &p.stamp {
            v.written(w, rel(c.dispatched), rel(c.completed), c.result.is_ok());
        }
    }
}

/// A request completed: measure it, tell its flow, issue what follows.
pub(crate) fn complete(
    pop: &mut Population,
    host: &mut Host<'_>,
    agenda: &mut Agenda,
    c: Completion,
    rel: impl Fn(Instant) -> Instant,
    warmup: Instant,
) -> Result<()> {
    let book = &mut *host.book;
    let Some(p) = book.pending.remove(&c.id) else {
        return Ok(());
    };
    let now = rel(c.completed);
    if let (Some(v), Some(w)) = (&mut book.verifier, &p.stamp) {
        v.written(w, rel(c.dispatched), now, c.result.is_ok());
    }
    if let Some(t) = &mut book.timeline {
        t.record(p.flow, now, c.bytes() as u64);
    }
    if let Some(log) = &mut book.log {
        log.push(RequestRecord {
            flow: p.flow as u32,
            thread: pop.owner(p.sched_flow).1,
            write: c.dir == sluice::Direction::Write,
            sync: p.asked.sync,
            sector: p.asked.sector,
            sectors: p.asked.sectors,
            arrival: p.arrival,
            dispatched: rel(c.dispatched).max(p.arrival),
            completed: now,
        });
    }
    let measured = Measured {
        bytes: c.bytes() as u64,
        write: c.dir == sluice::Direction::Write,
        latency: now.saturating_duration_since(p.arrival),
        disk_time: c.disk_time,
    };
    book.spare.push(c.buf);
    if !book.retired.is_empty() {
        book.reap_retired(host.io)?;
    }
    let (f, act) = pop.completed(p.sched_flow, now, warmup, measured);
    let t = rel(host.io.now()).max(now);
    for w in pop.apply(host, f, act, t)? {
        agenda.push(Reverse((w.max(t), f)));
    }
    Ok(())
}
