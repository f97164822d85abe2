//! A throw-away project for `hookbridge run` tests: a temp folder with
//! `.amplifier/hooks/hooks.json`, a temp HOME and a diagnostics log, and the calls to run an event
//! in it under a watchdog.

use std::fs;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde_json::{json, Value};

use super::{hookbridge_run, run_with_deadline, Finished};

/// Watchdog for one `hookbridge run`.
pub const WATCHDOG: Duration = Duration::from_secs(90);

pub struct TestProject {
    _tmp: tempfile::TempDir,
    pub dir: PathBuf,
    pub home: PathBuf,
    pub log: PathBuf,
}

impl TestProject {
    /// A project whose hooks.json is `hooks` (the whole file).
    pub fn new(hooks: Value) -> TestProject {
        let tmp = tempfile::Builder::new().prefix("hb-test-").tempdir().unwrap();
        let dir = tmp.path().join("project");
        let home = tmp.path().join("home");
        fs::create_dir_all(dir.join(".amplifier/hooks")).unwrap();
        fs::create_dir_all(&home).unwrap();
        fs::write(
            dir.join(".amplifier/hooks/hooks.json"),
            serde_json::to_string_pretty(&hooks).unwrap(),
        )
        .unwrap();
        let log = tmp.path().join("diagnostics.log");
        TestProject {
            _tmp: tmp,
            dir,
            home,
            log,
        }
    }

    /// A project with these PreToolUse hooks behind a `Bash` matcher.
    pub fn pre_tool_use(hooks: Value) -> TestProject {
        TestProject::new(json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": hooks}]}}))
    }

    /// A PreToolUse payload for a Bash call in this project.
    pub fn pre_bash(&self) -> Value {
        json!({
            "session_id": "test-session",
            "cwd": self.dir,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls", "description": "d"},
            "tool_use_id": "toolu_test",
        })
    }

    /// `hookbridge run --event EVENT --format FORMAT` in this project.
    pub fn command(&self, event: &str, format: &str) -> Command {
        hookbridge_run(event, &self.dir, &self.home, &self.log, format)
    }

    /// Runs `cmd` with `stdin` under the watchdog; fails the test if it had to be killed.
    pub fn finish(&self, cmd: Command, stdin: &[u8]) -> Finished {
        let done = run_with_deadline(cmd, stdin, WATCHDOG);
        assert!(
            !done.timed_out,
            "hookbridge did not answer within {WATCHDOG:?}: stderr {}",
            done.stderr_str()
        );
        done
    }

    /// Runs `event` with `payload` and Claude Code's answer format.
    pub fn run(&self, event: &str, payload: &Value) -> Finished {
        self.finish(
            self.command(event, "claude"),
            &serde_json::to_vec(payload).unwrap(),
        )
    }

    pub fn file(&self, name: &str) -> Option<String> {
        fs::read_to_string(self.dir.join(name)).ok()
    }

    pub fn log_text(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }
}
