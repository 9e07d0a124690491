//! `sluice mount --config FILE`: which policy schedules a mount, its
//! groups, and the classes that give processes their flow keys. The
//! `[scheduler]` and `[[group]]` tables are read as a scenario's (the same
//! code checks them); a `[[class]]` matches processes by `comm`, `uid` and
//! cgroup, and the first class that matches gives a process's flows their
//! weight, reservation, limits and group. Parsing is strict: an unknown
//! key or an impossible value is a one-line error naming the file and,
//! where it can be found, the line.

use std::path::Path;

use serde::Deserialize;
use sluice::policy::{BuildContext, GroupConfig, Params};
use sluice::FlowConfig;

use crate::error::{Error, Result};
use crate::names;
use crate::scenario::groups::{self, GroupBuilder};
use crate::scenario::location::toml_error;
use crate::scenario::SchedulerKeys;

mod locate;
#[cfg(test)]
mod tests;

use locate::Locator;

/// The most `[[class]]` tables a configuration holds (each process's
/// first match is searched in order).
pub const MAX_CLASSES: usize = 1000;
/// The kernel keeps a process's `comm` to 15 bytes (TASK_COMM_LEN 16, with
/// the NUL): a longer name could never match.
pub const MAX_COMM_BYTES: usize = 15;
/// The longest cgroup path a class may name (PATH_MAX).
pub const MAX_CGROUP_BYTES: usize = 4096;

/// A checked mount configuration: the policy, its groups and the classes.
#[derive(Clone, Debug, PartialEq)]
pub struct MountConfig {
    /// The policy's name (`[scheduler] name`).
    pub scheduler: String,
    /// The policy's parameters (the other `[scheduler]` keys).
    pub params: Params,
    /// The groups (`[[group]]`), in file order; a class's `group` indexes
    /// this list.
    pub groups: Vec<GroupConfig>,
    /// The classes (`[[class]]`), in file order: the first that matches a
    /// process applies.
    pub classes: Vec<MountClass>,
    /// The `[[group]]` tables as written, to rebuild the groups under
    /// another policy ([`MountConfig::with_scheduler`]: a group naming the
    /// file's policy inherits the root's only while it is the same).
    group_tables: Vec<GroupBuilder>,
}

/// A `[[class]]`: which processes, and the flow keys their flows take.
#[derive(Clone, Debug, PartialEq)]
pub struct MountClass {
    /// The class's label (`name`), if given.
    pub name: Option<String>,
    /// Which processes belong to it (`match`).
    pub matcher: ProcessMatch,
    /// The weight, reservation, limits and group of their flows.
    pub flow: FlowConfig,
}

/// A class's `match`: every key given must hold; none given matches every
/// process.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProcessMatch {
    /// The process's name, exactly (`/proc/PID/comm`).
    pub comm: Option<String>,
    /// The process's user id (as [`ProcessInfo::uid`]).
    pub uid: Option<u32>,
    /// A cgroup (v2 path, as `/proc/PID/cgroup` gives it): the process's
    /// cgroup is it or below it.
    pub cgroup: Option<String>,
}

/// What a class is matched against: one process as the kernel names it.
#[derive(Clone, Copy, Debug)]
pub struct ProcessInfo<'a> {
    /// `/proc/PID/comm`.
    pub comm: &'a str,
    /// The user id a FUSE request carries: the caller's file-system uid
    /// (normally its effective uid).
    pub uid: u32,
    /// The cgroup v2 path (`/proc/PID/cgroup`'s `0::` line).
    pub cgroup: &'a str,
}

impl ProcessMatch {
    /// Whether `p` satisfies every key given: `comm` and `uid` equal, and
    /// `p`'s cgroup the one named or below it at a `/` boundary (`/a`
    /// holds `/a` and `/a/b`, not `/ab`).
    pub fn matches(&self, p: &ProcessInfo<'_>) -> bool {
        self.comm.as_deref().is_none_or(|c| c == p.comm)
            && self.uid.is_none_or(|u| u == p.uid)
            && self
                .cgroup
                .as_deref()
                .is_none_or(|c| cgroup_within(p.cgroup, c))
    }
}

/// Whether cgroup path `path` is `top` or below it.
fn cgroup_within(path: &str, top: &str) -> bool {
    match path.strip_prefix(top) {
        None => false,
        Some(rest) => rest.is_empty() || top.ends_with('/') || rest.starts_with('/'),
    }
}

