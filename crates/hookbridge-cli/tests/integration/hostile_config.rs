//! Fail-safe loading (issue 10): configs and payloads that used to crash, hang or silently disable
//! hookbridge. Each test names the fault; each runs the real binary under a watchdog, so a hang is
//! a failure with a message, not a stuck test run. In every case the other hooks still run and the
//! problem is reported by `validate` (nothing is skipped silently).

use crate::common;

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::project::{Project, WATCHDOG};
use common::{hookbridge_bin, run_with_deadline, Finished, HOSTILE_ENV};
use serde_json::{json, Value};

/// The stderr of every hook that ran, from a `--format report` run.
fn ran(p: &Project, event: &str, payload: &[u8]) -> Vec<String> {
    let (report, _) = p.event_report(event, payload);
    let hooks = report["hooks"].as_array().expect("a report lists hooks");
    hooks
        .iter()
        .map(|h| h["stderr"].as_str().unwrap_or("").trim().to_string())
        .collect()
}

/// `hookbridge validate --project-dir <project>`.
fn validate(p: &Project) -> Finished {
    p.finish(
        p.hookbridge([
            OsStr::new("validate"),
            OsStr::new("--project-dir"),
            p.dir.as_os_str(),
        ]),
        b"",
    )
}

/// A PreToolUse hook that blocks with `reason` on stderr.
fn blocker(reason: &str) -> Value {
    json!({"type": "command", "command": format!("echo {reason} >&2; exit 2")})
}

fn bash_payload() -> Vec<u8> {
    serde_json::to_vec(&json!({
        "session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "ls"}, "cwd": "/"
    }))
    .unwrap()
}

/// What `validate` printed: diagnostics go to stderr, the summary to stdout.
fn all(out: &Finished) -> String {
    format!("{}{}", out.stdout_str(), out.stderr_str())
}

fn assert_blocked(out: &Finished, reason: &str) {
    assert_eq!(out.code, Some(2), "expected a block: {out:?}");
    assert!(out.stderr_str().contains(reason), "{out:?}");
}

#[test]
fn a_timeout_past_durations_range_is_capped_not_a_crash() {
    let p = Project::bare();
    let hooks = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "echo huge-timeout >&2; exit 2", "timeout": 1e20}
    ]}]}});
    p.hook_file("hooks.json", &hooks.to_string());
    // Claude Code runs this hook to its end (measured): so does hookbridge.
    assert_blocked(&p.run("PreToolUse", "claude", &bash_payload()), "huge-timeout");
    let v = validate(&p);
    assert!(!all(&v).contains("panicked"), "{v:?}");
    assert!(all(&v).contains("longest timeout"), "the cap is reported: {v:?}");
}

#[test]
fn a_matcher_of_100000_alternatives_compiles_and_the_other_hooks_still_run() {
    let p = Project::bare();
    // Not an exact list (the `.` makes it a regex): 100,000 alternatives, the last one `Bash`.
    let mut alternatives: Vec<String> = (0..100_000).map(|i| format!("T{i}.x")).collect();
    alternatives.push("^Bash$".into());
    let hooks = json!({"hooks": {"PreToolUse": [
        {"matcher": alternatives.join("|"), "hooks": [blocker("giant-matcher")]},
        {"matcher": "Bash", "hooks": [blocker("plain-matcher")]}
    ]}});
    p.hook_file("hooks.json", &hooks.to_string());
    assert_blocked(&p.run("PreToolUse", "claude", &bash_payload()), "matcher");
    assert_eq!(
        ran(&p, "PreToolUse", &bash_payload()),
        ["giant-matcher", "plain-matcher"]
    );
    let v = validate(&p);
    assert_eq!(v.code, Some(0), "{v:?}");
}

#[test]
fn a_matcher_too_deep_to_compile_is_reported_and_skipped() {
    let p = Project::bare();
    // Alternatives inside alternatives, each level inside a group: more than any stack allows.
    let deep = format!("{}x.{}", "(?:a.|".repeat(5_000), ")".repeat(5_000));
    let hooks = json!({"hooks": {"PreToolUse": [
        {"matcher": deep, "hooks": [blocker("deep-matcher")]},
        {"matcher": "Bash", "hooks": [blocker("plain-matcher")]}
    ]}});
    p.hook_file("hooks.json", &hooks.to_string());
    assert_blocked(&p.run("PreToolUse", "claude", &bash_payload()), "plain-matcher");
    assert_eq!(ran(&p, "PreToolUse", &bash_payload()), ["plain-matcher"]);
    let v = validate(&p);
    assert!(all(&v).contains("never matches"), "{v:?}");
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success());
}

