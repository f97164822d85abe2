//! `mcp_tool` hooks: call `tool` on the MCP server `server` with the hook's `input` (its `${path}`
//! placeholders filled from the hook input), and read the tool's text output like a command's
//! stdout. A tool result with `isError: true`, a JSON-RPC error, a server that cannot be found,
//! started or understood is a non-blocking error; running out of time is a timeout.
//!
//! Claude Code calls the server its session already has connected. `hookbridge run` lives for one
//! event, so it connects for the call: the server is found where Claude Code keeps it — `local`
//! (`~/.claude.json`, `projects[<project>].mcpServers`), `project` (`<project>/.mcp.json`), `user`
//! (`~/.claude.json`, `mcpServers`), and `plugin:<plugin>:<server>` in that plugin's `.mcp.json` or
//! manifest — and reached over its transport: a program started for the call and spoken to on
//! stdio (`stdio.rs`), or a URL spoken to in streamable HTTP (`http.rs`). Either way the client
//! sends `initialize`, `notifications/initialized`, then `tools/call`, and answers requests the
//! server makes of it "method not found" (this module holds those messages). The deprecated
//! HTTP+SSE transport (`type: "sse"`) and `ws` are not spoken: such a hook is a non-blocking error
//! that says so.
//!
//! A stdio server is a program, and where the sandbox floor (`hookbridge trust --sandboxed`,
//! `sandboxHooks`) sandboxes the hooks of whoever supplied it — the project's `.mcp.json` and a
//! project plugin's servers for `project`, every server for `all` — it runs in the default sandbox
//! (`process::confine_command`: no network, writes to the project and its temporary folder only,
//! no credentials, none of the environment's secrets, which its configuration cannot name either),
//! or is not started where that cannot be enforced, as a sandboxed command hook would not be.

mod http;
mod stdio;

use std::path::{Path, PathBuf};
use std::time::Duration;

use hookbridge_core::config::{read_bounded, HookSpec, McpToolHook, MAX_CONFIG_BYTES};
use hookbridge_core::decision::HookFailureKind::{self, Refused, Unreadable};
use hookbridge_core::decision::{HookFailure, RunStatus};
use hookbridge_core::mcp::{fill_input, parse_mcp_servers, McpConfigError, McpServer};
use serde_json::{json, Map, Value};

use super::JobContext;
use crate::process::capture::Collector;
use crate::process::{InProcessJob, InProcessOutcome, ProcessSpec};

/// How long before the hook's deadline the call gives up, to stop its server in time.
const CLEANUP_MARGIN: Duration = Duration::from_millis(150);

/// The largest message read from a server: room for a tool answer as large as a command hook's
/// stdout may be (the cap and the spill, [`ProcessSpec`]), with JSON's escaping; a larger one
/// fails the call instead of exhausting memory.
pub(super) const MAX_MESSAGE_BYTES: u64 =
    2 * (super::DEFAULT_OUTPUT_CAP as u64 + ProcessSpec::DEFAULT_STDOUT_SPILL_LIMIT);

/// The most of `~/.claude.json` read (Claude Code keeps its history there: it grows large).
const CLAUDE_JSON_MAX_BYTES: u64 = 256 << 20;

/// The MCP protocol version hookbridge asks for.
pub const PROTOCOL_VERSION: &str = "2025-06-18";