/// The file's tables, as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigTables {
    #[serde(default)]
    scheduler: Option<SchedulerKeys>,
    #[serde(rename = "group", default)]
    groups: Vec<GroupBuilder>,
    #[serde(rename = "class", default)]
    classes: Vec<ClassTable>,
}

/// A `[[class]]` table, as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClassTable {
    name: Option<String>,
    #[serde(rename = "match")]
    matcher: MatchTable,
    weight: Option<u32>,
    reservation_iops: Option<f64>,
    limit_iops: Option<f64>,
    limit_mb_s: Option<f64>,
    burst_ms: Option<f64>,
    group: Option<String>,
}

/// A class's `match = { ... }`, as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MatchTable {
    comm: Option<String>,
    uid: Option<u32>,
    cgroup: Option<String>,
}

impl MountConfig {
    /// The policy when neither the file nor `--scheduler` names one.
    pub const DEFAULT_SCHEDULER: &str = "bfq+";

    /// Read a configuration file (bounded: [`sluice_input::Kind::MountConfig`]).
    pub fn load(path: &Path) -> Result<Self> {
        let file = path.display().to_string();
        let text = sluice_input::read_text(path, sluice_input::Kind::MountConfig)?;
        Self::parse(&file, &text)
    }

    /// Parse a configuration's text; `file` names it in errors.
    pub fn parse(file: &str, text: &str) -> Result<Self> {
        let tables: ConfigTables = toml::from_str(text).map_err(|e| toml_error(file, text, &e))?;
        Self::from_tables(&tables, &Locator::new(text)).map_err(|e| Error {
            file: file.into(),
            ..e
        })
    }

    /// No file: policy `name` with its default parameters, no groups, no
    /// classes (every process gets weight 100).
    pub fn default_for(name: &str) -> Result<Self> {
        Self::checked(MountConfig {
            scheduler: name.to_string(),
            params: Params::default(),
            groups: Vec::new(),
            classes: Vec::new(),
            group_tables: Vec::new(),
        })
    }

    /// `--scheduler NAME` over the file's `[scheduler]`: the file's
    /// parameters are kept only when it named the same policy (another
    /// policy's parameters would not build), and the groups are rebuilt
    /// under the new root.
    pub fn with_scheduler(mut self, name: &str) -> Result<Self> {
        if self.scheduler != name {
            self.scheduler = name.to_string();
            self.params = Params::default();
            self.groups = groups::groups(&self.group_tables, name)?;
        }
        Self::checked(self)
    }

    /// The flow keys of process `p`'s flows: the first class that matches
    /// (and its index), else weight 100 and nothing else.
    pub fn flow_for(&self, p: &ProcessInfo<'_>) -> (Option<usize>, FlowConfig) {
        match self.classes.iter().position(|c| c.matcher.matches(p)) {
            Some(i) => (Some(i), self.classes[i].flow.clone()),
            None => (None, FlowConfig::weighted(100)),
        }
    }

    /// The policy, ready for a driver, with the groups (requests charged
    /// by the default cost model; see [`crate::Scenario::policy`]).
    pub fn policy(&self) -> std::result::Result<Box<dyn sluice::Scheduler>, sluice::Error> {
        let context = BuildContext {
            groups: self.groups.clone(),
            ..BuildContext::default()
        };
        sluice::policy::build(&self.scheduler, &self.params, &context)
    }

    /// `config` if its policy builds with its groups.
    fn checked(config: MountConfig) -> Result<Self> {
        config.policy().map_err(|e| Error::new("", e.to_string()))?;
        Ok(config)
    }

    /// The tables checked; errors name no file, and their line when
    /// `at` finds it.
    fn from_tables(tables: &ConfigTables, at: &Locator) -> Result<Self> {
        let (scheduler, params) = match &tables.scheduler {
            None => (Self::DEFAULT_SCHEDULER.to_string(), Params::default()),
            Some(keys) => {
                let params = keys.to_params().map_err(|e| at.scheduler(e))?;
                sluice::policy::build(&keys.name, &params, &BuildContext::default())
                    .map_err(|e| at.scheduler(Error::new("", format!("[scheduler] {e}"))))?;
                (keys.name.clone(), params)
            }
        };
        for (i, g) in tables.groups.iter().enumerate() {
            given_name(&format!("[[group]] {}", i + 1), &g.name).map_err(|e| at.group(i, e))?;
        }
        let groups = groups::groups(&tables.groups, &scheduler)
            .map_err(|e| at.group_error(&tables.groups, e))?;
        if tables.classes.len() > MAX_CLASSES {
            return Err(Error::new(
                "",
                format!(
                    "{} [[class]] tables: at most {MAX_CLASSES}",
                    tables.classes.len()
                ),
            ));
        }
        let mut classes: Vec<MountClass> = Vec::with_capacity(tables.classes.len());
        for (i, c) in tables.classes.iter().enumerate() {
            let class = class(i, c, &tables.groups).map_err(|(key, e)| at.class(i, key, e))?;
            if let Some(name) = &class.name {
                if classes.iter().any(|k| k.name.as_ref() == Some(name)) {
                    return Err(at.class(
                        i,
                        "name",
                        Error::new("", format!("[[class]] '{name}' is defined twice")),
                    ));
                }
            }
            classes.push(class);
        }
        Self::checked(MountConfig {
            scheduler,
            params,
            groups,
            classes,
            group_tables: tables.groups.clone(),
        })
    }
}

