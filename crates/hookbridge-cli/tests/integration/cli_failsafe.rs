//! Issue 10, the CLI's share: no input, config or host fault crashes `hookbridge`, hangs it, or
//! loses a block silently. One test per fault that was reproduced on main; each failed before its
//! fix.
//!
//! Every process is bounded by a watchdog and a test asserts that it finished, never how fast.
//! Two tests use debug-build-only test hooks of the binary (`HOOKBRIDGE_TEST_PANIC`,
//! `HOOKBRIDGE_TEST_ROTATION_STALL`); they are ignored in release test builds.

use crate::common;

use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use common::project::{Project, WATCHDOG};
use common::{hookbridge_bin, require_program, run_with_deadline, wait_until};
use serde_json::{json, Value};

const BLOCK: &str = "echo blocked-by-guard >&2; exit 2";

/// `hookbridge <args>` run from the temp folder that holds the project, not from the project: a
/// project is found by `--project-dir` (or `CLAUDE_PROJECT_DIR`), never by chance.
fn cmd<I, S>(p: &Project, args: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut cmd = p.hookbridge(args);
    cmd.current_dir(&p.root);
    cmd
}

/// `hookbridge run --event <event> --project-dir <project> <extra>`.
fn run_cmd(p: &Project, event: &str, extra: &[&str]) -> Command {
    let mut args: Vec<OsString> = vec!["run".into(), "--event".into(), event.into()];
    args.push("--project-dir".into());
    args.push(p.dir.clone().into());
    args.extend(extra.iter().map(OsString::from));
    cmd(p, args)
}

/// The call every guard of these tests blocks.
fn pre_bash(p: &Project) -> Value {
    p.bash_payload("rm -rf /")
}

fn pre_hooks(command: &str) -> Value {
    json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]}})
}

/// Start `cmd` with the given stdout and stderr (stdin gets `input`), wait for it under the
/// watchdog and return its exit code (`None` if killed by a signal).
fn run_with_stdio(mut cmd: Command, input: &[u8], stdout: Stdio, stderr: Stdio) -> Option<i32> {
    cmd.stdin(Stdio::piped()).stdout(stdout).stderr(stderr);
    let mut child = cmd.spawn().expect("starting hookbridge");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let status = wait_bounded(&mut child);
    let _ = writer.join();
    status.code()
}

fn wait_bounded(child: &mut Child) -> std::process::ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if started.elapsed() > WATCHDOG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("hookbridge did not finish within {WATCHDOG:?}");
        }
        thread::sleep(Duration::from_millis(5));
    }
}

fn dev_full() -> Stdio {
    Stdio::from(
        fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full"),
    )
}

