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
//!   code), and not on a device that
//!   queues commands, `queue_depth() > 1` (§5.1), except for raised queues:
//!   §4.1 never disables idling for them "whatever their request patterns",
//!   and BFQ's code of 2011-12 (the oldest with weight raising we could
//!   read) did the same: its hardware-queueing test dropped idling only for
//!   queues that were not raised. Without that
//!   exception a raised start-up under NCQ is served no better than under
//!   noop. The original `bfq` keeps idling on such devices (the paper
//!   attributes the NCQ rule to CFQ and BFQ+ only).
//! * **Weight raising** ([`weight_raising`]): H-low-latency.
//!
//! # The code the paper ran
//!
//! Where the papers are silent, sluice follows BFQ's code of the time (the
//! BFQ patches for Linux 2.6.3x with weight raising; read in a 2.6.35
//! tree). Each mechanism is a parameter named as the code's tunable, and
//! where the papers and the code disagree the default is the papers' (for
//! instance C_rais = 10 and T_rais = 6 s, where that code had other
//! values):
//!
//! * `raised_idle_factor` (3 for `bfq+`): a raised queue idles three slices
//!   (24 ms); `raised_timeout` (true for `bfq+`): its budget timeout is
//!   T_max times its raised weight over its original one. Both only act on
//!   raised queues, so `bfq` is unaffected. They let a start-up beside
//!   other new (raised) applications get close to its idle-disk time, and
//!   cost a video player beside repeated start-ups its frames: `sluice
//!   repro bfq` shows BFQ+ without them beside BFQ+.
//! * `timeout_at_completion` (true): the budget-timeout clock (and the
//!   slowness clock) starts at the slot's first completion, there is no
//!   timer for it (it is checked at arrivals, completions, dispatches and
//!   the end of an idle wait), and it does not cut an idle wait short
//!   unless a third of the budget is left.
//! * `fifo_expire_sync_ms` (125) / `fifo_expire_async_ms` (250): at the
//!   start of a slot, a request older than this goes first.
//! * `quantum` (4) and `max_budget_async_rq` (4): at most that many
//!   requests of the queue in service in the device while others wait (four
//!   times as many alone); the async queue's slot ends after
//!   `max_budget_async_rq` dispatches when others wait, and it sends
//!   nothing while synchronous requests are in the device.
//! * `think_time_rule` (true): a queue whose mean think time (7/8 filter,
//!   samples capped at two slices) exceeds `slice_idle_ms` loses its idle
//!   window unless raised.
//! * `seek_cap` (true): one seek distance weighs at most four times the
//!   mean plus 64 MiB in the random-queue detection, so a reader that wraps
//!   to the start of its file stays sequential after a few requests.

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
//! `budget_rules`), and the no-idling-with-NCQ rule (`bfq+` only).

mod budget;
mod peak_rate;
mod queue;
mod weight_raising;
mod wf2q;

#[cfg(test)]
mod tests;

pub use budget::Expiration;
pub use weight_raising::RaisingParams;

use self::budget::{ChargeCheck, Feedback};
use self::peak_rate::{PeakRate, Sample};
use self::queue::BfqQueue;
use self::wf2q::Wf2q;
use super::params::ParamReader;
use crate::error::Error;
use crate::idhash::IdMap;
use crate::scheduler::{Decision, DeviceView, FlowConfig, Scheduler, Service};
use crate::time::{Duration, Instant, NS_PER_MS, NS_PER_S};
use crate::types::{FlowId, Request, SECTOR_BYTES};

