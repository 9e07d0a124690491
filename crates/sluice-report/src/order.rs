//! The page's "Service order" section: every request log's runs drawn as
//! panels stacked on one time axis (so that two schedulers' logs read one
//! above the other), each with a line of text under it giving the numbers
//! the picture shows: how long one flow keeps the disk, and how busy the
//! disk was.

use std::collections::HashMap;
use std::fmt::Write;

use super::lanes::{self, Axis, Lane};
use super::requests::{Log, Request};
use super::{esc, fig, plots, service};

/// Most runs of one log drawn, each as its own panel; the others are
/// counted in the text.
pub(crate) const MAX_RUN_PANELS: usize = 4;

/// Anchor of the section.
pub(crate) const ID: &str = "service-order";

/// One panel to draw: a run of a log and its lanes.
struct Panel<'a> {
    log: &'a Log,
    /// Which run of the log (0-based).
    run: usize,
    requests: &'a [Request],
    lanes: service::Lanes,
}

/// Write the section for `logs` (nothing when there are none).
pub(crate) fn section(h: &mut String, logs: &[Log]) {
    if logs.is_empty() {
        return;
    }
    let _ = writeln!(h, "<h2 id=\"{ID}\">Service order</h2>");
    h.push_str(
        "<p class=\"note\">One panel per request log (per run, for a log of several), all on the \
         same time axis. One lane per flow, short flows (start-ups, flows with few requests) on \
         top; each request is a bar from its dispatch to its completion, so a lane shows when its \
         flow held the disk, and a gap across every lane is the disk idle. Under each panel, the \
         runs of consecutive dispatches from one flow: long runs are a scheduler letting one \
         flow keep the disk.</p>\n",
    );
    let panels: Vec<Panel> = logs
        .iter()
        .flat_map(|log| {
            log.runs
                .iter()
                .take(MAX_RUN_PANELS)
                .enumerate()
                .map(move |(run, requests)| Panel {
                    log,
                    run,
                    requests,
                    lanes: service::lanes(requests, &log.flows),
                })
        })
        .collect();
    let axis = axis(&panels);
    // One colour per flow name on the whole page.
    let mut colours: HashMap<&str, usize> = HashMap::new();
    for p in &panels {
        if p.run == 0 {
            log_notes(h, p.log);
        }
        let mut lanes: Vec<Lane> = p
            .lanes
            .flows
            .iter()
            .map(|&f| {
                let name = p.log.flows.get(f as usize).map_or("", String::as_str);
                let next = colours.len();
                let colour = *colours.entry(name).or_insert(next);
                Lane {
                    label: name.to_string(),
                    color: plots::color(colour),
                    bars: Vec::new(),
                }
            })
            .collect();
        let slot: HashMap<u32, usize> = p
            .lanes
            .flows
            .iter()
            .enumerate()
            .map(|(i, &f)| (f, i))
            .collect();
        for r in p.requests {
            if let Some(&i) = slot.get(&r.flow) {
                lanes[i].bars.push((r.dispatched_ms, r.completed_ms));
            }
        }
        let title = if p.log.runs.len() > 1 {
            format!("{} (run {} of {})", p.log.name, p.run + 1, p.log.runs.len())
        } else {
            p.log.name.clone()
        };
        let (svg, merged) = lanes::panel(&title, &lanes, &axis);
        fig(h, &svg, &caption(p, merged));
    }
}

/// The time axis all panels share: from the run start (or any earlier
/// dispatch) to the last completion of any, with room for every label.
fn axis(panels: &[Panel]) -> Axis {
    let requests = panels.iter().flat_map(|p| p.requests.iter());
    let lo = requests
        .clone()
        .map(|r| r.dispatched_ms)
        .fold(0.0f64, f64::min);
    let hi = requests.map(|r| r.completed_ms).fold(lo, f64::max);
    let labels = panels.iter().flat_map(|p| {
        p.lanes
            .flows
            .iter()
            .map(|&f| p.log.flows.get(f as usize).map_or("", String::as_str))
    });
    Axis::new(lo, hi, labels)
}

/// What holds for a log as a whole: rows left out, runs not drawn.
fn log_notes(h: &mut String, log: &Log) {
    let mut notes = Vec::new();
    if log.bad_rows > 0 {
        notes.push(format!(
            "{} row{} could not be read and {} left out (the first: {}).",
            log.bad_rows,
            if log.bad_rows == 1 { "" } else { "s" },
            if log.bad_rows == 1 { "is" } else { "are" },
            log.first_bad.as_deref().unwrap_or("?")
        ));
    }
    let runs = log.runs.len();
    if runs > 1 {
        notes.push(if runs > MAX_RUN_PANELS {
            format!(
                "It holds {runs} runs (times restart near zero): the first {MAX_RUN_PANELS} are drawn, each as its own panel; {} more runs are not drawn.",
                runs - MAX_RUN_PANELS
            )
        } else {
            format!("It holds {runs} runs (times restart near zero), each drawn as its own panel.")
        });
    }
    if !notes.is_empty() {
        let _ = writeln!(
            h,
            "<p class=\"note\"><code>{}</code>: {}</p>",
            esc(&log.name),
            esc(&notes.join(" "))
        );
    }
}

/// The line under a panel.
fn caption(p: &Panel, merged: usize) -> String {
    let flows = p.lanes.flows.len() + p.lanes.not_drawn;
    let mut c = format!(
        "{} request{}, {} flow{}",
        p.requests.len(),
        if p.requests.len() == 1 { "" } else { "s" },
        flows,
        if flows == 1 { "" } else { "s" }
    );
    if p.lanes.not_drawn > 0 {
        let _ = write!(
            c,
            " ({} more flows not drawn: the {} drawn are start-ups and the busiest)",
            p.lanes.not_drawn,
            p.lanes.flows.len()
        );
    }
    c.push('.');
    if let Some(s) = service::streaks(p.requests) {
        let name = p
            .log
            .flows
            .get(s.longest_flow as usize)
            .map_or("", String::as_str);
        let _ = write!(
            c,
            " Consecutive dispatches from one flow: mean {:.1}, longest {} ({}).",
            s.mean, s.longest, name
        );
    }
    let busy = service::busy_share(p.requests);
    if busy.is_finite() {
        let _ = write!(
            c,
            " Disk busy {:.0}% of the time up to the last completion.",
            busy * 100.0
        );
    }
    if merged > 0 {
        let _ = write!(
            c,
            " {merged} lane{} of more than {} requests: bars under a pixel apart merged.",
            if merged == 1 { "" } else { "s" },
            lanes::MERGE_ABOVE
        );
    }
    c
}
