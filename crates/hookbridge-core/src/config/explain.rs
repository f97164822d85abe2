//! Why each hook of an event does or does not run: the answer to "why didn't my hook fire?".
//!
//! [`HookSet::explain`] walks every hook registered for the payload's event, in declaration
//! order, and gives each a [`Verdict`]. It is the slow, exhaustive twin of [`HookSet::select`] (which
//! stays the one judge of what runs: a hook is `Runs` exactly when `select` picks it, and `Skipped`
//! with `select`'s own reason when `select` passes it over); the rest is why the matcher or the `if`
//! rule turned the hook away. For `hookbridge test` and other tools, never on the hot path.

use crate::event::EventPayload;

use super::model::{HookSet, HookSpec, MatcherGroup};
use super::select::SkipReason;

/// What happens to one hook for one event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// It runs.
    Runs,
    /// Its group's matcher does not match the event's match target.
    MatcherDidNotMatch { matcher: String, target: String },
    /// Its `if` rule does not match the tool call.
    ConditionDidNotMatch { rule: String },
    /// Passed over for a reason `select` reports (duplicate, invalid matcher, disabled, …).
    Skipped(SkipReason),
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Runs => f.write_str("runs"),
            Verdict::MatcherDidNotMatch { matcher, target } => {
                write!(f, "matcher `{matcher}` does not match `{target}`")
            }
            Verdict::ConditionDidNotMatch { rule } => {
                write!(f, "`if` rule `{rule}` does not match this tool call")
            }
            Verdict::Skipped(reason) => write!(f, "skipped: {reason}"),
        }
    }
}

/// One registered hook and its verdict.
#[derive(Debug, Clone)]
pub struct Explained<'a> {
    pub group: &'a MatcherGroup,
    pub hook: &'a HookSpec,
    pub verdict: Verdict,
}

impl HookSet {
    /// Every hook registered for `payload`'s event, in declaration order, with why it runs or not.
    pub fn explain<'a>(&'a self, payload: &EventPayload) -> Vec<Explained<'a>> {
        let selection = self.select(payload);
        let Some(groups) = self.events.get(payload.event()) else {
            return Vec::new();
        };
        let target = payload.match_query();
        let tool = payload.tool_call();
        let mut out = Vec::new();
        for group in groups {
            for hook in &group.hooks {
                let verdict = if selection.hooks.iter().any(|h| h.id == hook.id) {
                    Verdict::Runs
                } else if let Some(skipped) = selection.skipped.iter().find(|s| s.hook.id == hook.id) {
                    Verdict::Skipped(skipped.reason.clone())
                } else if let (Ok(matcher), Some(target)) = (&group.matcher, &target) {
                    if !matcher.is_match(target) {
                        Verdict::MatcherDidNotMatch {
                            matcher: group.matcher_text.clone().unwrap_or_default(),
                            target: target.clone(),
                        }
                    } else {
                        condition_verdict(hook, tool.as_ref(), payload, self.home.as_deref())
                    }
                } else {
                    condition_verdict(hook, tool.as_ref(), payload, self.home.as_deref())
                };
                out.push(Explained { group, hook, verdict });
            }
        }
        out
    }
}

/// The verdict of a hook whose matcher matched but that `select` neither ran nor skipped: only
/// its `if` rule can have turned it away.
fn condition_verdict(
    hook: &HookSpec,
    tool: Option<&crate::event::ToolCall<'_>>,
    payload: &EventPayload,
    home: Option<&std::path::Path>,
) -> Verdict {
    match (&hook.condition, tool) {
        (Some(cond), Some(call)) if !cond.matches(call.tool_name, call.tool_input, payload.cwd(), home) => {
            Verdict::ConditionDidNotMatch {
                rule: cond.text.clone(),
            }
        }
        // Unreachable while `select` and this agree; said plainly rather than guessed.
        _ => Verdict::ConditionDidNotMatch {
            rule: hook
                .condition
                .as_ref()
                .map(|c| c.text.clone())
                .unwrap_or_else(|| "(none)".into()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::EventName;

    fn set(json: &str) -> HookSet {
        let dir = tempfile::tempdir().unwrap();
        let hooks_dir = dir.path().join(".amplifier/hooks");
        std::fs::create_dir_all(&hooks_dir).unwrap();
        std::fs::write(hooks_dir.join("hooks.json"), json).unwrap();
        let mut options = crate::config::DiscoveryOptions::new(dir.path(), None);
        options.include_user = false;
        let mut set = crate::config::discover(&options);
        crate::trust::vouch_for_project_hooks(&mut set);
        set
    }

    #[test]
    fn every_hook_of_the_event_gets_a_verdict_and_select_decides_what_runs() {
        let hooks = set(r#"{"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo bash"},
                                          {"type": "command", "command": "echo git", "if": "Bash(git *)"}]},
            {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "echo write"}]},
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo bash"}]},
            {"matcher": "[", "hooks": [{"type": "command", "command": "echo broken"}]}
        ]}}"#);
        let payload = EventPayload::parse(
            EventName::PreToolUse,
            br#"{"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}"#,
        )
        .unwrap();
        let verdicts: Vec<(String, Verdict)> = hooks
            .explain(&payload)
            .into_iter()
            .map(|e| (e.hook.kind.label().to_string(), e.verdict))
            .collect();
        assert_eq!(verdicts.len(), 5, "{verdicts:?}");
        assert!(
            matches!(verdicts[0], (ref c, Verdict::Skipped(SkipReason::Duplicate { .. })) if c == "echo bash")
        );
        assert_eq!(
            verdicts[1].1,
            Verdict::ConditionDidNotMatch {
                rule: "Bash(git *)".into()
            }
        );
        assert_eq!(
            verdicts[2].1,
            Verdict::MatcherDidNotMatch {
                matcher: "Write|Edit".into(),
                target: "Bash".into()
            }
        );
        assert_eq!(verdicts[3].1, Verdict::Runs);
        assert!(matches!(
            verdicts[4].1,
            Verdict::Skipped(SkipReason::InvalidMatcher { .. })
        ));
        let runs = verdicts.iter().filter(|v| v.1 == Verdict::Runs).count();
        assert_eq!(runs, hooks.select(&payload).hooks.len());
    }
}
