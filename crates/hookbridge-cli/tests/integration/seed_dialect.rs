//! The seed's "Enhanced Hooks System" dialect through `hookbridge run`: its YAML examples verbatim
//! (each with its documented effect), rule hooks that start no process (counted with strace), the
//! same hooks in YAML and JSON giving byte-identical answers, `{"action"}` answers and
//! `on_failure`, and llm hooks against loopback Anthropic- and OpenAI-compatible servers.

use crate::common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::fake_model::{FakeServer, Reply};
use common::project::Project;
use serde_json::{json, Value};

/// Section 2 of seed 004, "Hook Configuration in YAML", byte for byte.
const SEED_SECTION_2: &str = "hooks:
  PreToolUse:
    # External command hook
    - type: command
      command: \"python ~/.amplifier/hooks/pre_tool.py\"
      timeout_ms: 5000
      on_failure: \"warn\"  # warn | block | ignore
      
    # Inline matcher hook  
    - type: matcher
      match:
        tool: \"Bash\"
        args:
          command: \"rm *\"
      action: \"block\"
      message: \"Destructive rm commands require confirmation\"

  PostToolUse:
    - type: command
      command: \"~/.amplifier/hooks/log_tool.sh\"
      async: true  # Fire and forget

  SessionStart:
    - type: command
      command: \"echo 'Session started' >> ~/.amplifier/session.log\"
      
  SessionStop:
    - type: command  
      command: \"python ~/.amplifier/hooks/cleanup.py\"
";

/// Section 3's matcher hook example, under the event it is for.
const SEED_MATCHER_EXAMPLE: &str = "hooks:
  PreToolUse:
    - type: matcher
      match:
        tool: \"Write\"              # Tool name (glob supported)
        args:
          path: \"**/.env*\"         # Glob pattern matching
      action: \"block\"
      message: \"Cannot modify environment files\"
";

/// A project whose hooks are `yaml` (as `.amplifier/hooks/hooks.yaml`), with `python` on PATH
/// (the seed's commands call `python`; this machine may only have `python3`).
fn yaml_project(yaml: &str) -> Project {
    let p = Project::new(json!({}));
    fs::remove_file(p.dir.join(".amplifier/hooks/hooks.json")).unwrap();
    p.file(".amplifier/hooks/hooks.yaml", yaml);
    let bin = p.home.join("bin");
    fs::create_dir_all(&bin).unwrap();
    let python3 = common::require_program("python3");
    executable(
        &bin.join("python"),
        &format!("#!/bin/sh\nexec {} \"$@\"\n", python3.display()),
    );
    p
}

