//! Rendering one merged decision as the answer of a single Claude Code hook.
//!
//! When `hookbridge run` is Claude Code's only hook, Claude Code must act exactly as if every
//! dispatched hook had answered it directly. One hook can give one exit code, one stdout and one
//! stderr, so the renderer picks the form Claude Code renders identically:
//! - a block from exit 2 is passed on as exit 2 with that hook's stderr (Claude Code then shows
//!   `[command]: stderr`, as for the original hook); a JSON block is passed on as JSON;
//! - several contexts become one text: Claude Code labels each hook's context
//!   (`PostToolUse:Bash hook additional context: …`) and joins them with a blank line, so the first
//!   context is emitted bare and each further one carries the label Claude Code would have put in
//!   front of it — the model reads the same text (conformance case 64);
//! - plain stdout stays plain when it comes first and nothing else needs JSON, so it keeps its
//!   `hook success:` label.

use std::borrow::Cow;

use crate::event::EventName;

use super::answer::{HookJson, PermissionDecision, SpecificOutput, TopDecision};
use super::merge::{Blocking, BlockingSource, Context, ContextKind, EventDecision};

/// What `hookbridge run` prints and exits with (and, serialized, the `answer` of its report).
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct ClaudeAnswer {
    pub exit_code: i32,
    pub stdout: Stdout,
    pub stderr: String,
}

/// What an answer prints on stdout: text as it is (plain context, another agent's own answer), or
/// Claude Code's JSON answer as a value, which a host may still fit and which is serialized only
/// here, at the edge ([`Stdout::text`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Stdout {
    Text(String),
    Json(Box<HookJson>),
}

impl Default for Stdout {
    fn default() -> Stdout {
        Stdout::Text(String::new())
    }
}

impl From<String> for Stdout {
    fn from(text: String) -> Stdout {
        Stdout::Text(text)
    }
}

impl From<HookJson> for Stdout {
    /// The JSON answer, or nothing when it says nothing.
    fn from(json: HookJson) -> Stdout {
        if json.says_nothing() {
            Stdout::default()
        } else {
            Stdout::Json(Box::new(json))
        }
    }
}

impl Stdout {
    /// The bytes printed, as text.
    pub fn text(&self) -> Cow<'_, str> {
        match self {
            Stdout::Text(text) => Cow::Borrowed(text),
            Stdout::Json(json) => Cow::Owned(serde_json::to_string(json).expect("a JSON answer serializes")),
        }
    }

    /// The JSON answer, if it is one.
    pub fn json(&self) -> Option<&HookJson> {
        match self {
            Stdout::Json(json) => Some(json),
            Stdout::Text(_) => None,
        }
    }

    /// Serialized now, a JSON answer as one line ending in a newline (as the async channel and
    /// the Codex host print it); text as it is.
    pub fn into_line(self) -> Stdout {
        match self {
            Stdout::Json(_) => Stdout::Text(format!("{}\n", self.text())),
            text => text,
        }
    }

    /// Whether nothing is printed.
    pub fn is_empty(&self) -> bool {
        matches!(self, Stdout::Text(text) if text.is_empty())
    }
}

impl std::fmt::Display for Stdout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text())
    }
}

impl serde::Serialize for Stdout {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text())
    }
}

/// Claude Code's label for a hook's plain-stdout context: `SessionStart:startup hook success: `.
/// The one definition, also used by the Amplifier translation.
pub fn success_label(event: &EventName, match_query: Option<&str>) -> String {
    match match_query.filter(|q| !q.is_empty()) {
        Some(q) => format!("{event}:{q} hook success: "),
        None => format!("{event} hook success: "),
    }
}

/// `PostToolUse:Bash` on tool events, `Stop` elsewhere: the name Claude Code gives a hook run.
fn display_name(event: &EventName, match_query: Option<&str>) -> String {
    match match_query.filter(|q| !q.is_empty() && event.traits().is_tool_event) {
        Some(tool) => format!("{event}:{tool}"),
        None => event.to_string(),
    }
}

/// Claude Code's label for `additionalContext`: `PostToolUse:Bash hook additional context: ` on tool
/// events, `SessionStart hook additional context: ` elsewhere (measured: golden cases with
/// SessionStart and Stop contexts). The one definition, also used by the Amplifier translation.
pub fn context_label(event: &EventName, match_query: Option<&str>) -> String {
    format!("{} hook additional context: ", display_name(event, match_query))
}

