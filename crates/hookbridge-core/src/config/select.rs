//! Which hooks one event reaches: matcher, `if` condition, and Claude Code's de-duplication.
//!
//! Selection is pure and cheap (the no-match path must cost well under a microsecond): it walks the
//! event's groups in declaration order, tests each compiled matcher against the payload's match
//! query, and collapses identical handlers the way Claude Code does — the same command string in
//! several groups or in both user and project config runs once; a plugin's copy is its own.
//! Hooks that are passed over for a reason a user should know (invalid matcher, duplicate, `if` on
//! a non-tool event, hooks disabled) are returned as [`SkippedHook`]s, never dropped silently.

use std::path::PathBuf;

use crate::event::{EventName, EventPayload, EventTraits, ToolCall};
use crate::matcher::{Decided, Matcher};

use super::model::{HookId, HookKind, HookSet, HookSpec, Scope};

/// Why a configured hook did not run for an event it was registered for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    /// A config file set `disableAllHooks: true`.
    AllHooksDisabled { by: PathBuf },
    /// `hookbridge disable` switched it (or its plugin) off.
    Disabled(super::Disabled),
    /// The group's matcher is not a valid regular expression.
    InvalidMatcher { message: String },
    /// `if` on an event that is not a tool event: Claude Code never runs such a hook.
    ConditionOnNonToolEvent,
    /// A shell command names `${CLAUDE_PLUGIN_ROOT}`/`${CLAUDE_PLUGIN_DATA}` but is not part of a
    /// plugin: Claude Code does not run it (case 188).
    PluginVariableOutsidePlugin,
    /// An identical handler is declared again; it runs once, with the later declaration's options.
    Duplicate { of: HookId },
    /// An `http` hook on an event Claude Code runs none on (SessionStart, Setup).
    HttpNotOnThisEvent,
    /// Held by trust or managed policy.
    Held(super::Held),
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::AllHooksDisabled { by } => write!(f, "all hooks are disabled by {}", by.display()),
            SkipReason::Disabled(disabled) => write!(f, "{disabled}"),
            SkipReason::InvalidMatcher { message } => write!(f, "{message}"),
            SkipReason::ConditionOnNonToolEvent => f.write_str("`if` is set on a non-tool event: never runs"),
            SkipReason::PluginVariableOutsidePlugin => f.write_str(
                "uses ${CLAUDE_PLUGIN_ROOT} or ${CLAUDE_PLUGIN_DATA} outside a plugin folder: never runs (as in Claude Code)",
            ),
            SkipReason::Held(held) => write!(f, "{held}"),
            SkipReason::HttpNotOnThisEvent => {
                f.write_str("http hooks never run on this event (as in Claude Code)")
            }
            SkipReason::Duplicate { of } => {
                write!(f, "runs once as the identical hook {}:{}:{} (declared later; its options apply)", of.source, of.group, of.index)
            }
        }
    }
}

#[derive(Debug, Clone)]
pub struct SkippedHook<'a> {
    pub hook: &'a HookSpec,
    pub reason: SkipReason,
}

/// The hooks an event reaches, in declaration order, and the ones passed over.
#[derive(Debug, Clone, Default)]
pub struct Selection<'a> {
    pub hooks: Vec<&'a HookSpec>,
    pub skipped: Vec<SkippedHook<'a>>,
    /// The set's limits on http hooks (`None`: a selection made by hand, no limits).
    pub http_policy: Option<&'a super::HttpPolicy>,
    /// What the event should say of the selection itself: a matcher that could not be decided
    /// ([`Decided::Undecided`](crate::matcher::Decided)), whose hooks were selected as if it
    /// matched.
    pub warnings: Vec<String>,
}

impl<'a> Selection<'a> {
    /// Adds a hook that runs. Identical handlers run once, at the first one's place, with the
    /// options (timeout, async, …) of the one Claude Code reads last: project settings over user
    /// settings, and within a scope the later declaration (cases 181, 184, 190).
    fn add(&mut self, hook: &'a HookSpec) {
        let Some(slot) = self.hooks.iter_mut().find(|h| same_handler(h, hook)) else {
            self.hooks.push(hook);
            return;
        };
        if scope_rank(hook) >= scope_rank(slot) {
            let earlier = std::mem::replace(slot, hook);
            self.skipped.push(SkippedHook {
                hook: earlier,
                reason: SkipReason::Duplicate { of: hook.id },
            });
        } else {
            let kept = slot.id;
            self.skipped.push(SkippedHook {
                hook,
                reason: SkipReason::Duplicate { of: kept },
            });
        }
    }
}

