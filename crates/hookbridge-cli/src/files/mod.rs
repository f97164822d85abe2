//! Reading and writing the files the management commands own (Claude Code settings,
//! `hookbridge-state.json`, the marketplace list, other agents' hook files, migrated hooks): a
//! missing file is `None`, bad JSON names the file, line and column, and writes are atomic, so a
//! crash or a full disk never leaves half a file where an agent reads its configuration.
//!
//! The one decision: every write names its [`Scope`]. A project's files are written only where
//! they really lie inside the project (a symlink that leads out is refused, see `scope.rs`), the
//! user's own through their symlinks; a file replaced keeps its mode and owner, and so does its
//! backup, because these files hold API keys and permission rules. A file another program may be
//! editing at the same moment is replaced with `replace.rs`'s check-and-exchange.

mod replace;
mod scope;

use std::io::Write as _;
use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use anyhow::Context as _;

pub use replace::{replace, Replaced, Snapshot};
pub use scope::Scope;

/// The text of `path`; `None` when there is no file there. Read as discovery reads a config file
/// (a regular file only, at most [`MAX_CONFIG_BYTES`](hookbridge_core::config::MAX_CONFIG_BYTES)):
/// a repository's `.cursor/hooks.json` that is a symlink to `/dev/zero` or a FIFO is an error
/// naming the file, never a read without end.
pub fn read_if_exists(path: &Path) -> anyhow::Result<Option<String>> {
    use hookbridge_core::config::{read_bounded, ReadError, MAX_CONFIG_BYTES};
    match read_bounded(path, MAX_CONFIG_BYTES) {
        Ok(text) => Ok(Some(text)),
        Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

/// `text`, the content of `path`, as JSON; an error names the file, line and column.
pub fn parse_json<T: serde::de::DeserializeOwned>(text: &str, path: &Path) -> anyhow::Result<T> {
    serde_json::from_str(text).map_err(|e| {
        anyhow::anyhow!(
            "{}:{}:{}: not valid JSON: {e}",
            path.display(),
            e.line(),
            e.column()
        )
    })
}

/// Replace `file` with `text`: a temporary file in the same directory, synced, renamed over it
/// (through a symlink, over the file it names, when `scope` allows where it leads), with the mode
/// and owner the old file had. Returns the path written.
pub fn write_atomically(file: &Path, text: &str, scope: Scope<'_>) -> anyhow::Result<PathBuf> {
    let target = scope.check(file)?;
    let dir = target.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut temp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
    temp.write_all(text.as_bytes())?;
    if let Ok(meta) = std::fs::metadata(&target) {
        keep_mode_and_owner(temp.as_file(), &meta)?;
    }
    temp.as_file().sync_all()?;
    temp.persist(&target)
        .with_context(|| format!("writing {}", target.display()))?;
    Ok(target)
}

/// Write `bytes` as the file `file` names, for an output the user named on the command line (a
/// report page): never through a symlink at that name — a cloned repository may put one where the
/// default output lands, leading to the user's own files — and never half-written: a temporary
/// file in the same folder is renamed over it, and rename replaces a name, never what it leads to.
/// A symlink already there is refused (nothing is written), so no one's link is lost either.
pub fn write_output(file: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if std::fs::symlink_metadata(file).is_ok_and(|m| m.file_type().is_symlink()) {
        anyhow::bail!(
            "{} is a symlink: hookbridge does not write through one (it may lead anywhere); name another file or remove the link; nothing was written",
            file.display()
        );
    }
    let dir = match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut temp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
    temp.write_all(bytes)
        .and_then(|()| temp.as_file().sync_all())
        .with_context(|| format!("writing {}", file.display()))?;
    // A new page holds what the audit log holds (commands, reasons), so it is the user's alone
    // (0600, as the log is); one replaced keeps the mode and owner it had.
    if let Ok(meta) = std::fs::metadata(file) {
        keep_mode_and_owner(temp.as_file(), &meta).with_context(|| format!("writing {}", file.display()))?;
    }
    temp.persist(file)
        .with_context(|| format!("writing {}", file.display()))?;
    Ok(())
}

/// Give `file` the permission bits and the owner of `like` (the owner as far as this user may:
/// root gives any, another user only itself and its groups, so the mode is never wider).
pub(crate) fn keep_mode_and_owner(file: &std::fs::File, like: &std::fs::Metadata) -> std::io::Result<()> {
    match std::os::unix::fs::fchown(file, Some(like.uid()), Some(like.gid())) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {}
        Err(e) => return Err(e),
    }
    file.set_permissions(std::fs::Permissions::from_mode(like.mode() & 0o777))
}

/// What [`keep_backup`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backup {
    /// The backup was written now.
    Made(PathBuf),
    /// A backup from an earlier run is there: the file as it was before hookbridge first changed
    /// it, kept as it is.
    Kept(PathBuf),
}

