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
//! All configs merge by concatenation per event. Last, the directory's `hookbridge-state.json` (what
//! `hookbridge disable` switched off) marks its hooks. Discovery reads files only; it never runs
//! anything.

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::diagnostics::Diagnostic;

use super::bounded_read::{
    read_bounded, read_checked, ReadError, MAX_BYTES_PER_HOOKS_DIR, MAX_CONFIG_BYTES,
    MAX_DIAGNOSTICS_PER_HOOKS_DIR, MAX_ENTRIES_PER_HOOKS_DIR, MAX_PLUGINS_PER_HOOKS_DIR,
};
use super::model::{ConfigSource, HookSet, Plugin, Scope};
use super::parse::{is_yaml_path, parse_hooks_file, parse_hooks_yaml};
use super::state::{HooksDirState, STATE_FILE_NAME};

/// The folder under a project (and under the home directory) that holds hooks.
pub const HOOKS_DIR_NAME: &str = ".amplifier/hooks";

/// The files discovery reads in a hooks directory itself: no plugin folder may take one's name.
pub const HOOKS_DIR_FILES: &[&str] = &["hooks.json", "hooks.yaml", "hooks.yml", STATE_FILE_NAME];

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
    /// The managed policy file (see [`super::managed`]); `None`: none is read.
    pub managed_file: Option<PathBuf>,
    /// Your home (`None`: none is known): what `~/` means in an `if` rule.
    pub home: Option<PathBuf>,
}

/// Beneath the home folder: the parent of the user's plugins' `${CLAUDE_PLUGIN_DATA}` folders (and,
/// in `project-<digest>/`, of each project's plugins').
pub const PLUGIN_DATA_DIR: &str = ".amplifier/plugin-data";

impl DiscoveryOptions {
    /// The defaults for a project: project and user hooks, user paths under `home`.
    pub fn new(project_dir: impl Into<PathBuf>, home: Option<&Path>) -> DiscoveryOptions {
        let project_dir = project_dir.into();
        DiscoveryOptions {
            user_hooks_dir: home.map(|h| h.join(".amplifier").join("hooks")),
            plugin_data_root: home.unwrap_or(&project_dir).join(PLUGIN_DATA_DIR),
            project_dir,
            include_project: true,
            include_user: true,
            managed_file: Some(super::managed::managed_policy_path()),
            home: home.map(Path::to_path_buf),
        }
    }

    pub fn project_hooks_dir(&self) -> PathBuf {
        self.project_dir.join(HOOKS_DIR_NAME)
    }
}

/// Load every config for a project. Problems become diagnostics in the returned set.
pub fn discover(options: &DiscoveryOptions) -> HookSet {
    let mut set = HookSet {
        home: options.home.clone(),
        ..HookSet::default()
    };
    if let Some(managed) = &options.managed_file {
        load_managed(&mut set, managed, &options.project_dir);
    }
    let project_hooks = options.project_hooks_dir();
    let user_hooks = options.user_hooks_dir.as_ref().filter(|_| options.include_user);
    let mut dirs = Vec::new();
    // The user's own folder is loaded once, as the user's, when the project's is the same folder:
    // a session opened in the home directory, a project directory set to it through the
    // environment (which a project's settings can set), or a repository whose `.amplifier/hooks`
    // is a symlink to it. As the project's, every guard of the user's would be held for trust —
    // and switched off.
    let project_is_the_users = user_hooks.is_some_and(|user| same_existing_path(user, &project_hooks));
    if options.include_project && !project_is_the_users {
        dirs.push((project_hooks.clone(), Scope::Project));
    }
    if let Some(user) = user_hooks {
        dirs.push((user.clone(), Scope::User));
    }
    let project_dir = options.project_dir.to_string_lossy();
    for (dir, scope) in &dirs {
        let folder = HooksFolder {
            dir,
            files: FolderFiles::open(dir),
            project_dir: &project_dir,
            scope: *scope,
            data_root: plugin_data_root(options, *scope),
            budget: Budget::default(),
        };
        folder.load(&mut set);
    }
    super::managed::hold_what_it_forbids(&mut set);
    // Fail closed: a repository's hooks wait for `trust::apply`, which every host calls; one
    // that forgets it runs none of them.
    set.hold(Scope::Project, &super::Held::AwaitingTrust);
    set
}

/// Reads the managed policy file, if there is one: its hooks first (managed scope), its rules into
/// `set.managed`. A file that is there but cannot be read holds what a policy could hold.
fn load_managed(set: &mut HookSet, path: &Path, project_dir: &Path) {
    let text = match read_bounded(path, MAX_CONFIG_BYTES) {
        Ok(text) => text,
        Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => return,
        Err(e) => {
            let (rules, problem) = super::managed::read_rules(path.to_path_buf(), &format!("<{e}>"));
            set.managed = Some(rules);
            set.diagnostics.extend(problem);
            return;
        }
    };
    let (rules, problem) = super::managed::read_rules(path.to_path_buf(), &text);
    set.diagnostics.extend(problem);
    let source = ConfigSource {
        path: path.to_path_buf(),
        scope: Scope::Managed,
        hooks_dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
        plugin: None,
        description: Some("managed policy".into()),
    };
    let parsed = parse_hooks_file(&text, source, set.sources.len(), &project_dir.to_string_lossy());
    set.extend(parsed);
    set.managed = Some(rules);
}

