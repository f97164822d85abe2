//! MCP's streamable HTTP transport (protocol 2025-06-18), as a client making one call: every
//! message is a POST of one JSON-RPC message to the server's URL, accepting `application/json` or
//! `text/event-stream`; a request is answered in the response body, as one JSON message or in a
//! stream of server-sent events that may carry the server's own requests and notifications before
//! the answer. The `Mcp-Session-Id` the server gives at `initialize` goes on every later message,
//! with the negotiated `MCP-Protocol-Version`, and the session is ended with a DELETE.
//!
//! HTTP is ureq's (blocking, no async runtime), with the hook's deadline as each exchange's
//! end-to-end timeout, so a server that keeps a stream open without answering times out.

use std::io::{BufRead, BufReader, Read};
use std::time::{Duration, Instant};

use hookbridge_core::decision::HookFailureKind::{Refused, Unreachable, Unreadable};
use serde_json::Value;

use super::{incoming, initialize, initialized, tools_call, CallError, Incoming, MAX_MESSAGE_BYTES};
use crate::model_api::{http_agent, remaining};

/// The longest the closing DELETE may take: ending the session is a courtesy, not the answer.
const CLOSE_TIMEOUT: Duration = Duration::from_millis(500);

/// A streamable-HTTP server: its URL and the headers it was configured with.
pub(super) struct HttpServer {
    pub url: String,
    pub headers: Vec<(String, String)>,
}

/// One client session with the server.
struct Session<'a> {
    server: &'a HttpServer,
    id: Option<String>,
    protocol: Option<String>,
}

/// Initialize, call the tool, end the session; the `tools/call` result.
pub(super) fn call(
    server: &HttpServer,
    tool: &str,
    arguments: Value,
    deadline: Instant,
) -> Result<Value, CallError> {
    let mut session = Session {
        server,
        id: None,
        protocol: None,
    };
    let init = session.request(&initialize(1), 1, deadline)?;
    session.protocol = init
        .get("protocolVersion")
        .and_then(Value::as_str)
        .map(str::to_string);
    session.notify(&initialized(), deadline)?;
    let result = session.request(&tools_call(2, tool, arguments), 2, deadline);
    session.close(deadline);
    result
}

impl Session<'_> {
    /// POST `message`, with the session's headers, by `deadline`.
    fn post(
        &self,
        message: &Value,
        deadline: Instant,
    ) -> Result<ureq::http::Response<ureq::Body>, CallError> {
        let left = remaining(deadline).ok_or(CallError::TimedOut)?;
        let mut request = http_agent()
            .post(&self.server.url)
            .config()
            .timeout_global(Some(left))
            .build()
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        request = self.with_session_headers(request);
        let body = serde_json::to_vec(message).expect("a JSON value serializes");
        let response = request.send(&body[..]).map_err(transport_error)?;
        let status = response.status();
        if !status.is_success() {
            return Err(CallError::Failed(
                Refused,
                format!("HTTP {status} from {}", self.server.url),
            ));
        }
        Ok(response)
    }

    fn with_session_headers<B>(&self, mut request: ureq::RequestBuilder<B>) -> ureq::RequestBuilder<B> {
        for (name, value) in &self.server.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        if let Some(id) = &self.id {
            request = request.header("mcp-session-id", id.as_str());
        }
        if let Some(protocol) = &self.protocol {
            request = request.header("mcp-protocol-version", protocol.as_str());
        }
        request
    }

    /// Send request `id` and read its answer, from a JSON body or an event stream, answering the
    /// server's own requests on the way.
    fn request(&mut self, message: &Value, id: u64, deadline: Instant) -> Result<Value, CallError> {
        let mut response = self.post(message, deadline)?;
        if self.id.is_none() {
            self.id = response
                .headers()
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
        }
        let stream = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| t.starts_with("text/event-stream"));
        // One message, or a stream of them: no more than one message may hold, and a stream past
        // that is cut off and fails as a stream that ended without the answer.
        let body = response.body_mut().as_reader().take(MAX_MESSAGE_BYTES);
        let read_error = |e: std::io::Error| match remaining(deadline) {
            None => CallError::TimedOut,
            Some(_) => CallError::Failed(Unreachable, format!("the response broke off: {e}")),
        };
        if !stream {
            let mut text = Vec::new();
            BufReader::new(body).read_to_end(&mut text).map_err(read_error)?;
            let value: Value = match super::message_of(&text)? {
                Some(value) => value,
                None => {
                    let e = serde_json::from_slice::<Value>(&text).err();
                    let why = e.map_or_else(String::new, |e| e.to_string());
                    return Err(CallError::Failed(
                        Unreadable,
                        format!("the response is not JSON: {why}"),
                    ));
                }
            };
            // One message, or a batch of them.
            let messages = match value {
                Value::Array(items) => items,
                one => vec![one],
            };
            for message in &messages {
                match incoming(message, id) {
                    Incoming::Answer(result) => return result,
                    Incoming::Reply(reply) => self.notify(&reply, deadline)?,
                    Incoming::Ignored => {}
                }
            }
            return Err(CallError::Failed(
                Unreadable,
                "the response holds no answer to the request".into(),
            ));
        }
        let mut events = BufReader::new(body);
        let mut data = String::new();
        let mut line = String::new();
        loop {
            line.clear();
            let read = events.read_line(&mut line).map_err(read_error)?;
            let line = line.trim_end_matches(['\n', '\r']);
            if read == 0 || line.is_empty() {
                // The end of an event (or of the stream): its data is one JSON-RPC message.
                if let Some(message) = super::message_of(data.as_bytes())? {
                    match incoming(&message, id) {
                        Incoming::Answer(result) => return result,
                        Incoming::Reply(reply) => self.notify(&reply, deadline)?,
                        Incoming::Ignored => {}
                    }
                }
                data.clear();
                if read == 0 {
                    return Err(CallError::Failed(
                        Unreachable,
                        "the event stream ended before the answer".into(),
                    ));
                }
                continue;
            }
            if let Some(value) = line.strip_prefix("data:") {
                if !data.is_empty() {
                    data.push('\n');
                }
                data.push_str(value.strip_prefix(' ').unwrap_or(value));
            }
            // `event:`, `id:`, `retry:` and `:` comments say nothing a one-call client needs.
        }
    }

    /// POST a notification or a reply; the server acknowledges it (202) with no answer to read.
    fn notify(&self, message: &Value, deadline: Instant) -> Result<(), CallError> {
        self.post(message, deadline).map(drop)
    }

    /// End the session (DELETE), if the server gave one; its answer does not matter.
    fn close(&self, deadline: Instant) {
        if self.id.is_none() {
            return;
        }
        let left = remaining(deadline).map_or(CLOSE_TIMEOUT, |left| left.min(CLOSE_TIMEOUT));
        let request = http_agent()
            .delete(&self.server.url)
            .config()
            .timeout_global(Some(left))
            .build();
        let _ = self.with_session_headers(request).call();
    }
}

fn transport_error(e: ureq::Error) -> CallError {
    match e {
        ureq::Error::Timeout(_) => CallError::TimedOut,
        other => CallError::Failed(Unreachable, format!("could not reach the server: {other}")),
    }
}
