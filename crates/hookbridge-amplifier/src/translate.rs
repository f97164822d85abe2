//! Translation between an Amplifier hook call and Claude Code hooks: the event data becomes the
//! stdin payload hooks read ([`claude_payloads`]), and the merged answer of those hooks becomes the
//! one [`HookResult`] the Amplifier handler returns ([`to_hook_result`]).
//!
//! The one design decision: **each Claude Code outcome is mapped to the Amplifier action that
//! has the same *effect* once amplifier-core 2.0.2's registry and the orchestrators have
//! processed it, not to the action with the similar name.** The registry drops `user_message` on
//! `continue`/`modify` and drops modified data under a merged `inject_context` (spec §1.5.9); the
//! orchestrators ignore `deny` after a tool has run and ignore a modified `tool_input` (§1.9);
//! `process_hook_result` shows `user_message` for every action but `ask_user`. So a block after
//! the fact becomes feedback for the model, a lone `systemMessage` rides on an empty injection,
//! and a data change that comes with something to show rides on that injection.
//!
//! # Outcome → HookResult
//!
//! Rows are applied in this order; the first of rows 1–5 that applies decides the action, rows
//! 6–9 then shape it. "Message" means `user_message` (`user_message_source = "hookbridge"`).
//!
//! | # | Claude Code outcome (after [`hookbridge_core::decision::merge`]) | HookResult |
//! |---|---|---|
//! | 1 | `continue: false` (+ `stopReason`) on an event where Claude Code honors it | On PreToolUse/PostToolUse/PostToolUseFailure the operation goes on as the other rows say (the tool runs unless a hook also denies it) and the turn ends after it, as in Claude Code (cases 44, 45, 128): the outcome's `stop_turn` asks the host to cancel gracefully (Amplifier: `coordinator.request_cancel(False)`), and `stopReason` is shown as a warning message. On UserPromptSubmit (case 46) and the other honoring events: `deny`, reason = `stopReason` (or a default), message = `stopReason` + row 9. On Stop/SubagentStop it means "do stop": it cancels a block and the result is built from rows 6–9. Ignored where Claude Code discards it (SessionStart — case 47 —, Notification, PreCompact, PostCompact, SessionEnd, StopFailure, MessageDisplay, …). |
//! | 2 | a block — exit 2 (stderr), `decision: "block"` (`reason`), PreToolUse `permissionDecision: "deny"`, `onFailure: "block"` — on `tool:post` (PostToolUse, PostToolUseFailure, SubagentStop) | no `deny` (the tool has run; the orchestrators ignore it and it would skip later handlers): the message becomes model feedback, `"<Event>:<tool> hook blocking error: <message>"`, injected as in row 6 — where Claude Code shows it too |
//! | 3 | a block on any other event (only events where Claude Code blocks: exit 2 elsewhere is a notice, row 9) | `deny`, reason = stderr / `reason` (trailing newline trimmed; a default if empty), message from row 9 with level `warning` |
//! | 4 | PermissionRequest `decision.behavior: "deny"` | `deny`, reason = `decision.message` (or a default); `"allow"` → rows 6–9 (+ `updatedInput`, row 7). `interrupt` has no Amplifier equivalent (noted) |
//! | 5 | PreToolUse `permissionDecision: "ask"` | `ask_user`: `approval_prompt` = `permissionDecisionReason` (or "A hook asks for approval before `<tool>` runs."), then the row-9 messages (ask_user's own `user_message` is never shown); `approval_options = ["Allow", "Deny"]` (the only answers `process_hook_result` grants besides "Allow once/always", which imply a cache the kernel does not keep); `approval_default = deny`; `data` = row 7's change if any. `"allow"`, legacy `decision: "approve"` and `"defer"` (no Amplifier equivalent, noted) → rows 6–9 |
//! | 6 | context: `hookSpecificOutput.additionalContext` (on the events where Claude Code reads it: SessionStart, SubagentStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, Stop, SubagentStop; elsewhere noted and dropped), plain stdout (SessionStart, UserPromptSubmit — the events where Claude Code uses it), the seed's `contextInjection` (any event), row-2 feedback | `inject_context`, role `system`, pieces in completion order joined by a blank line. Claude Code's own fields carry Claude Code's labels (`PostToolUse:Bash hook additional context: …`, `SessionStart hook additional context: …`, `SessionStart:startup hook success: …`, `Stop hook additional context: …` — measured, golden case 53 — from the one definition in `decision/claude.rs`) so the model reads what it would read there; `contextInjection` is injected verbatim. On `tool:post`: `ephemeral` + `append_to_last_tool_result` — the orchestrators queue exactly such injections and append them to the tool result on the next model call, which keeps tool call/result pairs intact (a persisted system message would land between them); the price is that the feedback is not kept in history. Elsewhere persisted (`process_hook_result` adds it to the context) |
//! | 7 | a data change: `updatedInput` (PreToolUse; PermissionRequest `decision.updatedInput`), PostToolUse `updatedToolOutput`, the seed's `newContent` | `modify` of one field, never a wholesale replacement: `data` = the event data as received (defaults, `timestamp`, `parallel_group_id` kept, because the registry chains `data` wholesale) with **`tool_input`** = the input mapped back to the Amplifier tool's fields ([`super::tools::to_amplifier_input`]), or **`result`** = `updatedToolOutput`/`newContent` on `tool:post` (what loop-basic/loop-streaming read back), or **`prompt`** = a string `newContent` on `prompt:submit`; `newContent` on `tool:pre` is the new input when an object, the new `content` of `write_file` / `new_string` of `edit_file` when a string. `updatedInput` wins over `newContent`, `updatedToolOutput` over `newContent`. With something to show (rows 6, 8, 9) the change rides on that `inject_context` (the registry returns a lone injection with its `data`; merged with other handlers' injections the change is lost). Note: loop-basic and loop-streaming ignore a modified `tool_input` |
//! | 8 | `suppressOutput: true` | `suppress_output: true` (kept by the registry on `deny`/`ask_user`/`inject_context` only) |
//! | 9 | `systemMessage`s (completion order), exit-2 notices on non-blocking events (`"<Event> hook error: <stderr>"`, which Claude Code shows the user) | message, one per line; level `warning` with rows 1–3 or a notice, else `info`. Alone (nothing else to do), it rides on `inject_context` with empty text: the registry keeps a lone injection intact and `process_hook_result` injects nothing for empty text but shows the message — a `continue` would lose it. With a plain `modify` (no row 6) it rides the same way, carrying the `data` |
//! | — | nothing of the above (exit 0 without output, `decision: "approve"` outside PreToolUse, non-blocking errors, timeouts) | `continue`, no data. Non-blocking errors and hooks without a verdict are returned as notes for the host to log |
//!
//! Fields without an Amplifier counterpart (`sessionTitle`, `watchPaths`, `initialUserMessage`,
//! `reloadSkills`, `suppressOriginalPrompt`, `classifierContext`, …) are returned as notes.
//! When one Amplifier event fires two Claude Code events (`tool:post` of an agent tool), each
//! decision is translated and the results are joined by [`combine`].
//!
//! Where results go nowhere today (documented so hooks' authors are not surprised): the results of
//! `session:start`/`session:resume` (the kernel discards them), `orchestrator:complete`,
//! `prompt:complete` and `approval:required` (the emitters ignore them), and a `deny` after
//! `tool:post`. A Stop block is still translated to `deny`, ready for an orchestrator that honors
//! it; like every `deny` it stops the registry from calling later (lower-priority) handlers.
//!
//! # Event data → Claude Code payload
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

use super::events;
use super::hook_result::{ApprovalDefault, HookAction, HookResult, InjectionRole, MessageLevel};
use super::registry::kernel_events::{PROMPT_SUBMIT, TOOL_ERROR, TOOL_POST, TOOL_PRE};
use super::tools::{self, PathBase};
use hookbridge_core::decision::{BlockingSource, ContextKind, EventDecision, PermissionDecision};
use hookbridge_core::event::{EventName, EventPayload, PayloadError};

