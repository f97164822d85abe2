//! The audit log through `hookbridge run`, `log` and `stats`: every field of a line for each way a
//! hook runs (spawned, http, in-process), secrets never written, rotation under 50 concurrent runs
//! losing no line, and `log --verify` naming an edited, a deleted and a reordered line.

use crate::common;

use std::collections::BTreeSet;
use std::path::PathBuf;

use common::fake_model::{FakeServer, Reply};
use common::project::{on, Project};
use serde_json::{json, Value};

fn audit_path(p: &Project) -> PathBuf {
    p.home.join(".amplifier/hookbridge/audit.jsonl")
}

fn lines(p: &Project) -> Vec<Value> {
    std::fs::read_to_string(audit_path(p))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

fn set(words: &[&str]) -> BTreeSet<String> {
    words.iter().map(|w| w.to_string()).collect()
}

/// The fields every line starts with.
const COMMON_KEYS: &[&str] = &["seq", "prev", "time", "kind", "host", "session", "event", "tool"];
const HOOK_KEYS: &[&str] = &[
    "hook",
    "trust",
    "ran",
    "duration_ms",
    "status",
    "code",
    "decision",
    "reason",
    "stdout_bytes",
    "stderr_bytes",
];
const EVENT_KEYS: &[&str] = &[
    "outcome",
    "reason",
    "hooks",
    "skipped",
    "held",
    "failed",
    "duration_ms",
];

#[test]
fn every_hook_run_and_the_event_are_on_the_record_with_every_field() {
    let server = FakeServer::start(Reply::Raw {
        status: 200,
        body: r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "from http"}}"#
            .into(),
    });
    // The seed dialect's rule hook (written directly in the event's list) runs in-process.
    let p = Project::new(json!({"hooks": {"PreToolUse": [
        {"hooks": [
            {"type": "command", "command": "echo 'no rm' >&2; exit 2"},
            {"type": "http", "url": format!("{}/hook", server.url)},
            {"type": "command", "command": "no-such-program-for-hookbridge-audit"},
        ]},
        {"type": "matcher", "match": {"tool": "Bash"}, "action": "allow", "message": "rule says yes"},
    ]}}));
    let done = p.run("PreToolUse", "claude", &p.payload("PreToolUse"));
    assert_eq!(done.code, Some(2), "stderr: {}", done.stderr_str());

    let lines = lines(&p);
    let hooks: Vec<&Value> = lines.iter().filter(|l| l["kind"] == "hook").collect();
    let event: Vec<&Value> = lines.iter().filter(|l| l["kind"] == "event").collect();
    assert_eq!(event.len(), 1, "{lines:#?}");
    assert_eq!(hooks.len(), 4, "{lines:#?}");
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(line["seq"], json!(i), "{line}");
        assert_eq!(line["host"], "claude");
        assert_eq!(line["session"], "contract-session");
        assert_eq!(line["event"], "PreToolUse");
        assert_eq!(line["tool"], "Bash");
        let want = if line["kind"] == "hook" {
            HOOK_KEYS
        } else {
            EVENT_KEYS
        };
        let want: Vec<&str> = COMMON_KEYS.iter().chain(want).copied().collect();
        assert_eq!(keys(line), set(&want), "{line}");
    }
    for hook in &hooks {
        assert_eq!(
            keys(&hook["hook"]),
            set(&["source", "label", "type", "plugin", "digest"])
        );
        assert_eq!(hook["hook"]["digest"].as_str().unwrap().len(), 64);
        assert_eq!(hook["trust"], "project-trusted");
        assert!(hook["duration_ms"].as_f64().unwrap() >= 0.0);
    }
    let by_type =
        |t: &str| -> Vec<&Value> { hooks.iter().copied().filter(|h| h["hook"]["type"] == t).collect() };
    let commands = by_type("command");
    let blocker = commands
        .iter()
        .find(|h| h["code"] == 2)
        .expect("the blocking command");
    assert_eq!(blocker["ran"], "spawned");
    assert_eq!(blocker["status"], "exited");
    assert_eq!(blocker["decision"], "deny");
    assert_eq!(blocker["reason"], "no rm");
    assert_eq!(blocker["stderr_bytes"], 6);
    let source = blocker["hook"]["source"].as_str().unwrap();
    assert!(source.ends_with(".amplifier/hooks/hooks.json:6:11"), "{source}");
    let missing = commands
        .iter()
        .find(|h| h["code"] == 127)
        .expect("the command that never launched");
    assert_eq!(missing["decision"], "error");
    let http = by_type("http");
    assert_eq!(http[0]["ran"], "http");
    assert_eq!(http[0]["status"], "responded");
    assert_eq!(http[0]["code"], 200);
    assert_eq!(http[0]["decision"], "context");
    let rule = by_type("matcher");
    assert_eq!(rule[0]["ran"], "in_process");
    // The seed's `allow` is no objection, not a permission decision.
    assert_eq!(rule[0]["decision"], "none");
    assert_eq!(rule[0]["status"], "answered");

    let event = event[0];
    assert_eq!(event["outcome"], "denied");
    assert_eq!(event["reason"], "no rm");
    assert_eq!(event["hooks"], 4);
    assert_eq!(event["failed"], 1);
    // The event line comes last, after its hooks.
    assert_eq!(lines.last().unwrap()["kind"], "event");
}

