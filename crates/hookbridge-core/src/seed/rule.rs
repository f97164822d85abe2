//! Rule hooks (`type: matcher`): a glob on the tool's name and globs on its arguments, decided in
//! this process — no child process, no thread, a few microseconds (`benches/rule.rs`).
//!
//! - `match.tool` is a glob on Claude Code's tool name (`Bash`, `Write`, `mcp__*`), case as the
//!   names are; Amplifier's names are accepted too (`bash`, `write_file`, … match their tools).
//! - `match.args.<field>` is a glob on that field of the tool's input. A value that is not a string
//!   is matched as its JSON text (`true`, `3`).
//!   - Path fields (`path`, `file_path`, `notebook_path` — any of the three names matches
//!     whichever the tool has, so the seed's `args.path` works for Write, Edit and Read) are
//!     globbed as paths: `*` and `?` stay within one directory, `**` crosses directories, and the
//!     path is tried as given and relative to the payload's `cwd`.
//!   - Every other field is globbed as text: `*` matches anything, `/` included (`rm *` matches
//!     `rm -rf /`).
//!   - Classes (`[abc]`, `[!a-z]`) and `?` work in both.
//! - Every condition must hold; a rule with no conditions matches every call. A field the tool's
//!   input does not have never matches.

use serde_json::{Map, Value};

use crate::tool_names::amplifier_tool_names;

/// What a matching rule does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleAction {
    Block,
    Allow,
    Ask,
}

impl RuleAction {
    pub const WORDS: &'static [&'static str] = &["block", "allow", "ask"];

    pub fn parse(word: &str) -> Option<RuleAction> {
        match word {
            "block" => Some(RuleAction::Block),
            "allow" => Some(RuleAction::Allow),
            "ask" => Some(RuleAction::Ask),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            RuleAction::Block => "block",
            RuleAction::Allow => "allow",
            RuleAction::Ask => "ask",
        }
    }
}

/// A glob that cannot be compiled: which one, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{glob}` is not a valid glob: {message} (at character {position})")]
pub struct RuleError {
    /// `tool` or `args.<field>`.
    pub key: String,
    pub glob: String,
    pub message: String,
    pub position: usize,
}

#[derive(Debug, Clone, PartialEq)]
struct Glob {
    text: String,
    pattern: glob::Pattern,
}

impl Glob {
    fn compile(key: &str, text: &str) -> Result<Glob, RuleError> {
        glob::Pattern::new(text)
            .map(|pattern| Glob {
                text: text.to_string(),
                pattern,
            })
            .map_err(|e| RuleError {
                key: key.to_string(),
                glob: text.to_string(),
                message: e.msg.to_string(),
                position: e.pos,
            })
    }
}

const TEXT: glob::MatchOptions = glob::MatchOptions {
    case_sensitive: true,
    require_literal_separator: false,
    require_literal_leading_dot: false,
};

const PATH: glob::MatchOptions = glob::MatchOptions {
    case_sensitive: true,
    require_literal_separator: true,
    require_literal_leading_dot: false,
};

/// The names a tool's path may have in its input.
pub const PATH_FIELDS: &[&str] = &["file_path", "notebook_path", "path"];

#[derive(Debug, Clone, PartialEq)]
struct ArgGlob {
    field: String,
    glob: Glob,
    is_path: bool,
}

/// A compiled `match`.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    tool: Option<Glob>,
    args: Vec<ArgGlob>,
}

impl Rule {
    /// Compile `match.tool` and `match.args` (field → glob), reporting the first bad glob.
    pub fn compile(tool: Option<&str>, args: &[(String, String)]) -> Result<Rule, RuleError> {
        let tool = tool.map(|t| Glob::compile("tool", t)).transpose()?;
        let args = args
            .iter()
            .map(|(field, text)| {
                Ok(ArgGlob {
                    field: field.clone(),
                    glob: Glob::compile(&format!("args.{field}"), text)?,
                    is_path: PATH_FIELDS.contains(&field.as_str()),
                })
            })
            .collect::<Result<_, RuleError>>()?;
        Ok(Rule { tool, args })
    }

