//! Block traces as workloads: the formats people record I/O in, read into
//! one list of requests, placed on the device, and replayed by a trace
//! flow ([`crate::Pattern::Trace`]) at the recorded times (open loop) or as
//! fast as the flow's `outstanding` allows.
//!
//! One reader per format, each a file of its own: [`blkparse`] (the default
//! text output of blkparse), [`fio_iolog`] (fio's iolog, versions 2 and 3),
//! [`msr`] (MSR Cambridge CSV), [`spc`] (the SPC/UMass ASU CSV) and
//! [`disksim`] (DiskSim's validation traces) and [`mqsim`] (MQSim's ASCII
//! traces). Each turns a line into a
//! [`Request`] or says, with the file and line, what is wrong.

pub mod alibaba;
pub mod blkparse;
pub mod blktrace;
pub mod disksim;
pub mod fio_iolog;
pub mod fiu;
pub mod ftrace_blk;
pub mod mqsim;
pub mod msr;
mod sources;
pub mod spc;
pub mod tencent;

use std::path::Path;

use sluice::Duration;
use sluice_input::lines;

use crate::error::{Error, Result};
pub use sources::{Sources, Split, MAX_SOURCES};

/// The value named `s` in a key's table of names.
fn by_name<T: Copy>(all: &[(&str, T)], s: &str) -> Option<T> {
    all.iter().find(|(n, _)| *n == s).map(|&(_, v)| v)
}

/// A trace file's format (the scenario's `format` key).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// DiskSim's validation traces ([`disksim`]).
    Disksim,
    /// blkparse's default text output ([`blkparse`]).
    Blkparse,
    /// fio's iolog, versions 2 and 3 ([`fio_iolog`]).
    FioIolog,
    /// MSR Cambridge CSV ([`msr`]).
    Msr,
    /// The SPC/UMass ASU CSV ([`spc`]).
    Spc,
    /// MQSim's ASCII trace ([`mqsim`]).
    Mqsim,
    /// Alibaba's block traces of 2020 ([`alibaba`]).
    Alibaba,
    /// Tencent CBS's traces of 2018 ([`tencent`]).
    Tencent,
    /// FIU's traces, as SNIA IOTTA serves them ([`fiu`]).
    Fiu,
    /// blktrace's binary per-CPU files ([`blktrace`]).
    Blktrace,
    /// The text of ftrace's `blk` tracer ([`ftrace_blk`]).
    FtraceBlk,
}

impl Format {
    /// Every format with its scenario name.
    pub const ALL: [(&'static str, Format); 11] = [
        ("disksim", Format::Disksim),
        ("blkparse", Format::Blkparse),
        ("fio-iolog", Format::FioIolog),
        ("msr", Format::Msr),
        ("spc", Format::Spc),
        ("mqsim", Format::Mqsim),
        ("alibaba", Format::Alibaba),
        ("tencent", Format::Tencent),
        ("fiu", Format::Fiu),
        ("blktrace", Format::Blktrace),
        ("ftrace-blk", Format::FtraceBlk),
    ];

    /// How a trace of this format may be split into flows: what its lines
    /// name (a volume or device, a process).
    pub fn splits(self) -> &'static [Split] {
        match self {
            Format::Disksim | Format::FioIolog | Format::Msr | Format::Spc => &[Split::One],
            Format::Mqsim | Format::Alibaba | Format::Tencent => &[Split::One, Split::Volume],
            Format::Blkparse => &[Split::One, Split::Process],
            Format::Fiu | Format::Blktrace | Format::FtraceBlk => {
                &[Split::One, Split::Volume, Split::Process]
            }
        }
    }

    /// Refuse `split` if this format's lines do not name what it splits by.
    fn check_split(self, file: &str, split: Split) -> Result<()> {
        if self.splits().contains(&split) {
            return Ok(());
        }
        let can: Vec<&str> = self.splits().iter().map(|s| s.name()).collect();
        Err(Error::new(
            file,
            format!(
                "flows = \"{}\": a {} trace names no {}; use flows = {}",
                split.name(),
                self.name(),
                split.name(),
                can.iter()
                    .map(|c| format!("\"{c}\""))
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
        ))
    }

    /// The format a scenario names.
    pub fn parse(s: &str) -> Option<Self> {
        by_name(&Self::ALL, s)
    }

    /// Its scenario name.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, f)| *f == self)
            .map_or("", |(n, _)| n)
    }
}

