//! Seeing through a pyenv shim: which interpreter `python3` really starts from a given directory
//! and environment, and what the shim changes in the environment on the way (`PATH`, `PYENV_*`).
//!
//! The shaping decision: **ask pyenv once, then trust only what it depended on.** pyenv's choice
//! follows rules with many inputs (`PYENV_VERSION`, `.python-version` files up from the working
//! directory, `$PYENV_ROOT/version`, plugins' hooks), so it is not re-implemented here: the shim is
//! run once with a one-line probe, with the hook's environment and working directory, and reports
//! `sys.executable` and its environment. The answer is kept in the service directory, keyed by the
//! shim, the working directory and the variables pyenv reads, and used while every version file
//! it could have read is unchanged (same inode, size and modification time, or still absent) and
//! the interpreter still exists. Anything else asks again; a probe that fails means "spawn".

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

use super::NotWarm;

/// What a shim resolved to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ShimResolution {
    /// The interpreter the shim execs (its `sys.executable`), which is also its `argv[0]`.
    pub(super) executable: PathBuf,
    /// The hook's environment as the interpreter sees it after the shim.
    pub(super) env: Vec<(OsString, OsString)>,
}

/// Whether `program` (a script, not a binary) is a pyenv shim: in a `shims` directory, and
/// `exec`ing `pyenv exec`. Returns pyenv's root.
pub(super) fn shim_root(program: &Path, head: &[u8]) -> Option<PathBuf> {
    if program.parent()?.file_name()? != "shims" {
        return None;
    }
    let text = std::str::from_utf8(head).ok()?;
    if !text.contains("pyenv\" exec") && !text.contains("pyenv exec") {
        return None;
    }
    let root = text.lines().find_map(|line| {
        let value = line.trim().strip_prefix("export PYENV_ROOT=")?;
        Some(value.trim_matches('"').to_string())
    })?;
    Some(PathBuf::from(root))
}

/// The probe the shim runs: the interpreter it chose and the environment it was given.
const PROBE: &str = "import json, os, sys; sys.stdout.write(json.dumps({'executable': sys.executable, 'env': dict(os.environ)}))";

#[derive(Debug, Serialize, Deserialize)]
struct CacheEntry {
    executable: PathBuf,
    set: BTreeMap<String, String>,
    unset: Vec<String>,
    /// Every file pyenv's choice could depend on, with its state then (`None`: absent).
    depends: Vec<(PathBuf, Option<FileState>)>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct FileState {
    ino: u64,
    size: u64,
    mtime_ns: i128,
}

fn state_of(path: &Path) -> Option<FileState> {
    let meta = std::fs::metadata(path).ok()?;
    Some(FileState {
        ino: meta.ino(),
        size: meta.size(),
        mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
    })
}

/// The files pyenv reads to choose a version: `.python-version` from the working directory (or
/// `PYENV_DIR`) up to `/`, then `$PYENV_ROOT/version`.
fn version_files(root: &Path, cwd: &Path, env: &[(OsString, OsString)]) -> Vec<PathBuf> {
    let start = lookup(env, "PYENV_DIR").map_or_else(|| cwd.to_path_buf(), PathBuf::from);
    let mut files: Vec<PathBuf> = start.ancestors().map(|dir| dir.join(".python-version")).collect();
    files.push(root.join("version"));
    files
}

fn lookup(env: &[(OsString, OsString)], name: &str) -> Option<OsString> {
    env.iter()
        .rev()
        .find(|(n, _)| n.as_bytes() == name.as_bytes())
        .map(|(_, v)| v.clone())
}

/// The cache file for this shim, directory and the variables pyenv reads.
fn cache_file(dir: &Path, shim: &Path, cwd: &Path, env: &[(OsString, OsString)]) -> PathBuf {
    let mut keyed: Vec<&(OsString, OsString)> = env
        .iter()
        .filter(|(name, _)| {
            let name = name.as_bytes();
            name.starts_with(b"PYENV") || name.starts_with(b"PYTHON") || name == b"PATH" || name == b"HOME"
        })
        .collect();
    keyed.sort();
    let mut hash = super::service::Fnv1a::new();
    hash.write(shim.as_os_str().as_bytes());
    hash.write(b"\0");
    hash.write(cwd.as_os_str().as_bytes());
    for (name, value) in keyed {
        hash.write(b"\0");
        hash.write(name.as_bytes());
        hash.write(b"=");
        hash.write(value.as_bytes());
    }
    dir.join(format!("pyenv-{:016x}.json", hash.finish()))
}

/// Resolves `shim` for a hook run from `cwd` with `env` (the whole environment the shim would get).
pub(super) fn resolve(
    shim: &Path,
    root: &Path,
    cwd: &Path,
    env: &[(OsString, OsString)],
    cache_dir: &Path,
    may_run: bool,
) -> Result<ShimResolution, NotWarm> {
    let cache = cache_file(cache_dir, shim, cwd, env);
    let entry = match read_valid(&cache) {
        Some(entry) => entry,
        // Inspection (`list`, `test --dry-run`, `trust`) runs nothing: a file that looks like a
        // shim may be a repository's own.
        None if !may_run => {
            return Err(NotWarm::Interpreter(format!(
                "{} is a pyenv shim: which Python it runs is asked when the hook runs",
                shim.display()
            )))
        }
        None => {
            let entry = probe(shim, root, cwd, env)?;
            write_atomically(&cache, &entry);
            entry
        }
    };
    let mut resolved: Vec<(OsString, OsString)> = env
        .iter()
        .filter(|(name, _)| {
            let name = name.to_string_lossy();
            !entry.unset.iter().any(|u| *u == name) && !entry.set.contains_key(name.as_ref())
        })
        .cloned()
        .collect();
    resolved.extend(
        entry
            .set
            .iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v))),
    );
    Ok(ShimResolution {
        executable: entry.executable,
        env: resolved,
    })
}

