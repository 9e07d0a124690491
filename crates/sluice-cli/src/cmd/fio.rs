//! `sluice fio JOBFILE`: a fio job file as a sluice workload, each job (and
//! each of its `numjobs` copies) a flow, simulated on a modelled drive
//! under any policy or, with `--run`, run on real files by the io_uring
//! engine; the results print as fio prints them (`--output-format json`
//! follows fio's JSON layout, so tools written for fio read it). Reading,
//! planning and fio's output live in `sluice_runtime::import::fio`; this
//! owns the flags, `--run`'s device and what reaches the terminal.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use sluice_runtime::import::fio::{self as lib, FioOptions, JobFile, Target, DEFAULT_PRESET};
use sluice_runtime::{Scenario, SimReport};

use crate::output::write_out;

/// `sluice fio --help`'s epilogue: what a job file may hold.
const HELP: &str = "Job files as fio reads them: [global] and job sections, option=value lines,
`;`/`#` comments (also after a value), include FILE, ${VAR} from the environment,
$pagesize/$mb_memory/$ncpus, sizes with k/m/g/t/p (powers of 1024; kb_base=1000
makes k/m/g decimal). Jobs may be given on the command line instead:
  sluice fio --name=x --rw=randread --bs=4k --size=64m --runtime=2 --time_based