/// The job that calls `mcp`'s tool for `hook`.
pub(crate) fn job(hook: &HookSpec, mcp: &McpToolHook, ctx: JobContext<'_>) -> InProcessJob {
    let hook_input: Map<String, Value> = serde_json::from_slice(&ctx.stdin).unwrap_or_default();
    let arguments = mcp
        .input
        .as_ref()
        .map_or_else(|| json!({}), |input| fill_input(input, &hook_input));
    let project = ctx.var("CLAUDE_PROJECT_DIR").map(PathBuf::from);
    // Your servers are read from your home, never from the hook's `HOME` (a project's export).
    let home = crate::home::user_home();
    let plugin = hook
        .source
        .plugin
        .as_ref()
        .map(|p| (p.name.clone(), p.root.clone()));
    let (found, sandbox) = server_and_sandbox(hook, mcp, &ctx, project.as_deref(), home.as_deref(), plugin);
    // A project's server runs in the project root, where trust pinned the files it names from
    // (and where Claude Code, started in the project, starts it); any other in the session's.
    let cwd = match &found {
        Ok((_, Origin::Project)) => project,
        _ => ctx.cwd.clone().or(project),
    };
    let found = found.map(|(server, _)| server);
    let env = ctx.env.clone();
    let tool = mcp.tool.clone();
    let server_name = mcp.server.clone();
    let cap = ctx.output_cap;
    InProcessJob {
        kind: hookbridge_core::config::HookType::McpTool,
        timeout: ctx.timeout,
        work: Box::new(move |deadline| {
            // The call gives up a little before the hook's deadline, so that it stops the server
            // itself: a job still running at the deadline is abandoned, and `hookbridge run` may
            // exit before an abandoned job's cleanup runs.
            let deadline = deadline.checked_sub(CLEANUP_MARGIN).unwrap_or(deadline);
            let called = match found {
                Ok(McpServer::Stdio {
                    command,
                    args,
                    env: server_env,
                }) => {
                    let (sandbox, unsandboxed) = match sandbox {
                        Some(Ok(plan)) => (Some(plan), None),
                        Some(Err(why)) => (None, Some(why)),
                        None => (None, None),
                    };
                    let mut env: Vec<_> = env
                        .into_iter()
                        .chain(server_env.into_iter().map(|(k, v)| (k.into(), v.into())))
                        .collect();
                    env.extend(
                        sandbox
                            .as_ref()
                            .and_then(|plan| plan.temp_dir())
                            .map(|temp| ("TMPDIR".into(), temp.into())),
                    );
                    let server = stdio::StdioServer {
                        command,
                        args,
                        env,
                        cwd,
                        sandbox,
                    };
                    let called = stdio::call(&server, &tool, arguments, deadline);
                    if let Some(why) = unsandboxed {
                        let mut outcome = match called {
                            Ok(result) => outcome_of(&server_name, &tool, &result, cap),
                            Err(e) => failure(&server_name, e),
                        };
                        outcome.stderr = format!("MCP server `{server_name}` ran WITHOUT its sandbox: {why} (sandboxUnavailable: runUnsandboxed)").into_bytes();
                        return outcome;
                    }
                    called
                }
                Ok(McpServer::Http { url, headers }) => {
                    http::call(&http::HttpServer { url, headers }, &tool, arguments, deadline)
                }
                Ok(McpServer::Unsupported { transport, url }) => {
                    let why = ServerProblem::Unsupported {
                        name: server_name,
                        transport,
                        url,
                    };
                    return super::not_configured(why);
                }
                Err(why) => return super::not_configured(why),
            };
            match called {
                Ok(result) => outcome_of(&server_name, &tool, &result, cap),
                Err(e) => failure(&server_name, e),
            }
        }),
    }
}

