//! Running hook processes: spawn each in its own process group, feed it the payload, capture its
//! output within a cap (a JSON answer past the cap waits on disk and is read whole), and turn every way it can end — exit, signal, timeout, spawn failure, a
//! grandchild left holding its pipes — into a [`ProcessOutcome`], never an `Err`.
//!
//! The shaping decision: **one `poll(2)` loop on the calling thread supervises every process of
//! an event** (`supervisor`): per child a small state machine that writes stdin, drains stdout
//! and stderr, watches for the exit (a pidfd on Linux) and keeps its deadlines. No async runtime,
//! no helper threads. `hookbridge run` is a fresh process per agent event, and a runtime's start-up
//! alone cost about 8 % of a whole one-hook run (the `spawn_floor_tokio` row of
//! docs/benchmarks.md); the loop costs what a raw spawn costs. A misbehaving hook — one that never
//! reads a large payload, floods its output, or leaves a daemon holding stdout — can only keep its
//! own descriptors busy, never the loop. Like Claude Code, a run is over when the *direct child*
//! exits, not when its pipes reach EOF: after the exit we wait at most `leak_grace` for EOF and
//! then report `leaked` instead of hanging.
//!
//! A child is started by `spawn` with `posix_spawn(3)` directly rather than the standard
//! library's `Command`, which copies this process's whole environment for every child that gets
//! a variable of its own (every hook does): that copy alone was 5–6 % of starting a `true` hook.
//!
//! Each child goes through up to three phases. *Running*: write stdin, drain, wait for the exit
//! or the deadline. *Terminating* (deadline passed): SIGTERM the group, keep draining for
//! `kill_grace`, SIGKILL whatever is left of the group. *Draining* (the child is gone): wait up to
//! `leak_grace` for EOF. Until a child is reaped, leaving the loop early (a [`Flow::StopTheRest`]
//! answer, a [`Canceller`], a panic) SIGKILLs its whole group; after a normal exit, background
//! processes the hook started are left alone, because hooks may legitimately start daemons.
//!
//! A hook's standard streams are Unix socketpairs, as Claude Code (Node) gives them. The payload is
//! written with `send(MSG_NOSIGNAL)`: a hook that closed its stdin gives `EPIPE` (reported as
//! [`ProcessOutcome::stdin_unread`]), never a SIGPIPE, whatever the host's SIGPIPE disposition.
//!
//! What a host process can add (`hookbridge run` does all four): [`raise_open_file_limit`];
//! [`cancel_on_termination_signals`], so SIGTERM/SIGINT/SIGHUP stop every hook with it;
//! [`guard_hooks_against_sigkill`], a guardian process that stops them if it is killed outright;
//! and [`become_child_subreaper`]. Whatever the host does, at most as many hooks run at once as
//! the open-file limit allows, and a hook's descendants that left its process group (`setsid`)
//! are killed with it at its timeout.

#[cfg(unix)]
mod cancel;
#[cfg(unix)]
pub(crate) mod capture;
#[cfg(unix)]
mod guardian;
#[cfg(unix)]
mod in_process;
#[cfg(unix)]
mod sandbox;
#[cfg(unix)]
mod signals;
#[cfg(unix)]
mod spawn;
#[cfg(unix)]
mod supervisor;
#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub mod warm;

use std::ffi::OsString;
use std::fmt;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hookbridge_core::decision::{HookExecution, RunStatus, WarmRun};
pub use hookbridge_core::decision::{SpawnFailure, SpawnFailureKind};

#[cfg(unix)]
pub use cancel::Canceller;
#[cfg(target_os = "linux")]
pub use guardian::guard_hooks_against_sigkill;
#[cfg(unix)]
pub use in_process::{InProcessJob, InProcessOutcome};
#[cfg(unix)]
pub use sandbox::{
    confine_command, explain_denials, names_a_secret, unenforceable, ReadLayers, SandboxPlan, CREDENTIALS,
};
#[cfg(unix)]
pub(crate) use signals::restore_default_termination_signals;
#[cfg(unix)]
pub use signals::{cancel_on_termination_signals, termination_signal_received};
#[cfg(unix)]
pub use unix::become_child_subreaper;
pub(crate) use unix::kill_tree;

