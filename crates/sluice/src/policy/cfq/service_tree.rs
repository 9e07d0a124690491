//! The three service trees (ASYNC, SYNC_NOIDLE, SYNC) and the choice of
//! the workload to serve and of its share of the target latency.

use super::super::sorted::SortedMap;
use super::{key, span, Cfq, Key, ASYNC, JIFFY, MIN_TT, SYNC, SYNC_NOIDLE};
use crate::time::{Instant, NS_PER_S};

/// One service tree: (key, insertion seq) -> queue, in the sorted
/// blocks the elevators use (a tree per workload holds every busy queue).
#[derive(Debug, Default)]
pub(super) struct ServiceTree {
    map: SortedMap<usize>,
}

/// The signed key as an unsigned one of the same order.
fn unsigned((k, seq): (Key, u64)) -> (u64, u64) {
    ((k as u64) ^ (1 << 63), seq)
}

impl ServiceTree {
    pub(super) fn len(&self) -> usize {
        self.map.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    pub(super) fn insert(&mut self, k: (Key, u64), qi: usize) {
        self.map.insert(unsigned(k), qi);
    }

    pub(super) fn remove(&mut self, k: &(Key, u64)) {
        self.map.remove(unsigned(*k));
    }

    /// The lowest key and its queue.
    pub(super) fn first(&self) -> Option<(Key, usize)> {
        self.map
            .first()
            .map(|((k, _), &qi)| ((k ^ (1 << 63)) as Key, qi))
    }
}

impl Cfq {
    pub(super) fn nr_cfqq(&self) -> usize {
        self.trees.iter().map(ServiceTree::len).sum()
    }

    /// `cfq_service_tree_add`.
    pub(super) fn service_tree_add(&mut self, qi: usize, add_front: bool, now: Instant) {
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
            let first = self.trees[wl].first().map(|(k, _)| k);
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
    pub(super) fn add_rr(&mut self, qi: usize, now: Instant) {
        self.queues[qi].on_rr = true;
        self.busy_queues += 1;
        self.service_tree_add(qi, false, now);
    }

    /// `cfq_del_cfqq_rr`.
    pub(super) fn del_rr(&mut self, qi: usize) {
        let q = &mut self.queues[qi];
        q.on_rr = false;
        if let Some((wl, k)) = q.tree.take() {
            self.trees[wl].remove(&k);
        }
        self.busy_queues -= 1;
    }

    pub(super) fn tree_count(&self, qi: usize) -> usize {
        self.queues[qi]
            .tree
            .map_or(0, |(wl, _)| self.trees[wl].len())
    }

    /// `cfq_choose_wl`: the workload whose first queue has the lowest key.
    pub(super) fn choose_wl(&self) -> usize {
        let mut best = SYNC_NOIDLE;
        let mut lowest: Option<Key> = None;
        for wl in [ASYNC, SYNC_NOIDLE, SYNC] {
            if let Some((k, _)) = self.trees[wl].first() {
                if lowest.is_none_or(|l| k < l) {
                    lowest = Some(k);
                    best = wl;
                }
            }
        }
        best
    }

    /// `choose_service_tree`.
    pub(super) fn choose_service_tree(&mut self, now: Instant) {
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
    pub(super) fn choose_cfqg(&mut self, now: Instant) {
        if !self.saved_workload_slice.is_zero() {
            self.workload_expires = Some(now + self.saved_workload_slice);
            self.serving_type = self.saved_workload;
        } else {
            self.workload_expires = None;
        }
        self.choose_service_tree(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys before the origin (the front-of-tree rule) sort first, as in
    /// the signed `BTreeMap` the tree replaced.
    #[test]
    fn negative_keys_come_first() {
        let mut t = ServiceTree::default();
        let keys = [
            (5, 1),
            (-1_000_000_000, 2),
            (Key::MAX, 3),
            (Key::MIN, 4),
            (0, 5),
            (-1, 6),
        ];
        for (i, k) in keys.into_iter().enumerate() {
            t.insert(k, i);
        }
        let mut order = Vec::new();
        while let Some((k, qi)) = t.first() {
            order.push(k);
            t.remove(&keys[qi]);
        }
        assert_eq!(order, [Key::MIN, -1_000_000_000, -1, 0, 5, Key::MAX]);
        assert!(t.is_empty());
    }
}
