//! What both CLI test files need: run the built binary and collect its exit
//! code and output.

use std::path::Path;
use std::process::Command;

/// Run `sluice ARGS` in `cwd`: (exit code, stdout, stderr).
pub fn sluice_in(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sluice"))
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("run sluice");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
