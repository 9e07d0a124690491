//! `mclock`: the mClock scheduler of A. Gulati, A. Merchant, P. Varman,
//! "mClock: Handling Throughput Variability for Hypervisor IO Scheduling"
//! (OSDI 2010), §3 and its Algorithm 1.
//!
//! Every flow has a reservation r_i (IOPS it is owed), a weight w_i (its
//! share of what is left) and a limit l_i (IOPS it may not exceed). Each
//! request gets three tags when it arrives (§3.1, "tag assignment"):
//!
//! - R = max(R_prev + 1/r_i, now), the reservation tag;
//! - L = max(L_prev + 1/l_i, now), the limit tag;
//! - P = max(P_prev + 1/w_i, now), the proportional-share tag.
//!
//! A flow that becomes active again after being idle has its P tag set
//! relative to the active flows' smallest P tag (§3.1, "tag adjustment"),
//! so it neither gains a burst for the time it was away nor starts behind.
//! A flow counts as idle once it has had nothing queued or in flight for
//! `idle_ms` (a flow that keeps one request in flight empties its queue
//! at every dispatch without being idle).
//!
//! Dispatch runs in two phases (§3.2, Algorithm 1's `ScheduleRequest`):
//!
//! 1. **Constraint-based**: if some flow's head request has an R tag at or
//!    before now, the smallest such R tag is served (reservations first).
//! 2. **Weight-based**: otherwise, among flows whose head's L tag is at or
//!    before now (under their limit), the smallest P tag is served; the
//!    flow's remaining R tags are then reduced by 1/r_i, so that service
//!    beyond its reservation does not count against it (§3.2).
//!
//! With `at_limit = "wait"` (the paper's) a flow over its limit is not
//! served (in either phase); if nothing else is
//! eligible the policy idles until the earliest R or L tag comes due. With `"allow"` the
//! limits only order the flows: a flow under its limit goes first, but the
//! device is never left idle while requests are queued.
//!
//! Every request costs one I/O by default; with `charge = "cost"` it costs
//! what the cost model says relative to a random 4 KiB read, and tags
//! advance by cost/rate. Flows live in a slab; the backlogged ones are
//! kept in tournament trees over the slab's slots keyed by (tag, flow),
//! which a dispatch updates in place (leaf to root), so each operation is
//! O(log n) in the number of flows; tags are kept per request in the
//! flow's queue entry.

use std::collections::VecDeque;

use tree::FlowTree;

use super::params::{declare_params, ParamReader, ParamTable};
use crate::charge::{Charge, Charger, LinearCost};
use crate::error::Error;
use crate::idhash::IdMap;
use crate::scheduler::{Capabilities, Decision, DeviceView, FlowConfig, Scheduler, Service};
use crate::stats::{MclockStats, PolicyStats};
use crate::time::{Duration, Instant};
use crate::types::{FlowId, Request};

/// What the weight phase does with a flow over its limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtLimit {
    /// Not served until its L tag comes due (the paper's mClock).
    Wait,
    /// Served only when no flow under its limit has a request: limits
    /// order the flows but never keep the device idle.
    Allow,
}

declare_params! {
    /// `mclock`'s parameters by name.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct MclockTunables {
        /// a flow over its limit in the weight phase: wait (not served) or allow (served last)
        at_limit: &'static str = choice("wait", &["wait", "allow"])
            note "wait: a flow over its limit waits; allow: limits only order",
        /// a flow with nothing queued or in flight for this long is idle: its next request gets the idle-flow P-tag adjustment
        idle_ms: f64 = float(100.0, 0.0, 1e7) note "ms",
        /// what a request costs its tags: ios (one I/O each, the paper's) or cost (the [cost] model's, relative to a random 4 KiB read)
        charge: &'static str = choice("ios", &["ios", "cost"]),
    }
}

/// The parameter table of `mclock`.
pub(crate) const PARAMS: ParamTable = MclockTunables::TABLE;

