//! Finding hook configs on disk, in one documented, deterministic order.
//!
//! For each hooks directory — the project's `<project>/.amplifier/hooks/`, then the user's
//! `~/.amplifier/hooks/` — hookbridge reads:
//! 1. `hooks.json` in the directory itself;
//! 2. each subfolder, in byte order of its name (folders starting with `.` are skipped), as a plugin:
//!    - a Claude Code plugin (`.claude-plugin/plugin.json`): its `hooks/hooks.json`, then the
//!      manifest's `hooks` field (a path, a list of paths, or inline hooks) — both load, as in
//!      Claude Code;
//!    - otherwise `<name>/hooks.json` (the Amplifier layout), else `<name>/hooks/hooks.json` (a
//!      plugin without a manifest).
//!
//! All configs merge by concatenation per event. Discovery reads files only; it never runs anything.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diagnostics::Diagnostic;

use super::model::{ConfigSource, HookSet, Plugin, Scope};
use super::parse::{parse_hooks_file, Placeholders};

/// The folder under a project (and under the home directory) that holds hooks.
pub const HOOKS_DIR_NAME: &str = ".amplifier/hooks";

/// Where to look.
#[derive(Debug, Clone)]
pub struct DiscoveryOptions {
    pub project_dir: PathBuf,
    /// `~/.amplifier/hooks`, or `None` when there is no home directory.
    pub user_hooks_dir: Option<PathBuf>,
    pub include_project: bool,
    pub include_user: bool,
    /// Parent of each plugin's `${CLAUDE_PLUGIN_DATA}` folder (`~/.amplifier/plugin-data`).
    pub plugin_data_root: PathBuf,
}

impl DiscoveryOptions {
    /// The defaults for a project: project and user hooks, user paths under `home`.
    pub fn new(project_dir: impl Into<PathBuf>, home: Option<&Path>) -> DiscoveryOptions {
        let project_dir = project_dir.into();
        let amplifier_home = home.map(|h| h.join(".amplifier"));
        DiscoveryOptions {
            user_hooks_dir: amplifier_home.as_ref().map(|a| a.join("hooks")),
            plugin_data_root: amplifier_home
                .map(|a| a.join("plugin-data"))
                .unwrap_or_else(|| project_dir.join(".amplifier").join("plugin-data")),
            project_dir,
            include_project: true,
            include_user: true,
        }
    }

    pub fn project_hooks_dir(&self) -> PathBuf {
        self.project_dir.join(HOOKS_DIR_NAME)
    }
}

/// Load every config for a project. Problems become diagnostics in the returned set.
pub fn discover(options: &DiscoveryOptions) -> HookSet {
    let mut set = HookSet::default();
    let project_hooks = options.project_hooks_dir();
    let mut dirs = Vec::new();
    if options.include_project {
        dirs.push((project_hooks.clone(), Scope::Project));
    }
    if options.include_user {
        if let Some(user) = &options.user_hooks_dir {
            // A project opened in the home directory must not load the same files twice.
            let same = same_existing_path(user, &project_hooks);
            if !(same && options.include_project) {
                dirs.push((user.clone(), Scope::User));
            }
        }
    }
    for (dir, scope) in dirs {
        load_hooks_dir(&mut set, options, &dir, scope);
    }
    set
}

fn load_hooks_dir(set: &mut HookSet, options: &DiscoveryOptions, dir: &Path, scope: Scope) {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
        Err(e) => {
            set.diagnostics
                .push(Diagnostic::error(format!("cannot read the hooks directory: {e}")).in_file(dir));
            return;
        }
    };
    let root_file = dir.join("hooks.json");
    if root_file.is_file() {
        load_file(set, options, &root_file, dir, scope, None);
    }
    // Plugin folders in name order. The entry's own type says "directory" without a stat; only a
    // symlink needs one (to see whether it leads to a directory).
    let mut subdirs: Vec<(std::ffi::OsString, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter(|e| !e.file_name().as_encoded_bytes().starts_with(b"."))
        .filter(|e| match e.file_type() {
            Ok(t) if t.is_dir() => true,
            Ok(t) if t.is_symlink() => e.path().is_dir(),
            _ => false,
        })
        .map(|e| (e.file_name(), e.path()))
        .collect();
    subdirs.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    for (_, plugin_dir) in subdirs {
        load_plugin(set, options, dir, &plugin_dir, scope);
    }
}

