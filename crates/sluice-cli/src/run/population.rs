//! The flows of a real run and their requests in flight, whichever way the
//! requests reach the device: the io_uring engine (`sluice run`) or OS
//! threads under the kernel's own scheduler (`sluice kernel`).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use anyhow::{Context, Result};
use sluice::{FlowConfig, FlowId, Instant, RequestId, Scheduler};
use sluice_uring::{AlignedBuf, Completion, Engine, Submission, TargetId};
use sluice_workload::{Actions, Flow};

use super::files::pattern_byte;
use super::verify::{Stamped, Verifier};

/// Where a run's requests go.
pub trait Backend {
    /// The backend's clock.
    fn now(&self) -> Instant;
    fn add_flow(&mut self, id: FlowId, config: &FlowConfig) -> Result<()>;
    fn remove_flow(&mut self, id: FlowId) -> Result<()>;
    /// Requests of scheduler flow `id` submitted and not completed.
    fn pending_of(&self, id: FlowId) -> usize;
    fn submit(&mut self, s: Submission) -> Result<RequestId>;
}

impl<P: Scheduler> Backend for Engine<P> {
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

/// Flow wake-ups: (instant, flow index), earliest first.
pub type Agenda = BinaryHeap<Reverse<(Instant, usize)>>;

/// One request's bookkeeping: which flow, which scheduler flow, since when.
pub struct Pending {
    pub flow: usize,
    pub sched_flow: FlowId,
    pub arrival: Instant,
    /// Writes under `--verify`: the stamp.
    pub stamp: Option<Stamped>,
}

/// The flows of the run and the scheduler flows of their threads (as the
/// simulator's population).
pub struct Population {
    pub flows: Vec<Flow>,
    pub targets: Vec<TargetId>,
    /// Where each flow's data starts in its target (bytes; 0 for files).
    pub bases: Vec<u64>,
    /// `--verify`: the stamps of the writes.
    pub verifier: Option<Verifier>,
    /// Scheduler flow id -> (flow index, thread).
    pub owners: Vec<(u32, u32)>,
    /// First scheduler flow id of each flow's current process.
    pub first_thread: Vec<u32>,
    /// Scheduler flows of replaced processes, removed once idle.
    pub retired: Vec<FlowId>,
    pub pending: HashMap<RequestId, Pending>,
    pub finite_left: usize,
    /// Reusable buffers.
    pub spare: Vec<AlignedBuf>,
    /// `--timeline`: bytes per flow per bin of wall-clock time.
    pub timeline: Option<sluice_runtime::timeline::Bins>,
}

impl Population {
    /// The scenario's flows, their data in `targets` from `bases` (bytes),
    /// with no thread registered yet.
    pub fn new(
        s: &sluice_runtime::Scenario,
        targets: Vec<TargetId>,
        bases: Vec<u64>,
        verifier: Option<Verifier>,
    ) -> Self {
        let flows: Vec<Flow> = s
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| Flow::new(f.clone(), s.seed, i))
            .collect();
        let finite_left = flows.iter().filter(|f| f.finite()).count();
        Population {
            flows,
            targets,
            bases,
            verifier,
            owners: Vec::new(),
            first_thread: Vec::new(),
            retired: Vec::new(),
            pending: HashMap::new(),
            finite_left,
            spare: Vec::new(),
            timeline: None,
        }
    }

    /// Wake every flow whose wake-up is due at `now` and issue what it
    /// asks; later wake-ups go back on the agenda.
    pub fn wake_due(
        &mut self,
        engine: &mut dyn Backend,
        agenda: &mut Agenda,
        now: Instant,
    ) -> Result<()> {
        while let Some(&Reverse((t, f))) = agenda.peek() {
            if t > now {
                break;
            }
            agenda.pop();
            let mut act = Actions::default();
            self.flows[f].wake(now, &mut act);
            for w in self.apply(engine, f, act, now)? {
                agenda.push(Reverse((w.max(now), f)));
            }
        }
        Ok(())
    }

    /// Whether the run ends when the finite flows are done: all flows are
    /// finite, or the scenario says so and there is one.
    pub fn all_finite(&self, stop_after_finite: bool) -> bool {
        let finite = self.finite_left;
        stop_after_finite && finite > 0 || finite == self.flows.len()
    }

