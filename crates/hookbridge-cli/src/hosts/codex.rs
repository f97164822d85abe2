//! Codex CLI as a host (`hookbridge run --host codex --event PreToolUse`). Codex fires Claude Code's
//! event names with Claude Code's payloads (plus `turn_id`, `model`, …, which ride along), and reads
//! Claude Code's answers, but strictly: an answer with a field Codex does not support for that event
//! is *invalid* as a whole, and the hook fails open (read in openai/codex
//! `codex-rs/hooks/src/engine/output_parser.rs`; see `../shared/spec/peers.md` §3; not measured).
//! So the hooks run as under Claude Code, and the Claude Code answer is then fitted to what Codex
//! accepts, with a note for each change:
//!
//! - PreToolUse: `continue: false`, `stopReason` and `suppressOutput` are left out; `ask` (Codex
//!   cannot ask) becomes a deny that says approval was asked for; `updatedInput` goes with
//!   `permissionDecision: "allow"` (the only way Codex applies it; the rewritten call then runs
//!   without Codex's own approval prompt); a bare `allow` or `defer` is left out (Codex goes on
//!   with its own flow); a deny always has a reason.
//! - PermissionRequest: `updatedInput`, `updatedPermissions`, `interrupt` and the universal
//!   `continue: false` / `stopReason` / `suppressOutput` are left out.
//! - PostToolUse: `suppressOutput` is left out.
//! - A block by exit code needs text on stderr for Codex to block: an empty one gets a reason.

use hookbridge_core::decision::ClaudeAnswer;
use hookbridge_core::event::EventName;
use serde_json::{json, Map, Value};

/// The events Codex CLI fires that Claude Code fires too (its `HookEventsToml`), by the same names:
/// what `install-into codex` registers.
pub const EVENTS: &[&str] = &[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PreCompact",
    "PostCompact",
    "SubagentStart",
    "SubagentStop",
    "Stop",
];

/// The reason given when a block has none (Codex ignores a block without one).
const NO_REASON: &str = "blocked by a hook (no reason given)";

/// `answer`, Claude Code's for `event`, as Codex accepts it; the notes say what was changed.
pub fn fit(event: &EventName, mut answer: ClaudeAnswer) -> (ClaudeAnswer, Vec<String>) {
    let mut notes = Vec::new();
    if answer.exit_code == 2 && answer.stderr.trim().is_empty() {
        answer.stderr = format!("{NO_REASON}\n");
        notes.push("a block without a reason: Codex blocks only with one, so one was given".into());
    }
    if answer.exit_code != 0 {
        return (answer, notes);
    }
    let Ok(Value::Object(mut out)) = serde_json::from_str::<Value>(answer.stdout.trim()) else {
        return (answer, notes);
    };
    let mut leave_out = |out: &mut Map<String, Value>, key: &str, why: &str| {
        if out.remove(key).is_some() {
            notes.push(format!("{event}: `{key}` left out: {why}"));
        }
    };
    match event.as_str() {
        "PreToolUse" => {
            for key in ["continue", "stopReason", "suppressOutput"] {
                leave_out(&mut out, key, "Codex does not support it on PreToolUse");
            }
            fit_pre_tool_use(&mut out, &mut notes);
        }
        "PermissionRequest" => {
            for key in ["continue", "stopReason", "suppressOutput"] {
                leave_out(&mut out, key, "Codex does not support it on PermissionRequest");
            }
            if let Some(Value::Object(decision)) = out
                .get_mut("hookSpecificOutput")
                .and_then(|s| s.get_mut("decision"))
            {
                for key in ["updatedInput", "updatedPermissions", "interrupt"] {
                    if decision.remove(key).is_some() {
                        notes.push(format!(
                            "PermissionRequest: `decision.{key}` left out: Codex does not support it"
                        ));
                    }
                }
            }
        }
        "PostToolUse" => leave_out(
            &mut out,
            "suppressOutput",
            "Codex does not support it on PostToolUse",
        ),
        _ => {}
    }
    answer.stdout = if out.is_empty() {
        String::new()
    } else {
        format!("{}\n", Value::Object(out))
    };
    (answer, notes)
}

