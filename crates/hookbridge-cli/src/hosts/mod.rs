//! The agents whose hooks `hookbridge run --host <agent>` answers, Claude Code among them. Each is
//! one module implementing [`Host`] (how its events and payloads become Claude Code's, how the
//! outcome is answered in its terms) and [`HostInstall`] (the facts of its hooks file as a
//! [`HooksFile`], which `install_into` turns into registrations, and how that file is edited), and
//! one line in the agent list
//! ([`crate::agents::AGENTS`], which holds its name); `run` does the rest (discovery, selection,
//! dispatch), in one path for every host (`run/host.rs`). Claude Code is the identity host
//! ([`claude`]): its one difference the path must know is a capability, that it reads an async
//! hook's later answer. Amplifier, a host that loads hookbridge as a library and keeps a session
//! of its own, has a crate of its own (hookbridge-amplifier) and its own `run --host amplifier`
//! path through that crate's engine.

pub mod claude;
pub mod codex;
pub mod gemini;

use std::path::Path;

use hookbridge_core::decision::ClaudeAnswer;
use hookbridge_core::event::{EventName, EventPayload};
use hookbridge_runner::{DispatchOptions, EventReport};
use serde_json::{Map, Value};

use crate::install_into::claude_settings::{self, Changes, Registration, ShapeError};

/// An agent's event → Claude Code's event, and the matcher the event implies (Cursor's
/// `beforeShellExecution` is PreToolUse on `Bash`).
pub type EventTable = &'static [(&'static str, EventName, Option<&'static str>)];

/// An agent that starts `hookbridge run --host <name> --event <its event>` as its hook (its name
/// and its name for people are its line in [`crate::agents::AGENTS`]).
pub trait Host: Sync {
    /// The Claude Code event the agent's `event` is: `Ok(None)` for an event of the agent's that
    /// no Claude Code event corresponds to (nothing runs), `Err` (a message naming its events)
    /// for a name that is not one of its events.
    fn claude_event(&self, event: &str) -> Result<Option<EventName>, String>;
    /// The agent's payload for `event` as Claude Code's (its names for tools and fields).
    fn claude_payload(&self, event: &EventName, fields: Map<String, Value>) -> Map<String, Value>;
    /// The payload the agent sent on stdin (`input`) for the Claude Code event `event`, as Claude
    /// Code's, or why no hook can be given it; `problems` takes what the log should say. By
    /// default: a JSON object (nothing, for an agent that sends no payload), through
    /// [`Host::claude_payload`].
    fn read_payload(
        &self,
        event: EventName,
        input: &[u8],
        _problems: &mut Vec<String>,
    ) -> Result<EventPayload, String> {
        let fields = match serde_json::from_slice::<Value>(input) {
            Ok(Value::Object(fields)) => fields,
            Ok(_) | Err(_) if input.iter().all(u8::is_ascii_whitespace) => Map::new(),
            Ok(other) => return Err(format!("the payload must be a JSON object, got {other}")),
            Err(e) => return Err(format!("the payload is not valid JSON: {e}")),
        };
        let fields = self.claude_payload(&event, fields);
        EventPayload::from_value(event, Value::Object(fields)).map_err(|e| e.to_string())
    }
    /// The answer to the agent for the event in `ctx`, from the hooks' report: exit code, stdout
    /// and stderr, and notes for the log on what was changed on the way.
    fn answer(&self, ctx: &AnswerContext<'_>, report: &EventReport) -> (ClaudeAnswer, Vec<String>);
    /// How its hooks are dispatched where that differs from Claude Code (which stops the other
    /// hooks once one decides some events): by default, as Claude Code.
    fn dispatch_options(&self, _options: &mut DispatchOptions) {}
    /// Why the agent does not trust the project folder `project` (so neither does hookbridge:
    /// its hooks are held whatever `hookbridge trust` says), or `Ok` when it trusts it or has no
    /// folder trust of its own. `home`: the user's home directory.
    fn folder_trust(&self, _project: &Path, _home: Option<&Path>) -> Result<(), String> {
        Ok(())
    }
    /// The variable the agent itself sets to the env file it reads back (`CLAUDE_ENV_FILE` for
    /// Claude Code, on the events that have one), which hookbridge passes on to the hooks; `None`
    /// (by default) for an agent that gives none: a value in the environment is then not the
    /// agent's, and a project's settings may have put it there.
    fn env_file_variable(&self) -> Option<&'static str> {
        None
    }
    /// Whether the agent reads an async hook's later answer (`{"async": true}` first, the answer
    /// on a later request) and wakes its model for an `asyncRewake` hook's exit 2, each only for a
    /// hook registered so: then `install-into` registers one command per kind of hook and `run`
    /// takes that registration's share (`--async-hooks`, `--async-rewake-hooks`). Otherwise
    /// background hooks run detached and their answers are not delivered.
    fn reads_async_answers(&self) -> bool {
        false
    }
}

