//! OpenAI-compatible chat completions (OpenAI, Azure-style gateways, vLLM, Ollama, LiteLLM, …):
//! the judge's system prompt as the system message, the hook's prompt as the user message, and the
//! verdict's schema as a `json_schema` response format.

use std::time::Instant;

use serde_json::{json, Value};

use super::{call_model, join_url, JudgeRequest, ModelCallError};

pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// The model a prompt hook uses with this provider when nothing names one.
pub const DEFAULT_MODEL: &str = "gpt-5-mini";

/// The request body.
pub fn request_body(request: &JudgeRequest, default_model: &str) -> Value {
    let mut body = json!({
        "model": request.model.as_deref().unwrap_or(default_model),
        "max_completion_tokens": request.max_tokens,
        "messages": [
            {"role": "system", "content": request.system},
            {"role": "user", "content": request.user},
        ],
    });
    if let Some(schema) = &request.schema {
        // Not `strict`: strict mode requires every property, and `impossible` is optional.
        body["response_format"] = json!({
            "type": "json_schema",
            "json_schema": {"name": "hook_verdict", "schema": schema},
        });
    }
    body
}

/// The first choice's text, or why there is none.
pub fn reply_text(reply: &Value, endpoint: &str) -> Result<String, ModelCallError> {
    let message = reply.pointer("/choices/0/message");
    if let Some(refusal) = message.and_then(|m| m.get("refusal")).and_then(Value::as_str) {
        return Err(ModelCallError::Refused(Some(refusal.to_string())));
    }
    match message.and_then(|m| m.get("content")).and_then(Value::as_str) {
        Some(text) if !text.is_empty() => Ok(text.to_string()),
        _ => Err(ModelCallError::Malformed {
            endpoint: endpoint.to_string(),
            cause: "no `choices[0].message.content` in the reply".into(),
        }),
    }
}

/// The request headers: the key as a bearer token, when there is one.
pub(super) fn headers(api_key: Option<&str>) -> Vec<(String, String)> {
    api_key
        .map(|key| vec![("authorization".to_string(), format!("Bearer {key}"))])
        .unwrap_or_default()
}

pub(super) fn judge(
    base_url: &str,
    api_key: Option<&str>,
    default_model: &str,
    request: &JudgeRequest,
    deadline: Instant,
) -> Result<String, ModelCallError> {
    let endpoint = join_url(base_url, "/chat/completions");
    if api_key.is_none() && base_url == DEFAULT_BASE_URL {
        return Err(ModelCallError::NotConfigured(
            "no credentials for the OpenAI API: set OPENAI_API_KEY (or OPENAI_BASE_URL for a local endpoint)"
                .into(),
        ));
    }
    let headers = headers(api_key);
    let reply = call_model(
        &endpoint,
        &headers,
        &request_body(request, default_model),
        deadline,
    )?;
    reply_text(&reply, &endpoint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_choice_answers() {
        let reply = json!({"choices": [{"message": {"role": "assistant", "content": "{\"ok\": true}"}}]});
        assert_eq!(reply_text(&reply, "e").unwrap(), "{\"ok\": true}");
        let refused = json!({"choices": [{"message": {"content": null, "refusal": "no"}}]});
        assert_eq!(
            reply_text(&refused, "e"),
            Err(ModelCallError::Refused(Some("no".into())))
        );
        assert!(matches!(
            reply_text(&json!({"choices": []}), "e"),
            Err(ModelCallError::Malformed { .. })
        ));
    }
}
