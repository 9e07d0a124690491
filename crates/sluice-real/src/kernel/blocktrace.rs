//! The kernel's own request log of one block device during a `sluice
//! kernel` run: when each request was inserted into the scheduler, issued
//! to the driver and completed, from the block layer's tracepoints
//! (`block_rq_insert`, `block_rq_issue`, `block_rq_complete`).
//!
//! The events are traced in a tracefs instance of sluice's own, so that the
//! global trace buffer, its clock and whatever else traces on the machine
//! are left alone, and everything set in the instance goes with it. The
//! instance (and tracefs, where sluice had to mount it) is written down in
//! the run's journal before it is made, so a run that dies is cleaned up.
//!
//! Times are the trace clock `mono`, i.e. CLOCK_MONOTONIC, the clock of
//! [`std::time::Instant`] and of the runner's own timestamps. The text the
//! kernel prints gives them to the microsecond only (a nanosecond clock's
//! stamps are printed as `secs.usecs`), so [`BlockEvent::time_ns`] is a
//! whole number of microseconds and [`attach`] allows for that.

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use anyhow::{bail, Context, Result};

use crate::host::unmount_lazily;
use crate::journal::{Change, Entry, Journal};
use crate::Refused;

/// The tracepoints recorded, in the `block` group.
const EVENTS: [&str; 3] = ["block_rq_insert", "block_rq_issue", "block_rq_complete"];

/// Ring buffer per CPU in the instance: at ~100 bytes an event, room for
/// tens of thousands of requests between two reads, so a reader that is
/// late by a scheduling hiccup loses nothing.
const BUFFER_KB_PER_CPU: u64 = 8 * 1024;

/// The buffers of all CPUs together at most (the kernel allocates one per
/// possible CPU: 8 MiB each would be gigabytes on a large machine), but
/// never less than 1 MiB a CPU.
const BUFFER_KB_TOTAL: u64 = 512 * 1024;

/// The buffer size per CPU for `cpus` CPUs.
fn buffer_kb(cpus: u64) -> u64 {
    (BUFFER_KB_TOTAL / cpus.max(1)).clamp(1024, BUFFER_KB_PER_CPU)
}

/// Where tracefs is mounted when nobody has mounted it.
const TRACEFS: &str = "/sys/kernel/tracing";

/// How long the reader sleeps when the pipe is empty: short against the
/// buffer's capacity, long enough to cost nothing measurable.
const READ_PAUSE: std::time::Duration = std::time::Duration::from_millis(10);

/// The resolution of [`BlockEvent::time_ns`]: the kernel prints trace
/// times to the microsecond, truncated.
pub const GRAIN_NS: u64 = 1_000;

/// Which tracepoint an event came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// `block_rq_insert`: the request entered the I/O scheduler. Under
    /// `none` a request usually goes straight to the driver without one.
    Insert,
    /// `block_rq_issue`: the request was handed to the driver.
    Issue,
    /// `block_rq_complete`: the driver finished (part of) the request.
    Complete,
}

/// One block-layer event on the traced device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockEvent {
    /// Which tracepoint.
    pub kind: EventKind,
    /// CLOCK_MONOTONIC, in ns, to the microsecond ([`GRAIN_NS`]).
    pub time_ns: u64,
    /// A write (else a read; other operations are not recorded).
    pub write: bool,
    /// First sector (512 bytes) of the request.
    pub sector: u64,
    /// Its length in sectors (0 for the data-less completion that ends a
    /// write with a flush after it).
    pub sectors: u32,
    /// The task the event fired in (for a completion, often an interrupt
    /// or softirq context: whoever ran when the driver finished).
    pub pid: u32,
    /// That task's name: the event's own `comm` field where it has one
    /// (insert, issue), else the name the trace header shows.
    pub comm: String,
}

/// What a trace recorded.
#[derive(Clone, Debug, Default)]
pub struct Traced {
    /// The events, in time order.
    pub events: Vec<BlockEvent>,
    /// Events the kernel could not keep (its per-CPU `overrun` and
    /// `dropped events`): 0 when the log is whole.
    pub lost: u64,
}