/// Keep `old`, the content of `target` before this change, as `<target>.hookbridge-backup` with
/// `target`'s mode and owner — unless a backup is already there: the first one is never
/// overwritten (only its mode narrowed to `target`'s if it was wider). The backup is created, never opened through a symlink; anything but a regular
/// file at its name is an error (nothing was changed).
pub fn keep_backup(target: &Path, old: &[u8]) -> anyhow::Result<Backup> {
    let mut name = target.file_name().unwrap_or_default().to_os_string();
    name.push(".hookbridge-backup");
    let backup = target.with_file_name(name);
    let like = std::fs::metadata(target).with_context(|| format!("reading {}", target.display()))?;
    let created = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600 & like.mode())
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(&backup);
    let mut file = match created {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let found = std::fs::symlink_metadata(&backup)
                .with_context(|| format!("reading {}", backup.display()))?;
            if !found.is_file() {
                anyhow::bail!(
                    "{} is there and is not a regular file (a symlink?): the backup cannot be kept there; remove it; nothing was changed",
                    backup.display()
                );
            }
            // One written before backups kept the mode (0644 beside a 0600 file) is narrowed.
            let wider = found.mode() & 0o777 & !like.mode();
            if wider != 0 {
                let narrowed = std::fs::Permissions::from_mode(found.mode() & like.mode() & 0o777);
                std::fs::set_permissions(&backup, narrowed)
                    .with_context(|| format!("narrowing the mode of {}", backup.display()))?;
            }
            return Ok(Backup::Kept(backup));
        }
        Err(e) => return Err(e).with_context(|| format!("creating {}", backup.display())),
    };
    let written = keep_mode_and_owner(&file, &like)
        .and_then(|()| file.write_all(old))
        .and_then(|()| file.sync_all());
    if let Err(e) = written {
        let _ = std::fs::remove_file(&backup);
        return Err(e).with_context(|| format!("writing {}", backup.display()));
    }
    Ok(Backup::Made(backup))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_backup_keeps_the_mode_and_the_first_one_stays() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("settings.json");
        std::fs::write(&file, "first").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        let made = keep_backup(&file, b"first").unwrap();
        let backup = tmp.path().join("settings.json.hookbridge-backup");
        assert_eq!(made, Backup::Made(backup.clone()));
        let meta = std::fs::metadata(&backup).unwrap();
        assert_eq!(meta.mode() & 0o777, 0o600);
        assert_eq!(meta.uid(), std::fs::metadata(&file).unwrap().uid());

        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
        std::fs::set_permissions(&backup, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(
            keep_backup(&file, b"second").unwrap(),
            Backup::Kept(backup.clone())
        );
        assert_eq!(std::fs::read_to_string(&backup).unwrap(), "first");
        assert_eq!(std::fs::metadata(&backup).unwrap().mode() & 0o777, 0o640);

        // A symlink at the backup's name is never written through.
        let elsewhere = tmp.path().join("elsewhere");
        std::fs::remove_file(&backup).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &backup).unwrap();
        let err = keep_backup(&file, b"third").unwrap_err().to_string();
        assert!(err.contains("not a regular file"), "{err}");
        assert!(!elsewhere.exists());
    }

    #[test]
    fn an_atomic_write_keeps_the_mode_and_refuses_to_leave_the_project() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("project");
        std::fs::create_dir_all(&project).unwrap();
        let file = project.join("state.json");
        std::fs::write(&file, "old").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomically(&file, "new", Scope::Project(&project)).unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "new");
        assert_eq!(std::fs::metadata(&file).unwrap().mode() & 0o777, 0o640);

        let outside = tmp.path().join("outside.json");
        std::fs::write(&outside, "theirs").unwrap();
        let link = project.join("linked.json");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        let err = write_atomically(&link, "new", Scope::Project(&project)).unwrap_err();
        assert!(err.to_string().contains("outside the project"), "{err}");
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "theirs");
        write_atomically(&link, "mine", Scope::User).unwrap();
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "mine");
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    }
}
