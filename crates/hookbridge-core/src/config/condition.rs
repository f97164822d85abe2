//! `if` conditions: one Claude Code permission rule per hook (`Bash(git *)`, `Edit(*.ts)`, `Write`).
//!
//! Claude Code evaluates `if` with its permission-rule matcher, on tool events only. hookbridge
//! implements the documented core of that syntax — a tool name, optionally with a pattern; for Bash
//! every subcommand of `&&`, `||`, `;`, `|` is checked after stripping leading `VAR=value`; for file
//! tools the pattern is a path glob relative to the working directory (`**` crosses folders) — and
//! fails open (the hook runs) on anything it cannot evaluate, as Claude Code does for commands it
//! cannot parse.

use serde_json::{Map, Value};

/// A parsed `if` rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition {
    pub text: String,
    pub tool: String,
    pub pattern: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`if` rule `{0}` is not a permission rule like `Bash(git *)` or `Edit(*.ts)`")]
pub struct ConditionError(pub String);

impl Condition {
    pub fn parse(text: &str) -> Result<Condition, ConditionError> {
        let t = text.trim();
        let err = || ConditionError(text.to_string());
        let (tool, pattern) = match t.find('(') {
            None => (t, None),
            Some(open) => {
                if !t.ends_with(')') {
                    return Err(err());
                }
                (&t[..open], Some(t[open + 1..t.len() - 1].to_string()))
            }
        };
        if tool.is_empty() || !tool.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return Err(err());
        }
        Ok(Condition { text: text.to_string(), tool: tool.to_string(), pattern })
    }

    /// Does this rule cover the tool call? `cwd` resolves relative file patterns.
    pub fn matches(&self, tool_name: &str, tool_input: &Map<String, Value>, cwd: Option<&str>) -> bool {
        if self.tool != tool_name {
            return false;
        }
        let Some(pattern) = self.pattern.as_deref() else { return true };
        if pattern.is_empty() || pattern == "*" {
            return true;
        }
        match tool_name {
            "Bash" | "PowerShell" => {
                let Some(command) = tool_input.get("command").and_then(Value::as_str) else { return true };
                // `npm run test:*` is the legacy prefix form of `npm run test *`.
                let pattern = pattern.strip_suffix(":*").map(|p| format!("{p}*")).unwrap_or_else(|| pattern.to_string());
                if command.contains("$(") || command.contains('`') {
                    return true; // cannot see inside substitutions: fail open
                }
                subcommands(command).any(|sub| wildcard(&pattern, sub, false))
            }
            "Edit" | "Write" | "Read" | "MultiEdit" | "NotebookEdit" => {
                let Some(path) = tool_input
                    .get("file_path")
                    .or_else(|| tool_input.get("notebook_path"))
                    .and_then(Value::as_str)
                else {
                    return true;
                };
                let relative = cwd
                    .and_then(|c| path.strip_prefix(c.trim_end_matches('/')))
                    .map(|p| p.trim_start_matches('/'))
                    .unwrap_or(path);
                if pattern.contains('/') {
                    let pattern = pattern.trim_start_matches("./");
                    wildcard(pattern, relative, true) || wildcard(pattern, path, true)
                } else {
                    let base = path.rsplit('/').next().unwrap_or(path);
                    wildcard(pattern, base, true)
                }
            }
            _ => {
                // Other tools: match the pattern against any string field of the input.
                tool_input.values().filter_map(Value::as_str).any(|v| wildcard(pattern, v, false))
            }
        }
    }
}

/// The simple commands of a shell line, with leading `VAR=value` assignments stripped.
fn subcommands(command: &str) -> impl Iterator<Item = &str> {
    command
        .split(['\n', ';', '|', '&'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            let mut rest = s;
            while let Some((word, tail)) = rest.split_once(char::is_whitespace) {
                let is_assignment = word.contains('=')
                    && word.split('=').next().is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
                if !is_assignment {
                    break;
                }
                rest = tail.trim_start();
            }
            rest
        })
}

/// Glob match: `*` (any run; within one path segment when `paths`), `**` (any run, across `/`), `?`.
fn wildcard(pattern: &str, text: &str, paths: bool) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    fn go(p: &[char], t: &[char], paths: bool) -> bool {
        match p.first() {
            None => t.is_empty(),
            Some('*') => {
                let double = p.get(1) == Some(&'*');
                let rest = if double { &p[2..] } else { &p[1..] };
                let rest = if double && rest.first() == Some(&'/') { &rest[1..] } else { rest };
                for i in 0..=t.len() {
                    if go(rest, &t[i..], paths) {
                        return true;
                    }
                    if i < t.len() && paths && !double && t[i] == '/' {
                        return false;
                    }
                }
                false
            }
            Some('?') => !t.is_empty() && go(&p[1..], &t[1..], paths),
            Some(c) => t.first() == Some(c) && go(&p[1..], &t[1..], paths),
        }
    }
    go(&p, &t, paths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn input(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn bash_rules_check_each_subcommand() {
        let c = Condition::parse("Bash(git *)").unwrap();
        assert!(c.matches("Bash", &input(json!({"command": "git status"})), None));
        assert!(c.matches("Bash", &input(json!({"command": "cd x && FOO=1 git push"})), None));
        assert!(!c.matches("Bash", &input(json!({"command": "ls"})), None));
        assert!(!c.matches("Write", &input(json!({"file_path": "/a"})), None));
        let legacy = Condition::parse("Bash(npm run test:*)").unwrap();
        assert!(legacy.matches("Bash", &input(json!({"command": "npm run test:unit"})), None));
    }

    #[test]
    fn file_rules_are_path_globs() {
        let ts = Condition::parse("Edit(*.ts)").unwrap();
        assert!(ts.matches("Edit", &input(json!({"file_path": "/p/src/a.ts"})), Some("/p")));
        assert!(!ts.matches("Edit", &input(json!({"file_path": "/p/src/a.rs"})), Some("/p")));
        let src = Condition::parse("Write(src/**)").unwrap();
        assert!(src.matches("Write", &input(json!({"file_path": "/p/src/deep/a.rs"})), Some("/p")));
        assert!(!src.matches("Write", &input(json!({"file_path": "/p/lib/a.rs"})), Some("/p")));
    }

    #[test]
    fn bare_tool_names_and_bad_rules() {
        assert!(Condition::parse("Write").unwrap().matches("Write", &Map::new(), None));
        assert!(Condition::parse("Bash(git *").is_err());
        assert!(Condition::parse("").is_err());
    }
}
