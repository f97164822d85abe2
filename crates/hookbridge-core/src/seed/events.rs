//! The seed's ten events and the Claude Code events that mean the same.
//!
//! | seed event | Claude Code event(s) | Amplifier event(s) (through Claude Code's) |
//! |---|---|---|
//! | PreToolUse | PreToolUse | `tool:pre` |
//! | PostToolUse | PostToolUse | `tool:post` (success) |
//! | SessionStart | SessionStart | `session:start`, `session:resume`, `session:fork` |
//! | SessionStop | SessionEnd | `session:end` |
//! | PromptSubmit | UserPromptSubmit | `prompt:submit` |
//! | ResponseComplete | Stop | `orchestrator:complete` |
//! | Error | PostToolUseFailure, StopFailure | `tool:post` (failure), `tool:error`, `provider:error` |
//! | ModelSwitch | PostModelSwitch | none: Amplifier has no user model switch (`provider:resolve` is provider selection) |
//! | Checkpoint | none | none: neither host fires an event when a checkpoint is made |
//! | MemoryUpdate | none | none: Claude Code's InstructionsLoaded is a load, not an update; Amplifier's `context:include` has no emitter |
//!
//! A seed event with no Claude Code counterpart is kept under its own name: its hooks run when a
//! host fires it by that name (`hookbridge run --event Checkpoint`), and loading them says so.

use crate::event::EventName;

/// One seed event and where it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeedEvent {
    pub name: &'static str,
    /// The Claude Code events it fires with; empty when no host fires it.
    pub claude: &'static [EventName],
    /// Why no host fires it, when none does.
    pub no_source: Option<&'static str>,
}

const fn seed(name: &'static str, claude: &'static [EventName]) -> SeedEvent {
    SeedEvent {
        name,
        claude,
        no_source: None,
    }
}

/// The seed's events, in its order.
pub const SEED_EVENTS: &[SeedEvent] = &[
    seed("PreToolUse", &[EventName::PreToolUse]),
    seed("PostToolUse", &[EventName::PostToolUse]),
    seed("SessionStart", &[EventName::SessionStart]),
    seed("SessionStop", &[EventName::SessionEnd]),
    seed("PromptSubmit", &[EventName::UserPromptSubmit]),
    seed("ResponseComplete", &[EventName::Stop]),
    seed("Error", &[EventName::PostToolUseFailure, EventName::StopFailure]),
    seed("ModelSwitch", &[EventName::PostModelSwitch]),
    SeedEvent {
        name: "Checkpoint",
        claude: &[],
        no_source: Some("neither Claude Code nor Amplifier fires an event when a checkpoint is made"),
    },
    SeedEvent {
        name: "MemoryUpdate",
        claude: &[],
        no_source: Some(
            "neither Claude Code nor Amplifier fires an event when a memory file changes (InstructionsLoaded is a load)",
        ),
    },
];

/// The seed event named `name`, when it is one whose name differs from Claude Code's (the four
/// names both dialects share are plain Claude Code events).
pub fn seed_event(name: &str) -> Option<&'static SeedEvent> {
    SEED_EVENTS
        .iter()
        .find(|e| e.name == name && EventName::from_known(name).is_none())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_seed_event_is_mapped_or_says_why_not() {
        assert_eq!(SEED_EVENTS.len(), 10);
        for e in SEED_EVENTS {
            assert_eq!(e.claude.is_empty(), e.no_source.is_some(), "{}", e.name);
        }
        assert_eq!(seed_event("SessionStop").unwrap().claude, [EventName::SessionEnd]);
        assert_eq!(seed_event("Error").unwrap().claude.len(), 2);
        // Shared names stay Claude Code's own events.
        assert!(seed_event("PreToolUse").is_none());
        assert!(seed_event("SessionEnd").is_none());
    }
}
