//! The papers' claims, machine-readable: each order or bound a paper's
//! text or figures state, our figure beside the paper's, whether it held,
//! and for a claim not held the measured cause (`"claims"` of the JSON;
//! the printed summary is drawn from them).
//!
//! Two sources: the claims each paper's module states by hand from its
//! text (a bound, an order across workloads, a range of a table), and
//! the orders read off the rows wherever the paper gives numbers for two
//! or more set-ups of one workload and metric ([`order_claims`]).

use serde::{Deserialize, Serialize};

use crate::{Experiment, Row};

/// One claim of a paper, ours beside it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Claim {
    /// The experiment (its id) the claim is checked on.
    pub experiment: String,
    /// What the paper states, in one sentence.
    pub statement: String,
    /// Our figures, as the statement compares them.
    pub ours: String,
    /// The paper's figures or words, where it gives them.
    pub paper: String,
    /// Our figures agree with the statement.
    pub held: bool,
    /// For a claim not held: the measured cause, in one sentence; null for
    /// a claim held.
    pub why: Option<String>,
}

/// The rows of one paper's experiments, looked up by key.
pub(crate) struct Figures<'a>(pub &'a [Experiment]);

impl<'a> Figures<'a> {
    /// Our value of the row (experiment, scheduler, workload, metric).
    pub(crate) fn get(&self, exp: &str, sched: &str, workload: &str, metric: &str) -> Option<f64> {
        self.row(exp, sched, workload, metric).map(|r| r.ours)
    }

    /// The row (experiment, scheduler, workload, metric).
    pub(crate) fn row(
        &self,
        exp: &str,
        sched: &str,
        workload: &str,
        metric: &str,
    ) -> Option<&'a Row> {
        self.rows(exp)
            .find(|r| r.scheduler == sched && r.workload == workload && r.metric == metric)
    }

    /// Every row of experiment `exp`.
    pub(crate) fn rows(&self, exp: &str) -> impl Iterator<Item = &'a Row> + 'a {
        let id = exp.to_string();
        self.0
            .iter()
            .filter(move |e| e.id == id)
            .flat_map(|e| e.rows.iter())
    }

    /// Whether experiment `exp` ran.
    pub(crate) fn has(&self, exp: &str) -> bool {
        self.0.iter().any(|e| e.id == exp)
    }
}

/// A claim checked by hand. `cause` is the measured cause recorded for the
/// case it does not hold; a claim not held without one says so.
pub(crate) fn claim(
    experiment: &str,
    statement: &str,
    paper: &str,
    ours: String,
    held: bool,
    cause: Option<&str>,
) -> Claim {
    Claim {
        experiment: experiment.into(),
        statement: statement.into(),
        ours,
        paper: paper.into(),
        held,
        why: (!held).then(|| why_not(cause)),
    }
}

/// The cause of a claim not held, or a plain statement that none was
/// measured for this case.
fn why_not(cause: Option<&str>) -> String {
    cause.map_or_else(
        || "not held in this run, and no cause has been measured for this case yet".into(),
        str::to_string,
    )
}