fn read_valid(cache: &Path) -> Option<CacheEntry> {
    let entry: CacheEntry = serde_json::from_slice(&std::fs::read(cache).ok()?).ok()?;
    let unchanged = entry.depends.iter().all(|(path, then)| state_of(path) == *then);
    (unchanged && entry.executable.is_file()).then_some(entry)
}

fn probe(shim: &Path, root: &Path, cwd: &Path, env: &[(OsString, OsString)]) -> Result<CacheEntry, NotWarm> {
    // The version files are looked at before the probe, so a change while it runs makes the
    // entry stale rather than wrong.
    let depends: Vec<(PathBuf, Option<FileState>)> = version_files(root, cwd, env)
        .into_iter()
        .map(|path| {
            let state = state_of(&path);
            (path, state)
        })
        .collect();
    // `-I`: isolated, so the probe imports nothing from the folder it runs in (a repository's
    // `json.py` would run as you, untrusted, with `-c` putting the current folder first on the
    // path: red-team pass 14) nor from `PYTHONPATH`.
    let output = Command::new(shim)
        .arg("-I")
        .arg("-c")
        .arg(PROBE)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map_err(|e| {
            NotWarm::Interpreter(format!(
                "the pyenv shim {} could not be asked: {e}",
                shim.display()
            ))
        })?;
    #[derive(Deserialize)]
    struct Probe {
        executable: PathBuf,
        env: BTreeMap<String, String>,
    }
    let seen: Probe = serde_json::from_slice(&output.stdout)
        .ok()
        .filter(|_| output.status.success())
        .ok_or_else(|| {
            NotWarm::Interpreter(format!(
                "the pyenv shim {} did not start a Python interpreter here",
                shim.display()
            ))
        })?;
    let mut set = BTreeMap::new();
    for (name, value) in &seen.env {
        if lookup(env, name).is_none_or(|before| before.as_bytes() != value.as_bytes()) {
            set.insert(name.clone(), value.clone());
        }
    }
    let unset = env
        .iter()
        .filter_map(|(name, _)| name.to_str())
        .filter(|name| !seen.env.contains_key(*name))
        .map(str::to_string)
        .collect();
    Ok(CacheEntry {
        executable: seen.executable,
        set,
        unset,
        depends,
    })
}

fn write_atomically(cache: &Path, entry: &CacheEntry) {
    let Ok(bytes) = serde_json::to_vec(entry) else {
        return;
    };
    let Some(dir) = cache.parent() else {
        return;
    };
    if let Ok(mut file) = tempfile::NamedTempFile::new_in(dir) {
        use std::io::Write;
        if file.write_all(&bytes).is_ok() {
            let _ = file.persist(cache);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Red-team pass 14: the probe ran `<shim> -c "import json, …"` in the session's folder, and
    /// `-c` puts that folder first on Python's path: an untrusted repository's `json.py` ran as
    /// you the first time one of your Python guards fired there. The probe runs isolated (`-I`).
    #[test]
    fn the_probe_imports_nothing_from_the_folder_it_runs_in() {
        let python = Path::new("/usr/bin/python3");
        assert!(python.is_file(), "this test needs /usr/bin/python3");
        let repo = tempfile::tempdir().unwrap();
        let ran = repo.path().join("ran");
        std::fs::write(
            repo.path().join("json.py"),
            format!(
                "open({:?}, 'w').write('pwned')\nfrom json import *\n",
                ran.to_str().unwrap()
            ),
        )
        .unwrap();
        let env: Vec<(OsString, OsString)> = std::env::vars_os().collect();
        let probed = probe(python, repo.path(), repo.path(), &env);
        assert!(!ran.exists(), "the repository's json.py ran");
        assert!(probed.is_ok(), "{probed:?}");
    }
}
