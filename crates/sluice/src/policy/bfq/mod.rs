//! `bfq` and `bfq+`: Budget Fair Queueing, as described in "Improving
//! Application Responsiveness with the BFQ Disk I/O Scheduler" (Valente and
//! Andreolini, SYSTOR 2012; `bfq` is its §3, `bfq+` adds the §4 heuristics)
//! and in its companion technical report (§3: the service loop; §4.4: the
//! three H-fairness rules).
//!
//! # The algorithm, and where it lives
//!
//! * **Queues** ([`queue`]): one queue per flow for its synchronous requests,
//!   one shared queue for every asynchronous request (writes with
//!   `sync == false`). Inside a queue requests are served in C-LOOK order
//!   from the device head (report §3, step 2a). A flow that was never
//!   registered with `add_flow` gets a queue of weight 100 on its first
//!   request. The shared async queue has weight 100.
//! * **B-WF2Q+** ([`wf2q`]): picks the next queue to serve among the busy
//!   ones: eligible (`S <= V`), smallest virtual finish `F = S + budget /
//!   weight`. O(log n) per operation (two ordered sets).
//! * **Service slots**: the selected queue is served exclusively until it
//!   expires (an [`Expiration`]): its next request does not fit in what is
//!   left of its budget (budget exhausted); it has no request left (after
//!   an idle wait of `slice_idle_ms` for a synchronous queue that BFQ idles
//!   for, at once otherwise: no more backlog, even when it consumed its
//!   whole budget, §4.3); or `timeout_ms` (T_max) has passed (budget
//!   timeout; see "The code the paper ran" for when its clock starts). The
//!   queue in service is never preempted (neither paper preempts): a
//!   request of another queue, raised or not, waits for the end of the
//!   slot.
//! * **Charging**: a dispatched request is charged its size in sectors
//!   (times `write_charge` for writes under H-write-throt) to the queue's
//!   slot and to the system virtual time (`V += charge / W` at every
//!   dispatch, like Linux; updating `V` once per slot at expiration is the
//!   same total, but would let a queue activated during a long slot start
//!   from a stale `V`). At expiration the queue's finish time becomes
//!   `S + charge / weight`, where the charge is the service received, or the
//!   whole budget when [`budget::full_charge`] says so (budget timeout, a
//!   too-slow queue; the extra charge also advances `V`).
//! * **Budget feedback** ([`budget`]): the next budget from the expiration
//!   reason, with the original rules (`bfq`) or H-throughput's (`bfq+`).
//! * **B_max** ([`peak_rate`]): `T_max * R_est`, R_est the peak-rate
//!   estimate (maximum of samples for `bfq`, H-peak-rate's filter for
//!   `bfq+`, started from the rate the initial B_max stands for; a random
//!   queue's slow slot never lowers it); the `max_budget` parameter pins
//!   it.
//! * **Idling**: when the queue in service empties, BFQ keeps the device
//!   idle for up to `slice_idle_ms` waiting for the queue's next request, if
//!   the queue is synchronous and not detected as random (report §3.4,
//!   §3.5). While requests of the queue are still in the device, it waits for
//!   them first (returns `Nothing`: the idle wait starts once the last one
//!   completes, as in Linux). BFQ+ also idles for weight-raised queues
//!   whatever their pattern (§4.1), for random queues a full slice until
//!   they received `B_max / 8` in the slot and `min_tt_ms` after
//!   (H-fairness rule 3: "a very low value" in the report, 2 ms in the
//!   code), and not on a device that queues commands, `queue_depth() > 1`
//!   (§5.1, read there as "disabling disk idling altogether"), as BFQ's
//!   code of the time did it: on a device that queues commands
//!   (`queue_depth() > 1`), a queue detected as random loses its idle wait
//!   unless it is raised; sequential and raised queues keep it
//!   (`ncq_seq_idling`, `raised_ncq_idling`; both false is §5.1 read
//!   literally, under which BFQ+ holds nothing back and serves a queueing
//!   drive exactly as FIFO does). Like the code, BFQ+ tells such a drive
//!   from the requests it sees in flight ([`hw_tag`], `hw_tag_detection`):
//!   a drive deeper than one command that was never seen with more than
//!   four in flight is served as one that does not queue, which is what
//!   idling for sequential readers leads to. The original `bfq` keeps
//!   idling on such devices (the §5.1 rule is stated for CFQ and BFQ+).
//! * **Weight raising** ([`weight_raising`]): H-low-latency.
//!
//! # The code the paper ran
//!
//! Where the papers are silent, sluice follows BFQ's code of the time:
//! `block/bfq-iosched.c` of a Linux 2.6.35 tree carrying BFQ with weight
//! raising (CyanogenMod/android_kernel_samsung_crespo at commit 833eb1cb;
//! see `config.rs`). Each mechanism is a parameter named as the code's
//! tunable, and where the papers and the code disagree on a number the
//! default is the papers' (C_rais = 10 and T_rais = 6 s, where that code
//! had 20 and a duration computed from the peak rate):
//!
//! * What the code did for raised queues, on by default in `bfq+` (the
//!   papers say BFQ+ idles for raised queues, §4.1, but neither for how
//!   long nor what bounds their slots): `raised_idle_factor = 3` (a raised
//!   queue idles three slices, 24 ms: `bfq_arm_slice_timer`, lines
//!   923-924), `raised_timeout = true` (its budget timeout is T_max times
//!   its raised weight over its original one: `bfq_set_budget_timeout`,
//!   lines 939-943) and `raised_ncq_idling = true` (it keeps idling on a
//!   queueing drive: `bfq_update_idle_window`, lines 2122-2126). Each set
//!   to its other value is a literal reading of the papers, which
//!   `sluice repro bfq` shows as rows: `raised_timeout = false` is §3.3
//!   read literally (every slot within T_max), `raised_idle_factor = 1`
//!   one slice as for any queue.
//! * `timeout_at_completion`: the budget-timeout clock (and the
//!   slowness clock) starts at the slot's first completion, there is no
//!   timer for it (it is checked at arrivals, completions, dispatches and
//!   the end of an idle wait), and it does not cut an idle wait short
//!   unless a third of the budget is left.
//! * `fifo_expire_sync_ms` / `fifo_expire_async_ms`: at the
//!   start of a slot, a request older than this goes first.
//! * `quantum` and `max_budget_async_rq`: at most that many
//!   requests of the queue in service in the device while others wait (four
//!   times as many alone); the async queue's slot ends after
//!   `max_budget_async_rq` dispatches when others wait, and it sends
//!   nothing while synchronous requests are in the device.
//! * `think_time_rule`: a queue whose mean think time (7/8 filter,
//!   samples capped at two slices) exceeds `slice_idle_ms` loses its idle
//!   window unless raised.
//! * `seek_cap`: one seek distance weighs at most four times the
//!   mean plus 64 MiB in the random-queue detection, so a reader that wraps
//!   to the start of its file stays sequential after a few requests.
//!
//! Every parameter's name, default, range and meaning: the tables
//! [`BFQ_PARAMS`] and [`BFQ_PLUS_PARAMS`] (in `config.rs`).
//!
//! # Time bases
//!
//! * The budget timeout and the "too slow" test use wall time from the
//!   slot's first completion (first dispatch with `timeout_at_completion`
//!   off; the slot's occupation of the disk includes BFQ's idle waits,
//!   which is what the time constraint of report §3.5 limits);
//!   the slowness test stops the clock when the final idle wait started
//!   (otherwise every idling queue would look slow).
//! * Peak-rate samples use `Service::disk_time` of the slot's completed
//!   requests (see [`peak_rate`]).
//!
//! # `bfq` versus `bfq+`
//!
//! Both accept every parameter. `bfq` defaults the five heuristic switches
//! (`low_latency`, `peak_rate_lpf`, `budget_rules`, `fairness_rules`,
//! `write_throt`) to false, `bfq+` to true; so `bfq` with one switch on is
//! "BFQ plus that heuristic", and `bfq+` with one off is the ablation the
//! paper's §6 discusses. What is not switchable: initial budget (B_max for
//! `bfq`, B_max / 2 for `bfq+`, part of H-throughput and switched with
//! `budget_rules`), and the queueing-drive idling rule (`bfq+` only;
//! `ncq_seq_idling` and `raised_ncq_idling` exempt sequential and raised
//! queues from it, both true by default). The code's raised-queue choices
//! (`raised_idle_factor`, `raised_timeout`, `raised_ncq_idling`,
//! `ncq_seq_idling`) default on in `bfq+` only: `bfq` has no weight
//! raising unless asked, and keeps the papers' one slice and T_max.

