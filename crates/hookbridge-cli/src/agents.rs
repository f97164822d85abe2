//! Every agent hookbridge knows, once: its name (in `run --host`, `install-into` and
//! `migrate --from`), its name for people, and what hookbridge does for it — runs its hooks
//! (`run --host`), registers itself in its hooks file (`install-into`), reads its hooks files
//! (`migrate --from`). The three commands take their values, help and dispatch from [`AGENTS`], so
//! a new agent is one line here and the modules its capabilities name: a `Host` and a
//! `HostInstall` in `hosts/`, a reader in `migrate/agents.rs`.

use crate::hosts::{claude::ClaudeCode, codex::Codex, gemini::Gemini, Host, HostInstall};

/// Which agent, for code that treats one differently (the readers of `migrate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentId {
    Claude,
    Amplifier,
    Gemini,
    Codex,
    Cursor,
    Copilot,
}

/// How `run --host <agent>` answers an agent.
#[derive(Clone, Copy)]
pub enum Runs {
    /// Its events and payloads as Claude Code's, the answer in its terms (Claude Code's own, for
    /// the identity host), in `run`'s one path for every [`Host`].
    Host(&'static dyn Host),
    /// Amplifier: a kernel event through the engine the hook-bridge module uses, which keeps the
    /// session's state between events.
    Amplifier,
}

/// One agent and what hookbridge does for it.
pub struct Agent {
    pub id: AgentId,
    /// Its name in `--host`, `install-into`, `--from` and the log.
    pub name: &'static str,
    /// Its name for people: `Gemini CLI`.
    pub display_name: &'static str,
    /// What hookbridge does for it, in one line (`run --help` shows it for the agents it runs).
    pub summary: &'static str,
    /// `run --host <name>`: how its hooks are answered; `None`: hookbridge does not run as its hook.
    pub runs: Option<Runs>,
    /// `install-into <name>`: how hookbridge is registered in its hooks file; `None`: it is not.
    pub installs: Option<&'static dyn HostInstall>,
    /// `migrate --from <name>` reads its hooks files.
    pub migrates: bool,
}

/// Every agent, in the order help lists them.
pub const AGENTS: &[Agent] = &[
    Agent {
        id: AgentId::Claude,
        name: "claude",
        display_name: "Claude Code",
        summary: "Claude Code: its event payload in; exit code, stdout and stderr out (see `--format`)",
        runs: Some(Runs::Host(&ClaudeCode)),
        installs: Some(&ClaudeCode),
        migrates: true,
    },
    Agent {
        id: AgentId::Amplifier,
        name: "amplifier",
        display_name: "Amplifier",
        summary: "Amplifier: a kernel event's data in (`--event tool:pre`), run exactly as the hook-bridge module runs it; the `HookResult` as JSON out, or with `--format report` everything the module gets",
        runs: Some(Runs::Amplifier),
        installs: None,
        migrates: false,
    },
    Agent {
        id: AgentId::Gemini,
        name: "gemini",
        display_name: "Gemini CLI",
        summary: "Gemini CLI: its event (`--event BeforeTool`) and payload in, Claude Code's hooks run, the answer as Gemini CLI reads it",
        runs: Some(Runs::Host(&Gemini)),
        installs: Some(&Gemini),
        migrates: true,
    },
    Agent {
        id: AgentId::Codex,
        name: "codex",
        display_name: "Codex CLI",
        summary: "Codex CLI: Claude Code's events and payloads, each hook's answer read as Codex reads it, the merged answer in the form Codex honours",
        runs: Some(Runs::Host(&Codex)),
        installs: Some(&Codex),
        migrates: true,
    },
    Agent {
        id: AgentId::Cursor,
        name: "cursor",
        display_name: "Cursor",
        summary: "Cursor: `migrate --from cursor` reads its .cursor/hooks.json",
        runs: None,
        installs: None,
        migrates: true,
    },
    Agent {
        id: AgentId::Copilot,
        name: "copilot",
        display_name: "GitHub Copilot",
        summary: "GitHub Copilot: `migrate --from copilot` reads its .github/hooks/*.json",
        runs: None,
        installs: None,
        migrates: true,
    },
];

/// The agent called `name`.
pub fn named(name: &str) -> Option<&'static Agent> {
    AGENTS.iter().find(|a| a.name == name)
}

/// The agents `keep` accepts, as a command-line value parser, with each one's help if any.
pub fn values(
    keep: impl Fn(&Agent) -> bool,
    help: impl Fn(&Agent) -> Option<String>,
) -> clap::builder::PossibleValuesParser {
    let values: Vec<clap::builder::PossibleValue> = AGENTS
        .iter()
        .filter(|a| keep(a))
        .map(|a| {
            let value = clap::builder::PossibleValue::new(a.name);
            match help(a) {
                Some(help) => value.help(help),
                None => value,
            }
        })
        .collect();
    clap::builder::PossibleValuesParser::new(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_each_agent_does_something() {
        for (i, agent) in AGENTS.iter().enumerate() {
            assert!(
                AGENTS[..i]
                    .iter()
                    .all(|a| a.name != agent.name && a.id != agent.id),
                "{} is listed twice",
                agent.name
            );
            assert!(
                agent.runs.is_some() || agent.installs.is_some() || agent.migrates,
                "{} does nothing",
                agent.name
            );
            // install-into registers `run`: an agent it installs into is one `run` answers.
            if agent.installs.is_some() {
                assert!(
                    matches!(agent.runs, Some(Runs::Host(_))),
                    "{} installs but is not run",
                    agent.name
                );
            }
        }
    }
}
