//! Amplifier event data → the Claude Code payload hooks read on stdin.
//!
//! Common fields: `hook_event_name`, `session_id` (the event's own, else the host's),
//! `transcript_path` and `cwd` (host), `permission_mode` (host, on the events where Claude Code
//! sends it), `amplifier_event`. Every other top-level field of the Amplifier data rides along
//! under its own name unless the translation consumed it (`result`, `tool_call_id`, `block`,
//! `details`, `raw`) or Claude Code's field of the same name is set.
//!
//! | Claude Code event | fields built from the Amplifier data |
//! |---|---|
//! | PreToolUse | `tool_name` (Claude name), `tool_input` (Claude fields, absolute paths), `tool_use_id` ← `tool_call_id` |
//! | PostToolUse | + `tool_response` (the output, enriched with Claude names), `tool_result` `{stdout, stderr, returncode}` for shell-like outputs (the seed's field) |
//! | PostToolUseFailure | `tool_name`, `tool_input` (`{}` when `tool:error` has none), `tool_use_id`, `error` (`Exit code N` + output for shell results, else the message), `is_interrupt: false` |
//! | SubagentStop | `stop_hook_active: false`, `agent_id` ← output `session_id`, `agent_type` ← input `agent`, `last_assistant_message` ← output `response` |
//! | SubagentStart | `agent_id` ← `sub_session_id`, `agent_type` ← `agent` |
//! | UserPromptSubmit | `prompt` |
//! | SessionStart | `source` (`startup`/`resume`/`fork`) and the seed's `trigger` with the same value |
//! | SessionEnd | `reason` (the data's, else `other`) |
//! | Stop | `stop_hook_active: false` |
//! | StopFailure | `error` (`rate_limit`, `overloaded`, `authentication_failed`, `billing_error`, `invalid_request`, `model_not_found`, `server_error`, `unknown` — from `status_code`, else the error type), `error_details` and `last_assistant_message` ← the error message |
//! | PreCompact | `trigger` (`manual`/`auto` from the data, else `auto`: Amplifier compacts on its own), `custom_instructions` (else `""`) |
//! | PostCompact | `trigger`, `compact_summary` (← `compact_summary`/`summary`, else `""`) |
//! | Notification | `message` (← `message`/`text`/`content`), `title`, `notification_type` (← `notification_type`/`type`, else `user_notification`) |
//! | PermissionRequest | `tool_name`, `tool_input` (← `tool_input`/`details`; for bash the command from hooks-approval's `action: "Execute: <command>"`) |
//! | MessageDisplay | `index` ← `block_index`, `final: true`, `delta` ← the block's text |

use serde_json::{json, Map, Value};

use super::{first_str, str_of, SessionContext};
use crate::events;
use crate::registry::kernel_events::TOOL_ERROR;
use crate::tools::{self, PathBase};
use hookbridge_core::event::{EventName, EventPayload, PayloadError};

/// Why an Amplifier event could not be turned into a Claude Code payload.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TranslateError {
    #[error("the Amplifier event `{amplifier}` never fires the Claude Code event {claude}")]
    NoRoute { amplifier: String, claude: String },
    #[error("cannot build the {claude} payload from the Amplifier event `{amplifier}`: {source}")]
    Payload {
        amplifier: String,
        claude: String,
        #[source]
        source: PayloadError,
    },
}

/// The payloads of every Claude Code event `amplifier_event` fires with this data, in firing
/// order ([`events::claude_events_for`]). Empty if it fires none.
pub fn claude_payloads(
    amplifier_event: &str,
    data: &Value,
    session: &SessionContext,
) -> Result<Vec<EventPayload>, TranslateError> {
    events::claude_events_for(amplifier_event, data)
        .iter()
        .map(|e| claude_payload(amplifier_event, data, e, session))
        .collect()
}

