//! `hookbridge-state.json`: what the user switched off in one hooks directory.
//!
//! `hookbridge disable` writes it and discovery reads it, beside the hooks it concerns
//! (`<hooks dir>/hookbridge-state.json`), so the hooks' own files stay as their authors wrote them
//! — a plugin stays unmodified and can be updated in place. A disabled plugin or hook still loads:
//! it is listed, marked disabled, and every event it would have reached reports it as skipped
//! (nothing is skipped silently). A name that matches nothing is a warning with a "did you mean".
//!
//! ```json
//! { "disabledPlugins": ["formatter"],
//!   "disabledHooks": [{"event": "PreToolUse", "hook": "./guard.sh"}] }
//! ```
//! A hook is named by its event and its label (the command, URL, prompt or MCP tool as written),
//! optionally with the plugin it belongs to (`"plugin": "formatter"`).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::diagnostics::{did_you_mean, Diagnostic, Position};

use super::model::{Disabled, HookSet};

/// The file's name inside a hooks directory.
pub const STATE_FILE_NAME: &str = "hookbridge-state.json";

/// The content of one `hookbridge-state.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HooksDirState {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disabled_plugins: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disabled_hooks: Vec<HookRef>,
}

/// One hook, by event and label (and plugin, when given).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookRef {
    pub event: String,
    pub hook: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
}

impl HookRef {
    /// Whether `hook` of `event` is the one named.
    pub fn names(&self, event: &str, hook: &super::HookSpec) -> bool {
        self.event == event
            && self.hook == hook.kind.label()
            && self
                .plugin
                .as_ref()
                .is_none_or(|p| hook.source.plugin.as_ref().is_some_and(|own| &own.name == p))
    }
}

impl HooksDirState {
    /// Parse the file's text; an error names the line and column.
    pub fn parse(text: &str, path: &Path) -> Result<HooksDirState, Diagnostic> {
        if text.trim().is_empty() {
            return Ok(HooksDirState::default());
        }
        serde_json::from_str(text).map_err(|e| {
            let mut d = Diagnostic::error(format!("{e}; nothing in it is applied, every hook here runs"))
                .in_file(path);
            d.position = Some(Position {
                line: e.line(),
                column: e.column(),
            });
            d
        })
    }

    /// The file's text, as `hookbridge disable` writes it.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("plain data") + "\n"
    }

    pub fn is_empty(&self) -> bool {
        self.disabled_plugins.is_empty() && self.disabled_hooks.is_empty()
    }

    /// Mark the hooks of `hooks_dir` in `set` that this state disables; a name that matches
    /// nothing there becomes a warning.
    pub fn apply(&self, set: &mut HookSet, hooks_dir: &Path, state_file: &Path) {
        let mut plugins_seen = vec![false; self.disabled_plugins.len()];
        let mut hooks_seen = vec![false; self.disabled_hooks.len()];
        let mut plugin_names: Vec<String> = Vec::new();
        for (event, groups) in &mut set.events {
            for hook in groups.iter_mut().flat_map(|g| g.hooks.iter_mut()) {
                if hook.source.hooks_dir != hooks_dir {
                    continue;
                }
                let plugin = hook.source.plugin.as_ref().map(|p| p.name.clone());
                if let Some(name) = &plugin {
                    if !plugin_names.contains(name) {
                        plugin_names.push(name.clone());
                    }
                }
                let by_plugin = plugin
                    .as_ref()
                    .and_then(|name| self.disabled_plugins.iter().position(|p| p == name));
                let by_hook = self
                    .disabled_hooks
                    .iter()
                    .position(|r| r.names(event.as_str(), hook));
                if let Some(i) = by_plugin {
                    plugins_seen[i] = true;
                }
                if let Some(i) = by_hook {
                    hooks_seen[i] = true;
                }
                if by_plugin.is_some() || by_hook.is_some() {
                    hook.disabled = Some(Disabled {
                        state_file: state_file.to_path_buf(),
                        plugin: by_plugin.and(plugin),
                    });
                }
            }
        }
        for (name, _) in self
            .disabled_plugins
            .iter()
            .zip(plugins_seen)
            .filter(|(_, seen)| !seen)
        {
            let hint = did_you_mean(name, plugin_names.iter().map(String::as_str));
            set.diagnostics.push(
                Diagnostic::warning(format!(
                    "disables plugin `{name}`, which has no hooks in {}{hint}",
                    hooks_dir.display()
                ))
                .in_file(state_file),
            );
        }
        for (r, _) in self
            .disabled_hooks
            .iter()
            .zip(hooks_seen)
            .filter(|(_, seen)| !seen)
        {
            set.diagnostics.push(
                Diagnostic::warning(format!(
                    "disables the {} hook `{}`, which is not in {}",
                    r.event,
                    r.hook,
                    hooks_dir.display()
                ))
                .in_file(state_file),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_round_trips_and_bad_text_names_its_position() {
        let state = HooksDirState {
            disabled_plugins: vec!["fmt".into()],
            disabled_hooks: vec![HookRef {
                event: "PreToolUse".into(),
                hook: "./g.sh".into(),
                plugin: None,
            }],
        };
        let path = Path::new("/h/hookbridge-state.json");
        assert_eq!(HooksDirState::parse(&state.to_json(), path), Ok(state));
        assert_eq!(HooksDirState::parse("  \n", path), Ok(HooksDirState::default()));
        let err = HooksDirState::parse("{\n  \"disabledPlugin\": []\n}", path).unwrap_err();
        assert_eq!(err.position.map(|p| p.line), Some(2));
        assert!(err.message.contains("disabledPlugin"), "{err}");
        assert_eq!(HooksDirState::default().to_json(), "{}\n");
    }
}
