//! Combining the answers of every hook of one event, as Claude Code combines them.

use serde_json::{Map, Value};

use crate::config::OnFailure;
use crate::event::{EventName, EventTraits};

use super::answer::{
    HookAnswer, HookJson, HookOutput, NoVerdictReason, PermissionDecision, RequestDecision, TopDecision,
};

/// How a block was expressed; Claude Code shows the two differently (`[cmd]: stderr` vs `reason`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlockingSource {
    /// Exit code 2 without a JSON reason; the message is stderr.
    ExitCode { stderr: String },
    /// A JSON block: `decision: "block"`, or on PreToolUse `permissionDecision: "deny"` / legacy
    /// block — with exit 0, another code, or exit 2 (its JSON reason then replaces stderr).
    Decision { reason: Option<String> },
    /// A hook with `onFailure: "block"` gave no usable answer.
    Failure { message: String },
    /// A `prompt` or `agent` hook's `ok: false`: shown as `[<label>]: <reason>`, like an exit-2
    /// block whose command is the prompt.
    Verdict { label: String, reason: String },
}

/// One hook's block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocking {
    pub source: BlockingSource,
    /// Index of the hook in the answers given to [`merge`].
    pub hook: usize,
    pub finish_order: usize,
}

impl Blocking {
    /// The text of the block, without Claude Code's `[command]: ` prefix.
    pub fn message(&self) -> &str {
        match &self.source {
            BlockingSource::ExitCode { stderr } => stderr,
            BlockingSource::Decision { reason } => reason.as_deref().unwrap_or(""),
            BlockingSource::Failure { message } => message,
            BlockingSource::Verdict { reason, .. } => reason,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContextKind {
    /// Plain stdout of a successful hook (context only on SessionStart, UserPromptSubmit,
    /// UserPromptExpansion).
    PlainStdout,
    /// `hookSpecificOutput.additionalContext`.
    AdditionalContext,
    /// The Amplifier seed's `contextInjection` field.
    ContextInjection,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Context {
    pub kind: ContextKind,
    pub text: String,
    pub hook: usize,
    pub finish_order: usize,
}

/// Something a user should hear about that did not change the decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub hook: usize,
    pub message: String,
}

/// A hook's `continue: false`: the agent stops after this event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StopRequest {
    /// The `stopReason` of the last hook that asked (shown to the user), if it gave one.
    pub reason: Option<String>,
}

impl StopRequest {
    pub fn because(reason: &str) -> StopRequest {
        StopRequest {
            reason: Some(reason.to_string()),
        }
    }
}

/// The combined effect of every hook of one event.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EventDecision {
    /// The block shown to the model: the last blocking hook to finish (cases 63, 65).
    pub blocking: Option<Blocking>,
    /// Every block, in completion order (PostToolUse shows them all, case 104).
    pub blocks: Vec<Blocking>,
    /// PreToolUse/PreModelSwitch: the winning permission decision (deny if `blocking` is set).
    pub permission: Option<PermissionDecision>,
    /// The reason that goes with `permission` (for ask/allow/defer; deny's is in `blocking`).
    pub permission_reason: Option<String>,
    /// PermissionRequest: the `decision` object (`{behavior, …}`) of the first hook to decide.
    pub permission_request: Option<RequestDecision>,
    /// `updatedInput` of the last hook to finish that gave one (cases 121, 122).
    pub updated_input: Option<Value>,
    /// Every context, in completion order.
    pub contexts: Vec<Context>,
    /// `systemMessage`s, in completion order (shown to the user, not the model).
    pub system_messages: Vec<String>,
    /// `continue: false`: stop after this event.
    pub stop: Option<StopRequest>,
    pub suppress_output: bool,
    /// Other `hookSpecificOutput` fields (sessionTitle, watchPaths, updatedToolOutput, …): last wins.
    pub other_specific: Map<String, Value>,
    /// The Amplifier seed's `newContent`, last wins.
    pub new_content: Option<Value>,
    /// Exit-2 answers on events where exit 2 is only a notice (SessionStart, SessionEnd, …).
    pub notices: Vec<Problem>,
    /// Non-blocking errors, dropped output, and hooks that gave no verdict.
    pub problems: Vec<Problem>,
    /// The exit code of the last non-blocking error (what a lone hook would have exited with).
    pub last_error_code: Option<i32>,
}

/// One hook's answer, as [`merge`] takes it.
#[derive(Debug, Clone, PartialEq)]
pub struct AnsweredHook {
    pub answer: HookAnswer,
    /// 0 for the first to finish.
    pub finish_order: usize,
    /// `onFailure` / `on_failure`: what a failure of this hook does.
    pub on_failure: crate::config::OnFailure,
    /// How Claude Code names the hook in messages (the command, URL, prompt, …).
    pub label: String,
    /// One of the user's own hooks in a session that restricts personal configuration, on an
    /// event where it must succeed ([`users_own_hook_must_succeed`]): its failure blocks, whatever
    /// its `onFailure` says.
    pub must_succeed: bool,
}

impl AnsweredHook {
    /// Why a failure of this hook blocks the event, if it does: the user's-own-hook rule first,
    /// then `onFailure: "block"` (Claude Code 2.1.328 weighs them in this order). Only on an event
    /// a block can stop (its exit 2 blocks).
    pub fn failure_blocks(&self) -> Option<&'static str> {
        if self.must_succeed {
            Some(MUST_SUCCEED)
        } else if self.on_failure == OnFailure::Block {
            Some("blocking because onFailure is \"block\"")
        } else {
            None
        }
    }
}

