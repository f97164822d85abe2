//! Rendering one merged decision as the answer of a single Claude Code hook.
//!
//! When `hookbridge run` is Claude Code's only hook, Claude Code must act exactly as if every
//! dispatched hook had answered it directly. One hook can give one exit code, one stdout and one
//! stderr, so the renderer picks the form Claude Code renders identically:
//! - a block from exit 2 is passed on as exit 2 with that hook's stderr (Claude Code then shows
//!   `[command]: stderr`, as for the original hook); a JSON block is passed on as JSON;
//! - several contexts become one text: Claude Code labels each hook's context
//!   (`PostToolUse:Bash hook additional context: …`) and joins them with a blank line, so the first
//!   context is emitted bare and each further one carries the label Claude Code would have put in
//!   front of it — the model reads the same text (conformance case 64);
//! - plain stdout stays plain when it comes first and nothing else needs JSON, so it keeps its
//!   `hook success:` label.

use serde_json::{json, Map, Value};

use crate::event::EventName;

use super::merge::{BlockingSource, ContextKind, EventDecision, PermissionDecision};

/// What `hookbridge run` prints and exits with.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ClaudeAnswer {
    pub exit_code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Claude Code's label for a hook's plain-stdout context: `SessionStart:startup hook success: `.
fn success_label(event: &EventName, match_query: Option<&str>) -> String {
    match match_query.filter(|q| !q.is_empty()) {
        Some(q) => format!("{event}:{q} hook success: "),
        None => format!("{event} hook success: "),
    }
}

/// Claude Code's label for `additionalContext`: `PostToolUse:Bash hook additional context: ` on tool
/// events, `SessionStart hook additional context: ` elsewhere.
fn context_label(event: &EventName, match_query: Option<&str>) -> String {
    match match_query.filter(|q| !q.is_empty() && event.traits().is_tool_event) {
        Some(tool) => format!("{event}:{tool} hook additional context: "),
        None => format!("{event} hook additional context: "),
    }
}

