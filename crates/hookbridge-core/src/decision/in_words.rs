//! One event's merged decision in words: what the agent will do, and what the model and the user
//! are shown — for people (`hookbridge test`) and, as one [`Outcome`] word, for records (the
//! audit log).
//!
//! The answer `hookbridge run` gives is an exit code and two streams; "exit 2 / stderr: no rm"
//! means different things on different events (a tool call refused, a prompt erased, a stop
//! cancelled). The per-event meanings are Claude Code's (spec §2.1, §2.4); this is their one
//! definition in words.

use crate::event::{ContinueFalse, EventName};

use super::answer::PermissionDecision;
use super::merge::EventDecision;

/// What one event's hooks decided, in one word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A block: the action the event stands for does not happen (or, after the fact, is objected to).
    Blocked,
    /// A permission decision `deny`.
    Denied,
    /// A permission decision `ask`: the user decides.
    Asked,
    /// A permission decision `defer`.
    Deferred,
    /// A permission decision `allow`.
    Allowed,
    /// `continue: false`: the agent stops.
    Stopped,
    /// Nothing that changes what happens (context, messages and problems aside).
    Continued,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Blocked => "blocked",
            Outcome::Denied => "denied",
            Outcome::Asked => "asked",
            Outcome::Deferred => "deferred",
            Outcome::Allowed => "allowed",
            Outcome::Stopped => "stopped",
            Outcome::Continued => "continued",
        }
    }

    /// Whether the hooks kept something from happening.
    pub fn is_block(self) -> bool {
        matches!(self, Outcome::Blocked | Outcome::Denied)
    }
}

/// The outcome of `decision` on `event`.
pub fn outcome(event: &EventName, decision: &EventDecision) -> Outcome {
    let traits = event.traits();
    if decision.blocking.is_some() {
        return if traits.decides_permission {
            Outcome::Denied
        } else {
            Outcome::Blocked
        };
    }
    if decision.stop.is_some() && traits.continue_false != ContinueFalse::Ignored {
        return Outcome::Stopped;
    }
    if let Some(p) = decision.permission {
        return match p {
            PermissionDecision::Deny => Outcome::Denied,
            PermissionDecision::Ask => Outcome::Asked,
            PermissionDecision::Defer => Outcome::Deferred,
            PermissionDecision::Allow => Outcome::Allowed,
        };
    }
    if let Some(request) = &decision.permission_request {
        return if request.allow {
            Outcome::Allowed
        } else {
            Outcome::Denied
        };
    }
    Outcome::Continued
}

/// The decision said for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InWords {
    pub outcome: Outcome,
    /// What the agent does next.
    pub agent: String,
    /// What the model reads, if anything.
    pub model: Option<String>,
    /// What the user is shown, if anything.
    pub user: Option<String>,
}

/// Who reads a block's reason on an event (spec §2.1, "where stderr goes per event").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reader {
    Model,
    User,
    Nobody,
}

/// What a block does on `event`, and who reads its reason.
fn block_effect(event: &EventName, tool: &str) -> (String, Reader) {
    use EventName::*;
    let (text, reader) = match event {
        PreToolUse => (
            format!("the tool call{tool} is blocked: it does not run"),
            Reader::Model,
        ),
        PreSkillShellCommand => (
            "the skill's shell command is blocked: it does not run".to_string(),
            Reader::Model,
        ),
        PreModelSwitch => ("the model switch is refused".to_string(), Reader::User),
        PostToolUse | PostToolUseFailure | PostToolBatch => (
            format!(
                "the tool{tool} has already run; the objection goes to the model, which goes on from there"
            ),
            Reader::Model,
        ),
        UserPromptSubmit | UserPromptExpansion => (
            "the prompt is refused: it is not sent to the model and is erased".to_string(),
            Reader::User,
        ),
        Stop => (
            "the agent does not stop: it keeps working, with the reason as its next instruction".to_string(),
            Reader::Model,
        ),
        SubagentStop => (
            "the subagent does not stop: it keeps working, with the reason as its next instruction"
                .to_string(),
            Reader::Model,
        ),
        TeammateIdle => (
            "the teammate does not go idle: it keeps working, with the reason as feedback".to_string(),
            Reader::Model,
        ),
        TaskCompleted => (
            "the task is not marked completed: the agent keeps working on it".to_string(),
            Reader::Model,
        ),
        TaskCreated => (
            "the task is not created: the reason comes back as the tool's error".to_string(),
            Reader::Model,
        ),
        ConfigChange => (
            "the configuration change does not take effect".to_string(),
            Reader::Nobody,
        ),
        PreCompact => ("the compaction does not happen".to_string(), Reader::User),
        Elicitation | ElicitationResult => ("the elicitation is declined".to_string(), Reader::Nobody),
        WorktreeCreate => ("the worktree is not created".to_string(), Reader::User),
        PermissionRequest => (
            format!("the permission request is denied: the tool call{tool} does not run"),
            Reader::Model,
        ),
        other => (
            format!("the event is blocked (what a block does on `{other}` is the host's to decide)"),
            Reader::User,
        ),
    };
    (text, reader)
}

