//! The population of a run: the scenario's flows, the scheduler flows
//! (threads) each one owns, and the bookkeeping every host needs around
//! them. Hosts differ only in where a request goes, which is their
//! [`Backend`]: the simulator hands it to the driver in virtual time, the
//! io_uring engine submits it for real, `sluice kernel` gives it to an OS
//! thread.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::ops::Range;

use sluice::{FlowConfig, FlowId, Instant};
use sluice_workload::{Actions, Flow, FlowSpec, Issue};

use crate::scenario::Scenario;

/// Where a population's threads and requests go: what a host provides.
pub trait Backend {
    /// The host's error (the simulator cannot fail; real I/O can).
    type Error;

    /// A thread starts: register scheduler flow `id`.
    fn add_thread(
        &mut self,
        now: Instant,
        id: FlowId,
        config: &FlowConfig,
    ) -> Result<(), Self::Error>;

    /// The threads `ids` belong to a process that was replaced (a start-up
    /// run again). Their requests still in flight keep their owner; the
    /// host removes the scheduler flows now or once they are idle.
    fn retire_threads(&mut self, now: Instant, ids: Range<u32>) -> Result<(), Self::Error>;

    /// Issue one request of flow `flow` (described by `spec`) from
    /// scheduler flow `thread`.
    fn issue(
        &mut self,
        now: Instant,
        flow: usize,
        spec: &FlowSpec,
        thread: FlowId,
        issue: Issue,
    ) -> Result<(), Self::Error>;
}

/// Flow wake-ups, earliest first: (instant, flow index). A real-time
/// host keeps its flows' wake-ups here; the simulator orders them among
/// its device events in one agenda of its own.
pub type Agenda = BinaryHeap<Reverse<(Instant, usize)>>;

/// The flows of a run and the scheduler flow ids of their threads.
pub struct Population {
    /// The flows, in scenario order.
    pub flows: Vec<Flow>,
    /// Scheduler flow id -> (flow index, thread of that flow).
    owners: Vec<(u32, u32)>,
    /// First scheduler flow id of each flow's current process.
    first_thread: Vec<u32>,
    /// Finite flows at the start.
    finite_total: usize,
    /// Finite flows not done yet.
    finite_left: usize,
}

impl Population {
    /// The scenario's flows, their threads registered with `backend` in
    /// flow order (scheduler flow ids 0, 1, ...).
    pub fn new<B: Backend>(scenario: &Scenario, backend: &mut B) -> Result<Self, B::Error> {
        let mut pop = Self::without_threads(scenario);
        pop.register(backend)?;
        Ok(pop)
    }

