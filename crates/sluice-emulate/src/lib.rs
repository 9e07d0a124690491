//! sluice-emulate: a modelled drive in real time.
//!
//! [`Emulator`] serves `DIR/disk.img` through FUSE: a file whose every read
//! and write completes when sluice's model of the drive (the simulator's
//! device code: mechanics, cache, command queue) says it does, on a
//! monotonic clock. A loop device over it (`losetup --direct-io=on`) is a
//! block device with the timing of the modelled drive.
//!
//! The timing lives in [`TimingCore`], which knows no clock and no FUSE:
//! hand it `(now, request)`, ask it what completed by a later `now`.
//!
//! ```no_run
//! use sluice_emulate::{Emulator, Options};
//! let model = sluice_emulate::model(Some("maxtor-stm332061"), None).unwrap();
//! let opts = Options::new(model, 8 << 30, "/mnt/emu".into());
//! let emu = Emulator::start(&opts).unwrap();
//! println!("{}", emu.disk_path().display());
//! emu.stop().unwrap();
//! ```

mod core;
mod fs;
mod store;

pub use crate::core::{Io, TimingCore};
pub use crate::fs::DISK_NAME;
pub use crate::store::Store;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::SystemTime;

use sluice_device::presets::{self, PRESETS};
use sluice_device::{diskspecs, InternalOrder, Model};

use crate::fs::{Clock, DiskFs, Msg};

/// A one-line error for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(pub String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

fn err<T>(msg: impl Into<String>) -> Result<T, Error> {
    Err(Error(msg.into()))
}

/// The drive model a preset name or a DiskSim `.diskspecs` file gives
/// (exactly one of the two).
pub fn model(preset: Option<&str>, diskspecs: Option<&Path>) -> Result<Model, Error> {
    match (preset, diskspecs) {
        (Some(name), None) => presets::preset(name).ok_or_else(|| {
            let names: Vec<_> = PRESETS.iter().map(|p| p.name).collect();
            Error(format!(
                "`preset` {name}: unknown preset (available: {})",
                names.join(", ")
            ))
        }),
        (None, Some(path)) => diskspecs::load(path)
            .map(Model::Hdd)
            .map_err(|e| Error(format!("`diskspecs` {}: {e}", path.display()))),
        _ => err("give either `preset` or `diskspecs`"),
    }
}

/// The bytes of `gib` GiB (a positive, finite number of GiB, whole sectors).
pub fn gib_bytes(gib: f64) -> Result<u64, Error> {
    if !gib.is_finite() || gib <= 0.0 || gib > 1e9 {
        return err(format!(
            "`size_gib` {gib}: expected a positive number of GiB"
        ));
    }
    let bytes = (gib * (1u64 << 30) as f64) as u64;
    Ok(bytes / sluice::SECTOR_BYTES * sluice::SECTOR_BYTES)
}

/// What to emulate and where.
#[derive(Clone, Debug)]
pub struct Options {
    /// The drive model to emulate.
    pub model: Model,
    /// The file's size in bytes (at most the drive's capacity).
    pub size_bytes: u64,
    /// An existing directory to mount over.
    pub mount: PathBuf,
    /// Commands the drive accepts at once (`None`: as many as the model's
    /// drive supports, as a real drive would).
    pub queue_depth: Option<usize>,
    /// The drive's order among queued commands.
    pub internal: InternalOrder,
    /// Seeds the drive's initial state (the platter's angle).
    pub seed: u64,
}

impl Options {
    /// Emulate `model` as `mount/disk.img`, `size_bytes` long, with the
    /// defaults: the model's full queue depth, SATF order, seed 1.
    pub fn new(model: Model, size_bytes: u64, mount: PathBuf) -> Self {
        Options {
            model,
            size_bytes,
            mount,
            queue_depth: None,
            internal: InternalOrder::Satf,
            seed: 1,
        }
    }

    /// The queue depth used, checked against the model.
    pub fn depth(&self) -> Result<usize, Error> {
        let max = self.model.max_queue();
        match self.queue_depth {
            None => Ok(max.max(1)),
            Some(k) if k >= 1 && k <= max => Ok(k),
            Some(k) => err(format!(
                "`queue_depth` {k}: {} accepts 1 to {max} commands",
                self.model.name()
            )),
        }
    }

