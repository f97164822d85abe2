//! Running one hook process: spawn it in its own process group, feed it the payload, capture its
//! output within a cap, and turn every way it can end — exit, signal, timeout, spawn failure, a
//! grandchild left holding its pipes — into a [`ProcessOutcome`], never an `Err`.
//!
//! The shaping decision: **one `tokio::select!` loop per child, on the caller's task**, drives the
//! stdin writer, both output drains, the exit wait and the deadline together. There are no helper
//! threads and no spawned tasks, so spawning costs what a raw spawn costs (the benchmarks compare
//! us against one) and a misbehaving hook — one that never reads a large payload, floods its
//! output, or leaves a daemon holding stdout — can only stall one branch, never the loop. Like
//! Claude Code, the run is over when the *direct child* exits, not when its pipes reach EOF: after
//! the exit we wait at most `leak_grace` for EOF and then report `leaked` instead of hanging.
//!
//! The loop has three phases. *Running*: write stdin, drain, wait for exit or the deadline.
//! *Terminating* (deadline passed): SIGTERM the group, keep draining for `kill_grace`, SIGKILL
//! whatever is left of the group. *Draining* (the child is gone): wait up to `leak_grace` for EOF.
//! Until the child is reaped, a drop guard SIGKILLs the whole group, so cancelling the future
//! (dropping it) leaves nothing behind; after a normal exit, background processes the hook started
//! are left alone, because hooks may legitimately start daemons.
//!
//! Writing to a pipe whose reader is gone raises SIGPIPE; Rust binaries and Python ignore it, so
//! the write fails with `EPIPE`, which is reported as [`ProcessOutcome::stdin_unread`]. A host
//! that restores the default SIGPIPE disposition must not use this module.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as imp;

use std::ffi::OsString;
use std::fmt;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

#[cfg(unix)]
use std::{pin::pin, process::Stdio};
#[cfg(unix)]
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
#[cfg(unix)]
use tokio::process::{Child, ChildStdin, Command};
#[cfg(unix)]
use tokio::time::{sleep, Instant};

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
    /// Bytes kept per stream; the pipe keeps being drained (and counted) past it.
    pub output_cap: usize,
    /// After SIGTERM to the group on timeout, how long to wait before SIGKILL.
    pub kill_grace: Duration,
    /// After the direct child exits, how long to wait for EOF on stdout and stderr.
    pub leak_grace: Duration,
}

