//! `deadline`: Linux 2.6's deadline I/O scheduler (`block/deadline-iosched.c`),
//! one of the baselines of the VIOS paper's §7. Written from a reading of
//! the 2.6-era source (no kernel code copied; kernel function names are
//! given for cross-reference).
//!
//! * Per direction, pending requests are kept sorted by sector and in a FIFO
//!   with a deadline: arrival + `read_expire_ms` (500) or `write_expire_ms`
//!   (5000).
//! * A *batch* continues in ascending sector order (`next_rq`, the request
//!   after the last dispatched one in its direction, no wrap) for up to
//!   `fifo_batch` (16) requests (`deadline_dispatch_requests`).
//! * A new batch prefers reads; writes are chosen when there are no reads,
//!   or when reads were preferred over pending writes `writes_starved` (2)
//!   times in a row.
//! * A new batch starts at the oldest request of its direction if that one
//!   has expired (`deadline_check_fifo`) or if the sweep in that direction
//!   has run past the highest sector; otherwise it continues the sweep.
//! * No merging (`front_merges` is irrelevant without merging). Never idles;
//!   expiry is checked when the device asks for a request, as the kernel
//!   does.

use std::collections::VecDeque;

use super::params::{declare_params, ParamReader, ParamTable};
use super::sorted::{LazyMap, Slab};
use crate::error::Error;
use crate::scheduler::{Decision, DeviceView, Scheduler};
use crate::time::{Duration, Instant};
use crate::types::Request;

declare_params! {
    /// The tunables by their parameter names, with the kernel's defaults.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct DeadlineTunables {
        /// a read's FIFO deadline
        read_expire_ms: u64 = int(500, 0, 1_000_000),
        /// a write's FIFO deadline
        write_expire_ms: u64 = int(5000, 0, 1_000_000),
        /// read batches before writes must be served
        ///
        /// How many times in a row reads may be preferred over pending
        /// writes before a batch must serve writes.
        writes_starved: u32 = int(2, 0, 1_000_000),
        /// requests per sector-sorted batch
        fifo_batch: u32 = int(16, 1, 1_000_000),
    }
}

/// The parameter table of `deadline`.
pub(crate) const PARAMS: ParamTable = DeadlineTunables::TABLE;

/// The configuration: [`DeadlineTunables`] with times as durations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeadlineParams {
    /// `read_expire_ms`: a read's FIFO deadline after its arrival.
    pub read_expire: Duration,
    /// `write_expire_ms`: a write's FIFO deadline after its arrival.
    pub write_expire: Duration,
    /// `writes_starved`.
    pub writes_starved: u32,
    /// `fifo_batch`: most requests per sector-sorted batch.
    pub fifo_batch: u32,
}

impl Default for DeadlineParams {
    /// The declared defaults.
    fn default() -> Self {
        Self::from(DeadlineTunables::default())
    }
}

impl From<DeadlineTunables> for DeadlineParams {
    fn from(t: DeadlineTunables) -> Self {
        DeadlineParams {
            read_expire: Duration::from_millis(t.read_expire_ms),
            write_expire: Duration::from_millis(t.write_expire_ms),
            writes_starved: t.writes_starved,
            fifo_batch: t.fifo_batch,
        }
    }
}

impl DeadlineParams {
    /// Read the parameters by name; absent ones keep the kernel defaults.
    pub(crate) fn read(p: &mut ParamReader<'_>) -> Result<Self, Error> {
        DeadlineTunables::read(p).map(Self::from)
    }
}

/// A queued request with its FIFO deadline: one whole cache line, aligned
/// to it (unaligned, each would straddle two, and at thousands of queued
/// requests each line read is a miss).
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
struct Pending {
    r: Request,
    deadline: Instant,
    /// False once taken: the slot waits for reuse, and FIFO entries that
    /// still name it are stale.
    live: bool,
}

/// One FIFO entry: (deadline, id) order, and the slot of the request.
type FifoEntry = (Instant, u64, u32);

/// One direction's requests: sorted by (sector, id) and by (deadline, id).
///
/// The FIFO is a deque in (deadline, id) order, not a tree: deadlines are
/// arrival plus one constant per direction, so arrivals append. Taking a
/// request out of its middle only marks its slot; stale entries are dropped
/// when they reach the front, or all at once when they outnumber the live.
#[derive(Debug, Default)]
struct DirQueue {
    /// (sector, id) -> slot in `slab`.
    sorted: LazyMap<u32>,
    fifo: VecDeque<FifoEntry>,
    slab: Slab<Pending>,
}

