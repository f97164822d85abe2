//! The semantics of amplifier-core 2.0.2's `HookRegistry`, as pure synchronous code.
//!
//! It owns the handler bookkeeping ([`HookRegistry`]: priorities, names, unregistering, default
//! fields, listing; this file) and the two dispatch algorithms as state machines: [`EmitFold`] for
//! `emit` (`emit.rs`) and [`CollectFold`] for `emit_and_collect` (`collect.rs`); the kernel's
//! event names are in `kernel_events.rs`, the emit time's format in `clock.rs`. The one design decision: the registry never calls a
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

use crate::hook_result::HookResult;

pub mod kernel_events;

mod clock;
mod collect;
mod emit;

pub use clock::{now_rfc3339, rfc3339_utc};
pub use collect::CollectFold;
pub use emit::{EmitFold, Flow};

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
mod tests;
