//! What happened when a hook ran: the runner's report, in plain data.

use std::path::PathBuf;
use std::time::Duration;

use super::verdict::Verdict;
use crate::event::EventName;

/// How a hook run ended (a process's exit, an endpoint's response, a model's verdict).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunStatus {
    /// The process exited with this code.
    Exited(i32),
    /// The process was killed by this signal (not by hookbridge).
    Signaled(i32),
    /// It ran past its timeout; its process tree was killed and its output discarded.
    TimedOut,
    /// It could not be started (missing program, not executable, …).
    SpawnFailed(SpawnFailure),
    /// It was started in the background (`async: true`); its answer cannot affect this event.
    Detached,
    /// hookbridge did not run it, for this reason.
    NotRun(NotRunReason),
    /// It was stopped before it answered: the event was already decided, or the run was stopped.
    Cancelled(CancelReason),
    /// An `http` hook's endpoint answered with this HTTP status; its body is `stdout`.
    Responded(u16),
    /// A `prompt`, `agent` or `llm` hook's model gave this verdict.
    Judged(Verdict),
    /// A hook that is not a process answered with text, which is `stdout` and is read like a
    /// command's: a rule hook (`type: matcher`, decided in this process; Claude Code's answer for
    /// its `action` when it matched, nothing when not) or an MCP tool's text output.
    Answered,
    /// A hook that is not a process could not answer: the endpoint, model or MCP server was
    /// unreachable, refused, or answered with something that cannot be read.
    Failed(HookFailure),
}

/// Why a hook's process could not be started: what kind of failure, for whoever acts on it, and
/// the sentence a user reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpawnFailure {
    pub kind: SpawnFailureKind,
    /// Names the program (and the working directory when that is what is missing).
    pub message: String,
}

/// The kinds of [`SpawnFailure`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpawnFailureKind {
    /// The program (or the working directory) does not exist.
    NotFound,
    /// The program exists and may not be run (not executable, or refused by a sandbox).
    PermissionDenied,
    /// Anything else: no process could be made, the sandbox could not be set up, hookbridge's
    /// own helper could not be started.
    Other,
}

impl SpawnFailureKind {
    /// The kind in one word, as the audit record names it.
    pub fn word(self) -> &'static str {
        match self {
            SpawnFailureKind::NotFound => "not_found",
            SpawnFailureKind::PermissionDenied => "permission_denied",
            SpawnFailureKind::Other => "could_not_start",
        }
    }
}

impl SpawnFailure {
    /// A failure of kind [`SpawnFailureKind::Other`], said in `message`.
    pub fn other(message: impl Into<String>) -> Self {
        SpawnFailure {
            kind: SpawnFailureKind::Other,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for SpawnFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Why a hook gave no usable answer although it ran (or was tried): what kind of failure, and
/// the sentence a user reads. A process that exits non-zero is not one of these (its exit code
/// says what it says); these are the hooks that are not processes, and answers that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookFailure {
    pub kind: HookFailureKind,
    pub message: String,
}

/// The kinds of [`HookFailure`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookFailureKind {
    /// The endpoint, model or MCP server could not be reached, or went away before it answered.
    Unreachable,
    /// It answered with an error of its own: an HTTP error status, a JSON-RPC error, an MCP tool's
    /// `isError`, a model that refused.
    Refused,
    /// It answered with something that cannot be read as an answer: not JSON, outside the output
    /// schema, no verdict.
    Unreadable,
    /// Its answer is larger than hookbridge reads of one, so it was not read.
    TooLarge,
    /// What it needs is not configured here: no model provider, an unknown or unsupported server.
    NotConfigured,
    /// hookbridge could not run it here (no thread, no pipe for its worker).
    Internal,
}

impl HookFailureKind {
    pub const ALL: [HookFailureKind; 6] = [
        HookFailureKind::Unreachable,
        HookFailureKind::Refused,
        HookFailureKind::Unreadable,
        HookFailureKind::TooLarge,
        HookFailureKind::NotConfigured,
        HookFailureKind::Internal,
    ];

    /// The kind a [`HookFailureKind::word`] names, as read back from the audit record.
    pub fn from_word(word: &str) -> Option<HookFailureKind> {
        HookFailureKind::ALL.into_iter().find(|k| k.word() == word)
    }