/// The parameter list of `bfq`/`bfq+`, with the defaults that differ.
macro_rules! bfq_params {
    ($heuristics:literal, $raised:literal) => {
        concat!(
            "slice_idle_ms=8, timeout_ms=125, max_budget=0 (sectors; 0 = T_max x peak rate), ",
            "budget_step=1024, seek_threshold=8192, ",
            $heuristics,
            ", write_charge=10, raising_coeff=10, raising_mb=24, raising_ms=6000, ",
            "raising_idle_ms=2000, ",
            $raised,
            ", fifo_expire_sync_ms=125, fifo_expire_async_ms=250, quantum=4, ",
            "max_budget_async_rq=4, timeout_at_completion=true, think_time_rule=true, min_tt_ms=2, ",
            "seek_cap=true"
        )
    };
}

/// Parameters accepted by `bfq` (defaults of the original algorithm).
pub const BFQ_PARAMS: &str = bfq_params!(
    "low_latency=false, peak_rate_lpf=false, budget_rules=false, fairness_rules=false, \
write_throt=false",
    "raised_idle_factor=1, raised_timeout=false"
);

/// Parameters accepted by `bfq+`.
pub const BFQ_PLUS_PARAMS: &str = bfq_params!(
    "low_latency=true, peak_rate_lpf=true, budget_rules=true, fairness_rules=true, \
write_throt=true",
    "raised_idle_factor=3, raised_timeout=true"
);

/// Configuration of a BFQ scheduler. Every field is a named parameter of
/// `bfq`/`bfq+` (see the field docs for the name, default and source).
#[derive(Clone, Debug, PartialEq)]
pub struct BfqConfig {
    /// BFQ+ (`bfq+`): initial budget B_max / 2 when `budget_rules`, no idling
    /// when the device queues commands (§5.1).
    pub plus: bool,
    /// `slice_idle_ms` (8): the idle wait for a synchronous queue's next
    /// request. The papers say "in the order of the seek and rotational
    /// latencies"; 8 ms is Linux's `slice_idle`, which BFQ inherited. 0
    /// disables idling.
    pub slice_idle: Duration,
    /// `timeout_ms` (125): T_max, the budget timeout (paper §3.2, §3.3).
    pub timeout: Duration,
    /// `max_budget` (0 = automatic): pin B_max to this many sectors instead
    /// of T_max times the peak-rate estimate.
    pub max_budget: Option<u64>,
    /// `budget_step` (1024 sectors): the fixed increment of the original
    /// rule on budget exhaustion (§4.3 says "a fixed quantity" without a
    /// number; 1024 = 8 x 128 sectors is the step of the original BFQ code).
    pub budget_step: u64,
    /// `seek_threshold` (8192 sectors): mean seek distance above which a
    /// queue is detected as random (report §3.5).
    pub seek_threshold: u64,
    /// `low_latency`: H-low-latency, weight raising (§4.1).
    pub low_latency: bool,
    /// `peak_rate_lpf`: H-peak-rate, the 7/8 low-pass estimator (§4.2).
    pub peak_rate_lpf: bool,
    /// `budget_rules`: H-throughput, initial budget B_max / 2 and the
    /// multiplicative-increase rules (§4.3).
    pub budget_rules: bool,
    /// `fairness_rules`: H-fairness, the three rules of report §4.4.
    pub fairness_rules: bool,
    /// `write_throt`: H-write-throt, writes charged `write_charge` per
    /// sector (§4.5).
    pub write_throt: bool,
    /// `write_charge` (10): the write (over)charge coefficient (§4.5).
    pub write_charge: u32,
    /// Weight raising: `raising_coeff` (C_rais = 10), `raising_mb` (B_rais =
    /// 24 MB), `raising_ms` (T_rais = 6000), `raising_idle_ms` (T_idle =
    /// 2000), all from §4.1.
    pub raising: RaisingParams,
    /// `raised_idle_factor` (3 for `bfq+`, 1 for `bfq`): a weight-raised
    /// queue waits this many times `slice_idle_ms` for its next request.
    /// The papers do not say how long BFQ+ idles for a raised queue; the
    /// code they ran (BFQ's weight-raising releases for 2.6.3x) arms the
    /// idle timer for three slices. See the module docs, "The code the
    /// paper ran".
    pub raised_idle_factor: u32,
    /// `raised_timeout` (true for `bfq+`): a weight-raised queue's budget
    /// timeout is T_max times its current weight over its original weight
    /// (`timeout_coeff` of the same code). The SYSTOR paper's §3.3 bounds
    /// every slot of BFQ by T_max; its §4.1, which adds weight raising,
    /// does not say whether a raised queue keeps that bound, so BFQ+
    /// follows the code. The choice is a trade (measured in the README,
    /// "What differs and why"): with it a start-up beside ten raised
    /// readers stays within 2x of idle; without it a video player beside
    /// repeated start-ups of a large application (xterm) keeps more of
    /// its frames.
    pub raised_timeout: bool,
    /// `fifo_expire_sync_ms` (125) and `fifo_expire_async_ms` (250): a
    /// request older than this is served first at the start of its queue's
    /// next slot (once per slot, as the code's `bfq_check_fifo`); 0 turns
    /// the check off. Not in the papers.
    pub fifo_expire_sync: Duration,
    pub fifo_expire_async: Duration,
    /// `quantum` (4): at most this many requests of the queue in service in
    /// the device while other queues are backlogged (four times as many
    /// when it is the only one), as the code's dispatch limit.
    pub quantum: u32,
    /// `max_budget_async_rq` (4): the async queue sends at most this many
    /// requests per slot while other queues are backlogged, and none while
    /// synchronous requests are in the device.
    pub max_budget_async_rq: u32,
    /// `timeout_at_completion` (true): the budget timeout (and the
    /// slowness clock) starts at the first completion of the slot, as the
    /// code arms it, instead of its first dispatch; and it is checked at
    /// arrivals, completions and the end of an idle wait, never cutting an
    /// idle wait short unless a third of the budget is left (the code's
    /// `bfq_may_expire_for_budg_timeout`). The papers only say the slot
    /// lasts at most T_max.
    pub timeout_at_completion: bool,
    /// `think_time_rule` (true): a synchronous queue whose mean think time
    /// exceeds `slice_idle_ms` gets no idle wait unless it is raised (the
    /// code's idle window). Not in the papers.
    pub think_time_rule: bool,
    /// `min_tt_ms` (2): under H-fairness rule 3, the "very low" idle wait
    /// of a random queue that has received B_max / 8 in its slot (report
    /// §4.4; the value is the code's `BFQ_MIN_TT`).
    pub min_tt: Duration,
    /// `seek_cap` (true): one seek distance counts at most four times the
    /// mean plus 64 MiB in the random-queue detection (1 GiB for the first
    /// two), as in the code; without it a sequential reader that wraps to
    /// the start of its file is random for about forty requests, loses its
    /// idle wait and its budget (not in the papers).
    pub seek_cap: bool,
}

