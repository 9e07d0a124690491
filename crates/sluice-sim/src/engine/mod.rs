//! The simulator: a virtual clock, a device model and the scenario's flows
//! around the core's [`Driver`]. The driver decides when the policy is
//! called; this loop only supplies "now", device completions and the
//! device's cost model, and wakes the driver when it asks.
//!
//! Each step pops the earliest event (a flow waking, the device's next
//! completion, the driver's wake-up), feeds it in, lets the driver fill the
//! device, and re-arms the device and wake-up events.

mod agenda;
mod recorder;

mod requests;

#[cfg(test)]
mod buffered_tests;
#[cfg(test)]
mod tests;

use std::time::Instant as WallClock;

use sluice::{Driver, Duration, Instant, Request, RequestId, Scheduler, Service};
use sluice_runtime::population::Measured;
use sluice_runtime::report::SimReport;
use sluice_runtime::{Error, Population, Scenario};
use sluice_workload::Actions;

use self::agenda::{Agenda, Event, Slot};
use self::recorder::{Recorder, RunInfo};
use self::requests::{Requests, FLUSHER};
use crate::device::{self, Command, Device, Setup};
use crate::os;

pub use sluice_runtime::request_log::RequestRecord;

/// One simulation run.
pub struct Simulation {
    scenario_name: String,
    seed: u64,
    end: Instant,
    stop_after_finite: bool,
    host: Requests,
    device: Box<dyn Device>,
    pop: Population,
    rec: Recorder,
    agenda: Agenda,
    now: Instant,
    device_event: Slot,
    wake_event: Slot,
    events: u64,
    /// Events and buffered fragments completed: the run's work so far
    /// (one page cache event can complete thousands of fragments).
    work: u64,
    /// Work at which the progress callback is next called.
    next_progress: u64,
    progress: Option<Box<dyn FnMut(Duration, Duration)>>,
}

/// Work (events and buffered fragments) between two calls of a progress
/// callback.
const PROGRESS_EVERY: u64 = 1 << 16;

impl Simulation {
    /// Set a scenario up: device, the policy it names, flows.
    pub fn new(scenario: &Scenario) -> Result<Self, Error> {
        let sched = scenario.policy()?;
        Self::with_policy(scenario, sched)
    }

    /// Set a scenario up with a policy of the caller's own (embedders and
    /// tests); the scenario's `[scheduler]` is ignored.
    pub fn with_policy(scenario: &Scenario, sched: Box<dyn Scheduler>) -> Result<Self, Error> {
        scenario.check_memory()?;
        let d = &scenario.device;
        let device = device::build(
            &d.model,
            &Setup {
                queue_depth: d.queue_depth,
                internal: d.internal,
                write_cache: d.write_cache,
                read_cache: d.read_cache,
                max_command_age: d.max_command_age,
                seed: scenario.seed,
            },
        );
        let mut driver = Driver::new(sched, device.queue_depth());
        if let Some(max) = d.merge_sectors() {
            driver = driver.with_merging(max);
        }
        let mut host = Requests::new(driver);
        let Ok(pop) = Population::new(scenario, &mut host);
        let mut agenda = Agenda::default();
        for (i, f) in scenario.flows.iter().enumerate() {
            agenda.push(f.start, Event::FlowIssue(i as u32));
        }
        // Only a buffered flow brings the page cache: direct runs are as
        // they were, event for event.
        if scenario.flows.iter().any(|f| !f.direct) {
            host.with_page_cache(page_cache_config(scenario, d.model.capacity()));
            agenda.push(Instant::ZERO + os::KUPDATE_INTERVAL, Event::Kupdate);
        }
        Ok(Simulation {
            scenario_name: scenario.name.clone(),
            seed: scenario.seed,
            end: Instant::ZERO + scenario.duration,
            stop_after_finite: scenario.stop_after_finite,
            host,
            device,
            pop,
            rec: Recorder::new(Instant::ZERO + scenario.warmup),
            agenda,
            now: Instant::ZERO,
            device_event: Slot::default(),
            wake_event: Slot::default(),
            events: 0,
            work: 0,
            next_progress: PROGRESS_EVERY,
            progress: None,
        })
    }

    /// Also report the aggregate throughput over time, in bins of `bin`
    /// (`SimReport::timeline_mb_s`), warm-up included.
    pub fn with_timeline(mut self, bin: Duration) -> Self {
        self.rec.with_timeline(bin, self.pop.flows.len());
        self
    }

