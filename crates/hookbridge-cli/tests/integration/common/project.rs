//! The one throwaway project of the CLI tests: a temp `<project>/.amplifier/hooks/hooks.json` (or
//! none: [`Project::bare`]), a temp HOME and a diagnostics log, and `hookbridge` started against
//! them with every variable of [`HOSTILE_ENV`](super::HOSTILE_ENV) removed.
//!
//! Every run is bounded by a watchdog. The watchdog is a hang guard, never an assertion about
//! speed: a test that needs to know whether something happened before something else arranges
//! it with files the test creates (a hook that waits for a `release` file cannot finish before
//! the test has seen what it needed to see).

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{json, Value};

use super::{hookbridge_run, run_with_deadline, Finished};

/// Longest any one `hookbridge run` of these tests may take before it counts as hung.
pub const WATCHDOG: Duration = Duration::from_secs(90);

pub struct Project {
    _tmp: tempfile::TempDir,
    /// The temp folder holding the project, the home and the log.
    pub root: PathBuf,
    pub dir: PathBuf,
    pub home: PathBuf,
    pub log: PathBuf,
}

impl Project {
    /// A project whose `hooks.json` is `hooks`.
    pub fn new(hooks: Value) -> Project {
        Project::named(OsStr::new("project"), hooks)
    }

    /// [`Project::new`] in a folder of that name (any bytes a file name may hold).
    pub fn named(name: &OsStr, hooks: Value) -> Project {
        let project = Project::bare_named(name);
        project.write_hooks(&hooks);
        project
    }

    /// A project with an empty `.amplifier/hooks/` folder: the test writes its files.
    pub fn bare() -> Project {
        Project::bare_named(OsStr::new("project"))
    }

    fn bare_named(name: &OsStr) -> Project {
        let tmp = tempfile::Builder::new().prefix("hb-cli-").tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        let dir = root.join(name);
        let home = root.join("home");
        fs::create_dir_all(dir.join(".amplifier/hooks")).unwrap();
        fs::create_dir_all(&home).unwrap();
        let log = root.join("diagnostics.log");
        Project {
            _tmp: tmp,
            root,
            dir,
            home,
            log,
        }
    }

    /// `<project>/.amplifier/hooks`.
    pub fn hooks_dir(&self) -> PathBuf {
        self.dir.join(".amplifier/hooks")
    }

    /// Write `text` at `relative` under the hooks folder (creating its folders) and return the path.
    pub fn hook_file(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.hooks_dir().join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap();
        path
    }

    /// Write an executable script at `path` (relative: in the project) and return where.
    pub fn script(&self, path: impl AsRef<Path>, body: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = self.dir.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, body).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        path
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

    /// Any `hookbridge` command line, with the same environment as [`Project::command`], in the
    /// project's folder; the project's hooks as they are now trusted, as a user would trust them.
    pub fn hookbridge<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        super::trust_project(&self.dir, &self.home);
        let mut cmd = super::hookbridge_in(&self.dir, &self.home, &self.log);
        cmd.args(args);
        cmd
    }

    /// Run `cmd` with `stdin` (bytes, or a JSON value); fails the test if the watchdog had to stop it.
    pub fn finish(&self, cmd: Command, stdin: &(impl Stdin + ?Sized)) -> Finished {
        let shown = format!("{cmd:?}");
        let done = run_with_deadline(cmd, &stdin.bytes(), WATCHDOG);
        assert!(
            !done.timed_out,
            "{shown} did not finish within {WATCHDOG:?}: stderr {}",
            done.stderr_str()
        );
        done
    }

    /// `hookbridge run --event EVENT --format FORMAT` with `payload` on stdin.
    pub fn run(&self, event: &str, format: &str, payload: &(impl Stdin + ?Sized)) -> Finished {
        self.finish(self.command(event, format), payload)
    }

    /// `hookbridge run --event EVENT --format report`: the report, parsed, and the run.
    pub fn event_report(&self, event: &str, payload: &(impl Stdin + ?Sized)) -> (Value, Finished) {
        let done = self.run(event, "report", payload);
        assert_eq!(
            done.code,
            Some(0),
            "--format report failed: {}",
            done.stderr_str()
        );
        let report = serde_json::from_slice(&done.stdout)
            .unwrap_or_else(|e| panic!("the report is not JSON ({e}): {}", done.stdout_str()));
        (report, done)
    }

    /// `cmd`, a `--format report` run, with `payload`: the report, parsed.
    pub fn report(&self, cmd: Command, payload: &Value) -> Value {
        let done = self.finish(cmd, payload);
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

    /// A PreToolUse payload for a Bash call of `command`.
    pub fn bash_payload(&self, command: &str) -> Value {
        json!({
            "session_id": "cli-session",
            "cwd": self.dir,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command, "description": "d"},
            "tool_use_id": "toolu_cli",
        })
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

/// The hook of a `--format report` whose label contains `needle`.
pub fn hook<'a>(report: &'a Value, needle: &str) -> &'a Value {
    report["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["hook"]["label"].as_str().unwrap_or("").contains(needle))
        .unwrap_or_else(|| panic!("no hook labelled like {needle:?} in {report:#}"))
}

/// `{"hooks": {EVENT: [{"hooks": HOOKS}]}}`: one group without a matcher.
pub fn on(event: &str, hooks: Value) -> Value {
    json!({"hooks": {event: [{"hooks": hooks}]}})
}

/// A path or any text, single-quoted for `sh -c`.
pub fn sh_quote(text: impl AsRef<std::ffi::OsStr>) -> String {
    format!("'{}'", text.as_ref().to_string_lossy().replace('\'', r"'\''"))
}

/// What a test gives a hook on stdin: bytes as they are, a JSON value serialized.
pub trait Stdin {
    fn bytes(&self) -> Vec<u8>;
}

impl Stdin for [u8] {
    fn bytes(&self) -> Vec<u8> {
        self.to_vec()
    }
}

impl<const N: usize> Stdin for [u8; N] {
    fn bytes(&self) -> Vec<u8> {
        self.to_vec()
    }
}

impl Stdin for Vec<u8> {
    fn bytes(&self) -> Vec<u8> {
        self.clone()
    }
}

impl Stdin for Value {
    fn bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap()
    }
}