Each job (and each numjobs copy) is a flow, named as fio names it: after its
section, or its own name= (a [global] name= renames no job). Honoured:
  rw read|write|randread|randwrite|rw|randrw (rwmixread/rwmixwrite; a mixed job
     issues at random offsets; trim refused)
  bs (bsrange, bssplit: their mean size)  size filesize io_size number_ios
  loops offset iodepth numjobs runtime time_based ramp_time startdelay
  nrfiles: that many files, one after another on the drive, each with its own
     read-ahead; file_service_type roundrobin[:N] (default), sequential, random
     (zipf/pareto/normal: random); a mixed read/write job: one file
  stonewall/wait_for (the next group runs after this one ends); new_group
     starts a reporting group (groupid) whose jobs run beside the ones before
  thinktime (thinktime_blocks) rate rate_iops
  direct/buffered: buffered (fio's default, also without direct=) goes through
     the modelled page cache; --run does O_DIRECT only, and says so; engines
     that bypass the page cache (ime_*, io_uring_cmd, libblkio) are direct
  random_distribution=random|zipf:THETA|pareto:H|normal:DEV[:CENTER]|zoned:A/S:..
     |zoned_abs:A/SIZE:.. as fio draws them (random jobs; the reads' entry of a
     read,write list)
  fsync/fdatasync=N: buffered, every Nth write() is followed by a flush of the
     file's dirty pages (through the page cache; counted in that write's
     latency); direct, the job waits for its writes in flight every N writes
     (no flush reaches the drive); mixed read/write jobs: no flush
  group_reporting: a job with it joins the report entry before it in its group
     (fio's rule): summed io/bw/iops and bw samples, pooled latency mean and
     stdev, percentiles of the jobs' mixed latency distributions
  ioengine: sync/psync/pvsync/vsync/pvsync2/mmap keep one request in flight (no
     ioengine is psync, fio's default: set libaio or io_uring for iodepth);
     libaio/io_uring/posixaio/... keep iodepth; engines without block I/O (net,
     rdma, cpuio, exec, null, sg, rbd, http, ...) are refused.
  zonemode=zbd refused (no zoned drives); zonemode=strided approximated.
Accepted with no effect, and listed in the output as ignored (JSON
\"sluice\": {\"ignored\", \"approximated\"}): verify*, buffer and dedupe options,
logs and percentiles, CPU and NUMA placement, iodepth_batch*, engine plumbing
(cmd_type, sqthread_poll, ...), norandommap, randrepeat.
Approximated and said so: random_distribution=sequence (uniform), end_fsync
(no flush), size without a value (1g). Any other option is an error naming it and its line. directory = the
--run folder; filename is not used in simulation; with --run, one /dev/ device
named by every job is run on, read-only unless --allow-writes (other
filenames: an error; sluice makes and removes its own files, never
overwriting one). Default drive maxtor-stm332061, default policy noop (also
with --run).

Examples:
  sluice fio scenarios/fio/two-readers.fio --scheduler bfq
  sluice fio scenarios/fio/two-readers.fio --preset maxtor-7l250s0 --output-format json
  sluice fio scenarios/fio/randread-qd16.fio --run --output-format json";

/// Run a fio job file as a sluice workload: simulated on a modelled
/// drive under any policy, or with --run on real files through the
/// io_uring engine; printed as fio prints (--output-format json in
/// fio's JSON layout).
// (The doc comment above is `sluice fio --help`'s: these are its
// command-line arguments.)
#[derive(clap::Args)]
#[command(after_help = HELP)]
pub(crate) struct Args {
    /// The fio job file, then any jobs as fio's --name=x --rw=... options
    /// (each --name starts a job).
    #[arg(value_name = "JOBFILE | --name=JOB --OPTION=VALUE...", allow_hyphen_values = true, num_args = 0..)]
    pub jobfile: Vec<String>,
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
    /// --run on a block device (filename=/dev/...): let writing jobs
    /// write to it, destroying what it holds (without it, they are refused).
    #[arg(long, requires = "run")]
    pub allow_writes: bool,
    /// normal (fio's text summary) or json (fio's JSON layout).
    #[arg(long, value_name = "FORMAT", default_value = "normal")]
    pub output_format: OutputFormat,
    /// Simulate at most this many seconds per group of jobs (a quick look
    /// at long jobs; fio has no such option).
    #[arg(long, value_name = "SECONDS")]
    pub max_duration: Option<f64>,
}

/// `--output-format`: the two of fio's formats sluice writes.
#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum OutputFormat {
    Normal,
    Json,
}

/// Sluice's own flags among the trailing arguments (clap leaves them
/// there once a `--name=` job has started): taken out and applied.
fn own_flags(opts: &Args) -> Result<(Args, Vec<String>)> {
    let mut o = Args {
        jobfile: Vec::new(),
        preset: opts.preset.clone(),
        diskspecs: opts.diskspecs.clone(),
        scheduler: opts.scheduler.clone(),
        run: opts.run,
        allow_writes: opts.allow_writes,
        dir: opts.dir.clone(),
        output_format: opts.output_format,
        max_duration: opts.max_duration,
    };
    let mut rest = Vec::new();
    let mut it = opts.jobfile.iter();
    while let Some(a) = it.next() {
        let (k, inline) = match a.split_once('=') {
            Some((k, v)) => (k, Some(v.to_string())),
            None => (a.as_str(), None),
        };
        let mut value = |k: &str| -> Result<String> {
            match inline.clone() {
                Some(v) => Ok(v),
                None => it
                    .next()
                    .cloned()
                    .with_context(|| format!("{k} needs a value")),
            }
        };
        match k {
            "--output-format" => {
                o.output_format = match value(k)?.as_str() {
                    "json" => OutputFormat::Json,
                    "normal" => OutputFormat::Normal,
                    v => bail!("--output-format {v}: expected normal or json"),
                }
            }
            "--preset" => o.preset = Some(value(k)?),
            "--scheduler" => o.scheduler = Some(value(k)?),
            "--diskspecs" => o.diskspecs = Some(PathBuf::from(value(k)?)),
            "--dir" => o.dir = Some(PathBuf::from(value(k)?)),
            "--run" => o.run = true,
            "--allow-writes" => o.allow_writes = true,
            "--max-duration" => {
                let v = value(k)?;
                o.max_duration = Some(
                    v.parse()
                        .ok()
                        .with_context(|| format!("--max-duration {v}: expected seconds"))?,
                );
            }
            _ => rest.push(a.clone()),
        }
    }
    Ok((o, rest))
}

/// Run the job file (or the command line's jobs); returns what to print.
fn fio(given: &Args) -> Result<String> {
    let (opts, args) = own_flags(given)?;
    let opts = &opts;
    let (job_file, path) = match args.split_first() {
        Some((first, rest)) if !first.starts_with("--") => {
            let path = PathBuf::from(first);
            let mut file = JobFile::read(&path)?;
            if !rest.is_empty() {
                // fio: options after the file start jobs of their own.
                file.add_args(rest)?;
            }
            (file, path)
        }
        Some(_) => (JobFile::from_args(&args)?, PathBuf::from("fio")),
        None => bail!("give a job file or a job on the command line (--name=x --rw=read ...)"),
    };
    if let Some(d) = opts.max_duration {
        if !(d > 0.0 && d.is_finite()) {
            bail!("--max-duration {d}: expected a positive number of seconds");
        }
    }
    let target = match (&opts.preset, &opts.diskspecs) {
        _ if opts.run => Target::Real,
        (Some(_), Some(_)) => bail!("give --preset or --diskspecs, not both"),
        (_, Some(d)) => Target::Diskspecs(d.clone()),
        (p, None) => Target::Preset(p.clone().unwrap_or_else(|| DEFAULT_PRESET.to_string())),
    };
    let options = FioOptions {
        scheduler: opts.scheduler.clone(),
        target,
        max_duration_s: opts.max_duration,
    };
    let scheduler = options.scheduler().to_string();
    let plan = lib::plan(&job_file, &options)?;
    let device = if opts.run { device(&job_file)? } else { None };
    let dir = opts.dir.clone().or(plan.directory.clone());
    let mut started = None;
    let mut how = String::new();
    let mut results = plan.run(&options, |s, bin| {
        if !opts.run {
            how = format!(
                "sluice fio (simulated), {scheduler} on {}",
                s.device.model.name()
            );
            return simulate(s, bin);
        }
        started.get_or_insert_with(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64)
        });
        let r = crate::run::run_scenario(
            s.clone(),
            &crate::run::Options {
                scenario: path.clone(),
                dir: dir.clone(),
                device: device.clone(),
                allow_writes: opts.allow_writes,
                queue_depth: None,
                duration_s: None,
                verify: false,
                keep: false,
                timeline_ms: bin.map(|_| lib::SAMPLE_MS),
                log_requests: false,
                progress: Some(crate::progress::RunBar::shared()),
            },
        )
        .map_err(|e| crate::cmd::run::failed(e, crate::cmd::run::FLAGS))?;
        crate::cmd::run::print_warnings(&r.warnings, crate::cmd::run::FLAGS);
        how = format!(
            "sluice fio --run, {scheduler} over io_uring on {}",
            r.engine.target
        );
        Ok(r.report)
    })?;
    results.started_unix_ms = started;
    for note in results.stopped_early() {
        eprintln!("sluice fio: warning: {note}");
    }
    Ok(match opts.output_format {
        OutputFormat::Json => results.json()?,
        OutputFormat::Normal => results.text(&how),
    })
}