/// How `install-into <agent>` registers hookbridge with an agent: where its hooks file is and how
/// that file is edited. Separate from [`Host`] (running its hooks): an agent may be run without
/// being installed into (Amplifier loads hookbridge as a library), and `install_into` needs
/// nothing of how the agent is answered. A host whose hooks file is not Claude Code's shape
/// (Cursor's `.cursor/hooks.json`: `{"version": 1, "hooks": {"<event>": [{"command": …}]}}`)
/// gives its own [`HostInstall::register`] and [`HostInstall::unregister`]; the rest (reading
/// with line and column, the compare-and-swap write, the backup, the report) is the same for
/// every agent.
pub trait HostInstall: Sync {
    /// Where and what `install-into <agent>` registers: the facts; the registrations are made
    /// from them by `install_into`.
    fn hooks_file(&self) -> HooksFile;
    /// Registers `wanted` in the hooks file's content `file` (an empty object when there was no
    /// file), replacing hookbridge's earlier entries and keeping everything else; by default in
    /// Claude Code's `hooks.<event>[{hooks: […]}]` shape, which Gemini CLI's and Codex CLI's
    /// files share ([`claude_settings::register`]).
    fn register(&self, file: &mut Value, wanted: &[Registration]) -> Result<Changes, ShapeError> {
        claude_settings::register(file, wanted)
    }
    /// Removes hookbridge's entries from `file` and nothing else (by default in Claude Code's
    /// shape: [`claude_settings::unregister`]).
    fn unregister(&self, file: &mut Value) -> Result<Changes, ShapeError> {
        claude_settings::unregister(file)
    }
}

/// What `install-into <agent>` edits.
pub enum HooksFile {
    /// Claude Code's settings files (user, project and local), where `run --event <event>` is
    /// registered for every event the hooks may need, split by kind of background hook
    /// (`install_into::registrations`).
    ClaudeSettings,
    /// One hooks file of the agent's own, per scope.
    Agent(AgentHooksFile),
}

/// An agent's own hooks file, as `install-into <agent>` needs to know it.
pub struct AgentHooksFile {
    /// Relative to a project or a home directory (`.gemini/settings.json`): what `install-into
    /// <agent> --scope project|user` edits.
    pub name: &'static str,
    /// Each event the agent fires that has a Claude Code counterpart: its name, and Claude
    /// Code's event. `<program> run --host <name> --event <its name>` is registered for each.
    pub events: Vec<(&'static str, EventName)>,
    /// Its timeouts count this many per second (1 for seconds, 1000 for milliseconds).
    pub per_second: u64,
}

/// What a host's answer is made from besides the report: given, so that a host module reads no
/// process state of the command that drives it.
pub struct AnswerContext<'a> {
    /// The agent's own name for the event (`BeforeTool`).
    pub host_event: &'a str,
    /// The command line that started hookbridge, as the agent names the hook by it.
    pub own_command: &'a str,
}
