//! `sluice repro`: a paper's experiments, ours beside its numbers.

use std::path::PathBuf;

use anyhow::Result;

use crate::output::emit;
use crate::progress;

/// Reproduce a paper's experiments and print ours next to its numbers.
#[derive(clap::Args)]
#[command(
    after_help = "Papers: bfq (BFQ, BFQ+ and CFQ), yfq (YFQ and FreeBSD), vios (VIOS, VIOS(P)), dor (Nam-Park BQS+DOR), mqsim (MQSim side by side with the flash model; not part of all), all (the four papers).\n\nExample:\n  sluice repro bfq --quick"
)]
pub(crate) struct Args {
    /// The paper whose experiments to run.
    paper: Paper,
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
}

/// The papers `sluice_repro` knows: closed, so a misspelling is
/// refused by clap with the list instead of after start-up.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Paper {
    Bfq,
    Yfq,
    Vios,
    Dor,
    Mqsim,
    All,
}

impl Paper {
    /// The name `sluice_repro::run_with` takes.
    fn as_str(self) -> &'static str {
        match self {
            Paper::Bfq => "bfq",
            Paper::Yfq => "yfq",
            Paper::Vios => "vios",
            Paper::Dor => "dor",
            Paper::Mqsim => "mqsim",
            Paper::All => "all",
        }
    }
}

pub(crate) fn run(args: Args) -> Result<()> {
    let paper = args.paper.as_str();
    let started = std::time::Instant::now();
    // Made on the first report, when the number of runs is known.
    let bar = std::sync::OnceLock::new();
    let runs = std::sync::atomic::AtomicUsize::new(0);
    let progress = |done: usize, total: usize| {
        runs.store(total, std::sync::atomic::Ordering::Relaxed);
        bar.get_or_init(|| progress::Progress::new(paper, total as u64, "runs"))
            .set(done as u64);
    };
    let opts = sluice_repro::Options {
        quick: args.quick,
        progress: &progress,
        save_scenarios: args.save_scenarios.as_deref(),
    };
    let report = sluice_repro::run_with(paper, &opts)?;
    if let Some(b) = bar.get() {
        b.finish();
    }
    emit(args.json, &report, |r| {
        // The claims first, then every table.
        let tables = format!(
            "{}\n{}",
            sluice_repro::summary::summary(r),
            sluice_repro::tables(r, args.full)
        );
        let text = if args.quick {
            // First, what --quick changed, so no table is read as a full run's.
            format!("{}\n\n{tables}", sluice_repro::quick_note(paper))
        } else {
            tables
        };
        wrap_long_lines(&text, WIDTH)
    })?;
    // On stderr, so the tables and the JSON stay the same bytes run to run.
    eprintln!(
        "{}",
        wall_time_line(
            paper,
            args.quick,
            runs.into_inner(),
            started.elapsed().as_secs_f64()
        )
    );
    Ok(())
}

/// What the whole reproduction cost in wall time: the figure the README's
/// speed section quotes.
fn wall_time_line(paper: &str, quick: bool, runs: usize, wall_s: f64) -> String {
    let quick = if quick { " --quick" } else { "" };
    format!("sluice repro {paper}{quick}: {runs} runs in {wall_s:.1} s of wall time")
}

/// Prose lines (notes, what the paper says) are wrapped to this width.
const WIDTH: usize = 100;

/// A table's row: three gaps or more of two spaces or more between its
/// cells (a claim's line pads only its verdict, prose has none).
fn is_table_row(line: &str) -> bool {
    line.trim()
        .split("  ")
        .filter(|cell| !cell.trim().is_empty())
        .count()
        > 3
}

/// Lines longer than `width` wrapped at spaces, each continuation indented
/// two more than its line; shorter lines and the tables' rows (which
/// wrapping would collapse) as they are.
fn wrap_long_lines(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 50);
    for line in text.lines() {
        if line.chars().count() <= width || is_table_row(line) {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let cont = " ".repeat(indent + 2);
        let mut cur = line[..indent].to_string();
        let mut fresh = true;
        for word in line.split_whitespace() {
            if !fresh && cur.chars().count() + 1 + word.chars().count() > width {
                out.push_str(&cur);
                out.push('\n');
                cur = cont.clone();
                fresh = true;
            }
            if !fresh {
                cur.push(' ');
            }
            cur.push_str(word);
            fresh = false;
        }
        out.push_str(&cur);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{is_table_row, wall_time_line, wrap_long_lines};

    #[test]
    fn the_wall_time_line_names_the_paper_the_runs_and_the_seconds() {
        assert_eq!(
            wall_time_line("all", true, 212, 5.26),
            "sluice repro all --quick: 212 runs in 5.3 s of wall time"
        );
        assert_eq!(
            wall_time_line("bfq", false, 3, 61.0),
            "sluice repro bfq: 3 runs in 61.0 s of wall time"
        );
    }

    #[test]
    fn table_rows_are_told_from_prose_and_claims() {
        assert!(is_table_row(
            "noop      together  1252.30  1596.50  160404.20"
        ));
        assert!(!is_table_row(
            "held      throughput: aggregate (10r-seq): bfq above noop: ours"
        ));
        assert!(!is_table_row(
            "   MQSim's files scaled, each run flow 1 alone, flow 2 alone"
        ));
    }

    #[test]
    fn long_lines_wrap_at_spaces_with_their_indent_and_short_ones_stay() {
        let long = format!("   {}", "word ".repeat(40));
        let row = format!("noop      together  {}", "12.50  ".repeat(20));
        let text = format!("short line\n{long}\n{row}\nscheduler  workload  ours\n");
        let w = wrap_long_lines(&text, 30);
        let lines: Vec<&str> = w.lines().collect();
        assert_eq!(lines[0], "short line");
        assert!(
            lines.iter().all(|l| l.chars().count() <= 30 || *l == row),
            "{w}"
        );
        assert!(
            lines[1].starts_with("   word") && lines[2].starts_with("     word"),
            "{w}"
        );
        assert_eq!(*lines.last().unwrap(), "scheduler  workload  ours");
        assert!(
            lines.contains(&row.as_str()),
            "a wide table row stays whole: {w}"
        );
        assert_eq!(
            w.split_whitespace().filter(|x| *x == "word").count(),
            40,
            "no word lost"
        );
    }
}
