//! `sluice`: run, compare and inspect disk schedulers.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use sluice_runtime::Scenario;

mod fio;
mod progress;
mod report;
mod table;
mod versus;

use sluice_real::{kernel, run};

const EXAMPLES: &str = "\
Examples:
  sluice sim scenarios/10r-rand.toml            run a scenario, print a table
  sluice sim scenarios/10r-rand.toml --json     the same as sluice.sim/1 JSON
  sluice sim scenarios/10r-rand.toml --seed 7 --scheduler sstf
  sluice compare scenarios/10r-rand.toml        every policy on one workload
  sluice run scenarios/run/weights.toml --duration 5   a scenario on real files (io_uring)
  sluice kernel scenarios/run/weights.toml --device /dev/loop0 --kernel-scheduler bfq
                                                the same flows under the kernel's own bfq (root)
  sluice validate --disk ibm-dnes-309170w --trace crates/sluice-device/data/disksim/ibm18es.trace
                                                score a drive model on a real drive's trace
  sluice emulate --preset maxtor-stm332061 --size-gib 8 --mount /tmp/emu
                                                a modelled drive as a file through FUSE (root)
  sluice versus scenarios/versus/startup-xterm-10r-seq.toml --preset maxtor-stm332061
                                                simulated vs sluice vs the kernel's bfq (root)
  sluice repro bfq --quick                      a paper's experiments, ours beside its numbers
  sluice report run.json bfq.json -o report.html   results as one HTML page with plots
  sluice fio scenarios/fio/two-readers.fio --scheduler bfq   a fio job file, simulated (or --run)
  sluice list                                   policies, presets, flow patterns";

/// `sluice fio --help`'s epilogue: the options a job file may use.
const FIO_HELP: &str = "Job files: [global] and job sections, option=value lines. Options sluice runs (anything else is an error naming it):
  rw          read | write | randread | randwrite
  bs          request size (4k, 128k, 1m)        size       the job's file (1g)
  offset      where the file starts (simulated)  iodepth    requests in flight
  numjobs     copies of the job, each a flow     runtime    seconds (or 500ms, 2m)
  time_based  run for runtime                    thinktime  after each completion, us
  rate_iops   at most this many per second       direct     1 only
  ramp_time   unmeasured seconds before runtime (time_based jobs)
  name, description, ioengine, thread are accepted and not used; directory = the --run folder;
  filename is not used in simulation and an error with --run.
Without time_based a job ends when its size is done. Default drive
maxtor-stm332061, default policy noop (also with --run).

Examples:
  sluice fio scenarios/fio/two-readers.fio --scheduler bfq
  sluice fio scenarios/fio/two-readers.fio --preset maxtor-7l250s0 --output-format json
  sluice fio scenarios/fio/randread-qd16.fio --run --output-format json";