/// `decision` on `event` in words. `match_query` is the event's match value (the tool name on
/// tool events).
pub fn in_words(event: &EventName, match_query: Option<&str>, decision: &EventDecision) -> InWords {
    let outcome = outcome(event, decision);
    let tool = match match_query.filter(|q| !q.is_empty() && event.traits().is_tool_event) {
        Some(q) => format!(" `{q}`"),
        None => String::new(),
    };
    let mut model = None;
    let mut user = None;
    let agent = match outcome {
        Outcome::Blocked | Outcome::Denied if decision.blocking.is_some() => {
            let (text, reader) = block_effect(event, &tool);
            let reason = decision
                .blocking
                .as_ref()
                .map(|b| b.message().trim().to_string())
                .filter(|r| !r.is_empty());
            match (reader, reason) {
                (Reader::Model, Some(r)) => model = Some(r),
                (Reader::User, Some(r)) => user = Some(r),
                _ => {}
            }
            text
        }
        Outcome::Denied => block_effect(event, &tool).0,
        Outcome::Asked => format!("the user is asked whether the tool call{tool} may run"),
        Outcome::Deferred => format!(
            "the tool call{tool} is deferred: a headless run (`-p`) stops and can be resumed; an interactive one ignores the deferral"
        ),
        Outcome::Allowed if *event == EventName::PermissionRequest => {
            format!("the permission request is granted: the tool call{tool} runs")
        }
        Outcome::Allowed => format!(
            "the tool call{tool} runs without asking the user (deny and ask permission rules still apply)"
        ),
        Outcome::Stopped => match event.traits().continue_false {
            ContinueFalse::EndsTheTurnAfterTheTool => {
                "the tool call goes ahead, and then the agent stops".to_string()
            }
            ContinueFalse::LetsItStop => "the agent stops".to_string(),
            _ => "the agent stops: what the event was about to do does not happen".to_string(),
        },
        Outcome::Blocked | Outcome::Continued => "the session goes on".to_string(),
    };
    if matches!(outcome, Outcome::Asked | Outcome::Allowed) {
        if let Some(r) = decision.permission_reason.as_ref().filter(|r| !r.is_empty()) {
            user = Some(r.clone());
        }
    }
    if let Some(reason) = decision.stop.as_ref().and_then(|s| s.reason.clone()) {
        if outcome == Outcome::Stopped {
            user = Some(reason);
        }
    }
    let contexts: Vec<&str> = decision
        .contexts
        .iter()
        .map(|c| c.text.trim())
        .filter(|t| !t.is_empty())
        .collect();
    if model.is_none() && !contexts.is_empty() && event.traits().reads_additional_context {
        model = Some(contexts.join("\n\n"));
    }
    if user.is_none() && !decision.system_messages.is_empty() {
        user = Some(decision.system_messages.join("\n"));
    }
    InWords {
        outcome,
        agent,
        model,
        user,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::merge::{Blocking, BlockingSource, Context, ContextKind, StopRequest};

    fn block(message: &str) -> EventDecision {
        let b = Blocking {
            source: BlockingSource::ExitCode {
                stderr: message.into(),
            },
            hook: 0,
            finish_order: 0,
        };
        EventDecision {
            blocking: Some(b.clone()),
            blocks: vec![b],
            ..EventDecision::default()
        }
    }

    #[test]
    fn a_block_says_what_it_stops_and_who_reads_why() {
        let w = in_words(&EventName::PreToolUse, Some("Bash"), &block("no rm\n"));
        assert_eq!(w.outcome, Outcome::Denied);
        assert_eq!(w.agent, "the tool call `Bash` is blocked: it does not run");
        assert_eq!(w.model.as_deref(), Some("no rm"));
        assert_eq!(w.user, None);

        let w = in_words(&EventName::UserPromptSubmit, None, &block("no secrets"));
        assert_eq!(w.outcome, Outcome::Blocked);
        assert!(w.agent.starts_with("the prompt is refused"), "{}", w.agent);
        assert_eq!((w.model, w.user.as_deref()), (None, Some("no secrets")));

        let w = in_words(&EventName::Stop, None, &block("tests fail"));
        assert!(w.agent.starts_with("the agent does not stop"), "{}", w.agent);
        assert_eq!(w.model.as_deref(), Some("tests fail"));
    }

    #[test]
    fn permissions_stops_and_nothing_are_named() {
        let ask = EventDecision {
            permission: Some(PermissionDecision::Ask),
            permission_reason: Some("sure?".into()),
            ..EventDecision::default()
        };
        let w = in_words(&EventName::PreToolUse, Some("Write"), &ask);
        assert_eq!(w.outcome, Outcome::Asked);
        assert_eq!(w.user.as_deref(), Some("sure?"));

        let stop = EventDecision {
            stop: Some(StopRequest::because("done for today")),
            ..EventDecision::default()
        };
        let w = in_words(&EventName::UserPromptSubmit, None, &stop);
        assert_eq!(w.outcome, Outcome::Stopped);
        assert_eq!(w.user.as_deref(), Some("done for today"));
        // SessionStart discards `continue: false` (case 47).
        assert_eq!(outcome(&EventName::SessionStart, &stop), Outcome::Continued);

        let context = EventDecision {
            contexts: vec![Context {
                kind: ContextKind::AdditionalContext,
                text: "lint: 2 warnings".into(),
                hook: 0,
                finish_order: 0,
            }],
            ..EventDecision::default()
        };
        let w = in_words(&EventName::PostToolUse, Some("Edit"), &context);
        assert_eq!(w.outcome, Outcome::Continued);
        assert_eq!(w.agent, "the session goes on");
        assert_eq!(w.model.as_deref(), Some("lint: 2 warnings"));
    }

    #[test]
    fn a_permission_request_answer_is_read() {
        let deny = EventDecision {
            permission_request: super::super::RequestDecision::from_raw(
                serde_json::json!({"behavior": "deny"})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
            ..EventDecision::default()
        };
        assert_eq!(outcome(&EventName::PermissionRequest, &deny), Outcome::Denied);
        let w = in_words(&EventName::PermissionRequest, Some("Bash"), &deny);
        assert!(w.agent.contains("denied"), "{}", w.agent);
    }
}