/// What to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Program {
    /// `/bin/sh -c command`, exactly how Claude Code runs a hook's `command` (`$0` is `/bin/sh`).
    Shell { command: String },
    /// `program` with `args`, no shell; a bare name is looked up in `PATH`.
    Exec { program: String, args: Vec<String> },
}

impl Program {
    /// The shell form: `/bin/sh -c command`.
    pub fn shell(command: impl Into<String>) -> Self {
        Program::Shell {
            command: command.into(),
        }
    }

    /// The exec form: `program args…` without a shell.
    pub fn exec<I, S>(program: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Program::Exec {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
        }
    }
}

impl fmt::Display for Program {
    /// The program as a user would type it, for messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Program::Shell { command } => f.write_str(command),
            Program::Exec { program, args } => {
                f.write_str(program)?;
                args.iter().try_for_each(|arg| write!(f, " {arg}"))
            }
        }
    }
}

/// Called once with the first line of a hook's stdout (without its newline) as soon as that line
/// is complete, while the hook runs on: how `hookbridge run` sees a hook switch itself to async
/// (a first line `{"async": true}`, case 191) in time to answer the same way.
#[derive(Clone)]
pub struct FirstLineWatch(pub Arc<LineCallback>);

/// What a [`FirstLineWatch`] calls.
pub type LineCallback = dyn Fn(&[u8]) + Send + Sync;

impl std::fmt::Debug for FirstLineWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FirstLineWatch")
    }
}

/// Everything needed to run one hook process.
#[derive(Debug, Clone)]
pub struct ProcessSpec {
    pub program: Program,
    /// Working directory; `None` inherits ours.
    pub cwd: Option<PathBuf>,
    /// Set on top of the inherited environment.
    pub env: Vec<(OsString, OsString)>,
    /// The payload: written fully, then stdin is closed.
    pub stdin: Arc<[u8]>,
    /// How long the direct child may run before the group is terminated.
    pub timeout: Duration,
    /// Bytes kept in memory per stream; the socket keeps being drained (and counted) past it.
    pub output_cap: usize,
    /// Bytes of stdout past `output_cap` kept in an unnamed temporary file, and read back when the
    /// output is a JSON answer (whitespace, then `{`): an answer larger than the cap is then read
    /// whole instead of being cut into invalid JSON. 0 keeps nothing past the cap.
    pub stdout_spill_limit: u64,
    /// After SIGTERM to the group on timeout, how long to wait before SIGKILL.
    pub kill_grace: Duration,
    /// After the direct child exits, how long to wait for EOF on stdout and stderr.
    pub leak_grace: Duration,
    /// Told the first line of stdout as soon as it is complete.
    pub first_line: Option<FirstLineWatch>,
    /// May run in a warm Python service when `HOOKBRIDGE_WARM` allows and the command is
    /// provably a plain Python run (see [`warm`]); `false` is the hook's `"warm": false`.
    pub warm: bool,
    /// The kernel sandbox the process starts in ([`SandboxPlan`]); `None`: none. A sandboxed
    /// process is always spawned, never run warm.
    pub sandbox: Option<Box<SandboxPlan>>,
    /// The process was to run sandboxed, this machine cannot enforce its sandbox, and
    /// `sandboxUnavailable: runUnsandboxed` let it run without: why, carried to its outcome (and
    /// from there to the problems the user is shown and the audit record).
    pub unsandboxed: Option<String>,
}

impl ProcessSpec {
    /// A fallback only: callers pass the event's own timeout (Claude Code's differ per event).
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
    /// Bytes kept per stream unless the caller says otherwise.
    pub const DEFAULT_OUTPUT_CAP: usize = 1024 * 1024;
    /// 64 MiB of stdout past the cap on disk: far above any answer Claude Code can use (a 5 MB
    /// deny reason already overflows its context), and bounded.
    pub const DEFAULT_STDOUT_SPILL_LIMIT: u64 = 64 * 1024 * 1024;
    pub const DEFAULT_KILL_GRACE: Duration = Duration::from_millis(500);
    pub const DEFAULT_LEAK_GRACE: Duration = Duration::from_millis(50);

