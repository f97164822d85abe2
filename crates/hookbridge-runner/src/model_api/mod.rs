//! Asking a model for a hook's verdict: one request to the Anthropic Messages API or to an
//! OpenAI-compatible chat-completions endpoint, synchronous, bounded by the hook's deadline.
//!
//! Which provider answers is configuration, read from the hook's environment (for `hookbridge run`,
//! the agent's own environment):
//! - `HOOKBRIDGE_MODEL_PROVIDER=anthropic|openai` chooses. Without it: Anthropic when any of
//!   `ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN`, `ANTHROPIC_BASE_URL` is set (what Claude Code itself
//!   uses), else OpenAI when `OPENAI_API_KEY` or `OPENAI_BASE_URL` is, else Anthropic.
//! - Anthropic: `ANTHROPIC_BASE_URL` (default `https://api.anthropic.com`), `ANTHROPIC_API_KEY`
//!   (sent as `x-api-key`) or `ANTHROPIC_AUTH_TOKEN` (sent as a bearer token).
//! - OpenAI-compatible: `OPENAI_BASE_URL` (default `https://api.openai.com/v1`), `OPENAI_API_KEY`.
//! - The model: the hook's `model`, else `HOOKBRIDGE_PROMPT_MODEL`, else the provider's fast model
//!   (Anthropic: `ANTHROPIC_DEFAULT_HAIKU_MODEL`, `ANTHROPIC_SMALL_FAST_MODEL`, else
//!   [`anthropic::DEFAULT_MODEL`]; OpenAI: [`openai::DEFAULT_MODEL`]).
//!
//! Keys never leave this module except in the request's own headers: errors name the endpoint and
//! the status, never a header.
//!
//! HTTP is `ureq`: blocking, no async runtime (a command-only event never touches any of this), one
//! shared agent so a long-lived host reuses its connections.

pub mod anthropic;
pub mod conversation;
pub mod openai;

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::process::capture::Collector;
use crate::process::CapturedOutput;

/// One request for a verdict.
#[derive(Debug, Clone)]
pub struct JudgeRequest {
    pub system: String,
    pub user: String,
    /// `None`: the provider's default.
    pub model: Option<String>,
    pub max_tokens: u32,
    /// The JSON Schema the reply must follow; `None`: free text (an llm hook's own prompt says
    /// what shape to answer in).
    pub schema: Option<Value>,
}

/// Something that can answer a judge request and hold a tool-using conversation: a provider
/// configured from the environment, or a host's own model (the Amplifier module hands in the
/// session's mounted provider).
pub trait ModelJudge: Send + Sync + std::fmt::Debug {
    /// The model's reply text to `request`, by `deadline`.
    fn judge(&self, request: &JudgeRequest, deadline: Instant) -> Result<String, ModelCallError>;

    /// Which model answers (for a host's own model: what tells it from another, such as the
    /// provider and model a session asks), or `None` when it cannot say. The llm hook cache keys
    /// on it: answers of one model are never replayed for another, and a model that cannot say
    /// which it is gets no cache.
    fn identity(&self) -> Option<String> {
        None
    }

    /// The model's next turn of `conversation` (an `agent` hook's), by `deadline`. A model that
    /// cannot call tools says so.
    fn converse(
        &self,
        conversation: &conversation::Conversation,
        deadline: Instant,
    ) -> Result<conversation::Reply, ModelCallError> {
        let _ = (conversation, deadline);
        Err(ModelCallError::NotConfigured(
            "this host's model answers single requests only; it cannot run an agent hook's tool loop".into(),
        ))
    }
}

/// Where a model call goes.
#[derive(Clone, PartialEq, Eq)]
pub enum Provider {
    Anthropic {
        base_url: String,
        credential: anthropic::Credential,
        default_model: String,
    },
    OpenAi {
        base_url: String,
        api_key: Option<String>,
        default_model: String,
    },
}

