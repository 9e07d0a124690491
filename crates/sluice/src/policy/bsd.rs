//! `bsd` and `bsd-grouped`: the FreeBSD 2.2.7 disk queue that "Disk
//! Scheduling with Quality of Service Guarantees" (Bruno et al., ICMCS 1999)
//! measures YFQ against (§3.2, §3.4).
//!
//! * **Order.** FIFO in arrival order. §3.2 says FreeBSD's driver *may*
//!   sort outstanding requests in C-SCAN order (disksort) but that this is
//!   not the default and was not used in the measurements, so the default
//!   is FIFO; `cscan = true` turns the sorting on (ascending sectors from
//!   the head, wrapping to the lowest).
//! * **Pipelining.** The driver keeps up to `pipeline` = p requests in the
//!   drive (default 4, §3.2), which reorders them (the scenario's device
//!   queue depth and internal order). The policy sends nothing while p of
//!   its requests are outstanding.
//! * **Fragments (§3.4).** Large raw requests reach the policy as fragments
//!   with a common `origin`, added together. Unmodified FreeBSD (`bsd`)
//!   issues them one at a time: the next fragment of an origin joins the
//!   queue (at its tail) when the previous one completes, so fragments of
//!   concurrent large requests interleave. `bsd-grouped` issues them in
//!   groups of `group` (default 0 = all fragments at once, "n as large as
//!   possible"); the next group joins when the whole group has completed.

use std::collections::{BTreeMap, HashMap, VecDeque};

use super::clook::Clook;
use super::params::ParamReader;
use crate::error::Error;
use crate::scheduler::{Decision, DeviceView, Scheduler, Service};
use crate::time::Instant;
use crate::types::{Request, RequestId};

/// Parameters of `bsd`, for `POLICIES`.
pub const BSD_PARAMS: &str = "pipeline = 4, cscan = false";
/// Parameters of `bsd-grouped`, for `POLICIES`.
pub const BSD_GROUPED_PARAMS: &str = "pipeline = 4, cscan = false, group = 0 (all fragments)";

/// Issues the fragments of each origin `group` at a time (0 = all).
#[derive(Debug, Default)]
pub(crate) struct FragmentGate {
    group: usize,
    origins: HashMap<RequestId, GateState>,
}

#[derive(Debug, Default)]
struct GateState {
    held: VecDeque<Request>,
    in_group: usize,
    open: usize,
}

impl FragmentGate {
    pub(crate) fn new(group: usize) -> Self {
        FragmentGate {
            group,
            origins: HashMap::new(),
        }
    }

    /// A fragment arrives: `Some` if it is issued now, `None` if held.
    pub(crate) fn add(&mut self, r: Request) -> Option<Request> {
        let s = self.origins.entry(r.origin).or_default();
        if self.group == 0 || s.in_group < self.group {
            s.in_group += 1;
            s.open += 1;
            Some(r)
        } else {
            s.held.push_back(r);
            None
        }
    }

    /// A fragment completed: the fragments issued now, in order.
    pub(crate) fn complete(&mut self, r: &Request) -> Vec<Request> {
        let Some(s) = self.origins.get_mut(&r.origin) else {
            return Vec::new();
        };
        s.open = s.open.saturating_sub(1);
        let mut out = Vec::new();
        if s.open == 0 {
            s.in_group = 0;
            while self.group == 0 || s.in_group < self.group {
                let Some(x) = s.held.pop_front() else {
                    break;
                };
                s.in_group += 1;
                s.open += 1;
                out.push(x);
            }
            if s.open == 0 {
                self.origins.remove(&r.origin);
            }
        }
        out
    }

    /// Fragments held back.
    pub(crate) fn held(&self) -> usize {
        self.origins.values().map(|s| s.held.len()).sum()
    }
}

/// FreeBSD 2.2.7's disk queue: FIFO (or C-SCAN), pipelined into the drive.
#[derive(Debug)]
pub struct Bsd {
    name: &'static str,
    pipeline: usize,
    cscan: bool,
    gate: FragmentGate,
    fifo: VecDeque<Request>,
    sorted: BTreeMap<(u64, u64), Request>,
    outstanding: usize,
}

impl Bsd {
    /// `bsd` (fragments one at a time) with `pipeline` requests in the drive.
    pub fn new(pipeline: usize, cscan: bool) -> Self {
        Self::build("bsd", pipeline, cscan, 1)
    }

    /// `bsd-grouped`: fragments issued `group` at a time (0 = all).
    pub fn grouped(pipeline: usize, cscan: bool, group: usize) -> Self {
        Self::build("bsd-grouped", pipeline, cscan, group)
    }

    fn build(name: &'static str, pipeline: usize, cscan: bool, group: usize) -> Self {
        Bsd {
            name,
            pipeline: pipeline.max(1),
            cscan,
            gate: FragmentGate::new(group),
            fifo: VecDeque::new(),
            sorted: BTreeMap::new(),
            outstanding: 0,
        }
    }

    pub(crate) fn from_params(grouped: bool, p: &mut ParamReader<'_>) -> Result<Self, Error> {
        let pipeline = p.int("pipeline", 4, 1, 1 << 16)? as usize;
        let cscan = p.bool("cscan", false)?;
        Ok(if grouped {
            let group = p.int("group", 0, 0, 1 << 20)? as usize;
            Self::grouped(pipeline, cscan, group)
        } else {
            Self::new(pipeline, cscan)
        })
    }

