//! The audit log on disk: appended under a lock, rotated, chained, read back and verified.
//!
//! Every line starts with `"seq"` (one more than the line before it, across rotations) and
//! `"prev"` (the SHA-256, in hex, of the bytes of the line before it; 64 zeros for the first line
//! ever). Editing a line breaks the next line's `prev`; removing lines leaves a gap in `seq`;
//! reordering breaks both. [`verify`] walks the retained files oldest first and names the first
//! line where the chain breaks. What a chain cannot show: the very last line rewritten together
//! with nothing after it, or the whole tail cut off (the record then simply ends earlier).
//!
//! Concurrency: writers take an exclusive `flock` on `<log>.lock` (never rotated), read the last
//! line, rotate if the file is full, and append their lines in one `write`; so concurrent runs
//! neither interleave nor fork the chain, and rotation loses no line. The lock is waited for at
//! most [`LOCK_WAIT`]; past that the lines are written anyway, unchained (`"seq": null`), which
//! [`verify`] reports — a record kept, never one dropped.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, Write};
use std::os::unix::fs::{FileExt as _, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hookbridge_core::trust::pins::sha256_hex;
use rustix::fs::FlockOperation;
use serde::Serialize;
use serde_json::{Map, Value};

use super::AuditLog;

/// How long a writer waits for the lock before writing unchained.
pub const LOCK_WAIT: Duration = Duration::from_secs(2);
/// `prev` of the first line ever.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";
/// Bytes read back from the end of the file to find its last line (lines are bounded well below).
const TAIL: u64 = 64 * 1024;

impl AuditLog {
    /// Append `lines` (each serializing to a JSON object), chained, rotating first if they would
    /// not fit.
    pub fn append<T: Serialize>(&self, lines: &[T]) -> io::Result<()> {
        if lines.is_empty() {
            return Ok(());
        }
        // Each run writes here once, on its answer's path: the folder is made only when the lock
        // cannot be opened for want of it, and each file is looked at once (`fstat`, `pread`).
        let lock_path = with_suffix(&self.path, ".lock");
        let lock = match open_lock(&lock_path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                ensure_parent(&self.path)?;
                open_lock(&lock_path)?
            }
            opened => opened?,
        };
        let locked = lock_within(&lock, LOCK_WAIT);
        let (mut file, meta) = open_private(&self.path)?;
        if !locked {
            let text = render(lines, None);
            return file.write_all(&text);
        }
        let len = meta.len();
        let mut tail = last_line(&file, len)?;
        if tail.is_none() {
            // A fresh file: the chain goes on from the newest rotated one, if any.
            tail = File::open(with_suffix(&self.path, ".1"))
                .and_then(|f| {
                    let n = f.metadata()?.len();
                    last_line(&f, n)
                })
                .ok()
                .flatten();
        }
        let head = match &tail {
            Some(t) => Head {
                next_seq: seq_of(&t.bytes).map_or(0, |s| s + 1),
                prev: sha256_hex(&t.bytes),
            },
            None => Head {
                next_seq: 0,
                prev: GENESIS.to_string(),
            },
        };
        let mut text = Vec::new();
        if tail.as_ref().is_some_and(|t| !t.ends_with_newline) && len > 0 {
            text.push(b'\n'); // a cut line stays a line of its own (and fails verification)
        }
        text.extend(render(lines, Some(head)));
        if len > 0 && len + text.len() as u64 > self.max_bytes {
            self.rotate()?;
            file = open_private(&self.path)?.0;
            if text.first() == Some(&b'\n') {
                text.remove(0);
            }
        }
        file.write_all(&text)
        // `lock` is released when dropped.
    }

    /// `<log>` → `<log>.1` → … → `<log>.<keep>`; the oldest is dropped.
    fn rotate(&self) -> io::Result<()> {
        let _ = fs::remove_file(with_suffix(&self.path, &format!(".{}", self.keep)));
        for n in (1..self.keep).rev() {
            let from = with_suffix(&self.path, &format!(".{n}"));
            if from.exists() {
                fs::rename(&from, with_suffix(&self.path, &format!(".{}", n + 1)))?;
            }
        }
        fs::rename(&self.path, with_suffix(&self.path, ".1"))
    }
}

/// Where the chain goes on from.
struct Head {
    next_seq: u64,
    /// The hash of the line before.
    prev: String,
}

