//! The limits `hookbridge run` puts on hooks and on itself: the `--max-timeout` cap on every
//! hook's timeout (`HOOKBRIDGE_MAX_TIMEOUT` on the project's; the lower wins), the output budget the hooks of one event share,
//! and the diagnostics log's rotation to `.log.1` past 10 MiB (docs/diagnostics.md).
//!
//! Assertions are on what the report and the files say (a hook's `timeout_s` and `timed_out`
//! status, the number of bytes kept, which file holds which line), never on how long anything took.

use crate::common;

use std::fs;

use common::project::{hook, on, Project};
use common::require_program;
use serde_json::{json, Value};

const MIB: usize = 1024 * 1024;

/// `HOOKBRIDGE_MAX_TIMEOUT` and `--max-timeout` cap a hook's own `timeout` and the default one
/// (also a default raised by `HOOKBRIDGE_DEFAULT_TIMEOUT`), and leave a shorter timeout alone. The
/// capped hooks sleep 120 s; the watchdog stops a hookbridge that does not cap them.
#[test]
fn the_max_timeout_caps_every_hook() {
    require_program("sleep");
    let p = Project::new(on(
        "PreToolUse",
        json!([
            {"type": "command", "command": "exec sleep 120 # own timeout", "timeout": 600},
            {"type": "command", "command": "exec sleep 120 # default timeout"},
            {"type": "command", "command": "true # short timeout", "timeout": 0.5},
        ]),
    ));
    let payload = p.payload("PreToolUse");
    let mut by_env = p.command("PreToolUse", "report");
    by_env
        .env("HOOKBRIDGE_MAX_TIMEOUT", "1")
        .env("HOOKBRIDGE_DEFAULT_TIMEOUT", "900");
    let mut by_flag = p.command("PreToolUse", "report");
    by_flag.args(["--max-timeout", "1"]);
    for (how, cmd) in [("HOOKBRIDGE_MAX_TIMEOUT=1", by_env), ("--max-timeout 1", by_flag)] {
        let report = p.report(cmd, &payload);
        for label in ["own timeout", "default timeout"] {
            let h = hook(&report, label);
            assert_eq!(h["timeout_s"], 1.0, "{how}: `{label}` hook: {h:#}");
            assert_eq!(h["status"], "timed_out", "{how}: `{label}` hook: {h:#}");
        }
        let short = hook(&report, "short timeout");
        assert_eq!(
            short["timeout_s"], 0.5,
            "{how}: a shorter timeout is kept: {short:#}"
        );
        assert_eq!(short["status"], "exited", "{how}: {short:#}");
        assert_eq!(
            report["answer"]["exit_code"], 0,
            "{how}: timed-out hooks give no verdict"
        );
    }

    // Control: without a cap the same hooks keep their timeouts (quick commands, so nothing waits).
    p.write_hooks(&on(
        "PreToolUse",
        json!([
            {"type": "command", "command": "true # own timeout", "timeout": 600},
            {"type": "command", "command": "true # default timeout"},
        ]),
    ));
    let report = p.report(p.command("PreToolUse", "report"), &payload);
    assert_eq!(hook(&report, "own timeout")["timeout_s"], 600.0, "{report:#}");
    assert_eq!(
        hook(&report, "default timeout")["timeout_s"],
        600.0,
        "Claude Code's PreToolUse default: {report:#}"
    );
}

/// The variables come through the agent's environment, which a project's settings can set
/// (Claude Code's `env`): they reach the project's hooks only. A user's guard that takes longer
/// than the second `HOOKBRIDGE_MAX_TIMEOUT=1` says still blocks; the flag caps it, as the user's
/// own registration says.
#[test]
fn the_timeout_variables_reach_the_projects_hooks_only() {
    require_program("sleep");
    let p = with_a_user_guard(600, "sleep 1.2; echo 'user guard says no' >&2; exit 2");
    let payload = p.payload("PreToolUse");
    let mut by_env = p.command("PreToolUse", "report");
    by_env
        .env("HOOKBRIDGE_MAX_TIMEOUT", "1")
        .env("HOOKBRIDGE_DEFAULT_TIMEOUT", "1");
    let report = p.report(by_env, &payload);
    let project = hook(&report, "project hook");
    assert_eq!(project["timeout_s"], 1.0, "{project:#}");
    assert_eq!(project["status"], "timed_out", "{project:#}");
    let guard = hook(&report, "user guard");
    assert_eq!(
        guard["timeout_s"], 600.0,
        "the user's own keeps its timeout: {guard:#}"
    );
    assert_eq!(guard["status"], "exited", "{guard:#}");
    assert_eq!(report["answer"]["exit_code"], 2, "the guard blocks: {report:#}");

    let mut by_flag = p.command("PreToolUse", "report");
    by_flag.args(["--max-timeout", "1"]);
    let report = p.report(by_flag, &payload);
    assert_eq!(hook(&report, "user guard")["status"], "timed_out", "{report:#}");
}

