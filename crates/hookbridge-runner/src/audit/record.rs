//! The audit lines of one dispatched event: one per hook that ran (or was attempted), then one for
//! the event. Pure: everything comes from the report, the facts gathered at selection, and the
//! clock reading the caller passes.
//!
//! What a line never holds: environment values, http header values, the payload, a hook's output.
//! A hook's label (its command, URL or prompt) is its identity and is kept, bounded; reasons and
//! details are bounded too ([`MAX_TEXT`]).

use std::path::Path;

use hookbridge_core::config::{HookSpec, HookType, Scope, SkipReason};
use hookbridge_core::decision::{
    outcome, HookAnswer, HookFailureKind, HookJson, HookOutput, RunStatus, WarmRun,
};
use serde::Serialize;

use crate::report::{EventReport, HookReport};

/// Characters kept of a label, reason or detail.
pub const MAX_TEXT: usize = 512;

/// What the record needs of a selected hook that its report does not carry.
#[derive(Debug, Clone)]
pub struct HookFacts {
    /// [`hookbridge_core::trust::pins::definition_digest`].
    pub digest: String,
    /// `user`, `project (trusted)`, `managed`, `explicit`, with the plugin if any.
    pub trust: &'static str,
    /// The hook runs in a kernel sandbox (`"sandbox"`).
    pub sandboxed: bool,
}

impl HookFacts {
    pub fn of(
        hook: &HookSpec,
        project: &Path,
        floor: &hookbridge_core::config::managed::SandboxFloor,
    ) -> HookFacts {
        HookFacts {
            digest: hookbridge_core::trust::pins::definition_digest(hook, project),
            // A project's hook runs only once the project is trusted (held otherwise), and a
            // plugin's hooks are its hooks directory's.
            trust: match hook.source.scope {
                Scope::Project => "project-trusted",
                Scope::User => "user",
                Scope::Managed => "managed",
                Scope::Explicit => "explicit",
            },
            sandboxed: hookbridge_core::config::managed::effective_sandbox(hook, floor).is_some(),
        }
    }
}

/// One line of the record, as it is written (after the `seq` and `prev` the chain puts first).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Line<'a> {
    Hook(HookLine<'a>),
    Event(EventLine<'a>),
}

/// Where and when: the fields every line starts with.
#[derive(Debug, Clone, Serialize)]
pub struct Common<'a> {
    pub time: &'a str,
    pub kind: &'static str,
    pub host: &'a str,
    pub session: Option<String>,
    pub event: &'a str,
    pub tool: Option<String>,
}

/// One hook's run.
#[derive(Debug, Clone, Serialize)]
pub struct HookLine<'a> {
    #[serde(flatten)]
    pub common: Common<'a>,
    pub hook: HookIdentity<'a>,
    pub trust: &'static str,
    pub ran: Ran,
    pub duration_ms: f64,
    pub status: &'static str,
    /// The exit code, signal or HTTP status.
    pub code: Option<i32>,
    /// What kind of failure, when the hook could not start (`not_found`, `permission_denied`,
    /// `could_not_start`) or could not answer (`unreachable`, `refused`, `unreadable`,
    /// `too_large`, `not_configured`, `internal`); left out otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<&'static str>,
    /// What the hook contributed: `block`, `deny`, `ask`, `defer`, `allow`, `stop`, `context`,
    /// `cancelled` (another hook had already decided the event), `error` or `none`.
    pub decision: &'static str,
    pub reason: Option<String>,
    pub stdout_bytes: usize,
    pub stderr_bytes: usize,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Ran in a kernel sandbox; left out of the lines of hooks that did not.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub sandboxed: bool,
    /// Was to run sandboxed but ran without, as `sandboxUnavailable: runUnsandboxed` allows where
    /// this machine cannot enforce the sandbox: why (bounded). Left out otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unsandboxed: Option<String>,
}

/// Which hook: where it is written, what it runs, and a digest of its whole definition.
#[derive(Debug, Clone, Serialize)]
pub struct HookIdentity<'a> {
    pub source: String,
    pub label: String,
    #[serde(rename = "type")]
    pub kind: HookType,
    pub plugin: Option<&'a str>,
    pub digest: &'a str,
}

/// The event's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct EventLine<'a> {
    #[serde(flatten)]
    pub common: Common<'a>,
    /// [`hookbridge_core::decision::Outcome`].
    pub outcome: &'static str,
    pub reason: Option<String>,
    pub hooks: usize,
    pub skipped: usize,
    pub held: usize,
    pub failed: usize,
    pub duration_ms: f64,
}