impl std::fmt::Debug for Provider {
    /// Never prints a key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Provider::Anthropic { base_url, .. } => write!(f, "Anthropic({base_url})"),
            Provider::OpenAi { base_url, .. } => write!(f, "OpenAI-compatible({base_url})"),
        }
    }
}

/// `HOOKBRIDGE_MODEL_PROVIDER` names a provider hookbridge does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("HOOKBRIDGE_MODEL_PROVIDER is `{0}`; expected `anthropic` or `openai`")]
pub struct UnknownProvider(pub String);

impl Provider {
    /// The provider the environment (`var`) configures.
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Result<Provider, UnknownProvider> {
        let set = |name: &str| var(name).filter(|v| !v.is_empty());
        let fallback_model = set("HOOKBRIDGE_PROMPT_MODEL");
        let choice = match set("HOOKBRIDGE_MODEL_PROVIDER").as_deref() {
            Some("anthropic") => "anthropic",
            Some("openai") => "openai",
            Some(other) => return Err(UnknownProvider(other.to_string())),
            None if ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"]
                .iter()
                .any(|n| set(n).is_some()) =>
            {
                "anthropic"
            }
            None if set("OPENAI_API_KEY").is_some() || set("OPENAI_BASE_URL").is_some() => "openai",
            None => "anthropic",
        };
        if choice == "openai" {
            return Ok(Provider::OpenAi {
                base_url: set("OPENAI_BASE_URL").unwrap_or_else(|| openai::DEFAULT_BASE_URL.into()),
                api_key: set("OPENAI_API_KEY"),
                default_model: fallback_model.unwrap_or_else(|| openai::DEFAULT_MODEL.into()),
            });
        }
        let credential = match (set("ANTHROPIC_API_KEY"), set("ANTHROPIC_AUTH_TOKEN")) {
            (Some(key), _) => anthropic::Credential::ApiKey(key),
            (None, Some(token)) => anthropic::Credential::BearerToken(token),
            (None, None) => anthropic::Credential::None,
        };
        Ok(Provider::Anthropic {
            base_url: set("ANTHROPIC_BASE_URL").unwrap_or_else(|| anthropic::DEFAULT_BASE_URL.into()),
            credential,
            default_model: fallback_model
                .or_else(|| set("ANTHROPIC_DEFAULT_HAIKU_MODEL"))
                .or_else(|| set("ANTHROPIC_SMALL_FAST_MODEL"))
                .unwrap_or_else(|| anthropic::DEFAULT_MODEL.into()),
        })
    }
}

impl ModelJudge for Provider {
    /// Sends `request` and returns the model's reply text, by `deadline`.
    fn judge(&self, request: &JudgeRequest, deadline: Instant) -> Result<String, ModelCallError> {
        match self {
            Provider::Anthropic {
                base_url,
                credential,
                default_model,
            } => anthropic::judge(base_url, credential, default_model, request, deadline),
            Provider::OpenAi {
                base_url,
                api_key,
                default_model,
            } => openai::judge(base_url, api_key.as_deref(), default_model, request, deadline),
        }
    }

    fn converse(
        &self,
        conversation: &conversation::Conversation,
        deadline: Instant,
    ) -> Result<conversation::Reply, ModelCallError> {
        self.converse_over_http(conversation, deadline)
    }
}

/// Why a model call gave no reply text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelCallError {
    #[error("the model call ran out of time")]
    TimedOut,
    #[error("could not reach {endpoint}: {cause}")]
    Unreachable { endpoint: String, cause: String },
    #[error("{endpoint} answered HTTP {status}{}", .detail.as_deref().map(|d| format!(": {d}")).unwrap_or_default())]
    Status {
        endpoint: String,
        status: u16,
        detail: Option<String>,
    },
    #[error("the model refused to answer{}", .0.as_deref().map(|r| format!(": {r}")).unwrap_or_default())]
    Refused(Option<String>),
    #[error("the reply from {endpoint} cannot be read: {cause}")]
    Malformed { endpoint: String, cause: String },
    #[error("{0}")]
    NotConfigured(String),
    /// The host's own model call failed (the Amplifier session's provider raised).
    #[error("the host's model call failed: {0}")]
    Host(String),
}

