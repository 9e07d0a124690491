//! Replaying an application's start-up trace, in one of three ways
//! (`replay` flow key; see the data README's "How the S suite replays a
//! trace"):
//!
//! * [`Replay::SSuite`] (the default) is what the benchmark behind the BFQ
//!   paper's numbers does: records strictly in trace order with no think
//!   time, read-aheads asynchronous, everything else a synchronous read
//!   that first waits for its thread's own read-aheads; positions from the
//!   Seq/Rand column inside a 20,000,000-byte file per thread.
//! * [`Replay::Recorded`] replays the trace as recorded: each thread on its
//!   own, sleeping the recorded gap before each request, at the recorded
//!   sector, blocking on its synchronous requests (and writing for `WS`).
//! * [`Replay::Think`] is the S suite's replay with the program's estimated
//!   CPU time ([`crate::startup::think`]) slept before each record, from
//!   when the record before it was issued (read-ahead) or completed.
//!
//! A start-up runs from its first issue to the completion of its last
//! record (s-suite, think) or of its last request (recorded). With a
//! repeat, each run is a new process (fresh scheduler flows); completions
//! of an earlier run's requests still in flight are not this run's.

use std::sync::Arc;

use rand::Rng;
use rand_pcg::Pcg64Mcg;
use sluice::{Duration, Instant};

use crate::action::{Actions, Issue};
use crate::spec::{FlowSpec, Replay, StartupSpec};
use crate::startup::{StartupRecord, StartupTrace, THREAD_FILE_SECTORS};

/// One thread of the application in the current run.
#[derive(Clone, Copy, Debug, Default)]
struct Thread {
    /// s-suite: read-aheads in flight; recorded: all requests in flight.
    in_flight: u32,
    /// s-suite: its synchronous read is out (the replay waits for it);
    /// recorded: it waits for all its requests to complete.
    blocked: bool,
    /// s-suite: the offset in its file of the next `Seq` read.
    offset: u64,
    /// recorded: its next record (an index into its record list).
    next: usize,
    /// recorded: when it last issued or was unblocked (its gap runs from
    /// there).
    free_at: Instant,
}

/// A start-up flow's replay state.
pub(crate) struct StartupReplay {
    pub trace: Arc<StartupTrace>,
    mode: Replay,
    /// Start again at max(start + period, end + pause).
    repeat: Option<(Duration, Duration)>,
    /// Stop after this many start-ups.
    max_runs: Option<u64>,
    rng: Pcg64Mcg,
    threads: Vec<Thread>,
    /// s-suite: the next record of the trace to issue.
    cursor: usize,
    /// think: when the record before `cursor` was issued (read-ahead) or
    /// completed; the cursor's think time runs from there.
    released_at: Instant,
    /// Requests of the current process still in flight.
    in_flight: u32,
    run_start: Option<Instant>,
    next_run: Instant,
    runs: u64,
    /// No more runs: the flow ends once its requests have completed.
    finishing: bool,
    /// When the last start-up ended.
    pub last_end: Option<Instant>,
    /// Start-up times of runs that ended after the warm-up.
    pub measured: Vec<Duration>,
}

impl StartupReplay {
    /// Whether the flow ends by itself: it does not repeat, or repeats a
    /// set number of times.
    pub(crate) fn ends(&self) -> bool {
        self.repeat.is_none() || self.max_runs.is_some()
    }

    pub(crate) fn new(settings: &StartupSpec, rng: Pcg64Mcg) -> Self {
        let trace = Arc::clone(&settings.trace);
        StartupReplay {
            threads: vec![Thread::default(); trace.threads.len()],
            trace,
            mode: settings.replay,
            repeat: settings.repeat,
            max_runs: settings.runs,
            rng,
            cursor: 0,
            released_at: Instant::ZERO,
            in_flight: 0,
            run_start: None,
            next_run: Instant::ZERO,
            runs: 0,
            finishing: false,
            last_end: None,
            measured: Vec::new(),
        }
    }

    /// The flow is due at `now`: start a run if one is due, then issue what
    /// the replay allows.
    pub(crate) fn wake(&mut self, spec: &FlowSpec, now: Instant, act: &mut Actions) {
        if self.run_start.is_none() {
            if self.finishing
                || now < self.next_run
                || self.max_runs.is_some_and(|n| self.runs >= n)
            {
                return;
            }
            self.run_start = Some(now);
            act.new_process = self.runs > 0;
            if act.new_process {
                // The old process's requests are no longer counted.
                self.in_flight = 0;
            }
            self.runs += 1;
            self.cursor = 0;
            self.released_at = now;
            self.threads.fill(Thread {
                free_at: now,
                ..Thread::default()
            });
        }
        self.advance(spec, now, act);
    }

