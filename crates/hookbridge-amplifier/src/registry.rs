//! The semantics of amplifier-core 2.0.2's `HookRegistry`, as pure synchronous code.
//!
//! It owns the handler bookkeeping ([`HookRegistry`]: priorities, names, unregistering, default
//! fields, listing) and the two dispatch algorithms as state machines: [`EmitFold`] for `emit` and
//! [`CollectFold`] for `emit_and_collect`. The one design decision: the registry never calls a
//! handler. It stores only each handler's identity, and a driver (the Python binding, or an async
//! Rust runner) keeps the callables, asks the fold which handler runs next with which data, awaits
//! it however it likes (sync, async, with a timeout) and feeds the outcome back. That keeps tokio
//! and Python out of the core and lets every driver share one implementation of the rules, which
//! are checked against the real kernel by `python/tests/test_registry_differential.py`.
//!
//! Every rule below was measured on amplifier-core 2.0.2 (the PyPI wheel); where it differs from
//! Amplifier's own documentation or from the older 1.6 source, the measurement wins and the
//! difference is noted. A typical driver:
//!
//! ```
//! use hookbridge_amplifier::hook_result::{HookAction, HookResult};
//! use hookbridge_amplifier::registry::{now_rfc3339, EmitFold, HookRegistry};
//! use serde_json::json;
//!
//! let mut registry = HookRegistry::new();
//! registry.register("tool:pre", 10, Some("guard"));
//! let mut fold = EmitFold::start(registry.snapshot("tool:pre"), "tool:pre", json!({"tool_name": "bash"}), &now_rfc3339());
//! while let Some(call) = fold.next_call() {
//!     // Look the callable up by `call.handler.id`, run it on `call.data`, feed back its outcome.
//!     let outcome = Ok(HookResult::deny(format!("{} says no", call.handler.name)));
//!     fold.accept(outcome);
//! }
//! let result = fold.finish();
//! assert_eq!(result.action, HookAction::Deny);
//! ```

use std::collections::hash_map::RandomState;
use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::hook_result::{ContextInjection, HookAction, HookResult};

/// Event names of the Amplifier kernel: `amplifier_core.events` in 2.0.2.
pub mod kernel_events {
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
}

/// The reason of the deny that replaces a handler answer the kernel cannot parse.
pub const INVALID_RESPONSE_REASON: &str = "Hook handler returned invalid response";

/// The key `emit` always overwrites with the emit time.
pub const TIMESTAMP_KEY: &str = "timestamp";

/// Identity of one registration. Ids grow with each `register` call and are never reused, so a
/// stale id (an unregister handle called twice, or after its handler was removed by name) is
/// harmless.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HandlerId(u64);

impl HandlerId {
    /// The raw number (for bindings that cannot hold the newtype).
    pub fn get(self) -> u64 {
        self.0
    }

    /// Rebuilds an id from [`HandlerId::get`].
    pub fn from_raw(raw: u64) -> Self {
        HandlerId(raw)
    }
}

impl fmt::Display for HandlerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "handler#{}", self.0)
    }
}

/// One registration as the registry knows it: no callable, only its identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisteredHandler {
    /// Unique id of this registration.
    pub id: HandlerId,
    /// The event it was registered on (exact match only: `"*"` is not a wildcard).
    pub event: String,
    /// The given name, or `_auto_{event}_{uuid4}`.
    pub name: String,
    /// Lower runs first; negatives allowed.
    pub priority: i32,
}

/// What a driver could not turn into a [`HookResult`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HandlerError {
    /// The handler raised (or could not be called). `emit` and `emit_and_collect` log it and go
    /// on with the next handler: the registry fails open.
    #[error("hook handler failed: {0}")]
    Failed(String),
    /// The handler answered something that is not a valid `HookResult` (a string, a list, a dict
    /// with `"action": "foo"` or `"ephemeral": "yes"`, …). `emit` **fails closed**: it stops and
    /// returns `deny` with reason [`INVALID_RESPONSE_REASON`]. amplifier-core 2.0.2 logs this as
    /// "SECURITY: Hook handler returned unparseable result — failing closed (Deny)"; Amplifier's
    /// docs (and our spec §1.5.10) say such answers are skipped, which is no longer true.
    #[error("hook handler returned an invalid result: {0}")]
    InvalidResult(String),
    /// The driver's per-handler timeout elapsed (only `emit_and_collect` has one). Logged and
    /// skipped. `emit` has no timeout; if a driver reports one anyway it is treated as `Failed`.
    #[error("hook handler timed out")]
    TimedOut,
}

impl HandlerError {
    /// The log line amplifier-core 2.0.2 writes for this outcome (error level, except
    /// [`HandlerError::TimedOut`] which is a warning).
    pub fn log_message(&self, event: &str, handler_name: &str) -> String {
        match self {
            HandlerError::Failed(message) => format!(
                "Hook handler error for event '{event}' (handler '{handler_name}'): hook handler failed: {message}"
            ),
            HandlerError::InvalidResult(message) => format!(
                "SECURITY: Hook handler returned unparseable result — failing closed (Deny): {message} \
                 (event '{event}', handler '{handler_name}')"
            ),
            HandlerError::TimedOut => {
                format!("Hook handler timed out for event '{event}' (handler '{handler_name}')")
            }
        }
    }

    /// Whether [`HandlerError::log_message`] is a warning rather than an error.
    pub fn is_warning(&self) -> bool {
        matches!(self, HandlerError::TimedOut)
    }
}

/// The handlers of one event plus the default fields, frozen when a dispatch starts.
///
/// amplifier-core dispatches over such a snapshot: a handler registered while an `emit` runs is
/// not called by that `emit`, and one unregistered meanwhile still is.
#[derive(Debug, Clone, PartialEq)]
pub struct EmitSnapshot {
    /// The event's handlers in call order.
    pub handlers: Vec<RegisteredHandler>,
    /// The default fields at the time of the snapshot.
    pub defaults: Map<String, Value>,
}

/// Handler bookkeeping of amplifier-core 2.0.2's `HookRegistry`.
///
/// Quirks reproduced (each matches amplifier-core 2.0.2):
/// - Handlers run in ascending priority; ties keep registration order (a stable sort).
/// - Names need not be unique. `name = None` becomes `_auto_{event}_{uuid4}` (HOOKS_API.md's
///   "defaults to `__name__`" is wrong; the 1.6 Rust core used `handler-{id}`).
/// - [`HookRegistry::unregister_by_name`] removes the **most recently registered** live handler
///   with that name, across all events; calling it again removes the next most recent one. (Our
///   spec §1.6 predicted that older duplicates are orphaned; 2.0.2 does not orphan them.)
/// - [`HookRegistry::unregister`] (the handle `register` returns) is idempotent and never touches
///   a later registration that reuses the name.
/// - [`HookRegistry::set_default_fields`] replaces the previous defaults; it does not merge.
/// - [`HookRegistry::list_handlers`] with no event lists every event that ever had a handler, an
///   emptied event as an empty list; with an event it always answers `{event: [...]}`. Queries
///   and emits never create entries.
/// - Lookup is exact: a handler on `"*"` only sees events emitted as `"*"`.
#[derive(Debug, Clone, Default)]
pub struct HookRegistry {
    events: IndexMap<String, Vec<RegisteredHandler>>,
    defaults: Map<String, Value>,
    next_id: u64,
}