/// Texts of several pieces joined the way Claude Code joins several hooks' texts: a blank line
/// between pieces, each piece after the first carrying its own label.
fn join_labelled(pieces: &[(String, &str)]) -> String {
    let mut text = String::new();
    for (i, (label, piece)) in pieces.iter().enumerate() {
        if i > 0 {
            text.push_str("\n\n");
            text.push_str(label);
        }
        text.push_str(piece);
    }
    text
}

fn plain_piece(c: &Context) -> &str {
    // Claude Code trims a hook's plain stdout; additionalContext is used as given (case 137).
    match c.kind {
        ContextKind::PlainStdout => c.text.trim_end_matches(['\n', '\r']),
        _ => &c.text,
    }
}

struct Renderer<'a> {
    event: &'a EventName,
    query: Option<&'a str>,
    decision: &'a EventDecision,
    /// The command Claude Code ran to start hookbridge, used where it names a further hook.
    own_command: &'a str,
    out: HookJson,
    specific: SpecificOutput,
}

/// Render `decision` for Claude Code. `match_query` is the event's match value (tool name, session
/// source, …) that Claude Code puts in its labels; `own_command` is the command line Claude Code
/// ran to start hookbridge (it names hooks in some messages: see `Renderer::feedback_event`).
pub fn render_claude(
    event: &EventName,
    match_query: Option<&str>,
    decision: &EventDecision,
    own_command: &str,
) -> ClaudeAnswer {
    let mut r = Renderer {
        event,
        query: match_query,
        decision,
        own_command,
        out: HookJson::default(),
        specific: SpecificOutput::for_event(event),
    };
    r.common_fields();
    match event {
        e if e.traits().decides_permission => r.permission_event(),
        EventName::PostToolUse | EventName::PostToolUseFailure => r.feedback_event(),
        EventName::UserPromptSubmit | EventName::UserPromptExpansion => r.prompt_event(),
        EventName::SessionStart => r.session_start(),
        EventName::PermissionRequest => {
            r.specific.request_decision = decision.permission_request.clone();
            r.finish(None)
        }
        _ => r.generic_event(),
    }
}

