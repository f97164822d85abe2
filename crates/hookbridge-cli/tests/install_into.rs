//! `hookbridge install-into claude`: registering `hookbridge run` in Claude Code's settings files.
//! A second run changes no byte, the file's other keys, order, indentation and hooks survive,
//! `--remove` gives the original back byte for byte, and the registered command really dispatches.

mod common;

use std::fs;
use std::path::Path;

use common::project::Project;
use serde_json::{json, Value};

fn install(p: &Project, extra: &[&str]) -> common::Finished {
    install_for(p, "claude", extra)
}

/// `install-into AGENT` for the project, `hookbridge` as the program.
fn install_for(p: &Project, agent: &str, extra: &[&str]) -> common::Finished {
    let dir = p.dir.to_string_lossy().into_owned();
    let mut args = vec![
        "install-into",
        agent,
        "--project-dir",
        &dir,
        "--program",
        "hookbridge",
    ];
    args.extend_from_slice(extra);
    p.finish(p.hookbridge(&args), b"")
}

fn settings_path(p: &Project) -> std::path::PathBuf {
    p.dir.join(".claude/settings.json")
}

fn parsed(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

fn our_hook<'a>(settings: &'a Value, event: &str) -> &'a Value {
    settings["hooks"][event]
        .as_array()
        .unwrap_or_else(|| panic!("{event} is not registered: {settings}"))
        .iter()
        .flat_map(|g| g["hooks"].as_array().unwrap())
        .find(|h| h["command"].as_str().unwrap().contains("hookbridge run --event "))
        .unwrap_or_else(|| panic!("no hookbridge hook on {event}: {settings}"))
}

#[test]
fn a_new_file_registers_every_event_and_a_second_run_changes_no_byte() {
    let p = Project::new(json!({"hooks": {}}));
    let done = install(&p, &[]);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let path = settings_path(&p);
    let settings = parsed(&path);
    let events = settings["hooks"].as_object().unwrap();
    for event in [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PermissionRequest",
        "PostToolUse",
        "Stop",
        "SessionEnd",
    ] {
        let hook = our_hook(&settings, event);
        assert_eq!(hook["command"], format!("hookbridge run --event {event}"));
        assert_eq!(hook["type"], "command");
        assert!(hook["timeout"].as_u64().unwrap() > 30, "{hook}");
    }
    assert!(
        events.get("WorktreeCreate").is_none(),
        "a WorktreeCreate hook replaces git's worktrees"
    );
    assert!(events.values().all(|groups| groups[0].get("matcher").is_none()));
    assert!(
        !path.with_file_name("settings.json.hookbridge-backup").exists(),
        "there was nothing to back up"
    );

    let first = fs::read(&path).unwrap();
    let modified = fs::metadata(&path).unwrap().modified().unwrap();
    let again = install(&p, &[]);
    assert_eq!(again.code, Some(0), "{}", again.stderr_str());
    assert!(
        again.stderr_str().contains("already up to date"),
        "{}",
        again.stderr_str()
    );
    assert_eq!(fs::read(&path).unwrap(), first);
    assert_eq!(
        fs::metadata(&path).unwrap().modified().unwrap(),
        modified,
        "the file was rewritten"
    );
}

#[test]
fn other_keys_order_indentation_and_hooks_survive_and_remove_restores_the_bytes() {
    let p = Project::new(json!({"hooks": {}}));
    let original = "{\n    \"model\": \"opus\",\n    \"hooks\": {\n        \"PreToolUse\": [\n            {\n                \"matcher\": \"Bash\",\n                \"hooks\": [\n                    {\n                        \"type\": \"command\",\n                        \"command\": \"./guard.sh\"\n                    }\n                ]\n            }\n        ]\n    },\n    \"permissions\": {\n        \"allow\": [\n            \"Bash(ls)\"\n        ]\n    }\n}\n";
    let path = p.file(".claude/settings.json", original);
    let done = install(&p, &[]);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let text = fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with("{\n    \"model\": \"opus\",\n    \"hooks\": {"),
        "{text}"
    );
    let settings = parsed(&path);
    let keys: Vec<&String> = settings.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["model", "hooks", "permissions"]);
    assert_eq!(
        settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "./guard.sh"
    );
    our_hook(&settings, "PreToolUse");
    assert_eq!(
        fs::read_to_string(path.with_file_name("settings.json.hookbridge-backup")).unwrap(),
        original
    );

    let removed = install(&p, &["--remove"]);
    assert_eq!(removed.code, Some(0), "{}", removed.stderr_str());
    assert_eq!(fs::read_to_string(&path).unwrap(), original);
}