fn executable(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

/// `hookbridge run` for `event` in `p` with `python` on PATH.
fn run(p: &Project, event: &str, payload: &Value) -> common::Finished {
    let mut cmd = p.command(event, "claude");
    cmd.env("PATH", path_with(&p.home.join("bin")));
    p.finish(cmd, &serde_json::to_vec(payload).unwrap())
}

fn path_with(dir: &Path) -> String {
    format!("{}:{}", dir.display(), std::env::var("PATH").unwrap_or_default())
}

fn tool_payload(p: &Project, event: &str, tool: &str, input: Value) -> Value {
    let mut payload = p.payload(event);
    payload["tool_name"] = json!(tool);
    payload["tool_input"] = input;
    payload
}

fn stdout_json(done: &common::Finished) -> Value {
    serde_json::from_slice(&done.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", done.stdout_str()))
}

#[test]
fn the_seeds_yaml_example_runs_verbatim_with_each_documented_effect() {
    let p = yaml_project(SEED_SECTION_2);
    let hooks = p.home.join(".amplifier/hooks");
    executable(
        &hooks.join("pre_tool.py"),
        "import json, os, sys\npayload = json.load(sys.stdin)\nopen(os.path.expanduser('~/pre_tool.json'), 'w').write(json.dumps(payload))\nprint(json.dumps({'action': 'allow', 'modified_args': None, 'message': None}))\n",
    );
    executable(
        &hooks.join("log_tool.sh"),
        "#!/bin/sh\ncat > \"$HOME/log_tool.json\"\n",
    );
    executable(
        &hooks.join("cleanup.py"),
        "import os\nopen(os.path.expanduser('~/cleaned'), 'w').write('yes')\n",
    );
    let validate = p.finish(p.hookbridge(["validate"]), b"");
    assert_eq!(
        validate.code,
        Some(0),
        "{}{}",
        validate.stdout_str(),
        validate.stderr_str()
    );
    assert!(
        validate.stdout_str().contains("0 error(s), 0 warning(s)"),
        "{}",
        validate.stdout_str()
    );

    // PreToolUse, an allowed call: the command hook gets the seed's fields and answers "allow".
    let done = run(
        &p,
        "PreToolUse",
        &tool_payload(&p, "PreToolUse", "Bash", json!({"command": "git status"})),
    );
    assert_eq!(
        (done.code, done.stdout_str()),
        (Some(0), String::new()),
        "{}",
        done.stderr_str()
    );
    let seen: Value =
        serde_json::from_str(&fs::read_to_string(p.home.join("pre_tool.json")).unwrap()).unwrap();
    assert_eq!(seen["event"], "PreToolUse");
    assert_eq!(seen["tool"], "Bash");
    assert_eq!(seen["args"], json!({"command": "git status"}));
    assert_eq!(seen["session_id"], "contract-session");
    assert!(
        humantime::parse_rfc3339(seen["timestamp"].as_str().unwrap()).is_ok(),
        "{seen}"
    );
    assert_eq!(
        seen["hook_event_name"], "PreToolUse",
        "Claude Code's fields are there too"
    );
    assert_eq!(seen["tool_input"], json!({"command": "git status"}));

    // PreToolUse, a destructive command: the matcher hook blocks it with its message.
    let done = run(
        &p,
        "PreToolUse",
        &tool_payload(&p, "PreToolUse", "Bash", json!({"command": "rm -rf /"})),
    );
    assert_eq!(done.code, Some(0));
    let answer = stdout_json(&done);
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecisionReason"],
        "Destructive rm commands require confirmation"
    );

    // PostToolUse: fire and forget — hookbridge answers Claude Code's async way at once (the
    // first line, `{"async": true}`), and the hook's log appears.
    let done = run(&p, "PostToolUse", &p.payload("PostToolUse"));
    assert_eq!(
        (done.code, done.stdout_str()),
        (Some(0), "{\"async\": true}\n".to_string())
    );
    assert!(
        common::wait_until(Duration::from_secs(30), || p.home.join("log_tool.json").exists()),
        "the async PostToolUse hook never ran"
    );

    // SessionStart and SessionStop (Claude Code's SessionEnd).
    let done = run(&p, "SessionStart", &p.payload("SessionStart"));
    assert_eq!(done.code, Some(0));
    assert_eq!(
        fs::read_to_string(p.home.join(".amplifier/session.log")).unwrap(),
        "Session started\n"
    );
    let mut end = p.payload("SessionEnd");
    end["reason"] = json!("other");
    let done = run(&p, "SessionEnd", &end);
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    assert_eq!(fs::read_to_string(p.home.join("cleaned")).unwrap(), "yes");
}

/// The processes a `hookbridge run` started (strace: forks, clones, execs besides its own).
fn processes_started(p: &Project, event: &str, payload: &Value) -> (common::Finished, Vec<String>) {
    let strace = common::require_program("strace");
    let trace = p.home.join("strace.txt");
    let plain = p.command(event, "claude");
    let mut cmd = Command::new(strace);
    cmd.args(["-f", "-qq", "-e", "trace=fork,vfork,clone,clone3,execve", "-o"])
        .arg(&trace)
        .arg(plain.get_program())
        .args(plain.get_args())
        .current_dir(&p.dir);
    for (key, value) in plain.get_envs() {
        match value {
            Some(v) => cmd.env(key, v),
            None => cmd.env_remove(key),
        };
    }
    let done = p.finish(cmd, &serde_json::to_vec(payload).unwrap());
    let calls: Vec<String> = fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .filter(|l| !l.contains("resumed>"))
        .skip(1) // strace's own exec of hookbridge
        .map(str::to_string)
        .collect();
    (done, calls)
}

#[test]
fn a_rule_hook_blocks_rm_rf_without_starting_a_process_or_thread() {
    let p = yaml_project(SEED_SECTION_2.split("  PostToolUse:").next().unwrap().replace(
        "    - type: command\n      command: \"python ~/.amplifier/hooks/pre_tool.py\"\n      timeout_ms: 5000\n      on_failure: \"warn\"  # warn | block | ignore\n",
        "",
    ).as_str());
    let payload = tool_payload(&p, "PreToolUse", "Bash", json!({"command": "rm -rf /"}));
    let (done, calls) = processes_started(&p, "PreToolUse", &payload);
    assert_eq!(
        stdout_json(&done)["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );
    assert!(calls.is_empty(), "a rule hook started: {calls:#?}");

    // The same count sees a command hook's process: the check can fail.
    p.file(
        ".amplifier/hooks/hooks.yaml",
        "hooks:\n  PreToolUse:\n    - type: command\n      command: 'true'\n",
    );
    let (_, calls) = processes_started(&p, "PreToolUse", &payload);
    assert!(
        calls.iter().any(|c| c.contains("execve(\"/bin/sh\"")),
        "{calls:#?}"
    );

    // Section 3's example: writes to environment files are blocked, others are not.
    p.file(".amplifier/hooks/hooks.yaml", SEED_MATCHER_EXAMPLE);
    let env_write = tool_payload(
        &p,
        "PreToolUse",
        "Write",
        json!({"file_path": p.dir.join("config/.env.local"), "content": "K=V"}),
    );
    let (done, calls) = processes_started(&p, "PreToolUse", &env_write);
    assert!(calls.is_empty(), "{calls:#?}");
    let answer = stdout_json(&done);
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecisionReason"],
        "Cannot modify environment files"
    );
    let other = tool_payload(
        &p,
        "PreToolUse",
        "Write",
        json!({"file_path": p.dir.join("src/a.rs"), "content": ""}),
    );
    let done = run(&p, "PreToolUse", &other);
    assert_eq!((done.code, done.stdout_str()), (Some(0), String::new()));
}

/// One config in both formats: seed-shaped hooks and Claude Code matcher groups, command hooks that
/// answer in both dialects, a rule, several events.
const SAME_YAML: &str = r#"description: both formats
hooks:
  PreToolUse:
    - matcher: "Bash|Write"
      hooks:
        - type: command
          command: >-
            printf '%s' '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "group says hi"}}'
    - type: matcher
      match: {tool: Bash, args: {command: "rm *"}}
      action: block
      message: no rm
    - type: command
      command: |-
        printf '%s' '{"action": "modify", "modified_args": {"command": "ls -la"}, "message": "widened"}'
  PromptSubmit:
    - type: command
      command: |
        printf 'context from a seed hook'
  ResponseComplete:
    - type: command
      command: "printf '%s' '{\"action\": \"block\", \"message\": \"keep going\"}'"
      on_failure: block
"#;

const SAME_JSON: &str = r#"{"description": "both formats", "hooks": {
  "PreToolUse": [
    {"matcher": "Bash|Write", "hooks": [
      {"type": "command", "command": "printf '%s' '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"additionalContext\": \"group says hi\"}}'"}]},
    {"type": "matcher", "match": {"tool": "Bash", "args": {"command": "rm *"}}, "action": "block", "message": "no rm"},
    {"type": "command", "command": "printf '%s' '{\"action\": \"modify\", \"modified_args\": {\"command\": \"ls -la\"}, \"message\": \"widened\"}'"}
  ],
  "PromptSubmit": [{"type": "command", "command": "printf 'context from a seed hook'\n"}],
  "ResponseComplete": [{"type": "command", "command": "printf '%s' '{\"action\": \"block\", \"message\": \"keep going\"}'", "on_failure": "block"}]
}}"#;