/// The server `mcp` names, and the sandbox it is to run in ([`server_sandbox`]): `Some(Ok)` to
/// run in, `Some(Err(why))` where this machine cannot enforce it and the settings say to run
/// without. A server that runs sandboxed is found again with no secret of the environment to fill
/// in its configuration: a repository's `.mcp.json` could otherwise hand it `${ANTHROPIC_API_KEY}`
/// under any name. A server over HTTP that is not the user's own is held to the http policy, as
/// an http hook is (a hook's input is posted to it): its URL must be one `allowedHttpHookUrls`
/// allows, and its configuration reads only the variables `httpHookAllowedEnvVars` allows.
#[allow(clippy::type_complexity)]
fn server_and_sandbox(
    hook: &HookSpec,
    mcp: &McpToolHook,
    ctx: &JobContext<'_>,
    project: Option<&Path>,
    home: Option<&Path>,
    plugin: Option<(String, PathBuf)>,
) -> (
    Result<(McpServer, Origin), ServerProblem>,
    Option<Result<crate::process::SandboxPlan, String>>,
) {
    let project_servers = project.filter(|_| ctx.project_mcp_servers);
    let found = find_server(&mcp.server, project_servers, home, plugin.clone(), |name| {
        ctx.var(name)
    });
    if let Ok((McpServer::Http { .. }, origin)) = &found {
        if *origin != Origin::User {
            let found = find_server(&mcp.server, project_servers, home, plugin, |name| {
                ctx.var(name).filter(|_| ctx.policy.allows_env_var(name))
            });
            let found = match found {
                Ok((McpServer::Http { url, .. }, _)) if !ctx.policy.allows_url(&url) => {
                    Err(ServerProblem::UrlNotAllowed {
                        name: mcp.server.clone(),
                        url,
                    })
                }
                other => other,
            };
            return (found, None);
        }
    }
    let sandbox = match &found {
        Ok((McpServer::Stdio { .. }, origin)) => {
            server_sandbox(*origin, hook.source.scope, &ctx.sandbox_floor)
        }
        _ => None,
    };
    let found = match sandbox {
        Some(_) => find_server(&mcp.server, project_servers, home, plugin, |name| {
            ctx.var(name)
                .filter(|_| !crate::process::names_a_secret(name.as_bytes()))
        }),
        None => found,
    };
    let sandbox = sandbox.map(|sandbox| {
        match crate::process::unenforceable(&sandbox.network).filter(|_| {
            ctx.sandbox_floor.where_unavailable()
                == hookbridge_core::config::managed::SandboxUnavailable::RunUnsandboxed
        }) {
            Some(why) => Err(why),
            None => Ok(crate::process::SandboxPlan::new(
                &sandbox,
                project,
                home,
                &[],
                hook.source
                    .plugin
                    .as_ref()
                    .map(|p| p.data_dir.as_path())
                    .filter(|dir| dir.is_absolute() && std::fs::create_dir_all(dir).is_ok()),
            )),
        }
    });
    (found, sandbox)
}

/// A call that got no result, as the hook's outcome.
fn failure(server_name: &str, error: CallError) -> InProcessOutcome {
    match error {
        CallError::TimedOut => InProcessOutcome::of(RunStatus::TimedOut),
        CallError::Failed(kind, why) => InProcessOutcome::of(RunStatus::Failed(HookFailure::new(
            kind,
            format!("MCP server `{server_name}`: {why}"),
        ))),
    }
}

/// Where an MCP server was found, which says who supplied it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// `~/.claude.json`: the user's, for this project (local scope) or for all (user scope).
    User,
    /// The project's `.mcp.json`.
    Project,
    /// The hook's own plugin's, supplied by whoever supplied the plugin (the hook's scope).
    Plugin,
}

/// The sandbox a stdio server found at `origin` runs in, for a hook of `scope`, under `floor`:
/// the default sandbox (no network) where the floor sandboxes the hooks of whoever supplied it.
fn server_sandbox(
    origin: Origin,
    scope: hookbridge_core::config::Scope,
    floor: &hookbridge_core::config::managed::SandboxFloor,
) -> Option<hookbridge_core::config::Sandbox> {
    use hookbridge_core::config::managed::SandboxedHooks;
    let projects = match origin {
        Origin::Project => true,
        Origin::Plugin => scope == hookbridge_core::config::Scope::Project,
        Origin::User => false,
    };
    match floor.hooks {
        Some(SandboxedHooks::All) => Some(Default::default()),
        Some(SandboxedHooks::Project) if projects => Some(Default::default()),
        _ => None,
    }
}

/// Why `hook`'s server cannot be called from here, if it cannot (for `validate`): not configured,
/// misconfigured, or on a transport hookbridge does not speak. `project` and `home` as the hook
/// would see them; `project_servers`: whether the project's `.mcp.json` may be used (trusted).
pub fn server_problem(
    hook: &HookSpec,
    mcp: &McpToolHook,
    project: &Path,
    home: Option<&Path>,
    project_servers: bool,
) -> Option<ServerProblem> {
    let plugin = hook
        .source
        .plugin
        .as_ref()
        .map(|p| (p.name.clone(), p.root.clone()));
    let project = Some(project).filter(|_| project_servers);
    match find_server(&mcp.server, project, home, plugin, |name| {
        std::env::var(name).ok()
    })
    .map(|(server, _)| server)
    {
        Ok(McpServer::Stdio { .. } | McpServer::Http { .. }) => None,
        Ok(McpServer::Unsupported { transport, url }) => Some(ServerProblem::Unsupported {
            name: mcp.server.clone(),
            transport,
            url,
        }),
        Err(why) => Some(why),
    }
}

