//! One hook's answer: its exit status and output read with Claude Code's rules.

use serde_json::{Map, Value};

use crate::event::EventName;

use crate::config::{HookKind, HookSpec};

use super::execution::{HookExecution, RunStatus};
use super::merge::PermissionDecision;
use super::verdict::{verdict_answer, Judge};

/// A hook's JSON answer (stdout that starts with `{` and parses as an object).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HookJson {
    /// `continue` (default true).
    pub continue_: Option<bool>,
    pub stop_reason: Option<String>,
    pub suppress_output: Option<bool>,
    pub system_message: Option<String>,
    /// Top-level `decision`: `"block"` (and, on PreToolUse, the legacy `"approve"`).
    pub decision: Option<TopDecision>,
    pub reason: Option<String>,
    /// `hookSpecificOutput`, only when its `hookEventName` names this event, or one whose answer
    /// this event reads ([`EventTraits::answers_also_as`](crate::event::EventTraits)); otherwise
    /// Claude Code ignores the whole object (conformance case 50).
    pub specific: Option<SpecificOutput>,
    /// The Amplifier shell-hooks seed's own fields: `contextInjection` and `newContent`.
    pub context_injection: Option<String>,
    pub new_content: Option<Value>,
    /// The object as the hook printed it.
    pub raw: Map<String, Value>,
}

/// The top-level `decision`, with the only values Claude Code's output schema accepts (any
/// other makes the whole answer fail the schema).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TopDecision {
    /// The legacy PreToolUse `allow`.
    Approve,
    Block,
}

impl TopDecision {
    /// One of [`TOP_DECISIONS`](super::output_schema::TOP_DECISIONS).
    pub fn parse(word: &str) -> Option<TopDecision> {
        match word {
            "approve" => Some(TopDecision::Approve),
            "block" => Some(TopDecision::Block),
            _ => None,
        }
    }
}

/// `hookSpecificOutput`, read once: the fields Claude Code acts on, typed, and every other field
/// as printed. The output schema ([`output_schema::HOOK_SPECIFIC`](super::output_schema::HOOK_SPECIFIC))
/// has checked the types of the typed ones before an answer is read (a wrong one drops the answer
/// whole); a field of another type read here anyway (an answer built by hand) counts as absent.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SpecificOutput {
    /// `additionalContext`: context for the model, on every event that takes one.
    pub additional_context: Option<String>,
    /// PreToolUse: `permissionDecision`.
    pub permission_decision: Option<PermissionDecision>,
    /// PreToolUse: `permissionDecisionReason` (kept even when empty).
    pub permission_decision_reason: Option<String>,
    /// PreToolUse: `updatedInput`, the tool input to use instead.
    pub updated_input: Option<Map<String, Value>>,
    /// PermissionRequest: `decision`, when its `behavior` decides (`allow` or `deny`).
    pub request_decision: Option<RequestDecision>,
    /// Every field not above (nor `hookEventName`, nor a `decision` that decides nothing), as
    /// printed: `updatedMCPToolOutput`, `watchPaths`, … are passed on as they are.
    pub other: Map<String, Value>,
}

/// A PermissionRequest hook's `decision`: its `behavior`, and the object as printed (Claude Code
/// reads `updatedInput`, `updatedPermissions`, `message` and `interrupt` from it).
#[derive(Debug, Clone, PartialEq)]
pub struct RequestDecision {
    pub allow: bool,
    pub raw: Map<String, Value>,
}

impl SpecificOutput {
    /// The names of the fields read into typed fields (besides `hookEventName`).
    pub const TYPED: &'static [&'static str] = &[
        "additionalContext",
        "permissionDecision",
        "permissionDecisionReason",
        "updatedInput",
        "decision",
    ];

    /// Read `object` (a `hookSpecificOutput` that names the event).
    pub fn from_object(object: &Map<String, Value>) -> SpecificOutput {
        let string = |k: &str| object.get(k).and_then(Value::as_str).map(str::to_string);
        SpecificOutput {
            additional_context: string("additionalContext"),
            permission_decision: object
                .get("permissionDecision")
                .and_then(Value::as_str)
                .and_then(PermissionDecision::parse),
            permission_decision_reason: string("permissionDecisionReason"),
            updated_input: object.get("updatedInput").and_then(Value::as_object).cloned(),
            request_decision: object.get("decision").and_then(Value::as_object).and_then(|raw| {
                let allow = match raw.get("behavior").and_then(Value::as_str) {
                    Some("allow") => true,
                    Some("deny") => false,
                    _ => return None,
                };
                Some(RequestDecision {
                    allow,
                    raw: raw.clone(),
                })
            }),
            other: object
                .iter()
                .filter(|(k, _)| *k != "hookEventName" && !Self::TYPED.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        }
    }
}

