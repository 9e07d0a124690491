//! `[[group]]` tables: groups of flows to any depth, each with a weight,
//! optional reservation and limits, and the policy among its children
//! (see `sluice::policy::Hierarchy`).

use super::*;
use sluice::policy::{GroupConfig, MAX_DEPTH, MAX_GROUPS};

/// A `[[group]]` table as the file states it.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GroupBuilder {
    pub(crate) name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) parent: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) weight: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) reservation_iops: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) limit_iops: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) limit_mb_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) burst_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) scheduler: Option<String>,
}

impl GroupBuilder {
    /// A group directly under the root, weight 100, nothing else set.
    pub fn new(name: impl Into<String>) -> Self {
        GroupBuilder {
            name: name.into(),
            ..GroupBuilder::default()
        }
    }

    /// The enclosing group, by name (default: the root).
    pub fn parent(mut self, name: impl Into<String>) -> Self {
        self.parent = Some(name.into());
        self
    }

    /// The policy among the group's children (default: the scenario's).
    pub fn scheduler(mut self, name: impl Into<String>) -> Self {
        self.scheduler = Some(name.into());
        self
    }

    optional_keys! {
        /// The group's weight among its siblings, 1..=1000 (default 100).
        weight: u32;
        /// IOPS reserved for the whole group (read by an `mclock` parent).
        reservation_iops: f64;
        /// The most IOPS the whole group is served.
        limit_iops: f64;
        /// The most MB/s the whole group is served.
        limit_mb_s: f64;
        /// How far ahead of its limits the group may run after a pause, ms
        /// (default 100).
        burst_ms: f64;
    }
}

/// `weight`, checked: 1..=1000 (default 100).
pub(crate) fn weight_key(v: Option<u32>) -> Result<u32> {
    let weight = v.unwrap_or(100);
    if !(1..=1000).contains(&weight) {
        return Err(fail(format!("weight must be 1..=1000 (got {weight})")));
    }
    Ok(weight)
}

/// The QoS keys `[[flow]]` and `[[group]]` tables share, checked, under a
/// `weight` already checked by [`weight_key`] (each table reports a bad
/// weight before its other keys).
pub(crate) fn qos(
    weight: u32,
    reservation_iops: Option<f64>,
    limit_iops: Option<f64>,
    limit_mb_s: Option<f64>,
    burst_ms: Option<f64>,
) -> Result<sluice::Qos> {
    let qos = sluice::Qos {
        weight,
        reservation_iops: rate_key("reservation_iops", "IOPS", reservation_iops, 1e7)?,
        limit_iops: rate_key("limit_iops", "IOPS", limit_iops, 1e7)?,
        limit_mb_s: rate_key("limit_mb_s", "MB/s", limit_mb_s, 1e6)?,
        burst: burst_key(burst_ms)?,
    };
    reservation_within_limit(&qos)?;
    Ok(qos)
}

/// A reservation above the IOPS limit owes more than the limit allows:
/// refused under every policy (only `mclock` reads reservations, and it
/// would serve the limit).
fn reservation_within_limit(qos: &sluice::Qos) -> Result<()> {
    match (qos.reservation_iops, qos.limit_iops) {
        (Some(r), Some(l)) if r > l => Err(fail(format!(
            "reservation_iops ({}) is above limit_iops ({}): a reservation must not exceed the limit",
            sluice::short_number(r),
            sluice::short_number(l)
        ))),
        _ => Ok(()),
    }
}

/// A rate key: `None`, or a positive finite number up to `max`.
fn rate_key(key: &str, unit: &str, v: Option<f64>, max: f64) -> Result<Option<f64>> {
    match v {
        Some(x) if !(x.is_finite() && x > 0.0 && x <= max) => Err(fail(format!(
            "{key} must be a number of {unit} with 0 < x <= {max:e} (got {})",
            sluice::short_number(x)
        ))),
        v => Ok(v),
    }
}

/// `burst_ms`, checked: 0.001..=1e6 ms.
fn burst_key(v: Option<f64>) -> Result<Option<Duration>> {
    match v {
        None => Ok(None),
        Some(x) if x.is_finite() && (0.001..=1e6).contains(&x) => {
            Ok(Some(Duration::from_millis_f64(x)))
        }
        Some(x) => Err(fail(format!(
            "burst_ms must be a number of ms in 0.001..=1e6 (got {})",
            sluice::short_number(x)
        ))),
    }
}

/// The index of the group a key names, or an error listing the groups.
pub(crate) fn group_index(groups: &[GroupBuilder], name: &str, key: &str) -> Result<u32> {
    groups
        .iter()
        .position(|g| g.name == name)
        .map(|i| i as u32)
        .ok_or_else(|| {
            let names: Vec<_> = groups.iter().map(|g| g.name.as_str()).collect();
            fail(format!(
                "{key}: no [[group]] named '{name}' (defined: {})",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ))
        })
}

/// The `[[group]]` tables, checked, as the core takes them.
pub(crate) fn groups(raw: &[GroupBuilder], root: &str) -> Result<Vec<GroupConfig>> {
    if raw.len() > MAX_GROUPS {
        return Err(fail(format!(
            "{} [[group]] tables: at most {MAX_GROUPS}",
            raw.len()
        )));
    }
    let mut out = Vec::with_capacity(raw.len());
    for (i, g) in raw.iter().enumerate() {
        let ctx = |e: Error| fail(format!("[[group]] '{}': {e}", g.name));
        if raw[..i].iter().any(|h| h.name == g.name) {
            return Err(fail(format!("[[group]] '{}' is defined twice", g.name)));
        }
        let weight = weight_key(g.weight).map_err(ctx)?;
        let parent = match &g.parent {
            None => None,
            Some(p) => Some(group_index(raw, p, "parent").map_err(ctx)?),
        };
        let scheduler = match &g.scheduler {
            None => None,
            Some(name) if name == root => None,
            Some(name) => {
                sluice::policy::build(
                    name,
                    &Params::default(),
                    &sluice::policy::BuildContext::default(),
                )
                .map_err(|e| ctx(fail(format!("scheduler: {e}"))))?;
                Some((name.clone(), Params::default()))
            }
        };
        out.push(GroupConfig {
            qos: qos(
                weight,
                g.reservation_iops,
                g.limit_iops,
                g.limit_mb_s,
                g.burst_ms,
            )
            .map_err(ctx)?,
            name: g.name.clone(),
            parent,
            scheduler,
        });
    }
    // Parents form a tree no deeper than the core takes.
    for (i, g) in out.iter().enumerate() {
        let mut at = g.parent;
        let mut depth = 1;
        while let Some(p) = at {
            depth += 1;
            if p as usize == i || depth > MAX_DEPTH {
                return Err(fail(format!(
                    "[[group]] '{}': its parents form a cycle or nest deeper than {MAX_DEPTH} levels",
                    g.name
                )));
            }
            at = out[p as usize].parent;
        }
    }
    Ok(out)
}
