//! MQSim's figures, the `paper` column of the `noop` rows: the `rows` of
//! `mqsim-results.json`, already in `repro mqsim`'s layout.

use std::collections::HashMap;

use serde::Deserialize;
use sluice_runtime::{Error, Result};

/// A row of `mqsim-results.json`.
#[derive(Deserialize)]
struct PaperRow {
    experiment: String,
    scheduler: String,
    workload: String,
    metric: String,
    paper: f64,
}

#[derive(Deserialize)]
struct Results {
    rows: Vec<PaperRow>,
}

/// MQSim's figure by (experiment, scheduler, workload, metric).
pub(crate) struct Paper(HashMap<(String, String, String, String), f64>);

impl Paper {
    /// The figures of a `mqsim-results.json` text (`file` names it in
    /// errors); a row given twice is refused.
    pub(crate) fn parse(file: &str, text: &str) -> Result<Paper> {
        let results: Results = serde_json::from_str(text)
            .map_err(|e| Error::new(file, format!("line {}: {e}", e.line())))?;
        let mut map = HashMap::new();
        for r in results.rows {
            let key = (r.experiment, r.scheduler, r.workload, r.metric);
            if map.insert(key.clone(), r.paper).is_some() {
                return Err(Error::new(
                    file,
                    format!("row {} {} {} {} given twice", key.0, key.1, key.2, key.3),
                ));
            }
        }
        Ok(Paper(map))
    }

    /// MQSim's figure for a row, if it gives one.
    pub(crate) fn get(&self, exp: &str, sched: &str, workload: &str, metric: &str) -> Option<f64> {
        let key = (exp.into(), sched.into(), workload.into(), metric.into());
        self.0.get(&key).copied()
    }

    /// How many figures there are.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }
}
