//! `hookbridge migrate --from <agent>`: one fixture per agent (`tests/fixtures/migrate/<agent>/`,
//! each in that agent's documented format), migrated into `.amplifier/hooks/from-<agent>/`, what
//! could not be carried over listed, and the migrated blocking hook really blocking through
//! `hookbridge run`.

use crate::common;

use std::fs;
use std::path::Path;

use common::project::Project;
use serde_json::{json, Value};

/// A project holding the agent's fixture files.
fn project_with(agent: &str) -> Project {
    let p = Project::new(json!({"hooks": {}}));
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/migrate")
        .join(agent);
    copy(&fixture, &p.dir);
    fs::create_dir_all(p.dir.join("scripts")).unwrap();
    p
}

fn copy(from: &Path, to: &Path) {
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            fs::create_dir_all(&target).unwrap();
            copy(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn migrate(p: &Project, agent: &str, extra: &[&str]) -> common::Finished {
    let dir = p.dir.to_string_lossy().into_owned();
    let mut args = vec!["migrate", "--from", agent, "--project-dir", &dir];
    args.extend_from_slice(extra);
    p.finish(p.hookbridge(&args), b"")
}

fn migrated(p: &Project, agent: &str) -> Value {
    let text = p
        .read(&format!(".amplifier/hooks/from-{agent}/hooks.json"))
        .unwrap_or_else(|| panic!("nothing written for {agent}"));
    serde_json::from_str(&text).unwrap()
}

/// The PreToolUse Bash call is blocked, with `reason` on stderr.
fn assert_blocks(p: &Project, reason: &str) {
    let done = p.run("PreToolUse", "claude", &p.payload("PreToolUse"));
    assert_eq!(
        done.code,
        Some(2),
        "not blocked: {} {}",
        done.stdout_str(),
        done.stderr_str()
    );
    assert!(done.stderr_str().contains(reason), "{}", done.stderr_str());
}

#[test]
fn claude_settings_move_verbatim_without_hookbridges_own_registrations() {
    let p = project_with("claude");
    let done = migrate(&p, "claude", &[]);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let hooks = &migrated(&p, "claude")["hooks"];
    assert_eq!(
        hooks,
        &json!({
            "PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": "echo 'no rm' >&2; exit 2", "timeout": 10}
            ]}],
            "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo local-context"}]}]
        })
    );
    assert!(done.stderr_str().contains("run twice"), "{}", done.stderr_str());
    assert_blocks(&p, "no rm");
    // The agent's own files are untouched; a second run is a no-op, a changed source needs --force.
    assert!(p
        .read(".claude/settings.json")
        .unwrap()
        .contains("hookbridge run --event Stop"));
    let again = migrate(&p, "claude", &[]);
    assert_eq!(again.code, Some(0));
    assert!(
        again.stderr_str().contains("already up to date"),
        "{}",
        again.stderr_str()
    );
    p.file(".claude/settings.local.json", "{}");
    assert_eq!(migrate(&p, "claude", &[]).code, Some(64));
    assert_eq!(migrate(&p, "claude", &["--force"]).code, Some(0));
    assert!(migrated(&p, "claude")["hooks"].get("SessionStart").is_none());
}

#[test]
fn gemini_events_tools_and_millisecond_timeouts_are_translated() {
    let p = project_with("gemini");
    let done = migrate(&p, "gemini", &[]);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let hooks = &migrated(&p, "gemini")["hooks"];
    let pre = hooks["PreToolUse"].as_array().unwrap();
    assert_eq!(pre[0]["matcher"], "Bash");
    assert_eq!(pre[0]["hooks"][0]["timeout"], 5);
    assert_eq!(pre[1]["matcher"], "Write|Edit");
    assert_eq!(pre[2]["matcher"], "mcp_.*", "kept, and noted");
    assert_eq!(
        hooks["UserPromptSubmit"][0]["hooks"][0]["command"],
        "./context.sh"
    );
    assert!(hooks.get("BeforeModel").is_none());
    let err = done.stderr_str();
    for note in [
        "`BeforeModel` has no Claude Code event",
        "`sequential`",
        "matcher `mcp_.*` is kept",
        "Gemini CLI's payloads",
    ] {
        assert!(err.contains(note), "no {note:?} in {err}");
    }
    assert_blocks(&p, "gemini says no");
}

