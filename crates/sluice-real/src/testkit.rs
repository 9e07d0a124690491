//! For tests of sluice-real and of the crates above it (feature
//! `testkit`): a loop device over a file, detached on drop.

use std::path::Path;
use std::process::Command;

/// A loop device over a file, detached on drop (also when a test fails).
pub struct Loop {
    /// The device, e.g. /dev/loop0.
    pub dev: String,
}

impl Loop {
    /// A loop device over `file` (`--direct-io=on` with `direct`, as the
    /// README sets one up), or why none can be made here (not root, no
    /// loop module, no `losetup`): the test says so and skips.
    pub fn over(file: &Path, direct: bool) -> Result<Loop, String> {
        let mut cmd = Command::new("losetup");
        cmd.args(["--find", "--show"]);
        if direct {
            cmd.arg("--direct-io=on");
        }
        match cmd.arg(file).output() {
            Ok(o) if o.status.success() => Ok(Loop {
                dev: String::from_utf8_lossy(&o.stdout).trim().to_string(),
            }),
            Ok(o) => Err(format!(
                "losetup: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            )),
            Err(e) => Err(format!("losetup: {e}")),
        }
    }

    /// The device's sysfs `scheduler` file.
    pub fn scheduler_file(&self) -> String {
        let name = Path::new(&self.dev)
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        format!("/sys/block/{name}/queue/scheduler")
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = Command::new("losetup").args(["-d", &self.dev]).status();
    }
}
