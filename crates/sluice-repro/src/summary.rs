//! The summary `repro` prints before its tables: per paper, each claim the
//! paper's numbers make about an order (which of two set-ups does better
//! on one workload and metric), with ours beside it and whether it held;
//! then how many of our figures fall within a quarter of the paper's.
//!
//! A claim is read off the rows, not written by hand: in each experiment,
//! for each workload and metric where the paper gives a number for two or
//! more set-ups, the paper's highest against its lowest, if the highest is
//! over 10% above the lowest. It holds when our two figures are in the
//! same order.

use std::fmt::Write as _;

use crate::{Experiment, ReproReport, Row};

/// One claim: the paper's order of two rows, and ours.
#[derive(Clone, Debug, PartialEq)]
pub struct Claim<'a> {
    /// The experiment it comes from.
    pub experiment: &'a Experiment,
    /// The row the paper gives the higher number.
    pub high: &'a Row,
    /// The row the paper gives the lower number.
    pub low: &'a Row,
}

impl Claim<'_> {
    /// Our figures are in the paper's order.
    pub fn held(&self) -> bool {
        self.high.ours > self.low.ours
    }
}

/// The claims of `e`, in the order of its rows.
pub fn claims(e: &Experiment) -> Vec<Claim<'_>> {
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
        .filter_map(|(_, _, rows)| {
            let high = *rows.iter().max_by(|a, b| paper(a).total_cmp(&paper(b)))?;
            let low = *rows.iter().min_by(|a, b| paper(a).total_cmp(&paper(b)))?;
            // Figures within 10% of each other are no claim of an order.
            (paper(high) > 1.1 * paper(low)).then_some(Claim {
                experiment: e,
                high,
                low,
            })
        })
        .collect()
}

/// Our figure is within 25% of the paper's.
fn close(r: &Row) -> Option<bool> {
    let p = r.paper.filter(|p| p.is_finite())?;
    Some(if p == 0.0 {
        r.ours.abs() < 1e-9
    } else {
        ((r.ours - p) / p).abs() <= 0.25
    })
}

/// The summary of `r`, a few lines per paper.
pub fn summary(r: &ReproReport) -> String {
    let mut o = String::new();
    let mut papers: Vec<&str> = Vec::new();
    for e in &r.experiments {
        if !papers.contains(&e.paper.as_str()) {
            papers.push(&e.paper);
        }
    }
    let _ = writeln!(
        o,
        "Summary: each claim the paper's numbers make about an order (its higher vs its lower figure on one workload and metric), ours beside it."
    );
    for p in papers {
        let exps: Vec<&Experiment> = r.experiments.iter().filter(|e| e.paper == p).collect();
        let cs: Vec<Claim> = exps.iter().flat_map(|e| claims(e)).collect();
        let held = cs.iter().filter(|c| c.held()).count();
        let near: Vec<bool> = exps
            .iter()
            .flat_map(|e| e.rows.iter().filter_map(close))
            .collect();
        let _ = writeln!(
            o,
            "\n{} paper: {held} of {} claims held; {} of {} figures within 25% of the paper's",
            paper_name(p),
            cs.len(),
            near.iter().filter(|&&x| x).count(),
            near.len()
        );
        for c in &cs {
            let _ = writeln!(o, "  {}", line(c));
        }
    }
    if let Some(legend) = workload_legend(r) {
        let _ = writeln!(o, "\n{legend}");
    }
    o
}

/// The paper's name as the summary gives it.
fn paper_name(p: &str) -> &str {
    match p {
        "bfq" => "BFQ",
        "yfq" => "YFQ",
        "vios" => "VIOS",
        "dor" => "Nam-Park (DOR)",
        other => other,
    }
}

/// `held     id workload metric: A x > B y (paper A x' > B y')`.
fn line(c: &Claim) -> String {
    let num = |x: f64| {
        if x.abs() >= 100.0 {
            format!("{x:.0}")
        } else if x.abs() >= 10.0 {
            format!("{x:.1}")
        } else {
            format!("{x:.2}")
        }
    };
    let (h, l) = (c.high, c.low);
    let rel = if h.ours > l.ours {
        ">"
    } else if h.ours < l.ours {
        "<"
    } else {
        "="
    };
    format!(
        "{:<9} {} {} {} ({}): {} {} {rel} {} {} (paper {} {} > {} {})",
        if c.held() { "held" } else { "not held" },
        c.experiment.id,
        h.workload,
        h.metric,
        h.unit,
        h.scheduler,
        num(h.ours),
        l.scheduler,
        num(l.ours),
        h.scheduler,
        num(h.paper.unwrap_or(f64::NAN)),
        l.scheduler,
        num(l.paper.unwrap_or(f64::NAN)),
    )
}