    /// A request of `thread` completed at `now`; `current` is false for a
    /// request of an earlier process. Returns true when the flow is done.
    pub(crate) fn completed(
        &mut self,
        spec: &FlowSpec,
        now: Instant,
        thread: u32,
        current: bool,
        warmup: Instant,
        act: &mut Actions,
    ) -> bool {
        if !current {
            return false;
        }
        self.in_flight -= 1;
        if self.run_start.is_some() {
            let th = &mut self.threads[thread as usize];
            let run_over = match self.mode {
                Replay::SSuite | Replay::Think => {
                    if th.blocked {
                        th.blocked = false;
                        self.released_at = now;
                    } else {
                        th.in_flight -= 1;
                    }
                    self.cursor == self.trace.records.len() && !self.any_blocked()
                }
                Replay::Recorded => {
                    th.in_flight -= 1;
                    if th.in_flight == 0 && th.blocked {
                        th.blocked = false;
                        th.free_at = now;
                    }
                    self.in_flight == 0 && self.all_issued()
                }
            };
            if run_over {
                self.end_run(now, warmup, act);
            } else {
                self.advance(spec, now, act);
            }
        }
        self.finishing && self.in_flight == 0
    }

    fn any_blocked(&self) -> bool {
        self.threads.iter().any(|t| t.blocked)
    }

    fn all_issued(&self) -> bool {
        self.threads
            .iter()
            .zip(&self.trace.threads)
            .all(|(t, records)| t.next == records.len())
    }

    /// The last record is served: record the start-up, plan the next one.
    fn end_run(&mut self, now: Instant, warmup: Instant, act: &mut Actions) {
        let start = self.run_start.take().expect("a run is in progress");
        self.last_end = Some(now);
        if now >= warmup {
            self.measured.push(now - start);
        }
        match self.repeat {
            Some((period, pause)) if self.max_runs.is_none_or(|n| self.runs < n) => {
                self.next_run = (start + period).max(now + pause);
                act.wakes.push(self.next_run);
            }
            _ => self.finishing = true,
        }
    }

    fn advance(&mut self, spec: &FlowSpec, now: Instant, act: &mut Actions) {
        match self.mode {
            Replay::SSuite => self.advance_s_suite(spec, None, act),
            Replay::Think => self.advance_s_suite(spec, Some(now), act),
            Replay::Recorded => self.advance_recorded(spec, now, act),
        }
    }

    /// Issue records in trace order until one must wait: a synchronous
    /// read waits for its thread's read-aheads, and the next record waits
    /// for a synchronous read to complete. With `thinking` (the time now),
    /// a record also waits for its think time; asks to be woken when it
    /// ends.
    fn advance_s_suite(&mut self, spec: &FlowSpec, thinking: Option<Instant>, act: &mut Actions) {
        let last = self.trace.records.len() - 1;
        while !self.any_blocked() {
            let Some(&r) = self.trace.records.get(self.cursor) else {
                return;
            };
            let asynchronous = !r.blocking && self.cursor != last;
            if let Some(now) = thinking {
                let think = self.trace.think.get(self.cursor).copied();
                let ready = self.released_at + think.unwrap_or(Duration::ZERO);
                if ready > now {
                    act.wakes.push(ready);
                    return;
                }
            }
            let th = &mut self.threads[r.thread as usize];
            if !asynchronous && th.in_flight > 0 {
                return; // resumes when the thread's read-aheads complete
            }
            let sector = s_suite_position(spec, &r, th, &mut self.rng);
            if asynchronous {
                th.in_flight += 1;
                if let Some(now) = thinking {
                    self.released_at = now;
                }
            } else {
                th.blocked = true;
            }
            self.in_flight += 1;
            self.cursor += 1;
            act.issues.push(Issue {
                thread: r.thread,
                continues: false,
                sector,
                sectors: r.sectors,
                write: false,
                sync: true,
                flush: false,
            });
        }
    }

    /// Each thread issues its records after their gaps, blocking on its
    /// synchronous requests; asks to be woken when a gap ends.
    fn advance_recorded(&mut self, spec: &FlowSpec, now: Instant, act: &mut Actions) {
        for (t, th) in self.threads.iter_mut().enumerate() {
            let records = &self.trace.threads[t];
            while !th.blocked {
                let Some(&i) = records.get(th.next) else {
                    break;
                };
                let r = self.trace.records[i as usize];
                let ready = th.free_at + r.think;
                if ready > now {
                    act.wakes.push(ready);
                    break;
                }
                act.issues.push(Issue {
                    thread: r.thread,
                    continues: false,
                    sector: spec.file_start + r.sector % spec.file_sectors.max(1),
                    sectors: r.sectors,
                    write: r.write,
                    sync: true,
                    flush: false,
                });
                th.in_flight += 1;
                self.in_flight += 1;
                th.blocked = r.blocking;
                th.free_at = now;
                th.next += 1;
            }
        }
    }
}

/// Where an s-suite read of record `r` goes in its thread's file: `Seq` at
/// the thread's offset (back to 0 if the read would pass the end), `Rand`
/// at a random sector-aligned offset; the offset then moves past the read.
fn s_suite_position(
    spec: &FlowSpec,
    r: &StartupRecord,
    th: &mut Thread,
    rng: &mut Pcg64Mcg,
) -> u64 {
    let size = u64::from(r.sectors).min(THREAD_FILE_SECTORS);
    let offset = if r.seq {
        if th.offset + size > THREAD_FILE_SECTORS {
            0
        } else {
            th.offset
        }
    } else {
        rng.gen_range(0..=THREAD_FILE_SECTORS - size)
    };
    th.offset = offset + size;
    spec.file_start + u64::from(r.thread) * THREAD_FILE_SECTORS + offset
}

#[cfg(test)]
mod tests;