/// One hooks directory being loaded, with what every file in it shares.
struct HooksFolder<'a> {
    dir: &'a Path,
    files: FolderFiles,
    /// `${CLAUDE_PROJECT_DIR}` as text, converted once.
    project_dir: &'a str,
    scope: Scope,
    /// Where its plugins' `${CLAUDE_PLUGIN_DATA}` folders are ([`plugin_data_root`]).
    data_root: PathBuf,
    /// What its files have taken so far of what one hooks directory may ([`Budget`]).
    budget: Budget,
}

/// What the files of one hooks directory have taken so far of what discovery reads from one
/// ([`MAX_BYTES_PER_HOOKS_DIR`] and the limits beside it): a repository's hooks directory is the
/// repository's to fill, and each file it adds costs every event of its user some time.
#[derive(Default)]
struct Budget {
    bytes: std::cell::Cell<u64>,
    entries: std::cell::Cell<usize>,
    listed: std::cell::Cell<usize>,
    /// Problems past [`MAX_DIAGNOSTICS_PER_HOOKS_DIR`], counted; and whether one was an error.
    unlisted: std::cell::Cell<usize>,
    unlisted_error: std::cell::Cell<bool>,
    /// A file was not read for want of budget: so is every later one (said once).
    spent: std::cell::Cell<bool>,
}

impl Budget {
    /// Whether the file at `path`, of `len` bytes, is still read; when it is the first that is
    /// not, says why in `set`.
    fn allows(&self, set: &mut HookSet, path: &Path, len: usize) -> bool {
        if self.spent.get() {
            return false;
        }
        let bytes = self.bytes.get().saturating_add(len as u64);
        let over = if bytes > MAX_BYTES_PER_HOOKS_DIR {
            format!(
                "it would take the files read from this hooks directory past {} MiB",
                MAX_BYTES_PER_HOOKS_DIR >> 20
            )
        } else if self.entries.get() >= MAX_ENTRIES_PER_HOOKS_DIR {
            format!(
                "the files read before it in this hooks directory hold {} events, matcher groups and hooks",
                self.entries.get()
            )
        } else {
            self.bytes.set(bytes);
            return true;
        };
        self.spent.set(true);
        set.diagnostics.push(
            Diagnostic::error(format!(
                "not read: {over}, the most hookbridge reads from one hooks directory; it and the files after it there are ignored"
            ))
            .in_file(path),
        );
        false
    }

    /// Takes what `parsed` holds: its entries, and its problems up to what is listed for one
    /// hooks directory (the rest are counted, and said in [`Budget::unlisted`]).
    fn take(&self, parsed: &mut super::parse::ParsedFile) {
        self.entries.set(self.entries.get() + parsed.entries);
        let room = MAX_DIAGNOSTICS_PER_HOOKS_DIR.saturating_sub(self.listed.get());
        if parsed.diagnostics.len() > room {
            let rest = parsed.diagnostics.split_off(room);
            self.unlisted.set(self.unlisted.get() + rest.len());
            if rest
                .iter()
                .any(|d| d.severity == crate::diagnostics::Severity::Error)
            {
                self.unlisted_error.set(true);
            }
        }
        self.listed.set(self.listed.get() + parsed.diagnostics.len());
    }

    /// The line that says how many problems of the hooks directory `dir` are not listed, if any.
    fn unlisted(&self, dir: &Path) -> Option<Diagnostic> {
        let count = self.unlisted.get();
        (count > 0).then(|| {
            let message = format!(
                "{count} more problems in the files of this hooks directory are not listed (only the first {MAX_DIAGNOSTICS_PER_HOOKS_DIR} are)"
            );
            let d = if self.unlisted_error.get() {
                Diagnostic::error(message)
            } else {
                Diagnostic::warning(message)
            };
            d.in_file(dir)
        })
    }
}

