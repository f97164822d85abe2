//! The merged answer of Claude Code hooks → the one `HookResult` an Amplifier handler returns.
//!
//! The one design decision: **each Claude Code outcome is mapped to the Amplifier action that
//! has the same *effect* once amplifier-core 2.0.2's registry and the orchestrators have
//! processed it, not to the action with the similar name.** The registry drops `user_message` on
//! `continue`/`modify` and drops modified data under a merged `inject_context` (spec §1.5.9); the
//! orchestrators ignore `deny` after a tool has run and ignore a modified `tool_input` (§1.9);
//! `process_hook_result` shows `user_message` for every action but `ask_user`. So a block after
//! the fact becomes feedback for the model, a lone `systemMessage` rides on an empty injection,
//! and a data change that comes with something to show rides on that injection.
//!
//!
//! Rows are applied in this order; the first of rows 1–5 that applies decides the action, rows
//! 6–9 then shape it. "Message" means `user_message` (`user_message_source = "hookbridge"`).
//!
//! | # | Claude Code outcome (after [`hookbridge_core::decision::merge`]) | HookResult |
//! |---|---|---|
//! | 1 | `continue: false` (+ `stopReason`) on an event where Claude Code honors it | On PreToolUse/PostToolUse/PostToolUseFailure the operation goes on as the other rows say (the tool runs unless a hook also denies it) and the turn ends after it, as in Claude Code (cases 44, 45, 128): the outcome's `stop_turn` asks the host to cancel gracefully (Amplifier: `coordinator.request_cancel(False)`), and `stopReason` is shown as a warning message. On UserPromptSubmit (case 46) and the other honoring events: `deny`, reason = `stopReason` (or a default), message = `stopReason` + row 9. On Stop/SubagentStop it means "do stop": it cancels a block and the result is built from rows 6–9. Ignored where Claude Code discards it (SessionStart — case 47 —, Notification, PreCompact, PostCompact, SessionEnd, StopFailure, MessageDisplay, …). |
//! | 2 | a block — exit 2 (stderr), `decision: "block"` (`reason`), PreToolUse `permissionDecision: "deny"`, `onFailure: "block"` — on `tool:post` (PostToolUse, PostToolUseFailure, SubagentStop) | no `deny` (the tool has run; the orchestrators ignore it and it would skip later handlers): the message becomes model feedback, `"<Event>:<tool> hook blocking error: <message>"`, injected as in row 6 — where Claude Code shows it too |
//! | 3 | a block on any other event (only events where Claude Code blocks: exit 2 elsewhere is a notice, row 9) | `deny`, reason = stderr / `reason` (trailing newline trimmed; a default if empty), message from row 9 with level `warning` |
//! | 4 | PermissionRequest `decision.behavior: "deny"` | `deny`, reason = `decision.message` (or a default); `"allow"` → rows 6–9 (+ `updatedInput`, row 7). `interrupt` has no Amplifier equivalent (noted) |
//! | 5 | PreToolUse `permissionDecision: "ask"` | `ask_user`: `approval_prompt` = `permissionDecisionReason` (or "A hook asks for approval before `<tool>` runs."), then the row-9 messages (ask_user's own `user_message` is never shown); `approval_options = ["Allow", "Deny"]` (the only answers `process_hook_result` grants besides "Allow once/always", which imply a cache the kernel does not keep); `approval_default = deny`; `data` = row 7's change if any. `"allow"`, legacy `decision: "approve"` and `"defer"` (no Amplifier equivalent, noted) → rows 6–9 |
//! | 6 | context: `hookSpecificOutput.additionalContext` (on the events where Claude Code reads it: SessionStart, SubagentStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, Stop, SubagentStop; elsewhere noted and dropped), plain stdout (SessionStart, UserPromptSubmit — the events where Claude Code uses it), the seed's `contextInjection` (any event), row-2 feedback | `inject_context`, role `system`, pieces in completion order joined by a blank line. Claude Code's own fields carry Claude Code's labels (`PostToolUse:Bash hook additional context: …`, `SessionStart hook additional context: …`, `SessionStart:startup hook success: …`, `Stop hook additional context: …` — measured, golden case 53 — from the one definition in `decision/claude.rs`) so the model reads what it would read there; `contextInjection` is injected verbatim. On `tool:post`: `ephemeral` + `append_to_last_tool_result` — the orchestrators queue exactly such injections and append them to the tool result on the next model call, which keeps tool call/result pairs intact (a persisted system message would land between them); the price is that the feedback is not kept in history. Elsewhere persisted (`process_hook_result` adds it to the context) |
//! | 7 | a data change: `updatedInput` (PreToolUse; PermissionRequest `decision.updatedInput`), PostToolUse `updatedToolOutput`, the seed's `newContent` | `modify` of one field, never a wholesale replacement: `data` = the event data as received (defaults, `timestamp`, `parallel_group_id` kept, because the registry chains `data` wholesale) with **`tool_input`** = the input mapped back to the Amplifier tool's fields ([`crate::tools::to_amplifier_input`]), or **`result`** = `updatedToolOutput`/`newContent` on `tool:post` (what loop-basic/loop-streaming read back), or **`prompt`** = a string `newContent` on `prompt:submit`; `newContent` on `tool:pre` is the new input when an object, the new `content` of `write_file` / `new_string` of `edit_file` when a string. `updatedInput` wins over `newContent`, `updatedToolOutput` over `newContent`. With something to show (rows 6, 8, 9) the change rides on that `inject_context` (the registry returns a lone injection with its `data`; merged with other handlers' injections the change is lost). Note: loop-basic and loop-streaming ignore a modified `tool_input` |
//! | 8 | `suppressOutput: true` | `suppress_output: true` (kept by the registry on `deny`/`ask_user`/`inject_context` only) |
//! | 9 | `systemMessage`s (completion order), exit-2 notices on non-blocking events (`"<Event> hook error: <stderr>"`, which Claude Code shows the user) | message, one per line; level `warning` with rows 1–3 or a notice, else `info`. Alone (nothing else to do), it rides on `inject_context` with empty text: the registry keeps a lone injection intact and `process_hook_result` injects nothing for empty text but shows the message — a `continue` would lose it. With a plain `modify` (no row 6) it rides the same way, carrying the `data` |
//! | — | nothing of the above (exit 0 without output, `decision: "approve"` outside PreToolUse, non-blocking errors, timeouts) | `continue`, no data. Non-blocking errors and hooks without a verdict are returned as notes for the host to log |
//!
//! Fields without an Amplifier counterpart (`sessionTitle`, `watchPaths`, `initialUserMessage`,
//! `reloadSkills`, `suppressOriginalPrompt`, `classifierContext`, …) are returned as notes.
//! When one Amplifier event fires two Claude Code events (`tool:post` of an agent tool), each
//! decision is translated and the results are joined by [`combine`].
//!
//! Where results go nowhere today (documented so hooks' authors are not surprised): the results of
//! `session:start`/`session:resume` (the kernel discards them), `orchestrator:complete`,
//! `prompt:complete` and `approval:required` (the emitters ignore them), and a `deny` after
//! `tool:post`. A Stop block is still translated to `deny`, ready for an orchestrator that honors
//! it; like every `deny` it stops the registry from calling later (lower-priority) handlers.
//!

use std::ops::ControlFlow;

use serde_json::{json, Map, Value};

