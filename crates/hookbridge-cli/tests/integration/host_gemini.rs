//! `hookbridge run --host gemini`: Gemini CLI's event and payload in (its event names, its tool
//! names), the project's Claude Code hooks run on Claude Code's payload, the answer as one JSON
//! object Gemini CLI reads (`decision`, `reason`, `hookSpecificOutput.tool_input` /
//! `additionalContext`, `systemMessage`, `continue`). Built from Gemini CLI's source
//! (src/hosts/gemini.rs), not measured.

use crate::common;

use common::project::Project;
use serde_json::{json, Value};

fn project() -> Project {
    Project::new(json!({"hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command",
                "command": "cat > pre.json; grep -q 'rm -rf' pre.json && { echo 'no rm here' >&2; exit 2; }; exit 0"}]},
            {"matcher": "Write", "hooks": [{"type": "command",
                "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"ask\", \"permissionDecisionReason\": \"sure?\", \"updatedInput\": {\"file_path\": \"b.txt\", \"content\": \"B\"}}}'"}]}
        ],
        "PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "command",
            "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"formatted\"}, \"systemMessage\": \"fmt ran\"}'"}]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo 'Ticket LOGIN-42 is relevant'"}]}],
        "Stop": [{"hooks": [{"type": "command",
            "command": "cat > stop.json; echo '{\"decision\": \"block\", \"reason\": \"run the tests first\"}'"}]}],
        "SessionEnd": [{"hooks": [{"type": "command", "command": "echo '{\"continue\": false, \"stopReason\": \"bye\"}'"}]}]
    }}))
}

fn gemini(p: &Project, event: &str, payload: &Value) -> common::Finished {
    let dir = p.dir.to_string_lossy().into_owned();
    let args = ["run", "--host", "gemini", "--event", event, "--project-dir", &dir];
    p.finish(p.hookbridge(args), &serde_json::to_vec(payload).unwrap())
}

#[test]
fn a_folder_gemini_does_not_trust_runs_none_of_the_projects_hooks() {
    let p = Project::new(json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo no >&2; exit 2"}]}
    ]}}));
    let gemini_dir = p.home.join(".gemini");
    std::fs::create_dir_all(&gemini_dir).unwrap();
    // Folder trust on (a comment, as Gemini CLI's settings allow), and no rule for this folder.
    std::fs::write(
        gemini_dir.join("settings.json"),
        "{\"security\": {\"folderTrust\": {\"enabled\": true}}} // on",
    )
    .unwrap();
    let payload = json!({"session_id": "s", "hook_event_name": "BeforeTool", "tool_name": "run_shell_command",
        "tool_input": {"command": "ls"}, "cwd": p.dir});
    let done = gemini(&p, "BeforeTool", &payload);
    assert_eq!(
        done.code,
        Some(0),
        "held: {} {}",
        done.stdout_str(),
        done.stderr_str()
    );
    assert!(
        done.stdout_str().contains("Gemini CLI") && done.stdout_str().contains("no rule of"),
        "{}",
        done.stdout_str()
    );
    // DO_NOT_TRUST on a parent with TRUST_FOLDER on the folder: the longer rule wins.
    let parent = std::fs::canonicalize(&p.dir)
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    let project = std::fs::canonicalize(&p.dir).unwrap();
    std::fs::write(
        gemini_dir.join("trustedFolders.json"),
        json!({parent.to_string_lossy(): "DO_NOT_TRUST", project.to_string_lossy(): "TRUST_FOLDER"})
            .to_string(),
    )
    .unwrap();
    let done = gemini(&p, "BeforeTool", &payload);
    assert!(
        done.stdout_str().contains("\"decision\":\"deny\""),
        "trusted by both: {}",
        done.stdout_str()
    );
    std::fs::write(
        gemini_dir.join("trustedFolders.json"),
        json!({project.to_string_lossy(): "DO_NOT_TRUST"}).to_string(),
    )
    .unwrap();
    let done = gemini(&p, "BeforeTool", &payload);
    // Held again (the user was told once already this session).
    assert!(!done.stdout_str().contains("deny"), "{}", done.stdout_str());
    assert!(p.log_text().contains("says DO_NOT_TRUST"), "{}", p.log_text());
}

/// Exit 0 and the JSON answer on stdout (`Null` when there is none).
fn answer(done: &common::Finished) -> Value {
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    if done.stdout.is_empty() {
        return Value::Null;
    }
    serde_json::from_slice(&done.stdout).unwrap_or_else(|e| panic!("{e}: {}", done.stdout_str()))
}

#[test]
fn before_tool_runs_the_bash_guard_on_claude_codes_payload_and_denies() {
    let p = project();
    let payload = json!({"session_id": "g1", "transcript_path": "/t", "cwd": p.dir, "hook_event_name": "BeforeTool",
                         "timestamp": "2026-11-25T10:00:00Z", "tool_name": "run_shell_command",
                         "tool_input": {"command": "rm -rf build", "description": "clean"}});
    assert_eq!(
        answer(&gemini(&p, "BeforeTool", &payload)),
        json!({"decision": "deny", "reason": "no rm here"})
    );
    let seen: Value = serde_json::from_str(&p.read("pre.json").unwrap()).unwrap();
    assert_eq!(seen["hook_event_name"], "PreToolUse");
    assert_eq!(seen["tool_name"], "Bash");
    assert_eq!(
        seen["tool_input"],
        json!({"command": "rm -rf build", "description": "clean"})
    );
    assert_eq!(
        (seen["session_id"].as_str(), seen["timestamp"].as_str()),
        (Some("g1"), Some("2026-11-25T10:00:00Z"))
    );
    // Allowed: nothing to say.
    let ls = json!({"hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": {"command": "ls"}});
    assert_eq!(answer(&gemini(&p, "BeforeTool", &ls)), Value::Null);
}

