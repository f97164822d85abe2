//! `hookbridge run --host codex`: Codex CLI sends Claude Code's events and payloads (with its own
//! extra fields, such as `turn_id`), so the hooks run as under Claude Code; the answer is then
//! fitted to what Codex accepts, since Codex refuses a whole answer over one field it does not
//! support for the event (src/hosts/codex.rs; read from Codex's source, not measured).

mod common;

use common::project::Project;
use serde_json::{json, Value};

fn codex(p: &Project, event: &str, payload: &Value) -> common::Finished {
    let dir = p.dir.to_string_lossy().into_owned();
    let args = ["run", "--host", "codex", "--event", event, "--project-dir", &dir];
    p.finish(p.hookbridge(&args), &serde_json::to_vec(payload).unwrap())
}

fn bash(p: &Project, command: &str) -> Value {
    let mut payload = p.payload("PreToolUse");
    payload["tool_input"] = json!({"command": command});
    payload["turn_id"] = json!("turn-7");
    payload
}

#[test]
fn an_ask_is_a_deny_for_codex_and_fields_codex_refuses_are_left_out() {
    let p = Project::new(
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
        "command": "cat > seen.json; echo '{\"suppressOutput\": true, \"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"ask\", \"permissionDecisionReason\": \"deploys need a human\"}}'"}]}]}}),
    );
    let done = codex(&p, "PreToolUse", &bash(&p, "deploy"));
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let answer: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(
        answer,
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
            "permissionDecisionReason": "deploys need a human (approval was asked for; Codex hooks cannot ask, so the call is denied)"}})
    );
    assert!(
        p.log_text()
            .contains("for Codex: PreToolUse: `ask` answered as a deny"),
        "{}",
        p.log_text()
    );
    assert!(
        p.log_text().contains("`suppressOutput` left out"),
        "{}",
        p.log_text()
    );
    // The hook saw the payload as Codex sent it, Codex's own fields included.
    let seen: Value = serde_json::from_str(&p.read("seen.json").unwrap()).unwrap();
    assert_eq!(
        (seen["tool_name"].as_str(), seen["turn_id"].as_str()),
        (Some("Bash"), Some("turn-7"))
    );
    // The same hooks under Claude Code keep Claude Code's answer.
    let claude = p.run("PreToolUse", "claude", &bash(&p, "deploy"));
    let answer: Value = serde_json::from_slice(&claude.stdout).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "ask");
}

#[test]
fn blocks_and_rewrites_reach_codex_in_its_form() {
    let p = Project::new(json!({"hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "grep -q 'rm -rf' && { echo 'no rm' >&2; exit 2; }; exit 0"}]},
            {"matcher": "Write", "hooks": [{"type": "command",
                "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"updatedInput\": {\"file_path\": \"safe.txt\", \"content\": \"x\"}}}'"}]}
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "echo '{\"decision\": \"block\", \"reason\": \"tests first\"}'"}]}]
    }}));
    let done = codex(&p, "PreToolUse", &bash(&p, "rm -rf build"));
    assert_eq!((done.code, done.stderr_str()), (Some(2), "no rm\n".to_string()));
    let mut write = p.payload("PreToolUse");
    write["tool_name"] = json!("Write");
    write["tool_input"] = json!({"file_path": "a.txt", "content": "x"});
    let done = codex(&p, "PreToolUse", &write);
    let answer: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"],
        json!({"hookEventName": "PreToolUse", "updatedInput": {"file_path": "safe.txt", "content": "x"}, "permissionDecision": "allow"})
    );
    let done = codex(&p, "Stop", &p.payload("Stop"));
    let answer: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(answer, json!({"decision": "block", "reason": "tests first"}));
}
