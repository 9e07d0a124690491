//! The simulator crate's one error type: what went wrong, and where.

use std::fmt::Write;

/// Bad input (a scenario, a drive description, a trace) or a run that could
/// not start: the file it came from, the line and the key when known, and
/// what is wrong. Displays as one line: `file: line N: "key": message`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.one_line())]
pub struct Error {
    /// The file (or a name such as `(repro)`); empty when there is none.
    pub file: String,
    pub line: Option<usize>,
    /// The scenario key or drive parameter at fault.
    pub key: Option<String>,
    pub message: String,
}

/// Results of this crate.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An error about `file`.
    pub fn new(file: impl Into<String>, message: impl Into<String>) -> Self {
        Error {
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
}

impl Error {
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
impl From<sluice::Error> for Error {
    fn from(e: sluice::Error) -> Self {
        Error::new("", e.to_string())
    }
}

/// A start-up trace that cannot be read: the same file, line and message.
impl From<sluice_workload::Error> for Error {
    fn from(e: sluice_workload::Error) -> Self {
        Error {
            file: e.file,
            line: e.line,
            key: None,
            message: e.message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_as_one_line_with_what_is_known() {
        let e = Error::new("a.toml", "bad\nvalue").at_line(3).key("weight");
        assert_eq!(e.to_string(), "a.toml: line 3: \"weight\": bad value");
        assert_eq!(Error::new("", "plain").to_string(), "plain");
        let p: Error = sluice::policy::build("nope", &Default::default())
            .err()
            .unwrap()
            .into();
        assert!(p.to_string().starts_with("unknown policy 'nope'"), "{p}");
        let w = sluice_workload::Error::new("t", "bad").at_line(2);
        assert_eq!(Error::from(w.clone()).to_string(), w.to_string());
    }
}
