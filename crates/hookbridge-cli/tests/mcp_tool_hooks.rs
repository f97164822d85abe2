//! `mcp_tool` hooks through `hookbridge run`, against a stdio MCP server written here in Python:
//! the call hookbridge makes (initialize, then tools/call with the `${path}`-filled input), the tool's
//! text read like stdout, every way the call can fail reported as a non-blocking error, a server
//! that asks the client something on the way, a server that hangs, and no server left running.

mod common;

use std::time::Duration;

use common::project::{on, Project};
use serde_json::{json, Value};

/// The server: `check` denies commands with `rm` in them; `ask_first` makes a request of the client
/// (roots/list) before answering; `broken` answers isError; `hang` never answers; `crash` exits.
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
        elif name == "hang":
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

fn calls(p: &Project) -> Vec<Value> {
    p.read("mcp_calls.jsonl")
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
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
    let validate = p.finish(p.hookbridge(&["validate"]), b"");
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
}