#[cfg(unix)]
#[test]
fn a_fifo_as_a_plugins_hooks_file_or_manifest_is_reported_not_waited_on() {
    let p = Project::bare();
    mkfifo(&p.hooks_dir().join("fifo-hooks/hooks.json"));
    mkfifo(&p.hooks_dir().join("fifo-manifest/.claude-plugin/plugin.json"));
    p.hook_file("fifo-manifest/hooks/hooks.json", "{}");
    let hooks = json!({"hooks": {"PreToolUse": [{"hooks": [blocker("good-plugin")]}]}});
    p.hook_file("good/hooks.json", &hooks.to_string());
    assert_blocked(&p.run("PreToolUse", "claude", &bash_payload()), "good-plugin");
    let v = validate(&p);
    let text = all(&v);
    assert!(text.contains("fifo-hooks/hooks.json"), "{v:?}");
    assert!(text.contains("plugin.json"), "{v:?}");
    assert!(text.contains("not a regular file"), "{v:?}");
}

#[cfg(target_os = "linux")]
#[test]
fn an_endless_config_is_not_read_until_memory_runs_out() {
    let p = Project::bare();
    fs::create_dir_all(p.hooks_dir().join("zero")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", p.hooks_dir().join("zero/hooks.json")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", p.hooks_dir().join("hooks.json")).unwrap();
    let hooks = json!({"hooks": {"PreToolUse": [{"hooks": [blocker("good-plugin")]}]}});
    p.hook_file("good/hooks.json", &hooks.to_string());
    assert_blocked(&p.run("PreToolUse", "claude", &bash_payload()), "good-plugin");
    let v = validate(&p);
    assert!(all(&v).contains("not a regular file"), "{v:?}");
}

#[test]
fn a_config_file_larger_than_the_cap_is_reported() {
    let p = Project::bare();
    // Valid JSON, just too big: 17 MiB of description.
    let big = format!(r#"{{"description": "{}"}}"#, "x".repeat(17 << 20));
    p.hook_file("big/hooks.json", &big);
    let hooks = json!({"hooks": {"PreToolUse": [{"hooks": [blocker("good-plugin")]}]}});
    p.hook_file("good/hooks.json", &hooks.to_string());
    assert_blocked(&p.run("PreToolUse", "claude", &bash_payload()), "good-plugin");
    let v = validate(&p);
    assert!(all(&v).contains("larger than"), "{v:?}");
}

#[cfg(unix)]
#[test]
fn a_root_hooks_json_that_is_a_directory_or_fifo_is_reported() {
    let p = Project::bare();
    fs::create_dir_all(p.hooks_dir().join("hooks.json")).unwrap();
    let v = validate(&p);
    assert!(all(&v).contains("hooks.json"), "{v:?}");
    assert!(all(&v).contains("not a regular file"), "{v:?}");
    assert_ne!(v.code, Some(0), "an error was found: {v:?}");

    let q = Project::bare();
    mkfifo(&q.hooks_dir().join("hooks.json"));
    let v = validate(&q);
    assert!(all(&v).contains("not a regular file"), "{v:?}");
    assert_eq!(q.run("PreToolUse", "claude", &bash_payload()).code, Some(0));
}

/// A hook that copies its stdin to `stdin.json` in the project, then blocks.
fn recorder(p: &Project) -> PathBuf {
    let out = p.dir.join("stdin.json");
    let hooks = json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "command", "command": format!("cat > '{}'; echo recorded >&2; exit 2", out.display())}
    ]}]}});
    p.hook_file("hooks.json", &hooks.to_string());
    out
}

#[test]
fn a_payload_with_a_lone_surrogate_reaches_the_hooks_unchanged() {
    let p = Project::bare();
    let recorded = recorder(&p);
    // What Node's JSON.stringify writes for a string holding a lone surrogate.
    let payload = br#"{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"echo \ud800 \udc00x \ud83d\ude00"},"cwd":"/"}"#;
    let out = p.run("PreToolUse", "claude", payload);
    assert_blocked(&out, "recorded");
    let got = fs::read(&recorded).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&got).trim_end(),
        String::from_utf8_lossy(payload)
    );
}

#[test]
fn a_payload_nested_deeper_than_serde_jsons_limit_reaches_the_hooks_unchanged() {
    let p = Project::bare();
    let recorded = recorder(&p);
    for depth in [127, 200, 100_000] {
        let nested = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        let payload = format!(
            r#"{{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"mcp__s__t","tool_input":{{"args":{nested}}},"cwd":"/"}}"#
        );
        let out = p.run("PreToolUse", "claude", payload.as_bytes());
        assert_blocked(&out, "recorded");
        let got = fs::read_to_string(&recorded).unwrap();
        assert_eq!(got.trim_end(), payload, "depth {depth}");
    }
}

