//! Managing what is in a hooks directory: `install` / `uninstall` a plugin (`plugins.rs`),
//! `enable` / `disable` a plugin or one hook (`toggle.rs`), and the plugin catalogs `install`
//! resolves `plugin@marketplace` against (`marketplace.rs`).
//!
//! Every command works on one hooks directory — the project's `.amplifier/hooks/`, or with
//! `--user` `~/.amplifier/hooks/` — and leaves the hooks' own files as their authors wrote them:
//! a plugin is copied in unmodified, and what is switched off is recorded beside it in
//! `hookbridge-state.json`, which discovery reads. The one decision: the directory is a scope.
//! A project's hooks directory is written only where it really lies inside the project (a
//! repository's `.amplifier/hooks` symlinked to `~/.amplifier/hooks` would otherwise turn its
//! hooks into the user's, run in every project), and a plugin is never named after a file
//! discovery reads there (`hooks.json`, `hooks.yaml`, `hookbridge-state.json`, …): installing or
//! removing it would replace the user's own hooks or the disabled list.

pub mod marketplace;
pub mod plugins;
pub mod toggle;

use std::path::{Path, PathBuf};

use clap::Args;
use hookbridge_core::config::{discover, HookSet, HOOKS_DIR_FILES, HOOKS_DIR_NAME};

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
    /// Whose files this directory's are: the project's (writes must stay inside it) or the
    /// user's.
    pub fn scope(&self) -> crate::files::Scope<'_> {
        if self.project.no_project_hooks {
            crate::files::Scope::User
        } else {
            crate::files::Scope::Project(&self.project_dir)
        }
    }

    /// The hooks directory itself, checked to lie in its scope: where plugins are written.
    pub fn writable(&self) -> anyhow::Result<PathBuf> {
        Ok(self.scope().check(&self.dir)?)
    }

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

/// Your home directory ([`hookbridge_runner::home::user_home`]), if there is one.
pub fn home() -> Option<PathBuf> {
    hookbridge_runner::home::user_home()
}

/// A name usable as a folder name (a plugin's, a marketplace's).
pub fn check_folder_name(name: &str) -> Result<(), UsageError> {
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

/// A plugin name usable as a folder name in a hooks directory: a folder name, and none of the
/// files discovery reads there (in any case: some file systems do not tell `Hooks.json` apart).
pub fn check_plugin_name(name: &str) -> Result<(), UsageError> {
    check_folder_name(name)?;
    if HOOKS_DIR_FILES.iter().any(|file| file.eq_ignore_ascii_case(name)) {
        return Err(UsageError(format!(
            "`{name}` cannot be a plugin name: hookbridge reads a file of that name in the hooks directory ({}), which the plugin's folder would replace; pass another --name",
            HOOKS_DIR_FILES.join(", ")
        )));
    }
    Ok(())
}

/// Whether `path`, read from the folder `base` of a tree (`base` relative to the tree's root),
/// stays inside the tree: relative, and no `..` climbing above the root. Lexical: a symlink on
/// the way is checked where the tree is resolved.
pub fn stays_inside(base: &Path, path: &Path) -> bool {
    use std::path::Component;
    let mut depth = base.components().count();
    for part in path.components() {
        match part {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir if depth > 0 => depth -= 1,
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_files_discovery_reads_are_no_plugin_names() {
        for name in [
            "hooks.json",
            "hooks.yaml",
            "hooks.yml",
            "hookbridge-state.json",
            "HOOKS.JSON",
        ] {
            let err = check_plugin_name(name).unwrap_err().0;
            assert!(err.contains("reads a file of that name"), "{name}: {err}");
            assert!(check_folder_name(name).is_ok(), "{name}");
        }
        for name in ["", ".hidden", "a/b", "..", "."] {
            assert!(check_plugin_name(name).is_err(), "{name}");
        }
        assert!(check_plugin_name("hooks.json-guard").is_ok());
    }

    #[test]
    fn paths_stay_inside_unless_they_climb_out() {
        let root = Path::new("");
        for (base, path, inside) in [
            (root, "plugins/x", true),
            (root, "./a/../b", true),
            (root, "../x", false),
            (root, "a/../../x", false),
            (root, "/etc", false),
            (Path::new("scripts"), "../hooks/hooks.json", true),
            (Path::new("scripts"), "../../x", false),
        ] {
            assert_eq!(stays_inside(base, Path::new(path)), inside, "{base:?} {path}");
        }
    }
}
