//! `yfq`'s parameters: the table the reader, `sluice list` and the errors
//! use, and the typed form the policy runs with.

use crate::error::Error;
use crate::policy::params::{declare_params, ParamReader, ParamTable};

declare_params! {
    /// YFQ's parameters by name (paper sections on [`YfqParams`]).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct YfqTunables {
        /// batch size b
        batch: usize = int(1, 1, 1024),
        /// send the next batch when all but one request completed
        overlap: bool = bool(false),
        /// equal finish tags: least positioning cost first
        tie_break: bool = bool(false),
        /// fragments of one origin issued n at a time; 0 = all
        group: usize = int(1, 0, 1 << 20),
        /// l_lat in KiB, added to every request's length
        l_lat_kb: u64 = int(0, 0, 1 << 30),
        /// fragments carry their request's finish tag
        shared_fragment_tags: bool = bool(true)
            note "false: each fragment tagged as a request of its own, unmodified YFQ",
        /// host time from the completion that frees a batch to sending the next
        batch_turnaround_us: u64 = int(0, 0, 1_000_000) note "us; 0 = none",
        /// sectors: a request's tags grow by its sectors (the paper's); cost: by the [cost] model's sector-equivalents, so a seek costs more than a sequential step
        charge: &'static str = choice("sectors", &["sectors", "cost"]),
    }
}

/// The parameter table of `yfq`.
pub(crate) const PARAMS: ParamTable = YfqTunables::TABLE;

/// YFQ's parameters (paper sections in brackets).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct YfqParams {
    /// Batch size `b` (§2, §3.2).
    pub batch: usize,
    /// Send the next batch when all but one request of the current one
    /// have completed (§3.2).
    pub overlap: bool,
    /// Among equal finish tags, take the least positioning cost (§3.3).
    pub tie_break: bool,
    /// Fragments of one origin issued `n` at a time; 0 = all (§3.4).
    pub group: usize,
    /// `l_lat` in KiB, added to every request's length (§3.5).
    pub l_lat_kb: u64,
    /// Every fragment of a request carries the whole request's finish tag,
    /// the paper's modification (§3.4); `false` tags each fragment as an
    /// independent request of its flow (unmodified YFQ, Fig. 7's baseline).
    pub shared_fragment_tags: bool,
    /// Host turnaround in µs: the time from the completion that lets the
    /// next batch go to that batch reaching the device (interrupt,
    /// completion and selection). 0 = none.
    pub batch_turnaround_us: u64,
    /// Tags grow by the cost model's charge instead of sectors
    /// (`charge = "cost"`; fragments tagged on their own keep sectors).
    pub charge_cost: bool,
}

impl Default for YfqParams {
    /// The declared defaults.
    fn default() -> Self {
        Self::from(YfqTunables::default())
    }
}

impl From<YfqTunables> for YfqParams {
    fn from(t: YfqTunables) -> Self {
        YfqParams {
            batch: t.batch,
            overlap: t.overlap,
            tie_break: t.tie_break,
            group: t.group,
            l_lat_kb: t.l_lat_kb,
            shared_fragment_tags: t.shared_fragment_tags,
            batch_turnaround_us: t.batch_turnaround_us,
            charge_cost: t.charge == "cost",
        }
    }
}

impl YfqParams {
    pub(crate) fn read(p: &mut ParamReader<'_>) -> Result<Self, Error> {
        YfqTunables::read(p).map(Self::from)
    }
}