/// `mclock`'s parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MclockParams {
    /// What the weight phase does with a flow over its limit.
    pub at_limit: AtLimit,
    /// How long a flow must have had nothing queued or in flight to count
    /// as idle. A flow that keeps one request in flight and issues the next
    /// when it completes has, for an instant, nothing queued: without this
    /// grace it would be "re-activated" on every request and its P tag
    /// pulled to the other flows' smallest, whatever its weight.
    pub idle_after: Duration,
    /// Requests cost the cost model's I/Os (`charge = "cost"`) instead of
    /// one each.
    pub charge_cost: bool,
}

impl MclockParams {
    pub(crate) fn read(p: &mut ParamReader<'_>) -> Result<Self, Error> {
        MclockTunables::read(p).map(Self::from)
    }
}

impl From<MclockTunables> for MclockParams {
    fn from(t: MclockTunables) -> Self {
        MclockParams {
            at_limit: match t.at_limit {
                "allow" => AtLimit::Allow,
                _ => AtLimit::Wait,
            },
            idle_after: Duration::from_millis_f64(t.idle_ms),
            charge_cost: t.charge == "cost",
        }
    }
}

impl Default for MclockParams {
    /// The declared defaults.
    fn default() -> Self {
        Self::from(MclockTunables::default())
    }
}

/// Flow ids below this find their slot by indexing a table (at most
/// 256 KiB); the others through a hash map.
const DENSE_IDS: u32 = 1 << 16;
/// No slot, in the dense table.
const NO_SLOT: u32 = u32::MAX;

/// Nanoseconds per second: tags are kept in nanoseconds since the origin.
const NS: f64 = 1e9;

/// The P-tag spacing of weight 1, ns: a request of a flow of weight w
/// advances its P tag by `P_UNIT / w` (1000 s / w). The paper leaves the
/// unit of 1/w_i open; in seconds (w_i as IOPS) every flow served fewer
/// than w_i IOPS would have its P tags clamped to now, and the weight phase
/// would turn into arrival order on any device slower than the sum of the
/// weights (a 200-IOPS disk with weights of 100). With this unit a
/// backlogged flow's P tags run ahead of real time and only the relative
/// spacing orders the flows; the clamp at now and the idle-flow adjustment
/// still place a flow that returns from idling.
const P_UNIT: f64 = 1e3 * NS;

/// The longest tag interval, ns: 2^64 ns (584 years), longer than any
/// [`Instant`]. A rate slower than one unit per this long (below about
/// 5.4e-11 IOPS) is held to it: its first request is tagged now and the
/// next never comes due in a run. Without the bound, 1/rate overflows to
/// infinity below about 1e-291 IOPS, and a limit that small was dropped
/// as if none had been given.
const MAX_INTERVAL: f64 = 18_446_744_073_709_551_616.0;

/// The interval, in ns per unit of cost, of a rate in IOPS, at most
/// [`MAX_INTERVAL`]; `None` for a rate that is absent or not a positive
/// finite number.
fn interval(iops: Option<f64>) -> Option<f64> {
    iops.filter(|r| r.is_finite() && *r > 0.0)
        .map(|r| (NS / r).min(MAX_INTERVAL))
}

/// A queued request with its tags (R as stored: the effective R tag is
/// this minus the flow's `r_debt`).
#[derive(Clone, Copy, Debug)]
struct Entry {
    request: Request,
    /// What the request costs, in I/Os.
    cost: f64,
    r: f64,
    l: f64,
    p: f64,
}

/// One flow: its settings, its queue and its last tags (128 bytes, two
/// whole cache lines).
#[derive(Clone, Debug)]
#[repr(align(64))]
struct Flow {
    id: FlowId,
    /// ns per unit of cost at the reservation (1/r_i), if any.
    r_interval: Option<f64>,
    /// ns per unit of cost at the limit (1/l_i), if any.
    l_interval: Option<f64>,
    /// P-tag spacing per unit of cost (1/w_i, see [`P_UNIT`]).
    p_interval: f64,
    queue: VecDeque<Entry>,
    /// The last request's tags (R as stored).
    last_r: f64,
    last_l: f64,
    last_p: f64,
    /// The sum of the R-tag reductions after weight-phase service (§3.2).
    r_debt: f64,
    /// Requests dispatched and not completed.
    in_flight: u32,
    /// When the flow last had a request queued or in flight (`None`:
    /// never).
    last_busy: Option<Instant>,
}

