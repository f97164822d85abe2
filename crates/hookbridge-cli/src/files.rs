//! Reading and writing the files the management commands own (Claude Code settings,
//! `hookbridge-state.json`, the marketplace list, other agents' hook files): a missing file is
//! `None`, bad JSON names the file, line and column, and writes are atomic, so a crash or a full
//! disk never leaves half a file where an agent reads its configuration.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

/// The text of `path`; `None` when there is no file there.
pub fn read_if_exists(path: &Path) -> anyhow::Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
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
