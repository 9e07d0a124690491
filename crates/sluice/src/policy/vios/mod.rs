//! `vios`, `vios-p` and `fq-rr`: the Virtual I/O Scheduler, a scheduler of
//! schedulers (S. Seelam, P. Teller, "Virtual I/O Scheduler: A Scheduler of
//! Schedulers for Performance Virtualization", VEE 2007).
//!
//! # Composition
//!
//! Flows belong to classes (the paper's application classes / OS instances;
//! `FlowConfig::class`, `None` = class 0). Each class owns an *inner*
//! scheduler, any sluice policy built by name with default parameters
//! ([`crate::policy::build`]); `noop` (FCFS) is what the paper used. VIOS
//! forwards `add_flow`, `set_weight`, `remove_flow`, `add` and `complete` to
//! the class's inner scheduler, and when a class has its turn it asks that
//! inner scheduler for the class's next request. The outer level only decides
//! *which class* may send and *how much*. Time goes through the one channel:
//! VIOS's `poll_timeout` is the earliest of its inner schedulers' and
//! `handle_timeout` passes the call on to every inner scheduler whose
//! wake-up is due.
//!
//! A class must be announced with [`Scheduler::add_class`] before its flows
//! appear. A flow whose class was never announced (and class 0 when it was
//! never announced) goes to one implicit default class with the policy's
//! `quantum_ms` and inner `noop`. `add_class` fails with
//! [`Error::UnknownInner`] if `inner` names no policy, and leaves the class
//! as it was.
//!
//! The inner scheduler sees a *virtual device*: the real device's geometry,
//! head and cost oracle, but its own class's requests in flight and a queue
//! depth of 1 (`vios`, `fq-rr`) or the real depth (`vios-p`).
//!
//! # CFQ-CRR (`vios`, paper §3.6–3.7, Lemma 1, Theorem 1)
//!
//! Classes are served in rounds from an active list, as in Deficit Round
//! Robin (M. Shreedhar, G. Varghese, "Efficient Fair Queueing using Deficit
//! Round Robin"): a class joins the list's tail when it becomes backlogged
//! and goes back to the tail when its turn ends with requests left, so
//! starting a turn is amortized O(1) whatever the number of classes (an
//! entry whose class emptied while it waited is dropped when it reaches the
//! head). A round ends when a class comes up for its second turn in it.
//! At the start of its turn a backlogged class i gets the allotment
//! `A_i = Q_i - CQ_i` (its quantum less the compensating quantum carried
//! from its previous turn) and `CQ_i` is zeroed. Only one request is in the device at a time:
//! `dispatch` returns `Nothing` while one is in flight. Each completed request
//! is charged its measured service time, `Service::disk_time` (with one
//! request in the device that equals completion minus dispatch). The class
//! keeps dispatching while its charged time `T_i < A_i`; when `T_i >= A_i`
//! its turn ends with `CQ_i = T_i - A_i` (the overrun, `0 <= CQ_i < T_max`:
//! Lemma 1). A class whose inner scheduler has nothing to send while
//! `T_i < A_i` forfeits the rest (`CQ_i = 0`, work conserving). If the
//! allotment is not positive (`CQ_i >= Q_i`, possible only when a quantum is
//! not larger than the largest service time, outside the paper's assumption)
//! the class sends nothing that turn and carries `CQ_i = -A_i`, as §3.7 says.
//! The sign convention is the paper's: `CQ_i` is the overrun, non-negative.
//!
//! # VIOS(P) (`vios-p`, paper §6)
//!
//! The same rounds and compensation, but a class's turn is bounded by
//! sectors: it may send `SQ_i = A_i * BW` sectors (the paper writes
//! `2 * Q * BW` with Q in ms and BW in MB/s; the factor 2 converts that to
//! 512-byte sectors, here BW is in sectors per ns so no factor is needed),
//! up to K = `device.queue_depth()` requests in the device. When the device
//! is full, or when a class used up its sectors, dispatching waits until at
//! most `resume_at` (default 2) requests remain in the device (hysteresis,
//! step 4 of §6.2). A class whose queue empties hands over at once (step 3).
//! The turn also ends early if the time already charged reaches `A_i`.
//!
//! Compensation is computed from the measured service (step 6): a class's
//! turn is *settled* when all requests it sent in that turn have completed,
//! or at the start of its next turn if some are still in flight (their
//! charges then count toward the new turn, so no disk time is lost from the
//! telescoping sum of Lemma 2). `CQ_i = T_i - A_i`; it can be negative (a
//! credit) when the sector budget ran out before the quantum did (BW
//! underestimated, e.g. before the first measurements, or a drive cache
//! served the requests); a credit is capped at one quantum. A class that
//! emptied with `T_i < A_i` forfeits as in CFQ-CRR.
//!
//! BW, the maximum bandwidth, is the largest of: the initial estimate
//! `bw_mb_s` (used only until the first measurement), the rate of every
//! request that was alone in the device (sectors / disk time), and the rate of
//! every round (sectors completed / disk time charged during the round).
//! Requests served while others were in flight are not sampled one by one:
//! their split disk time would overstate the rate.
//!
//! # FQ-RR (`fq-rr`, paper §3.5)
//!
//! The baseline whose unfairness Eq. (1) describes: same rounds and one
//! request at a time, each class gets `Q_i` per turn and dispatches while its
//! charged time is below `Q_i`, but overruns are never compensated.
//!
//! # Idling and `Nothing` from an inner scheduler
//!
//! If the class whose turn it is gets [`Decision::Idle`] from its inner
//! scheduler (CFQ or BFQ anticipating), VIOS answers `Idle` too (the wait
//! ends at the inner scheduler's wake-up, which VIOS's `poll_timeout`
//! reports) and charges the idle stretch, up to its next `dispatch` call, to
//! the class's turn: it holds the disk for the class, so idling is bounded by
//! the class's quantum. An idle stretch also counts as a "service time" for
//! T_max. `capabilities().may_idle` is true when some class's inner scheduler may idle.
//!
//! If the inner scheduler answers `Nothing` with an empty queue, the class
//! has emptied (forfeit, next class). If it answers `Nothing` while holding
//! requests (it waits for its own requests in flight, as batch policies do),
//! VIOS waits too if the device holds requests, and otherwise ends the
//! class's turn as if it had emptied.

