//! Application start-up traces (the S benchmark suite's recordings): parsed
//! into per-thread scripts that a start-up flow replays.

use std::path::Path;
use std::sync::Arc;

use sluice::Duration;
use sluice_input::{Kind, Problem};

use crate::error::{Error, Result};

pub mod think;

/// The traces shipped with sluice: xterm and gnome-terminal from the S
/// suite (GPL-2.0, see `data/startup/COPYING`), and bash, which the BFQ
/// paper starts in its video benchmark, recorded for sluice with
/// `scripts/record_startup.py` (see `data/startup/README.md`).
pub const EMBEDDED: &[(&str, &str)] = &[
    ("xterm", include_str!("../data/startup/xterm.trace")),
    ("gnometerm", include_str!("../data/startup/gnometerm.trace")),
    ("bash", include_str!("../data/startup/bash.trace")),
];

/// One recorded request.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StartupRecord {
    /// Index of its thread in [`StartupTrace::thread_names`].
    pub thread: u32,
    /// CPU time before the request, after the thread may issue.
    pub think: Duration,
    /// The recorded first sector.
    pub sector: u64,
    /// Length in sectors.
    pub sectors: u32,
    /// `Seq` (continues the previous request) or `Rand` (column 5): where
    /// the S suite's replay places the read.
    pub seq: bool,
    /// R, RM and WS block their thread until they and every earlier
    /// request of the thread complete; RA (read-ahead) does not.
    pub blocking: bool,
    /// `WS`: a synchronous write.
    pub write: bool,
}

/// The longest think time a start-up trace may record, in seconds (a day).
pub const MAX_THINK_S: f64 = 86_400.0;

/// A parsed start-up trace.
#[derive(Clone, Debug, PartialEq)]
pub struct StartupTrace {
    /// The trace's name (an embedded trace's, or its file's stem).
    pub name: String,
    /// The requests, in trace order.
    pub records: Vec<StartupRecord>,
    /// Record indices of each thread, in trace order.
    pub threads: Vec<Vec<u32>>,
    /// Each thread's name (column 1, `process-pid`).
    pub thread_names: Vec<String>,
    /// The estimated CPU time before each record, for `replay = "think"`
    /// (see [`think`]); computed once, here.
    pub think: Vec<Duration>,
}

impl StartupTrace {
    /// Parse trace text; `file` names it in errors.
    pub fn parse(name: &str, file: &str, text: &str) -> Result<Self> {
        let mut records = Vec::new();
        let mut thread_names: Vec<String> = Vec::new();
        for (i, line) in sluice_input::lines(text).enumerate() {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.is_empty() {
                continue;
            }
            let err = |m: String| Error::new(file, m).at_line(i + 1);
            if f.len() < 8 {
                return Err(err(format!("expected at least 8 columns, got {}", f.len())));
            }
            let thread = match thread_names.iter().position(|t| t == f[0]) {
                Some(t) => t,
                None => {
                    thread_names.push(f[0].to_string());
                    thread_names.len() - 1
                }
            } as u32;
            let think: f64 = f[1]
                .parse()
                .ok()
                .filter(|x: &f64| x.is_finite() && (0.0..=MAX_THINK_S).contains(x))
                .ok_or_else(|| {
                    err(format!(
                        "think time: expected seconds in 0..={MAX_THINK_S}, got '{}'",
                        f[1]
                    ))
                })?;
            let sectors: u32 = f[2]
                .parse()
                .ok()
                .filter(|&n| n > 0 && u64::from(n) <= THREAD_FILE_SECTORS)
                .ok_or_else(|| {
                    err(format!(
                        "size: expected sectors in 1..={THREAD_FILE_SECTORS} (a replay thread's file), got '{}'",
                        f[2]
                    ))
                })?;
            let sector: u64 = f[3]
                .parse()
                .map_err(|_| err(format!("sector: expected a number, got '{}'", f[3])))?;
            let seq = match f[4] {
                "Seq" => true,
                "Rand" => false,
                other => return Err(err(format!("expected Seq or Rand, got '{other}'"))),
            };
            let (blocking, write) = match f[7] {
                "R" | "RM" => (true, false),
                "RA" => (false, false),
                "WS" => (true, true),
                other => {
                    return Err(err(format!(
                        "action: expected R, RM, RA or WS, got '{other}'"
                    )))
                }
            };
            records.push(StartupRecord {
                thread,
                think: Duration::from_secs_f64(think),
                sector,
                sectors,
                seq,
                blocking,
                write,
            });
        }
        if records.is_empty() {
            return Err(Error::new(file, "the trace holds no requests"));
        }
        let mut threads = vec![Vec::new(); thread_names.len()];
        for (i, r) in records.iter().enumerate() {
            threads[r.thread as usize].push(i as u32);
        }
        Ok(StartupTrace {
            name: name.to_string(),
            think: think::estimate(&records),
            records,
            threads,
            thread_names,
        })
    }

