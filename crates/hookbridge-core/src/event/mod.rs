//! Claude Code's hook events: their names, what each one matches on, and their payloads.
//!
//! The event set is the one Claude Code 2.1.328 fires (33 names). A name outside that set is carried
//! through as [`EventName::Unknown`] rather than rejected, so hooks written for a newer Claude Code
//! keep working; what hookbridge cannot know about such an event (what it matches on, whether it can
//! block) falls back to the most permissive, observable behaviour.

mod data;
mod name;
mod payload;
pub(crate) use payload::json_type;

pub use data::{CommonFields, EventData, SkillShellCommand, StopEvent, ToolEvent};
pub use name::{ContinueFalse, EventName, EventTraits};
pub use payload::{field_text, EventPayload, PayloadError, ToolCall};
