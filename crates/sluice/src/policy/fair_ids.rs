//! Flow id to dense slot, without hashing for the small ids hosts use:
//! ids below [`DIRECT`] index a vector, larger ones go to a hash map.

use crate::idhash::IdMap;
use crate::types::FlowId;

/// Ids below this are looked up in the vector.
const DIRECT: u32 = 1 << 16;

/// No slot, in the vector.
const NONE: u32 = u32::MAX;

/// See the module documentation.
#[derive(Clone, Debug, Default)]
pub(crate) struct SlotIds {
    direct: Vec<u32>,
    far: IdMap<FlowId, u32>,
}

impl SlotIds {
    /// The slot of `id`.
    #[inline]
    pub(crate) fn get(&self, id: FlowId) -> Option<u32> {
        if id.0 < DIRECT {
            self.direct
                .get(id.0 as usize)
                .copied()
                .filter(|&s| s != NONE)
        } else {
            self.far.get(&id).copied()
        }
    }

    /// Map `id` to `slot` (`slot` below `u32::MAX`).
    pub(crate) fn insert(&mut self, id: FlowId, slot: u32) {
        debug_assert!(slot != NONE);
        if id.0 < DIRECT {
            let i = id.0 as usize;
            if i >= self.direct.len() {
                self.direct.resize(i + 1, NONE);
            }
            self.direct[i] = slot;
        } else {
            self.far.insert(id, slot);
        }
    }

    /// Forget `id`.
    pub(crate) fn remove(&mut self, id: FlowId) {
        if id.0 < DIRECT {
            if let Some(s) = self.direct.get_mut(id.0 as usize) {
                *s = NONE;
            }
        } else {
            self.far.remove(&id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    proptest! {
        /// Against a `HashMap`, with ids on both sides of [`DIRECT`].
        #[test]
        fn matches_a_hashmap(
            ops in prop::collection::vec((any::<bool>(), 0u32..8, 0u32..1000), 1..300)
        ) {
            let mut ids = SlotIds::default();
            let mut m: HashMap<u32, u32> = HashMap::new();
            for (put, which, slot) in ops {
                let id = [0, 1, 5, 300, DIRECT - 1, DIRECT, DIRECT + 7, u32::MAX][which as usize];
                if put {
                    ids.insert(FlowId(id), slot);
                    m.insert(id, slot);
                } else {
                    ids.remove(FlowId(id));
                    m.remove(&id);
                }
                for probe in [0, 1, 2, 5, 300, DIRECT - 1, DIRECT, DIRECT + 7, u32::MAX] {
                    prop_assert_eq!(ids.get(FlowId(probe)), m.get(&probe).copied());
                }
            }
        }
    }
}
