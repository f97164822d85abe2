//! The llm hooks' on-disk cache (`cache: true`): an identical request (same provider endpoint —
//! for a host's own model, its `ModelJudge::identity` — model, prompt and token limit) answered from disk, across every `hookbridge run` process of
//! the user. Each entry holds the request it answers (compared in full on every hit, so a hash
//! collision cannot answer the wrong request) and the reply — never a key or token, which are not
//! part of the request. Only replies that gave a verdict are kept; at most [`MAX_ENTRIES`], the
//! oldest removed first.
//!
//! The one decision: a cached verdict is trusted only when nobody but this user could have put it
//! there, because a replayed "safe" is as good as the model's. So the folder is the first
//! *absolute* one of `$HOOKBRIDGE_CACHE_DIR`, `$XDG_CACHE_HOME/hookbridge`, `~/.cache/hookbridge`
//! (a relative one is passed over, as the XDG spec asks: it would put the cache wherever the hook
//! runs, inside a repository that could ship answers); its `llm/` folder is created 0700, held
//! open (not followed through a symlink) and used only if it is this user's and nobody else can
//! write to it; and each entry is opened through that handle, never through a symlink, and read
//! only if it is a regular file of this user's that nobody else can write to. New entries are
//! written 0600 and renamed into place through the same handle.

use std::hash::{Hash, Hasher};
use std::io::{Read as _, Write as _};
use std::os::fd::OwnedFd;
use std::os::unix::fs::DirBuilderExt as _;
use std::path::{Path, PathBuf};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use serde_json::{json, Value};

use crate::model_api::JudgeRequest;

/// Most entries the cache keeps.
pub const MAX_ENTRIES: usize = 1000;

/// Largest entry read back: a reply is capped far below this.
const MAX_ENTRY_BYTES: u64 = 4 << 20;

/// Where the cache lives, from the hook's environment: `None` when no candidate is absolute.
pub(super) fn cache_dir(var: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    // A usable folder only (`env_paths`): `HOME=/proc/self/cwd` from a project's settings would put
    // the cache in the repository, which could ship the answers.
    let absolute = |name: &str| {
        var(name)
            .map(PathBuf::from)
            .filter(|path| hookbridge_core::env_paths::usable_env_folder(path))
    };
    let root = absolute("HOOKBRIDGE_CACHE_DIR")
        .or_else(|| absolute("XDG_CACHE_HOME").map(|d| d.join("hookbridge")))
        .or_else(|| absolute("HOME").map(|h| h.join(".cache").join("hookbridge")))?;
    Some(root.join("llm"))
}

/// One request's place in a cache folder held open.
pub(super) struct CacheEntry {
    dir: OwnedFd,
    /// The user whose entries are trusted.
    uid: u32,
    name: String,
    /// The whole request, as stored beside the reply.
    request: Value,
}

/// What looking an entry up found.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Lookup {
    Hit(String),
    Miss,
    /// An entry is there but is not trusted (why).
    Untrusted(String),
}

impl CacheEntry {
    /// The entry for `request` in the cache folder `dir`, which is created 0700 if missing; `Err`
    /// says why the cache cannot be used (the folder is not this user's, or others can write it).
    pub(super) fn open(dir: &Path, endpoint: &str, request: &JudgeRequest) -> Result<CacheEntry, String> {
        Self::open_as(dir, nix::unistd::getuid().as_raw(), endpoint, request)
    }

