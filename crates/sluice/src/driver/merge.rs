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

use crate::idhash::IdMap;
use crate::types::{FlowId, Request};

mod queue;
use queue::{Queue, Queued};

/// Linux's default `max_sectors_kb` in the 2.6.3x kernels: 512 KiB.
pub const DEFAULT_MAX_REQUEST_SECTORS: u32 = 1024;

/// How many of a flow's queued requests (the most recent) an arrival is
/// compared with: bounds the work per arrival for flows with hundreds
/// queued.
const SCAN: usize = 32;

/// Flows numbered below this have their list in a vector indexed by the
/// number (hosts number flows from 0); others in a hash map.
const DENSE_FLOWS: u32 = 1 << 16;

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
        let fits = |q: &Request| {
            q.dir == r.dir && q.sync == r.sync && u64::from(q.sectors) + u64::from(r.sectors) <= max
        };
        // The last SCAN queued, newest first: a back merge, else a front one.
        let found = queue
            .newest(SCAN)
            .find(|&i| {
                let q = &queue.get(i).request;
                fits(q) && q.end() == r.sector
            })
            .map(|i| (i, false))
            .or_else(|| {
                queue
                    .newest(SCAN)
                    .find(|&i| {
                        let q = &queue.get(i).request;
                        fits(q) && q.sector == r.end()
                    })
                    .map(|i| (i, true))
            });
        let Some((i, front)) = found else {
            queue.push(Queued::new(r));
            return Arrival::New;
        };
        let q = queue.get_mut(i);
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
