//! What `mcp_tool` hooks need to know before anything runs: the MCP servers a project configures
//! (Claude Code's `.mcp.json`: `{"mcpServers": {name: {command, args, env} | {type: "http", url,
//! headers}}}`,
//! with `${VAR}` and `${VAR:-default}` expanded from the environment as Claude Code does), and the
//! hook's `input` with its `${path}` placeholders filled from the hook input
//! (`"${tool_input.file_path}"`). Talking to a server is the runner's business.

use indexmap::IndexMap;
use serde_json::{Map, Value};

/// How to reach one MCP server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpServer {
    /// A program speaking MCP on its stdin and stdout (newline-delimited JSON-RPC).
    Stdio {
        command: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
    },
    /// A server reached over MCP's streamable HTTP transport (`type: "http"`), with the headers
    /// to send it (`Authorization`, …).
    Http {
        url: String,
        headers: Vec<(String, String)>,
    },
    /// A server on a transport hookbridge does not speak (`type: "sse"`, the deprecated HTTP+SSE
    /// transport, or `"ws"`).
    Unsupported { transport: String, url: String },
}

/// The servers of one `.mcp.json` (or a plugin manifest's `mcpServers`), by name.
pub type McpServers = IndexMap<String, Result<McpServer, McpConfigError>>;

/// Why an MCP configuration, or one server of it, cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpConfigError {
    #[error("not valid JSON: {0}")]
    NotJson(String),
    #[error("`mcpServers` must be an object")]
    ServersNotAnObject,
    #[error("a server must be an object")]
    ServerNotAnObject,
    #[error("a remote server needs a `url`")]
    NoUrl,
    #[error("unknown server type `{0}`")]
    UnknownType(String),
    #[error("a stdio server needs a `command`")]
    NoCommand,
    #[error("`args` must be strings")]
    ArgNotAString,
    #[error("`args` must be a list of strings")]
    ArgsNotAList,
    /// `env` or `headers` (the key) has a value that is not a string.
    #[error("`{0}` values must be strings")]
    ValueNotAString(&'static str),
    /// `env` or `headers` (the key) is not an object.
    #[error("`{0}` must be an object of strings")]
    NotAnObjectOfStrings(&'static str),
}

/// Read the `mcpServers` object of `text` (a `.mcp.json` or a `plugin.json`); each server is
/// either usable or the reason it is not. `var` looks up environment variables for `${VAR}`.
pub fn parse_mcp_servers(
    text: &str,
    var: impl Fn(&str) -> Option<String>,
) -> Result<McpServers, McpConfigError> {
    let value: Value = serde_json::from_str(text).map_err(|e| McpConfigError::NotJson(e.to_string()))?;
    let Some(servers) = value.get("mcpServers") else {
        return Ok(McpServers::new());
    };
    let servers = servers.as_object().ok_or(McpConfigError::ServersNotAnObject)?;
    Ok(servers
        .iter()
        .map(|(name, spec)| (name.clone(), server(spec, &var)))
        .collect())
}

fn server(spec: &Value, var: &impl Fn(&str) -> Option<String>) -> Result<McpServer, McpConfigError> {
    let spec = spec.as_object().ok_or(McpConfigError::ServerNotAnObject)?;
    let text = |v: &Value| v.as_str().map(|s| expand_env(s, var));
    match spec.get("type").and_then(Value::as_str) {
        Some(transport @ ("http" | "sse" | "ws")) => {
            let url = spec.get("url").and_then(text).ok_or(McpConfigError::NoUrl)?;
            if transport != "http" {
                let transport = transport.to_string();
                return Ok(McpServer::Unsupported { transport, url });
            }
            let headers = string_map(spec.get("headers"), "headers", &text)?;
            return Ok(McpServer::Http { url, headers });
        }
        None | Some("stdio") => {}
        Some(other) => return Err(McpConfigError::UnknownType(other.to_string())),
    }
    let command = spec
        .get("command")
        .and_then(text)
        .ok_or(McpConfigError::NoCommand)?;
    let args = match spec.get("args") {
        None => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|a| text(a).ok_or(McpConfigError::ArgNotAString))
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(McpConfigError::ArgsNotAList),
    };
    let env = string_map(spec.get("env"), "env", &text)?;
    Ok(McpServer::Stdio { command, args, env })
}

/// An object of strings (`env`, `headers`), each value expanded by `text`; absent is empty.
fn string_map(
    value: Option<&Value>,
    key: &'static str,
    text: &impl Fn(&Value) -> Option<String>,
) -> Result<Vec<(String, String)>, McpConfigError> {
    match value {
        None => Ok(Vec::new()),
        Some(Value::Object(vars)) => vars
            .iter()
            .map(|(k, v)| {
                text(v)
                    .map(|v| (k.clone(), v))
                    .ok_or(McpConfigError::ValueNotAString(key))
            })
            .collect(),
        Some(_) => Err(McpConfigError::NotAnObjectOfStrings(key)),
    }
}

