//! One reader per agent: its files → [`Migrated`] (Claude Code events and matcher groups), with a
//! note for everything that cannot be carried over.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::{read_json, Migrated, Places};
use crate::agents::{Agent, AgentId};
use crate::hosts::{gemini, EventTable};
use crate::install_into::claude_settings::is_hookbridge_run;
use crate::install_into::shell_quote;
use hookbridge_core::event::EventName;
use hookbridge_core::tool_names::GEMINI_TOOL_NAMES;

/// The files an agent's hooks are read from, for `places`.
pub fn looked_in(agent: AgentId, places: &Places) -> Vec<PathBuf> {
    let base = |dir: &str| -> Option<PathBuf> {
        if places.user {
            places.home.as_ref().map(|h| h.join(dir))
        } else {
            Some(places.project.join(dir))
        }
    };
    let files: Vec<Option<PathBuf>> = match agent {
        AgentId::Claude if places.user => vec![base(".claude").map(|d| d.join("settings.json"))],
        AgentId::Claude => vec![
            base(".claude").map(|d| d.join("settings.json")),
            base(".claude").map(|d| d.join("settings.local.json")),
        ],
        AgentId::Gemini => vec![base(".gemini").map(|d| d.join("settings.json"))],
        AgentId::Codex => vec![base(".codex").map(|d| d.join("hooks.json"))],
        AgentId::Cursor => vec![base(".cursor").map(|d| d.join("hooks.json"))],
        // Amplifier's hooks are hookbridge's own: nothing to migrate (`--from` does not offer it).
        AgentId::Amplifier => Vec::new(),
        AgentId::Copilot if places.user => Vec::new(),
        AgentId::Copilot => {
            let dir = places.project.join(".github/hooks");
            let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
                .into_iter()
                .flatten()
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "json"))
                .collect();
            found.sort();
            if found.is_empty() {
                found.push(dir.join("*.json"));
            }
            found.into_iter().map(Some).collect()
        }
    };
    files.into_iter().flatten().collect()
}

pub fn read(agent: &Agent, places: &Places) -> anyhow::Result<Migrated> {
    let (display_name, agent) = (agent.display_name, agent.id);
    let mut migrated = Migrated::default();
    if agent == AgentId::Copilot && places.user {
        migrated
            .note("GitHub Copilot reads hooks from the repository only (.github/hooks/); run without --user");
    }
    for file in looked_in(agent, places) {
        let Some(value) = read_json(&file)? else { continue };
        migrated.read.push(file.clone());
        match agent {
            AgentId::Claude | AgentId::Codex => claude_shaped(agent, &file, &value, &mut migrated),
            AgentId::Gemini => gemini(&file, &value, &mut migrated),
            AgentId::Cursor => cursor(&file, &value, &mut migrated),
            AgentId::Copilot => copilot(&file, &value, &mut migrated),
            AgentId::Amplifier => {}
        }
    }
    if agent == AgentId::Codex {
        let toml = if places.user {
            places.home.as_ref().map(|h| h.join(".codex/config.toml"))
        } else {
            Some(places.project.join(".codex/config.toml"))
        };
        if let Some(file) = toml {
            codex_config_toml(&file, &mut migrated)?;
        }
    }
    if agent != AgentId::Claude && !migrated.read.is_empty() {
        migrated.note(format!(
            "these hooks were written for {display_name}'s payloads and answers; under hookbridge they receive Claude Code's (`tool_name` \"Bash\", `tool_input`, …) and are read with Claude Code's rules: check each script"
        ));
    }
    Ok(migrated)
}

/// Claude Code settings and Codex hooks.json: Claude Code's shape, taken verbatim (hookbridge's own
/// registrations left out).
fn claude_shaped(agent: AgentId, file: &Path, value: &Value, out: &mut Migrated) {
    let Some(hooks) = value.get("hooks") else { return };
    let Some(events) = hooks.as_object() else {
        out.note(format!("{}: `hooks` is not an object", file.display()));
        return;
    };
    if agent == AgentId::Claude && value.get("disableAllHooks") == Some(&Value::Bool(true)) {
        out.note(format!(
            "{}: disableAllHooks is true there; the hooks are migrated anyway (hookbridge runs them)",
            file.display()
        ));
    }
    for (event, groups) in events {
        let Some(groups) = groups.as_array() else {
            out.note(format!(
                "{}: `hooks.{event}` is not a list; left out",
                file.display()
            ));
            continue;
        };
        for group in groups {
            let mut group = group.clone();
            if let Some(list) = group.get_mut("hooks").and_then(Value::as_array_mut) {
                list.retain(|h| {
                    !h.get("command")
                        .and_then(Value::as_str)
                        .is_some_and(|command| is_hookbridge_run(command, event))
                });
                if list.is_empty() {
                    continue;
                }
            }
            out.add_group(event, group);
        }
    }
}

