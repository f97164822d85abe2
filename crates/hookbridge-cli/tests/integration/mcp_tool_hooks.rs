//! `mcp_tool` hooks through `hookbridge run`, against a stdio MCP server and a streamable-HTTP one,
//! both written here in Python:
//! the call hookbridge makes (initialize, then tools/call with the `${path}`-filled input), the tool's
//! text read like stdout, every way the call can fail reported as a non-blocking error, a server
//! that asks the client something on the way, a server that hangs, and no server left running.

use crate::common;

use std::time::Duration;

use common::project::{on, Project};
use serde_json::{json, Value};

/// The server: `check` denies commands with `rm` in them; `ask_first` makes a request of the client
/// (roots/list) before answering; `broken` answers isError; `big_deny` denies with a 5 MiB reason;
/// `endless_line` writes one line that never ends; `hang` starts a child in a session of its own
/// (its pid in `mcp_child.pid`) and never answers; `crash` exits.
/// It writes its pid to `mcp.pid` and every call to `mcp_calls.jsonl`.
const SERVER: &str = r#"
import json, os, sys, time
open("mcp.pid", "w").write(str(os.getpid()))
def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()
print("a log line that is not JSON-RPC", flush=True)
pending = None
for line in sys.stdin:
    msg = json.loads(line)
    mid, method = msg.get("id"), msg.get("method")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {"protocolVersion": msg["params"]["protocolVersion"],
              "capabilities": {"tools": {}}, "serverInfo": {"name": "t", "version": "1"}}})
    elif method == "notifications/initialized":
        with open("mcp_calls.jsonl", "a") as f:
            f.write(json.dumps({"initialized": True}) + "\n")
    elif method == "tools/call":
        params = msg["params"]
        with open("mcp_calls.jsonl", "a") as f:
            f.write(json.dumps(params, sort_keys=True) + "\n")
        name, args = params["name"], params.get("arguments", {})
        if name == "check":
            out = {}
            if "rm" in args.get("command", ""):
                out = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                       "permissionDecisionReason": "MCP says no: " + args["command"]}}
            send({"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text", "text": json.dumps(out)}]}})
        elif name == "ask_first":
            pending = mid
            send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}})
            send({"jsonrpc": "2.0", "id": "s1", "method": "roots/list"})
        elif name == "broken":
            send({"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text", "text": "TOOL-BROKE"}], "isError": True}})
        elif name == "big_deny":
            out = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                   "permissionDecisionReason": "BIG-NO" + "x" * (5 << 20)}}
            send({"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text", "text": json.dumps(out)}]}})
        elif name == "endless_line":
            chunk = "y" * (1 << 20)
            while True:
                sys.stdout.write(chunk)
        elif name == "hang":
            import subprocess
            child = subprocess.Popen(["sleep", "60"], start_new_session=True, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            open("mcp_child.pid", "w").write(str(child.pid))
            time.sleep(60)
        elif name == "crash":
            sys.exit(3)
        else:
            send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32602, "message": "unknown tool " + name}})
    elif msg.get("id") == "s1":
        with open("mcp_calls.jsonl", "a") as f:
            f.write(json.dumps({"client_answered": msg}) + "\n")
        send({"jsonrpc": "2.0", "id": pending, "result": {"content": [
            {"type": "text", "text": "plain text"}, {"type": "image", "data": ""}, {"type": "text", "text": "from MCP"}]}})
"#;

fn project(hooks: Value) -> Project {
    let p = Project::new(hooks);
    p.file("mcp_server.py", SERVER);
    let python3 = common::require_program("python3");
    p.file(
        ".mcp.json",
        &json!({"mcpServers": {"guard": {"command": python3, "args": ["mcp_server.py"], "env": {"GUARD_MODE": "${MODE:-strict}"}}}})
            .to_string(),
    );
    p
}

fn mcp_hook(tool: &str) -> Value {
    json!([{"type": "mcp_tool", "server": "guard", "tool": tool, "input": {"command": "${tool_input.command}", "n": 1}}])
}

fn bash(p: &Project, command: &str) -> Value {
    let mut payload = p.payload("PreToolUse");
    payload["tool_input"] = json!({"command": command});
    payload
}

