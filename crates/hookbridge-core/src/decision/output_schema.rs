//! The fields of a hook's JSON answer that Claude Code's output schema checks, defined once: an
//! answer with one of them of the wrong type is dropped whole (measured: conformance cases 135,
//! 136), which [`problem`] decides from these tables, and `hookbridge schema hook-output` prints
//! them as a JSON Schema ([`hook_output_schema`]), so the check and the documentation cannot drift.

use serde_json::{json, Map, Value};

/// What a field must hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    Boolean,
    String,
    Object,
    /// One of these strings.
    OneOf(&'static [&'static str]),
}

impl FieldType {
    fn accepts(self, value: &Value) -> bool {
        match self {
            FieldType::Boolean => value.is_boolean(),
            FieldType::String => value.is_string(),
            FieldType::Object => value.is_object(),
            FieldType::OneOf(words) => value.as_str().is_some_and(|s| words.contains(&s)),
        }
    }

    /// `a boolean`, `"approve" or "block"`: for the message that names a wrong value.
    fn describe(self) -> String {
        match self {
            FieldType::Boolean => "a boolean".into(),
            FieldType::String => "a string".into(),
            FieldType::Object => "an object".into(),
            FieldType::OneOf(words) => {
                let quoted: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
                match quoted.split_last() {
                    Some((last, [])) => last.clone(),
                    Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
                    None => "nothing".into(),
                }
            }
        }
    }

    fn schema(self) -> Value {
        match self {
            FieldType::Boolean => json!({"type": "boolean"}),
            FieldType::String => json!({"type": "string"}),
            FieldType::Object => json!({"type": "object"}),
            FieldType::OneOf(words) => json!({"enum": words}),
        }
    }
}

/// One checked field.
#[derive(Debug, Clone, Copy)]
pub struct OutputField {
    pub name: &'static str,
    pub ty: FieldType,
    pub doc: &'static str,
}

const fn field(name: &'static str, ty: FieldType, doc: &'static str) -> OutputField {
    OutputField { name, ty, doc }
}

/// The top-level `decision`'s words.
pub const TOP_DECISIONS: &[&str] = &["approve", "block"];
/// PreToolUse's `hookSpecificOutput.permissionDecision` words.
pub const PERMISSION_DECISIONS: &[&str] = &["allow", "deny", "ask", "defer"];

/// The top-level fields, in the order they are checked.
pub const TOP_LEVEL: &[OutputField] = &[
    field("continue", FieldType::Boolean, "false: the agent stops after this event"),
    field("suppressOutput", FieldType::Boolean, "hide this hook's output from the transcript"),
    field("stopReason", FieldType::String, "shown to the user with continue: false"),
    field("systemMessage", FieldType::String, "shown to the user"),
    field("reason", FieldType::String, "why, with decision: block"),
    field(
        "decision",
        FieldType::OneOf(TOP_DECISIONS),
        "block: the event's block (PostToolUse, Stop, UserPromptSubmit, …); approve: PreToolUse's legacy allow",
    ),
    field("hookSpecificOutput", FieldType::Object, "the event's own fields, with hookEventName naming the event"),
];

/// The fields of `hookSpecificOutput`, in the order they are checked.
pub const HOOK_SPECIFIC: &[OutputField] = &[
    field(
        "hookEventName",
        FieldType::String,
        "the event this answer is for; any other event's object is ignored",
    ),
    field(
        "permissionDecision",
        FieldType::OneOf(PERMISSION_DECISIONS),
        "PreToolUse: what happens to the tool call",
    ),
    field(
        "permissionDecisionReason",
        FieldType::String,
        "PreToolUse: why (shown to the model on deny)",
    ),
    field("additionalContext", FieldType::String, "context for the model"),
    field(
        "updatedInput",
        FieldType::Object,
        "PreToolUse: the tool input to use instead",
    ),
];

/// Why a JSON answer fails Claude Code's output schema, if it does.
pub fn problem(raw: &Map<String, Value>) -> Option<String> {
    let wrong = |fields: &[OutputField], object: &Map<String, Value>, prefix: &str| {
        fields.iter().find_map(|f| match object.get(f.name) {
            Some(v) if !f.ty.accepts(v) => Some(format!("`{prefix}{}` must be {}", f.name, f.ty.describe())),
            _ => None,
        })
    };
    wrong(TOP_LEVEL, raw, "").or_else(|| {
        let specific = raw.get("hookSpecificOutput")?.as_object()?;
        wrong(HOOK_SPECIFIC, specific, "hookSpecificOutput.")
    })
}

