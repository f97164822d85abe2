//! Agents other than Claude Code whose hooks `hookbridge run --host <agent>` answers. Each is one
//! module implementing [`Host`] (how its events and payloads become Claude Code's, how the
//! outcome is answered in its terms, and the facts of its hooks file as a [`HooksFile`], which
//! `install_into` turns into registrations) and one line in the agent list
//! ([`crate::agents::AGENTS`], which holds its name); `run` does the rest (discovery, selection,
//! dispatch) as for Claude Code, in one path for every host (`run/host.rs`). Amplifier, a host
//! that loads hookbridge as a library, has a crate of its own (hookbridge-amplifier) and its own
//! `run --host amplifier` path through that crate's engine.

pub mod codex;
pub mod gemini;

use std::path::Path;

use hookbridge_core::decision::ClaudeAnswer;
use hookbridge_core::event::EventName;
use hookbridge_runner::{DispatchOptions, EventReport};
use serde_json::{Map, Value};

/// An agent's event → Claude Code's event, and the matcher the event implies (Cursor's
/// `beforeShellExecution` is PreToolUse on `Bash`).
pub type EventTable = &'static [(&'static str, EventName, Option<&'static str>)];

/// An agent that starts `hookbridge run --host <name> --event <its event>` as its hook (its name
/// and its name for people are its line in [`crate::agents::AGENTS`]).
pub trait Host: Sync {
    /// Where and what `install-into <agent>` registers: facts only; the registrations and the
    /// file's editing are `install_into`'s.
    fn hooks_file(&self) -> HooksFile;
    /// The Claude Code event the agent's `event` is: `Ok(None)` for an event of the agent's that
    /// no Claude Code event corresponds to (nothing runs), `Err` (a message naming its events)
    /// for a name that is not one of its events.
    fn claude_event(&self, event: &str) -> Result<Option<EventName>, String>;
    /// The agent's payload for `event` as Claude Code's (its names for tools and fields).
    fn claude_payload(&self, event: &EventName, fields: Map<String, Value>) -> Map<String, Value>;
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
}

/// An agent's hooks file, as `install-into <agent>` needs to know it.
pub struct HooksFile {
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
