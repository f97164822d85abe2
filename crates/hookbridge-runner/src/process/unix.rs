//! Unix process plumbing for the process runner: putting the child in its own group, signalling
//! that group, reading an exit status, a child's pidfd (its exit as a readable descriptor) and
//! writing to its stdin without SIGPIPE.
//!
//! The shaping decision: every signal goes to the **group** (`killpg`), never to the pid alone,
//! because the child is usually `/bin/sh -c`, and what must stop on a timeout is everything it
//! started. The group itself is made by `posix_spawn` (`POSIX_SPAWN_SETPGROUP`, in `spawn`), so
//! that starting a hook never needs a fork + exec: spawn cost is what our benchmarks compare
//! against a raw spawn.

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
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

    pub(super) fn raw(self) -> i32 {
        self.0.as_raw()
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

/// A process that left the hook's group (`setsid`, `setpgid`) while descending from it: a
/// `killpg` of the group does not reach it, so it is signalled by pid. Its start time (in clock
/// ticks since boot, `/proc/PID/stat` field 22) tells it from a later process given the same pid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Escapee {
    pid: i32,
    start_time: u64,
}

impl Escapee {
    pub(super) fn pid(self) -> i32 {
        self.pid
    }

    /// Signals it if it is still the process that was seen.
    fn signal(self, signal: Signal) {
        if start_time_of(self.pid) == Some(self.start_time) {
            let _ = nix::sys::signal::kill(Pid::from_raw(self.pid), signal);
        }
    }

    /// Still the process that was seen, and not a zombie.
    pub(super) fn is_alive(self) -> bool {
        proc_stat(self.pid).is_some_and(|s| s.state != 'Z' && s.start_time == self.start_time)
    }
}

/// `/proc/PID/stat`, the fields used here.
struct ProcStat {
    state: char,
    ppid: i32,
    pgrp: i32,
    start_time: u64,
}

fn proc_stat(pid: i32) -> Option<ProcStat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may itself hold spaces and parentheses.
    let rest = &text[text.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    // Fields from 3 on: state(3) ppid(4) pgrp(5) ... starttime(22).
    Some(ProcStat {
        state: fields.first()?.chars().next()?,
        ppid: fields.get(1)?.parse().ok()?,
        pgrp: fields.get(2)?.parse().ok()?,
        start_time: fields.get(19)?.parse().ok()?,
    })
}

fn start_time_of(pid: i32) -> Option<u64> {
    proc_stat(pid).map(|s| s.start_time)
}

/// Every live descendant of `roots` (by parent links in `/proc`) that is not in `group`. One pass
/// over `/proc`; only called when a hook is being killed.
pub(super) fn escaped_descendants(roots: &[i32], group: ProcessGroup) -> Vec<Escapee> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let all: Vec<(i32, ProcStat)> = dir
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| Some((pid, proc_stat(pid)?)))
        .collect();
    let mut tree: Vec<i32> = roots.to_vec();
    // A root that left the group itself (a warm hook, which its group's leader did not start,
    // after its own `setsid`).
    let mut out: Vec<Escapee> = all
        .iter()
        .filter(|(pid, stat)| roots.contains(pid) && stat.pgrp != group.0.as_raw() && stat.state != 'Z')
        .map(|(pid, stat)| Escapee {
            pid: *pid,
            start_time: stat.start_time,
        })
        .collect();
    let mut at = 0;
    while at < tree.len() {
        let parent = tree[at];
        at += 1;
        for (pid, stat) in &all {
            if stat.ppid == parent && !tree.contains(pid) {
                tree.push(*pid);
                if stat.pgrp != group.0.as_raw() && stat.state != 'Z' {
                    out.push(Escapee {
                        pid: *pid,
                        start_time: stat.start_time,
                    });
                }
            }
        }
    }
    out
}

/// Kills the process group led by `leader` (a child the engine started and has not waited for)
/// and every descendant of it that left the group (`setsid`), found by parentage first: a process
/// the engine starts other than a hook (an MCP stdio server) goes as a hook's tree does at its
/// timeout.
pub(crate) fn kill_tree(leader: i32) {
    if leader <= 1 {
        return;
    }
    let group = ProcessGroup(Pid::from_raw(leader));
    let escaped = escaped_descendants(&[leader], group);
    group.kill();
    kill_all(&escaped);
}

/// Asks each to stop (SIGTERM).
pub(super) fn terminate_all(escapees: &[Escapee]) {
    escapees.iter().for_each(|e| e.signal(Signal::SIGTERM));
}

/// Stops each now (SIGKILL).
pub(super) fn kill_all(escapees: &[Escapee]) {
    escapees.iter().for_each(|e| e.signal(Signal::SIGKILL));
}

/// Makes this process the reaper of its orphaned descendants (Linux), so that a hook's process
/// that outlives its parent stays linked to hookbridge's tree instead of moving to init. For a
/// process that lives for one event (`hookbridge run`): a long-lived host would collect zombies.
pub fn become_child_subreaper() -> bool {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl with an integer argument.
        unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 }
    }
    #[cfg(not(target_os = "linux"))]
    false
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

/// `send(2)` with `MSG_NOSIGNAL`: a hook that closed its stdin gives `EPIPE`, never a SIGPIPE, so
/// this runner works the same in a host that leaves SIGPIPE at its default action.
pub(super) fn send_without_sigpipe(socket: &File, bytes: &[u8]) -> io::Result<usize> {
    // SAFETY: send reads at most `bytes.len()` bytes from a live slice.
    let sent = unsafe {
        libc::send(
            socket.as_raw_fd(),
            bytes.as_ptr().cast(),
            bytes.len(),
            libc::MSG_NOSIGNAL,
        )
    };
    if sent < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(sent as usize)
    }
}

/// A pidfd for `child` (readable once it exits), on kernels that have them.
#[cfg(target_os = "linux")]
pub(super) fn pidfd_of(pid: super::spawn::Pid) -> Option<OwnedFd> {
    use std::os::fd::FromRawFd;
    let pid = pid.raw();
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1; the pid is our
    // unreaped child, so it cannot name another process.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    let fd = i32::try_from(fd).ok().filter(|&fd| fd >= 0)?;
    // SAFETY: `fd` was just returned by the kernel and is owned by nobody else.
    Some(unsafe { OwnedFd::from_raw_fd(fd) })
}

#[cfg(not(target_os = "linux"))]
pub(super) fn pidfd_of(_pid: super::spawn::Pid) -> Option<OwnedFd> {
    None
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
