//! What a real run reports: the `sluice.run/1` object (`sluice.sim/1`'s
//! fields plus `engine` and any warnings), built from the books the same
//! way for `run` and `kernel`.

use serde::Serialize;
use sluice::Instant;
use sluice_runtime::report::{measure, Perf, SimReport};
use sluice_runtime::request_log::RequestLog;
use sluice_runtime::{Population, Scenario};
use sluice_uring::{Completion, Engine};

use super::requests::Book;

/// Schema tag of [`RunReport`] (the runtime's: the report reads it back).
pub use sluice_runtime::report::RUN_SCHEMA;

/// The `sluice.run/1` object: `sluice.sim/1`'s fields plus `engine`.
#[derive(Serialize)]
pub struct RunReport {
    /// The `sluice.sim/1` fields, at the top level of the object.
    #[serde(flatten)]
    pub report: SimReport,
    /// How the I/O was done.
    pub engine: EngineReport,
    /// `log_requests`: every request completed in the run (not part of
    /// the JSON; written as CSV).
    #[serde(skip)]
    pub request_log: Option<RequestLog>,
    /// What went wrong without stopping the run (failed requests, a
    /// fallback from O_DIRECT, a setting not restored, journals of dead
    /// runs cleaned up), one line each: the library never prints, its
    /// caller shows them. In the JSON only when there are some.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Where and how the run's I/O went.
#[derive(Serialize)]
pub struct EngineReport {
    /// The target: the block device, or the folder of the flows' files.
    pub target: String,
    /// Whether all the I/O bypassed the page cache (O_DIRECT).
    pub direct: bool,
    /// Requests in flight at the target: the engine's queue depth, or the
    /// device's `nr_requests` under `sluice kernel`.
    pub queue_depth: usize,
    /// The kernel I/O scheduler of the block device the target is or is on, if
    /// known (the one `sluice kernel` ran under).
    pub kernel_scheduler: Option<String>,
    /// `verify`: blocks read back and checked.
    pub verified_blocks: Option<u64>,
    /// `verify`: blocks whose content was not the last stamp written (lost,
    /// misplaced or torn writes).
    pub verify_errors: Option<u64>,
}

/// Requests completed and failed over the run.
#[derive(Default)]
pub(crate) struct Tally {
    /// Requests completed, failed ones included.
    pub(crate) completed: u64,
    errors: u64,
    first_error: Option<String>,
}

impl Tally {
    /// Count completion `c` (and its error, if any).
    pub(crate) fn count(&mut self, c: &Completion) {
        self.completed += 1;
        if let Err(e) = &c.result {
            self.errors += 1;
            self.first_error.get_or_insert_with(|| e.to_string());
        }
    }

    /// The warning to give if any request failed: how many, and the first
    /// error.
    pub(crate) fn warning(&self) -> Option<String> {
        (self.errors > 0).then(|| {
            format!(
                "{} requests failed ({})",
                self.errors,
                self.first_error.as_deref().unwrap_or_default()
            )
        })
    }
}

/// What ran the requests, for the report.
pub(crate) struct Origin {
    /// The scheduling policy's name (the kernel's scheduler for `sluice kernel`).
    pub(crate) scheduler: String,
    /// What ran the I/O: `io_uring`, or `kernel`.
    pub(crate) device: String,
    /// The counters the policy reports (none for `sluice kernel`).
    pub(crate) policy_stats: Vec<(String, f64)>,
    /// The engine's `io_uring_enter` calls (or the kernel run's requests).
    pub(crate) events: u64,
}

impl Origin {
    pub(crate) fn engine(engine: &Engine) -> Self {
        Origin {
            scheduler: engine.policy().name().to_string(),
            device: "io_uring".to_string(),
            policy_stats: engine
                .policy()
                .stats()
                .entries()
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            events: engine.stats().enters,
        }
    }
}

/// The `sluice.sim/1` part, as the simulator's recorder builds it.
pub(crate) fn report(
    s: &Scenario,
    pop: &Population,
    book: &Book,
    origin: Origin,
    end: Instant,
    completed_total: u64,
    wall_s: f64,
) -> SimReport {
    let warmup = Instant::ZERO + s.warmup;
    let oldest = book.oldest_pending(pop.flows.len());
    let (aggregate, flows) = measure(&pop.flows, &oldest, warmup, end);
    SimReport {
        schema: RUN_SCHEMA,
        scenario: s.name.clone(),
        scheduler: origin.scheduler,
        device: origin.device,
        seed: s.seed,
        sim_time_s: end.as_secs_f64(),
        device_requests: None,
        measured_from_s: warmup.as_secs_f64(),
        aggregate,
        flows,
        policy_stats: origin.policy_stats.into_iter().collect(),
        timeline_mb_s: None,
        timeline: book
            .timeline
            .as_ref()
            .map(|b| b.report(pop.flows.iter().map(|f| f.spec.name.as_str()), end)),
        perf: Perf {
            events: origin.events,
            wall_s,
            requests_per_wall_s: if wall_s > 0.0 {
                completed_total as f64 / wall_s
            } else {
                0.0
            },
        },
    }
}