#[test]
fn remove_deletes_a_file_that_only_held_our_hooks() {
    let p = Project::new(json!({"hooks": {}}));
    assert_eq!(install(&p, &[]).code, Some(0));
    let done = install(&p, &["--remove"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    assert!(!settings_path(&p).exists());
    let nothing = install(&p, &["--remove"]);
    assert_eq!(nothing.code, Some(0), "{}", nothing.stderr_str());
    assert!(!settings_path(&p).exists());
}

#[test]
fn dry_run_prints_the_file_and_writes_nothing() {
    let p = Project::new(json!({"hooks": {}}));
    let done = install(&p, &["--dry-run", "--scope", "local"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let printed: Value = serde_json::from_slice(&done.stdout).unwrap();
    our_hook(&printed, "Stop");
    assert!(!p.dir.join(".claude").exists());
    assert!(
        done.stderr_str().contains("settings.local.json"),
        "{}",
        done.stderr_str()
    );
}

#[test]
fn timeouts_cover_the_slowest_hook_and_configured_replacing_events_are_registered() {
    let p = Project::new(json!({"hooks": {
        "PreToolUse": [{"hooks": [
            {"type": "command", "command": "true", "timeout": 900},
            {"type": "command", "command": "true", "timeout": 5}
        ]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "true"}]}],
        "WorktreeCreate": [{"hooks": [{"type": "command", "command": "echo /tmp/wt"}]}]
    }}));
    assert_eq!(install(&p, &[]).code, Some(0));
    let settings = parsed(&settings_path(&p));
    assert_eq!(our_hook(&settings, "PreToolUse")["timeout"], 905);
    assert_eq!(our_hook(&settings, "UserPromptSubmit")["timeout"], 35);
    assert_eq!(our_hook(&settings, "Stop")["timeout"], 605);
    our_hook(&settings, "WorktreeCreate");

    // The slow hook goes: the next install updates the timeout in place.
    p.write_hooks(&json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}}));
    let done = install(&p, &[]);
    assert!(done.stderr_str().contains("updated"), "{}", done.stderr_str());
    let settings = parsed(&settings_path(&p));
    assert_eq!(our_hook(&settings, "PreToolUse")["timeout"], 605);
    assert!(settings["hooks"].get("WorktreeCreate").is_none(), "{settings}");
}

/// An event Claude Code does not know (yet) is registered, so hooks for a newer Claude Code's
/// events reach hookbridge; a known event misspelt is not (Claude Code would only warn about the
/// entry), and install-into says which event was meant.
#[test]
fn other_events_are_registered_but_a_misspelt_known_event_is_not() {
    let p = Project::new(json!({"hooks": {
        "PreToolUs": [{"hooks": [{"type": "command", "command": "true"}]}],
        "NightlyDigest": [{"hooks": [{"type": "command", "command": "true"}]}]
    }}));
    let done = install(&p, &[]);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let settings = parsed(&settings_path(&p));
    our_hook(&settings, "NightlyDigest");
    our_hook(&settings, "PreToolUse");
    assert!(settings["hooks"].get("PreToolUs").is_none(), "{settings}");
    assert!(
        done.stderr_str()
            .contains("hooks for `PreToolUs` are not registered: Claude Code fires no such event; did you mean `PreToolUse`?"),
        "{}",
        done.stderr_str()
    );
}

