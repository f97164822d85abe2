//! `emit_and_collect` as a state machine ([`CollectFold`]): every handler on the original data,
//! the data of every answer collected.

use serde_json::{Map, Value};

use super::{EmitSnapshot, HandlerCall, HandlerError, RegisteredHandler};
use crate::hook_result::HookResult;

/// `emit_and_collect` as a state machine, driven like [`EmitFold`](super::EmitFold).
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
