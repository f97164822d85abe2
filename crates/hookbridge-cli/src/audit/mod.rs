//! `hookbridge log` and `hookbridge stats`: the audit log read back (see
//! `hookbridge_runner::audit`), for people and for tools.
//!
//! `log` prints lines, filtered (`--session`, `--event`, `--hook`, `--blocked`, `--failed`,
//! `--since`), as text or as the JSON lines themselves, and follows the file (`-f`); `log
//! --verify` walks the hash chain and names the first line that was altered or removed. `stats`
//! sums every hook's runs ([`stats`]); `report --html` draws one session as a page ([`report`]).

pub mod report;
pub mod stats;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use anyhow::Context as _;
use clap::Args;
use hookbridge_runner::audit::{self, AuditFiles, Stored};

use crate::UsageError;

#[derive(Args, Debug)]
pub struct AuditFileArgs {
    /// The audit log to read (default: $HOOKBRIDGE_AUDIT_LOG, else ~/.amplifier/hookbridge/audit.jsonl);
    /// its rotated files (`<file>.1`, …) are read before it.
    #[arg(long, value_name = "FILE")]
    file: Option<PathBuf>,
}

impl AuditFileArgs {
    pub fn path(&self) -> anyhow::Result<PathBuf> {
        if let Some(file) = &self.file {
            return Ok(file.clone());
        }
        match std::env::var_os("HOOKBRIDGE_AUDIT_LOG").filter(|p| !p.is_empty()) {
            Some(p) if p == "off" => Err(UsageError(
                "HOOKBRIDGE_AUDIT_LOG=off: there is no audit log; name one with --file".into(),
            )
            .into()),
            // Where `run` writes it: the variable's file when it may name one, else the default.
            Some(_) => match audit::log_named_by("HOOKBRIDGE_AUDIT_LOG", ".jsonl", audit::audit_line_start) {
                Some(Ok(path)) => Ok(path),
                _ => audit::default_path().ok_or_else(|| {
                    UsageError("HOME is not set: name the audit log with --file".into()).into()
                }),
            },
            None => audit::default_path()
                .ok_or_else(|| UsageError("HOME is not set: name the audit log with --file".into()).into()),
        }
    }
}

#[derive(Args, Debug)]
pub struct LogArgs {
    #[command(flatten)]
    file: AuditFileArgs,
    /// Only this session's lines.
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Only this event's lines (`PreToolUse`, …).
    #[arg(long, value_name = "NAME")]
    event: Option<String>,
    /// Only the runs of hooks whose label (command, URL, prompt) or source contains this text.
    #[arg(long, value_name = "TEXT")]
    hook: Option<String>,
    /// Only blocks and denials: hooks that blocked, events that were blocked.
    #[arg(long)]
    blocked: bool,
    /// Only failures: hooks that failed, timed out or never launched, events with such a hook.
    #[arg(long)]
    failed: bool,
    /// Only lines from this long ago (`10m`, `2h`, `1day`) or from this time (RFC 3339) on.
    #[arg(long, value_name = "WHEN")]
    since: Option<String>,
    /// The lines as they are stored (JSON, one per line).
    #[arg(long)]
    json: bool,
    /// Keep printing lines as they are written.
    #[arg(long, short = 'f')]
    follow: bool,
    /// Check the hash chain instead: exit 0 if it is whole, 1 naming the first line that was
    /// altered or removed.
    #[arg(long, conflicts_with_all = ["session", "event", "hook", "blocked", "failed", "since", "json", "follow"])]
    verify: bool,
}

/// What a line must be to be shown.
struct Filter {
    session: Option<String>,
    event: Option<String>,
    hook: Option<String>,
    blocked: bool,
    failed: bool,
    since: Option<SystemTime>,
}