#[test]
fn a_hook_in_both_places_and_a_second_scope_are_warned_about() {
    let p = Project::new(json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "./guard.sh"}
    ]}]}}));
    p.file(
        ".claude/settings.local.json",
        &serde_json::to_string(&json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "./guard.sh"}
        ]}]}}))
        .unwrap(),
    );
    let user = p.home.join(".claude/settings.json");
    fs::create_dir_all(user.parent().unwrap()).unwrap();
    fs::write(
        &user,
        json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "hookbridge run --event Stop"}]}]}}).to_string(),
    )
    .unwrap();
    let done = install(&p, &[]);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let err = done.stderr_str();
    assert!(
        err.contains("`./guard.sh` (PreToolUse)") && err.contains("run twice"),
        "{err}"
    );
    assert!(err.contains("settings.local.json"), "{err}");
    assert!(
        err.contains(&format!("{} registers hookbridge too", user.display())),
        "{err}"
    );
}

#[test]
fn a_broken_file_is_named_with_its_position_and_left_alone() {
    let p = Project::new(json!({"hooks": {}}));
    let broken = "{\n  \"hooks\": {\n    \"Stop\": [,]\n  }\n}\n";
    let path = p.file(".claude/settings.json", broken);
    let done = install(&p, &[]);
    assert_eq!(done.code, Some(1), "{}", done.stderr_str());
    let err = done.stderr_str();
    assert!(err.contains(&format!("{}:3:", path.display())), "{err}");
    assert!(err.contains("nothing was changed"), "{err}");
    assert_eq!(fs::read_to_string(&path).unwrap(), broken);

    let wrong_shape = "{\"hooks\": []}";
    fs::write(&path, wrong_shape).unwrap();
    let done = install(&p, &[]);
    assert_eq!(done.code, Some(1));
    assert!(
        done.stderr_str().contains("`hooks` is not an object"),
        "{}",
        done.stderr_str()
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), wrong_shape);
}

#[test]
fn a_symlinked_settings_file_is_written_through_the_link() {
    let p = Project::new(json!({"hooks": {}}));
    let dotfiles = p.home.join("dotfiles/claude-settings.json");
    fs::create_dir_all(dotfiles.parent().unwrap()).unwrap();
    fs::write(&dotfiles, "{\"model\": \"opus\"}\n").unwrap();
    let link = p.home.join(".claude/settings.json");
    fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&dotfiles, &link).unwrap();
    let done = install(&p, &["--scope", "user"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    let settings = parsed(&dotfiles);
    assert_eq!(settings["model"], "opus");
    our_hook(&settings, "SessionStart");
}

#[test]
fn the_registered_command_dispatches_the_projects_hooks() {
    let p = Project::new(json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "echo 'no rm' >&2; exit 2"}
    ]}]}}));
    let bin = common::hookbridge_bin();
    let dir = p.dir.to_string_lossy().into_owned();
    let done = p.finish(
        p.hookbridge(&["install-into", "claude", "--project-dir", &dir]),
        b"",
    );
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let settings = parsed(&settings_path(&p));
    let command = our_hook(&settings, "PreToolUse")["command"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        command.starts_with(&format!("{} run", bin.display())),
        "not on PATH, so the absolute path: {command}"
    );
    // As Claude Code starts it: `sh -c <command>` with the payload on stdin.
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c").arg(&command);
    for var in common::HOSTILE_ENV {
        cmd.env_remove(var);
    }
    cmd.env("HOME", &p.home)
        .env("CLAUDE_PROJECT_DIR", &p.dir)
        .env("HOOKBRIDGE_LOG", &p.log);
    let payload = serde_json::to_vec(&p.payload("PreToolUse")).unwrap();
    let ran = p.finish(cmd, &payload);
    assert_eq!(ran.code, Some(2), "{}", ran.stderr_str());
    assert!(ran.stderr_str().contains("no rm"), "{}", ran.stderr_str());
}

/// Start the registered `hook` of settings as Claude Code starts it (`sh -c`, the event's payload
/// on stdin), `hookbridge` being this build.
fn start_as_claude_code(p: &Project, hook: &Value, event: &str) -> common::Finished {
    start_as_agent(p, hook, &p.payload(event))
}

