//! Translation between an Amplifier hook call and Claude Code hooks, one direction per file:
//! - [`to_claude`]: the Amplifier event data becomes the stdin payload hooks read
//!   ([`claude_payloads`], [`claude_payload`]);
//! - [`to_amplifier`]: the merged answer of those hooks becomes the one [`HookResult`] the
//!   Amplifier handler returns ([`to_hook_result`], [`translate_outcome`], [`combine`]).
//!
//! Which Claude Code events an Amplifier event fires is `crate::events`; how tool names and inputs
//! map is `crate::tools`.

use serde_json::{Map, Value};

#[cfg(doc)]
use crate::hook_result::HookResult;

pub mod to_amplifier;
pub mod to_claude;

pub use to_amplifier::{combine, to_hook_result, translate_outcome, Outcome, APPROVAL_OPTIONS};
pub use to_claude::{claude_payload, claude_payloads, TranslateError};

/// `user_message_source` of every message hookbridge shows.
pub const MESSAGE_SOURCE: &str = "hookbridge";

/// What the host knows about the session beyond the event data.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionContext {
    /// Used when the event data has no `session_id`.
    pub session_id: Option<String>,
    /// The session's working directory: `cwd`, and the base for relative tool paths.
    pub cwd: Option<String>,
    pub transcript_path: Option<String>,
    /// Sent as `permission_mode` where Claude Code sends it; Amplifier has no such mode.
    pub permission_mode: Option<String>,
    /// The user's home, for `~` in tool paths.
    pub home_dir: Option<String>,
}

pub(crate) fn str_of<'a>(d: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    d.get(key).and_then(Value::as_str)
}

pub(crate) fn first_str(d: &Map<String, Value>, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| str_of(d, k)).map(str::to_string)
}

/// Event data as the tests of both directions use it.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::SessionContext;
    use serde_json::{json, Value};

    pub(crate) fn session() -> SessionContext {
        SessionContext {
            session_id: Some("host-session".into()),
            cwd: Some("/home/u/proj".into()),
            transcript_path: Some("/home/u/.amplifier/sessions/s1/transcript.jsonl".into()),
            permission_mode: Some("default".into()),
            home_dir: Some("/home/u".into()),
        }
    }

    /// Data as an Amplifier handler receives it: event data + session defaults + timestamp.
    pub(crate) fn with_defaults(mut data: Value) -> Value {
        let o = data.as_object_mut().unwrap();
        o.insert("session_id".into(), json!("s1"));
        o.insert("parent_id".into(), Value::Null);
        o.insert("timestamp".into(), json!("2026-11-21T23:51:44.219033671+00:00"));
        data
    }

    pub(crate) fn bash_pre(command: &str) -> Value {
        with_defaults(
            json!({"tool_name": "bash", "tool_input": {"command": command, "timeout": 60}, "parallel_group_id": "g1"}),
        )
    }

    pub(crate) fn write_pre() -> Value {
        with_defaults(
            json!({"tool_name": "write_file", "tool_input": {"file_path": "src/app.py", "content": "x = 1\n"}, "parallel_group_id": "g1"}),
        )
    }

    pub(crate) fn bash_post() -> Value {
        with_defaults(json!({"tool_name": "bash", "tool_input": {"command": "ls"},
            "result": "{'stdout': 'a.txt\\n', 'stderr': '', 'returncode': 0}", "parallel_group_id": "g1"}))
    }

    pub(crate) fn prompt() -> Value {
        with_defaults(json!({"prompt": "fix the login bug"}))
    }

    pub(crate) fn approval() -> Value {
        with_defaults(
            json!({"tool_name": "bash", "action": "Execute: git push --force", "risk_level": "high"}),
        )
    }
}
