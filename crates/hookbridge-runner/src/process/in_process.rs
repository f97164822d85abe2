//! Jobs that are not child processes — an http hook's request, a prompt hook's model call —
//! supervised by the same loop as the hook processes of an event.
//!
//! Each job runs on a thread of its own, started only when an event has such a job (a
//! command-only event starts no thread and opens no extra descriptor). A finished job sends its
//! outcome over a channel and writes one byte to a pipe the supervisor's `poll` watches, so the
//! loop wakes for whichever finishes first, process or job, and merges them in one completion
//! order. A job that outlives its timeout is reported as timed out and abandoned: its work is
//! given the same deadline (network calls are made with it as their own timeout), so the thread
//! ends by itself soon after, and nothing it sends later is read.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::time::{Duration, Instant};

use hookbridge_core::decision::{HookFailure, HookFailureKind, RunStatus};
use nix::fcntl::OFlag;

/// Work done in this process for one hook. It gets its deadline and must return by it.
pub struct InProcessJob {
    /// The type of the hook it runs; its name names the thread.
    pub kind: hookbridge_core::config::HookType,
    pub timeout: Duration,
    pub work: Box<dyn FnOnce(Instant) -> InProcessOutcome + Send>,
}

impl std::fmt::Debug for InProcessJob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InProcessJob")
            .field("kind", &self.kind)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// What an in-process job found: a status in the core's terms, and the text read where a
/// command's stdout would be (an http body, a model's reply).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InProcessOutcome {
    pub status: RunStatus,
    pub stdout: Vec<u8>,
    pub stdout_truncated: bool,
    /// Detail for the report (the request made, a failure's cause); never secrets.
    pub stderr: Vec<u8>,
    pub duration: Duration,
}

impl InProcessOutcome {
    /// An outcome with nothing read.
    pub fn of(status: RunStatus) -> InProcessOutcome {
        InProcessOutcome {
            status,
            stdout: Vec::new(),
            stdout_truncated: false,
            stderr: Vec::new(),
            duration: Duration::ZERO,
        }
    }
}

struct Pending {
    index: usize,
    deadline: Instant,
    started: Instant,
}

/// The in-process jobs of one run.
pub(super) struct InProcessJobs {
    pending: Vec<Pending>,
    finished: Receiver<(usize, InProcessOutcome)>,
    /// Read end, watched by `poll`; each finished job writes one byte to the write end.
    wake: Option<OwnedFd>,
}

impl InProcessJobs {
    /// Starts every job on its own thread. A job whose thread cannot be started is finished at
    /// once with a failure.
    pub(super) fn start(jobs: Vec<(usize, InProcessJob)>) -> InProcessJobs {
        let (sender, finished) = channel();
        let mut this = InProcessJobs {
            pending: Vec::new(),
            finished,
            wake: None,
        };
        if jobs.is_empty() {
            return this;
        }
        let (read, write) = match nix::unistd::pipe2(OFlag::O_CLOEXEC | OFlag::O_NONBLOCK) {
            Ok(pair) => pair,
            Err(e) => {
                for (index, _) in jobs {
                    let outcome = InProcessOutcome::of(RunStatus::Failed(HookFailure::new(
                        HookFailureKind::Internal,
                        format!("could not set up the hook's worker: {e}"),
                    )));
                    let _ = sender.send((index, outcome));
                }
                return this;
            }
        };
        let write = std::sync::Arc::new(write);
        this.wake = Some(read);
        for (index, job) in jobs {
            let started = Instant::now();
            let deadline = super::deadline_after(started, job.timeout);
            let tx: Sender<(usize, InProcessOutcome)> = sender.clone();
            let wake = write.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("hookbridge-{}-hook", job.kind.name()))
                .spawn(move || {
                    let mut outcome = (job.work)(deadline);
                    outcome.duration = started.elapsed();
                    let _ = tx.send((index, outcome));
                    let _ = nix::unistd::write(wake.as_fd(), b"x");
                });
            match spawned {
                Ok(_) => this.pending.push(Pending {
                    index,
                    deadline,
                    started,
                }),
                Err(e) => {
                    let outcome = InProcessOutcome::of(RunStatus::Failed(HookFailure::new(
                        HookFailureKind::Internal,
                        format!("could not start the hook's thread: {e}"),
                    )));
                    let _ = sender.send((index, outcome));
                    this.pending.push(Pending {
                        index,
                        deadline,
                        started,
                    });
                }
            }
        }
        this
    }

    pub(super) fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// The descriptor that becomes readable when a job finishes, while any is pending.
    pub(super) fn wake_fd(&self) -> Option<BorrowedFd<'_>> {
        if self.pending.is_empty() {
            return None;
        }
        self.wake.as_ref().map(AsFd::as_fd)
    }

    pub(super) fn next_deadline(&self) -> Option<Instant> {
        self.pending.iter().map(|p| p.deadline).min()
    }

    /// Jobs that finished or ran out of time by `now`, in the order they did.
    pub(super) fn collect(&mut self, now: Instant) -> Vec<(usize, InProcessOutcome)> {
        if let Some(wake) = &self.wake {
            let mut sink = [0u8; 64];
            while matches!(nix::unistd::read(wake, &mut sink), Ok(n) if n > 0) {}
        }
        let mut done = Vec::new();
        while let Ok((index, outcome)) = self.finished.try_recv() {
            if let Some(at) = self.pending.iter().position(|p| p.index == index) {
                self.pending.remove(at);
                done.push((index, outcome));
            }
        }
        let mut i = 0;
        while i < self.pending.len() {
            if self.pending[i].deadline <= now {
                let p = self.pending.remove(i);
                let mut outcome = InProcessOutcome::of(RunStatus::TimedOut);
                outcome.duration = now.saturating_duration_since(p.started);
                done.push((p.index, outcome));
            } else {
                i += 1;
            }
        }
        done
    }
}