mod budget;
mod config;
mod expiration;
mod hw_tag;
mod idling;
mod peak_rate;
mod queue;
mod slot;
mod weight_raising;
mod wf2q;

#[cfg(test)]
mod tests;

pub use budget::Expiration;
pub use config::{BfqConfig, BfqTunables, BfqVariant};
pub(crate) use config::{BFQ_PARAMS, BFQ_PLUS_PARAMS};
pub use expiration::ExpirationRecord;
pub use weight_raising::RaisingParams;

use self::peak_rate::PeakRate;
use self::queue::BfqQueue;
use self::slot::Slot;
use self::wf2q::Wf2q;
use super::fair_ids::SlotIds;
use super::params::ParamReader;
use crate::charge::{Charge, Charger, LinearCost};
use crate::error::Error;
use crate::scheduler::{Capabilities, Decision, DeviceView, FlowConfig, Scheduler, Service};
use crate::time::{earliest, Duration, Instant, NS_PER_S};
use crate::types::{FlowId, Request};

/// Index of the shared async queue.
const ASYNC: u32 = 0;

/// The BFQ / BFQ+ scheduler.
#[derive(Debug)]
pub struct Bfq {
    cfg: BfqConfig,
    /// What a request takes from the budget (sectors, or the cost model's).
    charger: Charger,
    queues: Vec<BfqQueue>,
    free: Vec<u32>,
    flows: SlotIds,
    wf2q: Wf2q,
    peak: PeakRate,
    max_budget: u64,
    in_service: Option<u32>,
    slot: Slot,
    /// End of the last dispatched request (C-LOOK position for requeues).
    head: u64,
    /// Synchronous requests in the device (async queues wait for none).
    sync_in_flight: u32,
    queued: usize,
    last: Option<ExpirationRecord>,
    /// Whether the drive queues commands, as the requests in flight tell.
    hw_tag: hw_tag::HwTag,
}

