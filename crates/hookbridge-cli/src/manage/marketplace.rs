//! `hookbridge marketplace add | list | remove`: plugin catalogs in Claude Code's format
//! (`.claude-plugin/marketplace.json`), so `hookbridge install PLUGIN@MARKETPLACE` works as
//! `/plugin install` does.
//!
//! The list of added marketplaces is per user, in `~/.amplifier/marketplaces.json`
//! (`{"marketplaces": {"<name>": {"source": "<as given>", "root": "<folder>"}}}`). A folder is
//! used where it is; a git URL is cloned into `~/.amplifier/marketplaces/<name>/` (adding it again
//! refreshes the clone). A plugin entry's `source` may be a relative folder (`./plugins/x`, under
//! `metadata.pluginRoot` when set), `{"source": "github", "repo": "owner/name"}`,
//! `{"source": "url", "url": …}` or `{"source": "git-subdir", "url": …, "path": …}`, each with an
//! optional `ref`; npm and pip sources are refused with a clear message.
//!
//! The one decision: a catalog is someone else's file, so nothing in it may reach outside what
//! it names — a folder source and a `git-subdir` `path` stay inside the marketplace or the
//! clone (no absolute path, no `..` out, no symlink out) — and a name is the user's: adding a
//! marketplace under a name already taken by another source is refused unless `--force`, which
//! says what it replaces.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, Subcommand};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::plugins::{git_clone, Source};
use super::{check_folder_name, home};
use crate::{say, UsageError};

#[derive(Args, Debug)]
pub struct MarketplaceArgs {
    #[command(subcommand)]
    command: MarketplaceCommand,
}

#[derive(Subcommand, Debug)]
enum MarketplaceCommand {
    /// Add (or refresh) a marketplace: a folder or git URL with `.claude-plugin/marketplace.json`.
    Add {
        source: String,
        /// Replace a marketplace of the same name added from another source.
        #[arg(long)]
        force: bool,
    },
    /// List the marketplaces added and their plugins.
    List,
    /// Forget a marketplace (its clone is deleted; installed plugins stay).
    Remove { name: String },
}

/// `~/.amplifier/marketplaces.json`.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Registry {
    #[serde(default)]
    marketplaces: BTreeMap<String, Entry>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    source: String,
    root: PathBuf,
    /// Whether hookbridge cloned it into `~/.amplifier/marketplaces/` (so `remove` deletes it);
    /// a folder added where it is is never deleted. Absent in registries written before it was
    /// kept: then a clone is a git source kept at `marketplaces/<name>` ([`Entry::is_clone`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cloned: Option<bool>,
}

impl Entry {
    /// Whether `remove` deletes its folder: hookbridge's own clone, never a folder of the user's
    /// (whatever its path spells: `~/.amplifier/marketplaces/x/../../../code` is the user's).
    fn is_clone(&self, clones: &Path) -> bool {
        self.cloned.unwrap_or_else(|| {
            let looks_like_git = |s: &str| s.contains("://") || s.starts_with("git@") || s.ends_with(".git");
            looks_like_git(&self.source)
                && self.root.parent() == Some(clones)
                && self
                    .root
                    .components()
                    .all(|c| matches!(c, std::path::Component::Normal(_) | std::path::Component::RootDir))
        })
    }
}

fn amplifier_home() -> Result<PathBuf, UsageError> {
    home()
        .map(|h| h.join(".amplifier"))
        .ok_or_else(|| UsageError("HOME is not set: marketplaces are kept in ~/.amplifier".into()))
}

fn registry_path() -> Result<PathBuf, UsageError> {
    Ok(amplifier_home()?.join("marketplaces.json"))
}

fn load_registry() -> anyhow::Result<Registry> {
    let path = registry_path()?;
    match crate::files::read_if_exists(&path)? {
        Some(text) => crate::files::parse_json(&text, &path),
        None => Ok(Registry::default()),
    }
}