impl DirQueue {
    fn insert(&mut self, r: Request, deadline: Instant) {
        let p = Pending {
            r,
            deadline,
            live: true,
        };
        let slot = self.slab.insert(p);
        self.sorted.insert((r.sector, r.id.0), slot);
        // In order from the back: an append unless the clock or the ids
        // ran backwards.
        let e = (deadline, r.id.0, slot);
        if self.fifo.back().is_none_or(|x| (x.0, x.1) < (e.0, e.1)) {
            self.fifo.push_back(e);
            return;
        }
        let at = self.fifo.len()
            - self
                .fifo
                .iter()
                .rev()
                .take_while(|x| (x.0, x.1) > (e.0, e.1))
                .count();
        self.fifo.insert(at, e);
    }

    /// Whether FIFO entry `e` still names a queued request.
    fn is_live(&self, e: &FifoEntry) -> bool {
        let p = self.slab.get(e.2);
        p.live && p.r.id.0 == e.1
    }

    /// Take `key` out; its request and the key after it in sector order
    /// (`deadline_latter_request`).
    fn remove_with_next(&mut self, key: (u64, u64)) -> Option<(Request, Option<(u64, u64)>)> {
        let (slot, next) = self.sorted.remove_with_next(key)?;
        self.slab.get_mut(slot).live = false;
        self.slab.release(slot);
        // The batch goes on with `next`: load it meanwhile.
        if let Some(&after) = self.sorted.near_finger().next() {
            self.slab.prefetch(after);
        }
        if self.fifo.len() > 4 * self.sorted.len() + 64 {
            let slab = &self.slab;
            self.fifo.retain(|e| {
                let p = slab.get(e.2);
                p.live && p.r.id.0 == e.1
            });
        }
        Some((self.slab.get(slot).r, next))
    }

    /// `old` grew into `merged`: re-key it, keeping its deadline.
    fn merge(&mut self, old: &Request, merged: &Request) -> bool {
        let Some(slot) = self.sorted.remove((old.sector, old.id.0)) else {
            return false;
        };
        self.slab.get_mut(slot).r = *merged;
        self.sorted.insert((merged.sector, merged.id.0), slot);
        true
    }

    /// The oldest request's key and whether its deadline has passed.
    fn fifo_head(&mut self, now: Instant) -> Option<((u64, u64), bool)> {
        while let Some(e) = self.fifo.front() {
            if self.is_live(e) {
                let p = self.slab.get(e.2);
                return Some(((p.r.sector, e.1), now > p.deadline));
            }
            self.fifo.pop_front();
        }
        None
    }

    fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }

    fn len(&self) -> usize {
        self.sorted.len()
    }
}

/// The deadline scheduler.
#[derive(Debug, Default)]
pub struct Deadline {
    p: DeadlineParams,
    /// Index 0 = reads, 1 = writes.
    q: [DirQueue; 2],
    /// The next request of the current sweep, per direction (only one is
    /// set at a time, as in the kernel).
    next: [Option<(u64, u64)>; 2],
    batching: u32,
    starved: u32,
}

impl Deadline {
    /// A deadline scheduler with the kernel's defaults.
    pub fn new() -> Self {
        Self::with_params(DeadlineParams::default())
    }

    /// A deadline scheduler with the given tunables.
    pub fn with_params(p: DeadlineParams) -> Self {
        Deadline {
            p,
            ..Default::default()
        }
    }

    /// Take the request `key` of direction `dir` and set up the sweep after
    /// it (`deadline_move_request`).
    fn take(&mut self, dir: usize, key: (u64, u64)) -> Request {
        let (r, after) = self.q[dir].remove_with_next(key).expect("pending request");
        self.next = [None, None];
        self.next[dir] = after;
        self.batching += 1;
        r
    }
}

impl Scheduler for Deadline {
    fn name(&self) -> &str {
        "deadline"
    }

    fn add(&mut self, now: Instant, request: Request) {
        let (dir, expire) = if request.is_write() {
            (1, self.p.write_expire)
        } else {
            (0, self.p.read_expire)
        };
        self.q[dir].insert(request, now + expire);
    }

    fn merge(&mut self, _now: Instant, old: &Request, merged: &Request) {
        let dir = usize::from(merged.is_write());
        if self.q[dir].merge(old, merged) && self.next[dir] == Some((old.sector, old.id.0)) {
            self.next[dir] = Some((merged.sector, merged.id.0));
        }
    }

