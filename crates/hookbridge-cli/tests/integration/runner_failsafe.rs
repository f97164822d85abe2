//! `hookbridge run` where the runner itself is pushed: payload values that cannot be environment
//! variables, more hooks than file descriptors, answers larger than the output cap, the host
//! killing hookbridge, and hooks that escape their process group. In every case the block a hook
//! gives must reach the host, and nothing may be left running that hookbridge says it killed.

use crate::common;

use common::project::{on, Project};
use serde_json::json;

const DENY: &str = r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"guarded"}}'"#;

fn assert_denied(done: &common::Finished) {
    assert_eq!(done.code, Some(0), "stderr: {}", done.stderr_str());
    let answer: serde_json::Value = serde_json::from_slice(&done.stdout)
        .unwrap_or_else(|e| panic!("answer is not JSON ({e}): {}", done.stdout_str()));
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "the block was lost: {answer}"
    );
}

/// A session id with a NUL, or longer than the kernel takes for one environment string, used to
/// make every hook fail to start (it is given to hooks as AMPLIFIER_SESSION_ID).
#[test]
fn a_session_id_that_cannot_be_an_environment_variable_is_left_out_and_logged() {
    for (what, id) in [("NUL", "a\u{0}b".to_string()), ("200 KB", "x".repeat(200_000))] {
        let project = Project::new(on(
            "PreToolUse",
            json!([
                {"type": "command", "command": DENY},
                {"type": "command", "command": "printf '%s' \"${AMPLIFIER_SESSION_ID-unset}\" > sid.txt"},
            ]),
        ));
        let mut payload = project.payload("PreToolUse");
        payload["session_id"] = json!(id);
        let done = project.run("PreToolUse", "claude", &payload);
        assert_denied(&done);
        assert_eq!(project.read("sid.txt").as_deref(), Some("unset"), "{what}");
        assert!(
            project.log_text().contains("session_id"),
            "{what}: not logged: {}",
            project.log_text()
        );
    }
}

/// 200 hooks on one event under `ulimit -n 256`: each running hook holds several descriptors, so
/// starting them all at once runs out, and the blocking one used to be among those that "could not
/// start". With the hard limit at 256 hookbridge cannot raise it: it must run them in turns; with
/// only the soft limit low, it raises it. Either way every hook runs and the block holds.
#[test]
fn two_hundred_hooks_under_a_low_open_file_limit_all_run_and_the_block_holds() {
    let mut hooks: Vec<serde_json::Value> = (0..199)
        .map(|n| json!({"type": "command", "command": format!("cat > /dev/null; echo {n} >> ran.txt")}))
        .collect();
    hooks.insert(
        150,
        json!({"type": "command", "command": format!("{DENY}; echo deny >> ran.txt")}),
    );
    for limits in ["-S -n 256; ulimit -H -n 256", "-S -n 64"] {
        let project = Project::new(on("PreToolUse", json!(hooks)));
        let inner = project.command("PreToolUse", "claude");
        let mut cmd = common::wrapped(
            "/bin/sh",
            &["-c".to_string(), format!("ulimit {limits}; exec \"$0\" \"$@\"")],
            &inner,
        );
        cmd.current_dir(&project.dir);
        let done = project.finish(cmd, &serde_json::to_vec(&project.payload("PreToolUse")).unwrap());
        assert_denied(&done);
        let ran = project.read("ran.txt").unwrap_or_default();
        assert_eq!(ran.lines().count(), 200, "ulimit {limits}: not every hook ran");
        assert!(
            !project.log_text().contains("could not start"),
            "ulimit {limits}: {}",
            project.log_text()
        );
    }
}

/// Nine hooks share the event's output budget, so each one's cap is 1 MiB; the one that denies
/// prints a 1.5 MB reason. Its answer must be read whole and the deny must hold (measured cases
/// 192 and 193 show Claude Code reading 5 MB answers whole).
#[test]
fn a_deny_larger_than_its_share_of_the_output_budget_still_denies() {
    let mut hooks: Vec<serde_json::Value> = (0..8)
        .map(|n| json!({"type": "command", "command": format!("echo quiet-{n} > /dev/null")}))
        .collect();
    hooks.push(json!({"type": "command", "command":
        "python3 -c \"import json; print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse', 'permissionDecision': 'deny', 'permissionDecisionReason': 'BIG ' + 'r' * 1500000}}))\""}));
    let project = Project::new(on("PreToolUse", json!(hooks)));
    let done = project.run("PreToolUse", "claude", &project.payload("PreToolUse"));
    assert_denied(&done);
    let answer: serde_json::Value = serde_json::from_slice(&done.stdout).unwrap();
    let reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert_eq!(reason.len(), 1_500_004);
}

fn pid_in(project: &Project, name: &str) -> Option<u32> {
    project.read(name)?.trim().parse().ok()
}

fn kill_now(pids: &[u32]) {
    for pid in pids {
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status();
    }
}

