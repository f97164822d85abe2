//! Which Claude Code events an Amplifier event fires, and back.
//!
//! The one design decision: **a route is chosen from the event *and its data*, so an Amplifier
//! event may fire zero, one or two Claude Code events.** Amplifier's events are coarser than
//! Claude Code's in some places (one `tool:post` for success and failure, for plain tools and
//! sub-agents) and finer in others (`session:start`/`resume`/`fork` for one SessionStart), so a
//! static name table cannot be faithful: `tool:post` of a failed call is a PostToolUseFailure, of
//! a finished `delegate` call a PostToolUse *and* a SubagentStop. The data-free direction
//! ([`amplifier_event_for`], [`amplifier_events_for`]) tells a host which Amplifier events to
//! subscribe to for the Claude Code events its hooks configure.
//!
//! # Routes
//!
//! | Amplifier event | Claude Code event | when |
//! |---|---|---|
//! | `tool:pre` | PreToolUse | always |
//! | `tool:post` | PostToolUse | the result is not a failure |
//! | `tool:post` | PostToolUseFailure | the result is a failure (`success: false`, `"Failed"`, `"Error: …"`, or a non-zero `returncode` without a success flag — see [`super::tools::parse_tool_result`]) |
//! | `tool:post` | SubagentStop (after PostToolUse) | the tool is a sub-agent tool (`task`, `delegate`) and succeeded |
//! | `tool:error` | PostToolUseFailure | the payload names the tool (`tool_name`) |
//! | `prompt:submit` | UserPromptSubmit | always |
//! | `session:start` | SessionStart, source `startup` | the session has no `parent_id` |
//! | `session:resume` | SessionStart, source `resume` | the session has no `parent_id` |
//! | `session:fork` | SessionStart, source `fork` | always |
//! | `session:end` | SessionEnd | always |
//! | `orchestrator:complete` | Stop | `status` is not `cancelled` |
//! | `provider:error` | StopFailure | always |
//! | `context:pre_compact` | PreCompact | always |
//! | `context:post_compact` | PostCompact | always |
//! | `user:notification` | Notification | always |
//! | `approval:required` | PermissionRequest | always |
//! | `content_block:end` | MessageDisplay | the block is a text block |
//! | `delegate:agent_spawned`, `task:agent_spawned` (module events) | SubagentStart | always |
//!
//! Why the conditions:
//! - **SubagentStop on `tool:post`** of the agent tool (the seed's "task:post"), not on the
//!   tools' own `*:agent_completed` events: every orchestrator emits `tool:post` for both agent
//!   tools, it carries the sub-agent's final answer (`last_assistant_message`), and its result is
//!   processed (feedback can reach the parent model). A failed delegation is only a
//!   PostToolUseFailure: the sub-agent did not finish.
//! - **`tool:error` needs `tool_name`.** The orchestrators emit it with `tool_name` when the tool
//!   does not exist (both) or raised (loop-basic; loop-streaming turns that into a failed result
//!   for `tool:post`); no `tool:post` follows. tool-task also emits a `tool:error` of its
//!   own (`{tool, agent, error}`) and then returns a failed result, which reaches `tool:post`;
//!   mapping both would report one failure twice.
//! - **`parent_id`.** The kernel emits `session:fork` exactly when a session has a parent (a
//!   delegated sub-session or a forked conversation), during `initialize()`, before the first
//!   `execute()` emits `session:start`/`session:resume`. That session already had its SessionStart
//!   (source `fork`); a second one would inject the same context twice.
//! - **Stop** comes from `orchestrator:complete` (spec table), which loop-basic emits right after
//!   `prompt:complete`; a `cancelled` run is a user interrupt, on which Claude Code fires no Stop.
//! - **No SessionStart `compact` after `context:post_compact`.** Claude Code re-runs SessionStart
//!   hooks after compaction because its compaction rewrites history. Amplifier's context managers
//!   compact a per-request *view*, keep system messages (where SessionStart context lives) and may
//!   do so on every request: re-running SessionStart would duplicate that context each time.
//! - **StopFailure on `provider:error`**: loop-basic emits it when a provider call fails and then
//!   re-raises, so the turn ends with that error (retries are `provider:retry`).
//! - **MessageDisplay once per finished text block**, as Claude Code fires it in `-p`/SDK mode;
//!   `content_block:delta` would start a process per streamed chunk.
//!
//! # Amplifier events without a Claude Code counterpart
//!
//! Every other event of amplifier-core 2.0.2's `ALL_EVENTS` is listed with its reason in
//! [`UNMAPPED`] (a test checks that the two lists cover `ALL_EVENTS` exactly).