/// A hook that could not answer says on the record what kind of failure it was: an endpoint
/// nobody listens on is `unreachable`, one that answers with an error status `refused`, an answer
/// outside the output schema `unreadable`; a hook that answered has no `failure` at all. `stats`
/// counts the first as never launched.
#[test]
fn a_hook_that_could_not_answer_says_what_kind_of_failure() {
    let (closed, _held) = crate::common::refusing_url("/hook");
    let refusing = FakeServer::start(Reply::Raw {
        status: 503,
        body: "down".into(),
    });
    let unreadable = FakeServer::start(Reply::Raw {
        status: 200,
        body: "not json".into(),
    });
    let p = Project::new(on(
        "PreToolUse",
        json!([
            {"type": "http", "url": closed},
            {"type": "http", "url": format!("{}/hook", refusing.url)},
            {"type": "http", "url": format!("{}/hook", unreadable.url)},
            {"type": "command", "command": "true"},
        ]),
    ));
    let done = p.run("PreToolUse", "claude", &p.payload("PreToolUse"));
    // Non-blocking errors, as Claude Code reads a failed http hook.
    assert_eq!(done.code, Some(1), "stderr: {}", done.stderr_str());
    let lines = lines(&p);
    let failure_of = |hook: &str| -> Value {
        let line = lines
            .iter()
            .find(|l| l["kind"] == "hook" && l["hook"]["label"].as_str().is_some_and(|x| x.contains(hook)))
            .unwrap_or_else(|| panic!("no line for {hook}: {lines:#?}"));
        line.get("failure").cloned().unwrap_or(Value::Null)
    };
    assert_eq!(failure_of(&closed), "unreachable", "{lines:#?}");
    assert_eq!(failure_of(&refusing.url), "refused", "{lines:#?}");
    assert_eq!(failure_of(&unreadable.url), "unreadable", "{lines:#?}");
    assert_eq!(failure_of("true"), Value::Null, "{lines:#?}");
    // `log` says it in words.
    let text = p.finish(p.hookbridge(["log", "--failed"]), b"").stdout_str();
    for said in [
        "failed (unreachable) in",
        "HTTP 503 (refused) in",
        "(unreadable) in",
    ] {
        assert!(text.contains(said), "{said}: {text}");
    }

    // `stats` counts the endpoint nobody listens on as never launched (it checked nothing, like
    // a command that cannot start); the two that answered badly were reached, and failed.
    let done = p.finish(p.hookbridge(["stats", "--json"]), b"");
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let stats: Value = serde_json::from_slice(&done.stdout).unwrap();
    let counts = |label: &str| {
        let row = stats["hooks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["label"].as_str().is_some_and(|x| x.contains(label)))
            .unwrap_or_else(|| panic!("no {label} in {stats:#}"));
        (row["failures"].clone(), row["never_launched"].clone())
    };
    assert_eq!(counts(&closed), (json!(1), json!(1)), "{stats:#}");
    assert_eq!(counts(&refusing.url), (json!(1), json!(0)), "{stats:#}");
    assert_eq!(counts(&unreadable.url), (json!(1), json!(0)), "{stats:#}");
}

#[test]
fn no_secret_reaches_the_record() {
    const TOKEN: &str = "tok-SECRET-header-value";
    const ENV: &str = "env-SECRET-value";
    const INPUT: &str = "payload-SECRET-password";
    let server = FakeServer::start(Reply::Raw {
        status: 200,
        body: "{}".into(),
    });
    let p = Project::new(on(
        "PreToolUse",
        json!([
            {
                "type": "http",
                "url": format!("{}/hook", server.url),
                "headers": {"Authorization": "Bearer ${HOOK_TOKEN}"},
                "allowedEnvVars": ["HOOK_TOKEN"]
            },
            {"type": "command", "command": "echo \"$MY_SECRET\"; cat >/dev/null"},
        ]),
    ));
    let mut payload = p.payload("PreToolUse");
    payload["tool_input"]["command"] = json!(format!("login --password {INPUT}"));
    let mut cmd = p.command("PreToolUse", "claude");
    cmd.env("HOOK_TOKEN", TOKEN).env("MY_SECRET", ENV);
    let done = p.finish(cmd, &serde_json::to_vec(&payload).unwrap());
    assert_eq!(done.code, Some(0), "stderr: {}", done.stderr_str());
    assert_eq!(
        server.received()[0].header("authorization"),
        Some(format!("Bearer {TOKEN}").as_str()),
        "the secret did reach the endpoint"
    );
    let text = std::fs::read_to_string(audit_path(&p)).unwrap();
    assert_eq!(lines(&p).len(), 3, "{text}");
    for secret in [TOKEN, ENV, INPUT] {
        assert!(!text.contains(secret), "{secret} is in the audit log:\n{text}");
    }
}

/// An endpoint whose answer is not JSON — an error page that echoes the request, its headers and
/// the payload — fails the hook with words that quote it, as Claude Code's do; the record keeps the
/// words and not the body (red-team pass 3).
#[test]
fn a_non_json_body_quoted_in_a_failure_stays_out_of_the_record() {
    const TOKEN: &str = "tok-SECRET-header-value";
    const INPUT: &str = "payload-SECRET-password";
    let server = FakeServer::start(Reply::Raw {
        status: 200,
        body: format!("<html>you sent Authorization: Bearer {TOKEN} and {INPUT}</html>"),
    });
    let p = Project::new(on(
        "PreToolUse",
        json!([{"type": "http", "url": format!("{}/hook", server.url), "onFailure": "block",
                "headers": {"Authorization": "Bearer ${HOOK_TOKEN}"}, "allowedEnvVars": ["HOOK_TOKEN"]}]),
    ));
    let mut payload = p.payload("PreToolUse");
    payload["tool_input"]["command"] = json!(format!("login --password {INPUT}"));
    let mut cmd = p.command("PreToolUse", "claude");
    cmd.env("HOOK_TOKEN", TOKEN);
    let done = p.finish(cmd, &serde_json::to_vec(&payload).unwrap());
    assert!(
        done.stdout_str()
            .contains("non-JSON response body: <html>you sent"),
        "the model is shown the body, as by Claude Code: {}",
        done.stdout_str()
    );
    let text = std::fs::read_to_string(audit_path(&p)).unwrap();
    assert!(
        text.contains("HTTP hook must return JSON, but got non-JSON response body:"),
        "{text}"
    );
    for secret in [TOKEN, INPUT, "<html>"] {
        assert!(!text.contains(secret), "{secret} is in the audit log:\n{text}");
    }
}

#[test]
fn fifty_concurrent_runs_through_rotation_lose_no_line() {
    let p = Project::new(on(
        "PreToolUse",
        json!([{"type": "command", "command": "cat >/dev/null"}]),
    ));
    common::trust_project(&p.dir, &p.home);
    let payload = serde_json::to_vec(&p.payload("PreToolUse")).unwrap();
    let children: Vec<_> = (0..50)
        .map(|_| {
            let mut cmd = common::untrusted_run("PreToolUse", &p.dir, &p.home, &p.log, "claude");
            // About 25 lines per file: the 100 lines rotate three times (five files are kept).
            cmd.env("HOOKBRIDGE_AUDIT_MAX_BYTES", "16384")
                .stdin(std::process::Stdio::piped());
            let mut child = cmd.spawn().unwrap();
            use std::io::Write;
            child.stdin.take().unwrap().write_all(&payload).unwrap();
            child
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let path = audit_path(&p);
    assert!(
        PathBuf::from(format!("{}.1", path.display())).exists(),
        "it rotated"
    );
    let verified = hookbridge_runner::audit::verify(&path).unwrap().unwrap();
    assert_eq!((verified.first_seq, verified.lines), (Some(0), 100));
    let all = hookbridge_runner::audit::read_all(&path).unwrap();
    assert_eq!(all.iter().filter(|l| l["kind"] == "event").count(), 50);
    // A rotated file deleted from the middle of the record is a gap, not where it ends (red-team
    // pass 3: `.2` gone with `.3` there read as "older lines were rotated away").
    // The 100 lines laid out again as four files of 25, oldest in `.3`.
    let files = hookbridge_runner::audit::AuditFiles::of(&path);
    let mut raw = Vec::new();
    files
        .for_each_line(|_, _, bytes| {
            raw.push(String::from_utf8(bytes.to_vec()).unwrap());
            true
        })
        .unwrap();
    for file in &files.0 {
        std::fs::remove_file(file).unwrap();
    }
    for (chunk, suffix) in raw.chunks(25).zip([".3", ".2", ".1", ""]) {
        let text: String = chunk.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(format!("{}{suffix}", path.display()), text).unwrap();
    }
    assert!(hookbridge_runner::audit::verify(&path).unwrap().is_ok());
    std::fs::remove_file(format!("{}.2", path.display())).unwrap();
    let broken = hookbridge_runner::audit::verify(&path).unwrap().unwrap_err();
    assert!(broken.what.contains("were removed"), "{broken:?}");
}

#[test]
fn log_verify_names_an_edited_a_deleted_and_a_reordered_line() {
    let p = Project::new(on("PreToolUse", json!([{"type": "command", "command": "true"}])));
    for _ in 0..4 {
        p.run("PreToolUse", "claude", &p.payload("PreToolUse"));
    }
    let path = audit_path(&p);
    let good: Vec<String> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(good.len(), 8);
    let verify = |lines: &[String]| {
        std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
        let done = p.finish(p.hookbridge(["log", "--verify"]), b"");
        (done.code, done.stdout_str())
    };
    let (code, out) = verify(&good);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("the chain is whole: 8 line(s)"), "{out}");

    let mut edited = good.clone();
    edited[2] = edited[2].replace("\"exited\"", "\"timed_out\"");
    let (code, out) = verify(&edited);
    assert_eq!(code, Some(1));
    assert!(out.contains("audit.jsonl:3: altered"), "{out}");

    let mut deleted = good.clone();
    deleted.remove(5);
    let (code, out) = verify(&deleted);
    assert_eq!(code, Some(1));
    assert!(out.contains("audit.jsonl:6: `seq` 6 follows 4"), "{out}");

    let mut reordered = good;
    reordered.swap(0, 1);
    let (code, out) = verify(&reordered);
    assert_eq!(code, Some(1));
    assert!(out.contains("audit.jsonl:1:"), "{out}");
}

#[test]
fn log_filters_and_stats_sum_the_runs() {
    let p = Project::new(json!({"hooks": {
        "PreToolUse": [{"hooks": [
            {"type": "command", "command": "case \"$(cat)\" in *rm*) echo no >&2; exit 2;; esac"},
            {"type": "command", "command": "no-such-program-for-hookbridge-audit"},
        ]}],
        "Stop": [{"hooks": [{"type": "command", "command": "true"}]}],
    }}));
    let mut rm = p.payload("PreToolUse");
    rm["tool_input"]["command"] = json!("rm -rf x");
    rm["session_id"] = json!("s-rm");
    p.run("PreToolUse", "claude", &rm);
    p.run("PreToolUse", "claude", &p.payload("PreToolUse"));
    p.run("Stop", "claude", &p.payload("Stop"));

    let json_lines = |args: &[&str]| -> Vec<Value> {
        let mut all = vec!["log", "--json"];
        all.extend_from_slice(args);
        let done = p.finish(p.hookbridge(&all), b"");
        assert_eq!(done.code, Some(0), "{}", done.stderr_str());
        done.stdout_str()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    assert_eq!(json_lines(&[]).len(), 2 + 1 + 2 + 1 + 1 + 1);
    let blocked = json_lines(&["--blocked"]);
    assert_eq!(blocked.len(), 2, "the blocking hook and its event: {blocked:#?}");
    assert!(blocked.iter().all(|l| l["session"] == "s-rm"));
    assert_eq!(
        json_lines(&["--failed"]).len(),
        4,
        "two runs of the missing program, two events"
    );
    assert_eq!(json_lines(&["--session", "s-rm"]).len(), 3);
    assert_eq!(json_lines(&["--event", "Stop"]).len(), 2);
    assert_eq!(json_lines(&["--hook", "no-such-program"]).len(), 2);
    assert_eq!(json_lines(&["--since", "1h"]).len(), 8);
    assert_eq!(json_lines(&["--since", "2999-01-01T00:00:00Z"]).len(), 0);
    let text = p.finish(p.hookbridge(["log", "--blocked"]), b"").stdout_str();
    assert!(text.contains("→ deny: no"), "{text}");
    assert!(
        text.contains("→ denied (2 hook(s), 1 failed, 0 skipped)"),
        "{text}"
    );

    let done = p.finish(p.hookbridge(["stats", "--json"]), b"");
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let stats: Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(stats["tool_calls"], 2);
    let row = |label: &str| {
        stats["hooks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["label"].as_str().unwrap().contains(label))
            .unwrap_or_else(|| panic!("no {label} in {stats:#}"))
            .clone()
    };
    let guard = row("case");
    assert_eq!(
        (guard["runs"].clone(), guard["blocks"].clone()),
        (json!(2), json!(1))
    );
    assert_eq!(guard["failures"], 0);
    let missing = row("no-such-program");
    assert_eq!(
        (
            missing["runs"].clone(),
            missing["failures"].clone(),
            missing["never_launched"].clone()
        ),
        (json!(2), json!(2), json!(2))
    );
    let stop = row("true");
    assert_eq!(
        stop["ms_per_tool_call"], 0.0,
        "a Stop hook adds nothing to tool calls"
    );
    let total = |r: &Value| r["total_ms"].as_f64().unwrap();
    let order: Vec<f64> = stats["hooks"].as_array().unwrap().iter().map(total).collect();
    assert!(
        order.windows(2).all(|w| w[0] >= w[1]),
        "costliest first: {order:?}"
    );
    let text = p.finish(p.hookbridge(["stats"]), b"").stdout_str();
    assert!(text.contains("3 hook(s), 2 tool call(s)"), "{text}");
}

/// The variables come through the agent's environment, which a project's settings can set: a
/// log is never appended to a file that is not one (`~/.bashrc` would run what a line quotes), nor
/// through a symlink named like one. The default log is written instead, and the diagnostics log
/// (itself refused the same way, and kept at its default) says why.
#[test]
fn a_log_variable_naming_a_file_that_is_no_log_is_refused_and_the_default_used() {
    let p = Project::new(on("Stop", json!([{"type": "command", "command": "exit 1"}])));
    let bashrc = p.home.join(".bashrc");
    std::fs::write(&bashrc, "the user's own\n").unwrap();
    let link = p.dir.join("audit.jsonl");
    std::os::unix::fs::symlink(&bashrc, &link).unwrap();
    let default_diagnostics = p.home.join(".amplifier/hookbridge/diagnostics.log");
    for (audit, diagnostics) in [(&bashrc, &bashrc), (&link, &bashrc)] {
        let mut cmd = p.command("Stop", "claude");
        cmd.env("HOOKBRIDGE_AUDIT_LOG", audit)
            .env("HOOKBRIDGE_LOG", diagnostics);
        p.finish(cmd, &serde_json::to_vec(&p.payload("Stop")).unwrap());
        assert_eq!(std::fs::read_to_string(&bashrc).unwrap(), "the user's own\n");
        let said = std::fs::read_to_string(&default_diagnostics).unwrap();
        assert!(
            said.contains(&format!(
                "HOOKBRIDGE_LOG=`{}` ignored: a log's file name ends in `.log`",
                bashrc.display()
            )),
            "{said}"
        );
        let why = if audit == &link {
            "a symlink"
        } else {
            "a log's file name ends in `.jsonl`"
        };
        assert!(
            said.contains(&format!(
                "HOOKBRIDGE_AUDIT_LOG=`{}` ignored: {why}",
                audit.display()
            )),
            "{said}"
        );
    }
    assert_eq!(lines(&p).len(), 4, "the record went to the default log");
}

#[test]
fn the_audit_log_can_be_switched_off_or_moved() {
    let p = Project::new(on("Stop", json!([{"type": "command", "command": "true"}])));
    let mut cmd = p.command("Stop", "claude");
    cmd.env("HOOKBRIDGE_AUDIT_LOG", "off");
    p.finish(cmd, &serde_json::to_vec(&p.payload("Stop")).unwrap());
    assert!(!audit_path(&p).exists());
    let elsewhere = p.dir.join("elsewhere.jsonl");
    let mut cmd = p.command("Stop", "claude");
    cmd.env("HOOKBRIDGE_AUDIT_LOG", &elsewhere);
    p.finish(cmd, &serde_json::to_vec(&p.payload("Stop")).unwrap());
    assert_eq!(std::fs::read_to_string(&elsewhere).unwrap().lines().count(), 2);
    assert!(!audit_path(&p).exists());
}

/// Red-team pass 12: `HOOKBRIDGE_AUDIT_LOG` (which a project's settings can set, with
/// `HOOKBRIDGE_AUDIT_MAX_BYTES`) named `~/.claude/history.jsonl`, Claude Code's prompt history: audit
/// lines were appended to it, and past the size its rotation moved the history to `.1` and deleted
/// `.4`. A file that is there already is written only when it is a log of hookbridge's own; so
/// for `HOOKBRIDGE_LOG`.
#[test]
fn a_log_variable_naming_another_programs_file_leaves_it_alone() {
    let p = Project::new(on(
        "Stop",
        json!([{"type": "command", "command": "no-such-hook-for-the-logs"}]),
    ));
    let history = p.home.join(".claude/history.jsonl");
    std::fs::create_dir_all(history.parent().unwrap()).unwrap();
    let prompts = "{\"display\":\"my prompt\"}\n".repeat(2000);
    std::fs::write(&history, &prompts).unwrap();
    let app_log = p.home.join("app.log");
    std::fs::write(&app_log, "INFO started\n").unwrap();
    let mut cmd = p.command("Stop", "claude");
    cmd.env("HOOKBRIDGE_AUDIT_LOG", &history)
        .env("HOOKBRIDGE_AUDIT_MAX_BYTES", "1")
        .env("HOOKBRIDGE_LOG", &app_log);
    p.finish(cmd, &serde_json::to_vec(&p.payload("Stop")).unwrap());
    assert_eq!(std::fs::read_to_string(&history).unwrap(), prompts);
    assert!(!p.home.join(".claude/history.jsonl.1").exists());
    assert_eq!(std::fs::read_to_string(&app_log).unwrap(), "INFO started\n");
    assert_eq!(lines(&p).len(), 2, "the record went to the default log");
    let said = std::fs::read_to_string(p.home.join(".amplifier/hookbridge/diagnostics.log")).unwrap();
    assert!(
        said.contains("a file hookbridge did not write") && said.contains("HOOKBRIDGE_AUDIT_LOG="),
        "{said}"
    );
}

#[test]
fn a_hook_that_failed_every_run_is_named_to_the_user_once_at_the_end_of_a_turn() {
    let p = Project::new(json!({"hooks": {
        "PreToolUse": [{"hooks": [
            {"type": "command", "command": "no-such-guard-for-hookbridge-audit"},
            {"type": "command", "command": "cat >/dev/null"},
        ]}],
        "Stop": [{"hooks": [{"type": "command", "command": "true"}]}],
    }}));
    for _ in 0..2 {
        let done = p.run("PreToolUse", "claude", &p.payload("PreToolUse"));
        assert_eq!(
            done.code,
            Some(127),
            "the missing guard's error: {}",
            done.stderr_str()
        );
    }
    let stop = p.run("Stop", "claude", &p.payload("Stop"));
    assert_eq!(stop.code, Some(0), "{}", stop.stderr_str());
    let answer: Value = serde_json::from_slice(&stop.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", stop.stdout_str()));
    let message = answer["systemMessage"].as_str().unwrap_or_default();
    assert!(
        message.contains("1 hook(s) failed in every run this session")
            && message.contains("`no-such-guard-for-hookbridge-audit`")
            && message.contains("never launched in 2 run(s)"),
        "{answer}"
    );
    assert!(
        !message.contains("cat >/dev/null"),
        "a hook that answered is not named: {message}"
    );
    assert!(
        !answer.as_object().unwrap().contains_key("decision"),
        "the notice decides nothing: {answer}"
    );
    // Once per session: the next turn's Stop says nothing more.
    let again = p.run("Stop", "claude", &p.payload("Stop"));
    assert_eq!((again.code, again.stdout_str()), (Some(0), String::new()));
    // Another session is told of its own.
    let mut other = p.payload("PreToolUse");
    other["session_id"] = json!("another-session");
    p.run("PreToolUse", "claude", &other);
    let mut stop = p.payload("Stop");
    stop["session_id"] = json!("another-session");
    let told = p.run("Stop", "claude", &stop);
    assert!(told.stdout_str().contains("in 1 run(s)"), "{}", told.stdout_str());
}

#[test]
fn the_notice_never_replaces_a_stop_hooks_own_error() {
    let p = Project::new(on(
        "Stop",
        json!([{"type": "command", "command": "echo stop-hook-broke >&2; exit 1"}]),
    ));
    for _ in 0..2 {
        let done = p.run("Stop", "claude", &p.payload("Stop"));
        assert_eq!(
            (done.code, done.stdout_str()),
            (Some(1), String::new()),
            "the Stop hook's own non-blocking error stands: {}",
            done.stderr_str()
        );
        assert!(done.stderr_str().contains("stop-hook-broke"));
    }
}

/// Every tag of `page` (`<…>`), text left out.
fn tags_of(page: &str) -> String {
    let mut tags = String::new();
    let mut inside = false;
    for c in page.chars() {
        inside = (inside || c == '<') && c != '>';
        if inside {
            tags.push(c);
        }
    }
    tags
}

/// The elements of `page` that open with `<tag` and carry `class="…word…"`.
fn count_class(page: &str, tag: &str, word: &str) -> usize {
    page.split(&format!("<{tag} "))
        .skip(1)
        .filter(|rest| {
            let head = &rest[..rest.find('>').unwrap_or(rest.len())];
            head.split("class=\"")
                .nth(1)
                .and_then(|c| c.split('"').next())
                .is_some_and(|c| c.split(' ').any(|w| w == word))
        })
        .count()
}

#[test]
fn report_draws_one_session_with_its_blocks_and_failures_and_escapes_every_label() {
    let hostile =
        "echo '</title><script>alert(1)</script><img src=x onerror=alert(2)>\" data-x=\"y' >/dev/null";
    let p = Project::new(json!({"hooks": {
        "PreToolUse": [{"hooks": [
            {"type": "command", "command": "case \"$(cat)\" in *rm*) echo 'no <rm>' >&2; exit 2;; esac"},
            {"type": "command", "command": hostile},
            {"type": "command", "command": "no-such-program-for-hookbridge-audit"},
        ]}],
    }}));
    let mut rm = p.payload("PreToolUse");
    rm["tool_input"]["command"] = json!("rm -rf x");
    for payload in [p.payload("PreToolUse"), rm.clone(), p.payload("PreToolUse")] {
        p.run("PreToolUse", "claude", &payload);
    }
    // Another session's run, newer: the default session is the newest line's.
    let mut other = p.payload("PreToolUse");
    other["session_id"] = json!("other-session");
    p.run("PreToolUse", "claude", &other);

    let page_of = |args: &[&str]| -> String {
        let mut all = vec!["report", "--html", "-o", "-"];
        all.extend_from_slice(args);
        let done = p.finish(p.hookbridge(&all), b"");
        assert_eq!(done.code, Some(0), "{}", done.stderr_str());
        done.stdout_str()
    };
    let page = page_of(&["--session", "contract-session"]);
    assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
    assert!(page.contains("<b data-count=\"events\">3</b>"), "{page}");
    assert!(page.contains("<b data-count=\"runs\">9</b>"), "{page}");
    assert!(page.contains("<b data-count=\"blocks\">1</b>"), "{page}");
    assert!(page.contains("<b data-count=\"failures\">3</b>"), "{page}");
    assert_eq!(count_class(&page, "tr", "event"), 3);
    assert_eq!(count_class(&page, "div", "bar"), 9);
    assert_eq!(count_class(&page, "div", "blocked"), 1);
    assert_eq!(count_class(&page, "div", "never-launched"), 3);
    assert_eq!(count_class(&page, "tr", "denied"), 1);
    assert!(page.contains("no &lt;rm&gt;"), "the block's reason, escaped");
    // Nothing from the record becomes markup, and the page neither runs nor fetches anything.
    assert!(!page.to_lowercase().contains("<script"), "{page}");
    assert!(!page.contains("<img"), "{page}");
    let tags = tags_of(&page);
    assert!(
        !tags.contains("data-x=\""),
        "an attribute written by a label: {tags}"
    );
    assert!(
        page.contains("&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{page}"
    );
    for fetches in [" src=\"", " href=\"", "url(", "@import"] {
        assert!(!tags.contains(fetches), "{fetches} in {tags}");
    }
    assert!(page.contains("content=\"default-src 'none'; style-src 'unsafe-inline'\""));
    // The stats table and the distributions: one row per hook.
    let stats = &page[page.find("id=\"stats\"").unwrap()..];
    assert_eq!(stats.matches("<tr data-source=").count(), 3);
    let dist = &page[page.find("id=\"distributions\"").unwrap()..page.find("id=\"stats\"").unwrap()];
    assert_eq!(dist.matches("data-runs=\"3\"").count(), 3);

    let newest = page_of(&[]);
    assert!(newest.contains("session <code>other-session</code>"), "{newest}");
    assert!(newest.contains("<b data-count=\"events\">1</b>"));

    let done = p.finish(
        p.hookbridge(["report", "--html", "--session", "nobody", "-o", "-"]),
        b"",
    );
    assert_eq!(done.code, Some(64), "a usage error: {}", done.stderr_str());
    assert!(
        done.stderr_str().contains("no line of session nobody"),
        "{}",
        done.stderr_str()
    );
    let out = p.dir.join("page.html");
    let done = p.finish(
        p.hookbridge(["report", "--html", "-o", out.to_str().unwrap()]),
        b"",
    );
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), newest);
}

#[test]
fn report_never_writes_through_a_symlink_a_cloned_repository_put_at_its_output() {
    use std::os::unix::fs::PermissionsExt as _;
    let p = Project::new(json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "command", "command": "true"},
    ]}]}}));
    p.run("PreToolUse", "claude", &p.payload("PreToolUse"));
    // The default output lands in the folder the command runs in: the project.
    let victim = p.home.join(".bashrc");
    std::fs::write(&victim, "the user's own\n").unwrap();
    let link = p.dir.join("hookbridge-report.html");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let done = p.finish(p.hookbridge(["report", "--html"]), b"");
    assert_eq!(done.code, Some(1), "{}", done.stderr_str());
    assert!(
        done.stderr_str().contains("is a symlink"),
        "{}",
        done.stderr_str()
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "the user's own\n");
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    // Without the link the page is written there, the user's alone like the log it is drawn from.
    std::fs::remove_file(&link).unwrap();
    let done = p.finish(p.hookbridge(["report", "--html"]), b"");
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let meta = std::fs::symlink_metadata(&link).unwrap();
    assert!(meta.is_file());
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert!(std::fs::read_to_string(&link)
        .unwrap()
        .starts_with("<!DOCTYPE html>"));
}