/// The lines as bytes, each `{"seq": …, "prev": …, …}` and a newline, chained from `head`
/// (`None`: unchained).
fn render<T: Serialize>(lines: &[T], mut head: Option<Head>) -> Vec<u8> {
    let mut out = Vec::with_capacity(lines.len() * 768);
    let mut body = Vec::with_capacity(768);
    for fields in lines {
        body.clear();
        serde_json::to_writer(&mut body, fields).expect("an audit line serializes");
        let start = out.len();
        match &head {
            Some(h) => {
                out.extend_from_slice(b"{\"seq\":");
                out.extend_from_slice(h.next_seq.to_string().as_bytes());
                out.extend_from_slice(b",\"prev\":\"");
                out.extend_from_slice(h.prev.as_bytes());
                out.push(b'"');
            }
            None => out.extend_from_slice(b"{\"seq\":null,\"prev\":null"),
        }
        // The object's own fields follow `seq` and `prev`.
        match body.strip_prefix(b"{") {
            Some(b"}") | None => out.push(b'}'),
            Some(rest) => {
                out.push(b',');
                out.extend_from_slice(rest);
            }
        }
        if let Some(h) = &mut head {
            h.next_seq += 1;
            h.prev = sha256_hex(&out[start..]);
        }
        out.push(b'\n');
    }
    out
}

/// The `seq` of a stored line, read from its start (`{"seq":N,`) without parsing the rest.
fn seq_of(line: &[u8]) -> Option<u64> {
    let rest = line.strip_prefix(b"{\"seq\":")?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()
}

struct Tail {
    bytes: Vec<u8>,
    ends_with_newline: bool,
}

/// The last line of `file` (`len` bytes long), without its newline.
fn last_line(file: &File, len: u64) -> io::Result<Option<Tail>> {
    if len == 0 {
        return Ok(None);
    }
    // A line is about 450 bytes and rarely over 1 KiB: 1 KiB is read first, the whole tail only
    // if it holds no line break before the last byte (a few µs less than reading 4 KiB first, on
    // every run's answer path).
    for span in [1024, TAIL] {
        let start = len.saturating_sub(span);
        let mut buf = vec![0; (len - start) as usize];
        // What is there: a log cut short by someone else since `len` was read gives a shorter
        // tail (the chain's check then says where it broke), not a lost record.
        let read = read_at_most(file, &mut buf, start)?;
        buf.truncate(read);
        if buf.is_empty() {
            // Cut to before `start` since: its tail as it is now, if it is shorter.
            if start > 0 {
                let now = file.metadata()?.len();
                if now < len {
                    return last_line(file, now);
                }
            }
            return Ok(None);
        }
        let ends_with_newline = buf.last() == Some(&b'\n');
        let body = if ends_with_newline {
            &buf[..buf.len() - 1]
        } else {
            &buf[..]
        };
        let from = match body.iter().rposition(|&b| b == b'\n') {
            Some(i) => i + 1,
            None if start > 0 && span < TAIL => continue,
            None => 0,
        };
        return Ok(Some(Tail {
            bytes: body[from..].to_vec(),
            ends_with_newline,
        }));
    }
    unreachable!("the last span always returns")
}

