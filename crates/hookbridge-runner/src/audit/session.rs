//! Hooks that failed in every run of a session, read back from the record: the silent "allow".
//!
//! A guard that cannot start (a missing script, a lost interpreter) fails open on every call, and
//! nobody is told: Claude Code users report exactly this. At the end of a turn the host asks
//! [`failing_throughout`] which of this session's hooks never once gave an answer, and says so to
//! the user once (the caller keeps the "once").
//!
//! Only the newest [`TAIL`] bytes of the log are read, so the question stays cheap however large
//! the record grows; a session's earlier runs beyond them are not counted.

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use super::{Failure, Stored};

/// Bytes read back from the end of the log.
pub const TAIL: u64 = 2 * 1024 * 1024;

/// A hook that failed in every one of its runs this session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SilentHook {
    /// `file:line:col`.
    pub source: String,
    pub label: String,
    pub runs: u64,
    /// It never started at all (every run a spawn failure or the shell's 126/127), or, for a hook
    /// that calls a server or model, never reached it ([`Failure::NeverLaunched`]).
    pub never_launched: bool,
    /// It calls a server or a model (it ran `http`, `mcp` or `model`) rather than a program.
    pub calls_a_server: bool,
    /// What its last run said.
    pub reason: Option<String>,
}

/// The hooks of `session` in the log at `path` that failed in every run, in the order first seen.
pub fn failing_throughout(path: &Path, session: &str) -> std::io::Result<Vec<SilentHook>> {
    let mut file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    let start = len.saturating_sub(TAIL);
    file.seek(SeekFrom::Start(start))?;
    let mut text = Vec::with_capacity((len - start) as usize);
    file.take(len - start).read_to_end(&mut text)?;
    // A tail that starts mid-line begins after that line.
    let text = match (start, text.iter().position(|&b| b == b'\n')) {
        (0, _) => &text[..],
        (_, Some(i)) => &text[i + 1..],
        (_, None) => &[][..],
    };
    let needle = format!(
        "\"session\":{}",
        serde_json::to_string(session).unwrap_or_default()
    );
    let mut order: Vec<(String, String)> = Vec::new();
    let mut seen: HashMap<(String, String), (SilentHook, bool)> = HashMap::new();
    for bytes in text.split(|&b| b == b'\n') {
        // Most lines are other sessions': skipped before they are parsed.
        if !contains(bytes, needle.as_bytes()) {
            continue;
        }
        let Some(line) = Stored::parse(bytes).filter(|l| l.in_session(session)) else {
            continue;
        };
        let Some(hook) = line.hook_run() else {
            continue;
        };
        let failure = line.failure();
        let key = (hook.source.to_string(), hook.label.to_string());
        let (entry, all_failed) = seen.entry(key.clone()).or_insert_with(|| {
            order.push(key.clone());
            (
                SilentHook {
                    source: key.0.clone(),
                    label: key.1.clone(),
                    runs: 0,
                    never_launched: true,
                    calls_a_server: false,
                    reason: None,
                },
                true,
            )
        });
        entry.runs += 1;
        entry.calls_a_server = line.calls_a_server();
        *all_failed &= failure.is_some();
        entry.never_launched &= failure == Some(Failure::NeverLaunched);
        if let Some(reason) = &line.reason {
            entry.reason = Some(reason.to_string());
        }
    }
    Ok(order
        .into_iter()
        .filter_map(|key| seen.remove(&key))
        .filter(|(_, all_failed)| *all_failed)
        .map(|(hook, _)| hook)
        .collect())
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// What the user is told of `hooks`: one sentence, each hook with its source and why.
pub fn notice(hooks: &[SilentHook], session: &str) -> String {
    let mut text = format!(
        "hookbridge: {} hook(s) failed in every run this session, so they checked nothing:",
        hooks.len()
    );
    for h in hooks {
        let what = match (h.never_launched, h.calls_a_server) {
            (true, false) => "never launched",
            (true, true) => "never reached its server",
            (false, _) => "failed",
        };
        text += &format!(" `{}` ({}) {what} in {} run(s)", h.label, h.source, h.runs);
        if let Some(reason) = &h.reason {
            let reason: String = reason.lines().next().unwrap_or("").chars().take(200).collect();
            text += &format!(": {reason}");
        }
        text.push(';');
    }
    text.pop();
    text += &format!(" (`hookbridge log --session {session} --failed`)");
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_hooks_that_failed_every_run_of_this_session_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        let hook = |session: &str, label: &str, status: &str, code: i64, decision: &str| {
            json!({"seq": 0, "prev": "", "kind": "hook", "session": session,
                "hook": {"source": format!("h.json:{}:1", label.len()), "label": label, "type": "command"},
                "status": status, "code": code, "decision": decision, "reason": format!("{label} said why")})
            .to_string()
        };
        let lines = [
            hook("s1", "missing", "exited", 127, "error"),
            hook("s1", "flaky", "exited", 1, "error"),
            hook("s1", "flaky", "exited", 0, "none"),
            hook("s1", "broken", "exited", 1, "error"),
            hook("s2", "ok-elsewhere", "exited", 1, "error"),
            hook("s1", "missing", "spawn_failed", 0, "error"),
            hook("s1", "guard", "exited", 2, "deny"),
        ];
        // Hooks that call a server: nobody listening is never reached; an error status is a
        // failure of a server that was reached.
        let http = |label: &str, failure: &str| {
            json!({"seq": 0, "prev": "", "kind": "hook", "session": "s1", "ran": "http",
                "hook": {"source": "h.json:9:1", "label": label, "type": "http"},
                "status": "failed", "failure": failure, "decision": "error"})
            .to_string()
        };
        let lines = [
            &lines[..],
            &[http("closed", "unreachable"), http("down", "refused")],
        ]
        .concat();
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let silent = failing_throughout(&path, "s1").unwrap();
        let names: Vec<(&str, u64, bool)> = silent
            .iter()
            .map(|h| (h.label.as_str(), h.runs, h.never_launched))
            .collect();
        assert_eq!(
            names,
            [
                ("missing", 2, true),
                ("broken", 1, false),
                ("closed", 1, true),
                ("down", 1, false)
            ]
        );
        let text = notice(&silent, "s1");
        assert!(
            text.contains("`missing` (h.json:7:1) never launched in 2 run(s): missing said why"),
            "{text}"
        );
        assert!(
            text.contains("`closed` (h.json:9:1) never reached its server in 1 run(s);"),
            "{text}"
        );
        assert!(
            text.ends_with("(`hookbridge log --session s1 --failed`)"),
            "{text}"
        );
    }
}