/// `${VAR}` and `${VAR:-default}` replaced from `var` (an unset variable without a default becomes
/// empty); anything else kept as written.
pub fn expand_env(text: &str, var: &impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start + 2..].find('}') else {
            break;
        };
        out.push_str(&rest[..start]);
        let inner = &rest[start + 2..start + 2 + len];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        match var(name).filter(|v| !v.is_empty()) {
            Some(value) => out.push_str(&value),
            None => out.push_str(default.unwrap_or("")),
        }
        rest = &rest[start + 2 + len + 1..];
    }
    out.push_str(rest);
    out
}

/// The hook's `input` with `${path}` in its string values replaced by that field of the hook input
/// (`${tool_input.file_path}`, `${session_id}`): a string as it is, another value as JSON, a missing
/// one as nothing.
pub fn fill_input(input: &Value, hook_input: &Map<String, Value>) -> Value {
    match input {
        Value::String(s) => Value::String(fill(s, hook_input)),
        Value::Array(items) => Value::Array(items.iter().map(|v| fill_input(v, hook_input)).collect()),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(k, v)| (k.clone(), fill_input(v, hook_input)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn fill(text: &str, hook_input: &Map<String, Value>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start + 2..].find('}') else {
            break;
        };
        out.push_str(&rest[..start]);
        out.push_str(&crate::event::field_text(
            hook_input,
            &rest[start + 2..start + 2 + len],
        ));
        rest = &rest[start + 2 + len + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn servers_are_read_with_the_environment_expanded() {
        let env = |name: &str| match name {
            "TOKEN" => Some("t0k".to_string()),
            _ => None,
        };
        let servers = parse_mcp_servers(
            r#"{"mcpServers": {
                "fs": {"command": "npx", "args": ["-y", "${PKG:-server-fs}", "${HOME_NOT_SET}"], "env": {"KEY": "${TOKEN}"}},
                "web": {"type": "http", "url": "https://x/${TOKEN}", "headers": {"Authorization": "Bearer ${TOKEN}"}},
                "old": {"type": "sse", "url": "https://x/sse"},
                "bad": {"args": []}
            }}"#,
            env,
        )
        .unwrap();
        assert_eq!(
            servers["fs"],
            Ok(McpServer::Stdio {
                command: "npx".into(),
                args: vec!["-y".into(), "server-fs".into(), "".into()],
                env: vec![("KEY".into(), "t0k".into())],
            })
        );
        assert_eq!(
            servers["web"],
            Ok(McpServer::Http {
                url: "https://x/t0k".into(),
                headers: vec![("Authorization".into(), "Bearer t0k".into())],
            })
        );
        assert_eq!(
            servers["old"],
            Ok(McpServer::Unsupported {
                transport: "sse".into(),
                url: "https://x/sse".into()
            })
        );
        assert_eq!(servers["bad"], Err(McpConfigError::NoCommand));
        assert_eq!(
            servers["bad"].as_ref().unwrap_err().to_string(),
            "a stdio server needs a `command`"
        );
        assert!(parse_mcp_servers("{}", env).unwrap().is_empty());
        assert!(matches!(
            parse_mcp_servers("{", env),
            Err(McpConfigError::NotJson(_))
        ));
        let one = |spec: &str| {
            parse_mcp_servers(&format!(r#"{{"mcpServers": {{"s": {spec}}}}}"#), env).unwrap()["s"].clone()
        };
        assert_eq!(one(r#"{"type": "ws"}"#), Err(McpConfigError::NoUrl));
        assert_eq!(
            one(r#"{"type": "grpc"}"#),
            Err(McpConfigError::UnknownType("grpc".into()))
        );
        assert_eq!(
            one(r#"{"command": "x", "args": "a"}"#),
            Err(McpConfigError::ArgsNotAList)
        );
        assert_eq!(
            one(r#"{"command": "x", "args": [1]}"#),
            Err(McpConfigError::ArgNotAString)
        );
        assert_eq!(
            one(r#"{"command": "x", "env": {"A": 1}}"#),
            Err(McpConfigError::ValueNotAString("env"))
        );
        assert_eq!(
            one(r#"{"type": "http", "url": "u", "headers": []}"#),
            Err(McpConfigError::NotAnObjectOfStrings("headers"))
        );
        assert_eq!(
            parse_mcp_servers(r#"{"mcpServers": []}"#, env),
            Err(McpConfigError::ServersNotAnObject)
        );
    }

    #[test]
    fn input_placeholders_come_from_the_hook_input() {
        let hook_input = json!({"tool_input": {"file_path": "/p/a.rs", "n": 3}, "session_id": "s"});
        let hook_input = hook_input.as_object().unwrap();
        assert_eq!(
            fill_input(
                &json!({"path": "${tool_input.file_path}", "list": ["${session_id}-${tool_input.n}", 1], "gone": "[${nope}]"}),
                hook_input
            ),
            json!({"path": "/p/a.rs", "list": ["s-3", 1], "gone": "[]"})
        );
    }
}
