//! One hook's answer, as types: its JSON (`HookJson`, `SpecificOutput`), what its output says
//! (`HookOutput`), and the [`HookAnswer`] the merge reads. How a run becomes one is [`super::read`].
//!
//! `HookJson` is Claude Code's answer on the wire both ways: read from each hook once, and built
//! by every renderer of hookbridge's own answer (Claude Code's, each host's fit, the async
//! channels, the seed dialect's rewrite), then serialized at the edge. Its field names are
//! defined here, by serde, and in the output schema's table, which a test holds to these fields.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::event::EventName;

use super::execution::{CancelReason, NotRunReason};

/// PreToolUse's permission decision, in increasing precedence: deny > defer > ask > allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PermissionDecision {
    Allow,
    Ask,
    Defer,
    Deny,
}

impl PermissionDecision {
    pub fn parse(s: &str) -> Option<PermissionDecision> {
        match s {
            "allow" => Some(PermissionDecision::Allow),
            "ask" => Some(PermissionDecision::Ask),
            "defer" => Some(PermissionDecision::Defer),
            "deny" => Some(PermissionDecision::Deny),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            PermissionDecision::Allow => "allow",
            PermissionDecision::Ask => "ask",
            PermissionDecision::Defer => "defer",
            PermissionDecision::Deny => "deny",
        }
    }
}

/// A hook's JSON answer (stdout that starts with `{` and parses as an object), and hookbridge's
/// own answer to Claude Code as it is built and serialized (fields in the order they are printed;
/// unset ones are left out; the seed's fields and `raw` are read-side only). Read leniently: a
/// field of the wrong type reads as absent, as Claude Code reads it (the output schema drops such
/// an answer whole before it is read; an answer built by hand may still have one).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookJson {
    /// `continue` (default true).
    #[serde(
        rename = "continue",
        skip_serializing_if = "Option::is_none",
        default,
        deserialize_with = "lenient"
    )]
    pub continue_: Option<bool>,
    #[serde(
        skip_serializing_if = "Option::is_none",
        default,
        deserialize_with = "lenient"
    )]
    pub stop_reason: Option<String>,
    #[serde(
        skip_serializing_if = "Option::is_none",
        default,
        deserialize_with = "lenient"
    )]
    pub system_message: Option<String>,
    #[serde(
        skip_serializing_if = "Option::is_none",
        default,
        deserialize_with = "lenient"
    )]
    pub suppress_output: Option<bool>,
    /// Top-level `decision`: `"block"` (and, on PreToolUse, the legacy `"approve"`).
    #[serde(
        skip_serializing_if = "Option::is_none",
        default,
        deserialize_with = "lenient"
    )]
    pub decision: Option<TopDecision>,
    #[serde(
        skip_serializing_if = "Option::is_none",
        default,
        deserialize_with = "lenient"
    )]
    pub reason: Option<String>,
    /// `hookSpecificOutput`, only when its `hookEventName` names this event, or one whose answer
    /// this event reads ([`EventTraits::answers_also_as`](crate::event::EventTraits)); otherwise
    /// Claude Code ignores the whole object (conformance case 50).
    #[serde(
        rename = "hookSpecificOutput",
        skip_serializing_if = "Option::is_none",
        default,
        deserialize_with = "lenient"
    )]
    pub specific: Option<SpecificOutput>,
    /// The Amplifier shell-hooks seed's own fields: `contextInjection` and `newContent`.
    #[serde(skip_serializing, default, deserialize_with = "lenient")]
    pub context_injection: Option<String>,
    #[serde(skip_serializing, default, deserialize_with = "present")]
    pub new_content: Option<Value>,
    /// The object as the hook printed it (empty in an answer hookbridge builds).
    #[serde(skip)]
    pub raw: Map<String, Value>,
}

/// The top-level `decision`, with the only values Claude Code's output schema accepts (any
/// other makes the whole answer fail the schema).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TopDecision {
    /// The legacy PreToolUse `allow`.
    Approve,
    Block,
}