/// The lines of a JSON-lines file the servers write.
fn jsonl(p: &Project, name: &str) -> Vec<Value> {
    p.read(name)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn calls(p: &Project) -> Vec<Value> {
    jsonl(p, "mcp_calls.jsonl")
}

/// The server's process, once it wrote its pid, is gone (its group was killed).
fn assert_server_gone(p: &Project) {
    let pid: u32 = p
        .read("mcp.pid")
        .expect("the server started")
        .trim()
        .parse()
        .unwrap();
    assert!(
        common::wait_until(Duration::from_secs(10), || !common::pid_alive(pid)),
        "the MCP server {pid} is still running"
    );
}

#[test]
fn the_tools_json_answer_denies_and_its_input_is_filled_from_the_hook_input() {
    let p = project(on("PreToolUse", mcp_hook("check")));
    let done = p.run("PreToolUse", "claude", &bash(&p, "rm -rf /"));
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let answer: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecisionReason"],
        "MCP says no: rm -rf /"
    );
    assert_eq!(
        calls(&p),
        [
            json!({"initialized": true}),
            json!({"arguments": {"command": "rm -rf /", "n": 1}, "name": "check"})
        ]
    );
    assert_server_gone(&p);
    // An empty answer lets the call through.
    let done = p.run("PreToolUse", "claude", &bash(&p, "ls"));
    assert_eq!((done.code, done.stdout_str()), (Some(0), String::new()));
}

/// A server that tries what a sandbox keeps from it when it starts — write the home folder, read
/// a key, see the environment's secret and one its configuration names — and says which it could
/// in its deny.
const PROBING_SERVER: &str = r#"
import json, os, sys
home = os.environ["HOME"]
def can(f):
    try:
        f()
        return "ok"
    except Exception:
        return "denied"
def write_home():
    open(os.path.join(home, "written-by-server"), "w").write("x")
def read_key():
    open(os.path.join(home, ".ssh", "id_ed25519")).read()
def env(name):
    if not os.environ.get(name):
        raise KeyError(name)
said = "write-home %s, read-key %s, env-key %s, configured-secret %s" % (
    can(write_home), can(read_key), can(lambda: env("ANTHROPIC_API_KEY")), can(lambda: env("HANDED")))
for line in sys.stdin:
    msg = json.loads(line)
    mid, method = msg.get("id"), msg.get("method")
    if method == "initialize":
        r = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
             "serverInfo": {"name": "p", "version": "1"}}
    elif method == "tools/call":
        r = {"content": [{"type": "text", "text": json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
             "permissionDecision": "deny", "permissionDecisionReason": said}})}]}
    else:
        continue
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": mid, "result": r}) + "\n")
    sys.stdout.flush()
"#;

