//! Amplifier's tools as Claude Code hooks see them: names, `tool_input` fields, and the tool's
//! result as `tool_response`.
//!
//! Names and fields come from the real tool modules (read in their repositories, 2026):
//!
//! | Amplifier tool (module) | input fields | Claude Code tool | Claude `tool_input` |
//! |---|---|---|---|
//! | `bash` (tool-bash) | `command`, `timeout` (**seconds**), `run_in_background` | `Bash` | `command`, `timeout` (**ms**), `run_in_background` |
//! | `read_file` (tool-filesystem) | `file_path` (absolute, relative, `~` or `@mention`), `offset`, `limit` | `Read` | `file_path` (absolute), `offset`, `limit` |
//! | `write_file` (tool-filesystem) | `file_path`, `content` | `Write` | `file_path` (absolute), `content` |
//! | `edit_file` (tool-filesystem) | `file_path`, `old_string`, `new_string`, `replace_all` | `Edit` | same, `file_path` absolute |
//! | `glob` (tool-search) | `pattern`, `path`, `type`, `exclude`, `include_ignored` | `Glob` | `pattern`, `path` (absolute) + the extras |
//! | `grep` (tool-search) | `pattern`, `path`, `output_mode`, `-i`, `-n`, `-A`/`-B`/`-C`, `glob`, `type`, `multiline`, `head_limit`, `offset` | `Grep` | same names, `path` absolute |
//! | `web_fetch` (tool-web) | `url`, `save_to_file`, `offset`, `limit` | `WebFetch` | `url` (+ extras; Amplifier has no `prompt`) |
//! | `web_search` (tool-web) | `query` | `WebSearch` | `query` |
//! | `todo` (tool-todo) | `action` (`create`/`update`/`list`), `todos` [{`content`, `status`, `activeForm`}] | `TodoWrite` | `todos` (same item shape) + `action` |
//! | `task` (tool-task), `delegate` (foundation tool-delegate) | `agent`, `instruction`, `session_id`, context options | `Agent` | `subagent_type` ← `agent`, `prompt` ← `instruction`, other fields kept |
//! | anything else (MCP tools, custom tools) | — | same name | input unchanged |
//!
//! The sub-agent tool is presented as **`Agent`**, the name Claude Code 2.1.328 sends and current
//! matchers use. Hooks written in 2025 match `Task`; [`legacy_claude_tool_names`] lists such
//! older spellings so the matcher layer can accept them too (an open question for that layer:
//! Claude Code itself does not alias them).
//!
//! The one design decision: **translation renames and converts, it never drops.** On the way in
//! a field Claude Code spells differently is renamed (not duplicated, so a hook that edits
//! `prompt` and echoes the whole input back as `updatedInput` leaves no stale `instruction`
//! behind), units are converted, relative paths are made absolute (lexically, no filesystem
//! access), and every field Claude Code does not know keeps its Amplifier name. On the way back
//! ([`to_amplifier_input`]) only those renames and unit changes are undone, so a round trip gives
//! the tool an input it accepts. The tool's result is *enriched* rather than reshaped: Amplifier's
//! output fields stay and Claude Code's names are added beside them (`filePath`, `interrupted`,
//! `content` for Agent, …), because hooks of both worlds read it.
//!
//! Tool results reach hooks in several forms (spec §1.9): a `ToolResult.model_dump()` object
//! (`{success, output, error}`, loop-streaming), the tool's raw output object, or — with
//! amplifier-core 2.0.2 and loop-basic — the string `str(ToolResult)`: the Python `repr` of the
//! output (`"{'stdout': 'hi\n', 'stderr': '', 'returncode': 0}"`), `"Error: <message>"`,
//! `"Failed"` or `"Success"`. [`parse_tool_result`] reads all of them; Python literals are parsed
//! by a small `ast.literal_eval` subset (`tools/py_literal.rs`).

use std::path::{Component, Path, PathBuf};

use serde_json::{json, Map, Value};

mod py_literal;

pub use hookbridge_core::tool_names::{amplifier_tool_names, claude_tool_name, TOOL_NAMES};