impl Filter {
    fn keeps(&self, line: &Stored) -> bool {
        let hook = line.hook_run();
        if self.session.as_deref().is_some_and(|s| !line.in_session(s)) {
            return false;
        }
        if self
            .event
            .as_deref()
            .is_some_and(|e| line.event.as_deref() != Some(e))
        {
            return false;
        }
        if let Some(wanted) = self.hook.as_deref() {
            if !hook.is_some_and(|h| h.label.contains(wanted) || h.source.contains(wanted)) {
                return false;
            }
        }
        if (self.blocked && !line.blocked()) || (self.failed && !line.failed()) {
            return false;
        }
        if let Some(since) = self.since {
            let at = line
                .time
                .as_deref()
                .and_then(|t| humantime::parse_rfc3339_weak(t).ok());
            if at.is_none_or(|at| at < since) {
                return false;
            }
        }
        true
    }
}

/// `--since`: a duration ago, or a time.
fn since(text: &str) -> anyhow::Result<SystemTime> {
    if let Ok(ago) = humantime::parse_duration(text) {
        return Ok(SystemTime::now()
            .checked_sub(ago)
            .unwrap_or(SystemTime::UNIX_EPOCH));
    }
    humantime::parse_rfc3339_weak(text).map_err(|_| {
        UsageError(format!(
            "--since {text}: expected a duration (`10m`, `2h`, `1day`) or a time (`2026-11-26T09:00:00Z`)"
        ))
        .into()
    })
}

