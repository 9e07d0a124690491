//! sluice-mount: real applications' file I/O scheduled by any sluice
//! policy, in user space.
//!
//! [`Mount`] shows a source directory's tree at a mount point through
//! FUSE. Names, attributes, links, folders and extended attributes pass
//! straight through to the source; every read and write of file data
//! becomes a request of the caller's flow (its process, by default: the
//! kernel's BFQ and CFQ keep one queue per process) and is served by the
//! io_uring engine (`sluice-uring`) onto the source's file, under the
//! policy, with at most `queue_depth` requests in flight below.
//!
//! ```no_run
//! use sluice_mount::{Mount, Options};
//! use sluice_runtime::MountConfig;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // The classes of a --config file; any policy object, built on the
//! // engine's thread (which owns it).
//! let config = MountConfig::load("classes.toml".as_ref())?;
//! let opts = Options::new("/srv/data".into(), "/mnt/sched".into(), config.clone());
//! let mount = Mount::start_with_policy(opts, move || config.policy().unwrap())?;
//! mount.wait_for_signal()?; // Ctrl-C, SIGTERM or `umount /mnt/sched`
//! let stats = mount.stop()?;
//! print!("{}", stats.table());
//! # Ok(()) }
//! ```
//!
//! What reaches us, and so what the policy orders, is what the kernel's
//! page cache in front of FUSE lets through: see `docs/mount.md`.

mod attribution;
mod fs;
mod inodes;
mod lower;
mod serve;
mod stats;

use std::fmt;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;

use sluice::Scheduler;
use sluice_runtime::MountConfig;
use sluice_uring::{Engine, EngineConfig};

pub use attribution::FlowsBy;
pub use stats::{FlowStats, MountStats, SCHEMA};

/// What went wrong, in one line. A refusal changed nothing (the CLI
/// exits 2 on it); a failure is anything else.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The arguments or the machine do not allow the mount (no root, no
    /// /dev/fuse, MNT busy or inside SRC, SRC missing).
    Refused(String),
    /// The mount or its engine failed.
    Failed(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Refused(m) | Error::Failed(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

fn refused<T>(msg: impl Into<String>) -> Result<T, Error> {
    Err(Error::Refused(msg.into()))
}

/// What to mount, where and how.
#[derive(Debug)]
pub struct Options {
    /// The directory whose tree is shown.
    pub src: PathBuf,
    /// An empty directory outside SRC to show it at.
    pub mnt: PathBuf,
    /// The policy (when none is given to [`Mount::start_with_policy`]),
    /// its groups and the classes flows are matched to.
    pub config: MountConfig,
    /// How requests are grouped into flows.
    pub by: FlowsBy,
    /// Requests in flight to the file system below at once (default 1).
    pub queue_depth: usize,
    /// Refuse every change (EROFS).
    pub read_only: bool,
    /// Where to write the request log (the CSV of `sim --log-requests`).
    pub log_requests: Option<File>,
}

impl Options {
    /// Mount `src` at `mnt` with `config`, one flow per process, queue
    /// depth 1, read-write, no request log.
    pub fn new(src: PathBuf, mnt: PathBuf, config: MountConfig) -> Self {
        Options {
            src,
            mnt,
            config,
            by: FlowsBy::Process,
            queue_depth: 1,
            read_only: false,
            log_requests: None,
        }
    }
}

/// Check SRC and MNT before anything is changed: SRC a directory, MNT an
/// empty directory that is no mount point, neither inside the other.
/// Returns both made absolute and free of links.
pub fn check_paths(src: &Path, mnt: &Path) -> Result<(PathBuf, PathBuf), Error> {
    let src_abs = match std::fs::canonicalize(src) {
        Ok(p) if p.is_dir() => p,
        Ok(_) => return refused(format!("SRC {}: not a directory", src.display())),
        Err(e) => return refused(format!("SRC {}: {e}", src.display())),
    };
    let mnt_abs = match std::fs::canonicalize(mnt) {
        Ok(p) if p.is_dir() => p,
        Ok(_) => return refused(format!("MNT {}: not a directory", mnt.display())),
        Err(e) => {
            return refused(format!(
                "MNT {}: {e} (create an empty directory there)",
                mnt.display()
            ))
        }
    };
    if mnt_abs.starts_with(&src_abs) {
        return refused(format!(
            "MNT {} is inside SRC {}: the mount would show itself (choose a directory outside SRC)",
            mnt.display(),
            src.display()
        ));
    }
    if src_abs.starts_with(&mnt_abs) {
        return refused(format!(
            "SRC {} is inside MNT {}: the mount would hide it",
            src.display(),
            mnt.display()
        ));
    }
    if is_mount_point(&mnt_abs) {
        return refused(format!(
            "MNT {}: something is mounted there already (umount it first)",
            mnt.display()
        ));
    }
    let mut entries = match std::fs::read_dir(&mnt_abs) {
        Ok(d) => d,
        Err(e) => return refused(format!("MNT {}: {e}", mnt.display())),
    };
    if entries.next().is_some() {
        return refused(format!(
            "MNT {}: not empty (the mount would hide what is there; choose an empty directory)",
            mnt.display()
        ));
    }
    Ok((src_abs, mnt_abs))
}

/// Whether `dir` is a mount point: on another device than its parent, or
/// listed in this process's mount table.
fn is_mount_point(dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let (Ok(m), Some(Ok(p))) = (std::fs::metadata(dir), dir.parent().map(std::fs::metadata)) else {
        return false;
    };
    if m.dev() != p.dev() {
        return true;
    }
    let want = dir.to_string_lossy();
    std::fs::read_to_string("/proc/self/mountinfo")
        .map(|t| {
            t.lines()
                .any(|l| l.split(' ').nth(4) == Some(want.as_ref()))
        })
        .unwrap_or(false)
}

/// Refusals that come from the machine: not root, no /dev/fuse.
pub fn check_machine() -> Result<(), Error> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return refused("sluice mount needs root (it mounts a FUSE file system and reads /proc for every caller)");
    }
    if !Path::new("/dev/fuse").exists() {
        return refused("no /dev/fuse: load the fuse module (modprobe fuse)");
    }
    Ok(())
}

