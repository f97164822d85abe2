//! `hookbridge enable` / `hookbridge disable`: switch a plugin or one hook off and on again,
//! recorded in the hooks directory's `hookbridge-state.json` (see `hookbridge_core::config`'s
//! `state` module). The target must exist: a typo is an error with a "did you mean", never a
//! silent no-op.

use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use hookbridge_core::config::{HookRef, HookSet, HooksDirState, STATE_FILE_NAME};
use hookbridge_core::diagnostics::did_you_mean;

use super::{HooksDir, HooksDirArgs};
use crate::{say, UsageError};

#[derive(Args, Debug)]
pub struct ToggleArgs {
    /// A plugin (its folder name in the hooks directory), or one hook as `EVENT:LABEL`, the label
    /// being its command, URL, prompt or tool as `hookbridge list` shows it
    /// (`PreToolUse:./guard.sh`).
    target: String,
    #[command(flatten)]
    dir: HooksDirArgs,
}

/// What a target names.
enum Target {
    Plugin(String),
    Hook(HookRef),
}

pub fn disable(args: ToggleArgs) -> anyhow::Result<ExitCode> {
    toggle(args, false)
}

pub fn enable(args: ToggleArgs) -> anyhow::Result<ExitCode> {
    toggle(args, true)
}

fn toggle(args: ToggleArgs, enable: bool) -> anyhow::Result<ExitCode> {
    let dir = args.dir.resolve()?;
    let path = dir.dir.join(STATE_FILE_NAME);
    let mut state = match crate::files::read_if_exists(&path)? {
        Some(text) => HooksDirState::parse(&text, &path).map_err(|d| anyhow::anyhow!("{d}"))?,
        None => HooksDirState::default(),
    };
    let set = dir.load();
    let target = find_target(&args.target, &dir, &set, &state, enable)?;
    let changed = match &target {
        Target::Plugin(name) if enable => remove(&mut state.disabled_plugins, name),
        Target::Plugin(name) => add(&mut state.disabled_plugins, name.clone()),
        Target::Hook(hook) if enable => remove(&mut state.disabled_hooks, hook),
        Target::Hook(hook) => add(&mut state.disabled_hooks, hook.clone()),
    };
    let what = match &target {
        Target::Plugin(name) => format!("plugin `{name}`"),
        Target::Hook(hook) => format!("the {} hook `{}`", hook.event, hook.hook),
    };
    let state_word = if enable { "enabled" } else { "disabled" };
    if !changed {
        say(format_args!("{what} is already {state_word}; nothing changed"));
        return Ok(ExitCode::SUCCESS);
    }
    if state.is_empty() {
        // The state file itself goes (a symlink: the link), once it is seen to be in scope.
        dir.scope().check(&path)?;
        std::fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
    } else {
        crate::files::write_atomically(&path, &state.to_json(), dir.scope())?;
    }
    say(format_args!("{what} {state_word} ({})", path.display()));
    Ok(ExitCode::SUCCESS)
}

fn add<T: PartialEq>(list: &mut Vec<T>, item: T) -> bool {
    if list.contains(&item) {
        return false;
    }
    list.push(item);
    true
}

fn remove<T: PartialEq>(list: &mut Vec<T>, item: &T) -> bool {
    let before = list.len();
    list.retain(|x| x != item);
    list.len() != before
}

/// The plugin or hook `text` names in `dir`. Enabling also accepts what the state file names
/// even if it is gone from the directory (so a stale entry can be cleaned up).
fn find_target(
    text: &str,
    dir: &HooksDir,
    set: &HookSet,
    state: &HooksDirState,
    enable: bool,
) -> Result<Target, UsageError> {
    if let Some((event, label)) = text.split_once(':') {
        let hook = HookRef {
            event: event.to_string(),
            hook: label.to_string(),
            plugin: None,
        };
        let exists = set.hooks().any(|(e, _, h)| hook.names(e.as_str(), h));
        if exists || (enable && state.disabled_hooks.contains(&hook)) {
            return Ok(Target::Hook(hook));
        }
        let labels: Vec<String> = set
            .hooks()
            .map(|(e, _, h)| format!("{e}:{}", h.kind.label()))
            .collect();
        return Err(UsageError(format!(
            "no {event} hook `{label}` in {}{}",
            dir.dir.display(),
            did_you_mean(text, labels.iter().map(String::as_str))
        )));
    }
    let plugins = dir.plugin_names();
    if plugins.iter().any(|p| p == text) || (enable && state.disabled_plugins.iter().any(|p| p == text)) {
        return Ok(Target::Plugin(text.to_string()));
    }
    Err(UsageError(format!(
        "no plugin `{text}` in {}{} (a hook is named `EVENT:LABEL`, as `hookbridge list` shows it)",
        dir.dir.display(),
        did_you_mean(text, plugins.iter().map(String::as_str))
    )))
}