/// The JSON Schema of a hook's JSON answer, from the same tables.
pub fn hook_output_schema() -> Value {
    let properties = |fields: &[OutputField]| -> Map<String, Value> {
        fields
            .iter()
            .map(|f| {
                let mut schema = f.ty.schema();
                schema["description"] = json!(f.doc);
                (f.name.to_string(), schema)
            })
            .collect()
    };
    let mut top = properties(TOP_LEVEL);
    top["hookSpecificOutput"]["properties"] = Value::Object(properties(HOOK_SPECIFIC));
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "A hook's JSON answer (stdout), as Claude Code checks it",
        "description": "An answer with any of these fields of another type is dropped whole. Other fields are allowed and read per event.",
        "type": "object",
        "properties": top,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::{PermissionDecision, TopDecision};

    fn problem_of(v: Value) -> Option<String> {
        problem(v.as_object().unwrap())
    }

    #[test]
    fn wrong_types_are_named_with_what_was_expected() {
        assert_eq!(
            problem_of(json!({"continue": "no"})).unwrap(),
            "`continue` must be a boolean"
        );
        assert_eq!(
            problem_of(json!({"decision": "deny"})).unwrap(),
            "`decision` must be \"approve\" or \"block\""
        );
        assert_eq!(
            problem_of(json!({"hookSpecificOutput": {"permissionDecision": "maybe"}})).unwrap(),
            "`hookSpecificOutput.permissionDecision` must be \"allow\", \"deny\", \"ask\" or \"defer\""
        );
        assert_eq!(
            problem_of(json!({"decision": "block", "reason": "r", "extra": 1,
                "hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {}}})),
            None
        );
    }

    #[test]
    fn the_schemas_words_are_the_words_the_types_read() {
        assert!(TOP_DECISIONS.iter().all(|w| TopDecision::parse(w).is_some()));
        assert!(PERMISSION_DECISIONS
            .iter()
            .all(|w| PermissionDecision::parse(w).is_some()));
        let schema = hook_output_schema();
        assert_eq!(schema["properties"]["decision"]["enum"], json!(TOP_DECISIONS));
        assert_eq!(
            schema["properties"]["hookSpecificOutput"]["properties"]["permissionDecision"]["enum"],
            json!(PERMISSION_DECISIONS)
        );
    }

    /// The tables name exactly the fields the typed answer reads and prints: a field renamed,
    /// added or dropped on one side only fails here. Its words too: each serializes as itself.
    #[test]
    fn the_tables_are_the_typed_answers_fields() {
        use crate::decision::{HookJson, RequestDecision, SpecificOutput};
        let every = HookJson {
            continue_: Some(false),
            stop_reason: Some("s".into()),
            system_message: Some("m".into()),
            suppress_output: Some(true),
            decision: Some(TopDecision::Block),
            reason: Some("r".into()),
            specific: Some(SpecificOutput {
                hook_event_name: "PermissionRequest".into(),
                updated_input: Some(Map::new()),
                other: Map::new(),
                additional_context: Some("c".into()),
                permission_decision: Some(PermissionDecision::Ask),
                permission_decision_reason: Some("why".into()),
                request_decision: RequestDecision::from_raw(
                    json!({"behavior": "allow"}).as_object().unwrap().clone(),
                ),
            }),
            ..HookJson::default()
        };
        let printed = serde_json::to_value(&every).unwrap();
        let keys = |v: &Value| -> Vec<String> {
            let mut keys: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
            keys.sort();
            keys
        };
        let names = |fields: &[OutputField]| -> Vec<String> {
            let mut names: Vec<String> = fields.iter().map(|f| f.name.to_string()).collect();
            names.sort();
            names
        };
        assert_eq!(keys(&printed), names(TOP_LEVEL));
        // hookSpecificOutput.decision (PermissionRequest's) is not checked by Claude Code's schema.
        let specific = &printed["hookSpecificOutput"];
        let mut checked = names(HOOK_SPECIFIC);
        checked.push("decision".into());
        checked.sort();
        assert_eq!(keys(specific), checked);
        for word in TOP_DECISIONS {
            assert_eq!(json!(TopDecision::parse(word).unwrap()), json!(word));
        }
        for word in PERMISSION_DECISIONS {
            let decision = PermissionDecision::parse(word).unwrap();
            assert_eq!((json!(decision), decision.as_str()), (json!(word), *word));
        }
        // Read back, the printed answer is the answer.
        let event = crate::event::EventName::PermissionRequest;
        let read = HookJson::from_object(&event, printed.as_object().unwrap().clone());
        assert_eq!(
            HookJson {
                raw: Map::new(),
                ..read
            },
            every
        );
    }
}
