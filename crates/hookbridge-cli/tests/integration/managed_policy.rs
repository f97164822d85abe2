//! Managed policy (issue 29): a system file user and project settings cannot override. These
//! tests name the file through `HOOKBRIDGE_TEST_MANAGED_POLICY`, which only debug builds (the test
//! suite's) read; a release build reads `/etc/hookbridge/managed.json` and nothing else.

use crate::common;

use std::fs;
use std::path::PathBuf;
use std::time::Duration;

use common::{hookbridge_bin, run_with_deadline, trust_project, untrusted_run, Finished, HOSTILE_ENV};
use serde_json::{json, Value};

const WATCHDOG: Duration = Duration::from_secs(60);

struct Machine {
    _tmp: tempfile::TempDir,
    project: PathBuf,
    home: PathBuf,
    policy: PathBuf,
    log: PathBuf,
}

impl Machine {
    fn new(policy: &Value) -> Machine {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("project");
        let home = tmp.path().join("home");
        fs::create_dir_all(project.join(".amplifier/hooks")).unwrap();
        fs::create_dir_all(home.join(".amplifier/hooks")).unwrap();
        let policy_path = tmp.path().join("etc-hookbridge-managed.json");
        fs::write(&policy_path, policy.to_string()).unwrap();
        let log = tmp.path().join("diagnostics.log");
        Machine {
            _tmp: tmp,
            project,
            home,
            policy: policy_path,
            log,
        }
    }

    fn hooks(&self, scope: &str, hooks: &Value) {
        let dir = if scope == "project" {
            &self.project
        } else {
            &self.home
        };
        fs::write(dir.join(".amplifier/hooks/hooks.json"), hooks.to_string()).unwrap();
    }

