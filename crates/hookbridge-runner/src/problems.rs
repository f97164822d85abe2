//! What went wrong in one dispatched event, described once for every host.
//!
//! A hook that fails gives no answer and the agent carries on (it fails open, as under Claude
//! Code); the user learns of it only from these lines. `hookbridge run` writes every [`Problem`]
//! to the diagnostics log; the Amplifier module shows the ones [`Problem::for_the_user`] keeps.
//! One list and one wording, so the two hosts never disagree about what happened.

use std::fmt;
use std::time::Duration;

use hookbridge_core::config::HookType;
use hookbridge_core::decision::{HookAnswer, HookFailure, RunStatus, SpawnFailure, WarmRun};
use hookbridge_core::event::EventName;

use crate::report::{EventReport, HookSummary};

/// One problem of one event.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// The hook concerned; `None` for a problem of the dispatch itself.
    pub hook: Option<(EventName, HookSummary)>,
    pub kind: ProblemKind,
    /// Why this failure blocked the event instead of letting it go on (`onFailure: "block"`, or
    /// the user's-own-hook rule), if it did.
    pub blocks: Option<&'static str>,
}

/// What happened.
#[derive(Debug, Clone, PartialEq)]
pub enum ProblemKind {
    /// A problem of the dispatch itself, not of one hook.
    Dispatch(String),
    /// A non-zero exit (not 2) without a JSON answer: a non-blocking error.
    Exited {
        code: i32,
        first_line: String,
    },
    Signaled(i32),
    TimedOut(Duration),
    SpawnFailed(SpawnFailure),
    /// The hook cannot run here (its kind on this event, the http policy).
    NotRun(hookbridge_core::decision::NotRunReason),
    /// Stopped on purpose (another hook decided the event, or the host cancelled the run).
    Cancelled(hookbridge_core::decision::CancelReason),
    /// An http hook's endpoint answered with this non-2xx status.
    HttpStatus(u16),
    /// A model or endpoint failure of an in-process hook.
    Failed(HookFailure),
    /// A background process kept the hook's output open after it exited.
    Leaked,
    /// More output than the cap; the rest was drained and dropped.
    Truncated,
    /// Passed over by the selection (duplicate, invalid matcher, disabled, …).
    Skipped(String),
    /// Could have run in a warm Python service but was spawned (the answer is the same): why.
    NotWarm(String),
    /// Ran without the sandbox it was to have: this machine cannot enforce it (why), and
    /// `sandboxUnavailable: runUnsandboxed` lets such a hook run. Shown to the user: a downgrade
    /// is never silent.
    Unsandboxed(String),
}

impl Problem {
    /// Whether the user of an interactive host should see it: every failure, but not a hook
    /// stopped on purpose nor one the selection passed over (`list`/`validate` show those).
    pub fn for_the_user(&self) -> bool {
        !matches!(
            self.kind,
            ProblemKind::Cancelled(_) | ProblemKind::Skipped(_) | ProblemKind::NotWarm(_)
        )
    }

    /// The hook gave no answer and the operation goes on without it.
    pub fn fails_open(&self) -> bool {
        matches!(
            self.kind,
            ProblemKind::Exited { .. }
                | ProblemKind::Signaled(_)
                | ProblemKind::TimedOut(_)
                | ProblemKind::SpawnFailed(_)
                | ProblemKind::HttpStatus(_)
                | ProblemKind::Failed(_)
        )
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((event, hook)) = &self.hook {
            let kind = match hook.hook_type {
                HookType::Command => String::new(),
                other => format!("{other} "),
            };
            write!(
                f,
                "{event} {kind}hook `{}` ({}:{}:{}) ",
                hook.label,
                hook.source.display(),
                hook.line,
                hook.column
            )?;
        }
        match &self.kind {
            ProblemKind::Dispatch(text) => f.write_str(text)?,
            ProblemKind::Exited { code, first_line } if first_line.is_empty() => {
                write!(f, "exited with code {code}")?
            }
            ProblemKind::Exited { code, first_line } => write!(f, "exited with code {code}: {first_line}")?,
            ProblemKind::Signaled(signal) => write!(f, "was killed by signal {signal}")?,
            ProblemKind::TimedOut(after) => write!(
                f,
                "timed out after {} s; its process tree was killed and it gave no answer",
                short_seconds(after.as_secs_f64())
            )?,
            ProblemKind::SpawnFailed(why) => write!(f, "could not start: {why}")?,
            ProblemKind::NotRun(why) => write!(f, "was not run: {why}")?,
            ProblemKind::Cancelled(why) => f.write_str(why.as_str())?,
            ProblemKind::HttpStatus(status) => write!(f, "answered HTTP {status}")?,
            ProblemKind::Failed(why) => write!(f, "failed: {why}")?,
            ProblemKind::Leaked => f.write_str(
                "left a background process holding its output open; its answer was taken when it exited",
            )?,
            ProblemKind::Truncated => {
                f.write_str("printed more than the output cap; the rest was drained and dropped")?
            }
            ProblemKind::Skipped(why) => write!(f, "skipped: {why}")?,
            ProblemKind::NotWarm(why) => write!(f, "ran spawned, not warm: {why}")?,
            ProblemKind::Unsandboxed(why) => write!(
                f,
                "ran WITHOUT its sandbox: {why}; `sandboxUnavailable: runUnsandboxed` lets it (say \"refuse\" to hold such hooks instead)"
            )?,
        }
        match self.blocks {
            Some(because) if self.fails_open() => write!(f, "; {because}")?,
            None if self.fails_open() => f.write_str("; the operation continues")?,
            _ => {}
        }
        Ok(())
    }
}