/// A registration's cap (`install-into` registers `--max-timeout` its outer timeout less 5 s) keeps
/// a deny already given when another hook of the event would outlast the registration: the slow
/// one is stopped by hookbridge, which answers with the deny in time, rather than by the agent,
/// which would stop hookbridge and lose it. Scaled down here: a 1 s cap for 605 s's 600 s. And
/// `HOOKBRIDGE_MAX_TIMEOUT` still caps the project's hooks beside the flag: the lower wins.
#[test]
fn a_registrations_cap_keeps_a_deny_from_a_hook_that_would_outlast_it() {
    require_program("sleep");
    let p = with_a_user_guard(3600, "echo 'user guard says no' >&2; exit 2");
    let payload = p.payload("PreToolUse");
    let mut registered = p.command("PreToolUse", "report");
    registered.args(["--max-timeout", "1"]);
    let report = p.report(registered, &payload);
    let slow = hook(&report, "project hook");
    assert_eq!(slow["timeout_s"], 1.0, "{slow:#}");
    assert_eq!(slow["status"], "timed_out", "{slow:#}");
    assert_eq!(report["answer"]["exit_code"], 2, "the deny stands: {report:#}");

    let mut both = p.command("PreToolUse", "report");
    both.args(["--max-timeout", "600"])
        .env("HOOKBRIDGE_MAX_TIMEOUT", "1");
    let report = p.report(both, &payload);
    let slow = hook(&report, "project hook");
    assert_eq!(slow["timeout_s"], 1.0, "the variable's lower cap: {slow:#}");
    assert_eq!(hook(&report, "user guard")["timeout_s"], 600.0, "{report:#}");
}

/// A project whose PreToolUse hook sleeps 120 s (its `timeout` given) beside the user's own
/// PreToolUse hook `guard`.
fn with_a_user_guard(timeout: u64, guard: &str) -> Project {
    let p = Project::new(on(
        "PreToolUse",
        json!([{"type": "command", "command": "exec sleep 120 # project hook", "timeout": timeout}]),
    ));
    let user = p.home.join(".amplifier/hooks");
    fs::create_dir_all(&user).unwrap();
    let hooks = on("PreToolUse", json!([{"type": "command", "command": guard}]));
    fs::write(user.join("hooks.json"), hooks.to_string()).unwrap();
    p
}

/// The hooks of one event share a 16 MiB output budget: each keeps at most 4 MiB per stream, a
/// share of the budget when there are more than two hooks (2 MiB each for 4 hooks), and never
/// less than 1 MiB (12 hooks). Every hook here prints 5 MiB on stdout and on stderr.
#[test]
fn the_output_budget_is_shared_by_the_hooks_of_one_event() {
    require_program("head");
    require_program("tr");
    let p = Project::new(json!({}));
    let payload = p.payload("PostToolUse");
    for (hooks, kept) in [(1, 4 * MIB), (4, 2 * MIB), (12, MIB)] {
        let list: Vec<Value> = (0..hooks)
            .map(|i| {
                json!({"type": "command", "command": format!(
                    "head -c {n} /dev/zero | tr '\\0' o; head -c {n} /dev/zero | tr '\\0' e >&2; : flood {i}",
                    n = 5 * MIB
                )})
            })
            .collect();
        p.write_hooks(&on("PostToolUse", Value::Array(list)));
        let report = p.report(p.command("PostToolUse", "report"), &payload);
        let ran = report["hooks"].as_array().unwrap();
        assert_eq!(ran.len(), hooks, "{hooks} hooks should have run");
        for h in ran {
            let label = h["hook"]["label"].as_str().unwrap();
            assert_eq!(h["status"], "exited", "{hooks} hooks, `{label}`");
            for (stream, byte) in [("stdout", 'o'), ("stderr", 'e')] {
                let text = h[stream].as_str().unwrap();
                assert_eq!(
                    text.len(),
                    kept,
                    "{hooks} hooks: `{label}` kept {} bytes of its 5 MiB {stream}, expected {kept}",
                    text.len()
                );
                assert!(
                    text.chars().all(|c| c == byte),
                    "{hooks} hooks, `{label}`: {stream} is not its own output"
                );
                assert_eq!(
                    h[format!("{stream}_truncated")],
                    true,
                    "{hooks} hooks, `{label}`: {stream}"
                );
            }
        }
    }
}

