//! The workload crate's error type: a start-up trace that cannot be read.

use std::fmt::Write;

/// A trace that cannot be read or parsed: the file it came from, the line
/// when known, and what is wrong. Displays as one line: `file: line N:
/// message` (parts that are unknown are left out).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.one_line())]
pub struct Error {
    /// The file (or the trace's name); empty when there is none.
    pub file: String,
    /// The 1-based line at fault, when there is one.
    pub line: Option<usize>,
    /// What is wrong.
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
            message: message.into(),
        }
    }

    /// The same error, at a line of its file.
    pub fn at_line(mut self, line: usize) -> Self {
        self.line = Some(line);
        self
    }

    /// `file: line N: message`, whatever the message quotes.
    fn one_line(&self) -> String {
        let mut o = String::new();
        if !self.file.is_empty() {
            let _ = write!(o, "{}: ", self.file);
        }
        if let Some(line) = self.line {
            let _ = write!(o, "line {line}: ");
        }
        o.extend(
            self.message
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c }),
        );
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_as_one_line_with_what_is_known() {
        let e = Error::new("a.trace", "bad\nvalue").at_line(3);
        assert_eq!(e.to_string(), "a.trace: line 3: bad value");
        assert_eq!(Error::new("", "plain").to_string(), "plain");
    }
}
