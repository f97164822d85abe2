//! [`EventName`] and the static facts Claude Code attaches to each event.

use std::fmt;
use std::str::FromStr;

macro_rules! events {
    ($($variant:ident),+ $(,)?) => {
        /// A hook event. Names are case-sensitive, exactly as Claude Code spells them.
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum EventName {
            $($variant,)+
            /// A syntactically valid event name Claude Code 2.1.332 does not fire.
            Unknown(String),
        }

        impl EventName {
            /// Every event Claude Code 2.1.332 knows, in the order of its docs (PreSkillShellCommand,
            /// new in 2.1.332, beside the other tool events).
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
    PreSkillShellCommand,
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

    /// Why a `prompt` or `agent` hook blocks, unrun, where [`EventTraits::runs_judge_hooks`] is
    /// false: Claude Code's words (2.1.332).
    pub fn judges_not_run(&self) -> String {
        format!("prompt and agent hooks don't run on {self}")
    }

    pub fn is_known(&self) -> bool {
        !matches!(self, EventName::Unknown(_))
    }

    /// Static facts about this event.
    pub fn traits(&self) -> EventTraits {
        use EventName::*;
        let match_field: Option<&'static str> = match self {
            PreToolUse | PostToolUse | PostToolUseFailure | PermissionRequest | PermissionDenied
            | PreSkillShellCommand => Some("tool_name"),
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
        // PreSkillShellCommand (2.1.332) carries `tool_name` (`Bash`) and `tool_input.command` of a
        // skill's inline `!` command, and `if` rules apply to it as to a tool call (measured).
        let is_tool_event = matches!(
            self,
            PreToolUse
                | PostToolUse
                | PostToolUseFailure
                | PermissionRequest
                | PermissionDenied
                | PreSkillShellCommand
        );
        // Events where exit code 2 changes what happens (Claude Code docs, measured for the main ones).
        let exit2_blocks = matches!(
            self,
            PreToolUse
                | PreSkillShellCommand
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
        // Events whose answer is a permission decision (`permissionDecision`, or the legacy
        // top-level `decision`), where a block is a deny.
        // PreSkillShellCommand: `deny`, `ask` and `defer` all keep the command from running (Claude
        // Code 2.1.332, case 300); the answer is read as PreToolUse's.
        let decides_permission = matches!(self, PreToolUse | PreModelSwitch | PreSkillShellCommand);
        // Where Claude Code sends `permission_mode` (spec §1.1).
        let sends_permission_mode = matches!(
            self,
            PreToolUse
                | PreSkillShellCommand
                | PostToolUse
                | PostToolUseFailure
                | PermissionRequest
                | UserPromptSubmit
                | Stop
                | SubagentStop
        );
        // Where `hookSpecificOutput.additionalContext` reaches the model (spec §3; Stop and
        // SubagentStop since 2.1.163). Notification's type definitions accept it too, but nothing
        // shows that Claude Code passes it on: left out.
        let reads_additional_context = matches!(
            self,
            SessionStart
                | Setup
                | SubagentStart
                | UserPromptSubmit
                | UserPromptExpansion
                | PreToolUse
                | PostToolUse
                | PostToolUseFailure
                | PostToolBatch
                | Stop
                | SubagentStop
                | PostModelSwitch
        );
        let continue_false = match self {
            PreToolUse | PostToolUse | PostToolUseFailure => ContinueFalse::EndsTheTurnAfterTheTool,
            Stop | SubagentStop => ContinueFalse::LetsItStop,
            // Discarded (spec §2.3; SessionStart measured, case 47: the session runs normally).
            SessionStart | Notification | PreCompact | PostCompact | SessionEnd | StopFailure
            | MessageDisplay | TaskCreated | InstructionsLoaded | ConfigChange | CwdChanged | FileChanged
            | DirectoryAdded | WorktreeCreate | WorktreeRemove | Elicitation | ElicitationResult => {
                ContinueFalse::Ignored
            }
            _ => ContinueFalse::StopsTheOperation,
        };
        EventTraits {
            // Where a failure of one of the user's own hooks blocks when the session sets
            // CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG (Claude Code 2.1.328: the set read in its binary;
            // PreToolUse and UserPromptSubmit measured, cases 326 and 328, PostToolUse not).
            users_own_hooks_must_succeed: matches!(
                self,
                PreToolUse | PermissionRequest | PreModelSwitch | UserPromptSubmit | UserPromptExpansion
            ),
            // Claude Code skips http hooks on these ("HTTP hooks are not supported for
            // SessionStart", measured).
            runs_http_hooks: !matches!(self, SessionStart | Setup),
            // Claude Code 2.1.332 runs no model for a skill's inline command: a prompt or agent
            // hook there blocks it unasked (cases 304, 305).
            runs_judge_hooks: !matches!(self, PreSkillShellCommand),
            // A PreSkillShellCommand hook may answer in PreToolUse's or PermissionRequest's form
            // (`hookEventName` and its fields), and Claude Code 2.1.332 reads it (case 300).
            answers_also_as: match self {
                PreSkillShellCommand => &["PreToolUse", "PermissionRequest"],
                _ => &[],
            },
            match_field,
            is_tool_event,
            exit2_blocks,
            plain_stdout_is_context,
            default_timeout_secs,
            exact_matcher_allows_extended_chars: !matches!(self, FileChanged | StopFailure),
            decides_permission,
            sends_permission_mode,
            reads_additional_context,
            continue_false,
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
    /// A failure (not an exit 2: an error, a timeout, a hook that cannot start) of one of the
    /// user's own synchronous command or http hooks blocks here when the session restricts
    /// personal configuration ([`crate::decision::users_own_hook_must_succeed`]).
    pub users_own_hooks_must_succeed: bool,
    /// Plain stdout of a successful hook is added to the model's context.
    pub plain_stdout_is_context: bool,
    /// Claude Code's default timeout for a command hook on this event, in seconds.
    pub default_timeout_secs: u64,
    /// Whether `-`, spaces and `,` still count as exact-match characters in a matcher (all events
    /// but FileChanged and StopFailure).
    pub exact_matcher_allows_extended_chars: bool,
    /// The answer is a permission decision (PreToolUse, PreModelSwitch, PreSkillShellCommand):
    /// `permissionDecision` or
    /// the legacy top-level `decision`, and a block is a deny.
    pub decides_permission: bool,
    /// The payload carries `permission_mode`.
    pub sends_permission_mode: bool,
    /// `hookSpecificOutput.additionalContext` reaches the model.
    pub reads_additional_context: bool,
    /// What `continue: false` does.
    pub continue_false: ContinueFalse,
    /// `http` hooks run on this event (all but SessionStart and Setup).
    pub runs_http_hooks: bool,
    /// `prompt` and `agent` hooks run on this event; where they do not (PreSkillShellCommand), each
    /// one blocks, unrun, with [`EventName::judges_not_run`].
    pub runs_judge_hooks: bool,
    /// Other events whose `hookSpecificOutput` (named by its `hookEventName`) is read as this
    /// event's answer.
    pub answers_also_as: &'static [&'static str],
}

/// What Claude Code does with a hook's `continue: false` on an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContinueFalse {
    /// Discarded: the event goes on as if it were not there.
    Ignored,
    /// The tool runs (unless a hook denies it) and the turn ends after it (cases 44, 45, 128).
    EndsTheTurnAfterTheTool,
    /// Stop, SubagentStop: "do stop", which cancels a block that would continue the turn.
    LetsItStop,
    /// The operation is stopped (a prompt is not sent, case 46).
    StopsTheOperation,
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
    fn there_are_34_known_events_and_they_round_trip() {
        assert_eq!(EventName::KNOWN.len(), 34);
        for e in EventName::KNOWN {
            assert_eq!(&EventName::parse(e.as_str()).unwrap(), e);
        }
    }

    #[test]
    fn what_continue_false_does_per_event() {
        use ContinueFalse::*;
        for (event, expected) in [
            (EventName::PreToolUse, EndsTheTurnAfterTheTool),
            (EventName::PostToolUseFailure, EndsTheTurnAfterTheTool),
            (EventName::Stop, LetsItStop),
            (EventName::SubagentStop, LetsItStop),
            (EventName::UserPromptSubmit, StopsTheOperation),
            (EventName::SessionStart, Ignored),
            (EventName::Notification, Ignored),
            (EventName::Unknown("Custom".into()), StopsTheOperation),
        ] {
            assert_eq!(event.traits().continue_false, expected, "{event}");
        }
        assert!(EventName::PreModelSwitch.traits().decides_permission);
        assert!(!EventName::PermissionRequest.traits().decides_permission);
        assert!(EventName::Stop.traits().reads_additional_context);
        assert!(!EventName::Notification.traits().reads_additional_context);
        assert!(EventName::SubagentStop.traits().sends_permission_mode);
        assert!(!EventName::SessionStart.traits().sends_permission_mode);
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
