//! Answers in another agent's words: a hook migrated from Cursor, GitHub Copilot or Gemini CLI
//! (`hookbridge migrate`) prints what its agent reads, and says so with hookbridge's own key
//! `"answers": "<agent>"`. Its decision is rewritten as the seed's `action` it stands for, which
//! [`crate::seed::to_claude_answer`] places as Claude Code's answer for the event, so that a guard
//! that blocked with exit 0 in its own agent still blocks here.
//!
//! | agent | blocks with | asks with | rewritten |
//! |---|---|---|---|
//! | Cursor | `permission: "deny"`; `continue: false` on a prompt; `followup_message` on stop (the agent goes on with it) | `permission: "ask"` | reason: `agent_message`, else `user_message`; `user_message` is also shown to the user |
//! | Copilot | top-level `permissionDecision: "deny"` | `permissionDecision: "ask"` | reason: `permissionDecisionReason` |
//! | Gemini CLI | `decision: "deny"` or `"block"` | `decision: "ask"` | reason: `reason`; `hookSpecificOutput.hookEventName` renamed to Claude Code's event |
//!
//! An allow in another agent's words is dropped: the call goes on through the usual permission
//! checks, as for a seed `allow`; an answer can only ever gain a block by being read this way.

use serde_json::{Map, Value};

use crate::event::EventName;

/// The agent whose answers a hook prints (`"answers"`; Claude Code's when absent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswersAs {
    Cursor,
    Copilot,
    Gemini,
}

impl AnswersAs {
    /// The values `"answers"` takes (`claude`: Claude Code's own answers, as with no key).
    pub const WORDS: &'static [&'static str] = &["claude", "cursor", "copilot", "gemini"];

    /// The agent a word of [`AnswersAs::WORDS`] names (`claude`, or any other word: `None`).
    pub fn from_word(word: &str) -> Option<AnswersAs> {
        match word {
            "cursor" => Some(AnswersAs::Cursor),
            "copilot" => Some(AnswersAs::Copilot),
            "gemini" => Some(AnswersAs::Gemini),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            AnswersAs::Cursor => "cursor",
            AnswersAs::Copilot => "copilot",
            AnswersAs::Gemini => "gemini",
        }
    }
}

/// `answer`, printed by a hook that speaks `agent`'s words, with its decision rewritten as the
/// seed's `action` (and `message`), and whether it has one: an answer without is read as it is.
pub fn as_seed_answer(
    agent: AnswersAs,
    event: &EventName,
    mut answer: Map<String, Value>,
) -> (Map<String, Value>, bool) {
    let text = |v: Option<Value>| v.and_then(|v| v.as_str().map(str::to_string));
    let (action, message) = match agent {
        AnswersAs::Cursor => {
            let permission = text(answer.remove("permission"));
            let agent_message = text(
                answer
                    .remove("agent_message")
                    .or_else(|| answer.remove("agentMessage")),
            );
            let user_message = text(
                answer
                    .remove("user_message")
                    .or_else(|| answer.remove("userMessage")),
            );
            let followup = text(answer.remove("followup_message"));
            // Cursor's `continue: false` refuses the prompt; Claude Code's would end the session.
            let refused =
                *event == EventName::UserPromptSubmit && answer.get("continue") == Some(&Value::Bool(false));
            if refused {
                answer.remove("continue");
            }
            let action = match (permission.as_deref(), refused, &followup) {
                (Some("deny"), _, _) | (_, true, _) => Some("block"),
                (Some("ask"), _, _) => Some("ask"),
                (_, _, Some(_)) if *event == EventName::Stop => Some("block"),
                _ => None,
            };
            if let Some(shown) = &user_message {
                answer
                    .entry("systemMessage")
                    .or_insert_with(|| Value::String(shown.clone()));
            }
            let reason = match action {
                Some(_) if *event == EventName::Stop && permission.is_none() => followup,
                _ => agent_message.or(user_message),
            };
            (action, reason)
        }
        AnswersAs::Copilot => {
            let decision = text(answer.remove("permissionDecision"));
            let reason = text(answer.remove("permissionDecisionReason"));
            let action = match decision.as_deref() {
                Some("deny") => Some("block"),
                Some("ask") => Some("ask"),
                _ => None,
            };
            (action, reason)
        }
        AnswersAs::Gemini => {
            let decision = text(answer.remove("decision"));
            let action = match decision.as_deref() {
                Some("deny" | "block") => Some("block"),
                Some("ask") => Some("ask"),
                _ => None,
            };
            let reason = match action {
                Some(_) => text(answer.remove("reason")),
                None => None,
            };
            if let Some(Value::Object(specific)) = answer.get_mut("hookSpecificOutput") {
                specific.insert("hookEventName".into(), Value::String(event.as_str().into()));
            }
            (action, reason)
        }
    };
    // `ask` is a tool call's question; elsewhere it decides nothing.
    let action = action.filter(|a| *a != "ask" || *event == EventName::PreToolUse);
    let Some(action) = action.filter(|action| settle(action, &mut answer)) else {
        return (answer, false);
    };
    // The seed's own keys are ours to write here: a `message` of the agent's (a number) must not
    // make the rewrite refuse the answer, a failure where the agent denied.
    answer.remove("message");
    answer.insert("action".into(), Value::String(action.into()));
    if let Some(message) = message.filter(|m| !m.is_empty()) {
        answer.insert("message".into(), Value::String(message));
    }
    (answer, true)
}

