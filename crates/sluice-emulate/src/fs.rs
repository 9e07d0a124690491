//! The FUSE side: one directory holding `disk.img`, whose reads and writes
//! go through the timing core and are answered by the clock thread when the
//! model completes them.

use std::ffi::OsStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::time::{Duration as StdDuration, SystemTime};

use fuser::{
    Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation, INodeNo, InitFlags,
    KernelConfig, LockOwner, OpenFlags, ReplyAttr, ReplyData, ReplyDirectory, ReplyEmpty,
    ReplyEntry, ReplyOpen, ReplyStatfs, ReplyWrite, Request, WriteFlags,
};
use sluice::{Duration, Instant};

use crate::core::{Io, TimingCore};
use crate::store::Store;

/// The file's name in the mounted directory.
pub const DISK_NAME: &str = "disk.img";
const DISK_INO: INodeNo = INodeNo(2);
const TTL: StdDuration = StdDuration::from_secs(1);
/// Background requests the kernel may keep in flight to us (asynchronous
/// direct I/O from a loop device counts here): enough for any drive queue.
const MAX_BACKGROUND: u16 = 256;

/// What to do when a request completes.
pub(crate) enum Pending {
    Read {
        reply: ReplyData,
        offset: u64,
        len: u32,
    },
    Write {
        reply: ReplyWrite,
        offset: u64,
        data: Vec<u8>,
    },
}

/// What the FUSE callbacks send the clock thread.
pub(crate) enum Msg {
    /// A request that arrived at `at`.
    Submit {
        at: Instant,
        io: Io,
        pending: Pending,
    },
    Stop,
}

/// The monotonic clock both sides read: its origin is the model's
/// `Instant::ZERO`.
#[derive(Clone, Copy)]
pub(crate) struct Clock(std::time::Instant);

impl Clock {
    pub(crate) fn start() -> Self {
        Clock(std::time::Instant::now())
    }

    pub(crate) fn now(&self) -> Instant {
        Instant::from_nanos(self.0.elapsed().as_nanos().min(u128::from(u64::MAX)) as u64)
    }
}

/// The clock thread: owns the drive model and the data; sleeps until the
/// model's next completion or the next request, whichever comes first,
/// and answers what completed in the model's order.
pub(crate) fn clock_loop(
    mut core: TimingCore<Pending>,
    clock: Clock,
    rx: Receiver<Msg>,
    served: &AtomicU64,
) {
    let mut store = Store::new();
    loop {
        let now = clock.now();
        let done = core.complete(now);
        served.fetch_add(done.len() as u64, Ordering::Relaxed);
        for (_, p) in done {
            answer(&mut store, p);
        }
        let msg = match core.next_event() {
            None => match rx.recv() {
                Ok(m) => m,
                Err(_) => return,
            },
            Some(t) => {
                let wait = t.saturating_duration_since(now);
                if wait == Duration::ZERO {
                    continue;
                }
                match rx.recv_timeout(wait.into()) {
                    Ok(m) => m,
                    Err(RecvTimeoutError::Timeout) => continue,
                    Err(RecvTimeoutError::Disconnected) => return,
                }
            }
        };
        match msg {
            Msg::Submit { at, io, pending } => core.submit(at, io, pending),
            // Requests still under way are answered with EIO as their
            // replies drop.
            Msg::Stop => return,
        }
    }
}

fn answer(store: &mut Store, p: Pending) {
    match p {
        Pending::Read { reply, offset, len } => {
            let mut buf = vec![0u8; len as usize];
            store.read(offset, &mut buf);
            reply.data(&buf);
        }
        Pending::Write {
            reply,
            offset,
            data,
        } => {
            store.write(offset, &data);
            reply.written(data.len() as u32);
        }
    }
}

/// The filesystem: a root directory with one file of `size` bytes.
pub(crate) struct DiskFs {
    pub tx: Sender<Msg>,
    pub clock: Clock,
    pub size: u64,
    pub uid: u32,
    pub gid: u32,
    pub born: SystemTime,
}

impl DiskFs {
    fn submit(&self, io: Io, pending: Pending) {
        let at = self.clock.now();
        // The clock thread gone means we are stopping: the reply, dropped,
        // answers EIO.
        let _ = self.tx.send(Msg::Submit { at, io, pending });
    }

