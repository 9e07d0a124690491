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
//!   Where the kernel gives a jiffies value a special meaning (`slice_end`
//!   = 0 before a slice starts, `workload_expires = jiffies - 1`,
//!   `last_delayed_sync` a second before boot) an `Option` says so; only
//!   service-tree keys and slice residuals stay signed, as in the kernel.
//! * There is no slice-end timer, as in the kernel: slice expiry is checked
//!   whenever the policy is called. The one time channel is the idle timer:
//!   `poll_timeout` returns it and `handle_timeout` fires it
//!   (`cfq_idle_slice_timer`).

use std::collections::{BTreeMap, HashMap};

use super::params::ParamReader;
use crate::error::Error;
use crate::scheduler::{Decision, DeviceView, FlowConfig, Scheduler, Service};
use crate::time::{Duration, Instant, NS_PER_S};
use crate::types::{FlowId, Request};

/// A service-tree key (`rb_key`) or a slice residual: signed nanoseconds
/// from the origin. Not an [`Instant`]: the slice offset, the residual and
/// the front-of-tree rule (one second before the first key) put keys before
/// the origin, and the kernel compares them signed (`time_before`).
type Key = i64;

/// An instant as a signed key.
fn key(t: Instant) -> Key {
    t.as_nanos() as Key
}

/// A span as a signed key difference.
fn span(d: Duration) -> Key {
    d.as_nanos() as Key
}

/// `IOPRIO_NORM`: the default best-effort priority.
const NORM_PRIO: u8 = 4;
/// `IOPRIO_BE_NR`.
const PRIO_LEVELS: usize = 8;
/// `CFQ_SLICE_SCALE`.
const SLICE_SCALE: u64 = 5;
/// `CFQ_MIN_TT`: 2 jiffies.
const MIN_TT: Duration = Duration::from_millis(2);
/// One jiffy at HZ = 1000.
const JIFFY: Duration = Duration::from_millis(1);
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
    last_end_request: Instant,
    ttime_samples: u64,
    ttime_total: u64,
    ttime_mean: u64,
}