/// When a trace flow issues its requests (the scenario's `timing` key).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Timing {
    /// At their recorded times after the flow's start, whatever the device
    /// does (open loop).
    Recorded,
    /// In trace order, keeping `outstanding` in flight (closed loop).
    #[default]
    Afap,
}

impl Timing {
    /// Every timing with its scenario name.
    pub const ALL: [(&'static str, Timing); 2] =
        [("recorded", Timing::Recorded), ("afap", Timing::Afap)];

    /// The timing a scenario names.
    pub fn parse(s: &str) -> Option<Self> {
        by_name(&Self::ALL, s)
    }
}

/// What to do with a request beyond the space the flow has on the device
/// (the scenario's `offsets` key).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Offsets {
    /// Refuse the trace, naming the request's line.
    #[default]
    Error,
    /// Fold offsets into the space (modulo its size).
    Wrap,
    /// Shrink every offset by one factor so the trace's extent fits.
    Scale,
    /// Fold as MQSim folds a trace flow's LBAs into its range
    /// (`IO_Flow_Trace_Based.cpp`): an offset up to `space - 1` is kept, a
    /// larger one is taken modulo `space - 1`; a request that would then
    /// run past the space is moved back to end at its end (MQSim lets it
    /// run on into the next flow's range).
    Mqsim,
}

impl Offsets {
    /// Every policy with its scenario name.
    pub const ALL: [(&'static str, Offsets); 4] = [
        ("error", Offsets::Error),
        ("wrap", Offsets::Wrap),
        ("scale", Offsets::Scale),
        ("mqsim", Offsets::Mqsim),
    ];

    /// The policy a scenario names.
    pub fn parse(s: &str) -> Option<Self> {
        by_name(&Self::ALL, s)
    }
}

/// One traced request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// Arrival, from the trace's first arrival.
    pub at: Duration,
    /// First sector (512 bytes), from the start of the traced space.
    pub sector: u64,
    /// Length in sectors (at least 1).
    pub sectors: u32,
    /// A write (else a read).
    pub write: bool,
    /// The line of the trace it came from (1-based), for messages.
    pub line: u32,
    /// Its source — volume, device or process, as the trace was split
    /// ([`Split`]) — an index into [`Trace::sources`]; 0 when not split.
    pub source: u32,
}

/// A trace's requests in arrival order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// The file it was read from.
    pub name: String,
    /// The requests, in arrival order.
    pub requests: Vec<Request>,
    /// The names of the requests' sources (volumes, devices or
    /// processes) in order of first appearance in the file; empty when
    /// the trace was read whole ([`Split::One`]).
    pub sources: Vec<String>,
}

/// How a trace is read: split into sources or not, and the seed of the
/// readers that draw (Tencent's arrivals inside a second).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ReadOptions {
    /// One flow, or one per volume or process (the scenario's `flows`).
    pub split: Split,
    /// The scenario's seed.
    pub seed: u64,
}

/// The latest arrival a trace may hold, from its first: a year, in ns.
const MAX_TRACE_NS: u64 = 32_000_000_000_000_000;

/// The largest request a trace may hold: 64 MiB, as `request_kib`.
pub const MAX_REQUEST_SECTORS: u64 = 131_072;

impl Trace {
    /// Read `path` in `format`, whole (one source).
    pub fn load(path: &Path, format: Format) -> Result<Trace> {
        Self::load_with(path, format, ReadOptions::default())
    }