    /// `tool=Bash args.command=rm *`: the rule in one line, for listings.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(t) = &self.tool {
            parts.push(format!("tool={}", t.text));
        }
        for a in &self.args {
            parts.push(format!("args.{}={}", a.field, a.glob.text));
        }
        if parts.is_empty() {
            "every call".to_string()
        } else {
            parts.join(" ")
        }
    }

    /// Whether a call of `tool_name` with `input` (in a session whose working directory is `cwd`)
    /// matches. `tool_name` is `None` on events that are not about a tool: then only a rule with
    /// no conditions matches. A path condition is read from every path field the call has
    /// (`file_path`, `notebook_path`, `path` stand for one another): with `every_path` (an allow
    /// rule) each must match, else (a block or an ask) any one does — a decoy `file_path` beside
    /// the real `path` neither hides the real one from a block nor lends it an allow (red-team
    /// pass 13).
    pub fn matches(
        &self,
        tool_name: Option<&str>,
        input: Option<&Map<String, Value>>,
        cwd: Option<&str>,
        every_path: bool,
    ) -> bool {
        if let Some(tool) = &self.tool {
            let Some(name) = tool_name else { return false };
            let by_name = tool.pattern.matches_with(name, TEXT);
            if !by_name
                && !amplifier_tool_names(name)
                    .iter()
                    .any(|alias| tool.pattern.matches_with(alias, TEXT))
            {
                return false;
            }
        }
        if self.args.is_empty() {
            return true;
        }
        let Some(input) = input else { return false };
        self.args.iter().all(|arg| {
            if !arg.is_path {
                return input
                    .get(&arg.field)
                    .is_some_and(|value| arg_matches(arg, value, cwd));
            }
            // The seed writes `args.path` for a Write; Claude Code's tools name it `file_path`.
            let mut values = std::iter::once(arg.field.as_str())
                .chain(PATH_FIELDS.iter().copied().filter(|f| *f != arg.field))
                .filter_map(|f| input.get(f))
                .peekable();
            if values.peek().is_none() {
                return false;
            }
            if every_path {
                values.all(|value| arg_matches(arg, value, cwd))
            } else {
                values.any(|value| arg_matches(arg, value, cwd))
            }
        })
    }
}

fn arg_matches(arg: &ArgGlob, value: &Value, cwd: Option<&str>) -> bool {
    let text = match value {
        Value::String(s) => std::borrow::Cow::Borrowed(s.as_str()),
        other => std::borrow::Cow::Owned(other.to_string()),
    };
    if !arg.is_path {
        return arg.glob.pattern.matches_with(&text, TEXT);
    }
    // A path is matched as the file it names, never as written: `/etc/./passwd`, `/etc//passwd`
    // and `/tmp/../etc/passwd` are `/etc/passwd` to a `/etc/*` rule (and to an allow rule
    // `/tmp/**`, not a file of /tmp). A relative path is also taken from the working directory.
    let path = normalize(&text);
    if arg.glob.pattern.matches_with(&path, PATH) {
        return true;
    }
    let Some(cwd) = cwd.map(normalize).filter(|c| c.starts_with('/')) else {
        return false;
    };
    let absolute = if path.starts_with('/') {
        path
    } else {
        let absolute = normalize(&format!("{cwd}/{path}"));
        if arg.glob.pattern.matches_with(&absolute, PATH) {
            return true;
        }
        absolute
    };
    // A relative pattern (`src/*.rs`) against an absolute path inside the working directory.
    let relative = absolute
        .strip_prefix(cwd.trim_end_matches('/'))
        .and_then(|rest| rest.strip_prefix('/'));
    relative.is_some_and(|r| arg.glob.pattern.matches_with(r, PATH))
}

