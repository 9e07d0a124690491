//! `yfq`: YFQ, from "Disk Scheduling with Quality of Service Guarantees"
//! (Bruno et al., ICMCS 1999), §2 and the enhancements of §3.
//!
//! Reservations are flows, weighted by `FlowConfig::weight` (a flow first
//! seen in `add` gets 100). Each reservation `i` has a FIFO queue `q_i` and
//! tags `S_i`, `F_i` (initially 0); [`tags`] holds the tag arithmetic and the
//! virtual work function `v(t)` that `dor` reuses.
//!
//! * **Tags (§2).** A request arriving at an empty `q_i` gets
//!   `S_i = max(v(t), F_i)`, `F_i = S_i + l/w_i`. When the head of `q_i`
//!   completes and `q_i` is not empty, the next head gets `S_i = F_i`,
//!   `F_i = S_i + l'/w_i`. These values are fixed the moment a request joins
//!   the queue (the chain does not depend on when the head completes), so
//!   each queued request carries its own tags.
//! * **`v(t)` (§2).** `v(0) = 0`; while the disk is busy, the minimum start
//!   tag of the busy reservations, a reservation being busy from the arrival
//!   of a request until the completion of its last one (a request stays at
//!   the head of `q_i` while the disk serves it); when the disk becomes idle,
//!   the maximum of all finish tags, where it stays until the next arrival.
//! * **Selection (§2).** The request with the smallest finish tag among the
//!   busy reservations' not-yet-selected requests. With `batch = 1` and no
//!   overlap nothing is in service when selecting, so this is exactly "the
//!   head of the busy queue with the smallest `F_i`"; with batches, later
//!   requests of a queue whose head is in service compete with their own
//!   (chained) tags.
//! * **Batches (§2, §3.2).** `batch = b` selects up to `b` requests at once
//!   into a sort queue that is handed to the device in selection order (the
//!   drive may reorder them: that is the scenario's queue depth and internal
//!   order); the next batch is selected when the whole batch has completed,
//!   or, with `overlap`, when all but one of its requests have completed (so
//!   at most `b + 1` are outstanding).
//! * **Tie-breaking (§3.3).** With `tie_break`, among the requests with the
//!   smallest finish tag, the one with the least
//!   `DeviceView::positioning_time` from `device.head()`, the end of the
//!   last completed request (for later picks of one batch: from the end of
//!   the previous pick).
//! * **Fragments (§3.4).** Requests with the same `origin` that arrive one
//!   after the other in a flow (the workload adds all fragments of a large
//!   request before asking for a dispatch) form one entry of `q_i`: the
//!   whole request's tags, `F = S + (sum of fragment lengths)/w`, shared by
//!   every fragment. A fragment arriving after one of its siblings was
//!   selected starts a new entry. `group = n` issues fragments of one origin
//!   `n` at a time, like FreeBSD's physio with the paper's grouping change:
//!   the next `n` become selectable when the whole previous group has
//!   completed (`group = 1`: one fragment at a time, unmodified FreeBSD;
//!   `group = 0`: all at once). With `shared_fragment_tags = false`
//!   (unmodified YFQ, Fig. 7's baseline) the fragments still form one entry
//!   for grouping, but each is tagged as a request of its own: the first
//!   starts at the entry's `S`, each next one at its predecessor's `F`, each
//!   adds its own length (and `l_lat`), and the head of `q_i` for `v(t)` is
//!   the oldest fragment not yet completed.
//! * **Latency (§3.5).** `l_lat_kb` KiB (2 sectors per KiB) is added to the
//!   length of every request (once per fragmented request) in the tags.
//! * **Host turnaround.** `batch_turnaround_us` delays the next batch by
//!   that long after the completion that frees it (the last of a batch, or
//!   the last but one with `overlap`): the host's interrupt, completion and
//!   selection, which §3.2 implies (the host sends the next batch when the
//!   present one completes) but does not size. The policy answers
//!   [`Decision::Idle`] meanwhile and asks to be woken at its end; requests
//!   arriving meanwhile wait for it too. Default 0 (no turnaround): no
//!   source gives the paper's host's value; `repro yfq`'s `turnaround` rows
//!   measure the sensitivity.

mod params;
mod ready;
pub(crate) mod tags;

pub(crate) use params::PARAMS;
pub use params::{YfqParams, YfqTunables};

use std::collections::VecDeque;

