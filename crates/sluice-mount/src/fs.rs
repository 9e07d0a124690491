//! The pass-through file system: SRC's tree under MNT. Metadata calls go
//! straight to SRC (beneath it only: see `lower`); reads and writes of file
//! data go to the engine's thread as requests of the caller's flow.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use fuser::{
    Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation, INodeNo, InitFlags,
    KernelConfig, LockOwner, OpenFlags, RenameFlags, ReplyAttr, ReplyCreate, ReplyData,
    ReplyDirectory, ReplyEmpty, ReplyEntry, ReplyOpen, ReplyStatfs, ReplyWrite, ReplyXattr,
    Request, TimeOrNow, WriteFlags,
};
use rustix::fs::{OFlags, Stat, Timespec as Timestamp, Timestamps};
use sluice_uring::Doorbell;

use crate::attribution::Attribution;
use crate::inodes::Inodes;
use crate::lower::Lower;
use crate::serve::{self, Work};

/// How long the kernel may trust an attribute or a name (libfuse's
/// pass-through example uses the same second).
const TTL: Duration = Duration::from_secs(1);
/// Requests the kernel may send us at once without waiting for answers
/// (read-ahead and asynchronous direct I/O count here).
const MAX_BACKGROUND: u16 = 256;
/// The largest extended attribute value or list Linux has (`XATTR_SIZE_MAX`):
/// a caller's buffer beyond it is not allocated.
const XATTR_MAX: usize = 65536;

fn err(e: io::Error) -> Errno {
    Errno::from_i32(e.raw_os_error().unwrap_or(libc::EIO))
}

fn kind(mode: u32) -> FileType {
    match mode & libc::S_IFMT {
        libc::S_IFDIR => FileType::Directory,
        libc::S_IFLNK => FileType::Symlink,
        libc::S_IFBLK => FileType::BlockDevice,
        libc::S_IFCHR => FileType::CharDevice,
        libc::S_IFIFO => FileType::NamedPipe,
        libc::S_IFSOCK => FileType::Socket,
        _ => FileType::RegularFile,
    }
}

fn time(secs: i64, nsecs: i64) -> SystemTime {
    let nanos = nsecs.clamp(0, 999_999_999) as u32;
    if secs >= 0 {
        UNIX_EPOCH + Duration::new(secs as u64, nanos)
    } else {
        UNIX_EPOCH - Duration::from_secs(secs.unsigned_abs())
            + Duration::from_nanos(u64::from(nanos))
    }
}

/// The attributes of `st`, under our inode number. (`stat`'s field types
/// differ between architectures: the casts are no-ops on some.)
#[allow(clippy::unnecessary_cast)]
fn attr(ino: u64, st: &Stat) -> FileAttr {
    FileAttr {
        ino: INodeNo(ino),
        size: st.st_size as u64,
        blocks: st.st_blocks as u64,
        atime: time(st.st_atime as i64, st.st_atime_nsec as i64),
        mtime: time(st.st_mtime as i64, st.st_mtime_nsec as i64),
        ctime: time(st.st_ctime as i64, st.st_ctime_nsec as i64),
        crtime: time(st.st_ctime as i64, st.st_ctime_nsec as i64),
        kind: kind(st.st_mode as u32),
        perm: (st.st_mode as u32 & 0o7777) as u16,
        nlink: st.st_nlink as u32,
        uid: st.st_uid as u32,
        gid: st.st_gid as u32,
        rdev: st.st_rdev as u32,
        blksize: st.st_blksize as u32,
        flags: 0,
    }
}

fn timestamp(t: Option<TimeOrNow>) -> Timestamp {
    match t {
        None => Timestamp {
            tv_sec: 0,
            tv_nsec: libc::UTIME_OMIT as _,
        },
        Some(TimeOrNow::Now) => Timestamp {
            tv_sec: 0,
            tv_nsec: libc::UTIME_NOW as _,
        },
        Some(TimeOrNow::SpecificTime(t)) => {
            let (sec, nsec) = match t.duration_since(UNIX_EPOCH) {
                Ok(d) => (d.as_secs() as i64, d.subsec_nanos()),
                Err(e) => (-(e.duration().as_secs() as i64), 0),
            };
            Timestamp {
                tv_sec: sec as _,
                tv_nsec: nsec as _,
            }
        }
    }
}

/// A lock that a panicked holder left poisoned is still taken: the
/// tables stay consistent between calls, and a file system must not stop
/// answering.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A directory's entries, read whole at `opendir` so that offsets stay
/// valid while it changes.
type Listing = Vec<(std::ffi::OsString, u64, FileType)>;

