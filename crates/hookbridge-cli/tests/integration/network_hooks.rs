//! `prompt` and `http` hooks through `hookbridge run`, against loopback endpoints written here
//! (`common/fake_model.rs`): the request each provider gets, what each answer does, and every way
//! the call can fail — a reply that is no verdict, a refusal, an HTTP error, an unreachable
//! endpoint, a slow one — reported and contained, never a silent allow where Claude Code blocks,
//! and never a secret in a report or the log.

use crate::common;

use std::time::{Duration, Instant};

use common::fake_model::{FakeServer, Reply};
use common::project::{on, Project};
use serde_json::{json, Value};

const KEY: &str = "sk-ant-test-KEY-never-printed";

fn prompt_hook(prompt: &str) -> Value {
    json!([{"type": "prompt", "prompt": prompt}])
}

/// `hookbridge run` for `event` with the Anthropic provider pointed at `server`.
fn run_anthropic(p: &Project, server: &FakeServer, event: &str, format: &str) -> common::Finished {
    let mut cmd = p.command(event, format);
    cmd.env("ANTHROPIC_BASE_URL", &server.url)
        .env("ANTHROPIC_API_KEY", KEY);
    p.finish(cmd, &serde_json::to_vec(&p.payload(event)).unwrap())
}

fn json_of(done: &common::Finished) -> Value {
    serde_json::from_slice(&done.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", done.stdout_str()))
}

#[test]
fn a_prompt_hook_asks_the_anthropic_api_as_claude_code_does() {
    let server = FakeServer::start(Reply::ModelText(r#"{"ok": true, "reason": "fine"}"#.into()));
    let p = Project::new(on(
        "PreToolUse",
        json!([{"type": "prompt", "prompt": "Safe? $ARGUMENTS", "model": "claude-test-model"}]),
    ));
    let done = run_anthropic(&p, &server, "PreToolUse", "claude");
    assert_eq!(done.code, Some(0), "stderr: {}", done.stderr_str());
    assert_eq!(done.stdout_str(), "", "ok: true changes nothing");
    let got = server.received();
    assert_eq!(got.len(), 1, "one request per hook per event");
    let r = &got[0];
    assert_eq!(r.path, "/v1/messages");
    assert_eq!(r.header("x-api-key"), Some(KEY));
    assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(r.body["model"], "claude-test-model");
    assert_eq!(
        r.body["system"][0]["text"].as_str().unwrap(),
        hookbridge_core::decision::JUDGE_SYSTEM_PROMPT
    );
    assert_eq!(r.body["output_config"]["format"]["type"], "json_schema");
    assert_eq!(
        r.body["output_config"]["format"]["schema"]["required"],
        json!(["ok", "reason"])
    );
    let user = r.body["messages"][0]["content"][0]["text"].as_str().unwrap();
    let input = user.strip_prefix("Safe? ").expect("the prompt, then the input");
    let input: Value = serde_json::from_str(input).expect("$ARGUMENTS is the hook input JSON");
    assert_eq!(input, p.payload("PreToolUse"));
}

#[test]
fn ok_false_on_pre_tool_use_denies_and_ends_the_turn() {
    let server = FakeServer::start(Reply::ModelText(r#"{"ok": false, "reason": "NOPE"}"#.into()));
    let p = Project::new(on("PreToolUse", prompt_hook("Check $ARGUMENTS")));
    let done = run_anthropic(&p, &server, "PreToolUse", "claude");
    assert_eq!(done.code, Some(0));
    let answer = json_of(&done);
    assert_eq!(answer["continue"], false);
    assert_eq!(answer["stopReason"], "NOPE");
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecisionReason"],
        "[Check $ARGUMENTS]: NOPE"
    );
}

#[test]
fn ok_false_with_continue_on_block_denies_and_goes_on() {
    let server = FakeServer::start(Reply::ModelText(r#"{"ok": false, "reason": "NOPE"}"#.into()));
    let p = Project::new(on(
        "PreToolUse",
        json!([{"type": "prompt", "prompt": "Check", "continueOnBlock": true}]),
    ));
    let done = run_anthropic(&p, &server, "PreToolUse", "claude");
    assert_eq!((done.code, done.stderr_str().as_str()), (Some(2), "NOPE"));
    let user = server.received()[0].body["messages"][0]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        user.starts_with("Check\n\nARGUMENTS: {"),
        "the input is appended when the prompt never names it: {user}"
    );
}

#[test]
fn ok_false_on_stop_keeps_the_agent_working_unless_impossible() {
    let server = FakeServer::start(Reply::ModelText(
        r#"{"ok": false, "reason": "TESTS FAIL"}"#.into(),
    ));
    let p = Project::new(on("Stop", prompt_hook("Done? $ARGUMENTS")));
    let done = run_anthropic(&p, &server, "Stop", "claude");
    assert_eq!((done.code, done.stderr_str().as_str()), (Some(2), "TESTS FAIL"));

    let server = FakeServer::start(Reply::ModelText(
        r#"{"ok": false, "reason": "cannot", "impossible": true}"#.into(),
    ));
    let done = run_anthropic(&p, &server, "Stop", "claude");
    assert_eq!((done.code, done.stdout_str().as_str()), (Some(0), ""));
}

#[test]
fn ok_false_on_user_prompt_submit_stops_the_prompt() {
    let server = FakeServer::start(Reply::ModelText(r#"{"ok": false, "reason": "NOT NOW"}"#.into()));
    let p = Project::new(on("UserPromptSubmit", prompt_hook("Allowed? $ARGUMENTS")));
    let mut payload = p.payload("UserPromptSubmit");
    payload["prompt"] = json!("do it");
    let mut cmd = p.command("UserPromptSubmit", "claude");
    cmd.env("ANTHROPIC_BASE_URL", &server.url)
        .env("ANTHROPIC_API_KEY", KEY);
    let done = p.finish(cmd, &serde_json::to_vec(&payload).unwrap());
    let answer = json_of(&done);
    assert_eq!(
        (answer["continue"].clone(), answer["stopReason"].clone()),
        (json!(false), json!("NOT NOW"))
    );
}

#[test]
fn the_openai_provider_is_chosen_by_configuration() {
    let server = FakeServer::start(Reply::ModelText(
        r#"{"ok": false, "reason": "FROM-OPENAI"}"#.into(),
    ));
    let p = Project::new(on("Stop", prompt_hook("Done? $ARGUMENTS")));
    let mut cmd = p.command("Stop", "claude");
    cmd.env("HOOKBRIDGE_MODEL_PROVIDER", "openai")
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url))
        .env("OPENAI_API_KEY", "sk-openai-secret")
        .env("HOOKBRIDGE_PROMPT_MODEL", "small-model");
    let done = p.finish(cmd, &serde_json::to_vec(&p.payload("Stop")).unwrap());
    assert_eq!((done.code, done.stderr_str().as_str()), (Some(2), "FROM-OPENAI"));
    let r = &server.received()[0];
    assert_eq!(r.path, "/v1/chat/completions");
    assert_eq!(r.header("authorization"), Some("Bearer sk-openai-secret"));
    assert_eq!(r.body["model"], "small-model");
    assert_eq!(r.body["messages"][0]["role"], "system");
    assert_eq!(r.body["response_format"]["type"], "json_schema");
}

/// Every way a model call can fail is a reported non-blocking error: the tool goes on (as in
/// Claude Code, case 199), the report says why, and no key is printed anywhere.
#[test]
fn a_model_call_that_fails_is_reported_and_contained() {
    let cases: Vec<(&str, Reply, &str)> = vec![
        (
            "not a verdict",
            Reply::ModelText("I think it is fine.".into()),
            "no usable verdict",
        ),
        ("refusal", Reply::Refusal, "refused"),
        (
            "HTTP 500",
            Reply::Raw {
                status: 500,
                body: r#"{"error": {"message": "overloaded"}}"#.into(),
            },
            "HTTP 500: overloaded",
        ),
        (
            "not JSON",
            Reply::Raw {
                status: 200,
                body: "<html>".into(),
            },
            "cannot be read",
        ),
    ];
    for (what, reply, detail) in cases {
        let server = FakeServer::start(reply);
        let p = Project::new(on("PreToolUse", prompt_hook("Check $ARGUMENTS")));
        let claude = run_anthropic(&p, &server, "PreToolUse", "claude");
        assert_eq!(
            claude.code,
            Some(1),
            "{what}: a non-blocking error; stderr {}",
            claude.stderr_str()
        );
        assert!(claude.stdout.is_empty(), "{what}: no decision");
        let report = json_of(&run_anthropic(&p, &server, "PreToolUse", "report"));
        let hook = &report["hooks"][0];
        assert_eq!(hook["status"], "failed", "{what}: {report}");
        let shown = hook["detail"].as_str().unwrap();
        assert!(shown.contains(detail), "{what}: {shown:?} should say {detail:?}");
        let everything = format!("{report}{}{}", claude.stderr_str(), p.log_text());
        assert!(!everything.contains(KEY), "{what}: the API key leaked");
    }
}

#[test]
fn an_unreachable_or_slow_model_gives_no_verdict_in_time() {
    // Nothing listens there, and nothing can while the port is held.
    let (refusing, _held) = crate::common::refusing_url("");
    let p = Project::new(on("PreToolUse", prompt_hook("Check $ARGUMENTS")));
    let mut cmd = p.command("PreToolUse", "report");
    cmd.env("ANTHROPIC_BASE_URL", refusing);
    let report = p.report(cmd, &p.payload("PreToolUse"));
    assert_eq!(report["hooks"][0]["status"], "failed", "{report}");
    assert!(report["hooks"][0]["detail"]
        .as_str()
        .unwrap()
        .contains("could not reach"));

    let server = FakeServer::start(Reply::Slow(Duration::from_secs(30), r#"{"ok": false}"#.into()));
    p.write_hooks(&on(
        "PreToolUse",
        json!([{"type": "prompt", "prompt": "Check", "timeout": 1}]),
    ));
    let started = Instant::now();
    let done = run_anthropic(&p, &server, "PreToolUse", "report");
    let elapsed = started.elapsed();
    let report = json_of(&done);
    assert_eq!(report["hooks"][0]["status"], "timed_out", "{report}");
    assert!(
        elapsed < Duration::from_secs(20),
        "the hook's timeout bounds the call: {elapsed:?}"
    );
}

/// A prompt hook and a command hook of one event run side by side and merge as usual.
#[test]
fn prompt_and_command_hooks_merge() {
    let server = FakeServer::start(Reply::ModelText(r#"{"ok": false, "reason": "MODEL-NO"}"#.into()));
    let p = Project::new(on(
        "PostToolUse",
        json!([
            {"type": "prompt", "prompt": "Check $ARGUMENTS", "continueOnBlock": true},
            {"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"CMD-CTX\"}}'"}
        ]),
    ));
    let report = json_of(&run_anthropic(&p, &server, "PostToolUse", "report"));
    let statuses: Vec<&str> = report["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["judged_not_ok", "exited"]);
    let done = run_anthropic(&p, &server, "PostToolUse", "claude");
    let text = format!("{}{}", done.stdout_str(), done.stderr_str());
    assert!(text.contains("MODEL-NO") && text.contains("CMD-CTX"), "{text}");
}

// ------------------------------------------------------------------------------------------------
// http hooks.

#[test]
fn an_http_hook_posts_the_input_and_its_answer_decides() {
    let server = FakeServer::start(Reply::Raw {
        status: 200,
        body: r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "HTTP-SAYS-NO"}}"#.into(),
    });
    let p = Project::new(on(
        "PreToolUse",
        json!([{
            "type": "http",
            "url": format!("{}/hook", server.url),
            "headers": {"Authorization": "Bearer ${HOOK_TOKEN}", "X-Other": "[$SECRET_NOT_ALLOWED]"},
            "allowedEnvVars": ["HOOK_TOKEN"]
        }]),
    ));
    let mut cmd = p.command("PreToolUse", "claude");
    cmd.env("HOOK_TOKEN", "tok-123").env("SECRET_NOT_ALLOWED", "leak");
    let done = p.finish(cmd, &serde_json::to_vec(&p.payload("PreToolUse")).unwrap());
    let answer = json_of(&done);
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecisionReason"],
        "HTTP-SAYS-NO"
    );
    let r = &server.received()[0];
    assert_eq!(r.path, "/hook");
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.header("authorization"), Some("Bearer tok-123"));
    assert_eq!(
        r.header("x-other"),
        Some("[]"),
        "a variable not allowed becomes empty"
    );
    assert_eq!(r.body, p.payload("PreToolUse"));

    let mut cmd = p.command("PreToolUse", "report");
    cmd.env("HOOK_TOKEN", "tok-123");
    let report = p.report(cmd, &p.payload("PreToolUse"));
    assert!(
        !report.to_string().contains("tok-123"),
        "an interpolated header leaked: {report}"
    );
    assert!(
        !p.log_text().contains("tok-123"),
        "an interpolated header leaked into the log"
    );
}

/// A PreToolUse deny whose reason is `len` bytes long.
fn deny_with_reason_of(len: usize) -> String {
    json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
        "permissionDecisionReason": format!("BIG-NO{}", "x".repeat(len))}})
    .to_string()
}

#[test]
fn an_http_deny_larger_than_the_output_cap_still_denies() {
    let server = FakeServer::start(Reply::Raw {
        status: 200,
        body: deny_with_reason_of(5 << 20),
    });
    let p = Project::new(on(
        "PreToolUse",
        json!([{"type": "http", "url": format!("{}/h", server.url)}]),
    ));
    let done = p.run("PreToolUse", "claude", &p.payload("PreToolUse"));
    let answer = json_of(&done);
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
    let reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert!(
        reason.starts_with("BIG-NO") && reason.len() == 6 + (5 << 20),
        "{}",
        reason.len()
    );
}

/// A deny sent gzip-encoded (a proxy or framework compresses it) still denies, as Node reads it
/// decompressed (red-team pass 3: it was a non-JSON body, a non-blocking error).
#[test]
fn a_gzip_encoded_http_deny_still_denies() {
    let server = FakeServer::start(Reply::Gzipped(deny_with_reason_of(10)));
    let p = Project::new(on(
        "PreToolUse",
        json!([{"type": "http", "url": format!("{}/h", server.url)}]),
    ));
    let done = p.run("PreToolUse", "claude", &p.payload("PreToolUse"));
    let answer = json_of(&done);
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"],
        "deny",
        "{}",
        p.log_text()
    );
}

#[test]
fn an_http_answer_past_everything_hookbridge_reads_is_a_hook_error_that_follows_on_failure() {
    // 80 MiB: past the cap and the spill together (68 MiB).
    let server = FakeServer::start(Reply::Raw {
        status: 200,
        body: deny_with_reason_of(80 << 20),
    });
    let p = Project::new(on(
        "PreToolUse",
        json!([{"type": "http", "url": format!("{}/h", server.url)}]),
    ));
    let done = p.run("PreToolUse", "claude", &p.payload("PreToolUse"));
    assert_eq!(
        done.code,
        Some(1),
        "a non-blocking error, never a silent allow: {}",
        done.stderr_str()
    );
    assert!(done.stderr_str().contains("larger than"), "{}", done.stderr_str());
    p.write_hooks(&on(
        "PreToolUse",
        json!([{"type": "http", "url": format!("{}/h", server.url), "onFailure": "block"}]),
    ));
    let done = p.run("PreToolUse", "claude", &p.payload("PreToolUse"));
    assert_eq!(json_of(&done)["hookSpecificOutput"]["permissionDecision"], "deny");
}

/// An answer of many small values is bounded by its values, not only its bytes (red-team pass 3: a
/// 10 MB `{"junk": [0,0,…]}` took 718 MB to read, so the 68 MiB bound allowed gigabytes, and a run
/// that runs out of memory loses every other guard's deny): past 100,000 values it is a failure of
/// the hook, which follows its `onFailure`.
#[test]
fn an_http_answer_of_too_many_values_is_a_hook_error_that_follows_on_failure() {
    let zeros = vec!["0"; 200_000].join(",");
    let server = FakeServer::start(Reply::Raw {
        status: 200,
        body: format!(r#"{{"junk": [{zeros}], "decision": "block", "reason": "no"}}"#),
    });
    let p = Project::new(on(
        "PreToolUse",
        json!([{"type": "http", "url": format!("{}/h", server.url), "onFailure": "block"}]),
    ));
    let done = p.run("PreToolUse", "claude", &p.payload("PreToolUse"));
    let answer = json_of(&done);
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{answer}"
    );
    assert!(
        answer.to_string().contains("holds more than 100000 values"),
        "{answer}"
    );
}

#[test]
fn an_http_error_or_unreachable_endpoint_is_a_non_blocking_error() {
    let server = FakeServer::start(Reply::Raw {
        status: 503,
        body: "busy".into(),
    });
    let p = Project::new(on(
        "PreToolUse",
        json!([{"type": "http", "url": format!("{}/h", server.url)}]),
    ));
    let done = p.run("PreToolUse", "claude", &p.payload("PreToolUse"));
    assert_eq!(done.code, Some(1), "stderr {}", done.stderr_str());
    assert!(done.stderr_str().contains("HTTP 503"), "{}", done.stderr_str());

    let (refusing, _held) = crate::common::refusing_url("/h");
    p.write_hooks(&on(
        "PreToolUse",
        json!([{"type": "http", "url": refusing, "onFailure": "block"}]),
    ));
    let done = p.run("PreToolUse", "claude", &p.payload("PreToolUse"));
    let answer = json_of(&done);
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "onFailure: block turns an unreachable endpoint into a block"
    );
}

#[test]
fn the_url_allow_list_keeps_http_hooks_from_running() {
    let server = FakeServer::start(Reply::Raw {
        status: 200,
        body: "{}".into(),
    });
    let mut hooks = on(
        "PreToolUse",
        json!([{"type": "http", "url": format!("{}/h", server.url)}]),
    );
    hooks["allowedHttpHookUrls"] = json!(["https://hooks.example.com/*"]);
    let p = Project::new(hooks.clone());
    let report = p.report(p.command("PreToolUse", "report"), &p.payload("PreToolUse"));
    assert_eq!(report["hooks"][0]["status"], "not_run", "{report}");
    assert!(report["hooks"][0]["detail"]
        .as_str()
        .unwrap()
        .contains("allowedHttpHookUrls"));
    assert!(server.received().is_empty(), "nothing was sent");
    let validate = p.finish(
        p.hookbridge(["validate", "--project-dir", p.dir.to_str().unwrap()]),
        b"",
    );
    assert_eq!(validate.code, Some(1), "validate names the blocked hook");
    assert!(
        validate.stderr_str().contains("allowedHttpHookUrls"),
        "{}",
        validate.stderr_str()
    );

    hooks["allowedHttpHookUrls"] = json!(["http://127.0.0.1:*/*"]);
    p.write_hooks(&hooks);
    let report = p.report(p.command("PreToolUse", "report"), &p.payload("PreToolUse"));
    assert_eq!(report["hooks"][0]["status"], "responded", "{report}");
    assert_eq!(server.received().len(), 1);
}

/// An agent hook's conversation, the same for both providers: Grep, then Read, then a verdict.
/// Two turns of tools, then `verdict` (a turn).
fn agent_turns(verdict: Value) -> Reply {
    Reply::Turns(vec![
        json!({"tool_use": [{"name": "Grep", "input": {"pattern": "TODO"}}]}),
        json!({"tool_use": [{"name": "Read", "input": {"file_path": "src/lib.rs"}}, {"name": "Read", "input": {"file_path": "../outside.txt"}}]}),
        verdict,
    ])
}

#[test]
fn an_agent_hook_verifies_with_read_only_tools_and_its_verdict_decides() {
    let verdict = json!({"ok": false, "reason": "a TODO is left in src/lib.rs"});
    // The verdict as Claude Code's agent gives it (its StructuredOutput tool's input), and as a
    // reply of the JSON alone.
    let structured = json!({"tool_use": [{"name": "StructuredOutput", "input": verdict}]});
    let plain = json!({"text": verdict.to_string()});
    for (provider, verdict) in [
        ("anthropic", structured.clone()),
        ("openai", structured),
        ("anthropic", plain),
    ] {
        let server = FakeServer::start(agent_turns(verdict));
        let p = Project::new(on(
            "PreToolUse",
            json!([{"type": "agent", "prompt": "No TODO may be left. $ARGUMENTS"}]),
        ));
        p.file("src/lib.rs", "pub fn f() {}\n// TODO: finish\n");
        std::fs::write(p.dir.parent().unwrap().join("outside.txt"), "SECRET-OUTSIDE").unwrap();
        let mut cmd = p.command("PreToolUse", "claude");
        match provider {
            "anthropic" => cmd
                .env("ANTHROPIC_BASE_URL", &server.url)
                .env("ANTHROPIC_API_KEY", KEY),
            _ => cmd
                .env("HOOKBRIDGE_MODEL_PROVIDER", "openai")
                .env("OPENAI_BASE_URL", &server.url)
                .env("OPENAI_API_KEY", KEY),
        };
        let done = p.finish(cmd, &serde_json::to_vec(&p.payload("PreToolUse")).unwrap());
        // A block that does not end the turn, its reason framed as Claude Code frames an agent
        // hook's (tests/conformance/next/315-agent-hook-pre-deny).
        assert_eq!(done.code, Some(0), "{provider}: {}", done.stderr_str());
        let answer: Value = serde_json::from_str(&done.stdout_str()).unwrap();
        assert_eq!(
            answer["hookSpecificOutput"],
            json!({"hookEventName": "PreToolUse", "permissionDecision": "deny",
                   "permissionDecisionReason": "Agent hook condition was not met: a TODO is left in src/lib.rs"}),
            "{provider}"
        );
        assert_eq!(answer.get("continue"), None, "{provider}");
        let got = server.received();
        assert_eq!(got.len(), 3, "{provider}: three turns");
        let tool_names: Vec<String> = if provider == "anthropic" {
            got[0].body["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_string())
                .collect()
        } else {
            got[0].body["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(tool_names, ["StructuredOutput", "Read", "Grep", "Glob"]);
        // What the tools gave the model: the grep hit, the file, and a refusal for the outside file.
        let second = got[1].raw_body.clone();
        assert!(
            second.contains("src/lib.rs:2:// TODO: finish"),
            "{provider}: {second}"
        );
        let third = got[2].raw_body.clone();
        assert!(third.contains("     2\\t// TODO: finish"), "{provider}: {third}");
        assert!(third.contains("outside the project"), "{provider}: {third}");
        assert!(
            !third.contains("SECRET-OUTSIDE"),
            "{provider}: the outside file was read"
        );
    }
}

/// An answer in text that is no verdict gets one turn more, told to use StructuredOutput (Claude
/// Code's enforcement turn, tests/conformance/next/317); the verdict given then decides, and text
/// again is no verdict: a non-blocking error.
#[test]
fn an_agent_hook_that_answers_in_text_is_told_once_to_use_the_tool() {
    const ENFORCE: &str = "[structured-output-enforce] You MUST call the StructuredOutput tool";
    let decides =
        json!({"tool_use": [{"name": "StructuredOutput", "input": {"ok": false, "reason": "SECOND-TIME"}}]});
    for (second, decided) in [(json!({"text": "Still prose."}), false), (decides, true)] {
        let server = FakeServer::start(Reply::Turns(vec![json!({"text": "I looked around."}), second]));
        let p = Project::new(on("PreToolUse", json!([{"type": "agent", "prompt": "Check"}])));
        let done = run_anthropic(&p, &server, "PreToolUse", "claude");
        let got = server.received();
        assert_eq!(got.len(), 2, "one enforcement turn, no more");
        assert!(!got[0].raw_body.contains(ENFORCE));
        assert!(got[1].raw_body.contains(ENFORCE), "{}", got[1].raw_body);
        assert!(
            got[1].raw_body.contains("I looked around."),
            "the text answer stays in the conversation"
        );
        if decided {
            assert_eq!(done.code, Some(0), "{}", done.stderr_str());
            assert!(
                done.stdout_str()
                    .contains("Agent hook condition was not met: SECOND-TIME"),
                "{}",
                done.stdout_str()
            );
        } else {
            assert_eq!(done.code, Some(1), "{}", done.stdout_str());
            assert!(
                done.stderr_str().contains("no usable verdict"),
                "{}",
                done.stderr_str()
            );
        }
    }
}
