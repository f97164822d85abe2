//! `HookResult` and `ContextInjection`: what an Amplifier hook handler answers, field for field
//! the pydantic models of amplifier-core 2.0.2 (`amplifier_core.models`).
//!
//! The one design decision: the serde shape *is* the wire contract. Serializing gives exactly the
//! keys, order and defaults of `HookResult.model_dump(mode="json")`, and deserializing is as strict
//! as the kernel's own serde model, which is what amplifier-core 2.0.2 runs a Python handler's
//! answer through: every field may be left out (partial dicts are fine), unknown keys are ignored,
//! but a present field of the wrong type (`"ephemeral": "yes"`, `"reason": 5`,
//! `"action": null`) is an error. The registry turns such an error into a fail-closed deny (see
//! [`super::registry`]), so this strictness is observable and must not be relaxed.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What a handler asks the registry to do. Serialized in snake_case (`"inject_context"`).
///
/// The documented precedence when several handlers answer is
/// `deny > ask_user > inject_context > modify > continue` (see [`super::registry::EmitFold`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HookAction {
    /// Proceed normally (the default).
    #[default]
    Continue,
    /// Block the operation; short-circuits the handler chain.
    Deny,
    /// Replace the event data with [`HookResult::data`] for the following handlers.
    Modify,
    /// Add [`HookResult::context_injection`] (or [`HookResult::context_injections`]) to the
    /// agent's context.
    InjectContext,
    /// Ask the user for approval before proceeding.
    AskUser,
}

impl HookAction {
    /// The wire name, as in Python (`"inject_context"`).
    pub fn as_str(self) -> &'static str {
        match self {
            HookAction::Continue => "continue",
            HookAction::Deny => "deny",
            HookAction::Modify => "modify",
            HookAction::InjectContext => "inject_context",
            HookAction::AskUser => "ask_user",
        }
    }
}

/// The conversation role an injected message takes. Default `system`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InjectionRole {
    /// Environmental feedback (the default, recommended by Amplifier).
    #[default]
    System,
    /// Simulated user input.
    User,
    /// Agent self-talk.
    Assistant,
}

/// Severity of [`HookResult::user_message`]. Default `info`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageLevel {
    /// Status update (the default).
    #[default]
    Info,
    /// Non-critical issue.
    Warning,
    /// Failure.
    Error,
}

/// The decision taken when an approval request times out or fails. Default `deny`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalDefault {
    /// Proceed on timeout.
    Allow,
    /// Block on timeout (the default: the safe choice).
    #[default]
    Deny,
}

/// The default of [`HookResult::approval_timeout`], in seconds (five minutes).
pub const DEFAULT_APPROVAL_TIMEOUT: f64 = 300.0;

/// The default of [`ContextInjection::hook_name`].
pub const UNKNOWN_HOOK_NAME: &str = "unknown";

/// One ordered context injection (new in amplifier-core 2.0.x).
///
/// The registry stamps `hook_name` (the handler's registered name) and `event` on every injection
/// it collects from an `inject_context` result; injections riding on other actions keep whatever
/// the handler put there (by default `"unknown"` and `""`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContextInjection {
    /// The text to inject. The only required field.
    pub content: String,
    /// Role of the injected message.
    #[serde(default)]
    pub role: InjectionRole,
    /// Temporary: only for the current LLM call, not stored in history.
    #[serde(default)]
    pub ephemeral: bool,
    /// Append to the last tool result message instead of adding a new message.
    #[serde(default)]
    pub append_to_last_tool_result: bool,
    /// Name of the handler that produced the injection.
    #[serde(default = "unknown_hook_name")]
    pub hook_name: String,
    /// The event during which the injection was produced.
    #[serde(default)]
    pub event: String,
}

fn unknown_hook_name() -> String {
    UNKNOWN_HOOK_NAME.to_owned()
}

impl ContextInjection {
    /// An injection of `content` with every other field at its default.
    pub fn new(content: impl Into<String>) -> Self {
        ContextInjection {
            content: content.into(),
            role: InjectionRole::default(),
            ephemeral: false,
            append_to_last_tool_result: false,
            hook_name: unknown_hook_name(),
            event: String::new(),
        }
    }
}