#[test]
fn the_same_hooks_in_yaml_and_json_give_byte_identical_answers() {
    let yaml = yaml_project(SAME_YAML);
    let json_project = Project::new(json!({}));
    fs::write(json_project.dir.join(".amplifier/hooks/hooks.json"), SAME_JSON).unwrap();
    type Payload = Box<dyn Fn(&Project) -> Value>;
    let cases: Vec<(&str, Payload)> = vec![
        (
            "PreToolUse",
            Box::new(|p| tool_payload(p, "PreToolUse", "Bash", json!({"command": "rm -rf /"}))),
        ),
        (
            "PreToolUse",
            Box::new(|p| tool_payload(p, "PreToolUse", "Bash", json!({"command": "ls"}))),
        ),
        (
            "PreToolUse",
            Box::new(|p| tool_payload(p, "PreToolUse", "Read", json!({"file_path": "/x"}))),
        ),
        (
            "UserPromptSubmit",
            Box::new(|p| {
                let mut v = p.payload("UserPromptSubmit");
                v["prompt"] = json!("hello");
                v
            }),
        ),
        (
            "Stop",
            Box::new(|p| {
                let mut v = p.payload("Stop");
                v["stop_hook_active"] = json!(false);
                v
            }),
        ),
    ];
    let mut seen = Vec::new();
    for (event, payload) in &cases {
        // The payloads differ only in the project path, which no answer contains.
        let a = run(&yaml, event, &payload(&yaml));
        let b = run(&json_project, event, &payload(&json_project));
        assert_eq!(
            (a.code, a.stdout_str(), a.stderr_str()),
            (b.code, b.stdout_str(), b.stderr_str()),
            "{event}"
        );
        seen.push(a.stdout_str());
    }
    // And the answers are the ones the hooks asked for.
    let rm: Value = serde_json::from_str(&seen[0]).unwrap();
    assert_eq!(rm["hookSpecificOutput"]["permissionDecision"], "deny");
    let ls: Value = serde_json::from_str(&seen[1]).unwrap();
    assert_eq!(
        ls["hookSpecificOutput"]["updatedInput"],
        json!({"command": "ls -la"})
    );
    assert_eq!(ls["systemMessage"], "widened");
    assert!(seen[1].contains("group says hi"), "{}", seen[1]);
    assert!(seen[3].contains("context from a seed hook"), "{}", seen[3]);
    let stop: Value = serde_json::from_str(&seen[4]).unwrap();
    assert_eq!(
        (stop["decision"].as_str(), stop["reason"].as_str()),
        (Some("block"), Some("keep going"))
    );
}

