//! `cfq`: Completely Fair Queueing as in Linux 2.6.34 (`block/cfq-iosched.c`),
//! the baseline the BFQ paper measured against.
//!
//! Written from a reading of 2.6.34's `block/cfq-iosched.c` (no kernel code is
//! copied; function names below are the kernel's, for cross-reference).
//!
//! # Mechanisms
//!
//! * **Queues.** Every flow (process) has one sync queue; async requests
//!   (`Request::sync == false`) go to one async queue per I/O priority, shared
//!   by every flow of that priority (`cfq_get_queue`, `async_cfqq[][]`).
//!   Inside a queue, requests are kept sorted by sector and in a FIFO.
//! * **Request order in a queue** (`cfq_choose_req`): the nearest request
//!   ahead of the head, or one behind it within `back_seek_max_kib` whose
//!   distance times `back_seek_penalty` is smaller; if all are further behind,
//!   the lowest sector. At the first dispatch of each slice the oldest request
//!   is checked against its FIFO deadline (`fifo_expire_sync_ms` /
//!   `fifo_expire_async_ms`) and served first if expired (`cfq_check_fifo`).
//! * **Service trees and workloads** (`cfq_service_tree_add`,
//!   `choose_service_tree`, `cfq_choose_wl`): busy queues sit on one of three
//!   trees, ASYNC, SYNC_NOIDLE (sync queues without an idle window: seeky or
//!   slow thinkers) and SYNC, ordered by a key `now + offset - residual`
//!   where `offset = (busy - 1) * (slice(sync, prio 0) - slice(queue))`, so
//!   sync queues come back sooner than async ones. A workload (tree) is
//!   served for a share of `target_latency_ms` proportional to its number of
//!   queues; the async share is scaled by `slice_async / slice_sync`. The
//!   next workload is the tree whose first queue has the lowest key.
//! * **Time slices** (`cfq_prio_slice`, `cfq_set_prio_slice`):
//!   `base + base / 5 * (4 - prio)` with base `slice_sync_ms` or `slice_async_ms`; the slice
//!   starts when the queue's first request of the slot *completes* (as in the
//!   kernel). With `low_latency`, when `slice_sync * busy_avg` exceeds
//!   `target_latency_ms` the slice is scaled down to fit, but not below
//!   `2 * slice_idle * slice / slice_sync`. `busy_avg` follows the kernel's
//!   rise-fast/decay-slow average (`cfq_group_get_avg_queues`).
//!   An async queue also ends its slot after
//!   `2 * (slice_async_rq + slice_async_rq * (7 - prio))` dispatches when
//!   others are busy.
//! * **Idling** (`cfq_arm_slice_timer`, `cfq_should_idle`,
//!   `cfq_update_idle_window`): when the active sync queue runs empty and
//!   has nothing in flight, the device is kept idle for `slice_idle_ms`
//!   waiting for its next request, if the queue has an idle window (not
//!   seeky — more than 4 of the last 32 requests seeked over 800 sectors —
//!   unless "deep", and a mean think time not above `slice_idle`), or if it
//!   is the last queue of its tree. SYNC_NOIDLE queues idle only at the end
//!   of their tree, after a non-`noidle` request. A request arriving during
//!   the idle window is served at once in the same slice.
//! * **Dispatch limits** (`cfq_may_dispatch`): at most `quantum / 2`
//!   requests of a queue in flight, up to `quantum` early in the slice, no
//!   limit for a lone queue; async requests wait while sync ones are in
//!   flight, a sync queue that idles waits for async ones to drain, and with
//!   `low_latency` the async depth ramps up with the time since a sync
//!   request last waited longer than `fifo_expire_sync`.
//! * **Preemption** (`cfq_should_preempt`): a sync request preempts an async
//!   active queue; any new request preempts a queue whose slice is used up;
//!   a request close to the head (within 8192 sectors) preempts a queue that
//!   is idling. The preempting queue goes to the front of its tree.
//! * **hw_tag.** In 2.6.34 the command-queueing flag only matters on
//!   non-rotational devices (no idling for queues with an idle window there).
//!   `device.queue_depth() > 1` stands for `hw_tag`; set `nonrot = true` for
//!   SSDs (it also switches seek detection to the kernel's small-request test).
//!
//! # Simplified or left out
//!
//! * One cgroup (the root group): no group weights, vdisktime, group
//!   isolation or `wait_busy` across groups (the single-queue `wait_busy`
//!   rule is kept).
//! * Only the best-effort class (no RT / idle classes). Every flow has
//!   priority 4; [`Cfq::set_ioprio`] changes it. Flow weights are ignored.
//! * No close-cooperator detection and no queue merging/splitting
//!   (`cfq_close_cooperator`, `cfq_setup_merge`); no request merging; no
//!   metadata priority; no plugging: a request arriving for the idling active
//!   queue is dispatched at once (the kernel may wait for the unplug of a
//!   request smaller than a page).
//! * The next request of a queue is chosen against the current head position
//!   each time (the kernel caches `next_rq`, chosen the same way).
//! * `rq_noidle` (REQ_NOIDLE) is taken to mean "a sync write".
//! * `hw_tag` is the device's queue depth instead of the kernel's estimate.
//! * Times are exact nanoseconds instead of jiffies (HZ = 1000 assumed for
//!   the jiffy constants: `CFQ_MIN_TT` = 2 ms, one-jiffy margins = 1 ms).
//! * There is no slice-end timer, as in the kernel: slice expiry is checked
//!   whenever the policy is called; the only timer is the idle timer.

use std::collections::{BTreeMap, HashMap};

use super::params::ParamReader;
use crate::error::Error;
use crate::scheduler::{Decision, DeviceView, FlowConfig, Scheduler, Service};
use crate::time::{Duration, Instant, NS_PER_MS, NS_PER_S};
use crate::types::{FlowId, Request};

/// Signed nanoseconds: tree keys and slice residuals go negative.
type T = i64;

const MS: T = NS_PER_MS as T;
/// `IOPRIO_NORM`: the default best-effort priority.
const NORM_PRIO: u8 = 4;
/// `IOPRIO_BE_NR`.
const PRIO_LEVELS: usize = 8;
/// `CFQ_SLICE_SCALE`.
const SLICE_SCALE: T = 5;
/// `CFQ_MIN_TT`: 2 jiffies.
const MIN_TT: T = 2 * MS;
/// One jiffy at HZ = 1000.
const JIFFY: T = MS;
/// `CFQQ_SEEK_THR`: a seek longer than this (sectors) counts as seeky.
const SEEK_THR: u64 = 8 * 100;
/// `CFQQ_SECT_THR_NONROT`: on SSDs, requests smaller than this are "seeky".
const SECT_THR_NONROT: u32 = 2 * 32;
/// `CFQQ_CLOSE_THR`: a request this close to the head may preempt.
const CLOSE_THR: u64 = 8 * 1024;
/// `cfq_hist_divisor`.
const HIST_DIVISOR: u64 = 4;
/// `sample_valid`: think-time samples needed before they count.
const SAMPLES_VALID: u64 = 80;
/// Queued requests that mark a queue "deep" (`cfq_update_idle_window`).
const DEEP_QUEUED: usize = 4;