/// A group whose regex is never run: every hook of it is held (a project not trusted, a managed
/// policy). Whoever wrote an untrusted file must not get to run anything, a regex that backtracks
/// without end included; such a group is passed over without a word (the held hooks are counted
/// and told of when the hooks load), as a regex that does not match is.
fn never_tried(group: &super::model::MatcherGroup) -> bool {
    matches!(group.matcher, Ok(Matcher::Regex { .. })) && group.hooks.iter().all(|h| h.held.is_some())
}

impl HookSet {
    /// Select the hooks `payload`'s event reaches.
    pub fn select<'a>(&'a self, payload: &EventPayload) -> Selection<'a> {
        let mut selection = Selection {
            http_policy: Some(&self.http_policy),
            ..Selection::default()
        };
        let Some(groups) = self.events.get(payload.event()) else {
            return selection;
        };
        if let Some(by) = &self.disabled_by {
            for g in groups {
                for hook in &g.hooks {
                    selection.skipped.push(SkippedHook {
                        hook,
                        reason: SkipReason::AllHooksDisabled { by: by.clone() },
                    });
                }
            }
            return selection;
        }
        let traits = payload.event().traits();
        let query = payload.match_query();
        let tool = payload.tool_call();
        for i in self.candidate_groups(payload.event(), query.as_deref()) {
            let group = &groups[i];
            if never_tried(group) {
                continue;
            }
            let matches = match (&group.matcher, &query) {
                (Err(e), _) => {
                    for hook in &group.hooks {
                        selection.skipped.push(SkippedHook {
                            hook,
                            reason: SkipReason::InvalidMatcher {
                                message: e.to_string(),
                            },
                        });
                    }
                    continue;
                }
                (Ok(_), None) => true,
                (Ok(m), Some(q)) => match m.decide(q) {
                    Decided::Match => true,
                    Decided::NoMatch => false,
                    Decided::Undecided(why) => {
                        selection.warnings.push(why);
                        true
                    }
                },
            };
            if !matches {
                continue;
            }
            for hook in &group.hooks {
                match self.gate(hook, &traits, tool.as_ref(), payload) {
                    Ok(()) => selection.add(hook),
                    Err(Some(reason)) => selection.skipped.push(SkippedHook { hook, reason }),
                    Err(None) => {}
                }
            }
        }
        selection
    }

    /// Whether `hook`, in a group whose matcher matched, runs: `Ok`, or passed over with the
    /// reason reported (`Err(Some)`), or silently (`Err(None)`: its `if` does not match the call).
    fn gate(
        &self,
        hook: &HookSpec,
        traits: &EventTraits,
        tool: Option<&ToolCall<'_>>,
        payload: &EventPayload,
    ) -> Result<(), Option<SkipReason>> {
        if let (Some(by), Scope::Project) = (&self.project_hooks_disabled_by, hook.source.scope) {
            return Err(Some(SkipReason::AllHooksDisabled { by: by.clone() }));
        }
        if let Some(held) = &hook.held {
            return Err(Some(SkipReason::Held(held.clone())));
        }
        if let Some(disabled) = &hook.disabled {
            return Err(Some(SkipReason::Disabled(disabled.clone())));
        }
        if matches!(hook.kind, HookKind::Http(_)) && !traits.runs_http_hooks {
            return Err(Some(SkipReason::HttpNotOnThisEvent));
        }
        if matches!(&hook.kind, HookKind::Command(c) if c.plugin_variable_outside_plugin) {
            return Err(Some(SkipReason::PluginVariableOutsidePlugin));
        }
        if let Some(cond) = &hook.condition {
            if !traits.is_tool_event {
                return Err(Some(SkipReason::ConditionOnNonToolEvent));
            }
            if let Some(call) = tool {
                if !cond.matches(
                    call.tool_name,
                    call.tool_input,
                    payload.cwd(),
                    self.home.as_deref(),
                ) {
                    return Err(None);
                }
            }
        }
        Ok(())
    }

    /// Whether [`select`](Self::select) can return anything (a hook to run or one passed over)
    /// for a payload of `event` whose match query is `query` (`None`: the event has no match
    /// target, or it is not known yet). `false` is a promise: no such payload reaches or reports
    /// any hook, whatever its other fields, since after the matcher every rule (`if`, duplicates)
    /// only narrows or reports. A host can decide this before it builds the payload.
    pub fn reaches_any(&self, event: &EventName, query: Option<&str>) -> bool {
        let Some(groups) = self.events.get(event) else {
            return false;
        };
        if self.disabled_by.is_some() {
            return groups.iter().any(|g| !g.hooks.is_empty());
        }
        self.candidate_groups(event, query).into_iter().any(|i| {
            let group = &groups[i];
            !group.hooks.is_empty()
                && !never_tried(group)
                && match (&group.matcher, query) {
                    (Err(_), _) | (Ok(_), None) => true,
                    (Ok(m), Some(q)) => m.is_match(q),
                }
        })
    }

    /// The indices of `event`'s groups that `query` may match, in declaration order: with a
    /// match target, the groups its exact name reaches merged with those that need evaluating;
    /// without one, every group.
    fn candidate_groups(&self, event: &EventName, query: Option<&str>) -> Vec<usize> {
        match (query, self.index.get(event)) {
            (Some(q), Some(index)) => {
                let exact = index.exact.get(q).map(Vec::as_slice).unwrap_or(&[]);
                let eligible = index
                    .evaluate
                    .iter()
                    .filter(|c| c.min_query_len <= q.len())
                    .map(|c| c.group);
                merge_sorted(exact, eligible)
            }
            _ => (0..self.events.get(event).map_or(0, Vec::len)).collect(),
        }
    }

    /// True if no event has any hook: the caller can skip everything else.
    pub fn is_empty(&self) -> bool {
        self.events
            .values()
            .all(|groups| groups.iter().all(|g| g.hooks.is_empty()))
    }
}