impl HooksFolder<'_> {
    fn load(&self, set: &mut HookSet) {
        let entries = match fs::read_dir(self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
            Err(e) => {
                set.diagnostics.push(
                    Diagnostic::error(format!("cannot read the hooks directory: {e}")).in_file(self.dir),
                );
                return;
            }
        };
        // Probed by opening (a stat first would cost a system call): nothing there is no config;
        // a directory, FIFO or device there is reported.
        let root_file = self.dir.join("hooks.json");
        self.load_file(set, OsStr::new("hooks.json"), &root_file, None, |_| {});
        // Plugin folders in name order. The entry's own type says "directory" without a stat;
        // only a symlink needs one (to see whether it leads to a directory). The same listing
        // says whether the directory has a YAML hooks file or a state file, so neither costs a
        // probe when it is absent (the usual case, on every `hookbridge run`).
        let mut plugin_dirs: Vec<PathBuf> = Vec::new();
        let mut has_state = false;
        let mut yaml: Vec<PathBuf> = Vec::new();
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name();
            match name.to_str() {
                Some("hooks.yaml" | "hooks.yml") => yaml.push(entry.path()),
                Some(STATE_FILE_NAME) => has_state = true,
                _ => {}
            }
            if name.as_encoded_bytes().starts_with(b".") {
                continue;
            }
            let is_dir = match entry.file_type() {
                Ok(t) if t.is_dir() => true,
                Ok(t) if t.is_symlink() => entry.path().is_dir(),
                _ => false,
            };
            if is_dir {
                plugin_dirs.push(entry.path());
            }
        }
        // `hooks.yaml` before `hooks.yml`, both after `hooks.json` and before the plugins.
        yaml.sort();
        for path in yaml {
            let name = path.file_name().unwrap_or_default().to_os_string();
            self.load_file(set, &name, &path, None, |_| {});
        }
        // Every path is `dir/<name>`: comparing whole paths as bytes compares the names.
        plugin_dirs.sort_unstable_by(|a, b| a.as_os_str().cmp(b.as_os_str()));
        if plugin_dirs.len() > MAX_PLUGINS_PER_HOOKS_DIR {
            set.diagnostics.push(
                Diagnostic::error(format!(
                    "holds {} plugin folders: only the first {MAX_PLUGINS_PER_HOOKS_DIR} by name are read, the most hookbridge reads from one hooks directory",
                    plugin_dirs.len()
                ))
                .in_file(self.dir),
            );
            plugin_dirs.truncate(MAX_PLUGINS_PER_HOOKS_DIR);
        }
        for plugin_dir in &plugin_dirs {
            let name = plugin_dir.file_name().unwrap_or_default();
            self.load_plugin(set, plugin_dir, name);
        }
        set.diagnostics.extend(self.budget.unlisted(self.dir));
        if has_state {
            self.apply_state(set);
        }
    }

    /// A plugin folder with no JSON hooks file may hold a `hooks.yaml` / `hooks.yml` (the seed's
    /// dialect): one probe each, only for such folders (never on the common path).
    fn load_plugin_yaml(&self, set: &mut HookSet, plugin_dir: &Path, folder_name: &OsStr, plugin: &Plugin) {
        for name in ["hooks.yaml", "hooks.yml"] {
            let path = plugin_dir.join(name);
            self.load_file(
                set,
                &relative_name(folder_name, name),
                &path,
                Some(plugin.clone()),
                |_| {},
            );
        }
    }

    /// `hookbridge-state.json`: what `hookbridge disable` switched off here.
    fn apply_state(&self, set: &mut HookSet) {
        let path = self.dir.join(STATE_FILE_NAME);
        let text = match self.files.read(set, OsStr::new(STATE_FILE_NAME), &path) {
            Ok(Some(text)) => text,
            Ok(None) => return,
            Err(e) => {
                set.diagnostics.push(
                    Diagnostic::error(format!("cannot read: {e}; every hook here runs")).in_file(&path),
                );
                return;
            }
        };
        match HooksDirState::parse(&text, &path) {
            Ok(state) => state.apply(set, self.dir, &path),
            Err(d) => set.diagnostics.push(d),
        }
    }

    /// The plugin folder `plugin_dir`, named `folder_name` in this directory.
    fn load_plugin(&self, set: &mut HookSet, plugin_dir: &Path, folder_name: &OsStr) {
        let manifest_path = joined(plugin_dir, ".claude-plugin/plugin.json");
        let manifest_name = relative_name(folder_name, ".claude-plugin/plugin.json");
        let manifest = match self.files.read(set, &manifest_name, &manifest_path) {
            Ok(text) => text,
            Err(e) => {
                set.diagnostics.push(
                    Diagnostic::error(format!("cannot read the plugin manifest: {e}"))
                        .in_file(&manifest_path),
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
            .unwrap_or_else(|| folder_name.to_string_lossy().into_owned());
        let plugin = Plugin {
            // Keyed by the folder, not the manifest's `name`: a manifest may name itself after
            // another plugin (and get its tokens), or `""` (and get every plugin's).
            data_dir: data_dir(&self.data_root, &folder_name.to_string_lossy()),
            name,
            root: plugin_dir.to_path_buf(),
        };
        // The plugin's hooks file: `hooks/hooks.json` for a Claude Code plugin; for an Amplifier
        // folder `<name>/hooks.json`, else `<name>/hooks/hooks.json`. Probed by opening, not
        // stat + open.
        let candidates: &[&str] = if manifest.is_some() {
            &["hooks/hooks.json"]
        } else {
            &["hooks.json", "hooks/hooks.json"]
        };
        // Without a manifest the hooks file is the plugin's only file, and takes the plugin.
        let mut plugin = Some(plugin);
        let mut hooks_file: Option<PathBuf> = None;
        for candidate in candidates {
            let file = joined(plugin_dir, candidate);
            let loaded =
                self.files
                    .with_text(&relative_name(folder_name, candidate), &file, |text, invalid| {
                        let owner = if manifest.is_some() {
                            plugin.clone()
                        } else {
                            plugin.take()
                        };
                        self.load_text(set, text, invalid, &file, owner);
                    });
            match loaded {
                Ok(None) => continue,
                Ok(Some(())) => {}
                Err(e) => set
                    .diagnostics
                    .push(Diagnostic::error(format!("cannot read: {e}")).in_file(&file)),
            }
            hooks_file = Some(file);
            break;
        }
        if let (None, None, Some(plugin)) = (&hooks_file, &manifest, &plugin) {
            self.load_plugin_yaml(set, plugin_dir, folder_name, plugin);
        }
        let (Some(text), Some(plugin)) = (manifest, plugin) else {
            return;
        };
        let Some(value) = manifest_value else {
            // Report the syntax error with its position through the normal parser.
            self.load_text(set, &text, None, &manifest_path, Some(plugin));
            return;
        };
        let manifest = Manifest {
            path: &manifest_path,
            plugin_dir,
            plugin: &plugin,
            hooks_file: hooks_file.as_deref(),
        };
        match value.get("hooks") {
            None => {}
            Some(serde_json::Value::Object(_)) => {
                self.load_text(set, &text, None, &manifest_path, Some(plugin.clone()));
            }
            Some(one @ serde_json::Value::String(_)) => {
                self.load_manifest_paths(set, &manifest, std::slice::from_ref(one))
            }
            Some(serde_json::Value::Array(paths)) => self.load_manifest_paths(set, &manifest, paths),
            Some(_) => set.diagnostics.push(
                Diagnostic::error("`hooks` must be a path, a list of paths or an object; ignored")
                    .in_file(&manifest_path)
                    .key("hooks"),
            ),
        }
    }

    /// The manifest's `hooks` given as one path or a list of paths.
    fn load_manifest_paths(&self, set: &mut HookSet, manifest: &Manifest<'_>, paths: &[serde_json::Value]) {
        for p in paths {
            let Some(path) = p.as_str() else {
                set.diagnostics.push(
                    Diagnostic::error("entries of `hooks` must be paths (strings); this entry is skipped")
                        .in_file(manifest.path)
                        .key("hooks"),
                );
                continue;
            };
            let relative = path.trim_start_matches("./");
            let file = manifest.plugin_dir.join(relative);
            // The plugin's own files only, as Claude Code has them (`./`-relative): a path out of
            // it (absolute, `..`, or a symlink that leads out) would load whatever someone else
            // puts there, as this plugin's hooks.
            if !inside_plugin(manifest.plugin_dir, relative) {
                set.diagnostics.push(
                    Diagnostic::error(format!(
                        "`hooks` names `{path}`, which is not inside the plugin: a plugin's hooks files are its own (`./hooks/extra.json`); not loaded"
                    ))
                    .in_file(manifest.path)
                    .key("hooks"),
                );
                continue;
            }
            if manifest.hooks_file.is_some_and(|f| same_file(f, &file)) {
                continue; // hooks/hooks.json named again in the manifest: load it once
            }
            // Opened relative to the hooks directory, like the plugin's other files.
            let name = match manifest.plugin_dir.file_name() {
                Some(folder) => relative_name(folder, relative),
                _ => file.clone().into_os_string(),
            };
            self.load_file(set, &name, &file, Some(manifest.plugin.clone()), |set| {
                set.diagnostics.push(
                    Diagnostic::error(format!(
                        "the manifest names hooks file `{path}`, which does not exist"
                    ))
                    .in_file(manifest.path)
                    .key("hooks"),
                );
            });
        }
    }

    /// Load the config at `path` (`name` relative to this hooks directory, or absolute); when there
    /// is nothing there, call `absent`.
    fn load_file(
        &self,
        set: &mut HookSet,
        name: &OsStr,
        path: &Path,
        plugin: Option<Plugin>,
        absent: impl FnOnce(&mut HookSet),
    ) {
        let loaded = self.files.with_text(name, path, |text, invalid| {
            self.load_text(set, text, invalid, path, plugin)
        });
        match loaded {
            Ok(Some(())) => {}
            Ok(None) => absent(set),
            Err(e) => set
                .diagnostics
                .push(Diagnostic::error(format!("cannot read: {e}")).in_file(path)),
        }
    }

    /// Parse the hooks file `path`, whose text is `text` (bytes that were not UTF-8 from
    /// `invalid_utf8_at` on read as U+FFFD: said in a warning, the file loads).
    fn load_text(
        &self,
        set: &mut HookSet,
        text: &str,
        invalid_utf8_at: Option<usize>,
        path: &Path,
        plugin: Option<Plugin>,
    ) {
        if !self.budget.allows(set, path, text.len()) {
            return;
        }
        if let Some(at) = invalid_utf8_at {
            set.diagnostics
                .push(Diagnostic::warning(not_utf8(at)).in_file(path));
        }
        let source = ConfigSource {
            path: path.to_path_buf(),
            scope: self.scope,
            hooks_dir: self.dir.to_path_buf(),
            plugin,
            description: None,
        };
        let mut parsed = if is_yaml_path(path) {
            parse_hooks_yaml(text, source, set.sources.len(), self.project_dir)
        } else {
            parse_hooks_file(text, source, set.sources.len(), self.project_dir)
        };
        self.budget.take(&mut parsed);
        set.extend(parsed);
    }
}

/// A plugin manifest whose `hooks` field names files.
struct Manifest<'a> {
    path: &'a Path,
    plugin_dir: &'a Path,
    plugin: &'a Plugin,
    /// The plugin's `hooks/hooks.json`, if it was loaded already.
    hooks_file: Option<&'a Path>,
}

/// Whether `relative` names a path inside `plugin_dir`: relative, with no `..`, and, where it is
/// there, really inside once symlinks are resolved.
fn inside_plugin(plugin_dir: &Path, relative: &str) -> bool {
    use std::path::Component;
    let path = Path::new(relative);
    if !path
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return false;
    }
    match (plugin_dir.join(path).canonicalize(), plugin_dir.canonicalize()) {
        (Ok(real), Ok(root)) => real.starts_with(root),
        // Not there (reported as missing), or the plugin folder cannot be resolved.
        _ => true,
    }
}

