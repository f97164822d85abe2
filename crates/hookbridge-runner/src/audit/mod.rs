//! The audit log: every hook run and every event's outcome on the record, one JSON line each,
//! in a hash chain that shows where the record was altered.
//!
//! Teams deploy hooks to enforce and to know which guard blocked what, and which hooks failed to
//! launch and so silently allowed. The diagnostics log keeps problems; this keeps everything that
//! ran, on by default, at `~/.amplifier/hookbridge/audit.jsonl` (`HOOKBRIDGE_AUDIT_LOG` names
//! another file, or `off`).
//!
//! - [`record`]: the lines of one dispatched event (pure): per hook its identity (source
//!   `file:line:col`, label, type, a digest of its definition), trust, how it ran, duration,
//!   status, its decision and reason (bounded), output sizes; per event its outcome. No
//!   environment values, header values or payload bodies.
//! - [`chain`]: appending under a lock with rotation that loses no line under concurrent runs,
//!   each line carrying a sequence number and the SHA-256 of the line before it; reading the
//!   record back and verifying the chain.
//! - [`stored`]: the one typed reader of stored lines, for every tool that reads the record.
//! - [`session`]: the hooks that failed in every run of a session, for the end-of-turn notice.
//!
//! Writing the record must never fail the run or change its answer: an error is reported to the
//! caller as a problem for the diagnostics log, and the answer stands.

pub mod chain;
pub mod record;
pub mod session;
pub mod stored;

use std::path::{Path, PathBuf};

use hookbridge_core::config::managed::ManagedRules;

pub use chain::{read_all, verify, AuditFiles, Broken, Verified};
pub use record::{blocks, event_lines, Failure, HookFacts, Line, Ran};
pub use stored::{Stored, StoredHook};

/// Where the record of a host's events goes.
#[derive(Debug, Clone)]
pub struct AuditLog {
    pub path: PathBuf,
    /// Who fired the events: `claude`, `amplifier`, `codex`, `gemini`, `test`.
    pub host: String,
    /// Rotate past this many bytes.
    pub max_bytes: u64,
    /// Rotated files kept (`<log>.1` … `<log>.N`).
    pub keep: usize,
    /// Why `HOOKBRIDGE_AUDIT_LOG` was not followed, when it was not (the default is used): for
    /// the diagnostics log.
    pub ignored: Option<String>,
}

impl AuditLog {
    /// 32 MiB per file, five files: some 300,000 hook runs.
    pub const DEFAULT_MAX_BYTES: u64 = 32 * 1024 * 1024;
    pub const DEFAULT_KEEP: usize = 4;

    /// The audit log for `host`'s events: the managed policy's `auditLog` if it sets one (neither
    /// the environment nor `off` moves it), else `HOOKBRIDGE_AUDIT_LOG` (a path, or `off`), else
    /// `~/.amplifier/hookbridge/audit.jsonl`; `None` when it is off or there is no home.
    /// `HOOKBRIDGE_AUDIT_MAX_BYTES` sets the rotation size (1 MiB at least). The variables come
    /// through the agent's environment, which a project's settings can set: the path must be one
    /// [`log_named_by`] accepts, else the default is used and [`AuditLog::ignored`] says why.
    pub fn for_host(host: &str, managed: Option<&ManagedRules>) -> Option<AuditLog> {
        let mut ignored = None;
        let path = match (
            managed.and_then(|m| m.audit_log.clone()),
            std::env::var_os("HOOKBRIDGE_AUDIT_LOG").filter(|p| !p.is_empty()),
        ) {
            (Some(mandatory), _) => mandatory,
            (None, Some(p)) if p == "off" => return None,
            (None, Some(_)) => match log_named_by("HOOKBRIDGE_AUDIT_LOG", ".jsonl", audit_line_start)? {
                Ok(path) => path,
                Err(why) => {
                    ignored = Some(why);
                    default_path()?
                }
            },
            (None, None) => default_path()?,
        };
        let max_bytes = std::env::var("HOOKBRIDGE_AUDIT_MAX_BYTES")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|&n: &u64| n >= Self::SMALLEST_MAX_BYTES)
            .unwrap_or(Self::DEFAULT_MAX_BYTES);
        Some(AuditLog {
            path,
            host: host.to_string(),
            max_bytes,
            keep: Self::DEFAULT_KEEP,
            ignored,
        })
    }

    /// The smallest rotation size `HOOKBRIDGE_AUDIT_MAX_BYTES` may set: with the rotated files
    /// kept, some thousands of lines, so that a project's settings cannot rotate the record away
    /// within a session. (Debug builds take 1 KiB, for the tests of rotation under concurrent
    /// runs, which would otherwise write megabytes.)
    #[cfg(not(debug_assertions))]
    pub const SMALLEST_MAX_BYTES: u64 = 1024 * 1024;
    /// See the release build's.
    #[cfg(debug_assertions)]
    pub const SMALLEST_MAX_BYTES: u64 = 1024;
}

/// The log file the variable `var` names, if it names one: `Ok` for a path whose file name ends
/// in `ending` (`.jsonl`, `.log`) and that is not a symlink, or for a FIFO or a character device
/// there (a reader, a terminal); `Err` with why not for anything else. The variables come through
/// the agent's environment, which a project's settings can set, and a log appended to
/// `~/.bashrc` would have the shell run what it quotes (a hook's reason, a command). A file that
/// is there already must be one hookbridge wrote: `ours` says whether its first bytes are a
/// line of this log (red-team pass 12: `HOOKBRIDGE_AUDIT_LOG=~/.claude/history.jsonl` appended
/// audit lines to Claude Code's prompt history, and its rotation moved the history away).
pub fn log_named_by(var: &str, ending: &str, ours: fn(&[u8]) -> bool) -> Option<Result<PathBuf, String>> {
    use std::os::unix::fs::FileTypeExt;
    let path = PathBuf::from(std::env::var_os(var).filter(|p| !p.is_empty())?);
    let refused = |what: &str| {
        Err(format!(
            "{var}=`{}` ignored: {what} (a project's settings can set the variable); the default log is used",
            path.display()
        ))
    };
    let named_so = path
        .file_name()
        .is_some_and(|name| name.to_string_lossy().ends_with(ending));
    Some(match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.file_type().is_symlink() => refused("a symlink"),
        Ok(meta) if meta.file_type().is_fifo() || meta.file_type().is_char_device() => Ok(path),
        _ if !named_so => refused(&format!("a log's file name ends in `{ending}`")),
        Ok(meta)
            if meta.is_file() && meta.len() > 0 && !first_bytes(&path).is_some_and(|head| ours(&head)) =>
        {
            refused("a file hookbridge did not write (its first line is not one of this log's)")
        }
        _ => Ok(path),
    })
}

/// Whether `head` starts as every line of the audit log does (`{"seq":`).
pub fn audit_line_start(head: &[u8]) -> bool {
    head.starts_with(b"{\"seq\":")
}

/// The first bytes of the regular file `path` (never through a symlink, never waiting).
fn first_bytes(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(path)
        .ok()?;
    let mut head = vec![0; 32];
    let mut filled = 0;
    while filled < head.len() {
        match file.read(&mut head[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(_) => return None,
        }
    }
    head.truncate(filled);
    Some(head)
}

/// `~/.amplifier/hookbridge/audit.jsonl`, the one default.
pub fn default_path() -> Option<PathBuf> {
    let home = crate::home::user_home()?;
    Some(home.join(".amplifier").join("hookbridge").join("audit.jsonl"))
}