/// Proportional-share disk I/O scheduling you can run, measure and embed.
#[derive(Parser)]
#[command(name = "sluice", version, about, after_help = EXAMPLES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate a scenario file (TOML) and report throughput, latency and
    /// disk time per flow.
    #[command(
        after_help = "The scenario keys are documented in README.md; `sluice list` names the \
policies, device presets and flow patterns.\n\nExample:\n  sluice sim scenarios/10r-rand.toml --json"
    )]
    Sim {
        /// Scenario file.
        scenario: PathBuf,
        /// Print the sluice.sim/1 JSON object instead of a table.
        #[arg(long)]
        json: bool,
        /// Override the scenario's seed.
        #[arg(long)]
        seed: Option<u64>,
        /// Override the scenario's policy (its [scheduler] parameters are
        /// dropped).
        #[arg(long, value_name = "POLICY")]
        scheduler: Option<String>,
        /// Also write every completed request as CSV to FILE (flow, thread,
        /// direction, sector, size, and when it arrived, was dispatched and
        /// completed): the raw material for tracing why a flow waited.
        #[arg(long, value_name = "FILE")]
        log_requests: Option<PathBuf>,
        /// Also report each flow's throughput over time, in bins of MS
        /// milliseconds (the JSON's `timeline`; `sluice report` plots it).
        #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
        timeline: Option<u64>,
    },
    /// Run a scenario in real time on real files through io_uring
    /// (O_DIRECT): the same flows and policy as `sim`, wall-clock results.
    #[command(
        after_help = "Each flow gets its own file (file_gib), filled with data before the clock \
starts, in a fresh folder in the current directory (removed afterwards unless --keep) or in \
--dir. [device] keys other than queue_depth are ignored.\n\nExample:\n  sluice run scenarios/run/weights.toml --duration 5 --json"
    )]
    Run {
        /// Scenario file.
        scenario: PathBuf,
        /// Put the flows' files in this existing folder (instead of a fresh
        /// folder in the current directory).
        #[arg(long, value_name = "DIR", conflicts_with = "device")]
        dir: Option<PathBuf>,
        /// Run on this block device instead of files: each flow reads (and
        /// writes) its own region, laid end to end from the start.
        #[arg(long, value_name = "PATH")]
        device: Option<PathBuf>,
        /// Let writers write to --device (destroys what those regions hold;
        /// without it a scenario with writers is refused before any I/O).
        #[arg(long, requires = "device")]
        allow_writes: bool,
        /// Stamp every written block and read all of them back after the
        /// run; the JSON's engine section counts blocks that are not the
        /// last stamp written (lost, misplaced or torn writes).
        #[arg(long)]
        verify: bool,
        /// Requests in flight at the target (default: [device] queue_depth).
        #[arg(long, value_name = "N")]
        queue_depth: Option<usize>,
        /// Run this many seconds (default: the scenario's duration_s).
        #[arg(long, value_name = "S")]
        duration: Option<f64>,
        /// Keep the flows' files afterwards.
        #[arg(long)]
        keep: bool,
        /// Print the sluice.run/1 JSON object instead of a table.
        #[arg(long)]
        json: bool,
        /// Also report each flow's throughput over time, in bins of MS
        /// milliseconds of wall-clock time (the JSON's `timeline`).
        #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
        timeline: Option<u64>,
    },
    /// Run a scenario's flows under the kernel's own I/O scheduler on a
    /// block device: one OS thread per flow thread doing synchronous
    /// O_DIRECT I/O, weights through cgroup v1 blkio (bfq). Needs root;
    /// exits 2 and changes nothing where a permission or feature is missing.
    #[command(
        after_help = "The scheduler is set on the device for the run and restored afterwards (also on an error or Ctrl-C); each flow reads its own region of the device, laid end to end from the start. The report is sluice run's (sluice.run/1, engine.kernel_scheduler set).

