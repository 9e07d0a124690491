//! Typed time: an [`Instant`] is a point on the driver's clock, a
//! [`Duration`] a span between two of them. Both are nanoseconds in a `u64`
//! inside, so they cost what a bare integer costs, but the compiler refuses
//! an instant where a duration is meant (and the other way round).
//!
//! Arithmetic follows the integers they wrap: `Instant - Instant` and
//! `Duration - Duration` panic on underflow in debug builds, exactly as the
//! `u64` arithmetic they replace; the `saturating_*` forms say where an
//! underflow is expected and clamps to zero.

use std::fmt;
use std::iter::Sum;
use std::ops::{Add, AddAssign, Div, Mul, Rem, Sub, SubAssign};

/// Nanoseconds per microsecond.
pub const NS_PER_US: u64 = 1_000;
/// Nanoseconds per millisecond.
pub const NS_PER_MS: u64 = 1_000_000;
/// Nanoseconds per second.
pub const NS_PER_S: u64 = 1_000_000_000;

/// A point in time on the driver's clock: nanoseconds since the driver
/// started (virtual time in the simulator, monotonic time in a real engine).
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant(u64);

/// A span of time, in nanoseconds.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration(u64);

impl Instant {
    /// The clock's origin.
    pub const ZERO: Instant = Instant(0);
    /// The farthest instant (used as "never").
    pub const MAX: Instant = Instant(u64::MAX);

    /// The instant `ns` nanoseconds after the origin.
    pub const fn from_nanos(ns: u64) -> Self {
        Instant(ns)
    }

    /// Nanoseconds since the origin.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }

    /// Time since the origin.
    pub const fn since_origin(self) -> Duration {
        Duration(self.0)
    }

    /// Seconds since the origin.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_S as f64
    }

    /// Milliseconds since the origin.
    pub fn as_millis_f64(self) -> f64 {
        self.0 as f64 / NS_PER_MS as f64
    }

    /// Time from `earlier` to `self`, zero if `earlier` is later.
    pub fn saturating_duration_since(self, earlier: Instant) -> Duration {
        Duration(self.0.saturating_sub(earlier.0))
    }

    /// Time from `earlier` to `self`, `None` if `earlier` is later.
    pub fn checked_duration_since(self, earlier: Instant) -> Option<Duration> {
        self.0.checked_sub(earlier.0).map(Duration)
    }

    /// `self + d`, clamped at [`Instant::MAX`].
    pub fn saturating_add(self, d: Duration) -> Instant {
        Instant(self.0.saturating_add(d.0))
    }

    /// `self - d`, clamped at the origin.
    pub fn saturating_sub(self, d: Duration) -> Instant {
        Instant(self.0.saturating_sub(d.0))
    }
}

impl Duration {
    /// No time.
    pub const ZERO: Duration = Duration(0);
    /// The longest span.
    pub const MAX: Duration = Duration(u64::MAX);

    /// `ns` nanoseconds.
    pub const fn from_nanos(ns: u64) -> Self {
        Duration(ns)
    }
    /// `us` microseconds.
    pub const fn from_micros(us: u64) -> Self {
        Duration(us * NS_PER_US)
    }
    /// `ms` milliseconds.
    pub const fn from_millis(ms: u64) -> Self {
        Duration(ms * NS_PER_MS)
    }
    /// `s` seconds.
    pub const fn from_secs(s: u64) -> Self {
        Duration(s * NS_PER_S)
    }

    /// `s` seconds, by the rounding rule of [`Duration::from_nanos_f64`].
    pub fn from_secs_f64(s: f64) -> Self {
        Self::from_nanos_f64(s * NS_PER_S as f64)
    }

    /// `ms` milliseconds, by the rounding rule of [`Duration::from_nanos_f64`].
    pub fn from_millis_f64(ms: f64) -> Self {
        Self::from_nanos_f64(ms * NS_PER_MS as f64)
    }

    /// `us` microseconds, by the rounding rule of [`Duration::from_nanos_f64`].
    pub fn from_micros_f64(us: f64) -> Self {
        Self::from_nanos_f64(us * NS_PER_US as f64)
    }