/// The kernel's block events of one device, recorded while this lives.
/// Dropping it without [`BlockTrace::finish`] undoes the same (on errors
/// and Ctrl-C paths) and discards the events.
pub struct BlockTrace {
    undo: Undo,
    stop: Arc<AtomicBool>,
    reader: Option<JoinHandle<std::io::Result<Vec<BlockEvent>>>>,
}

/// What [`BlockTrace`] changed, taken back on drop in reverse order.
struct Undo {
    journal: Arc<Journal>,
    /// tracefs, where sluice mounted it.
    mounted: Option<(PathBuf, Entry)>,
    /// The instance folder.
    instance: Option<(PathBuf, Entry)>,
}

impl Undo {
    fn instance(&self) -> Option<&Path> {
        self.instance.as_ref().map(|(p, _)| p.as_path())
    }

    /// Remove the instance, then unmount tracefs if we mounted it; the
    /// first failure is returned, the rest is still tried.
    fn run(&mut self) -> Result<()> {
        let mut result = Ok(());
        if let Some((path, entry)) = self.instance.take() {
            match remove_instance(&path) {
                Ok(()) => self.journal.undone(entry),
                Err(e) => {
                    result = Err(e).with_context(|| {
                        format!("removing the tracing instance {}", path.display())
                    })
                }
            }
        }
        if let Some((path, entry)) = self.mounted.take() {
            match unmount_lazily(&path) {
                Ok(()) => self.journal.undone(entry),
                Err(e) => {
                    if result.is_ok() {
                        result = Err(e).with_context(|| format!("unmounting {}", path.display()));
                    }
                }
            }
        }
        result
    }
}

impl Drop for Undo {
    fn drop(&mut self) {
        let _ = self.run();
    }
}

/// rmdir the instance; the kernel refuses (EBUSY) while a file of it is
/// open, which a reader thread just ended may still hold for a moment.
fn remove_instance(path: &Path) -> std::io::Result<()> {
    let mut last = None;
    for _ in 0..50 {
        match fs::remove_dir(path) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => last = Some(e),
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("rmdir failed")))
}

