//! The block layer's request merging, in the driver so every host has it.
//!
//! Linux's elevator joins a request that arrives contiguous with one still
//! queued in the scheduler (same process queue, direction and sync class)
//! into it: a back merge when the new one starts where the queued one ends,
//! a front merge when it ends where the queued one starts, up to the
//! device's largest request (`max_sectors_kb`, 512 KiB in the kernels the
//! BFQ papers ran). Without it a start-up's read-ahead bursts reach the disk
//! as separate small requests that a position-sorting scheduler may serve in
//! any order, one rotation each.
//!
//! The queued requests are kept per flow (indexed by the flow's number, a
//! hash lookup only for numbers past [`DENSE_FLOWS`]), and an arrival is
//! compared with its flow's most recent
//! [`SCAN`] queued requests, newest first, as the kernel tries its last
//! merge first: a flow with one request at a time costs no search at all.

use smallvec::SmallVec;

use crate::idhash::IdMap;
use crate::types::{FlowId, Request};

/// Linux's default `max_sectors_kb` in the 2.6.3x kernels: 512 KiB.
pub const DEFAULT_MAX_REQUEST_SECTORS: u32 = 1024;

/// How many of a flow's queued requests (the most recent) an arrival is
/// compared with: bounds the work per arrival for flows with hundreds
/// queued.
const SCAN: usize = 32;

/// Flows numbered below this have their list in a vector indexed by the
/// number (hosts number flows from 0); others in a hash map.
const DENSE_FLOWS: u32 = 1 << 16;

/// A flow's queued requests, oldest first, from `head` on. The first is
/// held inline: most flows have one queued at a time, and at 65,536 flows
/// every separate allocation touched is a cache miss (two a request,
/// measured). Dispatching the oldest only moves `head`; the served ones
/// are dropped together once they are half the list. A flow with a
/// million queued (an open-loop trace overloading its disk) served in
/// arrival order moved the whole list at every dispatch, and searched it:
/// a fleet's node ran for hours.
#[derive(Debug, Default)]
struct Queue {
    items: SmallVec<[Queued; 1]>,
    head: usize,
}

/// Served entries are dropped once there are at least this many of them
/// and they are half the list or more.
const DROP_SERVED: usize = 32;

impl Queue {
    /// The requests still queued, oldest first.
    fn live(&self) -> &[Queued] {
        &self.items[self.head..]
    }

    fn live_mut(&mut self) -> &mut [Queued] {
        &mut self.items[self.head..]
    }

    fn push(&mut self, q: Queued) {
        self.items.push(q);
    }

    fn is_empty(&self) -> bool {
        self.head == self.items.len()
    }

    /// Take out the queued request `id`, if queued. Hosts number requests
    /// as they arrive, so the list is in id order and a binary search finds
    /// it; any other numbering falls back to a scan.
    fn take(&mut self, id: crate::types::RequestId) -> Option<Queued> {
        let live = self.live();
        let i = match live.binary_search_by_key(&id, |q| q.request.id) {
            Ok(i) => i,
            Err(_) => live.iter().rposition(|q| q.request.id == id)?,
        };
        if i > 0 {
            return Some(self.items.remove(self.head + i));
        }
        let at = self.head;
        let served = Queued {
            request: self.items[at].request,
            parts: Vec::new(),
        };
        let q = std::mem::replace(&mut self.items[at], served);
        self.head += 1;
        if self.head == self.items.len() {
            self.items.clear();
            self.head = 0;
        } else if self.head >= DROP_SERVED && 2 * self.head >= self.items.len() {
            self.items.drain(..self.head);
            self.head = 0;
        }
        Some(q)
    }
}

/// A queued request that later arrivals may join.
#[derive(Debug)]
struct Queued {
    request: Request,
    /// The original requests merged into it, in sector order (empty while
    /// it is one request).
    parts: Vec<Request>,
}

/// What the driver does to an arrival.
pub(super) enum Arrival {
    /// Queue it as a new request.
    New,
    /// It joined the queued request `old`, which is now `merged`: the policy
    /// must replace one by the other.
    Merged { old: Request, merged: Request },
}

/// The requests the policy holds, per flow, open to merges.
#[derive(Debug)]
pub(super) struct Merger {
    max_sectors: u32,
    dense: Vec<Queue>,
    sparse: IdMap<FlowId, Queue>,
    merges: u64,
}

impl Merger {
    pub(super) fn new(max_sectors: u32) -> Self {
        Merger {
            max_sectors: max_sectors.max(1),
            dense: Vec::new(),
            sparse: IdMap::default(),
            merges: 0,
        }
    }

    /// Arrivals merged into queued requests so far.
    pub(super) fn merges(&self) -> u64 {
        self.merges
    }

    /// The largest request a merge may build, in sectors.
    pub(super) fn max_sectors(&self) -> u32 {
        self.max_sectors
    }

    /// Flow `flow`'s list, made on first use.
    fn list(&mut self, flow: FlowId) -> &mut Queue {
        if flow.0 < DENSE_FLOWS {
            let i = flow.0 as usize;
            if i >= self.dense.len() {
                self.dense.resize_with(i + 1, Queue::default);
            }
            &mut self.dense[i]
        } else {
            self.sparse.entry(flow).or_default()
        }
    }