#[test]
fn a_hook_cancelled_because_another_blocked_is_on_the_record_as_cancelled_not_as_a_failure() {
    // Claude Code stops the other UserPromptSubmit hooks once one blocks (case 134).
    let p = Project::new(json!({"hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": "echo 'no secrets' >&2; exit 2"},
        {"type": "command", "command": "sleep 30"},
    ]}]}}));
    let payload = p.payload("UserPromptSubmit");
    for _ in 0..2 {
        let done = p.run("UserPromptSubmit", "claude", &payload);
        assert_eq!(done.code, Some(2), "{}", done.stderr_str());
    }
    let lines = lines(&p);
    let slow: Vec<&Value> = lines
        .iter()
        .filter(|l| l["kind"] == "hook" && l["hook"]["label"] == "sleep 30")
        .collect();
    assert_eq!(slow.len(), 2, "{lines:#?}");
    for line in &slow {
        assert_eq!(line["status"], "cancelled", "{line}");
        assert_eq!(line["decision"], "cancelled", "{line}");
        assert_eq!(
            line["reason"],
            "cancelled: another UserPromptSubmit hook blocked the prompt"
        );
    }
    for event in lines.iter().filter(|l| l["kind"] == "event") {
        assert_eq!(
            (event["outcome"].as_str(), event["failed"].as_u64()),
            (Some("blocked"), Some(0)),
            "{event}"
        );
    }
    let done = p.finish(p.hookbridge(["stats", "--json"]), b"");
    let stats: Value = serde_json::from_slice(&done.stdout).unwrap();
    let row = stats["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["label"] == "sleep 30")
        .unwrap();
    assert_eq!(
        (row["runs"].as_u64(), row["failures"].as_u64()),
        (Some(2), Some(0)),
        "{row}"
    );
    let failed = p.finish(p.hookbridge(["log", "--failed", "--json"]), b"");
    assert_eq!(failed.stdout_str(), "", "nothing failed");
    // So the end of the turn names no hook as failing throughout.
    let stop = p.run("Stop", "claude", &p.payload("Stop"));
    assert!(
        !stop.stdout_str().contains("failed in every run"),
        "{}",
        stop.stdout_str()
    );
}

