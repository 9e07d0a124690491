//! fio job files: `[global]` and job sections of `option=value` lines
//! (`;` or `#` start a comment, at a line's start or after a value),
//! `include FILE`, `${VAR}` from the environment and fio's `$pagesize`,
//! `$mb_memory` and `$ncpus`, each job inheriting the global options given
//! before it, as fio reads them. Jobs may also come from the command line
//! (`--name=x --rw=read ...`, each `--name` starting a job). Which options
//! sluice honours is decided when the jobs become flows (`super::options`).

use std::path::Path;

use crate::error::Result;
use crate::names;

/// The longest line a job file may hold (a path is at most 4096 bytes).
const MAX_LINE: usize = 4200;

/// How deep `include` may nest.
const MAX_INCLUDE_DEPTH: usize = 8;

/// How many `include` lines a job file and what it includes may hold in
/// all: each file is read once per line that includes it, so without a
/// total a few files that include each other many times fan out
/// exponentially.
const MAX_INCLUDES: usize = 100;

/// What a job file's `include`s may still read: the bytes (the job file
/// and everything it includes hold at most a job file's cap together) and
/// the `include` lines left.
struct Budget {
    bytes: u64,
    includes: usize,
}

/// One job, after `[global]` inheritance.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// The section's name (`[name]`).
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
    pub fn split_options(&self) -> [Vec<(String, String)>; 2] {
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

    /// The last value the job's own section gives `key` (not `[global]`'s),
    /// with its line.
    pub fn own(&self, key: &str) -> Option<(&str, usize)> {
        self.options[self.inherited.min(self.options.len())..]
            .iter()
            .rev()
            .find(|(k, _, _)| k == key)
            .map(|(_, v, l)| (v.as_str(), *l))
    }

    /// The last value given for `key` (jobs override globals), with its line.
    pub fn get(&self, key: &str) -> Option<(&str, usize)> {
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
        "blocksize_range" => "bsrange",
        "blocksize_unaligned" | "bs_unaligned" => "bs_unaligned",
        "nr_files" => "nrfiles",
        "ratemin" => "rate_min",
        "threads" => "thread",
        "wait_for_previous" => "stonewall",
        "io_limit" => "io_size",
        "timeout" => "runtime",
        "iodepth_batch_submit" => "iodepth_batch",
        "ss" => "steadystate",
        "ss_dur" => "steadystate_duration",
        "ss_ramp" => "steadystate_ramp_time",
        other => other,
    }
}

/// A job file's jobs, with the names its scenarios and messages use.
#[derive(Clone, Debug, PartialEq)]
pub struct JobFile {
    /// The file's name in messages (`command line` for jobs given as
    /// options).
    pub name: String,
    /// The scenarios' name: the file's stem (`fio` for command-line jobs).
    pub stem: String,
    /// The jobs, in file order.
    pub jobs: Vec<Job>,
}

impl JobFile {
    /// Read and parse the job file at `path` (bounded, UTF-8).
    pub fn read(path: &Path) -> Result<JobFile> {
        let text = sluice_input::read_text(path, sluice_input::Kind::FioJob)?;
        JobFile::parse(path, &text)
    }

    /// Parse `text`, the job file at `path` (`include`s are read from its
    /// folder).
    pub fn parse(path: &Path, text: &str) -> Result<JobFile> {
        let name = path.display().to_string();
        Ok(JobFile {
            jobs: parse(&name, text)?,
            stem: path
                .file_stem()
                .map_or("fio".to_string(), |s| s.to_string_lossy().into_owned()),
            name,
        })
    }

    /// Jobs from fio's command-line options (`--name=x --rw=read ...`).
    pub fn from_args(args: &[String]) -> Result<JobFile> {
        Ok(JobFile {
            name: "command line".to_string(),
            stem: "fio".to_string(),
            jobs: parse_args(args)?,
        })
    }

    /// Options after the file's name: as under fio, jobs of their own.
    pub fn add_args(&mut self, args: &[String]) -> Result<()> {
        self.jobs.extend(parse_args(args)?);
        Ok(())
    }

    /// The `[global]` options the last job inherits (fio's `global
    /// options`).
    pub fn global_options(&self) -> Vec<(String, String)> {
        self.jobs
            .last()
            .map(|j| j.split_options()[0].clone())
            .unwrap_or_default()
    }
}