    /// Decide what happens to arrival `r`: a back merge (it starts where a
    /// queued request ends) is tried before a front merge (it ends where
    /// one starts), newest queued request first.
    pub(super) fn arrive(&mut self, r: Request) -> Arrival {
        let max = u64::from(self.max_sectors);
        let queue = self.list(r.flow);
        let list = queue.live_mut();
        let fits = |q: &Request| {
            q.dir == r.dir && q.sync == r.sync && u64::from(q.sectors) + u64::from(r.sectors) <= max
        };
        let scan = list.len().saturating_sub(SCAN)..list.len();
        let found = list[scan.clone()]
            .iter()
            .rposition(|q| fits(&q.request) && q.request.end() == r.sector)
            .map(|i| (i, false))
            .or_else(|| {
                list[scan.clone()]
                    .iter()
                    .rposition(|q| fits(&q.request) && q.request.sector == r.end())
                    .map(|i| (i, true))
            });
        let Some((i, front)) = found else {
            queue.push(Queued {
                request: r,
                parts: Vec::new(),
            });
            return Arrival::New;
        };
        let q = &mut list[scan.start + i];
        let old = q.request;
        if q.parts.is_empty() {
            q.parts.push(old);
        }
        if front {
            q.request.sector = r.sector;
            q.parts.insert(0, r);
        } else {
            q.parts.push(r);
        }
        q.request.sectors += r.sectors;
        let merged = q.request;
        self.merges += 1;
        Arrival::Merged { old, merged }
    }

    /// The policy dispatched `r`: it is no longer open to merges. Returns
    /// the original requests it carries (empty if none were merged into it).
    pub(super) fn dispatched(&mut self, r: &Request) -> Vec<Request> {
        let list = if r.flow.0 < DENSE_FLOWS {
            self.dense.get_mut(r.flow.0 as usize)
        } else {
            self.sparse.get_mut(&r.flow)
        };
        let Some(list) = list else {
            return Vec::new();
        };
        let Some(q) = list.take(r.id) else {
            return Vec::new();
        };
        debug_assert_eq!(q.request, *r, "the policy dispatched a stale copy");
        q.parts
    }

    /// A flow is gone: a hash-map list with nothing queued is dropped (a
    /// dense one stays, empty, for the number's next user).
    pub(super) fn flow_removed(&mut self, flow: FlowId) {
        if self.sparse.get(&flow).is_some_and(|q| q.is_empty()) {
            self.sparse.remove(&flow);
        }
    }
}

/// The originals a merged request carries, with the request's device time
/// shared among them by size (the remainder to the last), so that per-flow
/// disk time adds up to what the device spent.
pub(super) fn share_by_size(total: u64, parts: &[Request]) -> impl Iterator<Item = u64> + '_ {
    let sectors: u64 = parts
        .iter()
        .map(|p| u64::from(p.sectors))
        .sum::<u64>()
        .max(1);
    let mut given = 0u64;
    let n = parts.len();
    parts.iter().enumerate().map(move |(i, p)| {
        let share = if i + 1 == n {
            total - given
        } else {
            (u128::from(total) * u128::from(p.sectors) / u128::from(sectors)) as u64
        };
        given += share;
        share
    })
}

#[cfg(test)]
mod queue_tests {
    use super::*;
    use crate::types::RequestId;
    use proptest::prelude::*;

    fn queued(id: u64) -> Queued {
        let request = Request {
            id: RequestId(id),
            origin: RequestId(id),
            flow: FlowId(0),
            dir: crate::types::Direction::Read,
            sync: true,
            sector: id * 8,
            sectors: 8,
            arrival: crate::time::Instant::ZERO,
        };
        Queued {
            request,
            parts: Vec::new(),
        }
    }

    /// The defect a fleet's overloaded node hit: a deep queue served in
    /// arrival order kept every served entry's place and moved the list
    /// at each dispatch. Served entries are now dropped in bulk.
    #[test]
    fn serving_a_deep_queue_in_order_drops_the_served() {
        let mut q = Queue::default();
        for id in 0..10_000 {
            q.push(queued(id));
        }
        for id in 0..9_990 {
            assert_eq!(q.take(RequestId(id)).unwrap().request.id, RequestId(id));
            assert!(q.items.len() <= 2 * (10_000 - id as usize) + DROP_SERVED);
        }
        assert_eq!(q.live().len(), 10);
        assert!(q.items.len() < 64, "{}", q.items.len());
    }

    proptest! {
        /// Whatever the order of arrivals' ids and of dispatches, the
        /// queue holds what a plain list would, in the same order.
        #[test]
        fn the_queue_is_a_list(ops in proptest::collection::vec((any::<bool>(), 0u64..64, any::<bool>()), 1..300)) {
            let mut q = Queue::default();
            let mut model: Vec<u64> = Vec::new();
            let mut next = 0u64;
            for (push, pick, sorted) in ops {
                if push || model.is_empty() {
                    // Ids mostly rising, as hosts number them; sometimes not.
                    let id = if sorted { next + 100 } else { next % 7 };
                    next += 100;
                    if model.contains(&id) { continue; }
                    q.push(queued(id));
                    model.push(id);
                } else {
                    let i = pick as usize % model.len();
                    let i = if pick % 3 == 0 { 0 } else { i };
                    let id = model.remove(i);
                    prop_assert_eq!(q.take(RequestId(id)).map(|x| x.request.id), Some(RequestId(id)));
                    prop_assert!(q.take(RequestId(id)).is_none());
                }
                let live: Vec<u64> = q.live().iter().map(|x| x.request.id.0).collect();
                prop_assert_eq!(&live, &model);
                prop_assert_eq!(q.is_empty(), model.is_empty());
            }
        }
    }
}