/// Workload types (`enum wl_type_t`), indexes of the service trees.
const ASYNC: usize = 0;
const SYNC_NOIDLE: usize = 1;
const SYNC: usize = 2;

/// CFQ's tunables, with the defaults of Linux 2.6.34.
#[derive(Clone, Debug, PartialEq)]
pub struct CfqParams {
    /// `cfq_quantum` = 8: requests one queue may have in flight (half of it
    /// normally, all of it early in a slice).
    pub quantum: u32,
    /// `cfq_fifo_expire[1]` = HZ/8 = 125 ms.
    pub fifo_expire_sync: Duration,
    /// `cfq_fifo_expire[0]` = HZ/4 = 250 ms.
    pub fifo_expire_async: Duration,
    /// `cfq_back_max` = 16 MiB, in KiB.
    pub back_seek_max_kib: u64,
    /// `cfq_back_penalty` = 2.
    pub back_seek_penalty: u64,
    /// `cfq_slice_sync` = HZ/10 = 100 ms.
    pub slice_sync: Duration,
    /// `cfq_slice_async` = HZ/25 = 40 ms.
    pub slice_async: Duration,
    /// `cfq_slice_async_rq` = 2.
    pub slice_async_rq: u32,
    /// `cfq_slice_idle` = HZ/125 = 8 ms (0 disables idling).
    pub slice_idle: Duration,
    /// `cfq_latency` = 1 (sysfs `low_latency`).
    pub low_latency: bool,
    /// `cfq_target_latency` = 300 ms.
    pub target_latency: Duration,
    /// `blk_queue_nonrot`: the device has no seek penalty (SSD).
    pub nonrot: bool,
}

impl Default for CfqParams {
    fn default() -> Self {
        CfqParams {
            quantum: 8,
            fifo_expire_sync: Duration::from_millis(125),
            fifo_expire_async: Duration::from_millis(250),
            back_seek_max_kib: 16 * 1024,
            back_seek_penalty: 2,
            slice_sync: Duration::from_millis(100),
            slice_async: Duration::from_millis(40),
            slice_async_rq: 2,
            slice_idle: Duration::from_millis(8),
            low_latency: true,
            target_latency: Duration::from_millis(300),
            nonrot: false,
        }
    }
}

/// The parameter list for `POLICIES`.
pub(crate) const PARAMS: &str = "quantum = 8, slice_sync_ms = 100, slice_async_ms = 40, \
slice_async_rq = 2, slice_idle_ms = 8, fifo_expire_sync_ms = 125, fifo_expire_async_ms = 250, \
back_seek_max_kib = 16384, back_seek_penalty = 2, low_latency = true, target_latency_ms = 300, \
nonrot = false";

impl CfqParams {
    /// Read the parameters by name; absent ones keep the 2.6.34 defaults.
    pub(crate) fn read(p: &mut ParamReader<'_>) -> Result<Self, Error> {
        let d = CfqParams::default();
        let ms = |x: i64| Duration::from_millis(x as u64);
        Ok(CfqParams {
            quantum: p.int("quantum", d.quantum.into(), 1, 1024)? as u32,
            slice_sync: ms(p.int("slice_sync_ms", 100, 1, 10_000)?),
            slice_async: ms(p.int("slice_async_ms", 40, 1, 10_000)?),
            slice_async_rq: p.int("slice_async_rq", 2, 1, 1024)? as u32,
            slice_idle: ms(p.int("slice_idle_ms", 8, 0, 1_000)?),
            fifo_expire_sync: ms(p.int("fifo_expire_sync_ms", 125, 1, 100_000)?),
            fifo_expire_async: ms(p.int("fifo_expire_async_ms", 250, 1, 100_000)?),
            back_seek_max_kib: p.int("back_seek_max_kib", 16 * 1024, 0, 1 << 40)? as u64,
            back_seek_penalty: p.int("back_seek_penalty", 2, 1, 1_000)? as u64,
            low_latency: p.bool("low_latency", d.low_latency)?,
            target_latency: ms(p.int("target_latency_ms", 300, 1, 100_000)?),
            nonrot: p.bool("nonrot", d.nonrot)?,
        })
    }
}

/// Per-flow state (the kernel's `cfq_io_context`): priority, liveness and
/// think-time statistics.
#[derive(Debug)]
struct FlowState {
    prio: u8,
    alive: bool,
    sync_q: Option<usize>,
    last_end_request: T,
    ttime_samples: u64,
    ttime_total: u64,
    ttime_mean: u64,
}

impl FlowState {
    fn new(now: T) -> Self {
        FlowState {
            prio: NORM_PRIO,
            alive: true,
            sync_q: None,
            last_end_request: now,
            ttime_samples: 0,
            ttime_total: 0,
            ttime_mean: 0,
        }
    }

    fn ttime_valid(&self) -> bool {
        self.ttime_samples > SAMPLES_VALID
    }
}

/// One CFQ queue (`struct cfq_queue`).
#[derive(Debug)]
struct Queue {
    sync: bool,
    prio: u8,
    /// Pending requests by (sector, id), with their FIFO deadline.
    sorted: BTreeMap<(u64, u64), (Request, T)>,
    /// Pending requests by (FIFO deadline, id) -> sector.
    fifo: BTreeMap<(T, u64), u64>,
    /// Requests in flight.
    dispatched: usize,
    /// On a service tree (busy): `on_rr`.
    on_rr: bool,
    /// The tree it is on and its key there.
    tree: Option<(usize, (T, u64))>,
    slice_new: bool,
    slice_start: T,
    slice_end: T,
    slice_dispatch: u32,
    slice_resid: T,
    wait_request: bool,
    wait_busy: bool,
    fifo_checked: bool,
    idle_window: bool,
    deep: bool,
    seek_history: u32,
    last_request_pos: u64,
}

impl Queue {
    fn new(sync: bool, prio: u8) -> Self {
        Queue {
            sync,
            prio,
            sorted: BTreeMap::new(),
            fifo: BTreeMap::new(),
            dispatched: 0,
            on_rr: false,
            tree: None,
            slice_new: true,
            slice_start: 0,
            slice_end: 0,
            slice_dispatch: 0,
            slice_resid: 0,
            wait_request: false,
            wait_busy: false,
            fifo_checked: false,
            idle_window: sync,
            deep: false,
            seek_history: 0,
            last_request_pos: 0,
        }
    }

    /// `cfqq_type`.
    fn workload(&self) -> usize {
        if !self.sync {
            ASYNC
        } else if !self.idle_window {
            SYNC_NOIDLE
        } else {
            SYNC
        }
    }

    /// `CFQQ_SEEKY`: more than 4 of the last 32 requests seeked.
    fn seeky(&self) -> bool {
        self.seek_history.count_ones() > 32 / 8
    }

    /// `cfq_slice_used`.
    fn slice_used(&self, now: T) -> bool {
        !self.slice_new && now >= self.slice_end
    }
}

