//! Gemini CLI as a host (`hookbridge run --host gemini --event BeforeTool`): Gemini's payload in,
//! Claude Code's hooks run, the answer in Gemini's terms.
//!
//! Read from Gemini CLI's source (`packages/core/src/hooks/types.ts`, `hookRunner.ts`,
//! `hookAggregator.ts`; see `../shared/spec/peers.md` §2) and measured against the real Gemini CLI
//! (`tests/hosts/gemini/`: each case a Claude Code hook through hookbridge and the Gemini CLI hook
//! that means the same, which must give Gemini CLI's model the same view).
//!
//! - **Events**: BeforeTool → PreToolUse, AfterTool → PostToolUse, BeforeAgent → UserPromptSubmit,
//!   AfterAgent → Stop, SessionStart, SessionEnd, PreCompress → PreCompact, Notification. Gemini's
//!   BeforeModel, AfterModel and BeforeToolSelection have no Claude Code event: nothing runs.
//! - **Payloads**: Gemini sends Claude Code's common fields (`session_id`, `transcript_path`, `cwd`,
//!   `hook_event_name`) plus `timestamp`; tool names become Claude Code's
//!   (`run_shell_command` → `Bash`, `replace` → `Edit`, …, `hookbridge_core::tool_names`), their inputs
//!   keep their fields (Gemini's built-in tools use Claude Code's names: `command`, `file_path`,
//!   `old_string`, …); AfterAgent's `prompt_response` is Stop's `last_assistant_message`;
//!   Notification's `ToolPermission` is `permission_prompt`. Every other field is kept.
//! - **Answers**: always exit 0 with one JSON object on stdout, which Gemini reads for every event:
//!   a block (exit 2, `decision: block`, a PreToolUse deny) is `decision: "deny"` with its reason
//!   (Gemini denies the tool, the prompt, or — on AfterAgent — retries with the reason, as Claude
//!   Code's Stop block continues); `ask`/`allow` permission decisions become `decision: ask|allow`;
//!   `updatedInput` is `hookSpecificOutput.tool_input`; contexts are
//!   `hookSpecificOutput.additionalContext` (on AfterTool, BeforeAgent, SessionStart);
//!   `systemMessage`, `continue: false` + `stopReason` and `suppressOutput` keep their names.
//!   Nothing to say: no output.

use hookbridge_core::decision::{EventDecision, PermissionDecision};
use hookbridge_core::event::EventName;
use hookbridge_core::tool_names::claude_tool_name_for_gemini;
use std::path::Path;

use serde_json::{json, Map, Value};

use super::EventTable;

/// Gemini CLI's events and Claude Code's.
pub const EVENTS: EventTable = &[
    ("BeforeTool", EventName::PreToolUse, None),
    ("AfterTool", EventName::PostToolUse, None),
    ("BeforeAgent", EventName::UserPromptSubmit, None),
    ("AfterAgent", EventName::Stop, None),
    ("SessionStart", EventName::SessionStart, None),
    ("SessionEnd", EventName::SessionEnd, None),
    ("Notification", EventName::Notification, None),
    ("PreCompress", EventName::PreCompact, None),
];

/// Gemini CLI's events that no Claude Code event corresponds to (model-level hooks).
pub const WITHOUT_CLAUDE_EVENT: &[&str] = &["BeforeModel", "AfterModel", "BeforeToolSelection"];

/// What a Gemini event is for hookbridge.
pub enum GeminiEvent {
    /// It fires this Claude Code event.
    Claude(EventName),
    /// A Gemini event with no Claude Code counterpart: no hook runs.
    NoCounterpart,
}

/// Gemini's `event`, or `None` for a name Gemini CLI does not fire.
pub fn event(name: &str) -> Option<GeminiEvent> {
    if WITHOUT_CLAUDE_EVENT.contains(&name) {
        return Some(GeminiEvent::NoCounterpart);
    }
    let (_, claude, _) = EVENTS.iter().find(|(gemini, _, _)| *gemini == name)?;
    Some(GeminiEvent::Claude(claude.clone()))
}

