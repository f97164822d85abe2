//! What a model's verdict does on each event (`type: "prompt"` and `"agent"`): Claude Code's rules,
//! measured (golden cases 83 and 86, cases 194–202).

use crate::event::EventName;

use super::answer::{HookAnswer, HookOutput};
use super::verdict::Verdict;

/// What Claude Code puts before an agent hook's reason where its `ok: false` blocks.
pub const AGENT_NOT_MET: &str = "Agent hook condition was not met: ";

/// Which kind of judge answered, with what its config says about `ok: false`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judge {
    /// `type: "prompt"`, with its `continueOnBlock`.
    Prompt { continue_on_block: bool },
    /// `type: "agent"`: `ok: false` is handled as a prompt hook's with `continueOnBlock: true`.
    Agent,
}

impl Judge {
    fn continues_on_block(self) -> bool {
        match self {
            Judge::Prompt { continue_on_block } => continue_on_block,
            Judge::Agent => true,
        }
    }
}

/// What a verdict does on `event`. `label` is how Claude Code names the hook in the block's text
/// (`[<prompt>]: <reason>`).
///
/// `ok: true` changes nothing (it does not allow a tool the permission rules would ask about, case
/// 84). `ok: false`:
/// - Stop, SubagentStop: the reason is fed back and the loop goes on (case 86) — unless the model
///   says the condition is `impossible`, which lets it stop;
/// - PreToolUse, PostToolUse: a block that also ends the turn (cases 83, 198, 202), unless
///   `continueOnBlock` (cases 196, 201);
/// - UserPromptSubmit, UserPromptExpansion, PostToolBatch: the turn ends, as with `continue: false`
///   and the reason as `stopReason` (case 197: `"Operation stopped by hook: <reason>"`);
/// - TeammateIdle: the teammate stops, unless `continueOnBlock` (then the reason is fed back);
/// - PostToolUseFailure, TaskCreated, TaskCompleted and the rest: a block;
/// - PermissionRequest, PermissionDenied: nothing.
pub fn verdict_answer(event: &EventName, verdict: &Verdict, label: &str, judge: Judge) -> HookAnswer {
    if verdict.ok {
        return HookAnswer::Output(HookOutput::Empty);
    }
    let reason = verdict
        .reason
        .clone()
        .unwrap_or_else(|| "blocked by a prompt hook (the model gave no reason)".into());
    let rejected = |stops_turn: bool| match judge {
        Judge::Prompt { .. } => HookAnswer::Rejected {
            label: label.to_string(),
            reason: reason.clone(),
            stops_turn,
        },
        // Where an agent hook blocks it never ends the turn (`continues_on_block`), and Claude
        // Code shows its reason as a JSON block's, framed (cases 315, 316 of tests/conformance/next).
        Judge::Agent => HookAnswer::Denied {
            reason: format!("{AGENT_NOT_MET}{reason}"),
        },
    };
    match event {
        EventName::Stop | EventName::SubagentStop if verdict.impossible => {
            HookAnswer::Output(HookOutput::Empty)
        }
        EventName::Stop | EventName::SubagentStop => rejected(false),
        EventName::PreToolUse | EventName::PostToolUse => rejected(!judge.continues_on_block()),
        EventName::UserPromptSubmit | EventName::UserPromptExpansion | EventName::PostToolBatch => {
            HookAnswer::Stopped { reason }
        }
        EventName::TeammateIdle if !judge.continues_on_block() => HookAnswer::Stopped { reason },
        EventName::PermissionRequest | EventName::PermissionDenied => HookAnswer::Output(HookOutput::Empty),
        _ => rejected(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no(reason: &str) -> Verdict {
        Verdict {
            ok: false,
            reason: Some(reason.into()),
            impossible: false,
        }
    }

    #[test]
    fn ok_false_per_event() {
        let prompt = Judge::Prompt {
            continue_on_block: false,
        };
        let go_on = Judge::Prompt {
            continue_on_block: true,
        };
        let r = |event: EventName, judge: Judge| verdict_answer(&event, &no("R"), "P", judge);
        let rejected = |stops_turn: bool| HookAnswer::Rejected {
            label: "P".into(),
            reason: "R".into(),
            stops_turn,
        };
        assert_eq!(r(EventName::PreToolUse, prompt), rejected(true));
        assert_eq!(r(EventName::PreToolUse, go_on), rejected(false));
        let agent = HookAnswer::Denied {
            reason: "Agent hook condition was not met: R".into(),
        };
        assert_eq!(r(EventName::PreToolUse, Judge::Agent), agent);
        assert_eq!(r(EventName::Stop, Judge::Agent), agent);
        assert_eq!(r(EventName::PostToolUse, prompt), rejected(true));
        assert_eq!(r(EventName::Stop, prompt), rejected(false));
        assert_eq!(
            r(EventName::UserPromptSubmit, prompt),
            HookAnswer::Stopped { reason: "R".into() }
        );
        assert_eq!(r(EventName::PostToolUseFailure, prompt), rejected(false));
        assert_eq!(
            r(EventName::PermissionRequest, prompt),
            HookAnswer::Output(HookOutput::Empty)
        );
        assert_eq!(
            r(EventName::TeammateIdle, prompt),
            HookAnswer::Stopped { reason: "R".into() }
        );
        let impossible = Verdict {
            impossible: true,
            ..no("R")
        };
        assert_eq!(
            verdict_answer(&EventName::Stop, &impossible, "P", prompt),
            HookAnswer::Output(HookOutput::Empty)
        );
        let yes = Verdict {
            ok: true,
            reason: None,
            impossible: false,
        };
        assert_eq!(
            verdict_answer(&EventName::PreToolUse, &yes, "P", prompt),
            HookAnswer::Output(HookOutput::Empty)
        );
    }
}