/// Linux 2.6.34 CFQ for one cgroup and the best-effort class.
#[derive(Debug)]
pub struct Cfq {
    p: CfqParams,
    queues: Vec<Queue>,
    flows: BTreeMap<FlowId, FlowState>,
    async_q: [Option<usize>; PRIO_LEVELS],
    /// Service trees by workload: (key, insertion seq) -> queue.
    trees: [BTreeMap<(T, u64), usize>; 3],
    seq: u64,
    busy_queues: usize,
    busy_queues_avg: u64,
    rq_queued: usize,
    /// Requests in flight, [async, sync] by queue kind.
    rq_in_flight: [usize; 2],
    in_flight: HashMap<u64, usize>,
    active: Option<usize>,
    /// The flow of the first request the active queue dispatched.
    active_cic: Option<FlowId>,
    serving_type: usize,
    workload_expires: T,
    saved_workload_slice: T,
    saved_workload: usize,
    noidle_tree_requires_idle: bool,
    idle_timer: Option<T>,
    last_delayed_sync: T,
    last_position: u64,
    hw_tag: bool,
}

impl Default for Cfq {
    fn default() -> Self {
        Self::with_params(CfqParams::default())
    }
}

impl Cfq {
    /// CFQ with the 2.6.34 defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// CFQ with the given tunables.
    pub fn with_params(p: CfqParams) -> Self {
        Cfq {
            p,
            queues: Vec::new(),
            flows: BTreeMap::new(),
            async_q: [None; PRIO_LEVELS],
            trees: Default::default(),
            seq: 0,
            busy_queues: 0,
            busy_queues_avg: 0,
            rq_queued: 0,
            rq_in_flight: [0; 2],
            in_flight: HashMap::new(),
            active: None,
            active_cic: None,
            serving_type: ASYNC,
            workload_expires: 0,
            saved_workload_slice: 0,
            saved_workload: ASYNC,
            noidle_tree_requires_idle: false,
            idle_timer: None,
            // "assume sync ops weren't delayed in the last second"
            last_delayed_sync: -(NS_PER_S as T),
            last_position: 0,
            hw_tag: false,
        }
    }

    /// The tunables in use.
    pub fn params(&self) -> &CfqParams {
        &self.p
    }

    /// Set a flow's best-effort I/O priority, 0 (highest) ..= 7; the default
    /// is 4. Takes effect for queues created afterwards and for the flow's
    /// sync queue's next slice.
    pub fn set_ioprio(&mut self, now: Instant, flow: FlowId, prio: u8) {
        let prio = prio.min(PRIO_LEVELS as u8 - 1);
        let f = self.flow_mut(now.as_nanos() as T, flow);
        f.prio = prio;
        if let Some(q) = f.sync_q {
            self.queues[q].prio = prio;
        }
    }

    fn flow_mut(&mut self, now: T, flow: FlowId) -> &mut FlowState {
        self.flows
            .entry(flow)
            .or_insert_with(|| FlowState::new(now))
    }

    fn nr_cfqq(&self) -> usize {
        self.trees.iter().map(BTreeMap::len).sum()
    }

    // ----- slices -------------------------------------------------------

    /// `cfq_prio_slice`.
    fn prio_slice(&self, sync: bool, prio: u8) -> T {
        let base = if sync {
            self.p.slice_sync.as_nanos()
        } else {
            self.p.slice_async.as_nanos()
        } as T;
        base + base / SLICE_SCALE * (T::from(NORM_PRIO) - T::from(prio))
    }

    /// `cfq_group_get_avg_queues`: rises fast, decays slowly.
    fn avg_queues(&mut self) -> u64 {
        let busy = self.nr_cfqq() as u64;
        let (lo, hi) = if busy < self.busy_queues_avg {
            (busy, self.busy_queues_avg)
        } else {
            (self.busy_queues_avg, busy)
        };
        self.busy_queues_avg = ((HIST_DIVISOR - 1) * hi + lo + HIST_DIVISOR / 2) / HIST_DIVISOR;
        self.busy_queues_avg
    }

    /// `cfq_set_prio_slice`: start the active queue's slice now.
    fn set_prio_slice(&mut self, qi: usize, now: T) {
        let (sync, prio) = (self.queues[qi].sync, self.queues[qi].prio);
        let mut slice = self.prio_slice(sync, prio);
        if self.p.low_latency {
            let iq = self.avg_queues() as T;
            let sync_slice = self.p.slice_sync.as_nanos() as T;
            let expect_latency = sync_slice * iq;
            // One group: its share of the target latency is all of it.
            let group_slice = self.p.target_latency.as_nanos() as T;
            if expect_latency > group_slice {
                let base_low_slice = 2 * self.p.slice_idle.as_nanos() as T;
                let low_slice = slice.min(base_low_slice * slice / sync_slice);
                slice = (slice * group_slice / expect_latency).max(low_slice);
            }
        }
        let q = &mut self.queues[qi];
        q.slice_start = now;
        q.slice_end = now + slice;
    }

    /// `cfq_prio_to_maxrq`.
    fn prio_to_maxrq(&self, prio: u8) -> u32 {
        let base = self.p.slice_async_rq;
        2 * (base + base * (PRIO_LEVELS as u32 - 1 - u32::from(prio)))
    }

    // ----- service trees ------------------------------------------------

    /// `cfq_service_tree_add`.
    fn service_tree_add(&mut self, qi: usize, add_front: bool, now: T) {
        let wl = self.queues[qi].workload();
        let key = if !add_front {
            // cfq_slice_offset: counts the busy queues of the group, this one
            // included if it is already on a tree.
            let q = &self.queues[qi];
            let offset = (self.nr_cfqq() as T - 1)
                * (self.prio_slice(true, 0) - self.prio_slice(q.sync, q.prio));
            let key = offset + now - q.slice_resid;
            self.queues[qi].slice_resid = 0;
            key
        } else {
            let first = self.trees[wl].iter().next().map(|(k, _)| k.0);
            first.unwrap_or(now) - NS_PER_S as T
        };
        if let Some((old_wl, old_key)) = self.queues[qi].tree {
            if old_wl == wl && old_key.0 == key {
                return;
            }
            self.trees[old_wl].remove(&old_key);
        }
        self.seq += 1;
        let k = (key, self.seq);
        self.trees[wl].insert(k, qi);
        self.queues[qi].tree = Some((wl, k));
    }

    /// `cfq_add_cfqq_rr`.
    fn add_rr(&mut self, qi: usize, now: T) {
        self.queues[qi].on_rr = true;
        self.busy_queues += 1;
        self.service_tree_add(qi, false, now);
    }

    /// `cfq_del_cfqq_rr`.
    fn del_rr(&mut self, qi: usize) {
        let q = &mut self.queues[qi];
        q.on_rr = false;
        if let Some((wl, k)) = q.tree.take() {
            self.trees[wl].remove(&k);
        }
        self.busy_queues -= 1;
    }

    fn tree_count(&self, qi: usize) -> usize {
        self.queues[qi]
            .tree
            .map_or(0, |(wl, _)| self.trees[wl].len())
    }

    /// `cfq_choose_wl`: the workload whose first queue has the lowest key.
    fn choose_wl(&self) -> usize {
        let mut best = SYNC_NOIDLE;
        let mut lowest: Option<T> = None;
        for wl in [ASYNC, SYNC_NOIDLE, SYNC] {
            if let Some((k, _)) = self.trees[wl].iter().next() {
                if lowest.is_none_or(|l| k.0 < l) {
                    lowest = Some(k.0);
                    best = wl;
                }
            }
        }
        best
    }

