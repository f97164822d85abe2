//! `hookbridge log` and `hookbridge stats`: the audit log read back (see
//! `hookbridge_runner::audit`), for people and for tools.
//!
//! `log` prints lines, filtered (`--session`, `--event`, `--hook`, `--blocked`, `--failed`,
//! `--since`), as text or as the JSON lines themselves, and follows the file (`-f`); `log
//! --verify` walks the hash chain and names the first line that was altered or removed. `stats`
//! sums every hook's runs ([`stats`]).

pub mod stats;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use anyhow::Context as _;
use clap::Args;
use hookbridge_runner::audit::{self, AuditFiles};
use serde_json::{Map, Value};

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
            Some(p) => Ok(PathBuf::from(p)),
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
    fn keeps(&self, line: &Map<String, Value>) -> bool {
        let text = |key: &str| line.get(key).and_then(Value::as_str);
        let is_hook = text("kind") == Some("hook");
        if self
            .session
            .as_deref()
            .is_some_and(|s| text("session") != Some(s))
        {
            return false;
        }
        if self.event.as_deref().is_some_and(|e| text("event") != Some(e)) {
            return false;
        }
        if let Some(wanted) = &self.hook {
            let hook = line.get("hook").unwrap_or(&Value::Null);
            let has = |key: &str| hook[key].as_str().is_some_and(|v| v.contains(wanted.as_str()));
            if !is_hook || !(has("label") || has("source")) {
                return false;
            }
        }
        if self.blocked {
            let blocked = if is_hook {
                matches!(text("decision"), Some("block" | "deny"))
            } else {
                matches!(text("outcome"), Some("blocked" | "denied"))
            };
            if !blocked {
                return false;
            }
        }
        if self.failed {
            let failed = if is_hook {
                audit::Failure::of(
                    text("status"),
                    line.get("code").and_then(Value::as_i64),
                    text("decision"),
                )
                .is_some()
            } else {
                line.get("failed").and_then(Value::as_u64).unwrap_or(0) > 0
            };
            if !failed {
                return false;
            }
        }
        if let Some(since) = self.since {
            let at = text("time").and_then(|t| humantime::parse_rfc3339_weak(t).ok());
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
    let Ok(Value::Object(line)) = serde_json::from_slice::<Value>(bytes) else {
        return Ok(()); // `--verify` names it
    };
    if !filter.keeps(&line) {
        return Ok(());
    }
    if json {
        out.write_all(bytes)?;
        out.write_all(b"\n")
    } else {
        writeln!(out, "{}", human(&line))
    }
}

/// One line for a terminal.
fn human(line: &Map<String, Value>) -> String {
    let text = |key: &str| line.get(key).and_then(Value::as_str).unwrap_or("");
    let ms = line.get("duration_ms").and_then(Value::as_f64).unwrap_or(0.0);
    let mut s = format!("{} {:<8} {}", text("time"), text("host"), text("event"));
    if let Some(tool) = line.get("tool").and_then(Value::as_str) {
        s += &format!(" {tool}");
    }
    if let Some(session) = line.get("session").and_then(Value::as_str) {
        s += &format!(" [{session}]");
    }
    let reason = line
        .get("reason")
        .and_then(Value::as_str)
        .map(|r| format!(": {}", r.replace('\n', "⏎")))
        .unwrap_or_default();
    if text("kind") == "hook" {
        let hook = line.get("hook").unwrap_or(&Value::Null);
        let status = match (text("status"), line.get("code").and_then(Value::as_i64)) {
            ("exited", Some(code)) => format!("exit {code}"),
            ("signaled", Some(sig)) => format!("signal {sig}"),
            ("responded", Some(code)) => format!("HTTP {code}"),
            (other, _) => other.replace('_', " "),
        };
        s += &format!(
            "\n    {} `{}` ({}), {}, {status} in {ms:.1} ms → {}{reason}",
            hook["type"].as_str().unwrap_or(""),
            hook["label"].as_str().unwrap_or(""),
            hook["source"].as_str().unwrap_or(""),
            text("ran"),
            text("decision"),
        );
    } else {
        s += &format!(
            " → {} ({} hook(s), {} failed, {} skipped) in {ms:.1} ms{reason}",
            text("outcome"),
            line.get("hooks").and_then(Value::as_u64).unwrap_or(0),
            line.get("failed").and_then(Value::as_u64).unwrap_or(0),
            line.get("skipped").and_then(Value::as_u64).unwrap_or(0),
        );
    }
    s
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
