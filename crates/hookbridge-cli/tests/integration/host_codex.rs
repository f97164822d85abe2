//! `hookbridge run --host codex`: Codex CLI sends Claude Code's events and payloads (with its own
//! extra fields, such as `turn_id`), so the hooks run as under Claude Code; an answer Codex would
//! ignore whole (one field it does not support for the event) is ignored here too, and the merged
//! answer is given in the form Codex accepts (src/hosts/codex.rs). The rules are measured against
//! the real Codex CLI in tests/hosts/codex/ (part of scripts/test.sh); these tests pin them.

use crate::common;

use common::project::Project;
use serde_json::{json, Value};

fn codex(p: &Project, event: &str, payload: &Value) -> common::Finished {
    // Codex runs a project's hooks only in a project it trusts, and so does hookbridge for it.
    trust_in_codex(p);
    untrusted_in_codex(p, event, payload)
}

fn untrusted_in_codex(p: &Project, event: &str, payload: &Value) -> common::Finished {
    let dir = p.dir.to_string_lossy().into_owned();
    let args = ["run", "--host", "codex", "--event", event, "--project-dir", &dir];
    p.finish(p.hookbridge(args), &serde_json::to_vec(payload).unwrap())
}

/// Marks the project trusted in Codex's own configuration, as Codex's trust prompt does.
fn trust_in_codex(p: &Project) {
    let codex = p.home.join(".codex");
    std::fs::create_dir_all(&codex).unwrap();
    let project = std::fs::canonicalize(&p.dir).unwrap();
    std::fs::write(
        codex.join("config.toml"),
        format!(
            "[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
            project.display()
        ),
    )
    .unwrap();
}

#[test]
fn a_project_codex_does_not_trust_runs_none_of_its_hooks() {
    let p = Project::new(json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo no >&2; exit 2"}]}
    ]}}));
    // Trusted by hookbridge, not by Codex (a user-level registration of hookbridge would
    // otherwise run a cloned repository's hooks where Codex itself runs none).
    let done = untrusted_in_codex(&p, "PreToolUse", &bash(&p, "ls"));
    assert_eq!(done.code, Some(0), "held: {}", done.stderr_str());
    let answer: Value = serde_json::from_slice(&done.stdout).unwrap();
    let told = answer["systemMessage"].as_str().unwrap_or_default();
    assert!(
        told.contains("Codex CLI") && told.contains("does not trust this folder"),
        "{told}"
    );
    let done = codex(&p, "PreToolUse", &bash(&p, "ls"));
    assert_eq!(done.code, Some(2), "trusted by both: {}", done.stderr_str());
}

fn bash(p: &Project, command: &str) -> Value {
    let mut payload = p.payload("PreToolUse");
    payload["tool_input"] = json!({"command": command});
    payload["turn_id"] = json!("turn-7");
    payload
}

