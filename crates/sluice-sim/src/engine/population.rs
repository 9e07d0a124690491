//! The simulated applications: the scenario's flows, the scheduler flows
//! (threads) they own, and the requests they have issued and not yet seen
//! complete.

use std::collections::BTreeMap;

use sluice::{Direction, Driver, FlowId, Instant, Request, RequestId, Scheduler};

use sluice_workload::{Actions, Flow};

use crate::scenario::Scenario;

/// The flows of a run and the scheduler flow ids of their threads.
pub(crate) struct Population {
    pub flows: Vec<Flow>,
    /// Scheduler flow id -> (flow index, thread of that flow).
    owners: Vec<(u32, u32)>,
    /// First scheduler flow id of each flow's current process.
    first_thread: Vec<u32>,
    next_id: u64,
    /// Id of the application request the next fragment belongs to.
    origin: u64,
    /// Requests issued and not completed: id -> (flow, arrival).
    pending: BTreeMap<u64, (u32, Instant)>,
    /// Finite flows not done yet.
    pub finite_left: usize,
}

impl Population {
    /// The scenario's flows, with their threads registered with the policy
    /// (after the scenario's classes).
    pub fn new<P: Scheduler>(
        scenario: &Scenario,
        driver: &mut Driver<P>,
    ) -> Result<Self, sluice::Error> {
        for (i, c) in scenario.classes.iter().enumerate() {
            driver.add_class(Instant::ZERO, i as u32, c)?;
        }
        let mut pop = Population {
            flows: Vec::with_capacity(scenario.flows.len()),
            owners: Vec::new(),
            first_thread: Vec::new(),
            next_id: 0,
            origin: 0,
            pending: BTreeMap::new(),
            finite_left: 0,
        };
        for (i, f) in scenario.flows.iter().enumerate() {
            let flow = Flow::new(f.clone(), scenario.seed, i);
            pop.flows.push(flow);
            let first = pop.register_threads(driver, i, Instant::ZERO);
            pop.first_thread.push(first);
        }
        pop.finite_left = pop.flows.iter().filter(|f| f.finite()).count();
        Ok(pop)
    }

    /// Which flow and thread a scheduler flow id belongs to.
    pub fn owner(&self, flow: FlowId) -> (usize, u32) {
        let (f, t) = self.owners[flow.0 as usize];
        (f as usize, t)
    }

    /// Whether scheduler flow `flow` belongs to its owner's current process
    /// (not to a start-up run that has been replaced).
    pub fn is_current(&self, flow: FlowId) -> bool {
        let (f, _) = self.owner(flow);
        flow.0 >= self.first_thread[f]
    }

    /// Carry out what flow `f` asked at `now`: hand its requests to the
    /// driver; returns the instants it wants to be woken at.
    pub fn apply<P: Scheduler>(
        &mut self,
        driver: &mut Driver<P>,
        f: usize,
        act: Actions,
        now: Instant,
    ) -> Vec<Instant> {
        if act.new_process {
            self.respawn(driver, f, now);
        }
        for i in act.issues {
            if !i.continues {
                self.origin = self.next_id;
            }
            let r = Request {
                id: RequestId(self.next_id),
                origin: RequestId(self.origin),
                flow: FlowId(self.first_thread[f] + i.thread),
                dir: if i.write {
                    Direction::Write
                } else {
                    Direction::Read
                },
                sync: i.sync,
                sector: i.sector,
                sectors: i.sectors,
                arrival: now,
            };
            self.next_id += 1;
            self.pending.insert(r.id.0, (f as u32, now));
            driver.add(now, r);
        }
        act.wakes
    }

    /// Request `id` completed: it is no longer pending.
    pub fn served(&mut self, id: RequestId) {
        self.pending.remove(&id.0);
    }

    /// Arrival of the oldest request still pending, per flow.
    pub fn oldest_pending(&self) -> Vec<Option<Instant>> {
        let mut oldest: Vec<Option<Instant>> = vec![None; self.flows.len()];
        for &(f, arrival) in self.pending.values() {
            let o = &mut oldest[f as usize];
            *o = Some(o.map_or(arrival, |a| a.min(arrival)));
        }
        oldest
    }

    /// Give flow `f`'s threads fresh scheduler flow ids (the old ones are
    /// removed; their requests still in flight keep their owner).
    fn respawn<P: Scheduler>(&mut self, driver: &mut Driver<P>, f: usize, now: Instant) {
        let old = self.first_thread[f];
        for t in 0..self.flows[f].threads() {
            driver.remove_flow(now, FlowId(old + t));
        }
        self.first_thread[f] = self.register_threads(driver, f, now);
    }

    /// Register flow `f`'s threads with the policy under the next free flow
    /// ids, recording their owner; returns the first id.
    fn register_threads<P: Scheduler>(
        &mut self,
        driver: &mut Driver<P>,
        f: usize,
        now: Instant,
    ) -> u32 {
        let flow = &self.flows[f];
        let first = self.owners.len() as u32;
        for t in 0..flow.threads() {
            driver.add_flow(now, FlowId(first + t), &flow.thread_config(t));
            self.owners.push((f as u32, t));
        }
        first
    }
}
