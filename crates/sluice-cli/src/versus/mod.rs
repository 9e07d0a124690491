//! `sluice versus`: one scenario three ways on one modelled drive — the
//! simulation, sluice's policy on the emulated drive (`sluice run` on a
//! loop device over `sluice emulate`'s file, kernel scheduler `none`), and
//! the kernel's schedulers on the same emulated drive (`sluice kernel`) —
//! each real engine run `--repeat` times, with the median, range and error
//! against the simulation of every metric ([`metrics`]).

mod metrics;
mod stack;
mod table;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use serde::Serialize;
use sluice_real::journal::Journal;
use sluice_real::kernel::Tunable;
use sluice_real::Refused;
use sluice_runtime::request_log::{RequestLog, RequestRecord};
use sluice_runtime::Scenario;

use crate::cmd::kernel::KernelScheduler;
use crate::cmd::run::{failed, print_warnings, FLAGS};
use crate::kernel;
use crate::run;
pub(crate) use metrics::Metric;
use stack::{DriveView, Stack};
pub(crate) use table::table;

/// Schema tag of [`VersusReport`] (the report library's: it reads it back).
pub(crate) use sluice_report::VERSUS_SCHEMA;

/// What `sluice versus` was asked: also its command-line arguments
/// (flattened into `cmd::versus::Args`), so nothing copies them over.
#[derive(clap::Args)]
pub(crate) struct Options {
    /// Scenario file.
    pub scenario: PathBuf,
    /// The drive to simulate and emulate (`sluice list` names them).
    #[arg(long, value_name = "NAME")]
    pub preset: String,
    /// Run each real engine N times (the simulation, deterministic, once)
    /// and report the median and range of every metric.
    #[arg(long, value_name = "N", default_value_t = 3,
          value_parser = clap::value_parser!(u32).range(1..=50))]
    pub repeat: u32,
    /// A kernel scheduler to compare (repeatable; default bfq).
    #[arg(long = "kernel-scheduler", value_name = "NAME")]
    pub kernel_schedulers: Vec<KernelScheduler>,
    /// A tunable of the kernel's bfq, NAME=VALUE (repeatable), for its
    /// runs (e.g. low_latency=0; as `sluice kernel --tunable`).
    #[arg(long, value_name = "NAME=VALUE")]
    pub tunable: Vec<Tunable>,
    /// Write each engine's requests to PREFIX.ENGINE-SCHEDULER.csv (the
    /// columns of `sim --log-requests`; the runs of an engine one after
    /// the other, each from time 0).
    #[arg(long, value_name = "PREFIX")]
    pub log_requests: Option<PathBuf>,
    /// Leave the loop device as losetup makes it (non-rotational, its own
    /// largest request) instead of showing the kernel the modelled drive.
    #[arg(long)]
    pub loop_as_is: bool,
}

/// The `sluice.versus/1` object.
#[derive(Serialize)]
pub(crate) struct VersusReport {
    pub schema: &'static str,
    pub scenario: String,
    pub device: String,
    /// Runs of each real engine.
    pub repeat: u32,
    /// Tunables given to the kernel's runs, as `NAME=VALUE`.
    pub tunables: Vec<String>,
    /// How the emulated drive was shown to the kernel.
    pub drive_view: DriveView,
    /// Every run, the simulation first, then the real runs in the order
    /// they ran (engines alternating).
    pub runs: Vec<VersusRun>,
    /// Per engine, scheduler, metric and flow: median, range, error.
    pub metrics: Vec<Metric>,
}

/// One run.
#[derive(Serialize)]
pub(crate) struct VersusRun {
    /// `sim`, `sluice` or `kernel`.
    pub engine: &'static str,
    pub scheduler: String,
    /// Which run of this engine and scheduler (from 1).
    pub run: u32,
    /// `sluice.sim/1` (sim) or `sluice.run/1`.
    pub result: serde_json::Value,
}

/// The scenario's text with `[device]` set to `preset` (other model keys
/// dropped; `queue_depth` kept).
fn with_preset(text: &str, preset: &str) -> Result<String> {
    let mut v: toml::Table = toml::from_str(text).context("reading the scenario")?;
    let dev = v
        .entry("device")
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    let Some(dev) = dev.as_table_mut() else {
        bail!("[device] must be a table");
    };
    dev.remove("diskspecs");
    dev.insert("preset".into(), toml::Value::String(preset.to_string()));
    Ok(toml::to_string(&v)?)
}

/// An engine and scheduler to run: its name in the report and its log.
#[derive(Clone)]
enum Engine {
    Sluice(String),
    Kernel(KernelScheduler),
}

impl Engine {
    fn name(&self) -> &'static str {
        match self {
            Engine::Sluice(_) => "sluice",
            Engine::Kernel(_) => "kernel",
        }
    }

    fn scheduler(&self) -> String {
        match self {
            Engine::Sluice(s) => s.clone(),
            Engine::Kernel(k) => k.as_str().to_string(),
        }
    }
}