/// Two ascending index lists merged into one, ascending.
fn merge_sorted(a: &[usize], b: impl Iterator<Item = usize>) -> Vec<usize> {
    // No allocation unless something is a candidate (the usual no-match case has none).
    let mut out = Vec::new();
    let mut a = a.iter().copied().peekable();
    for y in b {
        while let Some(x) = a.next_if(|&x| x <= y) {
            out.push(x);
        }
        out.push(y);
    }
    out.extend(a);
    out
}

/// Claude Code reads user settings before project settings; the later one's options win.
/// Which copy of identical handlers is kept: the higher scope's, so that a project can never
/// change its user's hook (make it async, shorten its timeout) by declaring it again. Claude Code
/// keeps the project's copy (measured, cases 184 and 187); hookbridge does not, on purpose.
fn scope_rank(hook: &HookSpec) -> u8 {
    match hook.source.scope {
        Scope::Project => 0,
        Scope::User => 1,
        Scope::Explicit => 2,
        Scope::Managed => 3,
    }
}

/// Claude Code runs identical handlers once: same type and command (or URL/prompt), same arguments.
/// Plugin hooks are only collapsed within the same plugin.
fn same_handler(a: &HookSpec, b: &HookSpec) -> bool {
    let plugin_root = |h: &HookSpec| h.source.plugin.as_ref().map(|p| p.root.clone());
    // The `if` rule is part of a handler's identity: the same command with and without one runs
    // twice when both apply (case 183).
    if plugin_root(a) != plugin_root(b)
        || a.condition.as_ref().map(|c| &c.text) != b.condition.as_ref().map(|c| &c.text)
    {
        return false;
    }
    match (&a.kind, &b.kind) {
        (HookKind::Command(x), HookKind::Command(y)) => {
            x.resolved_command == y.resolved_command && x.args == y.args && x.shell == y.shell
        }
        (HookKind::Prompt(x), HookKind::Prompt(y)) | (HookKind::Agent(x), HookKind::Agent(y)) => {
            x.prompt == y.prompt && x.model == y.model
        }
        (HookKind::Http(x), HookKind::Http(y)) => x.url == y.url && x.headers == y.headers,
        (HookKind::McpTool(x), HookKind::McpTool(y)) => {
            x.server == y.server && x.tool == y.tool && x.input == y.input
        }
        // The seed dialect's hooks are not Claude Code's, which never runs them: each runs as
        // written, however many times it is written.
        (HookKind::Rule(_) | HookKind::Llm(_), _) => false,
        // Hooks of two types are never one hook. Named per type, so that a new type must say
        // what its identity is here.
        (
            HookKind::Command(_)
            | HookKind::Prompt(_)
            | HookKind::Agent(_)
            | HookKind::Http(_)
            | HookKind::McpTool(_),
            _,
        ) => {
            debug_assert_ne!(a.kind.hook_type(), b.kind.hook_type());
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse::parse_hooks_file;
    use crate::config::{ConfigSource, Scope};
    use crate::event::EventName;
    use serde_json::json;

    fn set(files: &[&str]) -> HookSet {
        let mut set = HookSet::default();
        for (i, text) in files.iter().enumerate() {
            let source = ConfigSource {
                path: PathBuf::from(format!("/f{i}.json")),
                scope: Scope::Project,
                hooks_dir: PathBuf::from("/h"),
                plugin: None,
                description: None,
            };
            set.extend(parse_hooks_file(text, source, i, "/p"));
        }
        set
    }

    /// A group whose every hook is held never runs its regex: an untrusted file's pattern (here
    /// one that backtracks for hours on `Bash`) is never tried, and nothing of its group is
    /// selected or reported; trusted, the same file is tried (and the pattern decided within the
    /// deadline: undecided, so its hook runs and the event says why).
    #[test]
    fn a_held_groups_regex_is_never_tried() {
        let bomb = format!("{}Z", "(.*)".repeat(300));
        let text = format!(
            r#"{{"hooks": {{"PreToolUse": [{{"matcher": {bomb:?}, "hooks": [{{"type": "command", "command": "x"}}]}},
                {{"matcher": "B.sh", "hooks": [{{"type": "command", "command": "y"}}]}}]}}}}"#
        );
        let built = |s: &HookSet| -> Vec<bool> {
            s.events[&EventName::PreToolUse]
                .iter()
                .map(|g| matches!(&g.matcher, Ok(Matcher::Regex { regex, .. }) if regex.get().is_some()))
                .collect()
        };
        let mut held = set(&[&text]);
        assert_eq!(held.hold(Scope::Project, &crate::config::Held::NotTrusted), 2);
        let sel = held.select(&pre("Bash", json!({"command": "ls"})));
        assert_eq!(
            (sel.hooks.len(), sel.skipped.len(), sel.warnings.len()),
            (0, 0, 0)
        );
        assert!(!held.reaches_any(&EventName::PreToolUse, Some("Bash")));
        assert_eq!(
            built(&held),
            [false, false],
            "no regex of a held group is built, let alone run"
        );

        let trusted = set(&[&text]);
        let sel = trusted.select(&pre("Bash", json!({"command": "ls"})));
        assert_eq!(labels(&sel), ["x", "y"]);
        assert_eq!(sel.warnings.len(), 1, "{:?}", sel.warnings);
        assert!(
            sel.warnings[0].contains("was still matching \"Bash\" after 1000 ms"),
            "{}",
            sel.warnings[0]
        );
    }

    fn labels(sel: &Selection) -> Vec<String> {
        sel.hooks.iter().map(|h| h.kind.label().to_string()).collect()
    }

    fn pre(tool: &str, input: serde_json::Value) -> EventPayload {
        EventPayload::from_value(
            EventName::PreToolUse,
            json!({"tool_name": tool, "tool_input": input}),
        )
        .unwrap()
    }

    /// Indexed exact names and evaluated matchers (regexes, with and without a required literal
    /// longer than the query; match-all) come back merged in declaration order.
    #[test]
    fn candidates_keep_declaration_order() {
        let group = |m: &str, c: &str| {
            format!(r#"{{"matcher": {m:?}, "hooks": [{{"type": "command", "command": {c:?}}}]}}"#)
        };
        let text = format!(
            r#"{{"hooks": {{"PreToolUse": [{}]}}}}"#,
            [
                group("mcp__long_server__.*", "r-long"),
                group("Read", "exact-1"),
                group("R.*d", "regex-1"),
                group("Write|Read", "exact-2"),
                group("", "all"),
                group("^Rea", "regex-2"),
                group("Bash", "other-tool"),
                group("Read", "exact-3"),
            ]
            .join(",")
        );
        let s = set(&[&text]);
        let sel = s.select(&pre("Read", json!({"file_path": "/x"})));
        assert_eq!(
            labels(&sel),
            vec!["exact-1", "regex-1", "exact-2", "all", "regex-2", "exact-3"]
        );
        assert_eq!(
            merge_sorted(&[1, 4, 9], [0, 2, 3, 10].into_iter()),
            vec![0, 1, 2, 3, 4, 9, 10]
        );
        assert_eq!(merge_sorted(&[], std::iter::empty()), Vec::<usize>::new());
    }

    /// Conformance cases 61 and 73: identical commands run once, across groups and files.
    #[test]
    fn identical_commands_run_once() {
        let s = set(&[
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "same"}]},
                {"matcher": "*", "hooks": [{"type": "command", "command": "same"}, {"type": "command", "command": "other"}]}]}}"#,
            r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "same"}]}]}}"#,
        ]);
        let sel = s.select(&pre("Bash", json!({"command": "ls"})));
        assert_eq!(labels(&sel), vec!["same", "other"]);
        assert_eq!(sel.skipped.len(), 2);
        assert!(sel
            .skipped
            .iter()
            .all(|s| matches!(s.reason, SkipReason::Duplicate { .. })));
    }

    /// Cases 181 and 190: a repeated handler keeps its first place but takes the last options.
    #[test]
    fn duplicates_take_the_last_declarations_options() {
        let s = set(&[r#"{"hooks": {"PostToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "same", "timeout": 1}, {"type": "command", "command": "b"}]},
            {"hooks": [{"type": "command", "command": "same", "timeout": 30, "async": true}]}]}}"#]);
        let post = EventPayload::from_value(
            EventName::PostToolUse,
            json!({"tool_name": "Bash", "tool_input": {}}),
        )
        .unwrap();
        let sel = s.select(&post);
        assert_eq!(labels(&sel), vec!["same", "b"]);
        assert_eq!(sel.hooks[0].timeout, Some(std::time::Duration::from_secs(30)));
        assert!(matches!(&sel.hooks[0].kind, HookKind::Command(c) if c.run_async));
    }

    fn user_source() -> ConfigSource {
        ConfigSource {
            path: PathBuf::from("/home/.amplifier/hooks/hooks.json"),
            scope: Scope::User,
            hooks_dir: PathBuf::from("/home/.amplifier/hooks"),
            plugin: None,
            description: None,
        }
    }

    /// Claude Code keeps the project's copy (case 184); hookbridge keeps the user's, so that a
    /// project cannot change its user's hook by declaring it again (making a guard async, say).
    #[test]
    fn a_users_options_win_over_a_projects_copy_of_the_same_hook() {
        let mut s = set(&[
            r#"{"hooks": {"PostToolUse": [{"hooks": [{"type": "command", "command": "same", "timeout": 30}]}]}}"#,
        ]);
        s.extend(parse_hooks_file(r#"{"hooks": {"PostToolUse": [{"hooks": [{"type": "command", "command": "same", "timeout": 1}]}]}}"#, user_source(), 1, "/p"));
        let post = EventPayload::from_value(
            EventName::PostToolUse,
            json!({"tool_name": "Bash", "tool_input": {}}),
        )
        .unwrap();
        let sel = s.select(&post);
        assert_eq!(sel.hooks.len(), 1);
        assert_eq!(
            sel.hooks[0].timeout,
            Some(std::time::Duration::from_secs(1)),
            "the user's timeout applies"
        );
        assert_eq!(sel.hooks[0].source.scope, Scope::User);
        // Made async by the project: the user's synchronous copy still runs.
        let mut s = set(&[
            r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "guard", "async": true}]}]}}"#,
        ]);
        s.extend(parse_hooks_file(
            r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "guard"}]}]}}"#,
            user_source(),
            1,
            "/p",
        ));
        let pre = EventPayload::from_value(
            EventName::PreToolUse,
            json!({"tool_name": "Bash", "tool_input": {}}),
        )
        .unwrap();
        let sel = s.select(&pre);
        assert_eq!(sel.hooks.len(), 1);
        assert!(
            matches!(&sel.hooks[0].kind, HookKind::Command(c) if !c.run_async),
            "{:?}",
            sel.hooks[0].kind
        );
    }

    #[test]
    fn plugin_variables_outside_plugins_are_skipped() {
        let s = set(&[
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/x.sh"}, {"type": "command", "command": "ok"}]}]}}"#,
        ]);
        let stop = EventPayload::from_value(EventName::Stop, json!({})).unwrap();
        let sel = s.select(&stop);
        assert_eq!(labels(&sel), vec!["ok"]);
        assert_eq!(sel.skipped[0].reason, SkipReason::PluginVariableOutsidePlugin);
    }

    #[test]
    fn matchers_conditions_and_invalid_groups() {
        let s = set(&[r#"{"hooks": {"PreToolUse": [
            {"matcher": "Write", "hooks": [{"type": "command", "command": "w"}]},
            {"matcher": "(", "hooks": [{"type": "command", "command": "broken"}]},
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "git-only", "if": "Bash(git *)"}, {"type": "command", "command": "b"}]}]}}"#]);
        let sel = s.select(&pre("Bash", json!({"command": "ls"})));
        assert_eq!(labels(&sel), vec!["b"]);
        assert!(matches!(sel.skipped[0].reason, SkipReason::InvalidMatcher { .. }));
        let git = s.select(&pre("Bash", json!({"command": "git status"})));
        assert_eq!(labels(&git), vec!["git-only", "b"]);
    }

    #[test]
    fn events_without_match_target_ignore_matchers_and_disable_all_skips_visibly() {
        let s = set(&[
            r#"{"hooks": {"Stop": [{"matcher": "zzz", "hooks": [{"type": "command", "command": "s"}]}]}}"#,
        ]);
        let stop = EventPayload::from_value(EventName::Stop, json!({})).unwrap();
        assert_eq!(labels(&s.select(&stop)), vec!["s"]);
        let off = set(&[
            r#"{"disableAllHooks": true, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "s"}]}]}}"#,
        ]);
        let sel = off.select(&stop);
        assert!(sel.hooks.is_empty());
        assert!(matches!(
            sel.skipped[0].reason,
            SkipReason::AllHooksDisabled { .. }
        ));
    }

    /// `reaches_any` is `select` decided from the match query alone: for every config and
    /// payload here, `false` means `select` returns nothing, and `true` means it returns
    /// something for some payload with that query (here: the one tried).
    #[test]
    fn reaches_any_agrees_with_select() {
        let group = |m: &str, hook: &str| format!(r#"{{"matcher": {m:?}, "hooks": [{hook}]}}"#);
        let plain = r#"{"type": "command", "command": "h"}"#;
        let git_only = r#"{"type": "command", "command": "g", "if": "Bash(git *)"}"#;
        let configs = [
            format!(r#"{{"hooks": {{"PreToolUse": [{}]}}}}"#, group("Bash", plain)),
            format!(
                r#"{{"hooks": {{"PreToolUse": [{}]}}}}"#,
                group("Write|Edit", plain)
            ),
            format!(
                r#"{{"hooks": {{"PreToolUse": [{}]}}}}"#,
                group("mcp__.*__write", plain)
            ),
            format!(r#"{{"hooks": {{"PreToolUse": [{}]}}}}"#, group("", plain)),
            format!(r#"{{"hooks": {{"PreToolUse": [{}]}}}}"#, group("(", plain)),
            format!(r#"{{"hooks": {{"PreToolUse": [{}]}}}}"#, group("Bash", git_only)),
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": []}]}}"#.to_string(),
            format!(r#"{{"hooks": {{"PostToolUse": [{}]}}}}"#, group("Read", plain)),
            format!(
                r#"{{"disableAllHooks": true, "hooks": {{"PreToolUse": [{}]}}}}"#,
                group("Bash", plain)
            ),
        ];
        let tools = [
            "Bash",
            "Read",
            "Write",
            "mcp__fs__write",
            "mcp__fs__read",
            "Agent",
            "",
        ];
        let inputs = [
            json!({"command": "git push"}),
            json!({"command": "ls"}),
            json!({}),
        ];
        let mut reached = 0;
        for config in &configs {
            let s = set(&[config]);
            for tool in tools {
                let any = s.reaches_any(&EventName::PreToolUse, Some(tool));
                let selected = inputs.iter().any(|input| {
                    let sel = s.select(&pre(tool, input.clone()));
                    !sel.hooks.is_empty() || !sel.skipped.is_empty()
                });
                assert_eq!(any, selected, "{config} with {tool:?}");
                reached += usize::from(any);
            }
            assert_eq!(
                s.reaches_any(&EventName::PreToolUse, None),
                s.events
                    .get(&EventName::PreToolUse)
                    .is_some_and(|g| g.iter().any(|g| !g.hooks.is_empty())),
                "{config} without a query"
            );
        }
        // Both answers occur: the check above compares, it does not pass by default.
        assert!(reached > 0 && reached < configs.len() * tools.len());
    }
}