impl TopDecision {
    /// One of [`TOP_DECISIONS`](super::output_schema::TOP_DECISIONS).
    pub fn parse(word: &str) -> Option<TopDecision> {
        match word {
            "approve" => Some(TopDecision::Approve),
            "block" => Some(TopDecision::Block),
            _ => None,
        }
    }
}

/// `hookSpecificOutput`, read once: the fields Claude Code acts on, typed, and every other field
/// as printed. The output schema ([`output_schema::HOOK_SPECIFIC`](super::output_schema::HOOK_SPECIFIC))
/// has checked the types of the typed ones before an answer is read (a wrong one drops the answer
/// whole); a field of another type read here anyway (an answer built by hand) counts as absent.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpecificOutput {
    /// `hookEventName`: the event the object names (this event, or one whose answer it reads).
    #[serde(default, deserialize_with = "lenient_or_empty")]
    pub hook_event_name: String,
    /// PreToolUse: `updatedInput`, the tool input to use instead.
    #[serde(
        skip_serializing_if = "Option::is_none",
        default,
        deserialize_with = "lenient"
    )]
    pub updated_input: Option<Map<String, Value>>,
    /// Every field not typed here, as printed:
    /// `updatedMCPToolOutput`, `watchPaths`, … are passed on as they are.
    #[serde(flatten)]
    pub other: Map<String, Value>,
    /// `additionalContext`: context for the model, on every event that takes one.
    #[serde(
        skip_serializing_if = "Option::is_none",
        default,
        deserialize_with = "lenient"
    )]
    pub additional_context: Option<String>,
    /// PreToolUse: `permissionDecision`.
    #[serde(
        skip_serializing_if = "Option::is_none",
        default,
        deserialize_with = "lenient"
    )]
    pub permission_decision: Option<PermissionDecision>,
    /// PreToolUse: `permissionDecisionReason` (kept even when empty).
    #[serde(
        skip_serializing_if = "Option::is_none",
        default,
        deserialize_with = "lenient"
    )]
    pub permission_decision_reason: Option<String>,
    /// PermissionRequest: `decision`, when its `behavior` decides (`allow` or `deny`); one that
    /// decides nothing is read as absent (and is not among `other`).
    #[serde(
        rename = "decision",
        skip_serializing_if = "Option::is_none",
        default,
        deserialize_with = "deciding"
    )]
    pub request_decision: Option<RequestDecision>,
}

/// A PermissionRequest hook's `decision`: its `behavior`, and the object as printed (Claude Code
/// reads `updatedInput`, `updatedPermissions`, `message` and `interrupt` from it). Serialized as
/// printed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestDecision {
    #[serde(skip)]
    pub allow: bool,
    #[serde(flatten)]
    pub raw: Map<String, Value>,
}

impl RequestDecision {
    /// `raw` when its `behavior` decides: `allow` or `deny`.
    pub fn from_raw(raw: Map<String, Value>) -> Option<RequestDecision> {
        let allow = match raw.get("behavior").and_then(Value::as_str) {
            Some("allow") => true,
            Some("deny") => false,
            _ => return None,
        };
        Some(RequestDecision { allow, raw })
    }

    /// A field of the decision as printed (`message`, `updatedInput`, `interrupt`, …).
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.raw.get(key)
    }
}

/// A field as its type reads it, or absent when it holds another type.
fn lenient<'de, D: Deserializer<'de>, T: serde::de::DeserializeOwned>(d: D) -> Result<Option<T>, D::Error> {
    Ok(serde_json::from_value(Value::deserialize(d)?).ok())
}

/// A string field, empty when it holds something else.
fn lenient_or_empty<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(lenient(d)?.unwrap_or_default())
}

/// A field of any value, `null` included: present is `Some`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// PermissionRequest's `decision` object when its `behavior` decides.
fn deciding<'de, D: Deserializer<'de>>(d: D) -> Result<Option<RequestDecision>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Object(raw) => RequestDecision::from_raw(raw),
        _ => None,
    })
}

