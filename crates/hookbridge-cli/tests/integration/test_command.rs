//! `hookbridge test`: the dry run with a trace. Every hook registered for the event is listed
//! with why it runs or not, the running ones really run, and the answer is the one `run` gives.

use crate::common;

use common::project::Project;
use serde_json::{json, Value};

fn project() -> Project {
    Project::new(json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [
            {"type": "command", "command": "cat > got.json; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"no rm\"}}'"},
            {"type": "command", "command": "echo git-only", "if": "Bash(git *)"}
        ]},
        {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "echo writes"}]}
    ]}}))
}

fn test_command(p: &Project, extra: &[&str]) -> std::process::Command {
    let dir = p.dir.to_string_lossy().into_owned();
    let mut args = vec![
        "test",
        "--event",
        "PreToolUse",
        "--project-dir",
        &dir,
        "--tool",
        "Bash",
    ];
    args.extend_from_slice(extra);
    p.hookbridge(&args)
}

#[test]
fn the_trace_says_why_each_hook_runs_or_not_and_gives_runs_answer() {
    let p = project();
    let done = p.finish(
        test_command(&p, &["--input", r#"{"command": "rm -rf /"}"#, "--json"]),
        b"",
    );
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let trace: Value = serde_json::from_slice(&done.stdout).unwrap();
    let hooks = trace["hooks"].as_array().unwrap();
    assert_eq!(hooks.len(), 3, "{trace:#}");
    assert_eq!(hooks[0]["runs"], true);
    assert_eq!(hooks[0]["run"]["status"], "exited");
    assert_eq!(hooks[0]["run"]["code"], 0);
    assert_eq!(hooks[1]["runs"], false);
    assert_eq!(
        hooks[1]["verdict"],
        "`if` rule `Bash(git *)` does not match this tool call"
    );
    assert_eq!(hooks[2]["verdict"], "matcher `Write|Edit` does not match `Bash`");
    assert!(hooks[2]["run"].is_null());
    // The hook really ran, with the payload built from the options.
    let got: Value = serde_json::from_str(&p.read("got.json").unwrap()).unwrap();
    assert_eq!(got["tool_input"]["command"], "rm -rf /");
    assert_eq!(got["hook_event_name"], "PreToolUse");
    // The answer is run's: exit 0 with the deny on stdout.
    assert_eq!(trace["answer"]["exit_code"], 0);
    let answer: Value = serde_json::from_str(trace["answer"]["stdout"].as_str().unwrap()).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
}

#[test]
fn the_human_trace_names_the_reasons_and_the_answer() {
    let p = project();
    let done = p.finish(
        test_command(&p, &["--input", r#"{"command": "git status"}"#]),
        b"",
    );
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let text = done.stdout_str();
    assert!(
        text.contains("3 hook(s) registered for the event, 2 run"),
        "{text}"
    );
    assert!(
        text.contains("why: matcher `Write|Edit` does not match `Bash`"),
        "{text}"
    );
    assert!(text.contains("stdout: git-only"), "{text}");
    assert!(
        text.contains("answer to Claude Code (as `hookbridge run` gives it): exit 0"),
        "{text}"
    );
    assert!(text.contains("timeline"), "{text}");
}

#[test]
fn a_payload_file_is_used_as_given_and_bad_input_is_a_usage_error() {
    let p = project();
    let payload = p.file(
        "payload.json",
        &json!({"session_id": "s", "cwd": p.dir, "hook_event_name": "PreToolUse",
                "tool_name": "Write", "tool_input": {"file_path": "x", "content": "y"}})
        .to_string(),
    );
    let dir = p.dir.to_string_lossy().into_owned();
    let path = payload.to_string_lossy().into_owned();
    let done = p.finish(
        p.hookbridge([
            "test",
            "--event",
            "PreToolUse",
            "--project-dir",
            &dir,
            "--payload",
            &path,
            "--json",
        ]),
        b"",
    );
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let trace: Value = serde_json::from_slice(&done.stdout).unwrap();
    let runs: Vec<&str> = trace["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["runs"] == true)
        .map(|h| h["label"].as_str().unwrap())
        .collect();
    assert_eq!(runs, ["echo writes"]);
    let done = p.finish(test_command(&p, &["--input", "[1, 2]"]), b"");
    assert_eq!(done.code, Some(64), "{}", done.stderr_str());
    let done = p.finish(test_command(&p, &["--input", "not json"]), b"");
    assert_eq!(done.code, Some(64), "{}", done.stderr_str());
}

/// `validate` finds what a hook will fail to start: a missing script is an error (the hook would
/// exit 127 every time, a guard guarding nothing), a program not on PATH a warning.
#[test]
fn validate_reports_a_missing_script_and_a_program_not_on_path() {
    let p = Project::new(json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "bash \"$CLAUDE_PROJECT_DIR/hooks/guard.sh\""},
        {"type": "command", "command": "no-such-program-for-hookbridge --check"},
        {"type": "command", "command": "python3 -c 'import sys; sys.exit(0)'"}
    ]}]}}));
    let dir = p.dir.to_string_lossy().into_owned();
    let validate = || {
        let args = [
            "validate",
            "--format",
            "short",
            "--no-user-hooks",
            "--project-dir",
        ];
        let mut cmd = p.hookbridge(args);
        cmd.arg(&dir);
        p.finish(cmd, b"")
    };
    let done = validate();
    let stderr = done.stderr_str();
    assert_eq!(done.code, Some(1), "{stderr}");
    // Named at the hook's file:line:col, with its key.
    assert!(
        stderr.contains(&format!(
            "hooks.json:7:11: error: `hooks.PreToolUse[0].hooks[0]`: `{dir}/hooks/guard.sh` does not exist"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("hooks.json:11:11: warning: `hooks.PreToolUse[0].hooks[1]`: `no-such-program-for-hookbridge` is not on PATH"),
        "{stderr}"
    );
    assert!(
        done.stdout_str().contains("1 error(s), 1 warning(s)"),
        "{}",
        done.stdout_str()
    );
    // Once the script exists and the program is gone, the config is valid.
    p.file("hooks/guard.sh", "exit 0\n");
    p.write_hooks(&json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "bash \"$CLAUDE_PROJECT_DIR/hooks/guard.sh\""}
    ]}]}}));
    let done = validate();
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
}

