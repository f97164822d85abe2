//! `async: true` command hooks through `hookbridge run` in Claude Code's format
//! (docs/not-supported.md): when every hook an event reaches is async, the first line of stdout is
//! `{"async": true}` — at once, while the hooks still run — and the hooks' `systemMessage` and
//! `additionalContext` follow as one JSON line when they are done; a decision from an async hook
//! is dropped and the diagnostics log says so. Mixed with synchronous hooks, the answer is the
//! synchronous hooks' alone and the async ones run on in the background.
//!
//! Nothing here is timed. Each async hook waits for a `release` file that the test creates only
//! after it has seen what must come first (the `{"async": true}` line, or hookbridge's exit), so
//! an implementation that waited for the hooks first would hang, and the watchdog fails the test.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use common::project::{on, sh_quote, Project, WATCHDOG};
use common::{require_program, wait_until};
use serde_json::{json, Value};

/// An async hook's own timeout: longer than [`WATCHDOG`], so a hookbridge that waits for its hooks
/// before answering is caught by the watchdog, not rescued by the timeout.
const HOOK_TIMEOUT: u64 = 300;

/// A bash hook that records its payload in `<name>.payload`, waits until `release` exists (or
/// the project is gone), prints `output`, and records that it finished in `<name>.done`.
fn waiting_hook(p: &Project, name: &str, output: &Value) -> String {
    let release = p.dir.join("release");
    let script = p.file(
        &format!("{name}.sh"),
        &format!(
            "#!/bin/bash\n\
             cat > {payload}\n\
             while [ ! -e {release} ] && [ -d {dir} ]; do sleep 0.02; done\n\
             printf '%s\\n' {output}\n\
             touch {done}\n",
            payload = sh_quote(p.dir.join(format!("{name}.payload"))),
            release = sh_quote(&release),
            dir = sh_quote(&p.dir),
            output = sh_quote(output.to_string()),
            done = sh_quote(p.dir.join(format!("{name}.done"))),
        ),
    );
    format!("bash {}", sh_quote(&script))
}

fn release(p: &Project) {
    std::fs::write(p.dir.join("release"), "").unwrap();
}

/// A `hookbridge run` whose stdout is read line by line as it comes.
struct Live {
    child: Child,
    lines: mpsc::Receiver<String>,
    stderr: Option<thread::JoinHandle<String>>,
}

impl Live {
    fn start(p: &Project, event: &str) -> Live {
        let mut cmd = p.command(event, "claude");
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("starting hookbridge");
        let payload = serde_json::to_vec(&p.payload(event)).unwrap();
        let mut stdin = child.stdin.take().unwrap();
        thread::spawn(move || {
            let _ = stdin.write_all(&payload);
        });
        let (send, lines) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let mut err = child.stderr.take().unwrap();
        let stderr = thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut err, &mut text);
            text
        });
        Live {
            child,
            lines,
            stderr: Some(stderr),
        }
    }

    /// The next line of stdout; `None` at its end. Fails the test if none comes in time.
    fn next_line(&self, what: &str) -> Option<String> {
        match self.lines.recv_timeout(WATCHDOG) {
            Ok(line) => Some(line),
            Err(mpsc::RecvTimeoutError::Disconnected) => None,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                panic!("no {what} on hookbridge's stdout within {WATCHDOG:?}")
            }
        }
    }

    /// Exit code and stderr, once the process has exited (bounded by the watchdog).
    fn finish(&mut self) -> (Option<i32>, String) {
        let exited = wait_until(WATCHDOG, || self.child.try_wait().unwrap().is_some());
        assert!(exited, "hookbridge did not exit within {WATCHDOG:?}");
        let code = self.child.wait().unwrap().code();
        let stderr = self.stderr.take().expect("finished once").join().unwrap();
        (code, stderr)
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn async_hook(command: String) -> Value {
    json!({"type": "command", "command": command, "async": true, "timeout": HOOK_TIMEOUT})
}

fn parse_line(line: &str) -> Value {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("not a JSON line ({e}): {line:?}"))
}

fn sorted<'a>(parts: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut parts: Vec<&str> = parts.collect();
    parts.sort_unstable();
    parts
}

