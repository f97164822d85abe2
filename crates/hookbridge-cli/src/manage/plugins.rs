//! `hookbridge install` / `hookbridge uninstall`: a Claude Code plugin (or any folder with hooks)
//! copied, unmodified, into a hooks directory as `<hooks dir>/<name>/`, where discovery loads it
//! with `${CLAUDE_PLUGIN_ROOT}` pointing at it.
//!
//! The source is a folder, a git URL (cloned with `git clone --depth 1`), or `plugin@marketplace`
//! (see `marketplace.rs`). The copy is assembled in a hidden folder of the hooks directory
//! (discovery skips names starting with `.`) and renamed into place, so a `hookbridge run` at the
//! same moment sees the old plugin or the new one, never half of one. A source with no hooks is
//! refused and nothing stays behind. Only regular files, folders and symlinks that stay inside
//! the plugin are copied (a FIFO would hang the copy, a device or socket means nothing in a
//! plugin, a symlink out would reach the user's files); anything else is left out and named.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use hookbridge_core::config::{HooksDirState, STATE_FILE_NAME};

use super::{check_plugin_name, marketplace, HooksDirArgs};
use crate::{say, UsageError};

#[derive(Args, Debug)]
pub struct InstallArgs {
    /// A plugin folder, a git URL (`https://…`, `git@…`, `file://…`, `….git`), or
    /// `PLUGIN@MARKETPLACE` from a marketplace added with `hookbridge marketplace add`.
    source: String,
    /// The folder name in the hooks directory. Default: the manifest's `name`, else the source's
    /// folder or repository name.
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// Replace a plugin of the same name.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    dir: HooksDirArgs,
}

#[derive(Args, Debug)]
pub struct UninstallArgs {
    /// The plugin's folder name in the hooks directory (`hookbridge list` shows it).
    name: String,
    #[command(flatten)]
    dir: HooksDirArgs,
}

/// Where a plugin comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Folder(PathBuf),
    /// A git URL, optionally a branch or tag, and a folder inside the repository.
    Git {
        url: String,
        reference: Option<String>,
        subdir: Option<String>,
    },
    Marketplace {
        plugin: String,
        marketplace: String,
    },
}

impl Source {
    pub fn classify(text: &str) -> Result<Source, UsageError> {
        if Path::new(text).exists() {
            return Ok(Source::Folder(
                std::path::absolute(text).map_err(|e| UsageError(e.to_string()))?,
            ));
        }
        if text.contains("://") || text.starts_with("git@") || text.ends_with(".git") {
            return Ok(Source::Git {
                url: text.to_string(),
                reference: None,
                subdir: None,
            });
        }
        if let Some((plugin, marketplace)) = text.rsplit_once('@') {
            let plain = |s: &str| !s.is_empty() && !s.contains(['/', '\\']);
            if plain(plugin) && plain(marketplace) {
                return Ok(Source::Marketplace {
                    plugin: plugin.into(),
                    marketplace: marketplace.into(),
                });
            }
        }
        Err(UsageError(format!(
            "`{text}` is not a folder that exists, a git URL, or PLUGIN@MARKETPLACE"
        )))
    }
}

