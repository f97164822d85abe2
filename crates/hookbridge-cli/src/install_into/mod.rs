//! `hookbridge install-into claude|gemini|codex`: make `hookbridge run` the agent's hook for every
//! event, in one of its settings files, so the hooks in `.amplifier/hooks/` run under Claude Code
//! (or Gemini CLI, through `run --host gemini`, whose settings file has the same `hooks` shape with
//! its own event names and millisecond timeouts; or Codex CLI, through `run --host codex`, in
//! `.codex/hooks.json`).
//!
//! This module owns the files: which settings file a scope means, reading it (errors with line and
//! column), the outer timeouts (from the hooks hookbridge would run), the checks that warn about a
//! hook registered both in Claude Code and behind hookbridge, and writing — only when something
//! changed, atomically, with the original's mode and owner, after a backup that is made once and
//! never overwritten. The one decision: the file is edited as a compare-and-swap, because the
//! agent may be writing it at the same moment (Claude Code adds permission rules while it runs)
//! and takes no lock: the edit is made on what was read, checked again just before the rename,
//! and redone on the new content when another program changed it (`files::replace`). A project
//! scope's file is written only if it really lies inside the project; the user's own file is
//! followed through its symlink (dotfiles). The edit itself is the agent's
//! [`HostInstall`] (Claude Code's shape by default, [`claude_settings`],
//! which Gemini CLI's and Codex CLI's files share), which is pure.

pub mod claude_settings;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, ValueEnum};
use hookbridge_core::config::{discover, HookKind, HookSet};
use hookbridge_core::event::EventName;
use hookbridge_runner::DispatchOptions;
use serde_json::Value;

use claude_settings::{Changes, Registration};

use crate::hosts::{AgentHooksFile, HooksFile, HostInstall};
use crate::{say, ProjectArgs, UsageError};

/// Seconds added to the slowest hook's timeout: hookbridge stops a hook at its own timeout (at
/// the latest at the registration's `--max-timeout`, the outer timeout less this) and must still
/// have time to answer before the agent stops hookbridge.
pub const TIMEOUT_MARGIN_SECS: u64 = 5;

/// Events registered only when hooks for them exist: a hook on them replaces Claude Code's own
/// behaviour (a WorktreeCreate hook must create the worktree and print its path), so registering
/// hookbridge with nothing behind it would break worktrees.
const REPLACING_EVENTS: &[EventName] = &[EventName::WorktreeCreate, EventName::WorktreeRemove];

#[derive(Args, Debug)]
pub struct InstallIntoArgs {
    /// The agent to register hookbridge with.
    #[arg(value_name = "AGENT", value_parser = agent_names())]
    agent: String,
    /// Which settings file: `user` (~/.claude/settings.json, every project), `project`
    /// (<project>/.claude/settings.json, shared with the repository) or `local`
    /// (<project>/.claude/settings.local.json, this checkout only); for Gemini CLI `user`
    /// (~/.gemini/settings.json) or `project` (<project>/.gemini/settings.json); for Codex CLI
    /// `user` (~/.codex/hooks.json) or `project` (<project>/.codex/hooks.json).
    // This text is `--help`'s: `<project>` is meant as written, not as HTML.
    #[allow(rustdoc::invalid_html_tags)]
    #[arg(long, value_enum, default_value_t = Scope::Project)]
    scope: Scope,
    /// Remove hookbridge's registrations instead (the file's other content stays).
    #[arg(long)]
    remove: bool,
    /// Print the file as it would be written, and change nothing.
    #[arg(long)]
    dry_run: bool,
    /// The command that starts hookbridge. Default: `hookbridge` when that is this program on
    /// PATH, else this program's absolute path.
    #[arg(long, value_name = "PROGRAM")]
    program: Option<String>,
    #[command(flatten)]
    project: ProjectArgs,
}