/// `user_message_source` of every message hookbridge shows.
pub const MESSAGE_SOURCE: &str = "hookbridge";

/// The approval choices offered for a PreToolUse `ask`.
pub const APPROVAL_OPTIONS: [&str; 2] = ["Allow", "Deny"];

/// What the host knows about the session beyond the event data.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionContext {
    /// Used when the event data has no `session_id`.
    pub session_id: Option<String>,
    /// The session's working directory: `cwd`, and the base for relative tool paths.
    pub cwd: Option<String>,
    pub transcript_path: Option<String>,
    /// Sent as `permission_mode` where Claude Code sends it; Amplifier has no such mode.
    pub permission_mode: Option<String>,
    /// The user's home, for `~` in tool paths.
    pub home_dir: Option<String>,
}

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

fn str_of<'a>(d: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    d.get(key).and_then(Value::as_str)
}

fn first_str(d: &Map<String, Value>, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| str_of(d, k)).map(str::to_string)
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

/// Claude Code sends `permission_mode` on these events (spec §1.1).
fn sends_permission_mode(e: &EventName) -> bool {
    use EventName::*;
    matches!(
        e,
        PreToolUse
            | PostToolUse
            | PostToolUseFailure
            | PermissionRequest
            | UserPromptSubmit
            | Stop
            | SubagentStop
    )
}