Example:
  losetup --find --show --direct-io=on disk.img   # a device to try it on
  sluice kernel scenarios/run/weights.toml --device /dev/loop0 --kernel-scheduler bfq"
    )]
    Kernel {
        /// Scenario file.
        scenario: PathBuf,
        /// The block device (whole disk, partition or loop device).
        #[arg(long, value_name = "PATH")]
        device: PathBuf,
        /// The kernel scheduler to run under.
        #[arg(long, value_name = "NAME", value_parser = ["bfq", "mq-deadline", "kyber", "none"])]
        kernel_scheduler: String,
        /// Let writers write to the device (destroys what their regions hold).
        #[arg(long)]
        allow_writes: bool,
        /// Run this many seconds (default: the scenario's duration_s).
        #[arg(long, value_name = "S")]
        duration: Option<f64>,
        /// Print the sluice.run/1 JSON object instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// One scenario three ways on one modelled drive: simulated, sluice's
    /// policy on the emulated drive, the kernel's bfq on the emulated drive.
    #[command(
        after_help = "Emulates the drive (sluice emulate) in a folder it makes in the current directory, puts a loop device over it, runs the scenario there with sluice's policy (kernel scheduler none) and under the kernel's bfq (sluice kernel), and removes everything. Needs root, /dev/fuse and loop devices; prints one table or sluice.versus/1 JSON.\n\nExample:\n  sluice versus scenarios/run/weights.toml --preset maxtor-stm332061"
    )]
    Versus {
        /// Scenario file.
        scenario: PathBuf,
        /// The drive to simulate and emulate (`sluice list` names them).
        #[arg(long, value_name = "NAME")]
        preset: String,
        /// Print the sluice.versus/1 JSON object instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Serve a modelled drive as a file through FUSE: DIR/disk.img, whose
    /// every read and write completes when sluice's model of the drive
    /// (the simulator's: mechanics, cache, command queue) says it does.
    /// Needs root and /dev/fuse; runs until Ctrl-C or SIGTERM, then unmounts.
    #[command(
        after_help = "A loop device over the file is a block device with the drive's timing, on which the kernel's schedulers and `sluice run` can be compared with `sluice sim` on the same drive. Data lives sparsely in memory (unwritten blocks read as zeros) and is gone when it stops.

Example:
  mkdir -p /tmp/emu && sluice emulate --preset maxtor-stm332061 --size-gib 8 --mount /tmp/emu &
  losetup --find --show --direct-io=on /tmp/emu/disk.img          # say /dev/loop0
  fio --name=r --filename=/dev/loop0 --rw=randread --bs=4k --direct=1 --runtime=5 --time_based
  losetup -d /dev/loop0; kill %1                                   # unmounts"
    )]
    Emulate {
        /// The drive: a preset (see `sluice list`).
        #[arg(
            long,
            value_name = "NAME",
            required_unless_present = "diskspecs",
            conflicts_with = "diskspecs"
        )]
        preset: Option<String>,
        /// The drive: a DiskSim .diskspecs file.
        #[arg(long, value_name = "FILE")]
        diskspecs: Option<PathBuf>,
        /// Size of disk.img in GiB (at most the drive's capacity).
        #[arg(long, value_name = "N")]
        size_gib: f64,
        /// An existing directory to mount over.
        #[arg(long, value_name = "DIR")]
        mount: PathBuf,
        /// Commands the drive accepts at once (default: what the drive supports).
        #[arg(long, value_name = "K")]
        queue_depth: Option<usize>,
        /// The drive's own order among queued commands.
        #[arg(long, value_name = "ORDER", default_value = "satf", value_parser = ["fcfs", "sstf", "satf"])]
        internal: String,
    },
    /// Run one scenario under every policy and compare them side by side.
    Compare {
        /// Scenario file.
        scenario: PathBuf,
        /// Override the scenario's seed.
        #[arg(long)]
        seed: Option<u64>,
        /// Print a JSON array of sluice.sim/1 objects.
        #[arg(long)]
        json: bool,
    },
    /// Replay a DiskSim validation trace against a drive model and score it
    /// with DiskSim's demerit (RMS distance between the response-time
    /// distributions of model and real drive).
    #[command(
        after_help = "Example:\n  sluice validate --disk ../shared/data/disksim-validation/ibm18es.diskspecs \\\n      --trace ../shared/data/disksim-validation/ibm18es.trace"
    )]
    Validate {
        /// A DiskSim .diskspecs file, or a preset name.
        #[arg(long, value_name = "PATH|PRESET")]
        disk: String,
        /// Trace: `R|W Hit block count measured_us interarrival_us` lines.
        #[arg(long, value_name = "FILE")]
        trace: PathBuf,
        /// Print the sluice.validate/1 JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Reproduce a paper's experiments and print ours next to its numbers.
    #[command(
        after_help = "Papers: bfq (BFQ, BFQ+ and CFQ), yfq (YFQ and FreeBSD), vios (VIOS, VIOS(P)), dor (Nam-Park BQS+DOR), all.\n\nExample:\n  sluice repro bfq --quick"
    )]
    Repro {
        /// bfq, yfq, vios, dor or all.
        paper: String,
        /// Shorter runs that keep each experiment's shape (under two minutes).
        #[arg(long)]
        quick: bool,
        /// Print the sluice.repro/1 JSON object instead of tables.
        #[arg(long)]
        json: bool,
        /// Every row of the long experiments (DOR's sweeps), each with the
        /// paper's number beside it, instead of their summary.
        #[arg(long)]
        full: bool,
        /// Also write every simulated scenario as a TOML file in DIR (run
        /// one with `sluice sim DIR/NAME.toml`).
        #[arg(long, value_name = "DIR")]
        save_scenarios: Option<PathBuf>,
    },
    /// Run a fio job file as a sluice workload: simulated on a modelled
    /// drive under any policy, or with --run on real files through the
    /// io_uring engine; printed as fio prints (--output-format json in
    /// fio's JSON layout).
    #[command(after_help = FIO_HELP)]
    Fio(fio::Options),
    /// Draw results as one self-contained HTML page: latency CDFs,
    /// throughput over time, shares against weights, and for `repro`
    /// results the paper's numbers beside ours.
    #[command(
        after_help = "RESULT files are the JSON that sim, run, compare, versus and repro print with --json (sim and run with --timeline MS for throughput over time). The page has inline SVG and CSS only: it opens offline.\n\nExample:\n  sluice sim scenarios/10r-rand.toml --json --timeline 1000 > run.json\n  sluice repro bfq --quick --json > bfq.json\n  sluice report run.json bfq.json -o report.html"
    )]
    Report {
        /// Result files (JSON).
        #[arg(required = true, value_name = "RESULT.json")]
        results: Vec<PathBuf>,
        /// The HTML file to write.
        #[arg(short, long, value_name = "FILE.html")]
        output: PathBuf,
    },
    /// List policies, device presets and flow patterns.
    List,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that went away (`sluice ... | head`): end quietly, as
        // a program killed by SIGPIPE would (128 + 13).
        Err(e) if broken_pipe(&e) => ExitCode::from(141),
        Err(e) if e.downcast_ref::<kernel::Unavailable>().is_some() => {
            eprintln!("error: {e:#}");
            ExitCode::from(kernel::EXIT_UNAVAILABLE)
        }
        Err(e) if e.is::<run::Interrupted>() => {
            eprintln!("sluice: {e}");
            ExitCode::from(run::EXIT_INTERRUPTED)
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Whether `e` comes from writing to a closed pipe.
fn broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn load(path: &std::path::Path, seed: Option<u64>, scheduler: Option<&str>) -> Result<Scenario> {
    let mut s = Scenario::load(path)?;
    sluice_runtime::overrides::apply(&mut s, seed, scheduler)
        .with_context(|| format!("--scheduler {}", scheduler.unwrap_or_default()))?;
    Ok(s)
}

/// Refuse a timeline whose bins would not fit in memory (`run` checks
/// its own, once its duration is known).
pub fn check_timeline(s: &Scenario, bin: sluice::Duration) -> Result<()> {
    sluice_runtime::overrides::check_timeline(s, bin)
        .with_context(|| format!("--timeline {}", bin.as_millis_f64()))
}

/// A progress bar over a run's simulated seconds.
fn sim_progress(s: &Scenario) -> impl FnMut(sluice::Duration, sluice::Duration) + 'static {
    let bar = progress::Progress::new(s.name.clone(), s.duration.as_secs_f64().ceil() as u64, "s");
    move |now, _| bar.set(now.as_secs_f64() as u64)
}