impl FlowState {
    fn new(now: Instant) -> Self {
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
    sorted: BTreeMap<(u64, u64), (Request, Instant)>,
    /// Pending requests by (FIFO deadline, id) -> sector.
    fifo: BTreeMap<(Instant, u64), u64>,
    /// Requests in flight.
    dispatched: usize,
    /// On a service tree (busy): `on_rr`.
    on_rr: bool,
    /// The tree it is on and its key there.
    tree: Option<(usize, (Key, u64))>,
    /// When the slice started: at the slot's first completion.
    slice_start: Option<Instant>,
    /// When the slice ends; `None` until it starts (the kernel's
    /// `slice_new` flag, with `slice_end` = 0).
    slice_end: Option<Instant>,
    slice_dispatch: u32,
    /// Slice time left at a preemption; negative if the slice had overrun.
    slice_resid: Key,
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
            slice_start: None,
            slice_end: None,
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
    fn slice_used(&self, now: Instant) -> bool {
        self.slice_end.is_some_and(|end| now >= end)
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
    trees: [BTreeMap<(Key, u64), usize>; 3],
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
    /// When the served workload's share ends; `None`: it has (the kernel
    /// sets `jiffies - 1`).
    workload_expires: Option<Instant>,
    /// Workload share left when the last slot ended (zero: none).
    saved_workload_slice: Duration,
    saved_workload: usize,
    noidle_tree_requires_idle: bool,
    /// `idle_slice_timer`: CFQ's one wake-up.
    idle_timer: Option<Instant>,
    /// When a sync request last completed after its FIFO deadline; `None`:
    /// never, taken as one second before the origin ("assume sync ops
    /// weren't delayed in the last second").
    last_delayed_sync: Option<Instant>,
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
            workload_expires: None,
            saved_workload_slice: Duration::ZERO,
            saved_workload: ASYNC,
            noidle_tree_requires_idle: false,
            idle_timer: None,
            last_delayed_sync: None,
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
        let f = self.flow_mut(now, flow);
        f.prio = prio;
        if let Some(q) = f.sync_q {
            self.queues[q].prio = prio;
        }
    }

    fn flow_mut(&mut self, now: Instant, flow: FlowId) -> &mut FlowState {
        self.flows
            .entry(flow)
            .or_insert_with(|| FlowState::new(now))
    }

    fn nr_cfqq(&self) -> usize {
        self.trees.iter().map(BTreeMap::len).sum()
    }

    // ----- slices -------------------------------------------------------

    /// `cfq_prio_slice`.
    fn prio_slice(&self, sync: bool, prio: u8) -> Duration {
        let base = if sync {
            self.p.slice_sync
        } else {
            self.p.slice_async
        };
        let step = base / SLICE_SCALE;
        // prio <= 7: the slice stays above 2/5 of the base.
        base + step * u64::from(NORM_PRIO) - step * u64::from(prio)
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

    /// `cfq_set_prio_slice`: start the active queue's slice now; returns
    /// its end.
    fn set_prio_slice(&mut self, qi: usize, now: Instant) -> Instant {
        let (sync, prio) = (self.queues[qi].sync, self.queues[qi].prio);
        let mut slice = self.prio_slice(sync, prio);
        if self.p.low_latency {
            let iq = self.avg_queues();
            let sync_slice = self.p.slice_sync;
            let expect_latency = sync_slice * iq;
            // One group: its share of the target latency is all of it.
            let group_slice = self.p.target_latency;
            if expect_latency > group_slice {
                let base_low_slice = self.p.slice_idle * 2;
                let low_slice =
                    slice.min(base_low_slice * slice.as_nanos() / sync_slice.as_nanos());
                slice = (slice * group_slice.as_nanos() / expect_latency.as_nanos()).max(low_slice);
            }
        }
        let end = now + slice;
        let q = &mut self.queues[qi];
        q.slice_start = Some(now);
        q.slice_end = Some(end);
        end
    }

    /// `cfq_prio_to_maxrq`.
    fn prio_to_maxrq(&self, prio: u8) -> u32 {
        let base = self.p.slice_async_rq;
        2 * (base + base * (PRIO_LEVELS as u32 - 1 - u32::from(prio)))
    }

    // ----- service trees ------------------------------------------------

    /// `cfq_service_tree_add`.
    fn service_tree_add(&mut self, qi: usize, add_front: bool, now: Instant) {
        let wl = self.queues[qi].workload();
        let key = if !add_front {
            // cfq_slice_offset: counts the busy queues of the group, this one
            // included if it is already on a tree (so it is negative for
            // the first busy queue).
            let q = &self.queues[qi];
            let offset = (self.nr_cfqq() as Key - 1)
                * (span(self.prio_slice(true, 0)) - span(self.prio_slice(q.sync, q.prio)));
            let key = offset + key(now) - q.slice_resid;
            self.queues[qi].slice_resid = 0;
            key
        } else {
            let first = self.trees[wl].iter().next().map(|(k, _)| k.0);
            first.unwrap_or(key(now)) - NS_PER_S as Key
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
    fn add_rr(&mut self, qi: usize, now: Instant) {
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
        let mut lowest: Option<Key> = None;
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
    fn choose_service_tree(&mut self, now: Instant) {
        let busy = self.nr_cfqq();
        if busy == 0 {
            self.workload_expires = Some(now + JIFFY);
            return;
        }
        if !self.trees[self.serving_type].is_empty()
            && self.workload_expires.is_some_and(|end| now <= end)
        {
            return;
        }
        self.serving_type = self.choose_wl();
        let count = self.trees[self.serving_type].len() as u64;
        let group_slice = self.p.target_latency;
        let mut slice = group_slice * count / self.busy_queues_avg.max(busy as u64);
        if self.serving_type == ASYNC {
            let tmp = self.p.target_latency * self.trees[ASYNC].len() as u64
                / self.busy_queues.max(1) as u64;
            slice = slice.min(tmp);
            slice = slice * self.p.slice_async.as_nanos() / self.p.slice_sync.as_nanos();
        } else {
            slice = slice.max(self.p.slice_idle * 2);
        }
        slice = slice.max(MIN_TT);
        self.workload_expires = Some(now + slice);
        self.noidle_tree_requires_idle = false;
    }

    /// `cfq_choose_cfqg` for the one group: resume the saved workload.
    fn choose_cfqg(&mut self, now: Instant) {
        if !self.saved_workload_slice.is_zero() {
            self.workload_expires = Some(now + self.saved_workload_slice);
            self.serving_type = self.saved_workload;
        } else {
            self.workload_expires = None;
        }
        self.choose_service_tree(now);
    }

    // ----- active queue -------------------------------------------------

    /// `__cfq_set_active_queue`.
    fn set_active(&mut self, qi: Option<usize>) {
        if let Some(i) = qi {
            let q = &mut self.queues[i];
            q.slice_start = None;
            q.slice_end = None;
            q.slice_dispatch = 0;
            q.wait_request = false;
            q.fifo_checked = false;
            self.idle_timer = None;
        }
        self.active = qi;
    }

    /// `__cfq_slice_expired` (with `cfq_group_served` for one group).
    fn slice_expired(&mut self, timed_out: bool, now: Instant) {
        let Some(qi) = self.active else { return };
        let q = &mut self.queues[qi];
        if q.wait_request {
            self.idle_timer = None;
        }
        q.wait_request = false;
        q.wait_busy = false;
        if let Some(end) = q.slice_end.filter(|_| timed_out) {
            q.slice_resid = key(end) - key(now);
        }
        match self.workload_expires {
            Some(end) if end > now => {
                self.saved_workload_slice = end - now;
                self.saved_workload = self.serving_type;
            }
            _ => self.saved_workload_slice = Duration::ZERO,
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
    fn select_queue(&mut self, now: Instant) -> Option<usize> {
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
    fn slice_used_soon(&self, qi: usize, now: Instant) -> bool {
        let q = &self.queues[qi];
        q.slice_end
            .is_none_or(|end| now + self.p.slice_idle * q.dispatched as u64 > end)
    }

    /// `cfq_may_dispatch`.
    fn may_dispatch(&self, qi: usize, now: Instant) -> bool {
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
            let last_sync = match self.last_delayed_sync {
                Some(t) => now.saturating_duration_since(t),
                None => now.since_origin() + Duration::from_secs(1),
            };
            let mut depth = (last_sync / self.p.slice_sync) as usize;
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
    fn check_fifo(&mut self, qi: usize, now: Instant) -> Option<(u64, u64)> {
        let q = &mut self.queues[qi];
        if q.fifo_checked {
            return None;
        }
        q.fifo_checked = true;
        let (&(deadline, id), &sector) = q.fifo.iter().next()?;
        (now >= deadline).then_some((sector, id))
    }

    /// `cfq_dispatch_request` + `cfq_dispatch_insert`.
    fn dispatch_from(&mut self, qi: usize, now: Instant, head: u64) -> Option<Request> {
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

    /// `cfq_arm_slice_timer`, for the active queue whose slice ends at
    /// `slice_end` (started: `complete` starts it first).
    fn arm_slice_timer(&mut self, slice_end: Instant, now: Instant) {
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
        // `slice_end - now < ttime_mean`, without the subtraction.
        if f.ttime_valid() && slice_end < now + Duration::from_nanos(f.ttime_mean) {
            return;
        }
        self.queues[qi].wait_request = true;
        self.idle_timer = Some(now + self.p.slice_idle);
    }

    /// `cfq_idle_slice_timer`, if it is due (early calls do nothing).
    fn idle_slice_timer(&mut self, now: Instant) {
        if self.idle_timer.is_none_or(|t| t > now) {
            return;
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

    /// `cfq_should_wait_busy` (one group: only when this is the only busy
    /// queue), for the active queue whose started slice ends at `slice_end`.
    fn should_wait_busy(&self, slice_end: Instant, now: Instant) -> bool {
        if self.nr_cfqq() > 1 {
            return false;
        }
        // cfq_slice_used
        if now >= slice_end {
            return true;
        }
        let left = slice_end - now;
        if let Some(f) = self.active_cic.and_then(|f| self.flows.get(&f)) {
            if f.ttime_valid() && left < Duration::from_nanos(f.ttime_mean) {
                return true;
            }
        }
        // (`left > 0` holds: the slice is not used.)
        left <= JIFFY
    }

    /// `cfq_should_preempt`: may `qi`, which just got `rq`, preempt the
    /// active queue?
    fn should_preempt(&self, qi: usize, rq: &Request, now: Instant) -> bool {
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
    fn preempt(&mut self, qi: usize, now: Instant) {
        self.slice_expired(true, now);
        self.service_tree_add(qi, true, now);
        self.queues[qi].slice_end = None;
    }

    /// The queue a request goes to, created on demand (`cfq_get_queue`).
    fn queue_for(&mut self, now: Instant, rq: &Request) -> usize {
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
    fn update_thinktime(&mut self, now: Instant, flow: FlowId) {
        let cap = self.p.slice_idle * 2;
        let f = self.flow_mut(now, flow);
        let ttime = now
            .saturating_duration_since(f.last_end_request)
            .min(cap)
            .as_nanos();
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
    fn active_slice(&self) -> Option<(Instant, Instant)> {
        let q = &self.queues[self.active?];
        Some((q.slice_start?, q.slice_end?))
    }
}

impl Scheduler for Cfq {
    fn name(&self) -> &str {
        "cfq"
    }

    fn add_flow(&mut self, now: Instant, flow: FlowId, _config: &FlowConfig) {
        let f = self.flow_mut(now, flow);
        f.alive = true;
    }

    fn remove_flow(&mut self, now: Instant, flow: FlowId) {
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
        let qi = self.queue_for(now, &rq);
        let expire = if rq.sync {
            self.p.fifo_expire_sync
        } else {
            self.p.fifo_expire_async
        };
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
            self.queues[qi].slice_end = Some(now + JIFFY);
            self.slice_expired(false, now);
        }
        Decision::Dispatch(rq)
    }

    /// `cfq_completed_request`.
    fn complete(&mut self, now: Instant, rq: &Request, _service: &Service) {
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
            if rq.arrival + self.p.fifo_expire_sync <= now {
                self.last_delayed_sync = Some(now);
            }
        }
        if self.active != Some(qi) {
            return;
        }
        let mut slice_end = match self.queues[qi].slice_end {
            Some(end) => end,
            None => self.set_prio_slice(qi, now),
        };
        if self.should_wait_busy(slice_end, now) {
            slice_end = now + self.p.slice_idle;
            self.queues[qi].slice_end = Some(slice_end);
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
                self.arm_slice_timer(slice_end, now);
            }
        }
    }

    /// The idle timer, while CFQ idles for the active queue.
    fn poll_timeout(&self) -> Option<Instant> {
        self.idle_timer
    }

    /// `cfq_idle_slice_timer`.
    fn handle_timeout(&mut self, now: Instant) {
        self.idle_slice_timer(now);
    }

    fn queued(&self) -> usize {
        self.rq_queued
    }

    fn may_idle(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests;