    /// `choose_service_tree`.
    fn choose_service_tree(&mut self, now: T) {
        let busy = self.nr_cfqq();
        if busy == 0 {
            self.workload_expires = now + JIFFY;
            return;
        }
        if !self.trees[self.serving_type].is_empty() && now <= self.workload_expires {
            return;
        }
        self.serving_type = self.choose_wl();
        let count = self.trees[self.serving_type].len() as T;
        let group_slice = self.p.target_latency.as_nanos() as T;
        let mut slice = group_slice * count / (self.busy_queues_avg as T).max(busy as T);
        if self.serving_type == ASYNC {
            let tmp = self.p.target_latency.as_nanos() as T * self.trees[ASYNC].len() as T
                / self.busy_queues.max(1) as T;
            slice = slice.min(tmp);
            slice = slice * self.p.slice_async.as_nanos() as T / self.p.slice_sync.as_nanos() as T;
        } else {
            slice = slice.max(2 * self.p.slice_idle.as_nanos() as T);
        }
        slice = slice.max(MIN_TT);
        self.workload_expires = now + slice;
        self.noidle_tree_requires_idle = false;
    }

    /// `cfq_choose_cfqg` for the one group: resume the saved workload.
    fn choose_cfqg(&mut self, now: T) {
        if self.saved_workload_slice > 0 {
            self.workload_expires = now + self.saved_workload_slice;
            self.serving_type = self.saved_workload;
        } else {
            self.workload_expires = now - 1;
        }
        self.choose_service_tree(now);
    }

    // ----- active queue -------------------------------------------------

    /// `__cfq_set_active_queue`.
    fn set_active(&mut self, qi: Option<usize>) {
        if let Some(i) = qi {
            let q = &mut self.queues[i];
            q.slice_start = 0;
            q.slice_end = 0;
            q.slice_dispatch = 0;
            q.wait_request = false;
            q.fifo_checked = false;
            q.slice_new = true;
            self.idle_timer = None;
        }
        self.active = qi;
    }

    /// `__cfq_slice_expired` (with `cfq_group_served` for one group).
    fn slice_expired(&mut self, timed_out: bool, now: T) {
        let Some(qi) = self.active else { return };
        let q = &mut self.queues[qi];
        if q.wait_request {
            self.idle_timer = None;
        }
        q.wait_request = false;
        q.wait_busy = false;
        if timed_out && !q.slice_new {
            q.slice_resid = q.slice_end - now;
        }
        if self.workload_expires > now {
            self.saved_workload_slice = self.workload_expires - now;
            self.saved_workload = self.serving_type;
        } else {
            self.saved_workload_slice = 0;
        }
        if self.queues[qi].on_rr && self.queues[qi].sorted.is_empty() {
            self.del_rr(qi);
        }
        if self.queues[qi].on_rr {
            self.service_tree_add(qi, false, now);
        }
        self.active = None;
        self.active_cic = None;
    }

    /// `cfq_should_idle`.
    fn should_idle(&self, qi: usize) -> bool {
        let q = &self.queues[qi];
        if q.idle_window && !(self.p.nonrot && self.hw_tag) {
            return true;
        }
        self.tree_count(qi) == 1 && q.sync
    }

    /// `cfq_select_queue`: keep the active queue or pick the next one.
    /// `None` while keeping an active queue that waits (idle timer or
    /// requests in flight).
    fn select_queue(&mut self, now: T) -> Option<usize> {
        if let Some(qi) = self.active {
            if self.rq_queued == 0 {
                return None;
            }
            let q = &self.queues[qi];
            let expire = if q.wait_busy && !q.sorted.is_empty() {
                true
            } else if q.slice_used(now) {
                // Let the lone queue's in-flight request finish.
                !(self.nr_cfqq() == 1
                    && q.sorted.is_empty()
                    && q.dispatched > 0
                    && self.should_idle(qi))
            } else if !q.sorted.is_empty() {
                return Some(qi);
            } else {
                !(self.idle_timer.is_some() || (q.dispatched > 0 && self.should_idle(qi)))
            };
            if !expire {
                return None;
            }
            self.slice_expired(false, now);
        }
        if self.rq_queued == 0 || self.busy_queues == 0 {
            return None;
        }
        self.choose_cfqg(now);
        let next = self.trees[self.serving_type]
            .iter()
            .next()
            .map(|(_, &qi)| qi);
        self.set_active(next);
        next
    }

    /// `cfq_slice_used_soon`.
    fn slice_used_soon(&self, qi: usize, now: T) -> bool {
        let q = &self.queues[qi];
        q.slice_new || now + self.p.slice_idle.as_nanos() as T * q.dispatched as T > q.slice_end
    }

    /// `cfq_may_dispatch`.
    fn may_dispatch(&self, qi: usize, now: T) -> bool {
        let q = &self.queues[qi];
        if self.should_idle(qi) && self.rq_in_flight[0] > 0 {
            return false;
        }
        if self.rq_in_flight[1] > 0 && !q.sync {
            return false;
        }
        let mut max_dispatch = (self.p.quantum as usize / 2).max(1);
        if q.dispatched >= max_dispatch {
            if self.busy_queues > 1 && self.slice_used_soon(qi, now) {
                return false;
            }
            max_dispatch = if self.busy_queues == 1 {
                usize::MAX
            } else {
                self.p.quantum as usize
            };
        }
        if !q.sync && self.p.low_latency {
            let last_sync = now - self.last_delayed_sync;
            let mut depth = (last_sync / self.p.slice_sync.as_nanos() as T).max(0) as usize;
            if depth == 0 && q.dispatched == 0 {
                depth = 1;
            }
            max_dispatch = max_dispatch.min(depth);
        }
        q.dispatched < max_dispatch
    }

    /// `cfq_choose_req` over a queue's pending requests, from `last`.
    fn next_request(&self, qi: usize, last: u64) -> (u64, u64) {
        let sorted = &self.queues[qi].sorted;
        let back_max = self.p.back_seek_max_kib * 2;
        let ahead = sorted.range((last, 0)..).next().map(|(k, _)| *k);
        let behind = sorted
            .range(..(last, 0))
            .next_back()
            .map(|(k, _)| *k)
            .filter(|k| k.0 + back_max >= last);
        match (ahead, behind) {
            (Some(a), Some(b)) => {
                let (da, db) = (a.0 - last, (last - b.0) * self.p.back_seek_penalty);
                // Ties go to the higher sector.
                if db < da {
                    b
                } else {
                    a
                }
            }
            (Some(a), None) => a,
            (None, Some(b)) => b,
            // Everything is far behind: start from the lowest.
            (None, None) => *sorted.keys().next().expect("queue is not empty"),
        }
    }

    /// `cfq_check_fifo`: once per slice, the oldest request if expired.
    fn check_fifo(&mut self, qi: usize, now: T) -> Option<(u64, u64)> {
        let q = &mut self.queues[qi];
        if q.fifo_checked {
            return None;
        }
        q.fifo_checked = true;
        let (&(deadline, id), &sector) = q.fifo.iter().next()?;
        (now >= deadline).then_some((sector, id))
    }

