//! The CLI's exit-code contract (docs/exit-codes.md), held by running the binary.
//!
//! `hookbridge run` is Claude Code's hook, so its exit code is an answer: 2 would block the tool
//! call. A command line hookbridge cannot understand exits 64 and a payload it cannot use exits 1,
//! both without running any hook; `validate` exits 1 and names each problem's `path:line:column`.
//! Whether a hook ran is read from a marker file that every configured hook creates, and each test
//! first shows that the marker does appear when the same project is run correctly.

use crate::common;

use std::path::PathBuf;

use common::project::{sh_quote, Project};
use serde_json::{json, Value};

/// A project whose PreToolUse, UserPromptSubmit and Stop hooks each create `hook-ran`.
fn marking_project() -> (Project, PathBuf) {
    let p = Project::new(json!({}));
    let marker = p.dir.join("hook-ran");
    let mark = json!([{"type": "command", "command": format!("echo ran >> {}", sh_quote(&marker))}]);
    p.write_hooks(&json!({"hooks": {
        "PreToolUse": [{"hooks": mark}],
        "UserPromptSubmit": [{"hooks": mark}],
        "Stop": [{"hooks": mark}],
    }}));
    (p, marker)
}

/// The control every test starts with: the project, run correctly, does run its hook.
fn assert_the_marker_works(p: &Project, marker: &std::path::Path) {
    let done = p.run("PreToolUse", "claude", &p.payload("PreToolUse"));
    assert_eq!(done.code, Some(0), "control run: stderr {}", done.stderr_str());
    assert!(marker.exists(), "control run: the hook did not create its marker");
    std::fs::remove_file(marker).unwrap();
}