/// The payload of one Claude Code event routed from `amplifier_event` (see the module table).
/// Errors if no route joins the two events, or if the result breaks Claude Code's contract (a
/// tool event without `tool_name`, a `tool_input` that is not an object, …): a guard hook must
/// never receive an empty command.
pub fn claude_payload(
    amplifier_event: &str,
    data: &Value,
    claude: &EventName,
    session: &SessionContext,
) -> Result<EventPayload, TranslateError> {
    if !events::ROUTES
        .iter()
        .any(|r| r.amplifier == amplifier_event && &r.claude == claude)
    {
        return Err(TranslateError::NoRoute {
            amplifier: amplifier_event.into(),
            claude: claude.to_string(),
        });
    }
    let empty = Map::new();
    let d = data.as_object().unwrap_or(&empty);
    let fields = build_fields(amplifier_event, d, claude, session);
    EventPayload::from_value(claude.clone(), Value::Object(fields)).map_err(|source| {
        TranslateError::Payload {
            amplifier: amplifier_event.into(),
            claude: claude.to_string(),
            source,
        }
    })
}

/// The tool input as an object: loop-basic passes the provider's arguments, which may still be
/// a JSON string. Anything else is kept as is (and then refused by the payload check).
fn tool_input_value(d: &Map<String, Value>) -> Option<Value> {
    match d.get("tool_input") {
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(v @ Value::Object(_)) => Some(v),
            _ => Some(Value::String(s.clone())),
        },
        other => other.cloned(),
    }
}

fn claude_tool_input(amp_tool: &str, input: Option<Value>, s: &SessionContext) -> Value {
    let base = PathBase {
        cwd: s.cwd.as_deref(),
        home: s.home_dir.as_deref(),
    };
    match input {
        Some(Value::Object(o)) => Value::Object(tools::to_claude_input(amp_tool, &o, base)),
        Some(other) => other,
        None => Value::Object(Map::new()),
    }
}

fn build_fields(
    amp: &str,
    d: &Map<String, Value>,
    claude: &EventName,
    s: &SessionContext,
) -> Map<String, Value> {
    let mut f = common_fields(d, claude, s);
    let mut consumed: Vec<&str> = vec!["result", "tool_call_id", "block", "details", "raw"];
    match claude {
        EventName::PreToolUse => tool_fields(&mut f, d, tool_input_value(d), s),
        EventName::PostToolUse => {
            tool_fields(&mut f, d, tool_input_value(d), s);
            let input = f["tool_input"].as_object().cloned().unwrap_or_default();
            let outcome = tool_outcome(d);
            f.insert(
                "tool_response".into(),
                tools::tool_response(str_of(d, "tool_name").unwrap_or(""), &input, &outcome),
            );
            if let Some(seed) = tools::seed_tool_result(&outcome) {
                f.insert("tool_result".into(), seed);
            }
        }
        EventName::PostToolUseFailure => {
            tool_fields(&mut f, d, tool_input_value(d), s);
            f.insert("error".into(), json!(failure_text(amp, d)));
            f.insert("is_interrupt".into(), json!(false));
        }
        EventName::PermissionRequest => {
            let input = tool_input_value(d)
                .or_else(|| d.get("details").cloned())
                .or_else(|| {
                    // hooks-approval sends only `action: "Execute: <command>"` for bash.
                    let command = str_of(d, "action")?.strip_prefix("Execute: ")?;
                    (str_of(d, "tool_name") == Some("bash")).then(|| json!({"command": command}))
                });
            tool_fields(&mut f, d, input, s);
        }
        EventName::SubagentStop => {
            consumed.extend(["tool_name", "tool_input"]);
            subagent_stop_fields(&mut f, d);
        }
        EventName::SubagentStart => {
            if let Some(id) = str_of(d, "sub_session_id") {
                f.insert("agent_id".into(), json!(id));
            }
            f.insert("agent_type".into(), json!(str_of(d, "agent").unwrap_or("")));
        }
        EventName::UserPromptSubmit => {
            if let Some(p) = d.get("prompt") {
                f.insert("prompt".into(), p.clone());
            }
        }
        EventName::SessionStart => {
            let source = events::session_start_source(amp).unwrap_or("startup");
            f.insert("source".into(), json!(source));
            f.insert("trigger".into(), json!(source));
        }
        EventName::SessionEnd => {
            f.insert("reason".into(), json!(str_of(d, "reason").unwrap_or("other")));
        }
        EventName::Stop => {
            f.insert("stop_hook_active".into(), json!(false));
        }
        EventName::StopFailure => {
            let (kind, message) = classify_provider_error(d);
            f.insert("error".into(), json!(kind));
            if let Some(m) = message {
                f.insert("error_details".into(), json!(m));
                f.insert("last_assistant_message".into(), json!(m));
            }
        }
        EventName::PreCompact | EventName::PostCompact => compaction_fields(&mut f, d, claude),
        EventName::Notification => notification_fields(&mut f, d),
        EventName::MessageDisplay => {
            if let Some(i) = d.get("block_index") {
                f.insert("index".into(), i.clone());
            }
            f.insert("final".into(), json!(true));
            let text = d
                .get("block")
                .and_then(|b| b.get("text"))
                .and_then(Value::as_str)
                .unwrap_or("");
            f.insert("delta".into(), json!(text));
        }
        _ => {}
    }
    f.insert("amplifier_event".into(), json!(amp));
    for (k, v) in d {
        if !f.contains_key(k) && !consumed.contains(&k.as_str()) {
            f.insert(k.clone(), v.clone());
        }
    }
    f
}