    /// `cfq_dispatch_request` + `cfq_dispatch_insert`.
    fn dispatch_from(&mut self, qi: usize, now: T, head: u64) -> Option<Request> {
        if !self.may_dispatch(qi, now) {
            return None;
        }
        let key = match self.check_fifo(qi, now) {
            Some(k) => k,
            None => self.next_request(qi, head),
        };
        let q = &mut self.queues[qi];
        let (rq, deadline) = q.sorted.remove(&key).expect("chosen request is pending");
        q.fifo.remove(&(deadline, rq.id.0));
        q.dispatched += 1;
        self.rq_queued -= 1;
        self.rq_in_flight[usize::from(q.sync)] += 1;
        self.in_flight.insert(rq.id.0, qi);
        self.last_position = rq.end();
        if self.active_cic.is_none() {
            self.active_cic = Some(rq.flow);
        }
        Some(rq)
    }

    // ----- idling -------------------------------------------------------

    /// `cfq_arm_slice_timer`.
    fn arm_slice_timer(&mut self, now: T) {
        let Some(qi) = self.active else { return };
        if self.p.nonrot && self.hw_tag {
            return;
        }
        if self.p.slice_idle.as_nanos() == 0 || !self.should_idle(qi) {
            return;
        }
        let q = &self.queues[qi];
        if q.dispatched > 0 {
            return;
        }
        let Some(f) = self.active_cic.and_then(|f| self.flows.get(&f)) else {
            return;
        };
        if !f.alive {
            return;
        }
        if f.ttime_valid() && q.slice_end - now < f.ttime_mean as T {
            return;
        }
        self.queues[qi].wait_request = true;
        self.idle_timer = Some(now + self.p.slice_idle.as_nanos() as T);
    }

    /// `cfq_idle_slice_timer`, if it is due.
    fn fire_due_timer(&mut self, now: T) {
        match self.idle_timer {
            Some(t) if t <= now => {}
            _ => return,
        }
        self.idle_timer = None;
        let Some(qi) = self.active else { return };
        self.queues[qi].wait_request = false;
        let q = &self.queues[qi];
        if q.slice_used(now) {
            self.slice_expired(false, now);
        } else if self.busy_queues == 0 || !q.sorted.is_empty() {
            // Nothing else to run, or it has a request: let it dispatch.
        } else {
            self.queues[qi].deep = false;
            self.slice_expired(false, now);
        }
    }

    /// `cfq_should_wait_busy` (one group: only when this is the only busy queue).
    fn should_wait_busy(&self, qi: usize, now: T) -> bool {
        if self.nr_cfqq() > 1 {
            return false;
        }
        let q = &self.queues[qi];
        if q.slice_used(now) {
            return true;
        }
        let left = q.slice_end - now;
        if let Some(f) = self.active_cic.and_then(|f| self.flows.get(&f)) {
            if f.ttime_valid() && left < f.ttime_mean as T {
                return true;
            }
        }
        left > 0 && left <= JIFFY
    }

    /// `cfq_should_preempt`: may `qi`, which just got `rq`, preempt the
    /// active queue?
    fn should_preempt(&self, qi: usize, rq: &Request, now: T) -> bool {
        let Some(ai) = self.active else { return false };
        let a = &self.queues[ai];
        if rq.sync && !a.sync {
            return true;
        }
        if a.slice_used(now) {
            return true;
        }
        if self.serving_type == SYNC_NOIDLE
            && self.queues[qi].workload() == SYNC_NOIDLE
            && self.tree_count(qi) == 2
            && a.sorted.is_empty()
        {
            return true;
        }
        if self.active_cic.is_none() || !a.wait_request {
            return false;
        }
        rq.sector.abs_diff(self.last_position) <= CLOSE_THR
    }

    /// `cfq_preempt_queue`.
    fn preempt(&mut self, qi: usize, now: T) {
        self.slice_expired(true, now);
        self.service_tree_add(qi, true, now);
        let q = &mut self.queues[qi];
        q.slice_end = 0;
        q.slice_new = true;
    }

    /// The queue a request goes to, created on demand (`cfq_get_queue`).
    fn queue_for(&mut self, now: T, rq: &Request) -> usize {
        let f = self.flow_mut(now, rq.flow);
        let prio = f.prio;
        let existing = if rq.sync {
            f.sync_q
        } else {
            self.async_q[usize::from(prio)]
        };
        if let Some(qi) = existing {
            return qi;
        }
        let qi = self.queues.len();
        self.queues.push(Queue::new(rq.sync, prio));
        if rq.sync {
            self.flow_mut(now, rq.flow).sync_q = Some(qi);
        } else {
            self.async_q[usize::from(prio)] = Some(qi);
        }
        qi
    }

    /// `cfq_update_io_thinktime`.
    fn update_thinktime(&mut self, now: T, flow: FlowId) {
        let cap = 2 * self.p.slice_idle.as_nanos();
        let f = self.flow_mut(now, flow);
        let ttime = ((now - f.last_end_request).max(0) as u64).min(cap);
        f.ttime_samples = (7 * f.ttime_samples + 256) / 8;
        f.ttime_total = (7 * f.ttime_total + 256 * ttime) / 8;
        f.ttime_mean = (f.ttime_total + 128) / f.ttime_samples;
    }

    /// `cfq_update_io_seektime`.
    fn update_seektime(&mut self, qi: usize, rq: &Request) {
        let nonrot = self.p.nonrot;
        let q = &mut self.queues[qi];
        let sdist = if q.last_request_pos != 0 {
            q.last_request_pos.abs_diff(rq.sector)
        } else {
            0
        };
        let seeky = if nonrot {
            rq.sectors < SECT_THR_NONROT
        } else {
            sdist > SEEK_THR
        };
        q.seek_history = (q.seek_history << 1) | u32::from(seeky);
    }

    /// `cfq_update_idle_window`.
    fn update_idle_window(&mut self, qi: usize, flow: FlowId) {
        if !self.queues[qi].sync {
            return;
        }
        let slice_idle = self.p.slice_idle.as_nanos();
        let (alive, valid, mean) = self.flows.get(&flow).map_or((false, false, 0), |f| {
            (f.alive, f.ttime_valid(), f.ttime_mean)
        });
        let q = &mut self.queues[qi];
        if q.sorted.len() >= DEEP_QUEUED {
            q.deep = true;
        }
        if !alive || slice_idle == 0 || (!q.deep && q.seeky()) {
            q.idle_window = false;
        } else if valid {
            q.idle_window = mean <= slice_idle;
        }
    }

    #[cfg(test)]
    fn active_slice(&self) -> Option<(T, T)> {
        let q = &self.queues[self.active?];
        (!q.slice_new).then_some((q.slice_start, q.slice_end))
    }
}

impl Scheduler for Cfq {
    fn name(&self) -> &str {
        "cfq"
    }

    fn add_flow(&mut self, now: Instant, flow: FlowId, _config: &FlowConfig) {
        let f = self.flow_mut(now.as_nanos() as T, flow);
        f.alive = true;
    }

    fn remove_flow(&mut self, now: Instant, flow: FlowId) {
        let now = now.as_nanos() as T;
        let Some(f) = self.flows.get_mut(&flow) else {
            return;
        };
        f.alive = false;
        if let Some(qi) = f.sync_q {
            if self.active == Some(qi) {
                self.slice_expired(false, now);
            }
        }
    }