    /// The scenario's flows, their threads not registered yet (for a host
    /// whose backend exists only once the flows do); [`register`] them
    /// before anything else.
    ///
    /// [`register`]: Self::register
    pub fn without_threads(scenario: &Scenario) -> Self {
        let flows: Vec<Flow> = scenario
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| Flow::new(f.clone(), scenario.seed, i))
            .collect();
        let finite = flows.iter().filter(|f| f.finite()).count();
        Population {
            flows,
            owners: Vec::new(),
            first_thread: Vec::new(),
            finite_total: finite,
            finite_left: finite,
        }
    }

    /// Register every flow's threads with `backend`, in flow order
    /// (scheduler flow ids 0, 1, ...).
    pub fn register<B: Backend>(&mut self, backend: &mut B) -> Result<(), B::Error> {
        debug_assert!(self.first_thread.is_empty(), "threads registered twice");
        for f in 0..self.flows.len() {
            let first = self.register_threads(backend, f, Instant::ZERO)?;
            self.first_thread.push(first);
        }
        Ok(())
    }

    /// Which flow and thread a scheduler flow id belongs to.
    pub fn owner(&self, id: FlowId) -> (usize, u32) {
        let (f, t) = self.owners[id.0 as usize];
        (f as usize, t)
    }

    /// Whether scheduler flow `id` belongs to its owner's current process
    /// (not to a start-up run that has been replaced).
    pub fn is_current(&self, id: FlowId) -> bool {
        let (f, _) = self.owner(id);
        id.0 >= self.first_thread[f]
    }

    /// Finite flows not done yet.
    pub fn finite_left(&self) -> usize {
        self.finite_left
    }

    /// Whether the run ends once the finite flows are done: every flow is
    /// finite, or the scenario says so (`stop_after_finite`) and there is
    /// one.
    pub fn ends_with_finite(&self, stop_after_finite: bool) -> bool {
        let finite = self.finite_total;
        stop_after_finite && finite > 0 || finite == self.flows.len()
    }

    /// Whether the run is over because its finite flows are done.
    pub fn finite_done(&self, stop_after_finite: bool) -> bool {
        self.ends_with_finite(stop_after_finite) && self.finite_left == 0
    }

    /// Flow `f` is due to act at `now`: what it asks.
    pub fn wake(&mut self, f: usize, now: Instant) -> Actions {
        let mut act = Actions::default();
        self.flows[f].wake(now, &mut act);
        act
    }

    /// A request of scheduler flow `id` completed at `now`: measure it if
    /// it completed after the warm-up, and tell its flow (which counts as
    /// done once its last request is); returns the flow's index and what
    /// it asks next.
    pub fn completed(
        &mut self,
        id: FlowId,
        now: Instant,
        warmup: Instant,
        done: Measured,
    ) -> (usize, Actions) {
        let (f, thread) = self.owner(id);
        let current = id.0 >= self.first_thread[f];
        let flow = &mut self.flows[f];
        if now >= warmup {
            flow.metrics.record(done.bytes, done.write, done.latency);
            flow.metrics.disk_time += done.disk_time;
            let ts = flow.thread_stats.get_mut(thread as usize);
            ts.0 += 1;
            ts.1 += done.bytes / 512;
        }
        let mut act = Actions::default();
        if flow.completed(now, thread, current, warmup, &mut act) {
            self.finite_left -= 1;
        }
        (f, act)
    }

    /// Carry out what flow `f` asked at `now`: a new process, then its
    /// requests in order; returns the instants it wants to be woken at.
    pub fn apply<B: Backend>(
        &mut self,
        backend: &mut B,
        f: usize,
        act: Actions,
        now: Instant,
    ) -> Result<Vec<Instant>, B::Error> {
        if act.new_process {
            let old = self.first_thread[f];
            backend.retire_threads(now, old..old + self.flows[f].threads())?;
            self.first_thread[f] = self.register_threads(backend, f, now)?;
        }
        for i in act.issues {
            let thread = FlowId(self.first_thread[f] + i.thread);
            backend.issue(now, f, &self.flows[f].spec, thread, i)?;
        }
        Ok(act.wakes)
    }

    /// Wake every flow whose wake-up in `agenda` is due at `now` and carry
    /// out what it asks; its later wake-ups go back on the agenda.
    pub fn wake_due<B: Backend>(
        &mut self,
        backend: &mut B,
        agenda: &mut Agenda,
        now: Instant,
    ) -> Result<(), B::Error> {
        while let Some(&Reverse((t, f))) = agenda.peek() {
            if t > now {
                break;
            }
            agenda.pop();
            let act = self.wake(f, now);
            for w in self.apply(backend, f, act, now)? {
                agenda.push(Reverse((w.max(now), f)));
            }
        }
        Ok(())
    }

    /// Register flow `f`'s threads under the next free scheduler flow ids,
    /// recording their owner; returns the first id.
    fn register_threads<B: Backend>(
        &mut self,
        backend: &mut B,
        f: usize,
        now: Instant,
    ) -> Result<u32, B::Error> {
        let flow = &self.flows[f];
        let first = self.owners.len() as u32;
        for t in 0..flow.threads() {
            backend.add_thread(now, FlowId(first + t), &flow.thread_config(t))?;
            self.owners.push((f as u32, t));
        }
        Ok(first)
    }
}