/// Reads `file` from `offset` until `buf` is full or the file ends; how many bytes were read.
fn read_at_most(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read_at(&mut buf[filled..], offset + filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

fn lock_within(lock: &File, wait: Duration) -> bool {
    let deadline = Instant::now() + wait;
    loop {
        if rustix::fs::flock(lock, FlockOperation::NonBlockingLockExclusive).is_ok() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The lock file, created with mode 0600 and opened without waiting (a FIFO there would
/// otherwise block the run). It is only ever `flock`ed, never read or written, so what it is
/// does not matter.
fn open_lock(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .create(true)
        .read(true)
        .write(true)
        .mode(0o600)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)
}

/// The log, opened for appending and created with mode 0600, with what it is. Only a regular file
/// will do: a FIFO or a device named as the log would block the run or swallow the record, so it
/// is opened without waiting and refused.
/// The log at `path`, opened to append (created `0600`): never through a symlink (`O_NOFOLLOW`,
/// so a link put in place after `audit::log_named_by` looked cannot redirect the lines), and never
/// waiting on a FIFO nobody reads (`O_NONBLOCK`).
fn open_private(path: &Path) -> io::Result<(File, fs::Metadata)> {
    use rustix::fs::OFlags;
    let file = OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .mode(0o600)
        .custom_flags((OFlags::NONBLOCK | OFlags::NOFOLLOW).bits() as i32)
        .open(path)
        .map_err(|e| refused_link(path, e))?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::other(format!(
            "{} is not a regular file",
            path.display()
        )));
    }
    Ok((file, meta))
}

/// `ELOOP` from an `O_NOFOLLOW` open, said as what it is.
fn refused_link(path: &Path, e: io::Error) -> io::Error {
    if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) {
        io::Error::other(format!(
            "{} is a symlink; the audit log is never written through one",
            path.display()
        ))
    } else {
        e
    }
}

fn ensure_parent(path: &Path) -> io::Result<()> {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => fs::create_dir_all(parent),
        _ => Ok(()),
    }
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// The files of the record, oldest first: `<log>.N` … `<log>.1`, `<log>` (those that exist; a
/// rotated file missing between two that are there is a gap in the chain, which [`verify`] names,
/// not where the record ends).
#[derive(Debug, Clone)]
pub struct AuditFiles(pub Vec<PathBuf>);

impl AuditFiles {
    pub fn of(path: &Path) -> AuditFiles {
        let mut files: Vec<PathBuf> = (1..=64)
            .map(|n| with_suffix(path, &format!(".{n}")))
            .filter(|p| p.exists())
            .collect();
        files.reverse();
        if path.exists() {
            files.push(path.to_path_buf());
        }
        AuditFiles(files)
    }

    /// Call `each(file, line number, bytes)` for every line, oldest first; stops at `false`.
    pub fn for_each_line(&self, mut each: impl FnMut(&Path, usize, &[u8]) -> bool) -> io::Result<()> {
        let mut buf = Vec::new();
        for file in &self.0 {
            let mut reader = BufReader::with_capacity(256 * 1024, File::open(file)?);
            let mut number = 0;
            loop {
                buf.clear();
                if reader.read_until(b'\n', &mut buf)? == 0 {
                    break;
                }
                number += 1;
                let line = buf.strip_suffix(b"\n").unwrap_or(&buf);
                if !each(file, number, line) {
                    return Ok(());
                }
            }
        }
        Ok(())
    }
}

/// Every line of the record at `path`, oldest first, parsed (lines that are not JSON objects are
/// left out: [`verify`] names them).
pub fn read_all(path: &Path) -> io::Result<Vec<Map<String, Value>>> {
    let mut out = Vec::new();
    AuditFiles::of(path).for_each_line(|_, _, bytes| {
        if let Ok(Value::Object(line)) = serde_json::from_slice(bytes) {
            out.push(line);
        }
        true
    })?;
    Ok(out)
}

/// A whole chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    pub lines: u64,
    pub files: usize,
    /// The `seq` the retained record starts at (0 unless older files were rotated away).
    pub first_seq: Option<u64>,
}

/// Where the chain breaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}:{line}: {what}", file.display())]
pub struct Broken {
    pub file: PathBuf,
    /// 1-based line number in `file`.
    pub line: usize,
    pub what: String,
}