    fn check(&self) -> Result<usize, Error> {
        let cap = self.model.capacity() * sluice::SECTOR_BYTES;
        if self.size_bytes == 0 {
            return err("`size_bytes` must be more than 0");
        }
        if self.size_bytes > cap {
            return err(format!(
                "`size_bytes`: {:.1} GiB is more than {} holds ({:.1} GiB)",
                self.size_bytes as f64 / (1u64 << 30) as f64,
                self.model.name(),
                cap as f64 / (1u64 << 30) as f64
            ));
        }
        if !self.mount.is_dir() {
            return err(format!(
                "`mount` {}: not an existing directory",
                self.mount.display()
            ));
        }
        self.depth()
    }
}

enum Event {
    /// The FUSE session ended (unmounted from outside, or the connection
    /// was aborted).
    SessionEnded,
    Signal(i32),
}

/// How [`Emulator::stop`] unmounted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unmount {
    /// Unmounted (or it already was, from outside).
    Clean,
    /// The file was still in use (a loop device still attached): the mount
    /// was detached lazily and the connection dropped, so its users get
    /// I/O errors from then on.
    Lazy,
}

/// A mounted emulated drive. Dropping it unmounts.
pub struct Emulator {
    mount: PathBuf,
    tx: mpsc::Sender<Msg>,
    served: Arc<AtomicU64>,
    clock: Option<JoinHandle<()>>,
    session: Option<JoinHandle<()>>,
    unmounter: Option<fuser::SessionUnmounter>,
    events_tx: mpsc::Sender<Event>,
    events: mpsc::Receiver<Event>,
}

impl Emulator {
    /// Mount `opts.mount` and serve `disk.img` there until [`Emulator::stop`].
    pub fn start(opts: &Options) -> Result<Emulator, Error> {
        let depth = opts.check()?;
        let clock = Clock::start();
        let (tx, rx) = mpsc::channel();
        let served = Arc::new(AtomicU64::new(0));
        // SAFETY: geteuid/getegid have no preconditions and cannot fail.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        let fs = DiskFs {
            tx: tx.clone(),
            clock,
            size: opts.size_bytes,
            uid,
            gid,
            born: SystemTime::now(),
        };
        let mut config = fuser::Config::default();
        config.mount_options = vec![
            fuser::MountOption::FSName(format!("sluice-{}", opts.model.name())),
            fuser::MountOption::Subtype("sluice".into()),
            fuser::MountOption::RW,
            fuser::MountOption::NoDev,
            fuser::MountOption::NoSuid,
            fuser::MountOption::NoExec,
        ];
        let mut session = fuser::Session::new(fs, &opts.mount, &config).map_err(|e| {
            let hint = if uid != 0 {
                " (mounting FUSE here needs root, or a fusermount3 for users)"
            } else if !Path::new("/dev/fuse").exists() {
                " (no /dev/fuse: load the fuse module)"
            } else {
                ""
            };
            Error(format!("mounting {}: {e}{hint}", opts.mount.display()))
        })?;
        let unmounter = session.unmount_callable();
        let (events_tx, events) = mpsc::channel();
        let ended = events_tx.clone();
        let session = std::thread::Builder::new()
            .name("emulate-fuse".into())
            .spawn(move || {
                let _ = session.run();
                let _ = ended.send(Event::SessionEnded);
            })
            .map_err(|e| Error(format!("starting the FUSE thread: {e}")))?;
        let (model, internal, seed) = (opts.model.clone(), opts.internal, opts.seed);
        let count = Arc::clone(&served);
        let clock = std::thread::Builder::new()
            .name("emulate-clock".into())
            .spawn(move || {
                // The model is built here and never leaves this thread.
                let core = TimingCore::new(&model, depth, internal, seed);
                fs::clock_loop(core, clock, rx, &count)
            })
            .map_err(|e| Error(format!("starting the clock thread: {e}")))?;
        Ok(Emulator {
            mount: opts.mount.clone(),
            tx,
            served,
            clock: Some(clock),
            session: Some(session),
            unmounter: Some(unmounter),
            events_tx,
            events,
        })
    }

    /// The emulated disk: `MOUNT/disk.img`.
    pub fn disk_path(&self) -> PathBuf {
        self.mount.join(DISK_NAME)
    }

    /// Requests the drive has completed so far.
    pub fn served(&self) -> u64 {
        self.served.load(Ordering::Relaxed)
    }

    /// Block until SIGINT or SIGTERM arrives (then return it) or the file
    /// system is unmounted from outside (then `None`).
    pub fn wait_for_signal(&self) -> Result<Option<i32>, Error> {
        Ok(self.wait_with(stop_signals()?))
    }

    fn wait_with(&self, mut signals: signal_hook::iterator::Signals) -> Option<i32> {
        let handle = signals.handle();
        let tx = self.events_tx.clone();
        let waiter = std::thread::spawn(move || {
            if let Some(sig) = signals.forever().next() {
                let _ = tx.send(Event::Signal(sig));
            }
        });
        let got = match self.events.recv() {
            Ok(Event::Signal(s)) => Some(s),
            Ok(Event::SessionEnded) | Err(_) => None,
        };
        handle.close();
        let _ = waiter.join();
        got
    }

    /// Unmount and stop. Where the file is still in use (a loop device
    /// still attached), the mount is detached lazily and the connection
    /// dropped: the users see I/O errors from then on.
    pub fn stop(mut self) -> Result<Unmount, Error> {
        self.shut_down()
    }

    fn shut_down(&mut self) -> Result<Unmount, Error> {
        let mut result = Ok(Unmount::Clean);
        let mut forced = false;
        if let Some(mut u) = self.unmounter.take() {
            if let Err(e) = u.unmount() {
                forced = true;
                let busy = e.raw_os_error() == Some(libc::EBUSY);
                let dir = self.mount.display();
                result = match (lazy_unmount(&self.mount), busy) {
                    (true, true) => Ok(Unmount::Lazy),
                    (true, false) => Err(Error(format!("unmounting {dir}: {e} (detached lazily)"))),
                    (false, _) => Err(Error(format!("unmounting {dir}: {e}"))),
                };
            }
        }
        let _ = self.tx.send(Msg::Stop);
        if let Some(c) = self.clock.take() {
            let _ = c.join();
        }
        if let Some(s) = self.session.take() {
            if forced {
                // The kernel keeps the connection while the file is open;
                // the session ends when this process closes /dev/fuse.
                drop(s);
            } else {
                let _ = s.join();
            }
        }
        result
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        let _ = self.shut_down();
    }
}

