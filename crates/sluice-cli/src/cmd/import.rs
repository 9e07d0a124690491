//! `sluice import`: another scheduler's own test configuration as a
//! scenario (dmClock's simulator configuration, Seastar's io_tester job
//! file with its io properties). The mapping lives in
//! `sluice_runtime::import`; this writes the file.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;
use sluice_runtime::import::{self, Imported, Kind};

use super::option_range;
use crate::output::{create_output, write_out};

/// Write a scenario from dmClock's, Seastar's or MQSim's configuration files.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  sluice import dmclock data/import/dmc_sim_example.conf -o dmc.toml
  sluice import seastar data/import/tau_nemesis.yaml --io-properties data/import/i4i.2xlarge.yaml -o tau.toml
  sluice import mqsim workload.xml --ssdconfig ssdconfig.xml --scenario 2 -o mq.toml
  sluice sim tau.toml --scheduler mclock

The scenario runs on a rate device (the server's IOPS, the disk's IOPS and
bandwidth), or for mqsim on the MQSim device of the configuration; its
first lines say what was approximated. The output file is
created, never overwritten.")]
pub(crate) struct Args {
    #[command(subcommand)]
    from: From,
}

#[derive(clap::Subcommand)]
enum From {
    /// dmClock's simulator configuration (sim/dmc_sim_example.conf): client
    /// groups as mclock flows on a server of server_iops.
    Dmclock {
        /// The .conf file.
        #[arg(value_name = "FILE.conf")]
        conf: PathBuf,
        /// Write the scenario here (created; default: stdout).
        #[arg(short = 'o', long, value_name = "OUT.toml")]
        output: Option<PathBuf>,
    },
    /// MQSim's workload file and device configuration: one I/O scenario's
    /// flows on the MQSim device (`[device] mqsim`), as MQSim runs them.
    Mqsim {
        /// The workload file (MQSim's -w).
        #[arg(value_name = "WORKLOAD.xml")]
        workload: PathBuf,
        /// The device configuration (MQSim's -i).
        #[arg(long, value_name = "CONFIG.xml")]
        ssdconfig: PathBuf,
        /// Which <IO_Scenario> of the file, from 1.
        #[arg(long, default_value_t = 1, value_name = "N")]
        scenario: usize,
        /// Write the scenario here (created; default: stdout). The
        /// configuration's and the traces' paths are written relative to
        /// its folder (stdout: to the current directory).
        #[arg(short = 'o', long, value_name = "OUT.toml")]
        output: Option<PathBuf>,
    },
    /// Seastar's io_tester job file (--conf) and io properties: jobs as
    /// seastar-fq classes on the properties' disk.
    Seastar {
        /// The io_tester job file (YAML).
        #[arg(value_name = "CONF.yaml")]
        conf: PathBuf,
        /// The io_properties.yaml file (disks: read_iops, read_bandwidth,
        /// write_iops, write_bandwidth).
        #[arg(long, value_name = "FILE")]
        io_properties: PathBuf,
        /// io_tester's --smp: jobs on `shards: all` run this many copies.
        #[arg(
            long,
            default_value_t = 1,
            value_name = "N",
            allow_negative_numbers = true
        )]
        shards: i128,
        /// io_tester's --duration, seconds.
        #[arg(
            long,
            default_value_t = 10.0,
            value_name = "S",
            allow_negative_numbers = true
        )]
        duration: f64,
        /// Write the scenario here (created; default: stdout).
        #[arg(short = 'o', long, value_name = "OUT.toml")]
        output: Option<PathBuf>,
    },
}

pub(crate) fn run(args: Args) -> Result<()> {
    let (imported, source, output) = match args.from {
        From::Dmclock { conf, output } => {
            let text = import::read_input(&conf, Kind::DmClockConfig)?;
            let imp = import::dmclock::import(&text)
                .map_err(|e| anyhow::anyhow!("{}: {e}", conf.display()))?;
            (
                imp,
                format!("sluice import dmclock {}", name(&conf)),
                output,
            )
        }
        From::Mqsim {
            workload,
            ssdconfig,
            scenario,
            output,
        } => {
            let imp = import::mqsim::import(&workload, &ssdconfig, scenario, output.as_deref())?;
            (
                imp,
                format!(
                    "sluice import mqsim {} --ssdconfig {} --scenario {scenario}",
                    name(&workload),
                    name(&ssdconfig)
                ),
                output,
            )
        }
        From::Seastar {
            conf,
            io_properties,
            shards,
            duration,
            output,
        } => {
            // Checked before any file is read.
            let shards = option_range::whole("--shards", shards, 1, import::seastar::MAX_SHARDS)?;
            let duration = option_range::number("--duration", duration, 0.001, 1e7, " seconds")?;
            let jobs = import::read_input(&conf, Kind::SeastarJobs)?;
            let props = import::read_input(&io_properties, Kind::IoProperties)?;
            let opts = import::seastar::Options {
                shards,
                duration_s: duration,
            };
            let imp = import::seastar::import(&jobs, &props, &opts)
                .map_err(|e| anyhow::anyhow!("{}: {e}", conf.display()))?;
            (
                imp,
                format!(
                    "sluice import seastar {} --io-properties {}",
                    name(&conf),
                    name(&io_properties)
                ),
                output,
            )
        }
    };
    write(&imported, &source, output.as_deref())
}

/// A path's file name, for the scenario's header.
fn name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

fn write(imported: &Imported, source: &str, output: Option<&Path>) -> Result<()> {
    let text = imported.to_toml(&format!("Written by `{source}`."))?;
    match output {
        None => write_out(&text),
        Some(path) => {
            let mut f = create_output("-o", path)?;
            f.write_all(text.as_bytes())
                .and_then(|()| f.sync_all())
                .map_err(|e| anyhow::anyhow!("-o {}: {e}", path.display()))
        }
    }
}
