//! Stopping a run of hooks from outside its loop: a [`Canceller`] is the write end of a pipe whose
//! read end the supervisor polls beside the hooks' own descriptors, so a cancel (from another
//! thread, or from a signal handler, which may only call `write(2)`) wakes the loop at once.

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::sync::Arc;

use nix::fcntl::OFlag;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};

/// Stops [`run_all`](super::run_all) from another thread: the process groups of every child still
/// running are killed and the run returns. Cancelling twice, or after the run ended, does nothing.
#[derive(Debug, Clone)]
pub struct Canceller {
    wake: Arc<(OwnedFd, OwnedFd)>,
}

impl Canceller {
    pub fn new() -> io::Result<Canceller> {
        let (read, write) = nix::unistd::pipe2(OFlag::O_CLOEXEC | OFlag::O_NONBLOCK)?;
        Ok(Canceller {
            wake: Arc::new((read, write)),
        })
    }

    /// Ask the run to stop now.
    pub fn cancel(&self) {
        // A full pipe already says "cancelled"; nothing else can go wrong that matters here.
        let _ = nix::unistd::write(&self.wake.1, b"x");
    }

    /// Whether [`cancel`](Self::cancel) was called: the byte it wrote is never read, so a
    /// cancelled canceller stays cancelled (a host that runs several dispatches with one canceller
    /// checks this before starting the next).
    pub fn is_cancelled(&self) -> bool {
        let mut fds = [PollFd::new(self.fd(), PollFlags::POLLIN)];
        matches!(poll(&mut fds, PollTimeout::ZERO), Ok(n) if n > 0)
    }

    /// The read end, which becomes readable once cancelled.
    pub(super) fn fd(&self) -> BorrowedFd<'_> {
        self.wake.0.as_fd()
    }

    /// The write end, for a signal handler (which may only call write(2)).
    pub(super) fn write_fd(&self) -> std::os::fd::RawFd {
        self.wake.1.as_raw_fd()
    }
}