/// --run: the one block device every job names (read-only without
/// --allow-writes), or none: sluice makes its own files in a folder.
fn device(job_file: &JobFile) -> Result<Option<PathBuf>> {
    let jobs = &job_file.jobs;
    let names: Vec<(&str, usize)> = jobs.iter().filter_map(|j| j.get("filename")).collect();
    let Some(&(v, l)) = names.first() else {
        return Ok(None);
    };
    let one_device =
        v.starts_with("/dev/") && names.len() == jobs.len() && names.iter().all(|(n, _)| *n == v);
    if !one_device {
        let file = &job_file.name;
        bail!("{file}: line {l}: filename={v}: sluice fio --run takes one /dev/ device for every job, else makes its own files (directory= or --dir)");
    }
    Ok(Some(PathBuf::from(v)))
}

/// Simulate, with fio's bandwidth samples every `bin` when given; a run
/// that will take long says so on stderr ([`crate::progress::LongRun`]).
fn simulate(s: &Scenario, bin: Option<sluice::Duration>) -> Result<SimReport> {
    let mut long = crate::progress::LongRun::new("sluice fio");
    let sim = sluice_sim::Simulation::new(s)?
        .with_progress(move |now, total| long.update(now.as_secs_f64(), total.as_secs_f64()));
    Ok(match bin {
        Some(b) => sim.with_timeline(b),
        None => sim,
    }
    .run())
}

/// The longest error `sluice fio` prints after `error: ` (one line of at
/// most 200 characters in all).
const MAX_ERROR: usize = 193;

pub(crate) fn run(args: Args) -> Result<()> {
    let out = fio(&args).map_err(one_line)?;
    write_out(&out)
}

/// A refusal of the job file as one short line: its start (file, line,
/// option) and its end (why) kept, an over-long middle (a quoted value)
/// cut. An interrupted run and a refused target keep their own exit codes.
fn one_line(e: anyhow::Error) -> anyhow::Error {
    if e.is::<crate::run::Interrupted>() || e.downcast_ref::<sluice_real::Refused>().is_some() {
        return e;
    }
    let mut text = format!("{e:#}");
    if text.ends_with(lib::UNKNOWN_OPTION) {
        text.push_str(" (sluice fio --help)");
    }
    anyhow::anyhow!(shorten(&text))
}

/// `text` on one line of at most [`MAX_ERROR`] characters.
fn shorten(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let chars: Vec<char> = line.chars().collect();
    if chars.len() <= MAX_ERROR {
        return line;
    }
    let head: String = chars[..120].iter().collect();
    let tail: String = chars[chars.len() - (MAX_ERROR - 121)..].iter().collect();
    format!("{head}…{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_errors_keep_their_start_and_end_on_one_line() {
        let long = format!(
            "j.fio: line 3: rw={}: expected read\nor write",
            "x".repeat(500)
        );
        let s = shorten(&long);
        assert_eq!(s.chars().count(), MAX_ERROR);
        assert!(
            s.starts_with("j.fio: line 3: rw=xxx") && s.ends_with("expected read or write"),
            "{s}"
        );
        assert_eq!(shorten("short\n error"), "short error");
    }

    /// The library's refusal of an unknown option names no flag; the CLI
    /// adds where its users find the list.
    #[test]
    fn an_unknown_option_points_to_the_help() {
        let file = JobFile::parse("j.fio".as_ref(), "[a]\nsize=1m\nfrobnicate=1\n").unwrap();
        let e = lib::plan(&file, &FioOptions::default()).unwrap_err();
        assert!(!e.to_string().contains("--"), "{e}");
        assert_eq!(
            one_line(e.into()).to_string(),
            "j.fio: line 3: option 'frobnicate' is not one sluice fio knows (sluice fio --help)"
        );
    }
}