    /// The one rounding rule from fractional time: the value is first
    /// scaled to nanoseconds in `f64` (by the callers above), then rounded
    /// to the nearest nanosecond, halves away from zero (`f64::round`);
    /// negative values and NaN give zero and values beyond `u64` give
    /// [`Duration::MAX`] (Rust's saturating float-to-integer `as`). This is
    /// what the repository's parsers did by hand, so switching to it
    /// changes no result.
    pub fn from_nanos_f64(ns: f64) -> Self {
        Duration(ns.round() as u64)
    }

    /// Nanoseconds.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }

    /// Seconds.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_S as f64
    }

    /// Milliseconds.
    pub fn as_millis_f64(self) -> f64 {
        self.0 as f64 / NS_PER_MS as f64
    }

    /// True for a zero span.
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }

    /// `self - other`, zero if `other` is longer.
    pub fn saturating_sub(self, other: Duration) -> Duration {
        Duration(self.0.saturating_sub(other.0))
    }
    /// `self + other`, [`Duration::MAX`] on overflow.
    pub fn saturating_add(self, other: Duration) -> Duration {
        Duration(self.0.saturating_add(other.0))
    }
    /// `self - other`, `None` if `other` is longer.
    pub fn checked_sub(self, other: Duration) -> Option<Duration> {
        self.0.checked_sub(other.0).map(Duration)
    }
    /// `self * k`, [`Duration::MAX`] on overflow.
    pub fn saturating_mul(self, k: u64) -> Duration {
        Duration(self.0.saturating_mul(k))
    }
    /// `self / k`, `None` for `k == 0`.
    pub fn checked_div(self, k: u64) -> Option<Duration> {
        self.0.checked_div(k).map(Duration)
    }
}

/// `$Lhs $op $Rhs -> $Out` on the nanoseconds inside (so overflow behaves
/// as the `u64` operation does), and the assigning form when named.
macro_rules! nanos_op {
    ($Lhs:ident $Trait:ident::$f:ident($Rhs:ident) -> $Out:ident $(, $Assign:ident::$af:ident)?) => {
        impl $Trait<$Rhs> for $Lhs {
            type Output = $Out;
            fn $f(self, rhs: $Rhs) -> $Out {
                $Out($Trait::$f(self.0, rhs.0))
            }
        }
        $(
            impl $Assign<$Rhs> for $Lhs {
                fn $af(&mut self, rhs: $Rhs) {
                    $Assign::$af(&mut self.0, rhs.0);
                }
            }
        )?
    };
}

nanos_op!(Instant Add::add(Duration) -> Instant, AddAssign::add_assign);
nanos_op!(Instant Sub::sub(Duration) -> Instant);
nanos_op!(Instant Sub::sub(Instant) -> Duration);
nanos_op!(Duration Add::add(Duration) -> Duration, AddAssign::add_assign);
nanos_op!(Duration Sub::sub(Duration) -> Duration, SubAssign::sub_assign);
nanos_op!(Duration Rem::rem(Duration) -> Duration);

impl Mul<u64> for Duration {
    type Output = Duration;
    fn mul(self, k: u64) -> Duration {
        Duration(self.0 * k)
    }
}

impl Div<u64> for Duration {
    type Output = Duration;
    fn div(self, k: u64) -> Duration {
        Duration(self.0 / k)
    }
}

/// How many times `d` fits in `self`.
impl Div for Duration {
    type Output = u64;
    fn div(self, d: Duration) -> u64 {
        self.0 / d.0
    }
}

impl Sum for Duration {
    fn sum<I: Iterator<Item = Duration>>(iter: I) -> Duration {
        Duration(iter.map(|d| d.0).sum())
    }
}

/// The earliest of several optional wake-ups (`None` when there is none):
/// how a host or a policy merges its timers into one `poll_timeout`.
pub fn earliest(timers: impl IntoIterator<Item = Option<Instant>>) -> Option<Instant> {
    timers.into_iter().flatten().min()
}