/// The writing end of a pipe whose reading end is already closed: every write fails with EPIPE.
fn closed_pipe() -> Stdio {
    // A socket pair behaves as a pipe here (EPIPE once the peer is gone) and needs no newer std.
    let (ours, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
    drop(ours);
    Stdio::from(std::os::fd::OwnedFd::from(theirs))
}

fn mkfifo(path: &Path) {
    let status = Command::new(require_program("mkfifo"))
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

// --- arguments and output channels ------------------------------------------------------------

/// A `--project-dir` that is not UTF-8 used to panic in `std::env::args()` after the hooks ran.
#[test]
fn a_project_dir_that_is_not_utf8_still_gets_the_hooks_answer() {
    require_program("bash");
    let name = OsStr::from_bytes(b"proj-\xff\xfe");
    let p = Project::named(name, pre_hooks(BLOCK));
    // JSON cannot carry the non-UTF-8 name: the hooks run in the temp folder.
    let payload = json!({
        "session_id": "s", "cwd": p.root, "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "ls"},
    });
    let done = p.finish(run_cmd(&p, "PreToolUse", &[]), &payload);
    assert_eq!(done.code, Some(2), "stderr: {}", done.stderr_str());
    assert_eq!(done.stderr_str(), "blocked-by-guard\n");

    let list = p.finish(
        cmd(
            &p,
            [OsStr::new("list"), OsStr::new("--project-dir"), p.dir.as_os_str()],
        ),
        &json!({}),
    );
    assert_eq!(list.code, Some(0), "stderr: {}", list.stderr_str());
    assert!(
        list.stdout_str().contains("blocked-by-guard"),
        "{}",
        list.stdout_str()
    );
}

/// stderr that cannot be written (`2>/dev/full`) must not turn an exit-2 block into a crash: the
/// exit code still blocks, and the lost reason is logged.
#[test]
fn an_unwritable_stderr_keeps_the_block_and_logs_the_loss() {
    require_program("bash");
    let p = Project::new(pre_hooks(BLOCK));
    let input = serde_json::to_vec(&pre_bash(&p)).unwrap();
    let code = run_with_stdio(run_cmd(&p, "PreToolUse", &[]), &input, Stdio::null(), dev_full());
    assert_eq!(code, Some(2), "the block must survive an unwritable stderr");
    let log = p.log_text();
    assert!(log.contains("could not write the answer to stderr"), "log: {log}");

    // Both channels gone at once: still the hooks' exit code, never a panic.
    let code = run_with_stdio(run_cmd(&p, "PreToolUse", &[]), &input, closed_pipe(), dev_full());
    assert_eq!(code, Some(2));
}

/// A closed stdout loses a JSON answer (nothing can deliver it), but the run still ends with the
/// answer's exit code and the loss is logged, instead of an internal error.
#[test]
fn a_closed_stdout_is_logged_and_the_exit_code_is_the_answers() {
    require_program("bash");
    let deny = r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}'"#;
    let p = Project::new(pre_hooks(deny));
    let input = serde_json::to_vec(&pre_bash(&p)).unwrap();
    let code = run_with_stdio(
        run_cmd(&p, "PreToolUse", &[]),
        &input,
        closed_pipe(),
        Stdio::null(),
    );
    assert_eq!(code, Some(0));
    let log = p.log_text();
    assert!(log.contains("could not write the answer to stdout"), "log: {log}");

    // --format report and amplifier print with the same care: an internal error (exit 1), logged.
    for format in ["report", "amplifier"] {
        let cmd = run_cmd(&p, "PreToolUse", &["--format", format]);
        let code = run_with_stdio(cmd, &input, closed_pipe(), dev_full());
        assert_eq!(code, Some(1), "--format {format}");
    }
}

/// `hookbridge list` into a pipe whose reader is gone ends quietly (exit 0, nothing on stderr),
/// as `hookbridge list | head -1` with many plugins must.
/// Started with no fd 1 at all (not a closed pipe: a closed descriptor), `hookbridge` opens
/// `/dev/null` there before it opens anything else, as the standard library's start-up would (the
/// binary's entry point skips that start-up, `hookbridge_runner::start_up`): otherwise the first
/// file it opens (the hooks file, a trust record, the audit log) would become its stdout.
#[test]
fn a_closed_descriptor_at_start_is_dev_null_not_a_file_opened_later() {
    let p = Project::new(pre_hooks("touch started; sleep 2"));
    let inner = run_cmd(&p, "PreToolUse", &[]);
    let mut outer = common::wrapped("/bin/sh", &["-c", r#"exec "$0" "$@" >&-"#], &inner);
    outer.stdin(Stdio::piped()).stderr(Stdio::null());
    let mut child = outer.spawn().expect("starting hookbridge");
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(&serde_json::to_vec(&pre_bash(&p)).unwrap())
        .unwrap();
    drop(stdin);
    // `exec` keeps the pid: the shell's is hookbridge's once the hook has started.
    let started = wait_until(WATCHDOG, || p.dir.join("started").exists());
    let stdout = fs::read_link(format!("/proc/{}/fd/1", child.id()));
    let status = wait_bounded(&mut child);
    assert!(started, "the hook never started");
    assert_eq!(
        stdout.ok(),
        Some(PathBuf::from("/dev/null")),
        "hookbridge's fd 1 while its hook ran"
    );
    assert_eq!(status.code(), Some(0));
}

#[test]
fn list_into_a_closed_pipe_ends_quietly() {
    let p = Project::new(pre_hooks(BLOCK));
    let mut cmd = cmd(
        &p,
        [OsStr::new("list"), OsStr::new("--project-dir"), p.dir.as_os_str()],
    );
    cmd.stdin(Stdio::null())
        .stdout(closed_pipe())
        .stderr(Stdio::piped());
    let child = cmd.spawn().unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The same through a real `head -1`, with more output than a pipe holds.
    let bash = require_program("bash");
    require_program("head");
    for i in 0..1500 {
        let plugin = p.dir.join(format!(".amplifier/hooks/plugin-{i:04}"));
        fs::create_dir_all(&plugin).unwrap();
        fs::write(
            plugin.join("hooks.json"),
            serde_json::to_string(&pre_hooks(&format!("echo plugin {i}"))).unwrap(),
        )
        .unwrap();
    }
    let mut cmd = Command::new(bash);
    cmd.arg("-c")
        .arg(r#""$HB" list --project-dir "$DIR" | head -1 >/dev/null; echo "status=${PIPESTATUS[0]}""#)
        .env("HB", hookbridge_bin())
        .env("DIR", &p.dir)
        .env("HOME", &p.home)
        .env("HOOKBRIDGE_LOG", &p.log);
    let done = run_with_deadline(cmd, b"", WATCHDOG);
    assert!(!done.timed_out);
    assert_eq!(
        done.stdout_str().trim(),
        "status=0",
        "stderr: {}",
        done.stderr_str()
    );
    assert_eq!(done.stderr_str(), "");
}

/// A panic anywhere — here forced after the hooks ran, by a debug-build test hook — reaches the
/// host as the documented internal error: exit 1 (never 2, never 101 or 134), logged.
#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "HOOKBRIDGE_TEST_PANIC exists in debug builds only"
)]
fn a_panic_is_logged_and_answers_exit_1() {
    require_program("bash");
    let p = Project::new(pre_hooks(BLOCK));
    let mut cmd = run_cmd(&p, "PreToolUse", &[]);
    cmd.env("HOOKBRIDGE_TEST_PANIC", "1");
    let done = p.finish(cmd, &pre_bash(&p));
    assert_eq!(done.code, Some(1), "stderr: {}", done.stderr_str());
    assert!(
        done.stderr_str().starts_with("hookbridge: internal error"),
        "stderr: {}",
        done.stderr_str()
    );
    let log = p.log_text();
    assert!(
        log.contains("internal error (panic at ") && log.contains("HOOKBRIDGE_TEST_PANIC"),
        "log: {log}"
    );
}

// --- the diagnostics log -----------------------------------------------------------------------

/// `HOOKBRIDGE_LOG` naming a FIFO nobody reads used to block the run forever after the hooks ran.
#[test]
fn a_fifo_as_the_log_never_holds_the_answer() {
    require_program("bash");
    let p = Project::new(pre_hooks("echo hook-failed >&2; exit 1"));
    let fifo = p.root.join("log.fifo");
    mkfifo(&fifo);
    let mut cmd = run_cmd(&p, "PreToolUse", &[]);
    cmd.env("HOOKBRIDGE_LOG", &fifo);
    let done = p.finish(cmd, &pre_bash(&p));
    assert_eq!(done.code, Some(1), "stderr: {}", done.stderr_str());
    assert!(
        done.stderr_str().contains("hook-failed"),
        "stderr: {}",
        done.stderr_str()
    );
}

/// Two runs rotating the log at once: the one that checked the size first stalls (a debug-build
/// test hook) while the other rotates; when it resumes it must not rotate the fresh file over the
/// rotated one. Every line — the old log's and both runs' — survives in `.log` or `.log.1`.
#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "HOOKBRIDGE_TEST_ROTATION_STALL exists in debug builds only"
)]
fn concurrent_rotation_loses_nothing() {
    require_program("bash");
    let p = Project::new(pre_hooks("echo \"failed-in-run-$WHO\" >&2; exit 1"));
    let mut old = String::from("2000-01-01T00:00:00Z run PreToolUse: ORIGINAL-LOG-CONTENT\n");
    while old.len() <= 10 * 1024 * 1024 {
        old.push_str(&"x".repeat(1023));
        old.push('\n');
    }
    fs::write(&p.log, &old).unwrap();
    let stall = p.root.join("stall.fifo");
    mkfifo(&stall);

    // Run B reaches the size check and stalls on the FIFO.
    let mut b = run_cmd(&p, "PreToolUse", &[]);
    b.env("WHO", "B")
        .env("HOOKBRIDGE_TEST_ROTATION_STALL", &stall)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut b = b.spawn().unwrap();
    b.stdin
        .take()
        .unwrap()
        .write_all(&serde_json::to_vec(&pre_bash(&p)).unwrap())
        .unwrap();
    // Opening the FIFO's writing end without blocking succeeds once B holds its reading end.
    let mut gate = None;
    let reached = wait_until(WATCHDOG, || {
        use std::os::unix::fs::OpenOptionsExt;
        gate = fs::OpenOptions::new()
            .write(true)
            .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
            .open(&stall)
            .ok();
        gate.is_some()
    });
    assert!(reached, "run B never reached the rotation");

    // Run A rotates and logs while B waits.
    let mut a = run_cmd(&p, "PreToolUse", &[]);
    a.env("WHO", "A");
    let done = p.finish(a, &pre_bash(&p));
    assert_eq!(done.code, Some(1));

    drop(gate); // B goes on.
    assert_eq!(wait_bounded(&mut b).code(), Some(1));

    let rotated = PathBuf::from(format!("{}.1", p.log.display()));
    let all = format!(
        "{}{}",
        fs::read_to_string(&rotated).unwrap_or_default(),
        p.log_text()
    );
    assert!(all.contains("ORIGINAL-LOG-CONTENT"), "the rotated log was lost");
    assert!(all.contains("failed-in-run-A"), "run A's line was lost");
    assert!(all.contains("failed-in-run-B"), "run B's line was lost");
}

