//! Codex CLI as a host (`hookbridge run --host codex --event PreToolUse`). Codex fires Claude Code's
//! event names with Claude Code's payloads (plus `turn_id`, `model`, …, which ride along), and reads
//! Claude Code's answers, but strictly: an answer with a field Codex does not support for that event
//! is *invalid* as a whole and ignored (the hook fails open; openai/codex
//! `codex-rs/hooks/src/engine/output_parser.rs`). The contract below is measured against the real
//! Codex CLI (`tests/hosts/codex/`: each case run with its hooks registered in Codex and through
//! hookbridge, compared).
//!
//! hookbridge runs the hooks as Claude Code would and merges their answers into one; that one
//! answer is then fitted so that Codex does with it what it does with the hooks registered
//! directly, with a note for each change:
//!
//! - What Codex would ignore in a hook's own answer is left out here too, so it is ignored the
//!   same way: `ask` (Codex cannot ask; its own approval policy decides), `updatedInput` without
//!   `permissionDecision: "allow"`, a bare `allow` or `defer`, a reason without a decision.
//! - What would make Codex ignore a *merged* answer that it would partly honour from the separate
//!   hooks is left out, so the rest still counts: `continue: false`, `stopReason` and
//!   `suppressOutput` on PreToolUse and PermissionRequest, `suppressOutput` on PostToolUse,
//!   `updatedInput`, `updatedPermissions` and `interrupt` in a PermissionRequest decision. (A deny
//!   from one hook must not be lost because another hook asked to stop.)
//! - A PreToolUse block by exit code 2 while another hook added context becomes a JSON deny that
//!   carries both (Codex reads no stdout beside an exit 2, but shows both from separate hooks).
//! - A block Codex would ignore (exit 2 with nothing on stderr, a deny without a reason) is left as
//!   it is, so Codex ignores it as it would the hook's own, and the log says so.

use hookbridge_core::decision::{
    render_claude, AnsweredHook, ClaudeAnswer, Context, ContextKind, EventDecision, HookAnswer, HookJson,
    HookOutput, PermissionDecision, SpecificOutput, Stdout, TopDecision,
};
use hookbridge_core::event::EventName;
use serde_json::{Map, Value};

/// The events Codex CLI fires that Claude Code fires too (its `HookEventsToml`), by the same names:
/// what `install-into codex` registers.
pub const EVENTS: &[EventName] = &[
    EventName::SessionStart,
    EventName::UserPromptSubmit,
    EventName::PreToolUse,
    EventName::PermissionRequest,
    EventName::PostToolUse,
    EventName::PreCompact,
    EventName::PostCompact,
    EventName::SubagentStart,
    EventName::SubagentStop,
    EventName::Stop,
];

/// `answer`, Claude Code's for `event`, as Codex accepts it; the notes say what was changed.
pub fn fit(event: &EventName, mut answer: ClaudeAnswer) -> (ClaudeAnswer, Vec<String>) {
    let mut notes = Vec::new();
    if answer.exit_code == 2 && answer.stderr.trim().is_empty() {
        notes.push(format!(
            "{event}: a block by exit code 2 with nothing on stderr: Codex ignores such a block (as it would the hook's own)"
        ));
    }
    if answer.exit_code != 0 {
        return (answer, notes);
    }
    let Stdout::Json(out) = &mut answer.stdout else {
        return (answer, notes);
    };
    let mut left_out = |gone: bool, key: &str| {
        if gone {
            notes.push(format!(
                "{event}: `{key}` left out: Codex does not support it on {event}"
            ));
        }
    };
    match event {
        EventName::PreToolUse | EventName::PermissionRequest => {
            left_out(out.continue_.take().is_some(), "continue");
            left_out(out.stop_reason.take().is_some(), "stopReason");
            left_out(out.suppress_output.take().is_some(), "suppressOutput");
        }
        EventName::PostToolUse => left_out(out.suppress_output.take().is_some(), "suppressOutput"),
        _ => {}
    }
    match event {
        EventName::PreToolUse => fit_pre_tool_use(out, &mut notes),
        EventName::PermissionRequest => {
            let decision = out.specific.as_mut().and_then(|s| s.request_decision.as_mut());
            if let Some(decision) = decision {
                for key in ["updatedInput", "updatedPermissions", "interrupt"] {
                    if decision.raw.remove(key).is_some() {
                        notes.push(format!(
                            "PermissionRequest: `decision.{key}` left out: Codex does not support it"
                        ));
                    }
                }
            }
        }
        _ => {}
    }
    let out = std::mem::take(out);
    answer.stdout = Stdout::from(*out).into_line();
    (answer, notes)
}

