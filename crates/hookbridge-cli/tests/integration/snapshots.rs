//! Snapshot tests (insta) of what the commands people type print, human and JSON, on one project
//! that has a bit of everything: a blocking guard script, an `if` rule, a hook for other tools, an
//! async hook, a misspelt hook type, a misspelt key, a misspelt event, a program not on PATH and a
//! plugin folder that gets disabled.
//!
//! What varies from run to run is redacted before the comparison: the temporary folders
//! (`[PROJECT]`, `[HOME]`), durations (`[N] ms`), the timeline's bars and the version. Everything
//! else is compared byte for byte, so a change to any wording, order or field shows up as a diff
//! to review (`INSTA_UPDATE=always cargo nextest run -p hookbridge-cli -E 'test(/^snapshots::/)'`, then
//! read `tests/integration/snapshots/`). On CI a missing or different snapshot fails.

use crate::common;

use common::project::Project;
use serde_json::{json, Value};

/// The project: `.amplifier/hooks/hooks.json`, its guard script, and a plugin `notes`.
fn project() -> Project {
    let p = Project::new(json!({"hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [
                {"type": "command", "command": "bash \"$CLAUDE_PROJECT_DIR/hooks/guard.sh\"", "timeout": 10},
                {"type": "command", "command": "echo git-checked", "if": "Bash(git *)"}
            ]},
            {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "true"}]}
        ],
        "PostToolUse": [{"matcher": "Edit", "hooks": [
            {"type": "command", "command": "echo formatted", "async": true}
        ]}],
        "Stop": [{"hooks": [
            {"type": "comand", "command": "x"},
            {"type": "command", "command": "no-such-program-for-hookbridge --check", "timout": 3}
        ]}],
        "PreToolUs": [{"hooks": [{"type": "command", "command": "true"}]}]
    }}));
    p.file(
        "hooks/guard.sh",
        "input=$(cat)\ncase \"$input\" in\n  *'rm -rf'*) echo 'guard: rm -rf is not allowed' >&2; exit 2 ;;\nesac\nexit 0\n",
    );
    p.file(
        ".amplifier/hooks/notes/hooks.json",
        &serde_json::to_string_pretty(
            &json!({"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [
                {"type": "command", "command": "echo 'Read CONVENTIONS.md first.'"}
            ]}]}}),
        )
        .unwrap(),
    );
    p
}

/// `hookbridge ARGS` in the project: exit code, stdout and stderr, redacted, as one text.
fn shown(p: &Project, args: &[&str], stdin: &[u8]) -> String {
    let done = p.finish(p.hookbridge(args), stdin);
    let mut text = format!("exit: {:?}\n", done.code);
    for (name, stream) in [("stdout", done.stdout_str()), ("stderr", done.stderr_str())] {
        if !stream.is_empty() {
            text.push_str(&format!("--- {name}\n{}", redact_paths(p, &stream)));
            if !stream.ends_with('\n') {
                text.push('\n');
            }
        }
    }
    text
}

/// The temporary folders and the version, in `text`, as placeholders (the project's canonical
/// path too: some commands print the path they resolved).
fn redact_paths(p: &Project, text: &str) -> String {
    let mut text = text.to_string();
    for (path, name) in [(&p.dir, "[PROJECT]"), (&p.home, "[HOME]")] {
        if let Ok(canonical) = path.canonicalize() {
            text = text.replace(&canonical.display().to_string(), name);
        }
        text = text.replace(&path.display().to_string(), name);
    }
    text.replace(env!("CARGO_PKG_VERSION"), "[VERSION]")
}