/// The `--log-requests` files, one per engine and scheduler, created
/// (exclusively) before anything runs; removed again if the comparison
/// fails (they would hold part of it).
struct Logs {
    files: Vec<(String, File, PathBuf)>,
    complete: bool,
}

impl Drop for Logs {
    fn drop(&mut self) {
        if !self.complete {
            for (_, _, path) in self.files.drain(..) {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

impl Logs {
    fn create(prefix: Option<&Path>, keys: &[String]) -> Result<Self> {
        let mut logs = Logs {
            files: Vec::new(),
            complete: false,
        };
        if let Some(prefix) = prefix {
            for k in keys {
                let mut name = prefix.as_os_str().to_owned();
                name.push(format!(".{k}.csv"));
                let path = PathBuf::from(name);
                let mut f = crate::output::create_output("--log-requests", &path)?;
                use std::io::Write;
                writeln!(f, "{}", RequestRecord::CSV_HEADER)
                    .with_context(|| format!("--log-requests {}", path.display()))?;
                logs.files.push((k.clone(), f, path));
            }
        }
        Ok(logs)
    }

    fn enabled(&self) -> bool {
        !self.files.is_empty()
    }

    /// Append one run's requests to the file of `key`.
    fn append(&mut self, key: &str, log: Option<&RequestLog>) -> Result<()> {
        let (Some((_, file, path)), Some(log)) = (self.files.iter_mut().find(|f| f.0 == key), log)
        else {
            return Ok(());
        };
        let mut out = std::io::BufWriter::new(file);
        use std::io::Write;
        for r in &log.records {
            writeln!(out, "{}", r.csv(r.flow_name(&log.names)))
                .with_context(|| format!("--log-requests {}", path.display()))?;
        }
        out.flush()
            .with_context(|| format!("--log-requests {}", path.display()))
    }
}

/// Run the comparison.
pub(crate) fn versus(opts: &Options) -> Result<VersusReport> {
    let file = opts.scenario.display().to_string();
    let text = sluice_input::read_text(&opts.scenario, sluice_input::Kind::Scenario)?;
    let sim_scenario = Scenario::parse(&file, &with_preset(&text, &opts.preset)?)?;
    let real = Scenario::load_real(&opts.scenario)?;
    if unsafe { libc::geteuid() } != 0 {
        return Err(Refused(
            "sluice versus needs root (FUSE mount, loop device, kernel scheduler, cgroups)".into(),
        )
        .into());
    }
    let kernels = if opts.kernel_schedulers.is_empty() {
        vec![KernelScheduler::Bfq]
    } else {
        let mut k = opts.kernel_schedulers.clone();
        k.dedup();
        k
    };
    let mut engines = vec![Engine::Sluice(real.scheduler.clone())];
    engines.extend(kernels.iter().map(|&k| Engine::Kernel(k)));
    let key = |e: &str, s: &str| format!("{e}-{s}");
    let mut keys = vec![key("sim", &sim_scenario.scheduler)];
    keys.extend(engines.iter().map(|e| key(e.name(), &e.scheduler())));
    let mut logs = Logs::create(opts.log_requests.as_deref(), &keys)?;

    // 1. The simulation (deterministic: once).
    eprintln!("versus: simulating on {}", opts.preset);
    let sim = sluice_sim::Simulation::new(&sim_scenario)?;
    let (sim, sim_log) = if logs.enabled() {
        let (r, log) = sim.with_request_log().run_logged();
        (r, Some(log))
    } else {
        (sim.run(), None)
    };
    if let Some(records) = sim_log {
        let names = sim_scenario.flows.iter().map(|f| f.name.clone()).collect();
        logs.append(&keys[0], Some(&RequestLog { names, records }))?;
    }
    let mut runs = vec![VersusRun {
        engine: "sim",
        scheduler: sim.scheduler.clone(),
        run: 1,
        result: serde_json::to_value(&sim)?,
    }];

    // 2. The real engines, alternating, each run on a freshly emulated
    //    drive (cold, as the simulation's), so no run inherits another's
    //    cache or head position and a slow drift of the machine falls on
    //    every engine alike.
    let bytes: u64 = real
        .flows
        .iter()
        .map(|f| (f.file_sectors * 512).div_ceil(1 << 20) << 20)
        .sum();
    let size_gib = bytes.div_ceil(1 << 30).max(1);
    let view = DriveView::of(&sim_scenario.device, opts.loop_as_is);
    let writes = real.flows.iter().any(|f| f.may_write());
    let cwd = std::env::current_dir()?;
    let total = opts.repeat as usize * engines.len();
    for rep in 1..=opts.repeat {
        for (i, e) in engines.iter().enumerate() {
            let n = (rep as usize - 1) * engines.len() + i + 1;
            eprintln!(
                "versus: run {n}/{total}: {} {} ({}/{}) on an emulated {}",
                e.name(),
                e.scheduler(),
                rep,
                opts.repeat,
                opts.preset
            );
            // Written down before anything changes; held until undone.
            let journal = Arc::new(Journal::begin("versus")?);
            print_warnings(&journal.take_warnings(), &[]);
            let stack = Stack::up(&cwd, &opts.preset, size_gib, &view, &journal)?;
            let dev = stack.device().to_path_buf();
            let r = match e {
                Engine::Sluice(_) => {
                    let queue = kernel::queue_dir(&dev)?;
                    let _none = kernel::SchedulerGuard::set(&queue, "none", &journal)?;
                    run::run(&run::Options {
                        scenario: opts.scenario.clone(),
                        device: Some(dev.clone()),
                        allow_writes: writes,
                        log_requests: logs.enabled(),
                        progress: Some(crate::progress::RunBar::shared()),
                        ..run::Options::default()
                    })
                    .map_err(|e| failed(e, FLAGS))?
                }
                Engine::Kernel(k) => kernel::kernel(&kernel::Options {
                    scenario: opts.scenario.clone(),
                    device: dev.clone(),
                    kernel_scheduler: k.as_str().to_string(),
                    allow_writes: writes,
                    duration_s: None,
                    progress: Some(crate::progress::RunBar::shared()),
                    tunables: tunables_for(*k, &opts.tunable),
                    log_requests: logs.enabled(),
                })
                .map_err(|e| failed(e, FLAGS))?,
            };
            print_warnings(&r.warnings, FLAGS);
            drop(stack);
            print_warnings(&journal.take_warnings(), FLAGS);
            logs.append(&key(e.name(), &e.scheduler()), r.request_log.as_ref())?;
            runs.push(VersusRun {
                engine: e.name(),
                scheduler: e.scheduler(),
                run: rep,
                result: serde_json::to_value(&r)?,
            });
        }
    }
    logs.complete = true;
    let metrics = metrics::summarize(
        &runs
            .iter()
            .map(|r| (r.engine, r.scheduler.as_str(), &r.result))
            .collect::<Vec<_>>(),
    );
    Ok(VersusReport {
        schema: VERSUS_SCHEMA,
        scenario: sim.scenario.clone(),
        device: opts.preset.clone(),
        repeat: opts.repeat,
        tunables: opts
            .tunable
            .iter()
            .map(|t| format!("{}={}", t.name, t.value))
            .collect(),
        drive_view: view,
        runs,
        metrics,
    })
}

/// The tunables for kernel scheduler `k`: `--tunable` is for the kernel's
/// bfq (the scheduler the papers tune); the others run as the kernel sets
/// them up (`sluice kernel --tunable` sets any scheduler's).
fn tunables_for(k: KernelScheduler, all: &[Tunable]) -> Vec<Tunable> {
    match k {
        KernelScheduler::Bfq => all.to_vec(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_files_are_new_named_per_engine_and_gone_if_the_comparison_fails() {
        let d = tempfile::tempdir().unwrap();
        let prefix = d.path().join("v");
        let keys = vec!["sim-bfq+".to_string(), "kernel-bfq".to_string()];
        let mut logs = Logs::create(Some(&prefix), &keys).unwrap();
        let sim = d.path().join("v.sim-bfq+.csv");
        assert_eq!(
            std::fs::read_to_string(&sim).unwrap().trim(),
            RequestRecord::CSV_HEADER
        );
        logs.complete = true;
        drop(logs);
        assert!(sim.exists(), "a finished comparison keeps its logs");

        // One exists: refused, and the one already made goes again.
        let other = d.path().join("w");
        std::fs::write(d.path().join("w.kernel-bfq.csv"), "mine").unwrap();
        assert!(Logs::create(Some(&other), &keys).is_err());
        assert!(!d.path().join("w.sim-bfq+.csv").exists());
        assert_eq!(
            std::fs::read_to_string(d.path().join("w.kernel-bfq.csv")).unwrap(),
            "mine",
            "never overwritten"
        );
    }

    #[test]
    fn the_preset_replaces_the_model_and_keeps_the_queue_depth() {
        let t = "name = \"x\"\nduration_s = 1\n[device]\ndiskspecs = \"a.diskspecs\"\nqueue_depth = 4\n\
                 [scheduler]\nname = \"noop\"\n";
        let out: toml::Table =
            toml::from_str(&with_preset(t, "maxtor-stm332061").unwrap()).unwrap();
        let dev = out["device"].as_table().unwrap();
        assert_eq!(dev["preset"].as_str(), Some("maxtor-stm332061"));
        assert!(!dev.contains_key("diskspecs"));
        assert_eq!(dev["queue_depth"].as_integer(), Some(4));
        let none = with_preset("name = \"y\"\n", "ssd-sata").unwrap();
        assert!(none.contains("ssd-sata"), "{none}");
    }
}