    /// A spec with an empty payload, inherited cwd and environment, and the default limits.
    pub fn new(program: Program) -> Self {
        ProcessSpec {
            program,
            cwd: None,
            env: Vec::new(),
            stdin: Arc::from(&[][..]),
            timeout: Self::DEFAULT_TIMEOUT,
            output_cap: Self::DEFAULT_OUTPUT_CAP,
            stdout_spill_limit: Self::DEFAULT_STDOUT_SPILL_LIMIT,
            first_line: None,
            warm: true,
            sandbox: None,
            unsandboxed: None,
            kill_grace: Self::DEFAULT_KILL_GRACE,
            leak_grace: Self::DEFAULT_LEAK_GRACE,
        }
    }
}

/// How the process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProcessStatus {
    /// The direct child exited with this code.
    Exited(i32),
    /// The direct child was killed by this signal (not by us).
    Signaled(i32),
    /// It outlived `timeout`; its process group was terminated.
    TimedOut,
    /// It never ran (or, exceptionally, its exit status could not be collected; the message says which).
    SpawnFailed(SpawnFailure),
}

impl ProcessStatus {
    /// The exit code, if the child exited normally.
    pub fn exit_code(&self) -> Option<i32> {
        match self {
            ProcessStatus::Exited(code) => Some(*code),
            _ => None,
        }
    }
}

/// Why `spec` could not be started, from the error the OS gave.
fn spawn_failure(spec: &ProcessSpec, err: &io::Error) -> SpawnFailure {
    let kind = match err.kind() {
        io::ErrorKind::NotFound => SpawnFailureKind::NotFound,
        io::ErrorKind::PermissionDenied => SpawnFailureKind::PermissionDenied,
        _ => SpawnFailureKind::Other,
    };
    let program = match &spec.program {
        Program::Shell { .. } => "/bin/sh",
        Program::Exec { program, .. } => program,
    };
    // The OS reports a missing working directory with the same errno as a missing program;
    // looking at the directory (only on this error path) tells the user which one it was.
    let message = match &spec.cwd {
        Some(cwd) if !cwd.is_dir() => {
            format!(
                "cannot run `{program}`: working directory `{}` is not a directory ({err})",
                cwd.display()
            )
        }
        _ => format!("cannot run `{program}`: {err}"),
    };
    SpawnFailure { kind, message }
}

/// One output stream, capped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CapturedOutput {
    /// The first `output_cap` bytes, exactly as written (not necessarily UTF-8).
    pub bytes: Vec<u8>,
    /// Every byte read from the pipe, kept or not.
    pub total_len: u64,
    /// Bytes were read past the cap and discarded.
    pub truncated: bool,
}

impl CapturedOutput {
    /// First reservation for kept output; it doubles from there up to the cap. Most hooks print a
    /// few hundred bytes.
    const FIRST_RESERVE: usize = 8 * 1024;

    /// Records `chunk`, just read from the pipe: counted whole, kept only up to `cap` bytes. The
    /// kept buffer never grows past `cap`.
    pub(crate) fn keep(&mut self, cap: usize, chunk: &[u8]) {
        self.total_len += chunk.len() as u64;
        let room = cap.saturating_sub(self.bytes.len());
        let take = chunk.len().min(room);
        if take < chunk.len() {
            self.truncated = true;
        }
        if take == 0 {
            return;
        }
        if self.bytes.capacity() - self.bytes.len() < take {
            let grow = self.bytes.len().max(Self::FIRST_RESERVE).min(room).max(take);
            self.bytes.reserve_exact(grow);
        }
        self.bytes.extend_from_slice(&chunk[..take]);
    }

    /// The kept bytes as text, with invalid UTF-8 replaced.
    pub fn to_string_lossy(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(&self.bytes)
    }
}