/// A guard's reason quotes the model's command, and the model can write terminal control
/// sequences into it (a clipboard write, a line erased and rewritten): `log` and `stats` print
/// them escaped, so reading the record never acts on them and a line shows what it holds.
#[test]
fn log_and_stats_print_no_terminal_control_sequence() {
    common::require_program("python3");
    let quote = r#"python3 -c 'import json,sys; sys.stderr.write(json.load(sys.stdin)["tool_input"]["command"]); sys.exit(2)'"#;
    let p = Project::new(on("PreToolUse", json!([{"type": "command", "command": quote}])));
    let forged = "rm -rf ~\u{1b}]52;c;ZXZpbA==\u{7}\u{1b}[2K\r allowed";
    let done = p.run("PreToolUse", "claude", &p.bash_payload(forged));
    assert_eq!(done.code, Some(2), "{}", done.stderr_str());
    for args in [&["log"][..], &["stats"]] {
        let text = p.finish(p.hookbridge(args), b"").stdout_str();
        assert!(!text.contains(['\u{1b}', '\r', '\u{7}']), "{args:?}: {text:?}");
        if args == ["log"] {
            assert!(text.contains("rm -rf ~\\u{1b}]52;c;ZXZpbA==\\u{7}"), "{text}");
        }
    }
}