/// Start the registered `hook` as an agent starts it (`sh -c`), with `payload` on stdin.
fn start_as_agent(p: &Project, hook: &Value, payload: &Value) -> common::Finished {
    let bin = common::hookbridge_bin();
    let command = hook["command"]
        .as_str()
        .unwrap()
        .replacen("hookbridge", &bin.to_string_lossy(), 1);
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c").arg(command).current_dir(&p.dir);
    for var in common::HOSTILE_ENV {
        cmd.env_remove(var);
    }
    cmd.env("HOME", &p.home)
        .env("CLAUDE_PROJECT_DIR", &p.dir)
        .env("HOOKBRIDGE_LOG", &p.log);
    p.finish(cmd, &serde_json::to_vec(payload).unwrap())
}

/// An event with an `asyncRewake` hook gets a second registration with `asyncRewake: true` that runs
/// only those hooks (Claude Code wakes the model with an exit 2 only for a hook registered so), and
/// the first leaves them out. Each registered command, started as Claude Code starts it, runs its
/// share: the sync hook in one, the rewake hook (exit 2, its stderr) in the other.
#[test]
fn async_rewake_hooks_get_a_registration_of_their_own() {
    let p = Project::new(json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "echo ran >> sync.txt"},
        {"type": "command", "command": "echo ran >> rewake.txt; echo 'wake up: check this' >&2; exit 2",
         "asyncRewake": true, "timeout": 900}
    ]}]}}));
    assert_eq!(install(&p, &[]).code, Some(0));
    let settings = parsed(&settings_path(&p));
    let group = &settings["hooks"]["PreToolUse"][0];
    assert_eq!(
        group,
        &json!({"hooks": [
            {"type": "command", "command": "hookbridge run --event PreToolUse --async-rewake-hooks skip", "timeout": 905},
            {"type": "command", "command": "hookbridge run --event PreToolUse --async-rewake-hooks only",
             "asyncRewake": true, "timeout": 905}
        ]})
    );
    assert_eq!(
        our_hook(&settings, "Stop"),
        &json!({"type": "command", "command": "hookbridge run --event Stop", "timeout": 605}),
        "events without such hooks keep one registration"
    );
    let before = fs::read(settings_path(&p)).unwrap();
    assert_eq!(install(&p, &[]).code, Some(0));
    assert_eq!(
        fs::read(settings_path(&p)).unwrap(),
        before,
        "a second run changes no byte"
    );

    // Each command as Claude Code starts it (`hookbridge` is this build).
    let start = |hook: &Value| start_as_claude_code(&p, hook, "PreToolUse");
    let main = start(&group["hooks"][0]);
    assert_eq!((main.code, main.stderr_str()), (Some(0), String::new()));
    assert_eq!(p.read("sync.txt").as_deref(), Some("ran\n"));
    assert_eq!(
        p.read("rewake.txt"),
        None,
        "the main registration leaves the rewake hook out"
    );
    let rewake = start(&group["hooks"][1]);
    assert_eq!(
        (rewake.code, rewake.stdout_str(), rewake.stderr_str()),
        (Some(2), String::new(), "wake up: check this\n".to_string())
    );
    assert_eq!(p.read("rewake.txt").as_deref(), Some("ran\n"));
    assert_eq!(
        p.read("sync.txt").as_deref(),
        Some("ran\n"),
        "and runs nothing else"
    );

    // Without the rewake hook, the next install goes back to one registration.
    p.write_hooks(&json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}}));
    assert_eq!(install(&p, &[]).code, Some(0));
    assert_eq!(
        parsed(&settings_path(&p))["hooks"]["PreToolUse"],
        json!([{"hooks": [{"type": "command", "command": "hookbridge run --event PreToolUse", "timeout": 605}]}])
    );
}