fn load_plugin(
    set: &mut HookSet,
    options: &DiscoveryOptions,
    hooks_dir: &Path,
    plugin_dir: &Path,
    scope: Scope,
) {
    let dir_name = plugin_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let manifest_path = plugin_dir.join(".claude-plugin").join("plugin.json");
    let manifest = match read_if_file(&manifest_path) {
        Ok(text) => text,
        Err(e) => {
            set.diagnostics.push(
                Diagnostic::error(format!("cannot read the plugin manifest: {e}")).in_file(&manifest_path),
            );
            None
        }
    };
    let manifest_value: Option<serde_json::Value> =
        manifest.as_deref().and_then(|t| serde_json::from_str(t).ok());
    let name = manifest_value
        .as_ref()
        .and_then(|v| v.get("name"))
        .and_then(|n| n.as_str())
        .map(str::to_string)
        .unwrap_or_else(|| dir_name.clone());
    let plugin = Plugin {
        data_dir: options.plugin_data_root.join(sanitize(&name)),
        name,
        root: plugin_dir.to_path_buf(),
    };
    // The plugin's hooks file: `hooks/hooks.json` for a Claude Code plugin; for an Amplifier folder
    // `<name>/hooks.json`, else `<name>/hooks/hooks.json`. Probed by opening, not stat + open.
    let candidates: &[&[&str]] = if manifest.is_some() {
        &[&["hooks", "hooks.json"]]
    } else {
        &[&["hooks.json"], &["hooks", "hooks.json"]]
    };
    let mut files: Vec<PathBuf> = Vec::new();
    for parts in candidates {
        let file = parts
            .iter()
            .fold(plugin_dir.to_path_buf(), |p, part| p.join(part));
        match read_if_file(&file) {
            Ok(None) => continue,
            Ok(Some(text)) => load_text(set, options, &text, &file, hooks_dir, scope, Some(plugin.clone())),
            Err(e) => set
                .diagnostics
                .push(Diagnostic::error(format!("cannot read: {e}")).in_file(&file)),
        }
        files.push(file);
        break;
    }
    let Some(text) = manifest else { return };
    let Some(value) = manifest_value else {
        // Report the syntax error with its position through the normal parser.
        load_text(
            set,
            options,
            &text,
            &manifest_path,
            hooks_dir,
            scope,
            Some(plugin),
        );
        return;
    };
    match value.get("hooks") {
        None => {}
        Some(serde_json::Value::Object(_)) => {
            load_text(
                set,
                options,
                &text,
                &manifest_path,
                hooks_dir,
                scope,
                Some(plugin),
            );
        }
        Some(serde_json::Value::String(path)) => {
            let paths = [serde_json::Value::String(path.clone())];
            load_manifest_paths(
                set,
                options,
                plugin_dir,
                &paths,
                &manifest_path,
                hooks_dir,
                scope,
                &plugin,
                &files,
            )
        }
        Some(serde_json::Value::Array(paths)) => load_manifest_paths(
            set,
            options,
            plugin_dir,
            paths,
            &manifest_path,
            hooks_dir,
            scope,
            &plugin,
            &files,
        ),
        Some(_) => set.diagnostics.push(
            Diagnostic::error("`hooks` must be a path, a list of paths or an object; ignored")
                .in_file(&manifest_path)
                .key("hooks"),
        ),
    }
}