/// Where the hook also says a decision in Claude Code's own keys, the stricter of the two holds
/// (deny before ask before allow), so that the two never contradict each other — which would make
/// the answer unreadable, a failure of the hook, and a block lost under `onFailure: continue`.
/// The weaker Claude Code decision is removed; `false`: the agent's `action` is the weaker one
/// and is dropped.
fn settle(action: &str, answer: &mut Map<String, Value>) -> bool {
    let block = action == "block";
    if block && answer.get("decision").and_then(Value::as_str) == Some("approve") {
        answer.remove("decision");
    }
    let Some(Value::Object(specific)) = answer.get_mut("hookSpecificOutput") else {
        return true;
    };
    match specific.get("permissionDecision").and_then(Value::as_str) {
        Some("deny") if !block => return false,
        Some("deny") | None => {}
        Some(_) => {
            specific.remove("permissionDecision");
        }
    }
    let behavior = specific
        .get("decision")
        .and_then(|d| d.get("behavior"))
        .and_then(Value::as_str);
    if block && behavior.is_some_and(|b| b != "deny") {
        specific.remove("decision");
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn seed(agent: AnswersAs, event: EventName, answer: Value) -> Value {
        let Value::Object(map) = answer else { panic!() };
        let (out, decided) = as_seed_answer(agent, &event, map);
        let out = Value::Object(out);
        assert_eq!(decided, out.get("action").is_some());
        out
    }

    #[test]
    fn each_agents_deny_is_a_block() {
        use AnswersAs::*;
        let pre = EventName::PreToolUse;
        assert_eq!(
            seed(
                Cursor,
                pre.clone(),
                json!({"permission": "deny", "user_message": "no", "agent_message": "not rm"})
            ),
            json!({"action": "block", "message": "not rm", "systemMessage": "no"})
        );
        assert_eq!(
            seed(
                Copilot,
                pre.clone(),
                json!({"permissionDecision": "deny", "permissionDecisionReason": "r"})
            ),
            json!({"action": "block", "message": "r"})
        );
        assert_eq!(
            seed(
                Gemini,
                pre.clone(),
                json!({"decision": "deny", "reason": "r", "systemMessage": "s"})
            ),
            json!({"action": "block", "message": "r", "systemMessage": "s"})
        );
        assert_eq!(
            seed(Gemini, EventName::Stop, json!({"decision": "block"})),
            json!({"action": "block"})
        );
        assert_eq!(
            seed(
                Cursor,
                EventName::UserPromptSubmit,
                json!({"continue": false, "user_message": "no"})
            ),
            json!({"action": "block", "message": "no", "systemMessage": "no"})
        );
        assert_eq!(
            seed(
                Cursor,
                EventName::Stop,
                json!({"followup_message": "run the tests"})
            ),
            json!({"action": "block", "message": "run the tests"})
        );
        assert_eq!(
            seed(
                Cursor,
                pre.clone(),
                json!({"permission": "deny", "message": 5, "action": "allow"})
            ),
            json!({"action": "block"}),
            "the seed's keys are the rewrite's own"
        );
    }

    #[test]
    fn an_allow_decides_nothing_and_an_ask_only_on_a_tool_call() {
        use AnswersAs::*;
        let pre = EventName::PreToolUse;
        assert_eq!(
            seed(Cursor, pre.clone(), json!({"permission": "allow"})),
            json!({})
        );
        assert_eq!(
            seed(Copilot, pre.clone(), json!({"permissionDecision": "allow"})),
            json!({})
        );
        assert_eq!(
            seed(Gemini, pre.clone(), json!({"decision": "allow", "reason": "ok"})),
            json!({"reason": "ok"})
        );
        assert_eq!(
            seed(Cursor, pre.clone(), json!({"permission": "ask"})),
            json!({"action": "ask"})
        );
        assert_eq!(
            seed(Gemini, EventName::Stop, json!({"decision": "ask"})),
            json!({})
        );
        assert_eq!(
            seed(Cursor, EventName::Stop, json!({"continue": false})),
            json!({"continue": false}),
            "Claude Code's own keys are kept"
        );
        assert_eq!(
            seed(
                Gemini,
                EventName::PostToolUse,
                json!({"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": "c"}})
            ),
            json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "c"}})
        );
    }

    /// A deny in either words holds over an allow or an ask in the other: the two never make the
    /// answer unreadable (a failure, under `onFailure: continue` an allow).
    #[test]
    fn the_stricter_of_the_two_words_holds() {
        use AnswersAs::*;
        let pre = EventName::PreToolUse;
        let claude = |decision: &str| json!({"hookEventName": "PreToolUse", "permissionDecision": decision});
        assert_eq!(
            seed(
                Gemini,
                pre.clone(),
                json!({"decision": "deny", "hookSpecificOutput": claude("allow")})
            ),
            json!({"action": "block", "hookSpecificOutput": {"hookEventName": "PreToolUse"}})
        );
        assert_eq!(
            seed(
                Cursor,
                pre.clone(),
                json!({"permission": "ask", "hookSpecificOutput": claude("deny")})
            ),
            json!({"hookSpecificOutput": claude("deny")}),
            "the hook's own deny holds"
        );
        assert_eq!(
            seed(
                Copilot,
                pre.clone(),
                json!({"permissionDecision": "deny", "decision": "approve"})
            ),
            json!({"action": "block"})
        );
        let request = json!({"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}});
        assert_eq!(
            seed(
                Gemini,
                EventName::PermissionRequest,
                json!({"decision": "deny", "hookSpecificOutput": request})
            ),
            json!({"action": "block", "hookSpecificOutput": {"hookEventName": "PermissionRequest"}})
        );
    }

    #[test]
    fn words_name_the_agents() {
        for word in AnswersAs::WORDS {
            match AnswersAs::from_word(word) {
                Some(agent) => assert_eq!(agent.as_str(), *word),
                None => assert_eq!(*word, "claude"),
            }
        }
        assert_eq!(AnswersAs::from_word("codex"), None);
    }
}