    /// `cfq_insert_request` + `cfq_add_rq_rb` + `cfq_rq_enqueued`.
    fn add(&mut self, now: Instant, rq: Request) {
        let now = now.as_nanos() as T;
        let qi = self.queue_for(now, &rq);
        let expire = if rq.sync {
            self.p.fifo_expire_sync.as_nanos()
        } else {
            self.p.fifo_expire_async.as_nanos()
        } as T;
        let deadline = now + expire;
        let q = &mut self.queues[qi];
        q.sorted.insert((rq.sector, rq.id.0), (rq, deadline));
        q.fifo.insert((deadline, rq.id.0), rq.sector);
        self.rq_queued += 1;
        if !self.queues[qi].on_rr {
            self.add_rr(qi, now);
        }

        self.update_thinktime(now, rq.flow);
        self.update_seektime(qi, &rq);
        self.update_idle_window(qi, rq.flow);
        self.queues[qi].last_request_pos = rq.end();

        if self.active == Some(qi) {
            if self.queues[qi].wait_request {
                // The awaited request came: stop idling and serve it (the
                // kernel may first wait for the unplug of a request smaller
                // than a page when no other queue is busy; there is no
                // plugging here).
                self.idle_timer = None;
                self.queues[qi].wait_request = false;
            }
        } else if self.should_preempt(qi, &rq, now) {
            self.preempt(qi, now);
        }
    }

    /// `cfq_dispatch_requests`.
    fn dispatch(&mut self, now: Instant, device: &dyn DeviceView) -> Decision {
        let now = now.as_nanos() as T;
        self.hw_tag = device.queue_depth() > 1;
        if self.busy_queues == 0 {
            return Decision::Nothing;
        }
        let Some(qi) = self.select_queue(now) else {
            return match self.idle_timer {
                Some(t) if t > now => Decision::Idle,
                _ => Decision::Nothing,
            };
        };
        let Some(rq) = self.dispatch_from(qi, now, device.head()) else {
            return Decision::Nothing;
        };
        let q = &mut self.queues[qi];
        q.slice_dispatch += 1;
        let (sync, prio, n) = (q.sync, q.prio, q.slice_dispatch);
        // An async queue ends its slot after its request allowance.
        if self.busy_queues > 1 && !sync && n >= self.prio_to_maxrq(prio) {
            self.queues[qi].slice_end = now + JIFFY;
            self.slice_expired(false, now);
        }
        Decision::Dispatch(rq)
    }

    /// `cfq_completed_request`.
    fn complete(&mut self, now: Instant, rq: &Request, _service: &Service) {
        let now = now.as_nanos() as T;
        let Some(qi) = self.in_flight.remove(&rq.id.0) else {
            return;
        };
        let q = &mut self.queues[qi];
        q.dispatched -= 1;
        self.rq_in_flight[usize::from(q.sync)] -= 1;
        if rq.sync {
            if let Some(f) = self.flows.get_mut(&rq.flow) {
                f.last_end_request = now;
            }
            if rq.arrival.as_nanos() as T + self.p.fifo_expire_sync.as_nanos() as T <= now {
                self.last_delayed_sync = now;
            }
        }
        if self.active != Some(qi) {
            return;
        }
        if self.queues[qi].slice_new {
            self.set_prio_slice(qi, now);
            self.queues[qi].slice_new = false;
        }
        if self.should_wait_busy(qi, now) {
            self.queues[qi].slice_end = now + self.p.slice_idle.as_nanos() as T;
            self.queues[qi].wait_busy = true;
        }
        let q = &self.queues[qi];
        if q.slice_used(now) {
            self.slice_expired(true, now);
        } else if rq.sync && q.sorted.is_empty() {
            // REQ_NOIDLE marks sync writes in 2.6.34.
            let noidle = rq.is_write();
            self.noidle_tree_requires_idle |= !noidle;
            if self.serving_type == SYNC || self.noidle_tree_requires_idle || self.nr_cfqq() == 1 {
                self.arm_slice_timer(now);
            }
        }
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.idle_timer
            .map(|t| Instant::from_nanos(t.max(0) as u64))
    }

    fn handle_timeout(&mut self, now: Instant) {
        self.fire_due_timer(now.as_nanos() as T);
    }

    fn queued(&self) -> usize {
        self.rq_queued
    }

