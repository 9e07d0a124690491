//! Scenarios from other tools' own configurations: [`fio`] reads fio's
//! job files (and prints results as fio does); [`dmclock`] reads dmClock's simulator configuration
//! (`sim/dmc_sim_example.conf` of ceph/dmclock), [`seastar`] an io_tester
//! job file with its `io_properties.yaml` (scylladb/seastar). Each gives a
//! [`ScenarioBuilder`] on a rate device ([`sluice_device::rate`]) with
//! the notes of what was approximated; [`mqsim`] reads MQSim's workload
//! file onto the MQSim device its `ssdconfig.xml` describes; [`Imported::to_toml`] writes it as
//! a scenario file that `sim`, `run` and `compare` take.
//!
//! Inputs are read with `sluice_input`'s bounded reader ([`read_input`]);
//! YAML's nesting is bounded before it is parsed ([`yaml`]); every error
//! is one line.

pub mod dmclock;
pub mod fio;
pub mod mqsim;
pub mod seastar;
pub mod yaml;

use std::path::Path;

/// What an input file is, for [`read_input`] (`sluice_input`'s kinds).
pub use sluice_input::Kind;

use crate::error::{Error, Result};
use crate::scenario::ScenarioBuilder;

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

/// `s` on one line and safe to print: control characters (line breaks)
/// as spaces, the other characters that reorder or hide text (a job named
/// "x\u{202e}y") escaped, as names are.
fn one_line(s: &str) -> String {
    let spaced: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    crate::names::printable(&spaced).into_owned()
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

/// Read `path` as a `kind` file with the bounded reader (a regular file
/// within the kind's cap, UTF-8); a YAML kind ([`Kind::SeastarJobs`],
/// [`Kind::IoProperties`]) must also nest at most [`yaml::MAX_DEPTH`]
/// deep. Errors are one line naming the path.
pub fn read_input(path: &Path, kind: Kind) -> Result<String> {
    let text = sluice_input::read_text(path, kind).map_err(|e| fail(one_line(&e.to_string())))?;
    if matches!(kind, Kind::SeastarJobs | Kind::IoProperties) {
        if let Some(line) = yaml::too_deep(&text) {
            return Err(fail(format!(
                "{}: {}",
                one_line(&path.display().to_string()),
                yaml::nesting_error(line)
            )));
        }
    }
    Ok(text)
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
    fn importers_read_their_files_with_the_bounded_reader() {
        let dir = sluice_input::testkit::scratch("import-read");
        for kind in [
            Kind::DmClockConfig,
            Kind::SeastarJobs,
            Kind::IoProperties,
            Kind::MqsimWorkload,
        ] {
            for (path, says) in sluice_input::testkit::refused(&dir, kind) {
                let e = read_input(&path, kind).unwrap_err().to_string();
                assert!(e.contains(says) && !e.contains('\n'), "{kind:?}: {e}");
            }
            let e = read_input(&dir.join("none"), kind).unwrap_err().to_string();
            assert!(e.contains("none: cannot read") && !e.contains('\n'), "{e}");
        }
        let deep = dir.join("deep.yaml");
        std::fs::write(
            &deep,
            format!("a: 1\njunk: {}\n", "[".repeat((1 << 20) - 20)),
        )
        .unwrap();
        let e = read_input(&deep, Kind::SeastarJobs)
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with("deep.yaml: line 2: collections nest deeper than 64 levels"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