use std::collections::VecDeque;

mod config;

pub use self::config::{mb_s_to_sectors_per_ns, ViosConfig, ViosMode, ViosTunables};
pub(crate) use self::config::{VIOS_PARAMS, VIOS_P_PARAMS};

use super::fair_ids::SlotIds;
use super::in_flight::InFlightNotes;
use super::params::ParamReader;
use super::{build_bare, Params};
use crate::charge::LinearCost;
use crate::error::Error;
use crate::scheduler::{
    Capabilities, ClassConfig, Decision, DeviceState, DeviceView, FlowConfig, Scheduler, Service,
};
use crate::stats::{PolicyStats, ViosStats};
use crate::time::{Duration, Instant};
use crate::types::{FlowId, Request};

/// A span in the signed nanoseconds of the compensation accounts.
fn signed_ns(d: Duration) -> i64 {
    d.as_nanos() as i64
}

/// Why a class's turn ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TurnEnd {
    /// Its charged time reached its allotment.
    Quantum,
    /// Its inner scheduler had nothing more to send.
    Emptied,
    /// VIOS(P): its sector budget SQ_i was used up.
    Budget,
}

/// A class as an inspection snapshot ([`Vios::stats`]).
///
/// The compensation accounts (`compensation`, `allotment`, `used`,
/// `last_overrun`) are signed nanoseconds, not [`Duration`]s: VIOS(P)'s
/// compensation and a skipped turn's allotment can be negative.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassStats {
    /// The class id given to `add_class`; `None` for the implicit default.
    pub class: Option<u32>,
    /// The class's name (`ClassConfig::name`; "default" for the implicit
    /// default class).
    pub name: String,
    /// The inner scheduler's policy name.
    pub inner: String,
    /// Q_i.
    pub quantum: Duration,
    /// CQ_i in ns, carried into the class's next turn (the paper's sign:
    /// overrun >= 0; VIOS(P) may hold a credit < 0).
    pub compensation: i64,
    /// A_i in ns of the current (or last) turn: Q_i - CQ_i at its start.
    pub allotment: i64,
    /// Time in ns charged to the current (or last, until settled) turn.
    pub used: i64,
    /// Overrun in ns of the last finished turn (FQ-RR keeps it here but
    /// never carries it).
    pub last_overrun: i64,
    /// Disk time of all its completed requests (idle stretches excluded).
    pub served: Duration,
    /// Idle stretches charged to it (inner anticipation).
    pub idled: Duration,
    /// Turns it was given.
    pub turns: u64,
    /// Requests dispatched.
    pub dispatched: u64,
    /// Requests in flight.
    pub in_flight: usize,
    /// Requests held by its inner scheduler.
    pub queued: usize,
}