    fn run(&self, format: &str) -> Finished {
        trust_project(&self.project, &self.home);
        let mut cmd = untrusted_run("PreToolUse", &self.project, &self.home, &self.log, format);
        cmd.env("HOOKBRIDGE_TEST_MANAGED_POLICY", &self.policy);
        // Every eligible hook warm, its service in this test's own directory: only the policy
        // can keep a Python hook from running warm here.
        let runtime = self.home.join("run");
        fs::create_dir_all(&runtime).unwrap();
        fs::set_permissions(&runtime, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
        cmd.env("HOOKBRIDGE_WARM", "always")
            .env("XDG_RUNTIME_DIR", &runtime)
            .env("HOOKBRIDGE_WARM_IDLE", "5");
        let payload = json!({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": "ls"}, "cwd": self.project});
        run_with_deadline(cmd, payload.to_string().as_bytes(), WATCHDOG)
    }

    fn hookbridge(&self, args: &[&str]) -> Finished {
        let mut cmd = std::process::Command::new(hookbridge_bin());
        cmd.args(args).arg("--project-dir").arg(&self.project);
        for var in HOSTILE_ENV {
            cmd.env_remove(var);
        }
        cmd.env("HOME", &self.home)
            .env("HOOKBRIDGE_TEST_MANAGED_POLICY", &self.policy);
        run_with_deadline(cmd, b"", WATCHDOG)
    }
}

fn marks(reason: &str) -> Value {
    json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": format!("echo {reason} >&2; exit 2")}]}]}})
}

#[test]
fn managed_hooks_only_holds_every_user_and_project_hook_and_runs_its_own() {
    let m = Machine::new(&json!({"allowManagedHooksOnly": true, "hooks": marks("managed-guard")["hooks"]}));
    m.hooks("project", &marks("project-guard"));
    m.hooks("user", &marks("user-guard"));
    let done = m.run("report");
    let report: Value = serde_json::from_slice(&done.stdout).unwrap();
    let ran: Vec<&str> = report["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["stderr"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(ran, ["managed-guard\n"], "{report}");
    let listed = m.hookbridge(&["list"]);
    let out = listed.stdout_str();
    assert!(
        out.contains("allowManagedHooksOnly: only managed hooks run")
            && out.contains("(2 hook(s) held by it)"),
        "{out}"
    );
    assert!(
        out.contains("HELD: managed policy allows managed hooks only"),
        "{out}"
    );
}

#[test]
fn no_project_hooks_holds_a_trusted_project_and_the_user_still_runs() {
    let m = Machine::new(&json!({"allowProjectHooks": false}));
    m.hooks("project", &marks("project-guard"));
    m.hooks("user", &json!({"hooks": {}}));
    let done = m.run("claude");
    assert_eq!(
        done.code,
        Some(0),
        "the project's guard is held even when trusted: {}",
        done.stderr_str()
    );
    m.hooks("user", &marks("user-guard"));
    let done = m.run("claude");
    assert_eq!(
        (done.code, done.stderr_str()),
        (Some(2), "user-guard\n".to_string())
    );
    let validate = m.hookbridge(&["validate"]);
    assert!(
        validate
            .stdout_str()
            .contains("allowProjectHooks: false: project hooks never run"),
        "{}",
        validate.stdout_str()
    );
}

#[test]
fn managed_http_lists_warm_off_and_the_timeout_cap_bind_everyone() {
    let m = Machine::new(&json!({
        "allowedHttpHookUrls": ["https://hooks.corp.example/*"], "httpHookAllowedEnvVars": [],
        "warm": false, "maxTimeout": 1
    }));
    // The user widens nothing: their own `*` is narrowed by the managed list.
    let script = m.home.join("hook.py");
    fs::write(&script, "print('python hook')\n").unwrap();
    let python = format!("python3 {}", script.display());
    m.hooks(
        "user",
        &json!({"allowedHttpHookUrls": ["*"], "hooks": {"PreToolUse": [{"hooks": [
            {"type": "http", "url": "http://127.0.0.1:9/x", "onFailure": "block"},
            {"type": "command", "command": "sleep 5; echo late >&2; exit 2"},
            {"type": "command", "command": python}
        ]}]}}),
    );
    let done = m.run("report");
    let report: Value = serde_json::from_slice(&done.stdout).unwrap();
    let hooks = report["hooks"].as_array().unwrap();
    let by_label = |label: &str| {
        hooks
            .iter()
            .find(|h| h["hook"]["label"] == label)
            .unwrap_or_else(|| panic!("{report}"))
    };
    assert!(
        by_label("http://127.0.0.1:9/x")["detail"]
            .as_str()
            .unwrap_or("")
            .contains("does not match any pattern"),
        "{report}"
    );
    assert_eq!(
        by_label("sleep 5; echo late >&2; exit 2")["status"],
        "timed_out",
        "{report}"
    );
    assert_eq!(
        by_label("sleep 5; echo late >&2; exit 2")["timeout_s"],
        1.0,
        "{report}"
    );
    let python = by_label(&python);
    assert!(
        python["warm"].is_null(),
        "no hook runs warm, not even tried: {python}"
    );
    // Without the policy's `warm: false`, the same hook runs warm.
    fs::write(&m.policy, "{}").unwrap();
    let report: Value = serde_json::from_slice(&m.run("report").stdout).unwrap();
    let warm = report["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["hook"]["label"].as_str().unwrap_or("").starts_with("python3"))
        .unwrap();
    assert_eq!(warm["warm"], "ran", "{warm}");
}

#[test]
fn an_unreadable_policy_holds_what_a_policy_could_hold() {
    let m = Machine::new(&json!({}));
    fs::write(&m.policy, "{\"allowProjectHooks\": no}").unwrap();
    m.hooks("user", &marks("user-guard"));
    let done = m.run("claude");
    assert_eq!(done.code, Some(0), "held: {}", done.stderr_str());
    let validate = m.hookbridge(&["validate"]);
    assert_eq!(validate.code, Some(1), "{}", validate.stdout_str());
    assert!(
        validate
            .stderr_str()
            .contains("the managed policy cannot be read"),
        "{}",
        validate.stderr_str()
    );
}

#[test]
fn a_managed_hook_declared_again_by_a_user_keeps_its_managed_options() {
    let m = Machine::new(&json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "command", "command": "echo managed-guard >&2; exit 2"}
    ]}]}}));
    m.hooks(
        "user",
        &json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": "echo managed-guard >&2; exit 2", "async": true}
        ]}]}}),
    );
    let done = m.run("claude");
    assert_eq!(
        (done.code, done.stderr_str()),
        (Some(2), "managed-guard\n".to_string())
    );
}