/// Why a failed hook of the user's own blocks, in Claude Code's words (2.1.328, cases 326, 328).
const MUST_SUCCEED: &str = "blocking because it is one of the user's own hooks, which must succeed in this session (CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG is set). The user needs to fix or remove the hook; Claude should not change it.";

/// Whether a failure of `hook` on `event` blocks because it is one of the user's own hooks and
/// the session restricts personal configuration (`restricted`: Claude Code's
/// `CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG`, which hookbridge reads from its environment). Claude
/// Code 2.1.328 applies it to hooks of the user's settings that are http hooks or synchronous
/// command hooks, on the events of [`EventTraits::users_own_hooks_must_succeed`]; hookbridge's
/// user hooks are those of `~/.amplifier/hooks`.
///
/// [`EventTraits::users_own_hooks_must_succeed`]: crate::event::EventTraits::users_own_hooks_must_succeed
pub fn users_own_hook_must_succeed(
    event: &EventName,
    hook: &crate::config::HookSpec,
    restricted: bool,
) -> bool {
    use crate::config::{HookKind, Scope};
    let kind = match &hook.kind {
        HookKind::Http(_) => true,
        HookKind::Command(c) => !c.run_async && !c.async_rewake,
        _ => false,
    };
    restricted && hook.source.scope == Scope::User && kind && event.traits().users_own_hooks_must_succeed
}

/// Claude Code's message for a failure that blocks (`onFailure: "block"`, measured in cases 206
/// and 207; a user's own hook that must succeed, cases 326 and 328): `[<hook>]: timed out;
/// <because>`, or `failed; <because>` followed by what the hook said on a line of its own.
fn failure_block_message(label: &str, timed_out: bool, because: &str, detail: &str) -> String {
    let what = if timed_out { "timed out" } else { "failed" };
    let mut message = format!("[{label}]: {what}; {because}");
    let detail = detail.trim_end();
    if !detail.is_empty() {
        message.push('\n');
        message.push_str(detail);
    }
    message
}

type PermissionSlot = Option<(PermissionDecision, Option<String>, usize)>;