/// `dir/relative` in one allocation (`relative` may have several components).
fn joined(dir: &Path, relative: &str) -> PathBuf {
    let mut path = PathBuf::with_capacity(dir.as_os_str().len() + 1 + relative.len());
    path.push(dir);
    path.push(relative);
    path
}

/// The folder of the `${CLAUDE_PLUGIN_DATA}` folders of `scope`'s plugins: the plugin-data root
/// for the user's own, and for a project's, a folder of that project's own under it
/// (`project-<digest of the project folder's path>`), so that a project's plugin named like one
/// of the user's, or like another project's, never shares its state (and a sandboxed hook can be
/// given its own folder to write).
pub fn plugin_data_root(options: &DiscoveryOptions, scope: Scope) -> PathBuf {
    match scope {
        Scope::Project => {
            let digest = Sha256::digest(options.project_dir.as_os_str().as_encoded_bytes());
            let short: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
            options.plugin_data_root.join(format!("project-{short}"))
        }
        Scope::User | Scope::Explicit | Scope::Managed => options.plugin_data_root.clone(),
    }
}

/// `${CLAUDE_PLUGIN_DATA}` of the plugin whose folder, of `scope`, is called `name`.
pub fn plugin_data_dir(options: &DiscoveryOptions, scope: Scope, name: &str) -> PathBuf {
    data_dir(&plugin_data_root(options, scope), name)
}

