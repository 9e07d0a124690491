//! The page: its head, contents and one section per run, `compare`
//! array and reproduced experiment (the request logs' section is
//! [`crate::order`]'s), drawn from what [`crate::input`] read.

use std::fmt::Write;

use crate::error::Result;
use crate::input::{self, Experiment, Flow, Results, Run};
use crate::{order, plots};

/// Most rows one chart draws; past it the page says how many more there
/// are, and the table below has every one.
const MAX_CHART_ROWS: usize = 60;

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
        match run.compare {
            None => run_section(&mut h, i, run)?,
            // A compare array's runs: one section, at its first run.
            Some(c) if r.runs[..i].iter().all(|p| p.compare != Some(c)) => {
                let runs: Vec<&Run> = r.runs.iter().filter(|p| p.compare == Some(c)).collect();
                compare_section(&mut h, c, &runs)?;
            }
            Some(_) => {}
        }
    }
    crate::fleet::section(&mut h, &r.fleets)?;
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
body { font-family: sans-serif; margin: 2em auto; max-width: 1000px; padding: 0 1em; color: #222; }\n\
div.wide { overflow-x: auto; } p.claim { background: #f6f6f0; padding: 0.5em 0.8em; border-left: 3px solid #bbb; }\n\
tr.finite td { font-weight: bold; }\n\
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

/// Anchor of compare array `c`'s section.
fn compare_id(c: usize) -> String {
    format!("compare-{}", c + 1)
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
    let single = r.runs.iter().filter(|run| run.compare.is_none()).count();
    let fleets = usize::from(!r.fleets.is_empty());
    if single + r.compares + r.experiments.len() + logs + fleets < 2 {
        return;
    }
    h.push_str("<nav><ul>\n");
    for (i, run) in r.runs.iter().enumerate() {
        match run.compare {
            None => {
                let _ = writeln!(
                    h,
                    "<li><a href=\"#{}\">{} ({})</a></li>",
                    run_id(i),
                    esc(&run.title),
                    esc(&run.kind)
                );
            }
            Some(c) if r.runs[..i].iter().all(|p| p.compare != Some(c)) => {
                let n = r.runs.iter().filter(|p| p.compare == Some(c)).count();
                let _ = writeln!(
                    h,
                    "<li><a href=\"#{}\">{}: {n} policies side by side</a></li>",
                    compare_id(c),
                    esc(&run.scenario)
                );
            }
            Some(_) => {}
        }
    }
    if fleets > 0 {
        let _ = writeln!(
            h,
            "<li><a href=\"#{}\">Fleets: the tail each volume got ({} fleet{})</a></li>",
            crate::fleet::ID,
            r.fleets.len(),
            if r.fleets.len() == 1 { "" } else { "s" }
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

pub(crate) fn fig(h: &mut String, svg: &str, caption: &str) {
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

/// The order flows are shown in: finite flows (start-ups, videos, files
/// read once) first, as they are what a run is usually about, then the
/// rest, each group in the result's order.
fn shown_order(flows: &[input::Flow]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..flows.len()).collect();
    order.sort_by_key(|&i| !flows[i].finite());
    order
}

/// "; N more flows are not drawn (all are in the flows' table)" when a
/// chart of `total` draws only `shown`.
fn more(shown: usize, total: usize, what: &str) -> String {
    if total > shown {
        format!(
            " {shown} of the {total} {what} are drawn (the finite ones first); {} more are not drawn: every one is in the table.",
            total - shown
        )
    } else {
        String::new()
    }
}

/// A finite flow's outcome in words: "start-up 2.16 s", "finished after
/// 3.10 s", "12 of 540 frames dropped", or that it did not finish.
fn outcome(f: &input::Flow) -> String {
    let mut parts = Vec::new();
    let repeated = f.startups.is_some_and(|n| n > 1.0);
    match (f.startup_s, f.startups) {
        (Some(s), Some(n)) if n > 1.0 => parts.push(format!(
            "mean start-up time {} s over {} start-ups",
            num(s, 2),
            num(n, 0)
        )),
        (Some(s), _) => parts.push(format!("start-up time {} s", num(s, 2))),
        (None, Some(_)) => parts.push("no start-up finished within the run".to_string()),
        (None, None) => {}
    }
    match f.done_s {
        Some(d) if f.startup_s != Some(d) && !repeated => {
            parts.push(format!("finished {} s after it started", num(d, 2)))
        }
        None if f.startup_s.is_none() && f.startups.is_none() && f.frames.is_none() => {
            parts.push("did not finish within the run".to_string())
        }
        _ => {}
    }
    if let Some((n, d)) = f.frames {
        parts.push(format!("{} of {} frames dropped", num(d, 0), num(n, 0)));
    }
    parts.join(", ")
}

fn run_section(h: &mut String, i: usize, run: &Run) -> Result<()> {
    let _ = writeln!(
        h,
        "<h2 id=\"{}\">{} <small>({})</small></h2>",
        run_id(i),
        esc(&run.title),
        esc(&run.kind)
    );
    let order = shown_order(&run.flows);
    let flows: Vec<&input::Flow> = order.iter().map(|&k| &run.flows[k]).collect();
    let finite: Vec<&input::Flow> = flows.iter().copied().filter(|f| f.finite()).collect();
    if !finite.is_empty() {
        h.push_str("<p class=\"claim\">");
        for (k, f) in finite.iter().enumerate() {
            let _ = write!(
                h,
                "{}<b>{}</b>: {}",
                if k > 0 { "; " } else { "" },
                esc(&f.name),
                esc(&outcome(f))
            );
        }
        h.push_str(".</p>\n");
    }
    let total_bytes: f64 = flows
        .iter()
        .map(|f| f.bytes)
        .filter(|b| b.is_finite())
        .sum();
    let total_weight: f64 = flows
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
    let timed = flows
        .iter()
        .any(|f| f.time_s().is_some() || f.startups.is_some());
    let framed = flows.iter().any(|f| f.frames.is_some());
    h.push_str(
        "<div class=\"wide\"><table>\n<tr><th class=\"l\">flow</th><th>weight</th><th>MB/s</th><th>share of bytes</th>\
<th>share of weight</th><th>mean ms</th><th>p99 ms</th>",
    );
    if timed {
        h.push_str("<th>start-up or done (s)</th>");
    }
    if framed {
        h.push_str("<th>frames dropped</th>");
    }
    h.push_str("</tr>\n");
    for f in &flows {
        let _ = write!(
            h,
            "<tr{}><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>",
            if f.finite() { " class=\"finite\"" } else { "" },
            esc(&f.name),
            num(f.weight, 0),
            num(f.mb_s, 2),
            num(share(f), 3),
            num(wshare(f), 3),
            num(f.mean_ms, 2),
            num(f.p99_ms, 2)
        );
        if timed {
            let t = match f.time_s() {
                Some(t) => num(t, 2),
                None if f.finite() => "not finished".to_string(),
                None => "-".to_string(),
            };
            let _ = write!(h, "<td>{t}</td>");
        }
        if framed {
            let t = f.frames.map_or("-".to_string(), |(n, d)| {
                format!("{} of {}", num(d, 0), num(n, 0))
            });
            let _ = write!(h, "<td>{t}</td>");
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table></div>\n");
    let drawn = &flows[..flows.len().min(plots::MAX_LINES)];
    let more = more(drawn.len(), flows.len(), "flows");
    // The finite flows' times, in a small chart of their own.
    let times: Vec<_> = finite
        .iter()
        .map(|f| (f.name.clone(), vec![f.time_s()]))
        .collect();
    if !times.is_empty() {
        fig(
            h,
            &plots::bars(
                &format!("Start-up and completion times: {}", run.title),
                "seconds from the flow's start",
                &["start-up or done (s)"],
                &times,
                "not finished",
            )?,
            "Each finite flow's start-up time (start-up flows) or the time from its start to its last completion. \
             A flow without a bar did not finish within the run.",
        );
    }
    let cdfs: Vec<_> = drawn
        .iter()
        .map(|f| (f.name.clone(), f.cdf.clone()))
        .collect();
    fig(
        h,
        &plots::latency_cdf(&format!("Latency CDF: {}", run.title), &cdfs)?,
        &format!(
            "Share of each flow's requests completed within a latency; each flow has its own colour, marker and, \
             past ten flows, dash pattern.{}{more}",
            if flows.iter().any(|f| f.coarse) {
                " This file holds only p50, p95, p99 and max: the lines join those points."
            } else {
                ""
            }
        ),
    );
    if let Some((interval, series)) = &run.timeline {
        // The timeline's series in the flows' order shown, every one.
        let mut ordered: Vec<input::Series> = Vec::new();
        for f in &flows {
            if let Some(s) = series.iter().find(|(n, _)| *n == f.name) {
                ordered.push(s.clone());
            }
        }
        for s in series {
            if !flows.iter().any(|f| f.name == s.0) {
                ordered.push(s.clone());
            }
        }
        let total = ordered.len();
        ordered.truncate(plots::MAX_LINES);
        let peaks: Vec<f64> = ordered
            .iter()
            .map(|(_, s)| {
                s.iter()
                    .copied()
                    .filter(|v| v.is_finite())
                    .fold(0.0, f64::max)
            })
            .collect();
        let strips = ordered.len() > plots::STRIPS_ABOVE;
        let notes: Vec<Option<String>> = ordered
            .iter()
            .map(|(n, _)| {
                let f = flows.iter().find(|f| f.name == *n && f.finite())?;
                Some(match f.time_s() {
                    Some(t) if f.startups.is_some_and(|n| n > 1.0) => {
                        format!("mean start-up {} s", num(t, 2))
                    }
                    Some(t) if f.startup_s.is_some() => format!("start-up {} s", num(t, 2)),
                    Some(t) => format!("done after {} s", num(t, 2)),
                    None => "not finished".to_string(),
                })
            })
            .collect();
        let split = !strips && plots::by_magnitude(&peaks).len() > 1;
        let title = format!("Throughput over time: {}", run.title);
        fig(
            h,
            &if strips {
                plots::throughput_strips(&title, *interval, run.warmup_s, &ordered, &notes)
            } else {
                plots::throughput(&title, *interval, run.warmup_s, &ordered)?
            },
            &format!(
                "Each flow's MB/s in bins of {interval} s from the run's start, warm-up included.{}{}{}",
                if strips {
                    " One strip per flow (finite flows on top), all on one scale except where a strip says \"own scale\" \
                     (a flow whose peak is under 1/20 of the largest)."
                } else {
                    ""
                },
                if split {
                    " The flows' peaks differ more than 20 times: the smaller flows have a panel of their own, below."
                } else {
                    ""
                },
                more_of(ordered.len(), total)
            ),
        );
    }
    let rows: Vec<_> = flows
        .iter()
        .take(MAX_CHART_ROWS)
        .map(|f| (f.name.clone(), vec![Some(share(f)), Some(wshare(f))]))
        .collect();
    fig(
        h,
        &plots::bars(
            &format!("Shares against weights: {}", run.title),
            "fraction of the total",
            &["share of bytes served", "share of weight"],
            &rows,
            "-",
        )?,
        &format!(
            "A proportional-share scheduler gives each backlogged flow the share of service its weight asks.{}",
            more_of(rows.len(), flows.len())
        ),
    );
    Ok(())
}

/// [`more`] for flows.
fn more_of(shown: usize, total: usize) -> String {
    more(shown, total, "flows")
}

/// The runs of one `compare --json` array (one scenario under several
/// policies) side by side: each flow's MB/s under each policy as grouped
/// bars, the finite flows' times, and a table of both.
fn compare_section(h: &mut String, c: usize, runs: &[&Run]) -> Result<()> {
    let Some(first) = runs.first() else {
        return Ok(());
    };
    let _ = writeln!(
        h,
        "<h2 id=\"{}\">{} under {} policies on {} <small>(compare)</small></h2>",
        compare_id(c),
        esc(&first.scenario),
        runs.len(),
        esc(&first.device)
    );
    // Every flow of any run, finite ones first, in the first run's order.
    let mut names: Vec<(String, bool)> = Vec::new();
    for run in runs {
        for &k in &shown_order(&run.flows) {
            let f = &run.flows[k];
            if !names.iter().any(|(n, _)| *n == f.name) {
                names.push((f.name.clone(), f.finite()));
            }
        }
    }
    names.sort_by_key(|(_, finite)| !finite);
    fn find<'a>(run: &'a Run, name: &str) -> Option<&'a Flow> {
        run.flows.iter().find(|f| f.name == name)
    }
    let policy = |run: &Run| {
        if run.kind == "sim" || run.kind == "run" {
            run.scheduler.clone()
        } else {
            format!("{} ({})", run.scheduler, run.kind)
        }
    };
    // One row per policy: `value` of each named flow (None where the run
    // has no such flow or no value).
    let per_policy =
        |flows: &[&str], value: &dyn Fn(&Flow) -> Option<f64>| -> Vec<(String, Vec<Option<f64>>)> {
            runs.iter()
                .map(|run| {
                    let values = flows.iter().map(|n| find(run, n).and_then(value)).collect();
                    (policy(run), values)
                })
                .collect()
        };
    let finite: Vec<&str> = names
        .iter()
        .filter(|(_, f)| *f)
        .map(|(n, _)| n.as_str())
        .collect();
    let _ = writeln!(
        h,
        "<p>{} flows ({}) under {} policies: each policy's MB/s per flow side by side{}. The table below the charts has every number.</p>",
        names.len(),
        esc(&names.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", ")),
        runs.len(),
        if finite.is_empty() {
            String::new()
        } else {
            format!(", and the time {} took", esc(&finite.join(", ")))
        }
    );
    if !finite.is_empty() {
        let rows = per_policy(&finite, &|f: &Flow| f.time_s());
        fig(
            h,
            &plots::bars(
                &format!(
                    "Start-up or completion time under each policy: {}",
                    first.scenario
                ),
                "seconds from the flow's start",
                &finite,
                &rows,
                "not finished",
            )?,
            "A policy without a bar: the flow did not finish within the run.",
        );
    }
    let drawn: Vec<&str> = names
        .iter()
        .take(plots::MAX_LINES)
        .map(|(n, _)| n.as_str())
        .collect();
    let rows = per_policy(&drawn, &|f: &Flow| Some(f.mb_s).filter(|v| v.is_finite()));
    fig(
        h,
        &plots::bars(
            &format!(
                "Each flow's throughput under each policy: {}",
                first.scenario
            ),
            "MB/s",
            &drawn,
            &rows,
            "no such flow",
        )?,
        &format!(
            "One group of bars per policy, one bar per flow, in the flows' colours of the key; \
             a flow without a bar in a group moved nothing under that policy (see the table).{}",
            more_of(drawn.len(), names.len())
        ),
    );
    // The table: a row per policy, the aggregate, each flow's MB/s, the
    // finite flows' times.
    h.push_str("<div class=\"wide\"><table>\n<tr><th class=\"l\">policy</th><th>total MB/s</th>");
    for n in &finite {
        let _ = write!(h, "<th>{} s</th>", esc(n));
    }
    for (n, _) in &names {
        let _ = write!(h, "<th>{} MB/s</th>", esc(n));
    }
    h.push_str("</tr>\n");
    for run in runs {
        let total: f64 = run
            .flows
            .iter()
            .map(|f| f.mb_s)
            .filter(|v| v.is_finite())
            .sum();
        let _ = write!(
            h,
            "<tr><td class=\"l\">{}</td><td>{}</td>",
            esc(&policy(run)),
            num(total, 2)
        );
        for n in &finite {
            let t = match find(run, n) {
                Some(f) => f.time_s().map_or("not finished".to_string(), |t| num(t, 2)),
                None => "-".to_string(),
            };
            let _ = write!(h, "<td>{t}</td>");
        }
        for (n, _) in &names {
            let v = find(run, n).map_or("-".to_string(), |f| num(f.mb_s, 2));
            let _ = write!(h, "<td>{v}</td>");
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table></div>\n");
    Ok(())
}

/// An experiment's notes split into what was run and what the paper
/// says: the part from the first sentence that starts "Paper" or "The
/// paper(s)" on is the paper's.
fn setup_and_claim(notes: &str) -> (&str, &str) {
    let starts = |k: usize| {
        let rest = &notes[k..];
        rest.starts_with("Paper") || rest.starts_with("The paper")
    };
    let at = (0..notes.len())
        .filter(|&k| notes.is_char_boundary(k))
        .find(|&k| starts(k) && (k == 0 || notes[..k].trim_end().ends_with('.')));
    match at {
        Some(k) => (notes[..k].trim(), notes[k..].trim()),
        None => (notes.trim(), ""),
    }
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
    let (setup, claim) = setup_and_claim(&e.notes);
    if !setup.is_empty() {
        let _ = writeln!(h, "<p><b>What was run.</b> {}</p>", esc(setup));
    }
    if !claim.is_empty() {
        // "Paper: ...", "Paper (§6.4): ...", "The paper reports ...": the
        // words naming the paper in bold.
        let (lead, rest) = match claim.strip_prefix("Paper") {
            Some(rest) => ("The paper", rest),
            None if claim.starts_with("The papers") => ("The papers", &claim[10..]),
            None if claim.starts_with("The paper") => ("The paper", &claim[9..]),
            None => ("", claim),
        };
        let _ = writeln!(h, "<p class=\"claim\"><b>{lead}</b>{}</p>", esc(rest));
    }
    // One chart per unit, every row of it; the paper's numbers beside
    // ours where it gives any.
    let mut units: Vec<String> = Vec::new();
    for r in &e.rows {
        if !units.contains(&r.unit) {
            units.push(r.unit.clone());
        }
    }
    // The unit the paper gives numbers in first.
    units.sort_by_key(|u| !e.rows.iter().any(|r| &r.unit == u && r.paper.is_some()));
    for unit in &units {
        let of_unit: Vec<&input::Row> = e
            .rows
            .iter()
            .filter(|r| &r.unit == unit && (r.ours.is_finite() || r.paper.is_some()))
            .collect();
        if of_unit.is_empty() {
            continue;
        }
        let with_paper = of_unit.iter().any(|r| r.paper.is_some());
        let rows: Vec<_> = of_unit
            .iter()
            .take(MAX_CHART_ROWS)
            .map(|r| {
                let mut values = vec![Some(r.ours).filter(|v| v.is_finite())];
                if with_paper {
                    values.push(r.paper);
                }
                (
                    format!("{} · {} · {}", r.scheduler, r.workload, r.metric),
                    values,
                )
            })
            .collect();
        let unit_name = if unit.is_empty() { "no unit" } else { unit };
        let note = if with_paper {
            "Ours in blue, the paper's in orange; a row without an orange bar: the paper gives no number for it."
        } else {
            "The paper gives no number for these rows: ours alone (the notes above say what it reports)."
        };
        fig(
            h,
            &plots::bars(
                &if with_paper {
                    format!("{} {}: ours against the paper ({unit_name})", e.paper, e.id)
                } else {
                    format!(
                        "{} {}: ours ({unit_name}; the paper gives no number)",
                        e.paper, e.id
                    )
                },
                unit_name,
                if with_paper {
                    &["ours", "paper"]
                } else {
                    &["ours"]
                },
                &rows,
                "no number",
            )?,
            &format!("{note}{}", more(rows.len(), of_unit.len(), "rows")),
        );
    }
    let notes = e.rows.iter().any(|r| r.note.is_some());
    let _ = writeln!(
        h,
        "<div class=\"wide\"><table>\n<tr><th class=\"l\">scheduler</th><th class=\"l\">workload</th><th class=\"l\">metric</th>\
<th>ours</th><th>paper</th><th class=\"l\">unit</th>{}</tr>",
        if notes { "<th class=\"l\">note</th>" } else { "" }
    );
    for r in &e.rows {
        let _ = write!(
            h,
            "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td class=\"l\">{}</td>",
            esc(&r.scheduler),
            esc(&r.workload),
            esc(&r.metric),
            num(r.ours, 2),
            r.paper.map_or("-".to_string(), |p| num(p, 2)),
            esc(&r.unit)
        );
        if notes {
            let _ = write!(
                h,
                "<td class=\"l\">{}</td>",
                esc(r.note.as_deref().unwrap_or(""))
            );
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table></div>\n");
    Ok(())
}