    fn open_as(dir: &Path, uid: u32, endpoint: &str, request: &JudgeRequest) -> Result<CacheEntry, String> {
        let why = |e: &dyn std::fmt::Display| format!("{}: {e}", dir.display());
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| why(&e))?;
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let held = rustix::fs::open(dir, flags, Mode::empty()).map_err(|e| why(&e))?;
        let stat = rustix::fs::fstat(&held).map_err(|e| why(&e))?;
        trusted(&stat, uid).map_err(|e| why(&e))?;
        let request = json!({
            "endpoint": endpoint,
            "model": request.model,
            "system": request.system,
            "user": request.user,
            "max_tokens": request.max_tokens,
        });
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        request.to_string().hash(&mut hasher);
        Ok(CacheEntry {
            dir: held,
            uid,
            name: format!("{:016x}.json", hasher.finish()),
            request,
        })
    }

    /// The cached reply, if this exact request is cached in a file only this user could write.
    pub(super) fn read(&self) -> Lookup {
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let fd = match rustix::fs::openat(&self.dir, &self.name, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(rustix::io::Errno::NOENT) => return Lookup::Miss,
            Err(e) => return Lookup::Untrusted(format!("the entry {}: {e}", self.name)),
        };
        let stat = match rustix::fs::fstat(&fd) {
            Ok(stat) => stat,
            Err(e) => return Lookup::Untrusted(format!("the entry {}: {e}", self.name)),
        };
        if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
            return Lookup::Untrusted(format!("the entry {} is not a regular file", self.name));
        }
        if let Err(why) = trusted(&stat, self.uid) {
            return Lookup::Untrusted(format!("the entry {}: {why}", self.name));
        }
        let mut text = String::new();
        if std::fs::File::from(fd)
            .take(MAX_ENTRY_BYTES)
            .read_to_string(&mut text)
            .is_err()
        {
            return Lookup::Miss;
        }
        let Ok(stored) = serde_json::from_str::<Value>(&text) else {
            return Lookup::Miss;
        };
        if stored.get("request") != Some(&self.request) {
            return Lookup::Miss;
        }
        match stored.get("reply").and_then(Value::as_str) {
            Some(reply) => Lookup::Hit(reply.to_string()),
            None => Lookup::Miss,
        }
    }

    /// Keep `reply` (best effort: a cache that cannot be written only costs a model call).
    pub(super) fn write(&self, reply: &str) {
        let entry = json!({"request": self.request, "reply": reply}).to_string();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let temp = format!(".{}.{}.{nanos}.tmp", self.name, std::process::id());
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let Ok(fd) = rustix::fs::openat(&self.dir, &temp, flags, Mode::from_raw_mode(0o600)) else {
            return;
        };
        let written = std::fs::File::from(fd).write_all(entry.as_bytes());
        if written.is_err() || rustix::fs::renameat(&self.dir, &temp, &self.dir, &self.name).is_err() {
            let _ = rustix::fs::unlinkat(&self.dir, &temp, AtFlags::empty());
            return;
        }
        evict_oldest(&self.dir, MAX_ENTRIES);
    }
}

/// `Ok` for a file or folder of user `uid` that no one else can write to.
fn trusted(stat: &rustix::fs::Stat, uid: u32) -> Result<(), String> {
    if stat.st_uid != uid {
        return Err(format!("owned by user {}, not by this user ({uid})", stat.st_uid));
    }
    #[allow(clippy::useless_conversion)] // `st_mode` is a u16 on macOS
    let mode = u32::from(stat.st_mode) & 0o777;
    if mode & 0o022 != 0 {
        return Err(format!("others can write to it (mode {mode:o})"));
    }
    Ok(())
}

