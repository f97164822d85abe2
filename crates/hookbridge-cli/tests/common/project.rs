//! A throwaway project for the CLI tests (`exit_codes`, `async_hooks`, `limits`, `runner_failsafe`,
//! `async_background`): a temp
//! `<project>/.amplifier/hooks/hooks.json`, a temp HOME and a diagnostics log, and `hookbridge run`
//! started against them with every variable of [`HOSTILE_ENV`](super::HOSTILE_ENV) removed.
//!
//! Every run is bounded by a watchdog. The watchdog is a hang guard, never an assertion about
//! speed: a test that needs to know whether something happened before something else arranges
//! it with files the test creates (a hook that waits for a `release` file cannot finish before
//! the test has seen what it needed to see).

use std::fs;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde_json::{json, Value};

use super::{hookbridge_bin, hookbridge_run, run_with_deadline, Finished, HOSTILE_ENV};

/// Longest any one `hookbridge run` of these tests may take before it counts as hung.
pub const WATCHDOG: Duration = Duration::from_secs(90);

pub struct Project {
    _tmp: tempfile::TempDir,
    pub dir: PathBuf,
    pub home: PathBuf,
    pub log: PathBuf,
}

impl Project {
    pub fn new(hooks: Value) -> Project {
        let tmp = tempfile::Builder::new().prefix("hb-contract-").tempdir().unwrap();
        let dir = tmp.path().join("project");
        let home = tmp.path().join("home");
        fs::create_dir_all(dir.join(".amplifier/hooks")).unwrap();
        fs::create_dir_all(&home).unwrap();
        let log = tmp.path().join("diagnostics.log");
        let project = Project {
            _tmp: tmp,
            dir,
            home,
            log,
        };
        project.write_hooks(&hooks);
        project
    }

    /// Replace `.amplifier/hooks/hooks.json`.
    pub fn write_hooks(&self, hooks: &Value) {
        fs::write(
            self.dir.join(".amplifier/hooks/hooks.json"),
            serde_json::to_string_pretty(hooks).unwrap(),
        )
        .unwrap();
    }

    /// Write `text` to a file of the project (creating its folders) and return the path.
    pub fn file(&self, name: &str, text: &str) -> PathBuf {
        let path = self.dir.join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap();
        path
    }

    /// `hookbridge run --event EVENT --project-dir DIR --format FORMAT`, ready to start.
    pub fn command(&self, event: &str, format: &str) -> Command {
        hookbridge_run(event, &self.dir, &self.home, &self.log, format)
    }

    /// Any `hookbridge` command line, with the same environment as [`Project::command`].
    pub fn hookbridge(&self, args: &[&str]) -> Command {
        super::trust_project(&self.dir, &self.home);
        let mut cmd = Command::new(hookbridge_bin());
        cmd.args(args);
        for var in HOSTILE_ENV {
            cmd.env_remove(var);
        }
        cmd.env("HOME", &self.home)
            .env("HOOKBRIDGE_LOG", &self.log)
            .current_dir(&self.dir);
        cmd
    }

    /// Run `cmd` with `stdin`; fails the test if the watchdog had to stop it.
    pub fn finish(&self, cmd: Command, stdin: &[u8]) -> Finished {
        let shown = format!("{cmd:?}");
        let done = run_with_deadline(cmd, stdin, WATCHDOG);
        assert!(
            !done.timed_out,
            "{shown} did not finish within {WATCHDOG:?}: stderr {}",
            done.stderr_str()
        );
        done
    }

    pub fn run(&self, event: &str, format: &str, payload: &Value) -> Finished {
        self.finish(self.command(event, format), &serde_json::to_vec(payload).unwrap())
    }

    /// `--format report`, parsed.
    pub fn report(&self, cmd: Command, payload: &Value) -> Value {
        let done = self.finish(cmd, &serde_json::to_vec(payload).unwrap());
        assert_eq!(
            done.code,
            Some(0),
            "--format report failed: {}",
            done.stderr_str()
        );
        serde_json::from_slice(&done.stdout)
            .unwrap_or_else(|e| panic!("the report is not JSON ({e}): {}", done.stdout_str()))
    }

    /// The text of a file of the project, if it exists.
    pub fn read(&self, name: &str) -> Option<String> {
        fs::read_to_string(self.dir.join(name)).ok()
    }

    pub fn log_text(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// A valid payload for `event` (PreToolUse/PostToolUse on Bash, or any other event).
    pub fn payload(&self, event: &str) -> Value {
        let mut payload = json!({
            "session_id": "contract-session",
            "transcript_path": self.dir.join("transcript.jsonl"),
            "cwd": self.dir,
            "hook_event_name": event,
        });
        if event.contains("ToolUse") {
            payload["tool_name"] = json!("Bash");
            payload["tool_input"] = json!({"command": "ls", "description": "list"});
            payload["tool_use_id"] = json!("toolu_contract");
        }
        if event == "PostToolUse" {
            payload["tool_response"] = json!({"stdout": "", "stderr": "", "interrupted": false});
        }
        payload
    }
}

/// `{"hooks": {EVENT: [{"hooks": HOOKS}]}}`: one group without a matcher.
pub fn on(event: &str, hooks: Value) -> Value {
    json!({"hooks": {event: [{"hooks": hooks}]}})
}

/// A path or any text, single-quoted for `sh -c`.
pub fn sh_quote(text: impl AsRef<std::ffi::OsStr>) -> String {
    format!("'{}'", text.as_ref().to_string_lossy().replace('\'', r"'\''"))
}
