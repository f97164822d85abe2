//! Claude Code's matcher rules, checked at load time and compiled once.
//!
//! A group's `matcher` is, in Claude Code 2.1.328: match-all (`*`, empty or missing); a list of exact
//! names when it uses only letters, digits, `_`, `-`, spaces, `,` and `|` (split on `|`/`,`, each
//! name trimmed); otherwise an **unanchored, case-sensitive JavaScript regular expression** tested
//! like `RegExp.test`. JavaScript's dialect matters (lookaround, backreferences, `\d` semantics), so
//! regexes are compiled with `regress`, an ECMAScript engine, not Rust's `regex`. The exact-list
//! form is checked first because it is both the common case and the cheapest.
//!
//! A regex is checked when the config loads (an invalid one is reported then, and its group never
//! matches), but its matching program is built, once, when it is first needed: building it costs
//! several microseconds per pattern (regress's optimizer), so a project with hundreds of plugins
//! would pay for every regex of every event on each `hookbridge run`, where one run evaluates only
//! the groups of its own event that its literal shortcut does not rule out. The check at load
//! uses regress's unoptimized compiler: the same parser, a third of the cost.

use std::fmt;
use std::sync::OnceLock;

/// Why a matcher string cannot be used. The group it belongs to never matches, as in Claude Code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("matcher `{pattern}` is not a valid JavaScript regular expression: {message}")]
pub struct MatcherError {
    pub pattern: String,
    pub message: String,
}

/// A compiled matcher.
#[derive(Clone)]
pub enum Matcher {
    /// `*`, `""` or no matcher.
    All,
    /// One or more exact names.
    Exact(Vec<String>),
    /// A JavaScript regular expression, unanchored. `required` is a literal every match must
    /// contain (`mcp__srv__` for `mcp__srv__.*`), checked before running the regex.
    Regex {
        source: String,
        /// Built on first use (the pattern is known to be valid).
        regex: OnceLock<Option<regress::Regex>>,
        required: Option<String>,
    },
}

impl Matcher {
    /// Compile `pattern` with Claude Code's rules. `extended_exact_chars` is false for FileChanged
    /// and StopFailure, whose exact form allows only letters, digits, `_` and `|`.
    pub fn compile(pattern: Option<&str>, extended_exact_chars: bool) -> Result<Matcher, MatcherError> {
        let Some(pattern) = pattern else {
            return Ok(Matcher::All);
        };
        if pattern.is_empty() || pattern == "*" {
            return Ok(Matcher::All);
        }
        let exact_char = |c: char| {
            c.is_ascii_alphanumeric()
                || c == '_'
                || c == '|'
                || (extended_exact_chars && (c == '-' || c == ' ' || c == ','))
        };
        if pattern.chars().all(exact_char) {
            let names = pattern
                .split(['|', ','])
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            return Ok(Matcher::Exact(names));
        }
        let unoptimized = regress::Flags {
            no_opt: true,
            ..regress::Flags::default()
        };
        match regress::Regex::with_flags(pattern, unoptimized) {
            Ok(_) => Ok(Matcher::Regex {
                source: pattern.to_string(),
                regex: OnceLock::new(),
                required: required_literal(pattern),
            }),
            Err(e) => Err(MatcherError {
                pattern: pattern.to_string(),
                message: e.to_string(),
            }),
        }
    }

    /// Does the event's match query (tool name, session source, …) match?
    /// The length in bytes below which no query can match: a regex's required literal's length,
    /// else 0.
    pub fn min_match_len(&self) -> usize {
        match self {
            Matcher::Regex {
                required: Some(lit), ..
            } => lit.len(),
            _ => 0,
        }
    }

    pub fn is_match(&self, query: &str) -> bool {
        match self {
            Matcher::All => true,
            Matcher::Exact(names) => names.iter().any(|n| n == query),
            Matcher::Regex {
                source,
                regex,
                required,
            } => {
                required.as_deref().is_none_or(|lit| query.contains(lit))
                    && regex
                        .get_or_init(|| build_regex(source))
                        .as_ref()
                        .is_some_and(|regex| regex.find(query).is_some())
            }
        }
    }
}

/// The matching program of a pattern that passed the check at load. The optimized build cannot
/// reject what the unoptimized one accepted (same parser), but if it ever did, the unoptimized
/// program matches the same strings. (`None`, never matching, would need both to fail.)
fn build_regex(source: &str) -> Option<regress::Regex> {
    let unoptimized = regress::Flags {
        no_opt: true,
        ..regress::Flags::default()
    };
    regress::Regex::with_flags(source, regress::Flags::default())
        .or_else(|_| regress::Regex::with_flags(source, unoptimized))
        .ok()
}

/// The literal run at the start of a regex that every match must contain, when that is certain: no
/// alternation anywhere, and the run stops before any metacharacter (a character followed by a
/// quantifier is left out). Two characters or more, else `None`.
fn required_literal(pattern: &str) -> Option<String> {
    if pattern.contains('|') {
        return None;
    }
    let body = pattern.strip_prefix('^').unwrap_or(pattern);
    let mut literal: String = body
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | ' '))
        .collect();
    if matches!(body[literal.len()..].chars().next(), Some('?' | '*' | '{')) {
        literal.pop();
    }
    (literal.len() >= 2).then_some(literal)
}

impl fmt::Debug for Matcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Matcher::All => f.write_str("All"),
            Matcher::Exact(names) => f.debug_tuple("Exact").field(names).finish(),
            Matcher::Regex { source, .. } => f.debug_tuple("Regex").field(source).finish(),
        }
    }
}