impl HookJson {
    /// Read the fields Claude Code knows; a field of the wrong type is ignored, as Claude Code does.
    pub fn from_object(event: &EventName, raw: Map<String, Value>) -> HookJson {
        let string = |k: &str| raw.get(k).and_then(Value::as_str).map(str::to_string);
        let boolean = |k: &str| raw.get(k).and_then(Value::as_bool);
        let specific = raw
            .get("hookSpecificOutput")
            .and_then(Value::as_object)
            .filter(|o| {
                o.get("hookEventName")
                    .and_then(Value::as_str)
                    .is_some_and(|name| {
                        name == event.as_str() || event.traits().answers_also_as.contains(&name)
                    })
            })
            .map(SpecificOutput::from_object);
        HookJson {
            continue_: boolean("continue"),
            stop_reason: string("stopReason"),
            suppress_output: boolean("suppressOutput"),
            system_message: string("systemMessage"),
            decision: raw
                .get("decision")
                .and_then(Value::as_str)
                .and_then(TopDecision::parse),
            reason: string("reason"),
            specific,
            context_injection: string("contextInjection"),
            new_content: raw.get("newContent").cloned(),
            raw,
        }
    }

    /// `hookSpecificOutput.additionalContext`.
    pub fn additional_context(&self) -> Option<&str> {
        self.specific.as_ref()?.additional_context.as_deref()
    }

    /// `hookSpecificOutput.permissionDecision` (PreToolUse).
    pub fn permission_decision(&self) -> Option<PermissionDecision> {
        self.specific.as_ref()?.permission_decision
    }

    /// `hookSpecificOutput.permissionDecisionReason` (PreToolUse).
    pub fn permission_decision_reason(&self) -> Option<&str> {
        self.specific.as_ref()?.permission_decision_reason.as_deref()
    }

    /// `hookSpecificOutput.updatedInput` (PreToolUse).
    pub fn updated_input(&self) -> Option<&Map<String, Value>> {
        self.specific.as_ref()?.updated_input.as_ref()
    }

    /// `hookSpecificOutput.decision` when it decides (PermissionRequest).
    pub fn request_decision(&self) -> Option<&RequestDecision> {
        self.specific.as_ref()?.request_decision.as_ref()
    }
}

/// What a successful hook printed.
#[derive(Debug, Clone, PartialEq)]
pub enum HookOutput {
    Empty,
    /// Not JSON (or not an object, or invalid JSON): plain text.
    Plain(String),
    Json(Box<HookJson>),
    /// Output Claude Code throws away whole: JSON-looking text that does not parse (starts with
    /// `{` and ends with `}`), or JSON that fails the output schema (cases 135, 136).
    Dropped(String),
}

/// Why a hook gave no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoVerdictReason {
    TimedOut,
    CouldNotStart(String),
    /// An `async: true` hook, left running in the background.
    InBackground,
    /// Not run, or cancelled before it finished (the run was stopped; the hook cannot run here).
    NotRun(String),
}

impl std::fmt::Display for NoVerdictReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoVerdictReason::TimedOut => f.write_str("timed out"),
            NoVerdictReason::CouldNotStart(why) => write!(f, "could not start: {why}"),
            NoVerdictReason::InBackground => f.write_str("running in the background (async)"),
            NoVerdictReason::NotRun(why) => f.write_str(why),
        }
    }
}