#[test]
fn codex_hooks_json_and_config_toml_hooks_tables_are_both_migrated() {
    let p = project_with("codex");
    let done = migrate(&p, "codex", &[]);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let hooks = &migrated(&p, "codex")["hooks"];
    let pre = hooks["PreToolUse"].as_array().unwrap();
    assert_eq!(pre[0]["hooks"][0]["command"], "python3 .codex/hooks/guard.py");
    assert_eq!(
        pre[1],
        json!({"matcher": "Bash", "hooks": [
            {"type": "command", "command": "echo 'codex toml says no' >&2; exit 2", "timeout": 10}
        ]}),
        "config.toml's [[hooks.PreToolUse]] after hooks.json's"
    );
    assert_eq!(hooks["Stop"][0]["hooks"][0]["command"], "./check.sh");
    assert_eq!(hooks["SessionStart"][0]["hooks"][0]["command"], "echo hi");
    assert!(hooks.get("state").is_none(), "{hooks}");
    let err = done.stderr_str();
    assert!(
        err.contains("`hooks.state` switches off config.toml:session_start:0:0"),
        "{err}"
    );
    assert_blocks(&p, "codex toml says no");
}

#[test]
fn a_broken_codex_config_toml_is_named_with_its_line_and_nothing_is_written() {
    let p = project_with("codex");
    p.file(".codex/config.toml", "[hooks]\nPreToolUse = [\n");
    let done = migrate(&p, "codex", &[]);
    assert_ne!(done.code, Some(0));
    let err = done.stderr_str();
    assert!(err.contains(".codex/config.toml:"), "{err}");
    assert!(err.contains("not valid TOML"), "{err}");
    assert!(p.read(".amplifier/hooks/from-codex/hooks.json").is_none());
}

#[test]
fn cursor_events_become_tool_events_with_matchers() {
    let p = project_with("cursor");
    let done = migrate(&p, "cursor", &[]);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let hooks = &migrated(&p, "cursor")["hooks"];
    let pre = hooks["PreToolUse"].as_array().unwrap();
    assert_eq!(pre[0]["matcher"], "Bash");
    assert_eq!(pre[0]["hooks"][0]["timeout"], 5);
    assert_eq!(pre[1]["matcher"], "Bash|Edit");
    assert_eq!(
        hooks["PostToolUse"][0]["matcher"],
        "Write|Edit|MultiEdit|NotebookEdit"
    );
    assert_eq!(hooks["Stop"][0]["hooks"][0]["command"], "./stop.sh");
    let err = done.stderr_str();
    for note in [
        "`afterAgentThought` has no Claude Code event",
        "`loop_limit`",
        "`./hooks/format.sh` is relative",
    ] {
        assert!(err.contains(note), "no {note:?} in {err}");
    }
    assert_blocks(&p, "cursor says no");
}