impl ProcessSpec {
    /// A fallback only: callers pass the event's own timeout (Claude Code's differ per event).
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
    /// Bytes kept per stream unless the caller says otherwise.
    pub const DEFAULT_OUTPUT_CAP: usize = 1024 * 1024;
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

/// Why a process could not be started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpawnFailure {
    pub kind: SpawnFailureKind,
    /// Names the program (and the working directory when that is what is missing).
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpawnFailureKind {
    NotFound,
    PermissionDenied,
    Other,
}

impl fmt::Display for SpawnFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl SpawnFailure {
    fn new(spec: &ProcessSpec, err: &io::Error) -> Self {
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
}

/// Runs one hook process to completion. See the module documentation for the phases.
///
/// Needs a tokio runtime with IO and time enabled; the current-thread flavour is enough.
/// Dropping the future before the child has exited kills the child's whole process group.
#[cfg(unix)]
pub async fn run_process(spec: ProcessSpec) -> ProcessOutcome {
    let started = Instant::now();
    let mut child = match command(&spec).spawn() {
        Ok(child) => child,
        Err(err) => {
            return ProcessOutcome {
                status: ProcessStatus::SpawnFailed(SpawnFailure::new(&spec, &err)),
                stdout: CapturedOutput::default(),
                stderr: CapturedOutput::default(),
                leaked: false,
                stdin_unread: !spec.stdin.is_empty(),
                duration: started.elapsed(),
            };
        }
    };

    let mut stdout = Drain::new(child.stdout.take(), spec.output_cap);
    let mut stderr = Drain::new(child.stderr.take(), spec.output_cap);
    let mut writer = pin!(feed(child.stdin.take(), &spec.stdin));
    let mut guard = GroupGuard::new(child);
    // `None` while the writer runs, then whether the whole payload went in.
    let mut stdin_written: Option<bool> = None;

    // Running: until the direct child exits or the deadline passes.
    let mut deadline = pin!(sleep(spec.timeout));
    let exit = loop {
        tokio::select! {
            written = &mut writer, if stdin_written.is_none() => stdin_written = Some(written),
            () = stdout.fill(), if stdout.is_open() => {}
            () = stderr.fill(), if stderr.is_open() => {}
            exit = guard.child.wait() => {
                // Reaped: from here the group id may be reused, so the guard must never fire again.
                guard.disarm();
                break Some(exit);
            }
            () = &mut deadline => break None,
        }
    };

    let status = match exit {
        Some(Ok(status)) => imp::status_of(status),
        Some(Err(err)) => ProcessStatus::SpawnFailed(SpawnFailure {
            kind: SpawnFailureKind::Other,
            message: format!("lost track of `{}`: waiting for it failed: {err}", spec.program),
        }),
        None => {
            terminate(&mut guard, spec.kill_grace, &mut stdout, &mut stderr).await;
            ProcessStatus::TimedOut
        }
    };
    drop(guard);

    // Draining: the child is gone; whoever still holds its pipes gets `leak_grace` to let go.
    let leaked = drain_until_eof(&mut stdout, &mut stderr, spec.leak_grace).await;

    ProcessOutcome {
        status,
        stdout: stdout.captured,
        stderr: stderr.captured,
        leaked,
        stdin_unread: stdin_written != Some(true),
        duration: started.elapsed(),
    }
}

/// How often the group is probed while waiting out `kill_grace` after the direct child has died.
#[cfg(unix)]
const GROUP_POLL: Duration = Duration::from_millis(10);

/// Largest single read, and the size of the discard buffer used past the cap.
#[cfg(unix)]
const CHUNK: usize = 64 * 1024;

/// First reservation for kept output; it doubles from there up to the cap. Most hooks print a
/// few hundred bytes, so a full `CHUNK` per stream up front would be wasted.
#[cfg(unix)]
const FIRST_RESERVE: usize = 8 * 1024;

#[cfg(unix)]
fn command(spec: &ProcessSpec) -> Command {
    let mut cmd = match &spec.program {
        Program::Shell { command } => {
            let mut cmd = Command::new("/bin/sh");
            cmd.arg("-c").arg(command);
            cmd
        }
        Program::Exec { program, args } => {
            let mut cmd = Command::new(program);
            cmd.args(args);
            cmd
        }
    };
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .envs(spec.env.iter().map(|(key, value)| (key, value)));
    if let Some(cwd) = &spec.cwd {
        cmd.current_dir(cwd);
    }
    imp::configure(&mut cmd);
    cmd
}

/// Writes the whole payload, then closes stdin by dropping it. Returns whether every byte went
/// in; `false` means the hook closed its end first (`EPIPE`), which is not an error.
#[cfg(unix)]
async fn feed(stdin: Option<ChildStdin>, payload: &[u8]) -> bool {
    let Some(mut stdin) = stdin else {
        return payload.is_empty();
    };
    payload.is_empty() || stdin.write_all(payload).await.is_ok()
}

/// Owns the child until its process group no longer needs killing: dropping an armed guard
/// (the run future was cancelled) SIGKILLs the whole group.
#[cfg(unix)]
struct GroupGuard {
    child: Child,
    group: imp::ProcessGroup,
    armed: bool,
}

#[cfg(unix)]
impl GroupGuard {
    fn new(child: Child) -> Self {
        let group = imp::ProcessGroup::of(&child);
        GroupGuard {
            child,
            group,
            armed: true,
        }
    }