pub fn install(args: InstallArgs) -> anyhow::Result<ExitCode> {
    let dir = args.dir.resolve()?;
    let hooks_dir = dir.writable()?;
    let (source, default_name) = match Source::classify(&args.source)? {
        Source::Marketplace { plugin, marketplace } => {
            (marketplace::plugin_source(&plugin, &marketplace)?, Some(plugin))
        }
        other => (other, None),
    };
    if let Some(name) = &args.name {
        check_plugin_name(name)?;
    }
    std::fs::create_dir_all(&hooks_dir).with_context(|| format!("creating {}", dir.dir.display()))?;
    let staging = tempfile::Builder::new()
        .prefix(".installing-")
        .tempdir_in(&hooks_dir)
        .with_context(|| format!("creating a staging folder in {}", dir.dir.display()))?;
    let fetched = staging.path().join("plugin");
    for left_out in fetch(&source, &fetched)? {
        say(format_args!("warning: {left_out}"));
    }
    let name = plugin_name(args.name.clone(), &fetched, default_name, &source)?;
    let dest = hooks_dir.join(&name);
    let replaced = std::fs::symlink_metadata(&dest).is_ok();
    if replaced && !args.force {
        return Err(UsageError(format!(
            "{} already exists: `hookbridge install --force` replaces it, `hookbridge uninstall {name}` removes it",
            dest.display()
        ))
        .into());
    }
    if replaced {
        std::fs::rename(&dest, staging.path().join("old"))
            .with_context(|| format!("moving the old {} aside", dest.display()))?;
    }
    std::fs::rename(&fetched, &dest).with_context(|| format!("moving the plugin into {}", dest.display()))?;

    let set = dir.load();
    let ours: Vec<_> = set
        .hooks()
        .filter(|(_, _, hook)| hook.source.path.starts_with(&dest))
        .collect();
    if ours.is_empty() {
        roll_back(&dest, staging.path(), replaced)?;
        let problems: Vec<String> = set
            .diagnostics
            .iter()
            .filter(|d| d.file.as_ref().is_some_and(|f| f.starts_with(&dest)))
            .map(ToString::to_string)
            .collect();
        anyhow::bail!(
            "{}: no hooks found (a Claude Code plugin with hooks/hooks.json or hooks in .claude-plugin/plugin.json, or a hooks.json); nothing was installed{}",
            args.source,
            if problems.is_empty() {
                String::new()
            } else {
                format!("\n{}", problems.join("\n"))
            }
        );
    }
    let runs_hookbridge = ours.iter().any(|(event, _, hook)| {
        matches!(&hook.kind, hookbridge_core::config::HookKind::Command(c)
            if crate::install_into::claude_settings::is_hookbridge_run(&c.command, event.as_str()))
    });
    if runs_hookbridge {
        roll_back(&dest, staging.path(), replaced)?;
        anyhow::bail!(
            "{}: its hooks run `hookbridge run`: it registers hookbridge with Claude Code (use it with `/plugin install` or `hookbridge install-into claude`); behind hookbridge it would run itself; nothing was installed",
            args.source
        );
    }
    let mut events: Vec<&str> = ours.iter().map(|(e, _, _)| e.as_str()).collect();
    events.dedup();
    say(format_args!(
        "{} plugin `{name}` in {}: {} hook(s) on {}",
        if replaced { "replaced" } else { "installed" },
        dest.display(),
        ours.len(),
        events.join(", ")
    ));
    let problems = set
        .diagnostics
        .iter()
        .filter(|d| d.file.as_ref().is_some_and(|f| f.starts_with(&dest)));
    for d in problems {
        say(format_args!("{d}"));
    }
    say(format_args!(
        "`hookbridge validate{}` checks it; `hookbridge disable {name}{}` switches it off",
        user_flag(&args.dir),
        user_flag(&args.dir)
    ));
    Ok(ExitCode::SUCCESS)
}