/// An event with `async: true` hooks gets a registration with `async: true` that runs only those
/// (Claude Code delivers an async hook's answer on a later request only for a hook registered so),
/// beside the rewake one when both kinds are there; the main registration runs the rest. Each, as
/// Claude Code starts it, answers for its share: the async one with the hooks' later messages.
#[test]
fn async_hooks_get_a_registration_of_their_own() {
    let p = Project::new(json!({"hooks": {"PostToolUse": [{"hooks": [
        {"type": "command", "command": "echo ran >> sync.txt"},
        {"type": "command", "async": true, "timeout": 30,
         "command": "echo '{\"systemMessage\": \"ASYNC-SYSMSG\", \"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"ASYNC-CTX\"}}'"},
        {"type": "command", "asyncRewake": true, "command": "echo rewake >> rewake.txt"}
    ]}]}}));
    assert_eq!(install(&p, &[]).code, Some(0));
    let settings = parsed(&settings_path(&p));
    let group = &settings["hooks"]["PostToolUse"][0];
    let base = "hookbridge run --event PostToolUse";
    assert_eq!(
        group,
        &json!({"hooks": [
            {"type": "command", "command": format!("{base} --async-hooks skip --async-rewake-hooks skip"), "timeout": 605},
            {"type": "command", "command": format!("{base} --async-hooks only"), "async": true, "timeout": 605},
            {"type": "command", "command": format!("{base} --async-rewake-hooks only"), "asyncRewake": true, "timeout": 605}
        ]})
    );
    let start = |hook: &Value| start_as_claude_code(&p, hook, "PostToolUse");
    let main = start(&group["hooks"][0]);
    assert_eq!((main.code, main.stdout_str()), (Some(0), String::new()));
    assert_eq!(
        (p.read("sync.txt").as_deref(), p.read("rewake.txt")),
        (Some("ran\n"), None)
    );
    let later = start(&group["hooks"][1]);
    assert_eq!(later.code, Some(0), "{}", later.stderr_str());
    let answer: Value = serde_json::from_slice(&later.stdout).unwrap();
    assert_eq!(
        answer,
        json!({"systemMessage": "ASYNC-SYSMSG", "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "ASYNC-CTX"}})
    );
    assert_eq!(
        (p.read("sync.txt").as_deref(), p.read("rewake.txt")),
        (Some("ran\n"), None)
    );
    assert_eq!(start(&group["hooks"][2]).code, Some(0));
    assert_eq!(p.read("rewake.txt").as_deref(), Some("rewake\n"));
    assert_eq!(p.read("sync.txt").as_deref(), Some("ran\n"));
    // Both background flags at once is a usage error.
    let mut both = p.command("PostToolUse", "claude");
    both.args(["--async-hooks", "only", "--async-rewake-hooks", "only"]);
    assert_eq!(p.finish(both, b"{}").code, Some(64));
}

/// The `only` registration's answer when no rewake hook exits 2: what an async hook gives (its
/// messages later), never a decision.
#[test]
fn a_rewake_registration_without_an_exit_2_answers_as_an_async_hook() {
    let p = Project::new(json!({"hooks": {"PostToolUse": [{"hooks": [
        {"type": "command", "asyncRewake": true,
         "command": "echo '{\"systemMessage\": \"all clean\", \"decision\": \"block\", \"reason\": \"no\"}'"}
    ]}]}}));
    let mut cmd = p.command("PostToolUse", "claude");
    cmd.args(["--async-rewake-hooks", "only"]);
    let done = p.finish(cmd, &serde_json::to_vec(&p.payload("PostToolUse")).unwrap());
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    assert_eq!(done.stdout_str(), "{\"systemMessage\":\"all clean\"}\n");
    assert!(
        p.log_text().contains("async answers can only add context"),
        "{}",
        p.log_text()
    );
}

/// `install-into gemini`: `hookbridge run --host gemini` for each Gemini CLI event that has a
/// Claude Code counterpart, in `.gemini/settings.json`, timeouts in milliseconds; the file's other
/// settings kept, a second run a no-op, `--remove` taking hookbridge out again, and the registered
/// command answering a Gemini payload in Gemini's terms.
#[test]
fn install_into_gemini_registers_the_gemini_host_with_millisecond_timeouts() {
    let p = Project::new(json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "echo 'no rm' >&2; exit 2", "timeout": 900}
    ]}]}}));
    let settings_file = p.file(
        ".gemini/settings.json",
        "{\n  \"general\": {\"vimMode\": true}\n}\n",
    );
    let done = install_for(&p, "gemini", &[]);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let settings = parsed(&settings_file);
    assert_eq!(settings["general"], json!({"vimMode": true}));
    let events: Vec<&str> = settings["hooks"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        events,
        [
            "BeforeTool",
            "AfterTool",
            "BeforeAgent",
            "AfterAgent",
            "SessionStart",
            "SessionEnd",
            "Notification",
            "PreCompress"
        ]
    );
    let before_tool = &settings["hooks"]["BeforeTool"][0]["hooks"][0];
    assert_eq!(
        before_tool,
        &json!({"type": "command", "command": "hookbridge run --host gemini --event BeforeTool", "timeout": 905_000})
    );
    assert_eq!(settings["hooks"]["AfterAgent"][0]["hooks"][0]["timeout"], 605_000);
    let before = fs::read(&settings_file).unwrap();
    assert_eq!(install_for(&p, "gemini", &[]).code, Some(0));
    assert_eq!(
        fs::read(&settings_file).unwrap(),
        before,
        "a second run changes no byte"
    );

    // The registered command, as Gemini CLI starts it, with a Gemini payload.
    let payload = json!({"hook_event_name": "BeforeTool", "cwd": p.dir, "tool_name": "run_shell_command", "tool_input": {"command": "rm -rf x"}});
    let ran = start_as_agent(&p, before_tool, &payload);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr_str());
    assert_eq!(
        serde_json::from_slice::<Value>(&ran.stdout).unwrap(),
        json!({"decision": "deny", "reason": "no rm"})
    );

    assert_eq!(install_for(&p, "gemini", &["--remove"]).code, Some(0));
    let settings = parsed(&settings_file);
    assert_eq!(settings, json!({"general": {"vimMode": true}}));
    let done = install_for(&p, "gemini", &["--scope", "local"]);
    assert_eq!(done.code, Some(64));
    assert!(
        done.stderr_str().contains("no local settings file"),
        "{}",
        done.stderr_str()
    );
}