/// From the standard library's span, saturating at [`Duration::MAX`]
/// (about 584 years) since `std::time::Duration` reaches further.
impl From<std::time::Duration> for Duration {
    fn from(d: std::time::Duration) -> Self {
        Duration(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
    }
}

/// To the standard library's span (for sleeps and real-time waits); exact.
impl From<Duration> for std::time::Duration {
    fn from(d: Duration) -> Self {
        std::time::Duration::from_nanos(d.0)
    }
}

impl fmt::Debug for Instant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "t={}ns", self.0)
    }
}

impl fmt::Debug for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}ns", self.0)
    }
}

impl fmt::Display for Instant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6} ms", self.as_millis_f64())
    }
}

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6} ms", self.as_millis_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_and_durations_combine_as_a_clock_does() {
        let t = Instant::from_nanos(5) + Duration::from_millis(2);
        assert_eq!(t.as_nanos(), 2_000_005);
        assert_eq!(t - Instant::from_nanos(5), Duration::from_millis(2));
        assert_eq!(
            Instant::from_nanos(3).saturating_duration_since(t),
            Duration::ZERO
        );
        assert_eq!(Instant::from_nanos(3).checked_duration_since(t), None);
        assert_eq!(
            Instant::MAX.saturating_add(Duration::from_secs(1)),
            Instant::MAX
        );
        assert_eq!(Duration::from_secs(1) / Duration::from_millis(250), 4);
        assert_eq!(
            Duration::from_millis(9) % Duration::from_millis(4),
            Duration::from_millis(1)
        );
        let total: Duration = [1, 2, 3].map(Duration::from_micros).into_iter().sum();
        assert_eq!(total, Duration::from_micros(6));
        assert_eq!(Duration::from_millis(3).checked_div(0), None);
    }

    #[test]
    fn fractional_time_rounds_to_the_nearest_nanosecond() {
        assert_eq!(Duration::from_millis_f64(8.0), Duration::from_millis(8));
        assert_eq!(Duration::from_secs_f64(1.5), Duration::from_millis(1500));
        assert_eq!(Duration::from_micros_f64(0.0015), Duration::from_nanos(2));
        assert_eq!(Duration::from_millis_f64(0.0000004), Duration::ZERO);
        assert_eq!(Duration::from_nanos_f64(2.5), Duration::from_nanos(3));
        assert_eq!(Duration::from_millis_f64(-1.0), Duration::ZERO);
        assert_eq!(Duration::from_secs_f64(f64::NAN), Duration::ZERO);
        assert_eq!(Duration::from_secs_f64(1e30), Duration::MAX);
        // The same result as the hand-written form it replaces.
        for x in [0.1, 1.0 / 3.0, 2.675, 123.456_789, 1e-7] {
            let by_hand = Duration::from_nanos((x * NS_PER_MS as f64).round() as u64);
            assert_eq!(Duration::from_millis_f64(x), by_hand, "{x}");
            let by_hand = Duration::from_nanos((x * NS_PER_S as f64).round() as u64);
            assert_eq!(Duration::from_secs_f64(x), by_hand, "{x}");
        }
    }

    #[test]
    fn std_durations_convert_both_ways() {
        let d = Duration::from_nanos(1_234_567_890);
        let s: std::time::Duration = d.into();
        assert_eq!(s, std::time::Duration::new(1, 234_567_890));
        assert_eq!(Duration::from(s), d);
        assert_eq!(Duration::from(std::time::Duration::MAX), Duration::MAX);
    }

    #[test]
    fn earliest_skips_absent_timers() {
        let (a, b) = (Instant::from_nanos(5), Instant::from_nanos(3));
        assert_eq!(earliest([Some(a), Some(b)]), Some(b));
        assert_eq!(earliest([None, Some(a)]), Some(a));
        assert_eq!(earliest([Some(a), None]), Some(a));
        assert_eq!(earliest([None, None]), None);
        assert_eq!(earliest(std::iter::empty()), None);
    }
}