impl Flow {
    fn new(id: FlowId, config: &FlowConfig) -> Self {
        let mut f = Flow {
            id,
            r_interval: None,
            l_interval: None,
            p_interval: 0.0,
            queue: VecDeque::new(),
            last_r: f64::NEG_INFINITY,
            last_l: f64::NEG_INFINITY,
            last_p: f64::NEG_INFINITY,
            r_debt: 0.0,
            in_flight: 0,
            last_busy: None,
        };
        f.configure(config);
        f
    }

    /// Take the rates of `config`. A reservation above the limit is cut to
    /// the limit (the constraint phase does not look at limits).
    fn configure(&mut self, config: &FlowConfig) {
        self.p_interval = P_UNIT / f64::from(config.qos.weight.max(1));
        self.l_interval = interval(config.qos.limit_iops);
        self.r_interval = match (interval(config.qos.reservation_iops), self.l_interval) {
            (Some(r), Some(l)) => Some(r.max(l)),
            (r, _) => r,
        };
    }
}

/// The mClock scheduler (Gulati, Merchant, Varman, "mClock: Handling
/// Throughput Variability for Hypervisor IO Scheduling", OSDI 2010, §3):
/// each request is tagged R = max(R_prev + 1/r, now), L = max(L_prev +
/// 1/l, now) and P = max(P_prev + 1/w, now) from its flow's
/// [`Qos::reservation_iops`](crate::Qos::reservation_iops), [`Qos::limit_iops`](crate::Qos::limit_iops) and
/// weight; a due R tag is served first (constraint phase), else the
/// smallest P tag among flows whose L tag is due (weight phase, after which
/// the flow's R tags are reduced by 1/r). A flow returning from idle starts
/// level with the active flow furthest behind. `at_limit` says whether a
/// flow over its limit waits (the policy idles with a wake-up) or is only
/// served last.
#[derive(Clone, Debug)]
pub struct Mclock {
    params: MclockParams,
    /// Each flow's slot in `flows`, for flow ids below [`DENSE_IDS`]:
    /// indexed by id, `NO_SLOT` where there is none.
    dense: Vec<u32>,
    /// Each flow's slot in `flows`, for the other flow ids.
    slots: IdMap<FlowId, u32>,
    /// The flows, by slot (`None`: a free slot).
    flows: Vec<Option<Flow>>,
    /// Free slots.
    free: Vec<u32>,
    /// Backlogged flows with a reservation, by their head's effective R tag.
    by_r: FlowTree,
    /// Backlogged flows under their limit, by their head's P tag.
    ready: FlowTree,
    /// Backlogged flows over their limit, by their head's L tag.
    limited: FlowTree,
    /// The same flows as `limited`, by their head's P tag: with `ready` it
    /// holds every backlogged flow by P (for the idle-flow adjustment's
    /// minimum).
    limited_p: FlowTree,
    queued: usize,
    wake: Option<Instant>,
    served_reservation: u64,
    served_weight: u64,
    served_over_limit: u64,
    /// Request costs under `charge = "cost"`.
    charger: Charger,
}

impl Default for Mclock {
    fn default() -> Self {
        Self::new(MclockParams::default())
    }
}

impl Mclock {
    /// An mClock scheduler with `params`.
    pub fn new(params: MclockParams) -> Self {
        Mclock {
            params,
            dense: Vec::new(),
            slots: IdMap::default(),
            flows: Vec::new(),
            free: Vec::new(),
            by_r: FlowTree::default(),
            ready: FlowTree::default(),
            limited: FlowTree::default(),
            limited_p: FlowTree::default(),
            queued: 0,
            wake: None,
            served_reservation: 0,
            served_weight: 0,
            served_over_limit: 0,
            charger: if params.charge_cost {
                Charger::new(Charge::Cost(LinearCost::default()))
            } else {
                Charger::sectors()
            },
        }
    }