/// What a host measured of one completed request.
#[derive(Clone, Copy, Debug)]
pub struct Measured {
    /// Bytes transferred.
    pub bytes: u64,
    /// A write (else a read).
    pub write: bool,
    /// From arrival to completion.
    pub latency: sluice::Duration,
    /// The device time attributed to it.
    pub disk_time: sluice::Duration,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{FlowBuilder, Pattern, ScenarioBuilder};

    /// A backend that logs what it was asked.
    #[derive(Default)]
    struct Log(Vec<String>);

    impl Backend for Log {
        type Error = ();
        fn add_thread(&mut self, _: Instant, id: FlowId, _: &FlowConfig) -> Result<(), ()> {
            self.0.push(format!("add {}", id.0));
            Ok(())
        }
        fn retire_threads(&mut self, _: Instant, ids: Range<u32>) -> Result<(), ()> {
            self.0.push(format!("retire {ids:?}"));
            Ok(())
        }
        fn issue(
            &mut self,
            _: Instant,
            f: usize,
            _: &FlowSpec,
            t: FlowId,
            _: Issue,
        ) -> Result<(), ()> {
            self.0.push(format!("issue {f} {}", t.0));
            Ok(())
        }
    }

    fn scenario() -> Scenario {
        ScenarioBuilder::new("p", 1.0)
            .preset("maxtor-stm332061")
            .scheduler("noop")
            .flow(FlowBuilder::new("r", Pattern::SeqRead).count(2))
            .build()
            .unwrap()
    }

    #[test]
    fn threads_are_numbered_in_flow_order_and_requests_go_to_them() {
        let mut log = Log::default();
        let mut pop = Population::new(&scenario(), &mut log).unwrap();
        assert_eq!(log.0, ["add 0", "add 1"]);
        assert_eq!(pop.owner(FlowId(1)), (1, 0));
        let act = pop.wake(1, Instant::ZERO);
        assert!(!act.issues.is_empty());
        pop.apply(&mut log, 1, act, Instant::ZERO).unwrap();
        assert_eq!(log.0[2], "issue 1 1");
    }

    #[test]
    fn a_new_process_retires_the_old_threads_and_registers_fresh_ones() {
        let mut log = Log::default();
        let mut pop = Population::new(&scenario(), &mut log).unwrap();
        let act = Actions {
            new_process: true,
            ..Actions::default()
        };
        pop.apply(&mut log, 0, act, Instant::ZERO).unwrap();
        assert_eq!(log.0[2..], ["retire 0..1", "add 2"]);
        assert!(!pop.is_current(FlowId(0)));
        assert!(pop.is_current(FlowId(2)));
        assert_eq!(pop.owner(FlowId(2)), (0, 0));
    }

    #[test]
    fn only_the_due_wake_ups_are_carried_out() {
        let mut log = Log::default();
        let mut pop = Population::new(&scenario(), &mut log).unwrap();
        let later = Instant::from_nanos(5_000_000);
        let mut agenda = Agenda::new();
        agenda.push(Reverse((Instant::ZERO, 0)));
        agenda.push(Reverse((later, 1)));
        pop.wake_due(&mut log, &mut agenda, Instant::ZERO).unwrap();
        assert!(log.0[2..].iter().all(|l| l == "issue 0 0"), "{:?}", log.0);
        assert!(log.0.len() > 2);
        assert_eq!(agenda.peek(), Some(&Reverse((later, 1))));
    }

    #[test]
    fn greedy_flows_do_not_end_the_run_unless_all_flows_are_finite() {
        let pop = Population::new(&scenario(), &mut Log::default()).unwrap();
        assert!(!pop.ends_with_finite(true));
        assert!(!pop.finite_done(false));
    }
}
