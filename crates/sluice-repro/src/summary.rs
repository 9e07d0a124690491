//! The summary `repro` prints before its tables: per paper, each of its
//! claims ([`crate::claims`]: an order or a bound its text or figures
//! state) with ours beside it, whether it held and, where not, the
//! measured cause; then how many of our figures fall within a quarter of
//! the paper's.

use std::fmt::Write as _;

use crate::claims::Claim;
use crate::{ReproReport, Row};

/// Our figure is within 25% of the paper's.
fn close(r: &Row) -> Option<bool> {
    let p = r.paper.filter(|p| p.is_finite())?;
    Some(if p == 0.0 {
        r.ours.abs() < 1e-9
    } else {
        ((r.ours - p) / p).abs() <= 0.25
    })
}

/// The summary of `r`, a few lines per paper, drawn from its claims.
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
        "Summary: each claim the papers' text or figures make (an order or a bound), ours beside it; `--json` lists them under \"claims\"."
    );
    for p in papers {
        let cs: Vec<&Claim> = r
            .claims
            .iter()
            .filter(|c| crate::claims::paper_of(c, &r.experiments) == Some(p))
            .collect();
        let held = cs.iter().filter(|c| c.held).count();
        let near: Vec<bool> = r
            .experiments
            .iter()
            .filter(|e| e.paper == p)
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
        for c in cs {
            let _ = writeln!(o, "  {}", line(c));
            if let Some(why) = &c.why {
                let _ = writeln!(o, "            why: {why}");
            }
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
        "mqsim" => "MQSim (FAST'18)",
        other => other,
    }
}

/// `held      experiment: statement: ours (paper)`.
fn line(c: &Claim) -> String {
    format!(
        "{:<9} {}: {}: ours {} (paper {})",
        if c.held { "held" } else { "not held" },
        c.experiment,
        c.statement,
        c.ours,
        c.paper
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
    use crate::claims::tests::exp;

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

    #[test]
    fn the_summary_lists_each_claim_with_its_cause() {
        let e = exp(vec![
            row("bfq", "10r-seq", 80.0, Some(60.0)),
            row("cfq", "10r-seq", 50.0, Some(40.0)),
            row("noop", "10r-seq", 70.0, Some(20.0)),
            row("bfq", "10r-rand", 1.0, Some(2.0)),
            row("cfq", "10r-rand", 3.0, Some(1.0)),
        ]);
        let claims = crate::claims::order_claims(&e, &|_, _| Some("a measured cause"));
        let r = ReproReport {
            schema: crate::REPRO_SCHEMA,
            paper: "bfq".into(),
            experiments: vec![e],
            claims,
        };
        let s = summary(&r);
        assert!(s.contains("BFQ paper: 1 of 2 claims held"), "{s}");
        assert!(
            s.contains("held      throughput: aggregate (10r-seq): bfq above noop: ours bfq 80.0 > noop 70.0 MB/s (paper bfq 60.0 > noop 20.0 MB/s)"),
            "{s}"
        );
        assert!(
            s.contains("not held  throughput: aggregate (10r-rand): bfq above cfq"),
            "{s}"
        );
        assert!(s.contains("why: a measured cause"), "{s}");
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
}
