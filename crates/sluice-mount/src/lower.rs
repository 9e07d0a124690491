//! The source tree, reached only beneath it: every path is resolved with
//! `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` from a descriptor of
//! SRC, and the last component is acted on with the `*at` calls that do
//! not follow it. A symbolic link inside SRC is shown as a link (the
//! kernel follows it on the caller's side, never through us), and a
//! directory swapped for a link behind our back is an error (ELOOP), not a
//! way out of SRC.

use std::ffi::{OsStr, OsString};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use rustix::fs::{self as rfs, AtFlags, Mode, OFlags, ResolveFlags, Stat, Timestamps};

const RESOLVE: ResolveFlags = ResolveFlags::BENEATH.union(ResolveFlags::NO_SYMLINKS);

fn os(e: rustix::io::Errno) -> io::Error {
    io::Error::from_raw_os_error(e.raw_os_error())
}

/// SRC, opened once.
#[derive(Debug)]
pub(crate) struct Lower {
    root: OwnedFd,
}

/// A path relative to SRC split into its folder and its last name (the
/// root itself has no name).
fn split(rel: &Path) -> io::Result<(&Path, &OsStr)> {
    match (rel.parent(), rel.file_name()) {
        (Some(dir), Some(name)) => Ok((dir, name)),
        _ => Err(io::Error::from_raw_os_error(libc::EINVAL)),
    }
}

impl Lower {
    /// Open SRC (a directory).
    pub(crate) fn open(src: &Path) -> io::Result<Self> {
        let root = rfs::open(
            src,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(os)?;
        Ok(Lower { root })
    }

    /// Open `rel` beneath SRC with `flags` (creating it with `mode` when
    /// `flags` says so).
    pub(crate) fn open_at(&self, rel: &Path, flags: OFlags, mode: u32) -> io::Result<OwnedFd> {
        let rel: &Path = if rel.as_os_str().is_empty() {
            Path::new(".")
        } else {
            rel
        };
        rfs::openat2(
            &self.root,
            rel,
            flags | OFlags::CLOEXEC | OFlags::NOFOLLOW,
            Mode::from_raw_mode(mode),
            RESOLVE,
        )
        .map_err(os)
    }

    /// The folder holding `rel`, and `rel`'s name in it.
    fn parent<'a>(&self, rel: &'a Path) -> io::Result<(OwnedFd, &'a OsStr)> {
        let (dir, name) = split(rel)?;
        let fd = self.open_at(dir, OFlags::PATH | OFlags::DIRECTORY, 0)?;
        Ok((fd, name))
    }