pub fn uninstall(args: UninstallArgs) -> anyhow::Result<ExitCode> {
    let dir = args.dir.resolve()?;
    check_plugin_name(&args.name)?;
    // Only the plugin's own entry goes (a symlinked plugin: the link), in a directory in scope;
    // the state file its entries leave must be in scope too, or nothing is done.
    let dest = dir.writable()?.join(&args.name);
    let state_path = dir.dir.join(STATE_FILE_NAME);
    dir.scope().check(&state_path)?;
    let meta = match std::fs::symlink_metadata(&dest) {
        Ok(meta) => meta,
        Err(_) => {
            let hint = hookbridge_core::diagnostics::did_you_mean(
                &args.name,
                dir.plugin_names().iter().map(String::as_str),
            );
            return Err(UsageError(format!(
                "no plugin `{}` in {}{hint}",
                args.name,
                dir.dir.display()
            ))
            .into());
        }
    };
    if meta.file_type().is_symlink() {
        std::fs::remove_file(&dest)
    } else {
        std::fs::remove_dir_all(&dest)
    }
    .with_context(|| format!("removing {}", dest.display()))?;
    say(format_args!(
        "removed plugin `{}` ({})",
        args.name,
        dest.display()
    ));
    // Its entries in hookbridge-state.json go with it.
    if let Ok(text) = std::fs::read_to_string(&state_path) {
        if let Ok(mut state) = HooksDirState::parse(&text, &state_path) {
            let before = state.clone();
            state.disabled_plugins.retain(|p| p != &args.name);
            state
                .disabled_hooks
                .retain(|h| h.plugin.as_deref() != Some(args.name.as_str()));
            if state != before {
                if state.is_empty() {
                    std::fs::remove_file(&state_path)?;
                } else {
                    crate::files::write_atomically(&state_path, &state.to_json(), dir.scope())?;
                }
            }
        }
    }
    if let Some(home) = super::home() {
        use hookbridge_core::config::{plugin_data_dir, DiscoveryOptions, Scope};
        let options = DiscoveryOptions::new(&dir.project_dir, Some(&home));
        let scope = if args.dir.user {
            Scope::User
        } else {
            Scope::Project
        };
        let data = plugin_data_dir(&options, scope, &args.name);
        if data.exists() {
            say(format_args!("its data folder {} is kept", data.display()));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Take the new plugin out of `dest` and put back the one it replaced, if any.
fn roll_back(dest: &Path, staging: &Path, replaced: bool) -> anyhow::Result<()> {
    std::fs::remove_dir_all(dest).with_context(|| format!("removing {}", dest.display()))?;
    if replaced {
        std::fs::rename(staging.join("old"), dest)
            .with_context(|| format!("putting the old {} back", dest.display()))?;
    }
    Ok(())
}

fn user_flag(dir: &HooksDirArgs) -> &'static str {
    if dir.user {
        " --user"
    } else {
        ""
    }
}

/// Put the plugin of `source` at `dest` (which does not exist yet); returns what was left out.
pub fn fetch(source: &Source, dest: &Path) -> anyhow::Result<Vec<LeftOut>> {
    match source {
        Source::Folder(folder) => {
            if !folder.is_dir() {
                return Err(UsageError(format!("{} is not a folder", folder.display())).into());
            }
            copy_tree(folder, dest)
        }
        Source::Git {
            url,
            reference,
            subdir,
        } => {
            let clone = dest.with_extension("clone");
            git_clone(url, reference.as_deref(), &clone)?;
            let from = match subdir {
                Some(sub) => inside_clone(&clone, sub).map_err(|why| anyhow::anyhow!("{url}: {why}"))?,
                None => clone.clone(),
            };
            let left_out = copy_tree(&from, dest)?;
            std::fs::remove_dir_all(&clone).with_context(|| format!("removing {}", clone.display()))?;
            Ok(left_out)
        }
        Source::Marketplace { .. } => unreachable!("resolved to a folder or git source first"),
    }
}

/// The folder `sub` of the repository cloned at `clone`, which must really be inside it (no
/// absolute path, no `..` out, no symlink out).
fn inside_clone(clone: &Path, sub: &str) -> Result<PathBuf, String> {
    let outside = || format!("the folder `{sub}` is not inside the repository");
    if !super::stays_inside(Path::new(""), Path::new(sub)) {
        return Err(outside());
    }
    let from = clone.join(sub);
    let real = from
        .canonicalize()
        .map_err(|_| format!("the repository has no folder `{sub}`"))?;
    let root = clone
        .canonicalize()
        .map_err(|e| format!("{}: {e}", clone.display()))?;
    if !real.starts_with(&root) {
        return Err(outside());
    }
    if !real.is_dir() {
        return Err(format!("the repository has no folder `{sub}`"));
    }
    Ok(real)
}

/// `git clone --depth 1` of `url` (at `reference`, a branch or tag) into `dest`.
pub fn git_clone(url: &str, reference: Option<&str>, dest: &Path) -> anyhow::Result<()> {
    let mut git = std::process::Command::new("git");
    git.args(["clone", "--quiet", "--depth", "1"]);
    if let Some(reference) = reference {
        git.args(["--branch", reference]);
    }
    git.arg("--").arg(url).arg(dest);
    git.stdin(std::process::Stdio::null());
    let out = git
        .output()
        .context("starting `git` (it must be installed to install from a git URL)")?;
    if !out.status.success() {
        anyhow::bail!(
            "git clone {url} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}

/// An entry of a plugin folder that was not copied, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    pub path: PathBuf,
    pub why: String,
}

impl std::fmt::Display for LeftOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} is left out: {}", self.path.display(), self.why)
    }
}

/// Copy the folder `from` to `to` (which must not exist): regular files with their permissions,
/// folders, and symlinks as symlinks when they stay inside the folder (and lead to something); a top-level `.git` is left
/// out silently, anything else is left out and returned. A file is opened without blocking and
/// checked to be regular before it is read, so a FIFO never hangs the copy.
pub fn copy_tree(from: &Path, to: &Path) -> anyhow::Result<Vec<LeftOut>> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    // Where the source really is: a link that passes the check by its words can still lead out
    // through another link (`d -> ../../..`, then `esc -> d/../..`); where it resolves is checked
    // too (a copy resolves as its source does).
    let real_from = from.canonicalize().unwrap_or_else(|_| from.to_path_buf());
    let mut left_out = Vec::new();
    let mut stack = vec![(from.to_path_buf(), to.to_path_buf(), PathBuf::new())];
    while let Some((src, dst, relative)) = stack.pop() {
        for entry in std::fs::read_dir(&src).with_context(|| format!("reading {}", src.display()))? {
            let entry = entry?;
            if src == from && entry.file_name() == ".git" {
                continue;
            }
            let kind = entry.file_type()?;
            let target = dst.join(entry.file_name());
            let inner = relative.join(entry.file_name());
            let mut leave = |why: String| {
                left_out.push(LeftOut {
                    path: entry.path(),
                    why,
                })
            };
            if kind.is_symlink() {
                let link = std::fs::read_link(entry.path())?;
                // One that leads nowhere here leads out too: copied, it resolves from its new
                // folder (`a/b/x -> l/../../../SECRET` beside `a/b/l -> ../..`: red-team pass 12).
                let leads_out = !entry
                    .path()
                    .canonicalize()
                    .is_ok_and(|real| real.starts_with(&real_from));
                if !super::stays_inside(&relative, &link) || leads_out {
                    leave(format!(
                        "a symlink to {}, outside the plugin (only links inside it are copied)",
                        link.display()
                    ));
                    continue;
                }
                std::os::unix::fs::symlink(&link, &target)
                    .with_context(|| format!("linking {}", target.display()))?;
            } else if kind.is_dir() {
                std::fs::create_dir(&target).with_context(|| format!("creating {}", target.display()))?;
                stack.push((entry.path(), target, inner));
            } else if kind.is_file() {
                if let Some(why) = copy_file(&entry.path(), &target)? {
                    leave(why);
                }
            } else {
                leave(format!(
                    "{} (only regular files, folders and symlinks are copied)",
                    kind_name(&kind)
                ));
            }
        }
    }
    Ok(left_out)
}

