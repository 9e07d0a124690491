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

use std::collections::{BTreeMap, VecDeque};

use super::clook::Clook;
use super::fair_ids::SeqMap;
use super::params::{declare_params, ParamReader, ParamTable};
use crate::error::Error;
use crate::scheduler::{Decision, DeviceView, Scheduler, Service};
use crate::time::Instant;
use crate::types::{Request, RequestId};

declare_params! {
    /// The FreeBSD queue's parameters by name (`group`: `bsd-grouped` only).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct BsdTunables {
        /// requests in the drive at once
        pipeline: usize = int(4, 1, 1 << 16),
        /// sector order (C-SCAN) instead of FIFO
        cscan: bool = bool(false),
        /// fragments of one request issued together
        group: usize = int(0, 0, 1 << 20) note "all fragments",
    }
}

/// The parameter table of `bsd`: all rows but `group`.
pub(crate) const BSD_PARAMS: ParamTable = ParamTable::new(BSD_GROUPED_PARAMS.specs.split_at(2).0);
/// The parameter table of `bsd-grouped`.
pub(crate) const BSD_GROUPED_PARAMS: ParamTable = BsdTunables::TABLE;

/// Which FreeBSD queue: fragments one at a time, or grouped (YFQ paper §3.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BsdVariant {
    /// `bsd`: fragments one at a time.
    Plain,
    /// `bsd-grouped`: the fragments of one request `group` at a time.
    Grouped,
}

/// Issues the fragments of each origin `group` at a time (0 = all).
#[derive(Debug, Default)]
pub(crate) struct FragmentGate {
    group: usize,
    /// Every origin with a fragment issued and not completed, or held: a
    /// small entry, since every request makes one.
    origins: SeqMap<RequestId, GateState>,
    /// The held fragments of the origins that have some, apart (few
    /// origins do), so that the map every request touches stays small.
    held_of: SeqMap<RequestId, VecDeque<Request>>,
    /// Fragments held back, over all origins (kept, not summed: O(1)).
    held: usize,
}

#[derive(Debug, Default)]
struct GateState {
    /// Fragments issued in the current group (at most `group`, below 2^20).
    in_group: u32,
    /// Issued fragments not completed (at most `in_group`).
    open: u32,
    /// The origin has fragments in `held_of`.
    holds: bool,
}

impl FragmentGate {
    pub(crate) fn new(group: usize) -> Self {
        FragmentGate {
            group,
            origins: SeqMap::default(),
            held_of: SeqMap::default(),
            held: 0,
        }
    }

    /// A fragment arrives: `Some` if it is issued now, `None` if held.
    pub(crate) fn add(&mut self, r: Request) -> Option<Request> {
        let s = self.origins.entry(r.origin).or_default();
        if self.group == 0 || (s.in_group as usize) < self.group {
            s.in_group += 1;
            s.open += 1;
            Some(r)
        } else {
            s.holds = true;
            self.held_of.entry(r.origin).or_default().push_back(r);
            self.held += 1;
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
            if s.holds {
                let q = self
                    .held_of
                    .get_mut(&r.origin)
                    .expect("an origin that holds has a queue");
                while self.group == 0 || (s.in_group as usize) < self.group {
                    let Some(x) = q.pop_front() else {
                        break;
                    };
                    self.held -= 1;
                    s.in_group += 1;
                    s.open += 1;
                    out.push(x);
                }
                if q.is_empty() {
                    s.holds = false;
                    self.held_of.remove(&r.origin);
                }
            }
            if s.open == 0 {
                self.origins.remove(&r.origin);
            }
        }
        out
    }

    /// A held fragment grew by a merge: false if it is not held.
    pub(crate) fn merge(&mut self, merged: &Request) -> bool {
        self.held_of
            .get_mut(&merged.origin)
            .is_some_and(|q| super::merge::merge_queued(q, merged))
    }

