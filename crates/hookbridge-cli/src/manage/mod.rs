//! Managing what is in a hooks directory: `install` / `uninstall` a plugin (`plugins.rs`),
//! `enable` / `disable` a plugin or one hook (`toggle.rs`), and the plugin catalogs `install`
//! resolves `plugin@marketplace` against (`marketplace.rs`).
//!
//! Every command works on one hooks directory — the project's `.amplifier/hooks/`, or with
//! `--user` `~/.amplifier/hooks/` — and leaves the hooks' own files as their authors wrote them:
//! a plugin is copied in unmodified, and what is switched off is recorded beside it in
//! `hookbridge-state.json`, which discovery reads.

pub mod marketplace;
pub mod plugins;
pub mod toggle;

use std::path::{Path, PathBuf};

use clap::Args;
use hookbridge_core::config::{discover, HookSet, HOOKS_DIR_NAME};

use crate::{say, ProjectArgs, UsageError};

/// Which hooks directory a management command works on.
#[derive(Args, Debug, Clone)]
pub struct HooksDirArgs {
    /// Work on `~/.amplifier/hooks/` (yours, for every project) instead of the project's.
    #[arg(long)]
    pub user: bool,
    /// The project whose `.amplifier/hooks/` to use. Default: $AMPLIFIER_PROJECT_DIR, else
    /// $CLAUDE_PROJECT_DIR, else the current directory.
    #[arg(long, value_name = "DIR")]
    pub project_dir: Option<PathBuf>,
}

/// One resolved hooks directory, and how to load just its hooks.
pub struct HooksDir {
    pub dir: PathBuf,
    project: ProjectArgs,
    pub project_dir: PathBuf,
}

impl HooksDirArgs {
    pub fn resolve(&self) -> anyhow::Result<HooksDir> {
        let project = ProjectArgs {
            project_dir: self.project_dir.clone(),
            no_user_hooks: !self.user,
            no_project_hooks: self.user,
        };
        let resolved = project.resolve_for_people()?;
        for warning in &resolved.warnings {
            say(format_args!("warning: {warning}"));
        }
        let dir = if self.user {
            home()
                .ok_or_else(|| UsageError("--user: HOME is not set".into()))?
                .join(HOOKS_DIR_NAME)
        } else {
            resolved.dir.join(HOOKS_DIR_NAME)
        };
        Ok(HooksDir {
            dir,
            project,
            project_dir: resolved.dir,
        })
    }
}

impl HooksDir {
    /// The hooks of this directory alone, as `run` would load them.
    pub fn load(&self) -> HookSet {
        discover(&self.project.discovery(&self.project_dir))
    }

    /// The plugin folders here, by name.
    pub fn plugin_names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .filter(|e| e.path().is_dir())
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| !n.starts_with('.'))
            .collect();
        names.sort();
        names
    }
}

/// The absolute home directory, if there is one.
pub fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .and_then(|h| std::path::absolute(h).ok())
}

/// A plugin name usable as a folder name in a hooks directory.
pub fn check_plugin_name(name: &str) -> Result<(), UsageError> {
    let bad = name.is_empty()
        || name.starts_with('.')
        || name.contains(['/', '\\', '\0'])
        || Path::new(name).components().count() != 1;
    if bad {
        Err(UsageError(format!(
            "`{name}` cannot be a plugin name (a folder name: not empty, no `/`, not starting with `.`); pass --name"
        )))
    } else {
        Ok(())
    }
}