/// The answer of one hook handler (amplifier-core 2.0.2 `HookResult`).
///
/// Field order, names and defaults are those of the pydantic model, so
/// `serde_json::to_value(&result)` equals `HookResult.model_dump(mode="json")`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HookResult {
    /// What to do. Default `continue`.
    pub action: HookAction,
    /// Event data. For `modify` it replaces the data seen by the following handlers. Must be a
    /// JSON object when present (a list or a number is a parse error).
    pub data: Option<Map<String, Value>>,
    /// Explanation for a deny or a modification; shown to the agent when blocked.
    pub reason: Option<String>,
    /// Text to inject into the agent's context (for `inject_context`).
    pub context_injection: Option<String>,
    /// Role of the injected message. Default `system`.
    pub context_injection_role: InjectionRole,
    /// The injection is only for the current LLM call, not stored in history.
    pub ephemeral: bool,
    /// Question to ask the user (for `ask_user`).
    pub approval_prompt: Option<String>,
    /// Choices offered to the user; `None` means `["Allow", "Deny"]`.
    pub approval_options: Option<Vec<String>>,
    /// Seconds to wait for the user. Default 300.0.
    pub approval_timeout: f64,
    /// Decision on timeout or error. Default `deny`.
    pub approval_default: ApprovalDefault,
    /// Hide the hook's own output from the user transcript.
    pub suppress_output: bool,
    /// Message to display to the user (separate from the context injection).
    pub user_message: Option<String>,
    /// Severity of `user_message`. Default `info`.
    pub user_message_level: MessageLevel,
    /// Label for `user_message`; `None` falls back to the hook name given by the orchestrator.
    pub user_message_source: Option<String>,
    /// With `ephemeral`, append the injection to the last tool result instead of a new message.
    pub append_to_last_tool_result: bool,
    /// Ordered, lossless injections (new in 2.0.x). The registry projects the legacy scalar
    /// fields (`context_injection`, `context_injection_role`, `ephemeral`,
    /// `append_to_last_tool_result`) from these.
    pub context_injections: Vec<ContextInjection>,
}

impl Default for HookResult {
    fn default() -> Self {
        HookResult {
            action: HookAction::Continue,
            data: None,
            reason: None,
            context_injection: None,
            context_injection_role: InjectionRole::System,
            ephemeral: false,
            approval_prompt: None,
            approval_options: None,
            approval_timeout: DEFAULT_APPROVAL_TIMEOUT,
            approval_default: ApprovalDefault::Deny,
            suppress_output: false,
            user_message: None,
            user_message_level: MessageLevel::Info,
            user_message_source: None,
            append_to_last_tool_result: false,
            context_injections: Vec::new(),
        }
    }
}

impl HookResult {
    /// A default result with the given action.
    pub fn with_action(action: HookAction) -> Self {
        HookResult {
            action,
            ..HookResult::default()
        }
    }

    /// `continue` carrying `data`.
    pub fn continue_with(data: Map<String, Value>) -> Self {
        HookResult {
            data: Some(data),
            ..HookResult::default()
        }
    }

    /// `deny` with a reason.
    pub fn deny(reason: impl Into<String>) -> Self {
        HookResult {
            action: HookAction::Deny,
            reason: Some(reason.into()),
            ..HookResult::default()
        }
    }

