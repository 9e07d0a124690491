//! fio job files: `[global]` and job sections of `option=value` lines
//! (`;` or `#` start a comment), each job inheriting the global options
//! given before it, as fio reads them. Only the options sluice can honour
//! are accepted; any other is an error naming it, its line and its value.

use anyhow::{bail, Result};

/// The options a job may set, with what each does here (`sluice fio
/// --help` says the same).
/// The longest line a job file may hold (a path is at most 4096 bytes).
const MAX_LINE: usize = 4200;

const OPTIONS: &[(&str, &str)] = &[
    (
        "rw",
        "read | write | randread | randwrite (readwrite is another name for rw)",
    ),
    (
        "bs",
        "request size, e.g. 4k, 128k, 1m (blocksize is another name)",
    ),
    ("size", "the job's file size, e.g. 1g"),
    (
        "offset",
        "where the job's file starts on the simulated device",
    ),
    ("iodepth", "requests kept in flight"),
    ("numjobs", "copies of the job, each its own flow"),
    ("runtime", "seconds (or with a unit: ms, s, m, h)"),
    ("time_based", "run for runtime even after size is done"),
    (
        "ramp_time",
        "seconds run before runtime starts, not measured (time_based jobs)",
    ),
    (
        "thinktime",
        "pause after each completion, microseconds (or us, ms, s)",
    ),
    ("rate_iops", "at most this many requests per second"),
    (
        "direct",
        "1 only: sluice issues direct I/O (the simulator models no page cache)",
    ),
    ("name", "the job's name (else its section's)"),
    ("description", "free text"),
    (
        "ioengine",
        "accepted and not used: sluice's engine is io_uring",
    ),
    ("thread", "accepted and not used"),
    (
        "directory",
        "--run: the folder sluice makes the jobs' files in (--dir overrides)",
    ),
    (
        "filename",
        "simulated: not used (the modelled drive is the target); --run: an error (use directory)",
    ),
];

/// One job, after `[global]` inheritance.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Job {
    pub name: String,
    /// The section's first line, for messages.
    pub line: usize,
    /// (option, value, line), in file order, globals first.
    pub options: Vec<(String, String, usize)>,
    /// How many of `options` came from `[global]` sections.
    pub inherited: usize,
}

impl Job {
    /// The options of the `[global]` sections before the job, then its
    /// own, as (option, value) with the later of a repeated option kept:
    /// fio's `global options` and `job options`.
    pub(super) fn split_options(&self) -> [Vec<(String, String)>; 2] {
        let (globals, own) = self.options.split_at(self.inherited);
        [globals, own].map(|opts| {
            let mut out: Vec<(String, String)> = Vec::new();
            for (k, v, _) in opts {
                out.retain(|(seen, _)| seen != k);
                out.push((k.clone(), v.clone()));
            }
            out
        })
    }

    /// The last value given for `key` (jobs override globals), with its line.
    pub(super) fn get(&self, key: &str) -> Option<(&str, usize)> {
        self.options
            .iter()
            .rev()
            .find(|(k, _, _)| k == key)
            .map(|(_, v, l)| (v.as_str(), *l))
    }
}

/// The canonical name of an option alias.
fn canonical(key: &str) -> &str {
    match key {
        "readwrite" => "rw",
        "blocksize" => "bs",
        other => other,
    }
}