/// `install-into`'s agents: those `agents::AGENTS` says it installs into.
fn agent_names() -> clap::builder::PossibleValuesParser {
    crate::agents::values(
        |a| a.installs.is_some(),
        |a| {
            Some(match installer_of(a).hooks_file() {
                HooksFile::ClaudeSettings => a.display_name.to_string(),
                HooksFile::Agent(file) => {
                    format!("{} (`{}`; `--scope user|project`)", a.display_name, file.name)
                }
            })
        },
    )
}

/// How `install-into` registers hookbridge with `agent`, as its host says.
fn installer_of(agent: &crate::agents::Agent) -> &'static dyn HostInstall {
    agent.installs.unwrap_or_else(|| {
        unreachable!(
            "clap offers only the agents install-into installs into, not {}",
            agent.name
        )
    })
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Scope {
    User,
    Project,
    Local,
}

impl Scope {
    const ALL: [Scope; 3] = [Scope::User, Scope::Project, Scope::Local];

    /// Claude Code's settings file of this scope, `None` for `user` without a home directory.
    fn settings_file(self, project: &Path, home: Option<&Path>) -> Option<PathBuf> {
        match self {
            Scope::User => home.map(|h| h.join(".claude").join("settings.json")),
            Scope::Project => Some(project.join(".claude").join("settings.json")),
            Scope::Local => Some(project.join(".claude").join("settings.local.json")),
        }
    }

    /// `agent`'s settings file of this scope.
    fn agent_settings_file(
        self,
        agent: &crate::agents::Agent,
        project: &Path,
        home: Option<&Path>,
    ) -> Result<PathBuf, UsageError> {
        let no_home = || UsageError("--scope user: HOME is not set".into());
        match (installer_of(agent).hooks_file(), self) {
            (HooksFile::ClaudeSettings, scope) => scope.settings_file(project, home).ok_or_else(no_home),
            (HooksFile::Agent(file), Scope::User) => home.map(|h| h.join(file.name)).ok_or_else(no_home),
            (HooksFile::Agent(file), Scope::Project) => Ok(project.join(file.name)),
            (HooksFile::Agent(_), Scope::Local) => Err(UsageError(format!(
                "{} has no local settings file: use --scope project or --scope user",
                agent.display_name
            ))),
        }
    }
}

/// Times an edit is tried again when another program changed the file meanwhile.
const MAX_ATTEMPTS: u32 = 100;

pub fn install_into(args: InstallIntoArgs) -> anyhow::Result<ExitCode> {
    let project = args.project.resolve_for_people()?;
    for warning in &project.warnings {
        say(format_args!("warning: {warning}"));
    }
    let home = crate::manage::home();
    let agent = crate::agents::named(&args.agent).expect("clap accepts only the agents there are");
    let installer = installer_of(agent);
    let file = args
        .scope
        .agent_settings_file(agent, &project.dir, home.as_deref())?;
    // A project's settings are edited only inside the project (a symlink there that leads out is
    // refused before the file is read); the user's own settings file is followed wherever it leads.
    let scope = match args.scope {
        Scope::User => crate::files::Scope::User,
        Scope::Project | Scope::Local => crate::files::Scope::Project(&project.dir),
    };
    let target = scope.check(&file)?;

    // The user's registration serves every project: it is made from the user's own hooks (and the
    // managed ones), never from those of the project it happens to be run in — a clone nobody
    // trusted could otherwise set every project's outer timeout, or register events that replace
    // Claude Code's own behaviour (WorktreeCreate) for all of them.
    let mut discovery = args.project.discovery(&project.dir);
    discovery.include_project &= args.scope != Scope::User;
    let set = discover(&discovery);
    let wanted = if args.remove {
        None
    } else {
        let program = match &args.program {
            Some(program) => program.clone(),
            None => default_program()?,
        };
        Some(match installer.hooks_file() {
            HooksFile::ClaudeSettings => registrations(&program, &set),
            HooksFile::Agent(file) => host_registrations(agent.name, &file, &program, &set),
        })
    };

    edit_settings(installer, &target, &file, wanted.as_deref(), args.dry_run)?;
    if !args.remove && matches!(installer.hooks_file(), HooksFile::ClaudeSettings) {
        for (event, meant) in misspelt_events(&set) {
            say(format_args!(
                "warning: hooks for `{event}` are not registered: Claude Code fires no such event; did you mean `{meant}`? (`hookbridge validate` shows where)"
            ));
        }
        warn_about_doubles(&set, &file, &project.dir, home.as_deref());
    }
    Ok(ExitCode::SUCCESS)
}