/// A plugin's `${CLAUDE_PLUGIN_DATA}`: its folder's sanitized name under `root` — never `root`
/// itself nor a project's folder of plugin data (`project-…`): a name that would be (`""`, `.`,
/// `project-1f2e…`) gets `plugin-` in front.
fn data_dir(root: &Path, folder: &str) -> PathBuf {
    let mut key = sanitize(folder);
    if key.chars().all(|c| c == '-') || key.starts_with("project-") || key.starts_with("plugin-") {
        key.insert_str(0, "plugin-");
    }
    let mut path = PathBuf::with_capacity(root.as_os_str().len() + 1 + key.len());
    path.push(root);
    path.push(key);
    path
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

/// Nothing there to read: no such file, or a path through a non-directory.
fn is_absent(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
    )
}

/// `<plugin folder>/<relative>`, as a name relative to the hooks directory.
fn relative_name(folder_name: &OsStr, relative: &str) -> std::ffi::OsString {
    let mut name = std::ffi::OsString::with_capacity(folder_name.len() + 1 + relative.len());
    name.push(folder_name);
    name.push("/");
    name.push(relative);
    name
}

/// Reading the files of a hooks directory's plugin folders. Where the directory can be held
/// open, each file is opened relative to it, so the kernel walks two or three path components
/// per file instead of the whole path: over 1,000 plugins, reading every file took 2.7 ms
/// instead of 3.8 ms (measured on Linux, warm cache).
struct FolderFiles {
    #[cfg(unix)]
    dir: Option<rustix::fd::OwnedFd>,
    /// Hooks files are read into this one buffer in turn: a file's text is only needed while it
    /// is parsed. (Read without the size query `read_to_string` makes: one system call less.)
    buffer: std::cell::RefCell<Vec<u8>>,
}

impl FolderFiles {
    fn open(dir: &Path) -> FolderFiles {
        #[cfg(unix)]
        {
            use rustix::fs::{Mode, OFlags};
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
            FolderFiles {
                dir: rustix::fs::open(dir, flags, Mode::empty()).ok(),
                buffer: std::cell::RefCell::default(),
            }
        }
        #[cfg(not(unix))]
        {
            let _ = dir;
            FolderFiles {
                buffer: std::cell::RefCell::default(),
            }
        }
    }

    /// The text of the file `name` (relative to the hooks directory, or absolute), whose full path
    /// is `path`; `None` when there is no file there (nothing, or a path through a non-directory).
    /// Anything else (a directory or FIFO, a file too large, permissions) is an
    /// error to report. Bytes that are not UTF-8 are read as U+FFFD and said in a warning on `set`.
    fn read(&self, set: &mut HookSet, name: &OsStr, path: &Path) -> Result<Option<String>, ReadError> {
        let read = self.with_text(name, path, |text, invalid_at| (text.to_string(), invalid_at))?;
        Ok(read.map(|(text, invalid_at)| {
            if let Some(at) = invalid_at {
                set.diagnostics
                    .push(Diagnostic::warning(not_utf8(at)).in_file(path));
            }
            text
        }))
    }