#[test]
fn a_managed_audit_log_cannot_be_moved_or_switched_off() {
    let tmp = tempfile::tempdir().unwrap();
    let mandated = tmp.path().join("var-log").join("audit.jsonl");
    let m = Machine::new(&json!({"auditLog": mandated}));
    m.hooks("user", &marks("user-guard"));
    let elsewhere = tmp.path().join("mine.jsonl");
    for (value, runs) in [(Some("off".into()), 1), (Some(elsewhere.clone()), 2), (None, 3)] {
        trust_project(&m.project, &m.home);
        let mut cmd = untrusted_run("PreToolUse", &m.project, &m.home, &m.log, "claude");
        cmd.env("HOOKBRIDGE_TEST_MANAGED_POLICY", &m.policy);
        if let Some(value) = value {
            cmd.env("HOOKBRIDGE_AUDIT_LOG", value);
        }
        let payload = json!({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": "ls"}, "cwd": m.project});
        let done = run_with_deadline(cmd, payload.to_string().as_bytes(), WATCHDOG);
        assert_eq!(done.code, Some(2), "{}", done.stderr_str());
        let text = fs::read_to_string(&mandated).unwrap();
        let events = text.lines().filter(|l| l.contains("\"kind\":\"event\"")).count();
        assert_eq!(events, runs, "{text}");
    }
    assert!(!elsewhere.exists());
    assert!(!m.home.join(".amplifier/hookbridge/audit.jsonl").exists());
    let listed = m.hookbridge(&["list"]);
    assert!(
        listed
            .stdout_str()
            .contains("auditLog: every hook run is recorded in"),
        "{}",
        listed.stdout_str()
    );
}

/// A hook that tries to write `~/.bashrc` and to reach `port` on loopback, and says which it did.
fn reaching(port: u16, sandbox: Option<Value>) -> Value {
    let command = format!(
        "if echo x >> \"$HOME/.bashrc\" 2>/dev/null; then w=wrote; else w=denied; fi; \
         if python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), timeout=5)' 2>/dev/null; then n=connected; else n=refused; fi; \
         echo \"$w $n\""
    );
    let mut hook = json!({"type": "command", "command": command});
    if let Some(sandbox) = sandbox {
        hook["sandbox"] = sandbox;
    }
    json!({"hooks": {"PreToolUse": [{"hooks": [hook]}]}})
}

/// `sandboxHooks` runs every project command hook sandboxed — one that asks for no sandbox, or
/// says `"sandbox": false`, too — and leaves the user's own alone (`all` takes the user's too, never
/// the policy's own); `sandboxNetwork: false` takes
/// the network from a sandboxed hook that asks for it. The project's trust stays as it was: the
/// floor is applied when hooks run, not to what the project says.
#[test]
fn the_managed_sandbox_floor_sandboxes_the_projects_hooks_and_takes_their_network() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let said = |m: &Machine| -> Vec<String> {
        let report: Value = serde_json::from_slice(&m.run("report").stdout).unwrap();
        report["hooks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["stdout"].as_str().unwrap_or("").trim().to_string())
            .collect()
    };
    for (project_sandbox, expected) in [
        (None, "denied refused"),
        (Some(json!(false)), "denied refused"),
        (Some(json!({"network": true})), "denied refused"),
        (Some(json!({"network": [port]})), "denied refused"),
    ] {
        let m = Machine::new(&json!({"sandboxHooks": "project", "sandboxNetwork": false}));
        m.hooks("project", &reaching(port, project_sandbox.clone()));
        m.hooks("user", &json!({"hooks": {}}));
        assert_eq!(
            said(&m),
            [expected],
            "project hook with sandbox {project_sandbox:?}"
        );
        let listed = m.hookbridge(&["list"]).stdout_str();
        assert!(
            listed.contains("sandboxed (writes project, temp; no network; no credentials)")
                && listed.contains("sandboxHooks: project: every project command hook runs sandboxed"),
            "{listed}"
        );
    }
    // The user's own hook is not under a `project` floor.
    let m = Machine::new(&json!({"sandboxHooks": "project"}));
    m.hooks("project", &json!({"hooks": {}}));
    m.hooks("user", &reaching(port, None));
    assert_eq!(said(&m), ["wrote connected"]);
    // Under `all`, the user's hook too; the policy's own hooks are not under its floor.
    let m = Machine::new(&json!({"sandboxHooks": "all", "hooks": reaching(port, None)["hooks"]}));
    m.hooks("project", &json!({"hooks": {}}));
    let mut users = reaching(port, None);
    // Not the policy's hook word for word (that would be one hook, the managed copy).
    let command = &mut users["hooks"]["PreToolUse"][0]["hooks"][0]["command"];
    *command = json!(format!("{}; true", command.as_str().unwrap()));
    m.hooks("user", &users);
    assert_eq!(said(&m), ["wrote connected", "denied refused"]);
    // Without a floor, the project's hook asking for the network has it.
    let m = Machine::new(&json!({}));
    m.hooks("project", &reaching(port, Some(json!({"network": true}))));
    m.hooks("user", &json!({"hooks": {}}));
    assert_eq!(said(&m), ["denied connected"]);
    // Nor one asking for that port alone.
    let m = Machine::new(&json!({}));
    m.hooks("project", &reaching(port, Some(json!({"network": [port]}))));
    m.hooks("user", &json!({"hooks": {}}));
    assert_eq!(said(&m), ["denied connected"]);
    drop(listener);
}

/// The user's own settings carry the same floor (`sandboxHooks`, `sandboxNetwork`, in JSON or
/// YAML): the project's hooks run sandboxed whatever they say, the user's own as they say. A
/// project's file cannot set it (reported, ignored), and a value that cannot be read holds what it
/// could have: every hook sandboxed, no network. Under a managed floor too, the stricter holds.
#[test]
fn the_users_own_settings_put_a_sandbox_floor_under_the_projects_hooks() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let said = |m: &Machine| -> Vec<String> {
        let done = m.run("report");
        let report: Value = serde_json::from_slice(&done.stdout).unwrap();
        report["hooks"]
            .as_array()
            .unwrap_or_else(|| panic!("{}", done.stderr_str()))
            .iter()
            .map(|h| h["stdout"].as_str().unwrap_or("").trim().to_string())
            .collect()
    };
    let user_settings = |floor: Value| {
        let mut settings = floor;
        settings["hooks"] = json!({});
        settings
    };
    // JSON: a project hook saying `"sandbox": false` is sandboxed, without the network.
    let m = Machine::new(&json!({}));
    m.hooks("project", &reaching(port, Some(json!(false))));
    m.hooks(
        "user",
        &user_settings(json!({"sandboxHooks": "project", "sandboxNetwork": false})),
    );
    assert_eq!(said(&m), ["denied refused"]);
    let listed = m.hookbridge(&["list"]).stdout_str();
    assert!(
        listed.contains("your settings ")
            && listed.contains("sandboxHooks: project: every project command hook runs sandboxed"),
        "{listed}"
    );
    // YAML, with the network left as each hook says: this one asks for it and has it.
    let m = Machine::new(&json!({}));
    m.hooks("project", &reaching(port, Some(json!({"network": true}))));
    fs::write(
        m.home.join(".amplifier/hooks/hooks.yaml"),
        "sandboxHooks: project\nhooks: {}\n",
    )
    .unwrap();
    assert_eq!(said(&m), ["denied connected"]);
    // The user's own hook is not under a `project` floor; under `all` it is.
    for (floor, expected) in [("project", "wrote connected"), ("all", "denied refused")] {
        let m = Machine::new(&json!({}));
        m.hooks("project", &json!({"hooks": {}}));
        let mut users = reaching(port, None);
        users["sandboxHooks"] = json!(floor);
        m.hooks("user", &users);
        assert_eq!(said(&m), [expected], "sandboxHooks: {floor}");
    }
    // A project cannot set it, not even for the user's hooks: reported, and ignored.
    let m = Machine::new(&json!({}));
    let mut project = json!({"hooks": {}});
    project["sandboxHooks"] = json!("all");
    project["sandboxNetwork"] = json!(false);
    m.hooks("project", &project);
    m.hooks("user", &reaching(port, None));
    assert_eq!(said(&m), ["wrote connected"]);
    let validated = m.hookbridge(&["validate"]);
    let out = format!("{}{}", validated.stdout_str(), validated.stderr_str());
    assert!(
        out.contains("sandboxHooks") && out.contains("not from a project's files; ignored"),
        "{out}"
    );
    // A value that cannot be read sandboxes every hook, with no network, and is named.
    let m = Machine::new(&json!({}));
    m.hooks("project", &json!({"hooks": {}}));
    let mut users = reaching(port, Some(json!({"network": true})));
    users["sandboxHooks"] = json!("everything");
    users["sandboxNetwork"] = json!("no");
    m.hooks("user", &users);
    assert_eq!(said(&m), ["denied refused"]);
    let validated = m.hookbridge(&["validate"]);
    let out = format!("{}{}", validated.stdout_str(), validated.stderr_str());
    assert!(
        out.contains("hooks.json:1:") && out.contains("read as \"all\"") && out.contains("read as false"),
        "{out}"
    );
    // With the managed policy's floor too, the stricter holds on each point.
    let m = Machine::new(&json!({"sandboxNetwork": false}));
    m.hooks("project", &reaching(port, Some(json!(false))));
    m.hooks("user", &user_settings(json!({"sandboxHooks": "project"})));
    assert_eq!(said(&m), ["denied refused"]);
    drop(listener);
}

/// Where the kernel cannot enforce a sandbox (here: a kernel without Landlock, stood in for by a
/// seccomp filter on this test's own process that answers `landlock_create_ruleset` and
/// `landlock_restrict_self` with ENOSYS, which every hookbridge it starts inherits), a sandboxed
/// hook is not run — unless the user's settings or the managed policy say `"sandboxUnavailable":
/// "runUnsandboxed"` and neither says `"refuse"`; then it runs without its sandbox, and `list`, the
/// report, the diagnostics log and the audit record each say so. On this machine's own kernel the
/// same settings change nothing: the hook runs sandboxed.
#[cfg(target_os = "linux")]
#[test]
fn where_the_kernel_cannot_sandbox_a_hook_the_settings_refuse_it_or_run_it_unsandboxed_and_say_so() {
    const INSIDE: &str = "HOOKBRIDGE_TEST_NO_LANDLOCK";
    let name = "managed_policy::where_the_kernel_cannot_sandbox_a_hook_the_settings_refuse_it_or_run_it_unsandboxed_and_say_so";
    let guard = |marker: &std::path::Path| {
        json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "sandbox": true,
            "command": format!("touch {}; echo ran", common::project::sh_quote(marker))}]}]}})
    };
    let user = |floor: Value| {
        let mut settings = floor;
        settings["hooks"] = json!({});
        settings
    };
    let audited = |m: &Machine| -> Value {
        fs::read_to_string(m.home.join(".amplifier/hookbridge/audit.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .find(|l| l["kind"] == "hook")
            .unwrap()
    };
    if std::env::var_os(INSIDE).is_none() {
        // This kernel enforces the sandbox: `runUnsandboxed` changes nothing.
        let m = Machine::new(&json!({"sandboxUnavailable": "runUnsandboxed"}));
        let marker = m.project.join("ran");
        m.hooks("project", &guard(&marker));
        m.hooks("user", &user(json!({})));
        let report: Value = serde_json::from_slice(&m.run("report").stdout).unwrap();
        assert_eq!(report["hooks"][0]["stdout"], "ran\n", "{report}");
        assert!(report["hooks"][0].get("unsandboxed").is_none(), "{report}");
        assert_eq!(audited(&m)["sandboxed"], true);
        let listed = m.hookbridge(&["list"]).stdout_str();
        assert!(!listed.contains("which this machine cannot enforce"), "{listed}");
        // The filter stays on a process for good: the rest runs again in a process of its own.
        let run = std::process::Command::new(std::env::current_exe().unwrap())
            .args([name, "--exact", "--nocapture", "--test-threads=1"])
            .env(INSIDE, "1")
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&run.stdout).into_owned() + &String::from_utf8_lossy(&run.stderr);
        assert!(run.status.success(), "{said}");
        assert!(said.contains("1 passed"), "the test did not run inside: {said}");
        return;
    }
    use seccompiler::{BpfProgram, SeccompAction, SeccompFilter, TargetArch};
    let filter = SeccompFilter::new(
        [
            (libc::SYS_landlock_create_ruleset, Vec::new()),
            (libc::SYS_landlock_restrict_self, Vec::new()),
        ]
        .into_iter()
        .collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        TargetArch::try_from(std::env::consts::ARCH).unwrap(),
    )
    .unwrap();
    seccompiler::apply_filter(&BpfProgram::try_from(filter).unwrap()).unwrap();

    for (policy, users, runs) in [
        (json!({}), json!({}), false),
        (json!({}), json!({"sandboxUnavailable": "refuse"}), false),
        (json!({}), json!({"sandboxUnavailable": "runUnsandboxed"}), true),
        (json!({"sandboxUnavailable": "runUnsandboxed"}), json!({}), true),
        (
            json!({"sandboxUnavailable": "refuse"}),
            json!({"sandboxUnavailable": "runUnsandboxed"}),
            false,
        ),
        (
            json!({"sandboxUnavailable": "runUnsandboxed"}),
            json!({"sandboxUnavailable": "refuse"}),
            false,
        ),
    ] {
        let case = format!("policy {policy}, user {users}");
        let m = Machine::new(&policy);
        let marker = m.project.join("ran");
        m.hooks("project", &guard(&marker));
        m.hooks("user", &user(users));
        let report: Value = serde_json::from_slice(&m.run("report").stdout).unwrap();
        let hook = &report["hooks"][0];
        let listed = m.hookbridge(&["list"]).stdout_str();
        let log = fs::read_to_string(&m.log).unwrap_or_default();
        let line = audited(&m);
        assert!(
            listed.contains("which this machine cannot enforce (this kernel has no Landlock)"),
            "{case}: {listed}"
        );
        if runs {
            assert_eq!(hook["stdout"], "ran\n", "{case}: {report}");
            assert_eq!(
                hook["unsandboxed"], "this kernel has no Landlock",
                "{case}: {report}"
            );
            assert!(marker.exists(), "{case}");
            assert!(
                listed.contains("so the hook runs WITHOUT it (sandboxUnavailable: runUnsandboxed)"),
                "{case}: {listed}"
            );
            assert!(
                log.contains("ran WITHOUT its sandbox: this kernel has no Landlock"),
                "{case}: {log}"
            );
            assert_eq!(
                line["unsandboxed"], "this kernel has no Landlock",
                "{case}: {line}"
            );
            assert!(line.get("sandboxed").is_none(), "{case}: {line}");
        } else {
            assert_eq!(hook["status"], "spawn_failed", "{case}: {report}");
            assert!(
                hook["detail"]
                    .as_str()
                    .unwrap()
                    .contains("this kernel cannot enforce it"),
                "{case}: {report}"
            );
            assert!(!marker.exists(), "{case}: the hook ran");
            assert!(
                listed.contains("so the hook is not run (sandboxUnavailable: refuse)"),
                "{case}: {listed}"
            );
            assert!(!log.contains("WITHOUT its sandbox"), "{case}: {log}");
            assert!(line.get("unsandboxed").is_none(), "{case}: {line}");
        }
    }
}