/// Render `decision` for Claude Code. `match_query` is the event's match value (tool name, session
/// source, …) that Claude Code puts in its labels.
pub fn render_claude(event: &EventName, match_query: Option<&str>, decision: &EventDecision) -> ClaudeAnswer {
    let traits = event.traits();
    if let Some(blocking) = &decision.blocking {
        if let BlockingSource::ExitCode { stderr } = &blocking.source {
            return ClaudeAnswer { exit_code: 2, stdout: String::new(), stderr: stderr.clone() };
        }
    }
    let mut out = Map::new();
    let mut specific = Map::new();
    let mut needs_json = false;

    if let Some(blocking) = &decision.blocking {
        let reason = blocking.message().to_string();
        match event {
            EventName::PreToolUse | EventName::PreModelSwitch => {
                specific.insert("permissionDecision".into(), json!("deny"));
                specific.insert("permissionDecisionReason".into(), json!(reason));
            }
            _ => {
                out.insert("decision".into(), json!("block"));
                out.insert("reason".into(), json!(reason));
            }
        }
        needs_json = true;
    } else if let Some(p) = decision.permission {
        if p != PermissionDecision::Deny {
            specific.insert("permissionDecision".into(), json!(p.as_str()));
            if let Some(r) = &decision.permission_reason {
                specific.insert("permissionDecisionReason".into(), json!(r));
            }
            needs_json = true;
        }
    }
    if let Some(req) = &decision.permission_request {
        specific.insert("decision".into(), req.clone());
        needs_json = true;
    }
    if let Some(u) = &decision.updated_input {
        specific.insert("updatedInput".into(), u.clone());
        needs_json = true;
    }
    for (k, v) in &decision.other_specific {
        specific.insert(k.clone(), v.clone());
        needs_json = true;
    }
    if let Some(reason) = &decision.stop {
        out.insert("continue".into(), json!(false));
        if let Some(r) = reason {
            out.insert("stopReason".into(), json!(r));
        }
        needs_json = true;
    }

    // Contexts: only those Claude Code would have shown for this event.
    let contexts: Vec<_> = decision
        .contexts
        .iter()
        .filter(|c| c.kind != ContextKind::ContextInjection)
        .filter(|c| c.kind != ContextKind::PlainStdout || traits.plain_stdout_is_context)
        .collect();
    let plain_first = contexts.first().is_some_and(|c| c.kind == ContextKind::PlainStdout);
    let joined = |first_bare: bool| -> String {
        let mut text = String::new();
        for (i, c) in contexts.iter().enumerate() {
            let piece = if contexts.len() > 1 { c.text.trim_end_matches(['\n', '\r']) } else { c.text.as_str() };
            if i > 0 {
                text.push_str("\n\n");
            }
            if i > 0 || !first_bare {
                text.push_str(&match c.kind {
                    ContextKind::PlainStdout => success_label(event, match_query),
                    _ => context_label(event, match_query),
                });
            }
            text.push_str(piece);
        }
        text
    };

    if !contexts.is_empty() && plain_first && !needs_json {
        // Plain text keeps the `hook success:` label of the first piece. systemMessage and
        // suppressOutput would need JSON; they are for the user only, and are reported instead.
        return ClaudeAnswer { exit_code: 0, stdout: joined(true), stderr: String::new() };
    }
    if !contexts.is_empty() {
        specific.insert("additionalContext".into(), json!(joined(true)));
        needs_json = true;
    }
    if !decision.system_messages.is_empty() {
        out.insert("systemMessage".into(), json!(decision.system_messages.join("\n")));
        needs_json = true;
    }
    if decision.suppress_output {
        out.insert("suppressOutput".into(), json!(true));
        needs_json = true;
    }
    if !specific.is_empty() {
        let mut with_name = Map::new();
        with_name.insert("hookEventName".into(), json!(event.as_str()));
        with_name.extend(specific);
        out.insert("hookSpecificOutput".into(), Value::Object(with_name));
    }
    if needs_json {
        return ClaudeAnswer {
            exit_code: 0,
            stdout: serde_json::to_string(&Value::Object(out)).expect("JSON map serializes"),
            stderr: String::new(),
        };
    }
    if let Some(notice) = decision.notices.last() {
        // Exit 2 where it is only a notice (SessionStart, SessionEnd, …): pass the notice on.
        return ClaudeAnswer { exit_code: 2, stdout: String::new(), stderr: notice.message.clone() };
    }
    if let Some(code) = decision.last_error_code {
        let stderr = decision.problems.last().map(|p| p.message.clone()).unwrap_or_default();
        return ClaudeAnswer { exit_code: if code == 2 || code == 0 { 1 } else { code }, stdout: String::new(), stderr };
    }
    ClaudeAnswer::default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::merge::{Blocking, Context};

    fn ctx(kind: ContextKind, text: &str) -> Context {
        Context { kind, text: text.into(), hook: 0 }
    }

    #[test]
    fn exit_two_blocks_pass_through() {
        let d = EventDecision {
            blocking: Some(Blocking { source: BlockingSource::ExitCode { stderr: "nope\n".into() }, hook: 0 }),
            ..Default::default()
        };
        let a = render_claude(&EventName::PreToolUse, Some("Bash"), &d);
        assert_eq!(a, ClaudeAnswer { exit_code: 2, stdout: String::new(), stderr: "nope\n".into() });
    }

    #[test]
    fn two_contexts_render_as_claude_code_would_show_two_hooks() {
        let d = EventDecision {
            contexts: vec![ctx(ContextKind::AdditionalContext, "CTX-B"), ctx(ContextKind::AdditionalContext, "CTX-A")],
            ..Default::default()
        };
        let a = render_claude(&EventName::PostToolUse, Some("Bash"), &d);
        let v: Value = serde_json::from_str(&a.stdout).unwrap();
        assert_eq!(
            v["hookSpecificOutput"]["additionalContext"],
            json!("CTX-B\n\nPostToolUse:Bash hook additional context: CTX-A")
        );
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], json!("PostToolUse"));
    }

    #[test]
    fn plain_stdout_contexts_stay_plain() {
        let d = EventDecision {
            contexts: vec![ctx(ContextKind::PlainStdout, "UPS-B\n"), ctx(ContextKind::PlainStdout, "UPS-A\n")],
            ..Default::default()
        };
        let a = render_claude(&EventName::UserPromptSubmit, None, &d);
        assert_eq!(a.stdout, "UPS-B\n\nUserPromptSubmit hook success: UPS-A");
        let ss = EventDecision { contexts: vec![ctx(ContextKind::PlainStdout, "x"), ctx(ContextKind::AdditionalContext, "y")], ..Default::default() };
        assert_eq!(render_claude(&EventName::SessionStart, Some("startup"), &ss).stdout, "x\n\nSessionStart hook additional context: y");
    }

    #[test]
    fn json_block_and_permissions() {
        let block = EventDecision {
            blocking: Some(Blocking { source: BlockingSource::Decision { reason: Some("r".into()) }, hook: 0 }),
            permission: Some(PermissionDecision::Deny),
            ..Default::default()
        };
        let v: Value = serde_json::from_str(&render_claude(&EventName::PreToolUse, Some("Bash"), &block).stdout).unwrap();
        assert_eq!(v, json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "r"}}));
        let v: Value = serde_json::from_str(&render_claude(&EventName::Stop, None, &block).stdout).unwrap();
        assert_eq!(v, json!({"decision": "block", "reason": "r"}));
        let ask = EventDecision { permission: Some(PermissionDecision::Ask), permission_reason: Some("please".into()), ..Default::default() };
        let v: Value = serde_json::from_str(&render_claude(&EventName::PreToolUse, Some("Bash"), &ask).stdout).unwrap();
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], json!("ask"));
    }

    #[test]
    fn nothing_to_say_is_exit_zero_and_errors_keep_their_code() {
        assert_eq!(render_claude(&EventName::Stop, None, &EventDecision::default()), ClaudeAnswer::default());
        let err = EventDecision { last_error_code: Some(127), problems: vec![super::super::merge::Problem { hook: 0, message: "sh: x: not found".into() }], ..Default::default() };
        assert_eq!(render_claude(&EventName::PreToolUse, Some("Bash"), &err).exit_code, 127);
    }
}