impl BfqConfig {
    /// The original BFQ (`bfq`).
    pub fn original() -> Self {
        BfqConfig {
            plus: false,
            slice_idle: Duration::from_millis(8),
            timeout: Duration::from_millis(125),
            max_budget: None,
            budget_step: 1024,
            seek_threshold: 8192,
            low_latency: false,
            peak_rate_lpf: false,
            budget_rules: false,
            fairness_rules: false,
            write_throt: false,
            write_charge: 10,
            raising: RaisingParams {
                coeff: 10,
                budget: 24_000_000 / SECTOR_BYTES,
                max_time: Duration::from_secs(6),
                min_idle: Duration::from_secs(2),
            },
            raised_idle_factor: 1,
            raised_timeout: false,
            fifo_expire_sync: Duration::from_millis(125),
            fifo_expire_async: Duration::from_millis(250),
            quantum: 4,
            max_budget_async_rq: 4,
            timeout_at_completion: true,
            think_time_rule: true,
            min_tt: Duration::from_millis(2),
            seek_cap: true,
        }
    }

    /// BFQ+ (`bfq+`), every heuristic on.
    pub fn plus() -> Self {
        BfqConfig {
            plus: true,
            low_latency: true,
            peak_rate_lpf: true,
            budget_rules: true,
            fairness_rules: true,
            write_throt: true,
            raised_idle_factor: 3,
            raised_timeout: true,
            ..Self::original()
        }
    }

