//! Async (`async: true`) command hooks whose answer cannot change the event that started them:
//! run in the background, supervised like every other hook, their answers dropped.
//!
//! Claude Code starts such a hook and moves on. Here it is run by the same supervisor as every
//! hook — socketpairs for its standard streams, its own process group, its timeout, tree kill —
//! but away from the caller, in one of two ways ([`AsyncHooks`]): on a thread of this process, for
//! a long-lived host (the Amplifier module), or by a forked copy of this process that outlives it,
//! for a one-shot process (`hookbridge run`), which answers the host and exits while the async
//! hooks are still running. The fork is made before the caller's own hooks start, from a process
//! that has no other thread (`hookbridge run` has none), and the copy only supervises the hooks it
//! was given and leaves with `_exit`.

use std::io;

use crate::process::{run_all, Flow, ProcessSpec};

/// How a dispatch treats `async: true` command hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AsyncHooks {
    /// Run and awaited with the others: the host itself answers asynchronously (`hookbridge run`
    /// when every hook an event reaches is async).
    Await,
    /// Run on a background thread of this process, their answers dropped. For a host that lives
    /// longer than its hooks.
    BackgroundThread,
    /// Run by a forked copy of this process that outlives it, their answers dropped. Only for a
    /// process with no other thread at dispatch time.
    ForkedSupervisor,
}

/// Starts `specs` in the background as `how` says (never [`AsyncHooks::Await`]). An error means
/// none of them was started.
pub(crate) fn run_in_background(specs: Vec<ProcessSpec>, how: AsyncHooks) -> io::Result<()> {
    if specs.is_empty() {
        return Ok(());
    }
    match how {
        AsyncHooks::Await | AsyncHooks::BackgroundThread => std::thread::Builder::new()
            .name("hookbridge-async-hooks".into())
            .spawn(move || supervise(specs))
            .map(drop),
        AsyncHooks::ForkedSupervisor => fork_supervisor(specs),
    }
}

fn supervise(specs: Vec<ProcessSpec>) {
    run_all(specs, None, |_, _| Flow::Continue);
}

#[cfg(unix)]
fn fork_supervisor(specs: Vec<ProcessSpec>) -> io::Result<()> {
    // SAFETY: the caller guarantees no other thread exists (see `AsyncHooks::ForkedSupervisor`),
    // so the child may allocate and run the supervisor; it never returns into the caller's code.
    match unsafe { libc::fork() } {
        -1 => Err(io::Error::last_os_error()),
        0 => {
            // The host reads our stdout and stderr: the copy must not hold them. Nor may a
            // signal to the copy wake the parent's supervisor through their shared pipe.
            detach_standard_streams();
            crate::process::restore_default_termination_signals();
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| supervise(specs)));
            // SAFETY: leaving the forked copy without running the parent's exit handlers.
            unsafe { libc::_exit(if outcome.is_ok() { 0 } else { 1 }) }
        }
        _ => Ok(()),
    }
}

#[cfg(not(unix))]
fn fork_supervisor(specs: Vec<ProcessSpec>) -> io::Result<()> {
    run_in_background(specs, AsyncHooks::BackgroundThread)
}

/// Points 0, 1 and 2 at `/dev/null`.
#[cfg(unix)]
fn detach_standard_streams() {
    // SAFETY: open and dup2 on our own descriptors; failures leave a stream as it was.
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
        if null >= 0 {
            for fd in 0..=2 {
                libc::dup2(null, fd);
            }
            if null > 2 {
                libc::close(null);
            }
        }
    }
}