enum Event {
    SessionEnded,
    EngineEnded,
    Signal(i32),
}

/// A mounted scheduling file system. Dropping it unmounts.
pub struct Mount {
    mnt: PathBuf,
    by: FlowsBy,
    queue_depth: usize,
    started: std::time::Instant,
    session: Option<JoinHandle<()>>,
    unmounter: Option<fuser::SessionUnmounter>,
    server: Option<JoinHandle<Result<serve::Served, Error>>>,
    /// Tells the engine's thread to finish what it took and end, when the
    /// file system cannot be dropped (a lazy unmount: files still open).
    stop: Arc<AtomicBool>,
    bell: sluice_uring::Doorbell,
    events_tx: mpsc::Sender<Event>,
    events: mpsc::Receiver<Event>,
}

impl Mount {
    /// Mount with the policy `opts.config` names.
    pub fn start(opts: Options) -> Result<Mount, Error> {
        let config = opts.config.clone();
        // Built where the engine runs (a policy need not be `Send`), and
        // checked here first so that a bad one is refused before mounting.
        config
            .policy()
            .map_err(|e| Error::Refused(format!("the policy: {e}")))?;
        Self::start_with_policy(opts, move || {
            config.policy().expect("checked before the mount")
        })
    }

    /// Mount with the policy `make_policy` returns (any sluice policy
    /// object; it is called on the engine's thread, which owns it);
    /// `opts.config` only gives the classes flows are matched to.
    pub fn start_with_policy(
        opts: Options,
        make_policy: impl FnOnce() -> Box<dyn Scheduler> + Send + 'static,
    ) -> Result<Mount, Error> {
        check_machine()?;
        let (src, mnt) = check_paths(&opts.src, &opts.mnt)?;
        if opts.queue_depth == 0 || opts.queue_depth > 4096 {
            return refused(format!(
                "queue depth {}: expected 1..=4096",
                opts.queue_depth
            ));
        }
        let lower = lower::Lower::open(&src)
            .map_err(|e| Error::Refused(format!("SRC {}: {e}", src.display())))?;
        let depth = opts.queue_depth;
        let log = opts.log_requests;
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = Arc::clone(&stop);
        let (tx, rx) = mpsc::channel();
        let (ready_tx, ready) = mpsc::channel();
        // The engine's thread ending early (its ring failed) ends the wait
        // as an unmount would; `stop` then returns its error.
        let (events_tx, events) = mpsc::channel();
        let engine_ended = events_tx.clone();
        let server = std::thread::Builder::new()
            .name("mount-engine".into())
            .spawn(move || {
                let engine = Engine::new(make_policy(), EngineConfig::with_queue_depth(depth))
                    .map_err(|e| Error::Refused(format!("the io_uring engine: {e}")));
                let mut engine = match engine {
                    Ok(e) => e,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e.clone()));
                        return Err(e);
                    }
                };
                match engine.doorbell() {
                    Ok(bell) => {
                        let _ = ready_tx.send(Ok(bell));
                    }
                    Err(e) => {
                        let e = Error::Failed(format!("the engine's doorbell: {e}"));
                        let _ = ready_tx.send(Err(e.clone()));
                        return Err(e);
                    }
                }
                let mut server = serve::Server::new(engine, log);
                let ran = server.run(&rx, &stopping);
                let _ = engine_ended.send(Event::EngineEnded);
                ran.map_err(|e| Error::Failed(format!("the io_uring engine: {e}")))?;
                Ok(server.finish())
            })
            .map_err(|e| Error::Failed(format!("starting the engine's thread: {e}")))?;
        let bell = ready
            .recv()
            .map_err(|_| Error::Failed("the engine's thread ended at start".into()))??;
        let attribution = attribution::Attribution::new(opts.by, opts.config);
        let fs = fs::SchedFs::new(lower, opts.read_only, attribution, tx, bell.clone());
        let mut config = fuser::Config::default();
        config.mount_options = vec![
            fuser::MountOption::FSName(format!("sluice:{}", src.display())),
            fuser::MountOption::Subtype("sluice".into()),
            fuser::MountOption::DefaultPermissions,
            fuser::MountOption::NoDev,
            fuser::MountOption::NoSuid,
            if opts.read_only {
                fuser::MountOption::RO
            } else {
                fuser::MountOption::RW
            },
        ];
        // Every user's programs reach it (`allow_other`); the kernel checks
        // their permissions (`default_permissions`).
        config.acl = fuser::SessionACL::All;
        let mut session = fuser::Session::new(fs, &mnt, &config)
            .map_err(|e| Error::Failed(format!("mounting {}: {e}", mnt.display())))?;
        let unmounter = session.unmount_callable();
        let ended = events_tx.clone();
        let session = std::thread::Builder::new()
            .name("mount-fuse".into())
            .spawn(move || {
                let _ = session.run();
                let _ = ended.send(Event::SessionEnded);
            })
            .map_err(|e| Error::Failed(format!("starting the FUSE thread: {e}")))?;
        Ok(Mount {
            mnt,
            by: opts.by,
            queue_depth: opts.queue_depth,
            started: std::time::Instant::now(),
            session: Some(session),
            unmounter: Some(unmounter),
            server: Some(server),
            stop,
            bell,
            events_tx,
            events,
        })
    }

    /// The mount point (absolute).
    pub fn mount_point(&self) -> &Path {
        &self.mnt
    }

    /// Block until SIGINT or SIGTERM (returned) or an unmount from
    /// outside (`None`).
    pub fn wait_for_signal(&self) -> Result<Option<i32>, Error> {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])
            .map_err(|e| Error::Failed(format!("installing signal handlers: {e}")))?;
        Ok(self.wait_with(signals))
    }

    /// [`Mount::wait_for_signal`] with signals caught before the mount.
    pub fn wait_with(&self, mut signals: signal_hook::iterator::Signals) -> Option<i32> {
        let handle = signals.handle();
        let tx = self.events_tx.clone();
        let waiter = std::thread::spawn(move || {
            if let Some(sig) = signals.forever().next() {
                let _ = tx.send(Event::Signal(sig));
            }
        });
        let got = match self.events.recv() {
            Ok(Event::Signal(s)) => Some(s),
            Ok(Event::SessionEnded | Event::EngineEnded) | Err(_) => None,
        };
        handle.close();
        let _ = waiter.join();
        got
    }

    /// Unmount (lazily, where files are still open), let every request
    /// taken complete, and return what each flow got.
    pub fn stop(mut self) -> Result<MountStats, Error> {
        self.shut_down()
    }

    fn shut_down(&mut self) -> Result<MountStats, Error> {
        let mut clean = true;
        if let Some(mut u) = self.unmounter.take() {
            if u.unmount().is_err() {
                lazy_unmount(&self.mnt);
                clean = false;
            }
        }
        if let Some(s) = self.session.take() {
            if clean {
                // The session ends as the kernel drops the connection; the
                // file system (and its channel to the engine) goes with it.
                let _ = s.join();
            } else {
                // Files are still open under the detached mount: the
                // session lives on until they close; the engine stops now
                // and what comes later is answered EIO.
                self.stop.store(true, Ordering::SeqCst);
                self.bell.ring();
                drop(s);
            }
        }
        let server = match self.server.take() {
            Some(h) => h
                .join()
                .map_err(|_| Error::Failed("the engine's thread panicked".into()))??,
            None => return Err(Error::Failed("stopped already".into())),
        };
        Ok(MountStats {
            schema: SCHEMA,
            scheduler: server.scheduler,
            by: format!("{:?}", self.by).to_lowercase(),
            queue_depth: self.queue_depth,
            duration_s: self.started.elapsed().as_secs_f64(),
            flows: server.flows,
            policy_stats: server.policy_stats,
        })
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        if self.server.is_some() {
            let _ = self.shut_down();
        }
    }
}

fn lazy_unmount(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a valid NUL-terminated path for the call's duration.
    unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) == 0 }
}