    pub fn register_threads(&mut self, engine: &mut dyn Backend, f: usize) -> Result<u32> {
        let flow = &self.flows[f];
        let first = self.owners.len() as u32;
        for t in 0..flow.threads() {
            engine.add_flow(FlowId(first + t), &flow.thread_config(t))?;
            self.owners.push((f as u32, t));
        }
        Ok(first)
    }

    fn respawn(&mut self, engine: &mut dyn Backend, f: usize) -> Result<()> {
        let old = self.first_thread[f];
        for t in 0..self.flows[f].threads() {
            self.retired.push(FlowId(old + t));
        }
        self.reap_retired(engine)?;
        self.first_thread[f] = self.register_threads(engine, f)?;
        Ok(())
    }

    /// Remove retired scheduler flows that have nothing pending.
    pub fn reap_retired(&mut self, engine: &mut dyn Backend) -> Result<()> {
        let mut i = 0;
        while i < self.retired.len() {
            let id = self.retired[i];
            if engine.pending_of(id) == 0 {
                engine.remove_flow(id)?;
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

    /// Carry out what flow `f` asked at `now`; returns its wake-ups.
    pub fn apply(
        &mut self,
        engine: &mut dyn Backend,
        f: usize,
        act: Actions,
        now: Instant,
    ) -> Result<Vec<Instant>> {
        if act.new_process {
            self.respawn(engine, f)?;
        }
        for i in act.issues {
            let spec = &self.flows[f].spec;
            let sched_flow = FlowId(self.first_thread[f] + i.thread);
            let offset = i.sector.saturating_sub(spec.file_start) * 512;
            let len = i.sectors as usize * 512;
            let mut buf = self.buffer(len);
            let mut stamp = None;
            let at = self.bases[f] + offset;
            let sub = if i.write {
                if let Some(v) = &mut self.verifier {
                    stamp = Some(v.stamp(f as u32, offset, &mut buf));
                } else if buf[0] == 0 {
                    for (k, b) in buf.iter_mut().enumerate() {
                        *b = pattern_byte(f, offset + k as u64);
                    }
                }
                Submission::write(sched_flow, self.targets[f], at, buf)
            } else {
                Submission::read(sched_flow, self.targets[f], at, buf)
            }
            .sync(i.sync);
            let id = engine
                .submit(sub)
                .with_context(|| format!("flow '{}'", self.flows[f].spec.name))?;
            self.pending.insert(
                id,
                Pending {
                    flow: f,
                    sched_flow,
                    arrival: now,
                    stamp,
                },
            );
        }
        Ok(act.wakes)
    }
}
/// A write completed after the clock stopped: record it for verification.
pub fn settle(
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
pub fn complete(
    pop: &mut Population,
    engine: &mut dyn Backend,
    agenda: &mut Agenda,
    c: Completion,
    rel: impl Fn(Instant) -> Instant,
    warmup: Instant,
) -> Result<()> {
    let Some(p) = pop.pending.remove(&c.id) else {
        return Ok(());
    };
    let now = rel(c.completed);
    if let (Some(v), Some(w)) = (&mut pop.verifier, &p.stamp) {
        v.written(w, rel(c.dispatched), now, c.result.is_ok());
    }
    let (f, thread) = pop.owners[p.sched_flow.0 as usize];
    let (f, thread) = (f as usize, thread);
    debug_assert_eq!(f, p.flow);
    if let Some(t) = &mut pop.timeline {
        t.record(f, now, c.bytes() as u64);
    }
    if now >= warmup {
        let flow = &mut pop.flows[f];
        let bytes = c.bytes() as u64;
        flow.metrics.record(
            bytes,
            c.dir == sluice::Direction::Write,
            now.saturating_duration_since(p.arrival),
        );
        flow.metrics.disk_time += c.disk_time;
        let ts = &mut flow.thread_stats[thread as usize];
        ts.0 += 1;
        ts.1 += bytes / 512;
    }
    pop.spare.push(c.buf);
    let current = p.sched_flow.0 >= pop.first_thread[f];
    if !pop.retired.is_empty() {
        pop.reap_retired(engine)?;
    }
    let mut act = Actions::default();
    if pop.flows[f].completed(now, thread, current, warmup, &mut act) {
        pop.finite_left -= 1;
    }
    let t = rel(engine.now()).max(now);
    for w in pop.apply(engine, f, act, t)? {
        agenda.push(Reverse((w.max(t), f)));
    }
    Ok(())
}