/// A number as the claims print it: three significant figures or so.
pub(crate) fn num(x: f64) -> String {
    if !x.is_finite() {
        format!("{x}")
    } else if x.abs() >= 100.0 {
        format!("{x:.0}")
    } else if x.abs() >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// The orders the paper's numbers make, read off the rows of `e`: for each
/// workload and metric with paper numbers for two or more set-ups, the
/// paper's highest against its lowest if the highest is over 10% above the
/// lowest; held when ours are in the same order. `cause` gives the
/// measured cause of one not held, by (workload, metric).
pub(crate) fn order_claims(
    e: &Experiment,
    cause: &dyn Fn(&str, &str) -> Option<&'static str>,
) -> Vec<Claim> {
    let mut groups: Vec<(&str, &str, Vec<&Row>)> = Vec::new();
    for r in e
        .rows
        .iter()
        .filter(|r| r.paper.is_some_and(f64::is_finite))
    {
        match groups
            .iter_mut()
            .find(|g| g.0 == r.workload && g.1 == r.metric)
        {
            Some(g) => g.2.push(r),
            None => groups.push((&r.workload, &r.metric, vec![r])),
        }
    }
    let paper = |r: &Row| r.paper.unwrap_or(f64::NAN);
    groups
        .into_iter()
        .filter_map(|(w, m, rows)| {
            let high = *rows.iter().max_by(|a, b| paper(a).total_cmp(&paper(b)))?;
            let low = *rows.iter().min_by(|a, b| paper(a).total_cmp(&paper(b)))?;
            // Figures within 10% of each other are no claim of an order.
            if paper(high) <= 1.1 * paper(low) {
                return None;
            }
            let rel = if high.ours > low.ours {
                ">"
            } else if high.ours < low.ours {
                "<"
            } else {
                "="
            };
            Some(claim(
                &e.id,
                &format!("{m} ({w}): {} above {}", high.scheduler, low.scheduler),
                &format!(
                    "{} {} > {} {} {}",
                    high.scheduler,
                    num(paper(high)),
                    low.scheduler,
                    num(paper(low)),
                    high.unit
                ),
                format!(
                    "{} {} {rel} {} {} {}",
                    high.scheduler,
                    num(high.ours),
                    low.scheduler,
                    num(low.ours),
                    high.unit
                ),
                high.ours > low.ours,
                cause(w, m),
            ))
        })
        .collect()
}

/// A paper's claims: `stated`, then the orders its numbers make in
/// `exps`, with `cause(experiment, workload, metric)` the measured cause of
/// one not held.
pub(crate) fn with_orders(
    mut stated: Vec<Claim>,
    exps: &[Experiment],
    cause: &dyn Fn(&str, &str, &str) -> Option<&'static str>,
) -> Vec<Claim> {
    stated.extend(
        exps.iter()
            .flat_map(|e| order_claims(e, &|w, m| cause(&e.id, w, m))),
    );
    stated
}

/// The paper a claim's experiment belongs to, by the experiments it came
/// from.
pub(crate) fn paper_of<'a>(c: &Claim, experiments: &'a [Experiment]) -> Option<&'a str> {
    experiments
        .iter()
        .find(|e| e.id == c.experiment)
        .map(|e| e.paper.as_str())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::row;

    /// An experiment of the BFQ paper's throughput with these rows.
    pub(crate) fn exp(rows: Vec<Row>) -> Experiment {
        Experiment {
            paper: "bfq".into(),
            id: "throughput".into(),
            title: "t".into(),
            notes: String::new(),
            rows,
        }
    }

    #[test]
    fn an_order_claim_is_the_papers_highest_against_its_lowest() {
        let e = exp(vec![
            row("bfq", "10r-seq", "aggregate", "MB/s", 80.0, Some(60.0)),
            row("cfq", "10r-seq", "aggregate", "MB/s", 50.0, Some(40.0)),
            row("noop", "10r-seq", "aggregate", "MB/s", 70.0, Some(20.0)),
            row("bfq", "10r-rand", "aggregate", "MB/s", 1.0, Some(2.0)),
            row("cfq", "10r-rand", "aggregate", "MB/s", 3.0, Some(1.0)),
            row("bfq", "1r-seq", "aggregate", "MB/s", 9.0, None),
        ]);
        let cs = order_claims(&e, &|w, _| (w == "10r-rand").then_some("the cause"));
        assert_eq!(cs.len(), 2, "one per workload with two paper numbers");
        assert!(cs[0].held && cs[0].why.is_none());
        assert_eq!(cs[0].ours, "bfq 80.0 > noop 70.0 MB/s");
        assert_eq!(cs[0].paper, "bfq 60.0 > noop 20.0 MB/s");
        assert!(!cs[1].held, "ours 1 < 3 where the paper has 2 > 1");
        assert_eq!(cs[1].why.as_deref(), Some("the cause"));
    }

    #[test]
    fn close_paper_numbers_make_no_order_claim() {
        let e = exp(vec![
            row("a", "w", "m", "s", 1.0, Some(4.0)),
            row("b", "w", "m", "s", 2.0, Some(3.96)),
        ]);
        assert!(order_claims(&e, &|_, _| None).is_empty());
    }

    #[test]
    fn a_claim_not_held_always_says_why() {
        let c = claim("x", "s", "p", "o".into(), false, None);
        assert!(c.why.as_deref().is_some_and(|w| w.contains("no cause")));
        let c = claim("x", "s", "p", "o".into(), true, Some("c"));
        assert_eq!(c.why, None, "a claim held has no cause");
    }
}
