//! Rule hooks (`type: matcher`): decided on the dispatching thread from the payload alone — no
//! process, no thread, no descriptor. A matching rule answers the seed's
//! `{"action": …, "message": …}`, already rewritten as Claude Code's answer for the event (the
//! core's one translation, [`to_claude_answer`]); a rule that does not match answers nothing.

use std::time::Instant;

use hookbridge_core::config::RuleHook;
use hookbridge_core::decision::{HookExecution, RunStatus};
use hookbridge_core::event::EventPayload;
use hookbridge_core::seed::to_claude_answer;
use serde_json::{json, Value};

/// Decide `hook` for `payload`; `finish_order` as the dispatch counts it.
pub fn evaluate(hook: &RuleHook, payload: &EventPayload, finish_order: usize) -> HookExecution {
    let started = Instant::now();
    let call = payload.tool_call();
    let matched = hook.rule.matches(
        call.as_ref().map(|c| c.tool_name),
        call.as_ref().map(|c| c.tool_input),
        payload.cwd(),
        hook.action == hookbridge_core::seed::RuleAction::Allow,
    );
    let mut execution = HookExecution::without_output(RunStatus::Answered, finish_order);
    if matched {
        let mut answer = serde_json::Map::new();
        answer.insert("action".into(), json!(hook.action.as_str()));
        if let Some(message) = &hook.message {
            answer.insert("message".into(), Value::String(message.clone()));
        }
        // A seed answer the core rewrites for the event; one it cannot apply here (an `ask` off
        // PreToolUse) is kept as written and reported when read.
        let answer = match to_claude_answer(payload.event(), answer.clone()) {
            Ok(claude) => claude,
            Err(_) => answer,
        };
        execution.stdout = Value::Object(answer).to_string().into_bytes();
    }
    execution.duration = started.elapsed();
    execution
}