/// Parse a job file (`file` names it in errors; `include`s are read from
/// its folder).
pub(super) fn parse(file: &str, text: &str) -> Result<Vec<Job>> {
    let dir = Path::new(file).parent().unwrap_or(Path::new(""));
    let mut lines = Vec::new();
    let mut budget = Budget {
        bytes: sluice_input::Kind::FioJob
            .cap()
            .saturating_sub(text.len() as u64),
        includes: MAX_INCLUDES,
    };
    flatten(file, text, dir, 0, &mut budget, &mut lines)?;
    sections(file, &lines)
}

/// Jobs from command-line arguments (`--name=x --rw=read ...`): each
/// `--name` starts a job; options before the first go to every job.
pub(super) fn parse_args(args: &[String]) -> Result<Vec<Job>> {
    let mut lines = Vec::new();
    for (i, a) in args.iter().enumerate() {
        let Some(opt) = a.strip_prefix("--") else {
            bail!("command line: '{a}': expected --option=value (a job file comes first)");
        };
        let (k, v) = opt.split_once('=').unwrap_or((opt, ""));
        if k == "name" {
            lines.push((format!("[{v}]"), i + 1));
        } else if lines.is_empty() || k.is_empty() {
            if k.is_empty() {
                bail!("command line: '{a}': expected --option=value");
            }
            lines.insert(0, ("[global]".to_string(), 0));
            lines.push((opt.to_string(), i + 1));
        } else {
            lines.push((opt.to_string(), i + 1));
        }
    }
    // Options before the first --name belong to [global], which the insert
    // put first; move the job headers after them stays in order.
    sections("command line", &lines)
}

/// The file's lines with comments stripped and includes expanded, each with
/// its line number in the file it came from.
fn flatten(
    file: &str,
    text: &str,
    dir: &Path,
    depth: usize,
    budget: &mut Budget,
    out: &mut Vec<(String, usize)>,
) -> Result<()> {
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        // Every name and value below may reach the terminal (in output or
        // an error): no control (but tab) or bidi-override characters.
        if raw.chars().any(|c| c != '\t' && names::unsafe_char(c)) {
            bail!(
                "{file}: line {n}: the line holds a control or bidi-override character: \"{}\"",
                names::excerpt(raw.trim(), 100)
            );
        }
        // fio ends a line at `#` or `;`, at its start or after a value.
        let line = raw.find(['#', ';']).map_or(raw, |at| &raw[..at]).trim();
        if line.is_empty() {
            continue;
        }
        // Errors quote names and values back: none is longer than a path may be.
        if line.len() > MAX_LINE {
            bail!(
                "{file}: line {n}: {} characters; a job file line holds at most {MAX_LINE}",
                line.chars().count()
            );
        }
        if let Some(inc) = line
            .strip_prefix("include")
            .filter(|r| r.starts_with([' ', '\t']))
        {
            let inc = inc.trim();
            if depth >= MAX_INCLUDE_DEPTH {
                bail!("{file}: line {n}: include {inc}: includes nest deeper than {MAX_INCLUDE_DEPTH}");
            }
            if budget.includes == 0 {
                bail!("{file}: line {n}: include {inc}: more than {MAX_INCLUDES} includes in all (the job file and what it includes)");
            }
            budget.includes -= 1;
            let path = dir.join(inc);
            let text = match sluice_input::read_text(&path, sluice_input::Kind::FioJob) {
                Ok(t) => t,
                Err(e) => bail!("{file}: line {n}: include {inc}: {e}"),
            };
            if text.len() as u64 > budget.bytes {
                bail!(
                    "{file}: line {n}: include {inc}: the job file and its includes hold more than {} MiB in all",
                    sluice_input::Kind::FioJob.cap() >> 20
                );
            }
            budget.bytes -= text.len() as u64;
            let sub = path.display().to_string();
            let sub_dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
            flatten(&sub, &text, &sub_dir, depth + 1, budget, out)?;
            continue;
        }
        out.push((line.to_string(), n));
    }
    Ok(())
}

