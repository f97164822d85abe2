//! Replacing (or removing) a file that another program may be editing at the same moment,
//! without losing that program's edit.
//!
//! The one decision: check and exchange, not lock. Claude Code takes no lock on its settings
//! files — 2.1.328 re-reads the file, then renames a temporary file over it — and Gemini CLI
//! writes its own in place without one, so there is no lock hookbridge could honour, and one only
//! hookbridge took would keep nobody out. Instead an edit is computed from a [`Snapshot`] (the
//! file's bytes and identity: device, inode, size, modification time, read through one open
//! file), and [`replace`] takes a new snapshot just before the rename: a change in between
//! answers [`Replaced::Changed`], and the caller edits the new content and tries again. The rename
//! is an exchange where the system has one (`renameat2(RENAME_EXCHANGE)` on Linux,
//! `RENAME_SWAP` on macOS): the version it displaced is then in hand and compared too (its
//! identity first, one `lstat`), and a version that landed between the check and the exchange is
//! put back two system calls later, and the edit done again on top of it. Only a reader in those
//! microseconds sees the edit made on the older version. A file created meanwhile is never overwritten
//! (`RENAME_NOREPLACE`). What no file protocol can stop is the other program's own read-then-rename
//! dropping hookbridge's edit; running the command again redoes only what is missing.

use std::io::{Read as _, Write as _};
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use rustix::fs::{RenameFlags, CWD};

/// A file's content and identity, as an edit was computed from them; no content: no file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    content: Option<(Identity, Vec<u8>)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: i64,
    mtime_nsec: i64,
}

impl Identity {
    fn of(meta: &std::fs::Metadata) -> Identity {
        Identity {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: meta.mtime(),
            mtime_nsec: meta.mtime_nsec(),
        }
    }
}

/// The largest file a snapshot reads: as large as a hooks file may be.
pub const MAX_SNAPSHOT_BYTES: u64 = hookbridge_core::config::MAX_CONFIG_BYTES;

impl Snapshot {
    /// `path` as it is now (through a symlink, the file it names): a regular file of at most
    /// [`MAX_SNAPSHOT_BYTES`], opened without waiting (a FIFO there neither hangs the command nor
    /// floods it: red-team pass 12), or an error naming what it is.
    pub fn take(path: &Path) -> std::io::Result<Snapshot> {
        use std::os::unix::fs::OpenOptionsExt;
        let mut file = match std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
            .open(path)
        {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Snapshot { content: None }),
            Err(e) => return Err(e),
        };
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(std::io::Error::other(format!(
                "{} is not a regular file",
                path.display()
            )));
        }
        if meta.len() > MAX_SNAPSHOT_BYTES {
            return Err(std::io::Error::other(format!(
                "{} is larger than {MAX_SNAPSHOT_BYTES} bytes",
                path.display()
            )));
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        (&mut file).take(MAX_SNAPSHOT_BYTES + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > MAX_SNAPSHOT_BYTES {
            return Err(std::io::Error::other(format!(
                "{} grew past {MAX_SNAPSHOT_BYTES} bytes",
                path.display()
            )));
        }
        Ok(Snapshot {
            content: Some((Identity::of(&meta), bytes)),
        })
    }

    /// The file's bytes; `None` when there was no file.
    pub fn bytes(&self) -> Option<&[u8]> {
        self.content.as_ref().map(|(_, bytes)| bytes.as_slice())
    }
}

/// What [`replace`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replaced {
    /// The file now holds the new content (or is gone), and what it replaced was `expected`.
    Done,
    /// The file is no longer as `expected` says, and was left as it is: edit it again.
    Changed,
}

/// Make `target` (a real path, no symlink on the way) hold `text`, or remove it for `None`, if it
/// still is as `expected` says. The new file gets the mode and owner of the old one.
pub fn replace(target: &Path, expected: &Snapshot, text: Option<&[u8]>) -> anyhow::Result<Replaced> {
    match text {
        Some(text) => write(target, expected, text),
        None => remove(target, expected),
    }
}