/// Why Codex ignores this one hook's answer as a whole, if it does: its output parser's rules,
/// measured (`tests/hosts/codex/`). Codex then runs on as if the hook had said nothing, its
/// context included; `run --host codex` reads such an answer as dropped before the answers are
/// merged, so another hook's answer still counts as it would.
pub fn ignored_by_codex(event: &EventName, answer: &HookAnswer) -> Option<String> {
    match answer {
        HookAnswer::Blocking { stderr, json: None } if stderr.trim().is_empty() => {
            Some("a block by exit code 2 with nothing on stderr".into())
        }
        HookAnswer::Output(HookOutput::Json(json)) => match event.as_str() {
            "PreToolUse" => unsupported_universal(json, true).or_else(|| pre_tool_use_problem(json)),
            "PermissionRequest" => unsupported_universal(json, true).or_else(|| {
                let decision = &json.request_decision()?.raw;
                ["updatedInput", "updatedPermissions"]
                    .into_iter()
                    .find(|k| decision.get(*k).is_some())
                    .map(|k| format!("`decision.{k}` is not supported"))
                    .or_else(|| {
                        (decision.get("interrupt") == Some(&Value::Bool(true)))
                            .then(|| "`decision.interrupt: true` is not supported".to_string())
                    })
            }),
            "PostToolUse" => unsupported_universal(json, false),
            _ => None,
        },
        _ => None,
    }
}

/// `continue: false`, `stopReason` (where `all`) and `suppressOutput`, which Codex refuses.
fn unsupported_universal(json: &HookJson, all: bool) -> Option<String> {
    if all && json.continue_ == Some(false) {
        Some("`continue: false` is not supported".into())
    } else if all && json.stop_reason.is_some() {
        Some("`stopReason` is not supported".into())
    } else if json.suppress_output == Some(true) {
        Some("`suppressOutput` is not supported".into())
    } else {
        None
    }
}

fn pre_tool_use_problem(json: &HookJson) -> Option<String> {
    let has_reason = |r: Option<&str>| r.is_some_and(|r| !r.trim().is_empty());
    let decision = json.permission_decision();
    let reason = json.permission_decision_reason();
    let updated = json.updated_input().is_some();
    if decision.is_some() || reason.is_some() || updated {
        return match (decision, updated) {
            (Some(PermissionDecision::Allow), true) => None,
            (_, true) => Some("`updatedInput` without `permissionDecision: allow`".into()),
            (Some(PermissionDecision::Allow), false) => {
                Some("`permissionDecision: allow` without `updatedInput`".into())
            }
            (Some(PermissionDecision::Deny), _) if !has_reason(reason) => {
                Some("a deny without a reason".into())
            }
            (Some(PermissionDecision::Deny), _) => None,
            (Some(other), _) => Some(format!(
                "`permissionDecision: {}` is not supported",
                other.as_str()
            )),
            (None, _) => Some("a reason without a decision".into()),
        };
    }
    match json.decision {
        Some(TopDecision::Approve) => Some("`decision: approve` is not supported".into()),
        Some(TopDecision::Block) if !has_reason(json.reason.as_deref()) => {
            Some("a block without a reason".into())
        }
        None if json.reason.is_some() => Some("a reason without a decision".into()),
        _ => None,
    }
}

