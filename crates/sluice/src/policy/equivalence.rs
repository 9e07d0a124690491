//! Equivalence tests: the sector-order policies against frozen copies of
//! their `BTreeMap` versions, which the golden reproductions were made
//! with. Any script, any depth, merging on or off: the same dispatch order.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;

use super::{Clook, Deadline, DeadlineParams, Sstf};
use crate::scheduler::{Decision, DeviceView, Scheduler};
use crate::testkit::{Op, Testbed};
use crate::time::{Duration, Instant};
use crate::types::Request;

/// The `BTreeMap` deadline as it was (`deadline.rs` before the sorted
/// blocks and the FIFO deque).
mod deadline_ref {
    use super::*;

    /// One direction's requests: sorted by (sector, id) and by (deadline, id).
    #[derive(Debug, Default)]
    struct DirQueue {
        sorted: BTreeMap<(u64, u64), (Request, Instant)>,
        fifo: BTreeSet<(Instant, u64, u64)>,
    }

    impl DirQueue {
        fn insert(&mut self, r: Request, deadline: Instant) {
            self.sorted.insert((r.sector, r.id.0), (r, deadline));
            self.fifo.insert((deadline, r.id.0, r.sector));
        }

        fn remove(&mut self, key: (u64, u64)) -> Option<Request> {
            let (r, deadline) = self.sorted.remove(&key)?;
            self.fifo.remove(&(deadline, r.id.0, r.sector));
            Some(r)
        }

        /// `old` grew into `merged`: re-key it, keeping its deadline.
        fn merge(&mut self, old: &Request, merged: &Request) -> bool {
            let Some((_, deadline)) = self.sorted.get(&(old.sector, old.id.0)).copied() else {
                return false;
            };
            self.remove((old.sector, old.id.0));
            self.insert(*merged, deadline);
            true
        }

        /// The oldest request's key and whether its deadline has passed.
        fn fifo_head(&self, now: Instant) -> Option<((u64, u64), bool)> {
            self.fifo
                .iter()
                .next()
                .map(|&(d, id, sector)| ((sector, id), now > d))
        }

        /// The request after `key` in sector order (`deadline_latter_request`).
        fn latter(&self, key: (u64, u64)) -> Option<(u64, u64)> {
            use std::ops::Bound::{Excluded, Unbounded};
            self.sorted
                .range((Excluded(key), Unbounded))
                .next()
                .map(|(k, _)| *k)
        }

        fn is_empty(&self) -> bool {
            self.sorted.is_empty()
        }
    }

    /// The deadline scheduler.
    #[derive(Debug, Default)]
    pub(super) struct Deadline {
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
        /// A deadline scheduler with the given tunables.
        pub(super) fn with_params(p: DeadlineParams) -> Self {
            Deadline {
                p,
                ..Default::default()
            }
        }

        /// Take the request `key` of direction `dir` and set up the sweep after
        /// it (`deadline_move_request`).
        fn take(&mut self, dir: usize, key: (u64, u64)) -> Request {
            let after = self.q[dir].latter(key);
            let r = self.q[dir].remove(key).expect("pending request");
            self.next = [None, None];
            self.next[dir] = after;
            self.batching += 1;
            r
        }
    }

    impl Scheduler for Deadline {
        fn name(&self) -> &str {
            "deadline-reference"
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
            self.q[0].sorted.len() + self.q[1].sorted.len()
        }
    }
}

/// The `BTreeMap` C-LOOK and SSTF as they were.
#[derive(Debug, Default)]
struct SortedRef {
    sstf: bool,
    sorted: BTreeMap<(u64, u64), Request>,
}

impl Scheduler for SortedRef {
    fn name(&self) -> &str {
        "sorted-reference"
    }

    fn add(&mut self, _now: Instant, request: Request) {
        self.sorted.insert((request.sector, request.id.0), request);
    }

    fn merge(&mut self, _now: Instant, old: &Request, merged: &Request) {
        super::merge_sorted(&mut self.sorted, old, merged, |r| r);
    }

    fn dispatch(&mut self, _now: Instant, device: &dyn DeviceView) -> Decision {
        let head = device.head();
        if !self.sstf {
            return Clook::pop_from(&mut self.sorted, head).into();
        }
        let above = self.sorted.range((head, 0)..).next().map(|(k, _)| *k);
        let below = self.sorted.range(..(head, 0)).next_back().map(|(k, _)| *k);
        let key = match (below, above) {
            (None, None) => return Decision::Nothing,
            (Some(k), None) | (None, Some(k)) => k,
            (Some(b), Some(a)) => {
                if device.seek_time(head, b.0) < device.seek_time(head, a.0) {
                    b
                } else {
                    a
                }
            }
        };
        Decision::Dispatch(self.sorted.remove(&key).unwrap())
    }

    fn queued(&self) -> usize {
        self.sorted.len()
    }
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        // Few distinct sectors: ties, and contiguous arrivals that merge.
        6 => (0u32..4, 0u64..64, 1u32..16, any::<bool>()).prop_map(|(flow, s, sectors, write)| {
            Op::Add { flow, sector: s * 8, sectors, write }
        }),
        2 => (0usize..8).prop_map(Op::Complete),
        1 => (0u64..60).prop_map(|ms| Op::Advance(Duration::from_millis(ms))),
    ]
}

/// The order `a` and `b` dispatch in under `ops`.
fn same_order<A: Scheduler, B: Scheduler>(a: A, b: B, ops: &[Op], depth: usize, merge: bool) {
    let (mut ta, mut tb) = (Testbed::new(a, depth), Testbed::new(b, depth));
    if merge {
        ta = ta.with_merging(64);
        tb = tb.with_merging(64);
    }
    for op in ops {
        ta.step(op);
        tb.step(op);
    }
    ta.drain();
    tb.drain();
    assert_eq!(ta.order(), tb.order());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn deadline_dispatches_as_before(
        ops in prop::collection::vec(op(), 1..400),
        depth in 1usize..4,
        merge in any::<bool>(),
        fifo_batch in 1u32..20,
        expire in 1u64..60,
    ) {
        let p = DeadlineParams {
            read_expire: Duration::from_millis(expire),
            write_expire: Duration::from_millis(expire * 3),
            fifo_batch,
            ..DeadlineParams::default()
        };
        same_order(
            Deadline::with_params(p.clone()),
            deadline_ref::Deadline::with_params(p),
            &ops,
            depth,
            merge,
        );
    }

    #[test]
    fn clook_and_sstf_dispatch_as_before(
        ops in prop::collection::vec(op(), 1..400),
        depth in 1usize..4,
        merge in any::<bool>(),
    ) {
        same_order(Clook::default(), SortedRef::default(), &ops, depth, merge);
        same_order(Sstf::default(), SortedRef { sstf: true, ..SortedRef::default() }, &ops, depth, merge);
    }
}