use super::fair_ids::SlotIds;
use super::params::ParamReader;
use crate::charge::{Charge, Charger, LinearCost};
use crate::error::Error;
use crate::scheduler::{Capabilities, Decision, DeviceView, FlowConfig, Scheduler, Service};
use crate::stats::{PolicyStats, YfqStats};
use crate::time::{Duration, Instant};
use crate::types::{FlowId, Request, RequestId};
use ready::ReadySet;
use tags::{Tag, VirtualWork};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FragState {
    /// Waiting for its group (fragment grouping).
    Held,
    /// Selectable.
    Ready,
    /// In a batch: in the sort queue or in the device.
    Selected,
    /// Completed.
    Done,
}

#[derive(Clone, Copy, Debug)]
struct Frag {
    req: Request,
    state: FragState,
    /// The fragment's own tags, when fragments do not share their
    /// request's (`shared_fragment_tags = false`); otherwise the entry's.
    start: Tag,
    finish: Tag,
    /// The batch it was selected into (once selected).
    batch: u64,
}

/// One application request (all its fragments) in a reservation's queue.
/// Three whole cache lines, aligned to them: unaligned, most entries would
/// straddle a fourth, and at thousands of flows each line read is a miss.
#[derive(Debug)]
#[repr(align(64))]
struct Entry {
    start: Tag,
    finish: Tag,
    sectors: u64,
    frags: Frags,
    /// Fragment counts, in 32 bits (an entry is small: every byte of it
    /// is read per request). Fragments released in the current group.
    in_group: u32,
    /// Released fragments not yet completed.
    open: u32,
    done: u32,
    /// Fragments held or ready (not yet selected), and of them ready:
    /// counted, so that finding a flow's next entry reads no fragment.
    unsel: u32,
    ready: u32,
}

/// An entry's fragments, the first held inline: most requests are not
/// fragmented, and the entry then needs no allocation of its own.
#[derive(Debug)]
struct Frags {
    first: Frag,
    rest: Vec<Frag>,
}

impl Frags {
    fn iter(&self) -> impl Iterator<Item = &Frag> {
        std::iter::once(&self.first).chain(self.rest.iter())
    }
    fn iter_mut(&mut self) -> impl Iterator<Item = &mut Frag> {
        std::iter::once(&mut self.first).chain(self.rest.iter_mut())
    }
    fn len(&self) -> u32 {
        1 + self.rest.len() as u32
    }
    fn get_mut(&mut self, k: usize) -> &mut Frag {
        match k {
            0 => &mut self.first,
            _ => &mut self.rest[k - 1],
        }
    }
}

impl Entry {
    /// The application request the fragments are of.
    fn origin(&self) -> RequestId {
        self.frags.first.req.origin
    }
    fn selected_any(&self) -> bool {
        self.unsel < self.frags.len()
    }
    fn unselected(&self) -> bool {
        self.unsel > 0
    }
    /// The counters agree with the fragments' states (checked in debug
    /// builds, so every test checks them).
    fn counts_agree(&self) -> bool {
        let count =
            |p: fn(FragState) -> bool| self.frags.iter().filter(|f| p(f.state)).count() as u32;
        self.unsel == count(|s| matches!(s, FragState::Held | FragState::Ready))
            && self.ready == count(|s| s == FragState::Ready)
    }
    /// The start tag the entry shows as the head of `q_i`: the request's,
    /// or with fragments tagged on their own, that of its oldest fragment
    /// not yet completed (each fragment is then a request of `q_i`).
    fn head_start(&self) -> Tag {
        self.frags
            .iter()
            .find(|f| f.state != FragState::Done)
            .map_or(self.start, |f| f.start)
    }
    /// The finish tag of the first ready fragment (fragments are tagged in
    /// arrival order, so the smallest).
    fn ready_finish(&self) -> Option<Tag> {
        self.frags
            .iter()
            .find(|f| f.state == FragState::Ready)
            .map(|f| f.finish)
    }
    /// Set the tags from `start` and the fragments' sizes: shared, every
    /// fragment gets `F = S + (l + l_lat)/w` of the whole request; on their
    /// own, each fragment chains from the previous one's finish tag and
    /// pays `l_lat` itself.
    fn retag(&mut self, shared: bool, lat: u64, w: u32) {
        if shared {
            self.finish = self.start + Tag::service(self.sectors + lat, w);
            for f in self.frags.iter_mut() {
                f.start = self.start;
                f.finish = self.finish;
            }
        } else {
            let mut s = self.start;
            for f in self.frags.iter_mut() {
                f.start = s;
                f.finish = s + Tag::service(u64::from(f.req.sectors) + lat, w);
                s = f.finish;
            }
            self.finish = s;
        }
    }
}

