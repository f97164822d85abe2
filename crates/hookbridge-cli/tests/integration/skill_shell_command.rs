//! PreSkillShellCommand (Claude Code 2.1.332): the hook before a skill's or custom command's inline
//! `` !`cmd` `` runs, held by running `hookbridge run` as Claude Code starts it. What each rule
//! stands for was measured with the real Claude Code 2.1.332 (cases 300–309 of issue 35; the
//! differential runs them through Claude Code, these tests hold the rules without it).

use crate::common;

use common::project::Project;
use serde_json::{json, Value};

/// The payload Claude Code 2.1.332 sends (its keys, in its order; case 300).
fn payload(p: &Project, command: &str) -> Value {
    json!({
        "session_id": "s",
        "transcript_path": p.dir.join("t.jsonl"),
        "cwd": p.dir,
        "prompt_id": "p",
        "permission_mode": "default",
        "effort": {"level": "medium"},
        "hook_event_name": "PreSkillShellCommand",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_x:preamble-0",
        "command_name": "s-m",
        "command_source": "projectSettings",
        "invoked_by": "claude",
    })
}

fn mark(name: &str) -> Value {
    json!({"type": "command", "command": format!("touch {name}")})
}

fn answer(done: &common::Finished) -> Value {
    assert_eq!(done.code, Some(0), "stderr: {}", done.stderr_str());
    if done.stdout.is_empty() {
        return json!({});
    }
    serde_json::from_slice(&done.stdout).unwrap_or_else(|e| panic!("{e}: {}", done.stdout_str()))
}

/// Matchers are tested against `tool_name` (`Bash`), never the skill's name nor `Skill`; `if`
/// rules are read as for a tool call (measured: `Bash(touch *)` runs on `touch …`, `Bash(ls *)`
/// and `Skill(s-m)` do not).
#[test]
fn matchers_and_if_rules_read_the_inline_command_as_a_bash_call() {
    let p = Project::new(json!({}));
    p.write_hooks(&json!({"hooks": {"PreSkillShellCommand": [
        {"matcher": "Bash", "hooks": [mark("m_bash")]},
        {"matcher": "Ba.*", "hooks": [mark("m_regex")]},
        {"hooks": [mark("m_none")]},
        {"matcher": "Skill", "hooks": [mark("m_skill")]},
        {"matcher": "s-m", "hooks": [mark("m_skillname")]},
        {"matcher": "bash", "hooks": [mark("m_lower")]},
        {"matcher": "Bash", "hooks": [
            {"type": "command", "command": "touch if_touch", "if": "Bash(touch *)"},
            {"type": "command", "command": "touch if_ls", "if": "Bash(ls *)"},
            {"type": "command", "command": "touch if_skill", "if": "Skill(s-m)"},
        ]},
    ]}}));
    let done = p.run(
        "PreSkillShellCommand",
        "claude",
        &payload(&p, "touch ran && echo did"),
    );
    assert_eq!(answer(&done), json!({}));
    for (file, runs) in [
        ("m_bash", true),
        ("m_regex", true),
        ("m_none", true),
        ("if_touch", true),
        ("m_skill", false),
        ("m_skillname", false),
        ("m_lower", false),
        ("if_ls", false),
        ("if_skill", false),
    ] {
        assert_eq!(p.read(file).is_some(), runs, "{file}");
    }
}

/// A prompt or agent hook never runs there: each blocks the command, with Claude Code's words
/// (cases 304, 305: no model request is made). `validate` says so where the hook is written.
#[test]
fn prompt_and_agent_hooks_block_unrun() {
    for kind in ["prompt", "agent"] {
        let p = Project::new(json!({}));
        p.write_hooks(&json!({"hooks": {"PreSkillShellCommand": [{"hooks": [
            {"type": kind, "prompt": "is this safe? $ARGUMENTS"},
        ]}]}}));
        // No model is reachable: a hook that tried to ask one would fail, not deny.
        let mut cmd = p.command("PreSkillShellCommand", "claude");
        cmd.env("ANTHROPIC_BASE_URL", "http://127.0.0.1:9");
        let done = p.finish(cmd, &serde_json::to_vec(&payload(&p, "echo hi")).unwrap());
        assert_eq!(
            answer(&done)["hookSpecificOutput"],
            json!({
                "hookEventName": "PreSkillShellCommand",
                "permissionDecision": "deny",
                "permissionDecisionReason": "prompt and agent hooks don't run on PreSkillShellCommand",
            }),
            "{kind}"
        );
        let checked = p.finish(p.hookbridge(["validate"]), b"");
        let said = checked.stdout_str() + &checked.stderr_str();
        assert!(
            said.contains(&format!("a {kind} hook never runs on PreSkillShellCommand")),
            "{kind}: {said}"
        );
    }
}

/// The answers Claude Code reads there, each in the form a hook may give it: PreToolUse's and
/// PermissionRequest's forms count, another event's does not (case 300).
#[test]
fn answers_in_the_forms_claude_code_reads() {
    let p = Project::new(json!({}));
    let echo = |v: Value| json!({"type": "command", "command": format!("echo '{v}'")});
    for (printed, expected) in [
        (
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "pre-R"}}),
            json!({"permissionDecision": "deny", "permissionDecisionReason": "pre-R"}),
        ),
        (
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "M"}}}),
            json!({"permissionDecision": "deny", "permissionDecisionReason": "M"}),
        ),
        (
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedPermissions": [{"type": "addRules"}]}}}),
            json!({"permissionDecision": "deny", "permissionDecisionReason": "the hook asked to change permissions, which isn't supported here"}),
        ),
        (
            json!({"hookSpecificOutput": {"hookEventName": "PreSkillShellCommand", "permissionDecision": "ask", "permissionDecisionReason": "A"}}),
            json!({"permissionDecision": "ask", "permissionDecisionReason": "A"}),
        ),
        (
            json!({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "x"}}),
            Value::Null,
        ),
    ] {
        p.write_hooks(&json!({"hooks": {"PreSkillShellCommand": [{"hooks": [echo(printed.clone())]}]}}));
        let mut got = answer(&p.run("PreSkillShellCommand", "claude", &payload(&p, "echo hi")))
            ["hookSpecificOutput"]
            .clone();
        if let Some(o) = got.as_object_mut() {
            assert_eq!(o.remove("hookEventName"), Some(json!("PreSkillShellCommand")));
        }
        assert_eq!(got, expected, "{printed}");
    }
}

/// `holdsTools` (2.1.332, for one official plugin only) is accepted without a warning and changes
/// nothing: the hook runs and its answer counts (case 312).
#[test]
fn holds_tools_is_accepted_and_changes_nothing() {
    let p = Project::new(json!({"hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": "echo held-context", "holdsTools": true, "timeout": 20},
    ]}]}}));
    let checked = p.finish(p.hookbridge(["validate"]), b"");
    assert_eq!(checked.code, Some(0), "{}", checked.stdout_str());
    assert!(
        checked.stdout_str().contains("0 error(s), 0 warning(s)"),
        "{}",
        checked.stdout_str()
    );
    let mut ups = p.payload("UserPromptSubmit");
    ups["prompt"] = json!("hi");
    let done = p.run("UserPromptSubmit", "claude", &ups);
    assert_eq!(done.code, Some(0));
    assert_eq!(done.stdout_str().trim(), "held-context");
}