/// Codex's `config.toml`: its `[hooks]` table holds the same events and matcher groups as
/// hooks.json (`[[hooks.PreToolUse]]`, `[[hooks.PreToolUse.hooks]]`), beside a `state` table of
/// per-hook switches. Codex loads both files of a layer, so both are migrated.
fn codex_config_toml(file: &Path, out: &mut Migrated) -> anyhow::Result<()> {
    let Some(text) = crate::files::read_if_exists(file)? else {
        return Ok(());
    };
    let config: Value = toml::from_str(&text).map_err(|e| {
        let at = e
            .span()
            .map(|span| {
                let before = &text[..span.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
                format!(":{line}:{column}")
            })
            .unwrap_or_default();
        anyhow::anyhow!("{}{at}: not valid TOML: {}", file.display(), e.message())
    })?;
    let Some(hooks) = config.get("hooks") else {
        return Ok(());
    };
    out.read.push(file.to_path_buf());
    let Some(table) = hooks.as_object() else {
        out.note(format!("{}: `hooks` is not a table", file.display()));
        return Ok(());
    };
    let mut events = table.clone();
    if let Some(state) = events.remove("state") {
        let off: Vec<&str> = state
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(_, s)| s.get("enabled") == Some(&Value::Bool(false)))
            .map(|(key, _)| key.as_str())
            .collect();
        if !off.is_empty() {
            out.note(format!(
                "{}: `hooks.state` switches off {}; migrated hooks are on (switch one off with `hookbridge disable EVENT:LABEL`)",
                file.display(),
                off.join(", ")
            ));
        }
    }
    claude_shaped(AgentId::Codex, file, &json!({ "hooks": events }), out);
    Ok(())
}

/// Cursor's tool names → Claude Code's.
const CURSOR_TOOLS: &[(&str, &str)] = &[
    ("Shell", "Bash"),
    ("Write", "Write"),
    ("StrReplace", "Edit"),
    ("Edit", "Edit"),
    ("Read", "Read"),
    ("Grep", "Grep"),
    ("Glob", "Glob"),
    ("Delete", "Bash"),
];

/// `a|b|c` with each name translated by `table`; `None` when the matcher is not such a list or a
/// name is not in the table.
fn translate_tools(matcher: &str, table: &[(&str, &str)]) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for name in matcher.split('|').map(str::trim) {
        let (_, claude) = table.iter().find(|(theirs, _)| *theirs == name)?;
        if !out.contains(claude) {
            out.push(claude);
        }
    }
    Some(out.join("|"))
}

/// `matcher` with the agent's tool names translated: a list of known names as [`translate_tools`]
/// does; else, as a regular expression, each name of `table` in it that stands as a whole word
/// (`^run_shell_command$` → `^Bash$`), said in a note, as a guard whose matcher no longer names
/// the tool would never fire. `None`: no name of the table in it.
fn translated_matcher(
    file: &Path,
    event: &str,
    matcher: &str,
    table: &[(&str, &str)],
    out: &mut Migrated,
) -> Option<String> {
    if let Some(list) = translate_tools(matcher, table) {
        return Some(list);
    }
    let mut translated = String::with_capacity(matcher.len());
    let mut word = String::new();
    let flush = |word: &mut String, translated: &mut String| {
        let name = table.iter().find(|(theirs, _)| *theirs == word.as_str());
        translated.push_str(name.map_or(word.as_str(), |(_, claude)| claude));
        word.clear();
    };
    for c in matcher.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut translated);
            translated.push(c);
        }
    }
    flush(&mut word, &mut translated);
    if translated == matcher {
        return None;
    }
    out.note(format!(
        "{}: {event} matcher `{matcher}` is read as the regular expression `{translated}`, the agent's tool names in it replaced by Claude Code's; check that it matches what it did",
        file.display()
    ));
    Some(translated)
}

