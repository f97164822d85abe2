//! `HookType`: the seven values a hook's `type` may have, each named once, with the facts that
//! belong to the type rather than to one hook — its name in files, reports and pins, and Claude
//! Code's default timeout for it. Claude Code's five (`command`, `prompt`, `agent`, `http`,
//! `mcp_tool`) and the seed dialect's two (`matcher`, `llm`).
//!
//! Every place that asks "which type?" matches this enum exhaustively, so a new type is a compile
//! error everywhere it needs a decision (parsing, dedup identity, the job, the audit word) rather
//! than a silent `_ =>` arm.

use std::fmt;

/// A hook's `type`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum HookType {
    Command,
    Prompt,
    Agent,
    Http,
    McpTool,
    /// `matcher`: the seed's rules, decided in process.
    Matcher,
    /// `llm`: the seed's model-judged hooks.
    Llm,
}

impl HookType {
    /// Every type, in the order messages and the schema list them.
    pub const ALL: [HookType; 7] = [
        HookType::Command,
        HookType::Prompt,
        HookType::Agent,
        HookType::Http,
        HookType::McpTool,
        HookType::Matcher,
        HookType::Llm,
    ];

    /// The `type` as it is written in a hooks file (and in reports, pins and the audit log).
    pub const fn name(self) -> &'static str {
        match self {
            HookType::Command => "command",
            HookType::Prompt => "prompt",
            HookType::Agent => "agent",
            HookType::Http => "http",
            HookType::McpTool => "mcp_tool",
            HookType::Matcher => "matcher",
            HookType::Llm => "llm",
        }
    }

    /// The type written as `name`, if there is one (names are case-sensitive, as Claude Code's).
    pub fn from_name(name: &str) -> Option<HookType> {
        HookType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Claude Code's default timeout for hooks of this type, in seconds, where the type has its
    /// own (prompt and llm 30 s, agent 60 s); `None` where the event's default applies.
    pub const fn default_timeout_secs(self) -> Option<u64> {
        match self {
            HookType::Prompt | HookType::Llm => Some(30),
            HookType::Agent => Some(60),
            HookType::Command | HookType::Http | HookType::McpTool | HookType::Matcher => None,
        }
    }

    /// `"command", "prompt", … or "llm"`, for messages that list what a `type` may be.
    pub fn expected() -> String {
        let quoted: Vec<String> = HookType::ALL
            .iter()
            .map(|t| format!("\"{}\"", t.name()))
            .collect();
        let (last, rest) = quoted.split_last().expect("there are types");
        format!("{} or {last}", rest.join(", "))
    }
}

/// Serialized as its name, as it is written.
impl serde::Serialize for HookType {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl fmt::Display for HookType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back_as_its_type_and_nothing_else_does() {
        for t in HookType::ALL {
            assert_eq!(HookType::from_name(t.name()), Some(t));
        }
        let names: std::collections::HashSet<_> = HookType::ALL.iter().map(|t| t.name()).collect();
        assert_eq!(names.len(), HookType::ALL.len(), "names are distinct");
        for other in ["Command", "mcp", "mcpTool", "", " command", "rule"] {
            assert_eq!(HookType::from_name(other), None, "{other:?}");
        }
    }

    #[test]
    fn the_list_for_messages_names_all_seven() {
        assert_eq!(
            HookType::expected(),
            r#""command", "prompt", "agent", "http", "mcp_tool", "matcher" or "llm""#
        );
    }

    #[test]
    fn model_judged_types_have_claude_codes_own_defaults() {
        assert_eq!(HookType::Prompt.default_timeout_secs(), Some(30));
        assert_eq!(HookType::Llm.default_timeout_secs(), Some(30));
        assert_eq!(HookType::Agent.default_timeout_secs(), Some(60));
        assert_eq!(HookType::Command.default_timeout_secs(), None);
    }
}