/// Every problem of `report`, in order: the dispatch's own, then each hook's, then the skipped.
pub fn problems(report: &EventReport) -> Vec<Problem> {
    let mut out: Vec<Problem> = report
        .warnings
        .iter()
        .map(|w| Problem {
            hook: None,
            kind: ProblemKind::Dispatch(w.clone()),
            blocks: None,
        })
        .collect();
    let exit2_blocks = report.event.traits().exit2_blocks;
    let mut push = |hook: &HookSummary, kind: ProblemKind, blocks: Option<&'static str>| {
        out.push(Problem {
            hook: Some((report.event.clone(), hook.clone())),
            kind,
            blocks,
        })
    };
    for h in &report.hooks {
        let stderr = String::from_utf8_lossy(&h.execution.stderr);
        let first_line = stderr
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("")
            .to_string();
        let kind = match &h.execution.status {
            RunStatus::Exited(0) | RunStatus::Exited(2) | RunStatus::Detached => None,
            // A JSON answer decides whatever the exit code (Claude Code reads it on every code).
            RunStatus::Exited(_) if matches!(h.answer, HookAnswer::Output(_)) => None,
            RunStatus::Exited(code) => Some(ProblemKind::Exited {
                code: *code,
                first_line,
            }),
            RunStatus::Signaled(signal) => Some(ProblemKind::Signaled(*signal)),
            RunStatus::TimedOut => Some(ProblemKind::TimedOut(h.timeout)),
            RunStatus::SpawnFailed(why) => Some(ProblemKind::SpawnFailed(why.clone())),
            RunStatus::NotRun(why) => Some(ProblemKind::NotRun(why.clone())),
            RunStatus::Cancelled(why) => Some(ProblemKind::Cancelled(*why)),
            RunStatus::Responded(200..=299) | RunStatus::Judged(_) | RunStatus::Answered => None,
            RunStatus::Responded(status) => Some(ProblemKind::HttpStatus(*status)),
            RunStatus::Failed(why) => Some(ProblemKind::Failed(why.clone())),
        };
        // An answer that could not be used (a seed-dialect hook's unreadable `action`).
        let kind = kind.or_else(|| match &h.answer {
            HookAnswer::Failed(failure) => Some(ProblemKind::Failed(failure.clone())),
            _ => None,
        });
        if let Some(kind) = kind {
            let blocks = h
                .answered()
                .failure_blocks()
                .filter(|_| exit2_blocks && h.answer.is_failure());
            push(&h.hook, kind, blocks);
        }
        if h.execution.leaked {
            push(&h.hook, ProblemKind::Leaked, None);
        }
        if h.execution.stdout_truncated || h.execution.stderr_truncated {
            push(&h.hook, ProblemKind::Truncated, None);
        }
        if let WarmRun::FellBack(why) = &h.execution.warm {
            push(&h.hook, ProblemKind::NotWarm(why.clone()), None);
        }
        if let Some(why) = &h.execution.unsandboxed {
            push(&h.hook, ProblemKind::Unsandboxed(why.clone()), None);
        }
    }
    for (hook, reason) in &report.skipped {
        push(hook, ProblemKind::Skipped(reason.to_string()), None);
    }
    out
}

/// `30` for whole seconds, `1.5` otherwise.
fn short_seconds(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn summary(hook_type: HookType, label: &str) -> HookSummary {
        HookSummary {
            id: hookbridge_core::config::HookId {
                source: 0,
                group: 0,
                index: 0,
            },
            hook_type,
            label: label.into(),
            source: PathBuf::from("/p/.amplifier/hooks/hooks.json"),
            key: "hooks.PreToolUse[0].hooks[0]".into(),
            line: 3,
            column: 7,
            plugin: None,
        }
    }

    #[test]
    fn one_wording_names_the_event_hook_and_place_and_says_what_fails_open() {
        let timed_out = Problem {
            hook: Some((EventName::PreToolUse, summary(HookType::Command, "sleep 30"))),
            kind: ProblemKind::TimedOut(Duration::from_secs(1)),
            blocks: None,
        };
        assert_eq!(
            timed_out.to_string(),
            "PreToolUse hook `sleep 30` (/p/.amplifier/hooks/hooks.json:3:7) timed out after 1 s; its process tree was killed and it gave no answer; the operation continues"
        );
        assert!(timed_out.for_the_user());
        // With `onFailure: "block"` the line says the event was blocked, not that it went on.
        let blocked = Problem {
            blocks: Some("blocking because onFailure is \"block\""),
            ..timed_out
        };
        assert_eq!(
            blocked.to_string(),
            "PreToolUse hook `sleep 30` (/p/.amplifier/hooks/hooks.json:3:7) timed out after 1 s; its process tree was killed and it gave no answer; blocking because onFailure is \"block\""
        );
        let skipped = Problem {
            hook: Some((EventName::Stop, summary(HookType::Prompt, "ok?"))),
            kind: ProblemKind::Skipped("disabled".into()),
            blocks: None,
        };
        assert_eq!(
            skipped.to_string(),
            "Stop prompt hook `ok?` (/p/.amplifier/hooks/hooks.json:3:7) skipped: disabled"
        );
        assert!(!skipped.for_the_user() && !skipped.fails_open());
        assert_eq!(short_seconds(1.5), "1.5");
    }
}