/// The manifest's `hooks` given as one path or a list of paths.
#[allow(clippy::too_many_arguments)]
fn load_manifest_paths(
    set: &mut HookSet,
    options: &DiscoveryOptions,
    plugin_dir: &Path,
    paths: &[serde_json::Value],
    manifest_path: &Path,
    hooks_dir: &Path,
    scope: Scope,
    plugin: &Plugin,
    already: &[PathBuf],
) {
    for p in paths {
        match p.as_str() {
            Some(path) => load_manifest_path(
                set,
                options,
                plugin_dir,
                path,
                manifest_path,
                hooks_dir,
                scope,
                plugin,
                already,
            ),
            None => set.diagnostics.push(
                Diagnostic::error("entries of `hooks` must be paths (strings); this entry is skipped")
                    .in_file(manifest_path)
                    .key("hooks"),
            ),
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn load_manifest_path(
    set: &mut HookSet,
    options: &DiscoveryOptions,
    plugin_dir: &Path,
    path: &str,
    manifest_path: &Path,
    hooks_dir: &Path,
    scope: Scope,
    plugin: &Plugin,
    already: &[PathBuf],
) {
    let file = plugin_dir.join(path.trim_start_matches("./"));
    if already.iter().any(|f| same_file(f, &file)) {
        return; // hooks/hooks.json named again in the manifest: load it once
    }
    if !file.is_file() {
        set.diagnostics.push(
            Diagnostic::error(format!(
                "the manifest names hooks file `{path}`, which does not exist"
            ))
            .in_file(manifest_path)
            .key("hooks"),
        );
        return;
    }
    load_file(set, options, &file, hooks_dir, scope, Some(plugin.clone()));
}

fn same_file(a: &Path, b: &Path) -> bool {
    a == b || same_existing_path(a, b)
}

/// Both paths exist and name the same file or directory (after symlinks).
#[cfg(unix)]
fn same_existing_path(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    // One stat each, where canonicalizing costs a readlink per path component.
    match (fs::metadata(a), fs::metadata(b)) {
        (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
        _ => false,
    }
}

/// Both paths exist and name the same file or directory (after symlinks).
#[cfg(not(unix))]
fn same_existing_path(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The text of `path`; `None` when there is no file there (nothing, a directory, or a path
/// through a non-directory). Other failures (permissions, invalid UTF-8) are errors to report.
fn read_if_file(path: &Path) -> std::io::Result<Option<String>> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound
                    | std::io::ErrorKind::IsADirectory
                    | std::io::ErrorKind::NotADirectory
            ) =>
        {
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

fn load_file(
    set: &mut HookSet,
    options: &DiscoveryOptions,
    path: &Path,
    hooks_dir: &Path,
    scope: Scope,
    plugin: Option<Plugin>,
) {
    match fs::read_to_string(path) {
        Ok(text) => load_text(set, options, &text, path, hooks_dir, scope, plugin),
        Err(e) => set
            .diagnostics
            .push(Diagnostic::error(format!("cannot read: {e}")).in_file(path)),
    }
}

#[allow(clippy::too_many_arguments)]
fn load_text(
    set: &mut HookSet,
    options: &DiscoveryOptions,
    text: &str,
    path: &Path,
    hooks_dir: &Path,
    scope: Scope,
    plugin: Option<Plugin>,
) {
    let placeholders = Placeholders {
        project_dir: options.project_dir.to_string_lossy().into_owned(),
        hooks_dir: hooks_dir.to_string_lossy().into_owned(),
        plugin_root: plugin.as_ref().map(|p| p.root.to_string_lossy().into_owned()),
        plugin_data: plugin.as_ref().map(|p| p.data_dir.to_string_lossy().into_owned()),
    };
    let source = Arc::new(ConfigSource {
        path: path.to_path_buf(),
        scope,
        hooks_dir: hooks_dir.to_path_buf(),
        plugin,
        description: None,
    });
    let index = set.sources.len();
    let parsed = parse_hooks_file(text, source, index, &placeholders);
    set.extend(parsed);
}

/// `${CLAUDE_PLUGIN_DATA}` folder names: anything outside `[A-Za-z0-9_-]` becomes `-`, as in Claude Code.
fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::HookKind;
    use crate::event::EventName;

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn hook(cmd: &str) -> String {
        format!(r#"{{"hooks": {{"Stop": [{{"hooks": [{{"type": "command", "command": "{cmd}"}}]}}]}}}}"#)
    }

    #[test]
    fn discovery_order_is_root_then_plugins_by_name_then_user() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("proj");
        let home = tmp.path().join("home");
        let hooks = project.join(HOOKS_DIR_NAME);
        write(&hooks.join("hooks.json"), &hook("root"));
        write(
            &hooks.join("b-amp/hooks.json"),
            &hook("${CLAUDE_PLUGIN_ROOT}/b.sh"),
        );
        write(
            &hooks.join("a-claude/.claude-plugin/plugin.json"),
            r#"{"name": "a plugin", "hooks": "./extra.json"}"#,
        );
        write(&hooks.join("a-claude/hooks/hooks.json"), &hook("a-default"));
        write(&hooks.join("a-claude/extra.json"), &hook("a-extra"));
        write(&hooks.join("c-bare/hooks/hooks.json"), &hook("c"));
        write(&hooks.join(".hidden/hooks.json"), &hook("hidden"));
        write(&home.join(".amplifier/hooks/hooks.json"), &hook("user"));
        let set = discover(&DiscoveryOptions::new(&project, Some(&home)));
        assert!(set.diagnostics.is_empty(), "{:?}", set.diagnostics);
        let commands: Vec<String> = set
            .hooks()
            .map(|(_, _, h)| match &h.kind {
                HookKind::Command(c) => c.resolved_command.clone(),
                _ => unreachable!(),
            })
            .collect();
        let b = hooks.join("b-amp").join("b.sh").to_string_lossy().into_owned();
        assert_eq!(commands, vec!["root", "a-default", "a-extra", &b, "c", "user"]);
        let plugin = set.sources[1].plugin.as_ref().unwrap();
        assert_eq!(plugin.name, "a plugin");
        assert!(plugin.data_dir.ends_with("plugin-data/a-plugin"));
        assert!(set.events.contains_key(&EventName::Stop));
    }

    #[test]
    fn a_broken_file_beside_a_good_one_is_reported_and_the_good_one_loads() {
        let tmp = tempfile::tempdir().unwrap();
        let hooks = tmp.path().join(HOOKS_DIR_NAME);
        write(&hooks.join("good/hooks.json"), &hook("good"));
        write(
            &hooks.join("bad/hooks.json"),
            "{\n  \"hooks\": {\n    \"Stop\": [}\n}",
        );
        let set = discover(&DiscoveryOptions::new(tmp.path(), None));
        assert_eq!(set.hooks().count(), 1);
        assert_eq!(set.diagnostics.len(), 1);
        let d = &set.diagnostics[0];
        assert!(d.file.as_ref().unwrap().ends_with("bad/hooks.json"));
        assert_eq!(d.position.unwrap().line, 3);
    }
}