/// Mount tracefs at `path`.
fn mount_tracefs(path: &Path) -> std::io::Result<()> {
    let target = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    let fstype = c"tracefs";
    // SAFETY: valid NUL-terminated strings; no data argument.
    let r = unsafe {
        libc::mount(
            fstype.as_ptr(),
            target.as_ptr(),
            fstype.as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            std::ptr::null(),
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// The first tracefs mount point in `/proc/self/mounts` text.
fn tracefs_mount(mounts: &str) -> Option<PathBuf> {
    mounts.lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        (f.len() > 2 && f[2] == "tracefs").then(|| PathBuf::from(unescape_mount(f[1])))
    })
}

/// /proc/self/mounts writes space, tab, newline and backslash as octal
/// escapes.
fn unescape_mount(s: &str) -> String {
    s.replace("\\040", " ")
        .replace("\\011", "\t")
        .replace("\\012", "\n")
        .replace("\\134", "\\")
}

/// The kernel's internal `dev_t` of block device `dev`, as the block
/// events' `dev` field holds it: `(major << 20) | minor`.
fn kernel_dev(dev: &Path) -> Result<u64, Refused> {
    let meta = fs::metadata(dev).map_err(|e| Refused(format!("{}: {e}", dev.display())))?;
    if !meta.file_type().is_block_device() {
        return Err(Refused(format!(
            "{} is not a block device: nothing to trace",
            dev.display()
        )));
    }
    let rdev = meta.rdev();
    Ok((u64::from(libc::major(rdev)) << 20) | u64::from(libc::minor(rdev)))
}

/// Write `value` to tracefs file `file`.
fn set(file: &Path, value: &str) -> Result<()> {
    fs::write(file, value).with_context(|| format!("writing {value:?} to {}", file.display()))
}

impl BlockTrace {
    /// Start tracing `block_rq_insert`, `block_rq_issue` and
    /// `block_rq_complete` for block device `dev` (a path like
    /// `/dev/loop3`), in a tracefs instance of its own with the clock
    /// `mono`, a filter on the device and an 8 MiB buffer per CPU (less
    /// beyond 64 CPUs); tracefs
    /// is mounted at /sys/kernel/tracing if it is nowhere. A reader thread
    /// drains the instance's `trace_pipe` into memory as the run goes, so
    /// long runs lose nothing. Each change is written in `journal` before
    /// it is made.
    ///
    /// Refused ([`Refused`]), with nothing changed, where the caller is not
    /// root, `dev` is not a block device, or tracefs, the `mono` clock or
    /// the block events are missing.
    pub fn start(dev: &Path, journal: &Arc<Journal>) -> Result<BlockTrace> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return Err(Refused("tracing the block layer needs root (tracefs)".into()).into());
        }
        let kdev = kernel_dev(dev)?;
        let filesystems = fs::read_to_string("/proc/filesystems").unwrap_or_default();
        if !filesystems
            .lines()
            .any(|l| l.split_whitespace().last() == Some("tracefs"))
        {
            return Err(Refused("the kernel has no tracefs (CONFIG_TRACING)".into()).into());
        }
        let mut undo = Undo {
            journal: Arc::clone(journal),
            mounted: None,
            instance: None,
        };
        let mounts = fs::read_to_string("/proc/self/mounts").context("/proc/self/mounts")?;
        let root = match tracefs_mount(&mounts) {
            Some(r) => r,
            None => {
                let path = PathBuf::from(TRACEFS);
                if !path.is_dir() {
                    return Err(Refused(format!(
                        "tracefs is not mounted and {TRACEFS} is missing"
                    ))
                    .into());
                }
                let entry = journal.record(Change::Mount { path: path.clone() })?;
                if let Err(e) = mount_tracefs(&path) {
                    journal.undone(entry);
                    return Err(Refused(format!("cannot mount tracefs at {TRACEFS}: {e}")).into());
                }
                undo.mounted = Some((path.clone(), entry));
                path
            }
        };
        // What the trace needs, checked before the instance is made (a
        // refusal here unmounts what we mounted: nothing is left changed).
        for e in EVENTS {
            if !root.join("events/block").join(e).join("enable").exists() {
                return Err(Refused(format!(
                    "the kernel has no block:{e} trace event (CONFIG_BLK_DEV_IO_TRACE, CONFIG_EVENT_TRACING)"
                ))
                .into());
            }
        }
        let clocks = fs::read_to_string(root.join("trace_clock")).unwrap_or_default();
        if !clocks
            .split_whitespace()
            .any(|c| c.trim_matches(['[', ']']) == "mono")
        {
            return Err(Refused("tracefs offers no \"mono\" trace clock".into()).into());
        }
        let instances = root.join("instances");
        if !instances.is_dir() {
            return Err(Refused(format!(
                "tracefs at {} has no instances folder",
                root.display()
            ))
            .into());
        }
        undo.instance = Some(make_instance(journal, &instances)?);
        let Some(inst) = undo.instance().map(Path::to_path_buf) else {
            bail!("no tracing instance");
        };
        // The instance's settings go with it: no journal entries needed.
        set(&inst.join("tracing_on"), "0")?;
        let cpus = fs::read_dir(inst.join("per_cpu")).map_or(1, |d| d.count() as u64);
        set(&inst.join("buffer_size_kb"), &buffer_kb(cpus).to_string())?;
        set(&inst.join("trace_clock"), "mono")?;
        for e in EVENTS {
            let dir = inst.join("events/block").join(e);
            set(&dir.join("filter"), &format!("dev == {kdev}"))?;
            set(&dir.join("enable"), "1")?;
        }
        let pipe = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(inst.join("trace_pipe"))
            .with_context(|| format!("opening {}/trace_pipe", inst.display()))?;
        set(&inst.join("tracing_on"), "1")?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let reader = std::thread::Builder::new()
            .name("sluice-blocktrace".into())
            .spawn(move || drain(pipe, &flag))
            .context("starting the trace reader")?;
        Ok(BlockTrace {
            undo,
            stop,
            reader: Some(reader),
        })
    }

    /// Stop tracing, read what is left, undo everything (the instance
    /// removed, tracefs unmounted if we mounted it), and return the events
    /// in time order with the number the kernel lost.
    pub fn finish(mut self) -> Result<Traced> {
        let inst = self.undo.instance().map(Path::to_path_buf);
        // Nothing new after this, so the reader's last pass takes all.
        let off = match &inst {
            Some(i) => set(&i.join("tracing_on"), "0"),
            None => Ok(()),
        };
        let events = self.stop_reader();
        let lost = inst.as_deref().map_or(0, lost_events);
        let undone = self.undo.run();
        off?;
        let mut events = events?;
        undone?;
        // trace_pipe merges the CPUs' buffers in time order already; a
        // stable sort keeps that order among equal (microsecond) times.
        events.sort_by_key(|e| e.time_ns);
        Ok(Traced { events, lost })
    }

    fn stop_reader(&mut self) -> Result<Vec<BlockEvent>> {
        self.stop.store(true, Ordering::Release);
        match self.reader.take() {
            Some(h) => match h.join() {
                Ok(r) => r.context("reading trace_pipe"),
                Err(_) => bail!("the trace reader panicked"),
            },
            None => Ok(Vec::new()),
        }
    }
}