/// The fields every Claude Code payload has: the session's, and the event's name.
fn common_fields(d: &Map<String, Value>, claude: &EventName, s: &SessionContext) -> Map<String, Value> {
    let mut f = Map::new();
    let session_id = str_of(d, "session_id")
        .filter(|v| !v.is_empty())
        .map(str::to_string)
        .or_else(|| s.session_id.clone());
    if let Some(id) = session_id {
        f.insert("session_id".into(), json!(id));
    }
    if let Some(t) = &s.transcript_path {
        f.insert("transcript_path".into(), json!(t));
    }
    if let Some(c) = &s.cwd {
        f.insert("cwd".into(), json!(c));
    }
    if let Some(m) = s
        .permission_mode
        .as_ref()
        .filter(|_| claude.traits().sends_permission_mode)
    {
        f.insert("permission_mode".into(), json!(m));
    }
    f.insert("hook_event_name".into(), json!(claude.as_str()));
    f
}

/// A tool event's `tool_name` (Claude Code's name), `tool_input` (Claude Code's fields) and
/// `tool_use_id`.
fn tool_fields(f: &mut Map<String, Value>, d: &Map<String, Value>, input: Option<Value>, s: &SessionContext) {
    if let Some(name) = d.get("tool_name") {
        let claude_name = name
            .as_str()
            .map_or_else(|| name.clone(), |n| json!(tools::claude_tool_name(n)));
        f.insert("tool_name".into(), claude_name);
    }
    f.insert(
        "tool_input".into(),
        claude_tool_input(str_of(d, "tool_name").unwrap_or(""), input, s),
    );
    if let Some(id) = first_str(d, &["tool_use_id", "tool_call_id"]) {
        f.insert("tool_use_id".into(), json!(id));
    }
}

/// The tool's result, in whichever form it came (`tools::parse_tool_result`).
fn tool_outcome(d: &Map<String, Value>) -> tools::ToolOutcome {
    tools::parse_tool_result(d.get("result").unwrap_or(&Value::Null))
}

/// PostToolUseFailure's `error`: `tool:error`'s own error, else the failed result's text.
fn failure_text(amp: &str, d: &Map<String, Value>) -> String {
    if amp != TOOL_ERROR {
        return tool_outcome(d).error_text();
    }
    match d.get("error") {
        Some(Value::Object(e)) => {
            first_str(e, &["msg", "message"]).unwrap_or_else(|| Value::Object(e.clone()).to_string())
        }
        Some(Value::String(e)) => e.clone(),
        Some(other) if !other.is_null() => other.to_string(),
        _ => "Failed".into(),
    }
}

