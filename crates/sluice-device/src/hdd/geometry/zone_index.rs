//! Which zone holds a logical sector. Every full layout lookup starts with
//! this, and a binary search over the zones' first sectors is a chain of
//! dependent loads. The logical space is cut into at most [`SPANS`] equal
//! spans, each knowing the first and last zone it touches: a span rarely
//! holds a zone boundary, so most lookups are one table read, and the rest
//! search only the few zones of their span.

/// Most spans the logical space is cut into.
const SPANS: u64 = 256;

/// Zones by logical sector (see the module documentation).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct ZoneIndex {
    /// Each zone's first logical sector, ascending, the first 0.
    starts: Vec<u64>,
    /// A sector's span is `lbn >> shift`.
    shift: u32,
    /// Per span: the zones holding its first and its last sector.
    spans: Vec<(u32, u32)>,
}

impl ZoneIndex {
    /// For zones starting at `starts` (ascending, the first at 0) that
    /// hold `total` logical sectors in all.
    pub(super) fn new(starts: Vec<u64>, total: u64) -> Self {
        debug_assert!(starts.first() == Some(&0) && starts.is_sorted());
        let last = total.max(1) - 1;
        let bits = u64::BITS - last.leading_zeros();
        let shift = bits.saturating_sub(SPANS.trailing_zeros());
        let search = |lbn: u64| (starts.partition_point(|&s| s <= lbn) - 1) as u32;
        let spans = (0..=last >> shift)
            .map(|span| {
                let first = span << shift;
                let end = (first | ((1 << shift) - 1)).min(last);
                (search(first), search(end))
            })
            .collect();
        ZoneIndex {
            starts,
            shift,
            spans,
        }
    }

    /// The zone holding `lbn` (below the `total` the index was built for).
    #[inline]
    pub(super) fn zone_of(&self, lbn: u64) -> usize {
        let (lo, hi) = self.spans[(lbn >> self.shift) as usize];
        let (lo, hi) = (lo as usize, hi as usize);
        // Zones lo+1..=hi start inside the span: count those at or below.
        lo + self.starts[lo + 1..=hi].partition_point(|&s| s <= lbn)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn plain(starts: &[u64], lbn: u64) -> usize {
        starts.partition_point(|&s| s <= lbn) - 1
    }

    #[test]
    fn zones_inside_one_span_are_told_apart() {
        // 1000 sectors in spans of 4: zones of 1, 2 and 3 sectors share
        // spans, and the last span is short.
        let starts = vec![0, 1, 3, 6, 500, 998];
        let ix = ZoneIndex::new(starts.clone(), 1000);
        assert_eq!(ix.shift, 2);
        for lbn in 0..1000 {
            assert_eq!(ix.zone_of(lbn), plain(&starts, lbn), "lbn {lbn}");
        }
    }

    #[test]
    fn one_zone_and_one_sector() {
        let ix = ZoneIndex::new(vec![0], 1);
        assert_eq!(ix.zone_of(0), 0);
        let ix = ZoneIndex::new(vec![0], u64::MAX);
        assert_eq!(ix.zone_of(u64::MAX - 1), 0);
    }

    proptest! {
        /// Any zones, any sector: the binary search's answer.
        #[test]
        fn finds_what_a_binary_search_finds(
            sizes in prop::collection::vec(1u64..5_000, 1..80),
            probes in prop::collection::vec(any::<u64>(), 1..200),
        ) {
            let mut starts = vec![0];
            for s in &sizes[..sizes.len() - 1] {
                starts.push(starts.last().unwrap() + s);
            }
            let total: u64 = sizes.iter().sum();
            let ix = ZoneIndex::new(starts.clone(), total);
            prop_assert!(ix.spans.len() as u64 <= SPANS);
            for p in probes {
                let lbn = p % total;
                prop_assert_eq!(ix.zone_of(lbn), plain(&starts, lbn));
            }
            prop_assert_eq!(ix.zone_of(total - 1), sizes.len() - 1);
        }
    }
}