    /// Build `mclock` from parameters (`at_limit`).
    pub(crate) fn from_params(p: &mut ParamReader<'_>) -> Result<Self, Error> {
        Ok(Self::new(MclockParams::read(p)?))
    }

    /// Flow `id`'s slot, if it is known.
    #[inline]
    fn slot(&self, id: FlowId) -> Option<usize> {
        if id.0 < DENSE_IDS {
            match self.dense.get(id.0 as usize) {
                Some(&s) if s != NO_SLOT => Some(s as usize),
                _ => None,
            }
        } else {
            self.slots.get(&id).map(|&s| s as usize)
        }
    }

    /// Record (`Some`) or forget flow `id`'s slot.
    fn set_slot(&mut self, id: FlowId, slot: Option<usize>) {
        if id.0 < DENSE_IDS {
            let i = id.0 as usize;
            if i >= self.dense.len() {
                if slot.is_none() {
                    return;
                }
                self.dense.resize(i + 1, NO_SLOT);
            }
            self.dense[i] = slot.map_or(NO_SLOT, |s| s as u32);
        } else {
            match slot {
                Some(s) => {
                    self.slots.insert(id, s as u32);
                }
                None => {
                    self.slots.remove(&id);
                }
            }
        }
    }

    /// Flow `id`'s state, if it is known.
    #[cfg(test)]
    fn flow(&self, id: FlowId) -> Option<&Flow> {
        self.flows[self.slot(id)?].as_ref()
    }

    /// Flow `id`'s slot, made with the default settings if it is new.
    fn slot_or_insert(&mut self, id: FlowId, config: &FlowConfig) -> usize {
        if let Some(s) = self.slot(id) {
            return s;
        }
        let flow = Some(Flow::new(id, config));
        let s = match self.free.pop() {
            Some(s) => {
                self.flows[s as usize] = flow;
                s as usize
            }
            None => {
                self.flows.push(flow);
                self.flows.len() - 1
            }
        };
        self.set_slot(id, Some(s));
        s
    }

    /// Put the flow in slot `s` into the trees its head (if any) belongs
    /// to as of `now` (ns), under its head's tags, and out of the others.
    ///
    /// Under `wait` a head over its limit is in neither phase's tree (the
    /// paper needs no such rule since it assumes r_i <= l_i, but a flow
    /// served in the weight phase has its R tags reduced and could then be
    /// served past its limit in the constraint phase); it enters both when
    /// its L tag comes due (`promote`).
    fn index(&mut self, s: usize, now: f64) {
        let allow = self.params.at_limit == AtLimit::Allow;
        let Some(f) = self.flows[s].as_ref() else {
            return;
        };
        let id = f.id.0;
        let Some(head) = f.queue.front() else {
            self.by_r.set(s, id, None);
            self.ready.set(s, id, None);
            self.limited.set(s, id, None);
            self.limited_p.set(s, id, None);
            return;
        };
        let under_limit = head.l <= now;
        let r = (f.r_interval.is_some() && (under_limit || allow)).then_some(head.r - f.r_debt);
        let (p, l) = (head.p, head.l);
        self.by_r.set(s, id, r);
        if under_limit {
            self.limited.set(s, id, None);
            self.limited_p.set(s, id, None);
            self.ready.set(s, id, Some(p));
        } else {
            self.ready.set(s, id, None);
            self.limited.set(s, id, Some(l));
            self.limited_p.set(s, id, Some(p));
        }
    }

