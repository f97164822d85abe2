//! llm hooks (`type: llm`): the prompt template and the reading of the model's reply. Talking to
//! the model (and caching its replies) is the runner's business; this is pure.
//!
//! Template: `{{tool}}` (the tool's name), `{{args}}` (its input as JSON), `{{event}}` (the event
//! the hook was written under), `{{session_id}}`, and any payload field by name or dotted path
//! (`{{cwd}}`, `{{tool_input.command}}`, `{{prompt}}`). Strings are inserted as they are, other
//! values as JSON, a missing one as nothing; `{{ name }}` may have spaces.
//!
//! Reply: the JSON objects in the text (a code fence around one is fine). An object's verdict is
//! read from these keys (a `null` is no key), its reason from `reason` or `message`; an object with
//! none of them (the model quoting the tool call) is passed over. Any block decides, in any object
//! and under any key — so neither a quoted `{"safe": true}` before the verdict nor a second key
//! turns a block into an allow — and a value that decides nothing is a failure unless something
//! blocks:
//!
//! | key | allows | blocks |
//! |---|---|---|
//! | `safe` (the seed's own prompt) | `true` | `false` |
//! | `ok` (Claude Code's prompt hooks) | `true` | `false` |
//! | `allow` | `true` | `false` |
//! | `decision` | `"allow"`, `"approve"` | `"block"`, `"deny"` |
//! | `action` | `"allow"`, `"continue"` | `"block"` |
//!
//! Words are read in any case (`"Deny"`). Anything else — no object (a reply cut short by
//! `max_tokens` among them), none of the keys, a value of another type — is a failure of the hook,
//! handled by its `on_failure`.

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
    let objects = json_objects(reply);
    let Some(first) = objects.first() else {
        return Err(format!(
            "the model's reply holds no JSON object: {}",
            shorten(reply.trim(), 200)
        ));
    };
    let (mut allowed, mut undecided) = (None, None);
    for object in &objects {
        match verdict_of(object) {
            None => {}
            Some(Ok(verdict)) if !verdict.allow => return Ok(verdict),
            Some(Ok(verdict)) => {
                allowed.get_or_insert(verdict);
            }
            Some(Err(why)) => {
                undecided.get_or_insert(why);
            }
        }
    }
    match (allowed, undecided) {
        (_, Some(why)) => Err(why),
        (Some(verdict), None) => Ok(verdict),
        (None, None) => Err(format!(
            "the model's answer has none of `safe`, `ok`, `allow`, `decision`, `action`: {}",
            shorten(&Value::Object(first.clone()).to_string(), 200)
        )),
    }
}

/// The verdict of one object: `None` when it has none of the keys (the model quoting the tool
/// call, an example), else what its keys say — a block if any says block, an error if one says
/// nothing that can be read, else an allow. A `null` is no key.
fn verdict_of(object: &Map<String, Value>) -> Option<Result<LlmVerdict, String>> {
    let reason = ["reason", "message"]
        .iter()
        .find_map(|k| object.get(*k).and_then(Value::as_str))
        .map(str::to_string);
    let words = |v: &Value, allow: &[&str], block: &[&str]| -> Option<bool> {
        let s = v.as_str()?.trim().to_ascii_lowercase();
        if allow.contains(&s.as_str()) {
            Some(true)
        } else if block.contains(&s.as_str()) {
            Some(false)
        } else {
            None
        }
    };
    let mut said = None;
    for key in ["safe", "ok", "allow", "decision", "action"] {
        let Some(value) = object.get(key).filter(|v| !v.is_null()) else {
            continue;
        };
        let allow = match key {
            "decision" => words(value, &["allow", "approve"], &["block", "deny"]),
            "action" => words(value, &["allow", "continue"], &["block"]),
            _ => value.as_bool(),
        };
        match allow {
            Some(false) => return Some(Ok(LlmVerdict { allow: false, reason })),
            Some(true) => {
                said.get_or_insert(Ok(()));
            }
            None => {
                said = Some(Err(format!(
                    "the model's `{key}` is {value}, which decides nothing"
                )))
            }
        }
    }
    said.map(|said| said.map(|()| LlmVerdict { allow: true, reason }))
}

/// Every `{…}` of `text` that parses as a JSON object, in order, each whole (an object inside one
/// is part of it); at most 64.
fn json_objects(text: &str) -> Vec<Map<String, Value>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(offset) = text[from..].find('{') {
        let start = from + offset;
        let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        if let Some(Ok(Value::Object(o))) = stream.next() {
            out.push(o);
            if out.len() == 64 {
                break;
            }
            from = start + stream.byte_offset().max(1);
        } else {
            from = start + 1;
        }
    }
    out
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
    fn every_answer_shape_is_read_and_any_block_wins() {
        let cases = [
            (r#"{"safe": false, "reason": "rm"}"#, false, Some("rm")),
            ("```json\n{\"safe\": true}\n```", true, None),
            (r#"Sure. {"ok": false, "message": "m"}"#, false, Some("m")),
            (r#"{"allow": true}"#, true, None),
            (r#"{"decision": "deny"}"#, false, None),
            (r#"{"decision": "approve"}"#, true, None),
            (r#"{"action": "block"}"#, false, None),
            (r#"{"ok": true, "safe": false}"#, false, None),
            // Found by a red-team pass, each read as an allow or a failure before:
            (
                r#"The call was {"command": "rm -rf /"}. Verdict: {"safe": false, "reason": "rm"}"#,
                false,
                Some("rm"),
            ),
            (
                r#"Like {"safe": true} for ls; here: {"safe": false}"#,
                false,
                None,
            ),
            (r#"{"safe": null, "ok": false}"#, false, None),
            (r#"{"decision": "Deny"}"#, false, None),
            (r#"{"safe": true} {"note": 1}"#, true, None),
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
            r#"{"safe": true} and {"safe": "maybe"}"#,
            r#"{"safe": false, "reason": "This command deletes which would"#,
        ] {
            assert!(verdict_of_reply(garbage).is_err(), "{garbage}");
        }
    }
}
