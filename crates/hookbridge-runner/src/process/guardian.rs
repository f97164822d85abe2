//! Hooks must not outlive a hookbridge that is killed outright (SIGKILL: nothing in the process
//! runs any more, so neither the supervisor nor a signal handler can stop them). A *guardian* —
//! a small forked copy of this process in a process group of its own — is told the process group
//! of every hook that is running; when hookbridge dies, the pipe between them reaches EOF and the
//! guardian terminates, then kills, every group it was told about. A run that ends normally tells
//! it so, and it leaves at once.
//!
//! Forking costs about as much as starting a small hook, so a run gets its guardian only once it
//! has lasted [`GUARDIAN_DELAY`]: the hosts that kill hookbridge do it at their own timeout, never
//! within the first tenth of a second. Enabled with [`guard_hooks_against_sigkill`], for a process
//! with a single thread (`hookbridge run`): the fork happens on that thread, in the middle of a run.
//! The supervisor sees it as a `Guard`, told of each process group as it starts and ends, which
//! does nothing where there are no guardians (not Linux).

#[cfg(target_os = "linux")]
use std::io;
#[cfg(target_os = "linux")]
use std::os::fd::{AsRawFd, OwnedFd};
#[cfg(target_os = "linux")]
use std::sync::atomic::{AtomicBool, Ordering};
#[cfg(target_os = "linux")]
use std::time::Duration;
use std::time::Instant;

#[cfg(target_os = "linux")]
use nix::fcntl::OFlag;

use super::unix::ProcessGroup;

/// How long a run goes without a guardian.
#[cfg(target_os = "linux")]
pub(super) const GUARDIAN_DELAY: Duration = Duration::from_millis(100);

/// How long the guardian waits between SIGTERM and SIGKILL.
#[cfg(target_os = "linux")]
const GUARDIAN_KILL_GRACE: Duration = Duration::from_millis(500);

#[cfg(target_os = "linux")]
static ENABLED: AtomicBool = AtomicBool::new(false);

/// Runs of hooks from now on get a guardian that kills their process groups if this process is
/// killed. Only for a process that has no other thread while it runs hooks.
#[cfg(target_os = "linux")]
pub fn guard_hooks_against_sigkill() {
    ENABLED.store(true, Ordering::SeqCst);
}

#[cfg(target_os = "linux")]
pub(super) fn enabled() -> bool {
    ENABLED.load(Ordering::SeqCst)
}

/// The guardian of one run, as the supervisor sees it: due once the run has lasted
/// [`GUARDIAN_DELAY`], where the process asked for guardians and has one thread while the run
/// lasts; then told of every process group the run starts and every one that ends. Where there
/// are no guardians (not Linux), it does nothing.
pub(super) struct Guard {
    due: Option<Instant>,
    #[cfg(target_os = "linux")]
    guardian: Option<Guardian>,
}

impl Guard {
    /// A run's guard. `one_thread`: the process has no other thread while the run lasts (the
    /// guardian is forked mid-run, which only a process with one thread may do).
    #[cfg(target_os = "linux")]
    pub(super) fn new(one_thread: bool) -> Guard {
        Guard {
            due: (one_thread && enabled()).then(|| Instant::now() + GUARDIAN_DELAY),
            guardian: None,
        }
    }

    #[cfg(not(target_os = "linux"))]
    pub(super) fn new(_one_thread: bool) -> Guard {
        Guard { due: None }
    }

    /// When the guardian is to be started, if it is still to be.
    pub(super) fn due(&self) -> Option<Instant> {
        self.due
    }

    /// Starts the guardian once it is due, told of `running`: the groups of the run's children
    /// still unreaped.
    pub(super) fn start_if_due(&mut self, now: Instant, running: impl Iterator<Item = ProcessGroup>) {
        if self.due.is_none_or(|due| now < due) {
            return;
        }
        self.due = None;
        #[cfg(target_os = "linux")]
        {
            // A guardian that cannot be forked leaves the run as it was before guardians existed.
            self.guardian = Guardian::start(running.map(ProcessGroup::raw)).ok();
        }
        #[cfg(not(target_os = "linux"))]
        drop(running);
    }

    /// A child leading `group` was started.
    pub(super) fn started(&mut self, _group: ProcessGroup) {
        #[cfg(target_os = "linux")]
        if let Some(guardian) = &mut self.guardian {
            guardian.watch(_group.raw());
        }
    }

    /// A child that led `_old` now leads `_new` (a warm run made again, spawned).
    pub(super) fn regrouped(&mut self, _old: ProcessGroup, _new: ProcessGroup) {
        #[cfg(target_os = "linux")]
        if let Some(guardian) = &mut self.guardian {
            guardian.release(_old.raw());
            guardian.watch(_new.raw());
        }
    }