/// `answers` (in the order the hooks are configured) read as Codex reads them, with a note for
/// each change: those Codex would ignore as dropped; on SubagentStart, plain stdout as context;
/// on PermissionRequest, only the decision Codex follows.
pub fn admit(event: &EventName, answers: &mut [AnsweredHook]) -> Vec<String> {
    let mut notes = Vec::new();
    for answered in answers.iter_mut() {
        if let Some(why) = ignored_by_codex(event, &answered.answer) {
            notes.push(format!(
                "{event}: `{}`: Codex ignores this answer ({why}), and so does hookbridge",
                answered.label
            ));
            answered.answer =
                HookAnswer::Output(HookOutput::Dropped(format!("Codex ignores this answer: {why}")));
        }
        if *event == EventName::SubagentStart {
            notes.extend(plain_stdout_as_context(answered));
        }
    }
    if *event == EventName::PermissionRequest {
        notes.extend(keep_the_decision_codex_follows(answers));
    }
    notes
}

/// Codex reads a SubagentStart hook's plain stdout, trimmed, as context for the sub-agent, as it
/// does on SessionStart (measured: subagent_start_plain_stdout); Claude Code does not.
fn plain_stdout_as_context(answered: &mut AnsweredHook) -> Option<String> {
    let HookAnswer::Output(HookOutput::Plain(text)) = &answered.answer else {
        return None;
    };
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let json = HookJson {
        specific: Some(SpecificOutput {
            additional_context: Some(text.to_string()),
            ..SpecificOutput::default()
        }),
        ..HookJson::default()
    };
    answered.answer = HookAnswer::Output(HookOutput::Json(Box::new(json)));
    Some(format!(
        "SubagentStart: `{}`: its plain stdout is context, as Codex reads it",
        answered.label
    ))
}

/// Codex runs every PermissionRequest hook and follows the first deny in configuration order,
/// else an allow (openai/codex `resolve_permission_request_decision`; measured:
/// permission_allow_and_deny). Claude Code follows the first hook to decide. Every other hook's
/// decision is left out, so the merge follows the one Codex would.
fn keep_the_decision_codex_follows(answers: &mut [AnsweredHook]) -> Vec<String> {
    let decision_of = |a: &AnsweredHook| match &a.answer {
        HookAnswer::Output(HookOutput::Json(json)) => json.request_decision().map(|d| d.allow),
        _ => None,
    };
    let followed = answers
        .iter()
        .position(|a| decision_of(a) == Some(false))
        .or_else(|| answers.iter().position(|a| decision_of(a) == Some(true)));
    let mut notes = Vec::new();
    for (index, answered) in answers.iter_mut().enumerate() {
        if Some(index) == followed || decision_of(answered).is_none() {
            continue;
        }
        if let HookAnswer::Output(HookOutput::Json(json)) = &mut answered.answer {
            if let Some(specific) = json.specific.as_mut() {
                specific.request_decision = None;
            }
        }
        notes.push(format!(
            "PermissionRequest: `{}`: its decision is not followed (Codex follows the first deny, else an allow)",
            answered.label
        ));
    }
    notes
}

