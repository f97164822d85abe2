//! The diagnostics log: where problems go when the answer channel (stdout/stderr) belongs to the
//! agent host.
//!
//! Location: `$HOOKBRIDGE_LOG` if set to a log (`audit::log_named_by`: a project's settings can
//! set it, and a `~/.bashrc` must not be appended to), else `~/.amplifier/hookbridge/diagnostics.log`. One line per
//! problem, prefixed with a UTC timestamp and the event. The file is rotated to `<log>.1` past
//! 10 MiB.
//!
//! The log must never fail or delay the run: every error is ignored, and nothing here waits. The
//! file is opened with `O_NONBLOCK` (a FIFO nobody reads fails at once instead of blocking the
//! answer; a reader's full pipe drops the lines), and rotation takes its lock without waiting.
//! Rotation is the one step that concurrent runs can race on — two that see the same full file
//! both rename, and the second renames the first one's fresh log over the rotated one — so it
//! happens under an exclusive `flock` of the file being rotated, and only if the path still names
//! that file once the lock is held (see [`rotate`]).

use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use rustix::fs::{FlockOperation, OFlags};

const ROTATE_AT: u64 = 10 * 1024 * 1024;

/// Where the lines go: `$HOOKBRIDGE_LOG` when it names a log, else the default log — which then
/// says once per process why the variable was ignored.
pub fn path() -> Option<PathBuf> {
    static IGNORED_SAID: std::sync::Once = std::sync::Once::new();
    match hookbridge_runner::audit::log_named_by("HOOKBRIDGE_LOG", ".log", begins_as_ours) {
        Some(Ok(path)) => return Some(path),
        Some(Err(why)) => {
            let default = default_path()?;
            IGNORED_SAID.call_once(|| {
                let _ = write(&default, render("hookbridge", &[why]).as_bytes());
            });
            return Some(default);
        }
        None => {}
    }
    default_path()
}

/// `~/.amplifier/hookbridge/diagnostics.log`.
fn default_path() -> Option<PathBuf> {
    let home = hookbridge_runner::home::user_home()?;
    Some(home.join(".amplifier").join("hookbridge").join("diagnostics.log"))
}

/// Append `lines` (each one problem) to the log.
pub fn append(context: &str, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    let Some(path) = path() else { return };
    let _ = write(&path, render(context, lines).as_bytes());
}

fn render(context: &str, lines: &[String]) -> String {
    let stamp = timestamp();
    let mut text = String::new();
    for line in lines {
        for (i, part) in line.lines().enumerate() {
            text.push_str(&stamp);
            text.push(' ');
            text.push_str(context);
            text.push_str(if i == 0 { ": " } else { ":   " });
            text.push_str(part);
            text.push('\n');
        }
    }
    text
}

fn write(path: &Path, text: &[u8]) -> io::Result<()> {
    let mut file = open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        // A FIFO somebody reads, a terminal, /dev/null: one write that does not wait.
        return file.write(text).map(drop);
    }
    if meta.len() > ROTATE_AT {
        file = rotate(path, file, &meta)?;
    }
    // One `write` with O_APPEND: lines of concurrent runs do not interleave.
    file.write_all(text)
}

/// The log at `path`, opened to append, creating its folder if needed: never through a symlink
/// (`O_NOFOLLOW`: a link put in place after `audit::log_named_by` looked cannot redirect the lines),
/// and never waiting on a FIFO.
fn open(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options
        .create(true)
        .read(true) // its first line, before a rotation (`written_by_hookbridge`)
        .append(true)
        .custom_flags((OFlags::NONBLOCK | OFlags::NOFOLLOW).bits() as i32);
    match options.open(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent)?;
            }
            options.open(path)
        }
        other => other,
    }
}

/// Rotate the full log `file` (opened from `path`, `meta` its metadata) to `<path>.1` and return
/// the file to append to.
///
/// The lock is taken without waiting: a run that does not get it appends to the old file, which
/// the holder is renaming (its lines land in `.1`, not lost). Once locked, the path must still name
/// the file we opened: if it does not, another run rotated it between our open and our lock, and
/// we append to the fresh log instead of rotating that one over the rotated file.
///
/// Only a log hookbridge wrote is renamed: its first line starts with a line's UTC timestamp. Any
/// other `*.log` (another program's, named by `$HOOKBRIDGE_LOG` from a project's settings) is
/// appended to but never moved over its own `.log.1`.
fn rotate(path: &Path, file: File, meta: &Metadata) -> io::Result<File> {
    if !written_by_hookbridge(&file) {
        return Ok(file);
    }
    #[cfg(debug_assertions)]
    test_stall();
    if rustix::fs::flock(&file, FlockOperation::NonBlockingLockExclusive).is_err() {
        return Ok(file);
    }
    let still_ours = fs::metadata(path).is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino());
    if still_ours {
        let mut rotated = path.as_os_str().to_owned();
        rotated.push(".1");
        if fs::rename(path, &rotated).is_err() {
            return Ok(file);
        }
    }
    // `file`, and with it the lock, is released once the fresh log is open.
    open(path)
}

