//! How one hook's run becomes its [`HookAnswer`], with Claude Code's rules for its kind: a
//! process's exit status and output, an http endpoint's status and body, a model's verdict, a
//! seed-dialect answer rewritten first.

use serde_json::{Map, Value};

use crate::config::{CommandHook, HookKind, HookSpec};
use crate::event::EventName;

use super::answer::{HookAnswer, HookJson, HookOutput, NoVerdictReason, PermissionDecision};
use super::execution::{HookExecution, HookFailure, HookFailureKind, RunStatus};
use super::foreign::{as_seed_answer, AnswersAs};
use super::json_text::{self, Unread};
use super::judged::{verdict_answer, Judge};
use HookFailureKind::{Refused, TooLarge, Unreadable};

/// Read one execution of `hook` with Claude Code's rules for its kind: a process's exit status and
/// output, an http endpoint's status and body, a model's verdict.
pub fn interpret_hook(event: &EventName, hook: &HookSpec, execution: &HookExecution) -> HookAnswer {
    match (&execution.status, &hook.kind) {
        // Not run where the event runs no judge (PreSkillShellCommand): a deny, as Claude Code
        // answers for it (cases 304, 305).
        (_, HookKind::Prompt(_) | HookKind::Agent(_)) if !event.traits().runs_judge_hooks => {
            let mut read = HookExecution::without_output(RunStatus::Exited(0), execution.finish_order);
            let mut deny = HookJson::default();
            let specific = deny.specific_for(event);
            specific.permission_decision = Some(PermissionDecision::Deny);
            specific.permission_decision_reason = Some(event.judges_not_run());
            read.stdout = serde_json::to_vec(&deny).expect("a JSON answer serializes");
            interpret(event, &read)
        }
        (RunStatus::Judged(verdict), HookKind::Prompt(p)) => verdict_answer(
            event,
            verdict,
            &p.prompt,
            Judge::Prompt {
                continue_on_block: p.continue_on_block,
            },
        ),
        (RunStatus::Judged(verdict), HookKind::Agent(p)) => {
            verdict_answer(event, verdict, &p.prompt, Judge::Agent)
        }
        // An llm hook's verdict is read as the seed's answer it stands for.
        (RunStatus::Judged(verdict), HookKind::Llm(_)) => {
            let mut answer = Map::new();
            let action = if verdict.ok { "allow" } else { "block" };
            answer.insert("action".into(), Value::String(action.into()));
            if !verdict.ok {
                let reason = verdict
                    .reason
                    .clone()
                    .unwrap_or_else(|| "the model judged it unsafe".into());
                answer.insert("message".into(), Value::String(reason));
            }
            seed_json_answer(event, answer, |claude| {
                let mut read = HookExecution::without_output(RunStatus::Exited(0), execution.finish_order);
                read.stdout = Value::Object(claude).to_string().into_bytes();
                interpret(event, &read)
            })
        }
        (RunStatus::Responded(status), HookKind::Http(h)) => http_answer(event, *status, &h.url, execution),
        // A rule's answer is Claude Code's already, unless its action could not be rewritten.
        (RunStatus::Answered, HookKind::Rule(_)) if !contains(&execution.stdout, b"\"action\"") => {
            interpret(event, execution)
        }
        (
            _,
            HookKind::Command(CommandHook {
                answers: Some(agent), ..
            }),
        ) => interpret_foreign(event, *agent, execution),
        _ if speaks_seed(hook) => interpret_seed(event, execution),
        _ => interpret(event, execution),
    }
}

/// Whether `hook` answers in the seed's dialect (see [`crate::seed`]). A rule hook's answer comes
/// already rewritten unless it could not be (then its `action` is reported here).
fn speaks_seed(hook: &HookSpec) -> bool {
    hook.seed_event.is_some() || matches!(hook.kind, HookKind::Rule(_) | HookKind::Llm(_))
}