    /// Read `path` in `format` as `options` say. Formats read line by line
    /// ([`Format::streams`]) are parsed as the file is read, a piece at a
    /// time, so memory grows with the requests and not with the text.
    pub fn load_with(path: &Path, format: Format, options: ReadOptions) -> Result<Trace> {
        let name = path.display().to_string();
        format.check_split(&name, options.split)?;
        if let Some(mut reader) = streaming_reader(format, options) {
            let mut sources = Sources::new(options.split);
            let mut out = Vec::new();
            let mut number = 0usize;
            let mut failed: Option<Error> = None;
            sluice_input::read_text_in_pieces(path, sluice_input::Kind::Trace, |piece| {
                if failed.is_some() {
                    return;
                }
                for text in lines(piece) {
                    number += 1;
                    let line = Line {
                        file: &name,
                        number,
                    };
                    if let Err(e) = reader.line(&line, text, &mut sources, &mut out) {
                        failed = Some(e);
                        return;
                    }
                }
            })?;
            if let Some(e) = failed {
                return Err(e);
            }
            reader.finish(&name, &mut out)?;
            return Self::from_raw(&name, out, sources);
        }
        if format == Format::Blktrace {
            let (raw, sources) = blktrace::load(path, options)?;
            return Self::from_raw(&name, raw, sources);
        }
        let text = sluice_input::read_text(path, sluice_input::Kind::Trace)?;
        Self::parse_with(&name, &text, format, options)
    }

    /// Parse `text` (the contents of file `name`) in `format`, whole.
    pub fn parse(name: &str, text: &str, format: Format) -> Result<Trace> {
        Self::parse_with(name, text, format, ReadOptions::default())
    }

    /// Parse `text` (the contents of file `name`) in `format` as `options`
    /// say.
    pub fn parse_with(
        name: &str,
        text: &str,
        format: Format,
        options: ReadOptions,
    ) -> Result<Trace> {
        format.check_split(name, options.split)?;
        let mut sources = Sources::new(options.split);
        let raw = match format {
            Format::Blkparse => blkparse::parse(name, text, &mut sources)?,
            Format::FioIolog => fio_iolog::parse(name, text)?,
            Format::Msr => msr::parse(name, text)?,
            Format::Spc => spc::parse(name, text)?,
            Format::Disksim => disksim_requests(name, text)?,
            Format::Blktrace => {
                return Err(Error::new(
                    name,
                    "blktrace's files are binary: give the capture's path, not its text",
                ))
            }
            streamed => {
                let mut reader = streaming_reader(streamed, options)
                    .expect("every other format is read line by line");
                let mut out = Vec::new();
                for (i, text) in lines(text).enumerate() {
                    let line = Line {
                        file: name,
                        number: i + 1,
                    };
                    reader.line(&line, text, &mut sources, &mut out)?;
                }
                reader.finish(name, &mut out)?;
                out
            }
        };
        Self::from_raw(name, raw, sources)
    }

    /// The trace of the requests a reader found.
    fn from_raw(name: &str, mut raw: Vec<Raw>, sources: Sources) -> Result<Trace> {
        if raw.is_empty() {
            return Err(Error::new(
                name,
                "the trace holds no read or write requests",
            ));
        }
        // Arrivals from the first one, in time order (ties in file order),
        // at most a year after it (a replay adds them to its start).
        let t0 = raw.iter().map(|r| r.at_ns).min().unwrap_or(0);
        if let Some(r) = raw.iter().find(|r| r.at_ns - t0 > MAX_TRACE_NS) {
            return Err(
                Error::new(name, "the request arrives more than a year after the first")
                    .at_line(r.line as usize),
            );
        }
        raw.sort_by_key(|r| r.at_ns);
        // Same size and alignment: collected in place, no second list.
        let requests = raw
            .into_iter()
            .map(|r| Request {
                at: Duration::from_nanos(r.at_ns - t0),
                sector: r.sector,
                sectors: r.sectors,
                write: r.write,
                line: r.line,
                source: r.source,
            })
            .collect();
        Ok(Trace {
            name: name.to_string(),
            requests,
            sources: sources.into_names(),
        })
    }

    /// The requests arriving from `from` (inclusive) to `to` (exclusive)
    /// after the first, their arrivals counted from `from` and divided by
    /// `speed` (2 replays twice as fast); None when none is left.
    pub fn window(mut self, from: Duration, to: Option<Duration>, speed: f64) -> Option<Trace> {
        self.requests
            .retain(|r| r.at >= from && to.is_none_or(|to| r.at < to));
        if self.requests.is_empty() {
            return None;
        }
        for r in &mut self.requests {
            let since = (r.at - from).as_nanos() as f64 / speed;
            r.at = Duration::from_nanos(since.round().min(MAX_TRACE_NS as f64) as u64);
        }
        Some(self)
    }

