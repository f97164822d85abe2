//! The spool between the processes that answer events (`hookbridge run`, one per event) and the
//! one process that exports their spans (`hookbridge otel-export`), so that answering an event
//! costs a file write instead of the start of a process.
//!
//! One folder per exporter configuration ([`dir_for`]: a hash of the endpoint, its headers and its
//! timeout, so that a run never hands its spans to an exporter started with other credentials —
//! the headers themselves are never written). A run writes its event's export request as a file
//! (written aside, then renamed in, so the exporter never reads half of one) and starts an
//! exporter only when none holds the folder's lock ([`hand_over`]). The exporter ([`drain`])
//! takes the lock, posts and removes what it finds, and lingers for [`LINGER`] after the last
//! request before it lets go, so that a burst of events (a tool call's PreToolUse and
//! PostToolUse, a session's start) shares one exporter and one connection.
//!
//! Nothing is lost between them: a run writes its file *before* it looks at the lock, and the
//! exporter looks at the folder once more *after* it lets go of the lock. So either the exporter
//! still held the lock when the run looked, and sees the file in that last look at the latest, or
//! the lock was free and the run starts an exporter itself. Two runs that both find it free start
//! two exporters; the one that does not get the lock leaves at once.
//!
//! Bounded: at most [`MAX_WAITING`] requests wait (past that the oldest are dropped and said to
//! be), each at most [`MAX_REQUEST`] bytes; a file left half-written by a run that died is removed
//! after a minute. A folder of another configuration (an endpoint or credentials no longer used)
//! that nobody has written to or taken from for [`ABANDONED`] is removed by the next exporter
//! ([`sweep_abandoned`]), so that the spools of old configurations do not pile up.

use std::collections::HashSet;
use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rustix::fs::FlockOperation;

use super::OtelConfig;

/// How long an exporter waits for more requests after its last one before it exits.
pub const LINGER: Duration = Duration::from_secs(2);
/// How often a lingering exporter looks for new requests.
const POLL: Duration = Duration::from_millis(25);
/// Requests waiting at once; past that the oldest are dropped.
pub const MAX_WAITING: usize = 256;
/// The largest request an exporter reads.
pub const MAX_REQUEST: u64 = 16 << 20;
/// A file still being written after this long belongs to a run that died.
const STALE: Duration = Duration::from_secs(60);
/// A spool folder untouched for this long belongs to a configuration no longer in use.
pub const ABANDONED: Duration = Duration::from_secs(24 * 60 * 60);
const LOCK: &str = "exporter.lock";
const SUFFIX: &str = ".json";

/// The spool folder, under hookbridge's state folder `state`, for the exporter `config` describes.
pub fn dir_for(state: &Path, config: &OtelConfig) -> PathBuf {
    let mut key = Vec::new();
    for part in [config.endpoint.as_str(), &config.timeout.as_millis().to_string()] {
        key.extend_from_slice(part.as_bytes());
        key.push(0);
    }
    for (name, value) in &config.headers {
        key.extend_from_slice(name.as_bytes());
        key.push(b'=');
        key.extend_from_slice(value.as_bytes());
        key.push(0);
    }
    let hash = hookbridge_core::trust::pins::sha256_hex(&key);
    state.join("otel-spool").join(&hash[..16])
}

