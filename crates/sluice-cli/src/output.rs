//! What several subcommands share: printing a result as a table or JSON,
//! writing to stdout without panicking on a closed pipe, and loading a
//! scenario with its command-line overrides.

use std::path::Path;

use anyhow::{bail, Context, Result};
use sluice_runtime::Scenario;

/// Create the output file `path` that flag `flag` names: exclusively,
/// never through a link (sluice does not truncate or replace what exists:
/// a name that exists is a refusal, exit 2).
pub(crate) fn create_output(flag: &str, path: &Path) -> Result<std::fs::File> {
    match sluice_input::create_new(path, 0o644) {
        Ok(f) => Ok(f),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            Err(sluice_real::Refused(format!(
                "{flag} {}: exists; sluice does not overwrite files (remove it or name another)",
                path.display()
            ))
            .into())
        }
        Err(e) => Err(e).with_context(|| format!("{flag} {}", path.display())),
    }
}

/// The file `--log-requests` names, created before a run so that a bad
/// path fails first; removed again if the run fails (it was empty).
pub(crate) struct RequestLogFile(Option<(std::fs::File, std::path::PathBuf)>);

impl RequestLogFile {
    /// Create `path` (if given) exclusively.
    pub(crate) fn create(path: Option<&Path>) -> Result<Self> {
        Ok(RequestLogFile(match path {
            Some(p) => Some((create_output("--log-requests", p)?, p.to_path_buf())),
            None => None,
        }))
    }

    /// Write the run's log into the file (a run that kept none writes
    /// only the header).
    pub(crate) fn write(
        mut self,
        log: Option<&sluice_runtime::request_log::RequestLog>,
    ) -> Result<()> {
        let Some((file, path)) = self.0.take() else {
            return Ok(());
        };
        let empty = sluice_runtime::request_log::RequestLog::default();
        log.unwrap_or(&empty)
            .write_csv(file)
            .with_context(|| format!("--log-requests {}", path.display()))
    }
}

impl Drop for RequestLogFile {
    fn drop(&mut self) {
        // Never written: the run failed; take the empty file away again.
        if let Some((_, path)) = self.0.take() {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Print `value` as pretty JSON, or as the text `table` makes of it.
pub(crate) fn emit<T: serde::Serialize>(
    json: bool,
    value: &T,
    table: impl Fn(&T) -> String,
) -> Result<()> {
    if json {
        write_out(&(serde_json::to_string_pretty(value)? + "\n"))
    } else {
        write_out(&table(value))
    }
}

/// Write `text` to stdout; a failure (a closed pipe, a full disk) is an
/// error, not a panic.
pub(crate) fn write_out(text: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("writing the output")
}

/// Whether `e` comes from writing to a closed pipe.
pub(crate) fn broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The scenario at `path` with `--seed` and `--scheduler` applied; an
/// unknown policy is an error naming the flag.
pub(crate) fn load(path: &Path, seed: Option<u64>, scheduler: Option<&str>) -> Result<Scenario> {
    refuse_fio_job(path)?;
    let mut s = Scenario::load(path)?;
    sluice_runtime::overrides::apply(&mut s, seed, scheduler)
        .with_context(|| format!("--scheduler {}", scheduler.unwrap_or_default()))?;
    Ok(s)
}

/// A fio job file given where a scenario is expected: say which command
/// takes it, instead of the TOML parser's "invalid key".
pub(crate) fn refuse_fio_job(path: &Path) -> Result<()> {
    let fio_name = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("fio"));
    if fio_name {
        bail!(
            "{} is a fio job file, not a scenario: run it with `sluice fio {}`",
            path.display(),
            path.display()
        );
    }
    Ok(())
}

/// Refuse a timeline whose bins would not fit in memory (`run` checks
/// its own, once its duration is known).
pub(crate) fn check_timeline(s: &Scenario, bin: sluice::Duration) -> Result<()> {
    sluice_runtime::overrides::check_timeline(s, bin)
        .with_context(|| format!("--timeline {}", bin.as_millis_f64()))
}
