//! Running a fleet's nodes: each node's job simulated on its own
//! ([`run_node`]), the nodes spread over local threads ([`run_local`]).
//! A Ray driver (the Python package) runs [`run_node`] in its tasks
//! instead, and [`sluice_runtime::fleet::merge`]s the same results.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use sluice_runtime::fleet::{merge, FleetPerf, FleetPlan, FleetReport, NodeJob, NodeResult};

use crate::Result;

/// Simulate one node's volumes.
pub fn run_node(job: &NodeJob) -> Result<NodeResult> {
    let report = match job.scenario()? {
        Some(s) => Some(crate::Simulation::new(&s)?.run()),
        None => None,
    };
    Ok(NodeResult::of(job, report.as_ref()))
}

/// Simulate every node of `plan` on `workers` threads, the largest nodes
/// first; `done(nodes_done, nodes)` is called as each node ends. A node's
/// job is dropped as soon as it has run, so memory falls as the run goes.
/// The report is the same whatever `workers` is (only `perf` differs).
pub fn run_local(
    plan: FleetPlan,
    workers: usize,
    done: impl Fn(usize, usize) + Sync,
) -> Result<FleetReport> {
    let wall = std::time::Instant::now();
    let summary = plan.summary();
    let total = plan.jobs.len();
    // Largest first: the longest node does not start last.
    let mut jobs: Vec<NodeJob> = plan.jobs;
    jobs.sort_by_key(|j| std::cmp::Reverse(j.requests()));
    let queue: Vec<Mutex<Option<NodeJob>>> =
        jobs.into_iter().map(|j| Mutex::new(Some(j))).collect();
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let results: Mutex<Vec<NodeResult>> = Mutex::new(Vec::with_capacity(total));
    let first_error: Mutex<Option<sluice_runtime::Error>> = Mutex::new(None);
    let workers = workers.clamp(1, total.max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(slot) = queue.get(i) else { break };
                if first_error.lock().expect("not poisoned").is_some() {
                    break;
                }
                let job = slot
                    .lock()
                    .expect("not poisoned")
                    .take()
                    .expect("each job once");
                match run_node(&job) {
                    Ok(r) => results.lock().expect("not poisoned").push(r),
                    Err(e) => {
                        first_error.lock().expect("not poisoned").get_or_insert(e);
                        break;
                    }
                }
                drop(job);
                done(finished.fetch_add(1, Ordering::Relaxed) + 1, total);
            });
        }
    });
    if let Some(e) = first_error.into_inner().expect("not poisoned") {
        return Err(e);
    }
    let perf = FleetPerf {
        wall_s: wall.elapsed().as_secs_f64(),
        runner: "threads".into(),
        workers: workers as u32,
        // The host measures its own memory (a library cannot know what
        // else its process holds).
        peak_rss_mib: 0.0,
        worker_peak_rss_mib: 0.0,
    };
    Ok(merge(
        &summary,
        results.into_inner().expect("not poisoned"),
        perf,
    ))
}