/// Copy the regular file `from` to the new file `to`, with its permissions; `Some(why)` when
/// `from` is not a regular file once opened (it changed since it was listed).
fn copy_file(from: &Path, to: &Path) -> anyhow::Result<Option<String>> {
    use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
    let copying = || format!("copying {} to {}", from.display(), to.display());
    let flags = rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOFOLLOW;
    let mut source = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags.bits() as i32)
        .open(from)
        .with_context(copying)?;
    let meta = source.metadata().with_context(copying)?;
    if !meta.is_file() {
        return Ok(Some(format!(
            "{} (only regular files are copied)",
            kind_name(&meta.file_type())
        )));
    }
    let mut dest = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(meta.permissions().mode() & 0o777)
        .open(to)
        .with_context(copying)?;
    std::io::copy(&mut source, &mut dest).with_context(copying)?;
    dest.set_permissions(std::fs::Permissions::from_mode(meta.permissions().mode() & 0o777))
        .with_context(copying)?;
    Ok(None)
}

/// What a file that is not copied is.
fn kind_name(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt as _;
    if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_block_device() || kind.is_char_device() {
        "a device"
    } else if kind.is_symlink() {
        "a symlink"
    } else if kind.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

/// The plugin's folder name: `--name`, else the manifest's `name`, else the marketplace entry's,
/// else the last part of the source; checked to be usable.
fn plugin_name(
    given: Option<String>,
    fetched: &Path,
    default_name: Option<String>,
    source: &Source,
) -> anyhow::Result<String> {
    let name = match given {
        Some(name) => name,
        None => match manifest_name(fetched)?.or(default_name) {
            Some(name) => name,
            None => source_name(source)?,
        },
    };
    check_plugin_name(&name)?;
    Ok(name)
}

/// The `name` in the plugin's `.claude-plugin/plugin.json`, if it has one; a name that cannot be
/// the plugin's folder (a path, or a file hookbridge reads in the hooks directory) is an error.
fn manifest_name(plugin: &Path) -> Result<Option<String>, UsageError> {
    // As discovery reads it: a regular file, bounded, never waiting on a FIFO or `/dev/stdin`.
    let manifest = plugin.join(".claude-plugin/plugin.json");
    let Ok(text) =
        hookbridge_core::config::read_bounded(&manifest, hookbridge_core::config::MAX_CONFIG_BYTES)
    else {
        return Ok(None);
    };
    let Ok(manifest) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Ok(None);
    };
    let Some(name) = manifest.get("name").and_then(serde_json::Value::as_str) else {
        return Ok(None);
    };
    check_plugin_name(name).map_err(|e| UsageError(format!("the plugin's manifest names it: {e}")))?;
    Ok(Some(name.to_string()))
}

