//! `if` conditions: one Claude Code permission rule per hook (`Bash(git *)`, `Edit(*.ts)`, `Write`).
//!
//! Claude Code evaluates `if` with its permission-rule matcher, on tool events only. The rules here
//! were measured against Claude Code 2.1.328 (conformance cases 150–153, 185):
//! - **Bash**: the command is split into simple commands (`&&`, `||`, `;`, `|`, `&`, newlines,
//!   subshells, `if … then … fi`), leading `VAR=value` words are dropped, quotes keep their words
//!   whole, and commands inside `$(…)` and backticks are checked too. `prefix:*` and `prefix *`
//!   match the prefix as whole words (`rm:*` matches `rm -f x` and `rm`, not `rmdir`); other
//!   patterns are globs over the whole command (`ls*` matches `lsof`). A rule more specific than a
//!   command name (`npm run test:*`) runs anyway when the command has a substitution; a heredoc, or
//!   a redirection together with a comment or a substitution, runs every rule (Claude Code cannot
//!   see through those and fails open), and so do a process substitution (`<(…)`, `>(…)`),
//!   `$'…'`, `${…}`, a function definition and brace expansion (measured with 2.1.332, case 297);
//!   `$x` after `x=rm` is `rm`. `eval 'rm …'`, `nohup rm …`, `coproc rm …` and a globbed program
//!   (`/bin/r?`) are the commands they name, as for Claude Code: a guard that must see every way
//!   a command can run checks the command itself, not through `if`.
//! - **File tools**: gitignore-style patterns relative to the working directory: no `/` matches
//!   the name at any depth, `/x` is anchored at the working directory, `//x` is an absolute path,
//!   `~/x` is under the home directory, `./` is dropped; `*` stays within a folder and `**`
//!   crosses folders; a path also matches when one of its parent folders does. The home is the
//!   one discovery found your hooks in (given, never read from `HOME` here: a project's settings
//!   can set the agent's `HOME`, and a guard on `Edit(~/.bashrc)` would then never fire); with
//!   no home known a `~/` rule runs its hook (an `if` only narrows a hook, so the guard runs
//!   rather than being skipped).