/// Keep the more restrictive decision. At equal rank two denies are won by the later finisher
/// (case 63) and two asks by the earlier one (cases 123, 124).
fn consider_permission(
    slot: &mut PermissionSlot,
    p: PermissionDecision,
    reason: Option<String>,
    hook: usize,
) {
    match slot {
        Some((current, _, _)) if *current > p => {}
        Some((current, _, _)) if *current == p && p == PermissionDecision::Ask => {}
        _ => *slot = Some((p, reason, hook)),
    }
}

/// Merge every hook's answer for `event`. `answers` are in declaration order; completion order is
/// read from each answer's `finish_order`.
pub fn merge(event: &EventName, answers: &[AnsweredHook]) -> EventDecision {
    let traits = event.traits();
    let mut order: Vec<usize> = (0..answers.len()).collect();
    order.sort_by_key(|&i| (answers[i].finish_order, i));

    let mut m = Merger {
        event,
        d: EventDecision::default(),
        permission: None,
    };
    for &i in &order {
        let a = &answers[i];
        if a.on_failure == OnFailure::Ignore && !a.must_succeed && a.answer.is_failure() {
            // `on_failure: ignore`: the failure stays in the hook's report and the log only.
            continue;
        }
        m.take(i, a, &traits);
    }
    let mut d = m.d;
    if let Some((p, reason, _)) = m.permission {
        d.permission = Some(p);
        if p != PermissionDecision::Deny {
            d.permission_reason = reason;
        }
    }
    d
}

impl Merger<'_> {
    /// Hook `i`'s answer, taken in completion order.
    fn take(&mut self, i: usize, a: &AnsweredHook, traits: &EventTraits) {
        let fo = a.finish_order;
        // Where the hook's `onFailure: block` turns its failure into a block, why.
        let failure_blocks = || a.failure_blocks().filter(|_| traits.exit2_blocks);
        match &a.answer {
            HookAnswer::Blocking { stderr, json } => self.exit_two(i, fo, stderr, json.as_deref(), traits),
            HookAnswer::NonBlockingError { code, stderr } => match failure_blocks() {
                Some(because) => {
                    let message = failure_block_message(&a.label, false, because, stderr);
                    self.block(BlockingSource::Failure { message }, i, fo);
                }
                None => {
                    self.d.last_error_code = Some(code.unwrap_or(1));
                    let what =
                        code.map_or_else(|| "was killed".to_string(), |c| format!("exited with code {c}"));
                    self.problem(i, format!("{what}: {}", stderr.trim_end()));
                }
            },
            HookAnswer::NoVerdict { why } => {
                match failure_blocks().filter(|_| *why != NoVerdictReason::InBackground) {
                    Some(because) => {
                        let timed_out = *why == NoVerdictReason::TimedOut;
                        let detail = if timed_out { String::new() } else { why.to_string() };
                        let message = failure_block_message(&a.label, timed_out, because, &detail);
                        self.block(BlockingSource::Failure { message }, i, fo);
                    }
                    None => self.problem(i, why.to_string()),
                }
            }
            HookAnswer::Rejected {
                label,
                reason,
                stops_turn,
            } => {
                let source = BlockingSource::Verdict {
                    label: label.clone(),
                    reason: reason.clone(),
                };
                self.block(source, i, fo);
                if *stops_turn {
                    self.d.stop = Some(StopRequest::because(reason));
                }
            }
            HookAnswer::Denied { reason } => {
                let source = BlockingSource::Decision {
                    reason: Some(reason.clone()),
                };
                self.block(source, i, fo);
            }
            HookAnswer::Stopped { reason } => self.d.stop = Some(StopRequest::because(reason)),
            HookAnswer::Failed(failure) => match failure_blocks() {
                Some(because) => {
                    let message = failure_block_message(&a.label, false, because, &failure.message);
                    self.block(BlockingSource::Failure { message }, i, fo);
                }
                None => {
                    self.d.last_error_code = Some(1);
                    self.problem(i, failure.message.clone());
                }
            },
            HookAnswer::Output(HookOutput::Empty) => {}
            // An answer that could not be read: a failure of the hook, which `onFailure: block`
            // turns into a block (red-team pass 13: a deny whose JSON broke on the command it
            // quoted was let through). Not for the user's own hooks under
            // CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG: Claude Code reads such stdout as text.
            HookAnswer::Output(HookOutput::Dropped(why)) => {
                match failure_blocks().filter(|_| a.on_failure == OnFailure::Block) {
                    Some(because) => {
                        let message = failure_block_message(&a.label, false, because, why);
                        self.block(BlockingSource::Failure { message }, i, fo);
                    }
                    None => self.problem(i, why.clone()),
                }
            }
            HookAnswer::Output(HookOutput::Plain(text)) => {
                if traits.plain_stdout_is_context {
                    self.d.contexts.push(Context {
                        kind: ContextKind::PlainStdout,
                        text: text.clone(),
                        hook: i,
                        finish_order: fo,
                    });
                }
            }
            HookAnswer::Output(HookOutput::Json(json)) => self.json(json, i, fo),
        }
    }

    /// An exit 2: a block where the event can be blocked (its reason the JSON's, if stdout has
    /// one, else stderr), a notice where it cannot.
    fn exit_two(&mut self, i: usize, fo: usize, stderr: &str, json: Option<&HookJson>, traits: &EventTraits) {
        if !traits.exit2_blocks {
            self.d.notices.push(Problem {
                hook: i,
                message: stderr.to_string(),
            });
            return;
        }
        let source = match json.and_then(|j| self.block_reason(j)) {
            Some(reason) => BlockingSource::Decision { reason: Some(reason) },
            None => BlockingSource::ExitCode {
                stderr: stderr.to_string(),
            },
        };
        self.block(source, i, fo);
        if let Some(json) = json {
            self.contexts_of(json, i, fo);
        }
    }

    /// A non-blocking problem of hook `i`, for the user.
    fn problem(&mut self, i: usize, message: String) {
        self.d.problems.push(Problem { hook: i, message });
    }
}