impl HookRegistry {
    pub const SESSION_START: &'static str = kernel_events::SESSION_START;
    pub const SESSION_END: &'static str = kernel_events::SESSION_END;
    pub const PROMPT_SUBMIT: &'static str = kernel_events::PROMPT_SUBMIT;
    pub const TOOL_PRE: &'static str = kernel_events::TOOL_PRE;
    pub const TOOL_POST: &'static str = kernel_events::TOOL_POST;
    pub const CONTEXT_PRE_COMPACT: &'static str = kernel_events::CONTEXT_PRE_COMPACT;
    pub const ORCHESTRATOR_COMPLETE: &'static str = kernel_events::ORCHESTRATOR_COMPLETE;
    pub const USER_NOTIFICATION: &'static str = kernel_events::USER_NOTIFICATION;

    /// An empty registry with no default fields.
    pub fn new() -> Self {
        HookRegistry::default()
    }

    /// Registers a handler on `event` and returns its id. `name = None` generates
    /// `_auto_{event}_{uuid4}`. The handler goes after every handler of the same event whose
    /// priority is lower or equal, so ties run in registration order.
    pub fn register(&mut self, event: &str, priority: i32, name: Option<&str>) -> HandlerId {
        self.next_id += 1;
        let id = HandlerId(self.next_id);
        let name = match name {
            Some(name) => name.to_owned(),
            None => auto_handler_name(event),
        };
        let handlers = self.events.entry(event.to_owned()).or_default();
        let at = handlers.partition_point(|h| h.priority <= priority);
        handlers.insert(
            at,
            RegisteredHandler {
                id,
                event: event.to_owned(),
                name,
                priority,
            },
        );
        id
    }

    /// Removes the registration `id`. Returns whether it was still registered; calling it again
    /// is a no-op (amplifier's unregister callable is idempotent).
    pub fn unregister(&mut self, id: HandlerId) -> bool {
        for handlers in self.events.values_mut() {
            if let Some(at) = handlers.iter().position(|h| h.id == id) {
                handlers.remove(at);
                return true;
            }
        }
        false
    }

    /// Removes the most recently registered live handler called `name`, on any event, and returns
    /// its id; `None` (and no error) when no handler has that name. See the type docs for the
    /// duplicate-name rule.
    pub fn unregister_by_name(&mut self, name: &str) -> Option<HandlerId> {
        let newest = self
            .events
            .values()
            .flatten()
            .filter(|h| h.name == name)
            .map(|h| h.id)
            .max()?;
        self.unregister(newest);
        Some(newest)
    }

    /// Replaces the default fields merged into `emit` data (not into `emit_and_collect` data).
    pub fn set_default_fields(&mut self, defaults: Map<String, Value>) {
        self.defaults = defaults;
    }

    /// The current default fields.
    pub fn default_fields(&self) -> &Map<String, Value> {
        &self.defaults
    }

    /// The handlers of `event` in call order (empty for an unknown event).
    pub fn handlers(&self, event: &str) -> &[RegisteredHandler] {
        self.events.get(event).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The registration `id`, if it is still registered.
    pub fn handler(&self, id: HandlerId) -> Option<&RegisteredHandler> {
        self.events.values().flatten().find(|h| h.id == id)
    }

    /// `{event: [names in call order]}` for one event (always present, maybe empty), or for every
    /// event that ever had a handler (in order of first registration; amplifier's own order is
    /// a hash map's, i.e. arbitrary).
    pub fn list_handlers(&self, event: Option<&str>) -> IndexMap<String, Vec<String>> {
        let names = |handlers: &[RegisteredHandler]| handlers.iter().map(|h| h.name.clone()).collect();
        match event {
            Some(event) => IndexMap::from([(event.to_owned(), names(self.handlers(event)))]),
            None => self
                .events
                .iter()
                .map(|(event, handlers)| (event.clone(), names(handlers)))
                .collect(),
        }
    }

    /// Freezes `event`'s handlers and the default fields for one dispatch.
    pub fn snapshot(&self, event: &str) -> EmitSnapshot {
        EmitSnapshot {
            handlers: self.handlers(event).to_vec(),
            defaults: self.defaults.clone(),
        }
    }

    /// `emit` with handlers that answer synchronously: `call(handler, data)` runs one handler.
    /// Drivers that await handlers use [`EmitFold`] directly.
    pub fn emit_with<F>(&self, event: &str, data: Value, timestamp: &str, mut call: F) -> HookResult
    where
        F: FnMut(&RegisteredHandler, &Value) -> Result<HookResult, HandlerError>,
    {
        let mut fold = EmitFold::start(self.snapshot(event), event, data, timestamp);
        while let Some(step) = fold.next_call() {
            let outcome = call(step.handler, step.data);
            fold.accept(outcome);
        }
        fold.finish()
    }

    /// `emit_and_collect` with handlers that answer synchronously (a timeout is the closure's
    /// business: it returns [`HandlerError::TimedOut`]).
    pub fn emit_and_collect_with<F>(&self, event: &str, data: Value, mut call: F) -> Vec<Map<String, Value>>
    where
        F: FnMut(&RegisteredHandler, &Value) -> Result<HookResult, HandlerError>,
    {
        let mut fold = CollectFold::start(self.snapshot(event), event, data);
        while let Some(step) = fold.next_call() {
            let outcome = call(step.handler, step.data);
            fold.accept(outcome);
        }
        fold.finish()
    }
}

/// What [`EmitFold::accept`] decided.
// `Done` is large, but a Flow lives for one handler call and is matched at once: boxing the
// result would only add an allocation to every deny.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Flow {
    /// Call the next handler (or [`EmitFold::finish`] when there is none).
    Next,
    /// Dispatch is over (a deny, or an invalid answer); this is the result. Later handlers are
    /// not called. [`EmitFold::finish`] returns the same result.
    Done(HookResult),
}

/// The handler a fold wants called next, and the data to give it.
#[derive(Debug, Clone, Copy)]
pub struct HandlerCall<'a> {
    /// Position of the handler in the snapshot (for drivers that keep callables in a list
    /// aligned with [`EmitSnapshot::handlers`]).
    pub index: usize,
    /// Which registration to call.
    pub handler: &'a RegisteredHandler,
    /// The event name (the handler's first argument).
    pub event: &'a str,
    /// The data (the handler's second argument). Each handler gets its own copy, so a handler
    /// that mutates its argument in place changes nothing.
    pub data: &'a Value,
}