/// The answer Codex gets for `decision`: a block on a tool event as JSON (Codex shows a JSON block
/// and an exit-2 one alike, and reads no stdout beside an exit 2, so only JSON can carry the
/// context other hooks added, which Codex shows from separate hooks); anything else as Claude
/// Code's answer, fitted ([`fit`]).
pub fn render(
    event: &EventName,
    match_query: Option<&str>,
    decision: &EventDecision,
    own_command: &str,
) -> (ClaudeAnswer, Vec<String>) {
    // Codex shows each hook's context as a message of its own, in the order the hooks are
    // configured (measured: post_two_contexts); one answer carries one, so they are joined in
    // that order, without the labels Claude Code would have put between them.
    let mut additional: Vec<&Context> = decision
        .contexts
        .iter()
        .filter(|c| c.kind == ContextKind::AdditionalContext)
        .collect();
    additional.sort_by_key(|c| c.hook);
    let contexts: Vec<&str> = additional.iter().map(|c| c.text.as_str()).collect();
    let block = decision
        .blocking
        .as_ref()
        .map(|b| b.message().trim())
        .filter(|m| !m.is_empty());
    if let (Some(reason), false) = (block, contexts.is_empty()) {
        let context = Some(contexts.join("\n\n"));
        let mut out = HookJson::default();
        match event {
            EventName::PreToolUse => {
                let specific = out.specific_for(event);
                specific.permission_decision = Some(PermissionDecision::Deny);
                specific.permission_decision_reason = Some(reason.to_string());
                specific.additional_context = context;
            }
            EventName::PostToolUse => {
                out.decision = Some(TopDecision::Block);
                out.reason = Some(reason.to_string());
                out.specific_for(event).additional_context = context;
            }
            _ => {}
        }
        if !out.says_nothing() {
            let note = format!("{event}: a block and other hooks' context sent together as one JSON answer");
            let answer = ClaudeAnswer {
                exit_code: 0,
                stdout: Stdout::from(out).into_line(),
                stderr: String::new(),
            };
            return (answer, vec![note]);
        }
    }
    if contexts.len() < 2 {
        return fit(event, render_claude(event, match_query, decision, own_command));
    }
    let mut joined = decision.clone();
    let first = additional[0].clone();
    joined
        .contexts
        .retain(|c| c.kind != ContextKind::AdditionalContext);
    joined.contexts.push(Context {
        text: contexts.join("\n\n"),
        ..first
    });
    let (answer, mut notes) = fit(event, render_claude(event, match_query, &joined, own_command));
    notes.push(format!(
        "{event}: {} hooks' contexts joined into one (Codex would show each as a message of its own)",
        contexts.len()
    ));
    (answer, notes)
}

fn fit_pre_tool_use(out: &mut HookJson, notes: &mut Vec<String>) {
    let Some(specific) = out.specific.as_mut() else {
        return;
    };
    let has_reason = specific
        .permission_decision_reason
        .as_deref()
        .is_some_and(|r| !r.trim().is_empty());
    fn leave_out(specific: &mut SpecificOutput, notes: &mut Vec<String>, why: &str) {
        specific.permission_decision = None;
        specific.permission_decision_reason = None;
        specific.updated_input = None;
        notes.push(format!("PreToolUse: {why}"));
    }
    match (specific.permission_decision, specific.updated_input.is_some()) {
        (Some(PermissionDecision::Ask), _) => leave_out(
            specific,
            notes,
            "`ask` left out: Codex hooks cannot ask (Codex ignores it; its own approval policy decides)",
        ),
        (Some(PermissionDecision::Deny), _) => {
            specific.updated_input = None;
            if !has_reason {
                notes.push(
                    "PreToolUse: a deny without a reason: Codex ignores such a deny (as it would the hook's own)".into(),
                );
            }
        }
        (Some(PermissionDecision::Allow), true) => {}
        (_, true) => leave_out(
            specific,
            notes,
            "`updatedInput` left out: Codex applies it only with permissionDecision allow, and ignores it otherwise",
        ),
        (Some(other), false) => leave_out(
            specific,
            notes,
            &format!("permissionDecision `{}` left out: Codex supports it only with updatedInput (allow) or not at all (defer)", other.as_str()),
        ),
        (None, false) => {
            if specific.permission_decision_reason.take().is_some() {
                notes.push("PreToolUse: a reason without a decision left out".into());
            }
        }
    }
    if specific.is_empty() {
        out.specific = None;
    }
}

/// Codex CLI as a [`Host`](super::Host).
pub struct Codex;