#[derive(Debug)]
struct Flow {
    id: FlowId,
    weight: u32,
    /// `F_i` as the paper keeps it: the finish tag of the last request that
    /// joined the queue.
    last_finish: Tag,
    /// Requests not yet completed, in arrival order.
    queue: VecDeque<Entry>,
    /// The flow's key in `ready`: the finish tag of its next selectable entry.
    key: Option<Tag>,
}

impl Flow {
    fn new(id: FlowId, weight: u32) -> Self {
        Flow {
            id,
            weight: weight.max(1),
            last_finish: Tag::ZERO,
            queue: VecDeque::new(),
            key: None,
        }
    }

    /// Where request `id` is, added and not completed: (entry, fragment).
    /// Found by a scan, from the front: the flow's selected requests (the
    /// ones that complete) are its first ones.
    fn find(&self, id: RequestId) -> Option<(usize, usize)> {
        self.queue.iter().enumerate().find_map(|(i, e)| {
            let k = e
                .frags
                .iter()
                .position(|f| f.req.id == id && f.state != FragState::Done)?;
            Some((i, k))
        })
    }

    /// `S_i` while busy: the start tag of the head of `q_i`.
    fn head_start(&self) -> Option<Tag> {
        self.queue.front().map(Entry::head_start)
    }

    /// The entry the flow serves next: the first one with unselected
    /// fragments, if one of them is ready (queues are FIFO).
    fn next_entry(&self) -> Option<usize> {
        let i = self.queue.iter().position(Entry::unselected)?;
        (self.queue[i].ready > 0).then_some(i)
    }
}

/// YFQ with batching, overlapping, tie-breaking, fragment grouping and
/// `l_lat`.
#[derive(Debug)]
pub struct Yfq {
    params: YfqParams,
    /// The flows, by dense slot (`slots` maps ids to them; `free` lists
    /// slots of removed flows for reuse).
    flows: Vec<Flow>,
    slots: SlotIds,
    free: Vec<u32>,
    vwork: VirtualWork,
    /// Flows with a selectable request, by (finish tag, flow id), by slot.
    ready: ReadySet,
    /// Scratch for the flows tied at the smallest finish tag.
    ties: Vec<(u32, usize)>,
    /// The batch handed to the device, not yet dispatched.
    sort_queue: VecDeque<Request>,
    /// Outstanding batches: (batch number, requests not yet completed).
    batches: VecDeque<(u64, usize)>,
    next_batch: u64,
    queued: usize,
    selected: u64,
    /// Until when the host is still turning around after the completion
    /// that freed the next batch (`batch_turnaround_us`).
    resume_at: Option<Instant>,
    /// Turnarounds waited out.
    turnarounds: u64,
    /// What a request adds to its tags.
    charger: Charger,
}

impl Yfq {
    /// A YFQ scheduler (`batch` below 1 counts as 1).
    pub fn new(params: YfqParams) -> Self {
        Yfq {
            params: YfqParams {
                batch: params.batch.max(1),
                ..params
            },
            flows: Vec::new(),
            slots: SlotIds::default(),
            free: Vec::new(),
            vwork: VirtualWork::default(),
            ready: ReadySet::default(),
            ties: Vec::new(),
            sort_queue: VecDeque::new(),
            batches: VecDeque::new(),
            next_batch: 0,
            queued: 0,
            selected: 0,
            resume_at: None,
            turnarounds: 0,
            charger: if params.charge_cost {
                Charger::new(Charge::Cost(LinearCost::default()))
            } else {
                Charger::sectors()
            },
        }
    }

    pub(crate) fn from_params(p: &mut ParamReader<'_>) -> Result<Self, Error> {
        Ok(Self::new(YfqParams::read(p)?))
    }

    /// The parameters in force.
    pub fn params(&self) -> YfqParams {
        self.params
    }

    /// The virtual work function `v(t)` now, in sectors per weight unit.
    pub fn virtual_work(&self) -> f64 {
        self.vwork.peek().as_f64()
    }

    /// A reservation's `(S_i, F_i)` in sectors per weight unit: the start tag
    /// of the head of its queue (of its last request once idle) and the
    /// finish tag of its last request.
    pub fn tags(&self, flow: FlowId) -> Option<(f64, f64)> {
        let f = &self.flows[self.slots.get(flow)? as usize];
        let s = f.head_start().unwrap_or(f.last_finish);
        Some((s.as_f64(), f.last_finish.as_f64()))
    }