/// One `inject_context` answer that contributed injections.
#[derive(Debug, Clone)]
struct Injecting {
    result: HookResult,
    items: Vec<ContextInjection>,
}

/// `emit` as a state machine: [`EmitFold::start`], then [`EmitFold::next_call`] /
/// [`EmitFold::accept`] until `next_call` gives `None`, then [`EmitFold::finish`].
///
/// Rules (each matches amplifier-core 2.0.2):
/// 1. Handlers are called one at a time, in the snapshot's order.
/// 2. **No handlers:** the result is `continue` with the original data; defaults are *not*
///    merged and no timestamp is added.
/// 3. Otherwise an object `data` becomes `{**defaults, **data}` (event data wins) and then
///    `timestamp` is **always overwritten** with the emit time (RFC 3339, UTC, see
///    [`rfc3339_utc`]); one timestamp per emit. Non-object data (`null`, a list, a number) is
///    passed to handlers unchanged, without defaults or timestamp.
/// 4. **deny** stops dispatch and is returned exactly as the handler gave it (even after an
///    `ask_user`: deny wins).
/// 5. **modify** with `data` replaces the current data *wholesale* (no merge: defaults and
///    timestamp are gone unless the handler copied them); `modify` without data is a no-op.
///    `data` on any other action never changes the current data.
/// 6. **inject_context** contributes injections: the answer's `context_injections` if that list
///    is non-empty (then `context_injection` is ignored), else one injection built from
///    `context_injection` (even `""`) with `context_injection_role`, `ephemeral` and
///    `append_to_last_tool_result`, else nothing (the answer counts as `continue`). Each
///    injection is stamped with the handler's registered name and the event.
/// 7. **ask_user:** the first one is kept as is; later ones are ignored.
/// 8. An **invalid answer** ([`HandlerError::InvalidResult`]) stops dispatch with
///    `deny` + [`INVALID_RESPONSE_REASON`] (fail closed). A **failed handler**
///    ([`HandlerError::Failed`]) is skipped (fail open): the driver logs it.
/// 9. **Final result** (no deny): the kept `ask_user` as is (it beats injections, and its
///    `data` is only what the handler put there); else the injections (rule 10); else
///    `continue` with the current data. ⚠ Any `user_message`, `reason` or `suppress_output` on
///    `continue`/`modify` answers is discarded, and so is modified data when the result is
///    `ask_user` or merged `inject_context`. Non-object current data comes back as `{}`.
/// 10. **Injections:** from exactly one answer, that answer is returned with its other fields
///     (data, user_message, reason, suppress_output, …) intact; from several, a fresh
///     `inject_context` result whose only non-default fields are the injections and
///     `suppress_output` of the **first** answer. Either way `context_injections` lists every
///     injection in order, and the legacy fields are projected from that list:
///     `context_injection` = contents joined with `"\n\n"`, `context_injection_role` = the first
///     injection's role, `ephemeral` and `append_to_last_tool_result` = OR over the injections.
///     (Our spec §1.5.7 said `ephemeral` comes from the first; 2.0.2 ORs it.)
#[derive(Debug, Clone)]
pub struct EmitFold {
    event: String,
    handlers: Vec<RegisteredHandler>,
    cursor: usize,
    current: Value,
    ask_user: Option<HookResult>,
    injecting: Vec<Injecting>,
    decided: Option<HookResult>,
}

impl EmitFold {
    /// Starts an `emit` of `event` with `data`; `timestamp` is the emit time as
    /// [`now_rfc3339`] gives it (a parameter, so tests and replays are deterministic).
    pub fn start(snapshot: EmitSnapshot, event: &str, data: Value, timestamp: &str) -> Self {
        let EmitSnapshot { handlers, defaults } = snapshot;
        let mut fold = EmitFold {
            event: event.to_owned(),
            handlers,
            cursor: 0,
            current: Value::Null,
            ask_user: None,
            injecting: Vec::new(),
            decided: None,
        };
        if fold.handlers.is_empty() {
            fold.decided = Some(HookResult::continue_with(object_or_empty(data)));
            return fold;
        }
        fold.current = match data {
            Value::Object(data) => {
                let mut merged = defaults;
                merged.extend(data);
                merged.insert(TIMESTAMP_KEY.to_owned(), Value::String(timestamp.to_owned()));
                Value::Object(merged)
            }
            other => other,
        };
        fold
    }

    /// The handler to call next with its data, or `None` when dispatch is over.
    pub fn next_call(&self) -> Option<HandlerCall<'_>> {
        if self.decided.is_some() {
            return None;
        }
        self.handlers.get(self.cursor).map(|handler| HandlerCall {
            index: self.cursor,
            handler,
            event: &self.event,
            data: &self.current,
        })
    }

    /// The data the next handler gets (the current, possibly modified, data).
    pub fn current_data(&self) -> &Value {
        &self.current
    }

    /// Whether dispatch is over ([`EmitFold::next_call`] gives `None`).
    pub fn is_done(&self) -> bool {
        self.next_call().is_none()
    }

    /// Feeds the outcome of the handler [`EmitFold::next_call`] named. Once dispatch is over,
    /// further outcomes are ignored and answered with `Done`.
    pub fn accept(&mut self, outcome: Result<HookResult, HandlerError>) -> Flow {
        if let Some(decided) = &self.decided {
            return Flow::Done(decided.clone());
        }
        let Some(handler) = self.handlers.get(self.cursor) else {
            return Flow::Next;
        };
        self.cursor += 1;
        let result = match outcome {
            Ok(result) => result,
            Err(HandlerError::InvalidResult(_)) => {
                return self.decide(HookResult::deny(INVALID_RESPONSE_REASON))
            }
            Err(HandlerError::Failed(_) | HandlerError::TimedOut) => return Flow::Next,
        };
        match result.action {
            HookAction::Deny => return self.decide(result),
            HookAction::Modify => {
                if let Some(data) = result.data {
                    self.current = Value::Object(data);
                }
            }
            HookAction::InjectContext => {
                let mut items = if !result.context_injections.is_empty() {
                    result.context_injections.clone()
                } else if let Some(content) = &result.context_injection {
                    vec![ContextInjection {
                        content: content.clone(),
                        role: result.context_injection_role,
                        ephemeral: result.ephemeral,
                        append_to_last_tool_result: result.append_to_last_tool_result,
                        hook_name: String::new(),
                        event: String::new(),
                    }]
                } else {
                    Vec::new()
                };
                if !items.is_empty() {
                    for item in &mut items {
                        item.hook_name = handler.name.clone();
                        item.event = self.event.clone();
                    }
                    self.injecting.push(Injecting { result, items });
                }
            }
            HookAction::AskUser => {
                if self.ask_user.is_none() {
                    self.ask_user = Some(result);
                }
            }
            HookAction::Continue => {}
        }
        Flow::Next
    }

    fn decide(&mut self, result: HookResult) -> Flow {
        self.decided = Some(result.clone());
        Flow::Done(result)
    }

    /// The result of the `emit` (rules 9 and 10 of the type docs). Handlers not yet called are
    /// simply not called.
    pub fn finish(self) -> HookResult {
        if let Some(decided) = self.decided {
            return decided;
        }
        if let Some(ask_user) = self.ask_user {
            return ask_user;
        }
        let mut injecting = self.injecting;
        match injecting.len() {
            0 => HookResult::continue_with(object_or_empty(self.current)),
            1 => {
                let Injecting { mut result, items } = injecting.remove(0);
                project_injections(&mut result, items);
                result
            }
            _ => {
                let mut merged = HookResult::with_action(HookAction::InjectContext);
                merged.suppress_output = injecting[0].result.suppress_output;
                let items = injecting.into_iter().flat_map(|i| i.items).collect();
                project_injections(&mut merged, items);
                merged
            }
        }
    }
}