/// `install-into codex`: `.codex/hooks.json`, in Claude Code's shape.
impl super::HostInstall for Codex {
    fn hooks_file(&self) -> super::HooksFile {
        super::HooksFile::Agent(super::AgentHooksFile {
            name: ".codex/hooks.json",
            events: EVENTS.iter().map(|e| (e.as_str(), e.clone())).collect(),
            per_second: 1,
        })
    }
}

impl super::Host for Codex {
    /// Codex fires Claude Code's events by their names (a later Codex may fire more of them).
    fn claude_event(&self, name: &str) -> Result<Option<EventName>, String> {
        EventName::parse(name).map(Some).map_err(|e| e.to_string())
    }

    fn claude_payload(&self, _event: &EventName, fields: Map<String, Value>) -> Map<String, Value> {
        fields
    }

    fn dispatch_options(&self, options: &mut hookbridge_runner::DispatchOptions) {
        // Codex runs every hook of an event and weighs all their answers.
        options.stop_once_decided = false;
    }

    /// Codex runs a project's hooks only in a project its user marked trusted
    /// (`[projects."<path>"] trust_level = "trusted"` in `$CODEX_HOME/config.toml`, default
    /// `~/.codex`): the project folder or the git repository it is in.
    fn folder_trust(&self, project: &std::path::Path, home: Option<&std::path::Path>) -> Result<(), String> {
        let codex_home = std::env::var_os("CODEX_HOME")
            .map(std::path::PathBuf::from)
            .or_else(|| home.map(|h| h.join(".codex")));
        let Some(config) = codex_home.map(|h| h.join("config.toml")) else {
            return Err("no Codex configuration to say the project is trusted".into());
        };
        let text = hookbridge_core::config::read_bounded(&config, hookbridge_core::config::MAX_CONFIG_BYTES)
            .map_err(|e| format!("{}: {e}", config.display()))?;
        let parsed: toml::Table = toml::from_str(&text).map_err(|e| format!("{}: {e}", config.display()))?;
        let projects = parsed.get("projects").and_then(toml::Value::as_table);
        let trusted = |path: &std::path::Path| {
            projects
                .and_then(|p| p.get(path.to_string_lossy().as_ref()))
                .and_then(|entry| entry.get("trust_level"))
                .and_then(toml::Value::as_str)
                == Some("trusted")
        };
        let real = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
        let repository = real.ancestors().find(|dir| dir.join(".git").exists());
        if trusted(&real) || trusted(project) || repository.is_some_and(trusted) {
            Ok(())
        } else {
            Err(format!("{} does not mark it trusted", config.display()))
        }
    }

    fn answer(
        &self,
        ctx: &super::AnswerContext<'_>,
        report: &hookbridge_runner::EventReport,
    ) -> (ClaudeAnswer, Vec<String>) {
        let mut answered: Vec<AnsweredHook> = report
            .hooks
            .iter()
            .map(hookbridge_runner::HookReport::answered)
            .collect();
        let mut notes = admit(&report.event, &mut answered);
        let decision = if notes.is_empty() {
            report.decision.clone()
        } else {
            hookbridge_core::decision::merge(&report.event, &answered)
        };
        let (answer, more) = render(
            &report.event,
            report.match_query.as_deref(),
            &decision,
            ctx.own_command,
        );
        notes.extend(more);
        (answer, notes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use serde_json::json;

    fn fitted(event: &str, stdout: Value) -> (Value, Vec<String>) {
        let event = EventName::parse(event).unwrap();
        let json = HookJson::from_object(&event, stdout.as_object().unwrap().clone());
        let answer = ClaudeAnswer {
            exit_code: 0,
            stdout: Stdout::from(json),
            stderr: String::new(),
        };
        let (out, notes) = fit(&event, answer);
        let value = if out.stdout.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&out.stdout.text()).unwrap()
        };
        (value, notes)
    }

