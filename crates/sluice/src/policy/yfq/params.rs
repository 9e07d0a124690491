//! `yfq`'s parameters: the table the reader, `sluice list` and the errors
//! use, and the typed form the policy runs with.

use crate::error::Error;
use crate::policy::params::{table_defaults, ParamReader, ParamSpec, ParamTable};

/// The parameter table of `yfq` (paper sections on [`YfqParams`]).
pub(crate) const PARAMS: ParamTable = ParamTable::new(&[
    ParamSpec::int("batch", 1, (1, 1024), "batch size b"),
    ParamSpec::bool(
        "overlap",
        false,
        "send the next batch when all but one request completed",
    ),
    ParamSpec::bool(
        "tie_break",
        false,
        "equal finish tags: least positioning cost first",
    ),
    ParamSpec::int(
        "group",
        1,
        (0, 1 << 20),
        "fragments of one origin issued n at a time; 0 = all",
    ),
    ParamSpec::int(
        "l_lat_kb",
        0,
        (0, 1 << 30),
        "l_lat in KiB, added to every request's length",
    ),
    ParamSpec::bool(
        "shared_fragment_tags",
        true,
        "fragments carry their request's finish tag",
    )
    .note("false: each fragment tagged as a request of its own, unmodified YFQ"),
    ParamSpec::int(
        "batch_turnaround_us",
        0,
        (0, 1_000_000),
        "host time from the completion that frees a batch to sending the next",
    )
    .note("us; 0 = none"),
    ParamSpec::choice(
        "charge",
        "sectors",
        &["sectors", "cost"],
        "sectors: a request's tags grow by its sectors (the paper's); cost: by the [cost] model's sector-equivalents, so a seek costs more than a sequential step",
    ),
]);

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
    /// The table's defaults.
    fn default() -> Self {
        table_defaults("yfq", Self::read)
    }
}

impl YfqParams {
    pub(crate) fn read(p: &mut ParamReader<'_>) -> Result<Self, Error> {
        let t = &PARAMS;
        Ok(YfqParams {
            batch: p.int(t, "batch")? as usize,
            overlap: p.bool(t, "overlap")?,
            tie_break: p.bool(t, "tie_break")?,
            group: p.int(t, "group")? as usize,
            l_lat_kb: p.int(t, "l_lat_kb")? as u64,
            shared_fragment_tags: p.bool(t, "shared_fragment_tags")?,
            batch_turnaround_us: p.int(t, "batch_turnaround_us")? as u64,
            charge_cost: p.choice(t, "charge")? == "cost",
        })
    }
}