    /// Move every flow whose L tag has come due into `ready`.
    fn promote(&mut self, now: f64) {
        while let Some((l, id, s)) = self.limited.first() {
            if l > now {
                break;
            }
            self.limited.remove(s);
            let p = self.limited_p.remove(s).unwrap_or(0.0);
            self.ready.set(s, id, Some(p));
            if let Some(f) = self.flows[s].as_ref() {
                if f.r_interval.is_some() && self.by_r.key(s).is_none() {
                    if let Some(head) = f.queue.front() {
                        self.by_r.set(s, id, Some(head.r - f.r_debt));
                    }
                }
            }
        }
    }

    /// Dispatch the head of the flow in slot `s`; `weight_phase` applies
    /// the R-tag reduction of §3.2.
    fn serve(&mut self, s: usize, now: f64, weight_phase: bool) -> Option<Request> {
        let f = self.flows[s].as_mut()?;
        let entry = f.queue.pop_front()?;
        f.in_flight = f.in_flight.saturating_add(1);
        if weight_phase {
            if let Some(ri) = f.r_interval {
                f.r_debt += entry.cost * ri;
            }
        }
        self.queued = self.queued.saturating_sub(1);
        self.index(s, now);
        Some(entry.request)
    }
}

/// `now` in nanoseconds since the origin, as tags count it.
fn ns(now: Instant) -> f64 {
    now.as_nanos() as f64
}

impl Scheduler for Mclock {
    fn name(&self) -> &str {
        "mclock"
    }

    fn add_flow(&mut self, _now: Instant, flow: FlowId, config: &FlowConfig) {
        match self.slot(flow) {
            Some(s) => {
                if let Some(f) = self.flows[s].as_mut() {
                    f.configure(config);
                }
            }
            None => {
                self.slot_or_insert(flow, config);
            }
        }
    }

    fn set_weight(&mut self, _now: Instant, flow: FlowId, weight: u32) {
        if let Some(s) = self.slot(flow) {
            if let Some(f) = self.flows[s].as_mut() {
                f.p_interval = P_UNIT / f64::from(weight.max(1));
            }
        }
    }

    fn remove_flow(&mut self, _now: Instant, flow: FlowId) {
        let Some(s) = self.slot(flow) else {
            return;
        };
        if self.flows[s].as_ref().is_some_and(|f| f.queue.is_empty()) {
            // An empty flow is in no tree (`index` took it out).
            self.flows[s] = None;
            self.free.push(s as u32);
            self.set_slot(flow, None);
        }
    }

    fn add(&mut self, now: Instant, request: Request) {
        let t = ns(now);
        let id = request.flow;
        let c = if self.params.charge_cost {
            self.charger.ios(&request)
        } else {
            1.0
        };
        let s = self.slot_or_insert(id, &FlowConfig::default());
        let idle_after = self.params.idle_after;
        let Some(f) = self.flows[s].as_mut() else {
            return;
        };
        let was_idle = f.queue.is_empty();
        let idle = was_idle
            && f.in_flight == 0
            && f.last_busy
                .is_none_or(|b| now.saturating_duration_since(b) >= idle_after);
        f.last_busy = Some(now);
        // The idle-flow adjustment (§3.1): the paper shifts the active
        // flows' P tags so that the smallest is now and tags the returning
        // flow max(P_prev + 1/w, now): level with the active flow furthest
        // behind. Placing the returning flow there instead of shifting the
        // others orders the flows the same way in O(log n). Its old P_prev
        // is dropped: in the paper's unit it rarely exceeds now after an
        // idle spell, in ours (`P_UNIT`) it can run far ahead, which would
        // penalise the flow for service it had before it went idle.
        let min_p = if idle {
            // Every backlogged flow is in `ready` or `limited_p`.
            [self.ready.first(), self.limited_p.first()]
                .into_iter()
                .flatten()
                .map(|(p, ..)| p)
                .min_by(f64::total_cmp)
        } else {
            None
        };
        let p = match min_p {
            Some(m) => m,
            None => (f.last_p + c * f.p_interval).max(t),
        };
        let r = match f.r_interval {
            Some(ri) => (f.last_r - f.r_debt + c * ri).max(t) + f.r_debt,
            None => 0.0,
        };
        let l = match f.l_interval {
            Some(li) => (f.last_l + c * li).max(t),
            None => f64::NEG_INFINITY,
        };
        f.last_r = r;
        f.last_l = l;
        f.last_p = p;
        f.queue.push_back(Entry {
            request,
            cost: c,
            r,
            l,
            p,
        });
        self.queued += 1;
        if was_idle {
            self.index(s, t);
        }
    }

