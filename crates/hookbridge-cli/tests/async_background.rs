//! `async: true` hooks that run beside synchronous ones: `hookbridge run` answers for the
//! synchronous hooks and exits, while a forked copy of it supervises the async ones exactly as it
//! supervises every hook — Unix socketpairs for their standard streams (as Claude Code gives),
//! the payload on stdin, their timeout, and the kill of their whole process tree.
//!
//! Every run is bounded by a watchdog; waits for the background work are generous polls, never
//! timing assertions.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{hookbridge_run, pid_alive, run_with_deadline, wait_until, Finished};
use serde_json::{json, Value};

const WATCHDOG: Duration = Duration::from_secs(60);
/// How long background work may take to show on a loaded machine.
const SETTLE: Duration = Duration::from_secs(20);

struct Project {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    home: PathBuf,
    log: PathBuf,
}

impl Project {
    fn new(pre_tool_use_hooks: Value) -> Project {
        let tmp = tempfile::Builder::new().prefix("hb-async-").tempdir().unwrap();
        let dir = tmp.path().join("project");
        let home = tmp.path().join("home");
        fs::create_dir_all(dir.join(".amplifier/hooks")).unwrap();
        fs::create_dir_all(&home).unwrap();
        let hooks = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": pre_tool_use_hooks}]}});
        fs::write(
            dir.join(".amplifier/hooks/hooks.json"),
            serde_json::to_string_pretty(&hooks).unwrap(),
        )
        .unwrap();
        let log = tmp.path().join("diagnostics.log");
        Project {
            _tmp: tmp,
            dir,
            home,
            log,
        }
    }

    fn payload(&self) -> Value {
        json!({
            "session_id": "async-session",
            "cwd": self.dir,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls", "description": "d"},
            "tool_use_id": "toolu_async",
        })
    }

    fn run(&self) -> Finished {
        let cmd = hookbridge_run("PreToolUse", &self.dir, &self.home, &self.log, "claude");
        let done = run_with_deadline(cmd, &serde_json::to_vec(&self.payload()).unwrap(), WATCHDOG);
        assert!(!done.timed_out, "hookbridge did not answer: {}", done.stderr_str());
        done
    }

    fn file(&self, name: &str) -> Option<String> {
        fs::read_to_string(self.dir.join(name)).ok()
    }
}

fn pid_in(path: &Path) -> Option<u32> {
    fs::read_to_string(path).ok()?.trim().parse().ok()
}

#[test]
fn an_async_hook_beside_a_sync_one_gets_sockets_and_the_payload() {
    // `$$` is the hook's shell even inside the subshell whose output goes to the file.
    let kinds = "for n in 0 1 2; do f=/proc/$$/fd/$n; \
        if [ -S $f ]; then printf 'socket '; elif [ -p $f ]; then printf 'fifo '; else printf 'other '; fi; done";
    let project = Project::new(json!([
        {"type": "command", "command": "echo sync-ran > sync.txt"},
        {"type": "command", "async": true,
         "command": format!("cat > async_stdin.json; ({kinds}) > kinds.tmp; mv kinds.tmp kinds.txt")},
    ]));
    let done = project.run();
    assert_eq!(done.code, Some(0), "stderr: {}", done.stderr_str());
    assert_eq!(project.file("sync.txt").as_deref(), Some("sync-ran\n"));
    assert!(
        wait_until(SETTLE, || project.file("kinds.txt").is_some()),
        "the async hook never finished; log: {}",
        fs::read_to_string(&project.log).unwrap_or_default()
    );
    assert_eq!(project.file("kinds.txt").unwrap(), "socket socket socket ");
    let stdin: Value = serde_json::from_str(&project.file("async_stdin.json").unwrap()).unwrap();
    assert_eq!(stdin["tool_use_id"], "toolu_async");
    assert_eq!(stdin["hook_event_name"], "PreToolUse");
}

#[test]
fn an_async_hook_beside_a_sync_one_is_killed_with_its_tree_at_its_timeout() {
    let project = Project::new(json!([
        {"type": "command", "command": "true"},
        {"type": "command", "async": true, "timeout": 1,
         "command": "echo $$ > leader.pid; sleep 300 & echo $! > child.pid; wait"},
    ]));
    let done = project.run();
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
            let _ = std::process::Command::new("kill").args(["-9", &pid.to_string()]).status();
        }
    }
    assert!(gone, "the async hook's tree outlived its 1 s timeout by {SETTLE:?}");
}
