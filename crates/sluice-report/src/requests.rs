//! Request logs as the report reads them: the CSV that `--log-requests`
//! writes (one row per request, header [`HEADER`]), turned into each
//! run's requests for the "Service order" panels.
//!
//! A log is evidence, often from a run that went wrong, so a row that
//! does not parse is counted and reported rather than fatal; but a file
//! whose first line is not the header is not a log at all, and a log too
//! large to draw is refused before it is drawn (the page must stay small
//! enough to open).

use std::borrow::Cow;
use std::path::Path;

use crate::error::{Error, Result};

/// The header every request log starts with (the simulator's
/// `RequestRecord::CSV_HEADER`; `run`, `kernel` and `versus` write the
/// same).
pub(crate) const HEADER: &str = sluice_sim::RequestRecord::CSV_HEADER;

/// Its columns: a row has at least these (later columns are ignored, so a
/// log with columns added later still reads).
const COLUMNS: usize = 9;

/// Most rows one log may hold: beyond this the page would be too large to
/// open, and such a log is better cut to the part of interest.
pub(crate) const MAX_ROWS: usize = 2_000_000;

/// A run starts again when a request completes at least this long before
/// the latest completion so far, and at under half of it: times restart
/// near zero. Rows are in completion order, so within one run the
/// completion times only grow (give or take a device's reordering, far
/// below this).
const RESTART_MS: f64 = 100.0;

/// Latest time a row may give, ms (about 30 years): past it, a time is
/// garbage, and would make the shared time axis meaningless.
const MAX_MS: f64 = 1e12;

/// One request, as drawn: whose, and when the device held it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Request {
    /// Index into [`Log::flows`].
    pub flow: u32,
    pub dispatched_ms: f64,
    pub completed_ms: f64,
}

/// One request log file.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Log {
    /// The file, as given.
    pub name: String,
    /// Flow names in order of first appearance; [`Request::flow`] indexes
    /// them.
    pub flows: Vec<String>,
    /// Each run's requests in file (completion) order; a file of one run
    /// has one. Never empty.
    pub runs: Vec<Vec<Request>>,
    /// Rows that could not be read.
    pub bad_rows: usize,
    /// The first of them: "line 7: sector is not a whole number".
    pub first_bad: Option<String>,
}

/// Whether `path` names a request log by its name alone (`.csv`).
pub(crate) fn is_log_name(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"))
}

/// Whether `text` starts with a request log's header.
pub(crate) fn has_header(text: &str) -> bool {
    header_ok(first_line(text))
}

fn first_line(text: &str) -> &str {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    sluice_input::lines(text).next().unwrap_or("")
}

/// The header, perhaps with columns added after ours.
fn header_ok(line: &str) -> bool {
    let line = line.trim_end();
    line == HEADER
        || line
            .strip_prefix(HEADER)
            .is_some_and(|rest| rest.starts_with(','))
}

/// Read the log `name` (the file as given) from its `text`.
pub(crate) fn parse(name: &str, text: &str) -> Result<Log> {
    parse_at_most(name, text, MAX_ROWS)
}

/// [`parse`], refusing a log of more than `max_rows` rows.
pub(crate) fn parse_at_most(name: &str, text: &str, max_rows: usize) -> Result<Log> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if !header_ok(first_line(text)) {
        let got = super::plots::short(first_line(text), 60);
        return Err(Error::BadLog(format!(
            "{name}: not a request log: its first line is '{got}', not '{HEADER}'"
        )));
    }
    let mut log = Log {
        name: name.to_string(),
        runs: vec![Vec::new()],
        ..Log::default()
    };
    let mut index = std::collections::HashMap::<String, u32>::new();
    let mut run_end = f64::NEG_INFINITY;
    let mut rows = 0usize;
    let mut records = Records::new(text);
    // The header, already checked.
    records.next();
    for (line, record) in records {
        if let Ok(f) = &record {
            if f.len() == 1 && f[0].trim().is_empty() {
                continue;
            }
        }
        rows += 1;
        if rows > max_rows {
            return Err(Error::BadLog(format!(
                "{name}: more than {max_rows} rows; the report draws at most {max_rows} requests a log (cut the log to the part of interest)"
            )));
        }
        let fields = match record {
            Ok(f) => f,
            Err(why) => {
                log.bad(line, why);
                continue;
            }
        };
        // The header again: the next run, appended.
        if fields[0] == "flow" && header_ok(&fields.join(",")) {
            log.next_run(&mut run_end);
            continue;
        }
        match row(&fields) {
            Ok((flow, dispatched_ms, completed_ms)) => {
                if completed_ms < run_end - RESTART_MS && completed_ms < run_end / 2.0 {
                    log.next_run(&mut run_end);
                }
                run_end = run_end.max(completed_ms);
                let flow = match index.get(flow.as_ref()) {
                    Some(&i) => i,
                    None => {
                        let i = log.flows.len() as u32;
                        index.insert(flow.to_string(), i);
                        log.flows.push(flow.into_owned());
                        i
                    }
                };
                if let Some(run) = log.runs.last_mut() {
                    run.push(Request {
                        flow,
                        dispatched_ms,
                        completed_ms,
                    });
                }
            }
            Err(why) => log.bad(line, &why),
        }
    }
    // An appended header with nothing after it starts no run.
    if log.runs.len() > 1 && log.runs.last().is_some_and(Vec::is_empty) {
        log.runs.pop();
    }
    Ok(log)
}

impl Log {
    fn bad(&mut self, line: usize, why: &str) {
        self.bad_rows += 1;
        if self.first_bad.is_none() {
            self.first_bad = Some(format!("line {line}: {why}"));
        }
    }