impl Bfq {
    /// A scheduler with this configuration.
    pub fn new(cfg: BfqConfig) -> Self {
        let peak = PeakRate::new(cfg.peak_rate_lpf, cfg.timeout);
        let max_budget = cfg
            .max_budget
            .unwrap_or_else(|| peak.max_budget(cfg.timeout));
        Bfq {
            queues: vec![BfqQueue::new(None, false, 100)],
            free: Vec::new(),
            flows: SlotIds::default(),
            wf2q: Wf2q::default(),
            peak,
            max_budget,
            in_service: None,
            slot: Slot::default(),
            head: 0,
            sync_in_flight: 0,
            queued: 0,
            last: None,
            hw_tag: hw_tag::HwTag::default(),
            charger: if cfg.charge_cost {
                Charger::new(Charge::Cost(LinearCost::default()))
            } else {
                Charger::sectors()
            },
            cfg,
        }
    }

    /// Build from named parameters over the variant's defaults.
    pub(crate) fn from_params(variant: BfqVariant, p: &mut ParamReader<'_>) -> Result<Self, Error> {
        Ok(Self::new(BfqConfig::from_params(variant, p)?))
    }

    /// The configuration.
    pub fn config(&self) -> &BfqConfig {
        &self.cfg
    }

    /// B_max, in sectors.
    pub fn max_budget(&self) -> u64 {
        self.max_budget
    }

    /// The peak-rate estimate in sectors per second: once sampled for `bfq`,
    /// from the start for `bfq+` (see the `peak_rate` module).
    pub fn peak_rate(&self) -> Option<f64> {
        self.peak.estimate().map(|r| r * NS_PER_S as f64)
    }

    /// The last expiration.
    pub fn last_expiration(&self) -> Option<ExpirationRecord> {
        self.last
    }

    /// The flow whose queue is in service (`Some(None)`: the async queue).
    pub fn in_service(&self) -> Option<Option<FlowId>> {
        self.in_service.map(|q| self.queues[q as usize].flow)
    }