/// A name that reaches terminals and errors: not empty, printable.
fn given_name(what: &str, name: &str) -> Result<()> {
    if name.is_empty() {
        return Err(Error::new("", format!("{what}: name must not be empty")));
    }
    names::check(what, name).map_err(|m| Error::new("", m))
}

/// Class `i` (0-based) checked; an error comes with the key it is about.
fn class(
    i: usize,
    c: &ClassTable,
    group_tables: &[GroupBuilder],
) -> std::result::Result<MountClass, (&'static str, Error)> {
    let what = match &c.name {
        Some(name) => format!("[[class]] '{}'", names::printable(name)),
        None => format!("[[class]] {}", i + 1),
    };
    let ctx = |key: &'static str| {
        let what = what.clone();
        move |e: Error| (key, Error::new("", format!("{what}: {}", e.message)))
    };
    let refuse = |key: &'static str, message: String| ctx(key)(Error::new("", message));
    if let Some(name) = &c.name {
        given_name(&format!("[[class]] {}", i + 1), name).map_err(|e| ("name", e))?;
    }
    let m = &c.matcher;
    if let Some(comm) = &m.comm {
        if comm.is_empty() || comm.len() > MAX_COMM_BYTES {
            return Err(refuse(
                "match",
                format!(
                    "match.comm must be 1..={MAX_COMM_BYTES} bytes (got {}): the kernel cuts a process's name to {MAX_COMM_BYTES}, so a longer one never matches",
                    comm.len()
                ),
            ));
        }
        names::check("match.comm", comm).map_err(|m| refuse("match", m))?;
    }
    let cgroup = match &m.cgroup {
        None => None,
        Some(cg) => {
            if !cg.starts_with('/') {
                return Err(refuse(
                    "match",
                    format!(
                        "match.cgroup must be a path from the cgroup root, starting with '/' (got \"{}\")",
                        names::excerpt(cg, 100)
                    ),
                ));
            }
            if cg.len() > MAX_CGROUP_BYTES {
                return Err(refuse(
                    "match",
                    format!(
                        "match.cgroup must be at most {MAX_CGROUP_BYTES} bytes (got {})",
                        cg.len()
                    ),
                ));
            }
            names::check("match.cgroup", cg).map_err(|m| refuse("match", m))?;
            // `/a/` is `/a`; `/` stays the root.
            let trimmed = cg.trim_end_matches('/');
            Some(if trimmed.is_empty() { "/" } else { trimmed }.to_string())
        }
    };
    let weight = groups::weight_key(c.weight).map_err(ctx("weight"))?;
    let qos = groups::qos(
        weight,
        c.reservation_iops,
        c.limit_iops,
        c.limit_mb_s,
        c.burst_ms,
    )
    .map_err(|e| {
        let key = QOS_KEYS
            .iter()
            .find(|k| e.message.starts_with(**k))
            .copied()
            .unwrap_or("reservation_iops");
        ctx(key)(e)
    })?;
    let group = match &c.group {
        None => None,
        Some(name) => Some(groups::group_index(group_tables, name, "group").map_err(ctx("group"))?),
    };
    Ok(MountClass {
        name: c.name.clone(),
        matcher: ProcessMatch {
            comm: m.comm.clone(),
            uid: m.uid,
            cgroup,
        },
        flow: FlowConfig {
            qos,
            group,
            ..FlowConfig::default()
        },
    })
}

/// The keys [`groups::qos`] checks, as its messages begin.
const QOS_KEYS: [&str; 4] = ["reservation_iops", "limit_iops", "limit_mb_s", "burst_ms"];