/// `list --json` shows a hook's `if` rule and an exec-form hook's `args` (why a hook does or does
/// not fire depends on both).
#[test]
fn list_json_shows_if_and_args() {
    let p = Project::new(json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "echo", "args": ["a b", "c"], "if": "Bash(git *)"}
    ]}]}}));
    let dir = p.dir.to_string_lossy().into_owned();
    let done = p.finish(
        p.hookbridge(["list", "--json", "--project-dir", &dir, "--no-user-hooks"]),
        b"",
    );
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let listed: Value = serde_json::from_slice(&done.stdout).unwrap();
    let hook = &listed["hooks"][0];
    assert_eq!(hook["if"], "Bash(git *)");
    assert_eq!(hook["args"], json!(["a b", "c"]));
}

/// A sandboxed hook's trace shows its sandbox, and says in words what the sandbox denied it
/// (docs/sandbox.md): the OS error in its stderr, explained.
#[test]
fn a_sandboxed_hooks_trace_shows_its_sandbox_and_explains_what_it_denied() {
    let p = Project::new(json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "sandbox": true,
         "command": "echo pwned >> \"$HOME/.bashrc\"; cat \"$HOME/.ssh/id_ed25519\"; echo done"}
    ]}]}}));
    std::fs::create_dir_all(p.home.join(".ssh")).unwrap();
    std::fs::write(p.home.join(".ssh/id_ed25519"), "key\n").unwrap();
    std::fs::write(p.home.join(".bashrc"), "the user's own\n").unwrap();
    let done = p.finish(test_command(&p, &["--json"]), b"");
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let trace: Value = serde_json::from_slice(&done.stdout).unwrap();
    let hook = &trace["hooks"][0];
    assert_eq!(hook["sandbox"]["network"], false, "{hook:#}");
    assert_eq!(
        hook["sandbox_denials"],
        json!([
            "write to ~/.bashrc denied by the sandbox: a sandboxed hook writes only beneath the project, its temporary folder (TMPDIR) and the paths in `sandbox.write`",
            "read of ~/.ssh/id_ed25519 denied by the sandbox: the user's credentials are out of a sandboxed hook's reach",
        ]),
        "{hook:#}"
    );
    let human = p.finish(test_command(&p, &[]), b"");
    let said = String::from_utf8_lossy(&human.stdout);
    assert!(
        said.contains("sandboxed (writes project, temp; no network; no credentials)"),
        "{said}"
    );
    assert!(
        said.contains("sandbox: write to ~/.bashrc denied by the sandbox"),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(p.home.join(".bashrc")).unwrap(),
        "the user's own\n"
    );
}