/// Every event name Gemini CLI fires, for messages.
pub fn event_names() -> Vec<&'static str> {
    EVENTS
        .iter()
        .map(|(g, _, _)| *g)
        .chain(WITHOUT_CLAUDE_EVENT.iter().copied())
        .collect()
}

/// Gemini's payload `fields` as Claude Code's payload for `claude` (see the module doc).
pub fn claude_payload(claude: &EventName, mut fields: Map<String, Value>) -> Map<String, Value> {
    fields.insert(
        "hook_event_name".into(),
        Value::String(claude.as_str().to_string()),
    );
    if let Some(Value::String(tool)) = fields.get("tool_name") {
        let name = claude_tool_name_for_gemini(tool).to_string();
        fields.insert("tool_name".into(), Value::String(name));
    }
    match claude.as_str() {
        "Stop" => {
            if let Some(response) = fields.get("prompt_response").cloned() {
                fields.entry("last_assistant_message").or_insert(response);
            }
            fields.entry("stop_hook_active").or_insert(Value::Bool(false));
        }
        "Notification"
            if fields.get("notification_type").and_then(Value::as_str) == Some("ToolPermission") =>
        {
            fields.insert("notification_type".into(), json!("permission_prompt"));
        }
        _ => {}
    }
    fields
}

/// Gemini CLI's answer to a hook (its `HookOutput`), in the order its fields are printed; unset
/// ones are left out.
#[derive(Debug, Default, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GeminiAnswer {
    #[serde(skip_serializing_if = "Option::is_none")]
    decision: Option<GeminiDecision>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    system_message: Option<String>,
    #[serde(rename = "continue", skip_serializing_if = "Option::is_none")]
    continue_: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stop_reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    suppress_output: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hook_specific_output: Option<GeminiSpecific>,
}

/// Gemini CLI's `decision` words.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
enum GeminiDecision {
    Deny,
    Allow,
    Ask,
}

/// Gemini CLI's `hookSpecificOutput`.
#[derive(Debug, Default, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct GeminiSpecific {
    /// The tool input to use instead (Claude Code's `updatedInput`).
    #[serde(rename = "tool_input", skip_serializing_if = "Option::is_none")]
    tool_input: Option<Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    additional_context: Option<String>,
    hook_event_name: String,
}

/// The answer Gemini CLI reads for `gemini_event` from `decision`, if there is anything to say.
pub fn answer(gemini_event: &str, decision: &EventDecision) -> Option<GeminiAnswer> {
    let mut out = GeminiAnswer::default();
    if let Some(block) = &decision.blocking {
        out.decision = Some(GeminiDecision::Deny);
        out.reason = Some(block.message().trim_end().to_string());
    } else if let Some(permission) = decision.permission {
        out.decision = match permission {
            PermissionDecision::Allow => Some(GeminiDecision::Allow),
            PermissionDecision::Ask => Some(GeminiDecision::Ask),
            // Deny comes with a block (above); defer is Claude Code's "no opinion".
            PermissionDecision::Deny | PermissionDecision::Defer => None,
        };
        if out.decision.is_some() {
            out.reason = decision.permission_reason.clone();
        }
    }
    let mut specific = GeminiSpecific {
        tool_input: decision
            .updated_input
            .as_ref()
            .and_then(Value::as_object)
            .cloned(),
        ..GeminiSpecific::default()
    };
    // Gemini CLI joins the contexts of several hooks with a newline, in the order the hooks are
    // configured (measured: tests/hosts/gemini/cases/after_tool_two_contexts).
    let mut contexts: Vec<&hookbridge_core::decision::Context> =
        decision.contexts.iter().filter(|c| !c.text.is_empty()).collect();
    contexts.sort_by_key(|c| c.hook);
    if !contexts.is_empty() {
        let texts: Vec<&str> = contexts.iter().map(|c| c.text.as_str()).collect();
        specific.additional_context = Some(texts.join("\n"));
    }
    if !decision.system_messages.is_empty() {
        out.system_message = Some(decision.system_messages.join("\n"));
    }
    if let Some(stop) = &decision.stop {
        out.continue_ = Some(false);
        out.stop_reason = stop.reason.clone();
    }
    if decision.suppress_output {
        out.suppress_output = Some(true);
    }
    if specific.tool_input.is_some() || specific.additional_context.is_some() {
        specific.hook_event_name = gemini_event.to_string();
        out.hook_specific_output = Some(specific);
    }
    (out != GeminiAnswer::default()).then_some(out)
}

