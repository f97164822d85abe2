//! The engine process's own start, for a binary that skips the standard library's start-up.
//!
//! `hookbridge run` is started once per agent event, and Rust's start-up before `main` is a
//! measurable share of it: on Linux with glibc it reads `/proc/self/maps` to find the main thread's
//! stack, maps an alternate signal stack and installs the handlers that print "has overflowed its
//! stack" (about 15 system calls; commit 2a1c6ba, docs/performance.md). The CLI's entry
//! point therefore is a C `main` where the standard library can still read the arguments without
//! it (glibc hands them to its initializers; macOS keeps them), and it calls [`prepare_process`]
//! first, which keeps what of that start-up a hook engine relies on:
//!
//! - **fds 0, 1 and 2 open**: one that the caller left closed is opened on `/dev/null`, so that no
//!   file the engine opens later (a trust record, the audit log) can become its stdout and take
//!   in the answer meant for the agent;
//! - **`SIGPIPE` ignored**: an agent that stops reading makes a write fail with `EPIPE`, which the
//!   CLI handles, instead of killing the engine mid-answer. (Hooks start with it at its default,
//!   as every spawn sets, `process/spawn.rs`.)
//!
//! What is given up: a stack overflow on the main thread ends the process by `SIGSEGV` without the
//! standard library's message; the panic hook still reports every panic. The check that a closed
//! descriptor is opened on `/dev/null` runs the real binary (the CLI's `cli_failsafe` tests): a
//! test binary has the standard library's start-up, which does it already.

/// What the standard library's start-up would have done that hookbridge relies on: the standard
/// descriptors open, `SIGPIPE` ignored. Call it first thing in a C `main`. Aborts, as the
/// standard library does, if a closed standard descriptor cannot be opened on `/dev/null`.
pub fn prepare_process() {
    standard_descriptors_open();
    // SAFETY: setting a signal's disposition to SIG_IGN runs no code of ours in a handler.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
}

/// Opens `/dev/null` on each of fds 0–2 that is closed (lowest first, so each lands on its own).
fn standard_descriptors_open() {
    let mut fds = [0, 1, 2].map(|fd| libc::pollfd {
        fd,
        events: 0,
        revents: 0,
    });
    // SAFETY: `fds` is a live array of three pollfd structures; a zero timeout never blocks.
    let polled = loop {
        let n = unsafe { libc::poll(fds.as_mut_ptr(), 3, 0) };
        if n != -1 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            break n;
        }
    };
    for entry in &fds {
        let closed = if polled == -1 {
            // poll itself failed (out of memory): ask each descriptor.
            // SAFETY: F_GETFD on any number only reads the descriptor table.
            unsafe { libc::fcntl(entry.fd, libc::F_GETFD) == -1 }
        } else {
            entry.revents & libc::POLLNVAL != 0
        };
        if !closed {
            continue;
        }
        // SAFETY: a NUL-terminated path and flags; the descriptor is kept open for the process's
        // life on purpose (it stands in for the closed standard one).
        if unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) } == -1 {
            std::process::abort();
        }
    }
}