    /// The finish tag a queued (or in-service) request carries, in sectors
    /// per weight unit: for fragments, that of the whole request.
    pub fn finish_tag(&self, id: RequestId) -> Option<f64> {
        self.flows.iter().find_map(|fl| {
            let (i, k) = fl.find(id)?;
            Some(fl.queue[i].frags.iter().nth(k)?.finish.as_f64())
        })
    }

    /// Requests selected into batches and not yet completed.
    pub fn outstanding(&self) -> usize {
        self.batches.iter().map(|b| b.1).sum()
    }

    /// The slot of `flow`, which gets one (weight 100) if it has none.
    fn slot_of(&mut self, flow: FlowId) -> u32 {
        if let Some(s) = self.slots.get(flow) {
            return s;
        }
        let fresh = Flow::new(flow, 100);
        let s = match self.free.pop() {
            Some(s) => {
                self.flows[s as usize] = fresh;
                s
            }
            None => {
                self.flows.push(fresh);
                (self.flows.len() - 1) as u32
            }
        };
        self.slots.insert(flow, s);
        s
    }

    fn flow_mut(&mut self, flow: FlowId) -> &mut Flow {
        let s = self.slot_of(flow);
        &mut self.flows[s as usize]
    }

    /// Recompute a flow's key in `ready`.
    fn refresh(&mut self, slot: u32) {
        let f = &mut self.flows[slot as usize];
        debug_assert!(f.queue.iter().all(Entry::counts_agree));
        let key = f.next_entry().and_then(|i| f.queue[i].ready_finish());
        if key != f.key {
            self.ready.set(slot as usize, f.id.0, key.map(|k| k.0));
            f.key = key;
        }
    }

    fn can_form_batch(&self) -> bool {
        match self.batches.len() {
            0 => true,
            1 => self.params.overlap && self.batches[0].1 <= 1,
            _ => false,
        }
    }

    /// Choose the next request by tags; `from` is where the head will be.
    fn pick(
        &mut self,
        now: Instant,
        device: &dyn DeviceView,
        from: u64,
        batch: u64,
    ) -> Option<Request> {
        let (fmin, first_id) = self.ready.first()?;
        let fmin = Tag(fmin);
        let (slot, i, k) = if self.params.tie_break {
            // The tied flows in the order of their ids, as the ordered set
            // of (tag, flow) this replaced listed them.
            let mut ties = std::mem::take(&mut self.ties);
            ties.clear();
            self.ready.equal_to(fmin.0, &mut ties);
            ties.sort_unstable();
            let mut best: Option<(Duration, u32, usize, usize)> = None;
            for &(_, slot) in &ties {
                let fl = &self.flows[slot];
                let i = fl.next_entry().expect("ready flows have a next entry");
                let e = &fl.queue[i];
                for (k, fr) in e.frags.iter().enumerate() {
                    if fr.state == FragState::Ready && fr.finish == fmin {
                        let cost = device.positioning_time(now, from, fr.req.sector);
                        if best.is_none_or(|b| cost < b.0) {
                            best = Some((cost, slot as u32, i, k));
                        }
                    }
                }
            }
            self.ties = ties;
            let (_, slot, i, k) = best?;
            (slot, i, k)
        } else {
            let first = self.slots.get(FlowId(first_id))?;
            let fl = &self.flows[first as usize];
            let i = fl.next_entry()?;
            let e = &fl.queue[i];
            let k = e.frags.iter().position(|f| f.state == FragState::Ready)?;
            (first, i, k)
        };
        let fl = &mut self.flows[slot as usize];
        let e = &mut fl.queue[i];
        e.unsel -= 1;
        e.ready -= 1;
        let fr = e.frags.get_mut(k);
        debug_assert_eq!(fr.state, FragState::Ready);
        fr.state = FragState::Selected;
        fr.batch = batch;
        let r = fr.req;
        self.refresh(slot);
        Some(r)
    }
}

impl Yfq {
    /// The cost model charged when set to `charge = "cost"` (the build
    /// context's `charge`); otherwise the policy is unchanged.
    pub fn with_charge(mut self, model: &LinearCost) -> Self {
        if self.charger.by_cost() {
            self.charger.set_cost(*model);
        }
        self
    }
}