#[test]
fn copilot_bash_commands_carry_their_cwd_env_and_timeout() {
    let p = project_with("copilot");
    let done = migrate(&p, "copilot", &["--dry-run"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    assert!(
        p.read(".amplifier/hooks/from-copilot/hooks.json").is_none(),
        "--dry-run writes nothing"
    );
    let printed: Value = serde_json::from_slice(&done.stdout).unwrap();
    let pre = &printed["hooks"]["PreToolUse"][0]["hooks"][0];
    assert_eq!(
        pre["command"],
        "cd scripts && LEVEL='strict mode' echo 'copilot says no' >&2; exit 2"
    );
    assert_eq!(pre["timeout"], 15);
    let err = done.stderr_str();
    for note in ["no `bash` command", "`errorOccurred` has no Claude Code event"] {
        assert!(err.contains(note), "no {note:?} in {err}");
    }
    assert_eq!(migrate(&p, "copilot", &[]).code, Some(0));
    assert_blocks(&p, "copilot says no");
}

/// A guard that blocks the way its own agent reads a block — exit 0 and a JSON deny — still
/// blocks once migrated: the migrated hook says whose answers it prints (`"answers"`), and its
/// deny is read as Claude Code's. Its allow is no allow here (the usual permission checks).
#[test]
fn a_guard_that_denies_in_its_own_agents_words_still_blocks() {
    let deny = |answer: Value| format!("echo '{answer}'");
    for (agent, file, config) in [
        (
            "cursor",
            ".cursor/hooks.json",
            json!({"version": 1, "hooks": {"beforeShellExecution": [
            {"command": deny(json!({"permission": "deny", "user_message": "blocked", "agent_message": "cursor json says no"}))}]}}),
        ),
        (
            "copilot",
            ".github/hooks/guard.json",
            json!({"version": 1, "hooks": {"preToolUse": [
            {"type": "command", "bash": deny(json!({"permissionDecision": "deny", "permissionDecisionReason": "copilot json says no"}))}]}}),
        ),
        (
            "gemini",
            ".gemini/settings.json",
            json!({"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [
            {"type": "command", "command": deny(json!({"decision": "deny", "reason": "gemini json says no"}))}]}]}}),
        ),
    ] {
        let p = Project::new(json!({"hooks": {}}));
        p.file(file, &config.to_string());
        let done = migrate(&p, agent, &[]);
        assert_eq!(done.code, Some(0), "{agent}: {}", done.stderr_str());
        let hook = &migrated(&p, agent)["hooks"]["PreToolUse"][0]["hooks"][0];
        assert_eq!(hook["answers"], agent, "{hook}");
        let done = p.run("PreToolUse", "claude", &p.payload("PreToolUse"));
        let answer: Value = serde_json::from_slice(&done.stdout).unwrap_or_default();
        let specific = &answer["hookSpecificOutput"];
        assert_eq!(
            specific["permissionDecision"],
            "deny",
            "{agent}: {answer} {}",
            done.stderr_str()
        );
        assert_eq!(
            specific["permissionDecisionReason"],
            format!("{agent} json says no")
        );
        // The same answer, allowing, decides nothing.
        let allow = config.to_string().replace("deny", "allow");
        p.file(file, &allow);
        assert_eq!(migrate(&p, agent, &["--force"]).code, Some(0));
        let done = p.run("PreToolUse", "claude", &p.payload("PreToolUse"));
        assert_eq!(done.code, Some(0), "{agent}: {}", done.stderr_str());
        assert!(
            !done.stdout_str().contains("\"allow\""),
            "{agent}: {}",
            done.stdout_str()
        );
    }
}

/// A matcher written as a regular expression keeps guarding the same tool: the agent's tool names
/// in it are replaced where they stand as whole words (and said), so `^run_shell_command$` still
/// fires on a shell command.
#[test]
fn a_regex_matcher_names_claude_codes_tools_after_migration() {
    for (matcher, expected) in [
        ("^run_shell_command$", "^Bash$"),
        ("run_shell_command|my_tool", "Bash|my_tool"),
        ("(run_shell_command|write_file)", "(Bash|Write)"),
    ] {
        let p = Project::new(json!({"hooks": {}}));
        p.file(
            ".gemini/settings.json",
            &json!({"hooks": {"BeforeTool": [{"matcher": matcher, "hooks": [
                {"type": "command", "command": "echo 'regex says no' >&2; exit 2"}]}]}})
            .to_string(),
        );
        let done = migrate(&p, "gemini", &[]);
        assert_eq!(done.code, Some(0), "{}", done.stderr_str());
        assert_eq!(
            migrated(&p, "gemini")["hooks"]["PreToolUse"][0]["matcher"],
            expected
        );
        assert!(
            done.stderr_str()
                .contains(&format!("is read as the regular expression `{expected}`")),
            "{}",
            done.stderr_str()
        );
        assert_blocks(&p, "regex says no");
    }
}