/// Where the user's floor sandboxes the project's hooks (`sandboxHooks: project`, as `trust
/// --sandboxed` does), the project's MCP server runs in the default sandbox too: it is code the
/// project supplies. Without the floor the same server reaches all of it (the control).
#[test]
fn a_projects_stdio_server_runs_sandboxed_where_the_projects_hooks_do() {
    let p = Project::new(on("PreToolUse", mcp_hook("check")));
    p.file("probe.py", PROBING_SERVER);
    let python3 = common::require_program("python3");
    p.file(
        ".mcp.json",
        &json!({"mcpServers": {"guard": {"command": python3, "args": ["probe.py"], "env": {"HANDED": "${SECRET_TOKEN}"}}}})
            .to_string(),
    );
    std::fs::create_dir_all(p.home.join(".ssh")).unwrap();
    std::fs::write(p.home.join(".ssh/id_ed25519"), "KEY").unwrap();
    let reason = |p: &Project| {
        let mut cmd = p.command("PreToolUse", "claude");
        cmd.env("ANTHROPIC_API_KEY", "sk-ant-x")
            .env("SECRET_TOKEN", "t0k");
        let done = p.finish(cmd, &bash(p, "ls"));
        let answer: Value = serde_json::from_slice(&done.stdout).unwrap_or(Value::Null);
        answer["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| format!("no deny: {} / {}", done.stdout_str(), p.log_text()))
    };
    assert_eq!(
        reason(&p),
        "write-home ok, read-key ok, env-key ok, configured-secret ok"
    );
    let user = p.home.join(".amplifier/hooks");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(
        user.join("hooks.json"),
        r#"{"sandboxHooks": "project", "hooks": {}}"#,
    )
    .unwrap();
    assert_eq!(
        reason(&p),
        "write-home denied, read-key denied, env-key denied, configured-secret denied"
    );
}

#[test]
fn a_deny_larger_than_the_output_cap_still_denies() {
    let p = project(on("PreToolUse", mcp_hook("big_deny")));
    let done = p.run("PreToolUse", "claude", &bash(&p, "ls"));
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let answer: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
    let reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert_eq!(reason.len(), 6 + (5 << 20));
    assert_server_gone(&p);
}

#[test]
fn a_message_that_never_ends_is_abandoned_at_its_bound_not_read_until_memory_runs_out() {
    let mut hooks = mcp_hook("endless_line");
    hooks[0]["timeout"] = json!(120);
    hooks[0]["onFailure"] = json!("block");
    let p = project(on("PreToolUse", hooks));
    let done = p.run("PreToolUse", "report", &bash(&p, "ls"));
    let report: Value = serde_json::from_slice(&done.stdout).unwrap();
    let hook = &report["hooks"][0];
    assert_eq!(hook["status"], "failed", "{hook}");
    assert!(
        hook["detail"].as_str().unwrap_or("").contains("longer than"),
        "{hook}"
    );
    assert_eq!(report["answer"]["exit_code"], 0, "{report}");
    let done = p.run("PreToolUse", "claude", &bash(&p, "ls"));
    let answer: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "onFailure: block"
    );
    assert_server_gone(&p);
}

#[test]
fn a_server_that_asks_the_client_first_is_answered_and_its_text_is_plain_output() {
    let p = project(on("PreToolUse", mcp_hook("ask_first")));
    let report = p.report(p.command("PreToolUse", "report"), &bash(&p, "ls"));
    let hook = &report["hooks"][0];
    assert_eq!(hook["status"], "answered", "{report}");
    assert_eq!(hook["stdout"], "plain text\nfrom MCP");
    let answered = calls(&p)
        .into_iter()
        .find_map(|c| c.get("client_answered").cloned())
        .unwrap();
    assert_eq!(answered["error"]["code"], -32601, "{answered}");
    assert_server_gone(&p);
}

#[test]
fn every_failure_is_a_non_blocking_error_that_says_what_happened() {
    for (tool, expect) in [
        ("broken", "returned an error: TOOL-BROKE"),
        ("crash", "exited before it answered"),
        ("nonexistent", "JSON-RPC error: unknown tool nonexistent"),
    ] {
        let p = project(on("PreToolUse", mcp_hook(tool)));
        let done = p.run("PreToolUse", "claude", &bash(&p, "ls"));
        assert_eq!(done.code, Some(1), "{tool}: {}", done.stdout_str());
        assert!(
            done.stderr_str().contains(expect),
            "{tool}: {}",
            done.stderr_str()
        );
        assert!(p.log_text().contains(expect), "{tool}: {}", p.log_text());
    }
    // A server configured nowhere: the run says so, and so does validate, before any agent runs.
    let p = project(on(
        "PreToolUse",
        json!([{"type": "mcp_tool", "server": "nowhere", "tool": "t"}]),
    ));
    let done = p.run("PreToolUse", "claude", &bash(&p, "ls"));
    assert_eq!(done.code, Some(1));
    assert!(
        done.stderr_str().contains("no MCP server `nowhere`"),
        "{}",
        done.stderr_str()
    );
    let validate = p.finish(p.hookbridge(["validate"]), b"");
    assert_eq!(validate.code, Some(1));
    assert!(
        validate.stderr_str().contains("no MCP server `nowhere`"),
        "{}",
        validate.stderr_str()
    );
    // onFailure: block turns a failure into a block.
    let p = project(on(
        "PreToolUse",
        json!([{"type": "mcp_tool", "server": "guard", "tool": "broken", "onFailure": "block"}]),
    ));
    let done = p.run("PreToolUse", "claude", &bash(&p, "ls"));
    let answer: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{answer}"
    );
}