use std::path::Path;

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
        if tool.is_empty()
            || !tool
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(err());
        }
        Ok(Condition {
            text: text.to_string(),
            tool: tool.to_string(),
            pattern,
        })
    }

    /// Does this rule cover the tool call? `cwd` resolves relative file patterns, `home` the
    /// patterns under `~/`.
    pub fn matches(
        &self,
        tool_name: &str,
        tool_input: &Map<String, Value>,
        cwd: Option<&str>,
        home: Option<&Path>,
    ) -> bool {
        if self.tool != tool_name {
            return false;
        }
        let Some(pattern) = self.pattern.as_deref().map(str::trim) else {
            return true;
        };
        if pattern.is_empty() || pattern == "*" || pattern == "**" {
            return true;
        }
        match tool_name {
            "Bash" | "PowerShell" => match tool_input.get("command").and_then(Value::as_str) {
                Some(command) => bash_rule_matches(pattern, command),
                None => true,
            },
            "Edit" | "Write" | "Read" | "MultiEdit" | "NotebookEdit" | "Glob" | "Grep" => {
                let path = ["file_path", "notebook_path", "path"]
                    .iter()
                    .find_map(|k| tool_input.get(*k).and_then(Value::as_str));
                match path {
                    Some(path) => file_rule_matches(pattern, path, cwd, home),
                    None => true,
                }
            }
            // Other tools: the pattern against any string field of the input.
            _ => tool_input
                .values()
                .filter_map(Value::as_str)
                .any(|v| glob(pattern, v, false)),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Bash

/// What the lexer found in a command line.
#[derive(Debug, Default)]
struct Lexed {
    /// Simple commands, each as its words joined by one space.
    commands: Vec<String>,
    /// Texts inside `$(…)` and backticks.
    substitutions: Vec<String>,
    has_redirect: bool,
    has_comment: bool,
    /// A form Claude Code does not read through and so runs every rule for (measured: case 297):
    /// process substitution, `$'…'`, `${…}`, a function definition, brace expansion.
    opaque: bool,
}

const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "time", "exec",
];

fn bash_rule_matches(pattern: &str, command: &str) -> bool {
    if command.contains("<<") {
        return true; // heredoc: Claude Code fails open
    }
    let Some(lexed) = lex(command) else { return true };
    if lexed.opaque {
        return true;
    }
    if lexed.has_redirect && (lexed.has_comment || !lexed.substitutions.is_empty()) {
        return true;
    }
    let mut commands = lexed.commands.clone();
    for inner in &lexed.substitutions {
        match lex(inner) {
            Some(l) if !l.opaque => commands.extend(l.commands),
            _ => return true,
        }
    }
    let pattern = squeeze(pattern);
    if commands.iter().any(|c| command_rule_matches(&pattern, c)) {
        return true;
    }
    !lexed.substitutions.is_empty() && more_specific_than_command_name(&pattern)
}

/// `npm run test:*` names more than the command; `git *`, `rm:*` and `ls*` do not.
fn more_specific_than_command_name(pattern: &str) -> bool {
    let head = pattern
        .strip_suffix(":*")
        .or_else(|| pattern.strip_suffix(" *"))
        .unwrap_or(pattern);
    head.trim().contains(' ')
}

fn command_rule_matches(pattern: &str, command: &str) -> bool {
    if let Some(prefix) = pattern.strip_suffix(":*") {
        let prefix = prefix.trim();
        return command == prefix || command.starts_with(&format!("{prefix} "));
    }
    if let Some(prefix) = pattern.strip_suffix(" *") {
        return glob(prefix, command, false) || glob(pattern, command, false);
    }
    glob(pattern, command, false)
}

fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A small POSIX-shell lexer, enough to find simple commands. `None` when the line does not parse
/// (unbalanced quotes or parentheses).
fn lex(line: &str) -> Option<Lexed> {
    let mut lexer = Lexer {
        chars: line.chars().collect(),
        i: 0,
        out: Lexed::default(),
        words: Vec::new(),
        word: String::new(),
        in_word: false,
        skip_next_word: false,
        variables: Vec::new(),
    };
    while let Some(&c) = lexer.chars.get(lexer.i) {
        match c {
            ' ' | '\t' => {
                lexer.end_word();
                lexer.i += 1;
            }
            '#' if !lexer.in_word => {
                lexer.out.has_comment = true;
                while lexer.chars.get(lexer.i).is_some_and(|&c| c != '\n') {
                    lexer.i += 1;
                }
            }
            // `g() { …; }`: a function definition.
            '(' if lexer.chars.get(lexer.i + 1) == Some(&')')
                && (lexer.in_word || !lexer.words.is_empty()) =>
            {
                lexer.out.opaque = true;
                lexer.separator(c);
            }
            '\n' | ';' | '&' | '|' | '(' | ')' => lexer.separator(c),
            '>' | '<' => {
                // `<(…)`, `>(…)`: a process substitution.
                if lexer.chars.get(lexer.i + 1) == Some(&'(') {
                    lexer.out.opaque = true;
                }
                lexer.redirection();
            }
            '\'' => {
                let close = lexer.closing(lexer.i + 1, '\'')?;
                lexer.word.extend(&lexer.chars[lexer.i + 1..close]);
                lexer.in_word = true;
                lexer.i = close + 1;
            }
            '"' => lexer.double_quoted()?,
            '\\' => {
                if let Some(&n) = lexer.chars.get(lexer.i + 1) {
                    if n != '\n' {
                        lexer.word.push(n);
                        lexer.in_word = true;
                    }
                }
                lexer.i += 2;
            }
            '$' if lexer.chars.get(lexer.i + 1) == Some(&'(') => {
                lexer.i = lexer.dollar_paren(lexer.i)?;
                lexer.in_word = true;
            }
            '`' => {
                lexer.i = lexer.backticks(lexer.i)?;
                lexer.in_word = true;
            }
            // `$'…'`, `${…}`.
            '$' if matches!(lexer.chars.get(lexer.i + 1), Some('\'' | '{')) => {
                lexer.out.opaque = true;
                lexer.word.push(c);
                lexer.in_word = true;
                lexer.i += 1;
            }
            // `{a,b}`, `{1..3}`: brace expansion.
            '{' if lexer.brace_expansion() => {
                lexer.out.opaque = true;
                lexer.word.push(c);
                lexer.in_word = true;
                lexer.i += 1;
            }
            other => {
                lexer.word.push(other);
                lexer.in_word = true;
                lexer.i += 1;
            }
        }
    }
    lexer.end_word();
    lexer.end_command();
    Some(lexer.out)
}

/// The lexer's state: where it is in the line, the word and the command being read.
struct Lexer {
    chars: Vec<char>,
    i: usize,
    out: Lexed,
    /// The words of the command being read.
    words: Vec<String>,
    word: String,
    in_word: bool,
    /// The next word is the target of a redirection, not a word of the command.
    skip_next_word: bool,
    /// `name=value` commands read so far: a later command named `$name` is `value`'s (Claude Code
    /// reads `x=rm; $x -f f` as `rm -f f`, measured: case 297).
    variables: Vec<(String, String)>,
}

impl Lexer {
    fn end_word(&mut self) {
        if self.in_word {
            if self.skip_next_word {
                self.skip_next_word = false;
            } else {
                self.words.push(std::mem::take(&mut self.word));
            }
            self.word.clear();
            self.in_word = false;
        }
    }

    /// The command read so far, without the keywords and assignments before it.
    fn end_command(&mut self) {
        let mut start = 0;
        while start < self.words.len() {
            let w = &self.words[start];
            let assignment = w
                .find('=')
                .is_some_and(|eq| eq > 0 && w[..eq].chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
            if KEYWORDS.contains(&w.as_str()) || assignment {
                start += 1;
            } else {
                break;
            }
        }
        if start == self.words.len() {
            for w in &self.words {
                if let Some((name, value)) = w.split_once('=') {
                    self.variables.push((name.to_string(), value.to_string()));
                }
            }
        } else {
            if self.words[start] == "function" {
                self.out.opaque = true;
            }
            if let Some(name) = self.words[start].strip_prefix('$') {
                if let Some((_, value)) = self.variables.iter().rev().find(|(n, _)| n == name) {
                    self.words[start] = value.clone();
                }
            }
            self.out.commands.push(self.words[start..].join(" "));
        }
        self.words.clear();
    }

    /// Whether the `{` at the current index opens a brace expansion: a `,` or `..` before its `}`,
    /// within the word.
    fn brace_expansion(&self) -> bool {
        let rest = &self.chars[self.i + 1..];
        let end = rest
            .iter()
            .position(|c| matches!(c, '}' | ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' | '{'));
        match end {
            Some(end) if rest[end] == '}' => {
                let body: String = rest[..end].iter().collect();
                body.contains(',') || body.contains("..")
            }
            _ => false,
        }
    }

    /// `c` ends a command (`;`, `&&`, `|`, a newline, a parenthesis), except `&>`, a redirection.
    fn separator(&mut self, c: char) {
        self.end_word();
        if c == '&' && self.chars.get(self.i + 1) == Some(&'>') {
            self.out.has_redirect = true;
            self.skip_next_word = true;
            self.i += 2;
            if self.chars.get(self.i) == Some(&'>') {
                self.i += 1;
            }
            return;
        }
        self.end_command();
        self.i += 1;
    }

    /// `2>`, `>&2`, `2>&1`, `>>`, `<`: a redirection; its target is not a command word.
    fn redirection(&mut self) {
        if self.in_word && self.word.chars().all(|d| d.is_ascii_digit()) {
            self.word.clear();
            self.in_word = false;
        } else {
            self.end_word();
        }
        self.out.has_redirect = true;
        self.i += 1;
        while self.chars.get(self.i).is_some_and(|c| matches!(c, '>' | '<')) {
            self.i += 1;
        }
        if self.chars.get(self.i) == Some(&'&') {
            self.i += 1;
            while self
                .chars
                .get(self.i)
                .is_some_and(|c| c.is_ascii_digit() || *c == '-')
            {
                self.i += 1;
            }
        } else {
            self.skip_next_word = true;
        }
    }

    /// The index of the first `quote` at or after `from`.
    fn closing(&self, from: usize, quote: char) -> Option<usize> {
        Some(from + self.chars.get(from..)?.iter().position(|&q| q == quote)?)
    }

    /// A `"…"` string: its text joins the word; the substitutions in it are recorded.
    fn double_quoted(&mut self) -> Option<()> {
        let mut j = self.i + 1;
        loop {
            match *self.chars.get(j)? {
                '\\' => {
                    if let Some(&n) = self.chars.get(j + 1) {
                        self.word.push(n);
                    }
                    j += 2;
                }
                '"' => break,
                '$' if self.chars.get(j + 1) == Some(&'(') => j = self.dollar_paren(j)?,
                '$' if self.chars.get(j + 1) == Some(&'{') => {
                    self.out.opaque = true;
                    self.word.push('$');
                    j += 1;
                }
                '`' => j = self.backticks(j)?,
                other => {
                    self.word.push(other);
                    j += 1;
                }
            }
        }
        self.in_word = true;
        self.i = j + 1;
        Some(())
    }

    /// A `$(…)` at `at`: recorded as a substitution, and kept in the word. Returns the index past it.
    fn dollar_paren(&mut self, at: usize) -> Option<usize> {
        let end = close_paren(&self.chars, at + 2)?;
        self.out
            .substitutions
            .push(self.chars[at + 2..end - 1].iter().collect());
        self.word.extend(&self.chars[at..end]);
        Some(end)
    }

    /// A `` `…` `` at `at`: recorded as a substitution, and kept in the word. Returns the index
    /// past it.
    fn backticks(&mut self, at: usize) -> Option<usize> {
        let end = self.closing(at + 1, '`')?;
        self.out
            .substitutions
            .push(self.chars[at + 1..end].iter().collect());
        self.word.extend(&self.chars[at..=end]);
        Some(end + 1)
    }
}

/// The index just past the `)` that closes a `$(` whose body starts at `from`.
fn close_paren(chars: &[char], from: usize) -> Option<usize> {
    let mut depth = 1;
    let mut j = from;
    while j < chars.len() {
        match chars[j] {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(j + 1);
                }
            }
            '\'' => j = j + 1 + chars[j + 1..].iter().position(|&c| c == '\'')?,
            _ => {}
        }
        j += 1;
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Files

/// `path` with `.` and empty parts dropped and each `..` taking away the part before it, as a
/// program resolving the path by its text does (`/a/b/../c` → `/a/c`; `..` above the root stays
/// at the root). A relative path stays relative.
fn lexically_normal(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    let mut above = 0usize;
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    above += 1;
                }
            }
            part => parts.push(part),
        }
    }
    if path.starts_with('/') {
        format!("/{}", parts.join("/"))
    } else {
        let mut out: Vec<&str> = vec![".."; above];
        out.extend(parts);
        out.join("/")
    }
}

fn file_rule_matches(pattern: &str, path: &str, cwd: Option<&str>, home: Option<&Path>) -> bool {
    let absolute = if path.starts_with('/') {
        path.to_string()
    } else {
        match cwd {
            Some(c) => format!("{}/{}", c.trim_end_matches('/'), path),
            None => path.to_string(),
        }
    };
    // The file the tool call names, not its spelling: `~/proj/../.ssh/x` and `~/./.ssh/x` are
    // `~/.ssh/x` to the tool (a rule compared with the text let such a call past its guard).
    let absolute = lexically_normal(&absolute);
    let cwd = cwd.map(lexically_normal);
    let cwd = cwd.as_deref();
    let (base, pattern, anchored): (String, &str, bool) = if let Some(p) = pattern.strip_prefix("//") {
        (String::new(), p, true)
    } else if let Some(p) = pattern.strip_prefix("~/") {
        let Some(home) = home else {
            return true;
        };
        (home.to_string_lossy().into_owned(), p, true)
    } else if let Some(p) = pattern.strip_prefix('/') {
        (cwd.unwrap_or("").to_string(), p, true)
    } else {
        let p = pattern.strip_prefix("./").unwrap_or(pattern);
        (
            cwd.unwrap_or("").to_string(),
            p,
            p.trim_end_matches('/').contains('/'),
        )
    };
    let base = base.trim_end_matches('/');
    let Some(relative) = absolute
        .strip_prefix(base)
        .and_then(|r| r.strip_prefix('/').or(Some(r).filter(|_| base.is_empty())))
    else {
        return false;
    };
    let relative = relative.trim_start_matches('/');
    let pattern = pattern.trim_end_matches('/');
    // The path itself or any parent folder may match (gitignore semantics).
    let mut candidate_end = Vec::new();
    for (i, ch) in relative.char_indices() {
        if ch == '/' {
            candidate_end.push(i);
        }
    }
    candidate_end.push(relative.len());
    candidate_end.into_iter().any(|end| {
        let candidate = &relative[..end];
        if anchored {
            glob(pattern, candidate, true)
        } else {
            let name = candidate.rsplit('/').next().unwrap_or(candidate);
            glob(pattern, name, true)
        }
    })
}

/// Glob match: `*` (any run; within one path segment when `paths`), `**` (any run, across `/`;
/// `**/` also matches nothing), `?` (one character).
///
/// Run as the set of active pattern positions advanced one character of `text` at a time: time is
/// at most the product of the text's length and the number of active positions (one, for a
/// literal pattern), and the stack does not grow with either (a backtracking matcher recursed once
/// per character, and overflowed on a long rule against a long command, or took exponential time
/// on `*a*a*a…`).
fn glob(pattern: &str, text: &str, paths: bool) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n = p.len();
    let is_double = |k: usize| p.get(k) == Some(&'*') && p.get(k + 1) == Some(&'*');
    // The active pattern positions, as a list (only those, so a literal pattern costs one step per
    // character) and a generation stamp per position (no clearing between characters).
    let mut current: Vec<usize> = Vec::new();
    let mut next: Vec<usize> = Vec::new();
    let mut seen = vec![usize::MAX; n + 1];
    // Adds position `k` and what follows it without consuming a character: past a `*`, past a
    // `**`, and — only when the `**` is entered, not while it repeats — past a `**/` (no folder).
    let add = |set: &mut Vec<usize>, seen: &mut Vec<usize>, generation: usize, k: usize, entering: bool| {
        let mut todo = vec![(k, entering)];
        while let Some((k, entering)) = todo.pop() {
            if seen[k] != generation {
                seen[k] = generation;
                set.push(k);
            } else if !entering {
                continue;
            }
            if k < n && p[k] == '*' {
                if is_double(k) {
                    if seen[k + 2] != generation {
                        todo.push((k + 2, true));
                    }
                    if entering && p.get(k + 2) == Some(&'/') && seen[k + 3] != generation {
                        todo.push((k + 3, true));
                    }
                } else if seen[k + 1] != generation {
                    todo.push((k + 1, true));
                }
            }
        }
    };
    add(&mut current, &mut seen, 0, 0, true);
    for (i, c) in text.chars().enumerate() {
        let generation = i + 1;
        next.clear();
        for &k in &current {
            if k == n {
                continue;
            }
            if p[k] == '*' && (is_double(k) || !(paths && c == '/')) {
                // The star takes this character and stays.
                add(&mut next, &mut seen, generation, k, false);
            } else if (p[k] == '?' && !(paths && c == '/')) || (p[k] != '*' && p[k] != '?' && p[k] == c) {
                add(&mut next, &mut seen, generation, k + 1, true);
            }
        }
        if next.is_empty() {
            return false;
        }
        std::mem::swap(&mut current, &mut next);
    }
    current.contains(&n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bash(rule: &str, command: &str) -> bool {
        let c = Condition::parse(&format!("Bash({rule})")).unwrap();
        c.matches(
            "Bash",
            json!({"command": command}).as_object().unwrap(),
            Some("/p"),
            None,
        )
    }

    fn file(rule: &str, tool: &str, path: &str) -> bool {
        let c = Condition::parse(&format!("{tool}({rule})")).unwrap();
        c.matches(
            tool,
            json!({"file_path": path}).as_object().unwrap(),
            Some("/tmp/proj"),
            Some(Path::new("/home/u")),
        )
    }

    /// Conformance cases 150, 151, 185 (Claude Code 2.1.328).
    #[test]
    fn bash_rules_as_measured() {
        let git = [
            ("cd . && git status", true),
            ("true; git log -1", true),
            ("echo hi | git hash-object --stdin", true),
            ("FOO=1 git push", true),
            ("echo $(git rev-parse HEAD)", true),
            ("echo `git --version`", true),
            ("echo 'git push --force'", false),
            ("echo \"a && git push\"", false),
            ("git", true),
            ("gitk --version", false),
            ("  git   status", true),
            ("git --version 2>/dev/null", true),
            ("(git --version)", true),
            ("if true; then git --version; fi", true),
            ("ls -d . >/dev/null", false),
            ("ls -d . # a comment", false),
            ("ls -d . >/dev/null # a comment", true),
            ("ls -d . 2>&1", false),
            ("ls -d $HOME >/dev/null", false),
            ("X=true; $X", false),
            ("ls -d \"$(pwd)\" >/dev/null", true),
            ("cat <<EOF\nhello\nEOF", true),
        ];
        for (command, expected) in git {
            assert_eq!(bash("git *", command), expected, "Bash(git *) vs {command:?}");
        }
        let rm = [
            ("rm -f x", true),
            ("rmdir nothing", false),
            ("rm", true),
            ("ls && rm -f nothing.txt", true),
            ("echo $(git rev-parse HEAD)", false),
        ];
        for (command, expected) in rm {
            assert_eq!(bash("rm:*", command), expected, "Bash(rm:*) vs {command:?}");
        }
        let npm = [
            ("npm run test", true),
            ("npm run test:unit", false),
            ("npm run testing", false),
            ("echo $(git rev-parse HEAD)", true),
            ("echo `git --version`", true),
            ("ls -d .", false),
        ];
        for (command, expected) in npm {
            assert_eq!(
                bash("npm run test:*", command),
                expected,
                "Bash(npm run test:*) vs {command:?}"
            );
        }
        assert!(bash("ls*", "lsof -v"));
    }

    /// Conformance cases 152 and 153: gitignore-style file rules.
    /// Conformance case 297 (Claude Code 2.1.332; red-team pass 9 asked): the forms Claude Code
    /// does not read through run every rule, `git *` included; `$x` after `x=rm` is `rm`; and
    /// `eval`, `nohup`, `coproc` and a globbed program are the command they name, as Claude Code
    /// reads them (an `if` rule means what Claude Code's means).
    #[test]
    fn forms_claude_code_does_not_read_through_run_every_rule() {
        for command in [
            "cat <(rm -f zz_none)",
            "echo >(rm -f zz_none) >/dev/null",
            "$'rm' -f zz_none",
            "function f { rm -f zz_none; }; f",
            "g() { rm -f zz_none; }; g",
            "{rm,-f,zz_none}",
            "rm${IFS}-f${IFS}zz_none",
            "echo \"${HOME}\"",
            "echo $(cat <(true))",
        ] {
            assert!(bash("git *", command), "{command}");
            assert!(bash("rm:*", command), "{command}");
        }
        assert!(bash("rm:*", "x=rm; $x -f zz_none"));
        assert!(!bash("git *", "x=rm; $x -f zz_none"));
        for command in [
            "coproc rm -f zz_none",
            "eval 'rm -f zz_none'",
            "nohup rm -f zz_none",
            "/bin/r? -f zz_none",
        ] {
            assert!(!bash("rm:*", command), "{command}");
            assert!(!bash("git *", command), "{command}");
        }
        assert!(
            !bash("git *", "echo '{a,b}' '${x}' '<(y)'"),
            "quoted text is text"
        );
    }

    #[test]
    fn file_rules_as_measured() {
        let p = "/tmp/proj/";
        let f = |x: &str| format!("{p}{x}");
        assert!(file("src/**", "Write", &f("src/new.ts")));
        assert!(file("src/**", "Write", &f("src/deep/b.txt")));
        assert!(file("/src/*", "Write", &f("src/deep/b.txt")));
        assert!(file("//tmp/**", "Write", &f("top.md")));
        assert!(!file("/tmp/**", "Write", &f("top.md")));
        assert!(file("*.md", "Write", &f("docs/sub/y.md")));
        assert!(file("docs/*.md", "Write", &f("docs/x.md")));
        assert!(!file("docs/*.md", "Write", &f("docs/sub/y.md")));
        assert!(file("./src/*.ts", "Edit", &f("src/a.ts")));
        assert!(!file("./src/*.ts", "Edit", &f("lib/c.ts")));
        assert!(file("*.ts", "Edit", &f("lib/c.ts")));
        for (rule, path, expected) in [
            (".env", ".env", true),
            (".env", "sub/.env", true),
            (".env", ".env.local", false),
            ("./.env", "sub/.env", true),
            ("**/.env", ".env", true),
            ("**/.env", "sub/.env", true),
            ("**/.env", "config.env", false),
            ("*.env", ".env", true),
            ("*.env", "config.env", true),
            ("*.env", ".env.local", false),
        ] {
            assert_eq!(file(rule, "Read", &f(path)), expected, "Read({rule}) vs {path}");
        }
    }

    /// `~/` is the home given (the one your hooks were found in), never `$HOME` read here: a
    /// project's settings can set the agent's `HOME`, and a user's guard on `Edit(~/.bashrc)`
    /// was then skipped. With no home known, the rule runs its hook.
    #[test]
    fn home_rules_use_the_given_home_and_run_without_one() {
        let rule = Condition::parse("Edit(~/.bashrc)").unwrap();
        let edit = |path: &str, home: Option<&str>| {
            rule.matches(
                "Edit",
                json!({"file_path": path}).as_object().unwrap(),
                Some("/tmp/proj"),
                home.map(Path::new),
            )
        };
        assert!(edit("/home/u/.bashrc", Some("/home/u")));
        assert!(edit("/home/u/.bashrc", Some("/home/u/")));
        assert!(!edit("/home/u/.profile", Some("/home/u")));
        assert!(!edit("/elsewhere/.bashrc", Some("/home/u")));
        assert!(edit("/home/u/.bashrc", None));
        assert!(edit("/home/u/.profile", None));
        assert!(file("~/.ssh/**", "Read", "/home/u/.ssh/id_rsa"));
        // The file named, not its spelling (red-team pass 9).
        for spelled in [
            "/home/u/proj/../.ssh/authorized_keys",
            "/home/u/./.ssh/authorized_keys",
            "/home/u//.ssh/authorized_keys",
            "../../home/u/.ssh/authorized_keys",
            "/tmp/proj/../../home/u/.ssh/x",
        ] {
            assert!(file("~/.ssh/**", "Edit", spelled), "{spelled}");
        }
        assert!(file("src/**", "Write", "/tmp/proj/x/../src/a.ts"));
        assert!(!file("src/**", "Write", "/tmp/proj/src/../a.ts"));
        assert!(file("//etc/**", "Write", "/tmp/proj/../../../../etc/passwd"));
        assert!(!file("~/.ssh/**", "Read", "/tmp/proj/.ssh/id_rsa"));
    }

    #[test]
    fn bare_tool_names_and_bad_rules() {
        assert!(Condition::parse("Write")
            .unwrap()
            .matches("Write", &Map::new(), None, None));
        assert!(!Condition::parse("Write")
            .unwrap()
            .matches("Edit", &Map::new(), None, None));
        assert!(Condition::parse("Bash(git *").is_err());
        assert!(Condition::parse("").is_err());
    }

    /// Issue 10: the glob recursed once per character (a long rule against a long command
    /// overflowed the stack) and backtracked exponentially on `*a*a*a…`.
    #[test]
    fn long_and_pathological_globs_neither_overflow_nor_explode() {
        let long = "a".repeat(200_000);
        assert!(glob(&long, &long, false));
        assert!(!glob(&format!("{long}b"), &long, true));
        let stars = "*a".repeat(40) + "b";
        assert!(!glob(&stars, &"a".repeat(200), false));
        assert!(glob(&stars, &("a".repeat(200) + "b"), true));
    }

    /// The set-of-positions matcher agrees with the rules it replaced.
    #[test]
    fn glob_rules() {
        let cases = [
            ("*.ts", "a.ts", true, true),
            ("*.ts", "d/a.ts", true, false),
            ("**/a.ts", "a.ts", true, true),
            ("**/a.ts", "x/y/a.ts", true, true),
            ("src/**", "src/x/y", true, true),
            ("s?c", "s/c", true, false),
            ("s?c", "s/c", false, true),
            ("a**b", "a/x/b", true, true),
            ("ls*", "lsof", false, true),
            ("", "", true, true),
            ("*", "", true, true),
            ("a*", "b", false, false),
            // `**/` matches no folder only where the `**` starts, never after it took characters.
            ("**/.env", "config.env", true, false),
            ("**/.env", ".env", true, true),
            ("**/.env", "a/b/.env", true, true),
            ("x**/.env", "xconfig.env", true, false),
        ];
        for (pattern, text, paths, expected) in cases {
            assert_eq!(
                glob(pattern, text, paths),
                expected,
                "{pattern} vs {text} (paths: {paths})"
            );
        }
    }
}
