//! Start and finish tags and YFQ's virtual work function `v(t)`, shared by
//! `yfq` and `dor` (Nam–Park's BQS is YFQ's tag selection).
//!
//! Tags are in sectors per unit of weight ("Disk Scheduling with Quality of
//! Service Guarantees", §2: `F = S + l / w`), held as fixed-point integers so
//! that equal tags compare equal exactly: all fragments of one request, or
//! equal-sized requests of equally weighted reservations, tie for real, which
//! YFQ's tie-breaking rule (§3.3) depends on.

use std::ops::{Add, AddAssign};

use super::super::fair_tree::LazyFairTree;

/// Fractional bits of a [`Tag`].
const FRAC_BITS: u32 = 40;

/// A virtual time: sectors of service per unit of weight, fixed point with
/// 40 fractional bits (exact enough that rounding never reorders requests
/// whose exact tags differ by more than 2^-40 sector per weight).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Tag(pub u128);

impl Tag {
    pub(crate) const ZERO: Tag = Tag(0);

    /// The tag length `l / w` of `sectors` of service at weight `weight`.
    pub(crate) fn service(sectors: u64, weight: u32) -> Tag {
        let w = u64::from(weight.max(1));
        // The same quotient in 64 bits whenever the dividend fits (a
        // 128-bit division costs several times more).
        match sectors.checked_mul(1 << FRAC_BITS) {
            Some(n) => Tag(u128::from(n / w)),
            None => Tag((u128::from(sectors) << FRAC_BITS) / u128::from(w)),
        }
    }

    /// From sectors per weight unit (e.g. Nam–Park's `M_qos`).
    pub(crate) fn from_f64(x: f64) -> Tag {
        Tag((x.max(0.0) * (1u128 << FRAC_BITS) as f64) as u128)
    }

    /// In sectors per weight unit.
    pub(crate) fn as_f64(self) -> f64 {
        self.0 as f64 / (1u128 << FRAC_BITS) as f64
    }
}

impl Add for Tag {
    type Output = Tag;
    fn add(self, rhs: Tag) -> Tag {
        Tag(self.0 + rhs.0)
    }
}

impl AddAssign for Tag {
    fn add_assign(&mut self, rhs: Tag) {
        self.0 += rhs.0;
    }
}

/// A reservation's start and finish tags `S_i`, `F_i` (both start at 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct FlowTags {
    pub start: Tag,
    pub finish: Tag,
}

impl FlowTags {
    /// A request of tag length `len` arrives at an empty queue:
    /// `S = max(v, F)`, then `F = S + len` (YFQ §2, Nam–Park §2.2.1).
    pub(crate) fn arrive_at_empty(&mut self, v: Tag, len: Tag) {
        self.start = v.max(self.finish);
        self.finish = self.start + len;
    }

    /// The queue moves on to its next request, of tag length `len`, without
    /// going empty: `S = F`, then `F = S + len`.
    pub(crate) fn advance(&mut self, len: Tag) {
        self.start = self.finish;
        self.finish = self.start + len;
    }
}

/// YFQ's virtual work function (§2): `v(0) = 0`; while the resource is busy,
/// the minimum of the start tags of its busy reservations; once it becomes
/// idle, the maximum of all finish tags — and it stays there, since no tag
/// moves while nothing is busy, until a reservation becomes busy again.
///
/// The owner reports each busy reservation's start tag (the start tag of the
/// request at the head of its queue, in service or waiting), by its dense
/// slot, and every finish tag it assigns. Only the minimum start is read,
/// and only when a reservation becomes busy, so a lazy tournament tree over
/// slots holds them: while every reservation stays backlogged a change
/// costs one store.
#[derive(Clone, Debug, Default)]
pub(crate) struct VirtualWork {
    busy: LazyFairTree<u128>,
    /// Maximum of all finish tags ever assigned. Each reservation's finish
    /// tag only grows, so this is the maximum over reservations of `F_i`.
    max_finish: Tag,
}

impl VirtualWork {
    /// `v(t)` now.
    pub(crate) fn value(&mut self) -> Tag {
        match self.busy.first() {
            Some((s, _, _)) => Tag(s),
            None => self.max_finish,
        }
    }

    /// `v(t)` now, without bringing the tree up to date (a scan if stale).
    pub(crate) fn peek(&self) -> Tag {
        match self.busy.peek_first() {
            Some((s, _, _)) => Tag(s),
            None => self.max_finish,
        }
    }

    /// The busy start tag of the reservation in `slot` changed to `new`
    /// (`None` when it becomes idle).
    pub(crate) fn set_start(&mut self, slot: usize, new: Option<Tag>) {
        self.busy.set(slot, 0, new.map(|t| t.0));
    }

    /// A finish tag was assigned.
    pub(crate) fn note_finish(&mut self, finish: Tag) {
        self.max_finish = self.max_finish.max(finish);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_takes_the_same_quotient_in_64_and_128_bits() {
        for sectors in [0, 1, 7, 1 << 23, (1 << 24) - 1, 1 << 24, 1 << 40, u64::MAX] {
            for w in [1, 3, 100, 999, 1000] {
                let wide = (u128::from(sectors) << FRAC_BITS) / u128::from(w);
                assert_eq!(Tag::service(sectors, w).0, wide, "{sectors} / {w}");
            }
        }
    }

    #[test]
    fn service_is_length_over_weight_exactly() {
        assert!((Tag::service(128, 100).as_f64() - 1.28).abs() < 1e-9);
        assert_eq!(Tag::service(128, 64).as_f64(), 2.0);
        assert_eq!(Tag::service(16, 80), Tag::service(4, 20));
        assert_eq!(Tag::from_f64(0.5), Tag::service(1, 2));
    }

    #[test]
    fn flow_tags_follow_the_arrival_and_advance_rules() {
        let mut t = FlowTags::default();
        t.arrive_at_empty(Tag::service(10, 1), Tag::service(4, 1));
        assert_eq!(
            (t.start, t.finish),
            (Tag::service(10, 1), Tag::service(14, 1))
        );
        t.advance(Tag::service(2, 1));
        assert_eq!(
            (t.start, t.finish),
            (Tag::service(14, 1), Tag::service(16, 1))
        );
        // S = max(v, F): a stale v does not move the tags back.
        t.arrive_at_empty(Tag::service(3, 1), Tag::service(1, 1));
        assert_eq!(
            (t.start, t.finish),
            (Tag::service(16, 1), Tag::service(17, 1))
        );
    }

    #[test]
    fn virtual_work_is_min_start_when_busy_and_max_finish_when_idle() {
        let mut v = VirtualWork::default();
        assert_eq!(v.value(), Tag::ZERO);
        v.set_start(1, Some(Tag::service(5, 1)));
        v.set_start(2, Some(Tag::service(3, 1)));
        v.note_finish(Tag::service(9, 1));
        v.note_finish(Tag::service(7, 1));
        assert_eq!(v.value(), Tag::service(3, 1));
        v.set_start(2, Some(Tag::service(6, 1)));
        assert_eq!(v.peek(), Tag::service(5, 1));
        assert_eq!(v.value(), Tag::service(5, 1));
        v.set_start(2, None);
        assert_eq!(v.value(), Tag::service(5, 1));
        v.set_start(1, None);
        assert_eq!(v.peek(), Tag::service(9, 1));
        assert_eq!(v.value(), Tag::service(9, 1));
    }
}