    /// `lstat` of `rel` (the root included).
    pub(crate) fn stat(&self, rel: &Path) -> io::Result<Stat> {
        if rel.as_os_str().is_empty() {
            return rfs::fstat(&self.root).map_err(os);
        }
        let (dir, name) = self.parent(rel)?;
        rfs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW).map_err(os)
    }

    /// The names in folder `rel` with their inode numbers and types
    /// (`d_type`), without `.` and `..`.
    pub(crate) fn list(&self, rel: &Path) -> io::Result<Vec<(OsString, u64, rfs::FileType)>> {
        let fd = self.open_at(rel, OFlags::RDONLY | OFlags::DIRECTORY, 0)?;
        let mut dir = rfs::Dir::new(fd).map_err(os)?;
        let mut out = Vec::new();
        while let Some(entry) = dir.read() {
            let entry = entry.map_err(os)?;
            let name = entry.file_name().to_bytes();
            if name == b"." || name == b".." {
                continue;
            }
            out.push((
                OsStr::from_bytes(name).to_os_string(),
                entry.ino(),
                entry.file_type(),
            ));
        }
        Ok(out)
    }

    pub(crate) fn mkdir(&self, rel: &Path, mode: u32) -> io::Result<()> {
        let (dir, name) = self.parent(rel)?;
        rfs::mkdirat(&dir, name, Mode::from_raw_mode(mode)).map_err(os)
    }

    pub(crate) fn mknod(&self, rel: &Path, mode: u32, rdev: u64) -> io::Result<()> {
        let (dir, name) = self.parent(rel)?;
        let kind = rfs::FileType::from_raw_mode(mode);
        rfs::mknodat(&dir, name, kind, Mode::from_raw_mode(mode & 0o7777), rdev).map_err(os)
    }

    pub(crate) fn symlink(&self, target: &Path, rel: &Path) -> io::Result<()> {
        let (dir, name) = self.parent(rel)?;
        rfs::symlinkat(target, &dir, name).map_err(os)
    }

    pub(crate) fn link(&self, from: &Path, to: &Path) -> io::Result<()> {
        let (fdir, fname) = self.parent(from)?;
        let (tdir, tname) = self.parent(to)?;
        rfs::linkat(&fdir, fname, &tdir, tname, AtFlags::empty()).map_err(os)
    }

    pub(crate) fn readlink(&self, rel: &Path) -> io::Result<Vec<u8>> {
        let (dir, name) = self.parent(rel)?;
        let target = rfs::readlinkat(&dir, name, Vec::new()).map_err(os)?;
        Ok(target.into_bytes())
    }

    /// Remove a file (`dir` false) or an empty folder.
    pub(crate) fn remove(&self, rel: &Path, dir: bool) -> io::Result<()> {
        let (parent, name) = self.parent(rel)?;
        let flags = if dir {
            AtFlags::REMOVEDIR
        } else {
            AtFlags::empty()
        };
        rfs::unlinkat(&parent, name, flags).map_err(os)
    }

    pub(crate) fn rename(&self, from: &Path, to: &Path, flags: u32) -> io::Result<()> {
        let (fdir, fname) = self.parent(from)?;
        let (tdir, tname) = self.parent(to)?;
        let flags = rfs::RenameFlags::from_bits(flags)
            .ok_or_else(|| io::Error::from_raw_os_error(libc::EINVAL))?;
        rfs::renameat_with(&fdir, fname, &tdir, tname, flags).map_err(os)
    }

    /// The path through `/proc/self/fd` of an `O_PATH` descriptor of `rel`
    /// itself (a link is refused by `RESOLVE_NO_SYMLINKS`): calls that take
    /// only paths reach exactly that file through it.
    fn pinned(&self, rel: &Path) -> io::Result<(OwnedFd, PathBuf)> {
        let fd = self.open_at(rel, OFlags::PATH, 0)?;
        let path = PathBuf::from(format!("/proc/self/fd/{}", fd.as_raw_fd()));
        Ok((fd, path))
    }

    pub(crate) fn chmod(&self, rel: &Path, mode: u32) -> io::Result<()> {
        let (_fd, path) = self.pinned(rel)?;
        rfs::chmod(&path, Mode::from_raw_mode(mode & 0o7777)).map_err(os)
    }

    pub(crate) fn chown(&self, rel: &Path, uid: Option<u32>, gid: Option<u32>) -> io::Result<()> {
        let uid = uid.map(rfs::Uid::from_raw);
        let gid = gid.map(rfs::Gid::from_raw);
        if rel.as_os_str().is_empty() {
            return rfs::fchown(&self.root, uid, gid).map_err(os);
        }
        let (dir, name) = self.parent(rel)?;
        rfs::chownat(&dir, name, uid, gid, AtFlags::SYMLINK_NOFOLLOW).map_err(os)
    }

    pub(crate) fn utimes(&self, rel: &Path, times: &Timestamps) -> io::Result<()> {
        if rel.as_os_str().is_empty() {
            let (_fd, path) = self.pinned(rel)?;
            return rfs::utimensat(rfs::CWD, &path, times, AtFlags::empty()).map_err(os);
        }
        let (dir, name) = self.parent(rel)?;
        rfs::utimensat(&dir, name, times, AtFlags::SYMLINK_NOFOLLOW).map_err(os)
    }

    pub(crate) fn truncate(&self, rel: &Path, size: u64) -> io::Result<()> {
        let fd = self.open_at(rel, OFlags::WRONLY, 0)?;
        rfs::ftruncate(&fd, size).map_err(os)
    }

    /// The path extended attributes of `rel` are reached by (the `l*` calls
    /// on it do not follow a link in its last place), with the folder's
    /// descriptor that keeps the path valid.
    fn xattr_path(&self, rel: &Path) -> io::Result<(OwnedFd, PathBuf)> {
        if rel.as_os_str().is_empty() {
            return self.pinned(rel);
        }
        let (dir, name) = self.parent(rel)?;
        let path = Path::new(&format!("/proc/self/fd/{}", dir.as_raw_fd())).join(name);
        Ok((dir, path))
    }

    pub(crate) fn getxattr(&self, rel: &Path, name: &OsStr, size: usize) -> io::Result<Vec<u8>> {
        let (_dir, path) = self.xattr_path(rel)?;
        if size == 0 {
            let n = rfs::lgetxattr(&path, name, &mut [0u8; 0][..]).map_err(os)?;
            return Ok(vec![0; n]);
        }
        let mut buf = vec![0u8; size];
        let n = rfs::lgetxattr(&path, name, &mut buf[..]).map_err(os)?;
        buf.truncate(n);
        Ok(buf)
    }

    pub(crate) fn listxattr(&self, rel: &Path, size: usize) -> io::Result<Vec<u8>> {
        let (_dir, path) = self.xattr_path(rel)?;
        if size == 0 {
            let n = rfs::llistxattr(&path, &mut [0u8; 0][..]).map_err(os)?;
            return Ok(vec![0; n]);
        }
        let mut buf = vec![0u8; size];
        let n = rfs::llistxattr(&path, &mut buf[..]).map_err(os)?;
        buf.truncate(n);
        Ok(buf)
    }

    pub(crate) fn setxattr(
        &self,
        rel: &Path,
        name: &OsStr,
        value: &[u8],
        flags: i32,
    ) -> io::Result<()> {
        let (_dir, path) = self.xattr_path(rel)?;
        let flags = rfs::XattrFlags::from_bits(flags as u32)
            .ok_or_else(|| io::Error::from_raw_os_error(libc::EINVAL))?;
        rfs::lsetxattr(&path, name, value, flags).map_err(os)
    }

    pub(crate) fn removexattr(&self, rel: &Path, name: &OsStr) -> io::Result<()> {
        let (_dir, path) = self.xattr_path(rel)?;
        rfs::lremovexattr(&path, name).map_err(os)
    }

    pub(crate) fn statvfs(&self) -> io::Result<rfs::StatVfs> {
        rfs::fstatvfs(&self.root).map_err(os)
    }
}