/// The scheduling file system.
pub(crate) struct SchedFs {
    lower: Lower,
    read_only: bool,
    inodes: Mutex<Inodes>,
    /// Open files' buffered descriptors (fsync, getattr and truncate by
    /// handle); the engine holds its own.
    files: Mutex<HashMap<u64, std::fs::File>>,
    dirs: Mutex<HashMap<u64, Listing>>,
    next_fh: AtomicU64,
    attribution: Mutex<Attribution>,
    work: Sender<Work>,
    bell: Doorbell,
    /// We run as root: files made for a caller are given to the caller.
    root: bool,
}

impl SchedFs {
    pub(crate) fn new(
        lower: Lower,
        read_only: bool,
        attribution: Attribution,
        work: Sender<Work>,
        bell: Doorbell,
    ) -> Self {
        SchedFs {
            lower,
            read_only,
            inodes: Mutex::new(Inodes::default()),
            files: Mutex::new(HashMap::new()),
            dirs: Mutex::new(HashMap::new()),
            next_fh: AtomicU64::new(1),
            attribution: Mutex::new(attribution),
            work,
            bell,
            // SAFETY: geteuid has no preconditions and cannot fail.
            root: unsafe { libc::geteuid() } == 0,
        }
    }

    fn send(&self, w: Work) {
        // The engine's thread gone means we are stopping: replies inside
        // `w` drop, which answers EIO.
        let _ = self.work.send(w);
        self.bell.ring();
    }

    fn path(&self, ino: INodeNo) -> Result<PathBuf, Errno> {
        let inodes = lock(&self.inodes);
        inodes
            .path(ino.0)
            .map(Path::to_path_buf)
            .ok_or(Errno::ENOENT)
    }

    fn child(&self, parent: INodeNo, name: &OsStr) -> Result<PathBuf, Errno> {
        let inodes = lock(&self.inodes);
        match inodes.child(parent.0, name) {
            Some(p) => Ok(p),
            None if inodes.path(parent.0).is_none() => Err(Errno::ENOENT),
            None => Err(Errno::EINVAL),
        }
    }

    /// Look `path` up: its attributes under the number the kernel will
    /// hold (one more lookup counted).
    fn entry(&self, path: PathBuf) -> Result<FileAttr, Errno> {
        let st = self.lower.stat(&path).map_err(err)?;
        let ino = self
            .inodes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remember(path);
        Ok(attr(ino, &st))
    }

    fn refuse_if_read_only(&self) -> Result<(), Errno> {
        if self.read_only {
            Err(Errno::EROFS)
        } else {
            Ok(())
        }
    }

    /// Give what we made to the caller (we make it as root).
    fn own(&self, req: &Request, path: &Path) {
        if self.root && req.uid() != 0 {
            let _ = self.lower.chown(path, Some(req.uid()), Some(req.gid()));
        }
    }

    /// Open `path` for a handle: its buffered descriptor and, where the
    /// file system below allows, an `O_DIRECT` one; registered with the
    /// engine under a new handle number.
    fn open_handle(&self, path: &Path, flags: i32) -> Result<u64, Errno> {
        let access = flags & libc::O_ACCMODE;
        if self.read_only && access != libc::O_RDONLY {
            return Err(Errno::EROFS);
        }
        // Our own descriptors: offsets come with each request (no
        // O_APPEND, which would ignore them), creation was done already,
        // O_TRUNC is honoured once, by the first.
        let keep = OFlags::from_bits_truncate(
            (flags & (libc::O_ACCMODE | libc::O_TRUNC | libc::O_NOATIME)) as u32,
        );
        let buffered = self.lower.open_at(path, keep, 0).map_err(err)?;
        let plain = keep & !OFlags::TRUNC;
        let direct = match self.lower.open_at(path, plain | OFlags::DIRECT, 0) {
            Ok(fd) => Some(std::fs::File::from(fd)),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => None,
            Err(e) => return Err(err(e)),
        };
        let buffered = std::fs::File::from(buffered);
        let mine = buffered.try_clone().map_err(err)?;
        let fh = self.next_fh.fetch_add(1, Ordering::Relaxed);
        lock(&self.files).insert(fh, mine);
        self.send(Work::Open {
            fh,
            direct,
            buffered,
            path: path.to_path_buf(),
        });
        Ok(fh)
    }