/// Amplifier's sub-agent tools: `task` (amplifier-module-tool-task) and `delegate`
/// (amplifier-foundation's tool-delegate).
pub const AGENT_TOOLS: &[&str] = &["task", "delegate"];

/// Older Claude Code names of the same tool, which hooks written for them still match
/// (`Agent` was `Task` until 2026).
pub fn legacy_claude_tool_names(claude_tool: &str) -> &'static [&'static str] {
    match claude_tool {
        "Agent" => &["Task"],
        _ => &[],
    }
}

/// Whether `amplifier_tool` runs a sub-agent (its completion is a SubagentStop).
pub fn is_agent_tool(amplifier_tool: &str) -> bool {
    AGENT_TOOLS.contains(&amplifier_tool)
}

/// The shape of a known tool, which decides how its input and result are translated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bash,
    Read,
    Write,
    Edit,
    Search,
    Agent,
    Other,
}

fn kind(amplifier_tool: &str) -> Kind {
    match amplifier_tool {
        "bash" => Kind::Bash,
        "read_file" => Kind::Read,
        "write_file" => Kind::Write,
        "edit_file" => Kind::Edit,
        "glob" | "grep" => Kind::Search,
        "task" | "delegate" => Kind::Agent,
        _ => Kind::Other,
    }
}

/// Where relative paths are resolved: the session's working directory and the user's home (for
/// `~`). Both optional; without them such paths are passed on as they are.
#[derive(Debug, Clone, Copy, Default)]
pub struct PathBase<'a> {
    pub cwd: Option<&'a str>,
    pub home: Option<&'a str>,
}