    fn dispatch(&mut self, now: Instant, _device: &dyn DeviceView) -> Decision {
        // Continue the current batch.
        let cur = match (self.next[0], self.next[1]) {
            (Some(k), _) => Some((0, k)),
            (None, Some(k)) => Some((1, k)),
            _ => None,
        };
        if let Some((dir, key)) = cur {
            if self.batching < self.p.fifo_batch {
                return Decision::Dispatch(self.take(dir, key));
            }
        }
        // A new batch: choose the direction.
        let reads = !self.q[0].is_empty();
        let writes = !self.q[1].is_empty();
        let dir = if reads {
            if writes && self.starved >= self.p.writes_starved {
                self.starved = 0;
                1
            } else {
                if writes {
                    self.starved += 1;
                }
                0
            }
        } else if writes {
            self.starved = 0;
            1
        } else {
            return Decision::Nothing;
        };
        let (head, expired) = self.q[dir].fifo_head(now).expect("non-empty");
        let key = match self.next[dir] {
            Some(k) if !expired => k,
            _ => head,
        };
        self.batching = 0;
        Decision::Dispatch(self.take(dir, key))
    }

    fn queued(&self) -> usize {
        self.q[0].len() + self.q[1].len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testkit::{at_ms, Testbed};

    /// A device that takes 32 requests: the order is the policy's alone.
    fn deep(s: Deadline) -> Testbed<Deadline> {
        Testbed::new(s, 32)
    }

    fn batch_of(fifo_batch: u32) -> Deadline {
        Deadline::with_params(DeadlineParams {
            fifo_batch,
            ..Default::default()
        })
    }

    /// An async write of 8 sectors at `sector` arrives now.
    fn write(tb: &mut Testbed<Deadline>, sector: u64) -> Request {
        tb.add_request(0, sector, 8, true)
    }

    /// Let the policy fill the device; the ids sent.
    fn fill_ids(tb: &mut Testbed<Deadline>) -> Vec<u64> {
        tb.fill().iter().map(|r| r.id.0).collect()
    }

    #[test]
    fn a_batch_sweeps_up_in_sector_order_from_the_oldest() {
        let mut tb = deep(Deadline::new());
        for sector in [500u64, 100, 900, 300] {
            tb.add(0, sector, 8);
        }
        // The first batch starts at the FIFO head (500), sweeps up to 900,
        // then the sweep is exhausted: the next batch starts at the oldest
        // remaining (100), then 300.
        assert_eq!(fill_ids(&mut tb), vec![0, 2, 1, 3]);
    }

    #[test]
    fn an_expired_request_starts_the_next_batch() {
        let mut tb = deep(batch_of(2));
        tb.add(0, 1000, 8);
        let oldest_after_first = tb.add(0, 10, 8);
        tb.advance_to(at_ms(1));
        for i in 2..6 {
            tb.add(0, 1000 + i, 8);
        }
        let first: Vec<u64> = (0..2).map(|_| tb.expect_dispatch().id.0).collect();
        assert_eq!(first, vec![0, 2]);
        // Before expiry the next batch continues the sweep (3, 4)...
        tb.advance_to(at_ms(100));
        assert_eq!(tb.expect_dispatch().id.0, 3);
        assert_eq!(tb.expect_dispatch().id.0, 4);
        // ...after 500 ms the expired request 1 (sector 10) jumps ahead.
        tb.advance_to(at_ms(501));
        assert_eq!(tb.expect_dispatch().id, oldest_after_first.id);
    }

    #[test]
    fn batches_are_at_most_fifo_batch_long() {
        let mut tb = deep(Deadline::new());
        // 20 reads at ascending sectors and one write.
        for i in 0..20 {
            tb.add(0, i * 10, 8);
        }
        let w = write(&mut tb, 5);
        let order = fill_ids(&mut tb);
        // Reads are preferred: a batch of 16 reads, then a second read batch
        // (starved = 1 < 2) of the 4 remaining, then the write.
        assert_eq!(order[..16], (0..16).collect::<Vec<_>>()[..]);
        assert_eq!(order[16..20], [16, 17, 18, 19]);
        assert_eq!(order[20..], [w.id.0]);
    }

    #[test]
    fn reads_are_preferred_until_writes_starved_batches() {
        let mut tb = deep(batch_of(1));
        for i in 0..6 {
            tb.add(0, 1000 * i, 8);
        }
        let (w1, w2) = (write(&mut tb, 0).id.0, write(&mut tb, 0).id.0);
        // Batches of one: read, read, then the write (starved reached 2),
        // read, read, write, then the remaining reads.
        assert_eq!(fill_ids(&mut tb), vec![0, 1, w1, 2, 3, w2, 4, 5]);
    }

    #[test]
    fn a_pending_request_is_one_whole_cache_line() {
        assert_eq!(std::mem::size_of::<Pending>(), 64);
        assert_eq!(std::mem::align_of::<Pending>(), 64);
    }

    #[test]
    fn writes_go_when_there_are_no_reads() {
        let mut tb = deep(Deadline::new());
        write(&mut tb, 50);
        write(&mut tb, 10);
        assert_eq!(fill_ids(&mut tb), vec![0, 1]);
        assert_eq!(tb.policy().queued(), 0);
    }
}