struct Class {
    id: Option<u32>,
    name: String,
    inner_name: String,
    quantum: Duration,
    inner: Box<dyn Scheduler>,
    in_flight: usize,
    /// A_i, T_i and CQ_i in signed nanoseconds (see [`ClassStats`]).
    allot: i64,
    used: i64,
    cq: i64,
    sent_sectors: u64,
    unsettled: Option<TurnEnd>,
    last_overrun: i64,
    served: Duration,
    idled: Duration,
    turns: u64,
    dispatched: u64,
}

impl Class {
    /// A class ordered by the policy named `inner_name` (with its default
    /// parameters); an error if that names no policy.
    fn new(
        id: Option<u32>,
        name: String,
        quantum: Duration,
        inner_name: &str,
    ) -> Result<Self, Error> {
        let inner = build_bare(inner_name, &Params::default(), &LinearCost::default()).map_err(
            |e| match e {
                Error::UnknownPolicy { available, .. } => Error::UnknownInner {
                    class: id.unwrap_or(0),
                    inner: inner_name.to_string(),
                    available,
                },
                other => other,
            },
        )?;
        Ok(Class {
            id,
            name,
            inner_name: inner_name.to_string(),
            quantum,
            inner,
            in_flight: 0,
            allot: 0,
            used: 0,
            cq: 0,
            sent_sectors: 0,
            unsettled: None,
            last_overrun: 0,
            served: Duration::ZERO,
            idled: Duration::ZERO,
            turns: 0,
            dispatched: 0,
        })
    }
}

/// VIOS: an outer round robin over classes (CFQ-CRR, VIOS(P) or FQ-RR), each
/// class ordering its own requests with its inner scheduler.
pub struct Vios {
    cfg: ViosConfig,
    classes: Vec<Class>,
    /// Index of the implicit default class, once created.
    default_class: Option<usize>,
    flows: SlotIds,
    /// The class of each request in the device.
    requests: InFlightNotes<usize>,
    /// Class whose turn it is.
    current: Option<usize>,
    /// The active list: classes waiting for a turn, in round-robin order.
    /// A class joins at the tail when it becomes backlogged and goes back
    /// to the tail when its turn ends with requests left; the class whose
    /// turn it is is not in it. Entries of classes that emptied meanwhile
    /// are dropped when they reach the head.
    active: VecDeque<usize>,
    /// `listed[c]`: class `c` is in `active`.
    listed: Vec<bool>,
    /// `last_round[c]`: the round in which class `c` last had a turn.
    last_round: Vec<Option<u64>>,
    rounds: u64,
    outstanding: usize,
    /// VIOS(P): waiting for the device to drain to `resume_at`.
    paused: bool,
    /// The current class's inner scheduler asked to idle, since this time.
    idle_since: Option<Instant>,
    t_max: Duration,
    /// Measured maximum bandwidth (sectors/ns), once sampled.
    bw_measured: Option<f64>,
    round_sectors: u64,
    round_time: Duration,
    /// Turns ended by the quantum, by emptying and by the sector budget.
    ended: [u64; 3],
}

impl std::fmt::Debug for Vios {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vios")
            .field("cfg", &self.cfg)
            .field("classes", &self.stats())
            .field("current", &self.current)
            .field("rounds", &self.rounds)
            .finish()
    }
}

