//! One hook's answer, as types: its JSON (`HookJson`, `SpecificOutput`), what its output says
//! (`HookOutput`), and the [`HookAnswer`] the merge reads. How a run becomes one is [`super::read`].

use serde_json::{Map, Value};

use crate::event::EventName;

use super::execution::{CancelReason, NotRunReason};

/// PreToolUse's permission decision, in increasing precedence: deny > defer > ask > allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
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

/// A hook's JSON answer (stdout that starts with `{` and parses as an object).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HookJson {
    /// `continue` (default true).
    pub continue_: Option<bool>,
    pub stop_reason: Option<String>,
    pub suppress_output: Option<bool>,
    pub system_message: Option<String>,
    /// Top-level `decision`: `"block"` (and, on PreToolUse, the legacy `"approve"`).
    pub decision: Option<TopDecision>,
    pub reason: Option<String>,
    /// `hookSpecificOutput`, only when its `hookEventName` names this event, or one whose answer
    /// this event reads ([`EventTraits::answers_also_as`](crate::event::EventTraits)); otherwise
    /// Claude Code ignores the whole object (conformance case 50).
    pub specific: Option<SpecificOutput>,
    /// The Amplifier shell-hooks seed's own fields: `contextInjection` and `newContent`.
    pub context_injection: Option<String>,
    pub new_content: Option<Value>,
    /// The object as the hook printed it.
    pub raw: Map<String, Value>,
}

/// The top-level `decision`, with the only values Claude Code's output schema accepts (any
/// other makes the whole answer fail the schema).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SpecificOutput {
    /// `additionalContext`: context for the model, on every event that takes one.
    pub additional_context: Option<String>,
    /// PreToolUse: `permissionDecision`.
    pub permission_decision: Option<PermissionDecision>,
    /// PreToolUse: `permissionDecisionReason` (kept even when empty).
    pub permission_decision_reason: Option<String>,
    /// PreToolUse: `updatedInput`, the tool input to use instead.
    pub updated_input: Option<Map<String, Value>>,
    /// PermissionRequest: `decision`, when its `behavior` decides (`allow` or `deny`).
    pub request_decision: Option<RequestDecision>,
    /// Every field not above (nor `hookEventName`, nor a `decision` that decides nothing), as
    /// printed: `updatedMCPToolOutput`, `watchPaths`, … are passed on as they are.
    pub other: Map<String, Value>,
}

/// A PermissionRequest hook's `decision`: its `behavior`, and the object as printed (Claude Code
/// reads `updatedInput`, `updatedPermissions`, `message` and `interrupt` from it).
#[derive(Debug, Clone, PartialEq)]
pub struct RequestDecision {
    pub allow: bool,
    pub raw: Map<String, Value>,
}

impl SpecificOutput {
    /// The names of the fields read into typed fields (besides `hookEventName`).
    pub const TYPED: &'static [&'static str] = &[
        "additionalContext",
        "permissionDecision",
        "permissionDecisionReason",
        "updatedInput",
        "decision",
    ];

    /// Read `object` (a `hookSpecificOutput` that names the event).
    pub fn from_object(object: &Map<String, Value>) -> SpecificOutput {
        let string = |k: &str| object.get(k).and_then(Value::as_str).map(str::to_string);
        SpecificOutput {
            additional_context: string("additionalContext"),
            permission_decision: object
                .get("permissionDecision")
                .and_then(Value::as_str)
                .and_then(PermissionDecision::parse),
            permission_decision_reason: string("permissionDecisionReason"),
            updated_input: object.get("updatedInput").and_then(Value::as_object).cloned(),
            request_decision: object.get("decision").and_then(Value::as_object).and_then(|raw| {
                let allow = match raw.get("behavior").and_then(Value::as_str) {
                    Some("allow") => true,
                    Some("deny") => false,
                    _ => return None,
                };
                Some(RequestDecision {
                    allow,
                    raw: raw.clone(),
                })
            }),
            other: object
                .iter()
                .filter(|(k, _)| *k != "hookEventName" && !Self::TYPED.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        }
    }
}

impl HookJson {
    /// Read the fields Claude Code knows; a field of the wrong type is ignored, as Claude Code does.
    pub fn from_object(event: &EventName, raw: Map<String, Value>) -> HookJson {
        let string = |k: &str| raw.get(k).and_then(Value::as_str).map(str::to_string);
        let boolean = |k: &str| raw.get(k).and_then(Value::as_bool);
        let specific = raw
            .get("hookSpecificOutput")
            .and_then(Value::as_object)
            .filter(|o| {
                o.get("hookEventName")
                    .and_then(Value::as_str)
                    .is_some_and(|name| {
                        name == event.as_str() || event.traits().answers_also_as.contains(&name)
                    })
            })
            .map(SpecificOutput::from_object);
        HookJson {
            continue_: boolean("continue"),
            stop_reason: string("stopReason"),
            suppress_output: boolean("suppressOutput"),
            system_message: string("systemMessage"),
            decision: raw
                .get("decision")
                .and_then(Value::as_str)
                .and_then(TopDecision::parse),
            reason: string("reason"),
            specific,
            context_injection: string("contextInjection"),
            new_content: raw.get("newContent").cloned(),
            raw,
        }
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
    CouldNotStart(String),
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
    Failed { message: String },
}

impl HookAnswer {
    /// Whether this answer is a failure of the hook (not a decision): what `on_failure` governs.
    pub fn is_failure(&self) -> bool {
        matches!(
            self,
            HookAnswer::NonBlockingError { .. }
                | HookAnswer::NoVerdict { .. }
                | HookAnswer::Failed { .. }
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
