//! The constants a layout lookup divides by, prepared once per zone: a
//! lookup divides a dozen times and the divisors never change, and exact
//! division by multiplication is several times faster than the instruction.

use strength_reduce::StrengthReducedU64;

use super::{units, Sparing, Units, Zone};

/// A divisor prepared for division by multiplication (exact).
#[derive(Clone, Copy, Debug)]
pub(super) struct Divisor(StrengthReducedU64);

impl Divisor {
    pub(super) fn new(d: u64) -> Self {
        Divisor(StrengthReducedU64::new(d.max(1)))
    }

    #[inline]
    pub(super) fn div_rem(self, n: u64) -> (u64, u64) {
        StrengthReducedU64::div_rem(n, self.0)
    }

    #[inline]
    pub(super) fn rem(self, n: u64) -> u64 {
        n % self.0
    }
}

impl PartialEq for Divisor {
    fn eq(&self, other: &Self) -> bool {
        self.0.get() == other.0.get()
    }
}

/// What a zone's lookups divide by, and its sparing units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct ZoneDivisors {
    /// Sectors per track.
    pub(super) spt: Divisor,
    /// Logical slots per full sparing unit.
    pub(super) logical: Divisor,
    /// The sparing units.
    pub(super) units: Units,
    /// The track and cylinder skews, reduced modulo the track.
    pub(super) track_skew: u64,
    pub(super) cyl_skew: u64,
}

impl ZoneDivisors {
    /// For a zone not yet prepared by [`Layout::new`](super::Layout::new).
    pub(super) fn placeholder() -> Self {
        ZoneDivisors {
            spt: Divisor::new(1),
            logical: Divisor::new(1),
            units: Units {
                size: 1,
                logical: 1,
                full: 1,
                partial: 0,
            },
            track_skew: 0,
            cyl_skew: 0,
        }
    }

    pub(super) fn new(z: &Zone, heads: u32, sparing: Sparing) -> Self {
        let units = units(z, heads, sparing);
        let spt = u64::from(z.spt.max(1));
        ZoneDivisors {
            spt: Divisor::new(spt),
            logical: Divisor::new(units.logical),
            units,
            track_skew: u64::from(z.track_skew) % spt,
            cyl_skew: u64::from(z.cyl_skew) % spt,
        }
    }
}
