//! `sluice report RESULT.json... LOG.csv... -o FILE.html`: one
//! self-contained HTML page (inline SVG and CSS, nothing fetched) from any
//! of sluice's JSON results and request logs: per run, its flows' table,
//! latency CDFs, throughput over time (when the run has a timeline) and
//! shares against weights; per reproduced experiment, the paper's numbers
//! beside ours as a table and a chart; and the request logs' service
//! order, one panel per log on one time axis.

mod input;
mod lanes;
mod order;
mod plots;
mod requests;
mod service;

use std::fmt::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

pub(crate) use input::Results;
use input::{Experiment, Run};

/// Most rows one experiment's chart shows (all are in its table).
const MAX_CHART_ROWS: usize = 24;

/// Read `files` and write the page to `out`.
pub(crate) fn report(files: &[PathBuf], out: &Path) -> Result<()> {
    let results = input::read(files)?;
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let html = page(&results, &names)?;
    let mut file = crate::output::create_output("-o", out)?;
    std::io::Write::write_all(&mut file, html.as_bytes())
        .with_context(|| format!("-o {}", out.display()))
}

/// The whole page.
pub(crate) fn page(r: &Results, sources: &[String]) -> Result<String> {
    let mut h = String::new();
    h.push_str(HEAD);
    let _ = write!(
        h,
        "<h1>sluice report</h1>\n<p class=\"src\">From {}. Figures are drawn from the numbers in these files; \
         nothing on this page is fetched from elsewhere.</p>\n",
        sources.iter().map(|s| format!("<code>{}</code>", esc(s))).collect::<Vec<_>>().join(", ")
    );
    contents(&mut h, r);
    for (i, run) in r.runs.iter().enumerate() {
        run_section(&mut h, i, run)?;
    }
    order::section(&mut h, &r.logs);
    if !r.experiments.is_empty() {
        h.push_str("<h2>Reproductions: the paper's numbers beside ours</h2>\n");
    }
    for e in &r.experiments {
        experiment_section(&mut h, e)?;
    }
    h.push_str("</body>\n</html>\n");
    Ok(h)
}