/// Gemini CLI as a [`Host`](super::Host).
pub struct Gemini;

/// `install-into gemini`: `.gemini/settings.json`, in Claude Code's shape with milliseconds.
impl super::HostInstall for Gemini {
    fn hooks_file(&self) -> super::HooksFile {
        super::HooksFile::Agent(super::AgentHooksFile {
            name: ".gemini/settings.json",
            events: EVENTS
                .iter()
                .map(|(gemini, claude, _)| (*gemini, claude.clone()))
                .collect(),
            per_second: 1000,
        })
    }
}

impl super::Host for Gemini {
    /// Gemini CLI's trusted folders, read as it reads them (0.61: `checkPathTrust`):
    /// `GEMINI_RESTRICTED_MODE=true` or `GEMINI_CLI_TRUST_WORKSPACE=false` trust nothing,
    /// `GEMINI_CLI_TRUST_WORKSPACE=true` everything; with `security.folderTrust.enabled` off in
    /// `~/.gemini/settings.json` every folder is trusted; otherwise the longest rule of
    /// `~/.gemini/trustedFolders.json` that covers the folder decides (`TRUST_FOLDER`, `TRUST_PARENT`
    /// for the rule's parent, `DO_NOT_TRUST`), and no rule is no trust.
    fn folder_trust(&self, project: &Path, home: Option<&Path>) -> Result<(), String> {
        let var = |name: &str| std::env::var(name).ok();
        if var("GEMINI_RESTRICTED_MODE").as_deref() == Some("true")
            || var("GEMINI_CLI_TRUST_WORKSPACE").as_deref() == Some("false")
        {
            return Err("Gemini CLI runs in restricted mode".into());
        }
        if var("GEMINI_CLI_TRUST_WORKSPACE").as_deref() == Some("true") {
            return Ok(());
        }
        let Some(home) = home else {
            return Ok(());
        };
        let read = |path: &Path| -> Option<Value> {
            let text = hookbridge_core::config::read_bounded(path, hookbridge_core::config::MAX_CONFIG_BYTES)
                .ok()?;
            serde_json::from_str(&strip_line_comments(&text)).ok()
        };
        let enabled = read(&home.join(".gemini/settings.json"))
            .and_then(|s| {
                s.pointer("/security/folderTrust/enabled")
                    .and_then(Value::as_bool)
            })
            .unwrap_or(false);
        if !enabled {
            return Ok(());
        }
        let rules_file = home.join(".gemini/trustedFolders.json");
        let rules = read(&rules_file)
            .and_then(|v| v.as_object().cloned())
            .unwrap_or_default();
        let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let location = real(project);
        let decided = rules
            .iter()
            .filter_map(|(rule, level)| {
                let level = level.as_str()?;
                let covered = if level == "TRUST_PARENT" {
                    Path::new(rule).parent().map(real)
                } else {
                    Some(real(Path::new(rule)))
                }?;
                location.starts_with(&covered).then_some((rule.len(), level))
            })
            .max_by_key(|(len, _)| *len)
            .map(|(_, level)| level);
        match decided {
            Some("TRUST_FOLDER" | "TRUST_PARENT") => Ok(()),
            Some(_) => Err(format!("{} says DO_NOT_TRUST", rules_file.display())),
            None => Err(format!("no rule of {} trusts it", rules_file.display())),
        }
    }

