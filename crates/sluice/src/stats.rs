//! What policies count, typed: one struct per policy that counts, named
//! by the keys reports print (`policy_stats` in the JSON).

/// A policy's counters ([`crate::Scheduler::stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(untagged))]
#[non_exhaustive]
pub enum PolicyStats {
    /// The policy counts nothing.
    #[default]
    None,
    /// `dor`'s.
    Dor(DorStats),
    /// `yfq`'s.
    Yfq(YfqStats),
    /// `vios`', `vios-p`'s and `fq-rr`'s.
    Vios(ViosStats),
    /// `mclock`'s.
    Mclock(MclockStats),
    /// `seastar-fq`'s.
    SeastarFq(SeastarFqStats),
}

/// Nam–Park BQS+DOR.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct DorStats {
    /// Requests of the base sequence.
    pub bqs_requests: u64,
    /// Requests DOR inserted into it.
    pub dor_requests: u64,
    /// Sequences formed.
    pub sequences: u64,
    /// Mean length of the expanded sequence (the paper's Fig. 4).
    pub mean_sequence_len: f64,
    /// Gaps the walk left empty though a queued request passed Property 1.
    pub dqe_refusals: u64,
}

/// YFQ.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct YfqStats {
    /// Batches formed.
    pub batches: u64,
    /// Their mean length.
    pub mean_batch_len: f64,
    /// Host turnarounds waited; `None` when none is configured.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub turnarounds: Option<u64>,
}

/// VIOS's rounds and how its classes' turns ended.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ViosStats {
    /// Rounds over the classes.
    pub rounds: u64,
    /// Turns that ended because the class's charged time reached its
    /// allotment.
    pub turns_quantum: u64,
    /// Turns that ended because the class had nothing more to send.
    pub turns_emptied: u64,
    /// Turns that ended because (VIOS(P)) its sector budget was used up.
    pub turns_budget: u64,
}

/// mClock: dispatches by the phase that chose them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct MclockStats {
    /// Chosen by reservation tags.
    pub reservation_dispatches: u64,
    /// Chosen by weight among flows under their limits.
    pub weight_dispatches: u64,
    /// Chosen by weight from flows over their limits (`at_limit = allow`).
    pub over_limit_dispatches: u64,
}

/// Seastar's fair queue.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SeastarFqStats {
    /// Waits for the capacity token bucket.
    pub throttled_waits: u64,
    /// Flows that became backlogged from idle (their accumulated cost
    /// raised to the window's floor).
    pub activations: u64,
}

impl PolicyStats {
    /// Each counter by its report key, sorted by key: the `policy_stats`
    /// map of a real host's report.
    pub fn by_key(&self) -> std::collections::BTreeMap<String, f64> {
        self.entries()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect()
    }

    /// Each counter by its report key, in the policy's order: what a
    /// report's `policy_stats` holds (counts as numbers).
    pub fn entries(&self) -> Vec<(&'static str, f64)> {
        match *self {
            PolicyStats::None => Vec::new(),
            PolicyStats::Dor(s) => vec![
                ("bqs_requests", s.bqs_requests as f64),
                ("dor_requests", s.dor_requests as f64),
                ("sequences", s.sequences as f64),
                ("mean_sequence_len", s.mean_sequence_len),
                ("dqe_refusals", s.dqe_refusals as f64),
            ],
            PolicyStats::Yfq(s) => {
                let mut v = vec![
                    ("batches", s.batches as f64),
                    ("mean_batch_len", s.mean_batch_len),
                ];
                if let Some(t) = s.turnarounds {
                    v.push(("turnarounds", t as f64));
                }
                v
            }
            PolicyStats::Vios(s) => vec![
                ("rounds", s.rounds as f64),
                ("turns_quantum", s.turns_quantum as f64),
                ("turns_emptied", s.turns_emptied as f64),
                ("turns_budget", s.turns_budget as f64),
            ],
            PolicyStats::Mclock(s) => vec![
                ("reservation_dispatches", s.reservation_dispatches as f64),
                ("weight_dispatches", s.weight_dispatches as f64),
                ("over_limit_dispatches", s.over_limit_dispatches as f64),
            ],
            PolicyStats::SeastarFq(s) => vec![
                ("throttled_waits", s.throttled_waits as f64),
                ("activations", s.activations as f64),
            ],
        }
    }

    /// The counter named `key`, if the policy keeps one.
    pub fn get(&self, key: &str) -> Option<f64> {
        self.entries()
            .into_iter()
            .find_map(|(k, v)| (k == key).then_some(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keys are the struct fields' names (what a serde derive writes).
    #[test]
    fn entries_are_named_as_the_fields() {
        let dor = PolicyStats::Dor(DorStats {
            dor_requests: 3,
            mean_sequence_len: 2.5,
            ..DorStats::default()
        });
        assert_eq!(dor.get("dor_requests"), Some(3.0));
        assert_eq!(dor.get("mean_sequence_len"), Some(2.5));
        let yfq = PolicyStats::Yfq(YfqStats::default());
        assert_eq!(yfq.get("turnarounds"), None, "no turnaround configured");
        assert!(PolicyStats::None.entries().is_empty());
    }
}
