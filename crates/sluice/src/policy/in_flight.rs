//! A note per request in the device (the class that sent it, say), kept
//! until the request completes.
//!
//! A device holds few requests at once (its queue depth), so a short vector
//! searched in order costs less than a hash map's insert and remove: at
//! depth 1 the search is one comparison. The driver keeps its own requests
//! in flight the same way, so the search adds no new order of cost.

use crate::types::RequestId;

/// Requests in the device, each with a value.
#[derive(Clone, Debug)]
pub(crate) struct InFlightNotes<V> {
    notes: Vec<(RequestId, V)>,
}

impl<V> Default for InFlightNotes<V> {
    fn default() -> Self {
        InFlightNotes { notes: Vec::new() }
    }
}

impl<V: Copy> InFlightNotes<V> {
    /// Request `id` went to the device with `note` (ids in flight are
    /// unique: the driver refuses nothing twice).
    pub(crate) fn insert(&mut self, id: RequestId, note: V) {
        debug_assert!(self.notes.iter().all(|&(i, _)| i != id), "{id:?} twice");
        self.notes.push((id, note));
    }

    /// Request `id` left the device: its note, if it had one.
    pub(crate) fn remove(&mut self, id: RequestId) -> Option<V> {
        // Completions come roughly in dispatch order: search from the
        // oldest.
        let i = self.notes.iter().position(|&(i, _)| i == id)?;
        Some(self.notes.swap_remove(i).1)
    }

    /// Requests noted.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.notes.len()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use proptest::prelude::*;

    use super::*;

    #[test]
    fn a_note_comes_back_once() {
        let mut n = InFlightNotes::default();
        n.insert(RequestId(7), 2usize);
        n.insert(RequestId(9), 3);
        assert_eq!(n.remove(RequestId(9)), Some(3));
        assert_eq!(n.remove(RequestId(9)), None);
        assert_eq!(n.remove(RequestId(8)), None);
        assert_eq!(n.remove(RequestId(7)), Some(2));
        assert_eq!(n.len(), 0);
    }

    proptest! {
        /// Any interleaving of dispatches and completions reads back as a
        /// hash map does.
        #[test]
        fn matches_a_hash_map(ops in prop::collection::vec((any::<bool>(), 0u64..24, 0u8..8), 0..300)) {
            let mut notes = InFlightNotes::default();
            let mut map = HashMap::new();
            for (insert, id, v) in ops {
                let id = RequestId(id);
                if insert && !map.contains_key(&id) {
                    notes.insert(id, v);
                    map.insert(id, v);
                } else {
                    prop_assert_eq!(notes.remove(id), map.remove(&id));
                }
                prop_assert_eq!(notes.len(), map.len());
            }
        }
    }
}
