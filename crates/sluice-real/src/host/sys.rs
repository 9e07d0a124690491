//! Small pieces of the system both hosts and the journal use: the value a
//! sysfs setting holds, and a lazy unmount.

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The value a sysfs setting holds: the bracketed choice of a list
/// (`none [bfq] kyber`), else the whole text trimmed.
pub(crate) fn current_value(text: &str) -> String {
    let t = text.trim();
    match (t.find('['), t.find(']')) {
        (Some(a), Some(b)) if a < b => t[a + 1..b].to_string(),
        _ => t.to_string(),
    }
}

/// Unmount `path` lazily (as `umount -l`): a FUSE mount whose server died
/// answers nothing, and a lazy unmount does not wait for it.
pub(crate) fn unmount_lazily(path: &Path) -> std::io::Result<()> {
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    // SAFETY: a valid NUL-terminated path.
    if unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}
