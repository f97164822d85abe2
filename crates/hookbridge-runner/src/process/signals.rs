//! The host stopping hookbridge: SIGTERM, SIGINT or SIGHUP to a process that is running hooks
//! (Claude Code sends SIGTERM at its own hook timeout) must stop the hooks too, or they run on,
//! reparented to init, with no timeout. After [`cancel_on_termination_signals`], such a signal
//! wakes the supervisor through the returned [`Canceller`], which kills the process group of every
//! hook still running, and [`termination_signal_received`] tells the caller which signal came.
//!
//! The handler only stores the signal number and writes one byte to the canceller's pipe, both
//! async-signal-safe. For a process that lives for one event (`hookbridge run`); a library host
//! keeps its own signal handling.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::OnceLock;

use super::Canceller;

/// The write end of the installed canceller's pipe (-1: none).
static WAKE_FD: AtomicI32 = AtomicI32::new(-1);
/// The last termination signal received (0: none).
static RECEIVED: AtomicI32 = AtomicI32::new(0);
static CANCELLER: OnceLock<Canceller> = OnceLock::new();

const SIGNALS: [libc::c_int; 3] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP];

extern "C" fn on_termination_signal(signal: libc::c_int) {
    RECEIVED.store(signal, Ordering::SeqCst);
    let fd = WAKE_FD.load(Ordering::SeqCst);
    if fd >= 0 {
        // SAFETY: write(2) is async-signal-safe; a full pipe already says "cancelled".
        unsafe { libc::write(fd, b"x".as_ptr().cast(), 1) };
    }
}

/// Installs the handler (once) and returns the canceller it triggers; pass it to every run of
/// hooks. `None` if the canceller's pipe could not be made (the signals keep their default
/// action then: hookbridge dies, and the hooks with it only if they are in its group).
pub fn cancel_on_termination_signals() -> Option<Canceller> {
    if let Some(existing) = CANCELLER.get() {
        return Some(existing.clone());
    }
    let canceller = Canceller::new().ok()?;
    WAKE_FD.store(canceller.write_fd(), Ordering::SeqCst);
    let canceller = CANCELLER.get_or_init(|| canceller).clone();
    for signal in SIGNALS {
        // SAFETY: a plain handler that touches only atomics and write(2); SA_RESTART keeps the
        // rest of the process's system calls from failing with EINTR.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_termination_signal as *const () as usize;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
    Some(canceller)
}

/// The termination signal received since the handler was installed, if any.
pub fn termination_signal_received() -> Option<i32> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// Puts the termination signals back to their default action (in a forked copy that must not
/// share the parent's wake-up pipe).
pub(crate) fn restore_default_termination_signals() {
    WAKE_FD.store(-1, Ordering::SeqCst);
    for signal in SIGNALS {
        // SAFETY: resetting a disposition.
        unsafe { libc::signal(signal, libc::SIG_DFL) };
    }
}