impl Renderer<'_> {
    fn contexts(&self) -> Vec<&Context> {
        let plain_counts = self.event.traits().plain_stdout_is_context;
        self.decision
            .contexts
            .iter()
            .filter(|c| c.kind != ContextKind::ContextInjection)
            .filter(|c| c.kind != ContextKind::PlainStdout || plain_counts)
            .collect()
    }

    fn label_of(&self, c: &Context) -> String {
        match c.kind {
            ContextKind::PlainStdout => success_label(self.event, self.query),
            _ => context_label(self.event, self.query),
        }
    }

    fn joined_contexts(&self, contexts: &[&Context]) -> String {
        let pieces: Vec<(String, &str)> = contexts
            .iter()
            .map(|c| (self.label_of(c), plain_piece(c)))
            .collect();
        join_labelled(&pieces)
    }

    /// Fields every event passes through: continue/stopReason, systemMessage, suppressOutput,
    /// updatedInput and hook-specific fields hookbridge does not model itself.
    fn common_fields(&mut self) {
        let d = self.decision;
        if let Some(stop) = &d.stop {
            self.out.continue_ = Some(false);
            self.out.stop_reason = stop.reason.clone();
        }
        if !d.system_messages.is_empty() {
            self.out.system_message = Some(d.system_messages.join("\n"));
        }
        if d.suppress_output {
            self.out.suppress_output = Some(true);
        }
        self.specific.updated_input = d.updated_input.as_ref().and_then(|u| u.as_object()).cloned();
        self.specific.other = d.other_specific.clone();
    }

    /// The answer: JSON if anything needs JSON, else `exit 2` for a notice, the last error code, or
    /// silence. `exit2_stderr` forwards an exit-2 block (JSON may ride along on stdout).
    fn finish(mut self, exit2_stderr: Option<&str>) -> ClaudeAnswer {
        if !self.specific.is_empty() {
            self.out.specific = Some(std::mem::take(&mut self.specific));
        }
        let stdout = Stdout::from(std::mem::take(&mut self.out));
        if let Some(stderr) = exit2_stderr {
            return ClaudeAnswer {
                exit_code: 2,
                stdout,
                stderr: stderr.to_string(),
            };
        }
        if !stdout.is_empty() {
            return ClaudeAnswer {
                exit_code: 0,
                stdout,
                stderr: String::new(),
            };
        }
        if let Some(notice) = self.decision.notices.last() {
            // Exit 2 where it is only a notice (SessionStart, SessionEnd, …): pass the notice on.
            return ClaudeAnswer {
                exit_code: 2,
                stdout: Stdout::default(),
                stderr: notice.message.clone(),
            };
        }
        if let Some(code) = self.decision.last_error_code {
            let stderr = self
                .decision
                .problems
                .last()
                .map(|p| p.message.clone())
                .unwrap_or_default();
            let exit_code = if code == 0 || code == 2 { 1 } else { code };
            return ClaudeAnswer {
                exit_code,
                stdout: Stdout::default(),
                stderr,
            };
        }
        ClaudeAnswer::default()
    }

    /// Contexts as `additionalContext`, first bare, the rest labelled.
    fn contexts_as_json(&mut self) {
        let contexts = self.contexts();
        if !contexts.is_empty() {
            self.specific.additional_context = Some(self.joined_contexts(&contexts));
        }
    }

    /// A block answered as one hook would: exit 2 + stderr, or a JSON block/deny with its reason.
    fn block_answer(mut self, blocking: &Blocking) -> ClaudeAnswer {
        let permission_event = self.event.traits().decides_permission;
        match &blocking.source {
            BlockingSource::ExitCode { stderr } => {
                let stderr = stderr.clone();
                self.finish(Some(&stderr))
            }
            BlockingSource::Decision { reason } => {
                self.json_block(permission_event, reason.as_deref());
                self.finish(None)
            }
            BlockingSource::Failure { message } => {
                self.json_block(permission_event, Some(message));
                self.finish(None)
            }
            // A judge's `ok: false` reads like an exit-2 block; where it also ends the turn, exit 2
            // cannot carry `continue: false`, so it becomes a JSON block naming the judge as
            // Claude Code does (`[<prompt>]: <reason>`, cases 83, 202).
            BlockingSource::Verdict { label, reason } => {
                if self.decision.stop.is_some() {
                    let reason = format!("[{label}]: {reason}");
                    self.json_block(permission_event, Some(&reason));
                    self.finish(None)
                } else {
                    let reason = reason.clone();
                    self.finish(Some(&reason))
                }
            }
        }
    }

    fn json_block(&mut self, permission_event: bool, reason: Option<&str>) {
        if permission_event {
            self.specific.permission_decision = Some(PermissionDecision::Deny);
            self.specific.permission_decision_reason = reason.map(str::to_string);
        } else {
            self.out.decision = Some(TopDecision::Block);
            self.out.reason = reason.map(str::to_string);
        }
    }

    /// PreToolUse: the block shown is the last to finish; contexts of every hook still follow it
    /// (case 132), so they ride along as JSON `additionalContext`, also next to an exit 2 (case 147).
    fn permission_event(mut self) -> ClaudeAnswer {
        self.contexts_as_json();
        if let Some(blocking) = self.decision.blocking.clone() {
            return self.block_answer(&blocking);
        }
        if let Some(p) = self
            .decision
            .permission
            .filter(|p| *p != PermissionDecision::Deny)
        {
            self.specific.permission_decision = Some(p);
            self.specific.permission_decision_reason = self.decision.permission_reason.clone();
        }
        self.finish(None)
    }

    /// PostToolUse/PostToolUseFailure: Claude Code shows every block and every context of the event
    /// in ONE system message, items in completion order, a block before its own hook's context
    /// (cases 104–107). The whole text is built, then handed back through the first item's channel:
    /// exit-2 stderr, a JSON block reason, or `additionalContext`, minus the header Claude Code adds
    /// to that first item. Further items name hookbridge's own command, the command Claude Code
    /// actually ran.
    fn feedback_event(mut self) -> ClaudeAnswer {
        if self.decision.blocks.is_empty() {
            self.contexts_as_json();
            return self.finish(None);
        }
        let name = display_name(self.event, self.query);
        let cmd = self.own_command;
        enum First {
            Exit,
            Json,
            Context,
        }
        let mut items: Vec<(usize, u8, First, String, String)> = Vec::new();
        for b in &self.decision.blocks {
            let header = format!("{name} hook blocking error from command: \"{cmd}\": ");
            let (kind, body, full) = match &b.source {
                BlockingSource::ExitCode { stderr } => {
                    let body = if stderr.is_empty() {
                        "No stderr output".to_string()
                    } else {
                        stderr.clone()
                    };
                    let full = format!("{header}[{cmd}]: {body}");
                    (First::Exit, body, full)
                }
                // Claude Code names a judge by its prompt, in the header too (case 201).
                BlockingSource::Verdict { label, reason } => {
                    let full =
                        format!("{name} hook blocking error from command: \"{label}\": [{label}]: {reason}");
                    if self.decision.stop.is_some() {
                        (First::Json, format!("[{label}]: {reason}"), full)
                    } else {
                        (First::Exit, reason.clone(), full)
                    }
                }
                other => {
                    let reason = match other {
                        BlockingSource::Decision { reason } => reason.clone().unwrap_or_default(),
                        BlockingSource::Failure { message } => message.clone(),
                        BlockingSource::ExitCode { .. } | BlockingSource::Verdict { .. } => unreachable!(),
                    };
                    (First::Json, reason.clone(), format!("{header}{reason}"))
                }
            };
            items.push((b.finish_order, 0, kind, body, full));
        }
        for c in self.contexts() {
            let body = plain_piece(c).to_string();
            let full = format!("{}{body}", self.label_of(c));
            items.push((c.finish_order, 1, First::Context, body, full));
        }
        items.sort_by_key(|(fo, rank, ..)| (*fo, *rank));
        let mut text = items[0].3.clone();
        for item in &items[1..] {
            text.push_str("\n\n");
            text.push_str(&item.4);
        }
        match items[0].2 {
            First::Exit => self.finish(Some(&text)),
            First::Json => {
                self.json_block(false, Some(&text));
                self.finish(None)
            }
            First::Context => {
                self.specific.additional_context = Some(text);
                self.finish(None)
            }
        }
    }

    /// UserPromptSubmit/UserPromptExpansion: a block ends the prompt (its text alone matters);
    /// otherwise contexts are paragraphs in completion order, plain and JSON mixed, each labelled by
    /// its kind (cases 108–113): the output form is the first paragraph's kind.
    fn prompt_event(mut self) -> ClaudeAnswer {
        if let Some(blocking) = self.decision.blocking.clone() {
            return self.block_answer(&blocking);
        }
        let contexts = self.contexts();
        let plain_first = contexts
            .first()
            .is_some_and(|c| c.kind == ContextKind::PlainStdout);
        if plain_first && self.only_user_facing_json() {
            let text = self.joined_contexts(&contexts);
            return ClaudeAnswer {
                exit_code: 0,
                stdout: Stdout::Text(text),
                stderr: String::new(),
            };
        }
        self.contexts_as_json();
        self.finish(None)
    }

    /// True when the JSON fields collected so far only matter to the user (systemMessage,
    /// suppressOutput) — plain text can then carry the model-visible part unchanged.
    fn only_user_facing_json(&self) -> bool {
        let HookJson {
            continue_,
            stop_reason,
            decision,
            reason,
            specific,
            ..
        } = &self.out;
        self.specific.is_empty()
            && continue_.is_none()
            && stop_reason.is_none()
            && decision.is_none()
            && reason.is_none()
            && specific.is_none()
    }

    /// SessionStart: plain paragraphs first, in completion order, then ONE paragraph
    /// `SessionStart hook additional context: C1\nC2` (cases 129–143); exit-2 hooks add nothing.
    fn session_start(mut self) -> ClaudeAnswer {
        let contexts = self.contexts();
        let plain: Vec<&Context> = contexts
            .iter()
            .copied()
            .filter(|c| c.kind == ContextKind::PlainStdout)
            .collect();
        let json_ctx: Vec<&str> = contexts
            .iter()
            .filter(|c| c.kind != ContextKind::PlainStdout)
            .map(|c| c.text.as_str())
            .collect();
        let json_text = json_ctx.join("\n");
        if !plain.is_empty() && self.only_user_facing_json() {
            let mut text = self.joined_contexts(&plain);
            if !json_ctx.is_empty() {
                text.push_str("\n\n");
                text.push_str(&context_label(self.event, self.query));
                text.push_str(&json_text);
            }
            return ClaudeAnswer {
                exit_code: 0,
                stdout: Stdout::Text(text),
                stderr: String::new(),
            };
        }
        if !contexts.is_empty() {
            let text = if plain.is_empty() {
                json_text
            } else {
                let mut t = self.joined_contexts(&plain);
                if !json_ctx.is_empty() {
                    t.push_str("\n\n");
                    t.push_str(&context_label(self.event, self.query));
                    t.push_str(&json_text);
                }
                t
            };
            self.specific.additional_context = Some(text);
        }
        self.finish(None)
    }

    /// Stop, SubagentStop and every other event: one block (exit 2 + stderr, or a JSON block) with
    /// the contexts riding along as JSON (cases 133, 138, 147), or the contexts alone, joined as
    /// Claude Code joins several hooks' contexts (cases 117, 139).
    fn generic_event(mut self) -> ClaudeAnswer {
        self.contexts_as_json();
        if let Some(blocking) = self.decision.blocking.clone() {
            return self.block_answer(&blocking);
        }
        self.finish(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::merge::Problem;
    use serde_json::{json, Value};

    const HB: &str = "hookbridge run --event X";

    fn ctx(kind: ContextKind, text: &str, finish_order: usize) -> Context {
        Context {
            kind,
            text: text.into(),
            hook: finish_order,
            finish_order,
        }
    }

    fn block(source: BlockingSource, finish_order: usize) -> Blocking {
        Blocking {
            source,
            hook: finish_order,
            finish_order,
        }
    }

    fn render(event: EventName, query: Option<&str>, d: &EventDecision) -> ClaudeAnswer {
        render_claude(&event, query, d, HB)
    }

    fn json_of(a: &ClaudeAnswer) -> Value {
        serde_json::from_str(&a.stdout.text()).unwrap()
    }

    #[test]
    fn exit_two_blocks_pass_through() {
        let b = block(
            BlockingSource::ExitCode {
                stderr: "nope\n".into(),
            },
            0,
        );
        let d = EventDecision {
            blocking: Some(b.clone()),
            blocks: vec![b],
            ..Default::default()
        };
        let a = render(EventName::PreToolUse, Some("Bash"), &d);
        assert_eq!(
            a,
            ClaudeAnswer {
                exit_code: 2,
                stdout: Stdout::default(),
                stderr: "nope\n".into()
            }
        );
    }

    #[test]
    fn a_pre_tool_block_keeps_sibling_contexts_as_json() {
        let b = block(
            BlockingSource::ExitCode {
                stderr: "no\n".into(),
            },
            1,
        );
        let d = EventDecision {
            blocking: Some(b.clone()),
            blocks: vec![b],
            contexts: vec![ctx(ContextKind::AdditionalContext, "PRE-CTX-C", 0)],
            ..Default::default()
        };
        let a = render(EventName::PreToolUse, Some("Bash"), &d);
        assert_eq!(a.exit_code, 2);
        assert_eq!(
            json_of(&a)["hookSpecificOutput"]["additionalContext"],
            json!("PRE-CTX-C")
        );
    }

    #[test]
    fn two_contexts_render_as_claude_code_would_show_two_hooks() {
        let d = EventDecision {
            contexts: vec![
                ctx(ContextKind::AdditionalContext, "CTX-B", 0),
                ctx(ContextKind::AdditionalContext, "CTX-A", 1),
            ],
            ..Default::default()
        };
        let v = json_of(&render(EventName::PostToolUse, Some("Bash"), &d));
        assert_eq!(
            v["hookSpecificOutput"]["additionalContext"],
            json!("CTX-B\n\nPostToolUse:Bash hook additional context: CTX-A")
        );
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], json!("PostToolUse"));
    }

    /// Cases 104 and 106: every block and context of a PostToolUse in one text, completion order.
    #[test]
    fn post_tool_blocks_and_contexts_become_one_text() {
        let b1 = block(
            BlockingSource::ExitCode {
                stderr: "B-fast\n".into(),
            },
            0,
        );
        let b2 = block(
            BlockingSource::ExitCode {
                stderr: "A-slow\n".into(),
            },
            1,
        );
        let d = EventDecision {
            blocking: Some(b2.clone()),
            blocks: vec![b1, b2],
            ..Default::default()
        };
        let a = render(EventName::PostToolUse, Some("Bash"), &d);
        assert_eq!(a.exit_code, 2);
        assert_eq!(
            a.stderr,
            format!(
                "B-fast\n\n\nPostToolUse:Bash hook blocking error from command: \"{HB}\": [{HB}]: A-slow\n"
            )
        );
        let b = block(BlockingSource::ExitCode { stderr: "A\n".into() }, 1);
        let d = EventDecision {
            blocking: Some(b.clone()),
            blocks: vec![b],
            contexts: vec![ctx(ContextKind::AdditionalContext, "CTX-B", 0)],
            ..Default::default()
        };
        let v = json_of(&render(EventName::PostToolUse, Some("Bash"), &d));
        assert_eq!(
            v["hookSpecificOutput"]["additionalContext"],
            json!(format!(
                "CTX-B\n\nPostToolUse:Bash hook blocking error from command: \"{HB}\": [{HB}]: A\n"
            ))
        );
    }

    #[test]
    fn prompt_contexts_take_the_first_paragraphs_form() {
        let d = EventDecision {
            contexts: vec![
                ctx(ContextKind::PlainStdout, "UPS-B\n", 0),
                ctx(ContextKind::AdditionalContext, "UPS-A", 1),
            ],
            ..Default::default()
        };
        let a = render(EventName::UserPromptSubmit, None, &d);
        assert_eq!(
            a.stdout.text(),
            "UPS-B\n\nUserPromptSubmit hook additional context: UPS-A"
        );
        let d = EventDecision {
            contexts: vec![
                ctx(ContextKind::AdditionalContext, "J", 0),
                ctx(ContextKind::PlainStdout, "P\n", 1),
            ],
            ..Default::default()
        };
        let v = json_of(&render(EventName::UserPromptSubmit, None, &d));
        assert_eq!(
            v["hookSpecificOutput"]["additionalContext"],
            json!("J\n\nUserPromptSubmit hook success: P")
        );
    }

    /// Cases 140–143: plain paragraphs first, then one JSON-context paragraph joined by newlines.
    #[test]
    fn session_start_puts_plain_first_and_joins_json_contexts() {
        let d = EventDecision {
            contexts: vec![
                ctx(ContextKind::AdditionalContext, "C1", 0),
                ctx(ContextKind::PlainStdout, "P1\n", 1),
                ctx(ContextKind::AdditionalContext, "C2", 2),
                ctx(ContextKind::PlainStdout, "P2\n", 3),
            ],
            ..Default::default()
        };
        let a = render(EventName::SessionStart, Some("startup"), &d);
        assert_eq!(
            a.stdout.text(),
            "P1\n\nSessionStart:startup hook success: P2\n\nSessionStart hook additional context: C1\nC2"
        );
        let only_json = EventDecision {
            contexts: vec![
                ctx(ContextKind::AdditionalContext, "C1", 0),
                ctx(ContextKind::AdditionalContext, "C2", 1),
            ],
            ..Default::default()
        };
        assert_eq!(
            json_of(&render(EventName::SessionStart, Some("startup"), &only_json))["hookSpecificOutput"]
                ["additionalContext"],
            json!("C1\nC2")
        );
    }

    #[test]
    fn json_block_and_permissions() {
        let b = block(
            BlockingSource::Decision {
                reason: Some("r".into()),
            },
            0,
        );
        let d = EventDecision {
            blocking: Some(b.clone()),
            blocks: vec![b],
            permission: Some(PermissionDecision::Deny),
            ..Default::default()
        };
        assert_eq!(
            json_of(&render(EventName::PreToolUse, Some("Bash"), &d)),
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "r"}})
        );
        assert_eq!(
            json_of(&render(EventName::Stop, None, &d)),
            json!({"decision": "block", "reason": "r"})
        );
        let ask = EventDecision {
            permission: Some(PermissionDecision::Ask),
            permission_reason: Some("please".into()),
            ..Default::default()
        };
        assert_eq!(
            json_of(&render(EventName::PreToolUse, Some("Bash"), &ask))["hookSpecificOutput"]
                ["permissionDecision"],
            json!("ask")
        );
    }

    #[test]
    fn nothing_to_say_is_exit_zero_and_errors_keep_their_code() {
        assert_eq!(
            render(EventName::Stop, None, &EventDecision::default()),
            ClaudeAnswer::default()
        );
        let err = EventDecision {
            last_error_code: Some(127),
            problems: vec![Problem {
                hook: 0,
                message: "sh: x: not found".into(),
            }],
            ..Default::default()
        };
        assert_eq!(render(EventName::PreToolUse, Some("Bash"), &err).exit_code, 127);
    }
}