    #[test]
    fn pre_tool_use_answers_are_fitted_to_what_codex_accepts() {
        let specific = |v: Value| json!({"hookSpecificOutput": v});
        let (out, notes) = fitted(
            "PreToolUse",
            json!({"continue": false, "stopReason": "s", "systemMessage": "m"}),
        );
        assert_eq!(out, json!({"systemMessage": "m"}));
        assert_eq!(notes.len(), 2);
        let (out, _) = fitted(
            "PreToolUse",
            specific(
                json!({"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "sure?"}),
            ),
        );
        assert_eq!(out, Value::Null, "ask is left out: Codex ignores it");
        let (out, notes) = fitted(
            "PreToolUse",
            specific(json!({"hookEventName": "PreToolUse", "updatedInput": {"command": "ls -a"}})),
        );
        assert_eq!(
            (out, notes.len()),
            (Value::Null, 1),
            "Codex applies updatedInput only with allow"
        );
        let rewrite = specific(
            json!({"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "ls -a"}}),
        );
        assert_eq!(fitted("PreToolUse", rewrite.clone()), (rewrite, vec![]));
        let (out, notes) = fitted(
            "PreToolUse",
            specific(
                json!({"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "ok"}),
            ),
        );
        assert_eq!((out, notes.len()), (Value::Null, 1));
        let bare_deny = specific(json!({"hookEventName": "PreToolUse", "permissionDecision": "deny"}));
        let (out, notes) = fitted("PreToolUse", bare_deny.clone());
        assert_eq!(
            (out, notes.len()),
            (bare_deny, 1),
            "left for Codex to ignore, and logged"
        );
        let (out, notes) = fitted(
            "PreToolUse",
            specific(json!({"hookEventName": "PreToolUse", "additionalContext": "c"})),
        );
        assert_eq!(
            (out, notes),
            (
                specific(json!({"hookEventName": "PreToolUse", "additionalContext": "c"})),
                vec![]
            )
        );
    }

    #[test]
    fn other_events_lose_only_what_codex_refuses() {
        let (out, _) = fitted(
            "PermissionRequest",
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
            "decision": {"behavior": "allow", "updatedInput": {}, "interrupt": true}}}),
        );
        assert_eq!(
            out["hookSpecificOutput"]["decision"],
            json!({"behavior": "allow"})
        );
        let (out, _) = fitted(
            "PostToolUse",
            json!({"decision": "block", "reason": "r", "suppressOutput": true}),
        );
        assert_eq!(out, json!({"decision": "block", "reason": "r"}));
        let (out, notes) = fitted("Stop", json!({"decision": "block", "reason": "go on"}));
        assert_eq!(
            (out, notes),
            (json!({"decision": "block", "reason": "go on"}), vec![])
        );
        let silent = ClaudeAnswer {
            exit_code: 2,
            stdout: Stdout::default(),
            stderr: String::new(),
        };
        let (blocked, notes) = fit(&EventName::parse("PreToolUse").unwrap(), silent.clone());
        assert_eq!(
            (blocked, notes.len()),
            (silent, 1),
            "left for Codex to ignore, and logged"
        );
    }

    fn answered(event: &EventName, label: &str, finish_order: usize, stdout: &str) -> AnsweredHook {
        let answer = match serde_json::from_str::<Value>(stdout) {
            Ok(Value::Object(map)) => HookOutput::Json(Box::new(HookJson::from_object(event, map))),
            _ => HookOutput::Plain(stdout.to_string()),
        };
        AnsweredHook {
            answer: HookAnswer::Output(answer),
            finish_order,
            on_failure: hookbridge_core::config::OnFailure::Continue,
            label: label.into(),
            must_succeed: false,
        }
    }

    /// Codex follows the first deny in configuration order, else an allow, whichever hook
    /// finished first; Claude Code's merge would follow the first to finish.
    #[test]
    fn a_permission_request_follows_the_decision_codex_follows() {
        let event = EventName::PermissionRequest;
        let decision = |behavior: &str, message: &str| {
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                "decision": {"behavior": behavior, "message": message}}})
            .to_string()
        };
        let cases = [
            // (configured hooks as (label, finish order, decision)), the decision Codex follows
            (vec![("a", 0, "allow"), ("d", 1, "deny")], Some("d")),
            (
                vec![("d1", 1, "deny"), ("d2", 0, "deny"), ("a", 2, "allow")],
                Some("d1"),
            ),
            (vec![("a1", 1, "allow"), ("a2", 0, "allow")], Some("a1")),
            (vec![("x", 0, "ask")], None),
        ];
        for (hooks, followed) in cases {
            let mut answers: Vec<AnsweredHook> = hooks
                .iter()
                .map(|(label, order, behavior)| answered(&event, label, *order, &decision(behavior, label)))
                .collect();
            admit(&event, &mut answers);
            let merged = hookbridge_core::decision::merge(&event, &answers);
            let message = merged
                .permission_request
                .as_ref()
                .and_then(|d| d.get("message"))
                .and_then(Value::as_str);
            assert_eq!(message, followed, "{hooks:?}");
        }
    }