impl Scheduler for Yfq {
    fn name(&self) -> &str {
        "yfq"
    }

    fn add_flow(&mut self, _now: Instant, flow: FlowId, config: &FlowConfig) {
        self.flow_mut(flow).weight = config.qos.weight.max(1);
    }

    fn set_weight(&mut self, _now: Instant, flow: FlowId, weight: u32) {
        self.flow_mut(flow).weight = weight.max(1);
    }

    fn remove_flow(&mut self, _now: Instant, flow: FlowId) {
        if let Some(s) = self.slots.get(flow) {
            if self.flows[s as usize].queue.is_empty() {
                self.slots.remove(flow);
                self.free.push(s);
            }
        }
    }

    fn add(&mut self, _now: Instant, request: Request) {
        let group = self.params.group;
        let shared = self.params.shared_fragment_tags;
        let lat = 2 * self.params.l_lat_kb;
        let flow_id = request.flow;
        let charge = self.charger.charge(&request);
        let slot = self.slot_of(flow_id);
        let f = &mut self.flows[slot as usize];
        let w = f.weight;
        let merge = f
            .queue
            .back()
            .is_some_and(|e| e.origin() == request.origin && !e.selected_any());
        let was_idle = f.queue.is_empty();
        if !merge {
            // A new entry of q_i: S = max(v, F_i) at an empty queue, else the
            // chain S = F_i (the previous request's finish tag).
            let start = if was_idle {
                self.vwork.value().max(f.last_finish)
            } else {
                f.last_finish
            };
            // The first fragment is always released (a group holds at
            // least one).
            f.queue.push_back(Entry {
                start,
                finish: start,
                sectors: charge,
                frags: Frags {
                    first: Frag {
                        req: request,
                        state: FragState::Ready,
                        start,
                        finish: start,
                        batch: 0,
                    },
                    rest: Vec::new(),
                },
                in_group: 1,
                open: 1,
                done: 0,
                unsel: 1,
                ready: 1,
            });
        }
        let e = f.queue.back_mut().expect("just pushed or merged");
        if merge {
            e.sectors += charge;
            e.unsel += 1;
            let state = if group == 0 || (e.in_group as usize) < group {
                e.in_group += 1;
                e.open += 1;
                e.ready += 1;
                FragState::Ready
            } else {
                FragState::Held
            };
            e.frags.rest.push(Frag {
                req: request,
                state,
                start: e.start,
                finish: e.start,
                batch: 0,
            });
        }
        e.retag(shared, lat, w);
        let (start, finish) = (e.start, e.finish);
        f.last_finish = finish;
        self.vwork.note_finish(finish);
        if was_idle {
            self.vwork.set_start(slot as usize, Some(start));
        }
        self.queued += 1;
        self.refresh(slot);
    }

    /// The grown request's entry is charged what the model charges for the
    /// sectors it gained (by sectors: its new size): its finish tag moves
    /// out (and the flow's `F_i` with it when it is the last entry).
    fn merge(&mut self, _now: Instant, old: &Request, merged: &Request) {
        // Selected into the batch but not yet dispatched: the copy there too.
        super::merge::merge_queued(&mut self.sort_queue, merged);
        let Some(slot) = self.slots.get(old.flow) else {
            return;
        };
        let lat = 2 * self.params.l_lat_kb;
        let shared = self.params.shared_fragment_tags;
        let growth = self.charger.growth(old, merged);
        let f = &mut self.flows[slot as usize];
        let Some(i) = f.queue.iter().rposition(|e| {
            e.frags
                .iter()
                .any(|fr| fr.req.id == old.id && fr.state != FragState::Done)
        }) else {
            return;
        };
        let w = f.weight;
        let old_start = f.head_start();
        let last = f.queue.len() - 1;
        let e = &mut f.queue[i];
        if let Some(fr) = e.frags.iter_mut().find(|fr| fr.req.id == old.id) {
            fr.req = *merged;
        }
        e.sectors += growth;
        e.retag(shared, lat, w);
        let finish = e.finish;
        if i == last {
            f.last_finish = finish;
        }
        // Fragments on their own tags: a grown fragment moves the tags of
        // the siblings after it, perhaps the head's.
        let new_start = f.head_start();
        if new_start != old_start {
            self.vwork.set_start(slot as usize, new_start);
        }
        self.vwork.note_finish(finish);
        self.refresh(slot);
    }

