//! `async: true` hooks that run beside synchronous ones: `hookbridge run` answers for the
//! synchronous hooks and exits, while a forked copy of it supervises the async ones exactly as it
//! supervises every hook — Unix socketpairs for their standard streams (as Claude Code gives),
//! the payload on stdin, their timeout, and the kill of their whole process tree.
//!
//! Every run is bounded by a watchdog; waits for the background work are generous polls, never
//! timing assertions.

use crate::common;

use std::fs;
use std::path::Path;
use std::time::Duration;

use common::project::{on, Project};
use common::{pid_alive, wait_until};
use serde_json::{json, Value};

/// How long background work may take to show on a loaded machine.
const SETTLE: Duration = Duration::from_secs(20);

fn pid_in(path: &Path) -> Option<u32> {
    fs::read_to_string(path).ok()?.trim().parse().ok()
}

#[test]
fn an_async_hook_beside_a_sync_one_gets_sockets_and_the_payload() {
    // `$$` is the hook's shell even inside the subshell whose output goes to the file.
    let kinds = "for n in 0 1 2; do f=/proc/$$/fd/$n; \
        if [ -S $f ]; then printf 'socket '; elif [ -p $f ]; then printf 'fifo '; else printf 'other '; fi; done";
    let project = Project::new(on(
        "PreToolUse",
        json!([
            {"type": "command", "command": "echo sync-ran > sync.txt"},
            {"type": "command", "async": true,
             "command": format!("cat > async_stdin.json; ({kinds}) > kinds.tmp; mv kinds.tmp kinds.txt")},
        ]),
    ));
    let done = project.run("PreToolUse", "claude", &project.payload("PreToolUse"));
    assert_eq!(done.code, Some(0), "stderr: {}", done.stderr_str());
    assert_eq!(project.read("sync.txt").as_deref(), Some("sync-ran\n"));
    assert!(
        wait_until(SETTLE, || project.read("kinds.txt").is_some()),
        "the async hook never finished; log: {}",
        fs::read_to_string(&project.log).unwrap_or_default()
    );
    assert_eq!(project.read("kinds.txt").unwrap(), "socket socket socket ");
    let stdin: Value = serde_json::from_str(&project.read("async_stdin.json").unwrap()).unwrap();
    assert_eq!(stdin["tool_use_id"], "toolu_contract");
    assert_eq!(stdin["hook_event_name"], "PreToolUse");
}

#[test]
fn an_async_hook_beside_a_sync_one_is_killed_with_its_tree_at_its_timeout() {
    let project = Project::new(on(
        "PreToolUse",
        json!([
            {"type": "command", "command": "true"},
            {"type": "command", "async": true, "timeout": 1,
             "command": "echo $$ > leader.pid; sleep 300 & echo $! > child.pid; wait"},
        ]),
    ));
    let done = project.run("PreToolUse", "claude", &project.payload("PreToolUse"));
    assert_eq!(done.code, Some(0), "stderr: {}", done.stderr_str());
    let (leader, child) = (project.dir.join("leader.pid"), project.dir.join("child.pid"));
    assert!(
        wait_until(SETTLE, || pid_in(&leader).is_some() && pid_in(&child).is_some()),
        "the async hook never started"
    );
    let (leader, child) = (pid_in(&leader).unwrap(), pid_in(&child).unwrap());
    let gone = wait_until(SETTLE, || !pid_alive(leader) && !pid_alive(child));
    for pid in [leader, child] {
        if pid_alive(pid) {
            let _ = std::process::Command::new("kill")
                .args(["-9", &pid.to_string()])
                .status();
        }
    }
    assert!(
        gone,
        "the async hook's tree outlived its 1 s timeout by {SETTLE:?}"
    );
}