/// Remove the oldest entries of the folder `dir` while it holds more than `max` (down to nine
/// tenths, so that not every write lists the folder and deletes one file).
fn evict_oldest(dir: &OwnedFd, max: usize) {
    let Ok(listing) = rustix::fs::Dir::read_from(dir) else {
        return;
    };
    let mut entries: Vec<(i64, i64, std::ffi::CString)> = listing
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_owned())
        .filter(|name| name.to_bytes().ends_with(b".json") && !name.to_bytes().starts_with(b"."))
        .filter_map(|name| {
            let stat = rustix::fs::statat(dir, name.as_c_str(), AtFlags::SYMLINK_NOFOLLOW).ok()?;
            Some((stat.st_mtime as i64, stat.st_mtime_nsec as i64, name))
        })
        .collect();
    if entries.len() <= max {
        return;
    }
    entries.sort();
    let remove = entries.len() - max * 9 / 10;
    for (_, _, name) in entries.into_iter().take(remove) {
        let _ = rustix::fs::unlinkat(dir, name.as_c_str(), AtFlags::empty());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    fn request(user: &str) -> JudgeRequest {
        JudgeRequest {
            system: "s".into(),
            user: user.into(),
            model: Some("m".into()),
            max_tokens: 10,
            schema: None,
        }
    }

    fn me() -> u32 {
        nix::unistd::getuid().as_raw()
    }

    #[test]
    fn the_cache_answers_only_the_same_request_and_stays_bounded() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("llm");
        let a = CacheEntry::open(&dir, "Anthropic(http://x)", &request("a")).unwrap();
        assert_eq!(a.read(), Lookup::Miss);
        a.write(r#"{"safe": true}"#);
        assert_eq!(a.read(), Lookup::Hit(r#"{"safe": true}"#.into()));
        let mode = std::fs::metadata(dir.join(&a.name)).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(
            std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777,
            0o700
        );
        let other_endpoint = CacheEntry::open(&dir, "OpenAI-compatible(http://x)", &request("a")).unwrap();
        assert_eq!(other_endpoint.read(), Lookup::Miss);
        // A file at the same name for another request (a collision) is not an answer.
        let b = CacheEntry::open(&dir, "Anthropic(http://x)", &request("b")).unwrap();
        std::fs::copy(dir.join(&a.name), dir.join(&b.name)).unwrap();
        assert_eq!(b.read(), Lookup::Miss);
        for i in 0..25 {
            std::fs::write(dir.join(format!("{i:016x}.json")), "{}").unwrap();
        }
        evict_oldest(&a.dir, 10);
        assert!(std::fs::read_dir(&dir).unwrap().count() <= 10);
    }

    #[test]
    fn only_this_users_entries_in_a_folder_closed_to_others_are_trusted() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("llm");
        let mine = CacheEntry::open(&dir, "e", &request("a")).unwrap();
        mine.write(r#"{"safe": true}"#);
        // The same folder seen by another user: neither it nor its entries are theirs.
        let err = CacheEntry::open_as(&dir, me() + 1, "e", &request("a"))
            .err()
            .unwrap();
        assert!(err.contains("not by this user"), "{err}");
        let theirs = CacheEntry {
            uid: me() + 1,
            ..CacheEntry::open(&dir, "e", &request("a")).unwrap()
        };
        assert!(matches!(theirs.read(), Lookup::Untrusted(why) if why.contains("not by this user")));

        // An entry others can write to, or a symlink, is not read.
        let entry = dir.join(&mine.name);
        std::fs::set_permissions(&entry, std::fs::Permissions::from_mode(0o666)).unwrap();
        assert!(matches!(mine.read(), Lookup::Untrusted(why) if why.contains("others can write")));
        let elsewhere = tmp.path().join("planted.json");
        std::fs::rename(&entry, &elsewhere).unwrap();
        std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &entry).unwrap();
        assert!(matches!(mine.read(), Lookup::Untrusted(_)));

        // A folder others can write to is not used at all, nor one reached through a symlink.
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = CacheEntry::open(&dir, "e", &request("a")).err().unwrap();
        assert!(err.contains("others can write"), "{err}");
        let linked = tmp.path().join("linked");
        std::os::unix::fs::symlink(tmp.path(), &linked).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        assert!(CacheEntry::open(&linked.join("llm"), "e", &request("a")).is_ok());
        let link_to_dir = tmp.path().join("llm-link");
        std::os::unix::fs::symlink(&dir, &link_to_dir).unwrap();
        assert!(CacheEntry::open(&link_to_dir, "e", &request("a")).is_err());
    }

    #[test]
    fn the_cache_dir_is_the_first_absolute_one() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
        };
        assert_eq!(
            cache_dir(env(&[("HOOKBRIDGE_CACHE_DIR", "/c"), ("HOME", "/h")])),
            Some(PathBuf::from("/c/llm"))
        );
        assert_eq!(
            cache_dir(env(&[("XDG_CACHE_HOME", "/x"), ("HOME", "/h")])),
            Some(PathBuf::from("/x/hookbridge/llm"))
        );
        assert_eq!(
            cache_dir(env(&[("HOME", "/h")])),
            Some(PathBuf::from("/h/.cache/hookbridge/llm"))
        );
        // Relative (or empty) values would put the cache where the hook runs: passed over.
        assert_eq!(
            cache_dir(env(&[
                ("HOOKBRIDGE_CACHE_DIR", "cache"),
                ("XDG_CACHE_HOME", ".cache"),
                ("HOME", "/h")
            ])),
            Some(PathBuf::from("/h/.cache/hookbridge/llm"))
        );
        assert_eq!(cache_dir(env(&[("XDG_CACHE_HOME", ""), ("HOME", "h")])), None);
        assert_eq!(cache_dir(env(&[])), None);
    }
}