/// Everything observed about one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessOutcome {
    pub status: ProcessStatus,
    pub stdout: CapturedOutput,
    pub stderr: CapturedOutput,
    /// A descendant still held stdout or stderr open `leak_grace` after the direct child ended;
    /// what it had written by then is in the captures, and it was left running.
    pub leaked: bool,
    /// The payload was not fully written: the hook closed stdin (or exited) before reading all of
    /// it, or the write was still blocked when the run ended. Not an error — many hooks ignore
    /// their input.
    pub stdin_unread: bool,
    /// From just before spawning to the outcome.
    pub duration: Duration,
    /// Whether it ran in a warm Python service, and if not, why.
    #[cfg(unix)]
    pub warm: warm::WarmUse,
    /// It ran without the sandbox it was to have: why ([`ProcessSpec::unsandboxed`]).
    pub unsandboxed: Option<String>,
}

/// What the caller of [`run_all`] wants once a process has finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Keep supervising the others.
    Continue,
    /// The others' answers no longer matter: kill their process groups and return.
    StopTheRest,
}

/// Raises this process's soft limit on open files to its hard limit, so that an event with many
/// hooks is not refused descriptors a shell's default `ulimit -n` (often 256 or 1024) would
/// deny. For a process that lives for one event (`hookbridge run`); a library host decides for
/// itself. Returns the soft limit in force afterwards. Whatever the limit, [`run_all`] starts no
/// more processes at once than it allows.
#[cfg(unix)]
pub fn raise_open_file_limit() -> Option<u64> {
    use nix::sys::resource::{getrlimit, setrlimit, Resource};
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).ok()?;
    if soft >= hard {
        return Some(soft);
    }
    match setrlimit(Resource::RLIMIT_NOFILE, hard, hard) {
        Ok(()) => Some(hard),
        Err(_) => Some(soft),
    }
}

/// Runs one hook process to completion on the calling thread. See the module documentation for
/// the phases.
#[cfg(unix)]
pub fn run_process(spec: ProcessSpec) -> ProcessOutcome {
    let mut result = None;
    run_all(vec![spec], None, |_, outcome| {
        result = Some(outcome);
        Flow::Continue
    });
    result.expect("a run that nobody stops ends with an outcome")
}

/// One hook's work for [`run_jobs`]: a child process, or work done in this process on a thread
/// of its own (an http request, a model call).
#[cfg(unix)]
#[derive(Debug)]
pub enum Job {
    Process(ProcessSpec),
    InProcess(InProcessJob),
}

/// How one [`Job`] ended.
#[cfg(unix)]
#[derive(Debug)]
pub enum JobOutcome {
    Process(ProcessOutcome),
    InProcess(InProcessOutcome),
}

/// Runs every job at once, processes supervised on the calling thread and in-process jobs on
/// threads of their own, until all have ended. As [`run_all`], with both kinds in one completion
/// order.
#[cfg(unix)]
pub fn run_jobs(
    jobs: Vec<Job>,
    cancel: Option<&Canceller>,
    on_finish: impl FnMut(usize, JobOutcome) -> Flow,
) {
    supervisor::run_all(jobs, cancel, on_finish)
}

/// Runs every process of `specs` at once, on the calling thread, until all have ended.
///
/// `on_finish` receives each process's index and outcome, in completion order; answering
/// [`Flow::StopTheRest`] kills the process groups of those still running and ends the run.
/// `cancel`, when given, ends it the same way from another thread. A process that was stopped
/// before it finished gets no call.
#[cfg(unix)]
pub fn run_all(
    specs: Vec<ProcessSpec>,
    cancel: Option<&Canceller>,
    mut on_finish: impl FnMut(usize, ProcessOutcome) -> Flow,
) {
    let jobs = specs.into_iter().map(Job::Process).collect();
    supervisor::run_all(jobs, cancel, |index, outcome| match outcome {
        JobOutcome::Process(outcome) => on_finish(index, outcome),
        JobOutcome::InProcess(_) => unreachable!("only processes were given"),
    })
}