/// A seed-dialect hook's execution: a JSON answer is rewritten as Claude Code's before it is read
/// with Claude Code's rules; an answer that is neither dialect is a failure of the hook.
fn interpret_seed(event: &EventName, execution: &HookExecution) -> HookAnswer {
    let stdout = String::from_utf8_lossy(&execution.stdout);
    let trimmed = json_text::js_trim(&stdout);
    let object = match trimmed.starts_with('{').then(|| json_text::parse(trimmed)) {
        Some(Ok(Value::Object(object))) => object,
        _ => return interpret(event, execution),
    };
    if !object.contains_key("action") && crate::seed::answer::is_claude_answer(&object) {
        return interpret(event, execution); // read as written, not written again
    }
    let rewritten = |claude: Map<String, Value>| -> HookAnswer {
        let mut execution = execution.clone();
        execution.stdout = Value::Object(claude).to_string().into_bytes();
        interpret(event, &execution)
    };
    still_blocking(event, execution, seed_json_answer(event, object, rewritten))
}

/// An exit 2 blocks whatever the hook printed (Claude Code's rule): an answer that cannot be
/// rewritten as Claude Code's does not turn that block into a failure, and under
/// `onFailure: continue` into an allow.
fn still_blocking(event: &EventName, execution: &HookExecution, answer: HookAnswer) -> HookAnswer {
    match (&execution.status, answer) {
        (RunStatus::Exited(2), HookAnswer::Failed(_)) => interpret(event, execution),
        (_, answer) => answer,
    }
}

