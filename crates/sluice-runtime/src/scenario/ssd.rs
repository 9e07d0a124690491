//! A flow's `ssd` table: what MQSim sets per flow on a flash device
//! (`[device] mqsim = "ssdconfig.xml"`): its submission queue's priority,
//! its caching mode, the flash resources its pages go to and its initial
//! occupancy. Each key is optional; a flow without the table (or past the
//! flows that have one) takes [`StreamSpec::default`].

use serde::{Deserialize, Serialize};
use sluice_device::flash::{StreamCaching, StreamPriority, StreamSpec};
use sluice_device::mqsim::SsdConfig;

use super::location::value_names;
use super::{fail, Result};

/// The `ssd` table of a `[[flow]]`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SsdKeys {
    /// `urgent`, `high` (the default), `medium` or `low`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<String>,
    /// `write-cache` (the default), `read-cache`, `write-read-cache` or
    /// `off`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caching: Option<String>,
    /// Channel numbers (default: all).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channels: Option<Vec<u32>>,
    /// Chip numbers on each channel (default: all).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chips: Option<Vec<u32>>,
    /// Die numbers on each chip (default: all).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dies: Option<Vec<u32>>,
    /// Plane numbers on each die (default: all).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub planes: Option<Vec<u32>>,
    /// Share of the flow's logical space written before the run, 0..=1
    /// (default 0; used only with preconditioning).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_occupancy: Option<f64>,
}

/// Priorities by their scenario names.
pub const PRIORITIES: [(&str, StreamPriority); 4] = [
    ("urgent", StreamPriority::Urgent),
    ("high", StreamPriority::High),
    ("medium", StreamPriority::Medium),
    ("low", StreamPriority::Low),
];

/// Caching modes by their scenario names.
pub const CACHING: [(&str, StreamCaching); 4] = [
    ("write-cache", StreamCaching::WriteCache),
    ("read-cache", StreamCaching::ReadCache),
    ("write-read-cache", StreamCaching::WriteReadCache),
    ("off", StreamCaching::TurnedOff),
];

/// The scenario name of `value` in `all`.
pub fn name_of<T: PartialEq + Copy>(all: &[(&'static str, T)], value: T) -> &'static str {
    all.iter().find(|(_, v)| *v == value).map_or("", |(n, _)| n)
}

impl SsdKeys {
    /// The flow's settings on the drive `config` describes; every number
    /// must name a resource of the drive, each once.
    pub fn stream(&self, config: &SsdConfig) -> Result<StreamSpec> {
        let mut s = StreamSpec::default();
        if let Some(p) = &self.priority {
            s.priority = named("priority", p, &PRIORITIES)?;
        }
        if let Some(c) = &self.caching {
            s.caching = named("caching", c, &CACHING)?;
        }
        let d = &config.device;
        let f = &config.flash;
        s.channels = ids("channels", &self.channels, d.flash_channel_count)?;
        s.chips = ids("chips", &self.chips, d.chip_no_per_channel)?;
        s.dies = ids("dies", &self.dies, f.die_no_per_chip)?;
        s.planes = ids("planes", &self.planes, f.plane_no_per_die)?;
        if let Some(x) = self.initial_occupancy {
            if !(0.0..=1.0).contains(&x) {
                return Err(fail(format!(
                    "ssd.initial_occupancy must be 0..=1 (got {})",
                    sluice::short_number(x)
                )));
            }
            s.initial_occupancy = x;
        }
        Ok(s)
    }
}

fn named<T: Copy>(key: &str, s: &str, all: &[(&'static str, T)]) -> Result<T> {
    all.iter()
        .find(|(n, _)| *n == s)
        .map(|&(_, v)| v)
        .ok_or_else(|| {
            fail(format!(
                "ssd.{key}: unknown value '{s}' (valid: {})",
                value_names(all)
            ))
        })
}

/// A resource list: each number below `count`, none twice, not empty
/// (leave the key out for all).
fn ids(key: &str, list: &Option<Vec<u32>>, count: u32) -> Result<Vec<u32>> {
    let Some(list) = list else {
        return Ok(Vec::new());
    };
    if list.is_empty() {
        return Err(fail(format!(
            "ssd.{key} is empty (leave it out for all {count})"
        )));
    }
    for (i, &x) in list.iter().enumerate() {
        if x >= count {
            return Err(fail(format!(
                "ssd.{key}: {x} is not one of the drive's 0..{count}"
            )));
        }
        if list[..i].contains(&x) {
            return Err(fail(format!("ssd.{key}: {x} is listed twice")));
        }
    }
    Ok(list.clone())
}
