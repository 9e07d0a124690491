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

/// The first window a run is timed over before its length is estimated;
/// each later window is twice as long as the one before.
const CALIBRATE: Duration = Duration::from_secs(1);

/// Runs estimated to take longer than this (wall time) are warned about.
const LONG_RUN: Duration = Duration::from_secs(60);

/// Two windows' rates this close (a ratio under it) count as steady.
const STEADY: f64 = 2.0;

/// A one-time warning, on stderr whether or not it is a terminal, that a
/// simulation will take long: a duration such as 1e7 s looks harmless in a
/// scenario and can run for days with no other sign of life.
///
/// The rest of a run is extrapolated from the simulated seconds per wall
/// second of the latest window, and only once two windows in a row
/// agree (within [`STEADY`]): a run's start is often no sample of the
/// rest (buffered writers fill the page cache at memory speed, thousands
/// of events in a simulated microsecond, then slow to the disk's pace),
/// and extrapolating its first second alone once said "about 6 days" of
/// a run that took 38 s.
pub(crate) struct LongRun {
    what: String,
    started: Instant,
    done: bool,
    /// The end of the latest window: wall time, simulated seconds.
    mark: (Duration, f64),
    /// The latest window's rate (simulated seconds per wall second).
    rate: Option<f64>,
}

impl LongRun {
    /// Time a run of `what` (e.g. "sim") from now.
    pub(crate) fn new(what: impl Into<String>) -> Self {
        LongRun {
            what: what.into(),
            started: Instant::now(),
            done: false,
            mark: (Duration::ZERO, 0.0),
            rate: None,
        }
    }

    /// `done` of `total` simulated seconds are simulated: warn once, when
    /// two windows agree that the rest will take long.
    pub(crate) fn update(&mut self, done: f64, total: f64) {
        if let Some(m) = self.check(done, total, self.started.elapsed()) {
            eprintln!("{m}");
        }
    }

    /// The warning to print, if it is due, after `elapsed` of wall time.
    fn check(&mut self, done: f64, total: f64, elapsed: Duration) -> Option<String> {
        let (since, before) = self.mark;
        let window = elapsed.saturating_sub(since);
        if self.done || window < CALIBRATE.max(since) {
            return None;
        }
        self.mark = (elapsed, done);
        let rate = (done - before).max(0.0) / window.as_secs_f64();
        let previous = self.rate.replace(rate);
        let steady =
            previous.is_some_and(|p| rate > 0.0 && p > 0.0 && rate.max(p) < STEADY * rate.min(p));
        if !steady {
            return None;
        }
        let left = (total - done).max(0.0) / rate;
        if left < LONG_RUN.as_secs_f64() {
            return None;
        }
        self.done = true;
        Some(format!(
            "{}: {total} simulated seconds at ~{} s per wall second: this run will take about {}; Ctrl-C stops it",
            self.what,
            round3(rate),
            human(elapsed.as_secs_f64() + left)
        ))
    }
}

/// `x` to three significant digits, without an exponent.
fn round3(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.3}")
    }
}

/// Seconds as the largest unit that reads well: "3 minutes", "70 hours",
/// "12 days".
fn human(secs: f64) -> String {
    let (n, unit) = if secs < 90.0 {
        (secs, "seconds")
    } else if secs < 90.0 * 60.0 {
        (secs / 60.0, "minutes")
    } else if secs < 72.0 * 3600.0 {
        (secs / 3600.0, "hours")
    } else {
        (secs / 86_400.0, "days")
    };
    format!("{n:.0} {unit}")
}

#[cfg(test)]
mod long_run_tests {
    use super::*;

    /// Issue 24, defect 17: `duration_s = 1e7` ran for hours with no
    /// word; once two windows (1 s, then 1 s more) agree, the estimate is
    /// printed once.
    #[test]
    fn a_long_run_is_estimated_once_and_a_short_one_is_not() {
        let mut w = LongRun::new("sim");
        assert_eq!(w.check(20.0, 1e7, Duration::from_millis(500)), None);
        assert_eq!(w.check(40.0, 1e7, Duration::from_secs(1)), None);
        let m = w.check(80.0, 1e7, Duration::from_secs(2)).unwrap();
        assert_eq!(
            m,
            "sim: 10000000 simulated seconds at ~40.0 s per wall second: this run will take about 69 hours; Ctrl-C stops it"
        );
        assert_eq!(w.check(160.0, 1e7, Duration::from_secs(4)), None);
        let mut short = LongRun::new("sim");
        assert_eq!(short.check(5.0, 60.0, Duration::from_secs(1)), None);
        assert_eq!(short.check(10.0, 60.0, Duration::from_secs(2)), None);
        assert_eq!(human(3.0 * 86_400.0 + 10.0), "3 days");
        assert_eq!(human(120.0), "2 minutes");
    }

    /// Issue 43, defect 12: buffered 64 MiB writes in 1 KiB fragments
    /// spent their first wall seconds on a few simulated microseconds
    /// (the page cache filling at memory speed) and the estimate from
    /// that second said "about 6 days" of a 3 s run that took 38 s. A
    /// start unlike the rest gives no estimate; the steady rate after it
    /// does.
    #[test]
    fn a_slow_start_is_not_extrapolated_to_days() {
        let mut w = LongRun::new("sim");
        assert_eq!(w.check(5e-6, 3.0, Duration::from_secs(1)), None);
        assert_eq!(w.check(0.2, 3.0, Duration::from_secs(2)), None);
        assert_eq!(w.check(0.6, 3.0, Duration::from_secs(4)), None);
        assert_eq!(w.check(1.4, 3.0, Duration::from_secs(8)), None);
        assert!(!w.done, "a run of seconds is not warned about");
        // A run that stays slow after its start is still warned about,
        // from its steady rate.
        let mut slow = LongRun::new("sim");
        assert_eq!(slow.check(1e-6, 1e4, Duration::from_secs(1)), None);
        assert_eq!(slow.check(0.1, 1e4, Duration::from_secs(2)), None);
        let m = slow.check(0.3, 1e4, Duration::from_secs(4)).unwrap();
        assert!(
            m.contains("at ~0.100 s per wall second") && m.contains("28 hours"),
            "{m}"
        );
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
