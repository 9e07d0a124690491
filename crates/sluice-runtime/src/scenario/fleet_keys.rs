//! The `[fleet]` table of a scenario file: the keys `sluice fleet` reads
//! (what it does with them: `crate::fleet`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The `[fleet]` table.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FleetKeys {
    /// The trace: a path, relative to the scenario's folder.
    pub(crate) trace: String,
    /// Its format (as a trace flow's `format`).
    pub(crate) format: String,
    /// How many nodes.
    pub(crate) nodes: u32,
    /// `hash` (the default), `round-robin` or `given`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) placement: Option<String>,
    /// With `placement = "given"`: each volume's node, 0-based.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) given: Option<BTreeMap<String, u32>>,
    /// As a trace flow's `offsets` (default `wrap`: a volume's addresses
    /// folded into its share of the node's device).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) offsets: Option<String>,
    /// As a trace flow's `timing` (default `recorded`: each request at its
    /// recorded time, whatever the node does).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) timing: Option<String>,
    /// As a trace flow's `outstanding` (with `timing = "afap"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) outstanding: Option<u32>,
    /// As a trace flow's `from_s`, `to_s` and `speed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) from_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) to_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) speed: Option<f64>,
    /// Every volume's `weight`, `reservation_iops` and `limit_iops`, as a
    /// flow's (mclock's reservations, a policy's weights).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) weight: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reservation_iops: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) limit_iops: Option<f64>,
}
