//! Unix process-group plumbing for the process runner: putting the child in its own group,
//! signalling that group, and reading an exit status.
//!
//! The shaping decision: every signal goes to the **group** (`killpg`), never to the pid alone,
//! because the child is usually `/bin/sh -c`, and what must stop on a timeout is everything it
//! started. The group itself is made by `posix_spawn` (`POSIX_SPAWN_SETPGROUP`, in `spawn`), so
//! that starting a hook never needs a fork + exec: spawn cost is what our benchmarks compare
//! against a raw spawn.

use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

use nix::errno::Errno;
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;

use super::ProcessStatus;

/// The process group of a child spawned by `spawn`, which leads it.
///
/// Only signal it while the leader is unreaped, or just after reaping it while the group is known
/// to have members: once the group is empty its id can be handed to an unrelated process.
#[derive(Debug, Clone, Copy)]
pub(super) struct ProcessGroup(Pid);

impl ProcessGroup {
    /// The group led by `child`, which must not have been waited for yet.
    pub(super) fn led_by(child: super::spawn::Pid) -> Self {
        let pid = child.raw();
        // `killpg` with 0 or 1 would signal our own group or misbehave; a spawned child is never either.
        assert!(pid > 1, "unexpected child pid {pid}");
        ProcessGroup(Pid::from_raw(pid))
    }

    /// Asks every member to stop (SIGTERM).
    pub(super) fn terminate(self) {
        self.signal(Signal::SIGTERM);
    }

    /// Stops every member now (SIGKILL).
    pub(super) fn kill(self) {
        self.signal(Signal::SIGKILL);
    }

    /// No process (zombies included) is left in the group.
    pub(super) fn is_empty(self) -> bool {
        // EPERM means a member exists that we may not signal: not empty.
        killpg(self.0, None) == Err(Errno::ESRCH)
    }

    fn signal(self, signal: Signal) {
        // ESRCH (the group is already gone) is the only expected failure, and it is fine.
        let _ = killpg(self.0, signal);
    }
}

/// How the direct child ended, from its wait status.
pub(super) fn status_of(status: ExitStatus) -> ProcessStatus {
    match (status.code(), status.signal()) {
        (Some(code), _) => ProcessStatus::Exited(code),
        (None, Some(signal)) => ProcessStatus::Signaled(signal),
        // Stopped/continued statuses are never returned by a wait for termination.
        (None, None) => ProcessStatus::Exited(status.into_raw()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wait_statuses_map_to_exit_codes_and_signals() {
        // (raw wait status, expected)
        let cases = [
            (0, ProcessStatus::Exited(0)),
            (2 << 8, ProcessStatus::Exited(2)),
            (127 << 8, ProcessStatus::Exited(127)),
            (9, ProcessStatus::Signaled(9)),
            (15, ProcessStatus::Signaled(15)),
            (9 | 0x80, ProcessStatus::Signaled(9)), // core dumped
        ];
        for (raw, expected) in cases {
            assert_eq!(
                status_of(ExitStatus::from_raw(raw)),
                expected,
                "raw status {raw:#x}"
            );
        }
    }
}
