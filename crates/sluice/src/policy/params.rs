//! Policy parameters by name, as scenario files and the CLI give them.

use std::collections::BTreeMap;
use std::fmt;

use crate::error::Error;

/// One parameter value. Kept independent of any file format so the core
/// crate needs no parser.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    Bool(bool),
    Int(i64),
    Float(f64),
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

    /// A boolean switch.
    pub fn bool(&mut self, name: &'a str, default: bool) -> Result<bool, Error> {
        match self.get(name) {
            None => Ok(default),
            Some(ParamValue::Bool(b)) => Ok(*b),
            Some(v) => Err(self.bad(name, "true or false", v)),
        }
    }

    /// A number within `[min, max]` (integers are accepted for floats).
    pub fn float(&mut self, name: &'a str, default: f64, min: f64, max: f64) -> Result<f64, Error> {
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

    /// An integer within `[min, max]`.
    pub fn int(&mut self, name: &'a str, default: i64, min: i64, max: i64) -> Result<i64, Error> {
        match self.get(name) {
            None => Ok(default),
            Some(ParamValue::Int(i)) if (min..=max).contains(i) => Ok(*i),
            Some(v) => Err(self.bad(name, &format!("an integer in {min}..={max}"), v)),
        }
    }

    /// Fail on any parameter the policy did not read; `accepted` lists the
    /// ones it knows, for the error message.
    pub fn finish(&mut self, accepted: &str) -> Result<(), Error> {
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
