//! `CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG`: in a session that sets it, a failure of one of the
//! user's own hooks (`~/.amplifier/hooks`) blocks where Claude Code 2.1.328 blocks it (cases 326
//! and 328: PreToolUse and UserPromptSubmit; PostToolUse, the project's hooks and async hooks
//! stay non-blocking), with Claude Code's words, whatever the hook's `onFailure` says.

use crate::common;

use common::project::Project;
use serde_json::{json, Value};

const MUST: &str = "blocking because it is one of the user's own hooks, which must succeed in this session (CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG is set). The user needs to fix or remove the hook; Claude should not change it.";

/// A project whose user (its HOME) has `user_hooks` and the project `project_hooks`.
fn project(user_hooks: Value, project_hooks: Value) -> Project {
    let p = Project::new(project_hooks);
    let dir = p.home.join(".amplifier/hooks");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("hooks.json"), user_hooks.to_string()).unwrap();
    p
}

/// What the run told Claude Code: its stderr, and the reason of a JSON answer, decoded.
fn told(done: &common::Finished) -> String {
    let answer: Value = serde_json::from_str(&done.stdout_str()).unwrap_or(Value::Null);
    let reason = answer
        .pointer("/hookSpecificOutput/permissionDecisionReason")
        .or(answer.get("reason"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    format!("{}{reason}", done.stderr_str())
}

fn run(p: &Project, event: &str, restricted: Option<&str>) -> common::Finished {
    let mut cmd = p.command(event, "claude");
    if let Some(value) = restricted {
        cmd.env("CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG", value);
    }
    let payload = p.payload(event);
    p.finish(cmd, serde_json::to_vec(&payload).unwrap().as_slice())
}

#[test]
fn a_failing_user_hook_blocks_pre_tool_use_and_prompts_only_when_the_session_restricts_it() {
    let failing = json!([{"hooks": [{"type": "command", "command": "echo own-hook-broke >&2; exit 1"}]}]);
    let p = project(
        json!({"hooks": {"PreToolUse": failing, "UserPromptSubmit": failing, "PostToolUse": failing}}),
        json!({}),
    );
    for event in ["PreToolUse", "UserPromptSubmit"] {
        // Not restricted (unset, or a word Claude Code reads as off): a non-blocking error.
        for restricted in [None, Some("0"), Some("no")] {
            let done = run(&p, event, restricted);
            assert_eq!(
                done.code,
                Some(1),
                "{event} {restricted:?}: {}",
                done.stderr_str()
            );
            assert!(!done.stderr_str().contains(MUST), "{}", done.stderr_str());
        }
        for restricted in ["1", "true", " YES ", "on"] {
            let done = run(&p, event, Some(restricted));
            let shown = told(&done);
            assert!(
                shown.contains(&format!(
                    "[echo own-hook-broke >&2; exit 1]: failed; {MUST}\nown-hook-broke"
                )),
                "{event} {restricted:?}: {shown}"
            );
            let blocked = done.code == Some(2)
                || serde_json::from_str::<Value>(&done.stdout_str()).is_ok_and(|v| {
                    v.pointer("/hookSpecificOutput/permissionDecision") == Some(&json!("deny"))
                        || v["decision"] == "block"
                });
            assert!(blocked, "{event}: {:?} {shown}", done.code);
        }
    }
    // PostToolUse is not among the events where the rule holds (case 326).
    let done = run(&p, "PostToolUse", Some("1"));
    assert_eq!(done.code, Some(1), "{}", done.stderr_str());
    assert!(!done.stderr_str().contains(MUST), "{}", done.stderr_str());
}

#[test]
fn a_user_hook_that_times_out_blocks_even_with_on_failure_continue() {
    let p = project(
        json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": "sleep 30", "timeout": 1, "onFailure": "continue"},
        ]}]}}),
        json!({}),
    );
    let done = run(&p, "PreToolUse", Some("1"));
    let shown = told(&done);
    assert!(
        shown.contains(&format!("[sleep 30]: timed out; {MUST}")),
        "{shown}"
    );
}

#[test]
fn the_projects_hooks_and_the_users_async_hooks_stay_non_blocking() {
    let p = project(
        json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": "exit 1", "async": true},
        ]}]}}),
        json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": "echo project-broke >&2; exit 1"},
        ]}]}}),
    );
    let done = run(&p, "PreToolUse", Some("1"));
    assert_ne!(done.code, Some(2), "{}", done.stderr_str());
    assert!(!done.stderr_str().contains(MUST), "{}", done.stderr_str());
    assert!(
        done.stderr_str().contains("project-broke"),
        "{}",
        done.stderr_str()
    );
}
