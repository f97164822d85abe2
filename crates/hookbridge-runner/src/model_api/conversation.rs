//! A tool-using conversation with a model, for `agent` hooks: the provider-neutral turns, and each
//! provider's wire form (Anthropic's `tool_use`/`tool_result` content blocks, OpenAI's
//! `tool_calls` and `tool` messages), plus a plain JSON form for a host that asks its own model
//! (`Conversation::to_host_json`, `Reply::from_host_json`). One request per call, not streamed,
//! bounded by the deadline.

use std::time::Instant;

use serde_json::{json, Value};

use super::{anthropic, call_model, join_url, openai, ModelCallError, Provider};

/// A tool the model may call.
#[derive(Debug, Clone)]
pub struct ToolDef {
    pub name: &'static str,
    pub description: &'static str,
    /// The JSON Schema of its input.
    pub schema: Value,
}

/// A call the model made.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub input: Value,
}

/// One turn of the conversation.
#[derive(Debug, Clone, PartialEq)]
pub enum Turn {
    User(String),
    Assistant {
        text: String,
        calls: Vec<ToolCall>,
    },
    /// The results of the previous turn's calls: the call id, the text, whether it failed.
    ToolResults(Vec<(String, String, bool)>),
}

/// The conversation so far, and what every request carries.
#[derive(Debug, Clone)]
pub struct Conversation {
    pub system: String,
    pub model: Option<String>,
    pub max_tokens: u32,
    pub tools: Vec<ToolDef>,
    pub turns: Vec<Turn>,
}

/// The model's next turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub text: String,
    pub calls: Vec<ToolCall>,
}

impl Conversation {
    /// The conversation as a host's model receives it:
    /// `{"system", "model", "max_tokens", "tools": [{"name", "description", "schema"}], "turns":
    /// [{"role": "user", "text"} | {"role": "assistant", "text", "calls": [{"id", "name",
    /// "input"}]} | {"role": "tool_results", "results": [{"id", "text", "is_error"}]}]}`.
    pub fn to_host_json(&self) -> Value {
        let turns: Vec<Value> = self
            .turns
            .iter()
            .map(|turn| match turn {
                Turn::User(text) => json!({"role": "user", "text": text}),
                Turn::Assistant { text, calls } => json!({"role": "assistant", "text": text, "calls":
                    calls.iter().map(|k| json!({"id": k.id, "name": k.name, "input": k.input})).collect::<Vec<_>>()}),
                Turn::ToolResults(results) => json!({"role": "tool_results", "results":
                    results.iter().map(|(id, text, is_error)| json!({"id": id, "text": text, "is_error": is_error})).collect::<Vec<_>>()}),
            })
            .collect();
        json!({
            "system": self.system,
            "model": self.model,
            "max_tokens": self.max_tokens,
            "tools": self.tools.iter().map(|t| json!({"name": t.name, "description": t.description, "schema": t.schema})).collect::<Vec<_>>(),
            "turns": turns,
        })
    }
}

impl Reply {
    /// A host model's turn: `{"text": "...", "calls": [{"id", "name", "input"}]}` (`calls` may be
    /// absent; an input that is not an object is an error the model reads when the tool runs).
    pub fn from_host_json(text: &str) -> Result<Reply, ModelCallError> {
        let malformed = |cause: String| ModelCallError::Malformed {
            endpoint: "the host's model".into(),
            cause,
        };
        let value: Value = serde_json::from_str(text).map_err(|e| malformed(format!("not JSON: {e}")))?;
        let reply_text = value
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let calls = match value.get("calls") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(calls)) => calls
                .iter()
                .map(|call| {
                    let field = |name: &str| call.get(name).and_then(Value::as_str).map(str::to_string);
                    Ok(ToolCall {
                        id: field("id").ok_or_else(|| malformed("a call without an `id`".into()))?,
                        name: field("name").ok_or_else(|| malformed("a call without a `name`".into()))?,
                        input: call.get("input").cloned().unwrap_or_else(|| json!({})),
                    })
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(malformed("`calls` is not a list".into())),
        };
        Ok(Reply {
            text: reply_text,
            calls,
        })
    }
}

