//! DOR's reservation queues by dense slot. The gap search looks up the
//! flow of nearly every request it meets, and at thousands of flows each
//! lookup is a cache miss: a slot found through a direct table (ids below
//! 2^16; a hash map beyond) and one 128-byte, line-aligned entry cost one,
//! where a hashed entry cost two. Slots of removed flows are reused.

use std::ops::Index;

use super::super::fair_ids::SlotIds;
use super::DFlow;
use crate::types::FlowId;

/// The flows, by slot.
#[derive(Debug, Default)]
pub(super) struct FlowTable {
    ids: SlotIds,
    /// `None`: a removed flow's slot, waiting in `free`.
    flows: Vec<Option<DFlow>>,
    free: Vec<u32>,
}

impl FlowTable {
    /// The slot of flow `k`, if it has one.
    #[inline]
    pub(super) fn slot(&self, k: FlowId) -> Option<usize> {
        self.ids.get(k).map(|s| s as usize)
    }

    #[inline]
    pub(super) fn get(&self, k: &FlowId) -> Option<&DFlow> {
        self.flows[self.slot(*k)?].as_ref()
    }

    #[inline]
    pub(super) fn get_mut(&mut self, k: &FlowId) -> Option<&mut DFlow> {
        let s = self.slot(*k)?;
        self.flows[s].as_mut()
    }

    /// Flow `k` and its slot, made by `new` if it has none.
    #[inline]
    pub(super) fn get_or_insert_with(
        &mut self,
        k: FlowId,
        new: impl FnOnce() -> DFlow,
    ) -> (usize, &mut DFlow) {
        let s = match self.slot(k) {
            Some(s) => s,
            None => {
                let s = match self.free.pop() {
                    Some(s) => s as usize,
                    None => {
                        self.flows.push(None);
                        self.flows.len() - 1
                    }
                };
                self.flows[s] = Some(new());
                self.ids.insert(k, s as u32);
                s
            }
        };
        (
            s,
            self.flows[s]
                .as_mut()
                .expect("a slot in use holds its flow"),
        )
    }

    /// Forget flow `k`; its slot is reused.
    pub(super) fn remove(&mut self, k: &FlowId) {
        if let Some(s) = self.slot(*k) {
            self.ids.remove(*k);
            self.flows[s] = None;
            self.free.push(s as u32);
        }
    }

    pub(super) fn values(&self) -> impl Iterator<Item = &DFlow> {
        self.flows.iter().flatten()
    }

    pub(super) fn values_mut(&mut self) -> impl Iterator<Item = &mut DFlow> {
        self.flows.iter_mut().flatten()
    }
}

impl Index<&FlowId> for FlowTable {
    type Output = DFlow;

    fn index(&self, k: &FlowId) -> &DFlow {
        self.get(k).expect("a flow DOR holds")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_two_whole_cache_lines() {
        assert_eq!(std::mem::size_of::<Option<DFlow>>(), 128);
        assert_eq!(std::mem::align_of::<Option<DFlow>>(), 64);
    }

    #[test]
    fn slots_follow_their_flows_and_are_reused_after_removal() {
        let mut t = FlowTable::default();
        let far = FlowId(1 << 20);
        for (k, w) in [(FlowId(7), 1), (far, 2), (FlowId(0), 3)] {
            t.get_or_insert_with(k, || DFlow::new(w));
        }
        assert_eq!(t[&FlowId(7)].weight, 1);
        assert_eq!(t[&far].weight, 2);
        assert_eq!(t.slot(far), Some(1));
        // An existing flow is found, not made again.
        let (s, fl) = t.get_or_insert_with(far, || DFlow::new(9));
        assert_eq!((s, fl.weight), (1, 2));
        t.remove(&far);
        assert!(t.get(&far).is_none() && t.slot(far).is_none());
        assert_eq!(t.values().count(), 2);
        // The freed slot goes to the next new flow.
        let (s, _) = t.get_or_insert_with(FlowId(5), || DFlow::new(4));
        assert_eq!(s, 1);
        assert_eq!(t[&FlowId(5)].weight, 4);
        let mut weights: Vec<u32> = t.values().map(|f| f.weight).collect();
        weights.sort_unstable();
        assert_eq!(weights, [1, 3, 4]);
        t.remove(&FlowId(99));
        assert_eq!(t.values_mut().count(), 3);
    }
}
