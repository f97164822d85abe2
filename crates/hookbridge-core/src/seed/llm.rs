//! llm hooks (`type: llm`): the prompt template and the reading of the model's reply. Talking to
//! the model (and caching its replies) is the runner's business; this is pure.
//!
//! Template: `{{tool}}` (the tool's name), `{{args}}` (its input as JSON), `{{event}}` (the event
//! the hook was written under), `{{session_id}}`, and any payload field by name or dotted path
//! (`{{cwd}}`, `{{tool_input.command}}`, `{{prompt}}`). Strings are inserted as they are, other
//! values as JSON, a missing one as nothing; `{{ name }}` may have spaces.
//!
//! Reply: the first JSON object in the text (a code fence around it is fine). Its verdict is read
//! from the first of these keys it has, in this order, and the reason from `reason` or `message`:
//!
//! | key | allows | blocks |
//! |---|---|---|
//! | `safe` (the seed's own prompt) | `true` | `false` |
//! | `ok` (Claude Code's prompt hooks) | `true` | `false` |
//! | `allow` | `true` | `false` |
//! | `decision` | `"allow"`, `"approve"` | `"block"`, `"deny"` |
//! | `action` | `"allow"`, `"continue"` | `"block"` |
//!
//! Anything else — no object, none of the keys, a value of another type — is a failure of the
//! hook, handled by its `on_failure`.

use serde_json::{Map, Value};

use crate::diagnostics::shorten;
use crate::event::field_text;

/// What the model decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlmVerdict {
    pub allow: bool,
    pub reason: Option<String>,
}

/// The hook's prompt with its placeholders filled from `payload`; `event` is the event's name as
/// the hook was written.
pub fn render_template(template: &str, event: &str, payload: &Map<String, Value>) -> String {
    let mut out = String::with_capacity(template.len() + 256);
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        let Some(len) = rest[start + 2..].find("}}") else {
            break;
        };
        out.push_str(&rest[..start]);
        let name = rest[start + 2..start + 2 + len].trim();
        match name {
            "event" => out.push_str(event),
            "tool" => out.push_str(&field_text(payload, "tool_name")),
            "args" => out.push_str(&field_text(payload, "tool_input")),
            path => out.push_str(&field_text(payload, path)),
        }
        rest = &rest[start + 2 + len + 2..];
    }
    out.push_str(rest);
    out
}

/// Read the model's reply (see the module table).
pub fn verdict_of_reply(reply: &str) -> Result<LlmVerdict, String> {
    let object = first_json_object(reply).ok_or_else(|| {
        format!(
            "the model's reply holds no JSON object: {}",
            shorten(reply.trim(), 200)
        )
    })?;
    let reason = ["reason", "message"]
        .iter()
        .find_map(|k| object.get(*k).and_then(Value::as_str))
        .map(str::to_string);
    let words = |v: &Value, allow: &[&str], block: &[&str]| -> Option<bool> {
        let s = v.as_str()?;
        if allow.contains(&s) {
            Some(true)
        } else if block.contains(&s) {
            Some(false)
        } else {
            None
        }
    };
    for key in ["safe", "ok", "allow", "decision", "action"] {
        let Some(value) = object.get(key) else { continue };
        let allow = match key {
            "decision" => words(value, &["allow", "approve"], &["block", "deny"]),
            "action" => words(value, &["allow", "continue"], &["block"]),
            _ => value.as_bool(),
        };
        return match allow {
            Some(allow) => Ok(LlmVerdict { allow, reason }),
            None => Err(format!("the model's `{key}` is {value}, which decides nothing")),
        };
    }
    Err(format!(
        "the model's answer has none of `safe`, `ok`, `allow`, `decision`, `action`: {}",
        shorten(&Value::Object(object).to_string(), 200)
    ))
}

/// The first `{…}` of `text` that parses as a JSON object.
fn first_json_object(text: &str) -> Option<Map<String, Value>> {
    let mut from = 0;
    while let Some(offset) = text[from..].find('{') {
        let start = from + offset;
        let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        if let Some(Ok(Value::Object(o))) = stream.next() {
            return Some(o);
        }
        from = start + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_template_fills_the_seeds_names_and_any_payload_field() {
        let payload =
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "session_id": "s1", "cwd": "/p"});
        let payload = payload.as_object().unwrap();
        assert_eq!(
            render_template(
                "Tool: {{tool}}\nArgs: {{args}}\n{{event}} {{ session_id }} {{cwd}} {{tool_input.command}} [{{nope}}] {{unclosed",
                "PreToolUse",
                payload
            ),
            "Tool: Bash\nArgs: {\"command\":\"ls\"}\nPreToolUse s1 /p ls [] {{unclosed"
        );
    }

    #[test]
    fn every_answer_shape_is_read_and_the_first_key_wins() {
        let cases = [
            (r#"{"safe": false, "reason": "rm"}"#, false, Some("rm")),
            ("```json\n{\"safe\": true}\n```", true, None),
            (r#"Sure. {"ok": false, "message": "m"}"#, false, Some("m")),
            (r#"{"allow": true}"#, true, None),
            (r#"{"decision": "deny"}"#, false, None),
            (r#"{"decision": "approve"}"#, true, None),
            (r#"{"action": "block"}"#, false, None),
            (r#"{"ok": true, "safe": false}"#, false, None),
        ];
        for (reply, allow, reason) in cases {
            let v = verdict_of_reply(reply).unwrap();
            assert_eq!((v.allow, v.reason.as_deref()), (allow, reason), "{reply}");
        }
        for garbage in [
            "no",
            "{}",
            r#"{"safe": "maybe"}"#,
            r#"{"verdict": 1}"#,
            "{bad json",
        ] {
            assert!(verdict_of_reply(garbage).is_err(), "{garbage}");
        }
    }
}
