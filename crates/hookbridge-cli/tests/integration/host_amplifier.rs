//! `hookbridge run --host amplifier`: an Amplifier kernel event's data in, run through the engine
//! the hook-bridge module uses (hookbridge-amplifier), the `HookResult` out; `--format report` gives
//! everything the module gets. The module's own tests run the same engine inside a real
//! amplifier-core session (python/tests).

use crate::common;

use common::project::Project;
use serde_json::{json, Value};

fn project() -> Project {
    Project::new(json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "cat > pre_payload.json; echo 'no rm here' >&2; exit 2"}
        ]}],
        "PostToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"3 files changed\"}}'"}
        ]}]
    }}))
}

fn amplifier(p: &Project, event: &str, data: &Value, extra: &[&str]) -> common::Finished {
    let dir = p.dir.to_string_lossy().into_owned();
    let mut args = vec![
        "run",
        "--host",
        "amplifier",
        "--event",
        event,
        "--project-dir",
        &dir,
    ];
    args.extend_from_slice(extra);
    p.finish(p.hookbridge(&args), &serde_json::to_vec(data).unwrap())
}

#[test]
fn a_tool_pre_event_is_translated_run_and_answered_as_a_hook_result() {
    let p = project();
    let done = amplifier(
        &p,
        "tool:pre",
        &json!({"tool_name": "bash", "tool_input": {"command": "rm -rf build", "timeout": 5}}),
        &[],
    );
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let result: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(
        (result["action"].as_str(), result["reason"].as_str()),
        (Some("deny"), Some("no rm here"))
    );
    // The hook saw Claude Code's payload: Amplifier's `bash` as `Bash`, seconds as milliseconds.
    let payload: Value = serde_json::from_str(&p.read("pre_payload.json").unwrap()).unwrap();
    assert_eq!(payload["hook_event_name"], "PreToolUse");
    assert_eq!(payload["tool_name"], "Bash");
    assert_eq!(
        payload["tool_input"],
        json!({"command": "rm -rf build", "timeout": 5000})
    );
}

#[test]
fn the_report_holds_what_the_module_gets() {
    let p = project();
    let data = json!({"tool_name": "bash", "tool_input": {"command": "ls"}, "result": {"success": true, "output": "a"}});
    let done = amplifier(&p, "tool:post", &data, &["--format", "report"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let out: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(out["claude_events"], json!(["PostToolUse"]));
    assert_eq!(out["result"]["action"], "inject_context");
    assert_eq!(
        out["result"]["context_injection"],
        "PostToolUse:Bash hook additional context: 3 files changed"
    );
    assert_eq!(out["reports"][0]["hooks"][0]["status"], "exited", "{out}");
    // An event no hook is configured for: the default result, nothing fired.
    let quiet = amplifier(
        &p,
        "prompt:submit",
        &json!({"prompt": "hi"}),
        &["--format", "report"],
    );
    let out: Value = serde_json::from_slice(&quiet.stdout).unwrap();
    assert_eq!(
        (out["claude_events"].clone(), out["result"]["action"].clone()),
        (json!([]), json!("continue"))
    );
}

#[test]
fn an_unknown_event_is_a_usage_error_and_bad_data_runs_nothing() {
    let p = project();
    let done = amplifier(&p, "PreToolUse", &json!({}), &[]);
    assert_eq!(done.code, Some(64));
    assert!(
        done.stderr_str().contains("expected one of: tool:pre"),
        "{}",
        done.stderr_str()
    );
    let done = amplifier(&p, "tool:pre", &json!([1]), &[]);
    assert_eq!(done.code, Some(1), "{}", done.stderr_str());
    assert!(
        done.stderr_str().contains("must be an object"),
        "{}",
        done.stderr_str()
    );
    assert!(p.read("pre_payload.json").is_none(), "no hook ran");
    assert!(p.log_text().contains("event data refused"), "{}", p.log_text());
}