/// When both the user (`~/.claude.json`) and the project's `.mcp.json` define the server `mcp`
/// calls: the user's is the one called, and this says so (for `validate`).
pub fn shadowed_by_user(mcp: &McpToolHook, project: &Path, home: Option<&Path>) -> Option<String> {
    let home = home?;
    let defines = |path: &Path, key_path: &[&str]| -> bool {
        let Ok(text) = read_bounded(path, CLAUDE_JSON_MAX_BYTES) else {
            return false;
        };
        let Ok(mut value) = serde_json::from_str::<Value>(&text) else {
            return false;
        };
        for key in key_path {
            match value.get(*key) {
                Some(v) => value = v.clone(),
                None => return false,
            }
        }
        value.get("mcpServers").and_then(|s| s.get(&mcp.server)).is_some()
    };
    let claude_json = home.join(".claude.json");
    let project_key = project.to_string_lossy().into_owned();
    let users = defines(&claude_json, &[]) || defines(&claude_json, &["projects", &project_key]);
    (users && defines(&project.join(".mcp.json"), &[])).then(|| {
        format!(
            "the project's .mcp.json defines MCP server `{}`, and so does {}: the user's is the one called (a project never replaces a user's server)",
            mcp.server,
            claude_json.display()
        )
    })
}

/// Why a server on an unsupported transport cannot be called.
/// Why an `mcp_tool` hook's server cannot be called from here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ServerProblem {
    #[error("MCP server `{name}` is not `plugin:<plugin>:<server>`")]
    NotAPluginServerName { name: String },
    #[error(
        "MCP server `{name}` belongs to plugin `{plugin}`; a hook reaches only its own plugin's servers"
    )]
    AnotherPlugins { name: String, plugin: String },
    #[error("plugin `{plugin}` configures no MCP server `{server}`")]
    NotInItsPlugin { plugin: String, server: String },
    /// Configured, but not as a server can be: `place` says where (`in <file>`, `(user scope)`).
    #[error("MCP server `{name}` {place}: {error}")]
    Misconfigured {
        name: String,
        place: String,
        error: McpConfigError,
    },
    #[error("no MCP server `{name}` is configured (looked in ~/.claude.json and {project}/.mcp.json)")]
    NotConfigured { name: String, project: String },
    /// A server over HTTP that is not the user's own, at a URL the http policy does not allow.
    #[error("MCP server `{name}` ({url}): HTTP hook blocked: {url} does not match any pattern in allowedHttpHookUrls")]
    UrlNotAllowed { name: String, url: String },
    #[error("MCP server `{name}` uses the `{transport}` transport ({url}); hookbridge speaks stdio and streamable HTTP (`\"type\": \"http\"`) to MCP servers")]
    Unsupported {
        name: String,
        transport: String,
        url: String,
    },
}

/// A `tools/call` result as an outcome: its text content read like stdout (bounded as a
/// command's is: a JSON answer past the cap is kept whole), `isError` a failure.
fn outcome_of(server: &str, tool: &str, result: &Value, cap: usize) -> InProcessOutcome {
    let text: Vec<&str> = result
        .get("content")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter(|i| i.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|i| i.get("text").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    let text = text.join("\n");
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        return InProcessOutcome::of(RunStatus::Failed(HookFailure::new(
            HookFailureKind::Refused,
            format!(
                "MCP tool `{tool}` of `{server}` returned an error: {}",
                text.trim()
            ),
        )));
    }
    let mut collector = Collector::new(cap, ProcessSpec::DEFAULT_STDOUT_SPILL_LIMIT);
    collector.push(text.as_bytes());
    let read = collector.finish();
    InProcessOutcome {
        status: RunStatus::Answered,
        stdout_truncated: read.truncated,
        stdout: read.bytes,
        stderr: Vec::new(),
        duration: Default::default(),
    }
}

