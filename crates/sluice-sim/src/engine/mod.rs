//! The simulator: a virtual clock, a device model and the scenario's flows
//! around the core's [`Driver`]. The driver decides when the policy is
//! called; this loop only supplies "now", device completions and the
//! device's cost model, and wakes the driver when it asks.
//!
//! Each step pops the earliest event (a flow waking, the device's next
//! completion, the driver's wake-up), feeds it in, lets the driver fill the
//! device, and re-arms the device and wake-up events.

mod agenda;
mod population;
mod recorder;
mod request_log;

#[cfg(test)]
mod tests;

use std::time::Instant as WallClock;

use sluice::{Driver, Duration, Instant, RequestId, Scheduler};
use sluice_workload::Actions;

use self::agenda::{Agenda, Event, Slot};
use self::population::Population;
use self::recorder::{Recorder, RunInfo};
use crate::device::{self, Command, Device, Setup};
use crate::error::Error;
use crate::report::SimReport;
use crate::scenario::Scenario;

pub use self::request_log::RequestRecord;

/// One simulation run.
pub struct Simulation {
    scenario_name: String,
    seed: u64,
    end: Instant,
    stop_after_finite: bool,
    driver: Driver<Box<dyn Scheduler>>,
    device: Box<dyn Device>,
    pop: Population,
    rec: Recorder,
    agenda: Agenda,
    now: Instant,
    device_event: Slot,
    wake_event: Slot,
    events: u64,
    progress: Option<Box<dyn FnMut(Duration, Duration)>>,
}

/// Events between two calls of a progress callback.
const PROGRESS_EVERY: u64 = 1 << 16;

impl Simulation {
    /// Set a scenario up: device, the policy it names, flows.
    pub fn new(scenario: &Scenario) -> Result<Self, Error> {
        let sched = sluice::policy::build(&scenario.scheduler, &scenario.params)?;
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
        let pop = Population::new(scenario, &mut driver)?;
        let mut agenda = Agenda::default();
        for (i, f) in scenario.flows.iter().enumerate() {
            agenda.push(f.start, Event::FlowIssue(i as u32));
        }
        Ok(Simulation {
            scenario_name: scenario.name.clone(),
            seed: scenario.seed,
            end: Instant::ZERO + scenario.duration,
            stop_after_finite: scenario.stop_after_finite,
            driver,
            device,
            pop,
            rec: Recorder::new(Instant::ZERO + scenario.warmup),
            agenda,
            now: Instant::ZERO,
            device_event: Slot::default(),
            wake_event: Slot::default(),
            events: 0,
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
    /// (every 65,536 events), with the simulated time so far and the
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
        let flows = self.pop.flows.len();
        let finite = self.pop.finite_left;
        let all_finite = self.stop_after_finite && finite > 0 || finite == flows;
        while let Some((t, ev)) = self.agenda.pop() {
            if t > self.end {
                break;
            }
            self.now = t;
            self.events += 1;
            if self.events & (PROGRESS_EVERY - 1) == 0 {
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
                Event::Wake(g) if self.wake_event.fires(g) => self.driver.handle_timeout(t),
                _ => continue,
            }
            self.fill_device();
            self.rearm();
            if all_finite && self.pop.finite_left == 0 {
                break;
            }
        }
        let end = if all_finite && self.pop.finite_left == 0 {
            self.now
        } else {
            self.end
        };
        let info = RunInfo {
            scenario: &self.scenario_name,
            scheduler: self.driver.policy().name(),
            device: self.device.name(),
            seed: self.seed,
            policy_stats: self.driver.policy().stats(),
            events: self.events,
        };
        let report = self
            .rec
            .report(&self.pop, info, end, wall.elapsed().as_secs_f64());
        (report, self.rec.take_log())
    }

    /// Flow `f` is due to act.
    fn flow_wakes(&mut self, f: usize) {
        let mut act = Actions::default();
        self.pop.flows[f].wake(self.now, &mut act);
        self.apply(f, act);
    }

    /// Hand flow `f`'s requests to the driver and schedule its wake-ups.
    fn apply(&mut self, f: usize, act: Actions) {
        for t in self.pop.apply(&mut self.driver, f, act, self.now) {
            self.agenda
                .push(t.max(self.now), Event::FlowIssue(f as u32));
        }
    }

    /// The device finished request `id`.
    fn complete(&mut self, id: RequestId) {
        let done = self
            .driver
            .complete(self.now, id)
            .expect("the device completes only what it was given");
        self.pop.served(id);
        let (f, thread) = self.pop.owner(done.request.flow);
        self.rec.record(&mut self.pop, f, thread, &done);
        let current = self.pop.is_current(done.request.flow);
        let mut act = Actions::default();
        let flow = &mut self.pop.flows[f];
        if flow.completed(self.now, thread, current, self.rec.warmup, &mut act) {
            self.pop.finite_left -= 1;
        }
        self.apply(f, act);
    }

    /// Send the device what the driver dispatches.
    fn fill_device(&mut self) {
        while let Some(r) = self.driver.poll_dispatch(self.now, self.device.as_ref()) {
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
        let next = self.driver.poll_timeout();
        self.agenda
            .rearm(&mut self.wake_event, next, now, Event::Wake);
    }
}

/// Load-and-run convenience: simulate `scenario` and report.
pub fn simulate(scenario: &Scenario) -> Result<SimReport, Error> {
    Ok(Simulation::new(scenario)?.run())
}