/// Safety bound on turns started within one `dispatch` call.
const MAX_TURNS_PER_CALL: usize = 100_000;

impl Vios {
    /// A VIOS with no classes yet, running the outer scheduler `cfg` selects.
    pub fn new(cfg: ViosConfig) -> Self {
        Vios {
            cfg,
            classes: Vec::new(),
            default_class: None,
            flows: SlotIds::default(),
            requests: InFlightNotes::default(),
            current: None,
            active: VecDeque::new(),
            listed: Vec::new(),
            last_round: Vec::new(),
            rounds: 0,
            outstanding: 0,
            paused: false,
            idle_since: None,
            t_max: Duration::ZERO,
            bw_measured: None,
            round_sectors: 0,
            round_time: Duration::ZERO,
            ended: [0; 3],
        }
    }

    /// Build from parameters (`vios`, `vios-p`, `fq-rr`).
    pub(crate) fn from_params(mode: ViosMode, p: &mut ParamReader<'_>) -> Result<Self, Error> {
        Ok(Vios::new(ViosConfig::read(mode, p)?))
    }

    /// The settings.
    pub fn config(&self) -> &ViosConfig {
        &self.cfg
    }

    /// Every class, in round-robin order.
    pub fn stats(&self) -> Vec<ClassStats> {
        self.classes.iter().map(Self::snapshot).collect()
    }

    /// One announced class by id.
    pub fn class_stats(&self, class: u32) -> Option<ClassStats> {
        self.classes
            .iter()
            .find(|c| c.id == Some(class))
            .map(Self::snapshot)
    }

    fn snapshot(c: &Class) -> ClassStats {
        ClassStats {
            class: c.id,
            name: c.name.clone(),
            inner: c.inner_name.clone(),
            quantum: c.quantum,
            compensation: c.cq,
            allotment: c.allot,
            used: c.used,
            last_overrun: c.last_overrun,
            served: c.served,
            idled: c.idled,
            turns: c.turns,
            dispatched: c.dispatched,
            in_flight: c.in_flight,
            queued: c.inner.queued(),
        }
    }

    /// Completed rounds (passes of the round robin over the classes).
    pub fn rounds(&self) -> u64 {
        self.rounds
    }

    /// The largest service time charged so far (T_max of Lemma 1).
    pub fn t_max(&self) -> Duration {
        self.t_max
    }

    /// VIOS(P)'s bandwidth estimate BW in sectors per nanosecond.
    pub fn bandwidth(&self) -> f64 {
        self.bw_measured.unwrap_or(self.cfg.initial_bw)
    }

    /// The class id (as given to `add_class`) whose turn it is; `Some(None)`
    /// for the implicit default class.
    pub fn current_class(&self) -> Option<Option<u32>> {
        self.current.map(|c| self.classes[c].id)
    }

    /// Lemma 1: every class's carried compensation is 0 or strictly below
    /// T_max (CFQ-CRR: `0 <= CQ_i < T_max`). `Err` names the class.
    pub fn check_lemma1(&self) -> Result<(), String> {
        for c in &self.classes {
            let ok = c.cq == 0 || (c.cq > 0 && (c.cq as u64) < self.t_max.as_nanos());
            if !ok {
                return Err(format!(
                    "class {:?} ('{}'): CQ = {} ns, T_max = {} ns",
                    c.id,
                    c.name,
                    c.cq,
                    self.t_max.as_nanos()
                ));
            }
        }
        Ok(())
    }

    fn push_class(&mut self, c: Class) {
        self.classes.push(c);
        self.listed.push(false);
        self.last_round.push(None);
    }

