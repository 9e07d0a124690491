//! `sluice fio JOBFILE`: a fio job file as a sluice workload, each job (and
//! each of its `numjobs` copies) a flow, simulated on a modelled drive
//! under any policy or, with `--run`, run on real files by the io_uring
//! engine; the results print as fio prints them (`--output-format json`
//! follows fio's JSON layout, so tools written for fio read it).

mod jobfile;
mod output;

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use sluice_runtime::{FlowBuilder, Scenario, ScenarioBuilder};
use sluice_workload::Pattern;

/// The drive a job file is simulated on unless told otherwise: the BFQ
/// paper's disk.
pub(crate) const DEFAULT_PRESET: &str = "maxtor-stm332061";

/// Longest simulated run of a job file without `runtime` (its jobs end
/// when their `size` is done, or by then).
pub(crate) const UNBOUNDED_RUN_S: f64 = 3600.0;

/// `sluice fio --help`'s epilogue: the options a job file may use.
const HELP: &str = "Job files: [global] and job sections, option=value lines. Options sluice runs (anything else is an error naming it):
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

/// Run a fio job file as a sluice workload: simulated on a modelled
/// drive under any policy, or with --run on real files through the
/// io_uring engine; printed as fio prints (--output-format json in
/// fio's JSON layout).
// (The doc comment above is `sluice fio --help`'s: these are its
// command-line arguments, `cmd::fio::Args`.)
#[derive(clap::Args)]
#[command(after_help = HELP)]
pub(crate) struct Options {
    /// The fio job file.
    pub jobfile: PathBuf,
    /// The drive to simulate (default maxtor-stm332061; `sluice list`).
    #[arg(long, value_name = "NAME", conflicts_with = "diskspecs")]
    pub preset: Option<String>,
    /// The drive to simulate, from a DiskSim .diskspecs file.
    #[arg(long, value_name = "FILE")]
    pub diskspecs: Option<PathBuf>,
    /// The policy between the jobs and the drive (default noop).
    #[arg(long, value_name = "POLICY")]
    pub scheduler: Option<String>,
    /// Run on real files through the io_uring engine instead of
    /// simulating.
    #[arg(long, conflicts_with_all = ["preset", "diskspecs"])]
    pub run: bool,
    /// --run: make the jobs' files in this existing folder (default: a
    /// fresh folder in the current directory, removed afterwards).
    #[arg(long, value_name = "DIR", requires = "run")]
    pub dir: Option<PathBuf>,
    /// normal (fio's text summary) or json (fio's JSON layout).
    #[arg(long, value_name = "FORMAT", default_value = "normal")]
    pub output_format: OutputFormat,
}

/// `--output-format`: the two of fio's formats sluice writes.
#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum OutputFormat {
    Normal,
    Json,
}

/// Run the job file; returns what to print.
pub(crate) fn fio(opts: &Options) -> Result<String> {
    let file = opts.jobfile.display().to_string();
    let text = sluice_input::read_text(&opts.jobfile, sluice_input::Kind::FioJob)?;
    let jobs = jobfile::parse(&file, &text)?;
    let scheduler = opts.scheduler.clone().unwrap_or_else(|| "noop".to_string());
    let (builder, infos, dir) = scenario(&file, &opts.jobfile, &jobs, &scheduler)?;
    let mut file_info = output::FileInfo {
        global_options: jobs
            .last()
            .map(|j| j.split_options()[0].clone())
            .unwrap_or_default(),
        started_unix_ms: None,
    };
    let (report, how) = if opts.run {
        if let Some((v, l)) = jobs.iter().find_map(|j| j.get("filename")) {
            bail!("{file}: line {l}: filename={v}: sluice fio --run makes its own files; give directory= or --dir instead");
        }
        let mut s = builder.build_real().with_context(|| file.clone())?;
        // Every job's iodepth reaches the target at once, as under fio.
        s.device.queue_depth = s
            .flows
            .iter()
            .map(|f| f.outstanding as usize)
            .sum::<usize>()
            .clamp(1, 4096);
        file_info.started_unix_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .map(|d| d.as_millis() as u64);
        let sample = samples_fit(&s);
        let r = crate::run::run_scenario(
            s,
            &crate::run::Options {
                scenario: opts.jobfile.clone(),
                dir: opts.dir.clone().or(dir),
                device: None,
                allow_writes: false,
                queue_depth: None,
                duration_s: None,
                verify: false,
                keep: false,
                timeline_ms: sample.then_some(output::SAMPLE_MS),
                log_requests: false,
                progress: Some(crate::progress::RunBar::shared()),
            },
        )?;
        let how = format!(
            "sluice fio --run, {scheduler} over io_uring on {}",
            r.engine.target
        );
        (r.report, how)
    } else {
        let b = match (&opts.preset, &opts.diskspecs) {
            (Some(_), Some(_)) => bail!("give --preset or --diskspecs, not both"),
            (_, Some(d)) => builder.diskspecs(d.display().to_string()),
            (p, None) => builder.preset(p.clone().unwrap_or_else(|| DEFAULT_PRESET.to_string())),
        };
        let s: Scenario = b.build().with_context(|| file.clone())?;
        let how = format!(
            "sluice fio (simulated), {scheduler} on {}",
            s.device.model.name()
        );
        (simulate(&s)?, how)
    };
    for note in output::stopped_early(&report, &infos) {
        eprintln!("sluice fio: warning: {note}");
    }
    Ok(match opts.output_format {
        OutputFormat::Json => output::json(&report, &infos, &file_info)?,
        OutputFormat::Normal => output::normal(&report, &infos, &how),
    })
}