fn stop_signals() -> Result<signal_hook::iterator::Signals, Error> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    signal_hook::iterator::Signals::new([SIGINT, SIGTERM])
        .map_err(|e| Error(format!("installing signal handlers: {e}")))
}

fn lazy_unmount(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a valid NUL-terminated path for the call's duration.
    unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) == 0 }
}

/// How [`run_until_signal`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Served {
    /// Requests served.
    pub requests: u64,
    /// The signal that stopped it; None when the mount went from outside.
    pub signal: Option<i32>,
    /// How the mount went.
    pub unmount: Unmount,
}

/// Mount, call `mounted` once the disk is served (to say where it is),
/// serve until SIGINT or SIGTERM (or an unmount from outside), unmount.
/// The library prints nothing: the caller says what it wants to.
pub fn run_until_signal(opts: &Options, mounted: impl FnOnce(&Emulator)) -> Result<Served, Error> {
    // Catch the signals before mounting, so that none ends us mounted.
    let signals = stop_signals()?;
    let emu = Emulator::start(opts)?;
    mounted(&emu);
    let signal = emu.wait_with(signals);
    let requests = emu.served();
    let unmount = emu.stop()?;
    Ok(Served {
        requests,
        signal,
        unmount,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_input_gives_one_line_errors() {
        let e = model(Some("nope"), None).unwrap_err().0;
        assert!(
            e.contains("unknown preset") && e.contains("maxtor-stm332061"),
            "{e}"
        );
        assert!(model(None, None).is_err());
        let e = model(None, Some(Path::new("/no/such.diskspecs")))
            .unwrap_err()
            .0;
        assert!(e.starts_with("`diskspecs` /no/such.diskspecs"), "{e}");
        for g in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(gib_bytes(g).is_err(), "{g}");
        }
        assert_eq!(gib_bytes(8.0).unwrap(), 8 << 30);

        let m = model(Some("maxtor-stm332061"), None).unwrap();
        let mut o = Options::new(m, 8 << 30, "/no/such/dir".into());
        let e = o.check().unwrap_err().0;
        assert!(e.contains("not an existing directory"), "{e}");
        o.mount = std::env::temp_dir();
        assert_eq!(o.check(), Ok(1));
        o.size_bytes = 400 << 30;
        assert!(o.check().unwrap_err().0.contains("more than"));
        o.size_bytes = 1 << 30;
        o.queue_depth = Some(4);
        assert!(o.check().unwrap_err().0.contains("accepts 1 to 1"));
        for e in [
            model(Some("nope"), None).unwrap_err(),
            o.check().unwrap_err(),
        ] {
            assert!(!e.0.contains('\n'));
        }
    }
}