/// SubagentStop from a finished sub-agent tool: who ran (`agent_id`, `agent_type`) and what it
/// said last.
fn subagent_stop_fields(f: &mut Map<String, Value>, d: &Map<String, Value>) {
    let outcome = tool_outcome(d);
    let output = outcome.output.as_ref().and_then(Value::as_object);
    let input = tool_input_value(d);
    f.insert("stop_hook_active".into(), json!(false));
    if let Some(id) = output.and_then(|o| str_of(o, "session_id")) {
        f.insert("agent_id".into(), json!(id));
    }
    let agent_type = input
        .as_ref()
        .and_then(|i| i.get("agent"))
        .and_then(Value::as_str)
        .or_else(|| output.and_then(|o| str_of(o, "agent")))
        .unwrap_or("");
    f.insert("agent_type".into(), json!(agent_type));
    if let Some(text) = output.and_then(|o| str_of(o, "response")) {
        f.insert("last_assistant_message".into(), json!(text));
    }
}

/// PreCompact's `trigger` and `custom_instructions`; PostCompact's `trigger` and
/// `compact_summary`.
fn compaction_fields(f: &mut Map<String, Value>, d: &Map<String, Value>, claude: &EventName) {
    let trigger = str_of(d, "trigger")
        .filter(|t| matches!(*t, "manual" | "auto"))
        .unwrap_or("auto");
    f.insert("trigger".into(), json!(trigger));
    if claude == &EventName::PreCompact {
        f.insert(
            "custom_instructions".into(),
            json!(str_of(d, "custom_instructions").unwrap_or("")),
        );
    } else {
        let summary = first_str(d, &["compact_summary", "summary"]).unwrap_or_default();
        f.insert("compact_summary".into(), json!(summary));
    }
}

/// Notification's `message`, `title` and `notification_type`.
fn notification_fields(f: &mut Map<String, Value>, d: &Map<String, Value>) {
    f.insert(
        "message".into(),
        json!(first_str(d, &["message", "text", "content"]).unwrap_or_default()),
    );
    if let Some(t) = str_of(d, "title") {
        f.insert("title".into(), json!(t));
    }
    let kind = first_str(d, &["notification_type", "type"]).unwrap_or_else(|| "user_notification".into());
    f.insert("notification_type".into(), json!(kind));
}