use serde_json::Value;

use super::registry::kernel_events::*;
use super::tools;
use hookbridge_core::event::EventName;

/// Module events (not in `ALL_EVENTS`) emitted by the sub-agent tools when a sub-session starts.
pub const DELEGATE_AGENT_SPAWNED: &str = "delegate:agent_spawned";
/// tool-task's spelling of [`DELEGATE_AGENT_SPAWNED`].
pub const TASK_AGENT_SPAWNED: &str = "task:agent_spawned";

/// One Amplifier → Claude Code route; `when` says in words when it applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    pub amplifier: &'static str,
    pub claude: EventName,
    pub when: &'static str,
}

const fn route(amplifier: &'static str, claude: EventName, when: &'static str) -> Route {
    Route {
        amplifier,
        claude,
        when,
    }
}

/// Every route, in the order of the module table. For each Claude Code event the first route
/// naming it is its primary Amplifier source ([`amplifier_event_for`]).
pub const ROUTES: &[Route] = &[
    route(TOOL_PRE, EventName::PreToolUse, "always"),
    route(TOOL_POST, EventName::PostToolUse, "the result is not a failure"),
    route(
        TOOL_POST,
        EventName::PostToolUseFailure,
        "the result is a failure",
    ),
    route(
        TOOL_POST,
        EventName::SubagentStop,
        "a sub-agent tool (task, delegate) succeeded",
    ),
    route(
        TOOL_ERROR,
        EventName::PostToolUseFailure,
        "the payload names the tool",
    ),
    route(PROMPT_SUBMIT, EventName::UserPromptSubmit, "always"),
    route(
        SESSION_START,
        EventName::SessionStart,
        "source startup; the session has no parent_id",
    ),
    route(
        SESSION_RESUME,
        EventName::SessionStart,
        "source resume; the session has no parent_id",
    ),
    route(SESSION_FORK, EventName::SessionStart, "source fork"),
    route(SESSION_END, EventName::SessionEnd, "always"),
    route(ORCHESTRATOR_COMPLETE, EventName::Stop, "status is not cancelled"),
    route(PROVIDER_ERROR, EventName::StopFailure, "always"),
    route(CONTEXT_PRE_COMPACT, EventName::PreCompact, "always"),
    route(CONTEXT_POST_COMPACT, EventName::PostCompact, "always"),
    route(USER_NOTIFICATION, EventName::Notification, "always"),
    route(APPROVAL_REQUIRED, EventName::PermissionRequest, "always"),
    route(
        CONTENT_BLOCK_END,
        EventName::MessageDisplay,
        "the block is a text block",
    ),
    route(DELEGATE_AGENT_SPAWNED, EventName::SubagentStart, "always"),
    route(TASK_AGENT_SPAWNED, EventName::SubagentStart, "always"),
];