/// Durations and the timeline's bars, which change from run to run.
macro_rules! assert_redacted_snapshot {
    ($name:expr, $text:expr) => {
        insta::with_settings!({filters => vec![
            (r"\|[█▏▎▍▌▋▊▉ ]+\| +\d+(\.\d+)? ?ms\b", "|[bar]| [N] ms"),
            (r"\b\d+(\.\d+)? ?ms\b", "[N] ms"),
            (r#""(duration_ms|elapsed_ms|started_ms|finished_ms)": [0-9.]+"#, r#""$1": "[N]""#),
            (r"\(all start together; [^)]*\)", "(all start together; [span])"),
        ]}, {
            insta::assert_snapshot!($name, $text);
        });
    };
}

fn pretty(p: &Project, text: &str) -> String {
    let value: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
    redact_paths(p, &serde_json::to_string_pretty(&value).unwrap())
}

/// stdout as JSON (pretty, redacted); the exit code and stderr beside it.
fn shown_json(p: &Project, args: &[&str], stdin: &[u8]) -> String {
    let done = p.finish(p.hookbridge(args), stdin);
    format!(
        "exit: {:?}\n--- stderr\n{}--- stdout\n{}\n",
        done.code,
        redact_paths(p, &done.stderr_str()),
        pretty(p, &done.stdout_str())
    )
}

const RM: &str = r#"{"command":"rm -rf /tmp/x"}"#;

#[test]
fn list_and_validate() {
    let p = project();
    assert_redacted_snapshot!("list", shown(&p, &["list", "--no-user-hooks"], b""));
    assert_redacted_snapshot!(
        "list_json",
        shown_json(&p, &["list", "--json", "--no-user-hooks"], b"")
    );
    assert_redacted_snapshot!(
        "validate",
        shown(&p, &["validate", "--no-user-hooks", "--color", "never"], b"")
    );
    assert_redacted_snapshot!(
        "validate_short",
        shown(&p, &["validate", "--no-user-hooks", "--format", "short"], b"")
    );
    assert_redacted_snapshot!(
        "validate_json",
        shown_json(&p, &["validate", "--no-user-hooks", "--json"], b"")
    );
}

#[test]
fn test_traces_a_blocked_call() {
    let p = project();
    let bash = |input: &'static str| {
        [
            "test",
            "--no-user-hooks",
            "--event",
            "PreToolUse",
            "--tool",
            "Bash",
            "--input",
            input,
        ]
    };
    let args = bash(RM);
    assert_redacted_snapshot!("test_blocked", shown(&p, &args, b""));
    let mut json_args = args.to_vec();
    json_args.push("--json");
    assert_redacted_snapshot!("test_blocked_json", shown_json(&p, &json_args, b""));
    let git = bash(r#"{"command":"git status"}"#);
    assert_redacted_snapshot!("test_if_rule", shown(&p, &git, b""));
}

#[test]
fn run_report() {
    let p = project();
    let mut payload = p.payload("PreToolUse");
    payload["tool_input"] = serde_json::from_str(RM).unwrap();
    let stdin = serde_json::to_vec(&payload).unwrap();
    let args = [
        "run",
        "--no-user-hooks",
        "--event",
        "PreToolUse",
        "--format",
        "report",
    ];
    assert_redacted_snapshot!("run_report", shown_json(&p, &args, &stdin));
    let claude = ["run", "--no-user-hooks", "--event", "PreToolUse"];
    assert_redacted_snapshot!("run_claude", shown(&p, &claude, &stdin));
}

#[test]
fn disable_enable_and_install_into() {
    let p = project();
    assert_redacted_snapshot!("disable_plugin", shown(&p, &["disable", "notes"], b""));
    assert_redacted_snapshot!("list_disabled", shown(&p, &["list", "--no-user-hooks"], b""));
    assert_redacted_snapshot!("enable_plugin", shown(&p, &["enable", "notes"], b""));
    assert_redacted_snapshot!("disable_unknown", shown(&p, &["disable", "nots"], b""));
    assert_redacted_snapshot!(
        "install_into_dry_run",
        shown(
            &p,
            &["install-into", "claude", "--dry-run", "--program", "hookbridge"],
            b""
        )
    );
}

#[test]
fn migrate_dry_run() {
    let p = project();
    p.file(
        ".gemini/settings.json",
        &serde_json::to_string_pretty(&json!({"hooks": {
            "BeforeTool": [{"matcher": "run_shell_command", "hooks": [
                {"type": "command", "command": "./guard.sh", "timeout": 5000}
            ]}],
            "BeforeModel": [{"hooks": [{"type": "command", "command": "./model.sh"}]}]
        }}))
        .unwrap(),
    );
    assert_redacted_snapshot!(
        "migrate_gemini_dry_run",
        shown(&p, &["migrate", "--from", "gemini", "--dry-run"], b"")
    );
}

#[test]
fn help_and_schema() {
    let p = project();
    assert_redacted_snapshot!("help", shown(&p, &["--help"], b""));
    // What the commands that write files say they write, where, and never touch.
    for command in ["install-into", "install", "migrate"] {
        assert_redacted_snapshot!(
            format!("help_{}", command.replace('-', "_")),
            shown(&p, &[command, "--help"], b"")
        );
    }
    assert_redacted_snapshot!("schema", shown_json(&p, &["schema"], b""));
    assert_redacted_snapshot!(
        "schema_hook_output",
        shown_json(&p, &["schema", "hook-output"], b"")
    );
}