/// The lines for `report`: its hooks in declaration order, then the event. `facts[i]` is about
/// `report.hooks[i]`; `time` is when the event started (RFC 3339).
pub fn event_lines<'a>(
    report: &'a EventReport,
    facts: &'a [HookFacts],
    host: &'a str,
    session: Option<&str>,
    time: &'a str,
    elapsed_ms: f64,
) -> Vec<Line<'a>> {
    let tool = report
        .match_query
        .as_deref()
        .filter(|_| report.event.traits().is_tool_event);
    let common = |kind: &'static str| Common {
        time,
        kind,
        host,
        session: session.map(|s| bounded(s, 128)),
        event: report.event.as_str(),
        tool: tool.map(|t| bounded(t, 256)),
    };
    let mut lines = Vec::with_capacity(report.hooks.len() + 1);
    for (index, (hook, facts)) in report.hooks.iter().zip(facts).enumerate() {
        lines.push(Line::Hook(hook_line(common("hook"), report, index, hook, facts)));
    }
    lines.push(Line::Event(EventLine {
        common: common("event"),
        outcome: outcome(&report.event, &report.decision).as_str(),
        reason: report
            .decision
            .blocking
            .as_ref()
            .map(|b| bounded(without_output(b.message().trim()), MAX_TEXT)),
        hooks: report.hooks.len(),
        skipped: report.skipped.len(),
        held: report
            .skipped
            .iter()
            .filter(|(_, why)| matches!(why, SkipReason::Held(_)))
            .count(),
        failed: report.hooks.iter().filter(|h| failed(h)).count(),
        duration_ms: round_ms(elapsed_ms),
    }));
    lines
}

fn hook_line<'a>(
    common: Common<'a>,
    report: &'a EventReport,
    index: usize,
    hook: &'a HookReport,
    facts: &'a HookFacts,
) -> HookLine<'a> {
    let summary = &hook.hook;
    let execution = &hook.execution;
    let status = &execution.status;
    let detail = match status {
        // A verdict's reason is the hook's decision's, read below.
        RunStatus::Judged(v) if v.ok => None,
        _ => status.detail(),
    };
    let (decision, reason) = decision_of(report, index, hook);
    HookLine {
        common,
        hook: HookIdentity {
            source: format!("{}:{}:{}", summary.source.display(), summary.line, summary.column),
            label: bounded(&summary.label, MAX_TEXT),
            kind: summary.hook_type,
            plugin: summary.plugin.as_deref(),
            digest: &facts.digest,
        },
        trust: facts.trust,
        ran: Ran::of(summary.hook_type, &execution.warm),
        duration_ms: round_ms(execution.duration.as_secs_f64() * 1000.0),
        status: status.word(),
        code: status.code(),
        // The run's own failure, or the answer's (an error status, a body that cannot be read).
        failure: status.failure_word().or(match &hook.answer {
            HookAnswer::Failed(failure) => Some(failure.kind.word()),
            _ => None,
        }),
        decision,
        reason: reason
            .or(detail.as_deref())
            .map(|r| bounded(without_output(r.trim()), MAX_TEXT)),
        stdout_bytes: execution.stdout.len(),
        stderr_bytes: execution.stderr.len(),
        truncated: execution.stdout_truncated || execution.stderr_truncated,
        sandboxed: facts.sandboxed && execution.unsandboxed.is_none(),
        unsandboxed: execution.unsandboxed.as_deref().map(|why| bounded(why, MAX_TEXT)),
    }
}

/// How a hook ran, as a line's `ran` word says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ran {
    /// A command, spawned.
    Spawned,
    /// A command run by a warm Python service.
    Warm,
    /// A `matcher` rule, decided in hookbridge's own process.
    InProcess,
    /// An http hook's POST.
    Http,
    /// An `mcp_tool` hook's call.
    Mcp,
    /// A prompt, agent or llm hook's model call.
    Model,
}

impl Ran {
    const ALL: [Ran; 6] = [
        Ran::Spawned,
        Ran::Warm,
        Ran::InProcess,
        Ran::Http,
        Ran::Mcp,
        Ran::Model,
    ];