use super::{str_of, MESSAGE_SOURCE};
use crate::hook_result::{ApprovalDefault, HookAction, HookResult, InjectionRole, MessageLevel};
use crate::registry::kernel_events::{PROMPT_SUBMIT, TOOL_POST, TOOL_PRE};
use crate::tools;
use hookbridge_core::decision::{Blocking, BlockingSource, ContextKind, EventDecision, PermissionDecision};
use hookbridge_core::event::{ContinueFalse, EventName, EventPayload};

/// The approval choices offered for a PreToolUse `ask`.
pub const APPROVAL_OPTIONS: [&str; 2] = ["Allow", "Deny"];

/// A translated outcome: the result, what the host should log because it had no effect, and
/// whether the turn must end after this operation.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub result: HookResult,
    pub notes: Vec<String>,
    /// `continue: false` on a tool event: the operation goes on as `result` says, then the turn
    /// ends (the host cancels gracefully: Amplifier's `coordinator.request_cancel(False)`). The
    /// text is the stop reason, for the user.
    pub stop_turn: Option<String>,
}

/// The [`HookResult`] for one Claude Code event's merged decision (see the module table).
/// `data` is the event data the Amplifier handler received; `payload` is what the hooks were
/// given ([`claude_payload`](super::to_claude::claude_payload)).
pub fn to_hook_result(
    amplifier_event: &str,
    data: &Value,
    payload: &EventPayload,
    decision: &EventDecision,
) -> HookResult {
    translate_outcome(amplifier_event, data, payload, decision).result
}

/// Like [`to_hook_result`], with the notes about what had no Amplifier effect.
pub fn translate_outcome(
    amplifier_event: &str,
    data: &Value,
    payload: &EventPayload,
    decision: &EventDecision,
) -> Outcome {
    Translator::new(amplifier_event, data, payload).translate(decision)
}

/// `hookSpecificOutput` fields this module turns into Amplifier effects.
const TRANSLATED_SPECIFIC: &[&str] = &["updatedToolOutput"];

/// What row 9 shows the user: the messages, and whether they warn.
struct Shown {
    messages: Vec<String>,
    warning: bool,
}

struct Translator<'a> {
    amp: &'a str,
    data: Option<&'a Map<String, Value>>,
    event: &'a EventName,
    /// Claude Code's label prefix: `PostToolUse:Bash`, `SessionStart:startup`, `Stop`.
    label: String,
    /// The event's match target (tool name, SessionStart source, …).
    query: Option<String>,
    after_the_fact: bool,
    notes: Vec<String>,
    /// Set by row 1 on a tool event.
    stop_turn: Option<String>,
}

impl<'a> Translator<'a> {
    fn new(amp: &'a str, data: &'a Value, payload: &'a EventPayload) -> Self {
        let event = payload.event();
        let query = payload.match_query();
        let label = match query.as_deref().filter(|q| !q.is_empty()) {
            Some(q) => format!("{event}:{q}"),
            None => event.to_string(),
        };
        Translator {
            amp,
            data: data.as_object(),
            event,
            label,
            query,
            after_the_fact: amp == TOOL_POST,
            notes: Vec::new(),
            stop_turn: None,
        }
    }

    fn translate(mut self, d: &EventDecision) -> Outcome {
        let (ControlFlow::Break(result) | ControlFlow::Continue(result)) = self.decide(d);
        self.finish(result)
    }

    /// The module table's rows in order: a row that decides the action breaks out with it.
    fn decide(&mut self, d: &EventDecision) -> ControlFlow<HookResult, HookResult> {
        let mut shown = self.messages_and_notes(d);
        let blocking = self.row1_continue_false(d, &mut shown)?;
        let feedback = self.rows2_3_block(blocking, d, &mut shown)?;
        let updated_input = self.row4_permission_request(d, &shown)?;
        // Row 7: the data change (computed before row 5, which carries it).
        let new_data = self.data_change(updated_input.as_ref(), d);
        let new_data = self.row5_ask(d, &shown, new_data)?;
        let pieces = self.row6_contexts(feedback, d);
        ControlFlow::Continue(self.rows8_9_shape(pieces, &shown, new_data, d.suppress_output))
    }

    /// Row 9's messages (`systemMessage`s, then exit-2 notices), and notes for what has no effect.
    fn messages_and_notes(&mut self, d: &EventDecision) -> Shown {
        let mut shown = Shown {
            messages: d.system_messages.clone(),
            warning: false,
        };
        for n in &d.notices {
            shown
                .messages
                .push(format!("{} hook error: {}", self.event, n.message.trim_end()));
            shown.warning = true;
        }
        for p in &d.problems {
            self.notes.push(format!(
                "{} hook (#{}) had no effect: {}",
                self.event, p.hook, p.message
            ));
        }
        for key in d
            .other_specific
            .keys()
            .filter(|k| !TRANSLATED_SPECIFIC.contains(&k.as_str()))
        {
            self.notes.push(format!(
                "hookSpecificOutput.{key} on {} has no Amplifier equivalent",
                self.event
            ));
        }
        shown
    }