/// Register `wanted` in the settings file `target` (named `file` to people), or remove ours for
/// `None`, as `installer` edits its agent's file; with `dry_run` print the result instead. A compare-and-swap: the edit is made on the file
/// as read, and made again on the new content while another program changes it meanwhile.
fn edit_settings(
    installer: &dyn HostInstall,
    target: &Path,
    file: &Path,
    wanted: Option<&[Registration]>,
    dry_run: bool,
) -> anyhow::Result<()> {
    let mut backup = None;
    for attempt in 1..=MAX_ATTEMPTS {
        let edit = Edit::of(installer, target, file, wanted)?;
        if dry_run {
            if !edit.delete {
                std::io::stdout().lock().write_all(edit.text.as_bytes())?;
            }
            report(file, &edit.changes, edit.unchanged(), edit.delete, true);
            return Ok(());
        }
        if edit.unchanged() {
            report(file, &edit.changes, true, false, false);
            return Ok(());
        }
        if let (None, Some(old)) = (&backup, edit.original.bytes()) {
            backup = Some(crate::files::keep_backup(target, old)?);
        }
        let text = (!edit.delete).then_some(edit.text.as_bytes());
        if crate::files::replace(target, &edit.original, text)? == crate::files::Replaced::Done {
            report(file, &edit.changes, false, edit.delete, false);
            report_written(file, attempt - 1, backup.as_ref());
            return Ok(());
        }
        // Another program wrote the file since it was read: edit its new content, at once (a
        // writer's next write is furthest away just after one), then backing off a little.
        let pause = attempt.saturating_sub(3).min(10);
        std::thread::sleep(std::time::Duration::from_millis(u64::from(pause)));
    }
    anyhow::bail!(
        "{}: another program changed it {MAX_ATTEMPTS} times while hookbridge was editing it; nothing was changed, try again",
        file.display()
    )
}

/// What else a write of `file` did: edits of another program it was made again on top of, the
/// backup.
fn report_written(file: &Path, changed_meanwhile: u32, backup: Option<&crate::files::Backup>) {
    if changed_meanwhile > 0 {
        say(format_args!(
            "{}: another program changed it while hookbridge was editing it ({changed_meanwhile} time{}); its changes are kept",
            file.display(),
            if changed_meanwhile == 1 { "" } else { "s" }
        ));
    }
    match backup {
        Some(crate::files::Backup::Made(path)) => {
            say(format_args!("the previous file is kept as {}", path.display()))
        }
        Some(crate::files::Backup::Kept(path)) => say(format_args!(
            "{} (the file as it was before hookbridge first changed it) is kept as it is",
            path.display()
        )),
        None => {}
    }
}

/// One edit of a settings file: what it was read as, and what it becomes.
struct Edit {
    /// The file as read, to be checked again just before the new one replaces it.
    original: crate::files::Snapshot,
    changes: Changes,
    /// The new text.
    text: String,
    /// Removing every key we added leaves `{}`: the file goes, as it was before `install-into`.
    delete: bool,
}