/// Whether `file` starts as every line of this log does ([`begins_as_ours`]).
fn written_by_hookbridge(file: &File) -> bool {
    use std::os::unix::fs::FileExt;
    let mut head = [0u8; 21];
    file.read_exact_at(&mut head, 0).is_ok() && begins_as_ours(&head)
}

/// Whether `head` starts as every line of this log does: `YYYY-MM-DDTHH:MM:SSZ `.
fn begins_as_ours(head: &[u8]) -> bool {
    const SHAPE: &[u8] = b"0000-00-00T00:00:00Z ";
    head.len() >= SHAPE.len()
        && head.iter().zip(SHAPE).all(|(&b, &shape)| match shape {
            b'0' => b.is_ascii_digit(),
            _ => b == shape,
        })
}

/// Test hook (debug builds only): the rotation race needs a stall between the size check and the
/// rename. With `HOOKBRIDGE_TEST_ROTATION_STALL` naming a FIFO, a rotating run opens it for reading,
/// which waits until the test opens the writing end, and reads until the test closes it
/// (tests/integration/cli_failsafe.rs, `concurrent_rotation_loses_nothing`).
#[cfg(debug_assertions)]
fn test_stall() {
    if let Some(fifo) = std::env::var_os("HOOKBRIDGE_TEST_ROTATION_STALL") {
        if let Ok(mut f) = File::open(fifo) {
            let _ = io::copy(&mut f, &mut io::sink());
        }
    }
}

/// Write to the controlling terminal, if there is one (never to stdout/stderr, which the host
/// reads), without waiting on a stopped terminal.
pub fn to_terminal(lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    let tty = OpenOptions::new()
        .write(true)
        .custom_flags(OFlags::NONBLOCK.bits() as i32)
        .open("/dev/tty");
    if let Ok(mut tty) = tty {
        let text: String = lines.iter().map(|l| format!("hookbridge: {l}\n")).collect();
        let _ = tty.write(text.as_bytes());
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ` from the system clock (a clock set before 1970 reads as the epoch,
/// which humantime can write).
fn timestamp() -> String {
    humantime::format_rfc3339_seconds(SystemTime::now().max(UNIX_EPOCH)).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A symlink at the log's path is never written through: the file it leads to is unchanged.
    #[test]
    fn the_log_is_never_opened_through_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("bashrc");
        fs::write(&victim, "# mine\n").unwrap();
        let path = dir.path().join("diagnostics.log");
        std::os::unix::fs::symlink(&victim, &path).unwrap();
        assert!(open(&path).is_err());
        let _ = write(&path, b"a line\n");
        assert_eq!(fs::read_to_string(&victim).unwrap(), "# mine\n");
    }

    /// Past the size limit, only a log whose first line is one of hookbridge's is renamed to
    /// `.log.1`; another program's `.log` (named by the variable) keeps its place and its own
    /// `.log.1`.
    #[test]
    fn only_a_log_hookbridge_wrote_is_rotated() {
        let dir = tempfile::tempdir().unwrap();
        for (first, rotates) in [
            ("2026-11-29T10:00:00Z run Stop: a problem\n", true),
            ("[app] started\n", false),
        ] {
            let path = dir.path().join("app.log");
            let older = dir.path().join("app.log.1");
            fs::write(&older, "the app's older log\n").unwrap();
            let mut text = first.as_bytes().to_vec();
            text.resize(ROTATE_AT as usize + 1, b'x');
            fs::write(&path, &text).unwrap();
            write(&path, b"2026-11-29T10:00:01Z run Stop: another\n").unwrap();
            let kept = fs::read_to_string(&older).unwrap() == "the app's older log\n";
            assert_eq!(!kept, rotates, "{first:?}");
            assert_eq!(
                fs::metadata(&path).unwrap().len() > ROTATE_AT,
                !rotates,
                "{first:?}"
            );
        }
    }
}