/// Largest reply body read from a model endpoint.
const MAX_REPLY_BYTES: usize = 4 * 1024 * 1024;

/// The agent every in-process network call shares.
pub(crate) fn http_agent() -> &'static ureq::Agent {
    static AGENT: OnceLock<ureq::Agent> = OnceLock::new();
    AGENT.get_or_init(|| {
        ureq::Agent::config_builder()
            .http_status_as_error(false)
            .user_agent(concat!("hookbridge/", env!("CARGO_PKG_VERSION")))
            .build()
            .into()
    })
}

/// Time left until `deadline`, or `None` if it has passed.
pub(crate) fn remaining(deadline: Instant) -> Option<Duration> {
    deadline
        .checked_duration_since(Instant::now())
        .filter(|d| !d.is_zero())
}

/// An HTTP response: its status and its body, as a [`Collector`] gathered it.
pub(crate) struct Response {
    pub status: u16,
    pub body: CapturedOutput,
}

/// Why a POST got no response.
pub(crate) enum PostError {
    TimedOut,
    Unreachable(String),
}

/// Whether a POST follows redirects: model endpoints do (ureq's default, 10 hops); an http hook
/// never does, as Claude Code never does (`maxRedirects: 0`, measured, cases 260–266): a 3xx is an
/// answer outside 2xx, so no redirect can take a hook's request where `allowedHttpHookUrls` would
/// not let it go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Redirects {
    Follow,
    Never,
}

/// POSTs `body` to `url` with `headers` (plus `content-type: application/json`), by `deadline`;
/// the response body is read into `collector` (bounded: see [`Collector`]).
pub(crate) fn post_json(
    url: &str,
    headers: &[(String, String)],
    body: &[u8],
    deadline: Instant,
    redirects: Redirects,
    mut collector: Collector,
) -> Result<Response, PostError> {
    let Some(left) = remaining(deadline) else {
        return Err(PostError::TimedOut);
    };
    let mut config = http_agent().post(url).config().timeout_global(Some(left));
    if redirects == Redirects::Never {
        config = config.max_redirects(0);
    }
    let mut request = config.build().header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(name.as_str(), value.as_str());
    }
    let mut response = request.send(body).map_err(|e| match e {
        ureq::Error::Timeout(_) => PostError::TimedOut,
        other => PostError::Unreachable(transport_error(url, &other)),
    })?;
    let status = response.status().as_u16();
    if let Err(e) = collector.read_from(response.body_mut().as_reader()) {
        if remaining(deadline).is_none() {
            return Err(PostError::TimedOut);
        }
        return Err(PostError::Unreachable(format!("the response broke off: {e}")));
    }
    Ok(Response {
        status,
        body: collector.finish(),
    })
}

/// Why a request got no response, in the words Node gives the same failure: Claude Code shows
/// them to the model when an http hook's `onFailure` is `block` (case 293: `connect ECONNREFUSED
/// 127.0.0.1:18699`), so hookbridge says the same.
fn transport_error(url: &str, error: &ureq::Error) -> String {
    let parsed = url::Url::parse(url).ok();
    let host = parsed
        .as_ref()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_default();
    let port = parsed
        .as_ref()
        .and_then(url::Url::port_or_known_default)
        .unwrap_or(80);
    let io_kind = match error {
        ureq::Error::Io(e) => Some(e.kind()),
        _ => None,
    };
    match (error, io_kind) {
        (_, Some(std::io::ErrorKind::ConnectionRefused)) | (ureq::Error::ConnectionFailed, _) => {
            format!("connect ECONNREFUSED {host}:{port}")
        }
        (ureq::Error::HostNotFound, _) => format!("getaddrinfo ENOTFOUND {host}"),
        (
            _,
            Some(
                std::io::ErrorKind::UnexpectedEof
                | std::io::ErrorKind::ConnectionReset
                | std::io::ErrorKind::ConnectionAborted
                | std::io::ErrorKind::BrokenPipe,
            ),
        )
        | (ureq::Error::Protocol(_), _) => "socket hang up".to_string(),
        (other, _) => other.to_string(),
    }
}

