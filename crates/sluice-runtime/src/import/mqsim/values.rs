//! A flow element's values, read as MQSim's `IO_Flow_Parameter_Set.cpp`
//! reads them but strictly: a value element given twice, missing where
//! MQSim would use it (MQSim leaves it undefined), or not reading as its
//! type is a one-line error naming the flow and the line; elements MQSim
//! does not know are listed for the import's notes (MQSim skips them).

use std::str::FromStr;

use super::xml::{quote, RawFlow};
use crate::error::Result;
use crate::import::fail;

/// The value elements every flow has.
const COMMON: &[&str] = &[
    "Priority_Class",
    "Device_Level_Data_Caching_Mode",
    "Channel_IDs",
    "Chip_IDs",
    "Die_IDs",
    "Plane_IDs",
    "Initial_Occupancy_Percentage",
];

/// A synthetic flow's own value elements.
pub(super) const SYNTHETIC: &[&str] = &[
    "Working_Set_Percentage",
    "Synthetic_Generator_Type",
    "Read_Percentage",
    "Address_Distribution",
    "Percentage_of_Hot_Region",
    "Generated_Aligned_Addresses",
    "Address_Alignment_Unit",
    "Request_Size_Distribution",
    "Average_Request_Size",
    "Variance_Request_Size",
    "Seed",
    "Average_No_of_Reqs_in_Queue",
    "Bandwidth",
    "Stop_Time",
    "Total_Requests_To_Generate",
];

/// A trace-based flow's own value elements.
pub(super) const TRACE: &[&str] = &[
    "File_Path",
    "Percentage_To_Be_Executed",
    "Relay_Count",
    "Time_Unit",
];

/// One flow's values, numbered as MQSim numbers flows (from 1).
pub(super) struct Values<'a> {
    pub(super) number: usize,
    raw: &'a RawFlow,
}

impl<'a> Values<'a> {
    /// The values of flow `number`; an element given twice is refused.
    pub(super) fn new(number: usize, raw: &'a RawFlow) -> Result<Self> {
        for (i, (name, _, line)) in raw.values.iter().enumerate() {
            if let Some((_, _, first)) = raw.values[..i].iter().find(|v| &v.0 == name) {
                return Err(fail(format!(
                    "line {line}: flow {number}: <{}> is given twice (first at line {first})",
                    quote(name)
                )));
            }
        }
        Ok(Values { number, raw })
    }

    /// The elements MQSim does not read for this kind of flow, with their
    /// lines.
    pub(super) fn unknown(&self) -> Vec<(String, usize)> {
        let own = if self.raw.trace { TRACE } else { SYNTHETIC };
        self.raw
            .values
            .iter()
            .filter(|(n, _, _)| !COMMON.contains(&n.as_str()) && !own.contains(&n.as_str()))
            .map(|(n, _, l)| (n.clone(), *l))
            .collect()
    }

    /// An error about this flow at `line`.
    pub(super) fn error(
        &self,
        line: usize,
        message: impl std::fmt::Display,
    ) -> crate::error::Error {
        fail(format!("line {line}: flow {}: {message}", self.number))
    }

    /// Element `name`'s text (trimmed) and line, if given.
    pub(super) fn get(&self, name: &str) -> Option<(&'a str, usize)> {
        self.raw
            .values
            .iter()
            .find(|v| v.0 == name)
            .map(|(_, t, l)| (t.trim(), *l))
    }

    /// Element `name`'s text and line; missing is an error (MQSim would
    /// use an undefined value).
    pub(super) fn text(&self, name: &str) -> Result<(&'a str, usize)> {
        self.get(name).ok_or_else(|| {
            self.error(
                self.raw.line,
                format!("<{name}> is missing (MQSim would use an undefined value)"),
            )
        })
    }

    /// Element `name` as a number of type `T`.
    pub(super) fn number<T: FromStr>(&self, name: &str) -> Result<T> {
        let (t, line) = self.text(name)?;
        t.parse::<T>().map_err(|_| {
            self.error(
                line,
                format!(
                    "<{name}>: expected a whole number in range, got '{}'",
                    quote(t)
                ),
            )
        })
    }

    /// Element `name` as one of `all` (upper case, as MQSim reads it).
    pub(super) fn choice<T: Copy>(&self, name: &str, all: &[(&str, T)]) -> Result<T> {
        let (t, line) = self.text(name)?;
        let upper = t.to_ascii_uppercase();
        all.iter()
            .find(|(n, _)| *n == upper)
            .map(|&(_, v)| v)
            .ok_or_else(|| {
                let names: Vec<&str> = all.iter().map(|(n, _)| *n).collect();
                self.error(
                    line,
                    format!(
                        "<{name}>: unknown value '{}' (valid: {})",
                        quote(t),
                        names.join(", ")
                    ),
                )
            })
    }

    /// A resource list `a,b,c` as MQSim's `std::set` keeps it: sorted,
    /// each once; every number below `count`.
    pub(super) fn ids(&self, name: &str, count: u32) -> Result<Vec<u32>> {
        let (t, line) = self.text(name)?;
        let mut out = Vec::new();
        for part in t.split(',') {
            let x: u32 = part.trim().parse().map_err(|_| {
                self.error(
                    line,
                    format!(
                        "<{name}>: expected numbers separated by commas, got '{}'",
                        quote(t)
                    ),
                )
            })?;
            if x >= count {
                return Err(self.error(
                    line,
                    format!("<{name}>: {x} is not one of the drive's 0..{count}"),
                ));
            }
            out.push(x);
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }
}