/// The events of `ALL_EVENTS` that fire no Claude Code event, each with the reason.
pub const UNMAPPED: &[(&str, &str)] = &[
    (
        PROMPT_COMPLETE,
        "emitted right before orchestrator:complete at the end of the same turn; Stop is taken \
         from orchestrator:complete, so mapping both would run Stop hooks twice",
    ),
    (
        PLAN_START,
        "Claude Code has no planning-phase hook (plan mode is a permission mode)",
    ),
    (
        PLAN_END,
        "Claude Code has no planning-phase hook (plan mode is a permission mode)",
    ),
    (PROVIDER_REQUEST, "Claude Code offers no hook around model calls"),
    (PROVIDER_RESPONSE, "Claude Code offers no hook around model calls"),
    (
        PROVIDER_RETRY,
        "a transient failure that is retried; Claude Code reports only the failure that ends a \
         turn (StopFailure, from provider:error)",
    ),
    (
        PROVIDER_THROTTLE,
        "rate limiting that is waited out; no Claude Code hook fires for it",
    ),
    (
        PROVIDER_TOOL_SEQUENCE_REPAIRED,
        "an internal transcript repair with no Claude Code counterpart",
    ),
    (
        PROVIDER_RESOLVE,
        "provider selection, not a user-requested model switch (PreModelSwitch/PostModelSwitch \
         are about /model)",
    ),
    (LLM_REQUEST, "Claude Code offers no hook around model calls"),
    (LLM_RESPONSE, "Claude Code offers no hook around model calls"),
    (
        CONTENT_BLOCK_START,
        "MessageDisplay is fired once per finished text block (content_block:end)",
    ),
    (
        CONTENT_BLOCK_DELTA,
        "MessageDisplay is fired once per finished text block; a process per streamed chunk would \
         be far too costly",
    ),
    (THINKING_DELTA, "Claude Code never passes model thinking to hooks"),
    (THINKING_FINAL, "Claude Code never passes model thinking to hooks"),
    (
        CONTEXT_COMPACTION,
        "statistics of the same compaction that PreCompact and PostCompact already report",
    ),
    (
        CONTEXT_INCLUDE,
        "no emitter in the kernel or foundation; its nearest relative, InstructionsLoaded, needs \
         memory_type/load_reason facts Amplifier does not have",
    ),
    (
        EXECUTION_START,
        "an orchestrator boundary inside the turn UserPromptSubmit and Stop already bracket",
    ),
    (
        EXECUTION_END,
        "an orchestrator boundary inside the turn UserPromptSubmit and Stop already bracket",
    ),
    (
        ARTIFACT_WRITE,
        "the agent's own write, already seen as PostToolUse of Write/Edit; FileChanged is for \
         external changes to watched files",
    ),
    (
        ARTIFACT_READ,
        "the agent's own read, already seen as PostToolUse of Read",
    ),
    (
        POLICY_VIOLATION,
        "no Claude Code counterpart (PermissionDenied is the auto-mode classifier denying a tool call)",
    ),
    (
        APPROVAL_GRANTED,
        "an outcome of the approval flow; Claude Code has no 'permission granted' event",
    ),
    (
        APPROVAL_DENIED,
        "covers user, rule and timeout denials; Claude Code's PermissionDenied fires only for the \
         auto-mode classifier, so its hooks would run on the wrong occasions",
    ),
    (
        CANCEL_REQUESTED,
        "a user interrupt; Claude Code fires no hook on interrupts (not even Stop)",
    ),
    (
        CANCEL_COMPLETED,
        "a user interrupt; Claude Code fires no hook on interrupts (not even Stop)",
    ),
    (
        MODULE_ON_SESSION_READY_FAILED,
        "a host module failure; StopFailure is about API errors that end a turn",
    ),
    (
        MODULE_LOAD_FAILED,
        "a host module failure; StopFailure is about API errors that end a turn",
    ),
];

/// The Claude Code events `amplifier_event` fires, in firing order, given its data (see the
/// module table). Empty for unmapped events and when a route's condition does not hold.
pub fn claude_events_for(amplifier_event: &str, data: &Value) -> Vec<EventName> {
    let str_field = |k: &str| data.get(k).and_then(Value::as_str);
    let has_parent = str_field("parent_id").is_some_and(|p| !p.is_empty());
    match amplifier_event {
        TOOL_PRE => vec![EventName::PreToolUse],
        TOOL_POST => {
            let outcome = tools::parse_tool_result(data.get("result").unwrap_or(&Value::Null));
            if outcome.failed() {
                vec![EventName::PostToolUseFailure]
            } else if str_field("tool_name").is_some_and(tools::is_agent_tool) {
                vec![EventName::PostToolUse, EventName::SubagentStop]
            } else {
                vec![EventName::PostToolUse]
            }
        }
        TOOL_ERROR if str_field("tool_name").is_some() => vec![EventName::PostToolUseFailure],
        PROMPT_SUBMIT => vec![EventName::UserPromptSubmit],
        SESSION_START | SESSION_RESUME if has_parent => Vec::new(),
        SESSION_START | SESSION_RESUME | SESSION_FORK => vec![EventName::SessionStart],
        SESSION_END => vec![EventName::SessionEnd],
        ORCHESTRATOR_COMPLETE if str_field("status") == Some("cancelled") => Vec::new(),
        ORCHESTRATOR_COMPLETE => vec![EventName::Stop],
        PROVIDER_ERROR => vec![EventName::StopFailure],
        CONTEXT_PRE_COMPACT => vec![EventName::PreCompact],
        CONTEXT_POST_COMPACT => vec![EventName::PostCompact],
        USER_NOTIFICATION => vec![EventName::Notification],
        APPROVAL_REQUIRED => vec![EventName::PermissionRequest],
        CONTENT_BLOCK_END => {
            let block_type = data
                .get("block")
                .and_then(|b| b.get("type"))
                .and_then(Value::as_str);
            if block_type == Some("text") {
                vec![EventName::MessageDisplay]
            } else {
                Vec::new()
            }
        }
        DELEGATE_AGENT_SPAWNED | TASK_AGENT_SPAWNED => vec![EventName::SubagentStart],
        _ => Vec::new(),
    }
}