/// Writes one export request into `dir` and, unless an exporter holds `dir`'s lock, starts
/// `program args…` (in a process group of its own, with no standard streams, in `/`, not waited
/// for) to export it.
pub fn hand_over(dir: &Path, body: &[u8], program: &Path, args: &[String]) -> Result<(), String> {
    let said = |what: &str, e: io::Error| format!("OpenTelemetry: {what} {}: {e}", dir.display());
    // Twice at most: a folder abandoned for a day may be swept away between the two steps.
    let mut tries = 0;
    loop {
        tries += 1;
        DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| said("could not make the spool folder", e))?;
        let name = entry_name();
        let aside = dir.join(format!(".{name}.tmp"));
        let written = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&aside)
            .and_then(|mut f| f.write_all(body))
            .and_then(|()| fs::rename(&aside, dir.join(format!("{name}{SUFFIX}"))));
        match written {
            Ok(()) => break,
            Err(e) if e.kind() == io::ErrorKind::NotFound && tries < 2 => {}
            Err(e) => {
                let _ = fs::remove_file(&aside);
                return Err(said("could not write the spans into", e));
            }
        }
    }
    if exporter_holds(dir).map_err(|e| said("could not look at the exporter's lock in", e))? {
        return Ok(());
    }
    Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .current_dir("/")
        .process_group(0)
        .spawn()
        // Not waited for: it outlives this process, and init reaps it.
        .map(drop)
        .map_err(|e| format!("OpenTelemetry: could not start {}: {e}", program.display()))
}

/// Names that sort in the order they were made, and differ between processes and calls.
fn entry_name() -> String {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{nanos:020}-{}-{n}", std::process::id())
}

fn open_lock(dir: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        // A symlink in its place would have the lock made wherever it leads.
        .custom_flags(libc::O_NOFOLLOW)
        .open(dir.join(LOCK))
}

/// Whether an exporter holds `dir`'s lock now (when free, it is taken for a moment and let go).
fn exporter_holds(dir: &Path) -> io::Result<bool> {
    take_lock(dir).map(|lock| lock.is_none())
}

/// `dir`'s lock, if no other exporter holds it.
fn take_lock(dir: &Path) -> io::Result<Option<File>> {
    let lock = open_lock(dir)?;
    match rustix::fs::flock(&lock, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(Some(lock)),
        Err(e) if e == rustix::io::Errno::WOULDBLOCK => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The requests waiting in `dir`, oldest first, at most [`MAX_WAITING`] of them (the older ones
/// past that are removed and said to be, through `report`); stale half-written files are removed.
fn waiting(dir: &Path, report: &mut dyn FnMut(String)) -> io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.ends_with(SUFFIX) {
            found.push(entry.path());
        } else if name.ends_with(".tmp") {
            let old = entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > STALE));
            if old {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
    found.sort();
    if found.len() > MAX_WAITING {
        let dropped = found.len() - MAX_WAITING;
        for path in found.drain(..dropped) {
            let _ = fs::remove_file(path);
        }
        report(format!(
            "OpenTelemetry: more than {MAX_WAITING} exports were waiting for {}; the {dropped} oldest were dropped",
            dir.display()
        ));
    }
    Ok(found)
}

/// Reads and removes one request: removed first, so that one the endpoint chokes on is never
/// posted twice, and none is posted by two exporters.
///
/// Only a plain file is read: the name is opened without following a symlink (one pointing at a
/// file elsewhere would post that file's contents to the endpoint) and without blocking (a FIFO
/// with no writer would hold the exporter forever); anything else — a FIFO, a socket, a device, a
/// folder — is removed unread (a folder only when empty) and said to be, so that it can neither
/// hold the exporter nor keep it polling.
fn take(path: &Path) -> io::Result<Vec<u8>> {
    let not_a_request = |what: &str| {
        let removed = fs::remove_file(path).or_else(|_| fs::remove_dir(path)).is_ok();
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{} is {what}, not a request a run wrote; {}",
                path.display(),
                if removed { "removed unread" } else { "left unread" }
            ),
        )
    };
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
    {
        Ok(file) => file,
        // What O_NOFOLLOW refuses a symlink with, and what a socket refuses any open with.
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(not_a_request("a symlink")),
        Err(e) if e.raw_os_error() == Some(libc::ENXIO) => return Err(not_a_request("a socket")),
        Err(e) => return Err(e),
    };
    if !file.metadata()?.is_file() {
        drop(file);
        return Err(not_a_request("not a plain file"));
    }
    let mut body = Vec::new();
    file.take(MAX_REQUEST).read_to_end(&mut body)?;
    fs::remove_file(path)?;
    Ok(body)
}

