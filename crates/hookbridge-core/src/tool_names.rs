//! Which tool another agent calls by which Claude Code name: Amplifier's tools (`bash` is `Bash`,
//! `read_file` is `Read`, …). Hooks match Claude Code's names; the Amplifier host presents its
//! tools under them (hookbridge-amplifier's `tools`, which also converts their inputs), and the
//! seed dialect's rules, written with Amplifier's names, match either (`seed::rule`). One table
//! for both.

/// Amplifier tool name → Claude Code tool name, for the tools whose names differ.
pub const TOOL_NAMES: &[(&str, &str)] = &[
    ("bash", "Bash"),
    ("read_file", "Read"),
    ("write_file", "Write"),
    ("edit_file", "Edit"),
    ("glob", "Glob"),
    ("grep", "Grep"),
    ("web_fetch", "WebFetch"),
    ("web_search", "WebSearch"),
    ("todo", "TodoWrite"),
    ("task", "Agent"),
    ("delegate", "Agent"),
];

/// The Claude Code name hooks match for an Amplifier tool. Unknown tools keep their own name.
pub fn claude_tool_name(amplifier_tool: &str) -> &str {
    TOOL_NAMES
        .iter()
        .find(|(a, _)| *a == amplifier_tool)
        .map_or(amplifier_tool, |(_, c)| c)
}

/// Every Amplifier tool presented under `claude_tool` (`Agent` → `task`, `delegate`). Empty for a
/// Claude Code name no Amplifier tool maps to.
pub fn amplifier_tool_names(claude_tool: &str) -> Vec<&'static str> {
    TOOL_NAMES
        .iter()
        .filter(|(_, c)| *c == claude_tool)
        .map(|(a, _)| *a)
        .collect()
}