/// StopFailure's `error` kind and the error's message, from a `provider:error` payload
/// (`{provider, error: {type, msg}, retryable, status_code}`).
fn classify_provider_error(d: &Map<String, Value>) -> (&'static str, Option<String>) {
    let (error_type, message) = match d.get("error") {
        Some(Value::Object(e)) => (str_of(e, "type").unwrap_or(""), first_str(e, &["msg", "message"])),
        Some(Value::String(s)) => ("", Some(s.clone())),
        _ => ("", None),
    };
    let by_status = d
        .get("status_code")
        .and_then(Value::as_u64)
        .and_then(|code| match code {
            429 => Some("rate_limit"),
            529 => Some("overloaded"),
            401 | 403 => Some("authentication_failed"),
            402 => Some("billing_error"),
            400 | 413 | 422 => Some("invalid_request"),
            404 => Some("model_not_found"),
            500..=599 => Some("server_error"),
            _ => None,
        });
    let t = error_type.to_ascii_lowercase();
    let by_type = if t.contains("ratelimit") || t.contains("rate_limit") {
        "rate_limit"
    } else if t.contains("overload") {
        "overloaded"
    } else if t.contains("auth") || t.contains("permission") {
        "authentication_failed"
    } else if t.contains("notfound") || t.contains("not_found") {
        "model_not_found"
    } else if t.contains("badrequest") || t.contains("invalidrequest") || t.contains("invalid_request") {
        "invalid_request"
    } else if t.contains("server") || t.contains("internal") {
        "server_error"
    } else {
        "unknown"
    };
    (by_status.unwrap_or(by_type), message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::{DELEGATE_AGENT_SPAWNED, TASK_AGENT_SPAWNED};
    use crate::registry::kernel_events::*;
    use crate::translate::fixtures::*;

    fn payload(amp: &str, data: Value, claude: EventName) -> Map<String, Value> {
        claude_payload(amp, &data, &claude, &session())
            .expect("payload")
            .into_fields()
    }

    #[test]
    fn payload_pre_tool_use() {
        let p = payload(TOOL_PRE, write_pre(), EventName::PreToolUse);
        assert_eq!(p["hook_event_name"], "PreToolUse");
        assert_eq!(
            p["session_id"], "s1",
            "the event's own session id wins over the host's"
        );
        assert_eq!(p["cwd"], "/home/u/proj");
        assert_eq!(
            p["transcript_path"],
            "/home/u/.amplifier/sessions/s1/transcript.jsonl"
        );
        assert_eq!(p["permission_mode"], "default");
        assert_eq!(p["tool_name"], "Write");
        assert_eq!(
            p["tool_input"],
            json!({"file_path": "/home/u/proj/src/app.py", "content": "x = 1\n"})
        );
        assert_eq!(p["amplifier_event"], "tool:pre");
        assert_eq!(p["parallel_group_id"], "g1", "extra Amplifier fields ride along");
        assert!(!p.contains_key("tool_use_id"), "loop-basic sends no call id");
        let streaming = with_defaults(
            json!({"tool_name": "bash", "tool_call_id": "toolu_01", "tool_input": "{\"command\": \"ls\"}"}),
        );
        let p = payload(TOOL_PRE, streaming, EventName::PreToolUse);
        assert_eq!(
            (p["tool_use_id"].clone(), p["tool_input"].clone()),
            (json!("toolu_01"), json!({"command": "ls"}))
        );
        assert!(!p.contains_key("tool_call_id"));
    }

    #[test]
    fn payload_pre_tool_use_is_strict() {
        let err = claude_payload(
            TOOL_PRE,
            &json!({"tool_input": {}}),
            &EventName::PreToolUse,
            &session(),
        )
        .unwrap_err();
        assert!(matches!(
            err,
            TranslateError::Payload {
                source: PayloadError::MissingField {
                    field: "tool_name",
                    ..
                },
                ..
            }
        ));
        let err = claude_payload(
            TOOL_PRE,
            &json!({"tool_name": "bash", "tool_input": "rm -rf"}),
            &EventName::PreToolUse,
            &session(),
        );
        assert!(err.unwrap_err().to_string().contains("tool_input"));
        let err = claude_payload(PROMPT_SUBMIT, &json!({}), &EventName::Stop, &session()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the Amplifier event `prompt:submit` never fires the Claude Code event Stop"
        );
    }

    #[test]
    fn payload_post_tool_use_from_every_result_form() {
        let p = payload(TOOL_POST, bash_post(), EventName::PostToolUse);
        assert_eq!(p["tool_name"], "Bash");
        assert_eq!(
            p["tool_response"],
            json!({"stdout": "a.txt\n", "stderr": "", "returncode": 0, "interrupted": false, "isImage": false})
        );
        assert_eq!(
            p["tool_result"],
            json!({"stdout": "a.txt\n", "stderr": "", "returncode": 0})
        );
        assert!(!p.contains_key("result"));
        let dump = with_defaults(
            json!({"tool_name": "write_file", "tool_call_id": "c1", "tool_input": {"file_path": "a.txt", "content": "x"},
            "result": {"success": true, "output": {"file_path": "/home/u/proj/a.txt", "bytes": 1}, "error": null}}),
        );
        let p = payload(TOOL_POST, dump, EventName::PostToolUse);
        assert_eq!(p["tool_response"]["filePath"], "/home/u/proj/a.txt");
        assert_eq!(p["tool_input"]["file_path"], "/home/u/proj/a.txt");
        assert_eq!(p["tool_use_id"], "c1");
        assert!(!p.contains_key("tool_result"));
    }

    #[test]
    fn payload_post_tool_use_failure() {
        let failed = with_defaults(
            json!({"tool_name": "bash", "tool_input": {"command": "false"}, "result": "Failed"}),
        );
        let p = payload(TOOL_POST, failed, EventName::PostToolUseFailure);
        assert_eq!(
            (p["error"].clone(), p["is_interrupt"].clone()),
            (json!("Failed"), json!(false))
        );
        let dump = with_defaults(json!({"tool_name": "bash", "tool_input": {"command": "make"},
            "result": {"success": false, "output": {"stdout": "cc a.c\n", "stderr": "a.c:1: error\n", "returncode": 2}, "error": null}}));
        assert_eq!(
            payload(TOOL_POST, dump, EventName::PostToolUseFailure)["error"],
            "Exit code 2\na.c:1: error\ncc a.c"
        );
        let error = with_defaults(
            json!({"tool_name": "nope", "error": {"type": "RuntimeError", "msg": "Error: Tool 'nope' not found"}}),
        );
        let p = payload(TOOL_ERROR, error, EventName::PostToolUseFailure);
        assert_eq!(
            (p["error"].clone(), p["tool_input"].clone()),
            (json!("Error: Tool 'nope' not found"), json!({}))
        );
    }

    #[test]
    fn payload_subagent_stop_and_start() {
        let data = with_defaults(
            json!({"tool_name": "delegate", "tool_input": {"agent": "foundation:explorer", "instruction": "map"},
            "result": {"success": true, "output": {"response": "Here is the map", "session_id": "s1-7f_explorer", "agent": "foundation:explorer"}}}),
        );
        let p = payload(TOOL_POST, data, EventName::SubagentStop);
        assert_eq!(p["stop_hook_active"], false);
        assert_eq!(p["agent_id"], "s1-7f_explorer");
        assert_eq!(p["agent_type"], "foundation:explorer");
        assert_eq!(p["last_assistant_message"], "Here is the map");
        assert!(!p.contains_key("tool_name") && !p.contains_key("tool_input"));
        let spawned = with_defaults(
            json!({"agent": "foundation:explorer", "sub_session_id": "s1-7f_explorer", "parent_session_id": "s1", "tool_call_id": "c9"}),
        );
        let p = payload(DELEGATE_AGENT_SPAWNED, spawned, EventName::SubagentStart);
        assert_eq!(
            (p["agent_id"].clone(), p["agent_type"].clone()),
            (json!("s1-7f_explorer"), json!("foundation:explorer"))
        );
        assert!(
            payload(
                TASK_AGENT_SPAWNED,
                with_defaults(json!({"agent": "a"})),
                EventName::SubagentStart
            )["agent_type"]
                == "a"
        );
    }

    #[test]
    fn payload_user_prompt_submit() {
        let p = payload(PROMPT_SUBMIT, prompt(), EventName::UserPromptSubmit);
        assert_eq!(p["prompt"], "fix the login bug");
        assert_eq!(p["timestamp"], "2026-11-21T23:51:44.219033671+00:00");
    }

    #[test]
    fn payload_session_start_sources() {
        for (amp, source) in [
            (SESSION_START, "startup"),
            (SESSION_RESUME, "resume"),
            (SESSION_FORK, "fork"),
        ] {
            let p = payload(amp, with_defaults(json!({})), EventName::SessionStart);
            assert_eq!(
                (p["source"].clone(), p["trigger"].clone()),
                (json!(source), json!(source))
            );
            assert!(
                !p.contains_key("permission_mode"),
                "Claude Code sends none on SessionStart"
            );
        }
        let fork = payload(
            SESSION_FORK,
            json!({"parent": "p1", "session_id": "c1"}),
            EventName::SessionStart,
        );
        assert_eq!(
            (fork["session_id"].clone(), fork["parent"].clone()),
            (json!("c1"), json!("p1"))
        );
    }

    #[test]
    fn payload_session_end_and_stop() {
        let p = payload(SESSION_END, json!({"session_id": "s1"}), EventName::SessionEnd);
        assert_eq!(p["reason"], "other");
        let p = payload(
            ORCHESTRATOR_COMPLETE,
            with_defaults(json!({"orchestrator": "loop-basic", "turn_count": 2, "status": "success"})),
            EventName::Stop,
        );
        assert_eq!(p["stop_hook_active"], false);
        assert_eq!(p["status"], "success");
    }

    #[test]
    fn payload_stop_failure() {
        let data = with_defaults(
            json!({"provider": "anthropic", "error": {"type": "RateLimitError", "msg": "429 Too Many Requests"}, "retryable": true, "status_code": 429}),
        );
        let p = payload(PROVIDER_ERROR, data, EventName::StopFailure);
        assert_eq!(p["error"], "rate_limit");
        assert_eq!(p["error_details"], "429 Too Many Requests");
        let by_type = payload(
            PROVIDER_ERROR,
            json!({"error": {"type": "AuthenticationError", "msg": "bad key"}}),
            EventName::StopFailure,
        );
        assert_eq!(by_type["error"], "authentication_failed");
        assert_eq!(
            payload(
                PROVIDER_ERROR,
                json!({"status_code": 503}),
                EventName::StopFailure
            )["error"],
            "server_error"
        );
        assert_eq!(
            payload(PROVIDER_ERROR, json!({"error": "weird"}), EventName::StopFailure)["error"],
            "unknown"
        );
    }

    #[test]
    fn payload_compaction() {
        let p = payload(
            CONTEXT_PRE_COMPACT,
            with_defaults(json!({"message_count": 120, "reason": "token_limit_exceeded"})),
            EventName::PreCompact,
        );
        assert_eq!(
            (p["trigger"].clone(), p["custom_instructions"].clone()),
            (json!("auto"), json!(""))
        );
        let p = payload(
            CONTEXT_POST_COMPACT,
            json!({"old_count": 120, "new_count": 40, "trigger": "manual", "summary": "S"}),
            EventName::PostCompact,
        );
        assert_eq!(
            (p["trigger"].clone(), p["compact_summary"].clone()),
            (json!("manual"), json!("S"))
        );
    }

    #[test]
    fn payload_notification() {
        let p = payload(
            USER_NOTIFICATION,
            json!({"message": "Build finished", "title": "CI", "level": "info"}),
            EventName::Notification,
        );
        assert_eq!(p["message"], "Build finished");
        assert_eq!(p["title"], "CI");
        assert_eq!(p["notification_type"], "user_notification");
        let typed = payload(
            USER_NOTIFICATION,
            json!({"text": "idle", "type": "idle_prompt"}),
            EventName::Notification,
        );
        assert_eq!(
            (typed["message"].clone(), typed["notification_type"].clone()),
            (json!("idle"), json!("idle_prompt"))
        );
    }

    #[test]
    fn payload_permission_request() {
        let p = payload(APPROVAL_REQUIRED, approval(), EventName::PermissionRequest);
        assert_eq!(p["tool_name"], "Bash");
        assert_eq!(p["tool_input"], json!({"command": "git push --force"}));
        assert_eq!(p["risk_level"], "high");
        let other = payload(
            APPROVAL_REQUIRED,
            json!({"tool_name": "write_file", "action": "Execute write_file", "risk_level": "medium"}),
            EventName::PermissionRequest,
        );
        assert_eq!(
            (other["tool_name"].clone(), other["tool_input"].clone()),
            (json!("Write"), json!({}))
        );
    }

    #[test]
    fn payload_message_display() {
        let data =
            json!({"block_index": 1, "total_blocks": 2, "block": {"type": "text", "text": "All done."}});
        let p = payload(CONTENT_BLOCK_END, data, EventName::MessageDisplay);
        assert_eq!(
            (p["index"].clone(), p["final"].clone(), p["delta"].clone()),
            (json!(1), json!(true), json!("All done."))
        );
        assert!(!p.contains_key("block"));
    }

    #[test]
    fn payloads_follow_the_routes() {
        assert!(claude_payloads("llm:request", &json!({}), &session())
            .unwrap()
            .is_empty());
        let p = claude_payloads(
            TOOL_POST,
            &with_defaults(json!({"tool_name": "bash", "tool_input": {}, "result": "Failed"})),
            &session(),
        )
        .unwrap();
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].event(), &EventName::PostToolUseFailure);
        let no_data = claude_payloads(SESSION_END, &Value::Null, &session()).unwrap();
        assert_eq!(
            no_data[0].session_id(),
            Some("host-session"),
            "the host's session id fills in"
        );
    }
}