fn save_registry(registry: &Registry) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(registry)? + "\n";
    crate::files::write_atomically(&registry_path()?, &text, crate::files::Scope::User)?;
    Ok(())
}

/// The catalog of the marketplace at `root`.
fn catalog(root: &Path) -> anyhow::Result<Value> {
    let path = root.join(".claude-plugin/marketplace.json");
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let value: Value = crate::files::parse_json(&text, &path)?;
    if !value.get("plugins").is_some_and(Value::is_array) {
        anyhow::bail!("{}: `plugins` is missing or not a list", path.display());
    }
    Ok(value)
}

pub fn marketplace(args: MarketplaceArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        MarketplaceCommand::Add { source, force } => add(&source, force),
        MarketplaceCommand::List => list(),
        MarketplaceCommand::Remove { name } => remove(&name),
    }
}

fn add(source: &str, force: bool) -> anyhow::Result<ExitCode> {
    let mut registry = load_registry()?;
    let clones = amplifier_home()?.join("marketplaces");
    let (name, root, cloned) = match Source::classify(source)? {
        Source::Folder(folder) => {
            // Where it really is: a path spelled through `..` or a symlink is kept as the folder
            // it names, so that no later command takes it for somewhere else.
            let folder = folder
                .canonicalize()
                .with_context(|| format!("resolving {}", folder.display()))?;
            let name = catalog_name(&catalog(&folder)?, &folder)?;
            check_replacing(&registry, &name, (&folder, false), source, &clones, force)?;
            (name, folder, false)
        }
        Source::Git { url, .. } => {
            std::fs::create_dir_all(&clones).with_context(|| format!("creating {}", clones.display()))?;
            let staging = tempfile::Builder::new().prefix(".adding-").tempdir_in(&clones)?;
            let clone = staging.path().join("clone");
            git_clone(&url, None, &clone)?;
            let name = catalog_name(&catalog(&clone)?, &clone)?;
            let root = clones.join(&name);
            check_replacing(&registry, &name, (&root, true), source, &clones, force)?;
            if root.exists() {
                std::fs::remove_dir_all(&root)
                    .with_context(|| format!("removing the old {}", root.display()))?;
            }
            std::fs::rename(&clone, &root)
                .with_context(|| format!("moving the clone to {}", root.display()))?;
            (name, root, true)
        }
        Source::Marketplace { .. } => {
            return Err(UsageError(format!("`{source}`: a marketplace is a folder or a git URL")).into())
        }
    };
    let plugins = catalog(&root)?["plugins"].as_array().map_or(0, Vec::len);
    let replaced = registry.marketplaces.insert(
        name.clone(),
        Entry {
            source: source.to_string(),
            root: root.clone(),
            cloned: Some(cloned),
        },
    );
    save_registry(&registry)?;
    let verb = match &replaced {
        None => "added".to_string(),
        Some(old) if same_origin(old, source, (&root, cloned), &clones) => "refreshed".to_string(),
        Some(old) => format!("replaced (it was {}, {})", old.source, old.root.display()),
    };
    say(format_args!(
        "{verb} marketplace `{name}` ({plugins} plugin(s), {}); install one with `hookbridge install PLUGIN@{name}`",
        root.display()
    ));
    Ok(ExitCode::SUCCESS)
}

/// Whether the marketplace `old` comes from the same place as a new one added from `source`
/// (found at `root`, and whether it is a clone): the same git URL for a clone, the same folder
/// otherwise.
fn same_origin(old: &Entry, source: &str, (root, cloned): (&Path, bool), clones: &Path) -> bool {
    match (old.is_clone(clones), cloned) {
        (true, true) => old.source == source,
        (false, false) => old.root == root,
        _ => false,
    }
}