/// `path` made absolute the way Amplifier's file tools resolve it (`~` → home, relative → joined
/// to the working directory), then normalized lexically (`.` and `..` removed) as Claude Code
/// reports paths. `@mention` paths (`@project:notes.md`) are resolved by the host, not here, and
/// come back unchanged, as do paths that cannot be resolved for lack of a base.
pub fn absolute_path(path: &str, base: PathBase<'_>) -> String {
    if path.is_empty() || path.starts_with('@') {
        return path.to_string();
    }
    let expanded: PathBuf = match (path.strip_prefix('~'), base.home) {
        (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') || rest.starts_with('\\') => {
            Path::new(home).join(rest.trim_start_matches(['/', '\\']))
        }
        // `~name/…`: that account's home, as the tools' `expanduser` reads it (red-team pass 14:
        // `~root/.bashrc` was shown to the hooks as a file of the project).
        (Some(rest), _) if !rest.is_empty() => {
            let (name, tail) = rest.split_once(['/', '\\']).unwrap_or((rest, ""));
            match hookbridge_runner::home::home_of(name) {
                Some(home) => home.join(tail),
                None => PathBuf::from(path),
            }
        }
        _ => PathBuf::from(path),
    };
    let joined = if expanded.is_absolute() {
        expanded
    } else {
        match base.cwd {
            Some(cwd) if Path::new(cwd).is_absolute() => Path::new(cwd).join(expanded),
            _ => return path.to_string(),
        }
    };
    let mut out = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                // `/..` stays `/`, as path resolution does.
                if matches!(out.components().next_back(), Some(Component::Normal(_))) {
                    out.pop();
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out.to_str().map_or_else(|| path.to_string(), str::to_string)
}

/// An Amplifier tool's input as Claude Code's `tool_input` (see the module table).
pub fn to_claude_input(
    amplifier_tool: &str,
    input: &Map<String, Value>,
    base: PathBase<'_>,
) -> Map<String, Value> {
    let mut out = input.clone();
    let resolve = |out: &mut Map<String, Value>, field: &str| {
        if let Some(Value::String(p)) = out.get(field) {
            let abs = absolute_path(p, base);
            out.insert(field.to_string(), Value::String(abs));
        }
    };
    match kind(amplifier_tool) {
        Kind::Bash => {
            if let Some(t) = out.get("timeout").and_then(seconds_to_ms) {
                out.insert("timeout".into(), t);
            }
        }
        Kind::Read | Kind::Write | Kind::Edit => resolve(&mut out, "file_path"),
        Kind::Search => resolve(&mut out, "path"),
        Kind::Agent => {
            rename(&mut out, "instruction", "prompt");
            rename(&mut out, "agent", "subagent_type");
        }
        Kind::Other => {}
    }
    out
}

/// A hook's `updatedInput` (Claude Code field names) as the Amplifier tool's input: the renames
/// and unit conversions of [`to_claude_input`] undone. Paths stay as the hook gave them (an
/// absolute path is valid input for Amplifier's tools); unknown fields pass through.
pub fn to_amplifier_input(amplifier_tool: &str, claude_input: &Map<String, Value>) -> Map<String, Value> {
    let mut out = claude_input.clone();
    match kind(amplifier_tool) {
        Kind::Bash => {
            if let Some(t) = out.get("timeout").and_then(ms_to_seconds) {
                out.insert("timeout".into(), t);
            }
        }
        Kind::Agent => {
            rename(&mut out, "prompt", "instruction");
            rename(&mut out, "subagent_type", "agent");
        }
        _ => {}
    }
    out
}

/// Moves `from` to `to`, keeping the key's position; a value already under `to` is replaced
/// (the name being renamed *to* is the one the other side understands).
fn rename(map: &mut Map<String, Value>, from: &str, to: &str) {
    if !map.contains_key(from) {
        return;
    }
    let mut renamed = Map::with_capacity(map.len());
    for (k, v) in std::mem::take(map) {
        if k == from {
            renamed.insert(to.to_string(), v);
        } else if k != to {
            renamed.insert(k, v);
        }
    }
    *map = renamed;
}

fn seconds_to_ms(v: &Value) -> Option<Value> {
    if let Some(s) = v.as_u64() {
        return s.checked_mul(1000).map(Value::from);
    }
    let f = v.as_f64()?;
    Some(Value::from((f * 1000.0).round() as i64))
}

/// Milliseconds to whole seconds, rounded up (tool-bash's `timeout` is an integer; rounding down
/// could turn 1500 ms into a timeout shorter than asked for).
fn ms_to_seconds(v: &Value) -> Option<Value> {
    if let Some(ms) = v.as_u64() {
        return Some(Value::from(ms.div_ceil(1000)));
    }
    let f = v.as_f64()?;
    Some(Value::from((f / 1000.0).ceil() as i64))
}

/// A tool's result, whatever form it reached the hook in.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutcome {
    /// `Some(false)`: the tool failed. `None`: the form does not say (treated as success).
    pub success: Option<bool>,
    /// The tool's output (`ToolResult.output`), parsed back from a Python repr when possible.
    pub output: Option<Value>,
    /// The error message, for failures that carry one.
    pub error: Option<String>,
    /// The value as received.
    pub raw: Value,
}

impl ToolOutcome {
    /// Whether the tool failed: `success: false`, or a shell-like output with a non-zero
    /// `returncode` when the form carries no success flag.
    pub fn failed(&self) -> bool {
        match self.success {
            Some(ok) => !ok,
            None => self
                .output
                .as_ref()
                .and_then(|o| o.get("returncode"))
                .and_then(Value::as_i64)
                .is_some_and(|code| code != 0),
        }
    }

    /// The failure text Claude Code puts in PostToolUseFailure's `error`: for shell-like output
    /// `Exit code N` then the output (as Claude Code's Bash does), else the error message, else
    /// the output as text, else `"Failed"`.
    pub fn error_text(&self) -> String {
        if let Some(Value::Object(o)) = &self.output {
            if let Some(code) = o.get("returncode").and_then(Value::as_i64) {
                let mut text = format!("Exit code {code}");
                for key in ["stderr", "stdout"] {
                    if let Some(s) = o.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()) {
                        text.push('\n');
                        text.push_str(s.trim_end_matches('\n'));
                    }
                }
                return text;
            }
        }
        if let Some(e) = &self.error {
            return e.clone();
        }
        match &self.output {
            Some(Value::String(s)) => s.clone(),
            Some(other) if !other.is_null() => other.to_string(),
            _ => "Failed".to_string(),
        }
    }
}