// --- the event name ----------------------------------------------------------------------------

/// The payload says what is happening: a misspelt `--event` (`PreToolUSE`, well-formed, so not a
/// usage error) or another event's name loses to the payload's `hook_event_name`, and the
/// disagreement is logged.
#[test]
fn the_payloads_event_wins_over_a_disagreeing_flag_and_it_is_logged() {
    require_program("bash");
    let p = Project::new(pre_hooks(BLOCK));
    for flag in ["PreToolUSE", "PostToolUse"] {
        let done = p.finish(run_cmd(&p, flag, &[]), &pre_bash(&p));
        assert_eq!(done.code, Some(2), "--event {flag}: stderr {}", done.stderr_str());
        assert_eq!(done.stderr_str(), "blocked-by-guard\n");
        let log = p.log_text();
        assert!(
            log.contains(&format!(
                "--event {flag} disagrees with the payload's hook_event_name PreToolUse"
            )),
            "log: {log}"
        );
    }
}

/// Without a `hook_event_name`, a misspelt known event runs as the unknown event it names (no
/// hook), but says "did you mean" in the log; a malformed one is a usage error with the hint.
#[test]
fn a_misspelt_event_gets_a_did_you_mean() {
    require_program("bash");
    let p = Project::new(pre_hooks(BLOCK));
    let mut payload = pre_bash(&p);
    payload.as_object_mut().unwrap().remove("hook_event_name");
    for (flag, hint) in [
        ("PreToolUSE", "PreToolUse"),
        ("PreToolUsee", "PreToolUse"),
        ("SesionStart", "SessionStart"),
    ] {
        let done = p.finish(run_cmd(&p, flag, &[]), &payload);
        assert_eq!(done.code, Some(0), "--event {flag}: stderr {}", done.stderr_str());
        let log = p.log_text();
        assert!(
            log.contains(&format!("did you mean `{hint}`?")),
            "--event {flag}: log: {log}"
        );
    }
    let done = p.finish(run_cmd(&p, "preToolUse", &[]), &payload);
    assert_eq!(done.code, Some(64));
    assert!(
        done.stderr_str().contains("did you mean `PreToolUse`?"),
        "{}",
        done.stderr_str()
    );
}