/// A Copilot `env` name that is not a variable name is left out (and said), never run as part of
/// the command.
#[test]
fn a_copilot_env_name_that_is_not_a_variable_is_left_out() {
    let p = Project::new(json!({"hooks": {}}));
    p.file(
        ".github/hooks/guard.json",
        &json!({"version": 1, "hooks": {"preToolUse": [
        {"type": "command", "bash": "echo ok", "env": {"GOOD": "1", "x; touch pwned; y": "2"}}]}})
        .to_string(),
    );
    let done = migrate(&p, "copilot", &["--dry-run"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let printed: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(
        printed["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "GOOD=1 echo ok"
    );
    assert!(
        done.stderr_str().contains("which is not a variable name"),
        "{}",
        done.stderr_str()
    );
}

/// A file a management command reads that a repository made endless (`/dev/zero` behind a
/// symlink) or blocking (a FIFO) is refused with its name, never read without end.
#[test]
fn an_endless_or_blocking_file_is_refused_not_read() {
    let p = Project::new(json!({"hooks": {}}));
    fs::create_dir_all(p.dir.join(".cursor")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", p.dir.join(".cursor/hooks.json")).unwrap();
    let done = migrate(&p, "cursor", &[]);
    assert_eq!(done.code, Some(1), "{}", done.stderr_str());
    assert!(
        done.stderr_str().contains(".cursor/hooks.json"),
        "{}",
        done.stderr_str()
    );
    assert!(
        done.stderr_str().contains("not a regular file"),
        "{}",
        done.stderr_str()
    );
    fs::create_dir_all(p.dir.join(".gemini")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(p.dir.join(".gemini/settings.json"))
        .status()
        .unwrap();
    assert!(made.success());
    let done = migrate(&p, "gemini", &[]);
    assert_eq!(done.code, Some(1), "{}", done.stderr_str());
    assert!(
        done.stderr_str().contains("not a regular file"),
        "{}",
        done.stderr_str()
    );
    let state = p.hooks_dir().join("hookbridge-state.json");
    std::os::unix::fs::symlink("/dev/zero", &state).unwrap();
    let dir = p.dir.to_string_lossy().into_owned();
    let done = p.finish(p.hookbridge(["disable", "anything", "--project-dir", &dir]), b"");
    assert_ne!(done.code, Some(0), "{}", done.stderr_str());
    assert!(
        done.stderr_str().contains("hookbridge-state.json"),
        "{}",
        done.stderr_str()
    );
}

#[test]
fn nothing_to_migrate_and_broken_files_are_said_plainly() {
    let p = Project::new(json!({"hooks": {}}));
    let done = migrate(&p, "gemini", &[]);
    assert_eq!(done.code, Some(0));
    assert!(
        done.stderr_str().contains("no gemini hook configuration found"),
        "{}",
        done.stderr_str()
    );
    let broken = p.file(".cursor/hooks.json", "{\n  \"hooks\": {,}\n}");
    let done = migrate(&p, "cursor", &[]);
    assert_eq!(done.code, Some(1));
    assert!(
        done.stderr_str().contains(&format!("{}:2:", broken.display())),
        "{}",
        done.stderr_str()
    );
}

/// A repository whose `.amplifier/hooks/from-claude` is a symlink to the user's hooks directory
/// would turn its hooks into the user's, run in every project: the migration is refused (with
/// `--force` and `--dry-run` too) and nothing is written there; so is one whose whole hooks
/// directory links out. `--user` still writes the user's own hooks directory.
#[test]
fn a_migration_that_would_land_outside_the_project_is_refused() {
    let p = project_with("claude");
    let user_hooks = p.home.join(".amplifier/hooks");
    fs::create_dir_all(&user_hooks).unwrap();
    std::os::unix::fs::symlink(&user_hooks, p.dir.join(".amplifier/hooks/from-claude")).unwrap();
    for extra in [&[][..], &["--force"], &["--dry-run"]] {
        let done = migrate(&p, "claude", extra);
        assert_eq!(done.code, Some(1), "{extra:?}: {}", done.stderr_str());
        let err = done.stderr_str();
        assert!(err.contains("outside the project"), "{extra:?}: {err}");
        assert!(
            err.contains(&user_hooks.join("hooks.json").display().to_string()),
            "{err}"
        );
    }
    assert_eq!(
        fs::read_dir(&user_hooks).unwrap().count(),
        0,
        "written into the user's hooks"
    );

    let p = project_with("claude");
    let user_hooks = p.home.join(".amplifier/hooks");
    fs::create_dir_all(&user_hooks).unwrap();
    fs::remove_dir_all(p.dir.join(".amplifier/hooks")).unwrap();
    std::os::unix::fs::symlink(&user_hooks, p.dir.join(".amplifier/hooks")).unwrap();
    let done = migrate(&p, "claude", &[]);
    assert_eq!(done.code, Some(1), "{}", done.stderr_str());
    assert!(
        done.stderr_str().contains("outside the project"),
        "{}",
        done.stderr_str()
    );
    assert_eq!(fs::read_dir(&user_hooks).unwrap().count(), 0);

    // The user's own settings, migrated with --user, go to the user's own hooks directory.
    copy(&p.dir.join(".claude"), &{
        let dir = p.home.join(".claude");
        fs::create_dir_all(&dir).unwrap();
        dir
    });
    let done = migrate(&p, "claude", &["--user"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    assert!(user_hooks.join("from-claude/hooks.json").exists());
}