/// `path` with `.` segments and repeated `/` removed and each `..` taking the segment before it
/// away, as the file system reads it (symbolic links aside); a relative path keeps the `..`s that
/// lead above it, an absolute one stops at `/`.
fn normalize(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|last| *last != "..") => {
                parts.pop();
            }
            ".." if absolute => {}
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else if joined.is_empty() {
        ".".to_string()
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rule(tool: Option<&str>, args: &[(&str, &str)]) -> Rule {
        let args: Vec<(String, String)> = args.iter().map(|(f, g)| (f.to_string(), g.to_string())).collect();
        Rule::compile(tool, &args).unwrap()
    }

    fn input(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn the_seeds_rm_rule_matches_destructive_commands_only() {
        let r = rule(Some("Bash"), &[("command", "rm *")]);
        for (cmd, expected) in [
            ("rm -rf /", true),
            ("rm x", true),
            ("git status", false),
            ("echo rm -rf", false),
        ] {
            assert_eq!(
                r.matches(Some("Bash"), Some(&input(json!({"command": cmd}))), None, false),
                expected,
                "{cmd}"
            );
        }
        assert!(!r.matches(
            Some("Write"),
            Some(&input(json!({"command": "rm x"}))),
            None,
            false
        ));
        // Amplifier's name for the tool.
        let amp = rule(Some("bash"), &[]);
        assert!(amp.matches(Some("Bash"), None, None, false));
        assert!(!rule(Some("bash"), &[]).matches(Some("Write"), None, None, false));
    }

    #[test]
    fn a_decoy_path_field_neither_hides_the_real_one_nor_lends_an_allow() {
        // Red-team pass 13: `file_path` named by the rule, the real write in `path`.
        let env = rule(None, &[("file_path", "**/.env*")]);
        let call = input(json!({"path": "/p/.env", "file_path": "/p/notes.txt"}));
        assert!(
            env.matches(Some("write_file"), Some(&call), None, false),
            "a block sees every path"
        );
        let tmp = rule(None, &[("path", "/tmp/**")]);
        let call = input(json!({"path": "/tmp/x", "file_path": "/etc/passwd"}));
        assert!(
            !tmp.matches(Some("write_file"), Some(&call), None, true),
            "an allow needs every path"
        );
        assert!(tmp.matches(
            Some("write_file"),
            Some(&input(json!({"path": "/tmp/x"}))),
            None,
            true
        ));
    }

    #[test]
    fn the_seeds_env_rule_matches_the_tools_path_field() {
        let r = rule(Some("Write"), &[("path", "**/.env*")]);
        for (path, expected) in [
            ("/home/u/p/.env", true),
            ("/home/u/p/config/.env.local", true),
            (".env", true),
            ("/home/u/p/src/main.rs", false),
            ("/home/u/p/.envrc/x", false),
        ] {
            assert_eq!(
                r.matches(
                    Some("Write"),
                    Some(&input(json!({"file_path": path}))),
                    None,
                    false
                ),
                expected,
                "{path}"
            );
        }
        // Globs on paths: `*` stays in one directory; relative patterns work inside the cwd.
        let src = rule(None, &[("file_path", "src/*.rs")]);
        let call = |p: &str| input(json!({"file_path": p}));
        assert!(src.matches(Some("Edit"), Some(&call("/p/src/a.rs")), Some("/p"), false));
        assert!(!src.matches(Some("Edit"), Some(&call("/p/src/x/a.rs")), Some("/p"), false));
        assert!(!src.matches(Some("Edit"), Some(&call("/q/src/a.rs")), Some("/p"), false));
        let nb = rule(None, &[("path", "*.ipynb")]);
        assert!(nb.matches(
            Some("NotebookEdit"),
            Some(&input(json!({"notebook_path": "a.ipynb"}))),
            None,
            false
        ));
    }

    /// A path is matched as the file it names (found by a red-team pass: a `/etc/*` block rule let
    /// each of these through).
    #[test]
    fn a_path_is_matched_as_the_file_it_names_not_as_written() {
        let etc = rule(Some("Write"), &[("file_path", "/etc/*")]);
        let call = |p: &str| input(json!({"file_path": p}));
        for path in [
            "/etc/passwd",
            "/etc/./passwd",
            "/etc//passwd",
            "/tmp/../etc/passwd",
            "/../etc/passwd",
        ] {
            assert!(
                etc.matches(Some("Write"), Some(&call(path)), None, false),
                "{path}"
            );
        }
        // Relative to the working directory.
        assert!(etc.matches(
            Some("Write"),
            Some(&call("../../etc/passwd")),
            Some("/home/u"),
            false
        ));
        assert!(!etc.matches(Some("Write"), Some(&call("/etc/ssh/sshd_config")), None, false));
        // An allow rule over /tmp does not cover a path that leaves it.
        let tmp = rule(Some("Write"), &[("file_path", "/tmp/**")]);
        assert!(tmp.matches(Some("Write"), Some(&call("/tmp/a/b")), None, false));
        assert!(!tmp.matches(Some("Write"), Some(&call("/tmp/../etc/passwd")), None, false));
        assert_eq!(normalize("a/../../b/./c//"), "../b/c");
        assert_eq!(normalize("./"), ".");
    }

    #[test]
    fn globs_support_classes_and_question_marks_and_report_errors() {
        let r = rule(Some("mcp__*"), &[("mode", "[!r]?")]);
        assert!(r.matches(
            Some("mcp__fs__write"),
            Some(&input(json!({"mode": "wx"}))),
            None,
            false
        ));
        assert!(!r.matches(
            Some("mcp__fs__write"),
            Some(&input(json!({"mode": "rw"}))),
            None,
            false
        ));
        assert!(!r.matches(Some("mcp__fs__write"), Some(&input(json!({}))), None, false));
        let n = rule(None, &[("count", "1?")]);
        assert!(n.matches(Some("X"), Some(&input(json!({"count": 12}))), None, false));
        let err = Rule::compile(None, &[("path".into(), "a/[b".into())]).unwrap_err();
        assert_eq!(err.key, "args.path");
        assert!(err.to_string().contains("`a/[b`"), "{err}");
        assert!(Rule::compile(Some("a**b"), &[]).is_err());
        assert_eq!(
            rule(Some("Bash"), &[("command", "rm *")]).describe(),
            "tool=Bash args.command=rm *"
        );
        assert!(rule(None, &[]).matches(None, None, None, false));
        assert!(!rule(Some("*"), &[]).matches(None, None, None, false));
    }
}