impl SpecificOutput {
    /// An object for `event` with nothing in it yet.
    pub fn for_event(event: &EventName) -> SpecificOutput {
        SpecificOutput {
            hook_event_name: event.as_str().to_string(),
            ..SpecificOutput::default()
        }
    }

    /// Whether it says nothing besides the event's name.
    pub fn is_empty(&self) -> bool {
        let SpecificOutput {
            hook_event_name: _,
            updated_input,
            other,
            additional_context,
            permission_decision,
            permission_decision_reason,
            request_decision,
        } = self;
        updated_input.is_none()
            && other.is_empty()
            && additional_context.is_none()
            && permission_decision.is_none()
            && permission_decision_reason.is_none()
            && request_decision.is_none()
    }

    /// Read `object` (a `hookSpecificOutput` that names the event).
    pub fn from_object(object: &Map<String, Value>) -> SpecificOutput {
        SpecificOutput::deserialize(&Value::Object(object.clone())).unwrap_or_default()
    }
}

impl HookJson {
    /// The seed's field for context (read as `additionalContext` is).
    pub const CONTEXT_INJECTION: &'static str = "contextInjection";
    /// The seed's field for a rewritten prompt.
    pub const NEW_CONTENT: &'static str = "newContent";
    /// The seed's own fields, read beside Claude Code's.
    pub const SEED_FIELDS: [&'static str; 2] = [Self::CONTEXT_INJECTION, Self::NEW_CONTENT];

    /// Whether it says nothing Claude Code reads: an answer hookbridge builds prints nothing then.
    pub fn says_nothing(&self) -> bool {
        let HookJson {
            continue_,
            stop_reason,
            system_message,
            suppress_output,
            decision,
            reason,
            specific,
            context_injection: _,
            new_content: _,
            raw: _,
        } = self;
        continue_.is_none()
            && stop_reason.is_none()
            && system_message.is_none()
            && suppress_output.is_none()
            && decision.is_none()
            && reason.is_none()
            && specific.is_none()
    }

    /// `hookSpecificOutput` for `event`, made when first needed.
    pub fn specific_for(&mut self, event: &EventName) -> &mut SpecificOutput {
        self.specific
            .get_or_insert_with(|| SpecificOutput::for_event(event))
    }

    /// Read the fields Claude Code knows; a field of the wrong type is ignored, as Claude Code does.
    pub fn from_object(event: &EventName, raw: Map<String, Value>) -> HookJson {
        let raw = Value::Object(raw);
        // Every field reads leniently, so an object always reads.
        let mut json = HookJson::deserialize(&raw).unwrap_or_default();
        json.specific = json.specific.filter(|s| {
            let name = s.hook_event_name.as_str();
            name == event.as_str() || event.traits().answers_also_as.contains(&name)
        });
        let Value::Object(raw) = raw else {
            unreachable!("made an object above")
        };
        json.raw = raw;
        json
    }

    /// `hookSpecificOutput.additionalContext`.
    pub fn additional_context(&self) -> Option<&str> {
        self.specific.as_ref()?.additional_context.as_deref()
    }

    /// `hookSpecificOutput.permissionDecision` (PreToolUse).
    pub fn permission_decision(&self) -> Option<PermissionDecision> {
        self.specific.as_ref()?.permission_decision
    }

    /// `hookSpecificOutput.permissionDecisionReason` (PreToolUse).
    pub fn permission_decision_reason(&self) -> Option<&str> {
        self.specific.as_ref()?.permission_decision_reason.as_deref()
    }

    /// `hookSpecificOutput.updatedInput` (PreToolUse).
    pub fn updated_input(&self) -> Option<&Map<String, Value>> {
        self.specific.as_ref()?.updated_input.as_ref()
    }

    /// `hookSpecificOutput.decision` when it decides (PermissionRequest).
    pub fn request_decision(&self) -> Option<&RequestDecision> {
        self.specific.as_ref()?.request_decision.as_ref()
    }
}

/// What a successful hook printed.
#[derive(Debug, Clone, PartialEq)]
pub enum HookOutput {
    Empty,
    /// Not JSON (or not an object, or invalid JSON): plain text.
    Plain(String),
    Json(Box<HookJson>),
    /// Output Claude Code throws away whole: JSON-looking text that does not parse (starts with
    /// `{` and ends with `}`), or JSON that fails the output schema (cases 135, 136).
    Dropped(String),
}

/// Why a hook gave no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoVerdictReason {
    TimedOut,
    CouldNotStart(super::SpawnFailure),
    /// An `async: true` hook, left running in the background.
    InBackground,
    /// Not run: it cannot run here.
    NotRun(NotRunReason),
    /// Stopped before it finished: another hook decided the event, or the run was stopped.
    Cancelled(CancelReason),
}