/// One hook's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum HookAnswer {
    /// Exit 0 (or another code with a JSON object, which then decides).
    Output(HookOutput),
    /// Exit 2: a blocking error. Its message is the JSON block/deny reason if stdout has one, else
    /// stderr; JSON `additionalContext` still counts (measured cases 101, 147); a JSON `allow`
    /// does not lift the block (case 13).
    Blocking {
        stderr: String,
        json: Option<Box<HookJson>>,
    },
    /// Any other exit code, or death by a signal: reported, never blocking.
    NonBlockingError { code: Option<i32>, stderr: String },
    /// No answer at all.
    NoVerdict { why: NoVerdictReason },
    /// A `prompt` or `agent` hook's `ok: false` where it blocks: Claude Code shows it as a blocking
    /// error `[<label>]: <reason>`, like an exit-2 block; `stops_turn` where it also ends the turn
    /// (see [`verdict_answer`](super::verdict_answer)).
    Rejected {
        label: String,
        reason: String,
        stops_turn: bool,
    },
    /// An `agent` hook's `ok: false` where it blocks: Claude Code shows `reason` as it shows a
    /// JSON block's (see [`verdict_answer`](super::verdict_answer)).
    Denied { reason: String },
    /// `continue: false` with this reason, from a judge (a prompt hook's `ok: false` on TeammateIdle).
    Stopped { reason: String },
    /// A hook that is not a process could not answer (unreachable endpoint, HTTP error status,
    /// unreadable model reply, MCP `isError`): a non-blocking error.
    Failed { message: String },
}

