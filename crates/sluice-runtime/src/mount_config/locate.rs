//! Where in a mount configuration an error is: the line of a key in the
//! N-th `[[class]]` or `[[group]]` table, or in `[scheduler]`.

use crate::error::Error;

/// Finds lines in a configuration's text.
pub(super) struct Locator<'t> {
    text: &'t str,
}

impl<'t> Locator<'t> {
    pub(super) fn new(text: &'t str) -> Self {
        Locator { text }
    }

    /// An error about `[scheduler]` (`[scheduler] KEY: ...` names the key).
    pub(super) fn scheduler(&self, e: Error) -> Error {
        // `[scheduler] KEY: ...`, or the policy's `... no parameter 'KEY'`.
        let key = match e.message.split_once("parameter '") {
            Some((_, after)) => ident(after),
            None => e.message.strip_prefix("[scheduler] ").and_then(ident),
        };
        let line = self.line("[scheduler]", 0, key.as_deref());
        at(e, line)
    }

    /// An error about the name of `[[group]]` number `index` (0-based).
    pub(super) fn group(&self, index: usize, e: Error) -> Error {
        let line = self.line("[[group]]", index, Some("name"));
        at(e, line)
    }

    /// An error from the scenarios' group checks: `[[group]] 'NAME': KEY
    /// ...` or `[[group]] 'NAME' is defined twice` (the second one).
    pub(super) fn group_error(&self, tables: &[super::GroupBuilder], e: Error) -> Error {
        let Some(rest) = e.message.strip_prefix("[[group]] '") else {
            return e;
        };
        let found = tables
            .iter()
            .enumerate()
            .filter_map(|(i, g)| rest.strip_prefix(g.name.as_str()).map(|r| (i, r)))
            .find(|(_, r)| r.starts_with("': ") || r.starts_with("' is defined twice"));
        let Some((first, after)) = found else {
            return e;
        };
        let (index, key) = match after.strip_prefix("': ") {
            Some(detail) => (first, ident(detail)),
            None => {
                let name = &tables[first].name;
                let second = tables.iter().rposition(|g| &g.name == name);
                (second.unwrap_or(first), Some("name".to_string()))
            }
        };
        let line = self.line("[[group]]", index, key.as_deref());
        at(e, line)
    }

    /// An error about `key` of `[[class]]` number `index` (0-based).
    pub(super) fn class(&self, index: usize, key: &str, e: Error) -> Error {
        let line = self.line("[[class]]", index, Some(key));
        at(e, line)
    }

    /// The 1-based line setting `key` in the `index`-th table headed
    /// `header`, else that header's line; `None` when there is no such
    /// table.
    fn line(&self, header: &str, index: usize, key: Option<&str>) -> Option<usize> {
        let lines: Vec<&str> = self.text.lines().collect();
        let is_header = |l: &str| l.split('#').next().unwrap_or("").trim() == header;
        let start = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| is_header(l))
            .nth(index)
            .map(|(i, _)| i)?;
        let assigns = |l: &str, k: &str| {
            l.trim_start()
                .strip_prefix(k)
                .is_some_and(|r| r.trim_start().starts_with('='))
        };
        let in_table = lines[start + 1..]
            .iter()
            .take_while(|l| !l.trim_start().starts_with('['))
            .position(|l| key.is_some_and(|k| assigns(l, k)));
        Some(start + 1 + in_table.map_or(0, |p| p + 1))
    }
}

/// The key a message begins with (`limit_iops must be ...`).
fn ident(s: &str) -> Option<String> {
    let k: String = s
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (!k.is_empty()).then_some(k)
}

/// `e` at `line`, unless it already has one.
fn at(e: Error, line: Option<usize>) -> Error {
    Error {
        line: e.line.or(line),
        ..e
    }
}