    /// The active list's invariant: every class that holds requests and
    /// whose turn it is not is listed, and no class is listed twice (a
    /// listed class may have emptied since; it is dropped at the head).
    /// `Err` names the class.
    pub fn check_active_list(&self) -> Result<(), String> {
        let mut seen = vec![false; self.classes.len()];
        for &c in &self.active {
            if seen[c] || !self.listed[c] {
                return Err(format!("class index {c} listed twice or unflagged"));
            }
            seen[c] = true;
        }
        for (c, cl) in self.classes.iter().enumerate() {
            if seen[c] != self.listed[c] {
                return Err(format!(
                    "class {:?}: flag {} but listed {}",
                    cl.id, self.listed[c], seen[c]
                ));
            }
            if cl.inner.queued() > 0 && self.current != Some(c) && !seen[c] {
                return Err(format!(
                    "class {:?} ('{}') holds requests but is not listed",
                    cl.id, cl.name
                ));
            }
        }
        Ok(())
    }

    fn default_index(&mut self) -> usize {
        if let Some(i) = self.default_class {
            return i;
        }
        let c =
            Class::new(None, "default".into(), self.cfg.quantum, "noop").expect("noop is a policy");
        self.push_class(c);
        let i = self.classes.len() - 1;
        self.default_class = Some(i);
        i
    }

    fn resolve_class(&mut self, class: Option<u32>) -> usize {
        let id = class.unwrap_or(0);
        match self.classes.iter().position(|c| c.id == Some(id)) {
            Some(i) => i,
            None => self.default_index(),
        }
    }

    fn class_of_flow(&mut self, now: Instant, flow: FlowId) -> usize {
        if let Some(c) = self.flows.get(flow) {
            return c as usize;
        }
        let cfg = FlowConfig::default();
        let c = self.resolve_class(cfg.class);
        self.classes[c].inner.add_flow(now, flow, &cfg);
        self.flows.insert(flow, c as u32);
        c
    }

    fn sample_bw(&mut self, sectors: u64, time: Duration) {
        if time.is_zero() || sectors == 0 {
            return;
        }
        let bw = sectors as f64 / time.as_nanos() as f64;
        self.bw_measured = Some(self.bw_measured.map_or(bw, |b| b.max(bw)));
    }

    /// Compute CQ_i for class `c`'s finished turn and reset its charge.
    fn settle(&mut self, c: usize) {
        let mode = self.cfg.mode;
        let cl = &mut self.classes[c];
        let Some(end) = cl.unsettled.take() else {
            return;
        };
        let over = cl.used - cl.allot;
        cl.last_overrun = over;
        cl.cq = match mode {
            ViosMode::FqRr => 0,
            _ if end == TurnEnd::Emptied && over < 0 => 0,
            ViosMode::Crr => over.max(0),
            ViosMode::Parallel => over.max(-signed_ns(cl.quantum)),
        };
        cl.used = 0;
    }

    fn end_turn(&mut self, c: usize, why: TurnEnd) {
        self.ended[why as usize] += 1;
        if self.current == Some(c) {
            self.current = None;
            self.idle_since = None;
        }
        self.classes[c].unsettled = Some(why);
        if self.classes[c].in_flight == 0 {
            self.settle(c);
        }
        self.enlist(c);
    }

    /// Put class `c` at the tail of the active list if it holds requests,
    /// is not listed yet and is not the class whose turn it is.
    fn enlist(&mut self, c: usize) {
        if !self.listed[c] && self.current != Some(c) && self.classes[c].inner.queued() > 0 {
            self.listed[c] = true;
            self.active.push_back(c);
        }
    }

    /// Give the class at the head of the active list its turn. `None` if no
    /// class holds requests. A round ends when a class comes up for its
    /// second turn in it.
    fn start_next_turn(&mut self) -> Option<usize> {
        for _ in 0..MAX_TURNS_PER_CALL {
            let c = self.active.pop_front()?;
            self.listed[c] = false;
            if self.classes[c].inner.queued() == 0 {
                // Emptied while it waited (it joins again when it gets a
                // request).
                continue;
            }
            if self.last_round[c] == Some(self.rounds) {
                // A pass over the backlogged classes is complete: a round
                // boundary.
                self.rounds += 1;
                let (s, t) = (self.round_sectors, self.round_time);
                if self.cfg.mode == ViosMode::Parallel {
                    self.sample_bw(s, t);
                }
                self.round_sectors = 0;
                self.round_time = Duration::ZERO;
            }
            self.last_round[c] = Some(self.rounds);
            // Late charges of an unsettled turn count toward the new one.
            self.settle(c);
            let cl = &mut self.classes[c];
            cl.turns += 1;
            cl.allot = match self.cfg.mode {
                ViosMode::FqRr => signed_ns(cl.quantum),
                _ => signed_ns(cl.quantum) - cl.cq,
            };
            cl.cq = 0;
            cl.sent_sectors = 0;
            if cl.allot <= 0 {
                // §3.7: a non-positive quantum sends nothing this round and
                // carries CQ_i = T_i - A_i (T_i = 0 unless late charges of
                // VIOS(P) arrived).
                let over = cl.used - cl.allot;
                cl.last_overrun = over;
                cl.cq = over;
                cl.used = 0;
                self.enlist(c);
                continue;
            }
            self.current = Some(c);
            return Some(c);
        }
        None
    }

