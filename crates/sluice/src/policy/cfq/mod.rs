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

mod idling;
mod params;
mod queue;
mod service_tree;
mod slice;

pub(crate) use self::params::PARAMS;
pub use self::params::{CfqParams, CfqTunables};
use self::queue::{FlowState, Queue};
use self::service_tree::ServiceTree;
use super::in_flight::InFlightNotes;
use crate::idhash::IdMap;
use crate::scheduler::{Capabilities, Decision, DeviceView, FlowConfig, Scheduler, Service};
use crate::time::{Duration, Instant};
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
/// Queued requests that mark a queue "deep" (`cfq_update_idle_window`).
const DEEP_QUEUED: usize = 4;

/// Workload types (`enum wl_type_t`), indexes of the service trees.
const ASYNC: usize = 0;
const SYNC_NOIDLE: usize = 1;
const SYNC: usize = 2;

/// Linux 2.6.34 CFQ for one cgroup and the best-effort class.
#[derive(Debug)]
pub struct Cfq {
    p: CfqParams,
    queues: Vec<Queue>,
    /// Hashed, not ordered: looked up on every request, never walked.
    flows: IdMap<FlowId, FlowState>,
    async_q: [Option<usize>; PRIO_LEVELS],
    /// Service trees by workload: (key, insertion seq) -> queue.
    trees: [ServiceTree; 3],
    seq: u64,
    busy_queues: usize,
    busy_queues_avg: u64,
    rq_queued: usize,
    /// Requests in flight, [async, sync] by queue kind.
    rq_in_flight: [usize; 2],
    /// The queue of each request in the device.
    in_flight: InFlightNotes<usize>,
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
            flows: IdMap::default(),
            async_q: [None; PRIO_LEVELS],
            trees: Default::default(),
            seq: 0,
            busy_queues: 0,
            busy_queues_avg: 0,
            rq_queued: 0,
            rq_in_flight: [0; 2],
            in_flight: InFlightNotes::default(),
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
        let next = self.trees[self.serving_type].first().map(|(_, qi)| qi);
        self.set_active(next);
        next
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
        let ahead = sorted.ceil((last, 0)).map(|(k, _)| k);
        let behind = sorted
            .below((last, 0))
            .map(|(k, _)| k)
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
            (None, None) => sorted.first().expect("queue is not empty").0,
        }
    }

    /// `cfq_check_fifo`: once per slice, the oldest request if expired.
    fn check_fifo(&mut self, qi: usize, now: Instant) -> Option<(u64, u64)> {
        let q = &mut self.queues[qi];
        if q.fifo_checked {
            return None;
        }
        q.fifo_checked = true;
        let ((_, id), &(sector, deadline)) = q.fifo.first()?;
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
        q.fifo.remove(&(deadline.as_nanos(), rq.id.0));
        q.dispatched += 1;
        self.rq_queued -= 1;
        self.rq_in_flight[usize::from(q.sync)] += 1;
        self.in_flight.insert(rq.id, qi);
        self.last_position = rq.end();
        if self.active_cic.is_none() {
            self.active_cic = Some(rq.flow);
        }
        Some(rq)
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
        q.fifo
            .insert((deadline.as_nanos(), rq.id.0), (rq.sector, deadline));
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

    /// `cfq_merged_request`: a front merge moves the request in its
    /// queue's sector order (`cfq_reposition_rq_rb`); its FIFO deadline
    /// stays.
    fn merge(&mut self, now: Instant, old: &Request, merged: &Request) {
        let key = (old.sector, old.id.0);
        let qi = self.queue_for(now, old);
        let q = &mut self.queues[qi];
        let Some(&(_, deadline)) = q.sorted.get(&key) else {
            return;
        };
        q.sorted.merge_with(old, merged, |(r, _)| r);
        if let Some((sector, _)) = q.fifo.get_mut(&(deadline.as_nanos(), old.id.0)) {
            *sector = merged.sector;
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
        let Some(qi) = self.in_flight.remove(rq.id) else {
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

    fn capabilities(&self) -> Capabilities {
        Capabilities::idling_if(true)
    }
}

#[cfg(test)]
mod tests;