    /// Row 1: `continue: false`. Breaks with a deny where it stops the operation; otherwise the
    /// block still in force (a Stop block is cancelled by "do stop").
    fn row1_continue_false<'d>(
        &mut self,
        d: &'d EventDecision,
        shown: &mut Shown,
    ) -> ControlFlow<HookResult, Option<&'d Blocking>> {
        let blocking = d.blocking.as_ref();
        let Some(stop_reason) = d.stop.as_ref().map(|stop| &stop.reason) else {
            return ControlFlow::Continue(blocking);
        };
        let reason = stop_reason
            .clone()
            .unwrap_or_else(|| "a hook stopped processing (continue: false)".into());
        match self.event.traits().continue_false {
            ContinueFalse::Ignored => {
                self.notes.push(format!(
                    "continue: false is ignored on {}, as Claude Code ignores it",
                    self.event
                ));
                ControlFlow::Continue(blocking)
            }
            ContinueFalse::LetsItStop => {
                if let Some(r) = stop_reason {
                    shown.messages.insert(0, r.clone());
                }
                ControlFlow::Continue(None)
            }
            ContinueFalse::EndsTheTurnAfterTheTool => {
                // The rest of the result is built as usual, and the host is asked to stop the
                // turn gracefully.
                self.stop_turn = Some(reason);
                if let Some(r) = stop_reason {
                    shown.messages.insert(0, r.clone());
                    shown.warning = true;
                }
                ControlFlow::Continue(blocking)
            }
            ContinueFalse::StopsTheOperation => {
                if let Some(r) = stop_reason {
                    shown.messages.insert(0, r.clone());
                }
                ControlFlow::Break(deny(reason, &shown.messages, d.suppress_output))
            }
        }
    }

    /// Rows 2 and 3: a block. After the tool has run it becomes feedback for the model (returned,
    /// for row 6); before, it denies.
    fn rows2_3_block(
        &self,
        blocking: Option<&Blocking>,
        d: &EventDecision,
        shown: &mut Shown,
    ) -> ControlFlow<HookResult, Option<String>> {
        let Some(b) = blocking else {
            return ControlFlow::Continue(None);
        };
        let message = b.message().trim_end();
        if self.after_the_fact {
            shown.warning = true;
            return ControlFlow::Continue(Some(format!("{} hook blocking error: {message}", self.label)));
        }
        let reason = if !message.is_empty() {
            message.to_string()
        } else if matches!(b.source, BlockingSource::ExitCode { .. }) {
            "blocked by a hook (exit code 2, no stderr output)".to_string()
        } else {
            "blocked by a hook".to_string()
        };
        ControlFlow::Break(deny(reason, &shown.messages, d.suppress_output))
    }

    /// Row 4: PermissionRequest's `decision`. A deny breaks; an allow may bring the input to use.
    /// Continues with the `updatedInput` in force.
    fn row4_permission_request(
        &mut self,
        d: &EventDecision,
        shown: &Shown,
    ) -> ControlFlow<HookResult, Option<Value>> {
        let mut updated_input = d.updated_input.clone();
        let Some(req) = &d.permission_request else {
            return ControlFlow::Continue(updated_input);
        };
        match req.allow {
            false => {
                let reason = req
                    .get("message")
                    .and_then(Value::as_str)
                    .filter(|m| !m.is_empty())
                    .unwrap_or("denied by a PermissionRequest hook")
                    .to_string();
                if req.get("interrupt").and_then(Value::as_bool) == Some(true) {
                    self.notes
                        .push("PermissionRequest `interrupt` has no Amplifier equivalent".into());
                }
                return ControlFlow::Break(deny(reason, &shown.messages, d.suppress_output));
            }
            true => {
                if let Some(u) = req.get("updatedInput").filter(|u| u.is_object()) {
                    updated_input = Some(u.clone());
                }
                if req.get("updatedPermissions").is_some() {
                    self.notes
                        .push("PermissionRequest `updatedPermissions` has no Amplifier equivalent".into());
                }
            }
        }
        ControlFlow::Continue(updated_input)
    }

    /// Row 5: `ask` breaks with `ask_user`, carrying the data change; `defer` is noted.
    fn row5_ask(
        &mut self,
        d: &EventDecision,
        shown: &Shown,
        new_data: Option<Map<String, Value>>,
    ) -> ControlFlow<HookResult, Option<Map<String, Value>>> {
        match d.permission {
            Some(PermissionDecision::Ask) => {
                let tool = self.tool_name().unwrap_or("the tool");
                let mut prompt = d
                    .permission_reason
                    .clone()
                    .filter(|r| !r.is_empty())
                    .unwrap_or_else(|| format!("A hook asks for approval before {tool} runs."));
                if !shown.messages.is_empty() {
                    prompt.push_str("\n\n");
                    prompt.push_str(&shown.messages.join("\n"));
                }
                if !d.contexts.is_empty() {
                    self.notes.push(
                        "context given with permissionDecision: ask is dropped (ask_user cannot inject)"
                            .into(),
                    );
                }
                ControlFlow::Break(HookResult {
                    action: HookAction::AskUser,
                    approval_prompt: Some(prompt),
                    approval_options: Some(APPROVAL_OPTIONS.iter().map(|s| s.to_string()).collect()),
                    approval_default: ApprovalDefault::Deny,
                    suppress_output: d.suppress_output,
                    data: new_data,
                    ..HookResult::default()
                })
            }
            Some(PermissionDecision::Defer) => {
                self.notes.push(
                    "permissionDecision: defer has no Amplifier equivalent; treated as no decision".into(),
                );
                ControlFlow::Continue(new_data)
            }
            _ => ControlFlow::Continue(new_data),
        }
    }

    /// Row 6: the pieces of context to inject, row 2's feedback first, with Claude Code's labels.
    fn row6_contexts(&mut self, feedback: Option<String>, d: &EventDecision) -> Vec<String> {
        let mut pieces: Vec<String> = feedback.into_iter().collect();
        for c in &d.contexts {
            match c.kind {
                ContextKind::ContextInjection => pieces.push(c.text.clone()),
                // Claude Code's own labels, from the one definition its renderer uses.
                ContextKind::PlainStdout => pieces.push(format!(
                    "{}{}",
                    hookbridge_core::decision::success_label(self.event, self.query.as_deref()),
                    c.text.trim_end_matches(['\n', '\r'])
                )),
                ContextKind::AdditionalContext if self.event.traits().reads_additional_context => {
                    let label = hookbridge_core::decision::context_label(self.event, self.query.as_deref());
                    pieces.push(format!("{label}{}", c.text));
                }
                ContextKind::AdditionalContext => self.notes.push(format!(
                    "additionalContext is ignored on {}, as Claude Code ignores it",
                    self.event
                )),
            }
        }
        pieces
    }

    /// Rows 8 and 9: what is returned when no row decided the action.
    fn rows8_9_shape(
        &self,
        pieces: Vec<String>,
        shown: &Shown,
        new_data: Option<Map<String, Value>>,
        suppress_output: bool,
    ) -> HookResult {
        let mut result = HookResult {
            suppress_output,
            ..HookResult::default()
        };
        if !pieces.is_empty() || !shown.messages.is_empty() {
            let injecting = !pieces.is_empty();
            result.action = HookAction::InjectContext;
            result.context_injection = Some(pieces.join("\n\n"));
            result.context_injection_role = InjectionRole::System;
            result.ephemeral = injecting && self.after_the_fact;
            result.append_to_last_tool_result = injecting && self.after_the_fact;
            result.data = new_data;
            let level = if shown.warning {
                MessageLevel::Warning
            } else {
                MessageLevel::Info
            };
            set_message(&mut result, &shown.messages, level);
        } else if let Some(data) = new_data {
            result.action = HookAction::Modify;
            result.data = Some(data);
        }
        result
    }

    fn finish(self, result: HookResult) -> Outcome {
        Outcome {
            result,
            notes: self.notes,
            stop_turn: self.stop_turn,
        }
    }

    fn tool_name(&self) -> Option<&str> {
        self.data
            .and_then(|d| str_of(d, "tool_name"))
            .map(tools::claude_tool_name)
    }

    /// Row 7: the event data with the one field a hook changed, or `None`.
    fn data_change(
        &mut self,
        updated_input: Option<&Value>,
        d: &EventDecision,
    ) -> Option<Map<String, Value>> {
        let updated_output = d.other_specific.get("updatedToolOutput");
        let new_content = d.new_content.as_ref();
        if updated_input.is_none() && updated_output.is_none() && new_content.is_none() {
            return None;
        }
        let Some(data) = self.data else {
            self.notes.push(format!(
                "the {} data is not an object; its change is dropped",
                self.amp
            ));
            return None;
        };
        let amp_tool = str_of(data, "tool_name").unwrap_or("");
        let mut out = data.clone();
        let mut changed = false;
        let set_input = |out: &mut Map<String, Value>, claude_input: &Map<String, Value>| {
            out.insert(
                "tool_input".into(),
                Value::Object(tools::to_amplifier_input(amp_tool, claude_input)),
            );
        };

        if let Some(u) = updated_input.and_then(Value::as_object) {
            if data.contains_key("tool_input") || self.amp == TOOL_PRE {
                set_input(&mut out, u);
                changed = true;
            } else {
                self.notes.push(format!(
                    "updatedInput has no tool_input to replace on {}",
                    self.amp
                ));
            }
        }
        if let Some(o) = updated_output {
            if self.amp == TOOL_POST {
                out.insert("result".into(), o.clone());
                changed = true;
            } else {
                self.notes.push(format!(
                    "updatedToolOutput has no result to replace on {}",
                    self.amp
                ));
            }
        }
        if let Some(n) = new_content {
            let applied = match (self.amp, n) {
                (TOOL_POST, _) if updated_output.is_none() => {
                    out.insert("result".into(), n.clone());
                    true
                }
                (TOOL_PRE, Value::Object(o)) if updated_input.is_none() => {
                    set_input(&mut out, o);
                    true
                }
                (TOOL_PRE, Value::String(s)) if updated_input.is_none() => {
                    let field = match amp_tool {
                        "write_file" => Some("content"),
                        "edit_file" => Some("new_string"),
                        _ => None,
                    };
                    match (field, out.get_mut("tool_input").and_then(Value::as_object_mut)) {
                        (Some(field), Some(input)) => {
                            input.insert(field.into(), json!(s));
                            true
                        }
                        _ => false,
                    }
                }
                (PROMPT_SUBMIT, Value::String(s)) => {
                    out.insert("prompt".into(), json!(s));
                    true
                }
                _ => false,
            };
            if applied {
                changed = true;
            } else {
                self.notes.push(format!(
                    "newContent has no field to modify on {} (or a more specific field won)",
                    self.amp
                ));
            }
        }
        changed.then_some(out)
    }
}