    /// Under `charge = "cost"` the sectors the request gained cost what the
    /// model says: its cost grows (for the R-tag reduction) and the flow's
    /// last tags move out by it, so the flow's next request pays for it
    /// (the request's own tags stay: it keeps its place).
    fn merge(&mut self, _now: Instant, old: &Request, merged: &Request) {
        let growth = self.charger.ios_growth(old, merged);
        if let Some(f) = self.slot(old.flow).and_then(|s| self.flows[s].as_mut()) {
            if let Some(e) = f.queue.iter_mut().rev().find(|e| e.request.id == old.id) {
                e.request = *merged;
                if growth > 0.0 {
                    e.cost += growth;
                    f.last_p += growth * f.p_interval;
                    if let Some(li) = f.l_interval {
                        f.last_l += growth * li;
                    }
                    if let Some(ri) = f.r_interval {
                        f.last_r += growth * ri;
                    }
                }
            }
        }
    }

    fn complete(&mut self, now: Instant, request: &Request, _service: &Service) {
        if let Some(f) = self.slot(request.flow).and_then(|s| self.flows[s].as_mut()) {
            f.in_flight = f.in_flight.saturating_sub(1);
            f.last_busy = Some(now);
        }
    }

    fn dispatch(&mut self, now: Instant, _device: &dyn DeviceView) -> Decision {
        self.wake = None;
        if self.queued == 0 {
            return Decision::Nothing;
        }
        let t = ns(now);
        self.promote(t);
        // Constraint-based phase: the smallest R tag, if due.
        if let Some((r, _, s)) = self.by_r.first() {
            if r <= t {
                self.served_reservation += 1;
                return self.serve(s, t, false).into();
            }
        }
        // Weight-based phase: the smallest P tag among flows under their
        // limit.
        if let Some((_, _, s)) = self.ready.first() {
            self.served_weight += 1;
            return self.serve(s, t, true).into();
        }
        let next_l = self.limited.first().map(|(l, _, s)| (l, s));
        if self.params.at_limit == AtLimit::Allow {
            if let Some((_, s)) = next_l {
                self.served_over_limit += 1;
                return self.serve(s, t, true).into();
            }
        }
        // Everything queued is over its limit: wait for the first tag due.
        let next_r = self.by_r.first().map(|(r, ..)| r);
        let due = [next_l.map(|x| x.0), next_r]
            .into_iter()
            .flatten()
            .fold(f64::INFINITY, f64::min);
        if !due.is_finite() {
            return Decision::Nothing;
        }
        let at = due.ceil().max(t + 1.0);
        let at = if at >= u64::MAX as f64 {
            Instant::MAX
        } else {
            Instant::from_nanos(at as u64)
        };
        self.wake = Some(at);
        Decision::Idle
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.wake
    }

    fn handle_timeout(&mut self, _now: Instant) {
        self.wake = None;
    }

    fn queued(&self) -> usize {
        self.queued
    }

    fn stats(&self) -> PolicyStats {
        PolicyStats::Mclock(MclockStats {
            reservation_dispatches: self.served_reservation,
            weight_dispatches: self.served_weight,
            over_limit_dispatches: self.served_over_limit,
        })
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            may_idle: self.params.at_limit == AtLimit::Wait,
            enforces_iops_limits: true,
        }
    }
}

impl Mclock {
    /// The cost model charged when set to `charge = "cost"` (the build
    /// context's `charge`); otherwise the policy is unchanged.
    pub fn with_charge(mut self, model: &LinearCost) -> Self {
        if self.charger.by_cost() {
            self.charger.set_cost(*model);
        }
        self
    }
}

mod tree;

#[cfg(test)]
mod tests;