const TOOL_RESULT_KEYS: &[&str] = &["success", "output", "error"];

/// Reads a tool result in any of the forms listed in the module docs.
pub fn parse_tool_result(result: &Value) -> ToolOutcome {
    let raw = result.clone();
    match result {
        Value::Object(o)
            if !o.is_empty()
                && o.keys().all(|k| TOOL_RESULT_KEYS.contains(&k.as_str()))
                && (o.contains_key("success") || o.contains_key("error")) =>
        {
            from_dump(o, raw)
        }
        Value::String(s) => from_str_form(s, raw),
        Value::Null => ToolOutcome {
            success: None,
            output: None,
            error: None,
            raw,
        },
        other => ToolOutcome {
            success: None,
            output: Some(other.clone()),
            error: None,
            raw,
        },
    }
}

/// `ToolResult.model_dump()`: `{success, output, error}`.
fn from_dump(o: &Map<String, Value>, raw: Value) -> ToolOutcome {
    let success = o.get("success").and_then(Value::as_bool).unwrap_or(true);
    let error = o.get("error").and_then(|e| match e {
        Value::Object(e) => e.get("message").and_then(Value::as_str).map(str::to_string),
        Value::String(s) => Some(s.clone()),
        _ => None,
    });
    let output = o.get("output").filter(|v| !v.is_null()).cloned();
    ToolOutcome {
        success: Some(success),
        output,
        error,
        raw,
    }
}

/// `str(ToolResult)` (amplifier-core 2.0.2 `models.py`): success → `str(output)` or `"Success"`;
/// failure → `"Error: <error.message>"` or `"Failed"`. A successful output whose own text starts
/// with `"Error: "` is indistinguishable from a failure in this form and is read as one.
fn from_str_form(s: &str, raw: Value) -> ToolOutcome {
    if s == "Failed" {
        return ToolOutcome {
            success: Some(false),
            output: None,
            error: None,
            raw,
        };
    }
    if let Some(message) = s.strip_prefix("Error: ") {
        return ToolOutcome {
            success: Some(false),
            output: None,
            error: Some(message.to_string()),
            raw,
        };
    }
    if s == "Success" {
        return ToolOutcome {
            success: Some(true),
            output: None,
            error: None,
            raw,
        };
    }
    let output = match py_literal::parse(s) {
        Some(v @ (Value::Object(_) | Value::Array(_))) => v,
        _ => Value::String(s.to_string()),
    };
    ToolOutcome {
        success: Some(true),
        output: Some(output),
        error: None,
        raw,
    }
}

/// Claude Code's `tool_response` for a successful call: the tool's output with Claude Code's
/// field names added beside Amplifier's. Without an output, the result as received.
pub fn tool_response(amplifier_tool: &str, input: &Map<String, Value>, outcome: &ToolOutcome) -> Value {
    let Some(output) = &outcome.output else {
        return outcome.raw.clone();
    };
    let Value::Object(o) = output else {
        return output.clone();
    };
    let mut r = o.clone();
    let add = |r: &mut Map<String, Value>, k: &str, v: Value| {
        if !r.contains_key(k) {
            r.insert(k.to_string(), v);
        }
    };
    let file_path = o
        .get("file_path")
        .cloned()
        .or_else(|| input.get("file_path").cloned());
    match kind(amplifier_tool) {
        Kind::Bash => {
            add(&mut r, "interrupted", Value::Bool(false));
            add(&mut r, "isImage", Value::Bool(false));
        }
        Kind::Read => {
            if let Some(fp) = &file_path {
                add(&mut r, "filePath", fp.clone());
            }
            add(&mut r, "type", json!("text"));
            let mut file = Map::new();
            for (claude, amp) in [
                ("filePath", "file_path"),
                ("content", "content"),
                ("numLines", "lines_read"),
                ("startLine", "offset"),
                ("totalLines", "total_lines"),
            ] {
                if let Some(v) = o.get(amp) {
                    file.insert(claude.into(), v.clone());
                }
            }
            add(&mut r, "file", Value::Object(file));
        }
        Kind::Write | Kind::Edit => {
            if let Some(fp) = &file_path {
                add(&mut r, "filePath", fp.clone());
            }
            add(&mut r, "success", Value::Bool(!outcome.failed()));
            if kind(amplifier_tool) == Kind::Edit {
                for (claude, amp) in [
                    ("oldString", "old_string"),
                    ("newString", "new_string"),
                    ("replaceAll", "replace_all"),
                ] {
                    if let Some(v) = input.get(amp) {
                        add(&mut r, claude, v.clone());
                    }
                }
            }
        }
        Kind::Agent => {
            add(&mut r, "status", json!("completed"));
            if let Some(id) = o.get("session_id") {
                add(&mut r, "agentId", id.clone());
            }
            if let Some(text) = o.get("response").and_then(Value::as_str) {
                add(&mut r, "content", json!([{"type": "text", "text": text}]));
            }
        }
        Kind::Search | Kind::Other => {}
    }
    Value::Object(r)
}