    /// Requests of this policy in the drive.
    pub fn outstanding(&self) -> usize {
        self.outstanding
    }

    fn enqueue(&mut self, r: Request) {
        if self.cscan {
            self.sorted.insert((r.sector, r.id.0), r);
        } else {
            self.fifo.push_back(r);
        }
    }
}

impl Scheduler for Bsd {
    fn name(&self) -> &str {
        self.name
    }

    fn add(&mut self, _now: Instant, request: Request) {
        if let Some(r) = self.gate.add(request) {
            self.enqueue(r);
        }
    }

    fn dispatch(&mut self, _now: Instant, device: &dyn DeviceView) -> Decision {
        if self.outstanding >= self.pipeline {
            return Decision::Nothing;
        }
        let next = if self.cscan {
            Clook::pop_from(&mut self.sorted, device.head())
        } else {
            self.fifo.pop_front()
        };
        match next {
            Some(r) => {
                self.outstanding += 1;
                Decision::Dispatch(r)
            }
            None => Decision::Nothing,
        }
    }

    fn complete(&mut self, _now: Instant, request: &Request, _service: &Service) {
        self.outstanding = self.outstanding.saturating_sub(1);
        for r in self.gate.complete(request) {
            self.enqueue(r);
        }
    }

    fn queued(&self) -> usize {
        self.fifo.len() + self.sorted.len() + self.gate.held()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testkit::{req, FlatDevice};
    use crate::scheduler::Service;

    fn svc() -> Service {
        Service {
            dispatched: 0,
            completed: 1,
            disk_time: 1,
        }
    }

    fn frag(id: u64, origin: u64, flow: u32, sector: u64) -> Request {
        Request {
            origin: RequestId(origin),
            sectors: 128,
            ..req(id, flow, sector)
        }
    }

    fn drain_ids(s: &mut Bsd, dev: &FlatDevice) -> Vec<u64> {
        let mut out = Vec::new();
        while let Decision::Dispatch(r) = s.dispatch(0, dev) {
            out.push(r.id.0);
        }
        out
    }

    #[test]
    fn pipelines_up_to_four_in_arrival_order() {
        let mut s = Bsd::new(4, false);
        for (i, sector) in [900u64, 100, 500, 300, 700, 200].into_iter().enumerate() {
            s.add(0, req(i as u64, i as u32 % 2, sector));
        }
        let mut dev = FlatDevice::at(0);
        dev.depth = 32;
        assert_eq!(drain_ids(&mut s, &dev), vec![0, 1, 2, 3]);
        assert_eq!(s.outstanding(), 4);
        assert_eq!(s.dispatch(0, &dev), Decision::Nothing);
        s.complete(1, &req(2, 0, 500), &svc());
        assert_eq!(drain_ids(&mut s, &dev), vec![4]);
        s.complete(1, &req(0, 0, 900), &svc());
        s.complete(1, &req(1, 1, 100), &svc());
        assert_eq!(drain_ids(&mut s, &dev), vec![5]);
        assert_eq!(s.queued(), 0);
    }

    #[test]
    fn cscan_option_sorts_from_the_head() {
        let mut s = Bsd::new(1, true);
        for (i, sector) in [900u64, 100, 500].into_iter().enumerate() {
            s.add(0, req(i as u64, 0, sector));
        }
        let dev = FlatDevice::at(400);
        let Decision::Dispatch(r) = s.dispatch(0, &dev) else {
            panic!()
        };
        assert_eq!(r.sector, 500);
    }

    #[test]
    fn ungrouped_fragments_go_one_at_a_time_and_interleave() {
        // Two 2-fragment requests from two flows, added together.
        let mut s = Bsd::new(4, false);
        s.add(0, frag(0, 0, 0, 0));
        s.add(0, frag(1, 0, 0, 128));
        s.add(0, frag(2, 2, 1, 10_000));
        s.add(0, frag(3, 2, 1, 10_128));
        let dev = FlatDevice::at(0);
        assert_eq!(drain_ids(&mut s, &dev), vec![0, 2]);
        assert_eq!(s.queued(), 2);
        s.complete(1, &frag(0, 0, 0, 0), &svc());
        s.complete(1, &frag(2, 2, 1, 10_000), &svc());
        assert_eq!(drain_ids(&mut s, &dev), vec![1, 3]);
    }

    #[test]
    fn grouped_fragments_go_together() {
        let mut s = Bsd::grouped(4, false, 0);
        s.add(0, frag(0, 0, 0, 0));
        s.add(0, frag(1, 0, 0, 128));
        s.add(0, frag(2, 2, 1, 10_000));
        s.add(0, frag(3, 2, 1, 10_128));
        let dev = FlatDevice::at(0);
        assert_eq!(drain_ids(&mut s, &dev), vec![0, 1, 2, 3]);
        // Groups of 2 out of 3 fragments: the third waits for both.
        let mut s = Bsd::grouped(4, false, 2);
        for k in 0..3 {
            s.add(0, frag(k, 0, 0, 128 * k));
        }
        assert_eq!(drain_ids(&mut s, &dev), vec![0, 1]);
        s.complete(1, &frag(0, 0, 0, 0), &svc());
        assert_eq!(drain_ids(&mut s, &dev), Vec::<u64>::new());
        s.complete(1, &frag(1, 0, 0, 128), &svc());
        assert_eq!(drain_ids(&mut s, &dev), vec![2]);
    }
}