    #[test]
    fn subagent_start_plain_stdout_is_context_for_codex() {
        let event = EventName::SubagentStart;
        let mut answers = vec![
            answered(&event, "plain", 0, "answer in French\n"),
            answered(&event, "blank", 1, "  \n"),
        ];
        let notes = admit(&event, &mut answers);
        assert_eq!(notes.len(), 1, "{notes:?}");
        let merged = hookbridge_core::decision::merge(&event, &answers);
        let contexts: Vec<&str> = merged.contexts.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(contexts, ["answer in French"]);
        // Claude Code's own reading of the same answers: no context.
        let claude = [answered(&event, "plain", 0, "answer in French\n")];
        assert!(hookbridge_core::decision::merge(&event, &claude)
            .contexts
            .is_empty());
    }

    #[test]
    fn answers_codex_would_ignore_are_dropped_before_the_merge() {
        let event = EventName::parse("PreToolUse").unwrap();
        let json_answer = |v: Value| {
            HookAnswer::Output(HookOutput::Json(Box::new(HookJson::from_object(
                &event,
                v.as_object().unwrap().clone(),
            ))))
        };
        let specific = |v: Value| json!({"hookSpecificOutput": v});
        let ignored = [
            specific(
                json!({"hookEventName": "PreToolUse", "permissionDecision": "ask", "additionalContext": "c"}),
            ),
            specific(json!({"hookEventName": "PreToolUse", "permissionDecision": "allow"})),
            specific(json!({"hookEventName": "PreToolUse", "updatedInput": {"command": "ls"}})),
            specific(json!({"hookEventName": "PreToolUse", "permissionDecision": "deny"})),
            json!({"continue": false}),
            json!({"decision": "approve"}),
            json!({"decision": "block"}),
        ];
        for answer in ignored {
            assert!(
                ignored_by_codex(&event, &json_answer(answer.clone())).is_some(),
                "{answer}"
            );
        }
        let honoured = [
            specific(
                json!({"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "r"}),
            ),
            specific(
                json!({"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {}}),
            ),
            specific(json!({"hookEventName": "PreToolUse", "additionalContext": "c"})),
            json!({"decision": "block", "reason": "r"}),
            json!({"systemMessage": "m"}),
        ];
        for answer in honoured {
            assert_eq!(
                ignored_by_codex(&event, &json_answer(answer.clone())),
                None,
                "{answer}"
            );
        }
        let silent_block = HookAnswer::Blocking {
            stderr: " \n".into(),
            json: None,
        };
        assert!(ignored_by_codex(&event, &silent_block).is_some());
        let post = EventName::parse("PostToolUse").unwrap();
        assert_eq!(
            ignored_by_codex(&post, &json_answer(json!({"continue": false}))),
            None
        );
    }
}