    /// Read the named parameters over the defaults of `bfq` or `bfq+`.
    pub(crate) fn from_params(plus: bool, p: &mut ParamReader<'_>) -> Result<Self, Error> {
        let d = if plus { Self::plus() } else { Self::original() };
        let ms = |x: f64| Duration::from_nanos((x * NS_PER_MS as f64).round() as u64);
        let to_ms = |t: Duration| t.as_millis_f64();
        let slice_idle = ms(p.float("slice_idle_ms", to_ms(d.slice_idle), 0.0, 10_000.0)?);
        let timeout = ms(p.float("timeout_ms", to_ms(d.timeout), 1.0, 100_000.0)?);
        let max_budget = p.int("max_budget", 0, 0, 1 << 40)? as u64;
        let budget_step = p.int("budget_step", d.budget_step as i64, 1, 1 << 40)? as u64;
        let seek_threshold = p.int("seek_threshold", d.seek_threshold as i64, 0, 1 << 50)? as u64;
        let low_latency = p.bool("low_latency", d.low_latency)?;
        let peak_rate_lpf = p.bool("peak_rate_lpf", d.peak_rate_lpf)?;
        let budget_rules = p.bool("budget_rules", d.budget_rules)?;
        let fairness_rules = p.bool("fairness_rules", d.fairness_rules)?;
        let write_throt = p.bool("write_throt", d.write_throt)?;
        let write_charge = p.int("write_charge", i64::from(d.write_charge), 1, 1000)? as u32;
        let coeff = p.int("raising_coeff", i64::from(d.raising.coeff), 1, 1000)? as u32;
        let raising_mb = p.float("raising_mb", 24.0, 0.0, 1e6)?;
        let raising_ms = p.float("raising_ms", to_ms(d.raising.max_time), 0.0, 1e9)?;
        let raising_idle_ms = p.float("raising_idle_ms", to_ms(d.raising.min_idle), 0.0, 1e9)?;
        let raised_idle_factor = p.int(
            "raised_idle_factor",
            i64::from(d.raised_idle_factor),
            1,
            100,
        )? as u32;
        let raised_timeout = p.bool("raised_timeout", d.raised_timeout)?;
        let fifo_sync = p.float("fifo_expire_sync_ms", to_ms(d.fifo_expire_sync), 0.0, 1e7)?;
        let fifo_async = p.float("fifo_expire_async_ms", to_ms(d.fifo_expire_async), 0.0, 1e7)?;
        let quantum = p.int("quantum", i64::from(d.quantum), 1, 4096)? as u32;
        let async_rq = p.int(
            "max_budget_async_rq",
            i64::from(d.max_budget_async_rq),
            1,
            4096,
        )?;
        let timeout_at_completion = p.bool("timeout_at_completion", d.timeout_at_completion)?;
        let think_time_rule = p.bool("think_time_rule", d.think_time_rule)?;
        let min_tt = ms(p.float("min_tt_ms", to_ms(d.min_tt), 0.0, 10_000.0)?);
        let seek_cap = p.bool("seek_cap", d.seek_cap)?;
        Ok(BfqConfig {
            plus,
            slice_idle,
            timeout,
            max_budget: (max_budget > 0).then_some(max_budget),
            budget_step,
            seek_threshold,
            low_latency,
            peak_rate_lpf,
            budget_rules,
            fairness_rules,
            write_throt,
            write_charge,
            raising: RaisingParams {
                coeff,
                budget: (raising_mb * 1e6 / SECTOR_BYTES as f64).round() as u64,
                max_time: ms(raising_ms),
                min_idle: ms(raising_idle_ms),
            },
            raised_idle_factor,
            raised_timeout,
            fifo_expire_sync: ms(fifo_sync),
            fifo_expire_async: ms(fifo_async),
            quantum,
            max_budget_async_rq: async_rq as u32,
            timeout_at_completion,
            think_time_rule,
            min_tt,
            seek_cap,
        })
    }
}

