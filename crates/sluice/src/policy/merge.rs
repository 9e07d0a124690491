//! What a policy does when the block layer merges an arrival into a
//! request it holds: put the merged request where the old one was.

use std::collections::{BTreeMap, VecDeque};

use crate::types::Request;

/// The block layer merged an arrival into `old`: put `merged` in its place
/// in a map sorted by (sector, id), keeping the value's other fields.
/// Returns false if `old` is not there.
pub fn merge_sorted<V>(
    sorted: &mut BTreeMap<(u64, u64), V>,
    old: &Request,
    merged: &Request,
    request_of: impl FnOnce(&mut V) -> &mut Request,
) -> bool {
    let Some(mut v) = sorted.remove(&(old.sector, old.id.0)) else {
        return false;
    };
    *request_of(&mut v) = *merged;
    sorted.insert((merged.sector, merged.id.0), v);
    true
}

/// The same for a queue in arrival order (merges usually join its tail, so
/// the search starts there). Returns false if `old` is not there.
pub fn merge_queued(queue: &mut VecDeque<Request>, merged: &Request) -> bool {
    match queue.iter_mut().rev().find(|r| r.id == merged.id) {
        Some(r) => {
            *r = *merged;
            true
        }
        None => false,
    }
}