    /// Parses a handler's answer given as JSON text, with the kernel's strictness (see the module
    /// docs). `null` is *not* accepted here: a handler returning `None` means `continue`, which the
    /// caller maps to [`HookResult::default`] before parsing.
    pub fn from_json_str(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// Like [`HookResult::from_json_str`], from an already parsed value.
    pub fn from_value(value: Value) -> Result<Self, serde_json::Error> {
        serde_json::from_value(value)
    }

    /// The JSON object `HookResult.model_dump(mode="json")` gives.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("a HookResult always serializes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `HookResult().model_dump(mode="json")` from amplifier-core 2.0.2, in its key order.
    fn python_default_dump() -> Value {
        json!({
            "action": "continue", "data": null, "reason": null, "context_injection": null,
            "context_injection_role": "system", "ephemeral": false, "approval_prompt": null,
            "approval_options": null, "approval_timeout": 300.0, "approval_default": "deny",
            "suppress_output": false, "user_message": null, "user_message_level": "info",
            "user_message_source": null, "append_to_last_tool_result": false, "context_injections": []
        })
    }

    #[test]
    fn default_serializes_like_model_dump_including_key_order() {
        let ours = serde_json::to_string(&HookResult::default()).unwrap();
        let theirs = serde_json::to_string(&python_default_dump()).unwrap();
        assert_eq!(ours, theirs);
    }

    #[test]
    fn context_injection_defaults_and_key_order() {
        let ci: ContextInjection = serde_json::from_str(r#"{"content":"x"}"#).unwrap();
        assert_eq!(ci, ContextInjection::new("x"));
        assert_eq!(
            serde_json::to_string(&ci).unwrap(),
            r#"{"content":"x","role":"system","ephemeral":false,"append_to_last_tool_result":false,"hook_name":"unknown","event":""}"#
        );
    }

    #[test]
    fn partial_dicts_parse_with_defaults() {
        type Check = fn(&HookResult) -> bool;
        let cases: &[(&str, Check)] = &[
            ("{}", |r| *r == HookResult::default()),
            (r#"{"action":"deny","reason":"x"}"#, |r| {
                *r == HookResult::deny("x")
            }),
            (r#"{"action":"modify","data":{"a":1}}"#, |r| {
                r.action == HookAction::Modify && r.data.as_ref().unwrap()["a"] == 1
            }),
            (r#"{"data":null,"reason":null}"#, |r| *r == HookResult::default()),
            (r#"{"approval_timeout":5}"#, |r| r.approval_timeout == 5.0),
            (r#"{"unknown":1,"Reason":"x"}"#, |r| *r == HookResult::default()),
            (r#"{"context_injection_role":"assistant"}"#, |r| {
                r.context_injection_role == InjectionRole::Assistant
            }),
            (
                r#"{"user_message_level":"warning","approval_default":"allow"}"#,
                |r| {
                    r.user_message_level == MessageLevel::Warning
                        && r.approval_default == ApprovalDefault::Allow
                },
            ),
            (r#"{"context_injections":[{"content":"a","role":"user"}]}"#, |r| {
                r.context_injections[0].role == InjectionRole::User
                    && r.context_injections[0].hook_name == "unknown"
            }),
        ];
        for (text, check) in cases {
            let parsed = HookResult::from_json_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert!(check(&parsed), "{text} parsed to {parsed:?}");
        }
    }

    /// Each of these made amplifier-core 2.0.2 log "returned unparseable result — failing closed".
    #[test]
    fn wrong_types_are_errors() {
        let cases = [
            r#"{"action":"foo"}"#,
            r#"{"action":null}"#,
            r#"{"action":"modify","data":[1]}"#,
            r#"{"data":5}"#,
            r#"{"reason":5}"#,
            r#"{"reason":1.5}"#,
            r#"{"ephemeral":"yes"}"#,
            r#"{"ephemeral":1}"#,
            r#"{"ephemeral":null}"#,
            r#"{"approval_timeout":"5"}"#,
            r#"{"approval_timeout":null}"#,
            r#"{"context_injection_role":null}"#,
            r#"{"context_injection_role":"bob"}"#,
            r#"{"user_message_level":"WARNING"}"#,
            r#"{"approval_options":[1]}"#,
            r#"{"context_injections":null}"#,
            r#"{"context_injections":[{"role":"user"}]}"#,
            r#""str""#,
            "5",
            "[1]",
            "true",
            "null",
        ];
        for text in cases {
            assert!(
                HookResult::from_json_str(text).is_err(),
                "{text} should not parse"
            );
        }
    }

    #[test]
    fn round_trips_every_field() {
        let full = json!({
            "action": "ask_user", "data": {"k": [1, 2.5, null]}, "reason": "r",
            "context_injection": "c", "context_injection_role": "user", "ephemeral": true,
            "approval_prompt": "p", "approval_options": ["a", "b"], "approval_timeout": 1.5,
            "approval_default": "allow", "suppress_output": true, "user_message": "u",
            "user_message_level": "error", "user_message_source": "s",
            "append_to_last_tool_result": true,
            "context_injections": [{"content": "x", "role": "assistant", "ephemeral": true,
                "append_to_last_tool_result": true, "hook_name": "h", "event": "e"}]
        });
        let parsed = HookResult::from_value(full.clone()).unwrap();
        assert_eq!(parsed.to_value(), full);
        assert_eq!(
            serde_json::to_string(&parsed).unwrap(),
            serde_json::to_string(&full).unwrap()
        );
    }

    #[test]
    fn action_wire_names() {
        for action in [
            HookAction::Continue,
            HookAction::Deny,
            HookAction::Modify,
            HookAction::InjectContext,
            HookAction::AskUser,
        ] {
            assert_eq!(serde_json::to_value(action).unwrap(), json!(action.as_str()));
        }
    }
}