    /// How a hook of `hook_type` ran, given whether a warm service ran it.
    pub fn of(hook_type: HookType, warm: &WarmRun) -> Ran {
        match hook_type {
            HookType::Http => Ran::Http,
            HookType::McpTool => Ran::Mcp,
            HookType::Prompt | HookType::Agent | HookType::Llm => Ran::Model,
            HookType::Matcher => Ran::InProcess,
            HookType::Command if matches!(warm, WarmRun::Ran) => Ran::Warm,
            HookType::Command => Ran::Spawned,
        }
    }

    /// The word in the line.
    pub const fn word(self) -> &'static str {
        match self {
            Ran::Spawned => "spawned",
            Ran::Warm => "warm",
            Ran::InProcess => "in_process",
            Ran::Http => "http",
            Ran::Mcp => "mcp",
            Ran::Model => "model",
        }
    }

    /// The way of running a stored line's `word` names, if any.
    pub fn from_word(word: &str) -> Option<Ran> {
        Ran::ALL.into_iter().find(|r| r.word() == word)
    }

    /// The hook calls a server or a model rather than running a program.
    pub const fn calls_a_server(self) -> bool {
        match self {
            Ran::Http | Ran::Mcp | Ran::Model => true,
            Ran::Spawned | Ran::Warm | Ran::InProcess => false,
        }
    }
}

/// Whether a hook's run failed. A run cancelled because another hook had already decided the
/// event, or left to finish in the background (`async`), gave no answer but did not fail.
fn failed(hook: &HookReport) -> bool {
    hook.answer.is_failure()
        && !matches!(
            hook.execution.status,
            RunStatus::Cancelled(_) | RunStatus::Detached
        )
}

/// What hook `index` contributed to the event: `block`, `deny`, `ask`, `defer`, `allow`, `stop`,
/// `context`, `cancelled`, `error` or `none`, with the reason that goes with it.
fn decision_of<'a>(
    report: &'a EventReport,
    index: usize,
    hook: &'a HookReport,
) -> (&'static str, Option<&'a str>) {
    let answer = &hook.answer;
    let decision = &report.decision;
    if let Some(block) = decision.blocks.iter().find(|b| b.hook == index) {
        let word = if report.event.traits().decides_permission {
            "deny"
        } else {
            "block"
        };
        return (word, Some(block.message()));
    }
    match &hook.execution.status {
        RunStatus::Cancelled(why) => return ("cancelled", Some(why.as_str())),
        RunStatus::Detached => return ("none", None),
        _ => {}
    }
    if answer.is_failure() {
        let message = decision
            .problems
            .iter()
            .find(|p| p.hook == index)
            .map(|p| p.message.as_str());
        return ("error", message);
    }
    let json: Option<&HookJson> = match answer {
        HookAnswer::Output(HookOutput::Json(json)) => Some(json),
        HookAnswer::Blocking { json, .. } => json.as_deref(),
        _ => None,
    };
    if let Some(json) = json {
        if let Some(p) = json.permission_decision() {
            return (p.as_str(), json.permission_decision_reason());
        }
        if json.continue_ == Some(false) {
            return ("stop", json.stop_reason.as_deref());
        }
    }
    if let HookAnswer::Stopped { reason } = answer {
        return ("stop", Some(reason));
    }
    if decision.contexts.iter().any(|c| c.hook == index) {
        return ("context", None);
    }
    ("none", None)
}

fn round_ms(ms: f64) -> f64 {
    (ms * 1000.0).round() / 1000.0
}

/// `text` cut to `max` characters, marked with `…` when cut.
/// `reason` without the endpoint's output it quotes, if it quotes some: a failure's words for a
/// body that is not JSON ([`NON_JSON_BODY`](hookbridge_core::decision::NON_JSON_BODY)) go on with
/// the body, which may echo the request — its headers, the payload — and a line never holds a
/// hook's output.
fn without_output(reason: &str) -> &str {
    let mark = hookbridge_core::decision::NON_JSON_BODY;
    match reason.find(mark) {
        Some(at) => reason[..at + mark.len()].trim_end(),
        None => reason,
    }
}

fn bounded(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((cut, _)) => format!("{}…", &text[..cut]),
    }
}

/// Whether a hook line's `decision` says the hook blocked or denied its event: the one reading of
/// the words [`HookLine::decision`] writes for it, for every reader of the log.
pub fn blocks(decision: &str) -> bool {
    matches!(decision, "block" | "deny")
}

impl HookLine<'_> {
    /// How this run failed, if it did.
    pub fn failure(&self) -> Option<Failure> {
        Failure::of(
            Some(self.status),
            self.code.map(i64::from),
            Some(self.decision),
            self.failure,
        )
    }
}