    fn charge_idle(&mut self, now: Instant) {
        if let (Some(since), Some(c)) = (self.idle_since.take(), self.current) {
            let d = now.saturating_duration_since(since);
            let cl = &mut self.classes[c];
            cl.used += signed_ns(d);
            cl.idled += d;
            self.t_max = self.t_max.max(d);
        }
    }

    fn budget(&self, c: usize) -> f64 {
        self.classes[c].allot as f64 * self.bandwidth()
    }
}

impl Scheduler for Vios {
    fn name(&self) -> &str {
        match self.cfg.mode {
            ViosMode::Crr => "vios",
            ViosMode::Parallel => "vios-p",
            ViosMode::FqRr => "fq-rr",
        }
    }

    fn add_class(&mut self, _now: Instant, class: u32, config: &ClassConfig) -> Result<(), Error> {
        let quantum = if config.quantum.is_zero() {
            self.cfg.quantum
        } else {
            config.quantum
        };
        if let Some(c) = self.classes.iter_mut().find(|c| c.id == Some(class)) {
            let idle = c.in_flight == 0 && c.inner.queued() == 0;
            if c.inner_name != config.inner && idle {
                // Built before anything changes, so that an error leaves the
                // class as it was.
                *c = Class::new(Some(class), config.name.clone(), quantum, &config.inner)?;
            } else {
                c.name = config.name.clone();
                c.quantum = quantum;
            }
            return Ok(());
        }
        let c = Class::new(Some(class), config.name.clone(), quantum, &config.inner)?;
        self.push_class(c);
        Ok(())
    }

    fn add_flow(&mut self, now: Instant, flow: FlowId, config: &FlowConfig) {
        let c = self.resolve_class(config.class);
        self.classes[c].inner.add_flow(now, flow, config);
        self.flows.insert(flow, c as u32);
    }

    fn set_weight(&mut self, now: Instant, flow: FlowId, weight: u32) {
        if let Some(c) = self.flows.get(flow) {
            self.classes[c as usize].inner.set_weight(now, flow, weight);
        }
    }

    fn remove_flow(&mut self, now: Instant, flow: FlowId) {
        if let Some(c) = self.flows.get(flow) {
            self.flows.remove(flow);
            self.classes[c as usize].inner.remove_flow(now, flow);
        }
    }

    fn add(&mut self, now: Instant, request: Request) {
        let c = self.class_of_flow(now, request.flow);
        self.classes[c].inner.add(now, request);
        self.enlist(c);
    }

    fn merge(&mut self, now: Instant, old: &Request, merged: &Request) {
        let c = self.class_of_flow(now, merged.flow);
        self.classes[c].inner.merge(now, old, merged);
        self.enlist(c);
    }