/// What happened at the last expiration (for tests and tracing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExpirationRecord {
    /// The flow of the queue (`None`: the shared async queue).
    pub flow: Option<FlowId>,
    pub reason: Expiration,
    /// The slot's budget.
    pub budget: u64,
    /// Service charged by its dispatches.
    pub service: u64,
    /// What B-WF2Q+ was charged (the budget on a full charge).
    pub charged: u64,
    /// The budget assigned for the next slot.
    pub next_budget: u64,
    /// B_max after the expiration's peak-rate sample.
    pub max_budget: u64,
}

/// The queue in service's slot.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    /// Time of the slot's first dispatch.
    start: Option<Instant>,
    /// When the budget-timeout clock started: the slot's first completion
    /// (`timeout_at_completion`) or first dispatch.
    timer_start: Option<Instant>,
    /// The slot's budget timeout (T_max, scaled for a raised queue under
    /// `raised_timeout`), fixed when its clock starts.
    timeout: Duration,
    /// The FIFO was checked for an expired request (once per slot).
    fifo_checked: bool,
    /// Requests dispatched in the slot.
    dispatched: u32,
    /// Service charged (sectors, write-charged).
    service: u64,
    /// Sectors and attributed disk time of the slot's completed requests.
    done_sectors: u64,
    done_time: Duration,
    /// The idle wait: its deadline and when it started.
    idle_deadline: Option<Instant>,
    idle_start: Option<Instant>,
}

/// Index of the shared async queue.
const ASYNC: u32 = 0;

