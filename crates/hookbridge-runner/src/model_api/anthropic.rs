//! The Anthropic Messages API, asked the way Claude Code asks it for a prompt hook's verdict
//! (golden case 83): the judge's system prompt, the hook's prompt as the one user message, and the
//! verdict's JSON Schema as `output_config.format`. Not streamed.

use std::time::Instant;

use serde_json::{json, Value};

use super::{call_model, join_url, JudgeRequest, ModelCallError};

pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The fast model a prompt hook uses when nothing names one.
pub const DEFAULT_MODEL: &str = "claude-haiku-4-5";
const API_VERSION: &str = "2023-06-01";

/// How requests are authenticated.
#[derive(Clone, PartialEq, Eq)]
pub enum Credential {
    /// `ANTHROPIC_API_KEY`, sent as `x-api-key`.
    ApiKey(String),
    /// `ANTHROPIC_AUTH_TOKEN`, sent as `Authorization: Bearer`.
    BearerToken(String),
    None,
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Credential::ApiKey(_) => "ApiKey(…)",
            Credential::BearerToken(_) => "BearerToken(…)",
            Credential::None => "None",
        })
    }
}

/// The request body.
pub fn request_body(request: &JudgeRequest, default_model: &str) -> Value {
    let mut body = json!({
        "model": request.model.as_deref().unwrap_or(default_model),
        "max_tokens": request.max_tokens,
        "system": [{"type": "text", "text": request.system}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": request.user}]}],
    });
    if let Some(schema) = &request.schema {
        body["output_config"] = json!({"format": {"type": "json_schema", "schema": schema}});
    }
    body
}

/// The reply's text, or why there is none.
pub fn reply_text(reply: &Value, endpoint: &str) -> Result<String, ModelCallError> {
    let text: String = reply
        .get("content")
        .and_then(Value::as_array)
        .map(|blocks| {
            blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    if reply.get("stop_reason").and_then(Value::as_str) == Some("refusal") {
        return Err(ModelCallError::Refused(Some(text).filter(|t| !t.is_empty())));
    }
    if text.is_empty() {
        return Err(ModelCallError::Malformed {
            endpoint: endpoint.to_string(),
            cause: "no text in the reply's content".into(),
        });
    }
    Ok(text)
}

/// The request headers for `credential`; none at all for the public endpoint is an error.
pub(super) fn headers(
    base_url: &str,
    credential: &Credential,
) -> Result<Vec<(String, String)>, ModelCallError> {
    let mut headers = vec![("anthropic-version".to_string(), API_VERSION.to_string())];
    match credential {
        Credential::ApiKey(key) => headers.push(("x-api-key".into(), key.clone())),
        Credential::BearerToken(token) => headers.push(("authorization".into(), format!("Bearer {token}"))),
        Credential::None if base_url == DEFAULT_BASE_URL => {
            return Err(ModelCallError::NotConfigured(
                "no credentials for the Anthropic API: set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN (or choose another provider with HOOKBRIDGE_MODEL_PROVIDER)".into(),
            ))
        }
        Credential::None => {}
    }
    Ok(headers)
}

pub(super) fn judge(
    base_url: &str,
    credential: &Credential,
    default_model: &str,
    request: &JudgeRequest,
    deadline: Instant,
) -> Result<String, ModelCallError> {
    let endpoint = join_url(base_url, "/v1/messages");
    let headers = headers(base_url, credential)?;
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
    fn text_blocks_are_joined_and_refusals_named() {
        let reply = json!({"content": [{"type": "thinking", "thinking": "x"}, {"type": "text", "text": "{\"ok\":"}, {"type": "text", "text": "true}"}], "stop_reason": "end_turn"});
        assert_eq!(reply_text(&reply, "e").unwrap(), "{\"ok\":true}");
        let refused = json!({"content": [], "stop_reason": "refusal"});
        assert_eq!(reply_text(&refused, "e"), Err(ModelCallError::Refused(None)));
        assert!(matches!(
            reply_text(&json!({}), "e"),
            Err(ModelCallError::Malformed { .. })
        ));
    }
}
