//! The audit log's lines read back: the one typed reader that `log`, `stats`, `report` and the
//! end-of-turn notice share, so what a stored field means is said here once.
//!
//! It borrows from the line's bytes (only text with escapes is copied) and reads only the fields
//! the readers use, so a log of a million lines is read without building a JSON tree per line.
//! Fields are optional as stored: a line from an older hookbridge, or one hand-edited, reads as
//! far as it goes.

use std::borrow::Cow;

use serde::Deserialize;

use super::{Failure, Ran};

/// One stored line: a hook's run (`kind` `hook`) or an event's outcome (`kind` `event`).
#[derive(Debug, Clone, Deserialize)]
pub struct Stored<'a> {
    #[serde(borrow)]
    pub kind: Cow<'a, str>,
    #[serde(borrow, default)]
    pub time: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub host: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub session: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub event: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub tool: Option<Cow<'a, str>>,
    /// A hook line's hook.
    #[serde(borrow, default)]
    pub hook: Option<StoredHook<'a>>,
    /// A hook line's way of running: `spawned`, `warm`, `in_process`, `http`, `mcp`, `model`.
    #[serde(borrow, default)]
    pub ran: Option<Cow<'a, str>>,
    #[serde(default)]
    pub duration_ms: f64,
    #[serde(borrow, default)]
    pub status: Option<Cow<'a, str>>,
    #[serde(default)]
    pub code: Option<i64>,
    /// A hook line's kind of failure, when it could not start or answer
    /// ([`hookbridge_core::decision::HookFailureKind::word`], or a spawn failure's word).
    #[serde(borrow, default)]
    pub failure: Option<Cow<'a, str>>,
    /// A hook line's contribution: `block`, `deny`, `ask`, `defer`, `allow`, `stop`, `context`,
    /// `cancelled`, `error` or `none`.
    #[serde(borrow, default)]
    pub decision: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub reason: Option<Cow<'a, str>>,
    /// A hook line's hook ran in a kernel sandbox.
    #[serde(default)]
    pub sandboxed: bool,
    /// A hook line's hook was to run sandboxed but ran without: why.
    #[serde(borrow, default)]
    pub unsandboxed: Option<Cow<'a, str>>,
    /// An event line's outcome ([`hookbridge_core::decision::Outcome`]).
    #[serde(borrow, default)]
    pub outcome: Option<Cow<'a, str>>,
    /// An event line's counts.
    #[serde(default)]
    pub hooks: u64,
    #[serde(default)]
    pub skipped: u64,
    #[serde(default)]
    pub failed: u64,
}

/// Which hook a stored hook line is about.
#[derive(Debug, Clone, Deserialize)]
pub struct StoredHook<'a> {
    /// `file:line:col`.
    #[serde(borrow)]
    pub source: Cow<'a, str>,
    #[serde(borrow)]
    pub label: Cow<'a, str>,
    #[serde(borrow, rename = "type")]
    pub kind: Cow<'a, str>,
    #[serde(borrow, default)]
    pub plugin: Option<Cow<'a, str>>,
}

impl<'a> Stored<'a> {
    /// The line in `bytes`, or `None` if it is not a stored line (`log --verify` names it).
    pub fn parse(bytes: &'a [u8]) -> Option<Stored<'a>> {
        serde_json::from_slice(bytes).ok()
    }

    /// The line's hook if it is a hook line.
    pub fn hook_run(&self) -> Option<&StoredHook<'a>> {
        self.hook.as_ref().filter(|_| self.kind == "hook")
    }

    pub fn is_event(&self) -> bool {
        self.kind == "event"
    }

    /// How a hook line's run failed, if it did.
    pub fn failure(&self) -> Option<Failure> {
        Failure::of(
            self.status.as_deref(),
            self.code,
            self.decision.as_deref(),
            self.failure.as_deref(),
        )
    }

    /// A hook that blocked or denied; an event that was blocked or denied.
    pub fn blocked(&self) -> bool {
        if self.is_event() {
            matches!(self.outcome.as_deref(), Some("blocked" | "denied"))
        } else {
            self.decision.as_deref().is_some_and(crate::audit::blocks)
        }
    }

    /// A hook that failed, timed out or never launched; an event with such a hook.
    pub fn failed(&self) -> bool {
        if self.is_event() {
            self.failed > 0
        } else {
            self.failure().is_some()
        }
    }

    /// A hook line's hook calls a server or a model ([`Ran::calls_a_server`]) rather than a
    /// program.
    pub fn calls_a_server(&self) -> bool {
        (self.ran.as_deref())
            .and_then(Ran::from_word)
            .is_some_and(Ran::calls_a_server)
    }

    pub fn in_session(&self, session: &str) -> bool {
        self.session.as_deref() == Some(session)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::record::{Common, HookIdentity, HookLine, Line};

    #[test]
    fn a_written_line_reads_back_field_for_field() {
        // Written by the writer's own types, so a renamed field fails here.
        let written = Line::Hook(HookLine {
            common: Common {
                time: "2026-11-27T01:02:03.004Z",
                kind: "hook",
                host: "claude",
                session: Some("s\"1".into()),
                event: "PreToolUse",
                tool: Some("Bash".into()),
            },
            hook: HookIdentity {
                source: "h.json:4:9".into(),
                label: "no-rm.sh".into(),
                kind: hookbridge_core::config::HookType::Command,
                plugin: Some("guards"),
                digest: "d",
            },
            trust: "user",
            ran: Ran::Spawned,
            duration_ms: 12.5,
            status: "exited",
            code: Some(2),
            failure: Some("refused"),
            decision: "deny",
            reason: Some("no rm".into()),
            stdout_bytes: 0,
            stderr_bytes: 5,
            truncated: false,
            sandboxed: true,
            unsandboxed: None,
        });
        let text = serde_json::to_string(&written).unwrap();
        let line = Stored::parse(text.as_bytes()).unwrap();
        let hook = line.hook_run().unwrap();
        assert_eq!(
            (&*hook.source, &*hook.label, &*hook.kind, hook.plugin.as_deref()),
            ("h.json:4:9", "no-rm.sh", "command", Some("guards"))
        );
        assert_eq!(
            (
                line.time.as_deref(),
                line.host.as_deref(),
                line.event.as_deref(),
                line.tool.as_deref()
            ),
            (
                Some("2026-11-27T01:02:03.004Z"),
                Some("claude"),
                Some("PreToolUse"),
                Some("Bash")
            )
        );
        assert!(line.in_session("s\"1"));
        assert!(line.sandboxed && line.unsandboxed.is_none());
        assert_eq!((line.duration_ms, line.code), (12.5, Some(2)));
        assert_eq!(
            (
                line.ran.as_deref(),
                line.status.as_deref(),
                line.reason.as_deref()
            ),
            (Some("spawned"), Some("exited"), Some("no rm"))
        );
        assert_eq!(line.failure.as_deref(), Some("refused"));
        assert!(line.blocked() && !line.failed() && !line.is_event());
        assert!(Stored::parse(b"{\"seq\": 1").is_none());
    }

    #[test]
    fn an_event_line_is_blocked_or_failed_by_its_outcome_and_count() {
        let line = Stored::parse(br#"{"kind":"event","outcome":"denied","failed":1}"#).unwrap();
        assert!(line.is_event() && line.blocked() && line.failed());
        assert!(line.hook_run().is_none());
        let line = Stored::parse(br#"{"kind":"event","outcome":"allowed"}"#).unwrap();
        assert!(!line.blocked() && !line.failed());
    }
}
