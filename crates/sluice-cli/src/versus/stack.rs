//! The emulated drive as a block device for one run: `sluice emulate` as a
//! child process, a loop device over its file, and the folder they live in,
//! each undone on drop and written down in the run's journal first.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration as StdDuration;

use anyhow::{bail, Context, Result};
use serde::Serialize;
use sluice_real::journal::{Change, Entry, Journal, Started};
use sluice_real::Refused;

/// The emulator as a child process, in the run's journal before it
/// starts (as its mount is): stopped on drop, its mount undone after.
pub(super) struct Emulator {
    process: Option<Started>,
    mount: PathBuf,
    journal: Arc<Journal>,
    mounted: Option<Entry>,
}

impl Emulator {
    pub(super) fn start(
        preset: &str,
        size_gib: u64,
        mount: &Path,
        queue_depth: usize,
        journal: &Arc<Journal>,
    ) -> Result<Self> {
        let exe = std::env::current_exe().context("finding the sluice binary")?;
        let mounted = journal.record(Change::Mount {
            path: mount.to_path_buf(),
        })?;
        let mut command = Command::new(exe);
        command
            .args(["emulate", "--preset", preset, "--size-gib"])
            .arg(size_gib.to_string())
            .arg("--mount")
            .arg(mount)
            .arg("--queue-depth")
            .arg(queue_depth.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        // Not tied to versus's life (no PDEATHSIG): an emulator that
        // unmounted itself when versus died would leave the loop device
        // over a file no path names any more, which `sluice clean` could not
        // find. The journal stops it after the loop device is detached.
        let mut e = Emulator {
            process: None,
            mount: mount.to_path_buf(),
            journal: Arc::clone(journal),
            mounted: Some(mounted),
        };
        let process = e.process.insert(journal.spawn(&mut command)?);
        let disk = mount.join("disk.img");
        for _ in 0..200 {
            if disk.exists() {
                return Ok(e);
            }
            if let Ok(Some(status)) = process.child().try_wait() {
                bail!(
                    "sluice emulate stopped ({status}) before {} appeared",
                    disk.display()
                );
            }
            std::thread::sleep(StdDuration::from_millis(100));
        }
        bail!("no {} after 20 s of sluice emulate", disk.display())
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        // SIGTERM: the emulator unmounts and ends (SIGKILL after the grace,
        // and then the mount goes lazily here).
        if let Some(p) = self.process.take() {
            p.stop();
        }
        let _ = sluice_real::journal::unmount_if_mounted(&self.mount);
        if let Some(m) = self.mounted.take() {
            self.journal.undone(m);
        }
    }
}

/// A loop device over a file, detached on drop.
pub(super) struct Loop(pub(super) PathBuf, Arc<Journal>, Entry);

impl Loop {
    pub(super) fn over(file: &Path, journal: &Arc<Journal>) -> Result<Self> {
        let entry = journal.record(Change::Loop {
            backing: file.to_path_buf(),
        })?;
        let out = Command::new("losetup")
            .args(["--find", "--show", "--direct-io=on"])
            .arg(file)
            .output()
            .map_err(|e| Refused(format!("losetup: {e} (package mount)")))?;
        if !out.status.success() {
            return Err(Refused(format!(
                "losetup {}: {}",
                file.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            ))
            .into());
        }
        Ok(Loop(
            PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()),
            Arc::clone(journal),
            entry,
        ))
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        if Command::new("losetup")
            .arg("-d")
            .arg(&self.0)
            .status()
            .is_ok_and(|s| s.success())
        {
            self.1.undone(self.2);
        }
    }
}

/// A folder for the mount point, removed on drop.
pub(super) struct Scratch(pub(super) PathBuf, Arc<Journal>, Option<Entry>);

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::fs::remove_dir_all(&self.0).is_ok() {
            if let Some(e) = self.2.take() {
                self.1.undone(e);
            }
        }
    }
}

/// How the loop device is shown to the kernel: the model's view (a
/// rotational disk whose largest request is the model's) or losetup's.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct DriveView {
    /// The queue settings written on the loop device for each run
    /// (`rotational`, `max_sectors_kb`), as `NAME=VALUE`.
    pub queue: Vec<String>,
    /// The emulator's queue depth: requests the modelled drive holds at
    /// once; the rest wait in the emulator in arrival order.
    pub emulator_queue_depth: usize,
}

impl DriveView {
    /// The model's view: rotational for a hard disk, `max_sectors_kb` the
    /// scenario's `max_request_kib`; nothing changed when `as_is`.
    pub(crate) fn of(device: &sluice_runtime::scenario::DeviceConfig, as_is: bool) -> Self {
        let hdd = matches!(device.model, sluice_device::Model::Hdd(_));
        let queue = if as_is {
            Vec::new()
        } else {
            vec![
                format!("rotational={}", u8::from(hdd)),
                format!("max_sectors_kb={}", device.max_request_kib),
            ]
        };
        DriveView {
            queue,
            emulator_queue_depth: device.queue_depth,
        }
    }
}

/// The emulated drive as a block device for one run, in a folder of its
/// own under `parent`; everything goes on drop, in reverse order.
pub(super) struct Stack {
    // Field order is drop order: settings, loop device, emulator, folder.
    _settings: sluice_real::kernel::SettingsGuard,
    dev: Loop,
    _emulator: Emulator,
    _scratch: Scratch,
}

impl Stack {
    /// Bring up `preset` (`size_gib`) as a loop device seen as `view` says.
    pub(super) fn up(
        parent: &Path,
        preset: &str,
        size_gib: u64,
        view: &DriveView,
        journal: &Arc<Journal>,
    ) -> Result<Self> {
        let top = parent.join(format!("sluice-versus-{}", std::process::id()));
        {
            use std::os::unix::fs::DirBuilderExt;
            std::fs::DirBuilder::new()
                .mode(0o700)
                .create(&top)
                .map_err(|e| Refused(format!("cannot create {}: {e}", top.display())))?;
        }
        let entry = journal.record(Change::created_folder(&top)?)?;
        let scratch = Scratch(top, Arc::clone(journal), Some(entry));
        let mount = scratch.0.join("mnt");
        std::fs::create_dir(&mount)
            .with_context(|| format!("cannot create {}", mount.display()))?;
        let emulator =
            Emulator::start(preset, size_gib, &mount, view.emulator_queue_depth, journal)?;
        let dev = Loop::over(&mount.join("disk.img"), journal)?;
        let queue = sluice_real::kernel::queue_dir(&dev.0)?;
        let settings: Vec<sluice_real::kernel::Tunable> = view
            .queue
            .iter()
            .map(|s| s.parse().map_err(anyhow::Error::msg))
            .collect::<Result<_>>()?;
        let settings = sluice_real::kernel::SettingsGuard::queue(&queue, &settings, journal)?;
        Ok(Stack {
            _settings: settings,
            dev,
            _emulator: emulator,
            _scratch: scratch,
        })
    }

    /// The loop device.
    pub(super) fn device(&self) -> &Path {
        &self.dev.0
    }
}