/// One line explaining the workload codes the report uses (`10r-seq`,
/// `5r5w-rand`), or None when it uses none.
fn workload_legend(r: &ReproReport) -> Option<String> {
    let coded = r
        .experiments
        .iter()
        .flat_map(|e| &e.rows)
        .any(|row| row.workload.split([' ', '/', ',']).any(is_code));
    coded.then(|| {
        "Workload codes: NrMw-seq / NrMw-rand = N readers and M writers (greedy, one request at a time), \
         sequential or random; e.g. 10r-seq = ten sequential readers, 5r5w-rand = five random readers and \
         five random writers."
            .to_string()
    })
}

/// `10r-seq`, `5r5w-rand`, `1w-seq`: counts of readers and writers, then
/// the access pattern.
fn is_code(w: &str) -> bool {
    let Some((counts, pattern)) = w.split_once('-') else {
        return false;
    };
    if !pattern.starts_with("seq") && !pattern.starts_with("rand") {
        return false;
    }
    let mut rest = counts;
    let mut any = false;
    for kind in ['r', 'w'] {
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 && rest[digits..].starts_with(kind) {
            rest = &rest[digits + 1..];
            any = true;
        }
    }
    any && rest.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(s: &str, w: &str, ours: f64, paper: Option<f64>) -> Row {
        Row {
            scheduler: s.into(),
            workload: w.into(),
            metric: "aggregate".into(),
            unit: "MB/s".into(),
            ours,
            paper,
            note: None,
        }
    }

    fn exp(rows: Vec<Row>) -> Experiment {
        Experiment {
            paper: "bfq".into(),
            id: "throughput".into(),
            title: "t".into(),
            notes: String::new(),
            rows,
        }
    }

    #[test]
    fn a_claim_is_the_papers_highest_against_its_lowest_and_holds_in_our_order() {
        let e = exp(vec![
            row("bfq", "10r-seq", 80.0, Some(60.0)),
            row("cfq", "10r-seq", 50.0, Some(40.0)),
            row("noop", "10r-seq", 70.0, Some(20.0)),
            row("bfq", "10r-rand", 1.0, Some(2.0)),
            row("cfq", "10r-rand", 3.0, Some(1.0)),
            row("bfq", "1r-seq", 9.0, None),
        ]);
        let cs = claims(&e);
        assert_eq!(cs.len(), 2, "one per workload with two paper numbers");
        assert_eq!(
            (cs[0].high.scheduler.as_str(), cs[0].low.scheduler.as_str()),
            ("bfq", "noop")
        );
        assert!(cs[0].held());
        assert!(!cs[1].held(), "ours 1 < 3 where the paper has 2 > 1");
        let r = ReproReport {
            schema: crate::REPRO_SCHEMA,
            paper: "bfq".into(),
            experiments: vec![e],
        };
        let s = summary(&r);
        assert!(s.contains("BFQ paper: 1 of 2 claims held"), "{s}");
        assert!(s.contains("held      throughput 10r-seq aggregate (MB/s): bfq 80.0 > noop 70.0 (paper bfq 60.0 > noop 20.0)"), "{s}");
        assert!(s.contains("not held  throughput 10r-rand"), "{s}");
        // 80/60, 50/40, 70/20, 1/2, 3/1: only 50 vs 40 is within 25%.
        assert!(s.contains("1 of 5 figures within 25%"), "{s}");
        assert!(s.contains("Workload codes"), "{s}");
    }

    #[test]
    fn workload_codes_are_recognised() {
        for w in ["10r-seq", "5r5w-rand", "1w-seq", "2r-rand"] {
            assert!(is_code(w), "{w}");
        }
        for w in ["xterm", "r-seq", "10x-seq", "10r-foo", "10r5w"] {
            assert!(!is_code(w), "{w}");
        }
    }

    #[test]
    fn equal_or_close_paper_numbers_make_no_claim() {
        let e = exp(vec![
            row("a", "w", 1.0, Some(5.0)),
            row("b", "w", 2.0, Some(5.0)),
        ]);
        assert!(claims(&e).is_empty());
        let e = exp(vec![
            row("a", "w", 1.0, Some(4.0)),
            row("b", "w", 2.0, Some(3.96)),
        ]);
        assert!(claims(&e).is_empty(), "1% apart is no claim");
    }
}