/// A 500-byte `hooks.yaml` whose nested aliases ("billion laughs") would expand to gigabytes.
fn yaml_bomb() -> String {
    let mut text = String::from("a0: &a0 [\"lol\"]\n");
    for i in 1..10 {
        let refs = vec![format!("*a{}", i - 1); 10].join(",");
        text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    text.push_str(
        "hooks:\n  PreToolUse:\n    - {type: command, command: 'echo project-guard >&2; exit 2'}\n",
    );
    text
}

#[test]
fn a_yaml_bomb_in_the_project_is_refused_and_the_users_guard_still_blocks() {
    let p = Project::bare();
    let bomb = yaml_bomb();
    assert!(bomb.len() < 600, "{}", bomb.len());
    p.hook_file("hooks.yaml", &bomb);
    let user_hooks = p.home.join(".amplifier/hooks");
    fs::create_dir_all(&user_hooks).unwrap();
    let guard = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [blocker("user-guard")]}]}});
    fs::write(user_hooks.join("hooks.json"), guard.to_string()).unwrap();
    // Under a memory limit, as a host may run it: the run must answer, not abort.
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg("ulimit -v 1048576 && exec \"$@\"")
        .arg("sh")
        .arg(hookbridge_bin())
        .args(["run", "--event", "PreToolUse", "--project-dir"])
        .arg(&p.dir);
    for var in HOSTILE_ENV {
        cmd.env_remove(var);
    }
    cmd.env("HOME", &p.home)
        .env("HOOKBRIDGE_LOG", &p.log)
        .current_dir(&p.dir);
    let out = run_with_deadline(cmd, &bash_payload(), WATCHDOG);
    assert!(!out.timed_out, "hookbridge run hung: {out:?}");
    assert_blocked(&out, "user-guard");
    let validate = validate(&p);
    assert_eq!(validate.code, Some(1), "{validate:?}");
    let said = all(&validate);
    assert!(
        said.contains("hooks.yaml") && said.contains("too large"),
        "{said}"
    );
}

/// One byte that is not UTF-8 (a Latin-1 `é` in another hook's `statusMessage`) does not drop the
/// file: it is read as U+FFFD, as Claude Code (Node) reads it, the guard beside it still blocks,
/// and `validate` says where the first such byte is.
#[test]
fn a_byte_that_is_not_utf8_does_not_drop_the_files_other_hooks() {
    let p = Project::bare();
    let mut text =
        br#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", "statusMessage": "caf"#
            .to_vec();
    text.push(0xe9); // Latin-1 é
    text.extend_from_slice(
        br#""}]}], "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo no-rm >&2; exit 2"}]}]}}"#,
    );
    fs::write(p.hooks_dir().join("hooks.json"), &text).unwrap();
    let done = p.run("PreToolUse", "claude", &p.bash_payload("rm -rf /"));
    assert_eq!(
        done.code,
        Some(2),
        "the guard still blocks: {}",
        done.stderr_str()
    );
    assert!(done.stderr_str().contains("no-rm"), "{}", done.stderr_str());
    let checked = validate(&p);
    let said = format!("{}{}", checked.stdout_str(), checked.stderr_str());
    assert!(said.contains("not valid UTF-8 from byte 91"), "{said}");

    // The same in a plugin's manifest (its name is the plugin's data folder's) and in a
    // `hookbridge-state.json`: read, and said, never silently.
    let plugin = p.hooks_dir().join("lint");
    fs::create_dir_all(plugin.join(".claude-plugin")).unwrap();
    fs::write(
        plugin.join(".claude-plugin/plugin.json"),
        b"{\"name\": \"li\xe9nt\"}",
    )
    .unwrap();
    fs::write(
        plugin.join("hooks.json"),
        br#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#,
    )
    .unwrap();
    fs::write(
        p.hooks_dir().join("hookbridge-state.json"),
        b"{\"disabled\": [], \"note\": \"\xe9\"}",
    )
    .unwrap();
    let checked = validate(&p);
    let said = format!("{}{}", checked.stdout_str(), checked.stderr_str());
    let lines: Vec<&str> = said.lines().collect();
    for (file, at) in [("plugin.json", 12), ("hookbridge-state.json", 26)] {
        let warning = format!("not valid UTF-8 from byte {at}");
        assert!(
            lines
                .windows(2)
                .any(|w| w[0].contains(&warning) && w[1].contains(file)),
            "{file}: {said}"
        );
    }
}