    /// Also record every completed request (see `run_logged`): the raw
    /// material for tracing why a flow waited.
    pub fn with_request_log(mut self) -> Self {
        self.rec.with_log();
        self
    }

    /// Call `progress(simulated, duration)` now and then during the run
    /// (every 65,536 events or buffered fragments), with the simulated time so far and the
    /// scenario's duration: for progress bars. It cannot change the run.
    pub fn with_progress(mut self, progress: impl FnMut(Duration, Duration) + 'static) -> Self {
        self.progress = Some(Box::new(progress));
        self
    }

    /// Run to the end and report.
    pub fn run(self) -> SimReport {
        self.run_logged().0
    }

    /// Run to the end; report, and the request log if one was asked for
    /// (empty otherwise), in completion order.
    pub fn run_logged(mut self) -> (SimReport, Vec<RequestRecord>) {
        let wall = WallClock::now();
        while let Some((t, ev)) = self.agenda.pop() {
            if t > self.end {
                break;
            }
            self.now = t;
            self.events += 1;
            self.work += 1;
            if self.work >= self.next_progress {
                self.next_progress = self.work + PROGRESS_EVERY;
                if let Some(p) = &mut self.progress {
                    p(t.since_origin(), self.end.since_origin());
                }
            }
            match ev {
                Event::FlowIssue(f) => self.flow_wakes(f as usize),
                Event::Device(g) if self.device_event.fires(g) => {
                    while let Some(tag) = self.device.pop_completion(t) {
                        self.complete(RequestId(tag));
                    }
                }
                Event::Wake(g) if self.wake_event.fires(g) => self.host.driver.handle_timeout(t),
                Event::Cache(token) => self.cache_done(token),
                Event::Kupdate => {
                    self.host.kupdate(t);
                    self.schedule_cache();
                    self.agenda.push(t + os::KUPDATE_INTERVAL, Event::Kupdate);
                }
                _ => continue,
            }
            self.fill_device();
            self.rearm();
            if self.pop.finite_done(self.stop_after_finite) {
                break;
            }
        }
        let end = if self.pop.finite_done(self.stop_after_finite) {
            self.now
        } else {
            self.end
        };
        let info = RunInfo {
            scenario: &self.scenario_name,
            scheduler: self.host.driver.policy().name(),
            device: self.device.name(),
            seed: self.seed,
            policy_stats: self.host.driver.policy().stats().entries(),
            events: self.events,
        };
        let oldest = self.host.oldest_pending(self.pop.flows.len());
        let report = self
            .rec
            .report(&self.pop, &oldest, info, end, wall.elapsed().as_secs_f64());
        (report, self.rec.take_log())
    }

    /// Flow `f` is due to act.
    fn flow_wakes(&mut self, f: usize) {
        let act = self.pop.wake(f, self.now);
        self.apply(f, act);
    }

    /// Hand flow `f`'s requests to the driver and schedule its wake-ups.
    fn apply(&mut self, f: usize, act: Actions) {
        let Ok(wakes) = self.pop.apply(&mut self.host, f, act, self.now);
        self.host.submit_extent(self.now);
        for t in wakes {
            self.agenda
                .push(t.max(self.now), Event::FlowIssue(f as u32));
        }
        self.schedule_cache();
    }

    /// Put the page cache's completions on the agenda.
    fn schedule_cache(&mut self) {
        if let Some(os) = &mut self.host.os {
            for (at, token) in os.due.drain(..) {
                self.agenda.push(at.max(self.now), Event::Cache(token));
            }
        }
    }

    /// The page cache completed a buffered flow's request: its flow is
    /// told of each fragment, with the bytes it wrote or read (the disk
    /// time of its reads and writeback is charged as the disk serves
    /// them).
    fn cache_done(&mut self, token: u64) {
        let Some(app) = self.host.cache_done(token) else {
            return;
        };
        let (f, _) = self.pop.owner(app.thread);
        self.work += u64::from(app.fragments);
        self.rec
            .timeline(f, self.now, app.bytes, sluice::Duration::ZERO);
        for bytes in app.fragment_sizes() {
            let measured = Measured {
                bytes,
                write: app.write,
                latency: self.now - app.arrival,
                disk_time: sluice::Duration::ZERO,
            };
            let (f, act) = self
                .pop
                .completed(app.thread, self.now, self.rec.warmup, measured);
            self.apply(f, act);
        }
    }

