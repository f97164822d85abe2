//! `hookbridge install-into claude`: registering `hookbridge run` in Claude Code's settings files.
//! A second run changes no byte, the file's other keys, order, indentation and hooks survive,
//! `--remove` gives the original back byte for byte, and the registered command really dispatches.

use crate::common;

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
        assert_eq!(
            hook["command"],
            format!(
                "hookbridge run --event {event} --max-timeout {}",
                hook["timeout"].as_u64().unwrap() - 5
            )
        );
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

/// Red-team pass 12: a FIFO as the project's `.claude/settings.json` (a tarball can ship one)
/// hung `install-into` in its blocking open. It is refused at once, naming the file.
#[test]
fn a_settings_file_that_is_a_fifo_is_refused_without_waiting() {
    let p = Project::new(json!({"hooks": {}}));
    let path = settings_path(&p);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    nix::unistd::mkfifo(&path, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let done = install(&p, &[]);
    assert_ne!(done.code, Some(0), "{}", done.stderr_str());
    assert!(
        done.stderr_str().contains("not a regular file"),
        "{}",
        done.stderr_str()
    );
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
        p.hookbridge(["install-into", "claude", "--project-dir", &dir]),
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
            {"type": "command", "command": "hookbridge run --event PreToolUse --max-timeout 900 --async-rewake-hooks skip", "timeout": 905},
            {"type": "command", "command": "hookbridge run --event PreToolUse --max-timeout 900 --async-rewake-hooks only",
             "asyncRewake": true, "timeout": 905}
        ]})
    );
    assert_eq!(
        our_hook(&settings, "Stop"),
        &json!({"type": "command", "command": "hookbridge run --event Stop --max-timeout 600", "timeout": 605}),
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
        json!([{"hooks": [{"type": "command", "command": "hookbridge run --event PreToolUse --max-timeout 600", "timeout": 605}]}])
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
    let base = "hookbridge run --event PostToolUse --max-timeout 600";
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
        &json!({"type": "command", "command": "hookbridge run --host gemini --event BeforeTool --max-timeout 900", "timeout": 905_000})
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
        &json!({"type": "command", "command": "hookbridge run --host codex --event PreToolUse --max-timeout 600", "timeout": 605})
    );
    // Codex runs a project's hooks only in a project it trusts; so does hookbridge under it.
    std::fs::create_dir_all(p.home.join(".codex")).unwrap();
    std::fs::write(
        p.home.join(".codex/config.toml"),
        format!(
            "[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
            std::fs::canonicalize(&p.dir).unwrap().display()
        ),
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
        p.hookbridge([
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

/// A project's settings file is the repository's: one that is a symlink leading out of the project
/// (to `~/.docker/config.json`, say), or in a linked folder, is refused — before it is read, so
/// `--dry-run` does not print it either — and the file it leads to is untouched; a link that
/// stays inside the project is followed.
#[test]
fn a_project_settings_file_that_leads_outside_the_project_is_refused() {
    let secret = "{\"auths\": {\"registry\": {\"auth\": \"c2VjcmV0\"}}}\n";
    for (agent, scope, name) in [
        ("claude", "project", ".claude/settings.json"),
        ("claude", "local", ".claude/settings.local.json"),
        ("gemini", "project", ".gemini/settings.json"),
        ("codex", "project", ".codex/hooks.json"),
    ] {
        let p = Project::new(json!({"hooks": {}}));
        let outside = p.home.join(".docker/config.json");
        fs::create_dir_all(outside.parent().unwrap()).unwrap();
        fs::write(&outside, secret).unwrap();
        let link = p.dir.join(name);
        fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        for extra in [
            &["--scope", scope][..],
            &["--scope", scope, "--dry-run"],
            &["--scope", scope, "--remove"],
        ] {
            let done = install_for(&p, agent, extra);
            assert_eq!(done.code, Some(1), "{agent} {extra:?}: {}", done.stderr_str());
            let err = done.stderr_str();
            assert!(err.contains("outside the project"), "{agent} {extra:?}: {err}");
            assert!(err.contains("nothing was changed"), "{err}");
            assert!(
                !done.stdout_str().contains("c2VjcmV0"),
                "{agent}: the file was printed"
            );
        }
        assert_eq!(fs::read_to_string(&outside).unwrap(), secret, "{agent} {scope}");
        let beside: Vec<_> = fs::read_dir(outside.parent().unwrap()).unwrap().collect();
        assert_eq!(beside.len(), 1, "{agent}: nothing was written beside it");
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    }

    // The whole `.claude` folder linked to the user's: the same refusal.
    let p = Project::new(json!({"hooks": {}}));
    let user_claude = p.home.join(".claude");
    fs::create_dir_all(&user_claude).unwrap();
    fs::write(user_claude.join("settings.json"), "{\"model\": \"opus\"}\n").unwrap();
    std::os::unix::fs::symlink(&user_claude, p.dir.join(".claude")).unwrap();
    let done = install(&p, &[]);
    assert_eq!(done.code, Some(1), "{}", done.stderr_str());
    assert!(
        done.stderr_str().contains("outside the project"),
        "{}",
        done.stderr_str()
    );
    assert_eq!(
        fs::read_to_string(user_claude.join("settings.json")).unwrap(),
        "{\"model\": \"opus\"}\n"
    );

    // A link inside the project is the project's own choice.
    let p = Project::new(json!({"hooks": {}}));
    let shared = p.file("config/claude-settings.json", "{\"model\": \"opus\"}\n");
    fs::create_dir_all(p.dir.join(".claude")).unwrap();
    std::os::unix::fs::symlink("../config/claude-settings.json", settings_path(&p)).unwrap();
    let done = install(&p, &[]);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    our_hook(&parsed(&shared), "Stop");
    assert!(fs::symlink_metadata(settings_path(&p))
        .unwrap()
        .file_type()
        .is_symlink());
}

/// A settings file can hold an API key: its backup is created with the file's mode (and owner,
/// which root can give), and the first backup — the file as it was before hookbridge — is never
/// overwritten by a later run; the rewritten file keeps its mode and owner too.
#[test]
fn backups_keep_the_mode_and_owner_and_the_first_one_stays() {
    use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
    let p = Project::new(json!({"hooks": {}}));
    let original = "{\n  \"env\": {\n    \"ANTHROPIC_API_KEY\": \"sk-ant-secret\"\n  }\n}\n";
    let path = p.file(".claude/settings.json", original);
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    // Root can hand the file to another user; then the backup and the new file must stay theirs.
    let other_owner = std::os::unix::fs::chown(&path, Some(65534), Some(65534)).is_ok();
    let owner = (
        fs::metadata(&path).unwrap().uid(),
        fs::metadata(&path).unwrap().gid(),
    );
    let backup = path.with_file_name("settings.json.hookbridge-backup");

    let done = install(&p, &[]);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    for file in [&backup, &path] {
        let meta = fs::metadata(file).unwrap();
        assert_eq!(meta.mode() & 0o777, 0o600, "{}", file.display());
        assert_eq!(
            (meta.uid(), meta.gid()),
            owner,
            "{} (other owner: {other_owner})",
            file.display()
        );
    }
    assert_eq!(fs::read_to_string(&backup).unwrap(), original);

    // Later runs (a removal, an install after an edit) keep the first backup as it is.
    assert_eq!(install(&p, &["--remove"]).code, Some(0));
    assert_eq!(fs::read_to_string(&path).unwrap(), original);
    fs::write(&path, "{\"model\": \"opus\"}\n").unwrap();
    let again = install(&p, &[]);
    assert_eq!(again.code, Some(0), "{}", again.stderr_str());
    assert!(
        again.stderr_str().contains("before hookbridge first changed it"),
        "{}",
        again.stderr_str()
    );
    assert_eq!(fs::read_to_string(&backup).unwrap(), original);

    // A symlink at the backup's name is not written through: nothing is changed.
    let p = Project::new(json!({"hooks": {}}));
    let path = p.file(".claude/settings.json", "{}\n");
    let elsewhere = p.home.join(".bashrc");
    fs::write(&elsewhere, "# mine\n").unwrap();
    std::os::unix::fs::symlink(&elsewhere, path.with_file_name("settings.json.hookbridge-backup")).unwrap();
    let done = install(&p, &[]);
    assert_eq!(done.code, Some(1), "{}", done.stderr_str());
    assert!(
        done.stderr_str().contains("not a regular file"),
        "{}",
        done.stderr_str()
    );
    assert_eq!(fs::read_to_string(&elsewhere).unwrap(), "# mine\n");
    assert_eq!(fs::read_to_string(&path).unwrap(), "{}\n");
}

/// A copy of hookbridge under another name (`hookbridge-1.2`, not on PATH, so it registers its
/// absolute path) recognises its own registrations by what they run: a second run changes nothing,
/// another copy replaces them in place, and `--remove` takes them out.
#[test]
fn a_renamed_binary_finds_its_own_registrations() {
    use std::os::unix::fs::PermissionsExt as _;
    let p = Project::new(json!({"hooks": {"PostToolUse": [{"hooks": [
        {"type": "command", "command": "true", "async": true}
    ]}]}}));
    let copy = p.home.join("opt/hookbridge-1.2");
    fs::create_dir_all(copy.parent().unwrap()).unwrap();
    fs::copy(common::hookbridge_bin(), &copy).unwrap();
    fs::set_permissions(&copy, fs::Permissions::from_mode(0o755)).unwrap();
    let dir = p.dir.to_string_lossy().into_owned();
    let run_copy = |extra: &[&str]| {
        let mut cmd = p.hookbridge([] as [&str; 0]);
        cmd.env("PATH", "/usr/bin:/bin");
        let mut args = vec!["install-into", "claude", "--project-dir", dir.as_str()];
        args.extend_from_slice(extra);
        let mut with_copy = std::process::Command::new(&copy);
        with_copy.args(&args);
        for (key, value) in cmd.get_envs() {
            match value {
                Some(value) => with_copy.env(key, value),
                None => with_copy.env_remove(key),
            };
        }
        with_copy.current_dir(&p.dir);
        p.finish(with_copy, b"")
    };
    let count = |settings: &Value| -> usize {
        settings["hooks"]
            .as_object()
            .unwrap()
            .values()
            .flat_map(|groups| groups.as_array().unwrap())
            .flat_map(|g| g["hooks"].as_array().unwrap())
            .count()
    };

    let first = run_copy(&[]);
    assert_eq!(first.code, Some(0), "{}", first.stderr_str());
    let settings = parsed(&settings_path(&p));
    let command = settings["hooks"]["Stop"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        command.ends_with("/opt/hookbridge-1.2 run --event Stop --max-timeout 600"),
        "{command}"
    );
    let hooks = count(&settings);
    let bytes = fs::read(settings_path(&p)).unwrap();

    let second = run_copy(&[]);
    assert_eq!(second.code, Some(0), "{}", second.stderr_str());
    assert!(
        second.stderr_str().contains("already up to date"),
        "{}",
        second.stderr_str()
    );
    assert_eq!(
        fs::read(settings_path(&p)).unwrap(),
        bytes,
        "registrations doubled"
    );

    // Another copy (the one on PATH, say) replaces them in place.
    let other = install(&p, &[]);
    assert_eq!(other.code, Some(0), "{}", other.stderr_str());
    let settings = parsed(&settings_path(&p));
    assert_eq!(count(&settings), hooks, "{settings}");
    assert_eq!(
        our_hook(&settings, "Stop")["command"],
        "hookbridge run --event Stop --max-timeout 600"
    );
    assert_eq!(run_copy(&[]).code, Some(0));

    let removed = run_copy(&["--remove"]);
    assert_eq!(removed.code, Some(0), "{}", removed.stderr_str());
    assert!(
        !settings_path(&p).exists(),
        "{:?}",
        p.read(".claude/settings.json")
    );
}

/// Claude Code writes its settings file while it runs (a permission rule added on "always
/// allow"), with no lock, as a read, then a rename of a new file. A writer doing that (at least
/// 250 times, one every 5 ms, for as long as hookbridge runs) while `install-into` and
/// `install-into --remove` run 12 times loses none of its edits, and hookbridge's registration is
/// there after a last run. The old read-edit-rename, with the whole run between read and rename,
/// lost dozens.
#[test]
fn a_concurrent_writer_of_the_settings_file_loses_no_edit() {
    use std::sync::atomic::{AtomicBool, Ordering};
    const EDITS: usize = 250;
    const RUNS: usize = 12;
    let p = Project::new(json!({"hooks": {}}));
    let path = p.file(
        ".claude/settings.json",
        "{\n  \"permissions\": {\n    \"allow\": []\n  }\n}\n",
    );
    let hookbridge_done = std::sync::Arc::new(AtomicBool::new(false));
    let writer = {
        let path = path.clone();
        let hookbridge_done = hookbridge_done.clone();
        std::thread::spawn(move || {
            let mut edits = 0;
            while edits < EDITS || !hookbridge_done.load(Ordering::SeqCst) {
                let mut settings: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
                settings["permissions"]["allow"]
                    .as_array_mut()
                    .unwrap()
                    .push(json!(format!("Bash(echo {edits})")));
                let temp = path.with_file_name(format!(".settings.json.tmp.{edits}"));
                fs::write(&temp, serde_json::to_string_pretty(&settings).unwrap()).unwrap();
                fs::rename(&temp, &path).unwrap();
                edits += 1;
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            edits
        })
    };
    let mut retried = 0;
    for run in 0..RUNS {
        let extra: &[&str] = if run % 2 == 0 { &[] } else { &["--remove"] };
        let done = install(&p, extra);
        assert_eq!(done.code, Some(0), "{}", done.stderr_str());
        retried += usize::from(done.stderr_str().contains("another program changed it"));
    }
    hookbridge_done.store(true, Ordering::SeqCst);
    let edits = writer.join().unwrap();
    let settings = parsed(&path);
    let allowed = settings["permissions"]["allow"].as_array().unwrap();
    let lost: Vec<usize> = (0..edits)
        .filter(|i| !allowed.contains(&json!(format!("Bash(echo {i})"))))
        .collect();
    println!(
        "{edits} edits by the writer, {RUNS} install-into runs ({retried} saw the file change and edited again), {} edits lost",
        lost.len()
    );
    assert!(lost.is_empty(), "{} of {edits} edits lost: {lost:?}", lost.len());
    assert_eq!(allowed.len(), edits, "{settings}");
    assert_eq!(install(&p, &[]).code, Some(0));
    our_hook(&parsed(&path), "Stop");
}

/// The user's registration serves every project, so the project it is made in has no say in it:
/// a clone's hooks (trusted or not) neither raise every project's outer timeout and cap nor
/// register an event that replaces Claude Code's own behaviour (WorktreeCreate) user-wide. The
/// same hooks do shape that project's own registration.
#[test]
fn the_users_registration_is_made_from_the_users_hooks_only() {
    let p = Project::new(json!({"hooks": {
        "PreToolUse": [{"hooks": [{"type": "command", "command": "true", "timeout": 2147483}]}],
        "WorktreeCreate": [{"hooks": [{"type": "command", "command": "true"}]}]
    }}));
    let user = p.home.join(".claude/settings.json");
    assert_eq!(install(&p, &["--scope", "user"]).code, Some(0));
    let settings = parsed(&user);
    assert_eq!(our_hook(&settings, "PreToolUse")["timeout"], 605, "{settings}");
    assert!(settings["hooks"].get("WorktreeCreate").is_none(), "{settings}");

    assert_eq!(install(&p, &[]).code, Some(0));
    let settings = parsed(&settings_path(&p));
    assert_eq!(
        our_hook(&settings, "PreToolUse")["timeout"],
        2147488,
        "{settings}"
    );
    our_hook(&settings, "WorktreeCreate");
}
