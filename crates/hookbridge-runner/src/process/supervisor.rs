//! The loop that supervises the hook processes of one event: one `poll(2)` over every child's
//! stdin, stdout, stderr and exit notification, and one small state machine per child.
//!
//! The shaping decision: **a child is watched through file descriptors only**. Its pipes are
//! non-blocking and its exit is a readable pidfd (Linux 5.3+), so one `poll` call wakes the loop
//! for whatever happens first to any child, and each wake-up does only non-blocking work. Where
//! there is no pidfd, the loop also wakes every [`REAP_POLL`] to look for exited children. Deadlines
//! (timeout, kill grace, leak grace) become the `poll` timeout, so nothing sleeps.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, ErrorKind};
use std::os::fd::{AsFd, OwnedFd};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nix::poll::{poll, PollFd, PollFlags, PollTimeout};

use super::cancel::Canceller;
use super::capture::Capture;
use super::deadline_after;
use super::guardian::Guard;
use super::in_process::InProcessJobs;
use super::spawn::{self, Pid};
use super::unix::{self as imp, pidfd_of, send_without_sigpipe, ProcessGroup};
use super::warm::{self, WarmChild, WarmEnd, WarmMode, WarmUse};
use super::{
    spawn_failure, CapturedOutput, Flow, Job, JobOutcome, ProcessOutcome, ProcessSpec, ProcessStatus,
    SpawnFailure,
};

/// After a warm child's group was killed, how long its service may take to report the status.
const WARM_REAP_LIMIT: Duration = Duration::from_secs(5);

/// Why a warm run's end cannot be known.
const LOST: &str = "the warm Python service ended while the hook ran, without saying how the hook ended";

/// How often the group is probed while waiting out `kill_grace` after the direct child has died.
const GROUP_POLL: Duration = Duration::from_millis(10);

/// Without a pidfd, how often unreaped children are checked for an exit that closed no pipe.
const REAP_POLL: Duration = Duration::from_millis(10);

/// Largest single read. One buffer serves every child: the loop reads one pipe at a time. It is
/// read into without being zeroed first: in a fresh process (`hookbridge run`) each page zeroed
/// is a page fault, 16 of them for nothing when a hook prints a few hundred bytes.
const CHUNK: usize = 64 * 1024;

pub(super) fn run_all(
    jobs: Vec<Job>,
    cancel: Option<&Canceller>,
    mut on_finish: impl FnMut(usize, JobOutcome) -> Flow,
) {
    let slots = concurrent_process_limit();
    let mut waiting: VecDeque<(usize, ProcessSpec)> = VecDeque::with_capacity(jobs.len());
    let mut in_process = Vec::new();
    for (index, job) in jobs.into_iter().enumerate() {
        match job {
            Job::Process(spec) => waiting.push_back((index, spec)),
            Job::InProcess(job) => in_process.push((index, job)),
        }
    }
    // A run with in-process jobs has threads of its own, so it goes without a guardian.
    let mut guard = Guard::new(in_process.is_empty());
    let mut tasks = InProcessJobs::start(in_process);
    let mut children: Vec<Supervised> = Vec::with_capacity(waiting.len().min(slots));
    let mut stop = false;
    let mut buffer: Vec<u8> = Vec::with_capacity(CHUNK);
    loop {
        // In-process jobs that finished (or ran out of time) since the last wake-up.
        for (index, outcome) in tasks.collect(Instant::now()) {
            stop |= on_finish(index, JobOutcome::InProcess(outcome)) == Flow::StopTheRest;
            if stop {
                break;
            }
        }
        stop = stop || start_waiting(&mut waiting, &mut children, &mut guard, slots, &mut on_finish);
        if stop || (children.is_empty() && waiting.is_empty() && tasks.is_empty()) {
            break;
        }
        if children.is_empty() && tasks.is_empty() {
            continue;
        }
        let now = Instant::now();
        for child in children.iter_mut() {
            child.advance(now);
            if let Some(old) = child.regrouped.take() {
                guard.regrouped(old, child.group);
            }
        }
        let (finished_any, stopped) = hand_over_finished(&mut children, &mut guard, &mut on_finish);
        stop |= stopped;
        if stop {
            break;
        }
        if finished_any && !waiting.is_empty() {
            continue; // start the waiting ones first
        }
        if children.is_empty() && tasks.is_empty() {
            continue;
        }
        guard.start_if_due(
            Instant::now(),
            children.iter().filter(|c| !c.reaped).map(|c| c.group),
        );
        if wait(&mut children, &tasks, cancel, guard.due(), &mut buffer) == Wake::Cancelled {
            break;
        }
    }
    // Whatever is left was stopped: dropping a supervised child kills its group. Hooks still
    // waiting for a slot never started and get no call, like the others that were stopped.
    drop(children);
    // Then the guardian, if the run got one, is told the run is over.
    drop(guard);
}