    fn flow(&self, req: &Request) -> sluice::FlowId {
        let mut a = lock(&self.attribution);
        let now = std::time::Instant::now();
        let (flow, new) = a.flow_of(req.pid(), req.uid(), now);
        let gone = a.gone(now);
        drop(a);
        for g in gone.into_iter().filter(|&g| g != flow) {
            self.send(Work::Gone(g));
        }
        if let Some(f) = new {
            self.send(Work::Flow(f));
        }
        flow
    }

    fn with_file<T>(
        &self,
        fh: FileHandle,
        f: impl FnOnce(&std::fs::File) -> io::Result<T>,
    ) -> Result<T, Errno> {
        let files = lock(&self.files);
        let file = files.get(&fh.0).ok_or(Errno::EBADF)?;
        f(file).map_err(err)
    }
}

impl Drop for SchedFs {
    fn drop(&mut self) {
        // Close the channel first (fields drop only after this body), then
        // wake the engine's thread to see it closed.
        let (closed, _) = std::sync::mpsc::channel();
        drop(std::mem::replace(&mut self.work, closed));
        self.bell.ring();
    }
}

impl Filesystem for SchedFs {
    fn init(&mut self, _req: &Request, config: &mut KernelConfig) -> io::Result<()> {
        let _ = config.add_capabilities(InitFlags::FUSE_ASYNC_DIO);
        let _ = config.set_max_background(MAX_BACKGROUND);
        let _ = config.set_congestion_threshold(MAX_BACKGROUND * 3 / 4);
        Ok(())
    }

    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        match self.child(parent, name).and_then(|p| self.entry(p)) {
            Ok(a) => reply.entry(&TTL, &a, Generation(0)),
            Err(e) => reply.error(e),
        }
    }

    fn forget(&self, _req: &Request, ino: INodeNo, nlookup: u64) {
        lock(&self.inodes).forget(ino.0, nlookup);
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, fh: Option<FileHandle>, reply: ReplyAttr) {
        let st = match (fh, self.path(ino)) {
            (_, Ok(p)) => self.lower.stat(&p).map_err(err),
            // Removed, but still open: its handle has it.
            (Some(fh), Err(_)) => self.with_file(fh, |f| {
                rustix::fs::fstat(f).map_err(|e| io::Error::from_raw_os_error(e.raw_os_error()))
            }),
            (None, Err(e)) => Err(e),
        };
        match st {
            Ok(st) => reply.attr(&TTL, &attr(ino.0, &st)),
            Err(e) => reply.error(e),
        }
    }

    fn setattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        mode: Option<u32>,
        uid: Option<u32>,
        gid: Option<u32>,
        size: Option<u64>,
        atime: Option<TimeOrNow>,
        mtime: Option<TimeOrNow>,
        _ctime: Option<SystemTime>,
        fh: Option<FileHandle>,
        _crtime: Option<SystemTime>,
        _chgtime: Option<SystemTime>,
        _bkuptime: Option<SystemTime>,
        _flags: Option<fuser::BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        let result = (|| {
            self.refuse_if_read_only()?;
            let path = self.path(ino)?;
            if let Some(m) = mode {
                self.lower.chmod(&path, m).map_err(err)?;
            }
            if uid.is_some() || gid.is_some() {
                self.lower.chown(&path, uid, gid).map_err(err)?;
            }
            if let Some(s) = size {
                match fh {
                    Some(fh) if self.with_file(fh, |_| Ok(())).is_ok() => {
                        self.with_file(fh, |f| f.set_len(s))?
                    }
                    _ => self.lower.truncate(&path, s).map_err(err)?,
                }
            }
            if atime.is_some() || mtime.is_some() {
                let times = Timestamps {
                    last_access: timestamp(atime),
                    last_modification: timestamp(mtime),
                };
                self.lower.utimes(&path, &times).map_err(err)?;
            }
            self.lower.stat(&path).map_err(err)
        })();
        match result {
            Ok(st) => reply.attr(&TTL, &attr(ino.0, &st)),
            Err(e) => reply.error(e),
        }
    }

    fn readlink(&self, _req: &Request, ino: INodeNo, reply: ReplyData) {
        match self
            .path(ino)
            .and_then(|p| self.lower.readlink(&p).map_err(err))
        {
            Ok(t) => reply.data(&t),
            Err(e) => reply.error(e),
        }
    }

    fn mknod(
        &self,
        req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        rdev: u32,
        reply: ReplyEntry,
    ) {
        self.make(req, parent, name, reply, |path| {
            self.lower.mknod(path, mode & !umask, u64::from(rdev))
        })
    }

    fn mkdir(
        &self,
        req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        reply: ReplyEntry,
    ) {
        self.make(req, parent, name, reply, |path| {
            self.lower.mkdir(path, mode & !umask)
        })
    }

    fn unlink(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        self.remove(parent, name, false, reply)
    }

    fn rmdir(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        self.remove(parent, name, true, reply)
    }

    fn symlink(
        &self,
        req: &Request,
        parent: INodeNo,
        link_name: &OsStr,
        target: &Path,
        reply: ReplyEntry,
    ) {
        self.make(req, parent, link_name, reply, |path| {
            self.lower.symlink(target, path)
        })
    }

    fn rename(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        newparent: INodeNo,
        newname: &OsStr,
        flags: RenameFlags,
        reply: ReplyEmpty,
    ) {
        let result = (|| {
            self.refuse_if_read_only()?;
            let from = self.child(parent, name)?;
            let to = self.child(newparent, newname)?;
            self.lower.rename(&from, &to, flags.bits()).map_err(err)?;
            let mut inodes = lock(&self.inodes);
            if flags.bits() & libc::RENAME_EXCHANGE != 0 {
                inodes.exchanged(&from, &to);
            } else {
                inodes.renamed(&from, &to);
            }
            Ok(())
        })();
        match result {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn link(
        &self,
        _req: &Request,
        ino: INodeNo,
        newparent: INodeNo,
        newname: &OsStr,
        reply: ReplyEntry,
    ) {
        let result = (|| {
            self.refuse_if_read_only()?;
            let from = self.path(ino)?;
            let to = self.child(newparent, newname)?;
            self.lower.link(&from, &to).map_err(err)?;
            self.entry(to)
        })();
        match result {
            Ok(a) => reply.entry(&TTL, &a, Generation(0)),
            Err(e) => reply.error(e),
        }
    }

    fn open(&self, _req: &Request, ino: INodeNo, flags: OpenFlags, reply: ReplyOpen) {
        match self.path(ino).and_then(|p| self.open_handle(&p, flags.0)) {
            Ok(fh) => reply.opened(FileHandle(fh), FopenFlags::empty()),
            Err(e) => reply.error(e),
        }
    }

    fn read(
        &self,
        req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        if size == 0 {
            return reply.data(&[]);
        }
        if offset.checked_add(u64::from(size) + serve::BLOCK).is_none() {
            return reply.error(Errno::EINVAL);
        }
        let flow = self.flow(req);
        self.send(Work::Read {
            fh: fh.0,
            flow,
            offset,
            size,
            reply,
        });
    }

    fn write(
        &self,
        req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        data: &[u8],
        _write_flags: WriteFlags,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        if self.read_only {
            return reply.error(Errno::EROFS);
        }
        if data.is_empty() {
            return reply.written(0);
        }
        let flow = self.flow(req);
        self.send(Work::Write {
            fh: fh.0,
            flow,
            offset,
            data: data.to_vec(),
            reply,
        });
    }

    fn flush(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _lock_owner: LockOwner,
        reply: ReplyEmpty,
    ) {
        // Writes are answered when they are done: nothing is held here.
        reply.ok();
    }

    fn release(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        _flush: bool,
        reply: ReplyEmpty,
    ) {
        lock(&self.files).remove(&fh.0);
        self.send(Work::Release { fh: fh.0 });
        reply.ok();
    }

    fn fsync(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        datasync: bool,
        reply: ReplyEmpty,
    ) {
        let r = self.with_file(fh, |f| {
            if datasync {
                f.sync_data()
            } else {
                f.sync_all()
            }
        });
        match r {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn opendir(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        let listing = self
            .path(ino)
            .and_then(|p| self.lower.list(&p).map_err(err));
        match listing {
            Ok(list) => {
                let fh = self.next_fh.fetch_add(1, Ordering::Relaxed);
                let list = list
                    .into_iter()
                    .map(|(n, i, t)| (n, i, kind(t.as_raw_mode())))
                    .collect();
                lock(&self.dirs).insert(fh, list);
                reply.opened(FileHandle(fh), FopenFlags::empty())
            }
            Err(e) => reply.error(e),
        }
    }

    fn readdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        let dirs = lock(&self.dirs);
        let Some(list) = dirs.get(&fh.0) else {
            return reply.error(Errno::EBADF);
        };
        let dots = [
            (OsStr::new("."), ino.0, FileType::Directory),
            (OsStr::new(".."), 1, FileType::Directory),
        ];
        let all = dots
            .into_iter()
            .chain(list.iter().map(|(n, i, t)| (n.as_os_str(), *i, *t)));
        for (i, (name, ino, kind)) in all.enumerate().skip(offset as usize) {
            // The lower inode numbers only fill d_ino; lookups give ours.
            if reply.add(INodeNo(ino.max(1)), (i + 1) as u64, kind, name) {
                break;
            }
        }
        reply.ok();
    }

    fn releasedir(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        reply: ReplyEmpty,
    ) {
        lock(&self.dirs).remove(&fh.0);
        reply.ok();
    }

    fn statfs(&self, _req: &Request, _ino: INodeNo, reply: ReplyStatfs) {
        match self.lower.statvfs() {
            Ok(s) => reply.statfs(
                s.f_blocks,
                s.f_bfree,
                s.f_bavail,
                s.f_files,
                s.f_ffree,
                s.f_bsize as u32,
                s.f_namemax as u32,
                s.f_frsize as u32,
            ),
            Err(e) => reply.error(err(e)),
        }
    }

    fn setxattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        name: &OsStr,
        value: &[u8],
        flags: i32,
        position: u32,
        reply: ReplyEmpty,
    ) {
        let result = (|| {
            self.refuse_if_read_only()?;
            if position != 0 {
                return Err(Errno::EINVAL);
            }
            let p = self.path(ino)?;
            self.lower.setxattr(&p, name, value, flags).map_err(err)
        })();
        match result {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn getxattr(&self, _req: &Request, ino: INodeNo, name: &OsStr, size: u32, reply: ReplyXattr) {
        match self.path(ino).and_then(|p| {
            let want = (size as usize).min(XATTR_MAX);
            self.lower.getxattr(&p, name, want).map_err(err)
        }) {
            Ok(v) if size == 0 => reply.size(v.len() as u32),
            Ok(v) => reply.data(&v),
            Err(e) => reply.error(e),
        }
    }

    fn listxattr(&self, _req: &Request, ino: INodeNo, size: u32, reply: ReplyXattr) {
        match self.path(ino).and_then(|p| {
            let want = (size as usize).min(XATTR_MAX);
            self.lower.listxattr(&p, want).map_err(err)
        }) {
            Ok(v) if size == 0 => reply.size(v.len() as u32),
            Ok(v) => reply.data(&v),
            Err(e) => reply.error(e),
        }
    }

    fn removexattr(&self, _req: &Request, ino: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        let result = (|| {
            self.refuse_if_read_only()?;
            let p = self.path(ino)?;
            self.lower.removexattr(&p, name).map_err(err)
        })();
        match result {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn create(
        &self,
        req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        flags: i32,
        reply: ReplyCreate,
    ) {
        let result = (|| {
            self.refuse_if_read_only()?;
            let path = self.child(parent, name)?;
            let made = OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY;
            drop(
                self.lower
                    .open_at(&path, made, mode & !umask & 0o7777)
                    .map_err(err)?,
            );
            self.own(req, &path);
            let a = self.entry(path.clone())?;
            let fh = self.open_handle(&path, flags & !libc::O_TRUNC)?;
            Ok((a, fh))
        })();
        match result {
            Ok((a, fh)) => {
                reply.created(&TTL, &a, Generation(0), FileHandle(fh), FopenFlags::empty())
            }
            Err(e) => reply.error(e),
        }
    }
}

impl SchedFs {
    /// Make `name` in `parent` with `make` (mkdir, mknod, symlink), give
    /// it to the caller, and answer with its entry.
    fn make(
        &self,
        req: &Request,
        parent: INodeNo,
        name: &OsStr,
        reply: ReplyEntry,
        make: impl FnOnce(&Path) -> io::Result<()>,
    ) {
        let result = (|| {
            self.refuse_if_read_only()?;
            let path = self.child(parent, name)?;
            make(&path).map_err(err)?;
            self.own(req, &path);
            self.entry(path)
        })();
        match result {
            Ok(a) => reply.entry(&TTL, &a, Generation(0)),
            Err(e) => reply.error(e),
        }
    }

    fn remove(&self, parent: INodeNo, name: &OsStr, dir: bool, reply: ReplyEmpty) {
        let result = (|| {
            self.refuse_if_read_only()?;
            let path = self.child(parent, name)?;
            self.lower.remove(&path, dir).map_err(err)?;
            lock(&self.inodes).removed(&path);
            Ok(())
        })();
        match result {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }
}