impl Edit {
    /// Read `target` (named `file` to people) and register `wanted` (`None`: remove ours), as
    /// `installer` edits its agent's file.
    fn of(
        installer: &dyn HostInstall,
        target: &Path,
        file: &Path,
        wanted: Option<&[Registration]>,
    ) -> anyhow::Result<Edit> {
        let original =
            crate::files::Snapshot::take(target).with_context(|| format!("reading {}", file.display()))?;
        let read = read_settings(original.bytes(), file)?;
        let mut settings = read
            .value
            .clone()
            .unwrap_or_else(|| Value::Object(Default::default()));
        let changes = match wanted {
            None => installer.unregister(&mut settings),
            Some(wanted) => installer.register(&mut settings, wanted),
        }
        .map_err(|e| anyhow::anyhow!("{}: {e}; nothing was changed", file.display()))?;
        let delete =
            wanted.is_none() && settings.as_object().is_some_and(|o| o.is_empty()) && read.value.is_some();
        let text = render(&settings, &read);
        Ok(Edit {
            original,
            changes,
            text,
            delete,
        })
    }

    /// Only an edit rewrites the file: its formatting alone is never "fixed".
    fn unchanged(&self) -> bool {
        self.changes.is_empty()
    }
}

/// The registration for every event: Claude Code's known events (those that replace Claude Code's
/// own behaviour only when hooks for them exist), then any other event the hooks name (a newer
/// Claude Code's, say) unless it is a misspelling of a known one (see [`misspelt_events`]).
pub fn registrations(program: &str, set: &HookSet) -> Vec<Registration> {
    let mut events: Vec<EventName> = EventName::KNOWN
        .iter()
        .filter(|e| !REPLACING_EVENTS.contains(e) || set.events.get(*e).is_some_and(|g| !g.is_empty()))
        .cloned()
        .collect();
    let misspelt = misspelt_events(set);
    events.extend(
        set.events
            .keys()
            .filter(|e| !e.is_known() && !misspelt.iter().any(|(m, _)| m == *e))
            .cloned(),
    );
    events
        .into_iter()
        .map(|event| {
            let timeouts = OuterTimeouts::of(set, &event);
            Registration {
                command: format!("{program} run --event {event}"),
                timeout: timeouts.outer(|_| true).unwrap_or(timeouts.floor),
                async_timeout: timeouts
                    .outer(|h| matches!(&h.kind, HookKind::Command(c) if c.run_async && !c.async_rewake)),
                rewake_timeout: timeouts.outer(|h| matches!(&h.kind, HookKind::Command(c) if c.async_rewake)),
                per_second: 1,
                event: event.as_str().to_string(),
            }
        })
        .collect()
}

/// What `install-into <agent>` registers for a host: `<program> run --host <name> --event <its
/// event>` for each event of its hooks file, with the outer timeout of the hooks behind it in the
/// agent's unit.
fn host_registrations(name: &str, file: &AgentHooksFile, program: &str, set: &HookSet) -> Vec<Registration> {
    file.events
        .iter()
        .map(|(own, event)| {
            let timeouts = OuterTimeouts::of(set, event);
            Registration {
                command: format!("{program} run --host {name} --event {own}"),
                timeout: timeouts.outer(|_| true).unwrap_or(timeouts.floor),
                async_timeout: None,
                rewake_timeout: None,
                per_second: file.per_second,
                event: own.to_string(),
            }
        })
        .collect()
}

/// The outer timeouts of one event's registrations, in seconds: the slowest of the hooks a
/// registration runs (never less than the event's default), plus [`TIMEOUT_MARGIN_SECS`].
struct OuterTimeouts<'a> {
    hooks: Vec<&'a hookbridge_core::config::HookSpec>,
    event: &'a EventName,
    options: DispatchOptions,
    /// The outer timeout with no hook, or only faster ones.
    floor: u64,
}

impl<'a> OuterTimeouts<'a> {
    fn of(set: &'a HookSet, event: &'a EventName) -> OuterTimeouts<'a> {
        let hooks = set
            .events
            .get(event)
            .into_iter()
            .flatten()
            .flat_map(|g| &g.hooks)
            .collect();
        let floor = event
            .traits()
            .default_timeout_secs
            .saturating_add(TIMEOUT_MARGIN_SECS);
        OuterTimeouts {
            hooks,
            event,
            options: DispatchOptions::new(PathBuf::new()),
            floor,
        }
    }

    /// The outer timeout for the hooks `keep` picks (every hook, for `|_| true`), `None` when it
    /// picks none (and, for `|_| true`, when the event has no hook).
    fn outer(&self, keep: impl Fn(&hookbridge_core::config::HookSpec) -> bool) -> Option<u64> {
        let slowest = self
            .hooks
            .iter()
            .filter(|hook| keep(hook))
            .map(|hook| self.options.timeout_for(self.event, hook))
            .max()?;
        let secs = slowest.as_secs_f64().ceil() as u64;
        Some(secs.saturating_add(TIMEOUT_MARGIN_SECS).max(self.floor))
    }
}

