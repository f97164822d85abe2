//! The seed's answers, `{"action": "allow" | "block" | "modify" | "continue", "modified_args": …,
//! "message": …}`, rewritten as the Claude Code answer that means the same, so that merging,
//! rendering and the Amplifier translation read one dialect.
//!
//! | action | PreToolUse | PermissionRequest | PromptSubmit (UserPromptSubmit) | other events |
//! |---|---|---|---|---|
//! | `block` | `permissionDecision: deny`, the message as reason | `decision.behavior: deny` | `decision: block` | `decision: block` (where the event can block) |
//! | `ask` (rule hooks) | `permissionDecision: ask` | — | — | — |
//! | `modify` | `updatedInput` = `modified_args` | — | the prompt rewritten (`newContent`: Amplifier rewrites it; Claude Code cannot, and says so) | — |
//! | `allow`, `continue` | nothing: the call goes on through the usual permission checks | | | |
//!
//! A `message` with any action but `block`/`ask` is shown to the user (`systemMessage`). Keys of
//! Claude Code's own answers beside `action` are kept, merged field by field with what the action
//! says (a `hookSpecificOutput` of the hook's own never replaces the action's deny; a `null` is
//! absent), and win where both set the same field, but for a decision: one that differs from the
//! action's makes the answer unusable (a failure of the hook, under its `on_failure`).

use serde_json::{Map, Value};

use crate::decision::output_schema::TOP_LEVEL;
use crate::decision::{HookJson, PermissionDecision, RequestDecision, TopDecision};
use crate::event::EventName;

/// Why a seed answer cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SeedAnswerError(pub String);

/// Whether an object without `action` reads as a Claude Code answer: empty, or with one of its
/// top-level keys (or the seed's own `contextInjection`/`newContent`, which read as one).
pub fn is_claude_answer(answer: &Map<String, Value>) -> bool {
    answer.is_empty()
        || answer
            .keys()
            .any(|k| TOP_LEVEL.iter().any(|f| f.name == k) || HookJson::SEED_FIELDS.contains(&k.as_str()))
}

/// Rewrite a seed-dialect hook's JSON answer for `event` as Claude Code's. An object without
/// `action` is returned as it is when it is a Claude Code answer; an object that is neither, or an
/// `action` that cannot be applied here, is an error.
pub fn to_claude_answer(
    event: &EventName,
    mut answer: Map<String, Value>,
) -> Result<Map<String, Value>, SeedAnswerError> {
    let Some(action) = answer.remove("action") else {
        if is_claude_answer(&answer) {
            return Ok(answer);
        }
        let keys: Vec<&str> = answer.keys().map(String::as_str).collect();
        return Err(SeedAnswerError(format!(
            "the answer is neither the seed's (`action`) nor Claude Code's (it has {})",
            keys.join(", ")
        )));
    };
    let modified = answer.remove("modified_args");
    let mut message = match answer.remove("message") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(other) => {
            return Err(SeedAnswerError(format!(
                "`message` must be a string, found {other}"
            )))
        }
    };
    let Some(action) = action.as_str() else {
        return Err(SeedAnswerError(format!(
            "`action` must be \"allow\", \"block\", \"modify\" or \"continue\", found {action}"
        )));
    };
    // The seed's answer fills in only what the hook's JSON does not say itself.
    let mut said = HookJson::default();
    let mut new_prompt = None;
    match action {
        "allow" | "continue" => {}
        "block" => blocked(event, message.take(), &mut said)?,
        "ask" if *event == EventName::PreToolUse => {
            let specific = said.specific_for(event);
            specific.permission_decision = Some(PermissionDecision::Ask);
            specific.permission_decision_reason = message.take();
        }
        "modify" => {
            let Some(modified) = modified.filter(|m| !m.is_null()) else {
                return Err(SeedAnswerError("`modify` needs `modified_args`".into()));
            };
            new_prompt = modified_input(event, modified, &mut said)?;
        }
        "ask" => {
            return Err(SeedAnswerError(format!(
                "`ask` applies to PreToolUse only, not to {event}"
            )))
        }
        other => {
            return Err(SeedAnswerError(format!(
                "`action` must be \"allow\", \"block\", \"modify\" or \"continue\", found \"{other}\""
            )))
        }
    }
    // A message that is not the block's or the question's reason is shown to the user.
    said.system_message = message;
    let Ok(Value::Object(fields)) = serde_json::to_value(&said) else {
        unreachable!("an answer serializes to an object")
    };
    let seeds_own = new_prompt.map(|prompt| (HookJson::NEW_CONTENT.to_string(), Value::String(prompt)));
    keep_both(&mut answer, fields.into_iter().chain(seeds_own))?;
    // A top-level `null` of the hook's (`"decision": null`) is no key (Claude Code's schema would
    // refuse the whole answer for it); inside objects the hook's values are its own.
    answer.retain(|_, v| !v.is_null());
    Ok(answer)
}

