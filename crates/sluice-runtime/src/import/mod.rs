//! Scenarios from other tools' own configurations: [`fio`] reads fio's
//! job files (and prints results as fio does); [`dmclock`] reads dmClock's simulator configuration
//! (`sim/dmc_sim_example.conf` of ceph/dmclock), [`seastar`] an io_tester
//! job file with its `io_properties.yaml` (scylladb/seastar). Each gives a
//! [`ScenarioBuilder`] on a rate device ([`sluice_device::rate`]) with
//! the notes of what was approximated; [`Imported::to_toml`] writes it as
//! a scenario file that `sim`, `run` and `compare` take.
//!
//! Inputs are read whole but bounded ([`MAX_INPUT_BYTES`]); every error is
//! one line.

pub mod dmclock;
pub mod fio;
pub mod seastar;

use std::io::Read;
use std::path::Path;

use crate::error::{Error, Result};
use crate::scenario::ScenarioBuilder;

/// The largest input file an importer reads (1 MiB: the configurations
/// are a few hundred bytes).
pub const MAX_INPUT_BYTES: u64 = 1 << 20;

/// A scenario built from another tool's configuration, with what was
/// approximated or left out.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    /// The scenario.
    pub scenario: ScenarioBuilder,
    /// One line each: how a setting was mapped where it is not exact.
    pub notes: Vec<String>,
}

impl Imported {
    /// The scenario file: a comment header (`source`, then the notes), then
    /// the scenario's TOML.
    pub fn to_toml(&self, source: &str) -> Result<String> {
        let mut out = format!("# {}\n", one_line(source));
        for n in &self.notes {
            out.push_str(&format!("# - {}\n", one_line(n)));
        }
        out.push_str(&self.scenario.to_toml()?);
        Ok(out)
    }
}

/// `s` with control characters (line breaks) replaced by spaces.
fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// An error naming no file (the caller prefixes the input's name).
pub(crate) fn fail(message: impl Into<String>) -> Error {
    Error::new("", message)
}

/// An import's result once its scenario builds: what `sim` would refuse
/// (a name used twice, a rate out of range) is refused at import, in one
/// line, instead of in a file that does not run.
pub(crate) fn checked(scenario: ScenarioBuilder, notes: Vec<String>) -> Result<Imported> {
    if let Err(e) = scenario.build() {
        return Err(fail(format!("the scenario it makes would not run: {e}")));
    }
    Ok(Imported { scenario, notes })
}

/// Read `path` (UTF-8, at most [`MAX_INPUT_BYTES`]); errors are one line
/// naming `what` and the path.
pub fn read_input(path: &Path, what: &str) -> Result<String> {
    let name = path.display().to_string();
    let f =
        std::fs::File::open(path).map_err(|e| fail(format!("{what} {}: {e}", one_line(&name))))?;
    let mut bytes = Vec::new();
    f.take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(format!("{what} {}: {e}", one_line(&name))))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(fail(format!(
            "{what} {}: larger than {} KiB; not a configuration file",
            one_line(&name),
            MAX_INPUT_BYTES / 1024
        )));
    }
    String::from_utf8(bytes)
        .map_err(|_| fail(format!("{what} {}: not UTF-8 text", one_line(&name))))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Every truncation of `text` (at a character boundary), then `text`
    /// with each line in turn replaced by each of `junk`: inputs an
    /// importer must refuse in one line or import, never panic on.
    pub(crate) fn mangled(text: &str, junk: &[&str]) -> Vec<String> {
        let mut out: Vec<String> = (0..text.len())
            .filter(|&i| text.is_char_boundary(i))
            .map(|i| text[..i].to_string())
            .collect();
        let lines: Vec<&str> = text.lines().collect();
        for i in 0..lines.len() {
            for &j in junk {
                let mut l = lines.clone();
                l[i] = j;
                out.push(l.join("\n"));
            }
        }
        out
    }

    /// An import of `input`: a non-empty one-line error, or a scenario
    /// that builds.
    pub(crate) fn fails_in_one_line_or_builds(result: Result<Imported>, input: &str) {
        match result {
            Err(e) => {
                let e = e.to_string();
                assert!(!e.contains('\n') && !e.is_empty(), "{e}");
            }
            Ok(imp) => {
                if let Err(e) = imp.scenario.build() {
                    panic!("{input}\n-> {e}");
                }
            }
        }
    }

    #[test]
    fn oversized_and_missing_inputs_are_one_line_errors() {
        let dir = std::env::temp_dir().join(format!("sluice-import-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let big = dir.join("big.conf");
        std::fs::write(&big, vec![b'#'; (MAX_INPUT_BYTES + 10) as usize]).unwrap();
        let e = read_input(&big, "dmClock configuration")
            .unwrap_err()
            .to_string();
        assert!(e.contains("larger than 1024 KiB"), "{e}");
        let e = read_input(&dir.join("none"), "io properties")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("io properties ") && !e.contains('\n'), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