    fn flow_queue(&self, flow: FlowId) -> Option<&BfqQueue> {
        self.flows.get(flow).map(|q| &self.queues[q as usize])
    }

    /// The budget assigned to a flow's queue for its next slot (0 before its
    /// first activation).
    pub fn budget_of(&self, flow: FlowId) -> Option<u64> {
        self.flow_queue(flow).map(|q| q.budget)
    }

    /// The weight a flow's queue is scheduled with at `now` (raised or not).
    pub fn weight_of(&self, now: Instant, flow: FlowId) -> Option<u32> {
        self.flow_queue(flow).map(|q| self.effective_weight(now, q))
    }

    /// Whether a flow's queue is weight-raised at `now`.
    pub fn is_raised(&self, now: Instant, flow: FlowId) -> bool {
        self.cfg.low_latency
            && self
                .flow_queue(flow)
                .is_some_and(|q| q.raising.active(now, &self.cfg.raising))
    }

    /// Whether a flow's queue is detected as random.
    pub fn is_random(&self, flow: FlowId) -> bool {
        self.flow_queue(flow)
            .is_some_and(|q| q.seek.is_random(self.cfg.seek_threshold))
    }

    fn effective_weight(&self, now: Instant, q: &BfqQueue) -> u32 {
        if self.cfg.low_latency && q.raising.active(now, &self.cfg.raising) {
            q.raising.weight(q.weight, &self.cfg.raising)
        } else {
            q.weight
        }
    }

    /// What a request costs the budget: its sectors, times the write
    /// charge for writes under H-write-throt.
    fn charge(&self, r: &Request) -> u64 {
        let s = self.charger.peek(r);
        if self.cfg.write_throt && r.is_write() {
            s * u64::from(self.cfg.write_charge)
        } else {
            s
        }
    }

    fn queue_for(&mut self, flow: FlowId, weight: u32) -> u32 {
        if let Some(q) = self.flows.get(flow) {
            return q;
        }
        let fresh = BfqQueue::new(Some(flow), true, weight);
        let q = match self.free.pop() {
            Some(q) => {
                self.queues[q as usize] = fresh;
                q
            }
            None => {
                self.queues.push(fresh);
                (self.queues.len() - 1) as u32
            }
        };
        self.flows.insert(flow, q);
        q
    }

    fn route(&mut self, r: &Request) -> u32 {
        if r.sync {
            self.queue_for(r.flow, 100)
        } else {
            ASYNC
        }
    }

    /// The budget a queue is (re)queued with: its assigned budget within
    /// B_max, and at least the charge of the request it will serve first.
    fn entity_budget(&self, qi: u32) -> u64 {
        let q = &self.queues[qi as usize];
        let next = q.peek(self.head).map_or(0, |r| self.charge(r));
        q.budget.min(self.max_budget).max(next).max(1)
    }

    /// Free a removed flow's queue once it is quiet.
    fn maybe_free(&mut self, qi: u32) {
        let q = &self.queues[qi as usize];
        if qi != ASYNC && q.removed && q.is_quiet() && self.in_service != Some(qi) {
            if let Some(flow) = q.flow {
                self.flows.remove(flow);
            }
            self.free.push(qi);
        }
    }

    /// An idle queue got a request: weight raising, then B-WF2Q+ activation.
    fn activate(&mut self, now: Instant, qi: u32) {
        let cfg = &self.cfg;
        let q = &mut self.queues[qi as usize];
        let idle_long = q.in_flight == 0
            && q.last_completion
                .is_some_and(|t| now.saturating_duration_since(t) >= cfg.raising.min_idle);
        if (!q.seen || idle_long) && cfg.low_latency && q.sync {
            q.raising.start(now, &cfg.raising);
        }
        q.seen = true;
        q.raising.expire_if_late(now, &cfg.raising);
        if q.budget == 0 {
            q.budget = if cfg.budget_rules {
                self.max_budget / 2
            } else {
                self.max_budget
            };
        }
        let budget = self.entity_budget(qi);
        let q = &self.queues[qi as usize];
        let weight = self.effective_weight(now, q);
        let q = &mut self.queues[qi as usize];
        self.wf2q.activate(qi, &mut q.entity, weight, budget);
    }
}

impl Scheduler for Bfq {
    fn name(&self) -> &str {
        self.cfg.variant.name()
    }