    /// Nothing answered at all: the endpoint, model or server was never reached, or is not
    /// configured here. Like a command that could not start, such a hook checked nothing (the
    /// silent "allow"); one that answered with an error or an unreadable answer was reached.
    pub fn never_reached(self) -> bool {
        matches!(
            self,
            HookFailureKind::Unreachable | HookFailureKind::NotConfigured
        )
    }

    /// The kind in one word, as the audit record names it.
    pub fn word(self) -> &'static str {
        match self {
            HookFailureKind::Unreachable => "unreachable",
            HookFailureKind::Refused => "refused",
            HookFailureKind::Unreadable => "unreadable",
            HookFailureKind::TooLarge => "too_large",
            HookFailureKind::NotConfigured => "not_configured",
            HookFailureKind::Internal => "internal",
        }
    }
}

impl HookFailure {
    pub fn new(kind: HookFailureKind, message: impl Into<String>) -> Self {
        HookFailure {
            kind,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for HookFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Why hookbridge did not run a hook it selected: the one answer to "can this hook run here?".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotRunReason {
    /// A `prompt` or `agent` hook on an event that runs no judge
    /// ([`EventTraits::runs_judge_hooks`](crate::event::EventTraits::runs_judge_hooks)).
    NoJudgesOn(EventName),
    /// An `http` hook whose URL no pattern in the settings' `allowedHttpHookUrls` allows.
    UrlNotAllowed { url: String },
    /// A project hook run in `cwd`, where a relative path of its command names `file`, which is not
    /// the file trust pinned from the project root (hookbridge's own rule).
    NotPinnedHere { cwd: PathBuf, file: PathBuf },
}

impl std::fmt::Display for NotRunReason {
    /// Claude Code's own words for each (2.1.332; cases 292, 304).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotRunReason::NoJudgesOn(event) => f.write_str(&event.judges_not_run()),
            NotRunReason::UrlNotAllowed { url } => {
                write!(
                    f,
                    "HTTP hook blocked: {url} does not match any pattern in allowedHttpHookUrls"
                )
            }
            NotRunReason::NotPinnedHere { cwd, file } => write!(
                f,
                "not run: from its working directory {} its command runs {}, which is not the file \
                 `hookbridge trust` pinned from the project root",
                cwd.display(),
                file.display()
            ),
        }
    }
}

/// Why a hook was stopped before it answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelReason {
    /// Another UserPromptSubmit hook blocked the prompt: Claude Code kills the others (case 134).
    PromptBlocked,
    /// Another PermissionRequest hook already decided: Claude Code stops waiting for the others
    /// (cases 119–120).
    PermissionDecided,
    /// The run itself was stopped (the host cancelled it, or hookbridge was signalled) before
    /// this hook finished.
    RunStopped,
}

impl CancelReason {
    /// The reason as reports, the log and the audit log word it.
    pub fn as_str(self) -> &'static str {
        match self {
            CancelReason::PromptBlocked => "cancelled: another UserPromptSubmit hook blocked the prompt",
            CancelReason::PermissionDecided => "cancelled: another PermissionRequest hook already decided",
            CancelReason::RunStopped => "cancelled: the run was stopped before this hook finished",
        }
    }
}