impl Provider {
    /// Ask the model for its next turn of `conversation`, by `deadline` (the HTTP APIs; see
    /// [`super::ModelJudge::converse`]).
    pub(super) fn converse_over_http(
        &self,
        conversation: &Conversation,
        deadline: Instant,
    ) -> Result<Reply, ModelCallError> {
        match self {
            Provider::Anthropic {
                base_url,
                credential,
                default_model,
            } => {
                let endpoint = join_url(base_url, "/v1/messages");
                let headers = anthropic::headers(base_url, credential)?;
                let reply = call_model(
                    &endpoint,
                    &headers,
                    &anthropic_body(conversation, default_model),
                    deadline,
                )?;
                anthropic_reply(&reply, &endpoint)
            }
            Provider::OpenAi {
                base_url,
                api_key,
                default_model,
            } => {
                let endpoint = join_url(base_url, "/chat/completions");
                let headers = openai::headers(api_key.as_deref());
                let reply = call_model(
                    &endpoint,
                    &headers,
                    &openai_body(conversation, default_model),
                    deadline,
                )?;
                openai_reply(&reply, &endpoint)
            }
        }
    }
}

fn anthropic_body(c: &Conversation, default_model: &str) -> Value {
    let messages: Vec<Value> = c
        .turns
        .iter()
        .map(|turn| match turn {
            Turn::User(text) => json!({"role": "user", "content": [{"type": "text", "text": text}]}),
            Turn::Assistant { text, calls } => {
                let mut content: Vec<Value> = Vec::new();
                if !text.is_empty() {
                    content.push(json!({"type": "text", "text": text}));
                }
                content.extend(
                    calls
                        .iter()
                        .map(|k| json!({"type": "tool_use", "id": k.id, "name": k.name, "input": k.input})),
                );
                json!({"role": "assistant", "content": content})
            }
            Turn::ToolResults(results) => {
                json!({"role": "user", "content": results.iter().map(|(id, text, is_error)| {
                json!({"type": "tool_result", "tool_use_id": id, "content": text, "is_error": is_error})
            }).collect::<Vec<_>>()})
            }
        })
        .collect();
    let tools: Vec<Value> = c
        .tools
        .iter()
        .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.schema}))
        .collect();
    json!({
        "model": c.model.as_deref().unwrap_or(default_model),
        "max_tokens": c.max_tokens,
        "system": [{"type": "text", "text": c.system}],
        "tools": tools,
        "messages": messages,
    })
}

fn anthropic_reply(reply: &Value, endpoint: &str) -> Result<Reply, ModelCallError> {
    if reply.get("stop_reason").and_then(Value::as_str) == Some("refusal") {
        return Err(ModelCallError::Refused(None));
    }
    let blocks = reply
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| ModelCallError::Malformed {
            endpoint: endpoint.to_string(),
            cause: "no content in the reply".into(),
        })?;
    let mut text = String::new();
    let mut calls = Vec::new();
    for block in blocks {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => text.push_str(block.get("text").and_then(Value::as_str).unwrap_or("")),
            Some("tool_use") => calls.push(ToolCall {
                id: block.get("id").and_then(Value::as_str).unwrap_or("").to_string(),
                name: block
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                input: block.get("input").cloned().unwrap_or_else(|| json!({})),
            }),
            _ => {}
        }
    }
    Ok(Reply { text, calls })
}

fn openai_body(c: &Conversation, default_model: &str) -> Value {
    let mut messages = vec![json!({"role": "system", "content": c.system})];
    for turn in &c.turns {
        match turn {
            Turn::User(text) => messages.push(json!({"role": "user", "content": text})),
            Turn::Assistant { text, calls } => {
                let mut message = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { json!(text) }});
                if !calls.is_empty() {
                    message["tool_calls"] = calls
                        .iter()
                        .map(|k| json!({"id": k.id, "type": "function", "function": {"name": k.name, "arguments": k.input.to_string()}}))
                        .collect();
                }
                messages.push(message);
            }
            Turn::ToolResults(results) => messages.extend(
                results
                    .iter()
                    .map(|(id, text, _)| json!({"role": "tool", "tool_call_id": id, "content": text})),
            ),
        }
    }
    let tools: Vec<Value> = c
        .tools
        .iter()
        .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.schema}}))
        .collect();
    json!({
        "model": c.model.as_deref().unwrap_or(default_model),
        "max_completion_tokens": c.max_tokens,
        "messages": messages,
        "tools": tools,
    })
}