    /// The device finished a request the page cache asked for: logged and
    /// its disk time charged to the reader or writer it was for (writeback
    /// of a writer that is gone under the flusher, whose disk time is no
    /// flow's), then back to the cache.
    fn cache_io_done(&mut self, r: &Request, svc: &Service) {
        let (f, thread) = if r.flow == FLUSHER {
            (RequestRecord::FLUSHER, 0)
        } else {
            // A reader's read or a writer's writeback: its flow is charged
            // the disk time.
            let (f, t) = self.pop.owner(r.flow);
            if self.now >= self.rec.warmup {
                self.pop.flows[f].metrics.disk_time += svc.disk_time;
            }
            (f as u32, t)
        };
        self.rec.log(f, thread, r, svc);
        self.host.cache_io_done(self.now, r.id);
        self.schedule_cache();
    }

    /// The device finished request `id`.
    fn complete(&mut self, id: RequestId) {
        let done = self
            .host
            .driver
            .complete(self.now, id)
            .expect("the device completes only what it was given");
        self.rec.device_request(&done.request, self.now);
        if self.host.is_cache_io(done.originals()[0].id) {
            for (r, svc) in done.each() {
                self.host.served(r.id);
                self.cache_io_done(r, &svc);
            }
            return;
        }
        let (f, thread) = self.pop.owner(done.request.flow);
        for (r, svc) in done.each() {
            self.host.served(r.id);
            self.rec.record(f, thread, r, &svc);
            let measured = Measured {
                bytes: r.bytes(),
                write: r.is_write(),
                latency: svc.completed - r.arrival,
                disk_time: svc.disk_time,
            };
            let (f, act) = self
                .pop
                .completed(r.flow, self.now, self.rec.warmup, measured);
            self.apply(f, act);
        }
    }

    /// Send the device what the driver dispatches.
    fn fill_device(&mut self) {
        while let Some(r) = self
            .host
            .driver
            .poll_dispatch(self.now, self.device.as_ref())
        {
            self.device.submit(self.now, Command::of(&r));
        }
    }

    /// Keep the agenda holding the device's next event and the driver's
    /// next wake-up.
    fn rearm(&mut self) {
        let now = self.now;
        let next = self.device.next_completion();
        self.agenda
            .rearm(&mut self.device_event, next, now, Event::Device);
        let next = self.host.driver.poll_timeout();
        self.agenda
            .rearm(&mut self.wake_event, next, now, Event::Wake);
    }
}

/// The device's largest request, KiB (`[device] max_request_kib`): the size
/// writeback and read-ahead requests are cut to.
fn max_request_kib(scenario: &Scenario) -> u64 {
    u64::from(scenario.device.max_request_kib)
}

/// The page cache of a scenario's `[os]` table.
fn page_cache_config(scenario: &Scenario, capacity_sectors: u64) -> os::Config {
    let o = &scenario.os;
    os::Config::new(
        o.memory_mib,
        o.dirty_background_ratio,
        o.dirty_ratio,
        o.dirty_expire,
        o.read_ahead_kb,
        max_request_kib(scenario),
        capacity_sectors,
    )
}

/// Load-and-run convenience: simulate `scenario` and report.
pub fn simulate(scenario: &Scenario) -> Result<SimReport, Error> {
    Ok(Simulation::new(scenario)?.run())
}

/// `scenario` under every policy, in [`sluice::policy::POLICIES`]' order
/// (what `sluice compare` prints): the scenario's own policy keeps its
/// `[scheduler]` parameters, the others run with their defaults.
/// `started(i)` is told before the `i`-th policy runs (a progress bar).
pub fn compare(
    scenario: &Scenario,
    mut started: impl FnMut(usize),
) -> Result<Vec<SimReport>, Error> {
    let mut reports = Vec::new();
    for (i, p) in sluice::policy::POLICIES.iter().enumerate() {
        started(i);
        let mut s = scenario.clone();
        if s.scheduler != p.name {
            s.scheduler = p.name.to_string();
            s.params = Default::default();
        }
        reports.push(simulate(&s)?);
    }
    Ok(reports)
}