/// Sets `context_injections` and the legacy scalar fields projected from it (rule 10).
fn project_injections(result: &mut HookResult, items: Vec<ContextInjection>) {
    let contents: Vec<&str> = items.iter().map(|i| i.content.as_str()).collect();
    result.context_injection = Some(contents.join("\n\n"));
    if let Some(first) = items.first() {
        result.context_injection_role = first.role;
    }
    result.ephemeral = items.iter().any(|i| i.ephemeral);
    result.append_to_last_tool_result = items.iter().any(|i| i.append_to_last_tool_result);
    result.context_injections = items;
}

fn object_or_empty(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// `emit_and_collect` as a state machine, driven like [`EmitFold`].
///
/// Rules (each matches amplifier-core 2.0.2):
/// - Handlers are called one at a time (sequentially, despite HOOKS_API.md's "concurrently"),
///   each with the **original** data: no defaults, no timestamp, and `modify` does not chain.
/// - The driver bounds each call by the timeout (default 1.0 s); a timed-out or failing
///   handler is logged and skipped, and so is an invalid answer (no fail-closed here).
/// - The result lists `result.data` of every answer whose data is not `None`, **whatever its
///   action** (a deny carrying data is collected and does not stop the others).
/// - No handlers give `[]`.
#[derive(Debug, Clone)]
pub struct CollectFold {
    handlers: Vec<RegisteredHandler>,
    event: String,
    cursor: usize,
    data: Value,
    collected: Vec<Map<String, Value>>,
}

impl CollectFold {
    /// Starts an `emit_and_collect`; the snapshot's defaults are ignored (quirk: collect never
    /// merges them).
    pub fn start(snapshot: EmitSnapshot, event: &str, data: Value) -> Self {
        CollectFold {
            handlers: snapshot.handlers,
            event: event.to_owned(),
            cursor: 0,
            data,
            collected: Vec::new(),
        }
    }

    /// The handler to call next with its data, or `None` when all were called.
    pub fn next_call(&self) -> Option<HandlerCall<'_>> {
        self.handlers.get(self.cursor).map(|handler| HandlerCall {
            index: self.cursor,
            handler,
            event: &self.event,
            data: &self.data,
        })
    }

    /// Feeds the outcome of the handler [`CollectFold::next_call`] named.
    pub fn accept(&mut self, outcome: Result<HookResult, HandlerError>) {
        if self.cursor >= self.handlers.len() {
            return;
        }
        self.cursor += 1;
        if let Ok(HookResult { data: Some(data), .. }) = outcome {
            self.collected.push(data);
        }
    }

    /// The collected data, in handler order.
    pub fn finish(self) -> Vec<Map<String, Value>> {
        self.collected
    }
}

/// `now` as amplifier-core stamps it (see [`rfc3339_utc`]).
pub fn now_rfc3339() -> String {
    rfc3339_utc(SystemTime::now())
}

/// Formats `time` like chrono's `DateTime<Utc>::to_rfc3339()`, which amplifier-core uses:
/// `2026-11-21T23:51:44.219033671+00:00`. The fraction has 9, 6 or 3 digits, the fewest that
/// are exact, and is left out when the time is a whole second. The calendar is humantime's; a
/// clock set before 1970 (which humantime cannot write) reads as the epoch.
pub fn rfc3339_utc(time: SystemTime) -> String {
    let time = time.max(UNIX_EPOCH);
    // `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ`: split off the nine digits and the `Z`.
    let full = humantime::format_rfc3339_nanos(time).to_string();
    let full = full.trim_end_matches('Z');
    let (seconds, fraction) = full.split_once('.').unwrap_or((full, ""));
    let fraction = match fraction.trim_end_matches('0').len() {
        0 => "",
        1..=3 => &fraction[..3],
        4..=6 => &fraction[..6],
        _ => fraction,
    };
    let dot = if fraction.is_empty() { "" } else { "." };
    format!("{seconds}{dot}{fraction}+00:00")
}

/// `_auto_{event}_{uuid4}`, the name amplifier-core 2.0.2's Python binding gives an unnamed
/// handler.
pub fn auto_handler_name(event: &str) -> String {
    format!("_auto_{event}_{}", random_uuid_v4())
}

