//! The JSON payload of one event: parsed, normalized to Claude Code's snake_case wire names, and
//! checked where Claude Code's contract is strict.
//!
//! What hooks receive is what the host sent, byte for byte, whenever hookbridge changed nothing in
//! it (the usual case under Claude Code): the payload's own bytes are kept and passed on. That also
//! covers what Node's `JSON.parse` accepts and serde_json does not — a lone surrogate escape
//! (`"\ud800"`, which `JSON.stringify` writes) and nesting deeper than serde_json's 128 levels
//! (MCP tool arguments): for reading the fields hookbridge needs, such a payload is parsed from a
//! copy where lone surrogates are U+FFFD and values nested past [`MAX_READ_DEPTH`] are `null`,
//! while the hooks get the original.
//!
//! Hosts differ in spelling (amplihack's contract accepts `toolName` for `tool_name`), but every
//! published hook reads Claude Code's snake_case names, so the payload is normalized once here and
//! forwarded to hooks in that form. Unknown fields are kept untouched: hooks may read fields newer
//! than hookbridge. Tool events are strict (`tool_name` and `tool_input` are required), because a
//! guard hook that silently receives an empty command would let a dangerous command through.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::EventName;

/// Why a payload was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PayloadError {
    #[error("the {event} payload is not valid JSON: {message}")]
    InvalidJson { event: String, message: String },
    #[error("the {event} payload must be a JSON object, found {found}")]
    NotAnObject { event: String, found: &'static str },
    #[error("the {event} payload is missing the required field `{field}`")]
    MissingField { event: String, field: &'static str },
    #[error("the {event} payload field `{field}` must be {expected}, found {found}")]
    WrongType {
        event: String,
        field: &'static str,
        expected: &'static str,
        found: &'static str,
    },
}

/// The field of a hook input at a dotted `path` (`tool_input.file_path`), as text: a string as it
/// is, another value as JSON, a missing one or `null` as nothing. What `${path}` in an mcp_tool
/// hook's `input` and `{{path}}` in an llm hook's prompt stand for.
pub fn field_text(input: &Map<String, Value>, path: &str) -> String {
    let mut parts = path.trim().split('.');
    let first = parts.next().and_then(|p| input.get(p));
    match parts
        .try_fold(first, |v, p| Some(v.and_then(|v| v.get(p))))
        .flatten()
    {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// A tool call as tool events carry it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall<'a> {
    pub tool_name: &'a str,
    pub tool_input: &'a Map<String, Value>,
    pub tool_use_id: Option<&'a str>,
    /// PostToolUse's `tool_response` (the tool's structured output), if present.
    pub tool_response: Option<&'a Value>,
}

/// One event's payload, normalized. The field map is what hooks receive on stdin.
#[derive(Debug, Clone, PartialEq)]
pub struct EventPayload {
    event: EventName,
    fields: Map<String, Value>,
    /// The bytes the host sent, while `fields` still says exactly what they say.
    original: Option<Arc<[u8]>>,
}

/// Values nested deeper than this are read as `null` (the hooks still get them whole).
pub const MAX_READ_DEPTH: usize = 100;

/// camelCase spellings accepted for Claude Code's snake_case fields, beyond the mechanical
/// conversion. `user_prompt`/`userPrompt` is amplihack's name for `prompt`.
const ALIASES: &[(&str, &str)] = &[("user_prompt", "prompt"), ("tool_result", "tool_response")];

impl EventPayload {
    /// Parse a payload for `event` from raw bytes (a hook host's stdin).
    pub fn parse(event: EventName, bytes: &[u8]) -> Result<EventPayload, PayloadError> {
        let utf8 = std::str::from_utf8(bytes).is_ok();
        let text = String::from_utf8_lossy(bytes);
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return EventPayload::from_value(event, Value::Object(Map::new()));
        }
        let readable = readable_copy(trimmed);
        let value: Value = serde_json::from_str(&readable).map_err(|e| PayloadError::InvalidJson {
            event: event.to_string(),
            message: e.to_string(),
        })?;
        let unchanged = utf8 && is_wire_form(&event, &value);
        let mut payload = EventPayload::from_value(event, value)?;
        if unchanged {
            payload.original = Some(Arc::from(bytes));
        }
        Ok(payload)
    }

    /// Build from a JSON value: normalize names, fill `hook_event_name`, check required fields.
    pub fn from_value(event: EventName, value: Value) -> Result<EventPayload, PayloadError> {
        let Value::Object(raw) = value else {
            return Err(PayloadError::NotAnObject {
                event: event.to_string(),
                found: json_type(&value),
            });
        };
        let mut fields = Map::with_capacity(raw.len() + 1);
        for (key, value) in raw {
            let snake = to_snake_case(&key);
            if snake != key && fields.contains_key(&snake) {
                continue; // the snake_case spelling wins when both are present
            }
            fields.insert(snake, value);
        }
        for (alias, canonical) in ALIASES {
            if !fields.contains_key(*canonical) {
                if let Some(v) = fields.get(*alias).cloned() {
                    // tool_result is the seed's name; keep it beside tool_response for old hooks.
                    fields.insert((*canonical).to_string(), v);
                }
            }
        }
        fields.insert("hook_event_name".into(), Value::String(event.to_string()));
        let payload = EventPayload {
            event,
            fields,
            original: None,
        };
        payload.check()?;
        Ok(payload)
    }

    fn check(&self) -> Result<(), PayloadError> {
        let event = self.event.to_string();
        if self.event.traits().is_tool_event {
            match self.fields.get("tool_name") {
                None => {
                    return Err(PayloadError::MissingField {
                        event,
                        field: "tool_name",
                    })
                }
                Some(Value::String(_)) => {}
                Some(other) => {
                    return Err(PayloadError::WrongType {
                        event,
                        field: "tool_name",
                        expected: "a string",
                        found: json_type(other),
                    })
                }
            }
            match self.fields.get("tool_input") {
                None => {
                    return Err(PayloadError::MissingField {
                        event,
                        field: "tool_input",
                    })
                }
                Some(Value::Object(_)) => {}
                Some(other) => {
                    return Err(PayloadError::WrongType {
                        event,
                        field: "tool_input",
                        expected: "an object",
                        found: json_type(other),
                    })
                }
            }
        }
        for field in ["session_id", "cwd", "transcript_path", "prompt"] {
            if let Some(v) = self.fields.get(field) {
                if !v.is_string() && !v.is_null() {
                    return Err(PayloadError::WrongType {
                        event,
                        field: static_name(field),
                        expected: "a string",
                        found: json_type(v),
                    });
                }
            }
        }
        Ok(())
    }

    pub fn event(&self) -> &EventName {
        &self.event
    }

    pub fn fields(&self) -> &Map<String, Value> {
        &self.fields
    }

    pub fn into_fields(self) -> Map<String, Value> {
        self.fields
    }

    /// Set or replace a field (hosts add `session_id`, `cwd`, … when they know them).
    pub fn set(&mut self, key: &str, value: Value) {
        self.original = None;
        self.fields.insert(key.to_string(), value);
    }

    /// Set a field only if the payload does not carry it yet.
    pub fn set_default(&mut self, key: &str, value: Value) {
        if !self.fields.contains_key(key) {
            self.original = None;
            self.fields.insert(key.to_string(), value);
        }
    }

    pub fn get_str(&self, key: &str) -> Option<&str> {
        self.fields.get(key).and_then(Value::as_str)
    }

    pub fn session_id(&self) -> Option<&str> {
        self.get_str("session_id")
    }

    pub fn cwd(&self) -> Option<&str> {
        self.get_str("cwd")
    }

    /// The typed reading of this payload (see [`EventData`](super::EventData)).
    pub fn data(&self) -> Result<super::EventData, serde_json::Error> {
        super::EventData::from_fields(&self.event, &self.fields)
    }

    /// The fields every event may carry, typed.
    pub fn common(&self) -> super::CommonFields {
        serde_json::from_value(Value::Object(self.fields.clone())).unwrap_or_default()
    }

    /// The tool call of a tool event (always present for them: checked at parse time).
    pub fn tool_call(&self) -> Option<ToolCall<'_>> {
        let tool_name = self.get_str("tool_name")?;
        let tool_input = self.fields.get("tool_input")?.as_object()?;
        Some(ToolCall {
            tool_name,
            tool_input,
            tool_use_id: self.get_str("tool_use_id"),
            tool_response: self.fields.get("tool_response"),
        })
    }

    /// The string a group's matcher is tested against for this event, if the event has one.
    /// FileChanged matches the file's base name. A missing value matches as the empty string.
    pub fn match_query(&self) -> Option<String> {
        let field = self.event.traits().match_field?;
        let value = self.get_str(field).unwrap_or("");
        if self.event == EventName::FileChanged {
            return Some(value.rsplit('/').next().unwrap_or(value).to_string());
        }
        Some(value.to_string())
    }

    /// Compact one-line JSON, as Claude Code writes it to a hook's stdin.
    pub fn to_stdin_bytes(&self) -> Vec<u8> {
        if let Some(original) = &self.original {
            return original.to_vec();
        }
        let mut out = serde_json::to_vec(&self.fields).expect("a JSON map always serializes");
        out.push(b'\n');
        out
    }
}

