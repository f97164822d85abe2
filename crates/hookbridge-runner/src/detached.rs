//! Async (`async: true`) command hooks whose answer cannot change the event that started them:
//! run in the background, supervised like every other hook. A long-lived host may collect what
//! Claude Code would show of their answers on a later request ([`AsyncAnswers`]); otherwise the
//! answers are dropped.
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
use std::sync::{Arc, Mutex};

use hookbridge_core::config::HookSpec;
use hookbridge_core::decision::{async_delivery, interpret_hook};
use hookbridge_core::event::EventName;

use crate::process::{run_all, Flow, ProcessSpec};

/// What finished async hooks left for the model: the text Claude Code shows on its next request
/// for each (`systemMessage` and `additionalContext`, shared case 81), in completion order, until a
/// host takes it. Shared by every dispatch of one host.
#[derive(Debug, Clone, Default)]
pub struct AsyncAnswers(Arc<Mutex<Vec<String>>>);

impl AsyncAnswers {
    /// Everything delivered since the last call, oldest first.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }

    fn push(&self, text: String) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(text);
    }
}

/// Where the answers of one dispatch's async hooks go: the event, the hooks (in the order of the
/// specs) and the host's collection.
pub(crate) struct Delivery {
    pub(crate) event: EventName,
    pub(crate) hooks: Vec<HookSpec>,
    pub(crate) answers: AsyncAnswers,
}

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

/// Starts `specs` in the background as `how` says (never [`AsyncHooks::Await`]); on a background
/// thread, their answers go to `delivery` when there is one. An error means none of them was
/// started.
pub(crate) fn run_in_background(
    specs: Vec<ProcessSpec>,
    how: AsyncHooks,
    delivery: Option<Delivery>,
) -> io::Result<()> {
    if specs.is_empty() {
        return Ok(());
    }
    match how {
        AsyncHooks::Await | AsyncHooks::BackgroundThread => std::thread::Builder::new()
            .name("hookbridge-async-hooks".into())
            .spawn(move || supervise(specs, delivery))
            .map(drop),
        AsyncHooks::ForkedSupervisor => fork_supervisor(specs),
    }
}

fn supervise(specs: Vec<ProcessSpec>, delivery: Option<Delivery>) {
    run_all(specs, None, |index, outcome| {
        if let Some(d) = &delivery {
            let execution = crate::process::JobOutcome::Process(outcome).into_execution(0);
            if let Some(text) = d
                .hooks
                .get(index)
                .and_then(|hook| async_delivery(&interpret_hook(&d.event, hook, &execution)))
            {
                d.answers.push(text);
            }
        }
        Flow::Continue
    });
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
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| supervise(specs, None)));
            // SAFETY: leaving the forked copy without running the parent's exit handlers.
            unsafe { libc::_exit(if outcome.is_ok() { 0 } else { 1 }) }
        }
        _ => Ok(()),
    }
}

#[cfg(not(unix))]
fn fork_supervisor(specs: Vec<ProcessSpec>) -> io::Result<()> {
    run_in_background(specs, AsyncHooks::BackgroundThread, None)
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
