//! The doorbell: an eventfd the engine keeps polled in its ring, so that a
//! thread handing the engine's thread work can end its blocking wait
//! without a timeout that spins.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::Arc;

/// The `user_data` of the doorbell's poll: no request id reaches it
/// (ids are `sequence << 24 | slot`, and a merged group's only sets the top
/// bit of one).
pub(crate) const DOORBELL_TAG: u64 = u64::MAX;

/// Rings an engine's thread awake: see [`crate::Engine::doorbell`].
/// Cloning shares the same eventfd; any thread may ring.
#[derive(Clone, Debug)]
pub struct Doorbell(Arc<OwnedFd>);

impl Doorbell {
    pub(crate) fn new() -> io::Result<Self> {
        // SAFETY: eventfd takes no pointers; a negative result is an error.
        let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` was just opened and is owned by nothing else.
        Ok(Doorbell(Arc::new(unsafe { OwnedFd::from_raw_fd(fd) })))
    }

    /// Wake the engine's thread: its current or next [`crate::Engine::poll`]
    /// returns. Rings that come before the engine wakes count as one.
    pub fn ring(&self) {
        let one: u64 = 1;
        // SAFETY: writes 8 bytes from a live u64 to an eventfd we own. It
        // fails only when the counter is about to overflow, i.e. when the
        // bell is already ringing.
        unsafe { libc::write(self.raw_fd(), (&one as *const u64).cast(), 8) };
    }

    /// Silence it (after the engine saw it ring).
    pub(crate) fn reset(&self) {
        let mut count: u64 = 0;
        // SAFETY: reads 8 bytes into a live u64; EAGAIN (not rung) is fine.
        unsafe { libc::read(self.raw_fd(), (&mut count as *mut u64).cast(), 8) };
    }

    pub(crate) fn raw_fd(&self) -> RawFd {
        self.0.as_raw_fd()
    }
}