/// Where server `name` is configured, as Claude Code looks: a plugin's own servers for
/// `plugin:<plugin>:<server>`; else local, project, user.
fn find_server(
    name: &str,
    project: Option<&Path>,
    home: Option<&Path>,
    plugin: Option<(String, PathBuf)>,
    var: impl Fn(&str) -> Option<String>,
) -> Result<(McpServer, Origin), ServerProblem> {
    let misconfigured = |place: String| {
        move |error| ServerProblem::Misconfigured {
            name: name.to_string(),
            place,
            error,
        }
    };
    // Bounded as a hooks file is (a project's `.mcp.json` must not exhaust memory, a FIFO must not
    // block); `~/.claude.json`, Claude Code's own state file, may be larger.
    let read = |path: &Path| {
        let max = if path.ends_with(".claude.json") {
            CLAUDE_JSON_MAX_BYTES
        } else {
            MAX_CONFIG_BYTES
        };
        read_bounded(path, max).ok()
    };
    let pick = |text: &str, key_path: &[&str], server: &str| -> Option<Result<McpServer, McpConfigError>> {
        let mut value: Value = serde_json::from_str(text).ok()?;
        for key in key_path {
            value = value.get(*key)?.clone();
        }
        let wrapped = json!({"mcpServers": value.get("mcpServers")?}).to_string();
        parse_mcp_servers(&wrapped, &var).ok()?.shift_remove(server)
    };
    if let Some(rest) = name.strip_prefix("plugin:") {
        let (plugin_name, server) =
            rest.split_once(':')
                .ok_or_else(|| ServerProblem::NotAPluginServerName {
                    name: name.to_string(),
                })?;
        let Some((own, root)) = plugin.filter(|(own, _)| own == plugin_name) else {
            return Err(ServerProblem::AnotherPlugins {
                name: name.to_string(),
                plugin: plugin_name.to_string(),
            });
        };
        for file in [root.join(".mcp.json"), root.join(".claude-plugin/plugin.json")] {
            if let Some(found) = read(&file).and_then(|t| pick(&t, &[], server)) {
                return found
                    .map(|s| (s, Origin::Plugin))
                    .map_err(misconfigured(format!("in {}", file.display())));
            }
        }
        return Err(ServerProblem::NotInItsPlugin {
            plugin: own,
            server: server.to_string(),
        });
    }
    let claude_json = home.map(|h| h.join(".claude.json"));
    let claude_json_text = claude_json.as_deref().and_then(read);
    // The user's own servers come first — local (theirs for this project, kept in their home),
    // then user — and a project's server of the same name never replaces them: a repository must
    // not swap a user's guard server for its own. Claude Code lets the project's win over the
    // user's; hookbridge does not, on purpose.
    let project_key = project.map(|p| p.to_string_lossy().into_owned());
    if let (Some(text), Some(key)) = (&claude_json_text, &project_key) {
        if let Some(found) = pick(text, &["projects", key], name) {
            return found
                .map(|s| (s, Origin::User))
                .map_err(misconfigured("(local scope)".into()));
        }
    }
    if let Some(found) = claude_json_text.as_deref().and_then(|t| pick(t, &[], name)) {
        return found
            .map(|s| (s, Origin::User))
            .map_err(misconfigured("(user scope)".into()));
    }
    if let Some(file) = project.map(|p| p.join(".mcp.json")) {
        if let Some(found) = read(&file).and_then(|t| pick(&t, &[], name)) {
            return found
                .map(|s| (s, Origin::Project))
                .map_err(misconfigured(format!("in {}", file.display())));
        }
    }
    Err(ServerProblem::NotConfigured {
        name: name.to_string(),
        project: project.map_or_else(|| "<project>".to_string(), |p| p.display().to_string()),
    })
}

/// One message of the server's, read as JSON (`Ok(None)` when it is not JSON), bounded by its
/// values as a hook's answer is ([`json_text::MAX_VALUES`](hookbridge_core::decision::json_text::MAX_VALUES)):
/// a message of `0,0,0,…` would take some 70 bytes of memory per byte sent.
fn message_of(bytes: &[u8]) -> Result<Option<Value>, CallError> {
    use hookbridge_core::decision::json_text::{count_values, MAX_VALUES};
    if count_values(bytes, MAX_VALUES) > MAX_VALUES {
        return Err(CallError::Failed(
            HookFailureKind::TooLarge,
            format!(
                "a message of the server's holds more than {MAX_VALUES} values, past what hookbridge reads"
            ),
        ));
    }
    Ok(serde_json::from_slice(bytes).ok())
}

