//! Trust records on disk: one JSON file per project in the user's state directory
//! (`$XDG_STATE_HOME/hookbridge/trust/`, else `~/.local/state/hookbridge/trust/`), named by a
//! digest of the project's canonical path.
//!
//! The shaping decision: **a record counts only if hookbridge could have written it.** hookbridge
//! creates the directory mode 0700 and each record mode 0600, both this user's; a record or a
//! directory that is another user's, or open to others, is ignored and reported. A repository
//! cannot ship such a file (git checks files out 0644), and the environment that names the state
//! directory (which a project's Claude Code settings can set for hooks) can only point at files
//! that pass the same checks: no environment variable and no project file grants trust.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::pins::{canonical_project, sha256_hex, ProjectPins};

/// What a user trusted, and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrustRecord {
    pub version: u32,
    /// The project's canonical path.
    pub project: String,
    /// Seconds since the Unix epoch.
    pub trusted_at: u64,
    /// Trusted for its configuration only: the scripts its hooks run are not pinned.
    #[serde(default)]
    pub config_only: bool,
    /// Trusted to run sandboxed: each of the project's command hooks runs in the default sandbox
    /// where it asks for none (`hookbridge trust --sandboxed`).
    #[serde(default)]
    pub sandboxed: bool,
    pub pins: ProjectPins,
}

impl TrustRecord {
    pub const VERSION: u32 = 1;

    pub fn new(project: &Path, pins: ProjectPins, config_only: bool) -> TrustRecord {
        let mut pins = pins;
        if config_only {
            pins.scripts.clear();
        }
        TrustRecord {
            version: Self::VERSION,
            project: canonical_project(project).to_string_lossy().into_owned(),
            trusted_at: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            config_only,
            sandboxed: false,
            pins,
        }
    }
}

/// Why the store could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("no state directory: neither XDG_STATE_HOME nor HOME is set to an absolute path")]
    NoStateDir,
    #[error("{path} is {what}; trust records there are ignored (hookbridge keeps them in a directory of this user's closed to others, each file mode 0600)")]
    Unsafe { path: PathBuf, what: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not a trust record hookbridge can read ({why})")]
    Unreadable { path: PathBuf, why: String },
}

/// hookbridge's own state directory: `$XDG_STATE_HOME/hookbridge` (when a usable folder,
/// [`crate::env_paths::usable_env_folder`]), else `$HOME/.local/state/hookbridge`.
pub fn state_dir() -> Option<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    state_dir_for(home.as_deref())
}

/// [`state_dir`] for a user whose home is `home` (a host that names it: the Amplifier module).
pub fn state_dir_for(home: Option<&Path>) -> Option<PathBuf> {
    std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| crate::env_paths::usable_env_folder(p))
        .or_else(|| {
            home.filter(|h| crate::env_paths::usable_env_folder(h))
                .map(|h| h.join(".local/state"))
        })
        .map(|dir| dir.join("hookbridge"))
}

/// The trust records of this user.
#[derive(Debug, Clone)]
pub struct TrustStore {
    dir: PathBuf,
}

impl TrustStore {
    /// The store in the user's state directory.
    pub fn open_default() -> Result<TrustStore, StoreError> {
        let dir = state_dir().ok_or(StoreError::NoStateDir)?;
        Ok(TrustStore {
            dir: dir.join("trust"),
        })
    }

    /// The store of the user whose home is `home` (see [`state_dir_for`]).
    pub fn for_home(home: Option<&Path>) -> Result<TrustStore, StoreError> {
        let dir = state_dir_for(home).ok_or(StoreError::NoStateDir)?;
        Ok(TrustStore {
            dir: dir.join("trust"),
        })
    }