/// The `hooks/hooks.json` of the Claude Code plugin shipped in `plugins/hookbridge/`: what
/// `install-into claude` writes with no hooks configured, `hookbridge` found on PATH.
#[cfg(test)]
fn plugin_hooks() -> Value {
    let mut hooks = serde_json::Map::new();
    for registration in registrations("hookbridge", &HookSet::default()) {
        hooks.insert(
            registration.event.clone(),
            Value::Array(vec![registration.group()]),
        );
    }
    serde_json::json!({
        "description": "hookbridge: runs the hooks in .amplifier/hooks/ (project and user) for every event",
        "hooks": hooks,
    })
}

/// `hookbridge` when PATH finds this very program under that name, else its absolute path.
fn default_program() -> anyhow::Result<String> {
    let me = std::env::current_exe().context("where this program is")?;
    let me = std::fs::canonicalize(&me).unwrap_or(me);
    let on_path = crate::preflight::find_on_path("hookbridge").and_then(|p| std::fs::canonicalize(p).ok());
    if on_path.as_deref() == Some(me.as_path()) {
        return Ok("hookbridge".into());
    }
    let path = me
        .to_str()
        .ok_or_else(|| anyhow::anyhow!("{} is not UTF-8: pass --program", me.display()))?;
    Ok(shell_quote(path))
}

/// `word` as one POSIX shell word.
pub(crate) fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+@%:,=".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// A settings file as found: its text and parsed value, `None` when it does not exist (an empty
/// file counts as `{}`).
struct Original {
    text: Option<String>,
    value: Option<Value>,
}

/// `bytes`, the content of `file` (`None`: no file), as settings.
fn read_settings(bytes: Option<&[u8]>, file: &Path) -> anyhow::Result<Original> {
    let Some(bytes) = bytes else {
        return Ok(Original {
            text: None,
            value: None,
        });
    };
    let text = String::from_utf8(bytes.to_vec())
        .map_err(|e| anyhow::anyhow!("{}: not UTF-8 ({e}); nothing was changed", file.display()))?;
    let value = if text.trim().is_empty() {
        Value::Object(Default::default())
    } else {
        crate::files::parse_json(&text, file).map_err(|e| anyhow::anyhow!("{e:#}; nothing was changed"))?
    };
    Ok(Original {
        text: Some(text),
        value: Some(value),
    })
}

/// `settings` as text, indented as the original was (two spaces for a new file) and ending with a
/// newline if it did.
fn render(settings: &Value, original: &Original) -> String {
    let indent = original.text.as_deref().map(detect_indent).unwrap_or("  ".into());
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(settings, &mut serializer).expect("a Value always serializes");
    let mut text = String::from_utf8(out).expect("serde_json writes UTF-8");
    if original
        .text
        .as_deref()
        .is_none_or(|t| t.ends_with('\n') || t.trim().is_empty())
    {
        text.push('\n');
    }
    text
}

/// The indentation of the first indented line (two spaces if none is).
fn detect_indent(text: &str) -> String {
    text.lines()
        .skip(1)
        .map(|line| &line[..line.len() - line.trim_start_matches([' ', '\t']).len()])
        .find(|indent| !indent.is_empty())
        .unwrap_or("  ")
        .to_string()
}