/// A hook that answers in another agent's words (`"answers"`): a JSON answer's decision is
/// rewritten as the seed's `action` and then as Claude Code's (see [`super::foreign`]).
fn interpret_foreign(event: &EventName, agent: AnswersAs, execution: &HookExecution) -> HookAnswer {
    // An exit 2 blocks with its stderr, whatever it printed, in any agent's words.
    if execution.status == RunStatus::Exited(2) {
        return interpret(event, execution);
    }
    let stdout = String::from_utf8_lossy(&execution.stdout);
    let trimmed = json_text::js_trim(&stdout);
    let object = match trimmed.starts_with('{').then(|| json_text::parse(trimmed)) {
        Some(Ok(Value::Object(object))) => object,
        _ => return interpret(event, execution),
    };
    let rewritten = |claude: Map<String, Value>| -> HookAnswer {
        let mut execution = execution.clone();
        execution.stdout = Value::Object(claude).to_string().into_bytes();
        interpret(event, &execution)
    };
    match as_seed_answer(agent, event, object) {
        (answer, true) => seed_json_answer(event, answer, rewritten),
        (answer, false) => rewritten(answer),
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn seed_json_answer(
    event: &EventName,
    answer: Map<String, Value>,
    read: impl FnOnce(Map<String, Value>) -> HookAnswer,
) -> HookAnswer {
    match crate::seed::to_claude_answer(event, answer) {
        Ok(claude) => read(claude),
        Err(e) => failed(Unreadable, format!("unusable answer: {e}")),
    }
}

/// Read one execution with Claude Code's rules (a verdict is read as for a prompt hook labelled
/// `prompt`; use [`interpret_hook`] to read it as its hook's).
pub fn interpret(event: &EventName, execution: &HookExecution) -> HookAnswer {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let read = || parse_stdout(event, &text(&execution.stdout));
    match &execution.status {
        RunStatus::Exited(2) => HookAnswer::Blocking {
            stderr: text(&execution.stderr),
            json: match read() {
                Ok(HookOutput::Json(json)) => Some(json),
                _ => None,
            },
        },
        RunStatus::Exited(0) | RunStatus::Answered | RunStatus::Responded(200..=299)
            if execution.stdout_truncated && answer_shaped(&execution.stdout) =>
        {
            failed(
                TooLarge,
                format!(
                    "its JSON answer is larger than the {} bytes hookbridge reads of one answer, so it was not read",
                    execution.stdout.len()
                ),
            )
        }
        RunStatus::Exited(0) | RunStatus::Answered | RunStatus::Responded(200..=299) => match read() {
            Ok(output) => HookAnswer::Output(output),
            Err(why) => failed(TooLarge, why),
        },
        RunStatus::Exited(code) => match read() {
            // A valid JSON object decides whatever the exit code (Claude Code reads JSON on every
            // exit code since 2.1.228).
            Ok(HookOutput::Json(json)) => HookAnswer::Output(HookOutput::Json(json)),
            Err(why) => failed(TooLarge, why),
            _ => HookAnswer::NonBlockingError {
                code: Some(*code),
                stderr: text(&execution.stderr),
            },
        },
        // A hook that printed its JSON answer and was then killed still answered (case 169).
        RunStatus::Signaled(sig) => match read() {
            Ok(HookOutput::Json(json)) => HookAnswer::Output(HookOutput::Json(json)),
            Err(why) => failed(TooLarge, why),
            _ => HookAnswer::NonBlockingError {
                code: None,
                stderr: format!("{}killed by signal {sig}", text(&execution.stderr)),
            },
        },
        RunStatus::TimedOut => HookAnswer::NoVerdict {
            why: NoVerdictReason::TimedOut,
        },
        RunStatus::SpawnFailed(why) => HookAnswer::NoVerdict {
            why: NoVerdictReason::CouldNotStart(why.clone()),
        },
        RunStatus::Detached => HookAnswer::NoVerdict {
            why: NoVerdictReason::InBackground,
        },
        RunStatus::NotRun(why) => HookAnswer::NoVerdict {
            why: NoVerdictReason::NotRun(why.clone()),
        },
        RunStatus::Cancelled(why) => HookAnswer::NoVerdict {
            why: NoVerdictReason::Cancelled(*why),
        },
        RunStatus::Responded(status) => failed(
            Refused,
            format!(
                "the endpoint answered HTTP {status}{}",
                first_line_of(&text(&execution.stdout))
                    .map(|l| format!(": {l}"))
                    .unwrap_or_default()
            ),
        ),
        RunStatus::Judged(verdict) => verdict_answer(
            event,
            verdict,
            "prompt",
            Judge::Prompt {
                continue_on_block: false,
            },
        ),
        RunStatus::Failed(failure) => HookAnswer::Failed(failure.clone()),
    }
}

/// An http hook's response read as Claude Code 2.1.328 reads it (measured, cases 269–273 and
/// 288; its `mKr`), which is not how it reads a command's stdout: any status outside 2xx is a
/// failure whatever the body says (`HTTP <status> from <url>`); a 2xx body, trimmed, that is empty
/// is `{}`; one that does not start with `{` is a failure, never plain text (no context from it
/// on UserPromptSubmit); one that starts with `{` must parse as JSON and fit the output schema, or
/// it is a failure too.
fn http_answer(event: &EventName, status: u16, url: &str, execution: &HookExecution) -> HookAnswer {
    if !(200..300).contains(&status) {
        return failed(Refused, format!("HTTP {status} from {url}"));
    }
    if execution.stdout_truncated && answer_shaped(&execution.stdout) {
        return interpret(event, execution); // past what hookbridge reads: a failure, worded there
    }
    let body = String::from_utf8_lossy(&execution.stdout);
    let trimmed = json_text::js_trim(&body);
    if trimmed.is_empty() {
        return HookAnswer::Output(HookOutput::Json(Box::new(HookJson::from_object(
            event,
            Map::new(),
        ))));
    }
    if !trimmed.starts_with('{') {
        let shown: String = trimmed.chars().take(200).collect();
        let cut = if shown.len() < trimmed.len() {
            "\u{2026}"
        } else {
            ""
        };
        return failed(Unreadable, format!("{NON_JSON_BODY}{shown}{cut}"));
    }
    match json_text::parse(trimmed) {
        Err(Unread::TooDeep(depth)) => failed(TooLarge, too_deep(depth)),
        Err(Unread::TooMany(_)) => failed(TooLarge, too_many()),
        Ok(Value::Object(map)) => match super::output_schema::problem(&map) {
            Some(problem) => failed(
                Unreadable,
                format!("HTTP hook returned JSON that does not fit the hook output schema: {problem}"),
            ),
            None => HookAnswer::Output(HookOutput::Json(Box::new(HookJson::from_object(event, map)))),
        },
        Ok(_) => failed(
            Unreadable,
            "HTTP hook must return valid JSON, but parsing failed: not an object",
        ),
        Err(e) => failed(
            Unreadable,
            format!("HTTP hook must return valid JSON, but parsing failed: {e}"),
        ),
    }
}

/// Whether output begins a JSON answer: whitespace, then `{` (or whitespace only). Such output
/// is read whole however large (up to the runner's bound), and one cut short at that bound is a
/// failure of the hook, never plain text: a deny must not become an allow by being long.
pub fn answer_shaped(output: &[u8]) -> bool {
    matches!(
        output.iter().find(|b| !b.is_ascii_whitespace()),
        None | Some(b'{')
    )
}

/// The first non-empty line of an error body, shortened, for a message.
fn first_line_of(body: &str) -> Option<String> {
    let line = body.lines().map(str::trim).find(|l| !l.is_empty())?;
    let mut end = line.len().min(300);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    Some(line[..end].to_string())
}

/// Claude Code 2.1.328's reading of stdout (measured, cases 48, 125–127, 135, 136): trimmed text
/// (as JavaScript trims: a byte-order mark is white space, case 161) that starts with `{` is JSON
/// if it parses as an object and fits the output schema; if it does not parse but ends with `}`,
/// or fails the schema, it is dropped; any other text is plain. `Err`: JSON nested deeper or
/// holding more values than hookbridge reads ([`json_text::MAX_DEPTH`], [`json_text::MAX_VALUES`]),
/// which the caller makes a failure of the hook.
fn parse_stdout(event: &EventName, stdout: &str) -> Result<HookOutput, String> {
    let trimmed = json_text::js_trim(stdout);
    if trimmed.is_empty() {
        return Ok(HookOutput::Empty);
    }
    if trimmed.starts_with('{') {
        match json_text::parse(trimmed) {
            Ok(Value::Object(map)) => {
                if let Some(problem) = super::output_schema::problem(&map) {
                    return Ok(HookOutput::Dropped(format!(
                        "JSON output does not fit the hook output schema: {problem}"
                    )));
                }
                return Ok(HookOutput::Json(Box::new(HookJson::from_object(event, map))));
            }
            Err(Unread::TooDeep(depth)) => return Err(too_deep(depth)),
            Err(Unread::TooMany(_)) => return Err(too_many()),
            _ if trimmed.ends_with('}') => {
                return Ok(HookOutput::Dropped(
                    "output looks like JSON but does not parse".into(),
                ));
            }
            _ => {}
        }
    }
    Ok(HookOutput::Plain(stdout.to_string()))
}

/// Why an answer nested `depth` levels deep was not read.
fn too_deep(depth: usize) -> String {
    format!(
        "its JSON answer nests {depth} levels deep, past the {} hookbridge reads, so it was not read",
        json_text::MAX_DEPTH
    )
}

fn too_many() -> String {
    format!(
        "its JSON answer holds more than {} values, past what hookbridge reads, so it was not read",
        json_text::MAX_VALUES
    )
}

/// What an http hook's failure says before the start of a body that is not JSON, which it quotes
/// as Claude Code does (the model is shown it). The quote is the endpoint's output, which the audit
/// log never keeps (an error page may echo the request, its headers and the payload).
pub const NON_JSON_BODY: &str = "HTTP hook must return JSON, but got non-JSON response body: ";

/// A failed answer of `kind`, said in `message`.
fn failed(kind: HookFailureKind, message: impl Into<String>) -> HookAnswer {
    HookAnswer::Failed(HookFailure::new(kind, message))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::answer::{PermissionDecision, SpecificOutput};
    use std::time::Duration;

    fn exec(code: i32, stdout: &str, stderr: &str) -> HookExecution {
        HookExecution {
            warm: Default::default(),
            status: RunStatus::Exited(code),
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
            stdout_truncated: false,
            stderr_truncated: false,
            leaked: false,
            duration: Duration::ZERO,
            finish_order: 0,
            unsandboxed: None,
        }
    }

    const PRE: EventName = EventName::PreToolUse;

    /// A failed answer says what kind of failure it is, so that whoever reads it (a report, the
    /// audit record) tells an endpoint that refused from an answer past the cap without parsing
    /// the sentence; a run's own failure keeps its kind.
    #[test]
    fn a_failed_answer_carries_its_kind() {
        let kind = |execution: &HookExecution| match interpret(&PRE, execution) {
            HookAnswer::Failed(failure) => failure.kind,
            other => panic!("not a failure: {other:?}"),
        };
        let mut refused = exec(0, "upstream down", "");
        refused.status = RunStatus::Responded(503);
        assert_eq!(kind(&refused), HookFailureKind::Refused);
        let mut too_large = exec(0, r#"{"decision": "block", "reason": "xxxx"#, "");
        too_large.stdout_truncated = true;
        assert_eq!(kind(&too_large), HookFailureKind::TooLarge);
        let failure = HookFailure::new(HookFailureKind::Unreachable, "could not reach it");
        let unreachable = HookExecution::without_output(RunStatus::Failed(failure.clone()), 0);
        assert_eq!(interpret(&PRE, &unreachable), HookAnswer::Failed(failure));
    }

    /// A hook that answers in another agent's words (`"answers"`) denies with them, and a deny in
    /// one set of words beside an allow in the other is still a deny, never an unreadable answer.
    #[test]
    fn another_agents_deny_is_read_as_a_deny() {
        let hook = |agent: &str| -> HookSpec {
            let text = serde_json::json!({"hooks": {"PreToolUse": [{"hooks": [
                {"type": "command", "command": "guard", "answers": agent}]}]}})
            .to_string();
            let source = crate::config::ConfigSource {
                path: "/t/hooks.json".into(),
                scope: crate::config::Scope::User,
                hooks_dir: "/t".into(),
                plugin: None,
                description: None,
            };
            let mut set = crate::config::HookSet::default();
            set.extend(crate::config::parse_hooks_file(&text, source, 0, "/t"));
            let (_, _, hook) = set.hooks().next().expect("one hook");
            hook.clone()
        };
        let decision =
            |agent: &str, stdout: &str| match interpret_hook(&PRE, &hook(agent), &exec(0, stdout, "")) {
                HookAnswer::Output(HookOutput::Json(json)) => json.permission_decision(),
                HookAnswer::Output(HookOutput::Dropped(_)) => None,
                other => panic!("{agent}: {other:?}"),
            };
        let deny = Some(PermissionDecision::Deny);
        assert_eq!(decision("cursor", r#"{"permission": "deny"}"#), deny);
        assert_eq!(decision("copilot", r#"{"permissionDecision": "deny"}"#), deny);
        assert_eq!(
            decision("gemini", r#"{"decision": "deny", "reason": "no"}"#),
            deny
        );
        assert_eq!(
            decision("claude", r#"{"decision": "deny"}"#),
            None,
            "Claude Code's words: none"
        );
        let both = r#"{"decision": "deny", "hookSpecificOutput": {"hookEventName": "BeforeTool", "permissionDecision": "allow"}}"#;
        assert_eq!(decision("gemini", both), deny);
        let both = r#"{"permission": "allow", "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}}"#;
        assert_eq!(decision("cursor", both), deny);
        // An exit 2 is read by Claude Code's rules whatever the words: an answer that cannot be
        // rewritten (a block where the event has none) is no failure then, only at exit 0.
        let start = EventName::SessionStart;
        let deny = r#"{"decision": "deny", "reason": "no"}"#;
        let at_exit_2 = interpret_hook(&start, &hook("gemini"), &exec(2, deny, "no"));
        assert!(matches!(at_exit_2, HookAnswer::Blocking { .. }), "{at_exit_2:?}");
        let at_exit_0 = interpret_hook(&start, &hook("gemini"), &exec(0, deny, ""));
        assert!(matches!(at_exit_0, HookAnswer::Failed(_)), "{at_exit_0:?}");
        // The same for a seed-dialect hook whose `action` cannot be read.
        let mut seed = hook("claude");
        seed.seed_event = Some("PreToolUse".into());
        let unknown = r#"{"action": "deny"}"#;
        let at_exit_2 = interpret_hook(&PRE, &seed, &exec(2, unknown, "no"));
        assert!(matches!(at_exit_2, HookAnswer::Blocking { .. }), "{at_exit_2:?}");
        let at_exit_0 = interpret_hook(&PRE, &seed, &exec(0, unknown, ""));
        assert!(matches!(at_exit_0, HookAnswer::Failed(_)), "{at_exit_0:?}");
    }

    #[test]
    fn exit_two_blocks_with_stderr_and_ignores_json() {
        let a = interpret(
            &PRE,
            &exec(
                2,
                r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}"#,
                "nope\n",
            ),
        );
        let HookAnswer::Blocking { stderr, json } = a else {
            panic!()
        };
        assert_eq!(stderr, "nope\n");
        assert!(
            json.is_some(),
            "the JSON is kept: its reason and context still count"
        );
    }

    #[test]
    fn other_codes_are_non_blocking_unless_json_decides() {
        assert_eq!(
            interpret(&PRE, &exec(1, "out", "err")),
            HookAnswer::NonBlockingError {
                code: Some(1),
                stderr: "err".into()
            }
        );
        assert!(matches!(
            interpret(&PRE, &exec(3, "{\"continue\": false}", "")),
            HookAnswer::Output(HookOutput::Json(_))
        ));
    }

    #[test]
    fn stdout_is_json_only_when_it_is_an_object() {
        let plain = |s: &str| interpret(&EventName::UserPromptSubmit, &exec(0, s, ""));
        assert_eq!(
            plain("{not json at all"),
            HookAnswer::Output(HookOutput::Plain("{not json at all".into()))
        );
        assert_eq!(plain("[1]"), HookAnswer::Output(HookOutput::Plain("[1]".into())));
        assert_eq!(plain("  \n"), HookAnswer::Output(HookOutput::Empty));
        assert!(matches!(
            plain("\n {\"continue\": true}\n"),
            HookAnswer::Output(HookOutput::Json(_))
        ));
        assert!(matches!(
            plain("{\"a\": \"raw\nnewline\"}"),
            HookAnswer::Output(HookOutput::Dropped(_))
        ));
        assert!(matches!(
            plain("{\"a\": 1}\ntrailing"),
            HookAnswer::Output(HookOutput::Plain(_))
        ));
        assert!(matches!(
            plain("{\"continue\": \"nope\"}"),
            HookAnswer::Output(HookOutput::Dropped(_))
        ));
        let bogus =
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "bogus"}}"#;
        assert!(matches!(plain(bogus), HookAnswer::Output(HookOutput::Dropped(_))));
    }

    /// `hookSpecificOutput` is read once into typed fields; what is not typed is kept as printed,
    /// and every field the output schema checks is a typed one.
    #[test]
    fn hook_specific_output_is_read_once_into_typed_fields() {
        let object = serde_json::json!({
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "",
            "updatedInput": {"command": "ls"},
            "additionalContext": "ctx",
            "updatedMCPToolOutput": [1],
            "decision": {"behavior": "ask"},
        });
        let specific = SpecificOutput::from_object(object.as_object().unwrap());
        assert_eq!(specific.permission_decision, Some(PermissionDecision::Deny));
        assert_eq!(specific.permission_decision_reason.as_deref(), Some(""));
        assert_eq!(
            specific.updated_input,
            serde_json::json!({"command": "ls"}).as_object().cloned()
        );
        assert_eq!(specific.additional_context.as_deref(), Some("ctx"));
        assert_eq!(
            specific.request_decision, None,
            "`ask` is not a PermissionRequest decision"
        );
        assert_eq!(
            serde_json::Value::Object(specific.other),
            serde_json::json!({"updatedMCPToolOutput": [1]})
        );
        let request = serde_json::json!({"decision": {"behavior": "deny", "message": "no"}});
        let decided = SpecificOutput::from_object(request.as_object().unwrap())
            .request_decision
            .unwrap();
        assert!(!decided.allow);
        assert_eq!(decided.raw.get("message"), Some(&serde_json::json!("no")));
        let seeds = serde_json::json!({HookJson::CONTEXT_INJECTION: "c", HookJson::NEW_CONTENT: null});
        let read = HookJson::from_object(&EventName::Stop, seeds.as_object().unwrap().clone());
        assert_eq!(
            (read.context_injection.as_deref(), read.new_content),
            (Some("c"), Some(serde_json::Value::Null)),
            "the seed's fields are read by their names"
        );
    }

    #[test]
    fn hook_specific_output_for_another_event_is_ignored() {
        let HookAnswer::Output(HookOutput::Json(j)) = interpret(
            &EventName::PostToolUse,
            &exec(
                0,
                r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "x"}}"#,
                "",
            ),
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
        let s = HookExecution {
            warm: Default::default(),
            status: RunStatus::Signaled(9),
            ..exec(0, "", "")
        };
        assert!(matches!(
            interpret(&PRE, &s),
            HookAnswer::NonBlockingError { code: None, .. }
        ));
        let answered = HookExecution {
            warm: Default::default(),
            status: RunStatus::Signaled(9),
            ..exec(0, r#"{"decision": "block"}"#, "")
        };
        assert!(matches!(
            interpret(&PRE, &answered),
            HookAnswer::Output(HookOutput::Json(_))
        ));
        let bom = exec(0, "\u{feff}{\"decision\": \"block\"}", "");
        assert!(matches!(
            interpret(&PRE, &bom),
            HookAnswer::Output(HookOutput::Json(_))
        ));
    }
}