/// A random version-4 UUID in its hyphenated form. The randomness comes from std's `RandomState`
/// (SipHash keyed from the OS's random source at thread start, re-keyed per instance) over a
/// process-wide counter and the clock: unique names, not cryptography, which is all a handler
/// name needs and spares a dependency.
fn random_uuid_v4() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let clock = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let mut halves = [0u64; 2];
    for (salt, half) in halves.iter_mut().enumerate() {
        let mut hasher = RandomState::new().build_hasher();
        hasher.write_u64(count);
        hasher.write_u128(clock);
        hasher.write_usize(salt);
        *half = hasher.finish();
    }
    let bits = (u128::from(halves[0]) << 64 | u128::from(halves[1])) & !(0xF << 76) & !(0x3 << 62);
    let bits = bits | (0x4 << 76) | (0x2 << 62);
    let hex = format!("{bits:032x}");
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook_result::InjectionRole;
    use serde_json::json;

    const TS: &str = "2026-11-21T23:51:44.219033671+00:00";

    /// What a scripted handler does.
    #[allow(clippy::large_enum_variant)]
    #[derive(Clone)]
    enum Script {
        Answer(HookResult),
        Fail,
        Invalid,
    }

    fn answer(value: Value) -> Script {
        Script::Answer(HookResult::from_value(value).expect("valid test answer"))
    }

    /// Registers `(name, priority, script)` on "e" and emits `data`; returns the result and the
    /// calls made as (name, data seen).
    fn emit(
        handlers: &[(&str, i32, Script)],
        defaults: Value,
        data: Value,
    ) -> (HookResult, Vec<(String, Value)>) {
        let mut registry = HookRegistry::new();
        let mut scripts = std::collections::HashMap::new();
        for (name, priority, script) in handlers {
            let id = registry.register("e", *priority, Some(name));
            scripts.insert(id, script.clone());
        }
        registry.set_default_fields(defaults.as_object().cloned().unwrap_or_default());
        let mut calls = Vec::new();
        let result = registry.emit_with("e", data, TS, |handler, data| {
            calls.push((handler.name.clone(), data.clone()));
            match &scripts[&handler.id] {
                Script::Answer(result) => Ok(result.clone()),
                Script::Fail => Err(HandlerError::Failed("boom".into())),
                Script::Invalid => Err(HandlerError::InvalidResult("not a HookResult".into())),
            }
        });
        (result, calls)
    }

    fn called(calls: &[(String, Value)]) -> Vec<&str> {
        calls.iter().map(|(name, _)| name.as_str()).collect()
    }

    /// One row of `emit`'s rules: handlers `(name, priority, script)`, the session's default fields
    /// and the data emitted; the handlers called, in order, and the result (only the fields that
    /// differ from a default `HookResult`).
    struct Case {
        what: &'static str,
        handlers: Vec<(&'static str, i32, Script)>,
        defaults: Value,
        data: Value,
        calls: Vec<&'static str>,
        result: Value,
    }

    fn cont() -> Script {
        answer(json!({}))
    }

    fn stamped(mut v: Value) -> Value {
        v["timestamp"] = json!(TS);
        v
    }

    fn check(case: Case) {
        let (result, calls) = emit(&case.handlers, case.defaults, case.data);
        assert_eq!(called(&calls), case.calls, "{}: calls", case.what);
        let mut expected = HookResult::default().to_value();
        for (key, value) in case.result.as_object().unwrap() {
            expected[key] = value.clone();
        }
        // Fill ContextInjection defaults in the expectation.
        if let Some(items) = expected["context_injections"].as_array_mut() {
            for item in items {
                let full = serde_json::to_value(ContextInjection::new("")).unwrap();
                let mut full = full.as_object().unwrap().clone();
                full.extend(item.as_object().unwrap().clone());
                *item = Value::Object(full);
            }
        }
        assert_eq!(result.to_value(), expected, "{}", case.what);
    }

    /// One test per row of the rules: `registry::tests::emit::<row>`.
    macro_rules! emit_rules {
        ($($name:ident: $case:expr,)*) => {
            mod emit {
                use super::*;
                $(
                    #[test]
                    fn $name() {
                        check($case);
                    }
                )*
            }
        };
    }

    emit_rules! {
        no_handlers_original_data_no_defaults_no_timestamp: Case {
            what: "no handlers: original data, no defaults, no timestamp",
            handlers: vec![],
            defaults: json!({"s": 1}),
            data: json!({"k": 1}),
            calls: vec![],
            result: json!({"action": "continue", "data": {"k": 1}}),
        },
        no_handlers_and_non_object_data_give_an_empty_object: Case {
            what: "no handlers, non-object data: data {}",
            handlers: vec![],
            defaults: json!({}),
            data: json!([1, 2]),
            calls: vec![],
            result: json!({"action": "continue", "data": {}}),
        },
        defaults_merged_data_wins_timestamp_overwritten: Case {
            what: "defaults merged, data wins, timestamp overwritten",
            handlers: vec![("a", 0, cont())],
            defaults: json!({"s": 1, "k": 0, "timestamp": "d"}),
            data: json!({"k": 1, "timestamp": "caller"}),
            calls: vec!["a"],
            result: json!({"action": "continue", "data": {"s": 1, "k": 1, "timestamp": TS}}),
        },
        ascending_priority_ties_in_registration_order: Case {
            what: "ascending priority, ties in registration order",
            handlers: vec![
                ("p5", 5, cont()),
                ("p0a", 0, cont()),
                ("m3", -3, cont()),
                ("p0b", 0, cont()),
            ],
            defaults: json!({}),
            data: json!({}),
            calls: vec!["m3", "p0a", "p0b", "p5"],
            result: json!({"action": "continue", "data": {"timestamp": TS}}),
        },
        deny_short_circuits_and_is_returned_as_is: Case {
            what: "deny short-circuits and is returned as is",
            handlers: vec![
                (
                    "a",
                    0,
                    answer(json!({"action": "ask_user", "approval_prompt": "p"})),
                ),
                (
                    "d",
                    1,
                    answer(
                        json!({"action": "deny", "reason": "no", "data": {"x": 1}, "user_message": "u"}),
                    ),
                ),
                ("z", 2, cont()),
            ],
            defaults: json!({}),
            data: json!({}),
            calls: vec!["a", "d"],
            result: json!({"action": "deny", "reason": "no", "data": {"x": 1}, "user_message": "u"}),
        },
        modify_replaces_wholesale_the_next_handler_sees_the_new_data: Case {
            what: "modify replaces wholesale; the next handler sees only the new data",
            handlers: vec![
                ("m", 0, answer(json!({"action": "modify", "data": {"m": 1}}))),
                ("n", 1, answer(json!({"action": "modify"}))),
                (
                    "c",
                    2,
                    answer(json!({"action": "continue", "data": {"ignored": 1}})),
                ),
            ],
            defaults: json!({"s": 1}),
            data: json!({"k": 1}),
            calls: vec!["m", "n", "c"],
            result: json!({"action": "continue", "data": {"m": 1}}),
        },
        modify_with_an_empty_object_empties_the_data: Case {
            what: "modify with {} empties the data",
            handlers: vec![("m", 0, answer(json!({"action": "modify", "data": {}})))],
            defaults: json!({}),
            data: json!({"k": 1}),
            calls: vec!["m"],
            result: json!({"action": "continue", "data": {}}),
        },
        continue_drops_user_message_reason_suppress_output: Case {
            what: "continue drops user_message, reason, suppress_output",
            handlers: vec![(
                "c",
                0,
                answer(json!({"user_message": "u", "reason": "r", "suppress_output": true})),
            )],
            defaults: json!({}),
            data: json!({"k": 1}),
            calls: vec!["c"],
            result: json!({"action": "continue", "data": stamped(json!({"k": 1}))}),
        },
        inject_context_without_text_counts_as_continue: Case {
            what: "inject_context without text counts as continue",
            handlers: vec![(
                "i",
                0,
                answer(json!({"action": "inject_context", "user_message": "u"})),
            )],
            defaults: json!({}),
            data: json!({}),
            calls: vec!["i"],
            result: json!({"action": "continue", "data": {"timestamp": TS}}),
        },
        context_injection_on_continue_is_ignored: Case {
            what: "context_injection on continue is ignored",
            handlers: vec![("c", 0, answer(json!({"context_injection": "x"})))],
            defaults: json!({}),
            data: json!({}),
            calls: vec!["c"],
            result: json!({"action": "continue", "data": {"timestamp": TS}}),
        },
        single_injection_returned_unchanged_stamped_and_projected: Case {
            what: "single injection returned unchanged, stamped and projected",
            handlers: vec![(
                "i",
                0,
                answer(
                    json!({"action": "inject_context", "context_injection": "hi", "user_message": "um",
                    "reason": "r", "data": {"x": 1}, "suppress_output": true}),
                ),
            )],
            defaults: json!({}),
            data: json!({}),
            calls: vec!["i"],
            result: json!({"action": "inject_context", "context_injection": "hi", "user_message": "um",
                "reason": "r", "data": {"x": 1}, "suppress_output": true,
                "context_injections": [{"content": "hi", "hook_name": "i", "event": "e"}]}),
        },
        empty_injection_text_still_counts: Case {
            what: "empty injection text still counts",
            handlers: vec![(
                "i",
                0,
                answer(json!({"action": "inject_context", "context_injection": ""})),
            )],
            defaults: json!({}),
            data: json!({}),
            calls: vec!["i"],
            result: json!({"action": "inject_context", "context_injection": "",
                "context_injections": [{"content": "", "hook_name": "i", "event": "e"}]}),
        },
        a_non_empty_list_wins_over_the_text_role_ephemeral_projected: Case {
            what: "a non-empty list wins over the text; role/ephemeral projected from the list",
            handlers: vec![(
                "i",
                0,
                answer(
                    json!({"action": "inject_context", "context_injection": "T", "ephemeral": true,
                    "context_injection_role": "assistant", "append_to_last_tool_result": true,
                    "context_injections": [{"content": "L1", "role": "user", "hook_name": "hn", "event": "ev"},
                                           {"content": "L2"}]}),
                ),
            )],
            defaults: json!({}),
            data: json!({}),
            calls: vec!["i"],
            result: json!({"action": "inject_context", "context_injection": "L1\n\nL2",
                "context_injection_role": "user",
                "context_injections": [{"content": "L1", "role": "user", "hook_name": "i", "event": "e"},
                                       {"content": "L2", "hook_name": "i", "event": "e"}]}),
        },
        several_injections_are_merged_first_role_or_ephemeral: Case {
            what: "several injections merged: first role/suppress, OR ephemeral/append, rest dropped",
            handlers: vec![
                (
                    "a",
                    0,
                    answer(json!({"action": "inject_context", "context_injection": "a",
                    "suppress_output": true, "user_message": "u", "data": {"d": 1}})),
                ),
                (
                    "b",
                    1,
                    answer(
                        json!({"action": "inject_context", "context_injection": "b", "ephemeral": true,
                    "append_to_last_tool_result": true, "context_injection_role": "assistant",
                    "suppress_output": false}),
                    ),
                ),
                (
                    "c",
                    2,
                    answer(json!({"action": "inject_context", "context_injection": "c"})),
                ),
            ],
            defaults: json!({}),
            data: json!({}),
            calls: vec!["a", "b", "c"],
            result: json!({"action": "inject_context", "context_injection": "a\n\nb\n\nc",
                "ephemeral": true, "append_to_last_tool_result": true, "suppress_output": true,
                "context_injections": [
                    {"content": "a", "hook_name": "a", "event": "e"},
                    {"content": "b", "role": "assistant", "ephemeral": true, "append_to_last_tool_result": true,
                     "hook_name": "b", "event": "e"},
                    {"content": "c", "hook_name": "c", "event": "e"}]}),
        },
        suppress_output_comes_from_the_first_injecting_answer_only: Case {
            what: "suppress_output comes from the first injecting answer only",
            handlers: vec![
                (
                    "a",
                    0,
                    answer(json!({"action": "inject_context", "context_injection": "a"})),
                ),
                (
                    "b",
                    1,
                    answer(
                        json!({"action": "inject_context", "context_injection": "b", "suppress_output": true}),
                    ),
                ),
            ],
            defaults: json!({}),
            data: json!({}),
            calls: vec!["a", "b"],
            result: json!({"action": "inject_context", "context_injection": "a\n\nb",
                "context_injections": [{"content": "a", "hook_name": "a", "event": "e"},
                                       {"content": "b", "hook_name": "b", "event": "e"}]}),
        },
        first_ask_user_wins_beats_injections_keeps_its_own_data_only: Case {
            what: "first ask_user wins, beats injections, keeps its own data only",
            handlers: vec![
                ("m", 0, answer(json!({"action": "modify", "data": {"m": 1}}))),
                (
                    "i",
                    1,
                    answer(json!({"action": "inject_context", "context_injection": "c"})),
                ),
                (
                    "a1",
                    2,
                    answer(json!({"action": "ask_user", "approval_prompt": "p1",
                    "context_injections": [{"content": "z"}]})),
                ),
                (
                    "a2",
                    3,
                    answer(json!({"action": "ask_user", "approval_prompt": "p2", "data": {"q": 1}})),
                ),
            ],
            defaults: json!({}),
            data: json!({}),
            calls: vec!["m", "i", "a1", "a2"],
            result: json!({"action": "ask_user", "approval_prompt": "p1",
                "context_injections": [{"content": "z"}]}),
        },
        ask_user_data_is_kept_as_the_handler_gave_it: Case {
            what: "ask_user data is kept as the handler gave it",
            handlers: vec![("a", 0, answer(json!({"action": "ask_user", "data": {"c": 1}})))],
            defaults: json!({}),
            data: json!({}),
            calls: vec!["a"],
            result: json!({"action": "ask_user", "data": {"c": 1}}),
        },
        a_failing_handler_is_skipped: Case {
            what: "a failing handler is skipped",
            handlers: vec![
                ("f", 0, Script::Fail),
                ("m", 1, answer(json!({"action": "modify", "data": {"z": 1}}))),
            ],
            defaults: json!({}),
            data: json!({"k": 1}),
            calls: vec!["f", "m"],
            result: json!({"action": "continue", "data": {"z": 1}}),
        },
        an_invalid_answer_fails_closed_even_after_ask_user_and_injection: Case {
            what: "an invalid answer fails closed, even after an ask_user and an injection",
            handlers: vec![
                (
                    "i",
                    0,
                    answer(json!({"action": "inject_context", "context_injection": "T"})),
                ),
                ("a", 1, answer(json!({"action": "ask_user"}))),
                ("bad", 2, Script::Invalid),
                ("z", 3, cont()),
            ],
            defaults: json!({}),
            data: json!({}),
            calls: vec!["i", "a", "bad"],
            result: json!({"action": "deny", "reason": INVALID_RESPONSE_REASON}),
        },
        non_object_data_passed_through_without_defaults_or_timestamp: Case {
            what: "non-object data passed through without defaults or timestamp; comes back as {}",
            handlers: vec![("c", 0, answer(json!({"data": {"q": 1}})))],
            defaults: json!({"s": 1}),
            data: json!(null),
            calls: vec!["c"],
            result: json!({"action": "continue", "data": {}}),
        },
        modify_turns_non_object_data_into_an_object: Case {
            what: "modify turns non-object data into an object",
            handlers: vec![
                ("m", 0, answer(json!({"action": "modify", "data": {"a": 1}}))),
                ("c", 1, cont()),
            ],
            defaults: json!({}),
            data: json!([1]),
            calls: vec!["m", "c"],
            result: json!({"action": "continue", "data": {"a": 1}}),
        },
    }

    #[test]
    fn handlers_see_the_chain_of_data() {
        let (_, calls) = emit(
            &[
                ("a", 0, answer(json!({"action": "modify", "data": {"m": 1}}))),
                ("b", 1, answer(json!({}))),
            ],
            json!({"s": 1}),
            json!({"k": 1}),
        );
        assert_eq!(calls[0].1, json!({"s": 1, "k": 1, "timestamp": TS}));
        assert_eq!(calls[1].1, json!({"m": 1}));
        let (_, calls) = emit(&[("a", 0, answer(json!({})))], json!({"s": 1}), json!("text"));
        assert_eq!(calls[0].1, json!("text"));
    }

    #[test]
    fn merged_keys_keep_python_dict_order() {
        let (_, calls) = emit(
            &[("a", 0, answer(json!({})))],
            json!({"zz": 1, "aa": 2, "timestamp": "d"}),
            json!({"yy": 1, "aa": 9}),
        );
        let keys: Vec<&String> = calls[0].1.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["zz", "aa", "timestamp", "yy"]);
    }

    #[test]
    fn flow_after_done() {
        let mut registry = HookRegistry::new();
        registry.register("e", 0, Some("a"));
        registry.register("e", 1, Some("b"));
        let mut fold = EmitFold::start(registry.snapshot("e"), "e", json!({}), TS);
        assert_eq!(fold.next_call().unwrap().handler.name, "a");
        assert_eq!(
            fold.accept(Ok(HookResult::deny("x"))),
            Flow::Done(HookResult::deny("x"))
        );
        assert!(fold.next_call().is_none() && fold.is_done());
        assert_eq!(
            fold.accept(Ok(HookResult::default())),
            Flow::Done(HookResult::deny("x"))
        );
        assert_eq!(fold.finish(), HookResult::deny("x"));
    }

    #[test]
    fn snapshot_is_frozen() {
        let mut registry = HookRegistry::new();
        let later = registry.register("e", 5, Some("later"));
        registry.register("e", 0, Some("first"));
        let mut fold = EmitFold::start(registry.snapshot("e"), "e", json!({}), TS);
        registry.unregister(later);
        registry.register("e", 1, Some("new"));
        let mut seen = Vec::new();
        while let Some(call) = fold.next_call() {
            seen.push(call.handler.name.clone());
            fold.accept(Ok(HookResult::default()));
        }
        assert_eq!(seen, ["first", "later"]);
    }

    #[test]
    fn collect_rules() {
        let mut registry = HookRegistry::new();
        let answers = [
            (
                "deny",
                Ok(HookResult::from_value(json!({"action": "deny", "data": {"a": 1}})).unwrap()),
            ),
            ("slow", Err(HandlerError::TimedOut)),
            ("err", Err(HandlerError::Failed("x".into()))),
            ("bad", Err(HandlerError::InvalidResult("x".into()))),
            (
                "dict",
                Ok(HookResult::from_value(json!({"data": {"b": 2}})).unwrap()),
            ),
            ("none", Ok(HookResult::default())),
            (
                "mod",
                Ok(HookResult::from_value(json!({"action": "modify", "data": {"m": 1}})).unwrap()),
            ),
            ("echo", Ok(HookResult::default())),
        ];
        for (name, _) in &answers {
            registry.register("c", 0, Some(name));
        }
        registry.set_default_fields(json!({"s": 1}).as_object().unwrap().clone());
        let mut seen = Vec::new();
        let out = registry.emit_and_collect_with("c", json!({"x": 1}), |handler, data| {
            seen.push(data.clone());
            let (_, outcome) = answers.iter().find(|(n, _)| *n == handler.name).unwrap();
            if handler.name == "echo" {
                return Ok(HookResult::continue_with(data.as_object().unwrap().clone()));
            }
            outcome.clone()
        });
        let out: Vec<Value> = out.into_iter().map(Value::Object).collect();
        assert_eq!(
            out,
            vec![json!({"a": 1}), json!({"b": 2}), json!({"m": 1}), json!({"x": 1})]
        );
        assert!(
            seen.iter().all(|d| *d == json!({"x": 1})),
            "no defaults, no timestamp, no chaining"
        );
        assert!(registry
            .emit_and_collect_with("none", json!({}), |_, _| unreachable!())
            .is_empty());
    }

    #[test]
    fn registration_order_and_listing() {
        let mut registry = HookRegistry::new();
        registry.register("a", 3, Some("x"));
        registry.register("b", -5, None);
        registry.register("a", 1, Some("y"));
        registry.register("a", 3, Some("z"));
        registry.register("a", -2, Some("w"));
        let all = registry.list_handlers(None);
        assert_eq!(all["a"], ["w", "y", "x", "z"]);
        assert!(all["b"][0].starts_with("_auto_b_"));
        assert_eq!(
            registry.list_handlers(Some("zz")),
            IndexMap::from([("zz".to_owned(), Vec::<String>::new())])
        );
        assert_eq!(registry.list_handlers(None).len(), 2, "queries create no entries");
    }

    #[test]
    fn unregister_table() {
        // (registrations as (event, priority, name), operations, expected list_handlers(None))
        enum Op {
            Name(&'static str),
            Handle(usize),
        }
        type Expected = &'static [(&'static str, &'static [&'static str])];
        type Registrations = Vec<(&'static str, i32, &'static str)>;
        let cases: Vec<(&str, Registrations, Vec<Op>, Expected)> = vec![
            (
                "by name removes the newest live duplicate first",
                vec![("e", 0, "d"), ("e", 1, "d"), ("e", -1, "d")],
                vec![Op::Name("d")],
                &[("e", &["d", "d"])],
            ),
            (
                "repeated by-name calls remove older duplicates too (no orphan)",
                vec![("e", 0, "d"), ("e", 1, "d"), ("e", -1, "d")],
                vec![Op::Name("d"), Op::Name("d"), Op::Name("d"), Op::Name("d")],
                &[("e", &[])],
            ),
            (
                "by name crosses events, newest first",
                vec![("e", 0, "d"), ("e2", 1, "d")],
                vec![Op::Name("d")],
                &[("e", &["d"]), ("e2", &[])],
            ),
            (
                "a handle removes its own registration; by name skips removed ones",
                vec![("e", 0, "d"), ("e2", 0, "d"), ("e", 0, "d")],
                vec![Op::Handle(2), Op::Name("d")],
                &[("e", &["d"]), ("e2", &[])],
            ),
            (
                "handles are idempotent; unknown names are ignored",
                vec![("e", 0, "a"), ("e", 0, "b")],
                vec![Op::Handle(0), Op::Handle(0), Op::Name("nope")],
                &[("e", &["b"])],
            ),
            (
                "a stale handle does not remove a re-registration of the name",
                vec![("e", 0, "n")],
                vec![Op::Name("n")],
                &[("e", &[])],
            ),
        ];
        for (what, registrations, ops, expected) in cases {
            let mut registry = HookRegistry::new();
            let ids: Vec<HandlerId> = registrations
                .iter()
                .map(|(event, priority, name)| registry.register(event, *priority, Some(name)))
                .collect();
            for op in ops {
                match op {
                    Op::Name(name) => {
                        registry.unregister_by_name(name);
                    }
                    Op::Handle(index) => {
                        registry.unregister(ids[index]);
                    }
                }
            }
            let listed = registry.list_handlers(None);
            let expected: IndexMap<String, Vec<String>> = expected
                .iter()
                .map(|(event, names)| (event.to_string(), names.iter().map(|n| n.to_string()).collect()))
                .collect();
            assert_eq!(listed, expected, "{what}");
        }
        // The stale-handle case, end to end.
        let mut registry = HookRegistry::new();
        let old = registry.register("e", 0, Some("n"));
        registry.unregister_by_name("n");
        registry.register("e", 0, Some("n"));
        assert!(!registry.unregister(old));
        assert_eq!(registry.list_handlers(Some("e"))["e"], ["n"]);
    }

    #[test]
    fn newest_duplicate_is_removed_first() {
        let mut registry = HookRegistry::new();
        let a = registry.register("e", 5, Some("d"));
        let b = registry.register("e", 0, Some("d"));
        let c = registry.register("e", 3, Some("d"));
        assert_eq!(registry.unregister_by_name("d"), Some(c));
        assert_eq!(registry.unregister_by_name("d"), Some(b));
        assert_eq!(registry.unregister_by_name("d"), Some(a));
        assert_eq!(registry.unregister_by_name("d"), None);
    }

    #[test]
    fn set_default_fields_replaces() {
        let mut registry = HookRegistry::new();
        registry.set_default_fields(json!({"a": 1, "b": 2}).as_object().unwrap().clone());
        registry.set_default_fields(json!({"c": 3}).as_object().unwrap().clone());
        assert_eq!(Value::Object(registry.default_fields().clone()), json!({"c": 3}));
    }

    #[test]
    fn auto_names_look_like_uuid4_and_differ() {
        let names: std::collections::HashSet<String> =
            (0..1000).map(|_| auto_handler_name("tool:pre")).collect();
        assert_eq!(names.len(), 1000);
        for name in names.iter().take(50) {
            let uuid = name.strip_prefix("_auto_tool:pre_").unwrap();
            let parts: Vec<&str> = uuid.split('-').collect();
            assert_eq!(
                parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
                [8, 4, 4, 4, 12],
                "{uuid}"
            );
            assert!(uuid
                .chars()
                .all(|c| c == '-' || c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
            assert!(parts[2].starts_with('4'), "{uuid}");
            assert!(
                matches!(parts[3].as_bytes()[0], b'8' | b'9' | b'a' | b'b'),
                "{uuid}"
            );
        }
    }

    #[test]
    fn rfc3339_table() {
        use std::time::Duration;
        let at = |secs: u64, nanos: u32| UNIX_EPOCH + Duration::new(secs, nanos);
        let cases = [
            (at(0, 0), "1970-01-01T00:00:00+00:00"),
            (
                at(1_795_305_104, 219_033_671),
                "2026-11-21T23:51:44.219033671+00:00",
            ),
            (at(1_795_305_104, 219_033_000), "2026-11-21T23:51:44.219033+00:00"),
            (at(1_795_305_104, 219_000_000), "2026-11-21T23:51:44.219+00:00"),
            (at(951_782_400, 1), "2000-02-29T00:00:00.000000001+00:00"),
            (at(4_107_542_399, 0), "2100-02-28T23:59:59+00:00"),
            (at(253_402_300_799, 10_000_000), "9999-12-31T23:59:59.010+00:00"),
            (
                UNIX_EPOCH - Duration::new(1, 500_000_000),
                "1970-01-01T00:00:00+00:00",
            ),
        ];
        for (time, expected) in cases {
            assert_eq!(rfc3339_utc(time), expected);
        }
    }

    #[test]
    fn kernel_event_constants() {
        assert_eq!(kernel_events::ALL_EVENTS.len(), 43);
        let unique: std::collections::HashSet<_> = kernel_events::ALL_EVENTS.iter().collect();
        assert_eq!(unique.len(), 43);
        assert_eq!(HookRegistry::CONTEXT_PRE_COMPACT, "context:pre_compact");
        for (_, value) in kernel_events::REGISTRY_CLASS_ATTRIBUTES {
            assert!(kernel_events::ALL_EVENTS.contains(&value));
        }
    }

    #[test]
    fn injection_role_projection_uses_first_injection() {
        let (result, _) = emit(
            &[
                (
                    "a",
                    0,
                    answer(
                        json!({"action": "inject_context", "context_injection_role": "assistant",
                        "context_injections": [{"content": "x", "role": "user"}]}),
                    ),
                ),
                (
                    "b",
                    1,
                    answer(json!({"action": "inject_context", "context_injection": "b"})),
                ),
            ],
            json!({}),
            json!({}),
        );
        assert_eq!(result.context_injection_role, InjectionRole::User);
        assert_eq!(result.context_injection.as_deref(), Some("x\n\nb"));
    }

    #[test]
    fn log_messages_match_the_kernel() {
        assert_eq!(
            HandlerError::Failed("ValueError: boom".into()).log_message("e", "h0"),
            "Hook handler error for event 'e' (handler 'h0'): hook handler failed: ValueError: boom"
        );
        assert_eq!(
            HandlerError::TimedOut.log_message("c", "slow"),
            "Hook handler timed out for event 'c' (handler 'slow')"
        );
        assert!(HandlerError::TimedOut.is_warning());
    }
}