/// An unknown but well-formed event (Claude Code adds events; shared case 78 uses `FooBar`) still
/// runs its hooks, and no "did you mean" is invented for it.
#[test]
fn an_unknown_well_formed_event_still_runs_its_hooks() {
    require_program("bash");
    let p = Project::new(json!({"hooks": {"FooBar": [{"hooks": [{"type": "command", "command": BLOCK}]}]}}));
    let payload = json!({"session_id": "s", "cwd": p.dir, "hook_event_name": "FooBar"});
    let done = p.finish(run_cmd(&p, "FooBar", &[]), &payload);
    assert_eq!(done.code, Some(2), "stderr: {}", done.stderr_str());
    assert!(!p.log_text().contains("did you mean"), "log: {}", p.log_text());
}

// --- the project directory ---------------------------------------------------------------------

/// An explicit `--project-dir` that does not exist is a usage error (64), for `run`, `list` and
/// `validate`; from the environment it is a logged warning and the user's hooks still run.
#[test]
fn a_missing_project_dir_is_a_usage_error_for_the_flag_and_a_warning_from_the_environment() {
    require_program("bash");
    let p = Project::new(pre_hooks(BLOCK));
    let missing = p.root.join("no-such-project");
    let done = p.finish(
        cmd(
            &p,
            [
                OsStr::new("run"),
                OsStr::new("--event"),
                OsStr::new("PreToolUse"),
                OsStr::new("--project-dir"),
                missing.as_os_str(),
            ],
        ),
        &pre_bash(&p),
    );
    assert_eq!(done.code, Some(64), "stderr: {}", done.stderr_str());
    assert!(
        done.stderr_str().contains("no-such-project"),
        "{}",
        done.stderr_str()
    );
    for sub in ["list", "validate"] {
        let done = p.finish(
            cmd(
                &p,
                [OsStr::new(sub), OsStr::new("--project-dir"), missing.as_os_str()],
            ),
            &json!({}),
        );
        assert_eq!(done.code, Some(64), "{sub}: stderr: {}", done.stderr_str());
    }

    // From the environment: the user's hooks still run, and the log says the project is missing.
    let user_hooks = p.home.join(".amplifier/hooks");
    fs::create_dir_all(&user_hooks).unwrap();
    fs::write(
        user_hooks.join("hooks.json"),
        serde_json::to_string(&pre_hooks(BLOCK)).unwrap(),
    )
    .unwrap();
    for var in ["CLAUDE_PROJECT_DIR", "AMPLIFIER_PROJECT_DIR"] {
        let mut cmd = cmd(&p, ["run", "--event", "PreToolUse"]);
        cmd.env(var, &missing);
        let done = p.finish(cmd, &pre_bash(&p));
        assert_eq!(done.code, Some(2), "{var}: stderr: {}", done.stderr_str());
        let log = p.log_text();
        assert!(
            log.contains(&format!("{var}={}", missing.display())) && log.contains("does not exist"),
            "log: {log}"
        );
    }
}