#[test]
fn an_answer_codex_would_ignore_is_ignored_and_the_other_hooks_still_count() {
    let p = Project::new(json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command",
        "command": "cat > seen.json; echo '{\"suppressOutput\": true, \"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"ask\", \"permissionDecisionReason\": \"deploys need a human\", \"additionalContext\": \"lost with the ask\"}}'"}]},
        {"matcher": "Bash", "hooks": [{"type": "command",
        "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"additionalContext\": \"kept\"}}'"}]}
    ]}}));
    let done = codex(&p, "PreToolUse", &bash(&p, "deploy"));
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let answer: Value = serde_json::from_slice(&done.stdout).unwrap();
    // Codex ignores the first answer whole, its context too (measured: pre_ask_with_context), and
    // shows the second hook's context (pre_two_hooks_one_denies).
    assert_eq!(
        answer,
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "kept"}})
    );
    assert!(
        p.log_text()
            .contains("Codex ignores this answer (`suppressOutput` is not supported)"),
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
fn a_block_and_another_hooks_context_reach_codex_together() {
    let p = Project::new(json!({"hooks": {"PostToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo 'lint failed' >&2; exit 2"}]},
        {"matcher": "Bash", "hooks": [{"type": "command",
        "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"3 files changed\"}}'"}]}
    ]}}));
    let mut payload = p.payload("PostToolUse");
    payload["tool_input"] = json!({"command": "make"});
    payload["tool_response"] = json!({"stdout": "", "stderr": ""});
    let done = codex(&p, "PostToolUse", &payload);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let answer: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(
        answer,
        json!({"decision": "block", "reason": "lint failed",
               "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "3 files changed"}})
    );
}

#[test]
fn blocks_and_rewrites_reach_codex_in_its_form() {
    let p = Project::new(json!({"hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "grep -q 'rm -rf' && { echo 'no rm' >&2; exit 2; }; exit 0"}]},
            {"matcher": "Write", "hooks": [{"type": "command",
                "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\", \"updatedInput\": {\"file_path\": \"safe.txt\", \"content\": \"x\"}}}'"}]},
            {"matcher": "Edit", "hooks": [{"type": "command",
                "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"updatedInput\": {\"file_path\": \"safe.txt\"}}}'"}]}
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
        json!({"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"file_path": "safe.txt", "content": "x"}})
    );
    // Without `permissionDecision: allow` Codex ignores a rewrite (measured:
    // pre_updated_input_without_decision); Claude Code would apply it.
    let mut edit = p.payload("PreToolUse");
    edit["tool_name"] = json!("Edit");
    edit["tool_input"] = json!({"file_path": "a.txt"});
    let done = codex(&p, "PreToolUse", &edit);
    assert_eq!((done.code, done.stdout_str()), (Some(0), String::new()));
    let done = codex(&p, "Stop", &p.payload("Stop"));
    let answer: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(answer, json!({"decision": "block", "reason": "tests first"}));
}

#[test]
fn several_contexts_reach_codex_as_one_in_the_order_the_hooks_are_configured() {
    let context = |text: &str| {
        format!("echo '{{\"hookSpecificOutput\": {{\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"{text}\"}}}}'")
    };
    let p = Project::new(json!({"hooks": {"PostToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": format!("sleep 0.3; {}", context("first"))}]},
        {"matcher": "Bash", "hooks": [{"type": "command", "command": context("second")}]}
    ]}}));
    let mut payload = p.payload("PostToolUse");
    payload["tool_input"] = json!({"command": "make"});
    payload["tool_response"] = json!({"stdout": "", "stderr": ""});
    let done = codex(&p, "PostToolUse", &payload);
    let answer: Value = serde_json::from_slice(&done.stdout).unwrap();
    // Codex orders them as configured, not as they finished, and shows no labels between them
    // (measured: post_two_contexts, a listed gap only in that Codex shows two messages).
    assert_eq!(
        answer,
        json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "first\n\nsecond"}})
    );
}

/// A failure that blocks (one of the user's own hooks, in a session that restricts personal
/// configuration) still blocks when another hook's answer is one Codex ignores, and the answers
/// are therefore merged again: the facts the merge needs travel with each hook's report.
#[test]
fn a_block_by_a_failing_own_hook_is_kept_when_codex_ignores_another_answer() {
    let p = Project::new(json!({"hooks": {"PreToolUse": [
        // Codex ignores an exit-2 block with nothing on stderr.
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "exit 2"}]}
    ]}}));
    let user = p.home.join(".amplifier/hooks");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(
        user.join("hooks.json"),
        json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": "echo own-hook-broke >&2; exit 1"}
        ]}]}})
        .to_string(),
    )
    .unwrap();
    trust_in_codex(&p);
    let dir = p.dir.to_string_lossy().into_owned();
    let args = [
        "run",
        "--host",
        "codex",
        "--event",
        "PreToolUse",
        "--project-dir",
        &dir,
    ];
    let mut cmd = p.hookbridge(args);
    cmd.env("CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG", "1");
    let done = p.finish(cmd, &serde_json::to_vec(&bash(&p, "ls")).unwrap());
    let said = format!("{}{}", done.stdout_str(), done.stderr_str());
    assert!(
        said.contains("own-hook-broke") && said.contains("must succeed"),
        "the failure is shown as a block: {said}"
    );
    let answer: Value = serde_json::from_slice(&done.stdout).unwrap_or(Value::Null);
    let denied = done.code == Some(2)
        || answer.pointer("/hookSpecificOutput/permissionDecision") == Some(&json!("deny"));
    assert!(denied, "blocked: {:?} {said}", done.code);
}