    fn dispatch(&mut self, now: Instant, device: &dyn DeviceView) -> Decision {
        self.charge_idle(now);
        let in_dev = device.in_flight().max(self.outstanding);
        let parallel = self.cfg.mode == ViosMode::Parallel;
        let k = if parallel {
            device.queue_depth().max(1)
        } else {
            1
        };
        if parallel {
            if self.paused {
                if in_dev <= self.cfg.resume_at {
                    self.paused = false;
                } else {
                    return Decision::Nothing;
                }
            }
            if in_dev >= k {
                self.paused = true;
                return Decision::Nothing;
            }
        } else if in_dev > 0 {
            return Decision::Nothing;
        }
        for _ in 0..MAX_TURNS_PER_CALL {
            let c = match self.current {
                Some(c) => c,
                None => match self.start_next_turn() {
                    Some(c) => c,
                    None => return Decision::Nothing,
                },
            };
            if self.classes[c].used >= self.classes[c].allot {
                self.end_turn(c, TurnEnd::Quantum);
                continue;
            }
            if parallel && self.classes[c].sent_sectors as f64 >= self.budget(c) {
                self.end_turn(c, TurnEnd::Budget);
                if in_dev > self.cfg.resume_at {
                    self.paused = true;
                    return Decision::Nothing;
                }
                continue;
            }
            let cl = &mut self.classes[c];
            // The inner scheduler sees the device with only its class's
            // requests in flight and the depth VIOS allows the class.
            let view = DeviceState {
                costs: device,
                in_flight: cl.in_flight,
                depth: k,
                head: device.head(),
            };
            match cl.inner.dispatch(now, &view) {
                Decision::Dispatch(r) => {
                    cl.in_flight += 1;
                    cl.dispatched += 1;
                    cl.sent_sectors += u64::from(r.sectors);
                    self.outstanding += 1;
                    self.requests.insert(r.id, c);
                    if parallel && in_dev + 1 >= k {
                        self.paused = true;
                    }
                    return Decision::Dispatch(r);
                }
                Decision::Idle => {
                    self.idle_since = Some(now);
                    return Decision::Idle;
                }
                Decision::Nothing => {
                    if cl.inner.queued() > 0 && in_dev > 0 {
                        return Decision::Nothing;
                    }
                    self.end_turn(c, TurnEnd::Emptied);
                }
            }
        }
        Decision::Nothing
    }

    fn complete(&mut self, now: Instant, request: &Request, service: &Service) {
        let Some(c) = self.requests.remove(request.id) else {
            return;
        };
        let charge = service.disk_time;
        self.outstanding = self.outstanding.saturating_sub(1);
        self.t_max = self.t_max.max(charge);
        self.round_sectors += u64::from(request.sectors);
        self.round_time += charge;
        if self.cfg.mode == ViosMode::Parallel && charge == service.response() {
            self.sample_bw(u64::from(request.sectors), charge);
        }
        let cl = &mut self.classes[c];
        cl.inner.complete(now, request, service);
        cl.in_flight = cl.in_flight.saturating_sub(1);
        cl.used += signed_ns(charge);
        cl.served += charge;
        if self.current == Some(c) && cl.used >= cl.allot {
            self.end_turn(c, TurnEnd::Quantum);
        } else if cl.unsettled.is_some() && cl.in_flight == 0 {
            self.settle(c);
        }
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.classes
            .iter()
            .filter_map(|c| c.inner.poll_timeout())
            .min()
    }

    fn handle_timeout(&mut self, now: Instant) {
        for c in 0..self.classes.len() {
            let inner = &mut self.classes[c].inner;
            if inner.poll_timeout().is_some_and(|t| t <= now) {
                inner.handle_timeout(now);
                self.enlist(c);
            }
        }
    }

    fn queued(&self) -> usize {
        self.classes.iter().map(|c| c.inner.queued()).sum()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::idling_if(self.classes.iter().any(|c| c.inner.capabilities().may_idle))
    }

    /// `rounds`; `turns_quantum`, `turns_emptied`, `turns_budget`: turns
    /// that ended because the class's charged time reached its allotment,
    /// because it had nothing more to send, or (VIOS(P)) because its sector
    /// budget was used up.
    fn stats(&self) -> PolicyStats {
        PolicyStats::Vios(ViosStats {
            rounds: self.rounds,
            turns_quantum: self.ended[TurnEnd::Quantum as usize],
            turns_emptied: self.ended[TurnEnd::Emptied as usize],
            turns_budget: self.ended[TurnEnd::Budget as usize],
        })
    }
}

#[cfg(test)]
mod tests;