impl Drop for BlockTrace {
    fn drop(&mut self) {
        if let Some(i) = self.undo.instance() {
            let _ = fs::write(i.join("tracing_on"), "0");
        }
        // The reader holds trace_pipe open, which keeps rmdir from working.
        let _ = self.stop_reader();
        // `undo` is dropped (and run) after this.
    }
}

/// Create `instances/sluice-PID` (or `sluice-PID-N` if taken), written in
/// the journal first.
fn make_instance(journal: &Journal, instances: &Path) -> Result<(PathBuf, Entry)> {
    let pid = std::process::id();
    for n in 0..100u32 {
        let name = if n == 0 {
            format!("sluice-{pid}")
        } else {
            format!("sluice-{pid}-{n}")
        };
        let path = instances.join(name);
        let entry = journal.record(Change::Tracing { path: path.clone() })?;
        match fs::create_dir(&path) {
            Ok(()) => return Ok((path, entry)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => journal.undone(entry),
            Err(e) => {
                journal.undone(entry);
                return Err(Refused(format!(
                    "cannot create a tracing instance in {}: {e}",
                    instances.display()
                ))
                .into());
            }
        }
    }
    bail!("no free tracing instance name in {}", instances.display())
}

/// Read `pipe` (non-blocking) until `stop` is set, then once more to the
/// end, parsing lines as they come.
fn drain(mut pipe: File, stop: &AtomicBool) -> std::io::Result<Vec<BlockEvent>> {
    let mut events = Vec::new();
    let mut partial: Vec<u8> = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        // Looked at before the pass: a stop set during it gets one more.
        let last = stop.load(Ordering::Acquire);
        loop {
            match pipe.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    partial.extend_from_slice(&buf[..n]);
                    if let Some(end) = partial.iter().rposition(|&b| b == b'\n') {
                        let text = String::from_utf8_lossy(&partial[..end]);
                        events.extend(text.lines().filter_map(parse_line));
                        partial.drain(..=end);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if last {
            break;
        }
        std::thread::sleep(READ_PAUSE);
    }
    events.extend(parse_line(&String::from_utf8_lossy(&partial)));
    Ok(events)
}

/// Events the instance lost, summed over its CPUs.
fn lost_events(inst: &Path) -> u64 {
    let Ok(cpus) = fs::read_dir(inst.join("per_cpu")) else {
        return 0;
    };
    cpus.filter_map(|c| c.ok())
        .filter_map(|c| fs::read_to_string(c.path().join("stats")).ok())
        .map(|s| lost_in_stats(&s))
        .sum()
}

/// `overrun` (overwritten before being read) plus `dropped events` (not
/// written, the buffer full) of a `per_cpu/cpuN/stats` text.
fn lost_in_stats(text: &str) -> u64 {
    text.lines()
        .filter_map(|l| {
            let (k, v) = l.split_once(':')?;
            matches!(k.trim(), "overrun" | "dropped events")
                .then(|| v.trim().parse::<u64>().ok())
                .flatten()
        })
        .sum()
}

/// Whether `rwbs` (the kernel's `R`, `WS`, `RA`, `FWFS`, ...) is a write
/// (Some(true)), a read (Some(false)) or another operation (None: flush,
/// discard, ...). A leading `F` is a flush before the data, the letter
/// after it the operation; the letters after the operation (`F`ua,
/// read`A`head, `S`ync, `M`eta) do not change the direction.
fn direction(rwbs: &str) -> Option<bool> {
    let b = rwbs.as_bytes();
    let op = match b {
        [b'F', op @ (b'W' | b'R' | b'D' | b'F' | b'N'), ..] => *op,
        [op, ..] => *op,
        [] => return None,
    };
    match op {
        b'W' => Some(true),
        b'R' => Some(false),
        _ => None,
    }
}

/// Seconds with a fraction (`315.659837`) in ns.
fn parse_time(s: &str) -> Option<u64> {
    let (secs, frac) = s.split_once('.').unwrap_or((s, ""));
    if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let secs: u64 = secs.parse().ok()?;
    let mut ns: u64 = if frac.is_empty() {
        0
    } else {
        frac.parse().ok()?
    };
    for _ in frac.len()..9 {
        ns *= 10;
    }
    secs.checked_mul(1_000_000_000)?.checked_add(ns)
}

/// One line of a tracefs `trace`/`trace_pipe` with the default options, as
/// this kernel writes them:
///
/// ```text
///               dd-5574    [000] .....   289.251067: block_rq_issue: 7,0 RS 131072 () 0 + 256 be,0,4 [dd]
///      ksoftirqd/1-22      [001] ..s..   289.256130: block_rq_complete: 7,0 RS () 0 + 256 be,0,4 [0]
/// ```
///
/// None for anything else (headers, `[LOST n EVENTS]`, other events,
/// operations that are neither read nor write such as flushes, garbage).
/// Pure; never panics.
pub fn parse_line(line: &str) -> Option<BlockEvent> {
    let at = line.find(": block_rq_")?;
    let (head, rest) = (&line[..at], &line[at + 2..]);
    let (name, body) = rest.split_once(": ")?;
    let kind = match name {
        "block_rq_insert" => EventKind::Insert,
        "block_rq_issue" => EventKind::Issue,
        "block_rq_complete" => EventKind::Complete,
        _ => return None,
    };
    // The header from the right: the time, then the flags (and a tgid
    // column where record-tgid is set) up to `[CPU]`, then `comm-pid`
    // (the name may hold spaces and dashes).
    let head = head.trim_end();
    let (head, time) = head.rsplit_once(' ')?;
    let time_ns = parse_time(time)?;
    let cpu = head.rfind(" [")?;
    if !head[cpu + 2..]
        .split(']')
        .next()
        .is_some_and(|c| !c.is_empty() && c.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    let task = head[..cpu].trim();
    let (task_comm, pid) = task.rsplit_once('-')?;
    let pid: u32 = pid.parse().ok()?;
    // The body: `MAJ,MIN RWBS [BYTES] (CMD) SECTOR + NR [IOPRIO] [COMM|ERROR]`.
    let mut words = body.split_whitespace();
    let (maj, min) = words.next()?.split_once(',')?;
    maj.parse::<u32>().ok()?;
    min.parse::<u32>().ok()?;
    let write = direction(words.next()?)?;
    if kind != EventKind::Complete {
        words.next()?.parse::<u64>().ok()?;
    }
    // CMD (a passthrough command's bytes, empty otherwise) may hold spaces.
    let open = body.find('(')?;
    let close = open + body[open..].find(')')?;
    let mut words = body[close + 1..].split_whitespace();
    let sector: u64 = words.next()?.parse().ok()?;
    if words.next()? != "+" {
        return None;
    }
    let sectors: u32 = words.next()?.parse().ok()?;
    // What is left: the priority (kernels since 6.x) and `[COMM]` for insert
    // and issue, `[ERROR]` for complete.
    let after = body[close + 1..].trim_end();
    let last = after.rfind(" [")?;
    let bracket = after[last + 1..].strip_prefix('[')?.strip_suffix(']')?;
    let comm = match kind {
        EventKind::Complete => {
            bracket.parse::<i32>().ok()?;
            task_comm.trim().to_string()
        }
        _ => bracket.to_string(),
    };
    Some(BlockEvent {
        kind,
        time_ns,
        write,
        sector,
        sectors,
        pid,
        comm,
    })
}

/// An application request the runner made: byte-exact device sector
/// range, direction, and when the syscall started and returned
/// (CLOCK_MONOTONIC ns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AppRequest {
    /// A write (else a read).
    pub write: bool,
    /// First sector (512 bytes) on the device.
    pub sector: u64,
    /// Length in sectors.
    pub sectors: u32,
    /// When the syscall started.
    pub submitted_ns: u64,
    /// When it returned.
    pub returned_ns: u64,
}

/// Segment tree over the app requests' first sectors (the only points
/// asked about): each device request's sector range is laid on the nodes
/// covering it, stamped with its insertion order; a point's answer is the
/// newest stamp on its path to the root. Insertions go in descending issue
/// time, so the newest stamp is the earliest issue inserted so far.
struct Stabber {
    points: Vec<u64>,
    nodes: Vec<Option<(u64, usize)>>,
    stamp: u64,
}

impl Stabber {
    fn new(points: Vec<u64>) -> Self {
        let n = points.len();
        Stabber {
            points,
            nodes: vec![None; 2 * n],
            stamp: 0,
        }
    }

    /// Lay event `idx` over sectors [start, end).
    fn insert(&mut self, start: u64, end: u64, idx: usize) {
        let n = self.points.len();
        let mut l = self.points.partition_point(|&p| p < start) + n;
        let mut r = self.points.partition_point(|&p| p < end) + n;
        self.stamp += 1;
        let v = Some((self.stamp, idx));
        while l < r {
            if l & 1 == 1 {
                self.nodes[l] = v;
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                self.nodes[r] = v;
            }
            l >>= 1;
            r >>= 1;
        }
    }

    /// The newest event laid over `point` (one of the points).
    fn stab(&self, point: u64) -> Option<usize> {
        let i = self.points.binary_search(&point).ok()?;
        let mut i = i + self.points.len();
        let mut best: Option<(u64, usize)> = None;
        while i > 0 {
            if let Some(v) = self.nodes[i] {
                if best.is_none_or(|b| v.0 > b.0) {
                    best = Some(v);
                }
            }
            i >>= 1;
        }
        best.map(|b| b.1)
    }
}

/// Whether an event printed at `t` (truncated to [`GRAIN_NS`]) may have
/// happened at or after `ns`.
fn not_before(t: u64, ns: u64) -> bool {
    t.saturating_add(GRAIN_NS) > ns
}

/// For each app request, `(issued_ns, completed_ns)` of the device request
/// that served its first sector: the earliest Issue event of the same
/// direction whose range `[sector, sector + sectors)` holds the app
/// request's first sector, issued within the syscall (at or after
/// `submitted_ns`, at or before `returned_ns`, to the trace's microsecond),
/// and the first Complete event of the same direction and start sector at
/// or after that issue. A merged device request serves several app
/// requests, which all get its times. An app request split into several
/// device requests gets the first piece's issue and the last completion of
/// the pieces that follow on from it (each the earliest issue in the
/// window starting where the one before ended); a piece not found ends the
/// walk. None where no issue matches, or its completion is missing.
///
/// O((n + m) log(n + m)) for n requests and m events.
pub fn attach(requests: &[AppRequest], events: &[BlockEvent]) -> Vec<Option<(u64, u64)>> {
    let mut out = vec![None; requests.len()];
    // Issues and completions by (direction, start sector), in time order.
    let mut issues_at: HashMap<(bool, u64), Vec<(u64, usize)>> = HashMap::new();
    let mut completes_at: HashMap<(bool, u64), Vec<u64>> = HashMap::new();
    for (i, e) in events.iter().enumerate() {
        if e.sectors == 0 {
            continue;
        }
        match e.kind {
            EventKind::Issue => issues_at
                .entry((e.write, e.sector))
                .or_default()
                .push((e.time_ns, i)),
            EventKind::Complete => completes_at
                .entry((e.write, e.sector))
                .or_default()
                .push(e.time_ns),
            EventKind::Insert => {}
        }
    }
    issues_at.values_mut().for_each(|v| v.sort_unstable());
    completes_at.values_mut().for_each(|v| v.sort_unstable());
    let completion = |e: &BlockEvent| -> Option<u64> {
        let c = completes_at.get(&(e.write, e.sector))?;
        c.get(c.partition_point(|&t| t < e.time_ns)).copied()
    };
    for write in [false, true] {
        let mut reqs: Vec<usize> = (0..requests.len())
            .filter(|&i| requests[i].write == write)
            .collect();
        let mut points: Vec<u64> = reqs.iter().map(|&i| requests[i].sector).collect();
        points.sort_unstable();
        points.dedup();
        let mut tree = Stabber::new(points);
        let mut issues: Vec<usize> = (0..events.len())
            .filter(|&i| {
                let e = &events[i];
                e.kind == EventKind::Issue && e.write == write && e.sectors > 0
            })
            .collect();
        // Latest first, for both: each request sees exactly the issues
        // that may be at or after its start.
        issues.sort_unstable_by_key(|&i| std::cmp::Reverse(events[i].time_ns));
        reqs.sort_unstable_by_key(|&i| std::cmp::Reverse(requests[i].submitted_ns));
        let mut next = 0;
        for &r in &reqs {
            let req = &requests[r];
            while let Some(&i) = issues.get(next) {
                if !not_before(events[i].time_ns, req.submitted_ns) {
                    break;
                }
                let e = &events[i];
                tree.insert(e.sector, e.sector.saturating_add(u64::from(e.sectors)), i);
                next += 1;
            }
            let Some(first) = tree.stab(req.sector).map(|i| &events[i]) else {
                continue;
            };
            if first.time_ns > req.returned_ns {
                continue;
            }
            let Some(mut done) = completion(first) else {
                continue;
            };
            // The pieces of a split request, each starting where the one
            // before it ended.
            let end = req.sector.saturating_add(u64::from(req.sectors));
            let mut at = first.sector.saturating_add(u64::from(first.sectors));
            while at < end {
                let Some(piece) = issues_at.get(&(write, at)).and_then(|v| {
                    let k = v.partition_point(|&(t, _)| !not_before(t, req.submitted_ns));
                    v.get(k)
                        .filter(|&&(t, _)| t <= req.returned_ns)
                        .map(|&(_, i)| &events[i])
                }) else {
                    break;
                };
                match completion(piece) {
                    Some(c) => done = done.max(c),
                    None => break,
                }
                at = piece.sector.saturating_add(u64::from(piece.sectors));
            }
            out[r] = Some((first.time_ns, done));
        }
    }
    out
}

#[cfg(test)]
mod tests;
