//! Ctrl-C and SIGTERM during a run: a flag they raise, and the error a
//! run that stopped on one returns.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use anyhow::{Context, Result};

/// The run stopped on Ctrl-C or SIGTERM (its files are gone already).
#[derive(Debug, Default)]
pub struct Interrupted {
    /// The run's warnings until it stopped (see `RunReport::warnings`).
    pub warnings: Vec<String>,
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted; the run's files are removed")
    }
}

impl std::error::Error for Interrupted {}

/// A flag raised by SIGINT and SIGTERM until it is dropped.
pub(crate) fn interrupt_flag() -> Result<InterruptFlag> {
    let flag = Arc::new(AtomicBool::new(false));
    let mut ids = Vec::with_capacity(2);
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        ids.push(
            signal_hook::flag::register(sig, Arc::clone(&flag))
                .context("installing a signal handler")?,
        );
    }
    Ok(InterruptFlag { flag, ids })
}

/// A flag raised by SIGINT and SIGTERM while it lives: dropping it takes
/// its handlers away again, so a process that runs many scenarios (Python,
/// an embedder) does not collect one handler per run. signal-hook keeps
/// calling the handlers that were there before (Python's raises
/// KeyboardInterrupt once the run returns).
pub(crate) struct InterruptFlag {
    flag: Arc<AtomicBool>,
    ids: Vec<signal_hook::SigId>,
}

impl std::ops::Deref for InterruptFlag {
    type Target = AtomicBool;
    fn deref(&self) -> &AtomicBool {
        &self.flag
    }
}

impl Drop for InterruptFlag {
    fn drop(&mut self) {
        for id in self.ids.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn a_dropped_interrupt_flag_no_longer_hears_signals() {
        let old = interrupt_flag().unwrap();
        let old_flag = Arc::clone(&old.flag);
        drop(old);
        let new = interrupt_flag().unwrap();
        signal_hook::low_level::raise(signal_hook::consts::SIGINT).unwrap();
        assert!(new.load(Ordering::SeqCst), "the live flag is raised");
        assert!(
            !old_flag.load(Ordering::SeqCst),
            "a dropped flag's handler is gone"
        );
    }
}