    /// One past the last sector the trace touches (saturating: a reader
    /// keeps sectors below 2^54, so it never does).
    pub fn end(&self) -> u64 {
        self.requests
            .iter()
            .map(|r| r.sector.saturating_add(u64::from(r.sectors)))
            .max()
            .unwrap_or(0)
    }

    /// The requests placed in a space of `space` sectors, by `offsets`
    /// (sectors from the start of that space).
    pub fn place(&self, space: u64, offsets: Offsets) -> Result<Vec<Request>> {
        let end = self.end();
        let mut out = Vec::with_capacity(self.requests.len());
        for r in &self.requests {
            let n = u64::from(r.sectors);
            let fail =
                |what: String| Err(Error::new(self.name.clone(), what).at_line(r.line as usize));
            if n > space {
                return fail(format!(
                    "a request of {n} sectors is larger than the flow's space on the device ({space} sectors)"
                ));
            }
            let sector = match offsets {
                Offsets::Mqsim => mqsim_fold(r.sector, space).min(space - n),
                // Scaling moves every offset, once the trace does not fit.
                Offsets::Scale if end > space => {
                    let s = (u128::from(r.sector) * u128::from(space) / u128::from(end)) as u64;
                    s.min(space - n)
                }
                // Checked: a sector near 2^64 plus its length wrapped
                // past the bound into a small number.
                _ if r.sector.checked_add(n).is_some_and(|e| e <= space) => r.sector,
                Offsets::Error => {
                    return fail(format!(
                        "the request at sector {} (+{n}) lies beyond the flow's space on the device \
                         ({space} sectors); set offsets = \"wrap\" or \"scale\" to fold or shrink the trace",
                        r.sector
                    ))
                }
                Offsets::Wrap | Offsets::Scale => (r.sector % space).min(space - n),
            };
            out.push(Request { sector, ..*r });
        }
        Ok(out)
    }
}

/// MQSim's fold of an offset into a space of `space` sectors: kept up to
/// `space - 1`, else modulo `space - 1` (a space of one sector: 0).
fn mqsim_fold(sector: u64, space: u64) -> u64 {
    let last = space.saturating_sub(1);
    if sector <= last {
        sector
    } else if last == 0 {
        0
    } else {
        sector % last
    }
}

/// A request as a reader finds it: absolute arrival in ns. Laid out as
/// [`Request`] is, so a trace's list becomes the other in place.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Raw {
    pub at_ns: u64,
    pub sector: u64,
    pub sectors: u32,
    pub write: bool,
    pub line: u32,
    /// The source, from [`Sources`] (0 when the trace is not split).
    pub source: u32,
}

/// A reader of a format that is read a line at a time, as the file is
/// read: the state it keeps between lines is small and bounded.
pub(crate) trait LineReader {
    /// Read `text`, the line `line`, pushing its request (if any) to `out`
    /// and naming its source in `sources`.
    fn line(
        &mut self,
        line: &Line,
        text: &str,
        sources: &mut Sources,
        out: &mut Vec<Raw>,
    ) -> Result<()>;

    /// The file has ended: a last check, or a last change to `out`.
    fn finish(&mut self, _file: &str, _out: &mut Vec<Raw>) -> Result<()> {
        Ok(())
    }
}

/// The line reader of `format`, if it is read a line at a time.
fn streaming_reader(format: Format, options: ReadOptions) -> Option<Box<dyn LineReader>> {
    Some(match format {
        Format::Alibaba => Box::new(alibaba::Reader),
        Format::Tencent => Box::new(tencent::Reader::new(options.seed)),
        Format::Fiu => Box::new(fiu::Reader),
        Format::FtraceBlk => Box::new(ftrace_blk::Reader),
        Format::Mqsim => Box::new(mqsim::Reader::default()),
        _ => return None,
    })
}

/// Fields of a reader's line: a numeric field, or an error naming the line,
/// what the field is and what it holds.
pub(crate) struct Line<'a> {
    pub file: &'a str,
    pub number: usize,
}