const HEAD: &str = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
<title>sluice report</title>\n<style>\n\
body { font-family: sans-serif; margin: 2em auto; max-width: 900px; color: #222; }\n\
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; }\n\
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.9em; }\n\
th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: right; }\n\
th { background: #f4f4f4; } td.l, th.l { text-align: left; }\n\
nav { font-size: 0.9em; } nav ul { padding-left: 1.2em; }\n\
figure { margin: 1em 0; } figure svg { max-width: 100%; height: auto; } figcaption { font-size: 0.85em; color: #555; }\n\
p.src, p.note { font-size: 0.85em; color: #555; }\n\
</style>\n</head>\n<body>\n";

/// HTML-escape `s`.
pub(crate) fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// Anchor of run `i`'s section.
fn run_id(i: usize) -> String {
    format!("run-{}", i + 1)
}

/// Anchor of an experiment's section: letters, digits and '-' only.
fn experiment_id(e: &Experiment) -> String {
    let raw = format!("{}-{}", e.paper, e.id);
    raw.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// A list of the page's sections, linked within the page, when it has
/// more than one.
fn contents(h: &mut String, r: &Results) {
    let logs = usize::from(!r.logs.is_empty());
    if r.runs.len() + r.experiments.len() + logs < 2 {
        return;
    }
    h.push_str("<nav><ul>\n");
    for (i, run) in r.runs.iter().enumerate() {
        let _ = writeln!(
            h,
            "<li><a href=\"#{}\">{} ({})</a></li>",
            run_id(i),
            esc(&run.title),
            esc(&run.kind)
        );
    }
    if logs > 0 {
        let _ = writeln!(
            h,
            "<li><a href=\"#{}\">Service order ({} request log{})</a></li>",
            order::ID,
            r.logs.len(),
            if r.logs.len() == 1 { "" } else { "s" }
        );
    }
    for e in &r.experiments {
        let _ = writeln!(
            h,
            "<li><a href=\"#{}\">{} / {}: {}</a></li>",
            experiment_id(e),
            esc(&e.paper),
            esc(&e.id),
            esc(&e.title)
        );
    }
    h.push_str("</ul></nav>\n");
}

fn fig(h: &mut String, svg: &str, caption: &str) {
    let _ = write!(
        h,
        "<figure>\n{svg}\n<figcaption>{}</figcaption>\n</figure>\n",
        esc(caption)
    );
}

fn num(x: f64, digits: usize) -> String {
    if x.is_finite() {
        format!("{x:.digits$}")
    } else {
        "-".to_string()
    }
}

fn run_section(h: &mut String, i: usize, run: &Run) -> Result<()> {
    let _ = writeln!(
        h,
        "<h2 id=\"{}\">{} <small>({})</small></h2>",
        run_id(i),
        esc(&run.title),
        esc(&run.kind)
    );
    let total_bytes: f64 = run
        .flows
        .iter()
        .map(|f| f.bytes)
        .filter(|b| b.is_finite())
        .sum();
    let total_weight: f64 = run
        .flows
        .iter()
        .map(|f| f.weight)
        .filter(|w| w.is_finite())
        .sum();
    let share = |f: &input::Flow| {
        if total_bytes > 0.0 {
            f.bytes / total_bytes
        } else {
            f64::NAN
        }
    };
    let wshare = |f: &input::Flow| {
        if total_weight > 0.0 {
            f.weight / total_weight
        } else {
            f64::NAN
        }
    };
    h.push_str(
        "<table>\n<tr><th class=\"l\">flow</th><th>weight</th><th>MB/s</th><th>share of bytes</th>\
<th>share of weight</th><th>mean ms</th><th>p99 ms</th></tr>\n",
    );
    for f in &run.flows {
        let _ = writeln!(
            h,
            "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&f.name),
            num(f.weight, 0),
            num(f.mb_s, 2),
            num(share(f), 3),
            num(wshare(f), 3),
            num(f.mean_ms, 2),
            num(f.p99_ms, 2)
        );
    }
    h.push_str("</table>\n");
    let shown = run.flows.len().min(plots::MAX_LINES);
    let more = if run.flows.len() > shown {
        format!(" The first {shown} of {} flows are drawn.", run.flows.len())
    } else {
        String::new()
    };
    let cdfs: Vec<_> = run
        .flows
        .iter()
        .map(|f| (f.name.clone(), f.cdf.clone()))
        .collect();
    fig(
        h,
        &plots::latency_cdf(&format!("Latency CDF: {}", run.title), &cdfs)?,
        &format!(
            "Share of each flow's requests completed within a latency.{}{more}",
            if run.flows.iter().any(|f| f.coarse) {
                " This file holds only p50, p95, p99 and max: the lines join those points."
            } else {
                ""
            }
        ),
    );
    if let Some((interval, series)) = &run.timeline {
        fig(
            h,
            &plots::throughput(
                &format!("Throughput over time: {}", run.title),
                *interval,
                run.warmup_s,
                series,
            )?,
            &format!(
                "Each flow's MB/s in bins of {interval} s from the run's start, warm-up included.{more}"
            ),
        );
    }
    let rows: Vec<_> = run
        .flows
        .iter()
        .take(plots::MAX_LINES * 3)
        .map(|f| (f.name.clone(), vec![Some(share(f)), Some(wshare(f))]))
        .collect();
    fig(
        h,
        &plots::bars(
            &format!("Shares against weights: {}", run.title),
            "fraction of the total",
            &["share of bytes served", "share of weight"],
            &rows,
        )?,
        "A proportional-share scheduler gives each backlogged flow the share of service its weight asks.",
    );
    Ok(())
}

fn experiment_section(h: &mut String, e: &Experiment) -> Result<()> {
    let _ = writeln!(
        h,
        "<h3 id=\"{}\">{} / {}: {}</h3>",
        experiment_id(e),
        esc(&e.paper),
        esc(&e.id),
        esc(&e.title)
    );
    h.push_str("<table>\n<tr><th class=\"l\">scheduler</th><th class=\"l\">workload</th><th class=\"l\">metric</th>\
<th>ours</th><th>paper</th><th class=\"l\">unit</th></tr>\n");
    for r in &e.rows {
        let _ = writeln!(
            h,
            "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td class=\"l\">{}</td></tr>",
            esc(&r.scheduler),
            esc(&r.workload),
            esc(&r.metric),
            num(r.ours, 2),
            r.paper.map_or("-".to_string(), |p| num(p, 2)),
            esc(&r.unit)
        );
    }
    h.push_str("</table>\n");
    // Chart one unit: the one the paper gives numbers in, else the first.
    let unit = e
        .rows
        .iter()
        .find(|r| r.paper.is_some())
        .or(e.rows.first())
        .map(|r| r.unit.clone());
    let Some(unit) = unit else { return Ok(()) };
    let with_paper = e.rows.iter().any(|r| r.paper.is_some());
    let rows: Vec<_> = e
        .rows
        .iter()
        .filter(|r| r.unit == unit && (!with_paper || r.paper.is_some()) && r.ours.is_finite())
        .take(MAX_CHART_ROWS)
        .map(|r| {
            let mut values = vec![Some(r.ours)];
            if with_paper {
                values.push(r.paper);
            }
            (
                format!("{} · {} · {}", r.scheduler, r.workload, r.metric),
                values,
            )
        })
        .collect();
    if rows.is_empty() {
        return Ok(());
    }
    let note = if with_paper {
        "Rows where the paper gives a number; ours in blue, the paper's in orange."
    } else {
        "The paper gives no number for these rows (its figure shows a shape only): ours alone."
    };
    fig(
        h,
        &plots::bars(
            &if with_paper {
                format!("{} {}: ours against the paper ({unit})", e.paper, e.id)
            } else {
                format!(
                    "{} {}: ours ({unit}; the paper gives no number)",
                    e.paper, e.id
                )
            },
            &unit,
            if with_paper {
                &["ours", "paper"]
            } else {
                &["ours"]
            },
            &rows,
        )?,
        note,
    );
    Ok(())
}

#[cfg(test)]
mod tests;
