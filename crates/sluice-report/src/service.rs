//! What one run of a request log says about its scheduler, before any
//! drawing: which flows get a lane and in what order, how long one flow
//! keeps the disk (runs of consecutive dispatches), and how much of the
//! time the disk was busy at all.

use std::cmp::Ordering;

use super::requests::Request;

/// Most lanes a panel draws: beyond this a lane is too thin to read. The
/// busiest flows are drawn and the rest counted in the text.
pub(crate) const MAX_LANES: usize = 40;

/// A flow with at most this share of the busiest flow's requests is a
/// short one (a start-up, a one-off burst): drawn on top, where a reader
/// looks first, since what a scheduler does to it is usually the point.
const SHORT_SHARE: f64 = 0.05;

/// Which flows a panel draws, top lane first.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Lanes {
    /// Flow indices (into the log's names), top first.
    pub flows: Vec<u32>,
    /// Flows of the run left out (beyond [`MAX_LANES`]).
    pub not_drawn: usize,
}

/// Runs of consecutive dispatches from one flow, in dispatch order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Streaks {
    /// Requests per run, on average.
    pub mean: f64,
    /// The longest run's length and its flow.
    pub longest: usize,
    pub longest_flow: u32,
}

/// Whether a flow's name says it is an application starting (the
/// start-up traces sluice ships, or the word itself).
pub(crate) fn startup_like(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.contains("startup")
        || n.contains("start-up")
        || sluice_workload::startup::EMBEDDED
            .iter()
            .any(|(app, _)| n.contains(app))
}

/// The lanes of `run` (flow names `names`): short flows (start-up-like
/// names, or few requests) first in the order they started, then the
/// others by name (`r2` before `r10`). With more than [`MAX_LANES`]
/// flows, start-up-like ones and then the busiest are kept.
pub(crate) fn lanes(run: &[Request], names: &[String]) -> Lanes {
    let mut count = vec![0usize; names.len()];
    let mut first = vec![f64::INFINITY; names.len()];
    for r in run {
        if let Some(c) = count.get_mut(r.flow as usize) {
            *c += 1;
            first[r.flow as usize] = first[r.flow as usize].min(r.dispatched_ms);
        }
    }
    let name = |f: u32| names.get(f as usize).map_or("", String::as_str);
    let mut present: Vec<u32> = (0..names.len() as u32)
        .filter(|&f| count[f as usize] > 0)
        .collect();
    let total = present.len();
    if total > MAX_LANES {
        present.sort_by(|&a, &b| {
            startup_like(name(b))
                .cmp(&startup_like(name(a)))
                .then(count[b as usize].cmp(&count[a as usize]))
                .then_with(|| natural(name(a), name(b)))
        });
        present.truncate(MAX_LANES);
    }
    let most = present
        .iter()
        .map(|&f| count[f as usize])
        .max()
        .unwrap_or(0);
    let short =
        |f: u32| startup_like(name(f)) || (count[f as usize] as f64) <= SHORT_SHARE * most as f64;
    present.sort_by(|&a, &b| match (short(a), short(b)) {
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (true, true) => first[a as usize]
            .total_cmp(&first[b as usize])
            .then_with(|| natural(name(a), name(b))),
        (false, false) => natural(name(a), name(b)),
    });
    Lanes {
        not_drawn: total - present.len(),
        flows: present,
    }
}

/// Compare names as a person sorts them: runs of digits by their value.
pub(crate) fn natural(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (a, b);
    loop {
        let (Some(ca), Some(cb)) = (a.chars().next(), b.chars().next()) else {
            return a.len().cmp(&b.len());
        };
        if ca.is_ascii_digit() && cb.is_ascii_digit() {
            let da = a.find(|c: char| !c.is_ascii_digit()).unwrap_or(a.len());
            let db = b.find(|c: char| !c.is_ascii_digit()).unwrap_or(b.len());
            let (na, nb) = (
                a[..da].trim_start_matches('0'),
                b[..db].trim_start_matches('0'),
            );
            let o = na.len().cmp(&nb.len()).then_with(|| na.cmp(nb));
            if o != Ordering::Equal {
                return o;
            }
            (a, b) = (&a[da..], &b[db..]);
        } else {
            if ca != cb {
                return ca.cmp(&cb);
            }
            (a, b) = (&a[ca.len_utf8()..], &b[cb.len_utf8()..]);
        }
    }
}

/// The runs of consecutive dispatches from one flow in `run`, ordered by
/// dispatch time (ties in file order). A scheduler that lets a flow hold
/// the disk (a budget, an idling window) shows long runs; one that
/// interleaves flows, runs near 1. `None` for no requests.
pub(crate) fn streaks(run: &[Request]) -> Option<Streaks> {
    let mut order: Vec<&Request> = run.iter().collect();
    order.sort_by(|a, b| a.dispatched_ms.total_cmp(&b.dispatched_ms));
    let mut runs = 0usize;
    let (mut longest, mut longest_flow) = (0usize, 0u32);
    let mut i = 0;
    while i < order.len() {
        let flow = order[i].flow;
        let len = order[i..].iter().take_while(|r| r.flow == flow).count();
        runs += 1;
        if len > longest {
            (longest, longest_flow) = (len, flow);
        }
        i += len;
    }
    (runs > 0).then(|| Streaks {
        mean: order.len() as f64 / runs as f64,
        longest,
        longest_flow,
    })
}

/// The share of the time from the run's start (0, or its first dispatch
/// if earlier) to its last completion in which some request was on the
/// device: the gaps are idling (or nothing to do).
pub(crate) fn busy_share(run: &[Request]) -> f64 {
    let mut spans: Vec<(f64, f64)> = run
        .iter()
        .map(|r| (r.dispatched_ms, r.completed_ms))
        .collect();
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    let start = spans.first().map_or(0.0, |s| s.0.min(0.0));
    let (mut busy, mut end) = (0.0, f64::NEG_INFINITY);
    for (d, c) in spans {
        let d = d.max(end);
        if c > d {
            busy += c - d;
            end = c;
        }
    }
    let span = end - start;
    if span > 0.0 {
        busy / span
    } else {
        f64::NAN
    }
}