/// Claude Code sends SIGTERM to a hook that outlives its own timeout. hookbridge's hooks used to
/// run on, reparented to init, with no timeout at all; now they die with it — under `run` and under
/// `run --host amplifier` alike (the latter let its hooks run on until their own timeouts).
#[test]
fn sigterm_sigint_or_sighup_to_hookbridge_kills_every_running_hook() {
    use std::io::Write;
    use std::time::Duration;
    let hosts: [(&str, &str, serde_json::Value); 2] = [
        ("claude", "PreToolUse", serde_json::Value::Null),
        (
            "amplifier",
            "tool:pre",
            json!({"tool_name": "bash", "tool_input": {"command": "ls"}}),
        ),
    ];
    for (host, event, data) in hosts {
        for signal in ["TERM", "INT", "HUP"] {
            let project = Project::new(on(
                "PreToolUse",
                json!([
                    {"type": "command", "command": "echo $$ > leader.pid; sleep 300 & echo $! > child.pid; wait"},
                ]),
            ));
            let dir = project.dir.to_string_lossy().into_owned();
            let mut cmd =
                project.hookbridge(["run", "--host", host, "--event", event, "--project-dir", &dir]);
            cmd.env("HOOKBRIDGE_WARM", "0")
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            let input = if data.is_null() {
                project.payload("PreToolUse")
            } else {
                data.clone()
            };
            let mut hookbridge = cmd.spawn().unwrap();
            hookbridge
                .stdin
                .take()
                .unwrap()
                .write_all(&serde_json::to_vec(&input).unwrap())
                .unwrap();
            let started = common::wait_until(Duration::from_secs(20), || {
                pid_in(&project, "leader.pid").is_some() && pid_in(&project, "child.pid").is_some()
            });
            if !started {
                let _ = hookbridge.kill();
                panic!("{host} SIG{signal}: the hook never started");
            }
            let pids = [
                pid_in(&project, "leader.pid").unwrap(),
                pid_in(&project, "child.pid").unwrap(),
            ];
            std::process::Command::new("kill")
                .args([&format!("-{signal}"), &hookbridge.id().to_string()])
                .status()
                .unwrap();
            let exited = common::wait_until(Duration::from_secs(20), || {
                hookbridge.try_wait().unwrap().is_some()
            });
            let gone = common::wait_until(Duration::from_secs(20), || {
                pids.iter().all(|p| !common::pid_alive(*p))
            });
            kill_now(&pids);
            if !exited {
                let _ = hookbridge.kill();
            }
            assert!(exited, "{host} SIG{signal}: hookbridge did not exit");
            assert!(gone, "{host} SIG{signal}: its hook's processes outlived it");
            assert!(
                project.log_text().contains("stopped by signal"),
                "{host} SIG{signal}: not logged: {}",
                project.log_text()
            );
        }
    }
}

/// A hook whose child calls `setsid` (a daemon's double fork, a `setsid` command) leaves the
/// hook's process group, so killing the group at the timeout did not reach it, while the log said
/// the tree was killed. It is found by parentage and killed by pid with the group.
#[test]
fn a_descendant_that_left_the_hooks_group_is_killed_at_the_timeout() {
    use std::time::Duration;
    let project = Project::new(on(
        "PreToolUse",
        json!([
            {"type": "command", "timeout": 1,
             "command": "setsid sh -c 'echo $$ > escaped.pid; exec sleep 300' & sleep 300"},
        ]),
    ));
    let done = project.run("PreToolUse", "claude", &project.payload("PreToolUse"));
    assert_eq!(done.code, Some(0), "{}", done.stderr_str());
    let escaped = pid_in(&project, "escaped.pid").expect("the escaping process never started");
    let gone = common::wait_until(Duration::from_secs(20), || !common::pid_alive(escaped));
    kill_now(&[escaped]);
    assert!(
        gone,
        "the process that left the hook's group outlived the timeout"
    );
}

/// SIGKILL leaves hookbridge no chance to act: a guardian process, which every run that lasts
/// past 100 ms gets, stops the hooks' process groups when hookbridge is gone.
#[test]
fn sigkill_to_hookbridge_still_stops_every_running_hook() {
    use std::io::Write;
    use std::time::Duration;
    let project = Project::new(on(
        "PreToolUse",
        json!([
            {"type": "command", "command": "echo $$ > leader.pid; sleep 300 & echo $! > child.pid; wait"},
            {"type": "command", "command": "echo $$ > other.pid; exec sleep 300"},
        ]),
    ));
    let mut cmd = project.command("PreToolUse", "claude");
    cmd.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut hookbridge = cmd.spawn().unwrap();
    hookbridge
        .stdin
        .take()
        .unwrap()
        .write_all(&serde_json::to_vec(&project.payload("PreToolUse")).unwrap())
        .unwrap();
    let names = ["leader.pid", "child.pid", "other.pid"];
    let started = common::wait_until(Duration::from_secs(20), || {
        names.iter().all(|n| pid_in(&project, n).is_some())
    });
    if !started {
        let _ = hookbridge.kill();
        panic!("the hooks never started");
    }
    // Not a timing assertion: the guardian exists once the run has lasted 100 ms; this only
    // makes sure the run has.
    std::thread::sleep(Duration::from_secs(1));
    let pids: Vec<u32> = names.iter().map(|n| pid_in(&project, n).unwrap()).collect();
    hookbridge.kill().unwrap(); // SIGKILL
    hookbridge.wait().unwrap();
    let gone = common::wait_until(Duration::from_secs(20), || {
        pids.iter().all(|p| !common::pid_alive(*p))
    });
    kill_now(&pids);
    assert!(gone, "hooks outlived a SIGKILLed hookbridge");
}
