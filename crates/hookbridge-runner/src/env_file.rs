//! The env file a host gives hooks to write (`CLAUDE_ENV_FILE`: `export` lines the host reads
//! back), which hookbridge passes on to the hooks of the events that have one and grants a
//! sandboxed hook the right to write. A project's settings can set any variable of the agent's
//! environment, so the value is taken only from the variable the host itself sets for those
//! events (Claude Code sets `CLAUDE_ENV_FILE` over whatever the environment held, and never
//! `AMPLIFIER_ENV_FILE`, which a project could otherwise set to its own choice), and only when
//! it can be an env file: an absolute path with no `..`, not under `/proc` or `/dev`, and where
//! it exists, a regular file — no symlink, no folder (a sandbox grant beneath it would be a
//! grant of the whole folder), no second link to another file.

use std::path::{Path, PathBuf};

/// The env file the variable `name` names: `None` when unset or empty, `Err` with why it is not
/// used.
pub fn from_variable(name: &str) -> Option<Result<PathBuf, String>> {
    let value = std::env::var_os(name).filter(|v| !v.is_empty())?;
    let path = PathBuf::from(value);
    Some(
        usable(&path)
            .map(|()| path.clone())
            .map_err(|why| format!("{name}=`{}` not passed on to hooks: {why}", path.display())),
    )
}

/// Whether `path` can be an env file a hook is given (see the module doc): `Err` says why not.
pub fn usable(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    if !hookbridge_core::env_paths::usable_env_folder(path) || path.file_name().is_none() {
        return Err("not an absolute path without `..` outside /proc and /dev".into());
    }
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e.to_string()),
        Ok(meta) if !meta.file_type().is_file() => Err("not a regular file".into()),
        Ok(meta) if meta.nlink() != 1 => Err("a file with more than one link".into()),
        Ok(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Red-team pass 10: `AMPLIFIER_ENV_FILE=..` from a project's settings made a sandboxed hook's
    /// env file the home folder, and the sandbox granted writing beneath it.
    #[test]
    fn only_a_path_that_can_be_an_env_file_is_usable() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("env.sh");
        std::fs::write(&file, "").unwrap();
        assert_eq!(usable(&file), Ok(()));
        assert_eq!(usable(&tmp.path().join("not-yet")), Ok(()));
        let linked = tmp.path().join("linked");
        std::fs::hard_link(&file, &linked).unwrap();
        let symlink = tmp.path().join("symlink");
        std::os::unix::fs::symlink(tmp.path().join("not-yet"), &symlink).unwrap();
        for refused in [
            PathBuf::from(".."),
            PathBuf::from("env.sh"),
            tmp.path().to_path_buf(),
            tmp.path().join("x/../env.sh"),
            PathBuf::from("/proc/self/cwd/env.sh"),
            PathBuf::from("/"),
            linked,
            symlink,
        ] {
            assert!(usable(&refused).is_err(), "{}", refused.display());
        }
    }
}