/// Why a call got no result.
pub(super) enum CallError {
    TimedOut,
    /// Of this kind, said in these words.
    Failed(HookFailureKind, String),
}

/// The `initialize` request hookbridge sends, as request `id`.
fn initialize(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "hookbridge", "version": env!("CARGO_PKG_VERSION")},
    }})
}

/// The notification that ends the handshake.
fn initialized() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
}

/// The `tools/call` request, as request `id`.
fn tools_call(id: u64, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}})
}

/// What one message from the server means to a client waiting for the answer to request `id`.
enum Incoming {
    /// The answer: the result, or the JSON-RPC error as a failure.
    Answer(Result<Value, CallError>),
    /// A request of the server's own: this reply ("method not found") goes back to it.
    Reply(Value),
    /// A notification, or an answer to something else: not ours to read.
    Ignored,
}

fn incoming(message: &Value, id: u64) -> Incoming {
    if let (Some(method), Some(their_id)) = (message.get("method"), message.get("id")) {
        return Incoming::Reply(json!({"jsonrpc": "2.0", "id": their_id, "error": {
            "code": -32601, "message": format!("hookbridge does not offer {method}")}}));
    }
    if message.get("id").and_then(Value::as_u64) != Some(id) {
        return Incoming::Ignored;
    }
    if let Some(error) = message.get("error") {
        let text = error.get("message").and_then(Value::as_str).unwrap_or("an error");
        return Incoming::Answer(Err(CallError::Failed(Refused, format!("JSON-RPC error: {text}"))));
    }
    Incoming::Answer(
        message
            .get("result")
            .cloned()
            .ok_or_else(|| CallError::Failed(Unreadable, "a response without a result".into())),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_are_found_local_then_user_then_project() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("p");
        let home = tmp.path().join("h");
        let plugin = tmp.path().join("plug");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&plugin).unwrap();
        let server = |c: &str| json!({"command": c});
        std::fs::write(
            project.join(".mcp.json"),
            json!({"mcpServers": {"a": server("project-a"), "b": server("project-b"), "d": server("project-d")}})
                .to_string(),
        )
        .unwrap();
        std::fs::write(
            home.join(".claude.json"),
            json!({"mcpServers": {"b": server("user-b"), "c": server("user-c")},
                   "projects": {project.to_string_lossy(): {"mcpServers": {"a": server("local-a")}}}})
            .to_string(),
        )
        .unwrap();
        std::fs::write(
            plugin.join(".mcp.json"),
            json!({"mcpServers": {"s": server("plugin-s")}}).to_string(),
        )
        .unwrap();
        let find = |name: &str| {
            find_server(
                name,
                Some(&project),
                Some(&home),
                Some(("plug".into(), plugin.clone())),
                |_| None,
            )
        };
        let command = |r: Result<(McpServer, Origin), ServerProblem>| match r {
            Ok((McpServer::Stdio { command, .. }, origin)) => (command, origin),
            other => panic!("{other:?}"),
        };
        let found = |command: &str, origin| (command.to_string(), origin);
        assert_eq!(command(find("a")), found("local-a", Origin::User));
        // The user's server wins over the project's of the same name (never the other way).
        assert_eq!(command(find("b")), found("user-b", Origin::User));
        assert_eq!(command(find("c")), found("user-c", Origin::User));
        assert_eq!(command(find("d")), found("project-d", Origin::Project));
        assert_eq!(command(find("plugin:plug:s")), found("plugin-s", Origin::Plugin));
        assert_eq!(
            find("plugin:other:s").unwrap_err(),
            ServerProblem::AnotherPlugins {
                name: "plugin:other:s".into(),
                plugin: "other".into()
            }
        );
        assert!(matches!(
            find("nope").unwrap_err(),
            ServerProblem::NotConfigured { name, .. } if name == "nope"
        ));
    }
}
