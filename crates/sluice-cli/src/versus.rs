//! `sluice versus`: one scenario three ways on one modelled drive — the
//! simulation, sluice's policy on the emulated drive (`sluice run` on a
//! loop device over `sluice emulate`'s file, kernel scheduler `none`), and
//! the kernel's bfq on the same emulated drive (`sluice kernel`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration as StdDuration;

use anyhow::{bail, Context, Result};
use serde::Serialize;
use sluice_runtime::{Scenario, SimReport};

use std::sync::Arc;

use sluice_real::journal::{Change, Entry, Journal};
use sluice_real::Refused;

use crate::kernel;
use crate::run;

/// Schema tag of [`VersusReport`].
pub(crate) const VERSUS_SCHEMA: &str = "sluice.versus/1";

/// What `sluice versus` was asked: also its command-line arguments
/// (flattened into `cmd::versus::Args`), so nothing copies them over.
#[derive(clap::Args)]
pub(crate) struct Options {
    /// Scenario file.
    pub scenario: PathBuf,
    /// The drive to simulate and emulate (`sluice list` names them).
    #[arg(long, value_name = "NAME")]
    pub preset: String,
}

/// The `sluice.versus/1` object.
#[derive(Serialize)]
pub(crate) struct VersusReport {
    pub schema: &'static str,
    pub scenario: String,
    pub device: String,
    pub runs: Vec<VersusRun>,
}

/// One of the three runs.
#[derive(Serialize)]
pub(crate) struct VersusRun {
    /// `sim`, `sluice` or `kernel`.
    pub engine: &'static str,
    pub scheduler: String,
    /// `sluice.sim/1` (sim) or `sluice.run/1`.
    pub result: serde_json::Value,
}

/// The scenario's text with `[device]` set to `preset` (other model keys
/// dropped; `queue_depth` kept).
fn with_preset(text: &str, preset: &str) -> Result<String> {
    let mut v: toml::Table = toml::from_str(text).context("reading the scenario")?;
    let dev = v
        .entry("device")
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    let Some(dev) = dev.as_table_mut() else {
        bail!("[device] must be a table");
    };
    dev.remove("diskspecs");
    dev.insert("preset".into(), toml::Value::String(preset.to_string()));
    Ok(toml::to_string(&v)?)
}

/// The emulator as a child process: SIGTERM and wait on drop. Its mount
/// and the process are in the run's journal, for a versus that dies.
struct Emulator {
    child: Child,
    mount: PathBuf,
    journal: Arc<Journal>,
    entries: Vec<Entry>,
}

