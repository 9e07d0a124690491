//! `sluice clean`: undo what runs that died left behind.

use anyhow::Result;
use sluice_real::journal;

/// Undo what sluice runs that died (SIGKILL, a crash) left behind: their
/// folders and files, kernel schedulers, their tunables and queue
/// settings, cgroups, FUSE mounts, tracefs and its instances, loop devices
/// and emulator processes. Runs still going are left alone.
#[derive(clap::Args)]
#[command(
    after_help = "Every run that changes the machine writes down each change in a journal in \
sluice's state folder ($SLUICE_STATE_DIR, else /run/sluice for root, else \
$XDG_RUNTIME_DIR/sluice or /tmp/sluice-UID) before making it, and deletes the journal once it \
has undone everything. A journal no live process holds is a run that died: clean undoes every such \
journal, newest change first across all of them, and prints what it did. A process a run \
started (an emulator) is ended only if it is still the one started (SIGTERM, then SIGKILL \
after 10 s). Every run does the same when it starts.\n\n\
Example:\n  sluice clean"
)]
pub(crate) struct Args {}

pub(crate) fn run(_args: Args) -> Result<()> {
    let dir = journal::state_dir()?;
    let found = journal::clean(&dir)?;
    if found.is_empty() {
        println!("nothing to clean in {}", dir.display());
    }
    for c in found {
        println!("{c}");
    }
    Ok(())
}