    fn dispatch(&mut self, now: Instant, device: &dyn DeviceView) -> Decision {
        if self.sort_queue.is_empty() && self.can_form_batch() {
            if let Some(t) = self.resume_at {
                if now < t {
                    // The host has not yet turned around: the next batch
                    // leaves at `t` (requests arriving meanwhile join it).
                    return if self.ready.is_empty() {
                        Decision::Nothing
                    } else {
                        Decision::Idle
                    };
                }
                self.resume_at = None;
            }
            let batch = self.next_batch;
            let mut from = device.head();
            let mut n = 0;
            while n < self.params.batch {
                let Some(r) = self.pick(now, device, from, batch) else {
                    break;
                };
                from = r.end();
                self.sort_queue.push_back(r);
                n += 1;
            }
            if n > 0 {
                self.selected += n as u64;
                self.batches.push_back((batch, n));
                self.next_batch += 1;
            }
        }
        match self.sort_queue.pop_front() {
            Some(r) => {
                self.queued -= 1;
                Decision::Dispatch(r)
            }
            None => Decision::Nothing,
        }
    }

    fn complete(&mut self, now: Instant, request: &Request, _service: &Service) {
        let Some(slot) = self.slots.get(request.flow) else {
            return;
        };
        let Some((i, k)) = self.flows[slot as usize].find(request.id) else {
            return;
        };
        let batch = self.flows[slot as usize].queue[i].frags.get_mut(k).batch;
        let blocked = !self.can_form_batch();
        // Only this batch's count moves, so only it can leave.
        if let Some(j) = self.batches.iter().position(|b| b.0 == batch) {
            self.batches[j].1 = self.batches[j].1.saturating_sub(1);
            if self.batches[j].1 == 0 {
                self.batches.remove(j);
            }
        }
        let turnaround = self.params.batch_turnaround_us;
        if turnaround > 0 && blocked && self.can_form_batch() {
            // This completion lets the next batch go: the host needs its
            // turnaround first.
            self.resume_at = Some(now + Duration::from_micros(turnaround));
            self.turnarounds += 1;
        }
        let group = self.params.group;
        let f = &mut self.flows[slot as usize];
        let old_start = f.head_start();
        {
            let e = &mut f.queue[i];
            let fr = e.frags.get_mut(k);
            // Only a selected request completes under the driver's protocol;
            // the counters follow whatever state it had.
            match fr.state {
                FragState::Ready => {
                    e.unsel -= 1;
                    e.ready -= 1;
                }
                FragState::Held => e.unsel -= 1,
                FragState::Selected | FragState::Done => {}
            }
            fr.state = FragState::Done;
            e.done += 1;
            e.open = e.open.saturating_sub(1);
            if e.open == 0 {
                // The group is complete: release the next one.
                e.in_group = 0;
                for fr in e.frags.iter_mut() {
                    if fr.state == FragState::Held && (group == 0 || (e.in_group as usize) < group)
                    {
                        fr.state = FragState::Ready;
                        e.ready += 1;
                        e.in_group += 1;
                        e.open += 1;
                    }
                }
            }
        }
        // Dequeue completed requests from the head of q_i.
        while f.queue.front().is_some_and(|e| e.done == e.frags.len()) {
            f.queue.pop_front();
        }
        let new_start = f.head_start();
        if new_start != old_start {
            self.vwork.set_start(slot as usize, new_start);
        }
        self.refresh(slot);
    }

    fn queued(&self) -> usize {
        self.queued
    }

    /// The end of the host's turnaround, while one is running.
    fn poll_timeout(&self) -> Option<Instant> {
        self.resume_at
    }

    fn handle_timeout(&mut self, now: Instant) {
        if self.resume_at.is_some_and(|t| t <= now) {
            self.resume_at = None;
        }
    }

    /// With a turnaround, the device waits for the host between batches.
    fn capabilities(&self) -> Capabilities {
        Capabilities::idling_if(self.params.batch_turnaround_us > 0)
    }

    /// `batches` formed and their `mean_batch_len` (and, with a host
    /// turnaround, the `turnarounds` waited).
    fn stats(&self) -> PolicyStats {
        let mean = if self.next_batch > 0 {
            self.selected as f64 / self.next_batch as f64
        } else {
            0.0
        };
        PolicyStats::Yfq(YfqStats {
            batches: self.next_batch,
            mean_batch_len: mean,
            turnarounds: (self.params.batch_turnaround_us > 0).then_some(self.turnarounds),
        })
    }
}

#[cfg(test)]
mod tests;