    /// Called once the group is dead or must be left alone (the child exited normally).
    fn disarm(&mut self) {
        self.armed = false;
    }
}

#[cfg(unix)]
impl Drop for GroupGuard {
    fn drop(&mut self) {
        if self.armed {
            self.group.kill();
        }
        // Dropping `child` unreaped hands it to tokio's orphan queue, which reaps it.
    }
}

/// The terminating phase: SIGTERM the group, keep draining for `grace`, then SIGKILL whatever
/// is left. Returns with the direct child reaped and the guard disarmed.
///
/// The group is probed only after the direct child has been reaped: until then the child (even
/// as a zombie) keeps the group id from being reused. A member that died but is not yet reaped
/// by its new parent (init, which in some containers reaps only once a second) still counts, so
/// there the phase can last the whole `grace`; the closing SIGKILL is then harmless.
#[cfg(unix)]
async fn terminate<O, E>(
    guard: &mut GroupGuard,
    grace: Duration,
    stdout: &mut Drain<O>,
    stderr: &mut Drain<E>,
) where
    O: AsyncRead + Unpin,
    E: AsyncRead + Unpin,
{
    let mut reaped = false;
    if grace.is_zero() {
        guard.group.kill();
    } else {
        guard.group.terminate();
        let mut grace_over = pin!(sleep(grace));
        let survivors = loop {
            tokio::select! {
                () = stdout.fill(), if stdout.is_open() => {}
                () = stderr.fill(), if stderr.is_open() => {}
                _ = guard.child.wait(), if !reaped => {
                    reaped = true;
                    if guard.group.is_empty() {
                        break false;
                    }
                }
                () = sleep(GROUP_POLL), if reaped => {
                    if guard.group.is_empty() {
                        break false;
                    }
                }
                () = &mut grace_over => break true,
            }
        };
        if survivors {
            guard.group.kill();
        }
    }
    if !reaped {
        // SIGKILL cannot be caught; this returns as soon as the kernel has torn the child down.
        let _ = guard.child.wait().await;
    }
    guard.disarm();
}

/// The draining phase: reads both pipes until EOF or until `grace` runs out. Returns whether a
/// pipe was still open then (a leak).
#[cfg(unix)]
async fn drain_until_eof<O, E>(stdout: &mut Drain<O>, stderr: &mut Drain<E>, grace: Duration) -> bool
where
    O: AsyncRead + Unpin,
    E: AsyncRead + Unpin,
{
    if !stdout.is_open() && !stderr.is_open() {
        return false;
    }
    let mut grace_over = pin!(sleep(grace));
    loop {
        tokio::select! {
            () = stdout.fill(), if stdout.is_open() => {}
            () = stderr.fill(), if stderr.is_open() => {}
            () = &mut grace_over => return true,
        }
        if !stdout.is_open() && !stderr.is_open() {
            return false;
        }
    }
}

/// One output pipe and what has been kept of it.
#[cfg(unix)]
struct Drain<R> {
    /// `None` once EOF (or a read error) was seen; dropping it closes our end.
    reader: Option<R>,
    captured: CapturedOutput,
    cap: usize,
    /// Where bytes past the cap are read and discarded; allocated only if output exceeds the cap.
    scratch: Option<Box<[u8]>>,
}

#[cfg(unix)]
impl<R: AsyncRead + Unpin> Drain<R> {
    fn new(reader: Option<R>, cap: usize) -> Self {
        Drain {
            reader,
            captured: CapturedOutput::default(),
            cap,
            scratch: None,
        }
    }

    fn is_open(&self) -> bool {
        self.reader.is_some()
    }

    /// Reads one chunk and records it. Cancel-safe: the reads used are, and the bookkeeping
    /// happens in the same poll as the read that produced the bytes.
    async fn fill(&mut self) {
        let Some(reader) = self.reader.as_mut() else {
            return std::future::pending().await;
        };
        let kept = &mut self.captured.bytes;
        let room = self.cap.saturating_sub(kept.len());
        let read = if room > 0 {
            // Read straight into the kept bytes; the capacity never exceeds the cap.
            if kept.capacity() == kept.len() {
                kept.reserve_exact(kept.len().max(FIRST_RESERVE).min(room));
            }
            reader.read_buf(kept).await
        } else {
            let scratch = self
                .scratch
                .get_or_insert_with(|| vec![0; CHUNK].into_boxed_slice());
            reader.read(scratch).await
        };
        match read {
            Ok(0) => self.reader = None,
            Ok(n) => {
                self.captured.total_len += n as u64;
                if room == 0 || kept.len() > self.cap {
                    kept.truncate(self.cap);
                    self.captured.truncated = true;
                }
            }
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => self.reader = None,
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// Drains an in-memory "pipe" that delivers `input` in `chunk`-sized reads.
    async fn capture(input: &[u8], chunk: usize, cap: usize) -> CapturedOutput {
        let reader = tokio::io::BufReader::with_capacity(chunk, input);
        let mut drain = Drain::new(Some(reader), cap);
        while drain.is_open() {
            drain.fill().await;
        }
        drain.captured
    }

    #[tokio::test]
    async fn capture_keeps_a_prefix_and_counts_everything() {
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
            (50, 1024, 0, 0, true),
            (0, 1024, 0, 0, false),
        ];
        for (len, chunk, cap, kept, truncated) in cases {
            let got = capture(&input[..len], chunk, cap).await;
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