/// The keys that carry a decision: where the hook's own Claude Code keys say another one than its
/// `action` does, the answer cannot be read either way.
const DECISION_KEYS: &[&str] = &["permissionDecision", "decision", "behavior"];

/// Adds what the `action` says to the hook's own Claude Code keys, field by field inside objects
/// (`hookSpecificOutput`), so that a key the hook also set (an `additionalContext`, a `null`) never
/// replaces the block the action made: a `null` of the hook's counts as absent, the hook's own
/// value wins elsewhere, and a decision of its own that differs from the action's is an error.
fn keep_both(
    answer: &mut Map<String, Value>,
    said: impl IntoIterator<Item = (String, Value)>,
) -> Result<(), SeedAnswerError> {
    for (key, value) in said {
        match answer.get_mut(&key) {
            None | Some(Value::Null) => {
                answer.insert(key, value);
            }
            Some(Value::Object(own)) if value.is_object() => {
                let Value::Object(fields) = value else {
                    unreachable!("checked")
                };
                keep_both(own, fields)?;
            }
            Some(own) if DECISION_KEYS.contains(&key.as_str()) && *own != value => {
                return Err(SeedAnswerError(format!(
                    "the answer's `action` says `{key}: {value}` and its own `{key}` says {own}"
                )));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// What `block` says on `event`, with the hook's message as the reason.
fn blocked(event: &EventName, message: Option<String>, said: &mut HookJson) -> Result<(), SeedAnswerError> {
    let reason = message.unwrap_or_else(|| "Blocked by a hook".to_string());
    match event {
        EventName::PreToolUse => {
            let specific = said.specific_for(event);
            specific.permission_decision = Some(PermissionDecision::Deny);
            specific.permission_decision_reason = Some(reason);
        }
        EventName::PermissionRequest => {
            let raw = Map::from_iter([
                ("behavior".to_string(), Value::String("deny".into())),
                ("message".to_string(), Value::String(reason)),
            ]);
            said.specific_for(event).request_decision = RequestDecision::from_raw(raw);
        }
        _ if event.traits().exit2_blocks => {
            said.decision = Some(TopDecision::Block);
            said.reason = Some(reason);
        }
        _ => {
            return Err(SeedAnswerError(format!(
                "`block` has no effect on {event}: it cannot be blocked"
            )))
        }
    }
    Ok(())
}

/// What `modify` says on `event`: the tool's new arguments (in `said`), or the new prompt
/// (returned: the seed's `newContent`).
fn modified_input(
    event: &EventName,
    modified: Value,
    said: &mut HookJson,
) -> Result<Option<String>, SeedAnswerError> {
    match event {
        EventName::PreToolUse => {
            let Value::Object(arguments) = modified else {
                return Err(SeedAnswerError(format!(
                    "`modified_args` must be an object of the tool's arguments, found {modified}"
                )));
            };
            said.specific_for(event).updated_input = Some(arguments);
            Ok(None)
        }
        EventName::UserPromptSubmit => {
            let prompt = match &modified {
                Value::String(s) => s.clone(),
                Value::Object(o) => match o.get("prompt").and_then(Value::as_str) {
                    Some(p) => p.to_string(),
                    None => {
                        return Err(SeedAnswerError(
                            "`modified_args` for a prompt must be the new prompt or {\"prompt\": …}".into(),
                        ))
                    }
                },
                other => {
                    return Err(SeedAnswerError(format!(
                        "`modified_args` for a prompt must be the new prompt, found {other}"
                    )))
                }
            };
            Ok(Some(prompt))
        }
        _ => Err(SeedAnswerError(format!(
            "`modify` applies to PreToolUse (the tool's arguments) and PromptSubmit (the prompt), not to {event}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answer(event: EventName, v: Value) -> Result<Value, SeedAnswerError> {
        to_claude_answer(&event, v.as_object().unwrap().clone()).map(Value::Object)
    }

    #[test]
    fn block_is_a_deny_on_tools_and_a_block_elsewhere() {
        assert_eq!(
            answer(EventName::PreToolUse, json!({"action": "block", "message": "no"})).unwrap(),
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}})
        );
        assert_eq!(
            answer(EventName::Stop, json!({"action": "block", "message": "go on"})).unwrap(),
            json!({"decision": "block", "reason": "go on"})
        );
        assert_eq!(
            answer(EventName::PermissionRequest, json!({"action": "block"})).unwrap()["hookSpecificOutput"]
                ["decision"]["behavior"],
            "deny"
        );
        assert!(answer(EventName::SessionEnd, json!({"action": "block"})).is_err());
    }

    /// A block is never lost to a Claude Code key the hook also printed (found by a red-team
    /// pass: each of these answered allow): its own `hookSpecificOutput` is merged field by field,
    /// a `null` is absent, and a decision of its own that differs is an error.
    #[test]
    fn the_hooks_own_claude_code_keys_never_replace_the_block() {
        let deny = json!({"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"});
        let with = |extra: Value| {
            let mut v = json!({"action": "block", "message": "no"});
            v.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            answer(EventName::PreToolUse, v)
        };
        let mut with_context = deny.clone();
        with_context["additionalContext"] = json!("guard v2");
        assert_eq!(
            with(json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "guard v2"}})).unwrap(),
            json!({"hookSpecificOutput": with_context})
        );
        assert_eq!(
            with(json!({"hookSpecificOutput": null})).unwrap(),
            json!({"hookSpecificOutput": deny})
        );
        assert_eq!(
            with(json!({"decision": null})).unwrap(),
            json!({"hookSpecificOutput": deny})
        );
        // Its own deny agrees; its own allow does not.
        assert!(with(json!({"hookSpecificOutput": {"permissionDecision": "deny"}})).is_ok());
        let conflict = with(json!({"hookSpecificOutput": {"permissionDecision": "allow"}})).unwrap_err();
        assert!(conflict.0.contains("`permissionDecision`"), "{conflict}");
        assert!(answer(EventName::Stop, json!({"action": "block", "decision": "approve"})).is_err());
    }

    #[test]
    fn modify_replaces_the_input_or_the_prompt() {
        assert_eq!(
            answer(
                EventName::PreToolUse,
                json!({"action": "modify", "modified_args": {"command": "ls"}})
            )
            .unwrap(),
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "ls"}}})
        );
        assert_eq!(
            answer(
                EventName::UserPromptSubmit,
                json!({"action": "modify", "modified_args": {"prompt": "p2"}})
            )
            .unwrap(),
            json!({"newContent": "p2"})
        );
        assert!(answer(EventName::PreToolUse, json!({"action": "modify"})).is_err());
        assert!(answer(
            EventName::PostToolUse,
            json!({"action": "modify", "modified_args": {}})
        )
        .is_err());
    }

    #[test]
    fn allow_shows_its_message_and_claude_answers_pass_through() {
        assert_eq!(
            answer(
                EventName::PreToolUse,
                json!({"action": "allow", "message": "fine", "modified_args": null})
            )
            .unwrap(),
            json!({"systemMessage": "fine"})
        );
        assert_eq!(
            answer(EventName::PreToolUse, json!({"action": "continue"})).unwrap(),
            json!({})
        );
        let claude = json!({"decision": "block", "reason": "r"});
        assert_eq!(answer(EventName::Stop, claude.clone()).unwrap(), claude);
        // Claude Code's own key wins over the seed's where both say the same thing.
        assert_eq!(
            answer(
                EventName::PreToolUse,
                json!({"action": "allow", "message": "a", "systemMessage": "b"})
            )
            .unwrap(),
            json!({"systemMessage": "b"})
        );
    }

    #[test]
    fn neither_dialect_and_bad_actions_are_errors() {
        let e = answer(EventName::PreToolUse, json!({"verdict": "ok"})).unwrap_err();
        assert!(e.0.contains("neither"), "{e}");
        assert!(answer(EventName::PreToolUse, json!({"action": "nuke"})).is_err());
        assert!(answer(EventName::PreToolUse, json!({"action": 1})).is_err());
        assert!(answer(EventName::Stop, json!({"action": "ask"})).is_err());
        assert!(answer(EventName::PreToolUse, json!({"action": "block", "message": 3})).is_err());
        assert_eq!(answer(EventName::PreToolUse, json!({})).unwrap(), json!({}));
    }
}