#[test]
fn ask_updated_input_context_and_messages_are_said_in_geminis_terms() {
    let p = project();
    let write = json!({"hook_event_name": "BeforeTool", "tool_name": "write_file", "tool_input": {"file_path": "a.txt", "content": "A"}});
    assert_eq!(
        answer(&gemini(&p, "BeforeTool", &write)),
        json!({"decision": "ask", "reason": "sure?",
               "hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"file_path": "b.txt", "content": "B"}}})
    );
    let edit = json!({"hook_event_name": "AfterTool", "tool_name": "replace", "tool_input": {"file_path": "a.txt"},
                      "tool_response": {"llmContent": "ok"}});
    assert_eq!(
        answer(&gemini(&p, "AfterTool", &edit)),
        json!({"systemMessage": "fmt ran", "hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": "formatted"}})
    );
    let prompt = json!({"hook_event_name": "BeforeAgent", "prompt": "fix login"});
    assert_eq!(
        answer(&gemini(&p, "BeforeAgent", &prompt))["hookSpecificOutput"]["additionalContext"],
        "Ticket LOGIN-42 is relevant\n"
    );
}

#[test]
fn after_agent_is_stop_and_its_block_asks_gemini_to_go_on() {
    let p = project();
    let payload = json!({"hook_event_name": "AfterAgent", "prompt": "p", "prompt_response": "all done", "stop_hook_active": false});
    assert_eq!(
        answer(&gemini(&p, "AfterAgent", &payload)),
        json!({"decision": "deny", "reason": "run the tests first"})
    );
    let seen: Value = serde_json::from_str(&p.read("stop.json").unwrap()).unwrap();
    assert_eq!(
        (
            seen["hook_event_name"].as_str(),
            seen["last_assistant_message"].as_str()
        ),
        (Some("Stop"), Some("all done"))
    );
    let end = json!({"hook_event_name": "SessionEnd", "reason": "exit"});
    assert_eq!(
        answer(&gemini(&p, "SessionEnd", &end)),
        json!({"continue": false, "stopReason": "bye"})
    );
}

#[test]
fn model_events_run_nothing_and_unknown_events_or_payloads_are_refused() {
    let p = project();
    assert_eq!(
        answer(&gemini(&p, "BeforeModel", &json!({"llm_request": {}}))),
        Value::Null
    );
    assert!(
        p.log_text().contains("BeforeModel has no Claude Code event"),
        "{}",
        p.log_text()
    );
    let done = gemini(&p, "PreToolUse", &json!({}));
    assert_eq!(done.code, Some(64));
    assert!(
        done.stderr_str().contains("expected one of: BeforeTool"),
        "{}",
        done.stderr_str()
    );
    let done = gemini(&p, "BeforeTool", &json!({"tool_input": {}}));
    assert_eq!(
        done.code,
        Some(1),
        "a tool event without its tool: {}",
        done.stderr_str()
    );
    assert!(p.read("pre.json").is_none(), "no hook ran");
}

#[test]
fn several_contexts_are_joined_as_gemini_joins_them() {
    let context = |text: &str| {
        format!("echo '{{\"hookSpecificOutput\": {{\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"{text}\"}}}}'")
    };
    let p = Project::new(json!({"hooks": {"PostToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": format!("sleep 0.3; {}", context("first"))}]},
        {"matcher": "Bash", "hooks": [{"type": "command", "command": context("second")}]}
    ]}}));
    let payload = json!({"hook_event_name": "AfterTool", "tool_name": "run_shell_command", "cwd": p.dir,
                         "tool_input": {"command": "make"}, "tool_response": {"llmContent": ""}});
    // One newline, in the order the hooks are configured (measured: after_tool_two_contexts).
    assert_eq!(
        answer(&gemini(&p, "AfterTool", &payload))["hookSpecificOutput"]["additionalContext"],
        "first\nsecond"
    );
}

/// `--format report` and `--format amplifier` mean under `--host gemini` what they mean for
/// Claude Code: one run path for every host (before it, a host's report had no diagnostics and
/// `--format amplifier` printed Gemini CLI's answer).
#[test]
fn the_report_and_amplifier_formats_are_every_hosts() {
    let p = project();
    let payload = json!({"session_id": "g9", "cwd": p.dir, "hook_event_name": "BeforeTool",
                         "tool_name": "run_shell_command", "tool_input": {"command": "rm -rf build"}});
    let dir = p.dir.to_string_lossy().into_owned();
    let run = |format: &str| {
        let args = [
            "run",
            "--host",
            "gemini",
            "--event",
            "BeforeTool",
            "--project-dir",
            &dir,
            "--format",
            format,
        ];
        let done = p.finish(p.hookbridge(args), &serde_json::to_vec(&payload).unwrap());
        assert_eq!(done.code, Some(0), "{}", done.stderr_str());
        serde_json::from_slice::<Value>(&done.stdout).unwrap_or_else(|e| panic!("{e}: {}", done.stdout_str()))
    };
    let report = run("report");
    assert_eq!(report["diagnostics"], json!([]), "{report}");
    assert_eq!(
        report["answer"]["stdout"], "{\"decision\":\"deny\",\"reason\":\"no rm here\"}\n",
        "{report}"
    );
    let result = run("amplifier");
    assert_eq!(result["action"], "deny", "{result}");
    assert!(
        result["reason"]
            .as_str()
            .is_some_and(|r| r.contains("no rm here")),
        "{result}"
    );
}
