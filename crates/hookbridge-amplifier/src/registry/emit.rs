//! `emit` as a state machine ([`EmitFold`]): the rules of amplifier-core 2.0.2's sequential
//! dispatch, its deny, modify, inject_context and ask_user answers, and how injections merge.

use serde_json::{Map, Value};

use super::{
    EmitSnapshot, HandlerCall, HandlerError, RegisteredHandler, INVALID_RESPONSE_REASON, TIMESTAMP_KEY,
};
use crate::hook_result::{ContextInjection, HookAction, HookResult};

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
///    [`rfc3339_utc`](super::rfc3339_utc)); one timestamp per emit. Non-object data (`null`, a list, a number) is
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
    /// [`now_rfc3339`](super::now_rfc3339) gives it (a parameter, so tests and replays are deterministic).
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
