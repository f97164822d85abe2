//! Which tool another agent calls by which Claude Code name: Amplifier's tools (`bash` is `Bash`,
//! `read_file` is `Read`, …) and Gemini CLI's (`run_shell_command` is `Bash`, `replace` is `Edit`,
//! …). Hooks match Claude Code's names; the Amplifier host presents its tools under them
//! (hookbridge-amplifier's `tools`, which also converts their inputs), the seed dialect's rules,
//! written with Amplifier's names, match either (`seed::rule`), and Gemini CLI's payloads and
//! matchers are read with the Gemini table (`hookbridge run --host gemini`, `migrate --from
//! gemini`). One table per agent.

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

/// Gemini CLI tool name → Claude Code tool name (Gemini CLI's built-in tools, 2026).
pub const GEMINI_TOOL_NAMES: &[(&str, &str)] = &[
    ("run_shell_command", "Bash"),
    ("write_file", "Write"),
    ("replace", "Edit"),
    ("read_file", "Read"),
    ("read_many_files", "Read"),
    ("glob", "Glob"),
    ("search_file_content", "Grep"),
    ("grep_search", "Grep"),
    ("list_directory", "LS"),
    ("web_fetch", "WebFetch"),
    ("google_web_search", "WebSearch"),
    ("write_todos", "TodoWrite"),
];

/// The Claude Code name hooks match for a Gemini CLI tool. Unknown tools (MCP tools, extensions')
/// keep their own name.
pub fn claude_tool_name_for_gemini(gemini_tool: &str) -> &str {
    GEMINI_TOOL_NAMES
        .iter()
        .find(|(g, _)| *g == gemini_tool)
        .map_or(gemini_tool, |(_, c)| c)
}
