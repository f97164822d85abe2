//! Agents other than Claude Code whose hooks `hookbridge run --host <agent>` answers. Each is one
//! module implementing [`Host`] (how its events and payloads become Claude Code's, and how the
//! outcome is answered in its terms) and one line in [`HOSTS`]; `run` does the rest (discovery,
//! selection, dispatch) as for Claude Code, in one path for every host (`run::run_host`).
//! Amplifier, a host that loads hookbridge as a library, has a crate of its own
//! (hookbridge-amplifier) and its own `run --host amplifier` path through that crate's engine.

pub mod codex;
pub mod gemini;

use std::path::{Path, PathBuf};

use hookbridge_core::config::HookSet;
use hookbridge_core::decision::ClaudeAnswer;
use hookbridge_core::event::EventName;
use hookbridge_runner::{DispatchOptions, EventReport};
use serde_json::{Map, Value};

use crate::install_into::claude_settings::Registration;

/// An agent's event → Claude Code's event, and the matcher the event implies (Cursor's
/// `beforeShellExecution` is PreToolUse on `Bash`).
pub type EventTable = &'static [(&'static str, EventName, Option<&'static str>)];

/// An agent that starts `hookbridge run --host <name> --event <its event>` as its hook.
pub trait Host: Sync {
    /// Its name in `--host`, `install-into` and the log.
    fn name(&self) -> &'static str;
    /// Its name for people: `Gemini CLI`.
    fn display_name(&self) -> &'static str;
    /// One line for `--help`.
    fn summary(&self) -> &'static str;
    /// Where its hooks are registered, relative to a project or a home directory
    /// (`.gemini/settings.json`): what `install-into <agent> --scope project|user` edits.
    fn hooks_file_name(&self) -> &'static str;
    /// What `install-into <agent>` registers: `<program> run --host <name> --event <its event>`
    /// for each event it fires that has a Claude Code counterpart, with its timeouts (in its units).
    fn registrations(&self, program: &str, set: &HookSet) -> Vec<Registration>;
    /// The Claude Code event the agent's `event` is: `Ok(None)` for an event of the agent's that
    /// no Claude Code event corresponds to (nothing runs), `Err` (a message naming its events)
    /// for a name that is not one of its events.
    fn claude_event(&self, event: &str) -> Result<Option<EventName>, String>;
    /// The agent's payload for `event` as Claude Code's (its names for tools and fields).
    fn claude_payload(&self, event: &EventName, fields: Map<String, Value>) -> Map<String, Value>;
    /// The answer to the agent for `host_event`, from the hooks' report: exit code, stdout and
    /// stderr, and notes for the log on what was changed on the way.
    fn answer(&self, host_event: &str, report: &EventReport, set: &HookSet) -> (ClaudeAnswer, Vec<String>);
    /// How its hooks are dispatched where that differs from Claude Code (which stops the other
    /// hooks once one decides some events): by default, as Claude Code.
    fn dispatch_options(&self, _options: &mut DispatchOptions) {}
    /// Why the agent does not trust the project folder `project` (so neither does hookbridge:
    /// its hooks are held whatever `hookbridge trust` says), or `Ok` when it trusts it or has no
    /// folder trust of its own. `home`: the user's home directory.
    fn folder_trust(&self, _project: &Path, _home: Option<&Path>) -> Result<(), String> {
        Ok(())
    }

    /// Its hooks file under `dir` (a project or a home directory).
    fn hooks_file(&self, dir: &Path) -> PathBuf {
        dir.join(self.hooks_file_name())
    }
}

/// Every agent `--host` knows besides Claude Code and Amplifier: adding one is a module and a line.
pub const HOSTS: &[&dyn Host] = &[&gemini::Gemini, &codex::Codex];

/// `<program> run --host <host> --event <its event>` for each `(its event, Claude Code's event)`,
/// with the outer timeout of the hooks behind it (see `install_into::OuterTimeouts`), in seconds
/// times `per_second` (1000 for an agent that counts in milliseconds).
pub fn registrations_for<'a>(
    host: &str,
    program: &str,
    set: &HookSet,
    events: impl IntoIterator<Item = (&'a str, &'a EventName)>,
    per_second: u64,
) -> Vec<Registration> {
    events
        .into_iter()
        .map(|(own, event)| {
            let timeouts = crate::install_into::OuterTimeouts::of(set, event);
            let secs = timeouts.outer(|_| true).unwrap_or(timeouts.floor);
            Registration {
                command: format!("{program} run --host {host} --event {own}"),
                timeout: secs.saturating_mul(per_second),
                async_timeout: None,
                rewake_timeout: None,
                event: own.to_string(),
            }
        })
        .collect()
}

/// The host called `name`.
pub fn named(name: &str) -> Option<&'static dyn Host> {
    HOSTS.iter().copied().find(|h| h.name() == name)
}