    fn attr(&self, ino: INodeNo) -> Option<FileAttr> {
        let (kind, perm, size, nlink) = match ino {
            INodeNo::ROOT => (FileType::Directory, 0o755, 0, 2),
            DISK_INO => (FileType::RegularFile, 0o644, self.size, 1),
            _ => return None,
        };
        Some(FileAttr {
            ino,
            size,
            blocks: size.div_ceil(512),
            atime: self.born,
            mtime: self.born,
            ctime: self.born,
            crtime: self.born,
            kind,
            perm,
            nlink,
            uid: self.uid,
            gid: self.gid,
            rdev: 0,
            blksize: 4096,
            flags: 0,
        })
    }
}

impl Filesystem for DiskFs {
    fn init(&mut self, _req: &Request, config: &mut KernelConfig) -> std::io::Result<()> {
        // Let direct I/O from the kernel (a loop device) arrive several
        // requests at a time, so the drive's queue sees them.
        let _ = config.add_capabilities(InitFlags::FUSE_ASYNC_DIO);
        let _ = config.set_max_background(MAX_BACKGROUND);
        let _ = config.set_congestion_threshold(MAX_BACKGROUND);
        Ok(())
    }

    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        match (parent, self.attr(DISK_INO)) {
            (INodeNo::ROOT, Some(a)) if name == DISK_NAME => reply.entry(&TTL, &a, Generation(0)),
            _ => reply.error(Errno::ENOENT),
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        match self.attr(ino) {
            Some(a) => reply.attr(&TTL, &a),
            None => reply.error(Errno::ENOENT),
        }
    }

    fn setattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        _mode: Option<u32>,
        _uid: Option<u32>,
        _gid: Option<u32>,
        size: Option<u64>,
        _atime: Option<fuser::TimeOrNow>,
        _mtime: Option<fuser::TimeOrNow>,
        _ctime: Option<SystemTime>,
        _fh: Option<FileHandle>,
        _crtime: Option<SystemTime>,
        _chgtime: Option<SystemTime>,
        _bkuptime: Option<SystemTime>,
        _flags: Option<fuser::BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        // A disk's size is fixed; anything else is accepted and ignored.
        match self.attr(ino) {
            Some(_) if size.is_some_and(|s| s != self.size) => reply.error(Errno::EPERM),
            Some(a) => reply.attr(&TTL, &a),
            None => reply.error(Errno::ENOENT),
        }
    }

    fn open(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        if ino != DISK_INO {
            return reply.error(Errno::EISDIR);
        }
        // Direct I/O: every read and write reaches the drive, none is
        // answered from the kernel's page cache.
        reply.opened(FileHandle(0), FopenFlags::FOPEN_DIRECT_IO)
    }

    fn read(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        if ino != DISK_INO {
            return reply.error(Errno::EISDIR);
        }
        if offset >= self.size || size == 0 {
            return reply.data(&[]);
        }
        let len = (self.size - offset).min(u64::from(size)) as u32;
        self.submit(Io::read(offset, len), Pending::Read { reply, offset, len });
    }

    fn write(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        data: &[u8],
        _write_flags: WriteFlags,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        if ino != DISK_INO {
            return reply.error(Errno::EISDIR);
        }
        if offset >= self.size {
            return reply.error(Errno::ENOSPC);
        }
        if data.is_empty() {
            return reply.written(0);
        }
        let len = (self.size - offset).min(data.len() as u64) as usize;
        self.submit(
            Io::write(offset, len as u32),
            Pending::Write {
                reply,
                offset,
                data: data[..len].to_vec(),
            },
        );
    }

    fn flush(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _lock_owner: LockOwner,
        reply: ReplyEmpty,
    ) {
        reply.ok();
    }

    fn fsync(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _datasync: bool,
        reply: ReplyEmpty,
    ) {
        // Writes are durable in the model's terms once they complete.
        reply.ok();
    }

    fn readdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        if ino != INodeNo::ROOT {
            return reply.error(Errno::ENOTDIR);
        }
        let entries = [
            (INodeNo::ROOT, FileType::Directory, "."),
            (INodeNo::ROOT, FileType::Directory, ".."),
            (DISK_INO, FileType::RegularFile, DISK_NAME),
        ];
        for (i, (ino, kind, name)) in entries.iter().enumerate().skip(offset as usize) {
            if reply.add(*ino, (i + 1) as u64, *kind, name) {
                break;
            }
        }
        reply.ok();
    }

    fn statfs(&self, _req: &Request, _ino: INodeNo, reply: ReplyStatfs) {
        let blocks = self.size / 4096;
        reply.statfs(blocks, 0, 0, 2, 0, 4096, 255, 4096);
    }
}