#[test]
fn a_server_that_hangs_times_out_and_is_killed() {
    let p = project(on(
        "PreToolUse",
        json!([{"type": "mcp_tool", "server": "guard", "tool": "hang", "timeout": 1}]),
    ));
    let report = p.report(p.command("PreToolUse", "report"), &bash(&p, "ls"));
    assert_eq!(report["hooks"][0]["status"], "timed_out", "{report}");
    assert_server_gone(&p);
    // Its child in a session of its own is found by parentage and killed with it, as a command
    // hook's is (red-team pass 3: only the server's group was).
    let child: u32 = p.read("mcp_child.pid").unwrap().trim().parse().unwrap();
    assert!(
        common::wait_until(Duration::from_secs(10), || !common::pid_alive(child)),
        "the server's setsid child {child} is still running"
    );
}

/// A streamable-HTTP MCP server (protocol 2025-06-18) on loopback: `initialize` answered in JSON
/// with a session id; `check` answers in JSON; `check_sse` in an event stream that carries a
/// notification first and stays open after the answer; `ask_first` asks the client `roots/list` in
/// the stream and answers once the client's reply has been POSTed; `broken` is isError; `hang`
/// opens a stream and says nothing; `status500` fails. Every request without `Authorization:
/// Bearer t0k` is refused (401). It writes its port to `http_port` and what it saw, headers
/// included, to `http_calls.jsonl`.
const HTTP_SERVER: &str = r#"
import json, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
lock, replied = threading.Lock(), threading.Event()
def record(entry):
    with lock, open("http_calls.jsonl", "a") as f:
        f.write(json.dumps(entry, sort_keys=True) + "\n")
class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args):
        pass
    def send(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def json(self, msg, headers=()):
        self.send(200, json.dumps(msg).encode(), [("Content-Type", "application/json")] + list(headers))
    def event(self, msg):
        self.wfile.write(("data: " + json.dumps(msg) + "\n\n").encode())
        self.wfile.flush()
    def stream(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
    def do_DELETE(self):
        record({"deleted": self.headers.get("mcp-session-id")})
        self.send(200)
    def do_POST(self):
        msg = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.headers.get("Authorization") != "Bearer t0k":
            return self.send(401)
        mid, method = msg.get("id"), msg.get("method")
        seen = {"method": method, "session": self.headers.get("mcp-session-id"),
                "protocol": self.headers.get("mcp-protocol-version"), "accept": self.headers.get("accept")}
        if method == "initialize":
            record(seen)
            return self.json({"jsonrpc": "2.0", "id": mid, "result": {"protocolVersion": msg["params"]["protocolVersion"],
                              "capabilities": {"tools": {}}, "serverInfo": {"name": "h", "version": "1"}}},
                             [("Mcp-Session-Id", "sess-1")])
        if method is None:
            record({"client_answered": msg, "session": seen["session"]})
            replied.set()
            return self.send(202)
        if method == "notifications/initialized":
            record(seen)
            return self.send(202)
        params = msg["params"]
        seen["params"] = params
        record(seen)
        name, args = params["name"], params.get("arguments", {})
        text = lambda t: {"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text", "text": t}]}}
        deny = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                           "permissionDecisionReason": "HTTP MCP says no: " + args.get("command", "")}})
        if name == "check":
            return self.json(text(deny))
        if name == "check_sse":
            self.stream()
            self.event({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}})
            self.event(text(deny))
            time.sleep(30)
            return
        if name == "ask_first":
            self.stream()
            self.event({"jsonrpc": "2.0", "id": "s1", "method": "roots/list"})
            replied.wait(20)
            return self.event(text("asked, then answered"))
        if name == "broken":
            return self.json({"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text", "text": "HTTP-TOOL-BROKE"}], "isError": True}})
        if name == "hang":
            self.stream()
            time.sleep(60)
            return
        if name == "status500":
            return self.send(500, b"no")
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
open("http_port.tmp", "w").write(str(server.server_address[1]))
import os; os.rename("http_port.tmp", "http_port")
server.serve_forever()
"#;

