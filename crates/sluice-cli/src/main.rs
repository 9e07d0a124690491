//! `sluice`: run, compare and inspect disk schedulers.
//!
//! Only parsing and dispatch live here; each subcommand is a module in
//! `cmd` owning its flags and what it does.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;
mod output;
mod progress;
mod table;
mod versus;

use sluice_real::{kernel, run, status, DataError, Refused};

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
  sluice mount /srv/data /mnt/sched --scheduler bfq+
                                                real programs' file I/O under a policy (root)
  sluice versus scenarios/versus/startup-xterm-10r-seq.toml --preset maxtor-stm332061
                                                simulated vs sluice vs the kernel's bfq (root)
  sluice fleet scenarios/fleet/alibaba-sample.toml --workers 2
                                                a cloud trace's volumes over nodes, tail latency per volume
  sluice repro bfq --quick                      a paper's experiments, ours beside its numbers
  sluice report run.json bfq.json -o report.html   results as one HTML page with plots
  sluice fio scenarios/fio/two-readers.fio --scheduler bfq   a fio job file, simulated (or --run)
  sluice import dmclock data/import/dmc_sim_example.conf -o dmc.toml
                                                dmClock's (or Seastar's) own scenario as a scenario file
  sluice list                                   policies, presets, flow patterns
  sluice clean                                  undo what runs that were killed left behind

Exit status (every subcommand):
  0    done
  1    an error: input sluice cannot use, or I/O that failed
  2    a usage error, or a refusal: a permission or kernel feature missing, a
       device another run holds, a file that exists, writes without --allow-writes
       (nothing was changed)
  3    --verify read back blocks that do not hold what was written (report printed)
  130  interrupted (Ctrl-C, SIGTERM); what the run changed is undone
  141  the output's reader went away (as SIGPIPE)";

/// Proportional-share disk I/O scheduling you can run, measure and embed.
#[derive(Parser)]
#[command(name = "sluice", version, about, after_help = EXAMPLES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The subcommands, in `--help`'s order; their help is their `Args`'.
#[derive(Subcommand)]
enum Command {
    Sim(cmd::sim::Args),
    Run(cmd::run::Args),
    Kernel(cmd::kernel::Args),
    Versus(cmd::versus::Args),
    Emulate(cmd::emulate::Args),
    Mount(cmd::mount::Args),
    Compare(cmd::compare::Args),
    Validate(cmd::validate::Args),
    Fleet(cmd::fleet::Args),
    Repro(cmd::repro::Args),
    Fio(cmd::fio::Args),
    Import(cmd::import::Args),
    Report(cmd::report::Args),
    List(cmd::list::Args),
    Calibrate(cmd::calibrate::Args),
    Clean(cmd::clean::Args),
}

fn main() -> ExitCode {
    // A sluice another sluice started (the emulator of `versus`) waits
    // until it is in that run's journal.
    sluice_real::journal::hold_until_journaled();
    let result = match Cli::parse().command {
        Command::Sim(args) => cmd::sim::run(args),
        Command::Run(args) => cmd::run::run(args),
        Command::Kernel(args) => cmd::kernel::run(args),
        Command::Versus(args) => cmd::versus::run(args),
        Command::Emulate(args) => cmd::emulate::run(args),
        Command::Mount(args) => cmd::mount::run(args),
        Command::Compare(args) => cmd::compare::run(args),
        Command::Validate(args) => cmd::validate::run(args),
        Command::Fleet(args) => cmd::fleet::run(args),
        Command::Repro(args) => cmd::repro::run(args),
        Command::Fio(args) => cmd::fio::run(args),
        Command::Import(args) => cmd::import::run(args),
        Command::Report(args) => cmd::report::run(args),
        Command::List(args) => cmd::list::run(args),
        Command::Calibrate(args) => cmd::calibrate::run(args),
        Command::Clean(args) => cmd::clean::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that went away (`sluice ... | head`): end quietly, as
        // a program killed by SIGPIPE would (128 + 13).
        Err(e) if output::broken_pipe(&e) => ExitCode::from(141),
        Err(e) if e.downcast_ref::<Refused>().is_some() => {
            eprintln!("error: {e:#}");
            ExitCode::from(status::EXIT_REFUSED)
        }
        Err(e) if e.downcast_ref::<DataError>().is_some() => {
            eprintln!("error: {e:#}");
            ExitCode::from(status::EXIT_DATA_ERROR)
        }
        Err(e) if e.is::<run::Interrupted>() => {
            eprintln!("sluice: {e}");
            ExitCode::from(status::EXIT_INTERRUPTED)
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod documented_commands;