    /// Fragments held back.
    pub(crate) fn held(&self) -> usize {
        self.held
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

    pub(crate) fn from_params(variant: BsdVariant, p: &mut ParamReader<'_>) -> Result<Self, Error> {
        let t = match variant {
            BsdVariant::Plain => &BSD_PARAMS,
            BsdVariant::Grouped => &BSD_GROUPED_PARAMS,
        };
        let b = BsdTunables::default().read_over(p, t)?;
        Ok(match variant {
            BsdVariant::Grouped => Self::grouped(b.pipeline, b.cscan, b.group),
            BsdVariant::Plain => Self::new(b.pipeline, b.cscan),
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

    fn merge(&mut self, _now: Instant, old: &Request, merged: &Request) {
        let _ = self.gate.merge(merged)
            || super::merge::merge_queued(&mut self.fifo, merged)
            || super::merge::merge_sorted(&mut self.sorted, old, merged, |r| r);
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
pub(super) mod tests {
    use super::*;
    use crate::driver::LastAnswer;
    use crate::policy::testkit::{req, FlatDevice, Testbed};

    /// A drive that would take 32 requests: what limits the policy is its
    /// pipeline.
    fn drive(s: Bsd) -> Testbed<Bsd> {
        Testbed::new(s, 32)
    }

    /// A 64 KiB fragment of the application request `origin` (YFQ's tests
    /// use it too).
    pub(in crate::policy) fn frag(id: u64, origin: u64, flow: u32, sector: u64) -> Request {
        Request {
            origin: RequestId(origin),
            sectors: 128,
            ..req(id, flow, sector)
        }
    }

    /// Two 2-fragment requests from two flows, added together.
    fn two_fragmented(tb: &mut Testbed<Bsd>) {
        tb.add_given(frag(0, 0, 0, 0));
        tb.add_given(frag(1, 0, 0, 128));
        tb.add_given(frag(2, 2, 1, 10_000));
        tb.add_given(frag(3, 2, 1, 10_128));
    }

    /// Let the policy fill the drive; the ids sent.
    fn fill_ids(tb: &mut Testbed<Bsd>) -> Vec<u64> {
        tb.fill().iter().map(|r| r.id.0).collect()
    }

    #[test]
    fn pipelines_up_to_four_in_arrival_order() {
        let mut tb = drive(Bsd::new(4, false));
        for (i, sector) in [900u64, 100, 500, 300, 700, 200].into_iter().enumerate() {
            tb.add(i as u32 % 2, sector, 8);
        }
        assert_eq!(fill_ids(&mut tb), vec![0, 1, 2, 3]);
        assert_eq!(tb.policy().outstanding(), 4);
        assert_eq!(tb.in_flight(), 4);
        assert_eq!(tb.answer(), LastAnswer::Nothing, "the drive has room");
        tb.complete(RequestId(2));
        assert_eq!(fill_ids(&mut tb), vec![4]);
        tb.complete(RequestId(0));
        tb.complete(RequestId(1));
        assert_eq!(fill_ids(&mut tb), vec![5]);
        assert_eq!(tb.policy().queued(), 0);
    }

    /// One decision with a hand-set head.
    #[test]
    fn cscan_option_sorts_from_the_head() {
        let mut s = Bsd::new(1, true);
        for (i, sector) in [900u64, 100, 500].into_iter().enumerate() {
            s.add(Instant::ZERO, req(i as u64, 0, sector));
        }
        let d = s.dispatch(Instant::ZERO, &FlatDevice::at(400));
        assert!(
            matches!(d, Decision::Dispatch(r) if r.sector == 500),
            "{d:?}"
        );
    }

    #[test]
    fn ungrouped_fragments_go_one_at_a_time_and_interleave() {
        let mut tb = drive(Bsd::new(4, false));
        two_fragmented(&mut tb);
        assert_eq!(fill_ids(&mut tb), vec![0, 2]);
        assert_eq!(tb.policy().queued(), 2);
        tb.complete(RequestId(0));
        tb.complete(RequestId(2));
        assert_eq!(fill_ids(&mut tb), vec![1, 3]);
    }

    #[test]
    fn grouped_fragments_go_together() {
        let mut tb = drive(Bsd::grouped(4, false, 0));
        two_fragmented(&mut tb);
        assert_eq!(fill_ids(&mut tb), vec![0, 1, 2, 3]);
        // Groups of 2 out of 3 fragments: the third waits for both.
        let mut tb = drive(Bsd::grouped(4, false, 2));
        for k in 0..3 {
            tb.add_given(frag(k, 0, 0, 128 * k));
        }
        assert_eq!(fill_ids(&mut tb), vec![0, 1]);
        tb.complete(RequestId(0));
        assert_eq!(fill_ids(&mut tb), Vec::<u64>::new());
        tb.complete(RequestId(1));
        assert_eq!(fill_ids(&mut tb), vec![2]);
    }
}

#[cfg(test)]
mod gate_tests {
    use super::*;
    use crate::policy::testkit::req;
    use proptest::prelude::*;
    use std::collections::HashMap;

    /// The gate as it was: one map entry per origin holding its queue.
    #[derive(Default)]
    struct Naive {
        group: usize,
        origins: HashMap<RequestId, (VecDeque<Request>, usize, usize)>,
    }

    impl Naive {
        fn add(&mut self, r: Request) -> Option<Request> {
            let s = self.origins.entry(r.origin).or_default();
            if self.group == 0 || s.1 < self.group {
                s.1 += 1;
                s.2 += 1;
                Some(r)
            } else {
                s.0.push_back(r);
                None
            }
        }
        fn complete(&mut self, r: &Request) -> Vec<Request> {
            let Some(s) = self.origins.get_mut(&r.origin) else {
                return Vec::new();
            };
            s.2 = s.2.saturating_sub(1);
            let mut out = Vec::new();
            if s.2 == 0 {
                s.1 = 0;
                while self.group == 0 || s.1 < self.group {
                    let Some(x) = s.0.pop_front() else { break };
                    s.1 += 1;
                    s.2 += 1;
                    out.push(x);
                }
                if s.2 == 0 {
                    self.origins.remove(&r.origin);
                }
            }
            out
        }
        fn merge(&mut self, merged: &Request) -> bool {
            self.origins
                .get_mut(&merged.origin)
                .is_some_and(|s| crate::policy::merge_queued(&mut s.0, merged))
        }
        fn held(&self) -> usize {
            self.origins.values().map(|s| s.0.len()).sum()
        }
    }

    proptest! {
        /// Random arrivals (few origins, so fragments share them),
        /// completions of issued fragments and merges of held ones: the
        /// gate issues what the naive one does, in the same order.
        #[test]
        fn gate_matches_the_naive_gate(
            group in 0usize..4,
            ops in prop::collection::vec((0u8..3, 0u64..6, any::<prop::sample::Index>()), 1..200)
        ) {
            let mut gate = FragmentGate::new(group);
            let mut naive = Naive { group, ..Naive::default() };
            let mut issued: Vec<Request> = Vec::new();
            let mut held: Vec<Request> = Vec::new();
            for (id, (op, origin, pick)) in ops.into_iter().enumerate() {
                match op {
                    0 => {
                        let r = Request { origin: RequestId(origin), ..req(id as u64, 0, id as u64 * 8) };
                        let got = gate.add(r);
                        prop_assert_eq!(got, naive.add(r));
                        match got {
                            Some(r) => issued.push(r),
                            None => held.push(r),
                        }
                    }
                    1 if !issued.is_empty() => {
                        let r = issued.swap_remove(pick.index(issued.len()));
                        let out = gate.complete(&r);
                        prop_assert_eq!(&out, &naive.complete(&r));
                        held.retain(|h| !out.iter().any(|o| o.id == h.id));
                        issued.extend(out);
                    }
                    _ if !held.is_empty() => {
                        let i = pick.index(held.len());
                        held[i].sectors += 8;
                        prop_assert_eq!(gate.merge(&held[i]), naive.merge(&held[i]));
                    }
                    _ => {}
                }
                prop_assert_eq!(gate.held(), naive.held());
                prop_assert_eq!(gate.held(), held.len());
            }
        }
    }
}