const CURSOR_EVENTS: EventTable = &[
    ("beforeShellExecution", EventName::PreToolUse, Some("Bash")),
    ("afterShellExecution", EventName::PostToolUse, Some("Bash")),
    ("beforeMCPExecution", EventName::PreToolUse, Some("mcp__.*")),
    ("afterMCPExecution", EventName::PostToolUse, Some("mcp__.*")),
    (
        "afterFileEdit",
        EventName::PostToolUse,
        Some("Write|Edit|MultiEdit|NotebookEdit"),
    ),
    ("beforeReadFile", EventName::PreToolUse, Some("Read")),
    ("preToolUse", EventName::PreToolUse, None),
    ("postToolUse", EventName::PostToolUse, None),
    ("postToolUseFailure", EventName::PostToolUseFailure, None),
    ("beforeSubmitPrompt", EventName::UserPromptSubmit, None),
    ("stop", EventName::Stop, None),
    ("sessionStart", EventName::SessionStart, None),
    ("sessionEnd", EventName::SessionEnd, None),
    ("subagentStart", EventName::SubagentStart, None),
    ("subagentStop", EventName::SubagentStop, None),
    ("preCompact", EventName::PreCompact, None),
];

const COPILOT_EVENTS: EventTable = &[
    ("sessionStart", EventName::SessionStart, None),
    ("sessionEnd", EventName::SessionEnd, None),
    ("userPromptSubmitted", EventName::UserPromptSubmit, None),
    ("preToolUse", EventName::PreToolUse, None),
    ("postToolUse", EventName::PostToolUse, None),
    ("agentStop", EventName::Stop, None),
    ("subagentStop", EventName::SubagentStop, None),
];

/// The `hooks` events of `value` that `table` maps: (their name, Claude Code's, implied matcher,
/// entries). Every other event is noted as left out (`why` says why for that agent); names in
/// `switches` are settings, not events, and are passed over.
fn mapped_events<'a>(
    file: &Path,
    value: &'a Value,
    table: EventTable,
    switches: &[&str],
    why: &str,
    out: &mut Migrated,
) -> Vec<(&'a str, &'static str, Option<&'static str>, &'a Value)> {
    let Some(events) = value.get("hooks").and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut mapped = Vec::new();
    for (event, entries) in events {
        if switches.contains(&event.as_str()) {
            continue;
        }
        match table.iter().find(|(theirs, _, _)| theirs == event) {
            Some((_, claude, matcher)) => mapped.push((event.as_str(), claude.as_str(), *matcher, entries)),
            None => out.note(format!(
                "{}: `{event}` has no Claude Code event{why}; its hooks are left out",
                file.display()
            )),
        }
    }
    mapped
}

fn gemini(file: &Path, value: &Value, out: &mut Migrated) {
    let why = " (BeforeModel, AfterModel and BeforeToolSelection see the model's request)";
    // `enabled`/`disabled`/`notifications`: the older shape's switches, not events.
    let switches = ["enabled", "disabled", "notifications"];
    for (event, claude_event, _, groups) in mapped_events(file, value, gemini::EVENTS, &switches, why, out) {
        for group in groups.as_array().into_iter().flatten() {
            let matcher = group
                .get("matcher")
                .and_then(Value::as_str)
                .filter(|m| !m.is_empty() && *m != "*");
            let matcher = match (matcher, claude_event) {
                (Some(m), "PreToolUse" | "PostToolUse") => Some(translated_matcher(file, event, m, GEMINI_TOOL_NAMES, out).unwrap_or_else(|| {
                    out.note(format!(
                        "{}: {event} matcher `{m}` is kept as written; it names Gemini's tools, translate it to Claude Code's (run_shell_command → Bash, write_file → Write, replace → Edit, …)",
                        file.display()
                    ));
                    m.to_string()
                })),
                (m, _) => m.map(str::to_string),
            };
            if group.get("sequential") == Some(&Value::Bool(true)) {
                out.note(format!(
                    "{}: a {event} group is `sequential`; hookbridge runs hooks in parallel, as Claude Code does",
                    file.display()
                ));
            }
            for hook in group.get("hooks").and_then(Value::as_array).into_iter().flatten() {
                let Some(command) = hook.get("command").and_then(Value::as_str) else {
                    out.note(format!(
                        "{}: a {event} hook without `command` is left out",
                        file.display()
                    ));
                    continue;
                };
                let mut converted = json!({"type": "command", "command": command, "answers": "gemini"});
                if let Some(ms) = hook.get("timeout").and_then(Value::as_f64) {
                    converted["timeout"] = seconds(ms / 1000.0);
                }
                out.add(claude_event, matcher.clone(), converted);
            }
        }
    }
}

