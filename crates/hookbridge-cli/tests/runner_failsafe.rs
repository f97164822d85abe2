//! `hookbridge run` where the runner itself is pushed: payload values that cannot be environment
//! variables, more hooks than file descriptors, answers larger than the output cap, the host
//! killing hookbridge, and hooks that escape their process group. In every case the block a hook
//! gives must reach the host, and nothing may be left running that hookbridge says it killed.

mod common;

use common::project::TestProject;
use serde_json::json;

const DENY: &str = r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"guarded"}}'"#;

fn assert_denied(done: &common::Finished) {
    assert_eq!(done.code, Some(0), "stderr: {}", done.stderr_str());
    let answer: serde_json::Value = serde_json::from_slice(&done.stdout)
        .unwrap_or_else(|e| panic!("answer is not JSON ({e}): {}", done.stdout_str()));
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "the block was lost: {answer}"
    );
}

/// A session id with a NUL, or longer than the kernel takes for one environment string, used to
/// make every hook fail to start (it is given to hooks as AMPLIFIER_SESSION_ID).
#[test]
fn a_session_id_that_cannot_be_an_environment_variable_is_left_out_and_logged() {
    for (what, id) in [("NUL", "a\u{0}b".to_string()), ("200 KB", "x".repeat(200_000))] {
        let project = TestProject::pre_tool_use(json!([
            {"type": "command", "command": DENY},
            {"type": "command", "command": "printf '%s' \"${AMPLIFIER_SESSION_ID-unset}\" > sid.txt"},
        ]));
        let mut payload = project.pre_bash();
        payload["session_id"] = json!(id);
        let done = project.run("PreToolUse", &payload);
        assert_denied(&done);
        assert_eq!(project.file("sid.txt").as_deref(), Some("unset"), "{what}");
        assert!(
            project.log_text().contains("session_id"),
            "{what}: not logged: {}",
            project.log_text()
        );
    }
}

/// 200 hooks on one event under `ulimit -n 256`: each running hook holds several descriptors, so
/// starting them all at once runs out, and the blocking one used to be among those that "could not
/// start". With the hard limit at 256 hookbridge cannot raise it: it must run them in turns; with
/// only the soft limit low, it raises it. Either way every hook runs and the block holds.
#[test]
fn two_hundred_hooks_under_a_low_open_file_limit_all_run_and_the_block_holds() {
    let mut hooks: Vec<serde_json::Value> = (0..199)
        .map(|n| json!({"type": "command", "command": format!("cat > /dev/null; echo {n} >> ran.txt")}))
        .collect();
    hooks.insert(150, json!({"type": "command", "command": format!("{DENY}; echo deny >> ran.txt")}));
    for limits in ["-S -n 256; ulimit -H -n 256", "-S -n 64"] {
        let project = TestProject::pre_tool_use(json!(hooks));
        let inner = project.command("PreToolUse", "claude");
        let mut cmd = std::process::Command::new("/bin/sh");
        cmd.arg("-c")
            .arg(format!("ulimit {limits}; exec \"$0\" \"$@\""))
            .arg(inner.get_program())
            .args(inner.get_args());
        for (name, value) in inner.get_envs() {
            match value {
                Some(v) => cmd.env(name, v),
                None => cmd.env_remove(name),
            };
        }
        cmd.current_dir(&project.dir);
        let done = project.finish(cmd, &serde_json::to_vec(&project.pre_bash()).unwrap());
        assert_denied(&done);
        let ran = project.file("ran.txt").unwrap_or_default();
        assert_eq!(ran.lines().count(), 200, "ulimit {limits}: not every hook ran");
        assert!(
            !project.log_text().contains("could not start"),
            "ulimit {limits}: {}",
            project.log_text()
        );
    }
}

/// Nine hooks share the event's output budget, so each one's cap is 1 MiB; the one that denies
/// prints a 1.5 MB reason. Its answer must be read whole and the deny must hold (measured cases
/// 192 and 193 show Claude Code reading 5 MB answers whole).
#[test]
fn a_deny_larger_than_its_share_of_the_output_budget_still_denies() {
    let mut hooks: Vec<serde_json::Value> = (0..8)
        .map(|n| json!({"type": "command", "command": format!("echo quiet-{n} > /dev/null")}))
        .collect();
    hooks.push(json!({"type": "command", "command":
        "python3 -c \"import json; print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse', 'permissionDecision': 'deny', 'permissionDecisionReason': 'BIG ' + 'r' * 1500000}}))\""}));
    let project = TestProject::pre_tool_use(json!(hooks));
    let done = project.run("PreToolUse", &project.pre_bash());
    assert_denied(&done);
    let answer: serde_json::Value = serde_json::from_slice(&done.stdout).unwrap();
    let reason = answer["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap();
    assert_eq!(reason.len(), 1_500_004);
}