#[test]
fn an_answer_in_neither_dialect_is_reported_and_on_failure_decides() {
    let garbage = |on_failure: &str| {
        format!(
            "hooks:\n  PreToolUse:\n    - type: command\n      command: \"printf '%s' '{{\\\"verdict\\\": \\\"fine\\\"}}'\"\n      on_failure: {on_failure}\n"
        )
    };
    let payload = |p: &Project| tool_payload(p, "PreToolUse", "Bash", json!({"command": "ls"}));
    // warn: goes on, and says why (a non-blocking error, as Claude Code shows one).
    let p = yaml_project(&garbage("warn"));
    let done = run(&p, "PreToolUse", &payload(&p));
    assert_eq!(done.code, Some(1), "{}", done.stdout_str());
    assert!(
        done.stderr_str().contains("neither the seed's"),
        "{}",
        done.stderr_str()
    );
    assert!(p.log_text().contains("neither the seed's"), "{}", p.log_text());
    // block: the unusable answer blocks (a deny, with why).
    let p = yaml_project(&garbage("block"));
    let done = run(&p, "PreToolUse", &payload(&p));
    assert_denied(&done, "neither the seed's");
    // ignore: goes on silently; the log still has it.
    let p = yaml_project(&garbage("ignore"));
    let done = run(&p, "PreToolUse", &payload(&p));
    assert_eq!(
        (done.code, done.stdout_str(), done.stderr_str()),
        (Some(0), String::new(), String::new())
    );
    assert!(p.log_text().contains("neither the seed's"), "{}", p.log_text());
    // A seed hook that times out under on_failure: block blocks.
    let p = yaml_project(
        "hooks:\n  PreToolUse:\n    - type: command\n      command: sleep 5\n      timeout_ms: 300\n      on_failure: block\n",
    );
    let done = run(&p, "PreToolUse", &payload(&p));
    assert_denied(&done, "timed out");
}

fn assert_denied(done: &common::Finished, why: &str) {
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let answer = stdout_json(done);
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{answer}"
    );
    let reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert!(reason.contains(why), "{reason}");
}