    /// Start the next run (unless the current one is still empty).
    fn next_run(&mut self, run_end: &mut f64) {
        if self.runs.last().is_some_and(|r| !r.is_empty()) {
            self.runs.push(Vec::new());
        }
        *run_end = f64::NEG_INFINITY;
    }
}

/// One row's flow name, dispatch and completion time, every column
/// checked (a row with a bad sector is as suspect as one with a bad time).
fn row<'a>(f: &[Cow<'a, str>]) -> std::result::Result<(Cow<'a, str>, f64, f64), String> {
    if f.len() < COLUMNS {
        return Err(format!("{} fields, not {COLUMNS}", f.len()));
    }
    let whole = |i: usize, col: &str| {
        f[i].trim()
            .parse::<u64>()
            .map_err(|_| format!("{col} is not a whole number"))
    };
    let ms = |i: usize, col: &str| match f[i].trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x.abs() <= MAX_MS => Ok(x),
        Ok(_) => Err(format!("{col} is out of range")),
        Err(_) => Err(format!("{col} is not a number of ms")),
    };
    whole(1, "thread")?;
    if !matches!(f[2].trim(), "R" | "W") {
        return Err("dir is not R or W".into());
    }
    if !matches!(f[3].trim(), "0" | "1") {
        return Err("sync is not 0 or 1".into());
    }
    whole(4, "sector")?;
    whole(5, "sectors")?;
    ms(6, "arrival_ms")?;
    let dispatched = ms(7, "dispatched_ms")?;
    let completed = ms(8, "completed_ms")?;
    if completed < dispatched {
        return Err("completed_ms is before dispatched_ms".into());
    }
    Ok((f[0].clone(), dispatched, completed))
}

/// A field, or why a record could not be split into fields.
type Record<'a> = std::result::Result<Vec<Cow<'a, str>>, &'static str>;

/// The records of RFC 4180 text with the line each starts on: fields
/// split at commas, a field in double quotes may hold commas, doubled
/// quotes and line breaks (a flow's name is free text). A record ends at
/// `\n`, `\r\n` or a lone `\r`, as [`sluice_input::lines`] splits lines.
struct Records<'a> {
    text: &'a str,
    at: usize,
    line: usize,
    /// No `"` from here to the end of the text: an unclosed quote is
    /// then found at once, not by scanning the rest of the text again for
    /// every line that opens one.
    no_quote_from: usize,
}

impl<'a> Records<'a> {
    fn new(text: &'a str) -> Self {
        Records {
            text,
            at: 0,
            line: 1,
            no_quote_from: usize::MAX,
        }
    }

    /// The end of the line holding byte `i`, past its line break.
    fn past_line(&mut self, mut i: usize) -> usize {
        let text = self.text;
        let b = text.as_bytes();
        while i < b.len() && b[i] != b'\n' && b[i] != b'\r' {
            i += 1;
        }
        self.past_break(i)
    }

    /// Past the line break at `i` (if any), counting it.
    fn past_break(&mut self, i: usize) -> usize {
        let text = self.text;
        let b = text.as_bytes();
        match b.get(i) {
            Some(b'\r') if b.get(i + 1) == Some(&b'\n') => {
                self.line += 1;
                i + 2
            }
            Some(b'\r' | b'\n') => {
                self.line += 1;
                i + 1
            }
            _ => i,
        }
    }

    /// The quoted field whose opening quote is at `open`: its text and
    /// the byte after its closing quote, or `None` if it is not closed.
    fn quoted(&mut self, open: usize) -> Option<(Cow<'a, str>, usize)> {
        let text = self.text;
        let b = text.as_bytes();
        let start = open + 1;
        if start >= self.no_quote_from {
            return None;
        }
        let mut i = start;
        let mut doubled = false;
        let mut breaks = 0;
        loop {
            match b.get(i) {
                None => {
                    self.no_quote_from = start;
                    return None;
                }
                Some(b'"') if b.get(i + 1) == Some(&b'"') => {
                    doubled = true;
                    i += 2;
                }
                Some(b'"') => break,
                Some(b'\n') => {
                    breaks += 1;
                    i += 1;
                }
                Some(b'\r') => {
                    if b.get(i + 1) != Some(&b'\n') {
                        breaks += 1;
                    }
                    i += 1;
                }
                Some(_) => i += 1,
            }
        }
        self.line += breaks;
        // Quotes and line breaks are ASCII: both ends are char boundaries.
        let raw = &text[start..i];
        let field = if doubled {
            Cow::Owned(raw.replace("\"\"", "\""))
        } else {
            Cow::Borrowed(raw)
        };
        Some((field, i + 1))
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = (usize, Record<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        let text = self.text;
        let b = text.as_bytes();
        if self.at >= b.len() {
            return None;
        }
        let first_line = self.line;
        let mut fields = Vec::with_capacity(COLUMNS);
        let mut i = self.at;
        loop {
            if b.get(i) == Some(&b'"') {
                let Some((field, after)) = self.quoted(i) else {
                    // Unclosed: this line is bad, the next may be fine.
                    self.at = self.past_line(i);
                    return Some((first_line, Err("a quote is not closed")));
                };
                fields.push(field);
                i = after;
            } else {
                let end = b[i..]
                    .iter()
                    .position(|&c| matches!(c, b',' | b'\n' | b'\r'))
                    .map_or(b.len(), |p| i + p);
                fields.push(Cow::Borrowed(&text[i..end]));
                i = end;
            }
            match b.get(i) {
                Some(b',') => i += 1,
                Some(b'\n' | b'\r') | None => {
                    self.at = self.past_break(i);
                    return Some((first_line, Ok(fields)));
                }
                Some(_) => {
                    self.at = self.past_line(i);
                    return Some((first_line, Err("text after a closing quote")));
                }
            }
        }
    }
}
