//! The engine's clock: CLOCK_MONOTONIC (what `std::time::Instant` reads on
//! Linux) as a `sluice::Instant` counted from the engine's start.

use sluice::Instant;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock {
    origin_ns: u64,
}

/// CLOCK_MONOTONIC in nanoseconds: the clock of `std::time::Instant` on
/// Linux, and the one tracefs's `mono` trace clock reads.
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid out-pointer; CLOCK_MONOTONIC always exists on
    // Linux, so the call cannot fail.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

impl Clock {
    pub(crate) fn start() -> Self {
        Clock {
            origin_ns: monotonic_ns(),
        }
    }

    /// Nanoseconds since the start (never goes back).
    pub(crate) fn now(&self) -> Instant {
        Instant::from_nanos(monotonic_ns().saturating_sub(self.origin_ns))
    }
}