impl Emulator {
    fn start(
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
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        // Not tied to versus's life (no PDEATHSIG): an emulator that
        // unmounted itself when versus died would leave the loop device
        // over a file no path names any more, which `sluice clean` could not
        // find. The journal stops it after the loop device is detached.
        let child = command.spawn().context("starting sluice emulate")?;
        let pid = child.id() as i32;
        let mut e = Emulator {
            child,
            mount: mount.to_path_buf(),
            journal: Arc::clone(journal),
            entries: vec![mounted],
        };
        if let Some(start) = sluice_real::journal::process_start(pid) {
            e.entries
                .push(journal.record(Change::Process { pid, start })?);
        }
        let disk = mount.join("disk.img");
        for _ in 0..200 {
            if disk.exists() {
                return Ok(e);
            }
            if let Ok(Some(status)) = e.child.try_wait() {
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
        // SAFETY: signalling our own child.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        for _ in 0..200 {
            if let Ok(Some(_)) = self.child.try_wait() {
                self.finish();
                return;
            }
            std::thread::sleep(StdDuration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = Command::new("umount").arg("-l").arg(&self.mount).status();
        self.finish();
    }
}

impl Emulator {
    /// The process is gone and its mount with it.
    fn finish(&mut self) {
        for e in self.entries.drain(..) {
            self.journal.undone(e);
        }
    }
}

/// A loop device over a file, detached on drop.
struct Loop(PathBuf, Arc<Journal>, Entry);

impl Loop {
    fn over(file: &Path, journal: &Arc<Journal>) -> Result<Self> {
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
struct Scratch(PathBuf, Arc<Journal>, Option<Entry>);

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::fs::remove_dir_all(&self.0).is_ok() {
            if let Some(e) = self.2.take() {
                self.1.undone(e);
            }
        }
    }
}

/// Run the comparison.
pub(crate) fn versus(opts: &Options) -> Result<VersusReport> {
    let file = opts.scenario.display().to_string();
    let text = sluice_input::read_text(&opts.scenario, sluice_input::Kind::Scenario)?;
    let sim_scenario = Scenario::parse(&file, &with_preset(&text, &opts.preset)?)?;
    let real = Scenario::load_real(&opts.scenario)?;
    if unsafe { libc::geteuid() } != 0 {
        return Err(Refused(
            "sluice versus needs root (FUSE mount, loop device, kernel scheduler, cgroups)".into(),
        )
        .into());
    }

    // 1. The simulation.
    eprintln!("versus: simulating on {}", opts.preset);
    let sim: SimReport = sluice_sim::simulate(&sim_scenario)?;
    let mut runs = vec![VersusRun {
        engine: "sim",
        scheduler: sim.scheduler.clone(),
        result: serde_json::to_value(&sim)?,
    }];

    // 2. The emulated drive, as a block device.
    let bytes: u64 = real
        .flows
        .iter()
        .map(|f| (f.file_sectors * 512).div_ceil(1 << 20) << 20)
        .sum();
    let size_gib = bytes.div_ceil(1 << 30).max(1);
    let cwd = std::env::current_dir()?;
    // Written down before anything changes; held until the run is undone.
    let journal = Arc::new(Journal::begin("versus")?);
    let top = cwd.join(format!("sluice-versus-{}", std::process::id()));
    {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&top)
            .map_err(|e| Refused(format!("cannot create {}: {e}", top.display())))?;
    }
    let entry = journal.record(Change::Folder { path: top.clone() })?;
    let scratch = Scratch(top, Arc::clone(&journal), Some(entry));
    let mount = scratch.0.join("mnt");
    std::fs::create_dir(&mount).with_context(|| format!("cannot create {}", mount.display()))?;
    let queue_depth = sim_scenario.device.queue_depth;
    eprintln!(
        "versus: emulating {} ({size_gib} GiB) at {}",
        opts.preset,
        mount.display()
    );
    let emulator = Emulator::start(&opts.preset, size_gib, &mount, queue_depth, &journal)?;
    let dev = Loop::over(&mount.join("disk.img"), &journal)?;

    // 3. sluice's policy on it, the kernel's scheduler out of the way.
    eprintln!("versus: sluice {} on {}", real.scheduler, dev.0.display());
    let queue = kernel::queue_dir(&dev.0)?;
    let guard = kernel::SchedulerGuard::set(&queue, "none", &journal)?;
    let writes = real.flows.iter().any(|f| f.may_write());
    let ours = run::run(&run::Options {
        timeline_ms: None,
        scenario: opts.scenario.clone(),
        dir: None,
        device: Some(dev.0.clone()),
        allow_writes: writes,
        queue_depth: None,
        duration_s: None,
        verify: false,
        keep: false,
        progress: Some(crate::progress::RunBar::shared()),
    })?;
    drop(guard);
    runs.push(VersusRun {
        engine: "sluice",
        scheduler: ours.report.scheduler.clone(),
        result: serde_json::to_value(&ours)?,
    });

    // 4. The kernel's bfq on the same drive.
    eprintln!("versus: the kernel's bfq on {}", dev.0.display());
    let theirs = kernel::kernel(&kernel::Options {
        scenario: opts.scenario.clone(),
        device: dev.0.clone(),
        kernel_scheduler: "bfq".into(),
        allow_writes: writes,
        duration_s: None,
        progress: Some(crate::progress::RunBar::shared()),
    })?;
    runs.push(VersusRun {
        engine: "kernel",
        scheduler: "bfq".into(),
        result: serde_json::to_value(&theirs)?,
    });
    drop(dev);
    drop(emulator);
    drop(scratch);
    Ok(VersusReport {
        schema: VERSUS_SCHEMA,
        scenario: sim.scenario.clone(),
        device: opts.preset.clone(),
        runs,
    })
}

/// The three runs side by side: aggregate, then each flow's MB/s, mean
/// latency and start-up time.
pub(crate) fn table(v: &VersusReport) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{} on {} (simulated, emulated)\n", v.scenario, v.device);
    let head: Vec<String> = v
        .runs
        .iter()
        .map(|r| format!("{} {}", r.engine, r.scheduler))
        .collect();
    let _ = write!(o, "{:<16}", "");
    for h in &head {
        let _ = write!(o, " {h:>26}");
    }
    let _ = writeln!(o);
    let num = |x: &serde_json::Value| x.as_f64();
    let _ = write!(o, "{:<16}", "aggregate MB/s");
    for r in &v.runs {
        let mb = num(&r.result["aggregate"]["mb_s"]).unwrap_or(f64::NAN);
        let _ = write!(o, " {mb:>26.2}");
    }
    let _ = writeln!(o);
    let names: Vec<String> = v
        .runs
        .first()
        .and_then(|r| r.result["flows"].as_array())
        .map(|fs| {
            fs.iter()
                .filter_map(|f| f["name"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    for name in names {
        let _ = write!(o, "{name:<16}");
        for r in &v.runs {
            let f = r.result["flows"]
                .as_array()
                .and_then(|fs| fs.iter().find(|f| f["name"] == name.as_str()));
            let cell = match f {
                Some(f) => {
                    let mb = num(&f["mb_s"]).unwrap_or(f64::NAN);
                    let lat = num(&f["lat_ms"]["mean"]).unwrap_or(f64::NAN);
                    match num(&f["done_s"]) {
                        Some(d) => format!("{mb:.2} MB/s {lat:.1} ms {d:.2} s"),
                        None => format!("{mb:.2} MB/s {lat:.1} ms"),
                    }
                }
                None => "-".to_string(),
            };
            let _ = write!(o, " {cell:>26}");
        }
        let _ = writeln!(o);
    }
    let _ = writeln!(
        o,
        "\n(per flow: MB/s, mean latency, start-up time where the flow has one)"
    );
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preset_replaces_the_model_and_keeps_the_queue_depth() {
        let t = "name = \"x\"\nduration_s = 1\n[device]\ndiskspecs = \"a.diskspecs\"\nqueue_depth = 4\n\
                 [scheduler]\nname = \"noop\"\n";
        let out: toml::Table =
            toml::from_str(&with_preset(t, "maxtor-stm332061").unwrap()).unwrap();
        let dev = out["device"].as_table().unwrap();
        assert_eq!(dev["preset"].as_str(), Some("maxtor-stm332061"));
        assert!(!dev.contains_key("diskspecs"));
        assert_eq!(dev["queue_depth"].as_integer(), Some(4));
        let none = with_preset("name = \"y\"\n", "ssd-sata").unwrap();
        assert!(none.contains("ssd-sata"), "{none}");
    }
}