    /// The child leading `_group` ended and was reaped.
    pub(super) fn finished(&mut self, _group: ProcessGroup) {
        #[cfg(target_os = "linux")]
        if let Some(guardian) = &mut self.guardian {
            guardian.release(_group.raw());
        }
    }
}

/// Our end of a running guardian.
#[cfg(target_os = "linux")]
pub(super) struct Guardian {
    pid: libc::pid_t,
    to_guardian: Option<OwnedFd>,
}

#[cfg(target_os = "linux")]
impl Guardian {
    /// Forks the guardian, watching `groups` from the start.
    pub(super) fn start(groups: impl IntoIterator<Item = i32>) -> io::Result<Guardian> {
        let (read, write) = nix::unistd::pipe2(OFlag::O_CLOEXEC)?;
        // SAFETY: this process has one thread (see `guard_hooks_against_sigkill`), so the child may
        // run ordinary code; it never returns into the caller.
        match unsafe { libc::fork() } {
            -1 => Err(io::Error::last_os_error()),
            0 => {
                drop(write);
                guard(read)
            }
            pid => {
                drop(read);
                let mut guardian = Guardian {
                    pid,
                    to_guardian: Some(write),
                };
                for group in groups {
                    guardian.watch(group);
                }
                Ok(guardian)
            }
        }
    }

    /// The hook whose group this is has started.
    pub(super) fn watch(&mut self, group: i32) {
        self.send(group);
    }

    /// The hook whose group this is has been reaped: its group is no longer ours to kill (what is
    /// left in it are background processes the hook chose to leave).
    pub(super) fn release(&mut self, group: i32) {
        self.send(-group);
    }

    fn send(&mut self, message: i32) {
        if let Some(fd) = &self.to_guardian {
            // Four bytes to a pipe are written whole or not at all.
            if nix::unistd::write(fd, &message.to_ne_bytes()).is_err() {
                self.to_guardian = None;
            }
        }
    }
}

#[cfg(target_os = "linux")]
impl Drop for Guardian {
    /// The run is over: the guardian leaves without killing anything, and is reaped.
    fn drop(&mut self) {
        self.send(0);
        self.to_guardian = None;
        let mut status = 0;
        // SAFETY: waiting for our own child.
        while unsafe { libc::waitpid(self.pid, &mut status, 0) } == -1
            && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
        {}
    }
}

/// The guardian's life: read group ids until told the run is over (0) or until hookbridge is gone
/// (EOF), then stop every group still watched.
#[cfg(target_os = "linux")]
fn guard(from_hookbridge: OwnedFd) -> ! {
    // SAFETY: plain system calls on our own process in the forked copy.
    unsafe {
        // Out of hookbridge's group, so that a signal to that group does not reach us; holding
        // none of hookbridge's descriptors (the host waits for EOF on its stdout and stderr).
        libc::setpgid(0, 0);
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        if null >= 0 {
            for fd in 0..=2 {
                libc::dup2(null, fd);
            }
        }
        let keep = from_hookbridge.as_raw_fd();
        libc::syscall(libc::SYS_close_range, 3u32, (keep - 1) as u32, 0u32);
        libc::syscall(libc::SYS_close_range, (keep + 1) as u32, u32::MAX, 0u32);
        for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGPIPE] {
            libc::signal(signal, libc::SIG_IGN);
        }
    }
    let mut groups: Vec<i32> = Vec::new();
    let mut message = [0u8; 4];
    loop {
        match nix::unistd::read(&from_hookbridge, &mut message) {
            Ok(4) => match i32::from_ne_bytes(message) {
                0 => exit(),
                group if group > 0 => groups.push(group),
                group => groups.retain(|g| *g != -group),
            },
            Err(nix::errno::Errno::EINTR) => continue,
            // EOF (hookbridge is gone) or anything unexpected.
            _ => break,
        }
    }
    for group in &groups {
        // SAFETY: signalling process groups of hooks hookbridge started.
        unsafe { libc::killpg(*group, libc::SIGTERM) };
    }
    std::thread::sleep(GUARDIAN_KILL_GRACE);
    for group in &groups {
        // SAFETY: as above.
        unsafe { libc::killpg(*group, libc::SIGKILL) };
    }
    exit()
}

#[cfg(target_os = "linux")]
fn exit() -> ! {
    // SAFETY: leaving the forked copy without the parent's exit handlers.
    unsafe { libc::_exit(0) }
}
