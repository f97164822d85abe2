//! The report of one dispatched event ([`EventReport`], what [`dispatch`](crate::dispatch()) returns),
//! and its views as data for people and tools: `run --format report`, the log, the Python binding
//! and `hookbridge test` all read it. Typed on the way out too: each field is defined once here
//! (a `Serialize` struct), serialized at the edge, and a reader in Rust (the `test` trace) uses
//! the same structs instead of reading JSON back by key.

use std::borrow::Cow;
use std::path::PathBuf;
use std::time::Duration;

use hookbridge_core::config::{HookId, HookSpec, HookType, OnFailure, SkipReason};
use hookbridge_core::decision::{AnsweredHook, EventDecision, HookAnswer, HookExecution, WarmRun};
use hookbridge_core::event::EventName;
use serde::{Serialize, Serializer};

/// Who a hook is, for reports.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct HookSummary {
    #[serde(skip)]
    pub id: HookId,
    #[serde(rename = "type")]
    pub hook_type: HookType,
    /// The command, URL, prompt or tool as written.
    pub label: String,
    pub source: PathBuf,
    pub key: String,
    pub line: usize,
    pub column: usize,
    pub plugin: Option<String>,
}

impl HookSummary {
    pub fn of(hook: &HookSpec) -> HookSummary {
        HookSummary {
            id: hook.id,
            hook_type: hook.kind.hook_type(),
            label: hook.kind.label().to_string(),
            source: hook.source.path.clone(),
            key: hook.key.clone(),
            line: hook.position.line,
            column: hook.position.column,
            plugin: hook.source.plugin.as_ref().map(|p| p.name.clone()),
        }
    }
}

/// One hook's run and answer.
#[derive(Debug, Clone)]
pub struct HookReport {
    pub hook: HookSummary,
    pub execution: HookExecution,
    pub answer: HookAnswer,
    pub timeout: Duration,
    /// What a failure of this hook does (its `onFailure`).
    pub on_failure: OnFailure,
    /// Its failure blocks whatever `onFailure` says ([`AnsweredHook::must_succeed`]).
    pub must_succeed: bool,
}

impl HookReport {
    /// The hook's answer as [`merge`](hookbridge_core::decision::merge) takes it: what a host
    /// that reads the answers its own way merges again, with nothing to look up.
    pub fn answered(&self) -> AnsweredHook {
        AnsweredHook {
            answer: self.answer.clone(),
            finish_order: self.execution.finish_order,
            on_failure: self.on_failure,
            label: self.hook.label.clone(),
            must_succeed: self.must_succeed,
        }
    }
}

/// Everything about one dispatched event.
#[derive(Debug, Clone)]
pub struct EventReport {
    pub event: EventName,
    pub match_query: Option<String>,
    pub decision: EventDecision,
    /// Hooks that ran (or were attempted), in declaration order.
    pub hooks: Vec<HookReport>,
    /// Hooks passed over, with why.
    pub skipped: Vec<(HookSummary, SkipReason)>,
    /// Problems of the dispatch itself, not of one hook (for the log): e.g. a payload value that
    /// could not be given to hooks as an environment variable.
    pub warnings: Vec<String>,
}

/// An [`EventReport`] as `--format report` gives it.
#[derive(Debug, Serialize)]
pub struct ReportView<'a> {
    pub event: &'a str,
    pub match_query: Option<&'a str>,
    /// Hooks that ran (or were attempted), in declaration order.
    pub hooks: Vec<HookRunView<'a>>,
    /// Hooks passed over, with why.
    pub skipped: Vec<SkippedView<'a>>,
    pub warnings: &'a [String],
}

/// One hook's run.
#[derive(Debug, Serialize)]
pub struct HookRunView<'a> {
    /// The run itself, for a reader in Rust.
    #[serde(skip)]
    pub report: &'a HookReport,
    pub hook: &'a HookSummary,
    /// `exited`, `signaled`, `timed_out`, … ([`RunStatus::word`](hookbridge_core::decision::RunStatus::word)).
    pub status: &'static str,
    /// The exit code, the signal, or an http status.
    pub code: Option<i32>,
    /// Why it did not run or failed to start, in words.
    pub detail: Option<Cow<'a, str>>,
    pub stdout: Cow<'a, str>,
    pub stderr: Cow<'a, str>,
    pub stdout_truncated: bool,
    pub stderr_truncated: bool,
    pub leaked: bool,
    pub warm: WarmView<'a>,
    /// Why it ran without the sandbox it was to have (`sandboxUnavailable: runUnsandboxed`);
    /// left out when it did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unsandboxed: Option<&'a str>,
    pub duration_ms: f64,
    pub timeout_s: f64,
    pub finish_order: usize,
}