/// Starts waiting jobs while there are free slots. A spawn that fails for want of descriptors
/// while others run waits for one of them to finish: a hook waiting for a slot is not a failed
/// hook; one that fails otherwise is handed to `on_finish`. Returns whether the rest should stop.
fn start_waiting(
    waiting: &mut VecDeque<(usize, ProcessSpec)>,
    children: &mut Vec<Supervised>,
    guard: &mut Guard,
    slots: usize,
    on_finish: &mut impl FnMut(usize, JobOutcome) -> Flow,
) -> bool {
    let mut stop = false;
    while !stop && children.len() < slots {
        let Some((index, spec)) = waiting.pop_front() else {
            break;
        };
        let started = Instant::now();
        let more_follow = !waiting.is_empty() && children.len() + 1 < slots;
        match Supervised::spawn(index, spec, started, more_follow) {
            Ok(child) => {
                guard.started(child.group);
                children.push(child);
            }
            Err(failed) if out_of_descriptors(&failed.err) && !children.is_empty() => {
                waiting.push_front((index, failed.spec));
                break;
            }
            Err(failed) => {
                let outcome = spawn_failed(*failed, started);
                stop |= on_finish(index, JobOutcome::Process(outcome)) == Flow::StopTheRest;
            }
        }
    }
    stop
}

/// Hands the finished children to `on_finish`, in completion order (in spawn order when several
/// finish on the same wake-up). Returns whether any finished, and whether the rest should stop.
fn hand_over_finished(
    children: &mut Vec<Supervised>,
    guard: &mut Guard,
    on_finish: &mut impl FnMut(usize, JobOutcome) -> Flow,
) -> (bool, bool) {
    let mut finished_any = false;
    let mut i = 0;
    while i < children.len() {
        if children[i].phase == Phase::Done {
            let child = children.remove(i);
            guard.finished(child.group);
            let (index, outcome) = child.into_outcome();
            finished_any = true;
            if on_finish(index, JobOutcome::Process(outcome)) == Flow::StopTheRest {
                return (finished_any, true);
            }
        } else {
            i += 1;
        }
    }
    (finished_any, false)
}

/// How many hook processes may run at once: each holds four descriptors of ours (three sockets
/// and a pidfd) and briefly three more while it starts. Bounded by the open-file limit, less a
/// reserve for everything else this process has open.
fn concurrent_process_limit() -> usize {
    let soft = match nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE) {
        Ok((soft, _)) if soft != nix::sys::resource::RLIM_INFINITY => soft,
        _ => u64::MAX,
    };
    let usable = soft.saturating_sub(64) / 8;
    usize::try_from(usable).unwrap_or(usize::MAX).max(1)
}