fn set_message(result: &mut HookResult, messages: &[String], level: MessageLevel) {
    if messages.is_empty() {
        return;
    }
    result.user_message = Some(messages.join("\n"));
    result.user_message_level = level;
    result.user_message_source = Some(MESSAGE_SOURCE.into());
}

fn deny(reason: String, messages: &[String], suppress_output: bool) -> HookResult {
    let mut result = HookResult {
        suppress_output,
        ..HookResult::deny(reason)
    };
    set_message(&mut result, messages, MessageLevel::Warning);
    result
}

/// One result for the several Claude Code events one Amplifier event fired (in firing order),
/// with the registry's precedence `deny > ask_user > inject_context > modify > continue`: the
/// first deny or ask_user wins and collects the others' messages (into `approval_prompt` for
/// ask_user); injections are joined with a blank line, their flags OR-ed; the last data change
/// wins.
pub fn combine(results: impl IntoIterator<Item = HookResult>) -> HookResult {
    let results: Vec<HookResult> = results.into_iter().collect();
    let messages: Vec<&str> = results.iter().filter_map(|r| r.user_message.as_deref()).collect();
    let level = results
        .iter()
        .map(|r| r.user_message_level)
        .max_by_key(|l| *l as u8)
        .unwrap_or_default();
    let suppress = results.iter().any(|r| r.suppress_output);
    let last_data = results.iter().rev().find_map(|r| r.data.clone());
    let pick = |action| results.iter().find(|r| r.action == action).cloned();

    if let Some(mut deny) = pick(HookAction::Deny) {
        if messages.len() > 1 {
            deny.user_message = Some(messages.join("\n"));
            deny.user_message_level = level;
            deny.user_message_source = Some(MESSAGE_SOURCE.into());
        }
        deny.suppress_output = suppress;
        return deny;
    }
    if let Some(mut ask) = pick(HookAction::AskUser) {
        let others: Vec<&str> = results
            .iter()
            .filter(|r| r.action != HookAction::AskUser)
            .filter_map(|r| r.user_message.as_deref())
            .collect();
        if !others.is_empty() {
            let prompt = ask.approval_prompt.get_or_insert_with(String::new);
            prompt.push_str("\n\n");
            prompt.push_str(&others.join("\n"));
        }
        ask.suppress_output = suppress;
        return ask;
    }
    let injecting: Vec<&HookResult> = results
        .iter()
        .filter(|r| r.action == HookAction::InjectContext)
        .collect();
    if !injecting.is_empty() {
        let texts: Vec<&str> = injecting
            .iter()
            .filter_map(|r| r.context_injection.as_deref())
            .filter(|t| !t.is_empty())
            .collect();
        let mut result = HookResult {
            action: HookAction::InjectContext,
            context_injection: Some(texts.join("\n\n")),
            context_injection_role: injecting[0].context_injection_role,
            ephemeral: injecting.iter().any(|r| r.ephemeral),
            append_to_last_tool_result: injecting.iter().any(|r| r.append_to_last_tool_result),
            suppress_output: suppress,
            data: last_data,
            ..HookResult::default()
        };
        if !messages.is_empty() {
            result.user_message = Some(messages.join("\n"));
            result.user_message_level = level;
            result.user_message_source = Some(MESSAGE_SOURCE.into());
        }
        return result;
    }
    match last_data {
        Some(data) => HookResult {
            action: HookAction::Modify,
            data: Some(data),
            ..HookResult::default()
        },
        None => HookResult::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::kernel_events::*;
    use crate::translate::fixtures::*;
    use crate::translate::{claude_payload, claude_payloads};
    use hookbridge_core::decision::{interpret, merge, AnsweredHook, HookExecution, RunStatus};
    use std::time::Duration;

    /// Hook outputs `(exit code, stdout, stderr)` in completion order, run through
    /// `decision::interpret` and `decision::merge` like real hooks, then translated.
    fn outcome(amp: &str, data: &Value, claude: EventName, hooks: &[(i32, &str, &str)]) -> Outcome {
        let payload = claude_payload(amp, data, &claude, &session()).expect("payload");
        let answers: Vec<AnsweredHook> = hooks
            .iter()
            .enumerate()
            .map(|(i, (code, out, err))| {
                let exec = HookExecution {
                    warm: Default::default(),
                    status: RunStatus::Exited(*code),
                    stdout: out.as_bytes().to_vec(),
                    stderr: err.as_bytes().to_vec(),
                    stdout_truncated: false,
                    stderr_truncated: false,
                    leaked: false,
                    duration: Duration::from_millis(5),
                    finish_order: i,
                    unsandboxed: None,
                };
                AnsweredHook {
                    answer: interpret(&claude, &exec),
                    finish_order: i,
                    on_failure: hookbridge_core::config::OnFailure::Continue,
                    label: format!("hook {i}"),
                    must_succeed: false,
                }
            })
            .collect();
        let decision = merge(&claude, &answers);
        translate_outcome(amp, data, &payload, &decision)
    }

    fn result(amp: &str, data: &Value, claude: EventName, hooks: &[(i32, &str, &str)]) -> HookResult {
        outcome(amp, data, claude, hooks).result
    }

    fn message(r: &HookResult) -> (Option<&str>, MessageLevel, Option<&str>) {
        (
            r.user_message.as_deref(),
            r.user_message_level,
            r.user_message_source.as_deref(),
        )
    }

    // ---- Row —: nothing to do ----

    #[test]
    fn row_nothing_exit_zero_without_output_continues() {
        let r = result(TOOL_PRE, &bash_pre("ls"), EventName::PreToolUse, &[(0, "", "")]);
        assert_eq!(r, HookResult::default());
        let r = result(
            SESSION_END,
            &with_defaults(json!({})),
            EventName::SessionEnd,
            &[(0, "bye\n", "")],
        );
        assert_eq!(
            r,
            HookResult::default(),
            "plain stdout is not context on SessionEnd"
        );
    }

    #[test]
    fn row_nothing_non_blocking_error_continues_with_a_note() {
        let o = outcome(
            TOOL_PRE,
            &bash_pre("ls"),
            EventName::PreToolUse,
            &[(1, "", "jq: not found\n")],
        );
        assert_eq!(o.result, HookResult::default());
        assert_eq!(
            o.notes,
            vec!["PreToolUse hook (#0) had no effect: exited with code 1: jq: not found"]
        );
    }

    #[test]
    fn row_nothing_decision_approve_outside_pre_tool_use_continues() {
        let r = result(
            PROMPT_SUBMIT,
            &prompt(),
            EventName::UserPromptSubmit,
            &[(0, r#"{"decision": "approve"}"#, "")],
        );
        assert_eq!(r, HookResult::default());
    }

    // ---- Row 1: continue: false ----

    #[test]
    fn row1_continue_false_on_a_tool_event_lets_the_tool_run_and_ends_the_turn() {
        // Cases 44 and 45: the tool runs, then the turn ends; the stop reason is shown.
        let out = r#"{"continue": false, "stopReason": "Build is red; stopping", "systemMessage": "see CI"}"#;
        for (amp, data, claude) in [
            (TOOL_PRE, bash_pre("make deploy"), EventName::PreToolUse),
            (TOOL_POST, bash_post(), EventName::PostToolUse),
        ] {
            let o = outcome(amp, &data, claude.clone(), &[(0, out, "")]);
            assert_ne!(o.result.action, HookAction::Deny, "{claude}: the tool must run");
            assert_eq!(o.stop_turn.as_deref(), Some("Build is red; stopping"), "{claude}");
            assert_eq!(
                message(&o.result),
                (
                    Some("Build is red; stopping\nsee CI"),
                    MessageLevel::Warning,
                    Some("hookbridge")
                ),
                "{claude}"
            );
        }
        // Case 128: with a deny as well, the tool does not run and the turn still ends.
        let both = r#"{"continue": false, "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "deny-and-halt"}}"#;
        let o = outcome(
            TOOL_PRE,
            &bash_pre("make deploy"),
            EventName::PreToolUse,
            &[(0, both, "")],
        );
        assert_eq!(o.result.action, HookAction::Deny);
        assert_eq!(o.result.reason.as_deref(), Some("deny-and-halt"));
        assert_eq!(
            o.stop_turn.as_deref(),
            Some("a hook stopped processing (continue: false)")
        );
        // Without continue: false, no stop.
        let plain = outcome(TOOL_PRE, &bash_pre("ls"), EventName::PreToolUse, &[(0, "", "")]);
        assert_eq!(plain.stop_turn, None);
    }

    #[test]
    fn row1_continue_false_on_a_prompt_denies_it() {
        // Case 46: the prompt is not sent.
        let bare = result(
            PROMPT_SUBMIT,
            &prompt(),
            EventName::UserPromptSubmit,
            &[(0, r#"{"continue": false}"#, "")],
        );
        assert_eq!(bare.action, HookAction::Deny);
        assert_eq!(
            bare.reason.as_deref(),
            Some("a hook stopped processing (continue: false)")
        );
        assert_eq!(bare.user_message, None);
    }

    #[test]
    fn row1_continue_false_on_stop_overrides_a_block() {
        let data = with_defaults(json!({"orchestrator": "loop-basic", "turn_count": 3, "status": "success"}));
        let hooks = [
            (0, r#"{"decision": "block", "reason": "run the tests first"}"#, ""),
            (0, r#"{"continue": false, "stopReason": "budget exhausted"}"#, ""),
        ];
        let r = result(ORCHESTRATOR_COMPLETE, &data, EventName::Stop, &hooks);
        assert_eq!(r.action, HookAction::InjectContext, "no deny: stopping wins");
        assert_eq!(r.context_injection.as_deref(), Some(""));
        assert_eq!(r.user_message.as_deref(), Some("budget exhausted"));
    }

    #[test]
    fn row1_continue_false_is_ignored_where_claude_code_ignores_it() {
        let data = with_defaults(json!({"messages": 120}));
        let o = outcome(
            CONTEXT_PRE_COMPACT,
            &data,
            EventName::PreCompact,
            &[(0, r#"{"continue": false}"#, "")],
        );
        assert_eq!(o.result, HookResult::default());
        assert_eq!(
            o.notes,
            vec!["continue: false is ignored on PreCompact, as Claude Code ignores it"]
        );
        // Case 47: on SessionStart too — the session runs normally.
        let o = outcome(
            SESSION_START,
            &with_defaults(json!({})),
            EventName::SessionStart,
            &[(0, r#"{"continue": false, "stopReason": "no"}"#, "")],
        );
        assert_eq!(o.result, HookResult::default());
        assert_eq!(o.stop_turn, None);
    }

    // ---- Row 2: blocks after the fact (tool:post) ----

    #[test]
    fn row2_exit_two_on_post_tool_use_is_feedback_appended_to_the_tool_result() {
        let r = result(
            TOOL_POST,
            &bash_post(),
            EventName::PostToolUse,
            &[(2, "", "lint failed: E501 line too long\n")],
        );
        assert_eq!(r.action, HookAction::InjectContext);
        assert_eq!(
            r.context_injection.as_deref(),
            Some("PostToolUse:Bash hook blocking error: lint failed: E501 line too long")
        );
        assert!(r.ephemeral && r.append_to_last_tool_result);
        assert_eq!(r.context_injection_role, InjectionRole::System);
        assert_eq!(r.user_message, None);
    }

    #[test]
    fn row2_decision_block_on_post_tool_use_is_feedback_too() {
        let out =
            r#"{"decision": "block", "reason": "file is not formatted", "systemMessage": "formatter ran"}"#;
        let r = result(TOOL_POST, &bash_post(), EventName::PostToolUse, &[(0, out, "")]);
        assert_eq!(r.action, HookAction::InjectContext);
        assert_eq!(
            r.context_injection.as_deref(),
            Some("PostToolUse:Bash hook blocking error: file is not formatted")
        );
        assert_eq!(
            message(&r),
            (Some("formatter ran"), MessageLevel::Warning, Some("hookbridge"))
        );
    }

    #[test]
    fn row2_subagent_stop_block_becomes_feedback_for_the_parent() {
        let data = with_defaults(
            json!({"tool_name": "delegate", "tool_input": {"agent": "foundation:explorer", "instruction": "map it"},
            "result": {"success": true, "output": {"response": "done", "session_id": "s1-child"}, "error": null}}),
        );
        let r = result(
            TOOL_POST,
            &data,
            EventName::SubagentStop,
            &[(2, "", "the summary lacks file paths")],
        );
        assert_eq!(r.action, HookAction::InjectContext);
        assert_eq!(
            r.context_injection.as_deref(),
            Some("SubagentStop:foundation:explorer hook blocking error: the summary lacks file paths")
        );
        assert!(r.append_to_last_tool_result);
    }

    // ---- Row 3: blocks ----

    #[test]
    fn row3_exit_two_on_pre_tool_use_denies_with_stderr() {
        let r = result(
            TOOL_PRE,
            &bash_pre("rm -rf /"),
            EventName::PreToolUse,
            &[(2, "", "Dangerous command blocked: rm -rf /\n")],
        );
        assert_eq!(r, HookResult::deny("Dangerous command blocked: rm -rf /"));
        let silent = result(TOOL_PRE, &bash_pre("x"), EventName::PreToolUse, &[(2, "", "")]);
        assert_eq!(
            silent.reason.as_deref(),
            Some("blocked by a hook (exit code 2, no stderr output)")
        );
    }

    /// The seed's Appendix A hook: JSON on stdout *and* exit 2 — exit 2 blocks.
    #[test]
    fn row3_seed_validator_exit_two_ignores_its_json() {
        let out = r#"{"decision": "block", "reason": "Dangerous command blocked: rm -rf /", "systemMessage": "⛔ Security"}"#;
        let r = result(
            TOOL_PRE,
            &bash_pre("rm -rf /"),
            EventName::PreToolUse,
            &[(2, out, "")],
        );
        assert_eq!(r.action, HookAction::Deny);
        assert!(r.reason.is_some_and(|reason| !reason.is_empty()));
    }

    #[test]
    fn row3_exit_two_on_user_prompt_submit_denies() {
        let r = result(
            PROMPT_SUBMIT,
            &prompt(),
            EventName::UserPromptSubmit,
            &[(2, "", "prompt mentions a secret\n")],
        );
        assert_eq!(r, HookResult::deny("prompt mentions a secret"));
    }

    #[test]
    fn row3_decision_block_denies_with_reason_and_message() {
        let out = r#"{"decision": "block", "reason": "Cannot modify protected file: .env.production", "systemMessage": "⛔ Protected file"}"#;
        let r = result(
            PROMPT_SUBMIT,
            &prompt(),
            EventName::UserPromptSubmit,
            &[(0, out, "")],
        );
        assert_eq!(r.action, HookAction::Deny);
        assert_eq!(
            r.reason.as_deref(),
            Some("Cannot modify protected file: .env.production")
        );
        assert_eq!(
            message(&r),
            (
                Some("⛔ Protected file"),
                MessageLevel::Warning,
                Some("hookbridge")
            )
        );
    }

    #[test]
    fn row3_legacy_decision_block_on_pre_tool_use_denies() {
        let r = result(
            TOOL_PRE,
            &write_pre(),
            EventName::PreToolUse,
            &[(0, r#"{"decision": "block", "reason": "no writes in src/"}"#, "")],
        );
        assert_eq!(r, HookResult::deny("no writes in src/"));
    }

    #[test]
    fn row3_permission_decision_deny_denies() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "use the Makefile"}}"#;
        let r = result(
            TOOL_PRE,
            &bash_pre("gcc x.c"),
            EventName::PreToolUse,
            &[(0, out, "")],
        );
        assert_eq!(r, HookResult::deny("use the Makefile"));
    }

    #[test]
    fn row3_stop_block_denies() {
        let data = with_defaults(json!({"orchestrator": "loop-basic", "turn_count": 2, "status": "success"}));
        let r = result(
            ORCHESTRATOR_COMPLETE,
            &data,
            EventName::Stop,
            &[(2, "", "tests were not run\n")],
        );
        assert_eq!(r, HookResult::deny("tests were not run"));
    }

    // ---- Row 4: PermissionRequest ----

    #[test]
    fn row4_permission_request_deny_denies_with_message() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "force-push is not allowed", "interrupt": true}}}"#;
        let o = outcome(
            APPROVAL_REQUIRED,
            &approval(),
            EventName::PermissionRequest,
            &[(0, out, "")],
        );
        assert_eq!(o.result, HookResult::deny("force-push is not allowed"));
        assert_eq!(
            o.notes,
            vec!["PermissionRequest `interrupt` has no Amplifier equivalent"]
        );
    }

    #[test]
    fn row4_permission_request_allow_continues() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}"#;
        let r = result(
            APPROVAL_REQUIRED,
            &approval(),
            EventName::PermissionRequest,
            &[(0, out, "")],
        );
        assert_eq!(r, HookResult::default());
    }

    // ---- Row 5: ask / allow / approve / defer ----

    #[test]
    fn row5_permission_decision_ask_asks_the_user() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "This pushes to main. Continue?"}, "systemMessage": "branch protection is off"}"#;
        let r = result(
            TOOL_PRE,
            &bash_pre("git push"),
            EventName::PreToolUse,
            &[(0, out, "")],
        );
        assert_eq!(r.action, HookAction::AskUser);
        assert_eq!(
            r.approval_prompt.as_deref(),
            Some("This pushes to main. Continue?\n\nbranch protection is off")
        );
        assert_eq!(
            r.approval_options,
            Some(vec!["Allow".to_string(), "Deny".to_string()])
        );
        assert_eq!(r.approval_default, ApprovalDefault::Deny);
        assert_eq!(r.user_message, None, "ask_user's user_message is never shown");
        let bare = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}"#;
        let r = result(
            TOOL_PRE,
            &bash_pre("git push"),
            EventName::PreToolUse,
            &[(0, bare, "")],
        );
        assert_eq!(
            r.approval_prompt.as_deref(),
            Some("A hook asks for approval before Bash runs.")
        );
    }

    #[test]
    fn row5_ask_beats_allow_across_hooks() {
        let allow =
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}"#;
        let ask = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "sure?"}}"#;
        let r = result(
            TOOL_PRE,
            &bash_pre("ls"),
            EventName::PreToolUse,
            &[(0, allow, ""), (0, ask, "")],
        );
        assert_eq!(r.action, HookAction::AskUser);
    }

    #[test]
    fn row5_permission_decision_allow_continues() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "read-only"}}"#;
        assert_eq!(
            result(TOOL_PRE, &bash_pre("ls"), EventName::PreToolUse, &[(0, out, "")]),
            HookResult::default()
        );
    }

    #[test]
    fn row5_legacy_decision_approve_continues() {
        let r = result(
            TOOL_PRE,
            &bash_pre("ls"),
            EventName::PreToolUse,
            &[(0, r#"{"decision": "approve", "reason": "ok"}"#, "")],
        );
        assert_eq!(r, HookResult::default());
    }

    #[test]
    fn row5_defer_continues_with_a_note() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "defer"}}"#;
        let o = outcome(TOOL_PRE, &bash_pre("ls"), EventName::PreToolUse, &[(0, out, "")]);
        assert_eq!(o.result, HookResult::default());
        assert_eq!(
            o.notes,
            vec!["permissionDecision: defer has no Amplifier equivalent; treated as no decision"]
        );
    }

    #[test]
    fn row5_ask_carries_updated_input() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "updatedInput": {"command": "git push --dry-run", "timeout": 5000}}}"#;
        let r = result(
            TOOL_PRE,
            &bash_pre("git push"),
            EventName::PreToolUse,
            &[(0, out, "")],
        );
        assert_eq!(r.action, HookAction::AskUser);
        assert_eq!(
            r.data.unwrap()["tool_input"],
            json!({"command": "git push --dry-run", "timeout": 5})
        );
    }

    // ---- Row 6: contexts ----

    #[test]
    fn row6_additional_context_on_post_tool_use_is_appended_to_the_tool_result() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "3 files changed"}}"#;
        let r = result(TOOL_POST, &bash_post(), EventName::PostToolUse, &[(0, out, "")]);
        let want = HookResult {
            action: HookAction::InjectContext,
            context_injection: Some("PostToolUse:Bash hook additional context: 3 files changed".into()),
            ephemeral: true,
            append_to_last_tool_result: true,
            ..HookResult::default()
        };
        assert_eq!(r, want);
    }

    #[test]
    fn row6_additional_context_on_user_prompt_submit_is_persisted() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "Ticket LOGIN-42 is relevant"}}"#;
        let r = result(
            PROMPT_SUBMIT,
            &prompt(),
            EventName::UserPromptSubmit,
            &[(0, out, "")],
        );
        assert_eq!(r.action, HookAction::InjectContext);
        assert_eq!(
            r.context_injection.as_deref(),
            Some("UserPromptSubmit hook additional context: Ticket LOGIN-42 is relevant")
        );
        assert!(!r.ephemeral && !r.append_to_last_tool_result);
    }

    #[test]
    fn row6_plain_stdout_is_context_on_session_start_and_prompt_submit() {
        let data = with_defaults(json!({}));
        let r = result(
            SESSION_START,
            &data,
            EventName::SessionStart,
            &[(0, "branch: main\n", "")],
        );
        assert_eq!(r.action, HookAction::InjectContext);
        assert_eq!(
            r.context_injection.as_deref(),
            Some("SessionStart:startup hook success: branch: main")
        );
        let r = result(
            PROMPT_SUBMIT,
            &prompt(),
            EventName::UserPromptSubmit,
            &[(0, "today is Friday\n", "")],
        );
        assert_eq!(
            r.context_injection.as_deref(),
            Some("UserPromptSubmit hook success: today is Friday")
        );
    }

    #[test]
    fn row6_plain_stdout_is_not_context_on_tool_events() {
        let r = result(
            TOOL_PRE,
            &bash_pre("ls"),
            EventName::PreToolUse,
            &[(0, "checked ok\n", "")],
        );
        assert_eq!(r, HookResult::default());
    }

    #[test]
    fn row6_seed_context_injection_is_injected_verbatim() {
        let out = r#"{"decision": "approve", "contextInjection": "Linting errors in a.py:\nE1", "systemMessage": "⚠️ Linting issues detected"}"#;
        let r = result(TOOL_POST, &bash_post(), EventName::PostToolUse, &[(0, out, "")]);
        assert_eq!(r.action, HookAction::InjectContext);
        assert_eq!(
            r.context_injection.as_deref(),
            Some("Linting errors in a.py:\nE1")
        );
        assert_eq!(
            message(&r),
            (
                Some("⚠️ Linting issues detected"),
                MessageLevel::Info,
                Some("hookbridge")
            )
        );
        let pre = result(
            TOOL_PRE,
            &write_pre(),
            EventName::PreToolUse,
            &[(0, r#"{"contextInjection": "mind the style guide"}"#, "")],
        );
        assert_eq!(pre.context_injection.as_deref(), Some("mind the style guide"));
        assert!(!pre.ephemeral, "tool:pre injections are persisted");
    }

    #[test]
    fn row6_contexts_of_several_hooks_join_in_completion_order() {
        let a = r#"{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "A"}}"#;
        let r = result(
            SESSION_START,
            &with_defaults(json!({})),
            EventName::SessionStart,
            &[(0, "B\n", ""), (0, a, "")],
        );
        assert_eq!(
            r.context_injection.as_deref(),
            Some("SessionStart:startup hook success: B\n\nSessionStart hook additional context: A")
        );
    }

    #[test]
    fn row6_stop_additional_context_carries_claude_codes_label() {
        let data = with_defaults(json!({"orchestrator": "loop-basic", "turn_count": 1, "status": "success"}));
        let out = r#"{"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "remember to update CHANGELOG"}}"#;
        let r = result(ORCHESTRATOR_COMPLETE, &data, EventName::Stop, &[(0, out, "")]);
        assert_eq!(
            r.context_injection.as_deref(),
            Some("Stop hook additional context: remember to update CHANGELOG")
        );
    }

    #[test]
    fn row6_additional_context_where_claude_code_ignores_it_is_dropped() {
        let data = with_defaults(json!({"messages": 80}));
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PreCompact", "additionalContext": "x"}}"#;
        let o = outcome(CONTEXT_PRE_COMPACT, &data, EventName::PreCompact, &[(0, out, "")]);
        assert_eq!(o.result, HookResult::default());
        assert_eq!(
            o.notes,
            vec!["additionalContext is ignored on PreCompact, as Claude Code ignores it"]
        );
    }

    // ---- Row 7: data changes ----

    #[test]
    fn row7_updated_input_modifies_tool_input_only() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "ls -la", "timeout": 30000}}}"#;
        let data = bash_pre("ls");
        let r = result(TOOL_PRE, &data, EventName::PreToolUse, &[(0, out, "")]);
        assert_eq!(r.action, HookAction::Modify);
        let mut want = data.as_object().unwrap().clone();
        want.insert("tool_input".into(), json!({"command": "ls -la", "timeout": 30}));
        assert_eq!(
            r.data,
            Some(want),
            "every other field (defaults, timestamp, parallel_group_id) is kept"
        );
    }

    #[test]
    fn row7_updated_input_of_a_file_tool_keeps_amplifier_field_names() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"file_path": "/home/u/proj/src/app.py", "content": "x = 2\n"}}}"#;
        let r = result(TOOL_PRE, &write_pre(), EventName::PreToolUse, &[(0, out, "")]);
        assert_eq!(
            r.data.unwrap()["tool_input"],
            json!({"file_path": "/home/u/proj/src/app.py", "content": "x = 2\n"})
        );
        let agent = with_defaults(
            json!({"tool_name": "delegate", "tool_input": {"agent": "a", "instruction": "go"}}),
        );
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"subagent_type": "a", "prompt": "go, carefully"}}}"#;
        let r = result(TOOL_PRE, &agent, EventName::PreToolUse, &[(0, out, "")]);
        assert_eq!(
            r.data.unwrap()["tool_input"],
            json!({"agent": "a", "instruction": "go, carefully"})
        );
    }

    #[test]
    fn row7_new_content_on_tool_post_modifies_result() {
        let data = bash_post();
        let r = result(
            TOOL_POST,
            &data,
            EventName::PostToolUse,
            &[(0, r#"{"newContent": "a.txt (redacted)"}"#, "")],
        );
        assert_eq!(r.action, HookAction::Modify);
        let d = r.data.unwrap();
        assert_eq!(d["result"], "a.txt (redacted)");
        assert_eq!(d["tool_input"], data["tool_input"]);
        assert_eq!(d["timestamp"], data["timestamp"]);
    }

    #[test]
    fn row7_updated_tool_output_modifies_result_and_wins_over_new_content() {
        let out = r#"{"newContent": "seed", "hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": {"stdout": "clean", "stderr": "", "returncode": 0}}}"#;
        let o = outcome(TOOL_POST, &bash_post(), EventName::PostToolUse, &[(0, out, "")]);
        assert_eq!(o.result.action, HookAction::Modify);
        assert_eq!(
            o.result.data.unwrap()["result"],
            json!({"stdout": "clean", "stderr": "", "returncode": 0})
        );
        assert_eq!(
            o.notes,
            vec!["newContent has no field to modify on tool:post (or a more specific field won)"]
        );
    }

    #[test]
    fn row7_new_content_on_prompt_submit_modifies_prompt() {
        let r = result(
            PROMPT_SUBMIT,
            &prompt(),
            EventName::UserPromptSubmit,
            &[(0, r#"{"newContent": "fix the login bug (see LOGIN-42)"}"#, "")],
        );
        assert_eq!(r.action, HookAction::Modify);
        assert_eq!(r.data.unwrap()["prompt"], "fix the login bug (see LOGIN-42)");
    }

    #[test]
    fn row7_new_content_on_tool_pre_replaces_the_written_content() {
        let r = result(
            TOOL_PRE,
            &write_pre(),
            EventName::PreToolUse,
            &[(0, r#"{"newContent": "x = 1  # formatted\n"}"#, "")],
        );
        assert_eq!(
            r.data.unwrap()["tool_input"],
            json!({"file_path": "src/app.py", "content": "x = 1  # formatted\n"})
        );
        let o = outcome(
            TOOL_PRE,
            &bash_pre("ls"),
            EventName::PreToolUse,
            &[(0, r#"{"newContent": "pwd"}"#, "")],
        );
        assert_eq!(o.result, HookResult::default(), "bash has no content field");
        assert_eq!(o.notes.len(), 1);
    }

    #[test]
    fn row7_new_content_without_a_field_is_dropped() {
        let o = outcome(
            SESSION_END,
            &with_defaults(json!({})),
            EventName::SessionEnd,
            &[(0, r#"{"newContent": "x"}"#, "")],
        );
        assert_eq!(o.result, HookResult::default());
        assert_eq!(
            o.notes,
            vec!["newContent has no field to modify on session:end (or a more specific field won)"]
        );
    }

    #[test]
    fn row7_data_change_rides_on_the_injection() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "ls -1"}, "additionalContext": "rewrote ls"}, "systemMessage": "ls rewritten"}"#;
        let r = result(TOOL_PRE, &bash_pre("ls"), EventName::PreToolUse, &[(0, out, "")]);
        assert_eq!(r.action, HookAction::InjectContext);
        assert_eq!(
            r.context_injection.as_deref(),
            Some("PreToolUse:Bash hook additional context: rewrote ls")
        );
        assert_eq!(r.data.unwrap()["tool_input"], json!({"command": "ls -1"}));
        assert_eq!(r.user_message.as_deref(), Some("ls rewritten"));
    }

    // ---- Row 8: suppressOutput ----

    #[test]
    fn row8_suppress_output_is_kept() {
        let out = r#"{"suppressOutput": true, "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "ok"}}"#;
        let r = result(TOOL_POST, &bash_post(), EventName::PostToolUse, &[(0, out, "")]);
        assert!(r.suppress_output);
        let deny = r#"{"suppressOutput": true, "decision": "block", "reason": "no"}"#;
        let r = result(
            PROMPT_SUBMIT,
            &prompt(),
            EventName::UserPromptSubmit,
            &[(0, deny, "")],
        );
        assert!(r.suppress_output && r.action == HookAction::Deny);
    }

    // ---- Row 9: messages ----

    #[test]
    fn row9_system_message_alone_rides_on_an_empty_injection() {
        let r = result(
            TOOL_POST,
            &bash_post(),
            EventName::PostToolUse,
            &[(0, r#"{"systemMessage": "✓ Lint check passed"}"#, "")],
        );
        let want = HookResult {
            action: HookAction::InjectContext,
            context_injection: Some(String::new()),
            user_message: Some("✓ Lint check passed".into()),
            user_message_source: Some("hookbridge".into()),
            ..HookResult::default()
        };
        assert_eq!(r, want, "not ephemeral: nothing for the orchestrator to queue");
    }

    #[test]
    fn row9_exit_two_on_a_non_blocking_event_is_a_warning_for_the_user() {
        let r = result(
            SESSION_START,
            &with_defaults(json!({})),
            EventName::SessionStart,
            &[(2, "", "direnv: not allowed\n")],
        );
        assert_eq!(r.action, HookAction::InjectContext);
        assert_eq!(r.context_injection.as_deref(), Some(""));
        assert_eq!(
            message(&r),
            (
                Some("SessionStart hook error: direnv: not allowed"),
                MessageLevel::Warning,
                Some("hookbridge")
            )
        );
    }

    #[test]
    fn row9_messages_of_several_hooks_join_and_modify_keeps_them() {
        let hooks = [
            (0, r#"{"systemMessage": "one"}"#, ""),
            (0, r#"{"systemMessage": "two", "newContent": "redacted"}"#, ""),
        ];
        let r = result(TOOL_POST, &bash_post(), EventName::PostToolUse, &hooks);
        assert_eq!(r.action, HookAction::InjectContext);
        assert_eq!(r.user_message.as_deref(), Some("one\ntwo"));
        assert_eq!(r.data.unwrap()["result"], "redacted");
    }

    #[test]
    fn unsupported_specific_fields_are_noted() {
        let out = r#"{"hookSpecificOutput": {"hookEventName": "SessionStart", "sessionTitle": "Login fix", "watchPaths": ["/p/.env"]}}"#;
        let o = outcome(
            SESSION_START,
            &with_defaults(json!({})),
            EventName::SessionStart,
            &[(0, out, "")],
        );
        assert_eq!(o.result, HookResult::default());
        assert_eq!(
            o.notes,
            vec![
                "hookSpecificOutput.sessionTitle on SessionStart has no Amplifier equivalent",
                "hookSpecificOutput.watchPaths on SessionStart has no Amplifier equivalent"
            ]
        );
    }

    #[test]
    fn combine_joins_a_fan_out() {
        let inject = |text: &str, msg: Option<&str>| HookResult {
            action: HookAction::InjectContext,
            context_injection: Some(text.into()),
            ephemeral: true,
            append_to_last_tool_result: true,
            user_message: msg.map(str::to_string),
            ..HookResult::default()
        };
        let r = combine([inject("A", Some("m1")), inject("B", None)]);
        assert_eq!(r.context_injection.as_deref(), Some("A\n\nB"));
        assert!(r.ephemeral && r.append_to_last_tool_result);
        assert_eq!(r.user_message.as_deref(), Some("m1"));
        let modify = HookResult {
            action: HookAction::Modify,
            data: Some(Map::new()),
            ..HookResult::default()
        };
        assert_eq!(combine([HookResult::default(), modify.clone()]), modify);
        let r = combine([inject("A", Some("m1")), HookResult::deny("no")]);
        assert_eq!(r.action, HookAction::Deny);
        assert_eq!(
            combine([HookResult::default(), HookResult::default()]),
            HookResult::default()
        );
        let message_only = inject("", Some("m"));
        assert_eq!(
            combine([message_only.clone()]).context_injection.as_deref(),
            Some("")
        );
    }

    /// tool:post of an agent tool, end to end: two payloads, two decisions, one result.
    #[test]
    fn agent_tool_post_fans_out_and_combines() {
        let data = with_defaults(
            json!({"tool_name": "task", "tool_input": {"agent": "zen-architect", "instruction": "review"},
            "result": "{'response': 'Looks fine', 'session_id': 's1-abc_zen-architect'}"}),
        );
        let payloads = claude_payloads(TOOL_POST, &data, &session()).unwrap();
        assert_eq!(
            payloads.iter().map(|p| p.event().clone()).collect::<Vec<_>>(),
            vec![EventName::PostToolUse, EventName::SubagentStop]
        );
        let post = outcome(
            TOOL_POST,
            &data,
            EventName::PostToolUse,
            &[(
                0,
                r#"{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "P"}}"#,
                "",
            )],
        );
        let stop = outcome(
            TOOL_POST,
            &data,
            EventName::SubagentStop,
            &[(
                0,
                r#"{"hookSpecificOutput": {"hookEventName": "SubagentStop", "additionalContext": "S"}}"#,
                "",
            )],
        );
        let r = combine([post.result, stop.result]);
        assert_eq!(
            r.context_injection.as_deref(),
            Some("PostToolUse:Agent hook additional context: P\n\nSubagentStop hook additional context: S")
        );
        assert!(r.append_to_last_tool_result);
    }
}