impl std::fmt::Display for CancelReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl RunStatus {
    /// The status in one word, as reports and the audit log name it (`exited`, `timed_out`, …).
    pub fn word(&self) -> &'static str {
        match self {
            RunStatus::Exited(_) => "exited",
            RunStatus::Signaled(_) => "signaled",
            RunStatus::TimedOut => "timed_out",
            RunStatus::SpawnFailed(_) => "spawn_failed",
            RunStatus::Detached => "detached",
            RunStatus::NotRun(_) => "not_run",
            RunStatus::Cancelled(_) => "cancelled",
            RunStatus::Responded(_) => "responded",
            RunStatus::Answered => "answered",
            RunStatus::Judged(v) if v.ok => "judged_ok",
            RunStatus::Judged(_) => "judged_not_ok",
            RunStatus::Failed(_) => "failed",
        }
    }

    /// What kind of failure it was, in one word, when the hook could not start or answer
    /// ([`SpawnFailureKind::word`], [`HookFailureKind::word`]).
    pub fn failure_word(&self) -> Option<&'static str> {
        match self {
            RunStatus::SpawnFailed(f) => Some(f.kind.word()),
            RunStatus::Failed(f) => Some(f.kind.word()),
            _ => None,
        }
    }

    /// The number that goes with it: an exit code, a signal, an HTTP status.
    pub fn code(&self) -> Option<i32> {
        match self {
            RunStatus::Exited(c) | RunStatus::Signaled(c) => Some(*c),
            RunStatus::Responded(s) => Some(i32::from(*s)),
            _ => None,
        }
    }

    /// What it says of itself: why it failed or was not run, a verdict's reason.
    pub fn detail(&self) -> Option<std::borrow::Cow<'_, str>> {
        use std::borrow::Cow;
        match self {
            RunStatus::SpawnFailed(f) => Some(Cow::Borrowed(&f.message)),
            RunStatus::Failed(f) => Some(Cow::Borrowed(&f.message)),
            RunStatus::NotRun(why) => Some(Cow::Owned(why.to_string())),
            RunStatus::Cancelled(why) => Some(Cow::Borrowed(why.as_str())),
            RunStatus::Judged(v) => v.reason.as_deref().map(Cow::Borrowed),
            _ => None,
        }
    }
}

/// One hook's run, as the runner reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookExecution {
    pub status: RunStatus,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// Output beyond the capture cap was drained and dropped.
    pub stdout_truncated: bool,
    pub stderr_truncated: bool,
    /// A descendant still held the output pipes when the hook itself had exited.
    pub leaked: bool,
    pub duration: Duration,
    /// 0 for the first hook of the event to finish, 1 for the next, …
    pub finish_order: usize,
    /// Whether a command hook ran in a warm Python service.
    pub warm: WarmRun,
    /// A command hook ran without the sandbox it was to have, because this machine cannot
    /// enforce it and `sandboxUnavailable: runUnsandboxed` allowed that: why. Never silent: it is a
    /// problem the user is shown, and the audit record's `unsandboxed`.
    pub unsandboxed: Option<String>,
}

/// Whether a command hook ran in a warm Python service (the runner's `process::warm`) instead of
/// a freshly spawned interpreter.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum WarmRun {
    /// Not tried: warm runs are off, or the hook is not provably a plain Python run.
    #[default]
    NotTried,
    /// Run by a warm service.
    Ran,
    /// It could have run warm but was spawned while its service starts (the first runs of an
    /// interpreter): expected, not a problem.
    Starting(String),
    /// It could have run warm but its service declined it, by design (a file beside the script
    /// shadows a module the service preloaded, a resource limit, an old Python): not a problem.
    Declined(String),
    /// It could have run warm but was spawned; why (a service that could not start, or is
    /// unreachable or broken).
    FellBack(String),
}

impl HookExecution {
    /// An execution that did not produce any output (timed out, not started, …).
    pub fn without_output(status: RunStatus, finish_order: usize) -> HookExecution {
        HookExecution {
            warm: Default::default(),
            unsandboxed: None,
            status,
            stdout: Vec::new(),
            stderr: Vec::new(),
            stdout_truncated: false,
            stderr_truncated: false,
            leaked: false,
            duration: Duration::ZERO,
            finish_order,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hook_not_run_is_worded_as_claude_code_words_it() {
        assert_eq!(
            NotRunReason::UrlNotAllowed {
                url: "http://localhost/x".into()
            }
            .to_string(),
            "HTTP hook blocked: http://localhost/x does not match any pattern in allowedHttpHookUrls"
        );
        assert_eq!(
            NotRunReason::NoJudgesOn(EventName::PreSkillShellCommand).to_string(),
            "prompt and agent hooks don't run on PreSkillShellCommand"
        );
        let status = RunStatus::NotRun(NotRunReason::NoJudgesOn(EventName::PreSkillShellCommand));
        assert_eq!(
            status.detail().as_deref(),
            Some("prompt and agent hooks don't run on PreSkillShellCommand")
        );
    }
}
