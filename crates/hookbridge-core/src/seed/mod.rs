//! The "Enhanced Hooks System" dialect of the seed documents (`../shared/seeds/004_…`): its event
//! names, its in-process rule hooks (`type: matcher`), its llm hooks' prompts and verdicts, and its
//! `{"action": …}` answers — each translated into Claude Code's terms here, so that the engine runs
//! one model of hooks and both dialects load, validate, list and run the same way.
//!
//! Which hooks speak this dialect: the ones written directly in an event's list (the seed's shape,
//! `hooks: {PreToolUse: [{type: command, …}]}`, no matcher groups), and every `matcher` and `llm`
//! hook. They get the seed's fields on stdin besides Claude Code's, and their `action` answers are
//! read; Claude Code-style answers from them keep working.

pub mod answer;
pub mod events;
pub mod llm;
pub mod rule;

pub use answer::{to_claude_answer, SeedAnswerError};
pub use events::{seed_event, SeedEvent, SEED_EVENTS};
pub use llm::{render_template, verdict_of_reply, LlmVerdict};
pub use rule::{Rule, RuleAction, RuleError};