fn cursor(file: &Path, value: &Value, out: &mut Migrated) {
    for (event, claude_event, fixed_matcher, entries) in
        mapped_events(file, value, CURSOR_EVENTS, &[], "", out)
    {
        for entry in entries.as_array().into_iter().flatten() {
            if entry
                .get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| t != "command")
            {
                out.note(format!(
                    "{}: a {event} hook of type `{}` is left out",
                    file.display(),
                    entry["type"]
                ));
                continue;
            }
            let Some(command) = entry.get("command").and_then(Value::as_str) else {
                out.note(format!(
                    "{}: a {event} hook without `command` is left out",
                    file.display()
                ));
                continue;
            };
            let matcher = match (fixed_matcher, entry.get("matcher").and_then(Value::as_str)) {
                (Some(fixed), _) => Some(fixed.to_string()),
                (None, Some(m)) if claude_event.contains("ToolUse") => {
                    Some(translated_matcher(file, event, m, CURSOR_TOOLS, out).unwrap_or_else(|| {
                        out.note(format!(
                            "{}: {event} matcher `{m}` is kept as written; translate Cursor's tool names to Claude Code's",
                            file.display()
                        ));
                        m.to_string()
                    }))
                }
                (None, m) => m.map(str::to_string),
            };
            if command.starts_with("./") || command.starts_with("hooks/") {
                out.note(format!(
                    "{}: `{command}` is relative; Cursor resolves it from the hooks file's folder, hookbridge runs hooks in the project directory",
                    file.display()
                ));
            }
            if entry.get("loop_limit").is_some() {
                out.note(format!(
                    "{}: `loop_limit` of a {event} hook has no equivalent; left out",
                    file.display()
                ));
            }
            let mut converted = json!({"type": "command", "command": command, "answers": "cursor"});
            if let Some(secs) = entry.get("timeout").and_then(Value::as_f64) {
                converted["timeout"] = seconds(secs);
            }
            out.add(claude_event, matcher, converted);
        }
    }
}

fn copilot(file: &Path, value: &Value, out: &mut Migrated) {
    for (event, claude_event, _, entries) in mapped_events(file, value, COPILOT_EVENTS, &[], "", out) {
        for entry in entries.as_array().into_iter().flatten() {
            let Some(bash) = entry.get("bash").and_then(Value::as_str) else {
                out.note(format!(
                    "{}: a {event} hook with no `bash` command (PowerShell only?) is left out",
                    file.display()
                ));
                continue;
            };
            let mut command = String::new();
            if let Some(cwd) = entry.get("cwd").and_then(Value::as_str) {
                command.push_str(&format!("cd {} && ", shell_quote(cwd)));
            }
            let env: Map<String, Value> = entry
                .get("env")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            for (name, value) in &env {
                // Only a name a shell can assign: anything else would be run as part of the command.
                let assignable = name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if !assignable {
                    out.note(format!(
                        "{}: a {event} hook's `env` names {}, which is not a variable name; it is left out",
                        file.display(),
                        shell_quote(name)
                    ));
                    continue;
                }
                let text = value
                    .as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| value.to_string());
                command.push_str(&format!("{name}={} ", shell_quote(&text)));
            }
            command.push_str(bash);
            let mut converted = json!({"type": "command", "command": command, "answers": "copilot"});
            if let Some(secs) = entry.get("timeoutSec").and_then(Value::as_f64) {
                converted["timeout"] = seconds(secs);
            }
            out.add(claude_event, None, converted);
        }
    }
}

/// A timeout in seconds: a whole number when it is one (`5`, not `5.0`).
fn seconds(secs: f64) -> Value {
    if secs.fract() == 0.0 && secs >= 0.0 && secs < u64::MAX as f64 {
        json!(secs as u64)
    } else {
        json!(secs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_lists_translate_only_when_every_name_is_known() {
        assert_eq!(
            translate_tools("run_shell_command", GEMINI_TOOL_NAMES).as_deref(),
            Some("Bash")
        );
        assert_eq!(
            translate_tools("write_file|replace", GEMINI_TOOL_NAMES).as_deref(),
            Some("Write|Edit")
        );
        assert_eq!(
            translate_tools("read_file|read_many_files", GEMINI_TOOL_NAMES).as_deref(),
            Some("Read")
        );
        assert_eq!(translate_tools("run_.*", GEMINI_TOOL_NAMES), None);
        assert_eq!(
            translate_tools("Shell|StrReplace", CURSOR_TOOLS).as_deref(),
            Some("Bash|Edit")
        );
    }
}