    fn may_idle(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testkit::FlatDevice;
    use crate::types::{Direction, RequestId};

    const MSN: Nanos = NS_PER_MS;

    /// How a simulated flow issues requests.
    #[derive(Clone, Copy)]
    enum Pattern {
        /// Sequential 8-sector requests from `next`.
        Seq { next: u64 },
        /// Random 8-sector requests (a fixed LCG) over a 2^30-sector span.
        Rand { state: u64 },
    }

    struct SimFlow {
        pattern: Pattern,
        sync: bool,
        /// Requests kept outstanding (queued or in flight).
        outstanding: usize,
        /// Pause between a completion and the next issue.
        think: Nanos,
        live: usize,
    }

    /// A small event-driven driver: a depth-`depth` device that serves each
    /// request in `service`, closed-loop flows, and the idle timer.
    struct Sim {
        s: Cfq,
        dev: FlatDevice,
        now: Instant,
        next_id: u64,
        service: Nanos,
        flows: Vec<SimFlow>,
        in_flight: Vec<(Request, Nanos, Nanos)>,
        issues: Vec<(Nanos, usize)>,
        idle_until: Option<Nanos>,
        /// (time, flow, sync, sector) of every dispatch.
        log: Vec<(Nanos, u32, bool, u64)>,
        idles: Vec<(Nanos, Nanos)>,
    }

    impl Sim {
        fn new(s: Cfq, depth: usize) -> Self {
            let mut dev = FlatDevice::at(0);
            dev.depth = depth;
            Sim {
                s,
                dev,
                now: 0,
                next_id: 0,
                service: MSN,
                flows: Vec::new(),
                in_flight: Vec::new(),
                issues: Vec::new(),
                idle_until: None,
                log: Vec::new(),
                idles: Vec::new(),
            }
        }

        fn flow(&mut self, pattern: Pattern, sync: bool, outstanding: usize, think: Nanos) {
            self.flows.push(SimFlow {
                pattern,
                sync,
                outstanding,
                think,
                live: 0,
            });
            let f = self.flows.len() - 1;
            for _ in 0..outstanding {
                self.issues.push((self.now, f));
            }
        }

        /// Add one request from flow `f` at `sector` now.
        fn add_at(&mut self, f: u32, sector: u64, sync: bool) {
            let r = Request {
                id: RequestId(self.next_id),
                origin: RequestId(self.next_id),
                flow: FlowId(f),
                dir: if sync {
                    Direction::Read
                } else {
                    Direction::Write
                },
                sync,
                sector,
                sectors: 8,
                arrival: self.now,
            };
            self.next_id += 1;
            self.s.add(self.now, r);
        }

        fn issue(&mut self, f: usize) {
            let fl = &mut self.flows[f];
            let sector = match &mut fl.pattern {
                Pattern::Seq { next } => {
                    *next += 8;
                    *next - 8
                }
                Pattern::Rand { state } => {
                    *state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (*state >> 34) << 3
                }
            };
            fl.live += 1;
            let sync = fl.sync;
            self.add_at(f as u32, sector, sync);
        }

        fn pump(&mut self) {
            self.idle_until = None;
            while self.in_flight.len() < self.dev.depth {
                self.dev.in_flight = self.in_flight.len();
                match self.s.dispatch(self.now, &self.dev) {
                    Decision::Dispatch(r) => {
                        self.dev.head = r.end();
                        let done = self
                            .in_flight
                            .last()
                            .map_or(self.now, |x| x.2.max(self.now))
                            + self.service;
                        self.in_flight.push((r, self.now, done));
                        self.log.push((self.now, r.flow.0, r.sync, r.sector));
                    }
                    Decision::IdleUntil(t) => {
                        assert!(t > self.now);
                        self.idles.push((self.now, t));
                        self.idle_until = Some(t);
                        break;
                    }
                    Decision::Nothing => {
                        assert!(self.s.queued() == 0 || !self.in_flight.is_empty());
                        break;
                    }
                }
            }
            self.dev.in_flight = self.in_flight.len();
        }

        /// Run events up to `end`.
        fn run(&mut self, end: Nanos) {
            loop {
                self.issues.sort();
                let next_issue = self.issues.first().map(|x| x.0);
                let next_done = self.in_flight.iter().map(|x| x.2).min();
                let next_timer = self.s.next_timer();
                let t = [next_issue, next_done, next_timer, self.idle_until]
                    .into_iter()
                    .flatten()
                    .min();
                let Some(t) = t.filter(|&t| t <= end) else {
                    break;
                };
                self.now = self.now.max(t);
                if let Some(i) = self.in_flight.iter().position(|x| x.2 <= self.now) {
                    let (r, d, c) = self.in_flight.remove(i);
                    let svc = Service {
                        dispatched: d,
                        completed: c,
                        disk_time: c - d,
                    };
                    self.s.complete(self.now, &r, &svc);
                    let f = r.flow.0 as usize;
                    if f < self.flows.len() {
                        self.flows[f].live -= 1;
                        let think = self.flows[f].think;
                        self.issues.push((self.now + think, f));
                    }
                } else if next_issue.is_some_and(|i| i <= self.now) {
                    let (_, f) = self.issues.remove(0);
                    if self.flows[f].live < self.flows[f].outstanding {
                        self.issue(f);
                    }
                } else if self.s.next_timer().is_some_and(|x| x <= self.now) {
                    self.s.on_timer(self.now);
                }
                self.pump();
            }
            self.now = end;
        }

        /// Maximal runs of consecutive dispatches of one flow: (flow, count,
        /// first time, last time).
        fn runs(&self) -> Vec<(u32, usize, Nanos, Nanos)> {
            let mut out: Vec<(u32, usize, Nanos, Nanos)> = Vec::new();
            for &(t, f, ..) in &self.log {
                match out.last_mut() {
                    Some(r) if r.0 == f => {
                        r.1 += 1;
                        r.3 = t;
                    }
                    _ => out.push((f, 1, t, t)),
                }
            }
            out
        }

        fn count(&self, f: u32) -> usize {
            self.log.iter().filter(|x| x.1 == f).count()
        }
    }

    fn seq(start: u64) -> Pattern {
        Pattern::Seq { next: start }
    }

    fn cfq_with(f: impl FnOnce(&mut CfqParams)) -> Cfq {
        let mut p = CfqParams::default();
        f(&mut p);
        Cfq::with_params(p)
    }

    #[test]
    fn defaults_are_those_of_linux_2_6_34() {
        let p = CfqParams::default();
        assert_eq!(p.quantum, 8);
        assert_eq!(p.slice_sync, 100 * MSN);
        assert_eq!(p.slice_async, 40 * MSN);
        assert_eq!(p.slice_idle, 8 * MSN);
        assert_eq!(p.fifo_expire_sync, 125 * MSN);
        assert_eq!(p.fifo_expire_async, 250 * MSN);
        assert_eq!((p.back_seek_max_kib, p.back_seek_penalty), (16384, 2));
        assert_eq!((p.slice_async_rq, p.target_latency), (2, 300 * MSN));
        assert!(p.low_latency && !p.nonrot);
    }

    #[test]
    fn slice_lengths_scale_with_priority() {
        let s = Cfq::new();
        assert_eq!(s.prio_slice(true, 4), 100 * MS);
        assert_eq!(s.prio_slice(false, 4), 40 * MS);
        assert_eq!(s.prio_slice(true, 0), 180 * MS);
        assert_eq!(s.prio_slice(true, 7), 40 * MS);
        assert_eq!(s.prio_slice(false, 0), 72 * MS);
        assert_eq!(s.prio_to_maxrq(4), 16);
    }

    /// Two backlogged sequential readers: 100 ms slices (from the first
    /// completion), served in turn.
    #[test]
    fn sync_queues_get_100ms_slices_in_round_robin() {
        let mut sim = Sim::new(Cfq::new(), 1);
        sim.flow(seq(0), true, 2, 0);
        sim.flow(seq(1 << 30), true, 2, 0);
        sim.run(1000 * MSN);
        let runs = sim.runs();
        assert!(runs.len() >= 8, "{runs:?}");
        for w in runs.windows(2) {
            assert_ne!(w[0].0, w[1].0);
        }
        // Each slot: first dispatch at t, slice from t + 1 ms to t + 101 ms,
        // so 101 dispatches of 1 ms.
        for r in &runs[..runs.len() - 1] {
            assert_eq!(r.1, 101, "{runs:?}");
        }
    }

    #[test]
    fn the_first_completion_starts_a_100ms_sync_or_40ms_async_slice() {
        for (sync, len) in [(true, 100 * MS), (false, 40 * MS)] {
            let mut sim = Sim::new(Cfq::new(), 1);
            sim.flow(seq(0), sync, 4, 0);
            sim.run(3 * MSN);
            let (start, end) = sim.s.active_slice().expect("slice started");
            assert_eq!(start, MS);
            assert_eq!(end - start, len);
        }
    }

    /// A sequential reader that thinks 3 ms between requests keeps the disk
    /// although another reader is backlogged: CFQ idles 8 ms after each of
    /// its completions and the next request arrives within the window.
    #[test]
    fn idles_8ms_for_an_emptied_sync_queue_and_keeps_serving_it() {
        let mut sim = Sim::new(Cfq::new(), 1);
        sim.flow(seq(0), true, 1, 3 * MSN);
        sim.run(0);
        sim.flow(seq(1 << 30), true, 4, 0);
        sim.run(50 * MSN);
        assert_eq!(sim.idles[0], (MSN, 9 * MSN));
        assert!(sim.idles.iter().all(|&(a, b)| b - a == 8 * MSN));
        // Only the thinking reader is served within its slice.
        assert!(sim.log.iter().all(|x| x.1 == 0), "{:?}", sim.log);
        assert!(sim.count(0) >= 12);
    }

    /// When the emptied queue does not issue within 8 ms, the idle timer
    /// expires the slot and the other queue runs.
    #[test]
    fn idle_timeout_hands_the_disk_to_the_next_queue() {
        let mut sim = Sim::new(Cfq::new(), 1);
        sim.flow(seq(0), true, 1, 20 * MSN);
        sim.run(0);
        sim.flow(seq(1 << 30), true, 4, 0);
        sim.run(12 * MSN);
        assert_eq!(sim.idles[0], (MSN, 9 * MSN));
        assert_eq!(sim.log[1].0, 9 * MSN);
        assert_eq!(sim.log[1].1, 1);
    }

    /// Four random readers with a 2 ms think time: once their seek history
    /// marks them seeky they lose their idle window and, with other queues
    /// on their (SYNC_NOIDLE) tree, the disk goes to the next queue at once.
    /// (In 2.6.34 the last queue of that tree is still idled for.)
    #[test]
    fn seeky_queues_are_not_idled_for() {
        let mut sim = Sim::new(Cfq::new(), 1);
        for seed in [1, 99, 12345, 777] {
            sim.flow(Pattern::Rand { state: seed }, true, 1, 2 * MSN);
        }
        sim.run(1000 * MSN);
        let late_idles = sim.idles.iter().filter(|x| x.0 > 500 * MSN).count();
        assert_eq!(late_idles, 0, "{:?}", &sim.idles);
        assert!(sim.s.queues.iter().all(|q| q.seeky() && !q.idle_window));
        let late: Vec<_> = sim.log.iter().filter(|x| x.0 > 500 * MSN).collect();
        assert!(late.windows(2).all(|w| w[0].1 != w[1].1));
        // The same flows reading sequentially are idled for.
        let mut sim = Sim::new(Cfq::new(), 1);
        for f in 0..4u64 {
            sim.flow(seq(f << 30), true, 1, 2 * MSN);
        }
        sim.run(1000 * MSN);
        assert!(sim.idles.iter().filter(|x| x.0 > 500 * MSN).count() > 10);
    }

    /// On a deep device, a queue may have quantum/2 = 4 requests in flight
    /// while another queue is busy; a lone queue has no limit.
    #[test]
    fn quantum_limits_the_requests_one_queue_has_in_flight() {
        let dev = {
            let mut d = FlatDevice::at(0);
            d.depth = 32;
            d
        };
        for (flows, want) in [(2u32, 4usize), (1, 20)] {
            let mut s = Cfq::new();
            let mut id = 0;
            for f in 0..flows {
                for i in 0..20u64 {
                    let mut r = crate::policy::testkit::req(id, f, (u64::from(f) << 30) | (i * 8));
                    r.arrival = 0;
                    s.add(0, r);
                    id += 1;
                }
            }
            let mut got = Vec::new();
            let mut d = dev.clone();
            while let Decision::Dispatch(r) = s.dispatch(0, &d) {
                got.push(r.flow);
                d.in_flight += 1;
                d.head = r.end();
            }
            assert_eq!(got.len(), want, "{flows} flows");
            assert!(got.iter().all(|&f| f == got[0]));
        }
    }

    /// A request older than fifo_expire is served first at the start of its
    /// queue's next slot, ahead of the sector order.
    #[test]
    fn fifo_expiry_overrides_the_sorted_order() {
        for (expire_ms, want_far_first) in [(50, true), (125, false)] {
            let mut sim = Sim::new(cfq_with(|p| p.fifo_expire_sync = expire_ms * MSN), 1);
            sim.flow(seq(0), true, 2, 0);
            sim.run(0);
            // Flow 1: a far request now, a near one (just above the other
            // flow's position) later; both wait for flow 0's slice.
            sim.add_at(1, 900_000_000, true);
            sim.run(60 * MSN);
            sim.add_at(1, 100_000, true);
            sim.run(200 * MSN);
            assert_eq!(sim.runs()[1].0, 1);
            let order: Vec<u64> = sim.log.iter().filter(|x| x.1 == 1).map(|x| x.3).collect();
            assert_eq!(order[0] == 900_000_000, want_far_first, "{order:?}");
        }
    }

    /// With ten backlogged readers, low_latency shrinks a sync slice so
    /// that ten fit in the 300 ms target latency (the busy-queue average
    /// rises to 8 at the first slice: 100 * 300 / 800 = 37.5 ms).
    #[test]
    fn low_latency_scales_slices_down_with_many_busy_queues() {
        for (low_latency, want) in [(true, 37_500_000), (false, 100 * MS)] {
            let mut sim = Sim::new(cfq_with(|p| p.low_latency = low_latency), 1);
            for f in 0..10u64 {
                sim.flow(seq(f << 30), true, 2, 0);
            }
            sim.run(2 * MSN);
            let (start, end) = sim.s.active_slice().unwrap();
            assert_eq!(end - start, want);
        }
        // Over a second, every reader is served within the target latency.
        let mut sim = Sim::new(Cfq::new(), 1);
        for f in 0..10u64 {
            sim.flow(seq(f << 30), true, 2, 0);
        }
        sim.run(1000 * MSN);
        let runs = sim.runs();
        assert!(runs.iter().skip(1).take(10).all(|r| r.1 <= 40), "{runs:?}");
        assert!((0..10).all(|f| sim.count(f) > 0));
    }

    /// A backlogged reader and a backlogged async writer: the reader gets
    /// most of the disk, the writer is not starved.
    #[test]
    fn sync_is_preferred_over_async() {
        let mut sim = Sim::new(Cfq::new(), 1);
        sim.flow(seq(1 << 30), false, 64, 0);
        sim.flow(seq(0), true, 1, 0);
        sim.run(2000 * MSN);
        let (w, r) = (sim.count(0), sim.count(1));
        // Sync slots are 100 ms, the async workload ~60 ms (40/100 of its
        // 150 ms share of the target latency).
        assert!(r * 10 > w * 13, "reads {r}, writes {w}");
        let runs = sim.runs();
        assert!(
            runs.iter().skip(2).filter(|x| x.0 == 0).all(|x| x.1 <= 70),
            "{runs:?}"
        );
        assert!(w > 0);
    }

    /// A sync request preempts an active async queue, and async requests
    /// are held back while sync ones are in flight.
    #[test]
    fn sync_request_preempts_async_and_async_waits_for_sync_in_flight() {
        let mut s = Cfq::new();
        let mut d = FlatDevice::at(0);
        d.depth = 4;
        for i in 0..8u64 {
            let mut r = crate::policy::testkit::req(i, 0, (1 << 30) | (i * 8));
            r.sync = false;
            r.dir = Direction::Write;
            s.add(0, r);
        }
        let Decision::Dispatch(w) = s.dispatch(0, &d) else {
            panic!()
        };
        assert!(!w.sync);
        d.in_flight = 1;
        s.add(MSN, crate::policy::testkit::req(100, 1, 0));
        assert!(s.active.is_none(), "the async slot was preempted");
        // No sync in flight yet; whatever goes next, once a sync request is
        // in flight no async one follows it.
        let mut seen_sync = false;
        while let Decision::Dispatch(r) = s.dispatch(MSN, &d) {
            d.in_flight += 1;
            if r.sync {
                seen_sync = true;
            } else {
                assert!(!seen_sync, "async dispatched with sync in flight");
            }
            if d.in_flight == d.depth {
                break;
            }
        }
    }

    #[test]
    fn builds_by_name_with_parameters() {
        let mut params = crate::policy::Params::default();
        params.insert("slice_idle_ms", crate::policy::ParamValue::Int(0));
        params.insert("low_latency", crate::policy::ParamValue::Bool(false));
        let s = crate::policy::build("cfq", &params).unwrap();
        assert_eq!(s.name(), "cfq");
        params.insert("quantum", crate::policy::ParamValue::Int(0));
        assert!(crate::policy::build("cfq", &params).is_err());
    }
}