    /// An embedded trace by name (`xterm`, `gnometerm`, `bash`), or a file.
    pub fn resolve(spec: &str, base: &Path) -> Result<Arc<Self>> {
        if let Some((name, text)) = EMBEDDED.iter().find(|(n, _)| *n == spec) {
            return Self::parse(name, name, text).map(Arc::new);
        }
        let path = base.join(spec);
        let text = sluice_input::read_text(&path, Kind::StartupTrace).map_err(|e| {
            let names: Vec<&str> = EMBEDDED.iter().map(|(n, _)| *n).collect();
            let message = match &e.problem {
                Problem::Io(io) => format!(
                    "trace '{spec}': not an embedded trace ({}) and cannot read {}: {io}",
                    names.join(", "),
                    path.display()
                ),
                // It exists but is no start-up trace: say why.
                _ => format!("trace '{spec}': {e}"),
            };
            Error::new("", message)
        })?;
        let name = path
            .file_stem()
            .map_or(spec.to_string(), |s| s.to_string_lossy().into_owned());
        Self::parse(&name, &path.display().to_string(), &text).map(Arc::new)
    }

    /// The estimated think time of the whole trace.
    pub fn total_think(&self) -> Duration {
        self.think.iter().copied().sum()
    }

    /// Sectors the trace reads or writes.
    pub fn total_sectors(&self) -> u64 {
        self.records.iter().map(|r| u64::from(r.sectors)).sum()
    }
}

/// Sectors of each thread's file in an s-suite replay: the tool's
/// 20,000,000-byte file, in whole 512-byte sectors.
pub const THREAD_FILE_SECTORS: u64 = 20_000_000 / 512;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_traces_parse_with_their_published_sizes() {
        let x = StartupTrace::resolve("xterm", Path::new(".")).unwrap();
        assert_eq!(x.records.len(), 718);
        assert_eq!(x.thread_names, vec!["xterm-31657", "Xorg-925"]);
        // 6.2 MB.
        assert!((x.total_sectors() * 512) as f64 / 1e6 > 6.0);
        let g = StartupTrace::resolve("gnometerm", Path::new(".")).unwrap();
        assert_eq!(g.records.len(), 2781);
        assert!(g.threads.len() >= 6);
        // bash -c exit, one process; 1.3 MB, the smallest of the three.
        let b = StartupTrace::resolve("bash", Path::new(".")).unwrap();
        assert_eq!(b.records.len(), 260);
        assert_eq!(b.threads.len(), 1);
        assert_eq!(b.total_sectors(), 2624);
        assert!(b.total_sectors() < x.total_sectors());
    }

    /// The totals `data/startup/README.md` gives for `replay = "think"`.
    #[test]
    fn embedded_traces_think_as_their_readme_says() {
        for (name, think_s) in [("xterm", 1.229), ("gnometerm", 0.342), ("bash", 0.003)] {
            let t = StartupTrace::resolve(name, Path::new(".")).unwrap();
            assert_eq!(t.think.len(), t.records.len());
            let total = t.total_think().as_secs_f64();
            assert!((total - think_s).abs() < 0.0005, "{name}: {total}");
        }
    }

    #[test]
    fn actions_map_to_blocking_and_direction() {
        let t = StartupTrace::parse(
            "t",
            "t",
            "a-1 0 8 100 Rand 0 0 RM 0 START\na-1 .5 8 108 Seq 0 8 RA 0.5 C\nb-2 0 16 50 Rand 0 0 WS 0.6 C\n",
        )
        .unwrap();
        assert!(t.records[0].blocking);
        assert!(!t.records[1].blocking);
        assert_eq!(t.records[1].think, Duration::from_millis(500));
        assert!(t.records[2].write && t.records[2].blocking);
        assert_eq!(t.threads, vec![vec![0, 1], vec![2]]);
    }

    #[test]
    fn bad_lines_are_named() {
        let e = StartupTrace::parse("t", "t", "a-1 0 8 100 Rand 0 0 XX 0 C\n").unwrap_err();
        assert_eq!(e.line, Some(1));
        let e = e.to_string();
        assert!(e.starts_with("t: line 1: ") && e.contains("XX"), "{e}");
        assert!(StartupTrace::resolve("no-such-trace", Path::new("/nonexistent")).is_err());
    }
}