impl Line<'_> {
    /// The error for this line.
    pub(crate) fn error(&self, message: impl Into<String>) -> Error {
        Error::new(self.file, message).at_line(self.number)
    }

    /// Field `text`, called `what`, as a number of type `T`.
    pub(crate) fn number<T: std::str::FromStr>(&self, what: &str, text: &str) -> Result<T> {
        text.trim()
            .parse::<T>()
            .map_err(|_| self.error(format!("{what}: expected a number, got '{}'", text.trim())))
    }

    /// Field `text`, called `what`, as a finite non-negative decimal.
    pub(crate) fn decimal(&self, what: &str, text: &str) -> Result<f64> {
        let x: f64 = self.number(what, text)?;
        if x.is_finite() && x >= 0.0 {
            Ok(x)
        } else {
            Err(self.error(format!(
                "{what}: expected a non-negative number, got '{}'",
                text.trim()
            )))
        }
    }

    /// Seconds as nanoseconds, at most a year (a trace's clock).
    pub(crate) fn seconds(&self, what: &str, text: &str) -> Result<u64> {
        let s = self.decimal(what, text)?;
        if s > 3.2e7 {
            return Err(self.error(format!("{what}: {s} s is more than a year")));
        }
        Ok(sluice::Duration::from_secs_f64(s).as_nanos())
    }

    /// A byte count as sectors: 1..=[`MAX_REQUEST_SECTORS`].
    pub(crate) fn size_sectors(&self, what: &str, bytes: u64) -> Result<u32> {
        let n = bytes.div_ceil(512);
        if n == 0 || n > MAX_REQUEST_SECTORS {
            return Err(self.error(format!(
                "{what}: {bytes} bytes; a request must be 1 byte to 64 MiB"
            )));
        }
        Ok(n as u32)
    }
}

/// The non-blank lines of a CSV trace, each with its [`Line`] and its
/// comma-separated fields.
pub(crate) fn csv_lines<'a>(
    file: &'a str,
    text: &'a str,
) -> impl Iterator<Item = (Line<'a>, Vec<&'a str>)> {
    lines(text).enumerate().filter_map(move |(i, l)| {
        let l = l.trim();
        (!l.is_empty()).then(|| {
            (
                Line {
                    file,
                    number: i + 1,
                },
                l.split(',').collect(),
            )
        })
    })
}

/// A byte offset as a sector, refusing offsets no device has (2^63 bytes).
pub(crate) fn byte_sector(line: &Line, what: &str, bytes: u64) -> Result<u64> {
    if bytes > i64::MAX as u64 {
        return Err(line.error(format!("{what}: {bytes} bytes is beyond any device")));
    }
    Ok(bytes / 512)
}

/// Move each request by its file's or unit's `base` (the spaces, `what`,
/// laid end to end), refusing a sum past any device (2^63 bytes) rather
/// than wrapping.
pub(crate) fn add_bases(
    file: &str,
    what: &str,
    out: &mut [Raw],
    bases: impl Iterator<Item = u64>,
) -> Result<()> {
    for (r, base) in out.iter_mut().zip(bases) {
        r.sector = r
            .sector
            .checked_add(base)
            .filter(|s| {
                s.checked_add(u64::from(r.sectors))
                    .is_some_and(|e| e <= i64::MAX as u64 / 512)
            })
            .ok_or_else(|| {
                Line {
                    file,
                    number: r.line as usize,
                }
                .error(format!("the {what} laid end to end pass any device's size"))
            })?;
    }
    Ok(())
}

/// DiskSim's trace as requests: arrivals are the running sum of the
/// interarrival times (the recorded gaps; `validate` replays them closed
/// loop, a trace flow by its `timing`).
fn disksim_requests(name: &str, text: &str) -> Result<Vec<Raw>> {
    let records = disksim::parse_trace(name, text)?;
    let mut t = 0.0f64;
    let mut out = Vec::with_capacity(records.len());
    for (i, r) in records.iter().enumerate() {
        t += r.interarrival_us;
        if r.sectors as u64 > MAX_REQUEST_SECTORS {
            return Err(Error::new(
                name,
                format!("count: {} sectors; at most 131072", r.sectors),
            )
            .at_line(i + 1));
        }
        out.push(Raw {
            at_ns: (t * 1e3).min(3.2e16) as u64,
            sector: r.lbn,
            sectors: r.sectors,
            write: r.write,
            // DiskSim's reader skips blank lines; the index is the request's.
            line: (i + 1) as u32,
            source: 0,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
