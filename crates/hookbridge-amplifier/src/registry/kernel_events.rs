//! Event names of the Amplifier kernel: `amplifier_core.events` in 2.0.2, and the few the
//! kernel's `HookRegistry` carries as class attributes.

pub const SESSION_START: &str = "session:start";
pub const SESSION_END: &str = "session:end";
pub const SESSION_FORK: &str = "session:fork";
pub const SESSION_RESUME: &str = "session:resume";
pub const PROMPT_SUBMIT: &str = "prompt:submit";
pub const PROMPT_COMPLETE: &str = "prompt:complete";
pub const PLAN_START: &str = "plan:start";
pub const PLAN_END: &str = "plan:end";
pub const PROVIDER_REQUEST: &str = "provider:request";
pub const PROVIDER_RESPONSE: &str = "provider:response";
pub const PROVIDER_RETRY: &str = "provider:retry";
pub const PROVIDER_ERROR: &str = "provider:error";
pub const PROVIDER_THROTTLE: &str = "provider:throttle";
pub const PROVIDER_TOOL_SEQUENCE_REPAIRED: &str = "provider:tool_sequence_repaired";
pub const PROVIDER_RESOLVE: &str = "provider:resolve";
pub const LLM_REQUEST: &str = "llm:request";
pub const LLM_RESPONSE: &str = "llm:response";
pub const CONTENT_BLOCK_START: &str = "content_block:start";
pub const CONTENT_BLOCK_DELTA: &str = "content_block:delta";
pub const CONTENT_BLOCK_END: &str = "content_block:end";
pub const THINKING_DELTA: &str = "thinking:delta";
pub const THINKING_FINAL: &str = "thinking:final";
pub const TOOL_PRE: &str = "tool:pre";
pub const TOOL_POST: &str = "tool:post";
pub const TOOL_ERROR: &str = "tool:error";
pub const CONTEXT_PRE_COMPACT: &str = "context:pre_compact";
pub const CONTEXT_POST_COMPACT: &str = "context:post_compact";
pub const CONTEXT_COMPACTION: &str = "context:compaction";
pub const CONTEXT_INCLUDE: &str = "context:include";
pub const ORCHESTRATOR_COMPLETE: &str = "orchestrator:complete";
pub const EXECUTION_START: &str = "execution:start";
pub const EXECUTION_END: &str = "execution:end";
pub const USER_NOTIFICATION: &str = "user:notification";
pub const ARTIFACT_WRITE: &str = "artifact:write";
pub const ARTIFACT_READ: &str = "artifact:read";
pub const POLICY_VIOLATION: &str = "policy:violation";
pub const APPROVAL_REQUIRED: &str = "approval:required";
pub const APPROVAL_GRANTED: &str = "approval:granted";
pub const APPROVAL_DENIED: &str = "approval:denied";
pub const CANCEL_REQUESTED: &str = "cancel:requested";
pub const CANCEL_COMPLETED: &str = "cancel:completed";
pub const MODULE_ON_SESSION_READY_FAILED: &str = "module:on_session_ready_failed";
/// Added in 2.0.x.
pub const MODULE_LOAD_FAILED: &str = "module:load_failed";

/// `amplifier_core.events.ALL_EVENTS`, in its order. Events emitted in practice but absent
/// here: `session:config`, `skill:loaded`, `skill:unloaded`.
pub const ALL_EVENTS: [&str; 43] = [
    SESSION_START,
    SESSION_END,
    SESSION_FORK,
    SESSION_RESUME,
    PROMPT_SUBMIT,
    PROMPT_COMPLETE,
    PLAN_START,
    PLAN_END,
    PROVIDER_REQUEST,
    PROVIDER_RESPONSE,
    PROVIDER_RETRY,
    PROVIDER_ERROR,
    PROVIDER_THROTTLE,
    PROVIDER_TOOL_SEQUENCE_REPAIRED,
    PROVIDER_RESOLVE,
    LLM_REQUEST,
    LLM_RESPONSE,
    CONTENT_BLOCK_START,
    CONTENT_BLOCK_DELTA,
    CONTENT_BLOCK_END,
    THINKING_DELTA,
    THINKING_FINAL,
    TOOL_PRE,
    TOOL_POST,
    TOOL_ERROR,
    CONTEXT_PRE_COMPACT,
    CONTEXT_POST_COMPACT,
    CONTEXT_COMPACTION,
    CONTEXT_INCLUDE,
    ORCHESTRATOR_COMPLETE,
    EXECUTION_START,
    EXECUTION_END,
    USER_NOTIFICATION,
    ARTIFACT_WRITE,
    ARTIFACT_READ,
    POLICY_VIOLATION,
    APPROVAL_REQUIRED,
    APPROVAL_GRANTED,
    APPROVAL_DENIED,
    CANCEL_REQUESTED,
    CANCEL_COMPLETED,
    MODULE_ON_SESSION_READY_FAILED,
    MODULE_LOAD_FAILED,
];

/// The class attributes of `HookRegistry` (name, value): only these 8 exist in 2.0.2.
pub const REGISTRY_CLASS_ATTRIBUTES: [(&str, &str); 8] = [
    ("SESSION_START", SESSION_START),
    ("SESSION_END", SESSION_END),
    ("PROMPT_SUBMIT", PROMPT_SUBMIT),
    ("TOOL_PRE", TOOL_PRE),
    ("TOOL_POST", TOOL_POST),
    ("CONTEXT_PRE_COMPACT", CONTEXT_PRE_COMPACT),
    ("ORCHESTRATOR_COMPLETE", ORCHESTRATOR_COMPLETE),
    ("USER_NOTIFICATION", USER_NOTIFICATION),
];
