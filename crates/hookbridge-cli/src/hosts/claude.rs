//! Claude Code as a [`Host`]: the identity host. Its events and payloads are already Claude Code's
//! (only the payload's own `hook_event_name` may overrule `--event`), its answer is the rendered
//! one, and it is the one agent that reads an async hook's later answer
//! ([`Host::reads_async_answers`]), which is why `install-into claude` registers up to three
//! commands per event and `run` takes each one's share (`run/background.rs`).

use hookbridge_core::decision::{render_claude, ClaudeAnswer};
use hookbridge_core::event::{EventName, EventPayload};
use serde_json::{Map, Value};

use super::{AnswerContext, HooksFile, Host, HostInstall};

/// Claude Code as a [`Host`].
pub struct ClaudeCode;

/// `install-into claude`: Claude Code's settings files.
impl HostInstall for ClaudeCode {
    fn hooks_file(&self) -> HooksFile {
        HooksFile::ClaudeSettings
    }
}

impl Host for ClaudeCode {
    /// Any event name: Claude Code adds events, and hooks on a newer one still run.
    fn claude_event(&self, event: &str) -> Result<Option<EventName>, String> {
        EventName::parse(event).map(Some).map_err(|e| {
            let hint = did_you_mean(event)
                .map(|k| format!("; did you mean `{k}`?"))
                .unwrap_or_default();
            format!("{e}{hint}")
        })
    }

    fn claude_payload(&self, _event: &EventName, fields: Map<String, Value>) -> Map<String, Value> {
        fields
    }

    /// The payload as Claude Code sent it, for the event its own `hook_event_name` names when that
    /// disagrees with `--event` (see [`choose_event`]).
    fn read_payload(
        &self,
        event: EventName,
        input: &[u8],
        problems: &mut Vec<String>,
    ) -> Result<EventPayload, String> {
        let event = choose_event(event, declared_event(input), problems);
        EventPayload::parse(event, input).map_err(|e| e.to_string())
    }

    fn answer(
        &self,
        ctx: &AnswerContext<'_>,
        report: &hookbridge_runner::EventReport,
    ) -> (ClaudeAnswer, Vec<String>) {
        let answer = render_claude(
            &report.event,
            report.match_query.as_deref(),
            &report.decision,
            ctx.own_command,
        );
        (answer, Vec::new())
    }

    fn reads_async_answers(&self) -> bool {
        true
    }

    fn env_file_variable(&self) -> Option<&'static str> {
        Some("CLAUDE_ENV_FILE")
    }
}

/// The payload's own `hook_event_name` (or `hookEventName`), read before the payload is parsed
/// for the event it settles: one pass that skips every other value without building it. `None`
/// if absent, not a string, or unreadable here — [`EventPayload::parse`] stays the one judge of
/// the payload, and reports what is wrong with it.
fn declared_event(bytes: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Declared {
        #[serde(alias = "hookEventName")]
        hook_event_name: Option<String>,
    }
    serde_json::from_slice::<Declared>(bytes).ok()?.hook_event_name
}

/// The event this run is for. The payload says what is happening: when its `hook_event_name` is an
/// event name and disagrees with `--event`, the payload's wins, and the disagreement is logged. An
/// unknown event stays valid (Claude Code adds events), but one that looks like a misspelt known
/// event gets a "did you mean" in the log.
fn choose_event(flag: EventName, declared: Option<String>, problems: &mut Vec<String>) -> EventName {
    let event = match declared.as_deref() {
        Some(name) if name != flag.as_str() => match EventName::parse(name) {
            Ok(from_payload) => {
                problems.push(format!(
                    "--event {flag} disagrees with the payload's hook_event_name {name}; the hooks of {name} ran (the payload says what is happening)"
                ));
                from_payload
            }
            Err(_) => {
                problems.push(format!(
                    "the payload's hook_event_name `{name}` is not an event name; the hooks of --event {flag} ran"
                ));
                flag
            }
        },
        _ => flag,
    };
    // Only a name hookbridge does not know can be a misspelling of one it does.
    if let Some(known) = matches!(event, EventName::Unknown(_))
        .then(|| did_you_mean(event.as_str()))
        .flatten()
    {
        problems.push(format!(
            "`{event}` is not an event Claude Code fires; its hooks ran, if any: did you mean `{known}`?"
        ));
    }
    event
}

/// The known event `name` is probably a misspelling of: equal but for case, else at most two
/// edits away. `None` for a known name.
fn did_you_mean(name: &str) -> Option<&'static str> {
    hookbridge_core::diagnostics::closest(name, EventName::KNOWN.iter().map(EventName::as_str))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_payloads_event_wins_over_the_flag_and_the_disagreement_is_logged() {
        let mut problems = Vec::new();
        let event = choose_event(
            EventName::PreToolUse,
            Some("PostToolUse".to_string()),
            &mut problems,
        );
        assert_eq!(event, EventName::PostToolUse);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("disagrees"), "{problems:?}");
    }

    #[test]
    fn an_ill_formed_event_is_refused_with_a_hint_and_an_unknown_one_runs() {
        let why = ClaudeCode.claude_event("preToolUse").unwrap_err();
        assert!(why.ends_with("did you mean `PreToolUse`?"), "{why}");
        assert_eq!(
            ClaudeCode.claude_event("SomeNewerEvent"),
            Ok(Some(EventName::parse("SomeNewerEvent").unwrap()))
        );
    }
}
