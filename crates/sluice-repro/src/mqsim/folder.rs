//! The files a scenario reads when it is built (the device configuration
//! `[device] mqsim` names, the traces), written out of the binary, one
//! folder per experiment (`backend/ssdconfig.xml`,
//! `wsrch/traces/wsrch-small.trace`): with `--save-scenarios DIR` under
//! `DIR/mqsim/` (kept, so the saved scenarios run again), otherwise under a
//! fresh temporary folder removed when the runs are done.

use std::path::{Path, PathBuf};

use sluice_runtime::{Error, Result};

use super::data::Files;

/// The folder holding the files; a temporary one is removed on drop.
pub(crate) struct DataDir {
    path: PathBuf,
    temporary: bool,
}

impl DataDir {
    /// The files of `experiments` written under `save/mqsim` (with a
    /// folder to save into) or a new temporary folder.
    pub(crate) fn new(experiments: &[Files], save: Option<&Path>) -> Result<DataDir> {
        let dir = match save {
            Some(s) => {
                // Absolute: the saved scenarios name these files, and run
                // from any folder.
                let path = s.join("mqsim");
                let path = std::path::absolute(&path).map_err(|e| io_error(&path, e))?;
                std::fs::create_dir_all(&path).map_err(|e| io_error(&path, e))?;
                DataDir {
                    path,
                    temporary: false,
                }
            }
            None => DataDir {
                path: fresh_temp_dir()?,
                temporary: true,
            },
        };
        for files in experiments {
            let config = [("ssdconfig.xml", files.ssdconfig.as_bytes())];
            for (name, bytes) in config.iter().chain(files.traces) {
                let path = dir.of(files).join(name);
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| io_error(parent, e))?;
                }
                write_new(&path, bytes)?;
            }
        }
        Ok(dir)
    }

    /// An experiment's folder: its workload files' relative trace paths
    /// resolve in it.
    pub(crate) fn of(&self, files: &Files) -> PathBuf {
        self.path.join(files.id)
    }

    /// An experiment's device configuration, for `[device] mqsim`.
    pub(crate) fn ssdconfig(&self, files: &Files) -> PathBuf {
        self.of(files).join("ssdconfig.xml")
    }
}

impl Drop for DataDir {
    fn drop(&mut self) {
        if self.temporary {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

fn io_error(path: &Path, e: std::io::Error) -> Error {
    Error::new(path.display().to_string(), e.to_string())
}

/// A folder of our own under the system's temporary one: created, never
/// one that existed (another process's, or a planted link).
fn fresh_temp_dir() -> Result<PathBuf> {
    let base = std::env::temp_dir();
    for k in 0..10_000u32 {
        let path = base.join(format!("sluice-repro-mqsim-{}-{k}", std::process::id()));
        match std::fs::create_dir(&path) {
            Ok(()) => return Ok(path),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io_error(&path, e)),
        }
    }
    Err(Error::new(
        base.display().to_string(),
        "no free name for a temporary folder",
    ))
}

/// `bytes` written to `path`; a file there already (a save folder used
/// twice) is accepted if it holds `bytes`, refused otherwise, never
/// written through a link.
fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    match sluice_input::create_new(path, 0o644) {
        Ok(mut f) => std::io::Write::write_all(&mut f, bytes).map_err(|e| io_error(path, e)),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let meta = std::fs::symlink_metadata(path).map_err(|e| io_error(path, e))?;
            // Read back only a file of this very size, through the bounded
            // reader (the files here are MQSim's configuration and traces).
            let kind = if path.extension().is_some_and(|e| e == "xml") {
                sluice_input::Kind::MqsimConfig
            } else {
                sluice_input::Kind::Trace
            };
            let same = meta.is_file()
                && meta.len() == bytes.len() as u64
                && sluice_input::read_text(path, kind)
                    .ok()
                    .is_some_and(|t| t.as_bytes() == bytes);
            if same {
                Ok(())
            } else {
                Err(Error::new(
                    path.display().to_string(),
                    "exists and is not this file: remove it or save elsewhere",
                ))
            }
        }
        Err(e) => Err(io_error(path, e)),
    }
}