/// True if normalizing `value` for `event` changes nothing: an object already in Claude Code's
/// snake_case wire form that names `event` itself (so its bytes can go to hooks as they are).
fn is_wire_form(event: &EventName, value: &Value) -> bool {
    let Value::Object(map) = value else {
        return false;
    };
    map.get("hook_event_name").and_then(Value::as_str) == Some(event.as_str())
        && map.keys().all(|k| to_snake_case(k) == *k)
        && ALIASES
            .iter()
            .all(|(alias, canonical)| !map.contains_key(*alias) || map.contains_key(*canonical))
}

/// `text`, or a copy serde_json can read when it holds what Node's `JSON.parse` accepts and
/// serde_json does not: lone surrogate escapes become `\ufffd` (same length), and values nested
/// past [`MAX_READ_DEPTH`] become `null`. Only ASCII delimiters are looked at, so multi-byte
/// characters pass through untouched.
fn readable_copy(text: &str) -> Cow<'_, str> {
    let b = text.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let mut copied = 0; // b[..copied] is in `out` (when there is one)
    let (mut i, mut depth, mut in_string) = (0usize, 0usize, false);
    let hex = |at: usize| -> Option<u16> {
        let digits = b.get(at..at + 4)?;
        u16::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
    };
    macro_rules! replace {
        ($from:expr, $to:expr, $with:expr) => {{
            let o = out.get_or_insert_with(|| Vec::with_capacity(b.len()));
            o.extend_from_slice(&b[copied..$from]);
            o.extend_from_slice($with);
            copied = $to;
        }};
    }
    while i < b.len() {
        let c = b[i];
        if in_string {
            match c {
                b'"' => in_string = false,
                b'\\' if b.get(i + 1) == Some(&b'u') => {
                    if let Some(unit) = hex(i + 2) {
                        let pair = (0xD800..0xDC00).contains(&unit)
                            && b.get(i + 6) == Some(&b'\\')
                            && b.get(i + 7) == Some(&b'u')
                            && hex(i + 8).is_some_and(|low| (0xDC00..0xE000).contains(&low));
                        if pair {
                            i += 12;
                            continue;
                        }
                        if (0xD800..0xE000).contains(&unit) {
                            replace!(i, i + 6, b"\\ufffd");
                        }
                        i += 6;
                        continue;
                    }
                    i += 2;
                    continue;
                }
                b'\\' => {
                    i += 2;
                    continue;
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        match c {
            b'"' => in_string = true,
            b'[' | b'{' if depth == MAX_READ_DEPTH => {
                // Skip the whole value, strings and all, and read it as null.
                let start = i;
                let (mut level, mut in_str) = (0usize, false);
                while i < b.len() {
                    match (in_str, b[i]) {
                        (true, b'\\') => i += 1,
                        (true, b'"') => in_str = false,
                        (false, b'"') => in_str = true,
                        (false, b'[' | b'{') => level += 1,
                        (false, b']' | b'}') => {
                            level -= 1;
                            if level == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                let end = (i + 1).min(b.len());
                replace!(start, end, b"null");
                i = end;
                continue;
            }
            b'[' | b'{' => depth += 1,
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut o) => {
            o.extend_from_slice(&b[copied..]);
            // Only ASCII was replaced, at ASCII boundaries, in valid UTF-8.
            Cow::Owned(String::from_utf8(o).expect("replacements keep UTF-8 valid"))
        }
    }
}

fn static_name(field: &str) -> &'static str {
    match field {
        "session_id" => "session_id",
        "cwd" => "cwd",
        "transcript_path" => "transcript_path",
        _ => "prompt",
    }
}

pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `toolName` → `tool_name`; names that are already snake_case come back unchanged.
fn to_snake_case(key: &str) -> String {
    if !key.bytes().any(|b| b.is_ascii_uppercase()) {
        return key.to_string();
    }
    let mut out = String::with_capacity(key.len() + 4);
    for (i, c) in key.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn camel_case_is_normalized_and_event_name_filled() {
        let p = EventPayload::from_value(
            EventName::PreToolUse,
            json!({"hookEventName": "PreToolUse", "toolName": "Bash", "toolInput": {"command": "pwd"}, "sessionId": "s"}),
        )
        .unwrap();
        assert_eq!(p.tool_call().unwrap().tool_name, "Bash");
        assert_eq!(p.session_id(), Some("s"));
        assert_eq!(p.get_str("hook_event_name"), Some("PreToolUse"));
        assert!(!p.fields().contains_key("toolName"));
    }

    #[test]
    fn snake_case_wins_over_camel_case_duplicates() {
        let p = EventPayload::from_value(
            EventName::PreToolUse,
            json!({"tool_name": "Bash", "toolName": "Write", "tool_input": {}}),
        )
        .unwrap();
        assert_eq!(p.tool_call().unwrap().tool_name, "Bash");
    }

    #[test]
    fn tool_events_are_strict() {
        let missing = EventPayload::from_value(EventName::PostToolUse, json!({"tool_name": "Bash"}));
        assert_eq!(
            missing.unwrap_err(),
            PayloadError::MissingField {
                event: "PostToolUse".into(),
                field: "tool_input"
            }
        );
        let wrong =
            EventPayload::from_value(EventName::PreToolUse, json!({"tool_name": 3, "tool_input": {}}));
        assert!(matches!(
            wrong.unwrap_err(),
            PayloadError::WrongType {
                field: "tool_name",
                ..
            }
        ));
        assert!(EventPayload::parse(EventName::PreToolUse, b"[1]").is_err());
        assert!(EventPayload::parse(EventName::PreToolUse, b"{not json").is_err());
    }

    #[test]
    fn other_events_accept_empty_payloads_and_unknown_events_pass_through() {
        let p = EventPayload::parse(EventName::Stop, b"").unwrap();
        assert_eq!(p.get_str("hook_event_name"), Some("Stop"));
        let u = EventPayload::from_value(
            EventName::Unknown("FutureEvent".into()),
            json!({"payload": {"anything": true}}),
        )
        .unwrap();
        assert_eq!(u.fields()["payload"], json!({"anything": true}));
    }

    #[test]
    fn aliases_fill_canonical_names() {
        let p = EventPayload::from_value(EventName::UserPromptSubmit, json!({"userPrompt": "hi"})).unwrap();
        assert_eq!(p.get_str("prompt"), Some("hi"));
        let post = EventPayload::from_value(
            EventName::PostToolUse,
            json!({"tool_name": "Bash", "tool_input": {}, "toolResult": {"stdout": "x"}}),
        )
        .unwrap();
        assert_eq!(
            post.tool_call().unwrap().tool_response,
            Some(&json!({"stdout": "x"}))
        );
    }

    #[test]
    fn every_known_event_has_a_typed_view() {
        for event in EventName::KNOWN {
            let fields = if event.traits().is_tool_event {
                json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "session_id": "s"})
            } else {
                json!({"session_id": "s", "stop_hook_active": true, "prompt": "p"})
            };
            let p = EventPayload::from_value(event.clone(), fields).unwrap();
            let data = p.data().unwrap();
            assert_eq!(p.common().session_id.as_deref(), Some("s"));
            if let crate::event::EventData::Stop(stop) = data {
                assert!(stop.stop_hook_active);
            }
        }
        let pre = EventPayload::from_value(
            EventName::PreToolUse,
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
        )
        .unwrap();
        let crate::event::EventData::PreToolUse(tool) = pre.data().unwrap() else {
            panic!()
        };
        assert_eq!(tool.tool_input["command"], json!("ls"));
    }

    #[test]
    fn match_query_per_event() {
        let ss = EventPayload::from_value(EventName::SessionStart, json!({"source": "startup"})).unwrap();
        assert_eq!(ss.match_query().as_deref(), Some("startup"));
        let fc = EventPayload::from_value(EventName::FileChanged, json!({"file_path": "/p/.env"})).unwrap();
        assert_eq!(fc.match_query().as_deref(), Some(".env"));
        let ups = EventPayload::from_value(EventName::UserPromptSubmit, json!({"prompt": "x"})).unwrap();
        assert_eq!(ups.match_query(), None);
    }
}

#[cfg(test)]
mod readable_copy_tests {
    use super::*;

    #[test]
    fn lone_surrogates_and_deep_values_are_made_readable_and_nothing_else_changes() {
        let plain = r#"{"a": "é \ud83d\ude00 \\ud800 \" x"}"#;
        assert!(matches!(readable_copy(plain), Cow::Borrowed(_)));
        assert_eq!(
            readable_copy(r#"{"a": "\ud800 \udc00x \ud83d\ude00"}"#),
            r#"{"a": "\ufffd \ufffdx \ud83d\ude00"}"#
        );
        let deep = format!(r#"{{"a": {}1{}, "b": "]"}}"#, "[".repeat(300), "]".repeat(300));
        let copy = readable_copy(&deep);
        let value: Value = serde_json::from_str(&copy).unwrap();
        assert_eq!(value["b"], "]");
        let mut at = &value["a"];
        for _ in 0..MAX_READ_DEPTH - 1 {
            at = &at[0];
        }
        assert_eq!(at[0], Value::Null);
    }

    #[test]
    fn the_hosts_bytes_reach_hooks_unchanged_unless_hookbridge_changed_the_payload() {
        let wire = b"{\"session_id\":\"s\",\"hook_event_name\":\"Stop\",\"x\":\"\\ud800\"}\n";
        let p = EventPayload::parse(EventName::Stop, wire).unwrap();
        assert_eq!(p.to_stdin_bytes(), wire);
        let camel = br#"{"sessionId":"s","hook_event_name":"Stop"}"#;
        let p = EventPayload::parse(EventName::Stop, camel).unwrap();
        assert_eq!(
            p.to_stdin_bytes(),
            b"{\"session_id\":\"s\",\"hook_event_name\":\"Stop\"}\n"
        );
        let mut p = EventPayload::parse(EventName::Stop, wire).unwrap();
        p.set("cwd", Value::String("/".into()));
        assert_ne!(p.to_stdin_bytes(), wire);
    }
}