    fn claude_event(&self, name: &str) -> Result<Option<EventName>, String> {
        match event(name) {
            Some(GeminiEvent::Claude(event)) => Ok(Some(event)),
            Some(GeminiEvent::NoCounterpart) => Ok(None),
            None => Err(format!(
                "`{name}` is not a Gemini CLI event; expected one of: {}",
                event_names().join(", ")
            )),
        }
    }

    fn claude_payload(&self, event: &EventName, fields: Map<String, Value>) -> Map<String, Value> {
        claude_payload(event, fields)
    }

    fn answer(
        &self,
        ctx: &super::AnswerContext<'_>,
        report: &hookbridge_runner::EventReport,
    ) -> (hookbridge_core::decision::ClaudeAnswer, Vec<String>) {
        let stdout = answer(ctx.host_event, &report.decision)
            .map(|answer| {
                format!(
                    "{}\n",
                    serde_json::to_string(&answer).expect("an answer serializes")
                )
            })
            .unwrap_or_default();
        let answer = hookbridge_core::decision::ClaudeAnswer {
            exit_code: 0,
            stdout: hookbridge_core::decision::Stdout::Text(stdout),
            stderr: String::new(),
        };
        (answer, Vec::new())
    }
}

/// JSON with `//` line comments (Gemini CLI's settings files allow them) as plain JSON: a `//`
/// outside a string starts a comment to the end of the line.
fn strip_line_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let mut in_string = false;
        let mut escaped = false;
        let mut end = line.len();
        let bytes = line.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            match b {
                _ if escaped => escaped = false,
                b'\\' if in_string => escaped = true,
                b'"' => in_string = !in_string,
                b'/' if !in_string && bytes.get(i + 1) == Some(&b'/') => {
                    end = i;
                    break;
                }
                _ => {}
            }
        }
        out.push_str(&line[..end]);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_map_both_ways_and_model_events_have_no_counterpart() {
        assert!(matches!(event("BeforeTool"), Some(GeminiEvent::Claude(e)) if e.as_str() == "PreToolUse"));
        assert!(matches!(event("AfterAgent"), Some(GeminiEvent::Claude(e)) if e.as_str() == "Stop"));
        assert!(matches!(event("BeforeModel"), Some(GeminiEvent::NoCounterpart)));
        assert!(event("PreToolUse").is_none());
        assert_eq!(event_names().len(), 11);
    }

    #[test]
    fn payloads_get_claude_codes_names() {
        let stop = EventName::parse("Stop").unwrap();
        let fields = json!({"hook_event_name": "AfterAgent", "prompt": "p", "prompt_response": "done"});
        let out = claude_payload(&stop, fields.as_object().unwrap().clone());
        assert_eq!(out["hook_event_name"], "Stop");
        assert_eq!(out["last_assistant_message"], "done");
        assert_eq!(out["stop_hook_active"], false);
        let pre = EventName::parse("PreToolUse").unwrap();
        let fields = json!({"tool_name": "run_shell_command", "tool_input": {"command": "ls"}});
        let out = claude_payload(&pre, fields.as_object().unwrap().clone());
        assert_eq!(
            (out["tool_name"].as_str(), out["hook_event_name"].as_str()),
            (Some("Bash"), Some("PreToolUse"))
        );
        let fields = json!({"tool_name": "mcp_github_issue", "tool_input": {}});
        assert_eq!(
            claude_payload(&pre, fields.as_object().unwrap().clone())["tool_name"],
            "mcp_github_issue"
        );
    }

    #[test]
    fn nothing_decided_is_no_answer() {
        assert_eq!(answer("BeforeTool", &EventDecision::default()), None);
    }
}