    /// Hand the text of the file `name` (full path `path`) to `use_text`; `None` when there is no
    /// file there, as for [`FolderFiles::read`]. Bytes that are not UTF-8 are read as U+FFFD, as
    /// Node (Claude Code) reads them — one stray Latin-1 byte in a description must not drop every
    /// hook of the file — and `use_text` is told the offset of the first.
    fn with_text<R>(
        &self,
        name: &OsStr,
        path: &Path,
        use_text: impl FnOnce(&str, Option<usize>) -> R,
    ) -> Result<Option<R>, ReadError> {
        let mut buffer = self.buffer.borrow_mut();
        buffer.clear();
        let file = match self.open_file(name, path) {
            Ok(file) => file,
            Err(e) if is_absent(&e) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        read_checked(file, &mut buffer)?;
        match std::str::from_utf8(&buffer) {
            Ok(text) => Ok(Some(use_text(text, None))),
            Err(e) => Ok(Some(use_text(
                &String::from_utf8_lossy(&buffer),
                Some(e.valid_up_to()),
            ))),
        }
    }

    /// Open for reading without blocking (a FIFO opened for reading would wait for a writer
    /// forever) and without becoming the controlling terminal: relative to the held directory
    /// where there is one (`name` may also be absolute), else by `path`.
    #[cfg(unix)]
    fn open_file(&self, name: &OsStr, path: &Path) -> std::io::Result<fs::File> {
        use rustix::fs::{Mode, OFlags};
        let flags = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK | OFlags::NOCTTY;
        let opened = match self.dir.as_ref() {
            Some(dir) => rustix::fs::openat(dir, name, flags, Mode::empty()),
            None => rustix::fs::open(path, flags, Mode::empty()),
        };
        opened.map(fs::File::from).map_err(std::io::Error::from)
    }

    #[cfg(not(unix))]
    fn open(&self, _name: &OsStr, path: &Path) -> std::io::Result<fs::File> {
        fs::File::open(path)
    }
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

/// Why a file with bytes that are not UTF-8 (from byte `at`) loads all the same.
fn not_utf8(at: usize) -> String {
    format!("not valid UTF-8 from byte {at}: such bytes are read as U+FFFD, as Claude Code reads them")
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

    /// The commands of `set`'s hooks (all command hooks), as written, in order.
    fn commands(set: &HookSet) -> Vec<String> {
        set.hooks()
            .map(|(_, _, h)| match &h.kind {
                HookKind::Command(c) => c.command.clone(),
                _ => unreachable!(),
            })
            .collect()
    }

    fn hook(cmd: &str) -> String {
        format!(r#"{{"hooks": {{"Stop": [{{"hooks": [{{"type": "command", "command": "{cmd}"}}]}}]}}}}"#)
    }

    /// `~/` in a hook's `if` rule is the home your hooks were found in, whatever `HOME` says
    /// when the rule is checked (a project's settings can set the agent's `HOME`; the rule read
    /// it, and a user's guard on `Edit(~/.bashrc)` was skipped when it pointed elsewhere).
    #[test]
    fn an_if_rule_under_home_is_the_home_discovery_used() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("proj");
        let home = tmp.path().join("home");
        write(
            &home.join(".amplifier/hooks/hooks.json"),
            r#"{"hooks": {"PreToolUse": [{"matcher": "Edit", "hooks": [
                {"type": "command", "command": "guard", "if": "Edit(~/.bashrc)"}]}]}}"#,
        );
        let set = discover(&DiscoveryOptions::new(&project, Some(&home)));
        assert!(set.diagnostics.is_empty(), "{:?}", set.diagnostics);
        let edit = |path: &Path| {
            let payload = crate::event::EventPayload::from_value(
                crate::event::EventName::PreToolUse,
                serde_json::json!({"tool_name": "Edit", "tool_input": {"file_path": path}, "cwd": project}),
            )
            .unwrap();
            set.select(&payload).hooks.len()
        };
        assert_ne!(std::env::var_os("HOME").map(PathBuf::from), Some(home.clone()));
        assert_eq!(edit(&home.join(".bashrc")), 1);
        assert_eq!(edit(&project.join(".bashrc")), 0);
    }

    /// A project's hooks directory cannot make discovery read without end: past its budget of
    /// entries its later files are not read (said once, naming the first), past its plugin count
    /// its later plugins are not; the user's own hooks load whatever the project holds.
    #[test]
    fn a_projects_hooks_directory_is_read_to_its_budget_and_the_users_hooks_load_all_the_same() {
        use crate::config::{MAX_ENTRIES_PER_FILE, MAX_ENTRIES_PER_HOOKS_DIR, MAX_PLUGINS_PER_HOOKS_DIR};
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("proj");
        let home = tmp.path().join("home");
        let hooks = project.join(HOOKS_DIR_NAME);
        let many: Vec<String> = (0..MAX_ENTRIES_PER_FILE - 2)
            .map(|i| format!(r#"{{"type": "command", "command": "echo {i}"}}"#))
            .collect();
        let full = format!(r#"{{"hooks": {{"Stop": [{{"hooks": [{}]}}]}}}}"#, many.join(","));
        let files = MAX_ENTRIES_PER_HOOKS_DIR / MAX_ENTRIES_PER_FILE;
        for i in 0..=files {
            write(&hooks.join(format!("p{i}/hooks.json")), &full);
        }
        write(&home.join(".amplifier/hooks/hooks.json"), &hook("user"));
        let set = discover(&DiscoveryOptions::new(&project, Some(&home)));
        let errors: Vec<String> = set.diagnostics.iter().map(ToString::to_string).collect();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].contains(&format!("p{files}/hooks.json: error: not read: the files read before it in this hooks directory hold {MAX_ENTRIES_PER_HOOKS_DIR} events")),
            "{errors:?}"
        );
        let loaded = commands(&set);
        assert_eq!(loaded.len(), files * (MAX_ENTRIES_PER_FILE - 2) + 1);
        assert_eq!(loaded.last().map(String::as_str), Some("user"));

        let project = tmp.path().join("plugins");
        let hooks = project.join(HOOKS_DIR_NAME);
        for i in 0..=MAX_PLUGINS_PER_HOOKS_DIR {
            std::fs::create_dir_all(hooks.join(format!("p{i:05}"))).unwrap();
        }
        write(
            &hooks.join(format!("p{MAX_PLUGINS_PER_HOOKS_DIR:05}/hooks.json")),
            &hook("last"),
        );
        write(&hooks.join("p00000/hooks.json"), &hook("first"));
        let set = discover(&DiscoveryOptions::new(&project, Some(&home)));
        assert_eq!(commands(&set), ["first", "user"]);
        let said: Vec<String> = set.diagnostics.iter().map(ToString::to_string).collect();
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(
            said[0].contains("error: holds 2001 plugin folders: only the first 2000 by name are read"),
            "{said:?}"
        );
    }

    /// The other two budgets of a hooks directory: its files' bytes together, and the problems
    /// listed of them together (the rest are counted in one line).
    #[test]
    fn a_hooks_directorys_bytes_and_listed_problems_are_bounded_too() {
        use crate::config::{MAX_BYTES_PER_HOOKS_DIR, MAX_CONFIG_BYTES, MAX_DIAGNOSTICS_PER_HOOKS_DIR};
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("proj");
        let hooks = project.join(HOOKS_DIR_NAME);
        let padding = "x".repeat(MAX_CONFIG_BYTES as usize - 40);
        let big = format!(r#"{{"description": "{padding}", "hooks": {{}}}}"#);
        let files = (MAX_BYTES_PER_HOOKS_DIR / MAX_CONFIG_BYTES) as usize;
        for i in 0..files {
            write(&hooks.join(format!("p{i}/hooks.json")), &big);
        }
        write(&hooks.join(format!("p{files}/hooks.json")), &hook("past"));
        let set = discover(&DiscoveryOptions::new(&project, None));
        let said: Vec<String> = set.diagnostics.iter().map(ToString::to_string).collect();
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(
            said[0].contains(&format!("p{files}/hooks.json: error: not read: it would take the files read from this hooks directory past 64 MiB")),
            "{said:?}"
        );
        assert_eq!(set.hooks().count(), 0);

        let project = tmp.path().join("noisy");
        let hooks = project.join(HOOKS_DIR_NAME);
        let keys: Vec<String> = (0..150).map(|i| format!(r#""k{i}": 1"#)).collect();
        let noisy = format!(
            r#"{{{}, "hooks": {{"Stop": [{{"hooks": [{{"type": "command", "command": "ok"}}]}}]}}}}"#,
            keys.join(",")
        );
        for i in 0..6 {
            write(&hooks.join(format!("p{i}/hooks.json")), &noisy);
        }
        let set = discover(&DiscoveryOptions::new(&project, None));
        assert_eq!(set.hooks().count(), 6, "every file loads");
        assert_eq!(set.diagnostics.len(), MAX_DIAGNOSTICS_PER_HOOKS_DIR + 1);
        let last = set.diagnostics.last().unwrap();
        // Each file lists 100 and counts 50 in a line of its own: 6 × 101 = 606, 500 listed.
        assert_eq!(
            last.message,
            "106 more problems in the files of this hooks directory are not listed (only the first 500 are)"
        );
        assert_eq!(last.severity, crate::diagnostics::Severity::Warning);
    }

    /// A manifest's `hooks` names the plugin's own files only: an absolute path, one through
    /// `..`, and a symlink that leads out are each an error and load nothing.
    #[test]
    fn a_manifests_hooks_path_out_of_the_plugin_loads_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("proj");
        let home = tmp.path().join("home");
        let outside = tmp.path().join("elsewhere/h.json");
        write(&outside, &hook("outside"));
        let plugin = home.join(".amplifier/hooks/fmt");
        write(&plugin.join("hooks/hooks.json"), &hook("own"));
        std::os::unix::fs::symlink(&outside, plugin.join("link.json")).unwrap();
        let named = [
            outside.to_string_lossy().into_owned(),
            "../../../../elsewhere/h.json".to_string(),
            "./link.json".to_string(),
        ];
        write(
            &plugin.join(".claude-plugin/plugin.json"),
            &serde_json::json!({"name": "fmt", "hooks": named}).to_string(),
        );
        let set = discover(&DiscoveryOptions::new(&project, Some(&home)));
        assert_eq!(commands(&set), ["own"]);
        let said: Vec<String> = set.diagnostics.iter().map(ToString::to_string).collect();
        assert_eq!(said.len(), 3, "{said:?}");
        for (said, path) in said.iter().zip(&named) {
            assert!(
                said.contains(&format!("`hooks` names `{path}`, which is not inside the plugin")),
                "{said}"
            );
        }
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
        assert!(
            plugin.data_dir.ends_with("a-claude"),
            "its folder's name, not its manifest's"
        );
        assert!(set.events.contains_key(&EventName::Stop));
    }

    /// A project's plugin named like one of the user's (or like another project's) gets a data
    /// folder of its own; the user's keeps `plugin-data/<name>`.
    #[test]
    fn a_projects_plugin_never_shares_the_data_folder_of_a_plugin_named_alike() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let data_of = |project: &Path| {
            let manifest = r#"{"name": "fmt"}"#;
            write(
                &project.join(".amplifier/hooks/fmt/.claude-plugin/plugin.json"),
                manifest,
            );
            write(&project.join(".amplifier/hooks/fmt/hooks/hooks.json"), &hook("p"));
            write(
                &home.join(".amplifier/hooks/fmt/.claude-plugin/plugin.json"),
                manifest,
            );
            write(&home.join(".amplifier/hooks/fmt/hooks/hooks.json"), &hook("u"));
            let set = discover(&DiscoveryOptions::new(project, Some(&home)));
            assert!(set.diagnostics.is_empty(), "{:?}", set.diagnostics);
            let dir_of = |scope: Scope| {
                let source = set.sources.iter().find(|s| s.scope == scope).unwrap();
                source.plugin.as_ref().unwrap().data_dir.clone()
            };
            (dir_of(Scope::Project), dir_of(Scope::User))
        };
        let (first, user) = data_of(&tmp.path().join("one"));
        let (second, _) = data_of(&tmp.path().join("two"));
        assert_eq!(user, home.join(".amplifier/plugin-data/fmt"));
        assert_ne!(first, user);
        assert_ne!(first, second, "two projects' plugins named alike");
        assert!(
            first.starts_with(home.join(".amplifier/plugin-data")),
            "{}",
            first.display()
        );
        let options = DiscoveryOptions::new(tmp.path().join("one"), Some(&home));
        assert_eq!(plugin_data_dir(&options, Scope::Project, "fmt"), first);
    }

    /// A plugin's data folder is its folder's name (red-team pass 10: the manifest's name `""`
    /// was the root of every plugin's data), never the root nor a project's data folder, and no
    /// two folders share one.
    #[test]
    fn a_plugin_data_folder_is_its_own() {
        let root = Path::new("/d");
        let key = |folder: &str| {
            data_dir(root, folder)
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        };
        assert_eq!(key("fmt"), "fmt");
        assert_eq!(key("my plugin"), "my-plugin");
        for (folder, expected) in [
            ("", "plugin-"),
            (".", "plugin--"),
            ("..", "plugin---"),
            ("project-1f2e3d4c5b6a7988", "plugin-project-1f2e3d4c5b6a7988"),
            ("plugin-", "plugin-plugin-"),
        ] {
            assert_eq!(key(folder), expected, "{folder:?}");
        }
    }

    #[test]
    fn hooks_dir_files_are_every_file_read_in_the_hooks_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let hooks = tmp.path().join(HOOKS_DIR_NAME);
        // Each name, as a file nothing can read: discovery reports exactly these.
        for name in HOOKS_DIR_FILES
            .iter()
            .chain(&["other.json", "hooks.toml", "state.json"])
        {
            write(&hooks.join(name), "{");
        }
        let set = discover(&DiscoveryOptions::new(tmp.path(), None));
        let mut reported: Vec<String> = set
            .diagnostics
            .iter()
            .filter_map(|d| Some(d.file.as_ref()?.file_name()?.to_string_lossy().into_owned()))
            .collect();
        reported.sort();
        let mut expected: Vec<String> = HOOKS_DIR_FILES.iter().map(|n| n.to_string()).collect();
        expected.sort();
        assert_eq!(reported, expected, "{:?}", set.diagnostics);
    }

    #[test]
    fn yaml_hooks_files_load_in_the_hooks_directory_and_in_plugin_folders() {
        let tmp = tempfile::tempdir().unwrap();
        let hooks = tmp.path().join(HOOKS_DIR_NAME);
        write(&hooks.join("hooks.json"), &hook("json"));
        write(
            &hooks.join("hooks.yaml"),
            "hooks:\n  PreToolUse:\n    - type: command\n      command: root-yaml\n",
        );
        write(
            &hooks.join("seed/hooks.yml"),
            "hooks:\n  SessionStop:\n    - type: command\n      command: ${CLAUDE_PLUGIN_ROOT}/x.sh\n",
        );
        write(&hooks.join("bad/hooks.yaml"), "hooks:\n  Stop: [\n");
        let set = discover(&DiscoveryOptions::new(tmp.path(), None));
        let labels: Vec<&str> = set.hooks().map(|(_, _, h)| h.kind.label()).collect();
        assert_eq!(labels, ["json", "root-yaml", "${CLAUDE_PLUGIN_ROOT}/x.sh"]);
        let (event, _, plugin_hook) = set.hooks().nth(2).unwrap();
        assert_eq!(*event, EventName::SessionEnd);
        assert_eq!(plugin_hook.seed_event.as_deref(), Some("SessionStop"));
        assert_eq!(plugin_hook.source.plugin.as_ref().unwrap().name, "seed");
        assert_eq!(set.diagnostics.len(), 1, "{:?}", set.diagnostics);
        let d = &set.diagnostics[0];
        assert!(d.file.as_ref().unwrap().ends_with("bad/hooks.yaml"));
        assert!(d.message.starts_with("not valid YAML"), "{}", d.message);
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