/// Refuse to put a marketplace from `source` (at `root`) under `name` when another source holds
/// that name, unless `force`.
fn check_replacing(
    registry: &Registry,
    name: &str,
    root: (&Path, bool),
    source: &str,
    clones: &Path,
    force: bool,
) -> Result<(), UsageError> {
    match registry.marketplaces.get(name) {
        Some(old) if !force && !same_origin(old, source, root, clones) => Err(UsageError(format!(
            "a marketplace `{name}` is already added from {} ({}); `hookbridge marketplace add --force {source}` replaces it, `hookbridge marketplace remove {name}` forgets it",
            old.source,
            old.root.display()
        ))),
        _ => Ok(()),
    }
}

fn catalog_name(catalog: &Value, root: &Path) -> anyhow::Result<String> {
    let name = catalog
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| anyhow::anyhow!("{}: the marketplace has no `name`", root.display()))?;
    check_folder_name(name)?;
    Ok(name.to_string())
}

fn list() -> anyhow::Result<ExitCode> {
    use std::io::Write as _;
    let registry = load_registry()?;
    let mut out = std::io::stdout().lock();
    if registry.marketplaces.is_empty() {
        writeln!(
            out,
            "no marketplaces; add one with `hookbridge marketplace add <folder | git URL>`"
        )?;
    }
    for (name, entry) in &registry.marketplaces {
        writeln!(out, "{name}  ({}, {})", entry.source, entry.root.display())?;
        match catalog(&entry.root) {
            Ok(catalog) => {
                for plugin in catalog["plugins"].as_array().into_iter().flatten() {
                    writeln!(
                        out,
                        "  {}@{name}  {}",
                        plugin.get("name").and_then(Value::as_str).unwrap_or("?"),
                        plugin.get("description").and_then(Value::as_str).unwrap_or("")
                    )?;
                }
            }
            Err(e) => writeln!(out, "  cannot be read: {e:#}")?,
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn remove(name: &str) -> anyhow::Result<ExitCode> {
    let mut registry = load_registry()?;
    let Some(entry) = registry.marketplaces.remove(name) else {
        let hint = hookbridge_core::diagnostics::did_you_mean(
            name,
            registry.marketplaces.keys().map(String::as_str),
        );
        return Err(UsageError(format!("no marketplace `{name}`{hint}")).into());
    };
    save_registry(&registry)?;
    let clones = amplifier_home()?.join("marketplaces");
    if entry.is_clone(&clones) && entry.root.exists() {
        std::fs::remove_dir_all(&entry.root).with_context(|| format!("removing {}", entry.root.display()))?;
    }
    say(format_args!(
        "removed marketplace `{name}`; plugins installed from it stay"
    ));
    Ok(ExitCode::SUCCESS)
}

/// Where `plugin` of `marketplace` comes from.
pub fn plugin_source(plugin: &str, marketplace: &str) -> anyhow::Result<Source> {
    let registry = load_registry()?;
    let Some(entry) = registry.marketplaces.get(marketplace) else {
        let hint = hookbridge_core::diagnostics::did_you_mean(
            marketplace,
            registry.marketplaces.keys().map(String::as_str),
        );
        return Err(UsageError(format!(
            "no marketplace `{marketplace}`{hint}; add it with `hookbridge marketplace add <folder | git URL>`"
        ))
        .into());
    };
    let catalog = catalog(&entry.root)?;
    let plugins = catalog["plugins"].as_array().cloned().unwrap_or_default();
    let Some(found) = plugins
        .iter()
        .find(|p| p.get("name").and_then(Value::as_str) == Some(plugin))
    else {
        let names: Vec<&str> = plugins.iter().filter_map(|p| p.get("name")?.as_str()).collect();
        let hint = hookbridge_core::diagnostics::did_you_mean(plugin, names.iter().copied());
        return Err(UsageError(format!(
            "marketplace `{marketplace}` has no plugin `{plugin}`{hint}"
        ))
        .into());
    };
    let plugin_root = catalog
        .pointer("/metadata/pluginRoot")
        .and_then(Value::as_str)
        .unwrap_or("");
    resolve_source(found.get("source"), &entry.root, plugin_root)
        .map_err(|why| anyhow::anyhow!("{plugin}@{marketplace}: {why}"))
}

/// A marketplace entry's `source`, as a place to fetch from.
fn resolve_source(source: Option<&Value>, root: &Path, plugin_root: &str) -> Result<Source, String> {
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
    match source {
        Some(Value::String(path)) => {
            let base = if path.starts_with("./") || plugin_root.is_empty() {
                root.to_path_buf()
            } else {
                root.join(plugin_root)
            };
            let folder = base.join(path);
            let inside = folder
                .canonicalize()
                .ok()
                .zip(root.canonicalize().ok())
                .is_some_and(|(f, r)| f.starts_with(r));
            if !inside {
                return Err(format!("source `{path}` is not a folder inside the marketplace"));
            }
            Ok(Source::Folder(folder))
        }
        Some(object @ Value::Object(_)) => {
            let kind = text(object, "source").unwrap_or_default();
            let reference = text(object, "ref");
            match kind.as_str() {
                "github" => {
                    let repo = text(object, "repo").ok_or("a github source needs `repo`")?;
                    Ok(Source::Git {
                        url: format!("https://github.com/{repo}.git"),
                        reference,
                        subdir: None,
                    })
                }
                "url" | "git" => Ok(Source::Git {
                    url: text(object, "url").ok_or("a url source needs `url`")?,
                    reference,
                    subdir: None,
                }),
                "git-subdir" => {
                    let path = text(object, "path").ok_or("a git-subdir source needs `path`")?;
                    if !super::stays_inside(Path::new(""), Path::new(&path)) {
                        return Err(format!(
                            "git-subdir `path` `{path}` is not a folder inside the repository"
                        ));
                    }
                    Ok(Source::Git {
                        url: text(object, "url").ok_or("a git-subdir source needs `url`")?,
                        reference,
                        subdir: Some(path),
                    })
                }
                other => Err(format!(
                    "source kind `{other}` is not supported (folders, github, url and git-subdir are)"
                )),
            }
        }
        _ => Err("the entry has no usable `source`".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn entry_sources_resolve_to_folders_and_git_urls() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("plugins/fmt")).unwrap();
        assert_eq!(
            resolve_source(Some(&json!("./plugins/fmt")), root, ""),
            Ok(Source::Folder(root.join("./plugins/fmt")))
        );
        assert_eq!(
            resolve_source(Some(&json!("fmt")), root, "plugins"),
            Ok(Source::Folder(root.join("plugins").join("fmt")))
        );
        assert!(resolve_source(Some(&json!("../../etc")), root, "").is_err());
        assert_eq!(
            resolve_source(
                Some(&json!({"source": "github", "repo": "o/r", "ref": "v1"})),
                root,
                ""
            ),
            Ok(Source::Git {
                url: "https://github.com/o/r.git".into(),
                reference: Some("v1".into()),
                subdir: None
            })
        );
        assert_eq!(
            resolve_source(
                Some(&json!({"source": "git-subdir", "url": "https://x/y.git", "path": "p"})),
                root,
                ""
            ),
            Ok(Source::Git {
                url: "https://x/y.git".into(),
                reference: None,
                subdir: Some("p".into())
            })
        );
        for path in ["/etc", "../..", "a/../../b", "../x"] {
            let escaping = json!({"source": "git-subdir", "url": "https://x/y.git", "path": path});
            let err = resolve_source(Some(&escaping), root, "").unwrap_err();
            assert!(
                err.contains("not a folder inside the repository"),
                "{path}: {err}"
            );
        }
        let npm = resolve_source(Some(&json!({"source": "npm", "package": "x"})), root, "");
        assert!(npm.unwrap_err().contains("`npm` is not supported"));
    }
}