/// The last part of the source's path or URL (without `.git`).
fn source_name(source: &Source) -> anyhow::Result<String> {
    let text = match source {
        Source::Folder(folder) => folder.to_string_lossy().into_owned(),
        Source::Git {
            url,
            subdir: Some(sub),
            ..
        } => format!("{url}/{sub}"),
        Source::Git { url, .. } => url.clone(),
        Source::Marketplace { plugin, .. } => plugin.clone(),
    };
    let last = text
        .trim_end_matches('/')
        .rsplit(['/', ':'])
        .next()
        .unwrap_or_default()
        .trim_end_matches(".git")
        .to_string();
    check_plugin_name(&last)?;
    Ok(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_told_apart() {
        let here = std::env::current_dir().unwrap();
        assert_eq!(
            Source::classify(".").ok(),
            Some(Source::Folder(std::path::absolute(".").unwrap()))
        );
        assert!(here.is_absolute());
        for url in [
            "https://github.com/a/b",
            "git@github.com:a/b.git",
            "file:///tmp/x",
            "x.git",
        ] {
            assert!(matches!(Source::classify(url), Ok(Source::Git { .. })), "{url}");
        }
        assert_eq!(
            Source::classify("fmt@tools").ok(),
            Some(Source::Marketplace {
                plugin: "fmt".into(),
                marketplace: "tools".into()
            })
        );
        assert!(Source::classify("no/such/folder").is_err());
        assert!(Source::classify("@tools").is_err());
    }

    #[test]
    fn names_come_from_the_last_part_of_the_source() {
        let git = |url: &str| Source::Git {
            url: url.into(),
            reference: None,
            subdir: None,
        };
        assert_eq!(
            source_name(&git("https://github.com/a/guard.git")).unwrap(),
            "guard"
        );
        assert_eq!(source_name(&git("git@github.com:a/guard")).unwrap(), "guard");
        assert_eq!(source_name(&Source::Folder("/x/plug/".into())).unwrap(), "plug");
    }
}