/// The request log as CSV, flows by name.
fn write_request_log(
    file: std::fs::File,
    s: &Scenario,
    log: &[sluice_sim::RequestRecord],
) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(file);
    writeln!(out, "{}", sluice_sim::RequestRecord::CSV_HEADER)?;
    for r in log {
        writeln!(out, "{}", r.csv(&s.flows[r.flow as usize].name))?;
    }
    out.flush()
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Sim {
            scenario,
            json,
            seed,
            scheduler,
            log_requests,
            timeline,
        } => {
            let s = load(&scenario, seed, scheduler.as_deref())?;
            let bin = timeline.map(sluice::Duration::from_millis);
            if let Some(bin) = bin {
                check_timeline(&s, bin)?;
            }
            let sim = || -> Result<sluice_sim::Simulation> {
                let sim = sluice_sim::Simulation::new(&s)?.with_progress(sim_progress(&s));
                Ok(match bin {
                    Some(b) => sim.with_timeline(b),
                    None => sim,
                })
            };
            let report = match &log_requests {
                None => sim()?.run(),
                Some(path) => {
                    // Open first: a bad path fails before a long run.
                    let file = std::fs::File::create(path)
                        .with_context(|| format!("--log-requests {}", path.display()))?;
                    let (report, log) = sim()?.with_request_log().run_logged();
                    write_request_log(file, &s, &log)
                        .with_context(|| format!("--log-requests {}", path.display()))?;
                    report
                }
            };
            emit(json, &report, table::report)?;
        }
        Command::Compare {
            scenario,
            seed,
            json,
        } => {
            let base = load(&scenario, seed, None)?;
            let mut reports = Vec::new();
            let bar = progress::Progress::new(
                "compare",
                sluice::policy::POLICIES.len() as u64,
                "policies",
            );
            for (i, p) in sluice::policy::POLICIES.iter().enumerate() {
                bar.set(i as u64);
                let mut s = base.clone();
                if s.scheduler != p.name {
                    s.scheduler = p.name.to_string();
                    s.params = Default::default();
                }
                reports.push(sluice_sim::simulate(&s)?);
            }
            bar.finish();
            emit(json, &reports, |r| table::compare(r))?;
        }
        Command::Validate { disk, trace, json } => {
            let model = match sluice_sim::device::presets::preset(&disk) {
                Some(m) => m,
                None if disk.ends_with(".diskspecs") || std::path::Path::new(&disk).exists() => {
                    sluice_sim::device::Model::Hdd(sluice_sim::device::diskspecs::load(disk.as_ref())?)
                }
                None => anyhow::bail!(
                    "--disk {disk}: neither a preset (see `sluice list`) nor an existing .diskspecs file"
                ),
            };
            let records = sluice_sim::validate::load_trace(&trace)?;
            let report = sluice_sim::validate::validate(&disk, &model, &records).map_err(|e| {
                sluice_runtime::Error {
                    file: trace.display().to_string(),
                    ..e
                }
            })?;
            emit(json, &report, table::validation)?;
        }
        Command::Repro {
            paper,
            quick,
            json,
            full,
            save_scenarios,
        } => {
            let bar = std::sync::OnceLock::new();
            let progress = |done: usize, total: usize| {
                bar.get_or_init(|| progress::Progress::new(paper.clone(), total as u64, "runs"))
                    .set(done as u64);
            };
            let opts = sluice_repro::Options {
                quick,
                progress: &progress,
                save_scenarios: save_scenarios.as_deref(),
            };
            let report = sluice_repro::run_with(&paper, &opts)?;
            if let Some(b) = bar.get() {
                b.finish();
            }
            emit(json, &report, |r| sluice_repro::tables(r, full))?;
        }
        Command::Run {
            scenario,
            dir,
            device,
            allow_writes,
            verify,
            queue_depth,
            duration,
            keep,
            json,
            timeline,
        } => {
            let r = run::run(&run::Options {
                timeline_ms: timeline,
                scenario,
                dir,
                device,
                allow_writes,
                queue_depth,
                duration_s: duration,
                verify,
                keep,
                progress: Some(progress::RunBar::shared()),
            })?;
            emit(json, &r, table::run)?;
        }
        Command::Kernel {
            scenario,
            device,
            kernel_scheduler,
            allow_writes,
            duration,
            json,
        } => {
            let r = kernel::kernel(&kernel::Options {
                scenario,
                device,
                kernel_scheduler,
                allow_writes,
                duration_s: duration,
                progress: Some(progress::RunBar::shared()),
            })?;
            emit(json, &r, table::run)?;
        }
        Command::Versus {
            scenario,
            preset,
            json,
        } => {
            let v = versus::versus(&versus::Options { scenario, preset })?;
            emit(json, &v, versus::table)?;
        }
        Command::Emulate {
            preset,
            diskspecs,
            size_gib,
            mount,
            queue_depth,
            internal,
        } => sluice_emulate::run_until_signal(&sluice_emulate::Options {
            queue_depth,
            internal: sluice_device::InternalOrder::parse(&internal)
                .unwrap_or(sluice_device::InternalOrder::Satf),
            ..sluice_emulate::Options::new(
                sluice_emulate::model(preset.as_deref(), diskspecs.as_deref())?,
                sluice_emulate::gib_bytes(size_gib)?,
                mount,
            )
        })?,
        Command::Report { results, output } => report::report(&results, &output)?,
        Command::Fio(opts) => write_out(&fio::fio(&opts)?)?,
        Command::List => write_out(&table::list())?,
    }
    Ok(())
}

/// Print `value` as pretty JSON, or as the text `table` makes of it.
fn emit<T: serde::Serialize>(json: bool, value: &T, table: impl Fn(&T) -> String) -> Result<()> {
    if json {
        write_out(&(serde_json::to_string_pretty(value)? + "\n"))
    } else {
        write_out(&table(value))
    }
}

/// Write `text` to stdout; a failure (a closed pipe, a full disk) is an
/// error, not a panic.
fn write_out(text: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("writing the output")
}
