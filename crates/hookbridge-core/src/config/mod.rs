//! Hook configuration: the model of what is registered, how it is found on disk, and how it is read.
//!
//! The format is Claude Code's own (`event → matcher groups → hooks`), accepted verbatim, so published
//! hooks and plugins work unmodified. Reading is deliberately more forgiving than Claude Code's (which
//! drops a whole settings file when one entry is malformed): every entry is checked on its own, a bad
//! one is dropped with a [`Diagnostic`](crate::diagnostics::Diagnostic) naming file, line, column and
//! key, and its neighbours still load. Nothing is dropped silently.

mod bounded_read;
mod condition;
mod discover;
mod explain;
mod hook_type;
mod http_policy;
pub mod managed;
mod model;
mod parse;
mod schema;
mod select;
mod state;

pub use bounded_read::{
    read_bounded, ReadError, MAX_BYTES_PER_HOOKS_DIR, MAX_CONFIG_BYTES, MAX_DIAGNOSTICS_PER_FILE,
    MAX_DIAGNOSTICS_PER_HOOKS_DIR, MAX_ENTRIES_PER_FILE, MAX_ENTRIES_PER_HOOKS_DIR,
    MAX_PLUGINS_PER_HOOKS_DIR,
};
pub use condition::{Condition, ConditionError};
pub use discover::{
    discover, plugin_data_dir, DiscoveryOptions, HOOKS_DIR_FILES, HOOKS_DIR_NAME, PLUGIN_DATA_DIR,
};
pub use explain::{Explained, Verdict};
pub use hook_type::HookType;
pub use http_policy::{claude_code_settings_files, limits_of_settings_file, url_matches};
pub use model::{
    CommandHook, ConfigSource, DeclaredPath, Disabled, Held, HookId, HookKind, HookSet, HookSpec, HttpHook,
    HttpLimits, HttpPolicy, LlmHook, MatcherGroup, McpToolHook, Network, OnFailure, Plugin, PolicyLevel,
    PromptHook, RuleHook, Sandbox, Scope, Shell,
};
pub use parse::{is_yaml_path, parse_hooks_file, parse_hooks_yaml, ParsedFile, Placeholders};
pub use schema::hooks_file_schema;
pub use select::{Selection, SkipReason, SkippedHook};
pub use state::{HookRef, HooksDirState, STATE_FILE_NAME};
