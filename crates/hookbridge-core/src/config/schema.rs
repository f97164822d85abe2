//! The JSON Schema of a hooks file (`hookbridge schema`), for editors: completion of event names
//! and keys, and a warning where the parser would report a problem.
//!
//! Built from the parser's own tables — the hook keys it reads, which types have which, what each
//! requires, the top-level keys and the events Claude Code fires — so the schema cannot drift from
//! what is accepted. Like the parser it allows unknown keys and events (they are warnings, not
//! errors).

use serde_json::{json, Map, Value};

use crate::event::EventName;

/// The schema (JSON Schema draft 2020-12) of `hooks.json` and of a plugin's hooks file.
pub fn hooks_file_schema() -> Value {
    let group_list = json!({"$ref": "#/$defs/matcherGroups"});
    let events: Map<String, Value> = EventName::KNOWN
        .iter()
        .map(EventName::as_str)
        .chain(crate::seed::SEED_EVENTS.iter().map(|e| e.name))
        .map(|event| (event.to_string(), group_list.clone()))
        .collect();
    let strings = json!({"type": "array", "items": {"type": "string"}});
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "hookbridge hooks file",
        "description": "Claude Code's hooks format (and the seed's Enhanced Hooks System dialect), as hookbridge reads it from .amplifier/hooks/ and plugin folders, as hooks.json or hooks.yaml",
        "type": "object",
        "properties": {
            "description": {"type": ["string", "null"]},
            "disableAllHooks": {"type": "boolean"},
            "allowedHttpHookUrls": strings,
            "httpHookAllowedEnvVars": strings,
            "sandboxHooks": {
                "enum": ["project", "all", null],
                "description": "Your own hooks files only: sandbox every project's command hooks (project) or every hook but the managed policy's (all), whatever they say",
            },
            "sandboxNetwork": {
                "type": ["boolean", "null"],
                "description": "Your own hooks files only: false takes the network from every sandboxed hook",
            },
            "sandboxUnavailable": {
                "enum": ["refuse", "runUnsandboxed", null],
                "description": "Your own hooks files only: where this kernel cannot enforce a hook's sandbox, do not run the hook (refuse, the default) or run it without its sandbox and report each such run (runUnsandboxed)",
            },
            "hooks": {
                "type": "object",
                "description": "Event name → matcher groups, or hooks written directly (the seed's shape)",
                "propertyNames": {"pattern": "^[A-Z][A-Za-z0-9_]*$"},
                "properties": events,
                "additionalProperties": group_list,
            },
        },
        "$defs": {
            "matcherGroups": {"type": "array", "items": {"anyOf": [
                {"$ref": "#/$defs/matcherGroup"},
                {"$ref": "#/$defs/hook"},
            ]}},
            "matcherGroup": {
                "type": "object",
                "required": ["hooks"],
                "properties": {
                    "matcher": {
                        "type": ["string", "null"],
                        "description": "Tool name, `A|B` list, or a JavaScript regular expression; empty or `*` matches all"
                    },
                    "hooks": {"type": "array", "items": {"$ref": "#/$defs/hook"}},
                },
            },
            "hook": super::parse::hook_schema(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_type_and_key_is_in_the_schema() {
        let schema = hooks_file_schema();
        let events = schema["properties"]["hooks"]["properties"].as_object().unwrap();
        assert_eq!(
            events.len(),
            EventName::KNOWN.len() + 7,
            "Claude Code's events and the seed's own names"
        );
        assert!(events.contains_key("SessionStop") && events.contains_key("Checkpoint"));
        let hook = &schema["$defs"]["hook"];
        let types = hook["properties"]["type"]["enum"].as_array().unwrap();
        assert_eq!(types.len(), 7);
        assert_eq!(hook["allOf"][4]["then"]["required"], json!(["type", "action"]));
        let llm = &hook["allOf"][5]["then"]["properties"];
        assert!(
            llm.get("max_tokens").is_some()
                && llm.get("prompt").is_some()
                && llm.get("continueOnBlock").is_none()
        );
        let command = &hook["allOf"][0]["then"];
        assert_eq!(command["required"], json!(["type", "command"]));
        assert!(command["properties"].get("args").is_some() && command["properties"].get("url").is_none());
        let http = &hook["allOf"][2]["then"];
        assert!(http["properties"].get("headers").is_some() && http["properties"].get("timeout").is_some());
        assert_eq!(
            hook["allOf"][3]["then"]["required"],
            json!(["type", "server", "tool"])
        );
    }
}