impl std::fmt::Display for NoVerdictReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoVerdictReason::TimedOut => f.write_str("timed out"),
            NoVerdictReason::CouldNotStart(why) => write!(f, "could not start: {why}"),
            NoVerdictReason::InBackground => f.write_str("running in the background (async)"),
            NoVerdictReason::NotRun(why) => why.fmt(f),
            NoVerdictReason::Cancelled(why) => f.write_str(why.as_str()),
        }
    }
}

/// One hook's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum HookAnswer {
    /// Exit 0 (or another code with a JSON object, which then decides).
    Output(HookOutput),
    /// Exit 2: a blocking error. Its message is the JSON block/deny reason if stdout has one, else
    /// stderr; JSON `additionalContext` still counts (measured cases 101, 147); a JSON `allow`
    /// does not lift the block (case 13).
    Blocking {
        stderr: String,
        json: Option<Box<HookJson>>,
    },
    /// Any other exit code, or death by a signal: reported, never blocking.
    NonBlockingError { code: Option<i32>, stderr: String },
    /// No answer at all.
    NoVerdict { why: NoVerdictReason },
    /// A `prompt` or `agent` hook's `ok: false` where it blocks: Claude Code shows it as a blocking
    /// error `[<label>]: <reason>`, like an exit-2 block; `stops_turn` where it also ends the turn
    /// (see [`verdict_answer`](super::verdict_answer)).
    Rejected {
        label: String,
        reason: String,
        stops_turn: bool,
    },
    /// An `agent` hook's `ok: false` where it blocks: Claude Code shows `reason` as it shows a
    /// JSON block's (see [`verdict_answer`](super::verdict_answer)).
    Denied { reason: String },
    /// `continue: false` with this reason, from a judge (a prompt hook's `ok: false` on TeammateIdle).
    Stopped { reason: String },
    /// A hook that is not a process could not answer (unreachable endpoint, HTTP error status,
    /// unreadable model reply, MCP `isError`): a non-blocking error.
    Failed(super::HookFailure),
}

impl HookAnswer {
    /// Whether this answer is a failure of the hook (not a decision): what `on_failure` governs.
    pub fn is_failure(&self) -> bool {
        matches!(
            self,
            HookAnswer::NonBlockingError { .. }
                | HookAnswer::NoVerdict { .. }
                | HookAnswer::Failed(_)
                | HookAnswer::Output(HookOutput::Dropped(_))
        )
    }
}

/// What Claude Code shows the model, on a later request, of an `async: true` hook's answer: its
/// `systemMessage` and `additionalContext`, one per line, as one system block (measured, shared
/// case 81). An async exit 2 or plain output is not delivered.
pub fn async_delivery(answer: &HookAnswer) -> Option<String> {
    let HookAnswer::Output(HookOutput::Json(json)) = answer else {
        return None;
    };
    let pieces: Vec<&str> = [json.system_message.as_deref(), json.additional_context()]
        .into_iter()
        .flatten()
        .filter(|piece| !piece.is_empty())
        .collect();
    (!pieces.is_empty()).then(|| pieces.join("\n"))
}