/// How a hook run failed, if it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// Nothing ever checked the event: the hook could not start (a spawn failure, or a shell's
    /// "not found" / "not executable", 126 and 127), or its server was never reached (an http or
    /// mcp hook whose endpoint nobody listens on, or whose server or model is not configured).
    /// An endpoint that answered with an error was reached: that is [`Failure::Other`].
    NeverLaunched,
    TimedOut,
    /// Any other failure: a non-blocking error.
    Other,
}

impl Failure {
    /// The failure of a hook line's `status`, `code`, `decision` and `failure` word
    /// ([`HookFailureKind::word`]).
    pub fn of(
        status: Option<&str>,
        code: Option<i64>,
        decision: Option<&str>,
        failure: Option<&str>,
    ) -> Option<Failure> {
        match (status, code) {
            // Stopped because the event was already decided, or left to run in the background.
            (Some("cancelled" | "detached"), _) => None,
            (Some("spawn_failed"), _) | (Some("exited"), Some(126 | 127)) => Some(Failure::NeverLaunched),
            _ if failure
                .and_then(HookFailureKind::from_word)
                .is_some_and(HookFailureKind::never_reached) =>
            {
                Some(Failure::NeverLaunched)
            }
            (Some("timed_out"), _) => Some(Failure::TimedOut),
            _ if decision == Some("error") => Some(Failure::Other),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_way_of_running_is_written_as_its_word_and_read_back() {
        for ran in Ran::ALL {
            assert_eq!(serde_json::to_value(ran).unwrap(), ran.word());
            assert_eq!(Ran::from_word(ran.word()), Some(ran));
        }
        assert_eq!(Ran::from_word("spawn"), None);
        let of = |t| Ran::of(t, &WarmRun::NotTried);
        assert_eq!(of(HookType::Command), Ran::Spawned);
        assert_eq!(Ran::of(HookType::Command, &WarmRun::Ran), Ran::Warm);
        assert_eq!(of(HookType::Matcher), Ran::InProcess);
        assert_eq!(of(HookType::McpTool), Ran::Mcp);
        let calling: Vec<HookType> = HookType::ALL
            .into_iter()
            .filter(|t| of(*t).calls_a_server())
            .collect();
        assert_eq!(
            calling,
            [
                HookType::Prompt,
                HookType::Agent,
                HookType::Http,
                HookType::McpTool,
                HookType::Llm
            ]
        );
    }

    #[test]
    fn a_shell_that_cannot_find_the_program_never_launched_it() {
        assert_eq!(
            Failure::of(Some("exited"), Some(127), Some("error"), None),
            Some(Failure::NeverLaunched)
        );
        assert_eq!(
            Failure::of(Some("spawn_failed"), None, Some("error"), Some("not_found")),
            Some(Failure::NeverLaunched)
        );
        assert_eq!(
            Failure::of(Some("timed_out"), None, Some("error"), None),
            Some(Failure::TimedOut)
        );
        assert_eq!(
            Failure::of(Some("exited"), Some(1), Some("error"), None),
            Some(Failure::Other)
        );
        assert_eq!(Failure::of(Some("exited"), Some(2), Some("deny"), None), None);
        // Records written before cancelled runs had their own word.
        assert_eq!(Failure::of(Some("cancelled"), None, Some("error"), None), None);
        assert_eq!(Failure::of(Some("detached"), None, Some("error"), None), None);
    }

    #[test]
    fn a_server_never_reached_checked_nothing_one_that_answered_an_error_did_fail() {
        let http = |failure| Failure::of(Some("failed"), None, Some("error"), Some(failure));
        assert_eq!(http("unreachable"), Some(Failure::NeverLaunched));
        assert_eq!(http("not_configured"), Some(Failure::NeverLaunched));
        for reached in ["refused", "unreadable", "too_large", "internal"] {
            assert_eq!(http(reached), Some(Failure::Other), "{reached}");
        }
        // Every kind's word reads back as that kind.
        for kind in HookFailureKind::ALL {
            assert_eq!(HookFailureKind::from_word(kind.word()), Some(kind));
        }
        assert_eq!(HookFailureKind::from_word("no such word"), None);
        // An onFailure: block turned the unreachable endpoint into a block: it failed all the same.
        assert_eq!(
            Failure::of(Some("failed"), None, Some("block"), Some("unreachable")),
            Some(Failure::NeverLaunched)
        );
    }
}