/// A relative project directory given by the flag reaches hooks as absolute
/// `${CLAUDE_PLUGIN_ROOT}`, `AMPLIFIER_HOOKS_DIR` and `CLAUDE_PROJECT_DIR`, though hooks run in the
/// payload's `cwd`: the guard is found and blocks. A relative one in the environment (which a
/// project's settings can set: `AMPLIFIER_PROJECT_DIR=..` made the home "the project", writable by
/// a sandboxed hook, red-team pass 10) is ignored, and the log says so.
#[test]
fn a_relative_project_dir_reaches_hooks_as_absolute_paths() {
    require_program("bash");
    let p = Project::new(json!({"hooks": {}}));
    let guard = p.dir.join(".amplifier/hooks/guard");
    p.script(
        guard.join("guard.sh"),
        "#!/bin/bash\necho \"root=$CLAUDE_PLUGIN_ROOT hooks=$AMPLIFIER_HOOKS_DIR project=$CLAUDE_PROJECT_DIR\" >&2\nexit 2\n",
    );
    fs::write(
        guard.join("hooks.json"),
        serde_json::to_string(&pre_hooks("${CLAUDE_PLUGIN_ROOT}/guard.sh")).unwrap(),
    )
    .unwrap();
    let elsewhere = p.root.join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    let mut payload = pre_bash(&p);
    payload["cwd"] = json!(elsewhere);

    for var in ["CLAUDE_PROJECT_DIR", "AMPLIFIER_PROJECT_DIR"] {
        let mut by_env = cmd(&p, ["run", "--event", "PreToolUse"]);
        by_env.env(var, "project");
        let done = p.finish(by_env, &payload);
        assert_eq!(done.code, Some(0), "{var}: stderr {}", done.stderr_str());
        let log = p.log_text();
        assert!(log.contains(&format!("{var}=`project` ignored")), "{var}: {log}");
    }
    let how = "--project-dir";
    {
        let cmd = cmd(&p, ["run", "--event", "PreToolUse", "--project-dir", "project"]);
        let done = p.finish(cmd, &payload);
        assert_eq!(done.code, Some(2), "{how}: stderr {}", done.stderr_str());
        let stderr = done.stderr_str();
        for (key, expected) in [
            ("root", guard.clone()),
            ("hooks", p.dir.join(".amplifier/hooks")),
            ("project", p.dir.clone()),
        ] {
            let value = stderr
                .split_whitespace()
                .find_map(|w| w.strip_prefix(&format!("{key}=")))
                .unwrap_or_else(|| panic!("{how}: no {key}= in {stderr}"));
            assert!(Path::new(value).is_absolute(), "{how}: {key}={value} is relative");
            assert_eq!(
                fs::canonicalize(value).unwrap(),
                fs::canonicalize(&expected).unwrap(),
                "{how}: {key}"
            );
        }
    }
}