fn out_of_descriptors(err: &io::Error) -> bool {
    matches!(err.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
}

/// The outcome of a process that could not be started.
fn spawn_failed(failed: SpawnError, started: Instant) -> ProcessOutcome {
    ProcessOutcome {
        status: ProcessStatus::SpawnFailed(spawn_failure(&failed.spec, &failed.err)),
        stdout: CapturedOutput::default(),
        stderr: CapturedOutput::default(),
        leaked: false,
        stdin_unread: !failed.spec.stdin.is_empty(),
        duration: started.elapsed(),
        warm: failed.warm_use,
        unsandboxed: failed.spec.unsandboxed,
    }
}

/// A process that could not be started: its spec (to retry when descriptors were short), why,
/// and what was decided about running it warm.
struct SpawnError {
    spec: ProcessSpec,
    err: io::Error,
    warm_use: WarmUse,
}

#[derive(Debug, PartialEq, Eq)]
enum Wake {
    Ready,
    Cancelled,
}

/// Which descriptor of a child a poll entry is for.
#[derive(Debug, Clone, Copy)]
enum Slot {
    Stdin,
    Stdout,
    Stderr,
    Exit,
}

/// One `poll` over every open descriptor, with the nearest deadline as the timeout; then the
/// non-blocking work the readiness allows.
fn wait(
    children: &mut [Supervised],
    tasks: &InProcessJobs,
    cancel: Option<&Canceller>,
    also_wake_at: Option<Instant>,
    buffer: &mut Vec<u8>,
) -> Wake {
    let now = Instant::now();
    let mut owners: Vec<(usize, Slot)> = Vec::with_capacity(children.len() * 4);
    let mut ready: Vec<(usize, Slot, PollFlags)> = Vec::new();
    let mut cancelled = false;
    {
        let mut fds: Vec<PollFd<'_>> = Vec::with_capacity(children.len() * 4 + 1);
        for (i, child) in children.iter().enumerate() {
            if let Some(stdin) = &child.stdin {
                fds.push(PollFd::new(stdin.as_fd(), PollFlags::POLLOUT));
                owners.push((i, Slot::Stdin));
            }
            if let Some(out) = child.stdout.pipe() {
                fds.push(PollFd::new(out.as_fd(), PollFlags::POLLIN));
                owners.push((i, Slot::Stdout));
            }
            if let Some(err) = child.stderr.pipe() {
                fds.push(PollFd::new(err.as_fd(), PollFlags::POLLIN));
                owners.push((i, Slot::Stderr));
            }
            if !child.reaped {
                let exit = match &child.warm {
                    Some(warm) => warm.fd(),
                    None => child.pidfd.as_ref().map(|pidfd| pidfd.as_fd()),
                };
                if let Some(exit) = exit {
                    fds.push(PollFd::new(exit, PollFlags::POLLIN));
                    owners.push((i, Slot::Exit));
                }
            }
        }
        // After the children's entries: a finished in-process job (collected by the caller),
        // then the canceller.
        let tasks_entry = tasks.wake_fd().map(|fd| {
            fds.push(PollFd::new(fd, PollFlags::POLLIN));
            fds.len() - 1
        });
        if let Some(cancel) = cancel {
            fds.push(PollFd::new(cancel.fd(), PollFlags::POLLIN));
        }
        let next = children
            .iter()
            .filter_map(Supervised::next_wake)
            .chain(also_wake_at)
            .chain(tasks.next_deadline())
            .min();
        let timeout = match next {
            None => PollTimeout::NONE,
            Some(at) => {
                // Round up, so that a wake-up is never a millisecond early and spins.
                let ms = at.saturating_duration_since(now).as_micros().div_ceil(1000);
                PollTimeout::try_from(ms.min(i32::MAX as u128) as i32).unwrap_or(PollTimeout::NONE)
            }
        };
        match poll(&mut fds, timeout) {
            Ok(_) | Err(nix::errno::Errno::EINTR) => {}
            // Only EINVAL/ENOMEM/EFAULT are possible: nothing to wait on safely. Wait out the
            // shortest deadline instead, so the state machines still make progress.
            Err(_) => std::thread::sleep(Duration::from_millis(1)),
        }
        for (n, fd) in fds.iter().enumerate() {
            let Some(events) = fd.revents().filter(|e| !e.is_empty()) else {
                continue;
            };
            match owners.get(n) {
                Some(&(i, slot)) => ready.push((i, slot, events)),
                None if Some(n) == tasks_entry => {}
                None => cancelled = true,
            }
        }
    }
    if cancelled {
        return Wake::Cancelled;
    }
    for (i, slot, _events) in ready {
        let child = &mut children[i];
        match slot {
            Slot::Stdin => child.write_stdin(),
            Slot::Stdout => {
                child.stdout.read_available(buffer);
                child.tell_first_line();
            }
            Slot::Stderr => child.stderr.read_available(buffer),
            Slot::Exit => child.try_reap(),
        }
    }
    Wake::Ready
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Until the direct child exits or `deadline` passes.
    Running {
        deadline: Instant,
    },
    /// The group was sent SIGTERM; SIGKILL at `grace_end` unless it empties first.
    Terminating {
        grace_end: Instant,
        next_probe: Option<Instant>,
    },
    /// The child is gone; its pipes get until `until` to reach EOF.
    Draining {
        until: Instant,
    },
    Done,
}

/// One child and everything observed about it so far.
struct Supervised {
    index: usize,
    pid: Pid,
    group: ProcessGroup,
    /// Readable once the child has exited; `None` where the kernel has no pidfds.
    pidfd: Option<OwnedFd>,
    reaped: bool,
    stdin: Option<File>,
    payload: Arc<[u8]>,
    written: usize,
    /// `None` while the payload is being written, then whether all of it went in.
    stdin_written: Option<bool>,
    stdout: Capture,
    /// Told the first stdout line once it is complete, then dropped.
    first_line: Option<super::FirstLineWatch>,
    stderr: Capture,
    phase: Phase,
    status: Option<ProcessStatus>,
    leaked: bool,
    /// On timeout: descendants that had left the group, killed by pid along with it.
    escaped: Vec<imp::Escapee>,
    kill_grace: Duration,
    leak_grace: Duration,
    started: Instant,
    /// Without a pidfd: when to look for an exit next.
    next_reap_poll: Option<Instant>,
    /// A child of a warm Python service: its end comes over the service's connection, never
    /// from `waitpid` (see `warm`).
    warm: Option<WarmChild>,
    warm_use: WarmUse,
    /// For a warm child: its spec, to run it again spawned should its service be lost before
    /// saying how it ended.
    respawn: Option<ProcessSpec>,
    /// Set when the child was replaced by a spawned one: the group it had (the guardian, which
    /// watches groups, is told).
    regrouped: Option<ProcessGroup>,
    /// A sandboxed hook's temporary folder: kept while the hook is supervised, removed after.
    _sandbox_temp: Option<Arc<tempfile::TempDir>>,
    /// It runs without the sandbox it was to have: why ([`ProcessSpec::unsandboxed`]).
    unsandboxed: Option<String>,
}

impl Supervised {
    /// Starts `spec`'s process — in a warm Python service when it may run there, else spawned —
    /// and writes what of the payload the socket takes at once. A process that cannot be started
    /// gives its spec back with the error.
    /// `more_follow`: other processes are started right after this one (a warm service then
    /// readies its next child at once).
    fn spawn(
        index: usize,
        spec: ProcessSpec,
        started: Instant,
        more_follow: bool,
    ) -> Result<Supervised, Box<SpawnError>> {
        let (pid, group, pidfd, warm, streams, warm_use) =
            match warm::start(&spec, WarmMode::from_env(), more_follow) {
                Ok(start) => {
                    let pid = Pid::of_warm_child(start.child.pid());
                    let group = ProcessGroup::led_by(Pid::of_warm_child(start.child.pgid()));
                    (
                        pid,
                        group,
                        None,
                        Some(start.child),
                        (start.stdin, start.stdout, start.stderr),
                        WarmUse::Ran,
                    )
                }
                Err(warm_use) => match spawn::spawn(&spec) {
                    Ok(child) => {
                        let pidfd = pidfd_of(child.pid);
                        (
                            child.pid,
                            ProcessGroup::led_by(child.pid),
                            pidfd,
                            None,
                            (child.stdin, child.stdout, child.stderr),
                            warm_use,
                        )
                    }
                    Err(err) => return Err(Box::new(SpawnError { spec, err, warm_use })),
                },
            };
        let (stdin, stdout, stderr) = streams;
        let mut supervised = Supervised {
            index,
            pid,
            group,
            next_reap_poll: (pidfd.is_none() && warm.is_none()).then(|| started + REAP_POLL),
            pidfd,
            respawn: warm.is_some().then(|| spec.clone()),
            warm,
            warm_use,
            regrouped: None,
            _sandbox_temp: spec.sandbox.as_ref().and_then(|plan| plan.temp.clone()),
            unsandboxed: spec.unsandboxed.clone(),
            reaped: false,
            stdin: Some(stdin),
            payload: spec.stdin,
            written: 0,
            stdin_written: None,
            stdout: Capture::new(stdout, spec.output_cap, spec.stdout_spill_limit),
            first_line: spec.first_line,
            stderr: Capture::new(stderr, spec.output_cap, 0),
            phase: Phase::Running {
                deadline: deadline_after(started, spec.timeout),
            },
            status: None,
            leaked: false,
            escaped: Vec::new(),
            kill_grace: spec.kill_grace,
            leak_grace: spec.leak_grace,
            started,
        };
        supervised.write_stdin();
        if let Some(warm) = &supervised.warm {
            if let Err(err) = warm.go() {
                // The child cannot be told to run (it died, or the connection broke): it never
                // ran the hook, so the hook is spawned instead.
                supervised.run_again_spawned(format!(
                    "the warm Python service's child could not be started: {err}"
                ));
                // Not started yet as far as the guardian knows: it is told of the new group.
                supervised.regrouped = None;
            }
        }
        Ok(supervised)
    }

    /// Replaces a warm child whose end cannot be known (its service was lost) by the same hook
    /// spawned, with what is left of its time: the hook's answer is then known, never guessed.
    /// What the warm child wrote is dropped with its pipes, and its group is killed should it
    /// still run. A hook with side effects may have made some of them twice; a guard's answer
    /// is the one a spawned run gives.
    fn run_again_spawned(&mut self, why: String) {
        let Some(spec) = self.respawn.take() else {
            return self.reaped_with(Err(io::Error::other(why)));
        };
        if self.warm.as_ref().is_some_and(WarmChild::child_alive) {
            self.group.kill();
        }
        self.warm = None;
        match spawn::spawn(&spec) {
            Ok(child) => {
                self.regrouped = Some(self.group);
                self.pid = child.pid;
                self.group = ProcessGroup::led_by(child.pid);
                self.pidfd = pidfd_of(child.pid);
                self.next_reap_poll = self.pidfd.is_none().then(|| Instant::now() + REAP_POLL);
                self.stdin = Some(child.stdin);
                self.written = 0;
                self.stdin_written = None;
                self.stdout = Capture::new(child.stdout, spec.output_cap, spec.stdout_spill_limit);
                self.stderr = Capture::new(child.stderr, spec.output_cap, 0);
                self.warm_use = WarmUse::Spawned(format!("{why}; the hook was run again, spawned"));
                self.write_stdin();
            }
            Err(err) => {
                self.warm_use = WarmUse::Spawned(why);
                self.reaped = true;
                self.status = Some(ProcessStatus::SpawnFailed(spawn_failure(&spec, &err)));
                self.stdin = None;
            }
        }
    }

    /// Tells the watcher, if any, the first stdout line once it is complete.
    fn tell_first_line(&mut self) {
        if self.first_line.is_none() {
            return;
        }
        let bytes = self.stdout.kept();
        if let Some(end) = bytes.iter().position(|&b| b == b'\n') {
            let line = bytes[..end].strip_suffix(b"\r").unwrap_or(&bytes[..end]);
            if let Some(watch) = self.first_line.take() {
                (watch.0)(line);
            }
        }
    }

    /// Writes as much of the payload as the socket takes now; closes stdin when all is in, or when
    /// the hook closed its end (`EPIPE`).
    fn write_stdin(&mut self) {
        let Some(stdin) = self.stdin.as_mut() else {
            return;
        };
        while self.written < self.payload.len() {
            match send_without_sigpipe(stdin, &self.payload[self.written..]) {
                Ok(0) => break,
                Ok(n) => self.written += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                Err(_) => {
                    self.stdin_written = Some(false);
                    self.stdin = None;
                    return;
                }
            }
        }
        self.stdin_written = Some(self.written == self.payload.len());
        self.stdin = None;
    }

    /// Collects the exit status if the child has exited. Never blocks.
    fn try_reap(&mut self) {
        if self.reaped {
            return;
        }
        if let Some(warm) = &mut self.warm {
            let Some(end) = warm.try_status() else {
                return;
            };
            // Not after our SIGTERM at the timeout: then the run is over whatever happened.
            let on_its_own = self.status.is_none();
            match end {
                WarmEnd::Exited(status) if on_its_own => {
                    // It ended on its own (a kill of ours is reaped in `kill_and_reap`, and kills
                    // the shell of a spawned hook too): end as the `/bin/sh -c` it ran without
                    // would report.
                    let (status, line) = warm::as_the_shell_reports(status);
                    if let Some(line) = line {
                        self.stderr.push(line.as_bytes());
                    }
                    self.reaped_with(Ok(status));
                }
                WarmEnd::Exited(status) => self.reaped_with(Ok(status)),
                WarmEnd::Lost if on_its_own => self.run_again_spawned(LOST.to_string()),
                WarmEnd::Lost => self.reaped_with(Err(io::Error::other(LOST))),
            }
            return;
        }
        match self.pid.try_wait() {
            Ok(Some(status)) => self.reaped_with(Ok(status)),
            Ok(None) => {}
            Err(err) => self.reaped_with(Err(err)),
        }
    }

    fn reaped_with(&mut self, exit: io::Result<std::process::ExitStatus>) {
        self.reaped = true;
        self.pidfd = None;
        // Reaped: from here the group id may be reused, so only a group known to have members
        // may still be signalled (see `Terminating`).
        if self.status.is_none() {
            self.status = Some(match exit {
                Ok(status) => imp::status_of(status),
                Err(err) => ProcessStatus::SpawnFailed(SpawnFailure::other(format!(
                    "lost track of the hook process: waiting for it failed: {err}"
                ))),
            });
        }
    }

    /// SIGKILLs the group and waits for the direct child. SIGKILL cannot be caught: this returns
    /// as soon as the kernel has torn the child down.
    fn kill_and_reap(&mut self) {
        self.group.kill();
        if !self.escaped.is_empty() {
            // Descendants the escaped ones started since they were found escape with them.
            let roots: Vec<i32> = self.escaped.iter().map(|e| e.pid()).collect();
            let more = imp::escaped_descendants(&roots, self.group);
            for escapee in more {
                if !self.escaped.contains(&escapee) {
                    self.escaped.push(escapee);
                }
            }
            imp::kill_all(&self.escaped);
        }
        if !self.reaped {
            let exit = match &mut self.warm {
                Some(warm) => match warm.wait_status(WARM_REAP_LIMIT) {
                    WarmEnd::Exited(status) => Ok(status),
                    WarmEnd::Lost => Err(io::Error::other(LOST)),
                },
                None => self.pid.wait(),
            };
            self.reaped_with(exit);
        }
    }

    /// Moves the state machine on as far as it goes at `now`.
    fn advance(&mut self, now: Instant) {
        // With a pidfd, exits are seen through `poll`; without one, by looking now and then.
        if !self.reaped
            && self.pidfd.is_none()
            && self.warm.is_none()
            && self.next_reap_poll.is_none_or(|at| now >= at)
        {
            self.try_reap();
            self.next_reap_poll = (!self.reaped).then(|| now + REAP_POLL);
        }
        loop {
            let next = match self.phase {
                Phase::Running { deadline } => {
                    if self.reaped {
                        self.drain_for_leak_grace(now)
                    } else if now >= deadline {
                        self.status = Some(ProcessStatus::TimedOut);
                        // Found while the tree is whole: processes that left the group (setsid)
                        // are not reached by killpg and are signalled by pid with it.
                        self.escaped = imp::escaped_descendants(&[self.pid.raw()], self.group);
                        if self.kill_grace.is_zero() {
                            self.kill_and_reap();
                            self.drain_for_leak_grace(now)
                        } else {
                            self.group.terminate();
                            imp::terminate_all(&self.escaped);
                            Phase::Terminating {
                                grace_end: deadline_after(now, self.kill_grace),
                                next_probe: None,
                            }
                        }
                    } else {
                        return;
                    }
                }
                Phase::Terminating {
                    grace_end,
                    next_probe,
                } => {
                    if now >= grace_end {
                        // Whoever is left in the group (the child included) is killed now.
                        self.kill_and_reap();
                        self.drain_for_leak_grace(now)
                    } else if self.reaped && next_probe.is_none_or(|at| now >= at) {
                        // The group is probed only once the direct child is reaped: until then
                        // the child (even as a zombie) keeps its id from being reused.
                        if self.group.is_empty() && !self.escaped.iter().any(|e| e.is_alive()) {
                            self.drain_for_leak_grace(now)
                        } else {
                            Phase::Terminating {
                                grace_end,
                                next_probe: Some(now + GROUP_POLL),
                            }
                        }
                    } else {
                        return;
                    }
                }
                Phase::Draining { until } => {
                    if !self.stdout.is_open() && !self.stderr.is_open() {
                        Phase::Done
                    } else if now >= until {
                        self.leaked = true;
                        Phase::Done
                    } else {
                        return;
                    }
                }
                Phase::Done => return,
            };
            if next == self.phase {
                return;
            }
            self.phase = next;
        }
    }

    /// The child is gone: stop feeding it and give its pipes `leak_grace` to close.
    fn drain_for_leak_grace(&mut self, now: Instant) -> Phase {
        self.stdin = None;
        Phase::Draining {
            until: deadline_after(now, self.leak_grace),
        }
    }

    /// When this child next needs the loop without any descriptor becoming ready.
    fn next_wake(&self) -> Option<Instant> {
        let phase = match self.phase {
            Phase::Running { deadline } => Some(deadline),
            Phase::Terminating {
                grace_end,
                next_probe,
            } => Some(match (self.reaped, next_probe) {
                (true, Some(probe)) => probe.min(grace_end),
                (true, None) => self.started, // probe at once
                (false, _) => grace_end,
            }),
            Phase::Draining { until } => Some(until),
            Phase::Done => None,
        };
        let reap = if self.reaped { None } else { self.next_reap_poll };
        match (phase, reap) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn into_outcome(mut self) -> (usize, ProcessOutcome) {
        let outcome = ProcessOutcome {
            status: self.status.take().unwrap_or(ProcessStatus::TimedOut),
            stdout: std::mem::replace(&mut self.stdout, Capture::closed()).into_captured(),
            stderr: std::mem::replace(&mut self.stderr, Capture::closed()).into_captured(),
            leaked: self.leaked,
            stdin_unread: self.stdin_written != Some(true),
            duration: self.started.elapsed(),
            warm: std::mem::replace(&mut self.warm_use, WarmUse::Ran),
            unsandboxed: self.unsandboxed.take(),
        };
        (self.index, outcome)
    }
}

impl Drop for Supervised {
    /// A child left before it was reaped (the run was stopped, or a panic unwinds) takes its
    /// whole process group with it.
    fn drop(&mut self) {
        if !self.reaped {
            self.kill_and_reap();
        }
    }
}