/// POSTs a JSON request to a model endpoint and returns the parsed JSON reply.
pub(crate) fn call_model(
    endpoint: &str,
    headers: &[(String, String)],
    request: &Value,
    deadline: Instant,
) -> Result<Value, ModelCallError> {
    let body = serde_json::to_vec(request).expect("a JSON value serializes");
    let reply = Collector::new(MAX_REPLY_BYTES, 0);
    let response =
        post_json(endpoint, headers, &body, deadline, Redirects::Follow, reply).map_err(|e| match e {
            PostError::TimedOut => ModelCallError::TimedOut,
            PostError::Unreachable(cause) => ModelCallError::Unreachable {
                endpoint: endpoint.to_string(),
                cause,
            },
        })?;
    if !(200..300).contains(&response.status) {
        let text = String::from_utf8_lossy(&response.body.bytes);
        let detail = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| {
                v.pointer("/error/message")
                    .or_else(|| v.pointer("/message"))
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .or_else(|| text.lines().next().map(|l| l.chars().take(300).collect()))
            .filter(|d| !d.is_empty());
        return Err(ModelCallError::Status {
            endpoint: endpoint.to_string(),
            status: response.status,
            detail,
        });
    }
    serde_json::from_slice(&response.body.bytes).map_err(|e| ModelCallError::Malformed {
        endpoint: endpoint.to_string(),
        cause: format!("not JSON ({e})"),
    })
}

/// `base` and `path` joined with exactly one slash.
pub(crate) fn join_url(base: &str, path: &str) -> String {
    format!("{}/{}", base.trim_end_matches('/'), path.trim_start_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
    }

    #[test]
    fn the_provider_follows_the_environment() {
        let p = Provider::from_env(env(&[
            ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/"),
            ("ANTHROPIC_API_KEY", "k"),
        ]))
        .unwrap();
        assert_eq!(
            p,
            Provider::Anthropic {
                base_url: "http://127.0.0.1:9/".into(),
                credential: anthropic::Credential::ApiKey("k".into()),
                default_model: anthropic::DEFAULT_MODEL.into(),
            }
        );
        let p = Provider::from_env(env(&[("OPENAI_API_KEY", "k")])).unwrap();
        assert!(matches!(p, Provider::OpenAi { ref base_url, .. } if base_url == openai::DEFAULT_BASE_URL));
        let p = Provider::from_env(env(&[
            ("OPENAI_API_KEY", "k"),
            ("ANTHROPIC_AUTH_TOKEN", "t"),
            ("HOOKBRIDGE_MODEL_PROVIDER", "openai"),
            ("HOOKBRIDGE_PROMPT_MODEL", "small"),
        ]))
        .unwrap();
        assert!(matches!(p, Provider::OpenAi { ref default_model, .. } if default_model == "small"));
        assert_eq!(
            Provider::from_env(env(&[("HOOKBRIDGE_MODEL_PROVIDER", "gemini")])).unwrap_err(),
            UnknownProvider("gemini".into())
        );
        let p = Provider::from_env(env(&[
            ("ANTHROPIC_AUTH_TOKEN", "t"),
            ("ANTHROPIC_SMALL_FAST_MODEL", "fast"),
        ]))
        .unwrap();
        assert!(matches!(
            p,
            Provider::Anthropic { credential: anthropic::Credential::BearerToken(_), ref default_model, .. }
                if default_model == "fast"
        ));
        assert_eq!(
            format!("{p:?}"),
            "Anthropic(https://api.anthropic.com)",
            "no key in Debug"
        );
    }

    #[test]
    fn urls_join_with_one_slash() {
        assert_eq!(join_url("http://h/", "/v1/messages"), "http://h/v1/messages");
        assert_eq!(
            join_url("http://h/v1", "chat/completions"),
            "http://h/v1/chat/completions"
        );
    }
}