/// The diagnostics log, `$HOOKBRIDGE_LOG`: at exactly 10 MiB a new line is appended; once it is
/// past 10 MiB, the next problem moves it to `.log.1` (replacing an older one) and starts a new log.
#[test]
fn the_log_rotates_to_log_1_once_past_10_mib() {
    let p = Project::new(on(
        "Stop",
        json!([{"type": "command", "command": "echo \"problem-$(cat round)\" >&2; exit 1"}]),
    ));
    let rotated = p.log.with_file_name("diagnostics.log.1");
    let old = padded("2000-01-01T00:00:00Z run Stop: OLD FIRST LINE\n", 10 * MIB);
    fs::write(&p.log, &old).unwrap();
    fs::write(&rotated, "OLDER LOG\n").unwrap();

    // Round 1: exactly 10 MiB is not past 10 MiB.
    fs::write(p.dir.join("round"), "1").unwrap();
    let done = p.run("Stop", "claude", &p.payload("Stop"));
    assert_eq!(
        done.code,
        Some(1),
        "the hook's own non-blocking code: {}",
        done.stderr_str()
    );
    assert!(
        fs::read(&rotated).unwrap() == b"OLDER LOG\n",
        "a log of exactly 10 MiB was rotated: {} now holds {} bytes",
        rotated.display(),
        fs::metadata(&rotated).unwrap().len()
    );
    let log = fs::read(&p.log).unwrap();
    assert!(log.starts_with(&old), "the 10 MiB log was not kept");
    let appended = String::from_utf8_lossy(&log[old.len()..]).into_owned();
    assert_eq!(
        appended.lines().count(),
        1,
        "one problem, one line: {}",
        short(&appended)
    );
    assert!(
        appended.contains("run Stop: ") && appended.contains("problem-1"),
        "{}",
        short(&appended)
    );

    // Round 2: the log is now past 10 MiB; it becomes .log.1 and the new line starts a new log.
    fs::write(p.dir.join("round"), "2").unwrap();
    let done = p.run("Stop", "claude", &p.payload("Stop"));
    assert_eq!(done.code, Some(1), "{}", done.stderr_str());
    assert!(
        fs::read(&rotated).unwrap() == log,
        "{} should hold the whole previous log ({} bytes); it holds {} bytes",
        rotated.display(),
        log.len(),
        fs::metadata(&rotated).unwrap().len()
    );
    let fresh = fs::read_to_string(&p.log).unwrap();
    assert_eq!(fresh.lines().count(), 1, "the new log: {}", short(&fresh));
    assert!(
        fresh.contains("problem-2") && !fresh.contains("OLD"),
        "the new log: {}",
        short(&fresh)
    );
}

/// Without `$HOOKBRIDGE_LOG` the log is `~/.amplifier/hookbridge/diagnostics.log`, rotated the
/// same way to `diagnostics.log.1`.
#[test]
fn the_default_log_is_under_home_and_rotates_too() {
    let p = Project::new(on(
        "Stop",
        json!([{"type": "command", "command": "echo default-log-problem >&2; exit 1"}]),
    ));
    let dir = p.home.join(".amplifier/hookbridge");
    let log = dir.join("diagnostics.log");
    let run = |p: &Project| {
        let mut cmd = p.command("Stop", "claude");
        cmd.env_remove("HOOKBRIDGE_LOG");
        let done = p.finish(cmd, &serde_json::to_vec(&p.payload("Stop")).unwrap());
        assert_eq!(done.code, Some(1), "{}", done.stderr_str());
    };
    run(&p);
    let text = fs::read_to_string(&log).unwrap_or_else(|e| panic!("{}: {e}", log.display()));
    assert!(text.contains("default-log-problem"), "{text}");
    assert!(
        !p.log.exists(),
        "$HOOKBRIDGE_LOG was unset, yet {} was written",
        p.log.display()
    );

    let old = padded("2000-01-01T00:00:00Z run Stop: OLD FIRST LINE\n", 10 * MIB + 1);
    fs::write(&log, &old).unwrap();
    run(&p);
    let rotated = dir.join("diagnostics.log.1");
    let kept = fs::read(&rotated).unwrap_or_else(|e| panic!("not rotated to {}: {e}", rotated.display()));
    assert!(
        kept == old,
        "{} does not hold the old log ({} bytes, expected {})",
        rotated.display(),
        kept.len(),
        old.len()
    );
    let fresh = fs::read_to_string(&log).unwrap();
    assert!(
        fresh.contains("default-log-problem") && !fresh.contains("OLD"),
        "{}",
        short(&fresh)
    );
}

/// A log's text for a failure message: its first 300 bytes and its length.
fn short(text: &str) -> String {
    let end = (0..=300.min(text.len()))
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    format!("{:?}… ({} bytes)", &text[..end], text.len())
}

/// `first` followed by filler lines, exactly `len` bytes long.
fn padded(first: &str, len: usize) -> Vec<u8> {
    let mut bytes = first.as_bytes().to_vec();
    let line = b"2000-01-01T00:00:00Z run Stop: filler\n";
    while bytes.len() + line.len() <= len {
        bytes.extend_from_slice(line);
    }
    bytes.resize(len, b'\n');
    assert_eq!(bytes.len(), len);
    bytes
}
