//! Policy parameters by name, as scenario files and the CLI give them.

use std::collections::BTreeMap;
use std::fmt;

use crate::error::Error;

/// One parameter value. Kept independent of any file format so the core
/// crate needs no parser.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    /// A switch.
    Bool(bool),
    /// An integer (also accepted where a number is expected).
    Int(i64),
    /// A number.
    Float(f64),
    /// A string: the word of a choice parameter (rejected as a bad value by
    /// every other kind).
    Str(String),
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Bool(b) => write!(f, "{b}"),
            ParamValue::Int(i) => write!(f, "{i}"),
            ParamValue::Float(x) => write!(f, "{x}"),
            ParamValue::Str(s) => write!(f, "\"{s}\""),
        }
    }
}

/// What a parameter holds: its default and, for numbers, the closed range
/// a given value must lie in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamKind {
    /// A switch, with its default.
    Bool(bool),
    /// An integer.
    Int {
        /// Its value when not given.
        default: i64,
        /// The smallest value accepted.
        min: i64,
        /// The largest value accepted.
        max: i64,
    },
    /// A number (an integer value is accepted too).
    Float {
        /// Its value when not given.
        default: f64,
        /// The smallest value accepted.
        min: f64,
        /// The largest value accepted.
        max: f64,
    },
    /// One of a fixed set of words (a string in a scenario file).
    Choice {
        /// Its value when not given.
        default: &'static str,
        /// The words accepted.
        options: &'static [&'static str],
    },
}

/// One row of a policy's parameter table: the single place a parameter's
/// name, default, range and meaning are written. The reader takes defaults
/// and ranges from it, `sluice list` and the unknown-parameter error print
/// it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamSpec {
    /// The name scenario files and the CLI give it by.
    pub name: &'static str,
    /// Its type, default and range.
    pub kind: ParamKind,
    /// What it sets, in one line.
    pub doc: &'static str,
    /// Printed in parentheses after the default (unit, special values);
    /// empty for none.
    pub note: &'static str,
}

impl ParamSpec {
    /// A switch.
    pub const fn bool(name: &'static str, default: bool, doc: &'static str) -> Self {
        Self::of(name, ParamKind::Bool(default), doc)
    }

    /// An integer in `min..=max`.
    pub const fn int(
        name: &'static str,
        default: i64,
        range: (i64, i64),
        doc: &'static str,
    ) -> Self {
        let (min, max) = range;
        Self::of(name, ParamKind::Int { default, min, max }, doc)
    }

    /// A number in `min..=max`.
    pub const fn float(
        name: &'static str,
        default: f64,
        range: (f64, f64),
        doc: &'static str,
    ) -> Self {
        let (min, max) = range;
        Self::of(name, ParamKind::Float { default, min, max }, doc)
    }

    /// One of `options`, `default` when not given.
    pub const fn choice(
        name: &'static str,
        default: &'static str,
        options: &'static [&'static str],
        doc: &'static str,
    ) -> Self {
        Self::of(name, ParamKind::Choice { default, options }, doc)
    }

    const fn of(name: &'static str, kind: ParamKind, doc: &'static str) -> Self {
        ParamSpec {
            name,
            kind,
            doc,
            note: "",
        }
    }

    /// The default of an integer row.
    pub fn default_int(&self) -> i64 {
        match self.kind {
            ParamKind::Int { default, .. } => default,
            _ => panic!("parameter '{}' is not an integer", self.name),
        }
    }

    /// The default of a number row.
    pub fn default_float(&self) -> f64 {
        match self.kind {
            ParamKind::Float { default, .. } => default,
            _ => panic!("parameter '{}' is not a number", self.name),
        }
    }

    /// The same row with a note for the listing.
    pub const fn note(mut self, note: &'static str) -> Self {
        self.note = note;
        self
    }
}

/// A policy's parameters, in the order it reads them. Displays as the
/// listing `sluice list` prints and unknown-parameter errors quote:
/// `name = default (note), ...`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamTable {
    /// The rows, in the order the policy reads them.
    pub specs: &'static [ParamSpec],
    /// Between a name and its default in the listing: " = ", or "=" for
    /// BFQ's, whose listing has always been written that way.
    sep: &'static str,
}

impl ParamTable {
    /// The table of a policy with no parameter.
    pub const NONE: ParamTable = ParamTable::new(&[]);

    /// A table listed as `name = default`.
    pub const fn new(specs: &'static [ParamSpec]) -> Self {
        ParamTable { specs, sep: " = " }
    }

    /// The same table listed as `name=default`.
    pub const fn compact(self) -> Self {
        ParamTable { sep: "=", ..self }
    }

    /// True when the policy takes no parameter.
    pub fn is_empty(&self) -> bool {
        self.specs.is_empty()
    }

    /// The row of parameter `name`.
    pub fn get(&self, name: &str) -> Option<&ParamSpec> {
        self.specs.iter().find(|s| s.name == name)
    }
}

impl fmt::Display for ParamTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.specs.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}{}", s.name, self.sep)?;
            match s.kind {
                ParamKind::Bool(b) => write!(f, "{b}")?,
                ParamKind::Int { default, .. } => write!(f, "{default}")?,
                ParamKind::Float { default, .. } => write!(f, "{default}")?,
                ParamKind::Choice { default, .. } => write!(f, "\"{default}\"")?,
            }
            if !s.note.is_empty() {
                write!(f, " ({})", s.note)?;
            }
        }
        Ok(())
    }
}

