//! A loopback HTTP server for the tests of network hooks: it stands in for the Anthropic Messages
//! API, an OpenAI-compatible chat-completions endpoint and an http hook's endpoint, answers each
//! request with what the test scripted, and records every request (path, headers, JSON body).

use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::{json, Value};

/// One request the server received.
#[derive(Debug, Clone)]
pub struct Received {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
    pub raw_body: String,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What the server answers.
#[derive(Debug, Clone)]
pub enum Reply {
    /// The model's text, in the shape of the API the request was made to.
    ModelText(String),
    /// Anthropic's `stop_reason: "refusal"` / OpenAI's `refusal`.
    Refusal,
    /// Any status and body.
    Raw { status: u16, body: String },
    /// A 200 whose body is sent `Content-Encoding: gzip`.
    Gzipped(String),
    /// Wait this long before answering with the model's text.
    Slow(Duration, String),
    /// A conversation: the Nth request gets the Nth turn (the last one again past the end), in the
    /// shape of the API asked — `{"text": …}` or `{"tool_use": [{"name": …, "input": …}]}`.
    Turns(Vec<Value>),
}

pub struct FakeServer {
    pub url: String,
    received: Arc<Mutex<Vec<Received>>>,
    server: Arc<tiny_http::Server>,
}

impl FakeServer {
    /// Starts a server that answers every request with `reply`.
    pub fn start(reply: Reply) -> FakeServer {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("bind loopback"));
        let url = format!("http://{}", server.server_addr().to_ip().expect("an IP address"));
        let received = Arc::new(Mutex::new(Vec::new()));
        for _ in 0..4 {
            let server = server.clone();
            let received = received.clone();
            let reply = reply.clone();
            thread::spawn(move || {
                for mut request in server.incoming_requests() {
                    let mut raw_body = String::new();
                    let _ = request.as_reader().read_to_string(&mut raw_body);
                    let got = Received {
                        path: request.url().to_string(),
                        headers: request
                            .headers()
                            .iter()
                            .map(|h| (h.field.to_string(), h.value.to_string()))
                            .collect(),
                        body: serde_json::from_str(&raw_body).unwrap_or(Value::Null),
                        raw_body,
                    };
                    // Recorded first (the lock is not held while a slow reply waits).
                    let index = {
                        let mut log = received.lock().unwrap();
                        log.push(got.clone());
                        log.len() - 1
                    };
                    let (status, body) = answer(&reply, &got, index);
                    let header = tiny_http::Header::from_bytes("content-type", "application/json").unwrap();
                    let mut response = tiny_http::Response::from_data(body.into_bytes())
                        .with_status_code(status)
                        .with_header(header);
                    if let Reply::Gzipped(plain) = &reply {
                        use std::io::Write;
                        let mut encoder =
                            flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                        encoder.write_all(plain.as_bytes()).unwrap();
                        let encoding = tiny_http::Header::from_bytes("content-encoding", "gzip").unwrap();
                        response = tiny_http::Response::from_data(encoder.finish().unwrap())
                            .with_header(
                                tiny_http::Header::from_bytes("content-type", "application/json").unwrap(),
                            )
                            .with_header(encoding);
                    }
                    let _ = request.respond(response);
                }
            });
        }
        FakeServer {
            url,
            received,
            server,
        }
    }

    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.server.unblock();
    }
}

fn answer(reply: &Reply, got: &Received, index: usize) -> (u16, String) {
    let openai = got.path.ends_with("/chat/completions");
    let text_reply = |text: &str| -> String {
        if openai {
            json!({"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]}).to_string()
        } else {
            json!({"id": "msg_1", "type": "message", "role": "assistant", "model": got.body["model"], "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}}).to_string()
        }
    };
    match reply {
        Reply::ModelText(text) => (200, text_reply(text)),
        Reply::Refusal if openai => (
            200,
            json!({"choices": [{"message": {"role": "assistant", "content": null, "refusal": "I can't help with that."}}]}).to_string(),
        ),
        Reply::Refusal => (200, json!({"content": [], "stop_reason": "refusal"}).to_string()),
        Reply::Raw { status, body } => (*status, body.clone()),
        Reply::Gzipped(_) => (200, String::new()),
        Reply::Slow(wait, text) => {
            thread::sleep(*wait);
            (200, text_reply(text))
        }
        Reply::Turns(turns) => {
            let turn = &turns[index.min(turns.len() - 1)];
            let Some(uses) = turn.get("tool_use").and_then(Value::as_array) else {
                return (200, text_reply(turn["text"].as_str().unwrap_or("")));
            };
            let body = if openai {
                let calls: Vec<Value> = uses.iter().enumerate().map(|(i, u)| json!({"id": format!("call_{index}_{i}"), "type": "function",
                    "function": {"name": u["name"], "arguments": u["input"].to_string()}})).collect();
                json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": calls}, "finish_reason": "tool_calls"}]})
            } else {
                let blocks: Vec<Value> = uses.iter().enumerate().map(|(i, u)| json!({"type": "tool_use", "id": format!("toolu_{index}_{i}"),
                    "name": u["name"], "input": u["input"]})).collect();
                json!({"id": "msg_1", "type": "message", "role": "assistant", "content": blocks, "stop_reason": "tool_use"})
            };
            (200, body.to_string())
        }
    }
}