/// Walk the record at `path` and name the first line where the chain breaks.
pub fn verify(path: &Path) -> io::Result<Result<Verified, Broken>> {
    let files = AuditFiles::of(path);
    let rotated = files.0.first().is_some_and(|oldest| oldest != path);
    let mut previous: Option<(u64, String, PathBuf, usize)> = None;
    let mut count = 0u64;
    let mut first_seq = None;
    let mut broken = None;
    files.for_each_line(|file, number, bytes| {
        let fail = |what: String| Broken {
            file: file.to_path_buf(),
            line: number,
            what,
        };
        let parsed: Option<(Option<u64>, Option<String>)> = match serde_json::from_slice::<Value>(bytes) {
            Ok(Value::Object(m)) => Some((
                m.get("seq").and_then(Value::as_u64),
                m.get("prev").and_then(Value::as_str).map(str::to_string),
            )),
            _ => None,
        };
        let Some((seq, prev)) = parsed else {
            broken = Some(fail("not a JSON object: the line was altered or cut".into()));
            return false;
        };
        let (Some(seq), Some(prev)) = (seq, prev) else {
            broken = Some(fail(
                "no `seq`/`prev`: written unchained (the lock was not had in time), or altered".into(),
            ));
            return false;
        };
        match &previous {
            None => {
                if seq == 0 && prev != GENESIS {
                    broken = Some(fail("the first line does not start the chain".into()));
                    return false;
                }
                // Only a rotated file can start past 0, and only with a line of its own: the log
                // alone must hold the whole chain (an empty `.1` beside it proves nothing was
                // rotated away: red-team pass 12).
                if seq != 0 && (!rotated || file == path) {
                    broken = Some(fail(format!(
                        "the record starts at `seq` {seq} and nothing was rotated: lines 0–{} were removed, or lines reordered",
                        seq - 1
                    )));
                    return false;
                }
                first_seq = Some(seq);
            }
            Some((last_seq, last_hash, last_file, last_line)) => {
                if seq != last_seq + 1 {
                    let what = if seq > last_seq + 1 {
                        format!(
                            "`seq` {seq} follows {last_seq}: lines {}–{} were removed, or lines reordered",
                            last_seq + 1,
                            seq - 1
                        )
                    } else {
                        format!("`seq` {seq} follows {last_seq}: lines were reordered or copied")
                    };
                    broken = Some(fail(what));
                    return false;
                }
                if &prev != last_hash {
                    broken = Some(Broken {
                        file: last_file.clone(),
                        line: *last_line,
                        what: format!(
                            "altered: its hash does not match the `prev` of the line after it (seq {seq})"
                        ),
                    });
                    return false;
                }
            }
        }
        count += 1;
        previous = Some((seq, sha256_hex(bytes), file.to_path_buf(), number));
        true
    })?;
    Ok(match broken {
        Some(b) => Err(b),
        None => Ok(Verified {
            lines: count,
            files: files.0.len(),
            first_seq,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A symlink at the log's path (put there after the path was checked, say) is refused, and
    /// the file it leads to is left as it was.
    #[test]
    fn the_log_is_never_appended_through_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("bashrc");
        fs::write(&victim, "# mine\n").unwrap();
        let path = dir.path().join("audit.jsonl");
        std::os::unix::fs::symlink(&victim, &path).unwrap();
        let err = open_private(&path).unwrap_err();
        assert!(err.to_string().contains("is a symlink"), "{err}");
        assert_eq!(fs::read_to_string(&victim).unwrap(), "# mine\n");
    }

    /// A log cut short by someone else after its length was read: the tail is what is there.
    #[test]
    fn the_tail_of_a_log_cut_short_since_its_length_was_read_is_what_is_there() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        // Cut by a little, by more than the first read, by more than the whole tail read.
        for len_read in [40, 4000, 100_000] {
            fs::write(&path, "{\"seq\":1}\n{\"seq\":2}\n").unwrap();
            let file = File::open(&path).unwrap();
            let tail = last_line(&file, len_read).unwrap().expect("a tail");
            assert_eq!(tail.bytes, b"{\"seq\":2}", "length read {len_read}");
            assert!(tail.ends_with_newline);
            fs::write(&path, "").unwrap();
            assert!(last_line(&file, len_read).unwrap().is_none());
        }
    }

    /// A last line longer than the first span read (a long label and reason) is read whole from
    /// the larger one, and so is one that ends exactly at the first span's start.
    #[test]
    fn a_last_line_longer_than_the_first_read_is_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        for long in [3000, 1023, 1024, 1025] {
            let last = format!("{{\"seq\":2,\"label\":\"{}\"}}", "x".repeat(long));
            let text = format!("{{\"seq\":1}}\n{last}\n");
            fs::write(&path, &text).unwrap();
            let file = File::open(&path).unwrap();
            let tail = last_line(&file, text.len() as u64).unwrap().expect("a tail");
            assert_eq!(tail.bytes, last.as_bytes(), "a last line of {} bytes", last.len());
        }
    }

    fn log(dir: &Path, max_bytes: u64) -> AuditLog {
        AuditLog {
            path: dir.join("audit.jsonl"),
            host: "test".into(),
            max_bytes,
            keep: 4,
            ignored: None,
        }
    }

    fn line(n: usize) -> Map<String, Value> {
        let Value::Object(m) = json!({"kind": "event", "n": n}) else {
            unreachable!()
        };
        m
    }

    #[test]
    fn lines_are_chained_across_rotation() {
        let dir = tempfile::tempdir().unwrap();
        let log = log(dir.path(), 2048);
        for n in 0..100 {
            log.append(&[line(n), line(n)]).unwrap();
        }
        assert!(dir.path().join("audit.jsonl.1").exists());
        let verified = verify(&log.path).unwrap().unwrap();
        assert_eq!(verified.files, 5);
        let all = read_all(&log.path).unwrap();
        assert_eq!(verified.lines, all.len() as u64);
        assert_eq!(all.last().unwrap()["seq"], json!(199));
        assert_eq!(verified.first_seq.unwrap() + verified.lines, 200);
    }

    fn lines_of(path: &Path) -> Vec<String> {
        fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    }

    fn write_lines(path: &Path, lines: &[String]) {
        fs::write(path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    }

    #[test]
    fn an_edited_a_deleted_and_a_reordered_line_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let log = log(dir.path(), AuditLog::DEFAULT_MAX_BYTES);
        for n in 0..10 {
            log.append(&[line(n)]).unwrap();
        }
        let good = lines_of(&log.path);
        assert_eq!(verify(&log.path).unwrap().unwrap().lines, 10);

        let mut edited = good.clone();
        edited[4] = edited[4].replace("\"n\":4", "\"n\":40");
        write_lines(&log.path, &edited);
        let b = verify(&log.path).unwrap().unwrap_err();
        assert_eq!(b.line, 5, "{b}");
        assert!(b.what.starts_with("altered"), "{b}");

        let mut deleted = good.clone();
        deleted.remove(6);
        write_lines(&log.path, &deleted);
        let b = verify(&log.path).unwrap().unwrap_err();
        assert_eq!(b.line, 7, "{b}");
        assert!(b.what.contains("lines 6–6 were removed"), "{b}");

        let mut reordered = good.clone();
        reordered.swap(2, 3);
        write_lines(&log.path, &reordered);
        let b = verify(&log.path).unwrap().unwrap_err();
        assert_eq!(b.line, 3, "{b}");
        assert!(b.what.contains("reordered"), "{b}");

        let mut first_gone = good.clone();
        first_gone.remove(0);
        write_lines(&log.path, &first_gone);
        let b = verify(&log.path).unwrap().unwrap_err();
        assert_eq!(b.line, 1, "{b}");
        assert!(b.what.contains("lines 0–0 were removed"), "{b}");

        let mut cut = good;
        cut[8].truncate(20);
        write_lines(&log.path, &cut);
        let b = verify(&log.path).unwrap().unwrap_err();
        assert_eq!(b.line, 9, "{b}");
    }

    /// Red-team pass 12: an empty `.1` beside a log whose first lines were cut made the cut look
    /// like a rotation.
    #[test]
    fn an_empty_rotated_file_does_not_hide_a_cut_head() {
        let dir = tempfile::tempdir().unwrap();
        let log = log(dir.path(), AuditLog::DEFAULT_MAX_BYTES);
        for n in 0..5 {
            log.append(&[line(n)]).unwrap();
        }
        let mut lines = lines_of(&log.path);
        lines.remove(0);
        write_lines(&log.path, &lines);
        fs::write(dir.path().join("audit.jsonl.1"), "").unwrap();
        let b = verify(&log.path).unwrap().unwrap_err();
        assert_eq!(b.line, 1, "{b}");
        assert!(b.what.contains("lines 0–0 were removed"), "{b}");
    }

    #[test]
    fn a_fifo_named_as_the_log_is_refused_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let log = log(dir.path(), AuditLog::DEFAULT_MAX_BYTES);
        nix::unistd::mkfifo(&log.path, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let e = log.append(&[line(0)]).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
    }

    #[test]
    fn concurrent_writers_lose_no_line_and_keep_one_chain() {
        let dir = tempfile::tempdir().unwrap();
        let log = log(dir.path(), 16 * 1024);
        std::thread::scope(|s| {
            for t in 0..8 {
                let log = &log;
                s.spawn(move || {
                    for n in 0..25 {
                        log.append(&[line(t * 1000 + n), line(t * 1000 + n)]).unwrap();
                    }
                });
            }
        });
        let verified = verify(&log.path).unwrap().unwrap();
        // Nothing rotated away at this size (5 files of 16 KiB hold them all).
        assert_eq!(verified.first_seq, Some(0));
        assert_eq!(verified.lines, 400);
    }
}