/// Replace `${VAR}` (environment) and fio's `$pagesize`, `$mb_memory`,
/// `$ncpus` in a value.
fn substitute(file: &str, n: usize, value: &str) -> Result<String> {
    if !value.contains('$') {
        return Ok(value.to_string());
    }
    let mut out = String::new();
    let mut rest = value;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 1..];
        if let Some(inner) = tail.strip_prefix('{') {
            let Some(end) = inner.find('}') else {
                bail!("{file}: line {n}: '{value}': '${{' without '}}'");
            };
            let var = &inner[..end];
            // Unset, it stays: refused where the jobs become flows, after
            // a job's engine has had its say (`unset_variable`).
            match std::env::var(var) {
                Ok(v) => out.push_str(&v),
                Err(_) => out.push_str(&format!("${{{var}}}")),
            }
            rest = &inner[end + 1..];
            continue;
        }
        let word_end = tail
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .unwrap_or(tail.len());
        let word = &tail[..word_end];
        let v = match word {
            "pagesize" => "4096".to_string(),
            "ncpus" => std::thread::available_parallelism()
                .map_or(1, |n| n.get())
                .to_string(),
            "mb_memory" => mb_memory().to_string(),
            // fio's filename_format keywords ($jobnum, $filenum, ...) stay.
            _ => format!("${word}"),
        };
        out.push_str(&v);
        rest = &tail[word_end..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The first `${VAR}` left in a job's values (the environment lacks it), as
/// a refusal naming its line.
pub(super) fn unset_variable(file: &str, job: &Job) -> Result<()> {
    for (_, v, n) in &job.options {
        if let Some(at) = v.find("${") {
            let var = v[at..].split('}').next().unwrap_or("");
            bail!("{file}: line {n}: '{var}}}' is not set in the environment");
        }
    }
    Ok(())
}

/// The machine's memory, MiB (fio's `$mb_memory`).
fn mb_memory() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(4096, |kib| kib / 1024)
}

/// Sections of (line, number) pairs into jobs.
fn sections(file: &str, lines: &[(String, usize)]) -> Result<Vec<Job>> {
    let mut jobs = Vec::new();
    let mut global: Vec<(String, String, usize)> = Vec::new();
    let mut current: Option<Job> = None;
    let mut in_global = false;
    for (line, n) in lines {
        let n = *n;
        if let Some(rest) = line.strip_prefix('[') {
            let Some(name) = rest
                .strip_suffix(']')
                .map(str::trim)
                .filter(|s| !s.is_empty())
            else {
                bail!(
                    "{file}: line {n}: a section header is `[name]`, got '{}'",
                    names::excerpt(line, 100)
                );
            };
            if let Some(j) = current.take() {
                jobs.push(j);
            }
            in_global = name == "global";
            if !in_global {
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
            None => (line.as_str(), ""),
        };
        let key = canonical(key);
        let value = substitute(file, n, value)?;
        let entry = (key.to_string(), value, n);
        match &mut current {
            Some(job) => job.options.push(entry),
            None if in_global => global.push(entry),
            None => bail!("{file}: line {n}: option '{key}' before any [section]"),
        }
    }
    if let Some(j) = current.take() {
        jobs.push(j);
    }
    if jobs.is_empty() {
        bail!("{file}: no job sections (a job is a [name] section other than [global])");
    }
    Ok(jobs)
}

/// A size: bytes, or with a unit k, m, g, t, p (powers of 1024, as fio's
/// default kb_base; `kib`, `kb` and `b` suffixes alike).
#[cfg(test)]
pub(super) fn size(file: &str, key: &str, value: &str, line: usize) -> Result<u64> {
    size_in(file, key, value, line, false)
}

/// A size as [`size`]; with `kb_base=1000` (`si`), `k`, `kb`, `m`, ... are
/// powers of 1000 and only `kib`, `mib`, ... powers of 1024, as fio has it.
pub(super) fn size_in(file: &str, key: &str, value: &str, line: usize, si: bool) -> Result<u64> {
    let v = value.trim().to_ascii_lowercase();
    let digits = v
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(v.len());
    let (num, unit) = v.split_at(digits);
    let unit = unit.trim();
    let binary = !si || unit.ends_with("ib");
    let base: f64 = if binary { 1024.0 } else { 1000.0 };
    let power = match unit.trim_end_matches("ib").trim_end_matches('b') {
        "" => 0,
        "k" => 1,
        "m" => 2,
        "g" => 3,
        "t" => 4,
        "p" => 5,
        _ => bail!("{file}: line {line}: {key}={value}: expected a size such as 4k, 128k, 1g"),
    };
    let bad = || {
        crate::import::fail(format!(
            "{file}: line {line}: {key}={value}: expected a size such as 4k, 128k, 1g"
        ))
    };
    if !num.contains('.') {
        let mult = (base as u64).checked_pow(power).ok_or_else(bad)?;
        return num
            .parse::<u64>()
            .ok()
            .and_then(|n| n.checked_mul(mult))
            .ok_or_else(bad);
    }
    match num.parse::<f64>().map(|x| x * base.powi(power as i32)) {
        Ok(b) if b.is_finite() && (0.0..1.8e19).contains(&b) => Ok(b.round() as u64),
        _ => Err(bad()),
    }
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
    fn bad_sections_are_named() {
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