/// Unknown flags, missing or malformed values, a malformed event name, a `--project-dir` that is
/// not a directory, a timeout flag that is not a positive number, an unknown subcommand: exit 64,
/// nothing on stdout, an explanation on stderr, no hook run.
#[test]
fn usage_errors_exit_64_and_run_no_hook() {
    let (p, marker) = marking_project();
    assert_the_marker_works(&p, &marker);
    let dir = p.dir.display().to_string();
    let missing = p.dir.join("no-such-dir").display().to_string();
    let pre = ["run", "--event", "PreToolUse", "--project-dir", dir.as_str()];
    let with =
        |extra: &[&'static str]| -> Vec<String> { pre.iter().chain(extra).map(|a| a.to_string()).collect() };
    let lines: Vec<Vec<String>> = vec![
        vec!["run".into(), "--project-dir".into(), dir.clone()],
        with(&["--bogus"]),
        with(&["extra"]),
        with(&["--format", "yaml"]),
        with(&["--default-timeout", "abc"]),
        with(&["--default-timeout", "nan"]),
        with(&["--max-timeout", "0"]),
        with(&["--event", "Stop"]),
        vec!["run".into(), "--event".into()],
        vec![
            "run".into(),
            "--event".into(),
            "".into(),
            "--project-dir".into(),
            dir.clone(),
        ],
        // Malformed event names: accepted by the argument parser, refused by `run` itself.
        vec![
            "run".into(),
            "--event".into(),
            "pre-tool-use".into(),
            "--project-dir".into(),
            dir.clone(),
        ],
        vec![
            "run".into(),
            "--event".into(),
            "Stop now".into(),
            "--project-dir".into(),
            dir.clone(),
        ],
        vec![
            "run".into(),
            "--event".into(),
            "PreToolUse".into(),
            "--project-dir".into(),
            missing,
        ],
        vec![],
        vec!["frobnicate".into()],
        vec![
            "list".into(),
            "--project-dir".into(),
            dir.clone(),
            "--bogus".into(),
        ],
        vec![
            "validate".into(),
            "--project-dir".into(),
            dir.clone(),
            "--yaml".into(),
        ],
    ];
    let payload = serde_json::to_vec(&p.payload("PreToolUse")).unwrap();
    for line in &lines {
        let args: Vec<&str> = line.iter().map(String::as_str).collect();
        let shown = format!("`hookbridge {}`", line.join(" "));
        let done = p.finish(p.hookbridge(&args), &payload);
        assert_eq!(
            done.code,
            Some(64),
            "{shown} is a usage error: exit 64, never 2 (a block) or 0; stdout {:?} stderr {:?}",
            done.stdout_str(),
            done.stderr_str()
        );
        assert_eq!(done.stdout_str(), "", "{shown}: stdout");
        assert!(
            !done.stderr_str().trim().is_empty(),
            "{shown}: a usage error must say what is wrong on stderr"
        );
        assert!(!marker.exists(), "{shown}: a hook ran after a usage error");
    }
}

/// Help and version are answers, not errors: exit 0 with text on stdout.
#[test]
fn help_and_version_exit_0() {
    let p = Project::new(json!({}));
    for line in [
        &["--help"][..],
        &["--version"],
        &["run", "--help"],
        &["list", "--help"],
        &["validate", "--help"],
    ] {
        let done = p.finish(p.hookbridge(line), b"");
        assert_eq!(
            done.code,
            Some(0),
            "`hookbridge {}`: {}",
            line.join(" "),
            done.stderr_str()
        );
        assert!(
            !done.stdout_str().trim().is_empty(),
            "`hookbridge {}` printed nothing",
            line.join(" ")
        );
    }
}

/// A payload that is not JSON, not an object, or lacks (or mistypes) a required field: exit 1 — a
/// non-blocking error, as Claude Code treats any failed hook — in every output format, nothing on
/// stdout, the reason on stderr and in the diagnostics log, and no hook run.
#[test]
fn a_bad_payload_exits_1_and_runs_no_hook() {
    let (p, marker) = marking_project();
    assert_the_marker_works(&p, &marker);
    let cases: &[(&str, &str, &str)] = &[
        ("PreToolUse", "not json", "not valid JSON"),
        ("PreToolUse", "[1, 2]", "not an object"),
        (
            "PreToolUse",
            r#"{"tool_input": {"command": "ls"}}"#,
            "missing tool_name",
        ),
        ("PreToolUse", r#"{"tool_name": "Bash"}"#, "missing tool_input"),
        (
            "PreToolUse",
            r#"{"tool_name": 7, "tool_input": {}}"#,
            "tool_name not a string",
        ),
        (
            "PreToolUse",
            r#"{"tool_name": "Bash", "tool_input": "ls"}"#,
            "tool_input not an object",
        ),
        (
            "UserPromptSubmit",
            r#"{"prompt": ["not", "a", "string"]}"#,
            "prompt not a string",
        ),
        ("Stop", "{\"session_id\": ", "truncated JSON"),
    ];
    for &(event, payload, what) in cases {
        for format in ["claude", "report", "amplifier"] {
            let _ = std::fs::remove_file(&p.log);
            let done = p.finish(p.command(event, format), payload.as_bytes());
            assert_eq!(
                done.code,
                Some(1),
                "{event} payload {what} ({payload}), --format {format}: exit 1 expected; stdout {:?} stderr {:?}",
                done.stdout_str(),
                done.stderr_str()
            );
            assert_eq!(
                done.stdout_str(),
                "",
                "{event} payload {what}, --format {format}: stdout"
            );
            assert!(
                done.stderr_str().starts_with("hookbridge: "),
                "{event} payload {what}, --format {format}: stderr {:?}",
                done.stderr_str()
            );
            assert!(
                !marker.exists(),
                "{event} payload {what}, --format {format}: a hook ran"
            );
            let log = p.log_text();
            assert!(
                log.contains(&format!("run {event}: payload refused, no hook ran")),
                "{event} payload {what}, --format {format}: not in the diagnostics log:\n{log}"
            );
        }
    }
}

/// `validate` exits 1 when a file or a hook cannot be used, and names each problem by
/// `path:line:column`; warnings alone (an unknown key) exit 0; `list` exits 0 whatever it finds.
#[test]
fn validate_exits_1_and_names_positions() {
    let p = Project::new(json!({}));
    // Line 3, column 20 is the stray comma.
    let broken = p.file(
        ".amplifier/hooks/hooks.json",
        "{\n  \"hooks\": {\n    \"PreToolUse\": [,]\n  }\n}\n",
    );
    // An `mcp_tool` hook whose server is configured nowhere (an error) at line 6, column 11; an
    // unknown key (a warning) at line 7, column 62.
    let plugin = p.file(
        ".amplifier/hooks/plug/hooks.json",
        "{\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\"type\": \"mcp_tool\", \"server\": \"s\", \"tool\": \"t\"},\n          {\"type\": \"command\", \"command\": \"true\", \"bogusKey\": 1}\n        ]\n      }\n    ]\n  }\n}\n",
    );
    let dir = p.dir.display().to_string();
    let done = p.finish(p.hookbridge(["validate", "--project-dir", &dir]), b"");
    let stderr = done.stderr_str();
    let short = p.finish(
        p.hookbridge(["validate", "--format", "short", "--project-dir", &dir]),
        b"",
    );
    assert_eq!(short.code, done.code);
    let short = short.stderr_str();
    assert_eq!(
        done.code,
        Some(1),
        "stdout {:?} stderr {stderr}",
        done.stdout_str()
    );
    for (place, severity, what) in [
        (format!("{}:3:20", broken.display()), "error", "the syntax error"),
        (
            format!("{}:6:11", plugin.display()),
            "error",
            "the mcp_tool hook without a server",
        ),
        (format!("{}:7:62", plugin.display()), "warning", "the unknown key"),
    ] {
        let line = format!("{place}: {severity}:");
        assert!(
            short.contains(&line),
            "validate --format short does not report {what} as `{line}`:\n{short}"
        );
        let arrow = format!("\n --> {place}\n");
        assert!(
            stderr.contains(&arrow),
            "validate does not point at {what} with `{arrow}`:\n{stderr}"
        );
    }
    assert!(
        done.stdout_str().contains("2 error(s), 1 warning(s)"),
        "summary: {}",
        done.stdout_str()
    );
    let listed = p.finish(p.hookbridge(["list", "--project-dir", &dir]), b"");
    assert_eq!(listed.code, Some(0), "list: {}", listed.stderr_str());
    let listed = p.finish(p.hookbridge(["list", "--json", "--project-dir", &dir]), b"");
    assert_eq!(listed.code, Some(0), "list --json: {}", listed.stderr_str());

    // Fix both errors and keep the warning: 0.
    std::fs::write(
        &broken,
        r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#,
    )
    .unwrap();
    let plugin_text = std::fs::read_to_string(&plugin).unwrap();
    std::fs::write(
        &plugin,
        plugin_text.replace(r#"{"type": "mcp_tool", "server": "s", "tool": "t"},"#, ""),
    )
    .unwrap();
    let done = p.finish(p.hookbridge(["validate", "--project-dir", &dir]), b"");
    assert_eq!(
        done.code,
        Some(0),
        "only a warning is left: stdout {:?} stderr {}",
        done.stdout_str(),
        done.stderr_str()
    );
    assert!(done.stderr_str().contains("warning:"), "{}", done.stderr_str());
    assert!(
        done.stdout_str().contains("0 error(s), 1 warning(s)"),
        "{}",
        done.stdout_str()
    );
}

/// The exit code of `run` in Claude Code's format is the hooks' answer: 0, 2 for a block, and a
/// failed hook's own non-blocking code; `--format report` and `--format amplifier` exit 0.
#[test]
fn run_exits_with_the_hooks_answer() {
    let p = Project::new(json!({}));
    let payload: Value = p.payload("PreToolUse");
    for (command, claude_code) in [("exit 0", 0), ("echo no >&2; exit 2", 2), ("exit 3", 3)] {
        p.write_hooks(&common::project::on(
            "PreToolUse",
            json!([{"type": "command", "command": command}]),
        ));
        let done = p.run("PreToolUse", "claude", &payload);
        assert_eq!(
            done.code,
            Some(claude_code),
            "`{command}`: stderr {}",
            done.stderr_str()
        );
        for format in ["report", "amplifier"] {
            let done = p.run("PreToolUse", format, &payload);
            assert_eq!(
                done.code,
                Some(0),
                "`{command}` --format {format}: {}",
                done.stderr_str()
            );
            serde_json::from_slice::<Value>(&done.stdout)
                .unwrap_or_else(|e| panic!("`{command}` --format {format}: not JSON ({e})"));
        }
    }
}