/// Read one execution of `hook` with Claude Code's rules for its kind: a process's exit status and
/// output, an http endpoint's status and body, a model's verdict.
pub fn interpret_hook(event: &EventName, hook: &HookSpec, execution: &HookExecution) -> HookAnswer {
    match (&execution.status, &hook.kind) {
        // Not run where the event runs no judge (PreSkillShellCommand): a deny, as Claude Code
        // answers for it (cases 304, 305).
        (_, HookKind::Prompt(_) | HookKind::Agent(_)) if !event.traits().runs_judge_hooks => {
            let mut read = HookExecution::without_output(RunStatus::Exited(0), execution.finish_order);
            let deny = serde_json::json!({"hookSpecificOutput": {
                "hookEventName": event.as_str(),
                "permissionDecision": "deny",
                "permissionDecisionReason": event.judges_not_run(),
            }});
            read.stdout = deny.to_string().into_bytes();
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
        _ if speaks_seed(hook) => interpret_seed(event, execution),
        _ => interpret(event, execution),
    }
}

impl HookAnswer {
    /// Whether this answer is a failure of the hook (not a decision): what `on_failure` governs.
    pub fn is_failure(&self) -> bool {
        matches!(
            self,
            HookAnswer::NonBlockingError { .. }
                | HookAnswer::NoVerdict { .. }
                | HookAnswer::Failed { .. }
                | HookAnswer::Output(HookOutput::Dropped(_))
        )
    }
}

/// What Claude Code shows the model, on a later request, of an `async: true` hook's answer: its
/// `systemMessage` and `additionalContext`, one per line, as one system block (measured, shared
/// case 81). An async exit 2 or plain output is not delivered.
pub fn async_delivery(answer: &HookAnswer) -> Option<String> {
    let HookAnswer::Output(HookOutput::Json(json)) = answer else {
        return None;
    };
    let pieces: Vec<&str> = [json.system_message.as_deref(), json.additional_context()]
        .into_iter()
        .flatten()
        .filter(|piece| !piece.is_empty())
        .collect();
    (!pieces.is_empty()).then(|| pieces.join("\n"))
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
    let trimmed = stdout.trim().trim_start_matches('\u{feff}').trim_start();
    let object = match trimmed
        .starts_with('{')
        .then(|| serde_json::from_str::<Value>(trimmed))
    {
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
    seed_json_answer(event, object, rewritten)
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
        Err(e) => HookAnswer::Failed {
            message: format!("unusable answer: {e}"),
        },
    }
}

/// Read one execution with Claude Code's rules (a verdict is read as for a prompt hook labelled
/// `prompt`; use [`interpret_hook`] to read it as its hook's).
pub fn interpret(event: &EventName, execution: &HookExecution) -> HookAnswer {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    match &execution.status {
        RunStatus::Exited(2) => HookAnswer::Blocking {
            stderr: text(&execution.stderr),
            json: match parse_stdout(event, &text(&execution.stdout)) {
                HookOutput::Json(json) => Some(json),
                _ => None,
            },
        },
        RunStatus::Exited(0) | RunStatus::Answered | RunStatus::Responded(200..=299)
            if execution.stdout_truncated && answer_shaped(&execution.stdout) =>
        {
            HookAnswer::Failed {
                message: format!(
                    "its JSON answer is larger than the {} bytes hookbridge reads of one answer, so it was not read",
                    execution.stdout.len()
                ),
            }
        }
        RunStatus::Exited(0) | RunStatus::Answered => {
            HookAnswer::Output(parse_stdout(event, &text(&execution.stdout)))
        }
        RunStatus::Exited(code) => match parse_stdout(event, &text(&execution.stdout)) {
            // A valid JSON object decides whatever the exit code (Claude Code reads JSON on every
            // exit code since 2.1.228).
            HookOutput::Json(json) => HookAnswer::Output(HookOutput::Json(json)),
            _ => HookAnswer::NonBlockingError {
                code: Some(*code),
                stderr: text(&execution.stderr),
            },
        },
        // A hook that printed its JSON answer and was then killed still answered (case 169).
        RunStatus::Signaled(sig) => match parse_stdout(event, &text(&execution.stdout)) {
            HookOutput::Json(json) => HookAnswer::Output(HookOutput::Json(json)),
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
            why: NoVerdictReason::NotRun(why.to_string()),
        },
        // An http hook's body is read like a command's stdout on success.
        RunStatus::Responded(200..=299) => HookAnswer::Output(parse_stdout(event, &text(&execution.stdout))),
        RunStatus::Responded(status) => HookAnswer::Failed {
            message: format!(
                "the endpoint answered HTTP {status}{}",
                first_line_of(&text(&execution.stdout))
                    .map(|l| format!(": {l}"))
                    .unwrap_or_default()
            ),
        },
        RunStatus::Judged(verdict) => verdict_answer(
            event,
            verdict,
            "prompt",
            Judge::Prompt {
                continue_on_block: false,
            },
        ),
        RunStatus::Failed(message) => HookAnswer::Failed {
            message: message.clone(),
        },
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
        return HookAnswer::Failed {
            message: format!("HTTP {status} from {url}"),
        };
    }
    if execution.stdout_truncated && answer_shaped(&execution.stdout) {
        return interpret(event, execution); // past what hookbridge reads: a failure, worded there
    }
    let body = String::from_utf8_lossy(&execution.stdout);
    let trimmed = body.trim().trim_start_matches('\u{feff}').trim_start();
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
        return HookAnswer::Failed {
            message: format!("HTTP hook must return JSON, but got non-JSON response body: {shown}{cut}"),
        };
    }
    match serde_json::from_str::<Value>(trimmed) {
        Ok(Value::Object(map)) => match super::output_schema::problem(&map) {
            Some(problem) => HookAnswer::Failed {
                message: format!(
                    "HTTP hook returned JSON that does not fit the hook output schema: {problem}"
                ),
            },
            None => HookAnswer::Output(HookOutput::Json(Box::new(HookJson::from_object(event, map)))),
        },
        Ok(_) => HookAnswer::Failed {
            message: "HTTP hook must return valid JSON, but parsing failed: not an object".into(),
        },
        Err(e) => HookAnswer::Failed {
            message: format!("HTTP hook must return valid JSON, but parsing failed: {e}"),
        },
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
/// that starts with `{` is JSON if it parses as an object and fits the output schema; if it does not
/// parse but ends with `}`, or fails the schema, it is dropped; any other text is plain.
fn parse_stdout(event: &EventName, stdout: &str) -> HookOutput {
    // A UTF-8 byte-order mark before the JSON does not make it text (case 161).
    let trimmed = stdout.trim().trim_start_matches('\u{feff}').trim_start();
    if trimmed.is_empty() {
        return HookOutput::Empty;
    }
    if trimmed.starts_with('{') {
        match serde_json::from_str::<Value>(trimmed) {
            Ok(Value::Object(map)) => {
                if let Some(problem) = super::output_schema::problem(&map) {
                    return HookOutput::Dropped(format!(
                        "JSON output does not fit the hook output schema: {problem}"
                    ));
                }
                return HookOutput::Json(Box::new(HookJson::from_object(event, map)));
            }
            _ if trimmed.ends_with('}') => {
                return HookOutput::Dropped("output looks like JSON but does not parse".into());
            }
            _ => {}
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
            warm: Default::default(),
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
        for field in super::super::output_schema::HOOK_SPECIFIC {
            assert!(
                field.name == "hookEventName" || SpecificOutput::TYPED.contains(&field.name),
                "{} is checked by the schema but not typed",
                field.name
            );
        }
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