/// Named parameters for a policy.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params {
    values: BTreeMap<String, ParamValue>,
}

impl Params {
    /// Set a parameter.
    pub fn insert(&mut self, name: &str, value: ParamValue) {
        self.values.insert(name.to_string(), value);
    }

    /// True when no parameter is set.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// A reader that tracks which parameters a policy consumed.
    pub(crate) fn reader<'a>(&'a self, policy: &'a str) -> ParamReader<'a> {
        ParamReader {
            policy,
            params: self,
            used: Vec::new(),
        }
    }
}

/// What `read` gives when no parameter is set: how a policy's `Default`
/// comes from its table rather than from a second copy of the numbers.
pub(crate) fn table_defaults<T>(
    policy: &str,
    read: impl FnOnce(&mut ParamReader<'_>) -> Result<T, Error>,
) -> T {
    let none = Params::default();
    let mut p = none.reader(policy);
    read(&mut p).expect("a table's defaults lie in its ranges")
}

/// Reads typed parameters and, at the end, rejects any the policy did not use.
pub(crate) struct ParamReader<'a> {
    policy: &'a str,
    params: &'a Params,
    used: Vec<&'a str>,
}

impl<'a> ParamReader<'a> {
    fn bad(&self, param: &str, expected: &str, got: &ParamValue) -> Error {
        Error::BadParam {
            policy: self.policy.to_string(),
            param: param.to_string(),
            expected: expected.to_string(),
            got: got.to_string(),
        }
    }

    fn get(&mut self, name: &'a str) -> Option<&'a ParamValue> {
        let v = self.params.values.get(name);
        if v.is_some() {
            self.used.push(name);
        }
        v
    }

    /// The row `name` of `table`: a policy reads only what its table lists.
    fn spec(table: &ParamTable, name: &str) -> ParamSpec {
        match table.get(name) {
            Some(spec) => *spec,
            None => panic!("parameter '{name}' is not in its policy's table"),
        }
    }

    /// A boolean switch of `table`, its default when absent.
    pub(crate) fn bool(&mut self, table: &ParamTable, name: &'a str) -> Result<bool, Error> {
        let ParamKind::Bool(default) = Self::spec(table, name).kind else {
            panic!("parameter '{name}' is not a switch");
        };
        match self.get(name) {
            None => Ok(default),
            Some(ParamValue::Bool(b)) => Ok(*b),
            Some(v) => Err(self.bad(name, "true or false", v)),
        }
    }

    /// A number of `table` within its range (integers are accepted for
    /// floats), its default when absent.
    pub(crate) fn float(&mut self, table: &ParamTable, name: &'a str) -> Result<f64, Error> {
        let ParamKind::Float { default, min, max } = Self::spec(table, name).kind else {
            panic!("parameter '{name}' is not a number");
        };
        let x = match self.get(name) {
            None => return Ok(default),
            Some(ParamValue::Float(x)) => *x,
            Some(ParamValue::Int(i)) => *i as f64,
            Some(v) => return Err(self.bad(name, "a number", v)),
        };
        if x.is_finite() && (min..=max).contains(&x) {
            Ok(x)
        } else {
            let v = ParamValue::Float(x);
            Err(self.bad(name, &format!("a number in {min}..={max}"), &v))
        }
    }

    /// One of the words of `table`'s row `name`, its default when absent.
    pub(crate) fn choice(
        &mut self,
        table: &ParamTable,
        name: &'a str,
    ) -> Result<&'static str, Error> {
        let ParamKind::Choice { default, options } = Self::spec(table, name).kind else {
            panic!("parameter '{name}' is not a choice");
        };
        match self.get(name) {
            None => Ok(default),
            Some(ParamValue::Str(w)) if options.contains(&w.as_str()) => {
                Ok(options.iter().copied().find(|o| o == w).unwrap_or(default))
            }
            Some(v) => {
                let words: Vec<String> = options.iter().map(|o| format!("\"{o}\"")).collect();
                Err(self.bad(name, &format!("one of {}", words.join(", ")), v))
            }
        }
    }

    /// An integer of `table` within its range, its default when absent.
    pub(crate) fn int(&mut self, table: &ParamTable, name: &'a str) -> Result<i64, Error> {
        let ParamKind::Int { default, min, max } = Self::spec(table, name).kind else {
            panic!("parameter '{name}' is not an integer");
        };
        match self.get(name) {
            None => Ok(default),
            Some(ParamValue::Int(i)) if (min..=max).contains(i) => Ok(*i),
            Some(v) => Err(self.bad(name, &format!("an integer in {min}..={max}"), v)),
        }
    }

    /// Fail on any parameter the policy did not read; `accepted` lists the
    /// ones it knows, for the error message.
    pub(crate) fn finish(&mut self, accepted: &ParamTable) -> Result<(), Error> {
        for name in self.params.values.keys() {
            if !self.used.contains(&name.as_str()) {
                let hint = if accepted.is_empty() {
                    " (it takes none)".to_string()
                } else {
                    format!(" (it takes: {accepted})")
                };
                return Err(Error::UnknownParam {
                    policy: self.policy.to_string(),
                    param: name.clone(),
                    hint,
                });
            }
        }
        Ok(())
    }
}
