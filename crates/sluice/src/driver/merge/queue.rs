//! One flow's queued requests, as the merger keeps them: oldest first, the
//! first held inline, any one taken out in about O(log n).
//!
//! Most flows have one request queued at a time, and at 65,536 flows every
//! separate allocation touched is a cache miss (two a request, measured),
//! so the list holds its first entry inline. But an open-loop trace
//! overloading its disk queues a million requests in one flow: taking one
//! out of the middle of a plain list (BFQ serves a queue in sector order)
//! or the front (noop, in arrival order) moved the whole list each time,
//! and a fleet's node ran for hours. A request taken out is now marked
//! (a tombstone) unless it is at either end; the served ones are dropped in
//! bulk once they are as many as the queued ones.

use smallvec::SmallVec;

use crate::types::{Request, RequestId};

/// A queued request that later arrivals may join.
#[derive(Debug)]
pub(super) struct Queued {
    pub(super) request: Request,
    /// The original requests merged into it, in sector order (empty while
    /// it is one request).
    pub(super) parts: Vec<Request>,
    /// Dispatched: a tombstone, skipped by every reader.
    taken: bool,
}

impl Queued {
    pub(super) fn new(request: Request) -> Self {
        Queued {
            request,
            parts: Vec::new(),
            taken: false,
        }
    }
}

/// Tombstones are dropped once there are more than this many and more
/// than there are queued requests.
const DROP_TAKEN: usize = 32;

/// A flow's queued requests (see the module's documentation).
#[derive(Debug, Default)]
pub(super) struct Queue {
    items: SmallVec<[Queued; 1]>,
    /// Entries before `head` are all tombstones.
    head: usize,
    /// Tombstones from `head` on.
    taken: usize,
}

impl Queue {
    /// How many requests are queued.
    pub(super) fn len(&self) -> usize {
        self.items.len() - self.head - self.taken
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Queue `q` last.
    pub(super) fn push(&mut self, q: Queued) {
        self.items.push(q);
    }

    /// Where the last `n` queued requests are (at most `n`), newest first:
    /// arguments for [`Queue::get`] and [`Queue::get_mut`]. Lazy: an
    /// arrival that merges with the newest looks at no other.
    pub(super) fn newest(&self, n: usize) -> impl Iterator<Item = usize> + '_ {
        (self.head..self.items.len())
            .rev()
            .filter(|&i| !self.items[i].taken)
            .take(n)
    }

    /// The entry at `i` (from [`Queue::newest`]).
    pub(super) fn get(&self, i: usize) -> &Queued {
        &self.items[i]
    }

    /// The entry at `i` (from [`Queue::newest`]), to merge into.
    pub(super) fn get_mut(&mut self, i: usize) -> &mut Queued {
        &mut self.items[i]
    }

    /// Take out the queued request `id`, if queued. Hosts number requests
    /// as they arrive, so the list is in id order (tombstones keep their
    /// place) and a binary search finds it; any other numbering falls back
    /// to a scan.
    pub(super) fn take(&mut self, id: RequestId) -> Option<Queued> {
        let from = self.head;
        let items = &self.items[from..];
        let i = match items.binary_search_by_key(&id, |q| q.request.id) {
            Ok(i) if !items[i].taken => from + i,
            _ => from + items.iter().rposition(|q| !q.taken && q.request.id == id)?,
        };
        let q = if i + 1 == self.items.len() {
            let q = self.items.pop().expect("i is in the list");
            while self.items.len() > self.head && self.items.last().is_some_and(|q| q.taken) {
                self.items.pop();
                self.taken -= 1;
            }
            q
        } else {
            let tomb = Queued {
                request: self.items[i].request,
                parts: Vec::new(),
                taken: true,
            };
            let q = std::mem::replace(&mut self.items[i], tomb);
            if i == self.head {
                self.head += 1;
                while self.head < self.items.len() && self.items[self.head].taken {
                    self.head += 1;
                    self.taken -= 1;
                }
            } else {
                self.taken += 1;
            }
            q
        };
        self.tidy();
        Some(q)
    }

    /// Drop tombstones once they outnumber the queued requests.
    fn tidy(&mut self) {
        if self.head == self.items.len() {
            self.items.clear();
            self.head = 0;
            self.taken = 0;
            return;
        }
        let dead = self.head + self.taken;
        if dead > DROP_TAKEN && dead >= self.len() {
            self.items.retain(|q| !q.taken);
            self.head = 0;
            self.taken = 0;
        }
    }

    /// The queued requests, oldest first.
    #[cfg(test)]
    fn ids(&self) -> Vec<u64> {
        self.items
            .iter()
            .filter(|q| !q.taken)
            .map(|q| q.request.id.0)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::FlowId;
    use proptest::prelude::*;

    fn queued(id: u64) -> Queued {
        Queued::new(Request {
            id: RequestId(id),
            origin: RequestId(id),
            flow: FlowId(0),
            dir: crate::types::Direction::Read,
            sync: true,
            sector: id * 8,
            sectors: 8,
            arrival: crate::time::Instant::ZERO,
        })
    }

    /// The defect a fleet's overloaded node hit: a deep queue served in
    /// arrival order, or from its middle, kept every served entry and
    /// moved the list at each dispatch. Served entries are now dropped in
    /// bulk: the list stays within twice the queued requests.
    #[test]
    fn serving_a_deep_queue_keeps_it_short() {
        for middle in [false, true] {
            let mut q = Queue::default();
            for id in 0..10_000 {
                q.push(queued(id));
            }
            for k in 0..9_990u64 {
                // In order, or every other from the middle outwards.
                let id = if middle {
                    let m = 5_000i64;
                    let off = (k as i64 + 1) / 2;
                    (if k % 2 == 0 { m + off } else { m - off }) as u64
                } else {
                    k
                };
                assert_eq!(q.take(RequestId(id)).unwrap().request.id, RequestId(id));
                assert!(
                    q.items.len() <= 2 * q.len() + DROP_TAKEN + 1,
                    "{}",
                    q.items.len()
                );
            }
            assert_eq!(q.len(), 10);
        }
    }

    proptest! {
        /// Whatever the order of arrivals' ids and of dispatches, the
        /// queue holds what a plain list would, in the same order, and
        /// `last` names the same entries a plain list's tail would.
        #[test]
        fn the_queue_is_a_list(ops in proptest::collection::vec((any::<bool>(), 0u64..64, any::<bool>()), 1..400)) {
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
                    let i = match pick % 4 { 0 => 0, 1 => model.len() - 1, _ => pick as usize % model.len() };
                    let id = model.remove(i);
                    prop_assert_eq!(q.take(RequestId(id)).map(|x| x.request.id), Some(RequestId(id)));
                    prop_assert!(q.take(RequestId(id)).is_none());
                }
                prop_assert_eq!(&q.ids(), &model);
                prop_assert_eq!(q.len(), model.len());
                let mut tail: Vec<u64> = q.newest(5).map(|i| q.get(i).request.id.0).collect();
                tail.reverse();
                prop_assert_eq!(&tail[..], &model[model.len().saturating_sub(5)..]);
            }
        }
    }
}