/// The BFQ / BFQ+ scheduler.
#[derive(Debug)]
pub struct Bfq {
    cfg: BfqConfig,
    queues: Vec<BfqQueue>,
    free: Vec<u32>,
    flows: IdMap<FlowId, u32>,
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
            flows: IdMap::default(),
            wf2q: Wf2q::default(),
            peak,
            max_budget,
            in_service: None,
            slot: Slot::default(),
            head: 0,
            sync_in_flight: 0,
            queued: 0,
            last: None,
            cfg,
        }
    }

    /// Build from named parameters (`plus` selects the `bfq+` defaults).
    pub(crate) fn from_params(plus: bool, p: &mut ParamReader<'_>) -> Result<Self, Error> {
        Ok(Self::new(BfqConfig::from_params(plus, p)?))
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
        self.flows.get(&flow).map(|&q| &self.queues[q as usize])
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
        let s = u64::from(r.sectors);
        if self.cfg.write_throt && r.is_write() {
            s * u64::from(self.cfg.write_charge)
        } else {
            s
        }
    }

    fn queue_for(&mut self, flow: FlowId, weight: u32) -> u32 {
        if let Some(&q) = self.flows.get(&flow) {
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
                self.flows.remove(&flow);
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

    /// Whether BFQ idles for the queue in service once it is empty.
    fn idles_for(&self, now: Instant, qi: u32, device: &dyn DeviceView) -> bool {
        let q = &self.queues[qi as usize];
        if !q.sync || self.cfg.slice_idle.is_zero() {
            return false;
        }
        if self.cfg.low_latency && q.raising.active(now, &self.cfg.raising) {
            return true;
        }
        if self.cfg.plus && device.queue_depth() > 1 {
            return false;
        }
        if self.cfg.think_time_rule && !q.idle_window {
            return false;
        }
        if q.seek.is_random(self.cfg.seek_threshold) {
            // H-fairness rule 3 (report §4.4): a queue detected as random
            // keeps its idle wait, cut to a very low value (`min_tt`, see
            // `idle_wait`) once it has received B_max / 8 in its slot.
            // Without the rule BFQ does not idle for it (SYSTOR §3).
            return self.cfg.fairness_rules;
        }
        true
    }

    /// End the slot of the queue in service.
    fn expire(&mut self, now: Instant, reason: Expiration) {
        let Some(qi) = self.in_service.take() else {
            return;
        };
        let slot = std::mem::take(&mut self.slot);
        let random = self.queues[qi as usize]
            .seek
            .is_random(self.cfg.seek_threshold);

        // Peak rate and B_max.
        let sample = Sample {
            sectors: slot.done_sectors,
            time: slot.done_time,
            random,
            timed_out: reason == Expiration::BudgetTimeout,
        };
        if self.peak.sample(&sample) && self.cfg.max_budget.is_none() {
            self.max_budget = self.peak.max_budget(self.cfg.timeout);
        }
        let max_budget = self.max_budget;

        // Full-budget charge.
        let q = &self.queues[qi as usize];
        let budget = q.entity.budget;
        let end = slot.idle_start.unwrap_or(now);
        // The slowness clock is the budget-timeout clock (the code's
        // `last_budget_start`); no completion yet: not slow.
        let clock = if self.cfg.timeout_at_completion {
            slot.timer_start
        } else {
            slot.start
        };
        let elapsed = clock.map_or(Duration::ZERO, |s| end.saturating_duration_since(s));
        // Only a synchronous queue can be "too slow" (report §4.4 speaks of
        // applications; BFQ's code of the time never deems the shared async
        // queue slow, which H-write-throt's charge governs instead).
        let slow = q.sync
            && !elapsed.is_zero()
            && u128::from(slot.service) * u128::from(self.cfg.timeout.as_nanos())
                < u128::from(budget) * u128::from(elapsed.as_nanos());
        let check = ChargeCheck {
            reason,
            budget,
            service: slot.service,
            max_budget,
            slow,
        };
        let charged = if budget::full_charge(&check, self.cfg.fairness_rules) {
            budget.max(slot.service)
        } else {
            slot.service
        };
        self.wf2q.served(charged - slot.service);

        // Budget feedback.
        let fb = Feedback {
            reason,
            budget,
            service: slot.service,
            outstanding: q.in_flight > 0,
            max_budget,
        };
        let next_budget = if self.cfg.budget_rules {
            budget::plus(&fb)
        } else {
            budget::original(&fb, self.cfg.budget_step)
        };

        let q = &mut self.queues[qi as usize];
        self.wf2q.charge(&mut q.entity, charged);
        q.budget = next_budget;
        q.raising.expire_if_late(now, &self.cfg.raising);
        self.last = Some(ExpirationRecord {
            flow: q.flow,
            reason,
            budget,
            service: slot.service,
            charged,
            next_budget,
            max_budget,
        });
        if q.is_empty() {
            self.wf2q.deactivate(&mut q.entity);
            self.maybe_free(qi);
        } else {
            let budget = self.entity_budget(qi);
            let q = &self.queues[qi as usize];
            let weight = self.effective_weight(now, q);
            let q = &mut self.queues[qi as usize];
            self.wf2q.requeue(qi, &mut q.entity, weight, budget);
        }
    }

    fn timed_out(&self, now: Instant) -> bool {
        self.slot
            .timer_start
            .is_some_and(|s| now >= s.saturating_add(self.slot.timeout))
    }

    /// Start the slot's budget-timeout clock now.
    fn start_timer(&mut self, now: Instant, qi: u32) {
        if self.slot.timer_start.is_none() {
            self.slot.timer_start = Some(now);
            self.slot.timeout = self.slot_timeout(now, qi);
        }
    }

    /// The budget timeout of a slot of queue `qi` starting now: T_max, or
    /// T_max times the raised weight over the original one.
    fn slot_timeout(&self, now: Instant, qi: u32) -> Duration {
        let q = &self.queues[qi as usize];
        if !self.cfg.raised_timeout {
            return self.cfg.timeout;
        }
        let raised = u128::from(self.effective_weight(now, q).max(q.weight));
        let scaled = u128::from(self.cfg.timeout.as_nanos()) * raised / u128::from(q.weight.max(1));
        u64::try_from(scaled).map_or(Duration::MAX, Duration::from_nanos)
    }

    /// How long to idle for queue `qi`'s next request.
    fn idle_wait(&self, now: Instant, qi: u32) -> Duration {
        let q = &self.queues[qi as usize];
        if self.cfg.low_latency && q.raising.active(now, &self.cfg.raising) {
            self.cfg
                .slice_idle
                .saturating_mul(u64::from(self.cfg.raised_idle_factor))
        } else if q.seek.is_random(self.cfg.seek_threshold)
            && self.slot.service > self.max_budget / 8
        {
            self.cfg.slice_idle.min(self.cfg.min_tt)
        } else {
            self.cfg.slice_idle
        }
    }

    /// Whether the budget timeout of the slot has fired and may end it now:
    /// under `timeout_at_completion`, an idle wait is not cut short unless
    /// a third of the budget is left.
    fn may_expire_for_timeout(&self, now: Instant, qi: u32) -> bool {
        if !self.timed_out(now) {
            return false;
        }
        if !self.cfg.timeout_at_completion || self.slot.idle_deadline.is_none() {
            return true;
        }
        let budget = self.queues[qi as usize].entity.budget;
        3 * budget.saturating_sub(self.slot.service) >= budget
    }

    /// The code's idle-window update at an arrival: a queue that thinks
    /// longer than `slice_idle` between requests gets no idle wait unless
    /// raised. Like the code, a random queue's window is only revised once
    /// it has received B_max / 8 in its slot.
    fn update_idle_window(&mut self, now: Instant, qi: u32) {
        let in_slot = if self.in_service == Some(qi) {
            self.slot.service
        } else {
            0
        };
        let raised = self.cfg.low_latency
            && self.queues[qi as usize]
                .raising
                .active(now, &self.cfg.raising);
        let q = &mut self.queues[qi as usize];
        if q.seek.is_random(self.cfg.seek_threshold) && in_slot <= self.max_budget / 8 {
            return;
        }
        if let Some(mean) = q.think.mean() {
            q.idle_window = raised || mean <= self.cfg.slice_idle;
        }
    }
}

impl Scheduler for Bfq {
    fn name(&self) -> &str {
        if self.cfg.plus {
            "bfq+"
        } else {
            "bfq"
        }
    }

    fn add_flow(&mut self, _now: Instant, flow: FlowId, config: &FlowConfig) {
        let q = self.queue_for(flow, config.weight);
        let q = &mut self.queues[q as usize];
        q.weight = config.weight.clamp(1, 1000);
        q.removed = false;
    }

    fn set_weight(&mut self, _now: Instant, flow: FlowId, weight: u32) {
        // Takes effect when B-WF2Q+ next (re)queues the queue.
        if let Some(&q) = self.flows.get(&flow) {
            self.queues[q as usize].weight = weight.clamp(1, 1000);
        }
    }

    fn remove_flow(&mut self, _now: Instant, flow: FlowId) {
        if let Some(&q) = self.flows.get(&flow) {
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

    fn dispatch(&mut self, now: Instant, device: &dyn DeviceView) -> Decision {
        loop {
            let Some(qi) = self.in_service else {
                match self.wf2q.select() {
                    Some(qi) => {
                        self.in_service = Some(qi);
                        self.slot = Slot::default();
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
        let qi = if request.sync {
            match self.flows.get(&request.flow) {
                Some(&q) => q,
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
        match (timeout, self.slot.idle_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
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

    fn may_idle(&self) -> bool {
        true
    }
}
