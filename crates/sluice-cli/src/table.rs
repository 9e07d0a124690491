//! Human-readable output.

use std::fmt::Write;

use sluice_runtime::names::printable;
use sluice_runtime::scenario::PATTERNS;
use sluice_runtime::SimReport;
use sluice_sim::device::presets::PRESETS;

/// One run as a table: aggregate line, then one row per flow.
pub(crate) fn report(r: &SimReport) -> String {
    let mut o = String::new();
    let a = &r.aggregate;
    let _ = writeln!(
        o,
        "{} | {} on {} | seed {} | {:.1} s simulated, measured from {:.1} s",
        printable(&r.scenario),
        r.scheduler,
        r.device,
        r.seed,
        r.sim_time_s,
        r.measured_from_s
    );
    let _ = writeln!(
        o,
        "aggregate: {:.2} MB/s (read {:.2}, write {:.2}), {:.1} IOPS, {} requests\n",
        a.mb_s, a.read_mb_s, a.write_mb_s, a.iops, a.requests
    );
    // Start-up flows add a column: their mean start-up time.
    let startups = r.flows.iter().any(|f| f.startups.is_some());
    let _ = write!(
        o,
        "{:<16} {:>6} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10} {:>9}",
        "flow", "weight", "requests", "MB/s", "disk s", "mean ms", "p99 ms", "max ms", "done s"
    );
    if startups {
        let _ = write!(o, " {:>10}", "start-up s");
    }
    o.push('\n');
    for f in &r.flows {
        let done = f.done_s.map_or("-".to_string(), |d| format!("{d:.2}"));
        let _ = write!(
            o,
            "{:<16} {:>6} {:>9} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>10.2} {:>9}",
            printable(&f.name),
            f.weight,
            f.requests,
            f.mb_s,
            f.disk_time_s,
            f.lat_ms.mean,
            f.lat_ms.p99,
            f.lat_ms.max,
            done
        );
        if startups {
            let s = f.startup_s.map_or("-".to_string(), |s| format!("{s:.2}"));
            let _ = write!(o, " {s:>10}");
        }
        o.push('\n');
    }
    let p = &r.perf;
    let _ = writeln!(
        o,
        "\nperf: {} events in {:.3} s wall, {:.0} simulated requests per wall second",
        p.events, p.wall_s, p.requests_per_wall_s
    );
    o
}

/// A real run (`sluice run`): the simulator's table with wall-clock times
/// and where the I/O went.
pub(crate) fn run(r: &crate::run::RunReport) -> String {
    let e = &r.engine;
    let mut o = report(&r.report).replacen(" s simulated,", " s run,", 1);
    // The last line is the simulator's speed; a real run states its target.
    if let Some(i) = o.trim_end().rfind("\nperf:") {
        o.truncate(i);
    }
    let _ = writeln!(
        o,
        "\nengine: {} ({}), queue depth {}, kernel scheduler {}, {:.1} s wall",
        e.target,
        if e.direct { "O_DIRECT" } else { "buffered" },
        e.queue_depth,
        e.kernel_scheduler.as_deref().unwrap_or("-"),
        r.report.perf.wall_s
    );
    if let (Some(blocks), Some(errors)) = (e.verified_blocks, e.verify_errors) {
        let _ = writeln!(
            o,
            "verify: {blocks} written blocks read back, {errors} not the last stamp written{}",
            if errors == 0 {
                ""
            } else {
                " (LOST OR TORN WRITES)"
            }
        );
    }
    o
}

/// Several runs of one workload, one row per policy.
pub(crate) fn compare(rs: &[SimReport]) -> String {
    let mut o = String::new();
    if let Some(r) = rs.first() {
        let _ = writeln!(o, "{} on {} | seed {}\n", r.scenario, r.device, r.seed);
    }
    let _ = writeln!(
        o,
        "{:<12} {:>9} {:>9} {:>11} {:>11} {:>11} {:>10}",
        "policy", "MB/s", "IOPS", "mean ms", "worst p99", "max ms", "Jain"
    );
    for r in rs {
        let n = r.flows.len().max(1) as f64;
        let mean = r.flows.iter().map(|f| f.lat_ms.mean).sum::<f64>() / n;
        let p99 = r.flows.iter().map(|f| f.lat_ms.p99).fold(0.0, f64::max);
        let max = r.flows.iter().map(|f| f.lat_ms.max).fold(0.0, f64::max);
        // Jain's fairness index over weight-normalised throughput.
        let x: Vec<f64> = r
            .flows
            .iter()
            .map(|f| f.mb_s / f64::from(f.weight))
            .collect();
        let (s, s2) = (x.iter().sum::<f64>(), x.iter().map(|v| v * v).sum::<f64>());
        let jain = if s2 > 0.0 { s * s / (n * s2) } else { 0.0 };
        let _ = writeln!(
            o,
            "{:<12} {:>9.2} {:>9.1} {:>11.2} {:>11.2} {:>11.2} {:>10.3}",
            r.scheduler, r.aggregate.mb_s, r.aggregate.iops, mean, p99, max, jain
        );
    }
    o
}

/// A validation result.
pub(crate) fn validation(r: &sluice_sim::validate::ValidationReport) -> String {
    format!(
        "{}: {} requests\ndemerit {:.3} ms; mean response {:.3} ms simulated vs {:.3} ms measured\nperf: {:.3} s wall, {:.0} requests per wall second\n",
        r.disk, r.requests, r.demerit_ms, r.mean_sim_ms, r.mean_measured_ms, r.perf.wall_s, r.perf.requests_per_wall_s
    )
}

/// Everything a scenario can name.
pub(crate) fn list() -> String {
    let mut o = String::from("Policies ([scheduler] name):\n");
    for p in sluice::policy::POLICIES {
        let _ = writeln!(o, "  {:<18} {}", p.name, p.summary);
        if !p.params.is_empty() {
            let _ = writeln!(o, "  {:<18} parameters: {}", "", p.params);
        }
    }
    o.push_str("\nDevice presets ([device] preset):\n");
    for p in PRESETS {
        let _ = writeln!(o, "  {:<18} {}", p.name, p.summary);
    }
    o.push_str("\nOther devices ([device] model):\n");
    let _ = writeln!(
        o,
        "  {:<18} capacity as read_iops, read_mb_s, write_iops, write_mb_s (capacity_gib): FIFO, one command at a time, each 1/iops + bytes/bandwidth",
        "rate"
    );
    o.push_str("\nFlow patterns ([[flow]] pattern):\n");
    for (name, what) in PATTERNS {
        let _ = writeln!(o, "  {name:<18} {what}");
    }
    o
}