/// The HTTP server, stopped when dropped.
struct HttpServer(std::process::Child);

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A project whose `.mcp.json` names the HTTP server (`web`, with its token from `${MCP_TOKEN}`)
/// and an old-style SSE server (`old`); the server started.
fn http_project(hooks: Value) -> (Project, HttpServer) {
    let p = Project::new(hooks);
    p.file("http_server.py", HTTP_SERVER);
    let server = std::process::Command::new(common::require_program("python3"))
        .arg("http_server.py")
        .current_dir(&p.dir)
        .spawn()
        .unwrap();
    let server = HttpServer(server);
    assert!(
        common::wait_until(Duration::from_secs(20), || p.read("http_port").is_some()),
        "the HTTP MCP server did not start"
    );
    let port = p.read("http_port").unwrap();
    p.file(
        ".mcp.json",
        &json!({"mcpServers": {
            "web": {"type": "http", "url": format!("http://127.0.0.1:{port}/mcp"),
                    "headers": {"Authorization": "Bearer ${MCP_TOKEN}"}},
            "old": {"type": "sse", "url": format!("http://127.0.0.1:{port}/sse")}
        }})
        .to_string(),
    );
    (p, server)
}

fn http_hook(tool: &str, timeout: u64) -> Value {
    json!([{"type": "mcp_tool", "server": "web", "tool": tool, "timeout": timeout,
            "input": {"command": "${tool_input.command}"}}])
}

/// `hookbridge run` with the token the server's headers expand.
fn run_with_token(p: &Project, format: &str, payload: &Value) -> common::Finished {
    let mut cmd = p.command("PreToolUse", format);
    cmd.env("MCP_TOKEN", "t0k");
    p.finish(cmd, &serde_json::to_vec(payload).unwrap())
}

fn http_calls(p: &Project) -> Vec<Value> {
    jsonl(p, "http_calls.jsonl")
}

#[test]
fn a_streamable_http_server_answers_in_json_within_a_session_with_its_headers() {
    let (p, _server) = http_project(on("PreToolUse", http_hook("check", 20)));
    let done = run_with_token(&p, "claude", &bash(&p, "rm -rf /"));
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let answer: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecisionReason"],
        "HTTP MCP says no: rm -rf /"
    );
    let accept = "application/json, text/event-stream";
    assert_eq!(
        http_calls(&p),
        [
            json!({"method": "initialize", "session": null, "protocol": null, "accept": accept}),
            json!({"method": "notifications/initialized", "session": "sess-1", "protocol": "2025-06-18", "accept": accept}),
            json!({"method": "tools/call", "session": "sess-1", "protocol": "2025-06-18", "accept": accept,
                   "params": {"name": "check", "arguments": {"command": "rm -rf /"}}}),
            json!({"deleted": "sess-1"}),
        ]
    );
}

#[test]
fn an_event_stream_answer_is_read_without_waiting_for_the_stream_to_end() {
    let (p, _server) = http_project(on("PreToolUse", http_hook("check_sse", 20)));
    let report = p.report(
        {
            let mut cmd = p.command("PreToolUse", "report");
            cmd.env("MCP_TOKEN", "t0k");
            cmd
        },
        &bash(&p, "rm -rf /"),
    );
    // The server keeps the stream open for 30 s after the answer; the hook's timeout is 20 s.
    assert_eq!(report["hooks"][0]["status"], "answered", "{report}");
    assert!(
        report["answer"]["stdout"]
            .as_str()
            .unwrap()
            .contains("HTTP MCP says no: rm -rf /"),
        "{report}"
    );
}

#[test]
fn a_server_request_in_the_stream_is_answered_by_a_post_in_the_session() {
    let (p, _server) = http_project(on("PreToolUse", http_hook("ask_first", 20)));
    let done = run_with_token(&p, "report", &bash(&p, "ls"));
    let report: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(report["hooks"][0]["stdout"], "asked, then answered", "{report}");
    let answered = http_calls(&p)
        .into_iter()
        .find(|c| c.get("client_answered").is_some())
        .unwrap();
    assert_eq!(answered["client_answered"]["id"], "s1");
    assert_eq!(answered["client_answered"]["error"]["code"], -32601);
    assert_eq!(answered["session"], "sess-1");
}

