//! `hookbridge migrate --from <agent>`: another agent's hook configuration, rewritten as a
//! hookbridge hooks file, with a list of everything that could not be carried over.
//!
//! Each agent has one reader (`agents.rs`) turning its files into [`Migrated`] — Claude Code event → matcher
//! groups, in Claude Code's own format — and notes. The result is written as one plugin folder of
//! the hooks directory, `<hooks dir>/from-<agent>/hooks.json`, so it can be listed, disabled
//! (`hookbridge disable from-gemini`) or removed as a unit, and the agent's own files are never
//! touched. Formats were read from each agent's published documentation:
//! - Claude Code: `settings.json` / `settings.local.json` `hooks` (taken verbatim);
//! - Gemini CLI: `settings.json` `hooks` (its event names, `timeout` in milliseconds, its tool names);
//! - Codex: `hooks.json` (Claude Code's shape and event names);
//! - Cursor: `hooks.json` (`version: 1`, flat `{command, matcher?, timeout?}` entries per event);
//! - GitHub Copilot: `.github/hooks/*.json` (`version: 1`, `{type, bash, cwd, env, timeoutSec}`).

mod agents;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use serde_json::{Map, Value};

use crate::agents::AgentId;
use crate::manage::{home, HooksDirArgs};
use crate::say;

#[derive(Args, Debug)]
pub struct MigrateArgs {
    /// The agent whose hooks to import.
    #[arg(long, value_parser = agent_names())]
    from: String,
    /// Print the hooks file it would write, and change nothing.
    #[arg(long)]
    dry_run: bool,
    /// Replace an earlier migration from the same agent.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    dir: HooksDirArgs,
}

/// `--from`'s agents: those `agents::AGENTS` says `migrate` reads.
fn agent_names() -> clap::builder::PossibleValuesParser {
    crate::agents::values(|a| a.migrates, |_| None)
}

/// Where an agent's configuration lives for one migration.
pub struct Places {
    pub project: PathBuf,
    pub home: Option<PathBuf>,
    /// `--user`: the agent's user-level files; otherwise the project's.
    pub user: bool,
}

/// What a migration produced: Claude Code-format events, and what was left behind.
#[derive(Debug, Default, PartialEq)]
pub struct Migrated {
    /// The files read.
    pub read: Vec<PathBuf>,
    /// Event → matcher groups, in Claude Code's format.
    pub hooks: Map<String, Value>,
    /// Everything that could not be carried over, or must be checked by hand.
    pub notes: Vec<String>,
}

impl Migrated {
    /// Add one hook to `event`, in a group of its own with `matcher` (none: every occurrence).
    pub fn add(&mut self, event: &str, matcher: Option<String>, hook: Value) {
        let mut group = Map::new();
        if let Some(matcher) = matcher {
            group.insert("matcher".into(), Value::String(matcher));
        }
        group.insert("hooks".into(), Value::Array(vec![hook]));
        self.add_group(event, Value::Object(group));
    }

    pub fn add_group(&mut self, event: &str, group: Value) {
        self.hooks
            .entry(event.to_string())
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .expect("only arrays are inserted")
            .push(group);
    }

    pub fn note(&mut self, note: impl Into<String>) {
        self.notes.push(note.into());
    }

    pub fn count(&self) -> usize {
        self.hooks
            .values()
            .flat_map(|groups| groups.as_array().into_iter().flatten())
            .map(|g| g.get("hooks").and_then(Value::as_array).map_or(0, Vec::len))
            .sum()
    }
}

/// A JSON file's value; `None` when it does not exist. Errors name the line and column.
pub fn read_json(path: &Path) -> anyhow::Result<Option<Value>> {
    crate::files::read_if_exists(path)?
        .map(|text| crate::files::parse_json(&text, path))
        .transpose()
}

pub fn migrate(args: MigrateArgs) -> anyhow::Result<ExitCode> {
    let dir = args.dir.resolve()?;
    let places = Places {
        project: dir.project_dir.clone(),
        home: home(),
        user: args.dir.user,
    };
    let agent = crate::agents::named(&args.from).expect("clap accepts only the agents there are");
    let migrated = agents::read(agent, &places)?;
    if migrated.read.is_empty() {
        say(format_args!(
            "no {} hook configuration found ({}); nothing to migrate",
            agent.name,
            agents::looked_in(agent.id, &places)
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        return Ok(ExitCode::SUCCESS);
    }
    let file = serde_json::json!({
        "description": format!(
            "migrated from {} by `hookbridge migrate --from {}` ({})",
            agent.name,
            agent.name,
            migrated.read.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
        ),
        "hooks": migrated.hooks,
    });
    let text = serde_json::to_string_pretty(&file)? + "\n";
    let folder = dir.dir.join(format!("from-{}", agent.name));
    let target = folder.join("hooks.json");
    // A project's migrated hooks stay in the project: a `from-<agent>` (or hooks directory)
    // symlinked to `~/.amplifier/hooks` would make them the user's, run in every project.
    dir.scope().check(&target)?;
    for read in &migrated.read {
        say(format_args!("read {}", read.display()));
    }
    for note in &migrated.notes {
        say(format_args!("not carried over / check: {note}"));
    }
    if args.dry_run {
        std::io::Write::write_all(&mut std::io::stdout().lock(), text.as_bytes())?;
        say(format_args!(
            "{} hook(s) would be written to {}",
            migrated.count(),
            target.display()
        ));
        return Ok(ExitCode::SUCCESS);
    }
    if migrated.count() == 0 {
        say(format_args!("no hook could be carried over; nothing was written"));
        return Ok(ExitCode::SUCCESS);
    }
    if target.exists() && !args.force {
        let old = std::fs::read_to_string(&target).unwrap_or_default();
        if old == text {
            say(format_args!("{} is already up to date", target.display()));
            return Ok(ExitCode::SUCCESS);
        }
        return Err(crate::UsageError(format!(
            "{} exists (an earlier migration): --force replaces it",
            target.display()
        ))
        .into());
    }
    crate::files::write_atomically(&target, &text, dir.scope())?;
    say(format_args!(
        "{} hook(s) written to {}; `hookbridge list` shows them, `hookbridge disable from-{}` switches them off",
        migrated.count(),
        target.display(),
        agent.name
    ));
    if agent.id == AgentId::Claude {
        say(format_args!(
            "Claude Code still runs these from its settings: once `hookbridge install-into claude` is in place, remove them there, or they run twice"
        ));
    }
    Ok(ExitCode::SUCCESS)
}