// --- timeouts ------------------------------------------------------------------------------------

/// Timeout flags go through core's capped parse: huge values are capped (24.8 days), not a panic;
/// NaN, infinity, zero, negative values and non-numbers are usage errors (64).
#[test]
fn timeout_flags_are_capped_or_refused_never_a_panic() {
    require_program("bash");
    let p = Project::new(pre_hooks(BLOCK));
    for flag in ["--max-timeout", "--default-timeout"] {
        for value in ["1e20", "1e300", "18446744073709551616", " 5 "] {
            let done = p.finish(run_cmd(&p, "PreToolUse", &[flag, value]), &pre_bash(&p));
            assert_eq!(done.code, Some(2), "{flag} {value}: stderr {}", done.stderr_str());
            let joined = format!("{flag}={value}");
            let done = p.finish(run_cmd(&p, "PreToolUse", &[&joined]), &pre_bash(&p));
            assert_eq!(done.code, Some(2), "{joined}: stderr {}", done.stderr_str());
        }
        for value in ["nan", "NaN", "inf", "0", "-1", "-inf", "abc", "1s", ""] {
            let joined = format!("{flag}={value}");
            let done = p.finish(run_cmd(&p, "PreToolUse", &[&joined]), &pre_bash(&p));
            assert_eq!(done.code, Some(64), "{joined}: stderr {}", done.stderr_str());
        }
    }
}

/// A bad `HOOKBRIDGE_*_TIMEOUT` value is a logged warning and the default, never a failed run;
/// so is one below a second, which would make every guard time out and let the call through (a
/// project's settings can extend the agent's environment).
#[test]
fn timeout_variables_with_bad_values_are_logged_and_ignored() {
    require_program("bash");
    let p = Project::new(pre_hooks(BLOCK));
    for var in ["HOOKBRIDGE_MAX_TIMEOUT", "HOOKBRIDGE_DEFAULT_TIMEOUT"] {
        for value in ["1e20", "1e300", "1"] {
            let mut cmd = run_cmd(&p, "PreToolUse", &[]);
            cmd.env(var, value);
            let done = p.finish(cmd, &pre_bash(&p));
            assert_eq!(done.code, Some(2), "{var}={value}: stderr {}", done.stderr_str());
        }
        for value in ["nan", "inf", "-1", "0", "abc", "1e-9", "0.001", "0.999"] {
            let mut cmd = run_cmd(&p, "PreToolUse", &[]);
            cmd.env(var, value);
            let done = p.finish(cmd, &pre_bash(&p));
            assert_eq!(done.code, Some(2), "{var}={value}: stderr {}", done.stderr_str());
            let log = p.log_text();
            assert!(
                log.contains(&format!("{var}=`{value}` ignored")),
                "{var}={value}: log {log}"
            );
        }
    }
}