/// The exporter: unless another holds `dir`'s lock, posts every request in `dir` with `post`,
/// until none has come for `linger`. Each problem goes to `report` as it happens.
pub fn drain(
    dir: &Path,
    linger: Duration,
    post: &mut dyn FnMut(&[u8]) -> Result<(), String>,
    report: &mut dyn FnMut(String),
) {
    let said = |e: io::Error| format!("OpenTelemetry: the spool folder {}: {e}", dir.display());
    // What could not be taken, said once: it neither keeps this exporter busy nor is said again
    // at every look.
    let mut refused = HashSet::new();
    loop {
        let lock = match take_lock(dir) {
            Ok(Some(lock)) => lock,
            Ok(None) => return,
            Err(e) => return report(said(e)),
        };
        let mut idle_since = Instant::now();
        loop {
            let found = match waiting(dir, report) {
                Ok(mut found) => {
                    found.retain(|path| !refused.contains(path));
                    found
                }
                Err(e) => return report(said(e)),
            };
            if found.is_empty() {
                if idle_since.elapsed() >= linger {
                    break;
                }
                std::thread::sleep(POLL);
                continue;
            }
            for path in found {
                match take(&path) {
                    Ok(body) => {
                        if let Err(problem) = post(&body) {
                            report(format!("OpenTelemetry: {problem}"));
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                    Err(e) => {
                        report(said(e));
                        refused.insert(path);
                    }
                }
            }
            idle_since = Instant::now();
        }
        drop(lock);
        // A run that wrote while the lock was held started no exporter: look once more.
        match waiting(dir, report) {
            Ok(found) if found.iter().all(|path| refused.contains(path)) => return,
            Ok(_) => {}
            Err(e) => return report(said(e)),
        }
    }
}

/// Removes the spool folders beside `dir` (other configurations') that nobody has written to or
/// taken from for `abandoned`, with whatever still waits in them; what was dropped, and what could
/// not be removed, goes to `report`.
///
/// Only folders named as [`dir_for`] names them are looked at, each opened without following a
/// symlink (one in their place would have hookbridge empty the folder it leads to); a folder whose
/// lock an exporter holds is being drained and is left. A request a run hands over in the very
/// moment its day-old folder goes is counted among the dropped.
pub fn sweep_abandoned(dir: &Path, abandoned: Duration, report: &mut dyn FnMut(String)) {
    let Some(parent) = dir.parent() else {
        return;
    };
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let named_as_a_spool = name.len() == 16
            && name
                .as_encoded_bytes()
                .iter()
                .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        if path == dir || !named_as_a_spool {
            continue;
        }
        match remove_if_abandoned(&path, abandoned) {
            Ok(Some(dropped)) if dropped > 0 => report(format!(
                "OpenTelemetry: the spool folder {} was untouched for {} h, its configuration no longer used; \
                 removed with the {dropped} export request(s) still waiting in it",
                path.display(),
                abandoned.as_secs() / 3600
            )),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => report(format!(
                "OpenTelemetry: could not remove the abandoned spool folder {}: {e}",
                path.display()
            )),
        }
    }
}

/// Removes the folder at `path` with its contents if it is a folder untouched for `abandoned`
/// whose lock nobody holds: the number of requests that were still waiting, or `None` if it stays.
fn remove_if_abandoned(path: &Path, abandoned: Duration) -> io::Result<Option<usize>> {
    use rustix::fs::{fstat, openat, unlinkat, AtFlags, Dir, Mode, OFlags, CWD};
    let untouched = |fd: &rustix::fd::OwnedFd| -> io::Result<bool> {
        let modified = UNIX_EPOCH + Duration::from_secs(fstat(fd)?.st_mtime.max(0) as u64);
        Ok(modified.elapsed().is_ok_and(|age| age >= abandoned))
    };
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK;
    let folder = match openat(CWD, path, flags | OFlags::DIRECTORY, Mode::empty()) {
        Ok(folder) => folder,
        // A symlink or a file in a folder's place: not a spool.
        Err(rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    if !untouched(&folder)? {
        return Ok(None);
    }
    // An exporter that holds the lock is draining the folder. Held until the folder is gone.
    let _lock = match openat(&folder, LOCK, flags, Mode::empty()) {
        Ok(lock) => match rustix::fs::flock(&lock, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => Some(lock),
            Err(rustix::io::Errno::WOULDBLOCK) => return Ok(None),
            Err(e) => return Err(e.into()),
        },
        Err(rustix::io::Errno::NOENT) => None,
        Err(e) => return Err(e.into()),
    };
    // Looked at again with the lock held: a run may have written in the meantime.
    if !untouched(&folder)? {
        return Ok(None);
    }
    let mut names = Vec::new();
    for entry in Dir::read_from(&folder)? {
        let name = entry?.file_name().to_owned();
        if name.as_bytes() != b"." && name.as_bytes() != b".." {
            names.push(name);
        }
    }
    let mut dropped = 0;
    for name in names {
        if name.as_bytes().ends_with(SUFFIX.as_bytes()) {
            dropped += 1;
        }
        // A plain file, a symlink (not followed) or a FIFO; an empty folder as well.
        unlinkat(&folder, &name, AtFlags::empty())
            .or_else(|_| unlinkat(&folder, &name, AtFlags::REMOVEDIR))?;
    }
    unlinkat(CWD, path, AtFlags::REMOVEDIR)?;
    Ok(Some(dropped))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ignore(_: String) {}

    #[test]
    fn a_request_written_while_an_exporter_holds_the_lock_is_posted_by_it() {
        let dir = tempfile::tempdir().unwrap();
        let held = take_lock(dir.path()).unwrap().expect("the lock was free");
        assert!(exporter_holds(dir.path()).unwrap());
        // No program is started while the lock is held: this one does not exist.
        hand_over(dir.path(), b"{\"a\":1}", Path::new("/nonexistent/exporter"), &[]).unwrap();
        drop(held);
        assert!(!exporter_holds(dir.path()).unwrap());
        let mut posted = Vec::new();
        drain(
            dir.path(),
            Duration::ZERO,
            &mut |b| {
                posted.push(b.to_vec());
                Ok(())
            },
            &mut ignore,
        );
        assert_eq!(posted, [b"{\"a\":1}".to_vec()]);
        assert_eq!(
            waiting(dir.path(), &mut ignore).unwrap().len(),
            0,
            "posted requests are removed"
        );
    }

    #[test]
    fn with_no_exporter_a_run_starts_one_and_says_when_it_cannot() {
        let dir = tempfile::tempdir().unwrap();
        let err = hand_over(dir.path(), b"{}", Path::new("/nonexistent/exporter"), &[]).unwrap_err();
        assert!(err.contains("could not start /nonexistent/exporter"), "{err}");
        assert_eq!(
            waiting(dir.path(), &mut ignore).unwrap().len(),
            1,
            "the request stays for the next exporter"
        );
    }

    #[test]
    fn requests_are_posted_oldest_first_and_past_the_bound_the_oldest_are_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let held = take_lock(dir.path()).unwrap().unwrap();
        for i in 0..MAX_WAITING + 3 {
            hand_over(
                dir.path(),
                i.to_string().as_bytes(),
                Path::new("/nonexistent"),
                &[],
            )
            .unwrap();
        }
        drop(held);
        let (mut posted, mut problems) = (Vec::new(), Vec::new());
        drain(
            dir.path(),
            Duration::ZERO,
            &mut |b| {
                posted.push(String::from_utf8(b.to_vec()).unwrap());
                Ok(())
            },
            &mut |p| problems.push(p),
        );
        let expected: Vec<String> = (3..MAX_WAITING + 3).map(|i| i.to_string()).collect();
        assert_eq!(posted, expected);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("the 3 oldest were dropped"), "{problems:?}");
    }

    #[test]
    fn a_second_exporter_leaves_at_once_and_a_failed_post_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let held = take_lock(dir.path()).unwrap().unwrap();
        hand_over(dir.path(), b"x", Path::new("/nonexistent"), &[]).unwrap();
        let mut posted = 0;
        drain(
            dir.path(),
            Duration::ZERO,
            &mut |_| {
                posted += 1;
                Ok(())
            },
            &mut ignore,
        );
        assert_eq!(posted, 0, "the lock's holder exports, nobody else");
        drop(held);
        let mut problems = Vec::new();
        drain(
            dir.path(),
            Duration::ZERO,
            &mut |_| Err("the OTLP endpoint answered HTTP 500".into()),
            &mut |p| problems.push(p),
        );
        assert_eq!(problems, ["OpenTelemetry: the OTLP endpoint answered HTTP 500"]);
        assert!(
            waiting(dir.path(), &mut ignore).unwrap().is_empty(),
            "a refused request is not retried"
        );
    }

    /// Drains `dir` on a thread of its own; what was posted and what was said, or a panic when
    /// the exporter has not come back within ten seconds (it hung).
    fn drain_within_a_while(dir: &Path) -> (Vec<Vec<u8>>, Vec<String>) {
        let dir = dir.to_path_buf();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let (mut posted, mut problems) = (Vec::new(), Vec::new());
            drain(
                &dir,
                Duration::ZERO,
                &mut |b| {
                    posted.push(b.to_vec());
                    Ok(())
                },
                &mut |p| problems.push(p),
            );
            let _ = tx.send((posted, problems));
        });
        rx.recv_timeout(Duration::from_secs(10))
            .expect("the exporter did not come back: it hung on the spool")
    }

    #[test]
    fn a_symlink_in_the_spool_never_posts_what_it_leads_to() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let secret = elsewhere.path().join("id_ed25519");
        fs::write(&secret, "PRIVATE KEY").unwrap();
        let link = dir.path().join(format!("0-link{SUFFIX}"));
        std::os::unix::fs::symlink(&secret, &link).unwrap();
        let (posted, problems) = drain_within_a_while(dir.path());
        assert!(posted.is_empty(), "posted {posted:?}");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].contains("is a symlink, not a request a run wrote; removed unread"),
            "{problems:?}"
        );
        assert!(link.symlink_metadata().is_err(), "the symlink is removed");
        assert_eq!(
            fs::read_to_string(&secret).unwrap(),
            "PRIVATE KEY",
            "its target is left alone"
        );
    }

    #[test]
    fn a_fifo_in_the_spool_neither_holds_the_exporter_nor_stops_the_others() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join(format!("0-fifo{SUFFIX}"));
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let held = take_lock(dir.path()).unwrap().unwrap();
        hand_over(dir.path(), b"{\"a\":1}", Path::new("/nonexistent"), &[]).unwrap();
        drop(held);
        let (posted, problems) = drain_within_a_while(dir.path());
        assert_eq!(posted, [b"{\"a\":1}".to_vec()]);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].contains("is not a plain file, not a request a run wrote; removed unread"),
            "{problems:?}"
        );
        assert!(fifo.symlink_metadata().is_err(), "the FIFO is removed");
    }

    #[test]
    fn what_cannot_be_removed_is_said_once_and_the_exporter_still_leaves() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join(format!("0-folder{SUFFIX}"));
        fs::create_dir(&folder).unwrap();
        fs::write(folder.join("inside"), "x").unwrap();
        let (posted, problems) = drain_within_a_while(dir.path());
        assert!(posted.is_empty(), "posted {posted:?}");
        assert_eq!(problems.len(), 1, "said once: {problems:?}");
        assert!(
            problems[0].contains("is not a plain file, not a request a run wrote; left unread"),
            "{problems:?}"
        );
        assert!(
            folder.join("inside").exists(),
            "a folder's contents are never removed"
        );
    }

    /// Sets `path`'s modification time `ago` in the past (not following a symlink's target).
    fn age(path: &Path, ago: Duration) {
        File::open(path)
            .unwrap()
            .set_modified(SystemTime::now() - ago)
            .unwrap();
    }

    #[test]
    fn folders_of_configurations_untouched_for_a_day_are_removed_and_nothing_else() {
        const DAY: Duration = ABANDONED;
        let state = tempfile::tempdir().unwrap();
        let spool = state.path().join("otel-spool");
        let folder = |name: &str| {
            let dir = spool.join(name);
            fs::create_dir_all(&dir).unwrap();
            dir
        };
        let ours = folder("0000000000000000");
        let old = folder("1111111111111111");
        for body in [b"{}".as_slice(), b"{\"b\":1}"] {
            hand_over(&old, body, Path::new("/nonexistent/exporter"), &[]).unwrap_err();
        }
        let fresh = folder("2222222222222222");
        hand_over(&fresh, b"{}", Path::new("/nonexistent/exporter"), &[]).unwrap_err();
        let held = folder("3333333333333333");
        let lock = take_lock(&held).unwrap().unwrap();
        let not_ours = folder("backups");
        fs::write(not_ours.join("keep"), "x").unwrap();
        // A symlink named as a spool, leading to a folder elsewhere that must not be emptied.
        let elsewhere = state.path().join("elsewhere");
        fs::create_dir(&elsewhere).unwrap();
        fs::write(elsewhere.join("keep.json"), "x").unwrap();
        std::os::unix::fs::symlink(&elsewhere, spool.join("4444444444444444")).unwrap();
        for dir in [&ours, &old, &held, &not_ours, &elsewhere] {
            age(dir, DAY + Duration::from_secs(60));
        }
        age(&fresh, DAY - Duration::from_secs(60));

        let mut problems = Vec::new();
        sweep_abandoned(&ours, DAY, &mut |p| problems.push(p));
        assert!(!old.exists(), "the abandoned folder is removed");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].contains("1111111111111111 was untouched for 24 h")
                && problems[0].contains("removed with the 2 export request(s) still waiting"),
            "{problems:?}"
        );
        assert_eq!(
            waiting(&fresh, &mut ignore).unwrap().len(),
            1,
            "a fresh folder stays"
        );
        assert!(ours.exists(), "the exporter's own folder stays");
        assert!(held.exists(), "a folder an exporter drains stays");
        assert!(
            not_ours.join("keep").exists(),
            "a folder not named as a spool stays"
        );
        assert!(elsewhere.join("keep.json").exists(), "a symlink is not followed");
        drop(lock);
        age(&held, DAY + Duration::from_secs(60));
        sweep_abandoned(&ours, DAY, &mut |p| problems.push(p));
        assert!(!held.exists(), "once its lock is free, it goes too");
        assert_eq!(
            problems.len(),
            1,
            "an empty folder goes without a word: {problems:?}"
        );
    }

    #[test]
    fn the_folder_depends_on_the_credentials_but_never_holds_them() {
        let config = |headers: &[(&str, &str)]| OtelConfig {
            endpoint: "http://127.0.0.1:4318/v1/traces".into(),
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            timeout: Duration::from_secs(10),
            resource: super::super::spans::Resource { attributes: vec![] },
            parent: None,
        };
        let state = Path::new("/state");
        let a = dir_for(state, &config(&[("api-key", "secret-one")]));
        let b = dir_for(state, &config(&[("api-key", "secret-two")]));
        assert_ne!(a, b);
        assert!(a.starts_with("/state/otel-spool"));
        assert!(!a.to_string_lossy().contains("secret"));
        assert_eq!(a, dir_for(state, &config(&[("api-key", "secret-one")])));
    }
}
