//! Input errors, located: what is wrong, in which file, at which line and
//! key. It lives in the core so that every crate reading input (start-up
//! traces, drive descriptions, scenarios) reports through one type, and
//! `?` carries an error from one crate to another unchanged.

use std::fmt::Write;

/// Bad input (a trace, a scenario, a drive description) or a run that could
/// not start: the file it came from, the line and the key when known, and
/// what is wrong. Displays as one line: `file: line N: "key": message`
/// (parts that are unknown are left out).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.one_line())]
pub struct LocatedError {
    /// The file (or the trace's name); empty when there is none.
    pub file: String,
    /// The 1-based line at fault, when there is one.
    pub line: Option<usize>,
    /// The scenario key or drive parameter at fault.
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl LocatedError {
    /// An error about `file`.
    pub fn new(file: impl Into<String>, message: impl Into<String>) -> Self {
        LocatedError {
            file: file.into(),
            line: None,
            key: None,
            message: message.into(),
        }
    }

    /// The same error, at a line of its file.
    pub fn at_line(mut self, line: usize) -> Self {
        self.line = Some(line);
        self
    }

    /// The same error, about a key or parameter.
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// `file: line N: "key": message`, whatever the message quotes.
    fn one_line(&self) -> String {
        let mut o = String::new();
        if !self.file.is_empty() {
            let _ = write!(o, "{}: ", self.file);
        }
        if let Some(line) = self.line {
            let _ = write!(o, "line {line}: ");
        }
        if let Some(key) = &self.key {
            let _ = write!(o, "\"{key}\": ");
        }
        o.extend(
            self.message
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c }),
        );
        o
    }
}

/// A policy that cannot be built (unknown name, bad parameter, bad inner
/// scheduler of a class).
impl From<crate::Error> for LocatedError {
    fn from(e: crate::Error) -> Self {
        LocatedError::new("", e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_as_one_line_with_what_is_known() {
        let e = LocatedError::new("a.trace", "bad\nvalue").at_line(3);
        assert_eq!(e.to_string(), "a.trace: line 3: bad value");
        let e = LocatedError::new("a.toml", "x").at_line(1).key("weight");
        assert_eq!(e.to_string(), "a.toml: line 1: \"weight\": x");
        assert_eq!(LocatedError::new("", "plain").to_string(), "plain");
    }

    #[test]
    fn a_policy_error_keeps_its_message() {
        let p: LocatedError = crate::policy::build(
            "nope",
            &Default::default(),
            &crate::policy::BuildContext::default(),
        )
        .err()
        .unwrap()
        .into();
        assert!(p.to_string().starts_with("unknown policy 'nope'"), "{p}");
    }
}