fn fit_pre_tool_use(out: &mut Map<String, Value>, notes: &mut Vec<String>) {
    let Some(Value::Object(specific)) = out.get_mut("hookSpecificOutput") else {
        return;
    };
    let decision = specific
        .get("permissionDecision")
        .and_then(Value::as_str)
        .map(str::to_string);
    let reason = specific
        .get("permissionDecisionReason")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(str::to_string);
    match (decision.as_deref(), specific.contains_key("updatedInput")) {
        (Some("ask"), _) => {
            let why = reason.unwrap_or_else(|| "a hook asks for approval".to_string());
            specific.remove("updatedInput");
            specific.insert("permissionDecision".into(), json!("deny"));
            specific.insert(
                "permissionDecisionReason".into(),
                json!(format!(
                    "{why} (approval was asked for; Codex hooks cannot ask, so the call is denied)"
                )),
            );
            notes.push("PreToolUse: `ask` answered as a deny: Codex hooks cannot ask".into());
        }
        (Some("deny"), _) => {
            specific.remove("updatedInput");
            if reason.is_none() {
                specific.insert("permissionDecisionReason".into(), json!(NO_REASON));
            }
        }
        (_, true) => {
            specific.insert("permissionDecision".into(), json!("allow"));
            notes.push(
                "PreToolUse: `updatedInput` sent with permissionDecision allow, the only way Codex applies it (the call then skips Codex's approval prompt)".into(),
            );
        }
        (Some(other), false) => {
            specific.remove("permissionDecision");
            specific.remove("permissionDecisionReason");
            notes.push(format!(
                "PreToolUse: permissionDecision `{other}` left out: Codex supports it only with updatedInput (allow) or not at all (defer)"
            ));
        }
        (None, false) => {
            if specific.remove("permissionDecisionReason").is_some() {
                notes.push("PreToolUse: a reason without a decision left out".into());
            }
        }
    }
    let only_event_name = specific.keys().all(|k| k == "hookEventName");
    if only_event_name {
        out.remove("hookSpecificOutput");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(stdout: Value) -> ClaudeAnswer {
        ClaudeAnswer {
            exit_code: 0,
            stdout: format!("{stdout}\n"),
            stderr: String::new(),
        }
    }

    fn fitted(event: &str, stdout: Value) -> (Value, Vec<String>) {
        let (out, notes) = fit(&EventName::parse(event).unwrap(), answer(stdout));
        let value = if out.stdout.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&out.stdout).unwrap()
        };
        (value, notes)
    }

    #[test]
    fn pre_tool_use_answers_are_fitted_to_what_codex_accepts() {
        let specific = |v: Value| json!({"hookSpecificOutput": v});
        let (out, notes) = fitted(
            "PreToolUse",
            json!({"continue": false, "stopReason": "s", "systemMessage": "m"}),
        );
        assert_eq!(out, json!({"systemMessage": "m"}));
        assert_eq!(notes.len(), 2);
        let (out, _) = fitted(
            "PreToolUse",
            specific(
                json!({"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "sure?"}),
            ),
        );
        assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "deny");
        assert!(out["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .starts_with("sure? (approval"));
        let (out, _) = fitted(
            "PreToolUse",
            specific(json!({"hookEventName": "PreToolUse", "updatedInput": {"command": "ls -a"}})),
        );
        assert_eq!(
            out,
            specific(
                json!({"hookEventName": "PreToolUse", "updatedInput": {"command": "ls -a"}, "permissionDecision": "allow"})
            )
        );
        let (out, notes) = fitted(
            "PreToolUse",
            specific(
                json!({"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "ok"}),
            ),
        );
        assert_eq!((out, notes.len()), (Value::Null, 1));
        let (out, _) = fitted(
            "PreToolUse",
            specific(json!({"hookEventName": "PreToolUse", "permissionDecision": "deny"})),
        );
        assert_eq!(out["hookSpecificOutput"]["permissionDecisionReason"], NO_REASON);
        let (out, notes) = fitted(
            "PreToolUse",
            specific(json!({"hookEventName": "PreToolUse", "additionalContext": "c"})),
        );
        assert_eq!(
            (out, notes),
            (
                specific(json!({"hookEventName": "PreToolUse", "additionalContext": "c"})),
                vec![]
            )
        );
    }

    #[test]
    fn other_events_lose_only_what_codex_refuses() {
        let (out, _) = fitted(
            "PermissionRequest",
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
            "decision": {"behavior": "allow", "updatedInput": {}, "interrupt": true}}}),
        );
        assert_eq!(
            out["hookSpecificOutput"]["decision"],
            json!({"behavior": "allow"})
        );
        let (out, _) = fitted(
            "PostToolUse",
            json!({"decision": "block", "reason": "r", "suppressOutput": true}),
        );
        assert_eq!(out, json!({"decision": "block", "reason": "r"}));
        let (out, notes) = fitted("Stop", json!({"decision": "block", "reason": "go on"}));
        assert_eq!(
            (out, notes),
            (json!({"decision": "block", "reason": "go on"}), vec![])
        );
        let (blocked, notes) = fit(
            &EventName::parse("PreToolUse").unwrap(),
            ClaudeAnswer {
                exit_code: 2,
                stdout: String::new(),
                stderr: String::new(),
            },
        );
        assert_eq!((blocked.stderr.trim(), notes.len()), (NO_REASON, 1));
    }
}