    fn add_flow(&mut self, _now: Instant, flow: FlowId, config: &FlowConfig) {
        let q = self.queue_for(flow, config.qos.weight);
        let q = &mut self.queues[q as usize];
        q.weight = config.qos.weight.clamp(1, 1000);
        q.removed = false;
    }

    fn set_weight(&mut self, _now: Instant, flow: FlowId, weight: u32) {
        // Takes effect when B-WF2Q+ next (re)queues the queue.
        if let Some(q) = self.flows.get(flow) {
            self.queues[q as usize].weight = weight.clamp(1, 1000);
        }
    }

    fn remove_flow(&mut self, _now: Instant, flow: FlowId) {
        if let Some(q) = self.flows.get(flow) {
            self.queues[q as usize].removed = true;
            self.maybe_free(q);
        }
    }

    fn add(&mut self, now: Instant, request: Request) {
        let qi = self.route(&request);
        let slice_idle = self.cfg.slice_idle;
        let seek_cap = self.cfg.seek_cap;
        let q = &mut self.queues[qi as usize];
        q.removed = false;
        if q.sync {
            q.seek.update(&request, seek_cap);
            let since = q
                .last_completion
                .map_or(Duration::ZERO, |t| now.saturating_duration_since(t));
            q.think.update(since, slice_idle);
            self.update_idle_window(now, qi);
        }
        let q = &mut self.queues[qi as usize];
        q.push(request);
        self.queued += 1;
        if self.in_service == Some(qi) {
            // The request the idle wait was for.
            self.slot.idle_deadline = None;
            self.slot.idle_start = None;
        } else if !self.queues[qi as usize].entity.busy {
            self.activate(now, qi);
        }
    }

    /// The arrival is no new request of the queue: no seek or think-time
    /// sample, no activation; the larger request is charged at dispatch.
    fn merge(&mut self, _now: Instant, old: &Request, merged: &Request) {
        let qi = self.route(old);
        self.queues[qi as usize].merge(old, merged);
    }

    fn dispatch(&mut self, now: Instant, device: &dyn DeviceView) -> Decision {
        loop {
            let Some(qi) = self.in_service else {
                match self.wf2q.select() {
                    Some(qi) => {
                        self.in_service = Some(qi);
                        self.slot = Slot::default();
                        // With thousands of queues, the next one's state is
                        // out of the cache: start loading it while this one
                        // is served.
                        if let Some(next) = self.wf2q.likely_next() {
                            crate::hint::prefetch(&self.queues[next as usize]);
                        }
                        continue;
                    }
                    None => return Decision::Nothing,
                }
            };
            if self.may_expire_for_timeout(now, qi) {
                self.expire(now, Expiration::BudgetTimeout);
                continue;
            }
            let q = &self.queues[qi as usize];
            if !q.is_empty() {
                // The code's dispatch limits: async requests wait for the
                // sync ones in the device; a queue keeps at most `quantum`
                // (async: `max_budget_async_rq`) requests in the device
                // while others wait, four times that when alone.
                let limit = if q.sync {
                    self.cfg.quantum
                } else {
                    if self.sync_in_flight > 0 {
                        return Decision::Nothing;
                    }
                    self.cfg.max_budget_async_rq
                };
                let others = self.wf2q.waiting() > 0;
                if q.in_flight >= limit && (others || q.in_flight >= 4 * limit) {
                    return Decision::Nothing;
                }
            }
            let fifo = if self.slot.fifo_checked {
                None
            } else {
                self.slot.fifo_checked = true;
                let expire = if q.sync {
                    self.cfg.fifo_expire_sync
                } else {
                    self.cfg.fifo_expire_async
                };
                q.oldest()
                    .filter(|r| !expire.is_zero() && r.arrival.saturating_add(expire) <= now)
            };
            if let Some(&r) = fifo.or_else(|| q.peek(device.head())) {
                let c = self.charge(&r);
                if self.slot.service > 0 && self.slot.service + c > q.entity.budget {
                    self.expire(now, Expiration::BudgetExhausted);
                    continue;
                }
                self.charger.advance(&r);
                let q = &mut self.queues[qi as usize];
                q.take(&r);
                q.in_flight += 1;
                let sync = q.sync;
                if sync {
                    self.sync_in_flight += 1;
                }
                if self.cfg.low_latency {
                    q.raising.consume(c);
                }
                self.queued -= 1;
                self.head = r.end();
                if self.slot.start.is_none() {
                    self.slot.start = Some(now);
                    if !self.cfg.timeout_at_completion {
                        self.start_timer(now, qi);
                    }
                }
                self.slot.service += c;
                self.slot.dispatched += 1;
                self.slot.idle_deadline = None;
                self.slot.idle_start = None;
                self.wf2q.served(c);
                if !sync
                    && self.slot.dispatched >= self.cfg.max_budget_async_rq
                    && self.wf2q.waiting() > 0
                {
                    // The async queue's slot ends after its quota.
                    self.expire(now, Expiration::BudgetExhausted);
                }
                return Decision::Dispatch(r);
            }
            // The queue is empty. Even if it consumed its whole budget, it
            // has no backlog, so this is not a budget exhaustion ("the
            // application has still backlog, as otherwise it would have
            // fallen into the no-more-backlog case", §4.3): BFQ idles for
            // it as for any empty queue, and the slot ends as budget
            // exhausted only if a request that does not fit arrives during
            // the wait (the check above), as in Linux, where an empty
            // in-service queue always waits for its next request or
            // expires for no more requests. Expiring it at once as
            // exhausted would multiply by four the budget of every
            // application that happens to read exactly its budget per
            // burst (a video player's frames), then cut it again.
            if self.idles_for(now, qi, device) {
                if q.in_flight > 0 {
                    // Wait for the queue's requests before the idle wait.
                    return Decision::Nothing;
                }
                let wait = self.idle_wait(now, qi);
                let deadline = *self
                    .slot
                    .idle_deadline
                    .get_or_insert(now.saturating_add(wait));
                self.slot.idle_start.get_or_insert(now);
                if deadline > now {
                    return Decision::Idle;
                }
            }
            self.expire(now, Expiration::NoMoreBacklog);
        }
    }

