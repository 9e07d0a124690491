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
//! Two hash maps index the queued requests by their end and by their start
//! sector (the kernel hashes ends for back merges and looks starts up in the
//! scheduler's sort tree for front merges). A request is only indexed under
//! a key no other queued request holds, so a merge never loses track of the
//! original requests it carries.

use std::collections::hash_map::Entry;

use crate::idhash::IdMap;
use crate::types::Request;

/// Linux's default `max_sectors_kb` in the 2.6.3x kernels: 512 KiB.
pub const DEFAULT_MAX_REQUEST_SECTORS: u32 = 1024;

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

/// The merge index of the requests the policy holds.
#[derive(Debug)]
pub(super) struct Merger {
    max_sectors: u32,
    /// Queued requests by the sector just past their end.
    by_end: IdMap<u64, Queued>,
    /// The end key of the queued request starting at each sector.
    by_start: IdMap<u64, u64>,
    merges: u64,
}

fn same_queue(a: &Request, b: &Request) -> bool {
    a.flow == b.flow && a.dir == b.dir && a.sync == b.sync
}

impl Merger {
    pub(super) fn new(max_sectors: u32) -> Self {
        Merger {
            max_sectors: max_sectors.max(1),
            by_end: IdMap::default(),
            by_start: IdMap::default(),
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

    /// Decide what happens to arrival `r`.
    pub(super) fn arrive(&mut self, r: Request) -> Arrival {
        if let Some(a) = self.back_merge(&r).or_else(|| self.front_merge(&r)) {
            self.merges += 1;
            return a;
        }
        self.index(Queued {
            request: r,
            parts: Vec::new(),
        });
        Arrival::New
    }

    /// The policy dispatched `r`: it leaves the index. Returns the original
    /// requests it carries (empty if none were merged into it).
    pub(super) fn dispatched(&mut self, r: &Request) -> Vec<Request> {
        let Entry::Occupied(e) = self.by_end.entry(r.end()) else {
            return Vec::new();
        };
        if e.get().request.id != r.id {
            return Vec::new();
        }
        let q = e.remove();
        if self.by_start.get(&r.sector) == Some(&r.end()) {
            self.by_start.remove(&r.sector);
        }
        debug_assert_eq!(q.request, *r, "the policy dispatched a stale copy");
        q.parts
    }

    fn fits(&self, q: &Request, r: &Request) -> bool {
        same_queue(q, r)
            && u64::from(q.sectors) + u64::from(r.sectors) <= u64::from(self.max_sectors)
    }

    /// `r` starts where a queued request ends.
    fn back_merge(&mut self, r: &Request) -> Option<Arrival> {
        let q = self.by_end.get(&r.sector)?;
        if !self.fits(&q.request, r) || self.by_end.contains_key(&r.end()) {
            return None;
        }
        let mut q = self.by_end.remove(&r.sector).expect("found above");
        let old = q.request;
        q.request.sectors += r.sectors;
        if self.by_start.get(&old.sector) == Some(&old.end()) {
            self.by_start.insert(old.sector, r.end());
        }
        Some(self.joined(q, old, *r, false))
    }

    /// `r` ends where a queued request starts.
    fn front_merge(&mut self, r: &Request) -> Option<Arrival> {
        let end = *self.by_start.get(&r.end())?;
        let q = self.by_end.get(&end)?;
        if !self.fits(&q.request, r) || self.by_start.contains_key(&r.sector) {
            return None;
        }
        let mut q = self.by_end.remove(&end).expect("found above");
        let old = q.request;
        self.by_start.remove(&old.sector);
        q.request.sector = r.sector;
        q.request.sectors += r.sectors;
        self.by_start.insert(r.sector, end);
        Some(self.joined(q, old, *r, true))
    }

    /// Record `r` among `q`'s parts and index `q` again.
    fn joined(&mut self, mut q: Queued, old: Request, r: Request, front: bool) -> Arrival {
        if q.parts.is_empty() {
            q.parts.push(old);
        }
        if front {
            q.parts.insert(0, r);
        } else {
            q.parts.push(r);
        }
        let merged = q.request;
        self.by_end.insert(merged.end(), q);
        Arrival::Merged { old, merged }
    }

    /// Index a new queued request under keys no other one holds.
    fn index(&mut self, q: Queued) {
        let (start, end) = (q.request.sector, q.request.end());
        if self.by_end.contains_key(&end) {
            return;
        }
        if let Entry::Vacant(v) = self.by_start.entry(start) {
            v.insert(end);
        }
        self.by_end.insert(end, q);
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