/// Whether a command hook ran warm: `null`, `"ran"`, or `{"fell_back": why}` with `"starting":
/// true` (its service was starting) or `"declined": true` (the service declined it, by design).
#[derive(Debug, Clone, Copy)]
pub struct WarmView<'a>(pub &'a WarmRun);

impl WarmView<'_> {
    /// Why it was spawned although it could have run warm, if so.
    pub fn fell_back(&self) -> Option<&str> {
        match self.0 {
            WarmRun::NotTried | WarmRun::Ran => None,
            WarmRun::Starting(why) | WarmRun::Declined(why) | WarmRun::FellBack(why) => Some(why),
        }
    }
}

impl Serialize for WarmView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let flag = match self.0 {
            WarmRun::NotTried => return serializer.serialize_none(),
            WarmRun::Ran => return serializer.serialize_str("ran"),
            WarmRun::Starting(_) => Some("starting"),
            WarmRun::Declined(_) => Some("declined"),
            WarmRun::FellBack(_) => None,
        };
        let mut map = serializer.serialize_map(Some(1 + usize::from(flag.is_some())))?;
        map.serialize_entry("fell_back", &self.fell_back())?;
        if let Some(flag) = flag {
            map.serialize_entry(flag, &true)?;
        }
        map.end()
    }
}

/// A hook passed over.
#[derive(Debug, Serialize)]
pub struct SkippedView<'a> {
    pub hook: &'a HookSummary,
    pub reason: String,
}

impl<'a> HookRunView<'a> {
    pub fn of(h: &'a HookReport) -> HookRunView<'a> {
        let status = &h.execution.status;
        HookRunView {
            report: h,
            hook: &h.hook,
            status: status.word(),
            code: status.code(),
            detail: status.detail(),
            stdout: String::from_utf8_lossy(&h.execution.stdout),
            stderr: String::from_utf8_lossy(&h.execution.stderr),
            stdout_truncated: h.execution.stdout_truncated,
            stderr_truncated: h.execution.stderr_truncated,
            leaked: h.execution.leaked,
            warm: WarmView(&h.execution.warm),
            unsandboxed: h.execution.unsandboxed.as_deref(),
            duration_ms: h.execution.duration.as_secs_f64() * 1000.0,
            timeout_s: h.timeout.as_secs_f64(),
            finish_order: h.execution.finish_order,
        }
    }
}

impl EventReport {
    /// The report as `--format report` gives it, typed.
    pub fn view(&self) -> ReportView<'_> {
        ReportView {
            event: self.event.as_str(),
            match_query: self.match_query.as_deref(),
            hooks: self.hooks.iter().map(HookRunView::of).collect(),
            skipped: self
                .skipped
                .iter()
                .map(|(hook, reason)| SkippedView {
                    hook,
                    reason: reason.to_string(),
                })
                .collect(),
            warnings: &self.warnings,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_warm_run_reads_as_before_in_every_case() {
        let json = |warm: WarmRun| serde_json::to_value(WarmView(&warm)).unwrap();
        assert_eq!(json(WarmRun::NotTried), serde_json::Value::Null);
        assert_eq!(json(WarmRun::Ran), serde_json::json!("ran"));
        assert_eq!(
            json(WarmRun::Starting("first run".into())),
            serde_json::json!({"fell_back": "first run", "starting": true})
        );
        assert_eq!(
            json(WarmRun::Declined("shadowed".into())),
            serde_json::json!({"fell_back": "shadowed", "declined": true})
        );
        assert_eq!(
            json(WarmRun::FellBack("gone".into())),
            serde_json::json!({"fell_back": "gone"})
        );
    }
}
