//! Writing the files the management commands own (Claude Code settings, `hookbridge-state.json`,
//! the marketplace list): atomically, so a crash or a full disk never leaves half a file where an
//! agent reads its configuration.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

/// Replace `file` with `text`: a temporary file in the same directory, synced, renamed over it
/// (through a symlink, over the file it names), with the permissions the old file had. Returns the
/// path written.
pub fn write_atomically(file: &Path, text: &str) -> anyhow::Result<PathBuf> {
    let target = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let dir = target.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut temp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
    temp.write_all(text.as_bytes())?;
    if let Ok(meta) = std::fs::metadata(&target) {
        temp.as_file().set_permissions(meta.permissions())?;
    }
    temp.as_file().sync_all()?;
    temp.persist(&target)
        .with_context(|| format!("writing {}", target.display()))?;
    Ok(target)
}