fn build_fields(
    amp: &str,
    d: &Map<String, Value>,
    claude: &EventName,
    s: &SessionContext,
) -> Map<String, Value> {
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
        .filter(|_| sends_permission_mode(claude))
    {
        f.insert("permission_mode".into(), json!(m));
    }
    f.insert("hook_event_name".into(), json!(claude.as_str()));

    let amp_tool = str_of(d, "tool_name").unwrap_or("");
    let tool_use_id = first_str(d, &["tool_use_id", "tool_call_id"]);
    let outcome = tools::parse_tool_result(d.get("result").unwrap_or(&Value::Null));
    let mut consumed: Vec<&str> = vec!["result", "tool_call_id", "block", "details", "raw"];
    let tool_fields = |f: &mut Map<String, Value>, input: Option<Value>| {
        if let Some(name) = d.get("tool_name") {
            let claude_name = name
                .as_str()
                .map_or_else(|| name.clone(), |n| json!(tools::claude_tool_name(n)));
            f.insert("tool_name".into(), claude_name);
        }
        f.insert("tool_input".into(), claude_tool_input(amp_tool, input, s));
        if let Some(id) = &tool_use_id {
            f.insert("tool_use_id".into(), json!(id));
        }
    };

    match claude {
        EventName::PreToolUse => tool_fields(&mut f, tool_input_value(d)),
        EventName::PostToolUse => {
            tool_fields(&mut f, tool_input_value(d));
            let input = f["tool_input"].as_object().cloned().unwrap_or_default();
            f.insert(
                "tool_response".into(),
                tools::tool_response(amp_tool, &input, &outcome),
            );
            if let Some(seed) = tools::seed_tool_result(&outcome) {
                f.insert("tool_result".into(), seed);
            }
        }
        EventName::PostToolUseFailure => {
            tool_fields(&mut f, tool_input_value(d));
            let error = if amp == TOOL_ERROR {
                match d.get("error") {
                    Some(Value::Object(e)) => first_str(e, &["msg", "message"])
                        .unwrap_or_else(|| Value::Object(e.clone()).to_string()),
                    Some(Value::String(e)) => e.clone(),
                    Some(other) if !other.is_null() => other.to_string(),
                    _ => "Failed".into(),
                }
            } else {
                outcome.error_text()
            };
            f.insert("error".into(), json!(error));
            f.insert("is_interrupt".into(), json!(false));
        }
        EventName::PermissionRequest => {
            let input = tool_input_value(d)
                .or_else(|| d.get("details").cloned())
                .or_else(|| {
                    // hooks-approval sends only `action: "Execute: <command>"` for bash.
                    let command = str_of(d, "action")?.strip_prefix("Execute: ")?;
                    (amp_tool == "bash").then(|| json!({"command": command}))
                });
            tool_fields(&mut f, input);
        }
        EventName::SubagentStop => {
            consumed.extend(["tool_name", "tool_input"]);
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
        EventName::PreCompact | EventName::PostCompact => {
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
        EventName::Notification => {
            f.insert(
                "message".into(),
                json!(first_str(d, &["message", "text", "content"]).unwrap_or_default()),
            );
            if let Some(t) = str_of(d, "title") {
                f.insert("title".into(), json!(t));
            }
            let kind =
                first_str(d, &["notification_type", "type"]).unwrap_or_else(|| "user_notification".into());
            f.insert("notification_type".into(), json!(kind));
        }
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

/// A translated outcome: the result, what the host should log because it had no effect, and
/// whether the turn must end after this operation.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub result: HookResult,
    pub notes: Vec<String>,
    /// `continue: false` on a tool event: the operation goes on as `result` says, then the turn
    /// ends (the host cancels gracefully: Amplifier's `coordinator.request_cancel(False)`). The
    /// text is the stop reason, for the user.
    pub stop_turn: Option<String>,
}

/// The [`HookResult`] for one Claude Code event's merged decision (see the module table).
/// `data` is the event data the Amplifier handler received; `payload` is what the hooks were
/// given ([`claude_payload`]).
pub fn to_hook_result(
    amplifier_event: &str,
    data: &Value,
    payload: &EventPayload,
    decision: &EventDecision,
) -> HookResult {
    translate_outcome(amplifier_event, data, payload, decision).result
}

/// Like [`to_hook_result`], with the notes about what had no Amplifier effect.
pub fn translate_outcome(
    amplifier_event: &str,
    data: &Value,
    payload: &EventPayload,
    decision: &EventDecision,
) -> Outcome {
    Translator::new(amplifier_event, data, payload).translate(decision)
}

/// `continue: false` on these lets the operation run and ends the turn after it (cases 44, 45).
fn ends_the_turn_after_the_tool(e: &EventName) -> bool {
    matches!(
        e,
        EventName::PreToolUse | EventName::PostToolUse | EventName::PostToolUseFailure
    )
}

/// Claude Code discards `continue: false` on these events (spec §2.3; SessionStart measured,
/// case 47: the session runs normally).
fn continue_honored(e: &EventName) -> bool {
    use EventName::*;
    !matches!(
        e,
        SessionStart
            | Notification
            | PreCompact
            | PostCompact
            | SessionEnd
            | StopFailure
            | MessageDisplay
            | TaskCreated
            | InstructionsLoaded
            | ConfigChange
            | CwdChanged
            | FileChanged
            | DirectoryAdded
            | WorktreeCreate
            | WorktreeRemove
            | Elicitation
            | ElicitationResult
    )
}

/// Claude Code reads `additionalContext` on these of the events Amplifier fires.
fn takes_additional_context(e: &EventName) -> bool {
    use EventName::*;
    matches!(
        e,
        SessionStart
            | SubagentStart
            | UserPromptSubmit
            | PreToolUse
            | PostToolUse
            | PostToolUseFailure
            | Stop
            | SubagentStop
    )
}

/// `hookSpecificOutput` fields this module turns into Amplifier effects.
const TRANSLATED_SPECIFIC: &[&str] = &["updatedToolOutput"];

struct Translator<'a> {
    amp: &'a str,
    data: Option<&'a Map<String, Value>>,
    event: &'a EventName,
    /// Claude Code's label prefix: `PostToolUse:Bash`, `SessionStart:startup`, `Stop`.
    label: String,
    /// The event's match target (tool name, SessionStart source, …).
    query: Option<String>,
    after_the_fact: bool,
    notes: Vec<String>,
    /// Set by row 1 on a tool event.
    stop_turn: Option<String>,
}

impl<'a> Translator<'a> {
    fn new(amp: &'a str, data: &'a Value, payload: &'a EventPayload) -> Self {
        let event = payload.event();
        let query = payload.match_query();
        let label = match query.as_deref().filter(|q| !q.is_empty()) {
            Some(q) => format!("{event}:{q}"),
            None => event.to_string(),
        };
        Translator {
            amp,
            data: data.as_object(),
            event,
            label,
            query,
            after_the_fact: amp == TOOL_POST,
            notes: Vec::new(),
            stop_turn: None,
        }
    }

    fn translate(mut self, d: &EventDecision) -> Outcome {
        let mut messages = d.system_messages.clone();
        let mut warning = false;
        for n in &d.notices {
            messages.push(format!("{} hook error: {}", self.event, n.message.trim_end()));
            warning = true;
        }
        for p in &d.problems {
            self.notes.push(format!(
                "{} hook (#{}) had no effect: {}",
                self.event, p.hook, p.message
            ));
        }
        for key in d
            .other_specific
            .keys()
            .filter(|k| !TRANSLATED_SPECIFIC.contains(&k.as_str()))
        {
            self.notes.push(format!(
                "hookSpecificOutput.{key} on {} has no Amplifier equivalent",
                self.event
            ));
        }

        // Row 1: continue: false.
        let mut blocking = d.blocking.as_ref();
        if let Some(stop_reason) = d.stop.as_ref().map(|stop| &stop.reason) {
            if !continue_honored(self.event) {
                self.notes.push(format!(
                    "continue: false is ignored on {}, as Claude Code ignores it",
                    self.event
                ));
            } else if matches!(self.event, EventName::Stop | EventName::SubagentStop) {
                blocking = None;
                if let Some(r) = stop_reason {
                    messages.insert(0, r.clone());
                }
            } else if ends_the_turn_after_the_tool(self.event) {
                // Claude Code lets the tool run (unless another answer denies it) and ends the
                // turn there (cases 44, 45, 128): the rest of the result is built as usual, and the
                // host is asked to stop the turn gracefully.
                self.stop_turn = Some(
                    stop_reason
                        .clone()
                        .unwrap_or_else(|| "a hook stopped processing (continue: false)".into()),
                );
                if let Some(r) = stop_reason {
                    messages.insert(0, r.clone());
                    warning = true;
                }
            } else {
                let reason = stop_reason
                    .clone()
                    .unwrap_or_else(|| "a hook stopped processing (continue: false)".into());
                if let Some(r) = stop_reason {
                    messages.insert(0, r.clone());
                }
                return self.finish(deny(reason, &messages, d.suppress_output));
            }
        }

        // Rows 2 and 3: blocks.
        let mut feedback = None;
        if let Some(b) = blocking {
            let message = b.message().trim_end();
            if self.after_the_fact {
                feedback = Some(format!("{} hook blocking error: {message}", self.label));
                warning = true;
            } else {
                let reason = if !message.is_empty() {
                    message.to_string()
                } else if matches!(b.source, BlockingSource::ExitCode { .. }) {
                    "blocked by a hook (exit code 2, no stderr output)".to_string()
                } else {
                    "blocked by a hook".to_string()
                };
                return self.finish(deny(reason, &messages, d.suppress_output));
            }
        }

        // Row 4: PermissionRequest's decision.
        let mut updated_input = d.updated_input.clone();
        if let Some(req) = &d.permission_request {
            match req.get("behavior").and_then(Value::as_str) {
                Some("deny") => {
                    let reason = req
                        .get("message")
                        .and_then(Value::as_str)
                        .filter(|m| !m.is_empty())
                        .unwrap_or("denied by a PermissionRequest hook")
                        .to_string();
                    if req.get("interrupt").and_then(Value::as_bool) == Some(true) {
                        self.notes
                            .push("PermissionRequest `interrupt` has no Amplifier equivalent".into());
                    }
                    return self.finish(deny(reason, &messages, d.suppress_output));
                }
                Some("allow") => {
                    if let Some(u) = req.get("updatedInput").filter(|u| u.is_object()) {
                        updated_input = Some(u.clone());
                    }
                    if req.get("updatedPermissions").is_some() {
                        self.notes.push(
                            "PermissionRequest `updatedPermissions` has no Amplifier equivalent".into(),
                        );
                    }
                }
                _ => {}
            }
        }

        // Row 7: the data change (computed before row 5, which carries it).
        let new_data = self.data_change(updated_input.as_ref(), d);

        // Row 5: ask.
        match d.permission {
            Some(PermissionDecision::Ask) => {
                let tool = self.tool_name().unwrap_or("the tool");
                let mut prompt = d
                    .permission_reason
                    .clone()
                    .filter(|r| !r.is_empty())
                    .unwrap_or_else(|| format!("A hook asks for approval before {tool} runs."));
                if !messages.is_empty() {
                    prompt.push_str("\n\n");
                    prompt.push_str(&messages.join("\n"));
                }
                let result = HookResult {
                    action: HookAction::AskUser,
                    approval_prompt: Some(prompt),
                    approval_options: Some(APPROVAL_OPTIONS.iter().map(|s| s.to_string()).collect()),
                    approval_default: ApprovalDefault::Deny,
                    suppress_output: d.suppress_output,
                    data: new_data,
                    ..HookResult::default()
                };
                if !d.contexts.is_empty() {
                    self.notes.push(
                        "context given with permissionDecision: ask is dropped (ask_user cannot inject)"
                            .into(),
                    );
                }
                return self.finish(result);
            }
            Some(PermissionDecision::Defer) => self
                .notes
                .push("permissionDecision: defer has no Amplifier equivalent; treated as no decision".into()),
            _ => {}
        }

        // Row 6: contexts.
        let mut pieces: Vec<String> = feedback.into_iter().collect();
        for c in &d.contexts {
            match c.kind {
                ContextKind::ContextInjection => pieces.push(c.text.clone()),
                // Claude Code's own labels, from the one definition its renderer uses.
                ContextKind::PlainStdout => pieces.push(format!(
                    "{}{}",
                    hookbridge_core::decision::success_label(self.event, self.query.as_deref()),
                    c.text.trim_end_matches(['\n', '\r'])
                )),
                ContextKind::AdditionalContext if takes_additional_context(self.event) => {
                    let label = hookbridge_core::decision::context_label(self.event, self.query.as_deref());
                    pieces.push(format!("{label}{}", c.text));
                }
                ContextKind::AdditionalContext => self.notes.push(format!(
                    "additionalContext is ignored on {}, as Claude Code ignores it",
                    self.event
                )),
            }
        }

        // Rows 8 and 9 shape what is returned.
        let mut result = HookResult {
            suppress_output: d.suppress_output,
            ..HookResult::default()
        };
        if !pieces.is_empty() || !messages.is_empty() {
            let injecting = !pieces.is_empty();
            result.action = HookAction::InjectContext;
            result.context_injection = Some(pieces.join("\n\n"));
            result.context_injection_role = InjectionRole::System;
            result.ephemeral = injecting && self.after_the_fact;
            result.append_to_last_tool_result = injecting && self.after_the_fact;
            result.data = new_data;
            set_message(
                &mut result,
                &messages,
                if warning {
                    MessageLevel::Warning
                } else {
                    MessageLevel::Info
                },
            );
        } else if let Some(data) = new_data {
            result.action = HookAction::Modify;
            result.data = Some(data);
        }
        self.finish(result)
    }

    fn finish(self, result: HookResult) -> Outcome {
        Outcome {
            result,
            notes: self.notes,
            stop_turn: self.stop_turn,
        }
    }

    fn tool_name(&self) -> Option<&str> {
        self.data
            .and_then(|d| str_of(d, "tool_name"))
            .map(tools::claude_tool_name)
    }

    /// Row 7: the event data with the one field a hook changed, or `None`.
    fn data_change(
        &mut self,
        updated_input: Option<&Value>,
        d: &EventDecision,
    ) -> Option<Map<String, Value>> {
        let updated_output = d.other_specific.get("updatedToolOutput");
        let new_content = d.new_content.as_ref();
        if updated_input.is_none() && updated_output.is_none() && new_content.is_none() {
            return None;
        }
        let Some(data) = self.data else {
            self.notes.push(format!(
                "the {} data is not an object; its change is dropped",
                self.amp
            ));
            return None;
        };
        let amp_tool = str_of(data, "tool_name").unwrap_or("");
        let mut out = data.clone();
        let mut changed = false;
        let set_input = |out: &mut Map<String, Value>, claude_input: &Map<String, Value>| {
            out.insert(
                "tool_input".into(),
                Value::Object(tools::to_amplifier_input(amp_tool, claude_input)),
            );
        };

        if let Some(u) = updated_input.and_then(Value::as_object) {
            if data.contains_key("tool_input") || self.amp == TOOL_PRE {
                set_input(&mut out, u);
                changed = true;
            } else {
                self.notes.push(format!(
                    "updatedInput has no tool_input to replace on {}",
                    self.amp
                ));
            }
        }
        if let Some(o) = updated_output {
            if self.amp == TOOL_POST {
                out.insert("result".into(), o.clone());
                changed = true;
            } else {
                self.notes.push(format!(
                    "updatedToolOutput has no result to replace on {}",
                    self.amp
                ));
            }
        }
        if let Some(n) = new_content {
            let applied = match (self.amp, n) {
                (TOOL_POST, _) if updated_output.is_none() => {
                    out.insert("result".into(), n.clone());
                    true
                }
                (TOOL_PRE, Value::Object(o)) if updated_input.is_none() => {
                    set_input(&mut out, o);
                    true
                }
                (TOOL_PRE, Value::String(s)) if updated_input.is_none() => {
                    let field = match amp_tool {
                        "write_file" => Some("content"),
                        "edit_file" => Some("new_string"),
                        _ => None,
                    };
                    match (field, out.get_mut("tool_input").and_then(Value::as_object_mut)) {
                        (Some(field), Some(input)) => {
                            input.insert(field.into(), json!(s));
                            true
                        }
                        _ => false,
                    }
                }
                (PROMPT_SUBMIT, Value::String(s)) => {
                    out.insert("prompt".into(), json!(s));
                    true
                }
                _ => false,
            };
            if applied {
                changed = true;
            } else {
                self.notes.push(format!(
                    "newContent has no field to modify on {} (or a more specific field won)",
                    self.amp
                ));
            }
        }
        changed.then_some(out)
    }
}

fn set_message(result: &mut HookResult, messages: &[String], level: MessageLevel) {
    if messages.is_empty() {
        return;
    }
    result.user_message = Some(messages.join("\n"));
    result.user_message_level = level;
    result.user_message_source = Some(MESSAGE_SOURCE.into());
}

fn deny(reason: String, messages: &[String], suppress_output: bool) -> HookResult {
    let mut result = HookResult {
        suppress_output,
        ..HookResult::deny(reason)
    };
    set_message(&mut result, messages, MessageLevel::Warning);
    result
}

/// One result for the several Claude Code events one Amplifier event fired (in firing order),
/// with the registry's precedence `deny > ask_user > inject_context > modify > continue`: the
/// first deny or ask_user wins and collects the others' messages (into `approval_prompt` for
/// ask_user); injections are joined with a blank line, their flags OR-ed; the last data change
/// wins.
pub fn combine(results: impl IntoIterator<Item = HookResult>) -> HookResult {
    let results: Vec<HookResult> = results.into_iter().collect();
    let messages: Vec<&str> = results.iter().filter_map(|r| r.user_message.as_deref()).collect();
    let level = results
        .iter()
        .map(|r| r.user_message_level)
        .max_by_key(|l| *l as u8)
        .unwrap_or_default();
    let suppress = results.iter().any(|r| r.suppress_output);
    let last_data = results.iter().rev().find_map(|r| r.data.clone());
    let pick = |action| results.iter().find(|r| r.action == action).cloned();

    if let Some(mut deny) = pick(HookAction::Deny) {
        if messages.len() > 1 {
            deny.user_message = Some(messages.join("\n"));
            deny.user_message_level = level;
            deny.user_message_source = Some(MESSAGE_SOURCE.into());
        }
        deny.suppress_output = suppress;
        return deny;
    }
    if let Some(mut ask) = pick(HookAction::AskUser) {
        let others: Vec<&str> = results
            .iter()
            .filter(|r| r.action != HookAction::AskUser)
            .filter_map(|r| r.user_message.as_deref())
            .collect();
        if !others.is_empty() {
            let prompt = ask.approval_prompt.get_or_insert_with(String::new);
            prompt.push_str("\n\n");
            prompt.push_str(&others.join("\n"));
        }
        ask.suppress_output = suppress;
        return ask;
    }
    let injecting: Vec<&HookResult> = results
        .iter()
        .filter(|r| r.action == HookAction::InjectContext)
        .collect();
    if !injecting.is_empty() {
        let texts: Vec<&str> = injecting
            .iter()
            .filter_map(|r| r.context_injection.as_deref())
            .filter(|t| !t.is_empty())
            .collect();
        let mut result = HookResult {
            action: HookAction::InjectContext,
            context_injection: Some(texts.join("\n\n")),
            context_injection_role: injecting[0].context_injection_role,
            ephemeral: injecting.iter().any(|r| r.ephemeral),
            append_to_last_tool_result: injecting.iter().any(|r| r.append_to_last_tool_result),
            suppress_output: suppress,
            data: last_data,
            ..HookResult::default()
        };
        if !messages.is_empty() {
            result.user_message = Some(messages.join("\n"));
            result.user_message_level = level;
            result.user_message_source = Some(MESSAGE_SOURCE.into());
        }
        return result;
    }
    match last_data {
        Some(data) => HookResult {
            action: HookAction::Modify,
            data: Some(data),
            ..HookResult::default()
        },
        None => HookResult::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::{DELEGATE_AGENT_SPAWNED, TASK_AGENT_SPAWNED};
    use crate::registry::kernel_events::*;
    use hookbridge_core::decision::{interpret, merge, AnsweredHook, HookExecution, RunStatus};
    use std::time::Duration;

    fn session() -> SessionContext {
        SessionContext {
            session_id: Some("host-session".into()),
            cwd: Some("/home/u/proj".into()),
            transcript_path: Some("/home/u/.amplifier/sessions/s1/transcript.jsonl".into()),
            permission_mode: Some("default".into()),
            home_dir: Some("/home/u".into()),
        }
    }

    /// Data as an Amplifier handler receives it: event data + session defaults + timestamp.
    fn with_defaults(mut data: Value) -> Value {
        let o = data.as_object_mut().unwrap();
        o.insert("session_id".into(), json!("s1"));
        o.insert("parent_id".into(), Value::Null);
        o.insert("timestamp".into(), json!("2026-11-21T23:51:44.219033671+00:00"));
        data
    }

    fn bash_pre(command: &str) -> Value {
        with_defaults(
            json!({"tool_name": "bash", "tool_input": {"command": command, "timeout": 60}, "parallel_group_id": "g1"}),
        )
    }

    fn write_pre() -> Value {
        with_defaults(
            json!({"tool_name": "write_file", "tool_input": {"file_path": "src/app.py", "content": "x = 1\n"}, "parallel_group_id": "g1"}),
        )
    }

    fn bash_post() -> Value {
        with_defaults(json!({"tool_name": "bash", "tool_input": {"command": "ls"},
            "result": "{'stdout': 'a.txt\\n', 'stderr': '', 'returncode': 0}", "parallel_group_id": "g1"}))
    }

    fn prompt() -> Value {
        with_defaults(json!({"prompt": "fix the login bug"}))
    }

    /// Hook outputs `(exit code, stdout, stderr)` in completion order, run through
    /// `decision::interpret` and `decision::merge` like real hooks, then translated.
    fn outcome(amp: &str, data: &Value, claude: EventName, hooks: &[(i32, &str, &str)]) -> Outcome {
        let payload = claude_payload(amp, data, &claude, &session()).expect("payload");
        let answers: Vec<AnsweredHook> = hooks
            .iter()
            .enumerate()
            .map(|(i, (code, out, err))| {
                let exec = HookExecution {
                    warm: Default::default(),
                    status: RunStatus::Exited(*code),
                    stdout: out.as_bytes().to_vec(),
                    stderr: err.as_bytes().to_vec(),
                    stdout_truncated: false,
                    stderr_truncated: false,
                    leaked: false,
                    duration: Duration::from_millis(5),
                    finish_order: i,
                };
                AnsweredHook {
                    answer: interpret(&claude, &exec),
                    finish_order: i,
                    on_failure: hookbridge_core::config::OnFailure::Continue,
                    label: format!("hook {i}"),
                }
            })
            .collect();
        let decision = merge(&claude, &answers);
        translate_outcome(amp, data, &payload, &decision)
    }

    fn result(amp: &str, data: &Value, claude: EventName, hooks: &[(i32, &str, &str)]) -> HookResult {
        outcome(amp, data, claude, hooks).result
    }

    fn message(r: &HookResult) -> (Option<&str>, MessageLevel, Option<&str>) {
        (
            r.user_message.as_deref(),
            r.user_message_level,
            r.user_message_source.as_deref(),
        )
    }

    // ---- Row —: nothing to do ----

    #[test]
    fn row_nothing_exit_zero_without_output_continues() {
        let r = result(TOOL_PRE, &bash_pre("ls"), EventName::PreToolUse, &[(0, "", "")]);
        assert_eq!(r, HookResult::default());
        let r = result(
            SESSION_END,
            &with_defaults(json!({})),
            EventName::SessionEnd,
            &[(0, "bye\n", "")],
        );
        assert_eq!(
            r,
            HookResult::default(),
            "plain stdout is not context on SessionEnd"
        );
    }

    #[test]
    fn row_nothing_non_blocking_error_continues_with_a_note() {
        let o = outcome(
            TOOL_PRE,
            &bash_pre("ls"),
            EventName::PreToolUse,
            &[(1, "", "jq: not found\n")],
        );
        assert_eq!(o.result, HookResult::default());
        assert_eq!(
            o.notes,
            vec!["PreToolUse hook (#0) had no effect: exited with code 1: jq: not found"]
        );
    }

    #[test]
    fn row_nothing_decision_approve_outside_pre_tool_use_continues() {
        let r = result(
            PROMPT_SUBMIT,
            &prompt(),
            EventName::UserPromptSubmit,
            &[(0, r#"{"decision": "approve"}"#, "")],
        );
        assert_eq!(r, HookResult::default());
    }

    // ---- Row 1: continue: false ----

    #[test]
    fn row1_continue_false_on_a_tool_event_lets_the_tool_run_and_ends_the_turn() {
        // Cases 44 and 45: the tool runs, then the turn ends; the stop reason is shown.
        let out = r#"{"continue": false, "stopReason": "Build is red; stopping", "systemMessage": "see CI"}"#;
        for (amp, data, claude) in [
            (TOOL_PRE, bash_pre("make deploy"), EventName::PreToolUse),
            (TOOL_POST, bash_post(), EventName::PostToolUse),
        ] {
            let o = outcome(amp, &data, claude.clone(), &[(0, out, "")]);
            assert_ne!(o.result.action, HookAction::Deny, "{claude}: the tool must run");
            assert_eq!(o.stop_turn.as_deref(), Some("Build is red; stopping"), "{claude}");
            assert_eq!(
                message(&o.result),
                (
                    Some("Build is red; stopping\nsee CI"),
                    MessageLevel::Warning,
                    Some("hookbridge")
                ),
                "{claude}"
            );
        }
        // Case 128: with a deny as well, the tool does not run and the turn still ends.
        let both = r#"{"continue": false, "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "deny-and-halt"}}"#;
        let o = outcome(
            TOOL_PRE,
            &bash_pre("make deploy"),
            EventName::PreToolUse,
            &[(0, both, "")],
        );
        assert_eq!(o.result.action, HookAction::Deny);
        assert_eq!(o.result.reason.as_deref(), Some("deny-and-halt"));
        assert_eq!(
            o.stop_turn.as_deref(),
            Some("a hook stopped processing (continue: false)")
        );
        // Without continue: false, no stop.
        let plain = outcome(TOOL_PRE, &bash_pre("ls"), EventName::PreToolUse, &[(0, "", "")]);
        assert_eq!(plain.stop_turn, None);
    }

    #[test]
    fn row1_continue_false_on_a_prompt_denies_it() {
        // Case 46: the prompt is not sent.
        let bare = result(
            PROMPT_SUBMIT,
            &prompt(),
            EventName::UserPromptSubmit,
            &[(0, r#"{"continue": false}"#, "")],
        );
        assert_eq!(bare.action, HookAction::Deny);
        assert_eq!(
            bare.reason.as_deref(),
            Some("a hook stopped processing (continue: false)")
        );
        assert_eq!(bare.user_message, None);
    }

    #[test]
    fn row1_continue_false_on_stop_overrides_a_block() {
        let data = with_defaults(json!({"orchestrator": "loop-basic", "turn_count": 3, "status": "success"}));
        let hooks = [
            (0, r#"{"decision": "block", "reason": "run the tests first"}"#, ""),
            (0, r#"{"continue": false, "stopReason": "budget exhausted"}"#, ""),
        ];
        let r = result(ORCHESTRATOR_COMPLETE, &data, EventName::Stop, &hooks);
        assert_eq!(r.action, HookAction::InjectContext, "no deny: stopping wins");
        assert_eq!(r.context_injection.as_deref(), Some(""));
        assert_eq!(r.user_message.as_deref(), Some("budget exhausted"));
    }

    #[test]
    fn row1_continue_false_is_ignored_where_claude_code_ignores_it() {
        let data = with_defaults(json!({"messages": 120}));
        let o = outcome(
            CONTEXT_PRE_COMPACT,
            &data,
            EventName::PreCompact,
            &[(0, r#"{"continue": false}"#, "")],
        );
        assert_eq!(o.result, HookResult::default());
        assert_eq!(
            o.notes,
            vec!["continue: false is ignored on PreCompact, as Claude Code ignores it"]
        );
        // Case 47: on SessionStart too — the session runs normally.
        let o = outcome(
            SESSION_START,
            &with_defaults(json!({})),
            EventName::SessionStart,
            &[(0, r#"{"continue": false, "stopReason": "no"}"#, "")],
        );
        assert_eq!(o.result, HookResult::default());
        assert_eq!(o.stop_turn, None);
    }

    // ---- Row 2: blocks after the fact (tool:post) ----

    #[test]
    fn row2_exit_two_on_post_tool_use_is_feedback_appended_to_the_tool_result() {
        let r = result(
            TOOL_POST,
            &bash_post(),
            EventName::PostToolUse,
            &[(2, "", "lint failed: E501 line too long\n")],
        );
        assert_eq!(r.action, HookAction::InjectContext);
        assert_eq!(
            r.context_injection.as_deref(),
            Some("PostToolUse:Bash hook blocking error: lint failed: E501 line too long")
        );
        assert!(r.ephemeral && r.append_to_last_tool_result);
        assert_eq!(r.context_injection_role, InjectionRole::System);
        assert_eq!(r.user_message, None);
    }

    #[test]
    fn row2_decision_block_on_post_tool_use_is_feedback_too() {
        let out =
            r#"{"decision": "block", "reason": "file is not formatted", "systemMessage": "formatter ran"}"#;
        let r = result(TOOL_POST, &bash_post(), EventName::PostToolUse, &[(0, out, "")]);
        assert_eq!(r.action, HookAction::InjectContext);
        assert_eq!(
            r.context_injection.as_deref(),
            Some("PostToolUse:Bash hook blocking error: file is not formatted")
        );
        assert_eq!(
            message(&r),
            (Some("formatter ran"), MessageLevel::Warning, Some("hookbridge"))
        );
    }

    #[test]
    fn row2_subagent_stop_block_becomes_feedback_for_the_parent() {
        let data = with_defaults(
            json!({"tool_name": "delegate", "tool_input": {"agent": "foundation:explorer", "instruction": "map it"},
            "result": {"success": true, "output": {"response": "done", "session_id": "s1-child"}, "error": null}}),
        );
        let r = result(
            TOOL_POST,
            &data,
            EventName::SubagentStop,
            &[(2, "", "the summary lacks file paths")],
        );
        assert_eq!(r.action, HookAction::InjectContext);
        assert_eq!(
            r.context_injection.as_deref(),
            Some("SubagentStop:foundation:explorer hook blocking error: the summary lacks file paths")
        );
        assert!(r.append_to_last_tool_result);
    }

    // ---- Row 3: blocks ----

    #[test]
    fn row3_exit_two_on_pre_tool_use_denies_with_stderr() {
        let r = result(
            TOOL_PRE,
            &bash_pre("rm -rf /"),
            EventName::PreToolUse,
            &[(2, "", "Dangerous command blocked: rm -rf /\n")],
        );
        assert_eq!(r, HookResult::deny("Dangerous command blocked: rm -rf /"));
        let silent = result(TOOL_PRE, &bash_pre("x"), EventName::PreToolUse, &[(2, "", "")]);
        assert_eq!(
            silent.reason.as_deref(),
            Some("blocked by a hook (exit code 2, no stderr output)")
        );
    }

    /// The seed's Appendix A hook: JSON on stdout *and* exit 2 — exit 2 blocks.
    #[test]
    fn row3_seed_validator_exit_two_ignores_its_json() {
        let out = r#"{"decision": "block", "reason": "Dangerous command blocked: rm -rf /", "systemMessage": "⛔ Security"}"#;
        let r = result(
            TOOL_PRE,
            &bash_pre("rm -rf /"),
            EventName::PreToolUse,
            &[(2, out, "")],
        );
        assert_eq!(r.action, HookAction::Deny);
        assert!(r.reason.is_some_and(|reason| !reason.is_empty()));
    }

    #[test]
    fn row3_exit_two_on_user_prompt_submit_denies() {
        let r = result(
            PROMPT_SUBMIT,
            &prompt(),
            EventName::UserPromptSubmit,
            &[(2, "", "prompt mentions a secret\n")],
        );
        assert_eq!(r, HookResult::deny("prompt mentions a secret"));
    }

    #[test]
    fn row3_decision_block_denies_with_reason_and_message() {
        let out = r#"{"decision": "block", "reason": "Cannot modify protected file: .env.production", "systemMessage": "⛔ Protected file"}"#;
        let r = result(
            PROMPT_SUBMIT,
            &prompt(),
            EventName::UserPromptSubmit,
            &[(0, out, "")],
        );
        assert_eq!(r.action, HookAction::Deny);
        assert_eq!(
            r.reason.as_deref(),
            Some("Cannot modify protected file: .env.production")
        );
        assert_eq!(
            message(&r),
            (
                Some("⛔ Protected file"),
                MessageLevel::Warning,
                Some("hookbridge")
            )
        );
    }

    #[test]
    fn row3_legacy_decision_block_on_pre_tool_use_denies() {
        let r = result(
            TOOL_PRE,
            &write_pre(),
            EventName::PreToolUse,
            &[(0, r#"{"decision": "block", "reason": "no writes in src/"}"#, "")],
        );
        assert_eq!(r, HookResult::deny("no writes in src/"));
    }

    #[test]
    fn row3_permission_decision_deny_denies() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "use the Makefile"}}"#;
        let r = result(
            TOOL_PRE,
            &bash_pre("gcc x.c"),
            EventName::PreToolUse,
            &[(0, out, "")],
        );
        assert_eq!(r, HookResult::deny("use the Makefile"));
    }

    #[test]
    fn row3_stop_block_denies() {
        let data = with_defaults(json!({"orchestrator": "loop-basic", "turn_count": 2, "status": "success"}));
        let r = result(
            ORCHESTRATOR_COMPLETE,
            &data,
            EventName::Stop,
            &[(2, "", "tests were not run\n")],
        );
        assert_eq!(r, HookResult::deny("tests were not run"));
    }

    // ---- Row 4: PermissionRequest ----

    fn approval() -> Value {
        with_defaults(
            json!({"tool_name": "bash", "action": "Execute: git push --force", "risk_level": "high"}),
        )
    }

    #[test]
    fn row4_permission_request_deny_denies_with_message() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "force-push is not allowed", "interrupt": true}}}"#;
        let o = outcome(
            APPROVAL_REQUIRED,
            &approval(),
            EventName::PermissionRequest,
            &[(0, out, "")],
        );
        assert_eq!(o.result, HookResult::deny("force-push is not allowed"));
        assert_eq!(
            o.notes,
            vec!["PermissionRequest `interrupt` has no Amplifier equivalent"]
        );
    }

    #[test]
    fn row4_permission_request_allow_continues() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}"#;
        let r = result(
            APPROVAL_REQUIRED,
            &approval(),
            EventName::PermissionRequest,
            &[(0, out, "")],
        );
        assert_eq!(r, HookResult::default());
    }

    // ---- Row 5: ask / allow / approve / defer ----

    #[test]
    fn row5_permission_decision_ask_asks_the_user() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "This pushes to main. Continue?"}, "systemMessage": "branch protection is off"}"#;
        let r = result(
            TOOL_PRE,
            &bash_pre("git push"),
            EventName::PreToolUse,
            &[(0, out, "")],
        );
        assert_eq!(r.action, HookAction::AskUser);
        assert_eq!(
            r.approval_prompt.as_deref(),
            Some("This pushes to main. Continue?\n\nbranch protection is off")
        );
        assert_eq!(
            r.approval_options,
            Some(vec!["Allow".to_string(), "Deny".to_string()])
        );
        assert_eq!(r.approval_default, ApprovalDefault::Deny);
        assert_eq!(r.user_message, None, "ask_user's user_message is never shown");
        let bare = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}"#;
        let r = result(
            TOOL_PRE,
            &bash_pre("git push"),
            EventName::PreToolUse,
            &[(0, bare, "")],
        );
        assert_eq!(
            r.approval_prompt.as_deref(),
            Some("A hook asks for approval before Bash runs.")
        );
    }

    #[test]
    fn row5_ask_beats_allow_across_hooks() {
        let allow =
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}"#;
        let ask = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "sure?"}}"#;
        let r = result(
            TOOL_PRE,
            &bash_pre("ls"),
            EventName::PreToolUse,
            &[(0, allow, ""), (0, ask, "")],
        );
        assert_eq!(r.action, HookAction::AskUser);
    }

    #[test]
    fn row5_permission_decision_allow_continues() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "read-only"}}"#;
        assert_eq!(
            result(TOOL_PRE, &bash_pre("ls"), EventName::PreToolUse, &[(0, out, "")]),
            HookResult::default()
        );
    }

    #[test]
    fn row5_legacy_decision_approve_continues() {
        let r = result(
            TOOL_PRE,
            &bash_pre("ls"),
            EventName::PreToolUse,
            &[(0, r#"{"decision": "approve", "reason": "ok"}"#, "")],
        );
        assert_eq!(r, HookResult::default());
    }

    #[test]
    fn row5_defer_continues_with_a_note() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "defer"}}"#;
        let o = outcome(TOOL_PRE, &bash_pre("ls"), EventName::PreToolUse, &[(0, out, "")]);
        assert_eq!(o.result, HookResult::default());
        assert_eq!(
            o.notes,
            vec!["permissionDecision: defer has no Amplifier equivalent; treated as no decision"]
        );
    }

    #[test]
    fn row5_ask_carries_updated_input() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "updatedInput": {"command": "git push --dry-run", "timeout": 5000}}}"#;
        let r = result(
            TOOL_PRE,
            &bash_pre("git push"),
            EventName::PreToolUse,
            &[(0, out, "")],
        );
        assert_eq!(r.action, HookAction::AskUser);
        assert_eq!(
            r.data.unwrap()["tool_input"],
            json!({"command": "git push --dry-run", "timeout": 5})
        );
    }

    // ---- Row 6: contexts ----

    #[test]
    fn row6_additional_context_on_post_tool_use_is_appended_to_the_tool_result() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "3 files changed"}}"#;
        let r = result(TOOL_POST, &bash_post(), EventName::PostToolUse, &[(0, out, "")]);
        let want = HookResult {
            action: HookAction::InjectContext,
            context_injection: Some("PostToolUse:Bash hook additional context: 3 files changed".into()),
            ephemeral: true,
            append_to_last_tool_result: true,
            ..HookResult::default()
        };
        assert_eq!(r, want);
    }

    #[test]
    fn row6_additional_context_on_user_prompt_submit_is_persisted() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "Ticket LOGIN-42 is relevant"}}"#;
        let r = result(
            PROMPT_SUBMIT,
            &prompt(),
            EventName::UserPromptSubmit,
            &[(0, out, "")],
        );
        assert_eq!(r.action, HookAction::InjectContext);
        assert_eq!(
            r.context_injection.as_deref(),
            Some("UserPromptSubmit hook additional context: Ticket LOGIN-42 is relevant")
        );
        assert!(!r.ephemeral && !r.append_to_last_tool_result);
    }

    #[test]
    fn row6_plain_stdout_is_context_on_session_start_and_prompt_submit() {
        let data = with_defaults(json!({}));
        let r = result(
            SESSION_START,
            &data,
            EventName::SessionStart,
            &[(0, "branch: main\n", "")],
        );
        assert_eq!(r.action, HookAction::InjectContext);
        assert_eq!(
            r.context_injection.as_deref(),
            Some("SessionStart:startup hook success: branch: main")
        );
        let r = result(
            PROMPT_SUBMIT,
            &prompt(),
            EventName::UserPromptSubmit,
            &[(0, "today is Friday\n", "")],
        );
        assert_eq!(
            r.context_injection.as_deref(),
            Some("UserPromptSubmit hook success: today is Friday")
        );
    }

    #[test]
    fn row6_plain_stdout_is_not_context_on_tool_events() {
        let r = result(
            TOOL_PRE,
            &bash_pre("ls"),
            EventName::PreToolUse,
            &[(0, "checked ok\n", "")],
        );
        assert_eq!(r, HookResult::default());
    }

    #[test]
    fn row6_seed_context_injection_is_injected_verbatim() {
        let out = r#"{"decision": "approve", "contextInjection": "Linting errors in a.py:\nE1", "systemMessage": "⚠️ Linting issues detected"}"#;
        let r = result(TOOL_POST, &bash_post(), EventName::PostToolUse, &[(0, out, "")]);
        assert_eq!(r.action, HookAction::InjectContext);
        assert_eq!(
            r.context_injection.as_deref(),
            Some("Linting errors in a.py:\nE1")
        );
        assert_eq!(
            message(&r),
            (
                Some("⚠️ Linting issues detected"),
                MessageLevel::Info,
                Some("hookbridge")
            )
        );
        let pre = result(
            TOOL_PRE,
            &write_pre(),
            EventName::PreToolUse,
            &[(0, r#"{"contextInjection": "mind the style guide"}"#, "")],
        );
        assert_eq!(pre.context_injection.as_deref(), Some("mind the style guide"));
        assert!(!pre.ephemeral, "tool:pre injections are persisted");
    }

    #[test]
    fn row6_contexts_of_several_hooks_join_in_completion_order() {
        let a = r#"{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "A"}}"#;
        let r = result(
            SESSION_START,
            &with_defaults(json!({})),
            EventName::SessionStart,
            &[(0, "B\n", ""), (0, a, "")],
        );
        assert_eq!(
            r.context_injection.as_deref(),
            Some("SessionStart:startup hook success: B\n\nSessionStart hook additional context: A")
        );
    }

    #[test]
    fn row6_stop_additional_context_carries_claude_codes_label() {
        let data = with_defaults(json!({"orchestrator": "loop-basic", "turn_count": 1, "status": "success"}));
        let out = r#"{"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "remember to update CHANGELOG"}}"#;
        let r = result(ORCHESTRATOR_COMPLETE, &data, EventName::Stop, &[(0, out, "")]);
        assert_eq!(
            r.context_injection.as_deref(),
            Some("Stop hook additional context: remember to update CHANGELOG")
        );
    }

    #[test]
    fn row6_additional_context_where_claude_code_ignores_it_is_dropped() {
        let data = with_defaults(json!({"messages": 80}));
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PreCompact", "additionalContext": "x"}}"#;
        let o = outcome(CONTEXT_PRE_COMPACT, &data, EventName::PreCompact, &[(0, out, "")]);
        assert_eq!(o.result, HookResult::default());
        assert_eq!(
            o.notes,
            vec!["additionalContext is ignored on PreCompact, as Claude Code ignores it"]
        );
    }

    // ---- Row 7: data changes ----

    #[test]
    fn row7_updated_input_modifies_tool_input_only() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "ls -la", "timeout": 30000}}}"#;
        let data = bash_pre("ls");
        let r = result(TOOL_PRE, &data, EventName::PreToolUse, &[(0, out, "")]);
        assert_eq!(r.action, HookAction::Modify);
        let mut want = data.as_object().unwrap().clone();
        want.insert("tool_input".into(), json!({"command": "ls -la", "timeout": 30}));
        assert_eq!(
            r.data,
            Some(want),
            "every other field (defaults, timestamp, parallel_group_id) is kept"
        );
    }

    #[test]
    fn row7_updated_input_of_a_file_tool_keeps_amplifier_field_names() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"file_path": "/home/u/proj/src/app.py", "content": "x = 2\n"}}}"#;
        let r = result(TOOL_PRE, &write_pre(), EventName::PreToolUse, &[(0, out, "")]);
        assert_eq!(
            r.data.unwrap()["tool_input"],
            json!({"file_path": "/home/u/proj/src/app.py", "content": "x = 2\n"})
        );
        let agent = with_defaults(
            json!({"tool_name": "delegate", "tool_input": {"agent": "a", "instruction": "go"}}),
        );
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"subagent_type": "a", "prompt": "go, carefully"}}}"#;
        let r = result(TOOL_PRE, &agent, EventName::PreToolUse, &[(0, out, "")]);
        assert_eq!(
            r.data.unwrap()["tool_input"],
            json!({"agent": "a", "instruction": "go, carefully"})
        );
    }

    #[test]
    fn row7_new_content_on_tool_post_modifies_result() {
        let data = bash_post();
        let r = result(
            TOOL_POST,
            &data,
            EventName::PostToolUse,
            &[(0, r#"{"newContent": "a.txt (redacted)"}"#, "")],
        );
        assert_eq!(r.action, HookAction::Modify);
        let d = r.data.unwrap();
        assert_eq!(d["result"], "a.txt (redacted)");
        assert_eq!(d["tool_input"], data["tool_input"]);
        assert_eq!(d["timestamp"], data["timestamp"]);
    }

    #[test]
    fn row7_updated_tool_output_modifies_result_and_wins_over_new_content() {
        let out = r#"{"newContent": "seed", "hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": {"stdout": "clean", "stderr": "", "returncode": 0}}}"#;
        let o = outcome(TOOL_POST, &bash_post(), EventName::PostToolUse, &[(0, out, "")]);
        assert_eq!(o.result.action, HookAction::Modify);
        assert_eq!(
            o.result.data.unwrap()["result"],
            json!({"stdout": "clean", "stderr": "", "returncode": 0})
        );
        assert_eq!(
            o.notes,
            vec!["newContent has no field to modify on tool:post (or a more specific field won)"]
        );
    }

    #[test]
    fn row7_new_content_on_prompt_submit_modifies_prompt() {
        let r = result(
            PROMPT_SUBMIT,
            &prompt(),
            EventName::UserPromptSubmit,
            &[(0, r#"{"newContent": "fix the login bug (see LOGIN-42)"}"#, "")],
        );
        assert_eq!(r.action, HookAction::Modify);
        assert_eq!(r.data.unwrap()["prompt"], "fix the login bug (see LOGIN-42)");
    }

    #[test]
    fn row7_new_content_on_tool_pre_replaces_the_written_content() {
        let r = result(
            TOOL_PRE,
            &write_pre(),
            EventName::PreToolUse,
            &[(0, r#"{"newContent": "x = 1  # formatted\n"}"#, "")],
        );
        assert_eq!(
            r.data.unwrap()["tool_input"],
            json!({"file_path": "src/app.py", "content": "x = 1  # formatted\n"})
        );
        let o = outcome(
            TOOL_PRE,
            &bash_pre("ls"),
            EventName::PreToolUse,
            &[(0, r#"{"newContent": "pwd"}"#, "")],
        );
        assert_eq!(o.result, HookResult::default(), "bash has no content field");
        assert_eq!(o.notes.len(), 1);
    }

    #[test]
    fn row7_new_content_without_a_field_is_dropped() {
        let o = outcome(
            SESSION_END,
            &with_defaults(json!({})),
            EventName::SessionEnd,
            &[(0, r#"{"newContent": "x"}"#, "")],
        );
        assert_eq!(o.result, HookResult::default());
        assert_eq!(
            o.notes,
            vec!["newContent has no field to modify on session:end (or a more specific field won)"]
        );
    }

    #[test]
    fn row7_data_change_rides_on_the_injection() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "ls -1"}, "additionalContext": "rewrote ls"}, "systemMessage": "ls rewritten"}"#;
        let r = result(TOOL_PRE, &bash_pre("ls"), EventName::PreToolUse, &[(0, out, "")]);
        assert_eq!(r.action, HookAction::InjectContext);
        assert_eq!(
            r.context_injection.as_deref(),
            Some("PreToolUse:Bash hook additional context: rewrote ls")
        );
        assert_eq!(r.data.unwrap()["tool_input"], json!({"command": "ls -1"}));
        assert_eq!(r.user_message.as_deref(), Some("ls rewritten"));
    }

    // ---- Row 8: suppressOutput ----

    #[test]
    fn row8_suppress_output_is_kept() {
        let out = r#"{"suppressOutput": true, "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "ok"}}"#;
        let r = result(TOOL_POST, &bash_post(), EventName::PostToolUse, &[(0, out, "")]);
        assert!(r.suppress_output);
        let deny = r#"{"suppressOutput": true, "decision": "block", "reason": "no"}"#;
        let r = result(
            PROMPT_SUBMIT,
            &prompt(),
            EventName::UserPromptSubmit,
            &[(0, deny, "")],
        );
        assert!(r.suppress_output && r.action == HookAction::Deny);
    }

    // ---- Row 9: messages ----

    #[test]
    fn row9_system_message_alone_rides_on_an_empty_injection() {
        let r = result(
            TOOL_POST,
            &bash_post(),
            EventName::PostToolUse,
            &[(0, r#"{"systemMessage": "✓ Lint check passed"}"#, "")],
        );
        let want = HookResult {
            action: HookAction::InjectContext,
            context_injection: Some(String::new()),
            user_message: Some("✓ Lint check passed".into()),
            user_message_source: Some("hookbridge".into()),
            ..HookResult::default()
        };
        assert_eq!(r, want, "not ephemeral: nothing for the orchestrator to queue");
    }

    #[test]
    fn row9_exit_two_on_a_non_blocking_event_is_a_warning_for_the_user() {
        let r = result(
            SESSION_START,
            &with_defaults(json!({})),
            EventName::SessionStart,
            &[(2, "", "direnv: not allowed\n")],
        );
        assert_eq!(r.action, HookAction::InjectContext);
        assert_eq!(r.context_injection.as_deref(), Some(""));
        assert_eq!(
            message(&r),
            (
                Some("SessionStart hook error: direnv: not allowed"),
                MessageLevel::Warning,
                Some("hookbridge")
            )
        );
    }

    #[test]
    fn row9_messages_of_several_hooks_join_and_modify_keeps_them() {
        let hooks = [
            (0, r#"{"systemMessage": "one"}"#, ""),
            (0, r#"{"systemMessage": "two", "newContent": "redacted"}"#, ""),
        ];
        let r = result(TOOL_POST, &bash_post(), EventName::PostToolUse, &hooks);
        assert_eq!(r.action, HookAction::InjectContext);
        assert_eq!(r.user_message.as_deref(), Some("one\ntwo"));
        assert_eq!(r.data.unwrap()["result"], "redacted");
    }

    #[test]
    fn unsupported_specific_fields_are_noted() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "SessionStart", "sessionTitle": "Login fix", "watchPaths": ["/p/.env"]}}"#;
        let o = outcome(
            SESSION_START,
            &with_defaults(json!({})),
            EventName::SessionStart,
            &[(0, out, "")],
        );
        assert_eq!(o.result, HookResult::default());
        assert_eq!(
            o.notes,
            vec![
                "hookSpecificOutput.sessionTitle on SessionStart has no Amplifier equivalent",
                "hookSpecificOutput.watchPaths on SessionStart has no Amplifier equivalent"
            ]
        );
    }

    #[test]
    fn combine_joins_a_fan_out() {
        let inject = |text: &str, msg: Option<&str>| HookResult {
            action: HookAction::InjectContext,
            context_injection: Some(text.into()),
            ephemeral: true,
            append_to_last_tool_result: true,
            user_message: msg.map(str::to_string),
            ..HookResult::default()
        };
        let r = combine([inject("A", Some("m1")), inject("B", None)]);
        assert_eq!(r.context_injection.as_deref(), Some("A\n\nB"));
        assert!(r.ephemeral && r.append_to_last_tool_result);
        assert_eq!(r.user_message.as_deref(), Some("m1"));
        let modify = HookResult {
            action: HookAction::Modify,
            data: Some(Map::new()),
            ..HookResult::default()
        };
        assert_eq!(combine([HookResult::default(), modify.clone()]), modify);
        let r = combine([inject("A", Some("m1")), HookResult::deny("no")]);
        assert_eq!(r.action, HookAction::Deny);
        assert_eq!(
            combine([HookResult::default(), HookResult::default()]),
            HookResult::default()
        );
        let message_only = inject("", Some("m"));
        assert_eq!(
            combine([message_only.clone()]).context_injection.as_deref(),
            Some("")
        );
    }

    /// tool:post of an agent tool, end to end: two payloads, two decisions, one result.
    #[test]
    fn agent_tool_post_fans_out_and_combines() {
        let data = with_defaults(
            json!({"tool_name": "task", "tool_input": {"agent": "zen-architect", "instruction": "review"},
            "result": "{'response': 'Looks fine', 'session_id': 's1-abc_zen-architect'}"}),
        );
        let payloads = claude_payloads(TOOL_POST, &data, &session()).unwrap();
        assert_eq!(
            payloads.iter().map(|p| p.event().clone()).collect::<Vec<_>>(),
            vec![EventName::PostToolUse, EventName::SubagentStop]
        );
        let post = outcome(
            TOOL_POST,
            &data,
            EventName::PostToolUse,
            &[(
                0,
                r#"{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "P"}}"#,
                "",
            )],
        );
        let stop = outcome(
            TOOL_POST,
            &data,
            EventName::SubagentStop,
            &[(
                0,
                r#"{"hookSpecificOutput": {"hookEventName": "SubagentStop", "additionalContext": "S"}}"#,
                "",
            )],
        );
        let r = combine([post.result, stop.result]);
        assert_eq!(
            r.context_injection.as_deref(),
            Some("PostToolUse:Agent hook additional context: P\n\nSubagentStop hook additional context: S")
        );
        assert!(r.append_to_last_tool_result);
    }

    // ---- Payload translation, one test per route ----

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
