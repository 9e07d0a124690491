//! How a long run shows how far it is, through the caller's display.

use sluice::{Duration, Instant};

/// How a long run shows how far it is (the CLI draws a bar on a terminal;
/// a library caller may show nothing): told the run's length, then the run
/// time reached now and then, then that it is over. Milliseconds.
pub trait ShowProgress: Send + Sync {
    /// The run will last `total_ms` milliseconds.
    fn start(&self, total_ms: u64);
    /// The run has reached `done_ms` milliseconds.
    fn set(&self, done_ms: u64);
    /// The run is over.
    fn finish(&self);
}

/// A run's progress, shown through the caller's [`ShowProgress`] if any.
pub(crate) struct Progress<'a> {
    show: Option<&'a dyn ShowProgress>,
}

impl<'a> Progress<'a> {
    /// Show the run's start, `total` long, on `show` if any.
    pub(crate) fn new(show: Option<&'a dyn ShowProgress>, total: Duration) -> Self {
        if let Some(s) = show {
            s.start(total.as_nanos() / 1_000_000);
        }
        Progress { show }
    }

    /// Run time has reached `now`.
    pub(crate) fn show(&mut self, now: Instant) {
        if let Some(s) = self.show {
            s.set(now.as_nanos() / 1_000_000);
        }
    }

    /// Show that the run is over.
    pub(crate) fn clear(&self) {
        if let Some(s) = self.show {
            s.finish();
        }
    }
}