struct Merger<'e> {
    event: &'e EventName,
    d: EventDecision,
    permission: PermissionSlot,
}

impl Merger<'_> {
    fn is_permission_event(&self) -> bool {
        self.event.traits().decides_permission
    }

    fn block(&mut self, source: BlockingSource, hook: usize, finish_order: usize) {
        let b = Blocking {
            source,
            hook,
            finish_order,
        };
        self.d.blocks.push(b.clone());
        self.d.blocking = Some(b);
        if self.is_permission_event() {
            consider_permission(&mut self.permission, PermissionDecision::Deny, None, hook);
        }
    }

    /// The reason of a JSON block or deny, if the answer makes one (`Some("")` never: an absent
    /// reason is `None`, which Claude Code renders with its own default text).
    fn block_reason(&self, json: &HookJson) -> Option<String> {
        if self.is_permission_event() {
            if json.permission_decision() == Some(PermissionDecision::Deny) {
                return json.permission_decision_reason().map(str::to_string);
            }
            if json.permission_decision().is_none() && json.decision == Some(TopDecision::Block) {
                return json.reason.clone();
            }
            return None;
        }
        if json.decision == Some(TopDecision::Block) {
            return json.reason.clone();
        }
        None
    }

    /// PermissionRequest's `decision` where this event reads it (PreSkillShellCommand): a deny
    /// denies with its `message`; an allow that changes permissions denies, since nothing can be
    /// granted there (Claude Code 2.1.332's words, case 300); a plain allow allows.
    fn request_decision_as_permission(
        &self,
        json: &HookJson,
    ) -> (Option<PermissionDecision>, Option<String>) {
        let Some(decision) = json
            .request_decision()
            .filter(|_| self.event.traits().answers_also_as.contains(&"PermissionRequest"))
        else {
            return (None, None);
        };
        let message = decision
            .raw
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_string);
        if !decision.allow {
            (Some(PermissionDecision::Deny), message)
        } else if decision.raw.contains_key("updatedPermissions") {
            let why = "the hook asked to change permissions, which isn't supported here";
            (Some(PermissionDecision::Deny), Some(why.to_string()))
        } else {
            (Some(PermissionDecision::Allow), None)
        }
    }

    fn contexts_of(&mut self, json: &HookJson, i: usize, fo: usize) {
        if let Some(ctx) = json.additional_context() {
            self.d.contexts.push(Context {
                kind: ContextKind::AdditionalContext,
                text: ctx.to_string(),
                hook: i,
                finish_order: fo,
            });
        }
        if let Some(ctx) = &json.context_injection {
            self.d.contexts.push(Context {
                kind: ContextKind::ContextInjection,
                text: ctx.clone(),
                hook: i,
                finish_order: fo,
            });
        }
    }

    fn json(&mut self, json: &HookJson, i: usize, fo: usize) {
        let traits = self.event.traits();
        if json.continue_ == Some(false) {
            self.d.stop = Some(StopRequest {
                reason: json.stop_reason.clone(),
            });
        }
        if json.suppress_output == Some(true) {
            self.d.suppress_output = true;
        }
        if let Some(msg) = &json.system_message {
            self.d.system_messages.push(msg.clone());
        }
        if self.is_permission_event() {
            let specific = json.permission_decision();
            let legacy = match json.decision {
                Some(TopDecision::Approve) => Some(PermissionDecision::Allow),
                Some(TopDecision::Block) => Some(PermissionDecision::Deny),
                _ => None,
            };
            let (decision, reason) = match (specific, legacy) {
                (Some(p), _) => (Some(p), json.permission_decision_reason().map(str::to_string)),
                (None, Some(p)) => (Some(p), json.reason.clone()),
                (None, None) => self.request_decision_as_permission(json),
            };
            match decision {
                Some(PermissionDecision::Deny) => self.block(BlockingSource::Decision { reason }, i, fo),
                Some(p) => consider_permission(&mut self.permission, p, reason, i),
                None => {}
            }
        } else if *self.event == EventName::PermissionRequest {
            // The first hook to decide wins, allow or deny (cases 119, 120).
            if self.d.permission_request.is_none() {
                if let Some(decision) = json.request_decision() {
                    self.d.permission_request = Some(decision.clone());
                }
            }
        } else if json.decision == Some(TopDecision::Block) && traits.exit2_blocks {
            self.block(
                BlockingSource::Decision {
                    reason: json.reason.clone(),
                },
                i,
                fo,
            );
        }
        if let Some(u) = json.updated_input() {
            self.d.updated_input = Some(Value::Object(u.clone()));
        }
        self.contexts_of(json, i, fo);
        if let Some(n) = &json.new_content {
            self.d.new_content = Some(n.clone());
        }
        if let Some(specific) = &json.specific {
            for (k, v) in &specific.other {
                self.d.other_specific.insert(k.clone(), v.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::answer::HookJson;
    use serde_json::json;

    fn json_answer(event: &EventName, v: Value, finish_order: usize) -> AnsweredHook {
        let Value::Object(map) = v else { panic!() };
        AnsweredHook {
            answer: HookAnswer::Output(HookOutput::Json(Box::new(HookJson::from_object(event, map)))),
            finish_order,
            on_failure: OnFailure::Continue,
            label: "CMD".into(),
            must_succeed: false,
        }
    }

    fn answer(a: HookAnswer, finish_order: usize) -> AnsweredHook {
        AnsweredHook {
            answer: a,
            finish_order,
            on_failure: OnFailure::Continue,
            label: "CMD".into(),
            must_succeed: false,
        }
    }

    fn pre(decision: &str, reason: &str, order: usize) -> AnsweredHook {
        json_answer(
            &EventName::PreToolUse,
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision, "permissionDecisionReason": reason}}),
            order,
        )
    }

    /// Cases 62 and 63: deny beats allow, ask beats allow; of two denies the later finisher speaks.
    #[test]
    fn most_restrictive_permission_wins_and_last_deny_speaks() {
        let e = EventName::PreToolUse;
        let d = merge(&e, &[pre("allow", "a", 0), pre("deny", "B-denies", 1)]);
        assert_eq!(d.permission, Some(PermissionDecision::Deny));
        assert_eq!(d.blocking.unwrap().message(), "B-denies");
        let d = merge(&e, &[pre("allow", "a", 1), pre("ask", "W-ask", 0)]);
        assert_eq!(d.permission, Some(PermissionDecision::Ask));
        assert_eq!(d.permission_reason.as_deref(), Some("W-ask"));
        let d = merge(
            &e,
            &[pre("deny", "deny-two-slow", 1), pre("deny", "deny-two-fast", 0)],
        );
        assert_eq!(d.blocking.unwrap().message(), "deny-two-slow");
        let d = merge(&e, &[pre("defer", "", 0), pre("ask", "", 1)]);
        assert_eq!(d.permission, Some(PermissionDecision::Defer));
        let d = merge(&e, &[pre("ask", "ask-A", 1), pre("ask", "ask-B", 0)]);
        assert_eq!(
            d.permission_reason.as_deref(),
            Some("ask-B"),
            "of two asks the first to finish speaks"
        );
    }

    /// Case 65: among exit-2 hooks the last to finish is shown.
    #[test]
    fn last_exit_two_wins() {
        let e = EventName::PreToolUse;
        let d = merge(
            &e,
            &[
                answer(
                    HookAnswer::Blocking {
                        stderr: "err-A-slow\n".into(),
                        json: None,
                    },
                    1,
                ),
                answer(
                    HookAnswer::Blocking {
                        stderr: "err-B-fast\n".into(),
                        json: None,
                    },
                    0,
                ),
            ],
        );
        assert_eq!(
            d.blocking.unwrap().source,
            BlockingSource::ExitCode {
                stderr: "err-A-slow\n".into()
            }
        );
    }

    /// Case 64: contexts are kept in completion order.
    #[test]
    fn contexts_in_completion_order() {
        let e = EventName::PostToolUse;
        let ctx = |c: &str, o| {
            json_answer(
                &e,
                json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": c}, "systemMessage": format!("SYS-{c}")}),
                o,
            )
        };
        let d = merge(&e, &[ctx("CTX-A", 1), ctx("CTX-B", 0)]);
        let texts: Vec<_> = d.contexts.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(texts, vec!["CTX-B", "CTX-A"]);
        assert_eq!(d.system_messages, vec!["SYS-CTX-B", "SYS-CTX-A"]);
    }

    #[test]
    fn plain_stdout_is_context_only_where_claude_code_uses_it() {
        let plain = |o| answer(HookAnswer::Output(HookOutput::Plain("hello\n".into())), o);
        assert_eq!(merge(&EventName::UserPromptSubmit, &[plain(0)]).contexts.len(), 1);
        assert_eq!(merge(&EventName::SessionStart, &[plain(0)]).contexts.len(), 1);
        assert!(merge(&EventName::PreToolUse, &[plain(0)]).contexts.is_empty());
        assert!(merge(&EventName::Stop, &[plain(0)]).contexts.is_empty());
    }

    /// Cases 101 and 147: on exit 2 a JSON reason replaces stderr, and JSON context still counts.
    #[test]
    fn exit_two_reads_json_reason_and_context() {
        let e = EventName::PreToolUse;
        let Value::Object(j) = json!({"decision": "block", "reason": "R-stdout", "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "C"}})
        else {
            panic!()
        };
        let a = answer(
            HookAnswer::Blocking {
                stderr: "E".into(),
                json: Some(Box::new(HookJson::from_object(&e, j))),
            },
            0,
        );
        let d = merge(&e, &[a]);
        assert_eq!(
            d.blocking.unwrap().source,
            BlockingSource::Decision {
                reason: Some("R-stdout".into())
            }
        );
        assert_eq!(d.contexts[0].text, "C");
    }

    #[test]
    fn exit_two_on_notice_events_does_not_block() {
        let d = merge(
            &EventName::SessionStart,
            &[answer(
                HookAnswer::Blocking {
                    stderr: "x".into(),
                    json: None,
                },
                0,
            )],
        );
        assert!(d.blocking.is_none());
        assert_eq!(d.notices.len(), 1);
    }

    #[test]
    fn updated_input_last_finisher_wins_and_legacy_fields_map() {
        let e = EventName::PreToolUse;
        let upd = |c: &str, o| {
            json_answer(
                &e,
                json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": c}}}),
                o,
            )
        };
        let d = merge(&e, &[upd("slow", 1), upd("fast", 0)]);
        assert_eq!(d.updated_input, Some(json!({"command": "slow"})));
        assert_eq!(d.permission, None);
        let legacy = merge(
            &e,
            &[json_answer(
                &e,
                json!({"decision": "block", "reason": "legacy-block-reason"}),
                0,
            )],
        );
        assert_eq!(legacy.blocking.unwrap().message(), "legacy-block-reason");
        let approve = merge(&e, &[json_answer(&e, json!({"decision": "approve"}), 0)]);
        assert_eq!(approve.permission, Some(PermissionDecision::Allow));
    }

    #[test]
    fn permission_request_deny_beats_allow() {
        let e = EventName::PermissionRequest;
        let req = |b: &str, o| {
            json_answer(
                &e,
                json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": b, "message": b}}}),
                o,
            )
        };
        let d = merge(&e, &[req("deny", 0), req("allow", 1)]);
        let raw = |d: EventDecision| d.permission_request.map(|r| Value::Object(r.raw));
        assert_eq!(raw(d), Some(json!({"behavior": "deny", "message": "deny"})));
        let d = merge(&e, &[req("deny", 1), req("allow", 0)]);
        assert_eq!(
            raw(d),
            Some(json!({"behavior": "allow", "message": "allow"})),
            "first to decide wins"
        );
        let ignored = merge(
            &e,
            &[answer(
                HookAnswer::Blocking {
                    stderr: "x".into(),
                    json: None,
                },
                0,
            )],
        );
        assert!(
            ignored.blocking.is_none(),
            "PermissionRequest ignores exit 2 (case 28)"
        );
    }

    #[test]
    fn continue_false_and_failures() {
        let e = EventName::PostToolUse;
        let d = merge(
            &e,
            &[
                json_answer(&e, json!({"continue": false, "stopReason": "halt"}), 0),
                answer(
                    HookAnswer::NonBlockingError {
                        code: Some(1),
                        stderr: "oops".into(),
                    },
                    1,
                ),
                answer(
                    HookAnswer::NoVerdict {
                        why: NoVerdictReason::TimedOut,
                    },
                    2,
                ),
            ],
        );
        assert_eq!(d.stop, Some(StopRequest::because("halt")));
        assert_eq!(d.problems.len(), 2);
        assert_eq!(d.last_error_code, Some(1));
        let strict = AnsweredHook {
            on_failure: OnFailure::Block,
            ..answer(
                HookAnswer::NoVerdict {
                    why: NoVerdictReason::TimedOut,
                },
                0,
            )
        };
        assert!(merge(&EventName::PreToolUse, &[strict]).blocking.is_some());
    }

    /// Red-team pass 13: an answer that could not be read (JSON cut by the command it quoted) is
    /// a failure, which `onFailure: "block"` turns into a block; with `continue` it stays a
    /// problem, and so it does for a hook that must succeed (Claude Code reads it as text).
    #[test]
    fn an_unreadable_answer_blocks_under_on_failure_block() {
        let dropped = |on_failure, must_succeed| AnsweredHook {
            on_failure,
            must_succeed,
            ..answer(
                HookAnswer::Output(HookOutput::Dropped("not valid JSON".into())),
                0,
            )
        };
        let d = merge(&EventName::PreToolUse, &[dropped(OnFailure::Block, false)]);
        let blocking = d.blocking.expect("blocked");
        assert!(
            matches!(&blocking.source, BlockingSource::Failure { message } if message.contains("onFailure is \"block\"") && message.contains("not valid JSON")),
            "{blocking:?}"
        );
        for (on_failure, must_succeed) in [(OnFailure::Continue, false), (OnFailure::Continue, true)] {
            let d = merge(&EventName::PreToolUse, &[dropped(on_failure, must_succeed)]);
            assert!(d.blocking.is_none() && d.problems.len() == 1, "{d:?}");
        }
    }

    /// A user's own hook that must succeed blocks on failure even with the seed's `ignore`, and
    /// says why in Claude Code's words; the same hook not bound to succeed stays silent.
    #[test]
    fn a_hook_that_must_succeed_blocks_on_failure_whatever_its_on_failure() {
        let failed = |must_succeed| AnsweredHook {
            on_failure: OnFailure::Ignore,
            must_succeed,
            ..answer(
                HookAnswer::NonBlockingError {
                    code: Some(1),
                    stderr: "broke\n".into(),
                },
                0,
            )
        };
        let d = merge(&EventName::UserPromptSubmit, &[failed(true)]);
        let blocking = d.blocking.expect("blocked");
        assert_eq!(
            blocking.source,
            BlockingSource::Failure {
                message: format!("[CMD]: failed; {MUST_SUCCEED}\nbroke")
            }
        );
        let d = merge(&EventName::UserPromptSubmit, &[failed(false)]);
        assert!(d.blocking.is_none() && d.problems.is_empty(), "{d:?}");
    }

    /// Claude Code 2.1.332, case 300: a PreSkillShellCommand hook may answer in PreToolUse's or
    /// PermissionRequest's form; in the latter a deny denies with its message and an allow that
    /// changes permissions denies too; another event's form is not read.
    #[test]
    fn a_skill_command_hook_answers_in_the_forms_claude_code_reads() {
        let e = EventName::PreSkillShellCommand;
        let one = |v: Value| merge(&e, &[json_answer(&e, v, 0)]);
        let d = one(
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "pre-R"}}),
        );
        assert_eq!(d.blocking.unwrap().message(), "pre-R");
        let d = one(
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "M"}}}),
        );
        assert_eq!(d.permission, Some(PermissionDecision::Deny));
        assert_eq!(d.blocking.unwrap().message(), "M");
        let d = one(
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedPermissions": []}}}),
        );
        assert_eq!(
            d.blocking.unwrap().message(),
            "the hook asked to change permissions, which isn't supported here"
        );
        let d = one(
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}),
        );
        assert_eq!(
            (d.blocking, d.permission),
            (None, Some(PermissionDecision::Allow))
        );
        for (name, decision) in [("UserPromptSubmit", "deny"), ("PostToolUse", "deny")] {
            let d =
                one(json!({"hookSpecificOutput": {"hookEventName": name, "permissionDecision": decision}}));
            assert_eq!(
                (d.blocking, d.permission),
                (None, None),
                "{name}'s form is not read"
            );
        }
        // PreToolUse itself does not read PermissionRequest's form.
        let pre = EventName::PreToolUse;
        let d = merge(
            &pre,
            &[json_answer(
                &pre,
                json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "M"}}}),
                0,
            )],
        );
        assert_eq!(d.blocking, None);
    }
}