    fn complete(&mut self, now: Instant, request: &Request, service: &Service) {
        if self.cfg.hw_tag_detection {
            let in_driver = self.sync_in_flight + self.queues[ASYNC as usize].in_flight;
            self.hw_tag.sample(in_driver, self.queued);
        }
        let qi = if request.sync {
            match self.flows.get(request.flow) {
                Some(q) => q,
                None => return,
            }
        } else {
            ASYNC
        };
        let q = &mut self.queues[qi as usize];
        q.in_flight = q.in_flight.saturating_sub(1);
        q.last_completion = Some(now);
        if q.sync {
            self.sync_in_flight = self.sync_in_flight.saturating_sub(1);
        }
        if self.in_service == Some(qi) {
            if self.cfg.timeout_at_completion {
                self.start_timer(now, qi);
            }
            if self.slot.start.is_some_and(|s| service.dispatched >= s) {
                self.slot.done_sectors += u64::from(request.sectors);
                self.slot.done_time += service.disk_time;
            }
        }
        self.maybe_free(qi);
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.in_service?;
        // Under `timeout_at_completion` the budget timeout has no timer of
        // its own: it is checked when something happens.
        let timeout = self
            .slot
            .timer_start
            .filter(|_| !self.cfg.timeout_at_completion)
            .map(|s| s.saturating_add(self.slot.timeout));
        earliest([timeout, self.slot.idle_deadline])
    }

    fn handle_timeout(&mut self, now: Instant) {
        let Some(qi) = self.in_service else {
            return;
        };
        if self.timed_out(now) {
            self.expire(now, Expiration::BudgetTimeout);
        } else if self.slot.idle_deadline.is_some_and(|d| now >= d)
            && self.queues[qi as usize].is_empty()
        {
            self.expire(now, Expiration::NoMoreBacklog);
        }
    }

    fn queued(&self) -> usize {
        self.queued
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::idling_if(true)
    }
}

impl Bfq {
    /// The cost model charged when set to `charge = "cost"` (the build
    /// context's `charge`); otherwise the policy is unchanged.
    pub fn with_charge(mut self, model: &LinearCost) -> Self {
        if self.charger.by_cost() {
            self.charger.set_cost(*model);
        }
        self
    }
}