/// Parse a job file (`file` names it in errors).
pub(super) fn parse(file: &str, text: &str) -> Result<Vec<Job>> {
    let mut jobs = Vec::new();
    let mut global: Vec<(String, String, usize)> = Vec::new();
    let mut current: Option<Job> = None;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        // Every name and value below may reach the terminal (in output or
        // an error): no control (but tab) or bidi-override characters.
        if raw
            .chars()
            .any(|c| c != '\t' && sluice_runtime::names::unsafe_char(c))
        {
            bail!(
                "{file}: line {n}: the line holds a control or bidi-override character: \"{}\"",
                sluice_runtime::names::excerpt(raw.trim(), 100)
            );
        }
        let line = raw.trim();
        if line.is_empty() || line.starts_with(';') || line.starts_with('#') {
            continue;
        }
        // Errors quote names and values back: none is longer than a path may be.
        if line.len() > MAX_LINE {
            bail!(
                "{file}: line {n}: {} characters ({}); a job file line holds at most {MAX_LINE}",
                line.chars().count(),
                sluice_runtime::names::excerpt(line, 60)
            );
        }
        if let Some(rest) = line.strip_prefix('[') {
            let Some(name) = rest
                .strip_suffix(']')
                .map(str::trim)
                .filter(|s| !s.is_empty())
            else {
                bail!(
                    "{file}: line {n}: a section header is `[name]`, got '{}'",
                    sluice_runtime::names::excerpt(line, 100)
                );
            };
            if let Some(j) = current.take() {
                jobs.push(j);
            }
            if name == "global" {
                current = None;
                // Options up to the next section go to every later job.
                jobs.push(Job {
                    name: String::new(),
                    line: n,
                    options: Vec::new(),
                    inherited: 0,
                });
            } else {
                current = Some(Job {
                    name: name.to_string(),
                    line: n,
                    options: global.clone(),
                    inherited: global.len(),
                });
            }
            continue;
        }
        let (key, value) = match line.split_once('=') {
            Some((k, v)) => (k.trim(), v.trim()),
            None => (line, ""),
        };
        let key = canonical(key);
        if !OPTIONS.iter().any(|(k, _)| *k == key) {
            let known: Vec<_> = OPTIONS.iter().map(|(k, _)| *k).collect();
            bail!(
                "{file}: line {n}: option '{key}' (value '{value}') is not supported by sluice fio (supported: {})",
                known.join(", ")
            );
        }
        let entry = (key.to_string(), value.to_string(), n);
        match &mut current {
            Some(job) => job.options.push(entry),
            None if jobs.last().is_some_and(|j| j.name.is_empty()) => global.push(entry),
            None => bail!("{file}: line {n}: option '{key}' before any [section]"),
        }
    }
    if let Some(j) = current.take() {
        jobs.push(j);
    }
    jobs.retain(|j| !j.name.is_empty());
    if jobs.is_empty() {
        bail!("{file}: no job sections (a job is a [name] section other than [global])");
    }
    Ok(jobs)
}

/// A size: bytes, or with a unit k, m, g, t (powers of 1024, as fio's
/// default kb_base; `kib`, `kb` and `b` suffixes alike).
pub(super) fn size(file: &str, key: &str, value: &str, line: usize) -> Result<u64> {
    let v = value.trim().to_ascii_lowercase();
    let digits = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let (num, unit) = v.split_at(digits);
    let mult: u64 = match unit.trim_end_matches("ib").trim_end_matches('b') {
        "" => 1,
        "k" => 1 << 10,
        "m" => 1 << 20,
        "g" => 1 << 30,
        "t" => 1 << 40,
        _ => bail!("{file}: line {line}: {key}={value}: expected a size such as 4k, 128k, 1g"),
    };
    num.parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .ok_or_else(|| {
            anyhow::anyhow!(
                "{file}: line {line}: {key}={value}: expected a size such as 4k, 128k, 1g"
            )
        })
}

