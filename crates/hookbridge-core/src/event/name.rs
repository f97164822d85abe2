//! [`EventName`] and the static facts Claude Code attaches to each event.

use std::fmt;
use std::str::FromStr;

macro_rules! events {
    ($($variant:ident),+ $(,)?) => {
        /// A hook event. Names are case-sensitive, exactly as Claude Code spells them.
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum EventName {
            $($variant,)+
            /// A syntactically valid event name Claude Code 2.1.328 does not fire.
            Unknown(String),
        }

        impl EventName {
            /// Every event Claude Code 2.1.328 knows, in the order of its docs.
            pub const KNOWN: &'static [EventName] = &[$(EventName::$variant,)+];

            pub fn as_str(&self) -> &str {
                match self {
                    $(EventName::$variant => stringify!($variant),)+
                    EventName::Unknown(name) => name,
                }
            }

            pub(crate) fn from_known(name: &str) -> Option<EventName> {
                match name {
                    $(stringify!($variant) => Some(EventName::$variant),)+
                    _ => None,
                }
            }
        }
    };
}

events!(
    SessionStart,
    Setup,
    InstructionsLoaded,
    UserPromptSubmit,
    UserPromptExpansion,
    MessageDisplay,
    PreToolUse,
    PermissionRequest,
    PermissionDenied,
    PostToolUse,
    PostToolUseFailure,
    PostToolBatch,
    Notification,
    SubagentStart,
    SubagentStop,
    TaskCreated,
    TaskCompleted,
    Stop,
    StopFailure,
    TeammateIdle,
    ConfigChange,
    CwdChanged,
    DirectoryAdded,
    FileChanged,
    WorktreeCreate,
    WorktreeRemove,
    PreCompact,
    PostCompact,
    Elicitation,
    ElicitationResult,
    SessionEnd,
    PreModelSwitch,
    PostModelSwitch,
);

/// Error for a string that cannot be an event name at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a valid event name (expected a name like `PreToolUse`: ASCII letters and digits, starting with an uppercase letter)")]
pub struct InvalidEventName(pub String);

impl EventName {
    /// Parse a name: a known event, or `Unknown` for any other well-formed name.
    pub fn parse(name: &str) -> Result<EventName, InvalidEventName> {
        if let Some(known) = EventName::from_known(name) {
            return Ok(known);
        }
        let mut chars = name.chars();
        let well_formed = chars.next().is_some_and(|c| c.is_ascii_uppercase())
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
        if well_formed {
            Ok(EventName::Unknown(name.to_string()))
        } else {
            Err(InvalidEventName(name.to_string()))
        }
    }

    pub fn is_known(&self) -> bool {
        !matches!(self, EventName::Unknown(_))
    }

    /// Static facts about this event.
    pub fn traits(&self) -> EventTraits {
        use EventName::*;
        let match_field: Option<&'static str> = match self {
            PreToolUse | PostToolUse | PostToolUseFailure | PermissionRequest | PermissionDenied => {
                Some("tool_name")
            }
            SessionStart | ConfigChange | DirectoryAdded => Some("source"),
            Setup | PreCompact | PostCompact => Some("trigger"),
            InstructionsLoaded => Some("load_reason"),
            UserPromptExpansion => Some("command_name"),
            Notification => Some("notification_type"),
            SubagentStart | SubagentStop => Some("agent_type"),
            StopFailure => Some("error"),
            FileChanged => Some("file_path"),
            Elicitation | ElicitationResult => Some("mcp_server_name"),
            SessionEnd => Some("reason"),
            _ => None,
        };
        let is_tool_event = matches!(
            self,
            PreToolUse | PostToolUse | PostToolUseFailure | PermissionRequest | PermissionDenied
        );
        // Events where exit code 2 changes what happens (Claude Code docs, measured for the main ones).
        let exit2_blocks = matches!(
            self,
            PreToolUse
                | UserPromptSubmit
                | UserPromptExpansion
                | PostToolUse
                | PostToolUseFailure
                | PostToolBatch
                | Stop
                | SubagentStop
                | TeammateIdle
                | TaskCreated
                | TaskCompleted
                | ConfigChange
                | PreCompact
                | Elicitation
                | ElicitationResult
                | WorktreeCreate
                | Unknown(_)
        );
        // Events whose plain (non-JSON) stdout on exit 0 becomes context for the model.
        let plain_stdout_is_context = matches!(self, SessionStart | UserPromptSubmit | UserPromptExpansion);
        let default_timeout_secs = match self {
            UserPromptSubmit | PreModelSwitch | PostModelSwitch => 30,
            MessageDisplay => 10,
            _ => 600,
        };
        EventTraits {
            match_field,
            is_tool_event,
            exit2_blocks,
            plain_stdout_is_context,
            default_timeout_secs,
            exact_matcher_allows_extended_chars: !matches!(self, FileChanged | StopFailure),
        }
    }
}

/// What Claude Code does differently per event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventTraits {
    /// The payload field a group's `matcher` is tested against; `None`: matchers are ignored and
    /// every group runs (UserPromptSubmit, Stop, …).
    pub match_field: Option<&'static str>,
    /// PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest, PermissionDenied: the payload
    /// must carry `tool_name` and `tool_input`, and `if` conditions apply.
    pub is_tool_event: bool,
    /// Exit code 2 blocks or feeds back on this event (otherwise it is only a notice).
    pub exit2_blocks: bool,
    /// Plain stdout of a successful hook is added to the model's context.
    pub plain_stdout_is_context: bool,
    /// Claude Code's default timeout for a command hook on this event, in seconds.
    pub default_timeout_secs: u64,
    /// Whether `-`, spaces and `,` still count as exact-match characters in a matcher (all events
    /// but FileChanged and StopFailure).
    pub exact_matcher_allows_extended_chars: bool,
}

impl fmt::Display for EventName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for EventName {
    type Err = InvalidEventName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        EventName::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_33_known_events_and_they_round_trip() {
        assert_eq!(EventName::KNOWN.len(), 33);
        for e in EventName::KNOWN {
            assert_eq!(&EventName::parse(e.as_str()).unwrap(), e);
        }
    }

    #[test]
    fn unknown_names_are_carried_but_malformed_ones_rejected() {
        assert_eq!(
            EventName::parse("FooBar").unwrap(),
            EventName::Unknown("FooBar".into())
        );
        assert!(EventName::parse("preToolUse").is_err());
        assert!(EventName::parse("Pre Tool").is_err());
        assert!(EventName::parse("").is_err());
    }

    #[test]
    fn match_fields_follow_claude_code() {
        assert_eq!(EventName::PreToolUse.traits().match_field, Some("tool_name"));
        assert_eq!(EventName::SessionStart.traits().match_field, Some("source"));
        assert_eq!(EventName::UserPromptSubmit.traits().match_field, None);
        assert_eq!(EventName::Stop.traits().match_field, None);
        assert_eq!(EventName::UserPromptSubmit.traits().default_timeout_secs, 30);
        assert_eq!(EventName::PreToolUse.traits().default_timeout_secs, 600);
    }
}