#[test]
fn http_failures_are_non_blocking_errors_and_a_silent_stream_times_out() {
    for (tool, token, expect) in [
        ("broken", "t0k", "returned an error: HTTP-TOOL-BROKE"),
        ("status500", "t0k", "HTTP 500"),
        ("check", "wrong", "HTTP 401"),
    ] {
        let (p, _server) = http_project(on("PreToolUse", http_hook(tool, 20)));
        let mut cmd = p.command("PreToolUse", "claude");
        cmd.env("MCP_TOKEN", token);
        let done = p.finish(cmd, &serde_json::to_vec(&bash(&p, "ls")).unwrap());
        assert_eq!(done.code, Some(1), "{tool}: {}", done.stdout_str());
        assert!(
            done.stderr_str().contains(expect),
            "{tool}: {}",
            done.stderr_str()
        );
    }
    let (p, server) = http_project(on("PreToolUse", http_hook("hang", 1)));
    let report: Value =
        serde_json::from_slice(&run_with_token(&p, "report", &bash(&p, "ls")).stdout).unwrap();
    assert_eq!(report["hooks"][0]["status"], "timed_out", "{report}");
    // Nobody listening: unreachable, said so.
    drop(server);
    let done = run_with_token(&p, "claude", &bash(&p, "ls"));
    assert_eq!(done.code, Some(1));
    assert!(
        done.stderr_str().contains("could not reach the server"),
        "{}",
        done.stderr_str()
    );
}

#[test]
fn validate_accepts_an_http_server_and_names_the_transport_it_does_not_speak() {
    let hooks = on(
        "PreToolUse",
        json!([
            {"type": "mcp_tool", "server": "web", "tool": "check"},
            {"type": "mcp_tool", "server": "old", "tool": "check"}
        ]),
    );
    let (p, _server) = http_project(hooks);
    let done = p.finish(p.hookbridge(["validate", "--format", "short"]), b"");
    let stderr = done.stderr_str();
    assert_eq!(done.code, Some(1), "{stderr}");
    assert!(
        stderr.contains("MCP server `old` uses the `sse` transport"),
        "{stderr}"
    );
    assert!(!stderr.contains("`web`"), "{stderr}");
}

/// A project's server over HTTP is held to the user's http policy, as an http hook is (a hook's
/// input is posted to it; red-team pass 3): a URL `allowedHttpHookUrls` does not allow is never
/// called, and `httpHookAllowedEnvVars` says which variables its headers may read.
#[test]
fn a_projects_http_server_is_held_to_the_users_http_policy() {
    let (p, _server) = http_project(on("PreToolUse", http_hook("check", 20)));
    let user = p.home.join(".amplifier/hooks");
    std::fs::create_dir_all(&user).unwrap();
    let policy = |limits: Value| {
        let mut file = limits;
        file["hooks"] = json!({});
        std::fs::write(user.join("hooks.json"), file.to_string()).unwrap();
    };
    let reason = |p: &Project| -> String {
        let done = run_with_token(p, "claude", &bash(p, "rm -rf /"));
        let answer: Value = serde_json::from_slice(&done.stdout).unwrap_or(Value::Null);
        answer["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };

    policy(json!({"allowedHttpHookUrls": ["https://hooks.example.com/*"]}));
    assert_eq!(reason(&p), "");
    assert!(
        http_calls(&p).is_empty(),
        "the server was called: {:?}",
        http_calls(&p)
    );
    assert!(
        p.log_text()
            .contains("does not match any pattern in allowedHttpHookUrls"),
        "{}",
        p.log_text()
    );

    // Allowed, but its header may not read MCP_TOKEN: the server refuses the empty bearer.
    policy(json!({"allowedHttpHookUrls": ["http://127.0.0.1:*"], "httpHookAllowedEnvVars": []}));
    assert_eq!(reason(&p), "");
    policy(json!({"allowedHttpHookUrls": ["http://127.0.0.1:*"], "httpHookAllowedEnvVars": ["MCP_TOKEN"]}));
    assert_eq!(reason(&p), "HTTP MCP says no: rm -rf /");
}