/// `install-into codex`: `hookbridge run --host codex` for each event Codex CLI shares with Claude
/// Code, in `.codex/hooks.json` (Claude Code's shape and units); the command, as Codex starts it,
/// answers in the form Codex accepts; `migrate --from codex` does not take hookbridge's own
/// registrations for hooks to import.
#[test]
fn install_into_codex_registers_the_codex_host_in_hooks_json() {
    let p = Project::new(
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
        "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"no\"}}'"}]}]}}),
    );
    let done = install_for(&p, "codex", &[]);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let hooks_file = p.dir.join(".codex/hooks.json");
    let settings = parsed(&hooks_file);
    assert_eq!(settings["hooks"].as_object().unwrap().len(), 10);
    let pre = &settings["hooks"]["PreToolUse"][0]["hooks"][0];
    assert_eq!(
        pre,
        &json!({"type": "command", "command": "hookbridge run --host codex --event PreToolUse", "timeout": 605})
    );
    // Codex runs a project's hooks only in a project it trusts; so does hookbridge under it.
    std::fs::create_dir_all(p.home.join(".codex")).unwrap();
    std::fs::write(
        p.home.join(".codex/config.toml"),
        format!("[projects.\"{}\"]\ntrust_level = \"trusted\"\n", std::fs::canonicalize(&p.dir).unwrap().display()),
    )
    .unwrap();
    let ran = start_as_agent(&p, pre, &p.payload("PreToolUse"));
    assert_eq!(ran.code, Some(0), "{}", ran.stderr_str());
    let answer: Value = serde_json::from_slice(&ran.stdout).unwrap();
    assert_eq!(
        answer,
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}}),
        "the command Codex starts answers as hookbridge run --host codex"
    );
    let migrated = p.finish(
        p.hookbridge(&[
            "migrate",
            "--from",
            "codex",
            "--dry-run",
            "--project-dir",
            &p.dir.to_string_lossy(),
        ]),
        b"",
    );
    assert!(
        !migrated.stdout_str().contains("run --host codex"),
        "{}",
        migrated.stdout_str()
    );
}
