//! Any text as a fio job file (`sluice fio`), or as fio's command-line
//! options when it starts with `--`: an error or a plan, never a panic;
//! each group of a plan becomes a scenario on a simulated drive and on a
//! real target, and the plan runs briefly in the simulator and is printed
//! as fio prints it. Texts that `include` are skipped: an include reads
//! the disk (`/dev/zero`, a FIFO), which is the input tests' business.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluice_runtime::import::fio::{plan, FioOptions, JobFile, Target};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if text.contains("include") {
        return;
    }
    let file = if text.starts_with("--") {
        let args: Vec<String> = text.split_whitespace().map(str::to_string).collect();
        JobFile::from_args(&args)
    } else {
        JobFile::parse("/nonexistent-sluice-fuzz/job.fio".as_ref(), text)
    };
    let Ok(file) = file else {
        return;
    };
    let real = FioOptions {
        target: Target::Real,
        ..FioOptions::default()
    };
    if let Ok(p) = plan(&file, &real) {
        for g in &p.groups {
            let _ = g.scenario(&real);
        }
    }
    let options = FioOptions {
        max_duration_s: Some(0.1),
        ..FioOptions::default()
    };
    let Ok(p) = plan(&file, &options) else {
        return;
    };
    // Too large to run quickly: bounded in memory, tested apart.
    let too_large = |s: &sluice_runtime::Scenario| {
        s.flows.len() > 256
            || s.flows
                .iter()
                .map(|f| u64::from(f.outstanding))
                .sum::<u64>()
                > 16_384
    };
    if p.groups.len() > 16
        || p.groups
            .iter()
            .any(|g| g.scenario(&options).map_or(true, |s| too_large(&s)))
    {
        return;
    }
    let simulate = |s: &sluice_runtime::Scenario, bin: Option<sluice::Duration>| {
        let sim = sluice_sim::Simulation::new(s)?;
        Ok::<_, sluice_runtime::Error>(match bin {
            Some(b) => sim.with_timeline(b).run(),
            None => sim.run(),
        })
    };
    if let Ok(results) = p.run(&options, simulate) {
        let _ = results.json();
        let _ = results.text("fuzz");
        let _ = results.stopped_early();
    }
});