impl PartialEq for Matcher {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Matcher::All, Matcher::All) => true,
            (Matcher::Exact(a), Matcher::Exact(b)) => a == b,
            (Matcher::Regex { source: a, .. }, Matcher::Regex { source: b, .. }) => a == b,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn m(p: &str) -> Matcher {
        Matcher::compile(Some(p), true).unwrap()
    }

    /// Measured in conformance cases 55, 56 and 58 (Claude Code 2.1.328).
    #[test]
    fn measured_matchers_against_bash_write_and_mcp_tools() {
        let bash_yes = ["Bash", "^Bash$", "B.*h", "Bash|Read", "*", "", " Bash "];
        let bash_no = ["bash", "Ba", "Edit|Write", "Wri.*", "mcp__.*", "Bash(touch:*)"];
        for p in bash_yes {
            assert!(m(p).is_match("Bash"), "{p:?} should match Bash");
        }
        for p in bash_no {
            assert!(!m(p).is_match("Bash"), "{p:?} should not match Bash");
        }
        for p in ["Edit|Write", "Wri.*", "*", ""] {
            assert!(m(p).is_match("Write"), "{p:?} should match Write");
        }
        let mcp_yes = [
            "mcp__srv__echo",
            "mcp__srv__.*",
            "mcp__.*",
            "mcp__srv__echo|Bash",
            "*",
        ];
        for p in mcp_yes {
            assert!(
                m(p).is_match("mcp__srv__echo"),
                "{p:?} should match mcp__srv__echo"
            );
        }
        for p in ["mcp__srv", "echo"] {
            assert!(
                !m(p).is_match("mcp__srv__echo"),
                "{p:?} should not match mcp__srv__echo"
            );
        }
        assert!(Matcher::compile(None, true).unwrap().is_match("anything"));
    }

    #[test]
    fn exact_lists_split_on_bars_and_commas() {
        assert_eq!(
            m("Edit, Write"),
            Matcher::Exact(vec!["Edit".into(), "Write".into()])
        );
        assert!(m("code-reviewer").is_match("code-reviewer"));
        assert!(!m("code-reviewer").is_match("senior-code-reviewer"));
    }

    #[test]
    fn regexes_are_javascript_and_unanchored() {
        assert!(m("Edit.*").is_match("NotebookEdit"));
        assert!(m("^(?!Bash$).*").is_match("Write")); // lookahead: JavaScript, not Rust regex
        assert!(!m("^(?!Bash$).*").is_match("Bash"));
        assert!(m(r"(a)\1").is_match("aa")); // backreference
        assert!(m("^my-plugin:reviewer$").is_match("my-plugin:reviewer"));
    }

    #[test]
    fn required_literals_are_safe_shortcuts() {
        assert_eq!(required_literal("mcp__srv__.*"), Some("mcp__srv__".into()));
        assert_eq!(required_literal("^Bash$"), Some("Bash".into()));
        assert_eq!(required_literal("Bas?h"), Some("Ba".into()));
        assert_eq!(required_literal("ab*c"), None);
        assert_eq!(required_literal("Bash|Read"), None);
        assert_eq!(required_literal(".*Edit"), None);
        assert!(m("Wri.*").is_match("Write"));
        assert!(!m("mcp__srv__.*").is_match("mcp__other__x"));
    }

    #[test]
    fn invalid_regex_is_an_error() {
        let err = Matcher::compile(Some("("), true).unwrap_err();
        assert_eq!(err.pattern, "(");
    }

    #[test]
    fn narrow_events_treat_dashes_as_regex() {
        let narrow = Matcher::compile(Some("a-b"), false).unwrap();
        assert!(matches!(narrow, Matcher::Regex { .. }));
        assert!(narrow.is_match("xa-by"));
    }

    proptest! {
        #[test]
        fn exact_names_match_themselves_and_nothing_else(name in "[A-Za-z][A-Za-z0-9_]{0,12}", other in "[A-Za-z][A-Za-z0-9_]{0,12}") {
            let matcher = m(&name);
            prop_assert!(matcher.is_match(&name));
            prop_assert_eq!(matcher.is_match(&other), name == other);
        }

        #[test]
        fn every_name_of_a_list_matches(names in proptest::collection::vec("[A-Za-z][A-Za-z0-9_]{0,8}", 1..5)) {
            let matcher = m(&names.join("|"));
            for n in &names {
                prop_assert!(matcher.is_match(n));
            }
        }

        #[test]
        fn compile_never_panics(p in ".{0,20}") {
            let _ = Matcher::compile(Some(&p), true);
        }

        /// The literal shortcut never changes a regex's answer.
        #[test]
        fn shortcut_agrees_with_the_regex(p in "\\^?[a-c_]{0,4}[.?*]{0,2}[a-c]{0,3}[.]", q in "[a-c_]{0,8}") {
            let compiled = Matcher::compile(Some(&p), true);
            prop_assume!(compiled.is_ok());
            let matcher = compiled.unwrap();
            if let Matcher::Regex { .. } = &matcher {
                let direct = regress::Regex::new(&p).unwrap();
                prop_assert_eq!(matcher.is_match(&q), direct.find(&q).is_some());
            }
        }

        /// The check at load (unoptimized compiler) accepts exactly the patterns the matching
        /// program (optimized compiler) accepts.
        #[test]
        fn the_load_check_accepts_what_matching_compiles(p in "[a-c_()|?*+.^$\\\\\\[\\]{}0-9,:=!<>-]{0,12}") {
            let unoptimized = regress::Flags { no_opt: true, ..regress::Flags::default() };
            prop_assert_eq!(
                regress::Regex::with_flags(&p, unoptimized).is_ok(),
                regress::Regex::new(&p).is_ok()
            );
        }
    }
}
