//! `sluice fleet`: a trace's volumes placed on nodes, one simulation per
//! node, run on local threads.

use std::fmt::Write;
use std::path::PathBuf;

use anyhow::Result;
use sluice_runtime::fleet::{FleetPlan, FleetReport};

use super::option_range;
use crate::output::emit;
use crate::progress;

/// Replay a cloud block trace (Alibaba, Tencent, ...) as a fleet: each
/// volume placed on one of the scenario's nodes, each node simulated on
/// its own with the scenario's [device] and [scheduler], and every
/// volume's tail latency reported.
#[derive(clap::Args)]
#[command(
    after_help = "A fleet scenario has a [fleet] table instead of [[flow]]s:\n\n  \
[fleet]\n  trace = \"alibaba.csv\"      # a trace of many volumes\n  \
format = \"alibaba\"          # alibaba | tencent | fiu | mqsim | blktrace | ftrace-blk\n  \
nodes = 40\n  placement = \"hash\"          # hash (default) | round-robin | given ([fleet.given] volume = node)\n  \
timing = \"recorded\"         # recorded (default) | afap\n  \
offsets = \"wrap\"            # how a volume's addresses fit its share of the node's device\n\n\
The nodes run in parallel on --workers threads; the result is the same whatever the number \
(only `perf` differs). docs/fleet.md has the whole story; from Python, sluice.fleet(scenario, \
address=\"auto\") runs one Ray task per node.\n\nExample:\n  \
sluice fleet scenarios/fleet/alibaba-sample.toml --workers 2 --json"
)]
pub(crate) struct Args {
    /// Fleet scenario file (TOML with a [fleet] table).
    scenario: PathBuf,
    /// Threads running nodes at once (default: the machine's cores).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    workers: Option<i128>,
    /// Print the sluice.fleet/1 JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: Args) -> Result<()> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let workers = match args.workers {
        None => cores,
        Some(n) => option_range::whole("--workers", n, 1u32, 1024)? as usize,
    };
    let plan = FleetPlan::load(&args.scenario)?;
    let bar = progress::Progress::new(plan.name.clone(), plan.jobs.len() as u64, "nodes");
    let mut report = sluice_sim::fleet::run_local(plan, workers, |done, _| bar.set(done as u64))?;
    drop(bar);
    report.perf.peak_rss_mib = peak_rss_mib();
    report.perf.worker_peak_rss_mib = report.perf.peak_rss_mib;
    emit(args.json, &report, table)
}

/// This process's peak resident memory so far, MiB (0 if unknown).
fn peak_rss_mib() -> f64 {
    // SAFETY: getrusage writes the struct it is given, nothing else.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) } != 0 {
        return 0.0;
    }
    // Linux counts ru_maxrss in KiB.
    u.ru_maxrss as f64 / 1024.0
}

/// Nodes the table shows (the busiest).
const SHOWN: usize = 20;

/// The report as text: the busiest nodes, then the volumes with the worst
/// p99.9.
fn table(r: &FleetReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}: {} volumes on {} nodes ({} placement), {}",
        r.scenario,
        r.volumes.len(),
        r.nodes.len(),
        r.placement.policy,
        r.scheduler
    );
    let _ = writeln!(
        s,
        "\n{:>5} {:>8} {:>10} {:>8} {:>8} {:>9}",
        "node", "volumes", "requests", "util", "MB/s", "sim s"
    );
    // The busiest nodes first; a fleet of thousands shows its top.
    let mut nodes: Vec<_> = r.nodes.iter().collect();
    nodes.sort_by(|a, b| b.utilisation.total_cmp(&a.utilisation));
    for n in nodes.iter().take(SHOWN) {
        let _ = writeln!(
            s,
            "{:>5} {:>8} {:>10} {:>7.1}% {:>8.2} {:>9.1}",
            n.node,
            n.volumes,
            n.requests,
            n.utilisation * 100.0,
            n.mb_s,
            n.sim_time_s
        );
    }
    if nodes.len() > SHOWN {
        let _ = writeln!(
            s,
            "  ({} more nodes, less busy: --json lists every node)",
            nodes.len() - SHOWN
        );
    }
    let mut worst: Vec<_> = r.volumes.iter().collect();
    worst.sort_by(|a, b| b.p999_ms.total_cmp(&a.p999_ms));
    let _ = writeln!(
        s,
        "\nvolumes with the largest p99.9 (of {}):\n{:>16} {:>5} {:>10} {:>9} {:>9} {:>9} {:>8}",
        r.volumes.len(),
        "volume",
        "node",
        "requests",
        "p50 ms",
        "p99 ms",
        "p99.9 ms",
        "MB/s"
    );
    for v in worst.iter().take(10) {
        let _ = writeln!(
            s,
            "{:>16} {:>5} {:>10} {:>9.3} {:>9.3} {:>9.3} {:>8.3}",
            v.volume, v.node, v.requests, v.p50_ms, v.p99_ms, v.p999_ms, v.mb_s
        );
    }
    let _ = writeln!(
        s,
        "\n{:.1} s of wall time on {} {}, peak memory {:.0} MiB",
        r.perf.wall_s, r.perf.workers, r.perf.runner, r.perf.peak_rss_mib
    );
    s
}
