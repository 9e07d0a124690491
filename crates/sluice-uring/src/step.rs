//! What one kernel result does to a request: the pure core of the
//! exactly-once rule, unit-tested without a kernel.

use std::io;

use sluice::{Direction, SECTOR_BYTES};

/// Consecutive EAGAIN/EINTR results after which a request gives up and
/// completes with that error (a livelock guard; the kernel retries EAGAIN
/// itself for files, so this is not expected to be reached).
pub(crate) const MAX_RETRIES: u32 = 1000;

/// The progress of one request through the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Progress {
    pub dir: Direction,
    /// Bytes asked for.
    pub len: usize,
    /// Bytes done so far.
    pub done: usize,
    /// O_DIRECT target: a remainder that starts off a 512-byte boundary
    /// cannot be sent, so a short read ending there is the end of the file.
    pub direct: bool,
    /// Consecutive EAGAIN/EINTR results.
    pub retries: u32,
    /// Every submission after the first (short transfers and retries).
    pub resubmits: u32,
}

/// What to do after a result.
#[derive(Debug)]
pub(crate) enum Step {
    /// Send the rest (`len - done` bytes at `offset + done`) again.
    Resubmit,
    /// The request is finished: bytes transferred, or the error.
    Done(io::Result<usize>),
}

impl Progress {
    pub(crate) fn new(dir: Direction, len: usize, direct: bool) -> Self {
        Progress {
            dir,
            len,
            done: 0,
            direct,
            retries: 0,
            resubmits: 0,
        }
    }

    /// Account for one CQE result (`res` as the kernel returns it: bytes,
    /// or a negated errno).
    pub(crate) fn on_result(&mut self, res: i32) -> Step {
        let step = self.decide(res);
        if matches!(step, Step::Resubmit) {
            self.resubmits += 1;
        }
        step
    }

    fn decide(&mut self, res: i32) -> Step {
        if res < 0 {
            let errno = -res;
            if (errno == libc::EAGAIN || errno == libc::EINTR) && self.retries < MAX_RETRIES {
                self.retries += 1;
                return Step::Resubmit;
            }
            return Step::Done(Err(io::Error::from_raw_os_error(errno)));
        }
        self.retries = 0;
        let n = (res as usize).min(self.len - self.done);
        self.done += n;
        if self.done == self.len {
            return Step::Done(Ok(self.done));
        }
        match self.dir {
            // A read of nothing is the end of the file: a short read.
            Direction::Read if n == 0 => Step::Done(Ok(self.done)),
            Direction::Read if self.direct && !(self.done as u64).is_multiple_of(SECTOR_BYTES) => {
                Step::Done(Ok(self.done))
            }
            Direction::Write if n == 0 => Step::Done(Err(io::Error::new(
                io::ErrorKind::WriteZero,
                format!("write stopped after {} of {} bytes", self.done, self.len),
            ))),
            _ => Step::Resubmit,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(len: usize) -> Progress {
        Progress::new(Direction::Read, len, false)
    }

    #[test]
    fn full_transfer_completes_at_once() {
        let mut p = read(4096);
        assert!(matches!(p.on_result(4096), Step::Done(Ok(4096))));
        assert_eq!(p.resubmits, 0);
    }

    #[test]
    fn short_transfer_resubmits_the_rest_then_completes_once() {
        let mut p = read(8192);
        assert!(matches!(p.on_result(1000), Step::Resubmit));
        assert_eq!(p.done, 1000);
        assert!(matches!(p.on_result(5000), Step::Resubmit));
        assert!(matches!(p.on_result(2192), Step::Done(Ok(8192))));
        assert_eq!(p.resubmits, 2);
    }

    #[test]
    fn read_of_nothing_is_end_of_file() {
        let mut p = read(8192);
        assert!(matches!(p.on_result(3000), Step::Resubmit));
        assert!(matches!(p.on_result(0), Step::Done(Ok(3000))));
        let mut q = read(512);
        assert!(matches!(q.on_result(0), Step::Done(Ok(0))));
    }

    #[test]
    fn direct_read_ending_off_a_sector_is_end_of_file() {
        let mut p = Progress::new(Direction::Read, 8192, true);
        assert!(matches!(p.on_result(1808), Step::Done(Ok(1808))));
        let mut q = Progress::new(Direction::Read, 8192, true);
        assert!(matches!(q.on_result(4096), Step::Resubmit));
    }

    #[test]
    fn write_of_nothing_is_an_error() {
        let mut p = Progress::new(Direction::Write, 4096, false);
        assert!(matches!(p.on_result(100), Step::Resubmit));
        match p.on_result(0) {
            Step::Done(Err(e)) => assert_eq!(e.kind(), io::ErrorKind::WriteZero),
            s => panic!("{s:?}"),
        }
    }

    #[test]
    fn eagain_and_eintr_retry_then_give_up() {
        let mut p = read(4096);
        assert!(matches!(p.on_result(-libc::EAGAIN), Step::Resubmit));
        assert!(matches!(p.on_result(-libc::EINTR), Step::Resubmit));
        assert!(matches!(p.on_result(4096), Step::Done(Ok(4096))));
        let mut q = read(4096);
        for _ in 0..MAX_RETRIES {
            assert!(matches!(q.on_result(-libc::EAGAIN), Step::Resubmit));
        }
        match q.on_result(-libc::EAGAIN) {
            Step::Done(Err(e)) => assert_eq!(e.raw_os_error(), Some(libc::EAGAIN)),
            s => panic!("{s:?}"),
        }
    }

    #[test]
    fn progress_resets_the_retry_count() {
        let mut p = read(8192);
        for _ in 0..MAX_RETRIES {
            p.on_result(-libc::EAGAIN);
        }
        assert!(matches!(p.on_result(4096), Step::Resubmit));
        assert!(matches!(p.on_result(-libc::EAGAIN), Step::Resubmit));
    }

    #[test]
    fn canceled_and_other_errors_complete_with_the_error() {
        for errno in [libc::ECANCELED, libc::EIO, libc::EINVAL, libc::EBADF] {
            let mut p = read(4096);
            match p.on_result(-errno) {
                Step::Done(Err(e)) => assert_eq!(e.raw_os_error(), Some(errno)),
                s => panic!("{s:?}"),
            }
        }
        // An error after partial progress still completes with the error.
        let mut p = read(8192);
        p.on_result(4096);
        assert!(matches!(p.on_result(-libc::EIO), Step::Done(Err(_))));
    }

    #[test]
    fn overlong_result_counts_as_the_rest() {
        let mut p = read(100);
        assert!(matches!(p.on_result(4096), Step::Done(Ok(100))));
    }
}