    /// A store in `dir` (its records directly in it).
    pub fn at(dir: impl Into<PathBuf>) -> TrustStore {
        TrustStore { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path_for(&self, project: &Path) -> PathBuf {
        self.path_for_canonical(&canonical_project(project))
    }

    /// The record's place for a project path already made canonical.
    fn path_for_canonical(&self, canonical: &Path) -> PathBuf {
        let digest = sha256_hex(canonical.as_os_str().as_encoded_bytes());
        self.dir.join(format!("{}.json", &digest[..32]))
    }

    /// The record for `project`, if there is a usable one. A record that is not safe to believe is
    /// an error (to be reported), never a trust.
    pub fn record_for(&self, project: &Path) -> Result<Option<TrustRecord>, StoreError> {
        self.record_for_canonical(&canonical_project(project))
    }

    /// [`TrustStore::record_for`] a project path already made canonical (`std::fs::canonicalize`),
    /// for a caller that needs the canonical path too: resolving it again costs a `readlink` per
    /// component on every `run`.
    pub fn record_for_canonical(&self, project: &Path) -> Result<Option<TrustRecord>, StoreError> {
        let path = self.path_for_canonical(project);
        match std::fs::symlink_metadata(&self.dir) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(StoreError::Io {
                    path: self.dir.clone(),
                    source,
                })
            }
            Ok(meta) => check_safe(&self.dir, &meta, true)?,
        }
        let meta = match std::fs::symlink_metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(StoreError::Io { path, source }),
            Ok(meta) => meta,
        };
        check_safe(&path, &meta, false)?;
        let record = read_record(&path)?;
        // The file's name is a digest of the canonical path's bytes; the path inside is for people
        // (written lossily where it is not UTF-8).
        if record.project != project.to_string_lossy() {
            return Err(StoreError::Unreadable {
                path,
                why: format!("it is the record of {}", record.project),
            });
        }
        Ok(Some(record))
    }

    /// Writes `record` of `project` (mode 0600, atomically), creating the store (mode 0700) if
    /// need be.
    pub fn save(&self, project: &Path, record: &TrustRecord) -> Result<PathBuf, StoreError> {
        self.create_dir()?;
        let path = self.path_for(project);
        let io = |source| StoreError::Io {
            path: path.clone(),
            source,
        };
        let text = serde_json::to_string_pretty(record).expect("a record serializes");
        let mut temp = tempfile::Builder::new()
            .prefix(".trust-")
            .tempfile_in(&self.dir)
            .map_err(io)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            temp.as_file()
                .set_permissions(std::fs::Permissions::from_mode(0o600))
                .map_err(io)?;
        }
        std::io::Write::write_all(&mut temp, text.as_bytes()).map_err(io)?;
        temp.as_file().sync_all().map_err(io)?;
        temp.persist(&path).map_err(|e| io(e.error))?;
        Ok(path)
    }

    /// Removes the record of `project`; whether there was one.
    pub fn revoke(&self, project: &Path) -> Result<bool, StoreError> {
        let path = self.path_for(project);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(source) => Err(StoreError::Io { path, source }),
        }
    }

    /// Every usable record, by project path; the unusable ones as errors.
    pub fn list(&self) -> Result<Vec<Result<TrustRecord, StoreError>>, StoreError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(StoreError::Io {
                    path: self.dir.clone(),
                    source,
                })
            }
        };
        let meta = std::fs::symlink_metadata(&self.dir).map_err(|source| StoreError::Io {
            path: self.dir.clone(),
            source,
        })?;
        check_safe(&self.dir, &meta, true)?;
        let mut records: Vec<Result<TrustRecord, StoreError>> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .map(|path| {
                let meta = std::fs::symlink_metadata(&path).map_err(|source| StoreError::Io {
                    path: path.clone(),
                    source,
                })?;
                check_safe(&path, &meta, false)?;
                read_record(&path)
            })
            .collect();
        records.sort_by(|a, b| match (a, b) {
            (Ok(a), Ok(b)) => a.project.cmp(&b.project),
            (Ok(_), Err(_)) => std::cmp::Ordering::Less,
            (Err(_), Ok(_)) => std::cmp::Ordering::Greater,
            (Err(_), Err(_)) => std::cmp::Ordering::Equal,
        });
        Ok(records)
    }

    fn create_dir(&self) -> Result<(), StoreError> {
        let io = |source| StoreError::Io {
            path: self.dir.clone(),
            source,
        };
        if let Some(parent) = self.dir.parent() {
            std::fs::create_dir_all(parent).map_err(io)?;
        }
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        match builder.create(&self.dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(io(e)),
        }
        let meta = std::fs::symlink_metadata(&self.dir).map_err(io)?;
        check_safe(&self.dir, &meta, true)
    }
}

fn read_record(path: &Path) -> Result<TrustRecord, StoreError> {
    let text = crate::config::read_bounded(path, crate::config::MAX_CONFIG_BYTES).map_err(|e| {
        StoreError::Unreadable {
            path: path.to_path_buf(),
            why: e.to_string(),
        }
    })?;
    let record: TrustRecord = serde_json::from_str(&text).map_err(|e| StoreError::Unreadable {
        path: path.to_path_buf(),
        why: e.to_string(),
    })?;
    if record.version != TrustRecord::VERSION {
        return Err(StoreError::Unreadable {
            path: path.to_path_buf(),
            why: format!(
                "version {}, this hookbridge reads {}",
                record.version,
                TrustRecord::VERSION
            ),
        });
    }
    Ok(record)
}

/// A record file or the store directory must be this user's, of the right kind (not a symlink),
/// and closed to others.
fn check_safe(path: &Path, meta: &std::fs::Metadata, directory: bool) -> Result<(), StoreError> {
    let unsafe_ = |what: &str| StoreError::Unsafe {
        path: path.to_path_buf(),
        what: what.to_string(),
    };
    if directory && !meta.is_dir() {
        return Err(unsafe_("not a directory"));
    }
    if !directory && !meta.is_file() {
        return Err(unsafe_("not a regular file"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // SAFETY-free: getuid cannot fail.
        let uid = rustix::process::getuid().as_raw();
        if meta.uid() != uid {
            return Err(unsafe_(&format!(
                "owned by user {}, not by this user ({uid})",
                meta.uid()
            )));
        }
        if meta.mode() & 0o077 != 0 {
            return Err(unsafe_(&format!(
                "open to others (mode {:o})",
                meta.mode() & 0o777
            )));
        }
    }
    Ok(())
}

/// Records that a notice about `project` was given in `session`; whether this is the first time
/// (so that a held project is told of once per session, not on every event).
pub fn first_notice(session: &str, project: &Path) -> bool {
    first_notice_of(session, &canonical_project(project).display().to_string())
}

/// Records that the notice `what` was given in `session`; whether this is the first time.
pub fn first_notice_of(session: &str, what: &str) -> bool {
    let Some(dir) = state_dir().map(|d| d.join("notices")) else {
        return true;
    };
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    if builder.create(&dir).is_err() {
        return true;
    }
    let key = format!("{session}\0{what}");
    let path = dir.join(&sha256_hex(key.as_bytes())[..32]);
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
    {
        Ok(_) => {
            forget_old_notices(&dir);
            true
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => false,
        Err(_) => true,
    }
}

/// Notices older than a week are removed (a session does not last that long).
fn forget_old_notices(dir: &Path) {
    let week = std::time::Duration::from_secs(7 * 24 * 3600);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok).take(1000) {
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > week);
        if old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
