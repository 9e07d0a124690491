//! The simulator's side of the population: its [`Backend`] hands each
//! request to the driver in virtual time, numbering requests and the
//! application requests their fragments belong to, and remembers which
//! are still pending (for a starved flow's oldest unserved request).

use std::collections::BTreeMap;
use std::ops::Range;

use sluice::{Direction, Driver, FlowConfig, FlowId, Instant, Request, RequestId, Scheduler};
use sluice_runtime::Backend;
use sluice_workload::{FlowSpec, Issue};

/// The driver, and the requests handed to it and not yet completed.
pub(crate) struct Requests {
    pub driver: Driver<Box<dyn Scheduler>>,
    next_id: u64,
    /// Id of the application request the next fragment belongs to.
    origin: u64,
    /// Requests issued and not completed: id -> (flow, arrival).
    pending: BTreeMap<u64, (u32, Instant)>,
}

impl Requests {
    pub(super) fn new(driver: Driver<Box<dyn Scheduler>>) -> Self {
        Requests {
            driver,
            next_id: 0,
            origin: 0,
            pending: BTreeMap::new(),
        }
    }

    /// Request `id` completed: it is no longer pending.
    pub(super) fn served(&mut self, id: RequestId) {
        self.pending.remove(&id.0);
    }

    /// Arrival of the oldest request still pending, per flow (of `flows`).
    pub(super) fn oldest_pending(&self, flows: usize) -> Vec<Option<Instant>> {
        let pending = self.pending.values().map(|&(f, a)| (f as usize, a));
        sluice_runtime::report::oldest_pending(flows, pending)
    }
}

impl Backend for Requests {
    type Error = std::convert::Infallible;

    fn add_thread(
        &mut self,
        now: Instant,
        id: FlowId,
        config: &FlowConfig,
    ) -> Result<(), Self::Error> {
        self.driver.add_flow(now, id, config);
        Ok(())
    }

    /// Removed at once: the driver keeps their requests in flight.
    fn retire_threads(&mut self, now: Instant, ids: Range<u32>) -> Result<(), Self::Error> {
        for id in ids {
            self.driver.remove_flow(now, FlowId(id));
        }
        Ok(())
    }

    fn issue(
        &mut self,
        now: Instant,
        flow: usize,
        _spec: &FlowSpec,
        thread: FlowId,
        i: Issue,
    ) -> Result<(), Self::Error> {
        if !i.continues {
            self.origin = self.next_id;
        }
        let r = Request {
            id: RequestId(self.next_id),
            origin: RequestId(self.origin),
            flow: thread,
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
        self.pending.insert(r.id.0, (flow as u32, now));
        self.driver.add(now, r);
        Ok(())
    }
}