/// Whether fio's 500 ms samples of every flow fit the timeline's memory
/// bound (a long run of many jobs goes without them).
fn samples_fit(s: &Scenario) -> bool {
    let bins = s.duration.as_secs_f64() * 1000.0 / output::SAMPLE_MS as f64 + 1.0;
    bins * s.flows.len() as f64 <= sluice_runtime::timeline::MAX_BINS as f64
}

/// Simulate, with fio's 500 ms bandwidth samples when they fit; a run
/// that will take long says so on stderr ([`crate::progress::LongRun`]).
fn simulate(s: &Scenario) -> Result<sluice_runtime::SimReport> {
    let mut long = crate::progress::LongRun::new("sluice fio");
    let sim = sluice_sim::Simulation::new(s)?
        .with_progress(move |now, total| long.update(now.as_secs_f64(), total.as_secs_f64()));
    Ok(if samples_fit(s) {
        sim.with_timeline(sluice::Duration::from_millis(output::SAMPLE_MS))
    } else {
        sim
    }
    .run())
}

/// The job file as a scenario (no device yet), each flow's job and the
/// `directory` option, if given.
fn scenario(
    file: &str,
    path: &Path,
    jobs: &[jobfile::Job],
    scheduler: &str,
) -> Result<(ScenarioBuilder, Vec<output::JobInfo>, Option<PathBuf>)> {
    let name = path
        .file_stem()
        .map_or("fio".to_string(), |s| s.to_string_lossy().into_owned());
    let mut runtime: Option<f64> = None;
    // Every job's ramp_time (0 without one): the simulation has one warm-up.
    let mut ramp: Option<f64> = None;
    let mut any_time_based = false;
    let mut flows = Vec::new();
    let mut infos = Vec::new();
    let mut dir = None;
    // fio takes two jobs of one name (and reports both under it); their
    // flows need names of their own.
    let mut seen: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    for (index, job) in jobs.iter().enumerate() {
        let at = |key: &str| job.get(key);
        // A job's name reaches the terminal: no control or bidi characters.
        let (job_name, name_line) = at("name").unwrap_or((job.name.as_str(), job.line));
        if let Err(e) = sluice_runtime::names::check(&format!("job {index}"), job_name) {
            bail!("{file}: line {name_line}: {e}");
        }
        let (rw, rw_line) = at("rw").unwrap_or(("read", job.line));
        let (pattern, write) = match rw {
            "read" => (Pattern::SeqRead, false),
            "write" => (Pattern::SeqWrite, true),
            "randread" => (Pattern::RandRead, false),
            "randwrite" => (Pattern::RandWrite, true),
            other => bail!(
                "{file}: line {rw_line}: rw={other} is not supported (read, write, randread, randwrite; \
                 a mixed workload is two jobs)"
            ),
        };
        let bs = match at("bs") {
            Some((v, l)) => jobfile::size(file, "bs", v, l)?,
            None => 4096,
        };
        if bs == 0 || bs % 1024 != 0 || bs > 64 << 20 {
            bail!(
                "{file}: job '{}': bs must be a multiple of 1k up to 64m (got {bs} bytes)",
                job.name
            );
        }
        let Some((size_v, size_l)) = at("size") else {
            bail!(
                "{file}: line {}: job '{}' needs size= (its file's size)",
                job.line,
                job.name
            );
        };
        let size = jobfile::size(file, "size", size_v, size_l)?;
        if size < bs {
            bail!("{file}: line {size_l}: size={size_v} is smaller than bs");
        }
        let time_based = at("time_based").is_some_and(|(v, _)| v != "0");
        any_time_based |= time_based;
        if let Some((v, l)) = at("runtime") {
            let secs = jobfile::seconds(file, "runtime", v, l, 1.0)?;
            if !(0.001..=1e6).contains(&secs) {
                bail!("{file}: line {l}: runtime={v}: expected 1ms to 1000000s");
            }
            match runtime {
                Some(r) if (r - secs).abs() > 1e-9 => bail!(
                    "{file}: line {l}: runtime={v}: every job must share one runtime (another has {r} s)"
                ),
                _ => runtime = Some(secs),
            }
        } else if time_based {
            bail!("{file}: job '{}': time_based needs runtime=", job.name);
        }
        let job_ramp = match at("ramp_time") {
            Some((v, l)) if !time_based => {
                bail!("{file}: line {l}: ramp_time={v}: sluice runs ramp_time only with time_based")
            }
            Some((v, l)) => match jobfile::seconds(file, "ramp_time", v, l, 1.0)? {
                r if r > 1e6 => bail!("{file}: line {l}: ramp_time={v}: expected at most 1000000s"),
                r => r,
            },
            None => 0.0,
        };
        match ramp {
            Some(r) if (r - job_ramp).abs() > 1e-9 => bail!(
                "{file}: line {}: job '{}': every job must share one ramp_time (another has {r} s, this one {job_ramp} s)",
                job.line,
                job.name
            ),
            _ => ramp = Some(job_ramp),
        }
        if let Some((v, l)) = at("direct") {
            if v != "1" {
                bail!("{file}: line {l}: direct={v}: sluice issues direct I/O only (the simulator models no page cache)");
            }
        }
        if let Some((v, _)) = at("directory") {
            dir = Some(PathBuf::from(v));
        }
        let count = match at("numjobs") {
            Some((v, l)) => v
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=4096).contains(n))
                .with_context(|| format!("{file}: line {l}: numjobs={v}: expected 1..=4096"))?,
            None => 1,
        };
        let name = job.get("name").map_or(job.name.as_str(), |(v, _)| v);
        let nth = seen.entry(name.to_string()).or_insert(0);
        *nth += 1;
        let flow_name = match *nth {
            1 => name.to_string(),
            n => format!("{name}#job{n}"),
        };
        let mut f = FlowBuilder::new(&flow_name, pattern)
            .count(count)
            .copies_numbered_after_hash()
            .request_kib((bs / 1024) as u32)
            .file_gib(size as f64 / (1u64 << 30) as f64);
        if let Some((v, l)) = at("iodepth") {
            let d = v
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=4096).contains(n))
                .with_context(|| format!("{file}: line {l}: iodepth={v}: expected 1..=4096"))?;
            f = f.outstanding(d);
        } else {
            f = f.outstanding(1);
        }
        if let Some((v, l)) = at("offset") {
            f = f.offset_gib(jobfile::size(file, "offset", v, l)? as f64 / (1u64 << 30) as f64);
        }
        if let Some((v, l)) = at("thinktime") {
            let secs = jobfile::seconds(file, "thinktime", v, l, 1e-6)?;
            if secs > 1e4 {
                bail!("{file}: line {l}: thinktime={v}: expected at most 10000s");
            }
            f = f.think_ms(secs * 1e3);
        }
        if let Some((v, l)) = at("rate_iops") {
            let r: f64 = v
                .parse()
                .ok()
                .filter(|r: &f64| (0.001..=1e7).contains(r))
                .with_context(|| {
                    format!("{file}: line {l}: rate_iops={v}: expected 0.001 to 10000000")
                })?;
            f = f.rate_iops(r);
        }
        if !time_based {
            f = f.requests(size / bs);
        }
        flows.push(f);
        let info = output::JobInfo {
            name: job
                .get("name")
                .map_or(job.name.clone(), |(v, _)| v.to_string()),
            write,
            bs,
            options: job.split_options()[1].clone(),
            size_done_at: (!time_based).then_some(size / bs * bs),
        };
        infos.extend(std::iter::repeat_n(info, count as usize));
    }
    // With a runtime, fio too stops a job there; only sluice's own limit
    // cuts a job short where fio would not.
    if runtime.is_some() {
        for i in &mut infos {
            i.size_done_at = None;
        }
    }
    // As fio's, the runtime is measured after the ramp.
    let ramp = ramp.unwrap_or(0.0);
    let duration = runtime.unwrap_or(UNBOUNDED_RUN_S) + ramp;
    let mut b = ScenarioBuilder::new(name, duration)
        .seed(1)
        .warmup_s(ramp)
        .stop_after_finite(!any_time_based)
        .scheduler(scheduler);
    for f in flows {
        b = b.flow(f);
    }
    Ok((b, infos, dir))
}

/// The simulated report of a job file's text, for tests.
#[cfg(test)]
fn simulate_text(text: &str) -> Result<sluice_runtime::SimReport> {
    let jobs = jobfile::parse("t.fio", text)?;
    let (b, _, _) = scenario("t.fio", Path::new("t.fio"), &jobs, "noop")?;
    simulate(&b.preset(DEFAULT_PRESET).build()?)
}

#[cfg(test)]
mod tests;