fn report(file: &Path, changes: &Changes, unchanged: bool, delete: bool, dry_run: bool) {
    let file = file.display();
    // "hookbridge registered for …", or with --dry-run "hookbridge would be registered for …".
    let verb = if dry_run { "would be " } else { "" };
    let list = |events: &[String]| events.join(", ");
    if unchanged {
        let count = changes.unchanged.len();
        say(format_args!(
            "{file}: already up to date ({count} event{} registered); nothing {} changed",
            if count == 1 { "" } else { "s" },
            if dry_run { "would be" } else { "was" }
        ));
        return;
    }
    if !changes.added.is_empty() {
        say(format_args!(
            "{file}: hookbridge {verb}registered for {} events: {}",
            changes.added.len(),
            list(&changes.added)
        ));
    }
    if !changes.updated.is_empty() {
        say(format_args!(
            "{file}: registration {verb}updated (command or timeout) for {}",
            list(&changes.updated)
        ));
    }
    if !changes.removed.is_empty() {
        say(format_args!(
            "{file}: hookbridge {verb}removed from {}",
            list(&changes.removed)
        ));
    }
    if delete {
        say(format_args!(
            "{file}: nothing else is left in it: {}",
            if dry_run { "it would be deleted" } else { "deleted" }
        ));
    }
}

/// Hooks that Claude Code runs itself (from any of its settings files) and hookbridge runs as well
/// run twice; so does hookbridge registered in two scopes.
/// The unknown events of `set` that are a known event misspelt (`PreToolUs`), each with the event
/// meant: registering one would only earn a settings warning in Claude Code.
fn misspelt_events(set: &HookSet) -> Vec<(EventName, &'static str)> {
    set.events
        .keys()
        .filter(|e| !e.is_known())
        .filter_map(|e| {
            let known = EventName::KNOWN.iter().map(EventName::as_str);
            hookbridge_core::diagnostics::closest(e.as_str(), known).map(|meant| (e.clone(), meant))
        })
        .collect()
}