/// A time in seconds: a number with an optional unit (us, ms, s, m, h);
/// `default_unit` applies without one (fio: seconds for runtime,
/// microseconds for thinktime).
pub(super) fn seconds(
    file: &str,
    key: &str,
    value: &str,
    line: usize,
    default_unit: f64,
) -> Result<f64> {
    let v = value.trim().to_ascii_lowercase();
    let split = v
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(v.len());
    let (num, unit) = v.split_at(split);
    let scale = match unit {
        "" => default_unit,
        "us" | "usec" => 1e-6,
        "ms" | "msec" => 1e-3,
        "s" | "sec" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => bail!("{file}: line {line}: {key}={value}: expected a time such as 10, 10s, 500ms"),
    };
    // The product is checked too: 1e305h is a finite number of hours but
    // no finite number of seconds.
    match num.parse::<f64>().map(|x| (x, x * scale)) {
        Ok((x, secs)) if x >= 0.0 && secs.is_finite() => Ok(secs),
        _ => bail!("{file}: line {line}: {key}={value}: expected a time such as 10, 10s, 500ms"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_inherit_the_globals_before_them_and_override_them() {
        let text = "; a comment\n[global]\nbs=4k\nsize=1g\n\n[a]\nrw=randread\nbs=8k\n# another\n[b]\nrw=read\n";
        let jobs = parse("j.fio", text).unwrap();
        assert_eq!(jobs.len(), 2);
        assert_eq!(jobs[0].name, "a");
        assert_eq!(jobs[0].get("bs"), Some(("8k", 8)));
        assert_eq!(jobs[1].get("bs"), Some(("4k", 3)));
        assert_eq!(jobs[1].get("size"), Some(("1g", 4)));
        assert_eq!(jobs[1].get("iodepth"), None);
    }

    #[test]
    fn flags_aliases_and_later_globals() {
        let text = "[a]\ntime_based\nblocksize=4k\n[global]\niodepth=8\n[b]\nreadwrite=write\n";
        let jobs = parse("j", text).unwrap();
        assert_eq!(jobs[0].get("time_based"), Some(("", 2)));
        assert_eq!(jobs[0].get("bs"), Some(("4k", 3)));
        // A global section applies to the jobs after it only.
        assert_eq!(jobs[0].get("iodepth"), None);
        assert_eq!(jobs[1].get("iodepth"), Some(("8", 5)));
        assert_eq!(jobs[1].get("rw"), Some(("write", 7)));
    }

    #[test]
    fn unsupported_options_and_bad_sections_are_named() {
        let e = parse("j.fio", "[x]\nrw=read\nzonemode=zbd\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("j.fio: line 3") && e.contains("'zonemode'") && e.contains("'zbd'"),
            "{e}"
        );
        assert!(parse("j", "[x\n")
            .unwrap_err()
            .to_string()
            .contains("line 1"));
        assert!(parse("j", "bs=4k\n[x]\n")
            .unwrap_err()
            .to_string()
            .contains("before any"));
        // Issue 24, defect 11: a control or bidi character anywhere is
        // refused with its line, shown escaped.
        let e = parse("j", "[a]\nsize=1m\ndescription=x\u{1b}[2J\u{202e}y\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "j: line 3: the line holds a control or bidi-override character: \"description=x\\u{1b}[2J\\u{202e}y\""
        );
        assert!(parse("j", "[a]\n\tsize=1m\n").is_ok());
        assert!(parse("j", "[global]\nbs=4k\n")
            .unwrap_err()
            .to_string()
            .contains("no job"));
    }

    #[test]
    fn sizes_and_times_with_units() {
        assert_eq!(size("j", "bs", "4k", 1).unwrap(), 4096);
        assert_eq!(size("j", "bs", "128KiB", 1).unwrap(), 131072);
        assert_eq!(size("j", "size", "1g", 1).unwrap(), 1 << 30);
        assert_eq!(size("j", "size", "512", 1).unwrap(), 512);
        assert!(size("j", "size", "50%", 1)
            .unwrap_err()
            .to_string()
            .contains("size=50%"));
        assert!(size("j", "size", "99999999999t", 1).is_err());
        assert_eq!(seconds("j", "runtime", "10", 1, 1.0).unwrap(), 10.0);
        assert_eq!(seconds("j", "runtime", "500ms", 1, 1.0).unwrap(), 0.5);
        assert_eq!(seconds("j", "thinktime", "2000", 1, 1e-6).unwrap(), 0.002);
        assert_eq!(seconds("j", "runtime", "2m", 1, 1.0).unwrap(), 120.0);
        assert!(seconds("j", "runtime", "soon", 1, 1.0).is_err());
        // Issue 24, defect 3: no unit or product may leave the number range.
        assert!(seconds("j", "runtime", &format!("{}h", "9".repeat(306)), 1, 1.0).is_err());
        assert!(size("j", "size", "18446744073709551615k", 1).is_err());
        assert!(size("j", "offset", "16777216t", 1).is_err());
    }
}