#[cfg(unix)]
impl JobOutcome {
    /// The run as the core reads it, `finish_order`th of its event to finish.
    pub(crate) fn into_execution(self, finish_order: usize) -> HookExecution {
        let outcome = match self {
            JobOutcome::Process(outcome) => outcome,
            JobOutcome::InProcess(outcome) => {
                return HookExecution {
                    warm: Default::default(),
                    unsandboxed: None,
                    status: outcome.status,
                    stdout: outcome.stdout,
                    stderr: outcome.stderr,
                    stdout_truncated: outcome.stdout_truncated,
                    stderr_truncated: false,
                    leaked: false,
                    duration: outcome.duration,
                    finish_order,
                }
            }
        };
        let status = match outcome.status {
            ProcessStatus::Exited(code) => RunStatus::Exited(code),
            ProcessStatus::Signaled(sig) => RunStatus::Signaled(sig),
            ProcessStatus::TimedOut => RunStatus::TimedOut,
            ProcessStatus::SpawnFailed(f) => RunStatus::SpawnFailed(f),
        };
        let warm = match outcome.warm {
            warm::WarmUse::NotTried(_) => WarmRun::NotTried,
            warm::WarmUse::Ran => WarmRun::Ran,
            warm::WarmUse::Starting(why) => WarmRun::Starting(why),
            warm::WarmUse::Declined(why) => WarmRun::Declined(why),
            warm::WarmUse::Spawned(why) => WarmRun::FellBack(why),
        };
        HookExecution {
            warm,
            unsandboxed: outcome.unsandboxed,
            status,
            stdout_truncated: outcome.stdout.truncated,
            stderr_truncated: outcome.stderr.truncated,
            stdout: outcome.stdout.bytes,
            stderr: outcome.stderr.bytes,
            leaked: outcome.leaked,
            duration: outcome.duration,
            finish_order,
        }
    }
}

/// `start + timeout`, or a deadline that never comes when that is past what `Instant` can hold
/// (a timeout of `1e20` seconds is "never", not a panic).
fn deadline_after(start: Instant, timeout: Duration) -> Instant {
    start
        .checked_add(timeout)
        .unwrap_or_else(|| start + Duration::from_secs(100 * 365 * 24 * 3600))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `input` to a capture in `chunk`-sized reads, as pipe reads would deliver it.
    fn capture(input: &[u8], chunk: usize, cap: usize) -> CapturedOutput {
        let mut out = CapturedOutput::default();
        for piece in input.chunks(chunk.max(1)) {
            out.keep(cap, piece);
        }
        out
    }

    #[test]
    fn capture_keeps_a_prefix_and_counts_everything() {
        let input: Vec<u8> = (0..=255u8).cycle().take(300_000).collect();
        // (input length, read size, cap) -> kept length, truncated
        let cases = [
            (0, 1024, 100, 0, false),
            (10, 1024, 100, 10, false),
            (100, 1024, 100, 100, false),
            (101, 1024, 100, 100, true),
            (101, 7, 100, 100, true),
            (300_000, 65_536, 100_000, 100_000, true),
            (300_000, 65_536, 300_000, 300_000, false),
            (300_000, 65_536, 1_000_000, 300_000, false),
            (300_000, 1, 9_000, 9_000, true),
            (50, 1024, 0, 0, true),
            (0, 1024, 0, 0, false),
        ];
        for (len, chunk, cap, kept, truncated) in cases {
            let got = capture(&input[..len], chunk, cap);
            let case = format!("len {len}, chunk {chunk}, cap {cap}");
            assert_eq!(got.bytes, input[..kept], "{case}");
            assert_eq!(got.total_len, len as u64, "{case}");
            assert_eq!(got.truncated, truncated, "{case}");
            assert!(
                got.bytes.capacity() <= cap,
                "{case}: capacity {}",
                got.bytes.capacity()
            );
        }
    }

    #[test]
    fn program_display_is_what_the_user_wrote() {
        assert_eq!(Program::shell("echo hi | jq .").to_string(), "echo hi | jq .");
        assert_eq!(
            Program::exec("python3", ["hook.py", "--fast"]).to_string(),
            "python3 hook.py --fast"
        );
    }
}