/// The SessionStart `source` an Amplifier session event stands for.
pub fn session_start_source(amplifier_event: &str) -> Option<&'static str> {
    match amplifier_event {
        SESSION_START => Some("startup"),
        SESSION_RESUME => Some("resume"),
        SESSION_FORK => Some("fork"),
        _ => None,
    }
}

/// The primary Amplifier event a Claude Code event comes from (`SessionStart` →
/// `session:start`, `SubagentStop` → `tool:post`, …); `None` for Claude Code events Amplifier
/// never fires (Setup, TaskCreated, CwdChanged, …).
pub fn amplifier_event_for(event: &EventName) -> Option<&'static str> {
    ROUTES.iter().find(|r| &r.claude == event).map(|r| r.amplifier)
}

/// Every Amplifier event a Claude Code event can come from, in table order: the events a host
/// subscribes to for hooks configured on `event`.
pub fn amplifier_events_for(event: &EventName) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for r in ROUTES.iter().filter(|r| &r.claude == event) {
        if !out.contains(&r.amplifier) {
            out.push(r.amplifier);
        }
    }
    out
}

/// The Amplifier events to subscribe to so that every Claude Code event in `events` can fire,
/// without duplicates, in table order.
pub fn subscriptions<'a>(events: impl IntoIterator<Item = &'a EventName>) -> Vec<&'static str> {
    let wanted: Vec<&EventName> = events.into_iter().collect();
    let mut out: Vec<&'static str> = Vec::new();
    for r in ROUTES.iter().filter(|r| wanted.contains(&&r.claude)) {
        if !out.contains(&r.amplifier) {
            out.push(r.amplifier);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Data that satisfies each route's condition (field names from spec §1.9 and the modules).
    fn sample(r: &Route) -> Value {
        match (r.amplifier, &r.claude) {
            (TOOL_POST, EventName::PostToolUseFailure) => {
                json!({"tool_name": "bash", "tool_input": {"command": "false"}, "result": "Failed"})
            }
            (TOOL_POST, EventName::SubagentStop) => json!({"tool_name": "delegate", "tool_input": {},
                "result": {"success": true, "output": {"response": "ok", "session_id": "c"}}}),
            (TOOL_POST, _) => json!({"tool_name": "bash", "tool_input": {"command": "ls"},
                "result": "{'stdout': '', 'stderr': '', 'returncode': 0}"}),
            (TOOL_ERROR, _) => json!({"tool_name": "nope", "error": {"type": "RuntimeError", "msg": "x"}}),
            (ORCHESTRATOR_COMPLETE, _) => {
                json!({"orchestrator": "loop-basic", "turn_count": 1, "status": "success"})
            }
            (CONTENT_BLOCK_END, _) => json!({"block_index": 0, "block": {"type": "text", "text": "hi"}}),
            (SESSION_START | SESSION_RESUME, _) => json!({"session_id": "s", "parent_id": null}),
            _ => json!({}),
        }
    }

    #[test]
    fn every_route_fires_its_claude_event() {
        for r in ROUTES {
            assert!(
                claude_events_for(r.amplifier, &sample(r)).contains(&r.claude),
                "{} should fire {}",
                r.amplifier,
                r.claude
            );
        }
    }

    /// Mapping round trip: Claude → primary Amplifier event → back fires the Claude event.
    #[test]
    fn round_trip_through_the_primary_source() {
        let mut mapped = 0;
        for event in EventName::KNOWN {
            let Some(amp) = amplifier_event_for(event) else {
                continue;
            };
            mapped += 1;
            let r = ROUTES
                .iter()
                .find(|r| r.amplifier == amp && &r.claude == event)
                .unwrap();
            assert!(
                claude_events_for(amp, &sample(r)).contains(event),
                "{event} → {amp} → back"
            );
            assert!(amplifier_events_for(event).contains(&amp));
        }
        assert_eq!(mapped, 15, "Claude Code events Amplifier can fire");
        assert_eq!(amplifier_event_for(&EventName::Setup), None);
        assert_eq!(amplifier_event_for(&EventName::Unknown("Future".into())), None);
    }

    #[test]
    fn every_kernel_event_is_mapped_or_explained() {
        assert_eq!(ALL_EVENTS.len(), 43);
        for event in ALL_EVENTS {
            let routed = ROUTES.iter().any(|r| r.amplifier == event);
            let explained = UNMAPPED.iter().any(|(e, _)| *e == event);
            assert!(
                routed ^ explained,
                "{event}: routed={routed} explained={explained}"
            );
        }
        assert_eq!(UNMAPPED.len() + 15, 43, "15 kernel events are routed");
        for (event, why) in UNMAPPED {
            assert!(ALL_EVENTS.contains(event) && !why.is_empty());
            assert!(claude_events_for(event, &json!({})).is_empty(), "{event}");
        }
    }

    #[test]
    fn tool_post_fans_out_by_result_and_tool() {
        let post = |tool: &str, result: Value| {
            claude_events_for(
                TOOL_POST,
                &json!({"tool_name": tool, "tool_input": {}, "result": result}),
            )
        };
        let ok = json!("{'stdout': 'x', 'stderr': '', 'returncode': 0}");
        assert_eq!(post("bash", ok.clone()), vec![EventName::PostToolUse]);
        assert_eq!(post("bash", json!("Failed")), vec![EventName::PostToolUseFailure]);
        assert_eq!(
            post("write_file", json!("Error: Access denied")),
            vec![EventName::PostToolUseFailure]
        );
        assert_eq!(
            post("task", json!({"success": true, "output": {"response": "r"}})),
            vec![EventName::PostToolUse, EventName::SubagentStop]
        );
        assert_eq!(
            post(
                "delegate",
                json!({"success": false, "error": {"message": "timeout"}})
            ),
            vec![EventName::PostToolUseFailure]
        );
        assert_eq!(post("mcp_x", Value::Null), vec![EventName::PostToolUse]);
    }

    #[test]
    fn conditions_filter_routes() {
        assert!(claude_events_for(TOOL_ERROR, &json!({"tool": "task", "error": "boom"})).is_empty());
        assert!(claude_events_for(SESSION_START, &json!({"session_id": "c", "parent_id": "p"})).is_empty());
        assert!(claude_events_for(SESSION_RESUME, &json!({"parent_id": "p"})).is_empty());
        assert_eq!(
            claude_events_for(SESSION_FORK, &json!({"parent": "p"})),
            vec![EventName::SessionStart]
        );
        assert!(claude_events_for(ORCHESTRATOR_COMPLETE, &json!({"status": "cancelled"})).is_empty());
        assert_eq!(
            claude_events_for(ORCHESTRATOR_COMPLETE, &json!({"status": "incomplete"})),
            vec![EventName::Stop]
        );
        assert!(claude_events_for(CONTENT_BLOCK_END, &json!({"block": {"type": "thinking"}})).is_empty());
        assert!(claude_events_for("session:config", &json!({})).is_empty());
        assert!(claude_events_for("skill:loaded", &json!({})).is_empty());
        assert_eq!(session_start_source(SESSION_FORK), Some("fork"));
        assert_eq!(session_start_source(TOOL_PRE), None);
    }

    #[test]
    fn subscriptions_cover_configured_events() {
        let subs = subscriptions(&[
            EventName::SessionStart,
            EventName::PostToolUseFailure,
            EventName::SubagentStop,
        ]);
        assert_eq!(
            subs,
            vec![TOOL_POST, TOOL_ERROR, SESSION_START, SESSION_RESUME, SESSION_FORK]
        );
        assert_eq!(
            amplifier_events_for(&EventName::SubagentStart),
            vec![DELEGATE_AGENT_SPAWNED, TASK_AGENT_SPAWNED]
        );
        assert!(subscriptions(&[EventName::TaskCreated]).is_empty());
    }
}
