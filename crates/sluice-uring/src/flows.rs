//! The engine's flows: each known flow gets a dense slot when it is added,
//! so that a request carries its slot and counting it out on completion is
//! an array access, not a hash lookup (with thousands of flows, that lookup
//! missed the cache on every completion). Finding a flow's slot at
//! submission is an array access too for the ids hosts give out (small
//! numbers counted from 0): [`SlotIds`], as the policies find theirs.

use sluice::{FlowId, SlotIds};

/// Known flows and the requests each has pending.
#[derive(Debug, Default)]
pub(crate) struct FlowSlots {
    /// The slot of each known flow.
    slot_of: SlotIds,
    /// Requests pending, by slot.
    pending: Vec<usize>,
    /// Slots of removed flows, for reuse.
    free: Vec<u32>,
}

impl FlowSlots {
    /// Add `flow`; false if it is known already.
    pub(crate) fn add(&mut self, flow: FlowId) -> bool {
        if self.slot(flow).is_some() {
            return false;
        }
        let slot = self.free.pop().unwrap_or_else(|| {
            self.pending.push(0);
            (self.pending.len() - 1) as u32
        });
        self.pending[slot as usize] = 0;
        self.slot_of.insert(flow, slot);
        true
    }

    /// Remove `flow` and free its slot; its pending count must be zero.
    pub(crate) fn remove(&mut self, flow: FlowId) {
        if let Some(slot) = self.slot_of.get(flow) {
            self.slot_of.remove(flow);
            debug_assert_eq!(self.pending[slot as usize], 0);
            self.free.push(slot);
        }
    }

    /// The slot of a known flow.
    pub(crate) fn slot(&self, flow: FlowId) -> Option<u32> {
        self.slot_of.get(flow)
    }

    /// Requests pending for `flow` (0 for an unknown flow).
    pub(crate) fn pending_of(&self, flow: FlowId) -> usize {
        self.slot(flow).map_or(0, |s| self.pending(s))
    }

    /// Requests pending in `slot`.
    pub(crate) fn pending(&self, slot: u32) -> usize {
        self.pending[slot as usize]
    }

    /// One more request pending in `slot`.
    pub(crate) fn up(&mut self, slot: u32) {
        self.pending[slot as usize] += 1;
    }

    /// One request fewer pending in `slot`.
    pub(crate) fn down(&mut self, slot: u32) {
        let n = &mut self.pending[slot as usize];
        debug_assert!(*n > 0, "a completion for a flow with nothing pending");
        *n = n.saturating_sub(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_follow_their_flow_and_freed_slots_start_at_zero() {
        let mut f = FlowSlots::default();
        assert!(f.add(FlowId(7)) && f.add(FlowId(9)) && !f.add(FlowId(7)));
        let (a, b) = (f.slot(FlowId(7)).unwrap(), f.slot(FlowId(9)).unwrap());
        assert_ne!(a, b);
        f.up(a);
        f.up(a);
        f.up(b);
        f.down(a);
        assert_eq!((f.pending_of(FlowId(7)), f.pending_of(FlowId(9))), (1, 1));
        f.down(a);
        f.remove(FlowId(7));
        assert_eq!(f.slot(FlowId(7)), None);
        assert_eq!(f.pending_of(FlowId(7)), 0);
        // The freed slot goes to the next flow, counting from zero.
        assert!(f.add(FlowId(11)));
        assert_eq!(f.slot(FlowId(11)), Some(a));
        assert_eq!(f.pending_of(FlowId(11)), 0);
        assert_eq!(f.pending_of(FlowId(9)), 1);
    }

    #[test]
    fn small_and_large_ids_alike() {
        // Ids on both sides of the direct table's bound, and its edges.
        // `SlotIds` indexes a table for ids below 2^16.
        const DIRECT_IDS: u32 = 1 << 16;
        let ids = [0, 1, DIRECT_IDS - 1, DIRECT_IDS, DIRECT_IDS + 1, u32::MAX];
        let mut f = FlowSlots::default();
        for &id in &ids {
            assert_eq!(f.slot(FlowId(id)), None);
            assert!(f.add(FlowId(id)));
            assert!(!f.add(FlowId(id)), "{id} added twice");
        }
        let slots: std::collections::HashSet<u32> =
            ids.iter().map(|&id| f.slot(FlowId(id)).unwrap()).collect();
        assert_eq!(slots.len(), ids.len(), "every flow its own slot");
        for &id in &ids {
            f.up(f.slot(FlowId(id)).unwrap());
        }
        for &id in &ids {
            assert_eq!(f.pending_of(FlowId(id)), 1);
            f.down(f.slot(FlowId(id)).unwrap());
            f.remove(FlowId(id));
            assert_eq!(f.slot(FlowId(id)), None, "{id} removed");
        }
        // A removed small id can come back; an id never added is unknown.
        assert!(f.add(FlowId(1)));
        assert_eq!(f.slot(FlowId(2)), None);
        assert_eq!(f.slot(FlowId(70_000)), None);
    }
}
