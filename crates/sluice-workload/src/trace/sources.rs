//! The sources of a trace's requests — volumes, devices, processes — when a
//! trace is split into one flow each (the scenario's `flows` key).

use std::collections::HashMap;

use super::Line;
use crate::error::Result;

/// The most sources one trace may name: a flow each, as `count` allows.
pub const MAX_SOURCES: usize = 100_000;

/// How a trace's requests become flows (the scenario's `flows` key).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub enum Split {
    /// One flow, the whole trace.
    #[default]
    One,
    /// One flow per volume or device the trace names.
    Volume,
    /// One flow per process the trace names.
    Process,
}

impl Split {
    /// Every split with its scenario name.
    pub const ALL: [(&'static str, Split); 3] = [
        ("one", Split::One),
        ("volume", Split::Volume),
        ("process", Split::Process),
    ];

    /// The split a scenario names.
    pub fn parse(s: &str) -> Option<Self> {
        super::by_name(&Self::ALL, s)
    }

    /// Its scenario name.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, v)| *v == self)
            .map_or("", |(n, _)| n)
    }
}

/// The sources a reader met, numbered in order of first appearance. A
/// reader names each request's volume and process; only the kind the
/// trace is split by is kept (the other costs nothing).
#[derive(Debug)]
pub struct Sources {
    split: Split,
    names: Vec<String>,
    index: HashMap<String, u32>,
}

impl Sources {
    /// No sources yet, for a trace split by `split`.
    pub fn new(split: Split) -> Self {
        Sources {
            split,
            names: Vec::new(),
            index: HashMap::new(),
        }
    }

    /// The source of a request of volume (or device) `name` on `line`.
    pub(crate) fn volume(&mut self, line: &Line, name: &str) -> Result<u32> {
        if self.split != Split::Volume {
            return Ok(0);
        }
        self.intern(line, name)
    }

    /// The source of a request of process `pid`, called `comm` (may be
    /// empty), on `line`: named `comm-pid`, or `pid` without a name.
    pub(crate) fn process(&mut self, line: &Line, pid: &str, comm: &str) -> Result<u32> {
        if self.split != Split::Process {
            return Ok(0);
        }
        if comm.is_empty() {
            self.intern(line, pid)
        } else {
            self.intern(line, &format!("{comm}-{pid}"))
        }
    }

    fn intern(&mut self, line: &Line, name: &str) -> Result<u32> {
        if let Some(&i) = self.index.get(name) {
            return Ok(i);
        }
        if self.names.len() >= MAX_SOURCES {
            return Err(line.error(format!(
                "more than {MAX_SOURCES} sources ({}s) in one trace: split it, or use flows = \"one\"",
                self.split.name()
            )));
        }
        if name.len() > 256 {
            return Err(line.error(format!(
                "a {} name of {} bytes; at most 256",
                self.split.name(),
                name.len()
            )));
        }
        let i = self.names.len() as u32;
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), i);
        Ok(i)
    }

    /// The names, by source number (empty when not split).
    pub fn into_names(self) -> Vec<String> {
        self.names
    }
}