const LLM_YAML: &str = "hooks:
  PreToolUse:
    - type: llm
      model: \"claude-3-haiku\"      # Fast, cheap model for hooks
      prompt: |
        Evaluate if this tool use is safe:
        Tool: {{tool}}
        Args: {{args}}
        
        Respond with JSON: {\"safe\": true/false, \"reason\": \"...\"}
      max_tokens: 100
      cache: true                  # Cache identical requests
";

fn run_llm(p: &Project, server: &FakeServer, provider: &str, command: &str) -> common::Finished {
    let cache = p.home.join("cache");
    run_llm_cached(
        p,
        server,
        provider,
        command,
        &[("HOOKBRIDGE_CACHE_DIR", cache.as_os_str())],
    )
}

/// [`run_llm`] with the cache's variables as given (none: `~/.cache/hookbridge`).
fn run_llm_cached(
    p: &Project,
    server: &FakeServer,
    provider: &str,
    command: &str,
    cache_env: &[(&str, &std::ffi::OsStr)],
) -> common::Finished {
    run_llm_as(p, server, provider, command, cache_env, "claude")
}

/// [`run_llm_cached`], answering in `format` (`claude`, `report`).
fn run_llm_as(
    p: &Project,
    server: &FakeServer,
    provider: &str,
    command: &str,
    cache_env: &[(&str, &std::ffi::OsStr)],
    format: &str,
) -> common::Finished {
    let mut cmd = p.command("PreToolUse", format);
    cmd.envs(cache_env.iter().copied());
    match provider {
        "anthropic" => cmd
            .env("ANTHROPIC_BASE_URL", &server.url)
            .env("ANTHROPIC_API_KEY", "sk-test"),
        _ => cmd
            .env("HOOKBRIDGE_MODEL_PROVIDER", "openai")
            .env("OPENAI_BASE_URL", &server.url)
            .env("OPENAI_API_KEY", "sk-test"),
    };
    let payload = tool_payload(p, "PreToolUse", "Bash", json!({"command": command}));
    p.finish(cmd, &serde_json::to_vec(&payload).unwrap())
}

#[test]
fn llm_hooks_block_on_safe_false_and_answer_repeats_from_the_cache() {
    for provider in ["anthropic", "openai"] {
        let server = FakeServer::start(Reply::ModelText(
            "```json\n{\"safe\": false, \"reason\": \"deletes everything\"}\n```".into(),
        ));
        let p = yaml_project(LLM_YAML);
        let done = run_llm(&p, &server, provider, "rm -rf /");
        assert_eq!(done.code, Some(0), "{provider}: {}", done.stderr_str());
        let answer = stdout_json(&done);
        assert_eq!(
            answer["hookSpecificOutput"]["permissionDecision"], "deny",
            "{provider}"
        );
        assert_eq!(
            answer["hookSpecificOutput"]["permissionDecisionReason"],
            "deletes everything"
        );
        let got = server.received();
        assert_eq!(got.len(), 1, "{provider}");
        let body = &got[0].body;
        assert_eq!(body["model"], "claude-3-haiku");
        let text = if provider == "anthropic" {
            assert_eq!(body["max_tokens"], 100);
            assert!(
                body.get("output_config").is_none(),
                "the hook's prompt says the shape"
            );
            body["messages"][0]["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_string()
        } else {
            assert_eq!(body["max_completion_tokens"], 100);
            assert!(body.get("response_format").is_none());
            body["messages"][1]["content"].as_str().unwrap().to_string()
        };
        assert!(
            text.starts_with(
                "Evaluate if this tool use is safe:\nTool: Bash\nArgs: {\"command\":\"rm -rf /\"}\n"
            ),
            "{text}"
        );
        // The same event again: answered from the cache, no request; a different one asks.
        let again = run_llm(&p, &server, provider, "rm -rf /");
        assert_eq!(again.stdout, done.stdout, "{provider}");
        assert_eq!(server.received().len(), 1, "{provider}: the cache answered");
        let cached = fs::read_dir(p.home.join("cache/llm")).unwrap().count();
        assert_eq!(cached, 1);
        let entry = fs::read_dir(p.home.join("cache/llm"))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        assert!(
            !fs::read_to_string(entry).unwrap().contains("sk-test"),
            "no key in the cache"
        );
        run_llm(&p, &server, provider, "ls");
        assert_eq!(server.received().len(), 2, "{provider}");
    }
}

#[test]
fn an_llm_hooks_garbage_answer_follows_on_failure_and_is_never_cached() {
    let server = FakeServer::start(Reply::ModelText("I think it is probably fine.".into()));
    let p =
        yaml_project(&LLM_YAML.replace("      cache: true", "      on_failure: block\n      cache: true"));
    let done = run_llm(&p, &server, "anthropic", "ls");
    assert_denied(&done, "no JSON object");
    run_llm(&p, &server, "anthropic", "ls");
    assert_eq!(server.received().len(), 2, "a garbage reply is not cached");

    let p = yaml_project(LLM_YAML);
    let done = run_llm(&p, &server, "anthropic", "ls");
    assert_eq!(done.code, Some(1), "on_failure warn: a non-blocking error");
    assert!(
        done.stderr_str().contains("no JSON object"),
        "{}",
        done.stderr_str()
    );
    let ok = FakeServer::start(Reply::ModelText(
        r#"{"safe": true, "reason": "read only"}"#.into(),
    ));
    let done = run_llm(&p, &ok, "anthropic", "ls");
    assert_eq!((done.code, done.stdout_str()), (Some(0), String::new()));
}

/// The llm cache replays verdicts, so it trusts only what this user alone could have written: a
/// relative `XDG_CACHE_HOME` (the hook runs in the repository, which could ship answers) is
/// passed over for `~/.cache`; a cache folder others can write to is not used, and an entry others
/// can write to is not read — a planted "safe" is never replayed, the model is asked.
#[test]
fn the_llm_cache_is_never_in_the_repository_nor_open_to_others() {
    use std::os::unix::fs::PermissionsExt as _;
    let server = FakeServer::start(Reply::ModelText(
        r#"{"safe": false, "reason": "deletes everything"}"#.into(),
    ));
    let p = yaml_project(LLM_YAML);
    let relative = std::ffi::OsStr::new(".cache");
    let done = run_llm_cached(
        &p,
        &server,
        "anthropic",
        "rm -rf /",
        &[("XDG_CACHE_HOME", relative)],
    );
    assert_denied(&done, "deletes everything");
    assert!(
        !p.dir.join(".cache").exists(),
        "the cache went into the repository"
    );
    let home_cache = p.home.join(".cache/hookbridge/llm");
    let entries: Vec<_> = fs::read_dir(&home_cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(entries.len(), 1);
    // An entry for this very request that says it is safe, planted where others could write.
    let mut planted: Value = serde_json::from_str(&fs::read_to_string(&entries[0]).unwrap()).unwrap();
    planted["reply"] = json!(r#"{"safe": true, "reason": "planted"}"#);
    let name = entries[0].file_name().unwrap().to_owned();

    let shared = p.home.join("shared/llm");
    fs::create_dir_all(&shared).unwrap();
    fs::write(shared.join(&name), planted.to_string()).unwrap();
    fs::set_permissions(&shared, fs::Permissions::from_mode(0o777)).unwrap();
    let shared_root = p.home.join("shared");
    let in_shared = |format: &str| {
        let env = [("HOOKBRIDGE_CACHE_DIR", shared_root.as_os_str())];
        run_llm_as(&p, &server, "anthropic", "rm -rf /", &env, format)
    };
    assert_denied(&in_shared("claude"), "deletes everything");
    assert_eq!(server.received().len(), 2, "the model was asked again");
    // The report says why the cache was passed over.
    let report = in_shared("report").stdout_str();
    assert!(
        report.contains("llm hook cache not used") && report.contains("others can write"),
        "{report}"
    );
    assert_eq!(server.received().len(), 3, "the model was asked again");

    fs::set_permissions(&shared, fs::Permissions::from_mode(0o700)).unwrap();
    fs::set_permissions(shared.join(&name), fs::Permissions::from_mode(0o666)).unwrap();
    assert_denied(&in_shared("claude"), "deletes everything");
    assert_eq!(server.received().len(), 4, "the model was asked again");

    // The user's own entry, closed to others, still answers.
    let done = run_llm_cached(&p, &server, "anthropic", "rm -rf /", &[]);
    assert_denied(&done, "deletes everything");
    assert_eq!(server.received().len(), 4, "answered from the cache");
}
