//! What a run measures: per-flow metrics after the warm-up, the optional
//! timelines and request log, and the `sluice.sim/1` report built from them.

use sluice::{Duration, Instant, Request, Service};

use sluice_runtime::report::{measure, DeviceRequests, Perf, SimReport, SIM_SCHEMA};
use sluice_runtime::timeline::Bins;
use sluice_runtime::Population;

use sluice_runtime::request_log::RequestRecord;

/// Measurements of one run.
pub(crate) struct Recorder {
    /// Completions before this instant are not measured.
    pub warmup: Instant,
    /// Requests completed, warm-up included (for the speed figure).
    pub completed_total: u64,
    /// Bytes per flow per bin, when a timeline was asked for (the
    /// aggregate is their sum).
    flow_timeline: Option<Bins>,
    /// Device time per flow per bin, when the timeline is on.
    disk_timeline: Vec<Vec<Duration>>,
    /// Every completed request, when asked for.
    log: Option<Vec<RequestRecord>>,
    /// What reached the drive (after merging) and completed after the
    /// warm-up: requests and sectors, reads then writes.
    device: [(u64, u64); 2],
}

/// The run's identity, for the report.
pub(crate) struct RunInfo<'a> {
    pub scenario: &'a str,
    pub scheduler: &'a str,
    pub device: &'a str,
    pub seed: u64,
    pub policy_stats: Vec<(&'static str, f64)>,
    pub events: u64,
}

impl Recorder {
    pub(super) fn new(warmup: Instant) -> Self {
        Recorder {
            warmup,
            completed_total: 0,
            flow_timeline: None,
            disk_timeline: Vec::new(),
            log: None,
            device: [(0, 0); 2],
        }
    }

    /// Also record throughput and device time per flow over time.
    pub(super) fn with_timeline(&mut self, bin: Duration, flows: usize) {
        self.disk_timeline = vec![Vec::new(); flows];
        self.flow_timeline = Some(Bins::new(bin, flows));
    }

    /// Also record every completed request.
    pub(super) fn with_log(&mut self) {
        self.log = Some(Vec::new());
    }

    /// The request log (empty unless asked for).
    pub(super) fn take_log(&mut self) -> Vec<RequestRecord> {
        self.log.take().unwrap_or_default()
    }

    /// The drive finished request `r` (merged or not) at `now`.
    pub(super) fn device_request(&mut self, r: &Request, now: Instant) {
        if now >= self.warmup {
            let d = &mut self.device[usize::from(r.is_write())];
            d.0 += 1;
            d.1 += u64::from(r.sectors);
        }
    }

    /// Account for the completion of request `r` (an original one, when
    /// the drive served it merged) of flow `f`'s thread `thread` in the
    /// timelines and the log (the flow's own measurements are the
    /// population's).
    pub(super) fn record(&mut self, f: usize, thread: u32, r: &Request, svc: &Service) {
        self.timeline(f, svc.completed, r.bytes(), svc.disk_time);
        self.log(f as u32, thread, r, svc);
    }

    /// Account for `bytes` of flow `f` done at `now` in the timelines.
    pub(super) fn timeline(&mut self, f: usize, now: Instant, bytes: u64, disk_time: Duration) {
        self.completed_total += 1;
        if let Some(b) = &mut self.flow_timeline {
            let i = b.record(f, now, bytes);
            let tl = &mut self.disk_timeline[f];
            if tl.len() <= i {
                tl.resize(i + 1, Duration::ZERO);
            }
            tl[i] += disk_time;
        }
    }

    /// Log a completed disk request under flow index `f` (the page cache's
    /// writeback under [`RequestRecord::FLUSHER`]).
    pub(super) fn log(&mut self, f: u32, thread: u32, r: &Request, svc: &Service) {
        let now = svc.completed;
        if let Some(log) = &mut self.log {
            log.push(RequestRecord {
                flow: f,
                thread,
                write: r.is_write(),
                sync: r.sync,
                sector: r.sector,
                sectors: r.sectors,
                arrival: r.arrival,
                dispatched: svc.dispatched,
                completed: now,
            });
        }
    }

    /// The report of a run that ended at `end`.
    pub(super) fn report(
        &self,
        pop: &Population,
        oldest_pending: &[Option<Instant>],
        info: RunInfo<'_>,
        end: Instant,
        wall_s: f64,
    ) -> SimReport {
        let (aggregate, mut flows) = measure(&pop.flows, oldest_pending, self.warmup, end);
        for (fi, f) in flows.iter_mut().enumerate() {
            f.disk_timeline_s = self
                .disk_timeline
                .get(fi)
                .map(|tl| tl.iter().map(|t| t.as_secs_f64()).collect());
        }
        SimReport {
            schema: SIM_SCHEMA,
            scenario: info.scenario.to_string(),
            scheduler: info.scheduler.to_string(),
            device: info.device.to_string(),
            seed: info.seed,
            sim_time_s: end.as_secs_f64(),
            measured_from_s: self.warmup.as_secs_f64(),
            aggregate,
            flows,
            device_requests: Some(DeviceRequests::new(self.device)),
            policy_stats: info
                .policy_stats
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            timeline: self
                .flow_timeline
                .as_ref()
                .map(|b| b.report(pop.flows.iter().map(|f| f.spec.name.as_str()), end)),
            timeline_mb_s: self.flow_timeline.as_ref().map(|b| b.total_mb_s()),
            perf: Perf {
                events: info.events,
                wall_s,
                requests_per_wall_s: if wall_s > 0.0 {
                    self.completed_total as f64 / wall_s
                } else {
                    0.0
                },
            },
        }
    }
}