/// The seed spec's `tool_result` `{stdout, stderr, returncode}`, for shell-like outputs only.
pub fn seed_tool_result(outcome: &ToolOutcome) -> Option<Value> {
    let Some(Value::Object(o)) = &outcome.output else {
        return None;
    };
    if !o.contains_key("returncode") && !o.contains_key("stdout") {
        return None;
    }
    Some(json!({
        "stdout": o.get("stdout").cloned().unwrap_or(json!("")),
        "stderr": o.get("stderr").cloned().unwrap_or(json!("")),
        "returncode": o.get("returncode").cloned().unwrap_or(Value::Null),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().expect("an object")
    }

    const BASE: PathBase<'static> = PathBase {
        cwd: Some("/home/u/proj"),
        home: Some("/home/u"),
    };

    #[test]
    fn names_map_both_ways_and_unknown_tools_pass_through() {
        for (amp, claude) in TOOL_NAMES {
            assert_eq!(claude_tool_name(amp), *claude);
            assert!(amplifier_tool_names(claude).contains(amp), "{claude} → {amp}");
        }
        assert_eq!(
            claude_tool_name("mcp_github_create_issue"),
            "mcp_github_create_issue"
        );
        assert!(amplifier_tool_names("NotebookEdit").is_empty());
        assert_eq!(amplifier_tool_names("Agent"), vec!["task", "delegate"]);
        assert_eq!(legacy_claude_tool_names("Agent"), &["Task"]);
        assert!(is_agent_tool("delegate") && !is_agent_tool("bash"));
    }

    #[test]
    fn paths_are_made_absolute_lexically() {
        let cases = [
            ("src/main.rs", "/home/u/proj/src/main.rs"),
            ("./a/../b.txt", "/home/u/proj/b.txt"),
            ("../other/x", "/home/u/other/x"),
            ("/etc/hosts", "/etc/hosts"),
            ("/a/./b/../c", "/a/c"),
            ("/..", "/"),
            ("~/notes.md", "/home/u/notes.md"),
            ("~", "/home/u"),
            ("~bob/x", "/home/u/proj/~bob/x"),
            ("@project:config.yaml", "@project:config.yaml"),
            ("", ""),
        ];
        for (input, want) in cases {
            assert_eq!(absolute_path(input, BASE), want, "{input}");
        }
        // `~name/…` is that account's home, as Python's `expanduser` reads it (red-team pass 14):
        // every Linux system has a `root` account.
        let root = hookbridge_runner::home::home_of("root").expect("an account called root");
        assert_eq!(
            absolute_path("~root/.bashrc", BASE),
            root.join(".bashrc").to_string_lossy()
        );
        assert_eq!(absolute_path("~root", BASE), root.to_string_lossy());
        assert_eq!(absolute_path("rel/x", PathBase::default()), "rel/x");
        assert_eq!(
            absolute_path(
                "rel/x",
                PathBase {
                    cwd: Some("also-relative"),
                    home: None
                }
            ),
            "rel/x"
        );
    }

    /// A hook matching `Write|Edit` finds `tool_input.file_path`, absolute.
    #[test]
    fn file_tools_get_absolute_file_paths() {
        let write = to_claude_input(
            "write_file",
            &obj(json!({"file_path": "out.txt", "content": "x"})),
            BASE,
        );
        assert_eq!(
            write,
            obj(json!({"file_path": "/home/u/proj/out.txt", "content": "x"}))
        );
        let edit = to_claude_input(
            "edit_file",
            &obj(json!({"file_path": "a.py", "old_string": "x", "new_string": "y", "replace_all": true})),
            BASE,
        );
        assert_eq!(edit["file_path"], "/home/u/proj/a.py");
        assert_eq!(edit["replace_all"], true);
        let grep = to_claude_input(
            "grep",
            &obj(json!({"pattern": "fn", "path": "src", "-i": true})),
            BASE,
        );
        assert_eq!(
            grep,
            obj(json!({"pattern": "fn", "path": "/home/u/proj/src", "-i": true}))
        );
    }

    #[test]
    fn bash_timeout_is_seconds_in_amplifier_and_ms_in_claude_code() {
        let claude = to_claude_input("bash", &obj(json!({"command": "make", "timeout": 120})), BASE);
        assert_eq!(claude, obj(json!({"command": "make", "timeout": 120000})));
        assert_eq!(to_amplifier_input("bash", &claude)["timeout"], 120);
        assert_eq!(
            to_amplifier_input("bash", &obj(json!({"timeout": 1500})))["timeout"],
            2
        );
        assert_eq!(
            to_claude_input("bash", &obj(json!({"timeout": 1.5})), BASE)["timeout"],
            1500
        );
        assert_eq!(
            to_claude_input("bash", &obj(json!({"timeout": "soon"})), BASE)["timeout"],
            "soon"
        );
    }

    #[test]
    fn agent_fields_are_renamed_in_place_and_back() {
        let amp = obj(
            json!({"agent": "foundation:explorer", "instruction": "map the repo", "context_depth": "none"}),
        );
        let claude = to_claude_input("delegate", &amp, BASE);
        assert_eq!(
            serde_json::to_string(&claude).unwrap(),
            r#"{"subagent_type":"foundation:explorer","prompt":"map the repo","context_depth":"none"}"#
        );
        assert_eq!(to_amplifier_input("delegate", &claude), amp);
        // A hook that edited `prompt` and kept a stale `instruction`: the edit wins.
        let edited = obj(json!({"prompt": "new", "instruction": "old", "subagent_type": "a"}));
        assert_eq!(
            to_amplifier_input("task", &edited),
            obj(json!({"instruction": "new", "agent": "a"}))
        );
    }

    #[test]
    fn round_trip_restores_every_known_tool_input() {
        let inputs = [
            (
                "bash",
                json!({"command": "ls", "timeout": 30, "run_in_background": false}),
            ),
            (
                "read_file",
                json!({"file_path": "/abs/a.rs", "offset": 10, "limit": 5}),
            ),
            ("write_file", json!({"file_path": "/abs/a.rs", "content": "x"})),
            (
                "edit_file",
                json!({"file_path": "/abs/a.rs", "old_string": "a", "new_string": "b"}),
            ),
            (
                "glob",
                json!({"pattern": "**/*.rs", "path": "/abs", "type": "file"}),
            ),
            (
                "grep",
                json!({"pattern": "x", "output_mode": "content", "-n": true}),
            ),
            ("web_fetch", json!({"url": "https://example.com", "limit": 100})),
            ("web_search", json!({"query": "rust"})),
            (
                "todo",
                json!({"action": "create", "todos": [{"content": "a", "status": "pending", "activeForm": "A"}]}),
            ),
            (
                "task",
                json!({"agent": "x", "instruction": "y", "session_id": "s"}),
            ),
            ("my_custom_tool", json!({"anything": [1, 2]})),
        ];
        for (tool, input) in inputs {
            let input = obj(input);
            let back = to_amplifier_input(tool, &to_claude_input(tool, &input, BASE));
            assert_eq!(back, input, "{tool}");
        }
    }

    #[test]
    fn tool_results_in_every_form() {
        let repr = json!("{'stdout': 'hi\\n', 'stderr': '', 'returncode': 0}");
        let o = parse_tool_result(&repr);
        assert_eq!(o.success, Some(true));
        assert_eq!(
            o.output,
            Some(json!({"stdout": "hi\n", "stderr": "", "returncode": 0}))
        );
        assert!(!o.failed());

        let dump = json!({"success": false, "output": {"stdout": "", "stderr": "boom", "returncode": 2}, "error": null});
        let o = parse_tool_result(&dump);
        assert!(o.failed());
        assert_eq!(o.error_text(), "Exit code 2\nboom");

        let o = parse_tool_result(&json!("Error: File not found: /x"));
        assert!(o.failed());
        assert_eq!(o.error_text(), "File not found: /x");
        assert!(parse_tool_result(&json!("Failed")).failed());
        assert_eq!(parse_tool_result(&json!("Failed")).error_text(), "Failed");
        let s = parse_tool_result(&json!("Success"));
        assert_eq!((s.success, s.output.clone()), (Some(true), None));
        assert_eq!(tool_response("bash", &Map::new(), &s), json!("Success"));

        let text = parse_tool_result(&json!("plain text output"));
        assert_eq!(text.output, Some(json!("plain text output")));
        let raw = parse_tool_result(&json!({"stdout": "", "stderr": "x", "returncode": 1}));
        assert_eq!(raw.success, None);
        assert!(
            raw.failed(),
            "a raw shell output with a non-zero returncode is a failure"
        );
        assert!(!parse_tool_result(&Value::Null).failed());
        let dump_error = parse_tool_result(&json!({"success": false, "error": {"message": "denied"}}));
        assert_eq!(dump_error.error_text(), "denied");
    }

    #[test]
    fn tool_response_adds_claude_names_beside_amplifier_ones() {
        let bash = parse_tool_result(&json!("{'stdout': 'ok', 'stderr': '', 'returncode': 0}"));
        assert_eq!(
            tool_response("bash", &Map::new(), &bash),
            json!({"stdout": "ok", "stderr": "", "returncode": 0, "interrupted": false, "isImage": false})
        );
        assert_eq!(
            seed_tool_result(&bash),
            Some(json!({"stdout": "ok", "stderr": "", "returncode": 0}))
        );

        let write = parse_tool_result(&json!({"success": true, "output": {"file_path": "/p/a", "bytes": 3}}));
        assert_eq!(
            tool_response("write_file", &Map::new(), &write),
            json!({"file_path": "/p/a", "bytes": 3, "filePath": "/p/a", "success": true})
        );
        assert_eq!(seed_tool_result(&write), None);

        let edit = parse_tool_result(
            &json!({"success": true, "output": {"file_path": "/p/a", "replacements_made": 1}}),
        );
        let input = obj(json!({"file_path": "/p/a", "old_string": "x", "new_string": "y"}));
        let r = tool_response("edit_file", &input, &edit);
        assert_eq!(
            (
                r["oldString"].clone(),
                r["newString"].clone(),
                r["filePath"].clone()
            ),
            (json!("x"), json!("y"), json!("/p/a"))
        );

        let read = parse_tool_result(&json!({"success": true, "output": {
            "file_path": "/p/a", "content": "     1\tx", "total_lines": 1, "lines_read": 1, "offset": 1}}));
        let r = tool_response("read_file", &Map::new(), &read);
        assert_eq!(
            r["file"],
            json!({"filePath": "/p/a", "content": "     1\tx", "numLines": 1, "startLine": 1, "totalLines": 1})
        );

        let agent = parse_tool_result(
            &json!({"success": true, "output": {"response": "done", "session_id": "s-1", "agent": "a"}}),
        );
        let r = tool_response("delegate", &Map::new(), &agent);
        assert_eq!(r["agentId"], "s-1");
        assert_eq!(r["content"], json!([{"type": "text", "text": "done"}]));
        assert_eq!(r["status"], "completed");
    }
}