fn openai_reply(reply: &Value, endpoint: &str) -> Result<Reply, ModelCallError> {
    let message = reply
        .pointer("/choices/0/message")
        .ok_or_else(|| ModelCallError::Malformed {
            endpoint: endpoint.to_string(),
            cause: "no choices[0].message in the reply".into(),
        })?;
    if let Some(refusal) = message.get("refusal").and_then(Value::as_str) {
        return Err(ModelCallError::Refused(Some(refusal.to_string())));
    }
    let text = message
        .get("content")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let calls = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .map(|calls| {
            calls
                .iter()
                .map(|k| ToolCall {
                    id: k.get("id").and_then(Value::as_str).unwrap_or("").to_string(),
                    name: k
                        .pointer("/function/name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                    input: k
                        .pointer("/function/arguments")
                        .and_then(Value::as_str)
                        .and_then(|a| serde_json::from_str(a).ok())
                        .unwrap_or_else(|| json!({})),
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(Reply { text, calls })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conversation() -> Conversation {
        Conversation {
            system: "s".into(),
            model: None,
            max_tokens: 10,
            tools: vec![ToolDef {
                name: "Read",
                description: "d",
                schema: json!({"type": "object"}),
            }],
            turns: vec![
                Turn::User("u".into()),
                Turn::Assistant {
                    text: String::new(),
                    calls: vec![ToolCall {
                        id: "t1".into(),
                        name: "Read".into(),
                        input: json!({"file_path": "a"}),
                    }],
                },
                Turn::ToolResults(vec![("t1".into(), "text".into(), false)]),
            ],
        }
    }

    #[test]
    fn both_wire_forms_carry_the_calls_and_their_results() {
        let a = anthropic_body(&conversation(), "m");
        assert_eq!(a["messages"][1]["content"][0]["type"], "tool_use");
        assert_eq!(a["messages"][2]["content"][0]["tool_use_id"], "t1");
        assert_eq!(a["tools"][0]["input_schema"], json!({"type": "object"}));
        let o = openai_body(&conversation(), "m");
        assert_eq!(
            o["messages"][2]["tool_calls"][0]["function"]["arguments"],
            "{\"file_path\":\"a\"}"
        );
        assert_eq!(
            o["messages"][3],
            json!({"role": "tool", "tool_call_id": "t1", "content": "text"})
        );
        let reply = openai_reply(
            &json!({"choices": [{"message": {"content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "Grep", "arguments": "{\"pattern\":\"x\"}"}}]}}]}),
            "e",
        )
        .unwrap();
        assert_eq!(reply.calls[0].input, json!({"pattern": "x"}));
        let reply = anthropic_reply(
            &json!({"content": [{"type": "text", "text": "hi"}, {"type": "tool_use", "id": "i", "name": "Glob", "input": {"pattern": "*"}}]}),
            "e",
        )
        .unwrap();
        assert_eq!(
            (reply.text.as_str(), reply.calls[0].name.as_str()),
            ("hi", "Glob")
        );
    }

    #[test]
    fn the_host_form_carries_every_turn_and_reads_the_hosts_reply() {
        assert_eq!(
            conversation().to_host_json(),
            json!({"system": "s", "model": null, "max_tokens": 10,
            "tools": [{"name": "Read", "description": "d", "schema": {"type": "object"}}],
            "turns": [
                {"role": "user", "text": "u"},
                {"role": "assistant", "text": "", "calls": [{"id": "t1", "name": "Read", "input": {"file_path": "a"}}]},
                {"role": "tool_results", "results": [{"id": "t1", "text": "text", "is_error": false}]}
            ]})
        );
        let reply = Reply::from_host_json(
            r#"{"text": "t", "calls": [{"id": "c", "name": "Grep", "input": {"pattern": "x"}}]}"#,
        )
        .unwrap();
        assert_eq!(reply.calls[0].input, json!({"pattern": "x"}));
        assert_eq!(
            Reply::from_host_json(r#"{"text": "only"}"#).unwrap().calls,
            vec![]
        );
        for bad in ["nope", r#"{"calls": 3}"#, r#"{"calls": [{"name": "Read"}]}"#] {
            assert!(
                matches!(Reply::from_host_json(bad), Err(ModelCallError::Malformed { .. })),
                "{bad}"
            );
        }
    }
}