fn warn_about_doubles(set: &HookSet, target: &Path, project: &Path, home: Option<&Path>) {
    for other in Scope::ALL {
        let Some(file) = other.settings_file(project, home) else {
            continue;
        };
        let is_target = file == target;
        if !is_target
            && Scope::ALL
                .iter()
                .take_while(|s| **s != other)
                .any(|s| s.settings_file(project, home).as_ref() == Some(&file))
        {
            continue; // HOME is the project: one file, two scopes.
        }
        let Ok(Some(text)) = crate::files::read_if_exists(&file) else {
            continue;
        };
        let Ok(Original {
            value: Some(settings),
            ..
        }) = read_settings(Some(text.as_bytes()), &file)
        else {
            continue;
        };
        if !is_target && !claude_settings::registered_events(&settings).is_empty() {
            say(format_args!(
                "warning: {} registers hookbridge too: every event would dispatch twice; remove one with `hookbridge install-into claude --scope {} --remove`",
                file.display(),
                match other {
                    Scope::User => "user",
                    Scope::Project => "project",
                    Scope::Local => "local",
                }
            ));
        }
        if is_target {
            for (event, command) in claude_settings::hand_written_runs(&settings) {
                say(format_args!(
                    "note: `{}` ({event}) in {} is a `hookbridge run` of your own (its arguments are not a registration's): it is kept, and runs beside hookbridge's registration",
                    crate::shown::field(&command),
                    file.display()
                ));
            }
        }
        for (event, command) in claude_settings::other_commands(&settings) {
            let behind = set.hooks().find(|(e, _, hook)| {
                e.as_str() == event
                    && matches!(&hook.kind, HookKind::Command(c) if c.command.trim() == command.trim())
            });
            if let Some((_, _, hook)) = behind {
                say(format_args!(
                    "warning: `{command}` ({event}) is in {} and in {}:{}:{}: it would run twice; keep it in one place",
                    file.display(),
                    hook.source.path.display(),
                    hook.position.line,
                    hook.position.column
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::claude_settings::ShapeError;
    use super::*;

    /// `plugins/hookbridge/hooks/hooks.json` is generated: `HOOKBRIDGE_BLESS=1` rewrites it.
    #[test]
    fn the_shipped_plugin_registers_what_install_into_writes() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins/hookbridge/hooks/hooks.json");
        let expected = serde_json::to_string_pretty(&plugin_hooks()).unwrap() + "\n";
        if std::env::var_os("HOOKBRIDGE_BLESS").is_some() {
            std::fs::write(&path, &expected).unwrap();
        }
        let shipped = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            shipped == expected,
            "{} is stale: HOOKBRIDGE_BLESS=1 cargo test -p hookbridge-cli shipped_plugin",
            path.display()
        );
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let manifest: Value = serde_json::from_str(
            &std::fs::read_to_string(root.join("plugins/hookbridge/.claude-plugin/plugin.json")).unwrap(),
        )
        .unwrap();
        let marketplace: Value = serde_json::from_str(
            &std::fs::read_to_string(root.join(".claude-plugin/marketplace.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(manifest["version"], env!("CARGO_PKG_VERSION"));
        assert_eq!(marketplace["plugins"][0]["version"], env!("CARGO_PKG_VERSION"));
        assert_eq!(marketplace["plugins"][0]["source"], "./plugins/hookbridge");
    }

    #[test]
    fn indentation_and_quoting() {
        assert_eq!(detect_indent("{\n    \"a\": 1\n}\n"), "    ");
        assert_eq!(detect_indent("{\n\t\"a\": 1\n}"), "\t");
        assert_eq!(detect_indent("{}"), "  ");
        assert_eq!(shell_quote("/usr/bin/hookbridge"), "/usr/bin/hookbridge");
        assert_eq!(shell_quote("/a b/it's"), r"'/a b/it'\''s'");
    }

    /// A hooks file that is not Claude Code's shape (here Cursor's: `version`, then flat entries
    /// per event) is edited by its host's own `register` and `unregister`: reading, rendering and
    /// the edit's report assume no shape.
    struct FlatFile;

    impl HostInstall for FlatFile {
        fn hooks_file(&self) -> HooksFile {
            HooksFile::Agent(AgentHooksFile {
                name: ".flat/hooks.json",
                events: vec![("beforeShellExecution", EventName::PreToolUse)],
                per_second: 1,
            })
        }

        fn register(&self, file: &mut Value, wanted: &[Registration]) -> Result<Changes, ShapeError> {
            let file = file.as_object_mut().ok_or(ShapeError::NotAnObject)?;
            file.insert("version".into(), 1.into());
            let hooks = file.entry("hooks").or_insert_with(|| serde_json::json!({}));
            let hooks = hooks.as_object_mut().ok_or(ShapeError::HooksNotAnObject)?;
            let mut changes = Changes::default();
            for registration in wanted {
                let entries = hooks
                    .entry(registration.event.clone())
                    .or_insert_with(|| serde_json::json!([]));
                let entries = entries
                    .as_array_mut()
                    .ok_or_else(|| ShapeError::EventNotAList(registration.event.clone()))?;
                entries.push(serde_json::json!({"command": registration.command}));
                changes.added.push(registration.event.clone());
            }
            Ok(changes)
        }

        fn unregister(&self, file: &mut Value) -> Result<Changes, ShapeError> {
            let mut changes = Changes::default();
            let hooks = file.get_mut("hooks").and_then(Value::as_object_mut);
            for (event, entries) in hooks.into_iter().flatten() {
                let Some(entries) = entries.as_array_mut() else {
                    continue;
                };
                let before = entries.len();
                entries.retain(|e| {
                    !e["command"]
                        .as_str()
                        .is_some_and(|c| c.contains(" run --host flat "))
                });
                if entries.len() < before {
                    changes.removed.push(event.clone());
                }
            }
            Ok(changes)
        }
    }

    #[test]
    fn a_hooks_file_of_another_shape_is_edited_by_its_hosts_install() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("hooks.json");
        std::fs::write(
            &target,
            "{\n    \"version\": 1,\n    \"hooks\": {\"stop\": [{\"command\": \"./mine.sh\"}]}\n}\n",
        )
        .unwrap();
        let HooksFile::Agent(file) = FlatFile.hooks_file() else {
            unreachable!()
        };
        let wanted = host_registrations("flat", &file, "hookbridge", &HookSet::default());
        let edit = Edit::of(&FlatFile, &target, &target, Some(&wanted)).unwrap();
        assert_eq!(edit.changes.added, ["beforeShellExecution"]);
        let written: Value = serde_json::from_str(&edit.text).unwrap();
        assert_eq!(
            written,
            serde_json::json!({"version": 1, "hooks": {
                "stop": [{"command": "./mine.sh"}],
                "beforeShellExecution": [{"command": "hookbridge run --host flat --event beforeShellExecution"}],
            }})
        );
        assert!(
            edit.text.starts_with("{\n    \"version\""),
            "the file's indentation is kept: {}",
            edit.text
        );

        std::fs::write(&target, &edit.text).unwrap();
        let removal = Edit::of(&FlatFile, &target, &target, None).unwrap();
        assert_eq!(removal.changes.removed, ["beforeShellExecution"]);
        let left: Value = serde_json::from_str(&removal.text).unwrap();
        assert_eq!(
            left["hooks"]["stop"],
            serde_json::json!([{"command": "./mine.sh"}])
        );
        assert_eq!(left["hooks"]["beforeShellExecution"], serde_json::json!([]));
    }

    #[test]
    fn every_known_event_but_the_replacing_ones_with_a_timeout_above_the_slowest_hook() {
        let set = HookSet::default();
        let all = registrations("hookbridge", &set);
        assert_eq!(all.len(), EventName::KNOWN.len() - REPLACING_EVENTS.len());
        assert!(!all.iter().any(|r| r.event == "WorktreeCreate"));
        let stop = all.iter().find(|r| r.event == "Stop").unwrap();
        assert_eq!(stop.command, "hookbridge run --event Stop");
        assert_eq!(stop.timeout, 600 + TIMEOUT_MARGIN_SECS);
        let prompt = all.iter().find(|r| r.event == "UserPromptSubmit").unwrap();
        assert_eq!(prompt.timeout, 30 + TIMEOUT_MARGIN_SECS);
    }

    /// Every registered command caps its hooks at its own outer timeout less the margin, in
    /// seconds whatever the agent's unit, so hookbridge answers before the agent stops it.
    #[test]
    fn each_registered_command_caps_its_hooks_below_its_outer_timeout() {
        let stop = Registration {
            async_timeout: Some(65),
            rewake_timeout: Some(905),
            ..registrations("hb", &HookSet::default())
                .into_iter()
                .find(|r| r.event == "Stop")
                .unwrap()
        };
        let group = stop.group();
        let entries: Vec<(&str, u64)> = group["hooks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| (h["command"].as_str().unwrap(), h["timeout"].as_u64().unwrap()))
            .collect();
        assert_eq!(
            entries,
            [
                (
                    "hb run --event Stop --max-timeout 600 --async-hooks skip --async-rewake-hooks skip",
                    605
                ),
                ("hb run --event Stop --max-timeout 60 --async-hooks only", 65),
                (
                    "hb run --event Stop --max-timeout 900 --async-rewake-hooks only",
                    905
                ),
            ]
        );
        let gemini = Registration {
            command: "hb run --host gemini --event BeforeTool".into(),
            event: "BeforeTool".into(),
            per_second: 1000,
            ..stop
        };
        let group = gemini.group();
        assert_eq!(group["hooks"][0]["timeout"], 605_000);
        assert!(group["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .starts_with("hb run --host gemini --event BeforeTool --max-timeout 600 "));
        for entry in group["hooks"].as_array().unwrap() {
            let command = entry["command"].as_str().unwrap();
            assert!(
                claude_settings::is_hookbridge_run(command, "BeforeTool"),
                "{command}"
            );
        }
    }
}