fn write(target: &Path, expected: &Snapshot, text: &[u8]) -> anyhow::Result<Replaced> {
    let dir = target.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut temp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
    temp.write_all(text)?;
    if let Ok(meta) = std::fs::metadata(target) {
        super::keep_mode_and_owner(temp.as_file(), &meta)?;
    }
    temp.as_file().sync_all()?;
    let ours = temp.as_file().metadata()?.ino();
    let writing = || format!("writing {}", target.display());

    if Snapshot::take(target).with_context(writing)? != *expected {
        return Ok(Replaced::Changed);
    }
    if expected.content.is_none() {
        // A new file: never over one created since the check.
        return match temp.persist_noclobber(target) {
            Ok(_) => Ok(Replaced::Done),
            Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => Ok(Replaced::Changed),
            Err(e) => Err(e.error).with_context(writing),
        };
    }
    match exchange(temp.path(), target) {
        Ok(true) => {}
        Ok(false) => {
            // No exchange on this file system: the check above is the last word.
            temp.persist(target).map_err(|e| e.error).with_context(writing)?;
            return Ok(Replaced::Done);
        }
        Err(e) => return Err(e).with_context(writing),
    }
    // The version just replaced is at the temporary path now (and goes with it when it drops).
    // Its identity is looked at first, with one `lstat`, so that a newer version that landed
    // between the check and the exchange is back in place within microseconds: until then
    // anyone reading the file reads the edit made on the older one.
    let identity_at = |path: &Path| -> anyhow::Result<Identity> {
        Ok(Identity::of(
            &std::fs::symlink_metadata(path).with_context(writing)?,
        ))
    };
    let displaced = identity_at(temp.path())?;
    if expected.content.as_ref().map(|(identity, _)| identity) == Some(&displaced)
        && Snapshot::take(temp.path()).with_context(writing)? == *expected
    {
        return Ok(Replaced::Done);
    }
    // Another write landed between the check and the exchange: put it back, then edit again.
    exchange(temp.path(), target).with_context(writing)?;
    if identity_at(temp.path())?.ino == ours {
        return Ok(Replaced::Changed);
    }
    // Yet another write replaced ours meanwhile, and is the newest: it goes back in place, and
    // the one before it (which it followed) is what the temporary path holds again.
    exchange(temp.path(), target).with_context(writing)?;
    if identity_at(temp.path())? == displaced {
        return Ok(Replaced::Changed);
    }
    let (_, kept) = temp.keep().map_err(|e| e.error).with_context(writing)?;
    anyhow::bail!(
        "{} changed several times within a moment while hookbridge edited it: hookbridge's change is not in it, and a version it could not put back is kept as {}",
        target.display(),
        kept.display()
    )
}

fn remove(target: &Path, expected: &Snapshot) -> anyhow::Result<Replaced> {
    let removing = || format!("removing {}", target.display());
    if expected.content.is_none() {
        return Ok(Replaced::Done);
    }
    if Snapshot::take(target).with_context(removing)? != *expected {
        return Ok(Replaced::Changed);
    }
    let dir = target.parent().unwrap_or(Path::new("."));
    // Moved aside first (atomically), and removed only once it is seen to be the one expected.
    let aside = tempfile::Builder::new()
        .prefix(".hookbridge-removing-")
        .tempfile_in(dir)
        .with_context(removing)?
        .into_temp_path();
    std::fs::rename(target, &aside).with_context(removing)?;
    if Snapshot::take(&aside).with_context(removing)? == *expected {
        return Ok(Replaced::Done);
    }
    match rename_noreplace(&aside, target) {
        Ok(()) => Ok(Replaced::Changed),
        Err(e) => {
            let kept: PathBuf = aside.keep().with_context(removing)?;
            Err(e).with_context(|| {
                format!(
                    "{} changed while hookbridge removed it, and a new one was made meanwhile; the changed one is kept as {}",
                    target.display(),
                    kept.display()
                )
            })
        }
    }
}

/// Swap `a` and `b` atomically; `false` when this file system cannot.
fn exchange(a: &Path, b: &Path) -> std::io::Result<bool> {
    match rustix::fs::renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE) {
        Ok(()) => Ok(true),
        Err(e) if unsupported(e) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Rename `from` to `to` unless `to` exists.
fn rename_noreplace(from: &Path, to: &Path) -> std::io::Result<()> {
    match rustix::fs::renameat_with(CWD, from, CWD, to, RenameFlags::NOREPLACE) {
        Ok(()) => Ok(()),
        Err(e) if unsupported(e) => {
            std::fs::hard_link(from, to)?;
            std::fs::remove_file(from)
        }
        Err(e) => Err(e.into()),
    }
}

fn unsupported(e: rustix::io::Errno) -> bool {
    use rustix::io::Errno;
    [Errno::INVAL, Errno::NOSYS, Errno::OPNOTSUPP, Errno::NOTSUP].contains(&e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_changed_since_the_snapshot_is_left_alone() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("settings.json");
        std::fs::write(&file, "a").unwrap();
        let seen = Snapshot::take(&file).unwrap();
        assert_eq!(seen.bytes(), Some(&b"a"[..]));
        std::fs::write(tmp.path().join("other"), "b").unwrap();
        std::fs::rename(tmp.path().join("other"), &file).unwrap();
        assert_eq!(replace(&file, &seen, Some(b"mine")).unwrap(), Replaced::Changed);
        assert_eq!(replace(&file, &seen, None).unwrap(), Replaced::Changed);
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "b");

        let seen = Snapshot::take(&file).unwrap();
        assert_eq!(replace(&file, &seen, Some(b"mine")).unwrap(), Replaced::Done);
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
        let seen = Snapshot::take(&file).unwrap();
        assert_eq!(replace(&file, &seen, None).unwrap(), Replaced::Done);
        assert!(!file.exists());

        // A file created after a snapshot of nothing is not overwritten.
        let nothing = Snapshot::take(&file).unwrap();
        std::fs::write(&file, "theirs").unwrap();
        assert_eq!(
            replace(&file, &nothing, Some(b"mine")).unwrap(),
            Replaced::Changed
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "theirs");
        let leftovers = std::fs::read_dir(tmp.path()).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary file stays behind");
    }
}
