//! Progress bars for long `sim`, `repro` and `compare` runs: drawn on
//! stderr, only when stderr is a terminal, and only once a run has taken
//! about two seconds (short runs stay silent). Output on stdout is never
//! touched, so results are the same with or without a bar.

use std::io::IsTerminal;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a run goes before its bar appears.
const SHOW_AFTER: Duration = Duration::from_secs(2);

/// A progress bar that appears late and only on a terminal.
pub(crate) struct Progress {
    label: String,
    unit: &'static str,
    total: u64,
    started: Instant,
    tty: bool,
    bar: OnceLock<ProgressBar>,
}

impl Progress {
    /// A bar of `total` steps of `unit`, labelled `label`.
    pub(crate) fn new(label: impl Into<String>, total: u64, unit: &'static str) -> Self {
        Progress {
            label: label.into(),
            unit,
            total,
            started: Instant::now(),
            tty: std::io::stderr().is_terminal(),
            bar: OnceLock::new(),
        }
    }

    /// `done` steps are done.
    pub(crate) fn set(&self, done: u64) {
        if !self.tty {
            return;
        }
        let bar = match self.bar.get() {
            Some(b) => b,
            None if self.started.elapsed() >= SHOW_AFTER && done < self.total => {
                self.bar.get_or_init(|| self.make())
            }
            None => return,
        };
        bar.set_position(done.min(self.total));
    }

    fn make(&self) -> ProgressBar {
        let bar = ProgressBar::with_draw_target(Some(self.total), ProgressDrawTarget::stderr());
        let template = format!(
            "{{prefix}} [{{elapsed_precise}}] {{wide_bar}} {{pos}}/{{len}} {} (eta {{eta}})",
            self.unit
        );
        if let Ok(style) = ProgressStyle::with_template(&template) {
            bar.set_style(style);
        }
        bar.set_prefix(self.label.clone());
        bar
    }

    /// The run is over: the bar, if one was drawn, is cleared.
    pub(crate) fn finish(&self) {
        if let Some(b) = self.bar.get() {
            b.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_bar_off_a_terminal_or_before_two_seconds() {
        let mut p = Progress::new("t", 10, "runs");
        p.tty = true;
        p.set(1);
        assert!(p.bar.get().is_none(), "no bar in the first two seconds");
        p.started -= SHOW_AFTER;
        p.set(2);
        assert_eq!(p.bar.get().map(|b| b.position()), Some(2));
        let mut q = Progress::new("t", 10, "runs");
        q.tty = false;
        q.started -= SHOW_AFTER;
        q.set(3);
        assert!(q.bar.get().is_none(), "no bar off a terminal");
    }
}

/// The bar of a real run (`run`, `kernel`), drawn as the others are, in
/// milliseconds of run time.
#[derive(Default)]
pub(crate) struct RunBar(OnceLock<Progress>);

impl RunBar {
    /// A bar to hand to the real host.
    pub(crate) fn shared() -> std::sync::Arc<dyn sluice_real::run::ShowProgress> {
        std::sync::Arc::new(RunBar::default())
    }
}

impl sluice_real::run::ShowProgress for RunBar {
    fn start(&self, total_ms: u64) {
        let _ = self.0.set(Progress::new("run", total_ms, "ms"));
    }

    fn set(&self, done_ms: u64) {
        if let Some(p) = self.0.get() {
            p.set(done_ms);
        }
    }

    fn finish(&self) {
        if let Some(p) = self.0.get() {
            p.finish();
        }
    }
}