pub fn log(args: LogArgs) -> anyhow::Result<ExitCode> {
    let path = args.file.path()?;
    if args.verify {
        return verify(&path);
    }
    let filter = Filter {
        session: args.session,
        event: args.event,
        hook: args.hook,
        blocked: args.blocked,
        failed: args.failed,
        since: args.since.as_deref().map(since).transpose()?,
    };
    let mut out = std::io::stdout().lock();
    let mut failed = None;
    AuditFiles::of(&path)
        .for_each_line(|_, _, bytes| {
            let written = show(&mut out, bytes, &filter, args.json);
            if let Err(e) = written {
                failed = Some(e);
                return false;
            }
            true
        })
        .with_context(|| format!("reading {}", path.display()))?;
    if let Some(e) = failed {
        return broken_pipe_is_fine(e);
    }
    if args.follow {
        if let Err(e) = out.flush() {
            return broken_pipe_is_fine(e);
        }
        follow(&path, &mut out, &filter, args.json)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn broken_pipe_is_fine(e: std::io::Error) -> anyhow::Result<ExitCode> {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        Ok(ExitCode::SUCCESS)
    } else {
        Err(e).context("writing the log")
    }
}

/// Print `bytes` (one stored line) if the filter keeps it.
fn show(out: &mut impl Write, bytes: &[u8], filter: &Filter, json: bool) -> std::io::Result<()> {
    let Some(line) = Stored::parse(bytes) else {
        return Ok(()); // `--verify` names it
    };
    if !filter.keeps(&line) {
        return Ok(());
    }
    if json {
        out.write_all(bytes)?;
        out.write_all(b"\n")
    } else {
        writeln!(out, "{}", crate::shown::lines(&human(&line)))
    }
}

/// One line for a terminal.
fn human(line: &Stored) -> String {
    let text = |v: &Option<std::borrow::Cow<str>>| v.as_deref().unwrap_or("").to_string();
    let ms = line.duration_ms;
    let mut s = format!(
        "{} {:<8} {}",
        text(&line.time),
        text(&line.host),
        text(&line.event)
    );
    if let Some(tool) = &line.tool {
        s += &format!(" {tool}");
    }
    if let Some(session) = &line.session {
        s += &format!(" [{session}]");
    }
    let reason = line
        .reason
        .as_deref()
        .map(|r| format!(": {}", r.replace('\n', "⏎")))
        .unwrap_or_default();
    if let Some(hook) = line.hook_run() {
        let mut status = status_words(line.status.as_deref().unwrap_or(""), line.code);
        // What kind of failure, when it could not start or answer: `failed (unreachable)`.
        if let Some(failure) = &line.failure {
            status += &format!(" ({})", failure.replace('_', " "));
        }
        let ran = match (&line.unsandboxed, line.sandboxed) {
            (Some(why), _) => format!("{} WITHOUT its sandbox ({why})", text(&line.ran)),
            (None, true) => format!("{} sandboxed", text(&line.ran)),
            (None, false) => text(&line.ran),
        };
        s += &format!(
            "\n    {} `{}` ({}), {ran}, {status} in {ms:.1} ms → {}{reason}",
            hook.kind,
            hook.label,
            hook.source,
            text(&line.decision),
        );
    } else {
        s += &format!(
            " → {} ({} hook(s), {} failed, {} skipped) in {ms:.1} ms{reason}",
            text(&line.outcome),
            line.hooks,
            line.failed,
            line.skipped,
        );
    }
    s
}

/// A hook run's status for people: `exit 2`, `signal 9`, `HTTP 500`, `timed out`, …
pub fn status_words(status: &str, code: Option<i64>) -> String {
    match (status, code) {
        ("exited", Some(code)) => format!("exit {code}"),
        ("signaled", Some(sig)) => format!("signal {sig}"),
        ("responded", Some(code)) => format!("HTTP {code}"),
        (other, _) => other.replace('_', " "),
    }
}

/// `-f`: print lines as they are appended, across rotations (the file is reopened when the path
/// names another one), until the reader goes away.
fn follow(path: &std::path::Path, out: &mut impl Write, filter: &Filter, json: bool) -> anyhow::Result<()> {
    use std::io::{BufRead, BufReader, Seek, SeekFrom};
    use std::os::unix::fs::MetadataExt;
    let open = |at_end: bool| -> Option<(BufReader<std::fs::File>, u64)> {
        let mut file = std::fs::File::open(path).ok()?;
        let ino = file.metadata().ok()?.ino();
        if at_end {
            file.seek(SeekFrom::End(0)).ok()?;
        }
        Some((BufReader::new(file), ino))
    };
    let mut current = open(true);
    let mut pending = Vec::new();
    loop {
        let mut read_any = false;
        if let Some((reader, _)) = current.as_mut() {
            loop {
                let n = reader.read_until(b'\n', &mut pending)?;
                if n == 0 || pending.last() != Some(&b'\n') {
                    break;
                }
                read_any = true;
                let line = std::mem::take(&mut pending);
                if let Err(e) = show(out, &line[..line.len() - 1], filter, json).and_then(|()| out.flush()) {
                    return match e.kind() {
                        std::io::ErrorKind::BrokenPipe => Ok(()),
                        _ => Err(e).context("writing the log"),
                    };
                }
            }
        }
        if !read_any {
            std::thread::sleep(Duration::from_millis(200));
            let now = std::fs::metadata(path).ok().map(|m| m.ino());
            if now.is_some() && now != current.as_ref().map(|(_, ino)| *ino) {
                // Rotated (or created): the new file from its start.
                current = open(false);
                pending.clear();
            }
        }
    }
}

fn verify(path: &std::path::Path) -> anyhow::Result<ExitCode> {
    let files = AuditFiles::of(path);
    if files.0.is_empty() {
        return Err(UsageError(format!("{}: no audit log there", path.display())).into());
    }
    match audit::verify(path).with_context(|| format!("reading {}", path.display()))? {
        Ok(v) => {
            let start = match v.first_seq {
                Some(0) | None => "from its first line".to_string(),
                Some(n) => format!("from line {n} (older lines were rotated away)"),
            };
            println!(
                "{}: the chain is whole: {} line(s) in {} file(s), {start}",
                path.display(),
                v.lines,
                v.files
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(broken) => {
            println!("{broken}");
            Ok(ExitCode::from(1))
        }
    }
}
