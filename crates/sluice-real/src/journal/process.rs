//! Processes a run starts, in its journal before they can change anything.
//!
//! A child's pid exists only once it is started, so the journal cannot be
//! written before it; a run killed between the start and the journal line
//! would leave a process nothing knows of. [`Journal::spawn`] closes that
//! window: the child (always sluice itself) is started holding at
//! [`hold_until_journaled`], and is let go only once its pid and start time
//! are written down. A parent that dies before that closes the pipe, and the
//! held child ends without having done anything.

use std::io::{BufRead, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::{Change, Entry, Journal};

/// The variable that tells a started sluice to wait for its go.
const HOLD: &str = "SLUICE_HOLD_UNTIL_JOURNALED";

/// What the parent writes once the child is in its journal.
const GO: &str = "go";

/// How long a process has to end after SIGTERM before it gets SIGKILL.
pub const GRACE: Duration = Duration::from_secs(10);

/// The start time of process `pid` in clock ticks since boot
/// (`/proc/PID/stat` field 22), if it exists and has not ended (a zombie
/// has ended).
pub fn process_start(pid: i32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: count
    // fields after its closing parenthesis.
    let mut rest = text[text.rfind(')')? + 1..].split_whitespace();
    if rest.next()? == "Z" {
        return None;
    }
    rest.nth(18)?.parse().ok()
}

/// How stopping a journaled process went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stopped {
    /// It had already ended (or the pid is another process's now).
    Gone,
    /// It ended after SIGTERM.
    Ended,
    /// It ended only after SIGKILL.
    Killed,
    /// It is still there after SIGKILL (stuck in the kernel).
    Stuck,
}

/// Stop process `pid` if it is still the one started at `start`: SIGTERM,
/// then SIGKILL after [`GRACE`]; returns once it has ended (or given up).
pub(crate) fn stop(pid: i32, start: u64) -> Stopped {
    stop_within(pid, start, GRACE)
}

/// [`stop`] with SIGKILL after `grace`.
pub(crate) fn stop_within(pid: i32, start: u64, grace: Duration) -> Stopped {
    let alive = || process_start(pid) == Some(start);
    // A journal naming this very process (a sluice that its dead parent
    // started) is not this process's to end.
    if !alive() || pid == std::process::id() as i32 {
        return Stopped::Gone;
    }
    // SAFETY: signalling the process the journal names, which is still
    // the one the run started (same start time).
    unsafe { libc::kill(pid, libc::SIGTERM) };
    if ended_within(grace, alive) {
        return Stopped::Ended;
    }
    if !alive() {
        return Stopped::Ended;
    }
    // SAFETY: as above; it ignored SIGTERM.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    if ended_within(Duration::from_secs(2), alive) {
        Stopped::Killed
    } else {
        Stopped::Stuck
    }
}

/// Whether `alive` turns false within `limit` (looked at every 20 ms: a
/// process we are not the parent of gives no event to wait on).
fn ended_within(limit: Duration, alive: impl Fn() -> bool) -> bool {
    let t = Instant::now();
    while t.elapsed() < limit {
        if !alive() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    !alive()
}

/// A child process in the run's journal: stopped (SIGTERM, then SIGKILL
/// after [`GRACE`]) and marked undone when dropped.
#[derive(Debug)]
pub struct Started {
    child: Child,
    journal: std::sync::Arc<Journal>,
    entry: Option<Entry>,
}

impl Started {
    /// The child.
    pub fn child(&mut self) -> &mut Child {
        &mut self.child
    }

    /// Stop the child now (as dropping does).
    pub fn stop(mut self) {
        self.stop_now();
    }

    fn stop_now(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            // SAFETY: signalling our own child, not yet reaped.
            unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
            let t = Instant::now();
            while t.elapsed() < GRACE {
                if !matches!(self.child.try_wait(), Ok(None)) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            if let Ok(None) = self.child.try_wait() {
                let _ = self.child.kill();
                let _ = self.child.wait();
            }
        }
        if let Some(e) = self.entry.take() {
            self.journal.undone(e);
        }
    }
}

impl Drop for Started {
    fn drop(&mut self) {
        self.stop_now();
    }
}

impl Journal {
    /// Start `command` (a sluice subcommand: it must call
    /// [`hold_until_journaled`] first thing) with its pid and start time
    /// in this journal before it does anything. Its stdin is taken for the
    /// go.
    pub fn spawn(self: &std::sync::Arc<Self>, command: &mut Command) -> Result<Started> {
        command.env(HOLD, "1").stdin(Stdio::piped());
        let mut child = command
            .spawn()
            .with_context(|| format!("starting {:?}", command.get_program()))?;
        let pid = child.id() as i32;
        let entry = match process_start(pid) {
            Some(start) => Some(self.record(Change::Process { pid, start })?),
            // Ended already (it found nothing to do): nothing to stop later.
            None => None,
        };
        if let Some(mut stdin) = child.stdin.take() {
            // A child that ended meanwhile cannot read it: the run sees
            // that from the child's status, not from here.
            let _ = writeln!(stdin, "{GO}");
        }
        Ok(Started {
            child,
            journal: std::sync::Arc::clone(self),
            entry,
        })
    }
}

/// Whether this process was started by [`Journal::spawn`]: its journal
/// then cleans up after no one at its start, as its parent's journal —
/// which names this process — is the parent's user's to clean.
pub(crate) static STARTED_BY_A_RUN: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// In a sluice started by [`Journal::spawn`]: wait until the parent has
/// written this process into its journal; end at once (exit 0, having
/// done nothing) if the parent died first. Does nothing in a sluice a user
/// started.
pub fn hold_until_journaled() {
    if std::env::var_os(HOLD).is_none() {
        return;
    }
    STARTED_BY_A_RUN.store(true, std::sync::atomic::Ordering::Relaxed);
    // Single-threaded still (the first thing main does), and what this
    // process starts must not hold in turn.
    std::env::remove_var(HOLD);
    let mut line = String::new();
    let _ = std::io::stdin().lock().read_line(&mut line);
    if line.trim_end() != GO {
        std::process::exit(0);
    }
}