/// Every hook async: `{"async": true}` is the first line and arrives while both hooks are still
/// waiting; after the release, one more line carries both `systemMessage`s and both
/// `additionalContext`s (in completion order, so compared as sets), and the process exits 0.
#[test]
fn all_async_answers_async_first_and_the_combined_output_later() {
    require_program("bash");
    let p = Project::new(json!({}));
    let one = waiting_hook(
        &p,
        "one",
        &json!({"systemMessage": "message one", "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "context one"}}),
    );
    let two = waiting_hook(
        &p,
        "two",
        &json!({"systemMessage": "message two", "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "context two"}}),
    );
    p.write_hooks(&on("PostToolUse", json!([async_hook(one), async_hook(two)])));

    let mut live = Live::start(&p, "PostToolUse");
    let first = live
        .next_line("`{\"async\": true}` line")
        .expect("stdout ended before any line");
    assert_eq!(
        parse_line(&first),
        json!({"async": true}),
        "first line: {first:?}"
    );
    assert_eq!(
        first, r#"{"async": true}"#,
        "the first line is Claude Code's own spelling"
    );
    for name in ["one", "two"] {
        assert!(
            !p.dir.join(format!("{name}.done")).exists(),
            "hook {name} finished before the release"
        );
    }
    release(&p);
    let second = live
        .next_line("combined answer")
        .expect("stdout ended without the combined answer");
    assert_eq!(
        live.next_line("end of stdout"),
        None,
        "more than two lines on stdout"
    );
    let (code, stderr) = live.finish();
    assert_eq!(code, Some(0), "stderr {stderr}");
    assert_eq!(stderr, "");

    let answer = parse_line(&second);
    let message = answer["systemMessage"]
        .as_str()
        .unwrap_or_else(|| panic!("{answer:#}"));
    assert_eq!(
        sorted(message.split('\n')),
        ["message one", "message two"],
        "{answer:#}"
    );
    let specific = &answer["hookSpecificOutput"];
    assert_eq!(specific["hookEventName"], "PostToolUse", "{answer:#}");
    let context = specific["additionalContext"]
        .as_str()
        .unwrap_or_else(|| panic!("{answer:#}"));
    assert_eq!(
        sorted(context.split("\n\n")),
        ["context one", "context two"],
        "{answer:#}"
    );
    assert_eq!(
        answer.as_object().unwrap().len(),
        2,
        "only systemMessage and hookSpecificOutput: {answer:#}"
    );
    for name in ["one", "two"] {
        let got: Value =
            serde_json::from_slice(&std::fs::read(p.dir.join(format!("{name}.payload"))).unwrap())
                .unwrap_or_else(|e| panic!("hook {name} got no JSON payload: {e}"));
        assert_eq!(
            got["tool_use_id"], "toolu_contract",
            "hook {name}'s payload: {got:#}"
        );
    }
    assert!(
        !p.log_text().contains("was ignored"),
        "no hook answered with a decision, yet the log says one was ignored:\n{}",
        p.log_text()
    );
}

/// All async, and the hooks answer with decisions (a permission deny, a JSON block, exit 2,
/// updatedInput): none of them reaches the answer — it is `{"async": true}` and then only the
/// message — and the diagnostics log says an async decision was ignored.
#[test]
fn an_async_hook_s_decision_is_ignored_and_logged() {
    require_program("bash");
    let p = Project::new(json!({}));
    let deny = waiting_hook(
        &p,
        "deny",
        &json!({"systemMessage": "said anyway", "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "async-deny"}}),
    );
    let block = waiting_hook(
        &p,
        "block",
        &json!({"decision": "block", "reason": "async-block"}),
    );
    let rewrite = waiting_hook(
        &p,
        "rewrite",
        &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "rm -rf /tmp/x"}}}),
    );
    p.write_hooks(&on(
        "PreToolUse",
        json!([
            async_hook(deny),
            async_hook(block),
            async_hook(rewrite),
            async_hook("echo async-exit-2 >&2; exit 2".into()),
        ]),
    ));

    let mut live = Live::start(&p, "PreToolUse");
    let first = live
        .next_line("`{\"async\": true}` line")
        .expect("stdout ended before any line");
    assert_eq!(first, r#"{"async": true}"#);
    release(&p);
    let mut rest = Vec::new();
    while let Some(line) = live.next_line("end of stdout") {
        rest.push(line);
    }
    let (code, stderr) = live.finish();
    assert_eq!(code, Some(0), "an async hook cannot block: stderr {stderr}");
    assert!(!stderr.contains("async-exit-2"), "stderr: {stderr}");
    assert_eq!(rest.len(), 1, "stdout after the first line: {rest:?}");
    let answer = parse_line(&rest[0]);
    assert_eq!(
        answer,
        json!({"systemMessage": "said anyway"}),
        "only the message may come through"
    );
    let log = p.log_text();
    assert!(
        log.contains("async answers can only add context and messages, so it was ignored"),
        "the log does not say the async decision was ignored:\n{log}"
    );
}

/// A synchronous and an async hook on one event: the answer is the synchronous hook's alone (no
/// `{"async": true}`, nothing of the async hook's), given while the async hook is still waiting;
/// the async hook was started with the payload and finishes after hookbridge has exited, and
/// hookbridge's stdout and stderr are closed when it exits (the background hook holds neither).
#[test]
fn mixed_sync_and_async_answers_for_the_sync_hooks_and_starts_the_async_ones() {
    require_program("bash");
    let p = Project::new(json!({}));
    let sync =
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "sync context"}});
    let background = waiting_hook(
        &p,
        "background",
        &json!({"systemMessage": "from async", "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "async-deny"}}),
    );
    p.write_hooks(&on(
        "PreToolUse",
        json!([
            async_hook(background),
            {"type": "command", "command": format!("printf '%s\\n' {}", sh_quote(sync.to_string()))},
        ]),
    ));

    // run_with_deadline waits for the exit, then (bounded) for stdout and stderr to close: an
    // answer that waited for the async hook never comes, as the release is only made below.
    let done = p.run("PreToolUse", "claude", &p.payload("PreToolUse"));
    assert_eq!(done.code, Some(0), "stderr {}", done.stderr_str());
    let stdout = done.stdout_str();
    assert!(
        !stdout.contains("async"),
        "a mixed event is not answered asynchronously: {stdout}"
    );
    assert!(
        !stdout.contains("async-deny") && !stdout.contains("from async"),
        "{stdout}"
    );
    let answer = parse_line(stdout.trim());
    assert_eq!(
        answer["hookSpecificOutput"]["additionalContext"], "sync context",
        "the synchronous hook's answer: {answer:#}"
    );
    assert_ne!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{answer:#}"
    );
    let done_marker: PathBuf = p.dir.join("background.done");
    assert!(
        !done_marker.exists(),
        "the async hook finished before the release"
    );

    release(&p);
    assert!(
        wait_until(Duration::from_secs(60), || done_marker.exists()),
        "the async hook never ran to its end after hookbridge answered"
    );
    let got: Value = serde_json::from_slice(&std::fs::read(p.dir.join("background.payload")).unwrap())
        .expect("the async hook got no JSON payload");
    assert_eq!(got["tool_use_id"], "toolu_contract", "{got:#}");
}

/// A lone synchronous hook that switches itself to async (its first line `{"async": true}`, case
/// 191): hookbridge writes `{"async": true}` while the hook still waits, then the hook's later
/// `systemMessage` and `additionalContext` as one line.
#[test]
fn a_lone_hook_that_switches_itself_to_async_is_answered_the_same_way_at_once() {
    require_program("bash");
    let p = Project::new(json!({}));
    let release_file = p.dir.join("release");
    let later = json!({"systemMessage": "SWITCH-SYS", "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "SWITCH-CTX"}});
    let script = p.file(
        "switch.sh",
        &format!(
            "#!/bin/bash\ncat > /dev/null\necho '{{\"async\": true}}'\nwhile [ ! -e {release} ] && [ -d {dir} ]; do sleep 0.02; done\nprintf '%s\\n' {later}\n",
            release = sh_quote(&release_file),
            dir = sh_quote(&p.dir),
            later = sh_quote(later.to_string()),
        ),
    );
    p.write_hooks(&on(
        "PostToolUse",
        json!([{"type": "command", "command": format!("bash {}", sh_quote(&script))}]),
    ));
    let mut live = Live::start(&p, "PostToolUse");
    assert_eq!(
        live.next_line("the switch line").as_deref(),
        Some("{\"async\": true}")
    );
    release(&p);
    let answer = parse_line(&live.next_line("the later answer").unwrap());
    assert_eq!(answer["systemMessage"], "SWITCH-SYS");
    assert_eq!(answer["hookSpecificOutput"]["additionalContext"], "SWITCH-CTX");
    assert_eq!(live.next_line("the end"), None);
    let (code, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}");

    // Beside another hook it is read when it exits, as before: no switch line.
    std::fs::remove_file(&release_file).unwrap();
    p.write_hooks(&on(
        "PostToolUse",
        json!([{"type": "command", "command": format!("bash {}", sh_quote(&script))}, {"type": "command", "command": "true"}]),
    ));
    release(&p);
    let done = p.run("PostToolUse", "claude", &p.payload("PostToolUse"));
    assert!(
        !done.stdout_str().starts_with("{\"async\": true}"),
        "{}",
        done.stdout_str()
    );
}
