//! One hook's answer: its exit status and output read with Claude Code's rules.

use serde_json::{Map, Value};

use crate::event::EventName;

use super::execution::{HookExecution, RunStatus};

/// A hook's JSON answer (stdout that starts with `{` and parses as an object).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HookJson {
    /// `continue` (default true).
    pub continue_: Option<bool>,
    pub stop_reason: Option<String>,
    pub suppress_output: Option<bool>,
    pub system_message: Option<String>,
    /// Top-level `decision`: `"block"` (and, on PreToolUse, the legacy `"approve"`).
    pub decision: Option<String>,
    pub reason: Option<String>,
    /// `hookSpecificOutput`, only when its `hookEventName` names this event (otherwise Claude Code
    /// ignores the whole object — conformance case 50).
    pub specific: Option<Map<String, Value>>,
    /// The Amplifier shell-hooks seed's own fields: `contextInjection` and `newContent`.
    pub context_injection: Option<String>,
    pub new_content: Option<Value>,
    /// The object as the hook printed it.
    pub raw: Map<String, Value>,
}

impl HookJson {
    /// Read the fields Claude Code knows; a field of the wrong type is ignored, as Claude Code does.
    pub fn from_object(event: &EventName, raw: Map<String, Value>) -> HookJson {
        let string = |k: &str| raw.get(k).and_then(Value::as_str).map(str::to_string);
        let boolean = |k: &str| raw.get(k).and_then(Value::as_bool);
        let specific = raw
            .get("hookSpecificOutput")
            .and_then(Value::as_object)
            .filter(|o| o.get("hookEventName").and_then(Value::as_str) == Some(event.as_str()))
            .cloned();
        HookJson {
            continue_: boolean("continue"),
            stop_reason: string("stopReason"),
            suppress_output: boolean("suppressOutput"),
            system_message: string("systemMessage"),
            decision: string("decision"),
            reason: string("reason"),
            specific,
            context_injection: string("contextInjection"),
            new_content: raw.get("newContent").cloned(),
            raw,
        }
    }

    pub fn specific_str(&self, key: &str) -> Option<&str> {
        self.specific.as_ref()?.get(key)?.as_str()
    }

    pub fn specific_value(&self, key: &str) -> Option<&Value> {
        self.specific.as_ref()?.get(key)
    }

    /// `hookSpecificOutput.additionalContext`.
    pub fn additional_context(&self) -> Option<&str> {
        self.specific_str("additionalContext")
    }
}

/// What a successful hook printed.
#[derive(Debug, Clone, PartialEq)]
pub enum HookOutput {
    Empty,
    /// Not JSON (or not an object, or invalid JSON): plain text.
    Plain(String),
    Json(Box<HookJson>),
}

/// One hook's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum HookAnswer {
    /// Exit 0 (or another code with a JSON object, which then decides).
    Output(HookOutput),
    /// Exit 2: a blocking error whose message is stderr. Any JSON on stdout is ignored.
    Blocking { stderr: String },
    /// Any other exit code, or death by a signal: reported, never blocking.
    NonBlockingError { code: Option<i32>, stderr: String },
    /// No answer at all (timed out, could not start, not run, running in the background).
    NoVerdict { why: String },
}

/// Read one execution with Claude Code's rules.
pub fn interpret(event: &EventName, execution: &HookExecution) -> HookAnswer {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    match &execution.status {
        RunStatus::Exited(2) => HookAnswer::Blocking { stderr: text(&execution.stderr) },
        RunStatus::Exited(0) => HookAnswer::Output(parse_stdout(event, &text(&execution.stdout))),
        RunStatus::Exited(code) => match parse_stdout(event, &text(&execution.stdout)) {
            // A valid JSON object decides whatever the exit code (Claude Code reads JSON on every
            // exit code since 2.1.228).
            HookOutput::Json(json) => HookAnswer::Output(HookOutput::Json(json)),
            _ => HookAnswer::NonBlockingError { code: Some(*code), stderr: text(&execution.stderr) },
        },
        RunStatus::Signaled(sig) => HookAnswer::NonBlockingError {
            code: None,
            stderr: format!("{}killed by signal {sig}", text(&execution.stderr)),
        },
        RunStatus::TimedOut => HookAnswer::NoVerdict { why: "timed out".into() },
        RunStatus::SpawnFailed(why) => HookAnswer::NoVerdict { why: format!("could not start: {why}") },
        RunStatus::Detached => HookAnswer::NoVerdict { why: "running in the background (async)".into() },
        RunStatus::NotRun(why) => HookAnswer::NoVerdict { why: why.clone() },
    }
}

/// First non-whitespace character `{` ⇒ JSON if it parses as an object; anything else is text.
fn parse_stdout(event: &EventName, stdout: &str) -> HookOutput {
    let trimmed = stdout.trim();
    if trimmed.is_empty() {
        return HookOutput::Empty;
    }
    if trimmed.starts_with('{') {
        if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(trimmed) {
            return HookOutput::Json(Box::new(HookJson::from_object(event, map)));
        }
    }
    HookOutput::Plain(stdout.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn exec(code: i32, stdout: &str, stderr: &str) -> HookExecution {
        HookExecution {
            status: RunStatus::Exited(code),
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
            stdout_truncated: false,
            stderr_truncated: false,
            leaked: false,
            duration: Duration::ZERO,
            finish_order: 0,
        }
    }

    const PRE: EventName = EventName::PreToolUse;

    #[test]
    fn exit_two_blocks_with_stderr_and_ignores_json() {
        let a = interpret(&PRE, &exec(2, r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}"#, "nope\n"));
        assert_eq!(a, HookAnswer::Blocking { stderr: "nope\n".into() });
    }

    #[test]
    fn other_codes_are_non_blocking_unless_json_decides() {
        assert_eq!(interpret(&PRE, &exec(1, "out", "err")), HookAnswer::NonBlockingError { code: Some(1), stderr: "err".into() });
        assert!(matches!(interpret(&PRE, &exec(3, "{\"continue\": false}", "")), HookAnswer::Output(HookOutput::Json(_))));
    }

    #[test]
    fn stdout_is_json_only_when_it_is_an_object() {
        let plain = |s: &str| interpret(&EventName::UserPromptSubmit, &exec(0, s, ""));
        assert_eq!(plain("{not json at all"), HookAnswer::Output(HookOutput::Plain("{not json at all".into())));
        assert_eq!(plain("[1]"), HookAnswer::Output(HookOutput::Plain("[1]".into())));
        assert_eq!(plain("  \n"), HookAnswer::Output(HookOutput::Empty));
        assert!(matches!(plain("\n {\"continue\": true}\n"), HookAnswer::Output(HookOutput::Json(_))));
    }

    #[test]
    fn hook_specific_output_for_another_event_is_ignored() {
        let HookAnswer::Output(HookOutput::Json(j)) = interpret(
            &EventName::PostToolUse,
            &exec(0, r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "x"}}"#, ""),
        ) else {
            panic!()
        };
        assert_eq!(j.specific, None);
        assert_eq!(j.additional_context(), None);
    }

    #[test]
    fn failures_to_answer_are_no_verdicts() {
        let t = HookExecution::without_output(RunStatus::TimedOut, 0);
        assert!(matches!(interpret(&PRE, &t), HookAnswer::NoVerdict { .. }));
        let s = HookExecution { status: RunStatus::Signaled(9), ..exec(0, "", "") };
        assert!(matches!(interpret(&PRE, &s), HookAnswer::NonBlockingError { code: None, .. }));
    }
}
