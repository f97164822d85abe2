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

use std::path::PathBuf;

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
}

impl AuditLog {
    /// 32 MiB per file, five files: some 300,000 hook runs.
    pub const DEFAULT_MAX_BYTES: u64 = 32 * 1024 * 1024;
    pub const DEFAULT_KEEP: usize = 4;

    /// The audit log for `host`'s events: the managed policy's `auditLog` if it sets one (neither
    /// the environment nor `off` moves it), else `HOOKBRIDGE_AUDIT_LOG` (a path, or `off`), else
    /// `~/.amplifier/hookbridge/audit.jsonl`; `None` when it is off or there is no home.
    /// `HOOKBRIDGE_AUDIT_MAX_BYTES` sets the rotation size.
    pub fn for_host(host: &str, managed: Option<&ManagedRules>) -> Option<AuditLog> {
        let path = match (
            managed.and_then(|m| m.audit_log.clone()),
            std::env::var_os("HOOKBRIDGE_AUDIT_LOG").filter(|p| !p.is_empty()),
        ) {
            (Some(mandatory), _) => mandatory,
            (None, Some(p)) if p == "off" => return None,
            (None, Some(p)) => PathBuf::from(p),
            (None, None) => default_path()?,
        };
        let max_bytes = std::env::var("HOOKBRIDGE_AUDIT_MAX_BYTES")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|&n: &u64| n >= 1024)
            .unwrap_or(Self::DEFAULT_MAX_BYTES);
        Some(AuditLog {
            path,
            host: host.to_string(),
            max_bytes,
            keep: Self::DEFAULT_KEEP,
        })
    }
}

/// `~/.amplifier/hookbridge/audit.jsonl`, the one default.
pub fn default_path() -> Option<PathBuf> {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty())?;
    Some(
        PathBuf::from(home)
            .join(".amplifier")
            .join("hookbridge")
            .join("audit.jsonl"),
    )
}
