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
//!
//! regress parses and compiles recursively, one stack frame per alternative of an alternation and per
//! group level: 100,000 alternatives (`A.|B.|…`, which Node compiles) overflowed the stack and took
//! every other hook with it. Before regress sees a pattern, long alternations are regrouped into
//! nested non-capturing groups of at most `MAX_ALTERNATIVES` (`(?:A|…)|(?:…)`: the same language,
//! the same order of trying, the same capture numbers), and a pattern whose nesting would still be
//! too deep is refused like an invalid one: reported, and its group never matches.
//!
//! regress backtracks, as JavaScript engines do, and has no step limit: `(.*)(.*)…Z` (300 groups)
//! against `Bash` runs for hours, and with it the event and every other hook of it, the user's
//! guards included. A pattern that can backtrack that much (`backtracks_heavily`: a
//! backreference, a quantified group that holds a quantifier or an alternation, more than
//! [`FEW_QUANTIFIERS`] quantifiers), and any regex given a query longer than [`SHORT_QUERY`], is
//! therefore tried on a thread of its own for at most [`MATCH_DEADLINE`]. One that takes longer
//! is *undecided*: its group's hooks run as if it matched (a guard that cannot be ruled out is
//! asked), the event says why, and the matcher is not tried again in this process (the thread is
//! left to finish; `hookbridge run` exits after the event). Everything else — exact names, `*`,
//! the required-literal shortcut, a plain regex on a tool name — is matched in place, as before.

use std::borrow::Cow;
use std::fmt;
use std::sync::{mpsc, Arc, OnceLock};
use std::time::Duration;

use crate::diagnostics::shorten;

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
    /// contain (`mcp__srv__` for `mcp__srv__.*`), checked before running the regex; where the
    /// pattern is that literal followed by `.*` and nothing else (`literal_decides`), containing it
    /// is the whole answer and no regex is built.
    Regex {
        source: String,
        /// What regress compiles when it is not `source`: the pattern with long alternations
        /// regrouped (see the module's documentation).
        regrouped: Option<String>,
        /// Built on first use (the pattern is known to be valid).
        regex: OnceLock<Option<Arc<regress::Regex>>>,
        /// The pattern can backtrack for very long (`backtracks_heavily`): it is tried on a
        /// thread of its own, within [`MATCH_DEADLINE`].
        heavy: bool,
        /// Why it is undecided, once a try ran past the deadline: from then on it is not tried.
        undecided: OnceLock<String>,
        required: Option<String>,
        /// The pattern is `required` then `.*`: it matches exactly the queries that contain
        /// `required`. Deciding it without regress saves building the program, and the CPU probe
        /// that building a literal prefix's substring searcher runs (`memchr`'s first use:
        /// `cpuid`, a trap to the hypervisor in a virtual machine; docs/performance.md).
        literal_decides: bool,
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
        let error = |message: String| MatcherError {
            pattern: pattern.to_string(),
            message,
        };
        let program = regroup(pattern).map_err(error)?;
        let required = required_literal(pattern);
        let literal_decides = required
            .as_deref()
            .is_some_and(|lit| pattern.strip_prefix(lit) == Some(".*"));
        match regress::Regex::with_flags(&program, unoptimized) {
            Ok(_) => Ok(Matcher::Regex {
                source: pattern.to_string(),
                regrouped: match program {
                    Cow::Owned(p) => Some(p),
                    Cow::Borrowed(_) => None,
                },
                regex: OnceLock::new(),
                heavy: backtracks_heavily(pattern),
                undecided: OnceLock::new(),
                required,
                literal_decides,
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
        self.decide(query) != Decided::NoMatch
    }

    /// Whether the event's match query matches: [`Decided::Undecided`] for a regex that could not
    /// be tried to its end within [`MATCH_DEADLINE`] (its hooks run as if it matched).
    pub fn decide(&self, query: &str) -> Decided {
        self.decide_within(query, MATCH_DEADLINE)
    }

    fn decide_within(&self, query: &str, deadline: Duration) -> Decided {
        let Matcher::Regex {
            source,
            regrouped,
            regex,
            heavy,
            undecided,
            required,
            literal_decides,
        } = self
        else {
            return Decided::of(match self {
                Matcher::Exact(names) => names.iter().any(|n| n == query),
                _ => true,
            });
        };
        if required.as_deref().is_some_and(|lit| !query.contains(lit)) {
            return Decided::NoMatch;
        }
        if *literal_decides {
            return Decided::Match;
        }
        if let Some(why) = undecided.get() {
            return Decided::Undecided(why.clone());
        }
        let Some(regex) = regex.get_or_init(|| build_regex(regrouped.as_deref().unwrap_or(source))) else {
            return Decided::NoMatch;
        };
        if !*heavy && query.len() <= SHORT_QUERY {
            return Decided::of(regex.find(query).is_some());
        }
        match find_within(regex, query, deadline) {
            Some(found) => Decided::of(found),
            None => {
                let why = format!(
                    "matcher `{}` was still matching {:?} after {} ms (a pattern that backtracks without \
                     end): its hooks run as if it matched, and it is not tried again",
                    shorten(source, 80),
                    shorten(query, 80),
                    deadline.as_millis()
                );
                Decided::Undecided(undecided.get_or_init(|| why).clone())
            }
        }
    }
}

/// What a matcher says of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decided {
    Match,
    NoMatch,
    /// Not known within the deadline (why, in words): the hooks run as if it matched.
    Undecided(String),
}

impl Decided {
    fn of(matches: bool) -> Decided {
        if matches {
            Decided::Match
        } else {
            Decided::NoMatch
        }
    }
}

/// How long a regex that can backtrack heavily may take on one query. A matcher that takes this
/// long on a tool name is not one anybody meant; well-formed ones take microseconds.
pub const MATCH_DEADLINE: Duration = Duration::from_secs(1);

/// The longest query every regex is matched against in place; longer ones get the deadline.
pub const SHORT_QUERY: usize = 256;

/// The most quantifiers a pattern matched in place may have: with at most this many, a short query
/// is tried in well under a millisecond whatever the pattern.
pub const FEW_QUANTIFIERS: usize = 4;

/// `regex.find(query)`, on a thread of its own, if it ends within `deadline`; `None` if not (the
/// thread is left to finish on its own).
fn find_within(regex: &Arc<regress::Regex>, query: &str, deadline: Duration) -> Option<bool> {
    let (tx, rx) = mpsc::channel();
    let (regex, query) = (Arc::clone(regex), query.to_owned());
    let spawned = std::thread::Builder::new()
        .name("hookbridge-matcher".into())
        .spawn(move || {
            let _ = tx.send(regex.find(&query).is_some());
        });
    match spawned {
        Ok(_) => rx.recv_timeout(deadline).ok(),
        Err(_) => None,
    }
}

/// Whether `pattern` may backtrack for very long on a short query: a backreference (`\1`,
/// `\k<name>`), a quantified group that holds a quantifier or an alternation (`(a+)+`, `(a|ab)*`),
/// or more than [`FEW_QUANTIFIERS`] quantifiers in all (`a?a?…aa…`, `(.*)(.*)…`). Errs on the side
/// of yes: such a pattern is only tried on a thread with a deadline, which costs a few
/// microseconds.
fn backtracks_heavily(pattern: &str) -> bool {
    /// One open group: whether it holds a quantifier or an alternation.
    #[derive(Default)]
    struct Open {
        quantified_inside: bool,
        alternation: bool,
    }
    let bytes = pattern.as_bytes();
    let mut stack = vec![Open::default()];
    let mut quantifiers = 0;
    // What the next quantifier would apply to: a closed group holding a quantifier or an
    // alternation (`Some(true)`), any other atom (`Some(false)`), nothing (`None`: after `(`, `|`).
    let mut atom: Option<bool> = None;
    let mut in_class = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_class {
            match b {
                b'\\' => i += 1,
                b']' => {
                    in_class = false;
                    atom = Some(false);
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        let quantifier_len = match b {
            b'*' | b'+' | b'?' => 1,
            b'{' => brace_quantifier_len(&bytes[i..]),
            _ => 0,
        };
        if quantifier_len > 0 && atom.is_some() {
            quantifiers += 1;
            if atom == Some(true) {
                return true;
            }
            stack.last_mut().expect("the whole pattern").quantified_inside = true;
            i += quantifier_len;
            if bytes.get(i) == Some(&b'?') {
                i += 1; // lazy
            }
            atom = Some(false);
            continue;
        }
        match b {
            b'\\' => {
                match bytes.get(i + 1) {
                    Some(b'1'..=b'9') | Some(b'k') => return true,
                    _ => {}
                }
                i += 1;
                atom = Some(false);
            }
            b'[' => in_class = true,
            b'(' => {
                stack.push(Open::default());
                i = group_start(bytes, i);
                atom = None;
                continue;
            }
            b'|' => {
                stack.last_mut().expect("the whole pattern").alternation = true;
                atom = None;
            }
            b')' if stack.len() > 1 => {
                let group = stack.pop().expect("checked");
                let heavy_inside = group.quantified_inside || group.alternation;
                let parent = stack.last_mut().expect("checked");
                parent.quantified_inside |= group.quantified_inside;
                atom = Some(heavy_inside);
            }
            b'^' | b'$' => atom = None,
            _ => atom = Some(false),
        }
        i += 1;
    }
    quantifiers > FEW_QUANTIFIERS
}

/// The length of the quantifier `{n}`, `{n,}` or `{n,m}` at the start of `bytes`, or 0 where `{` is
/// a literal brace (as JavaScript reads it outside Unicode mode).
fn brace_quantifier_len(bytes: &[u8]) -> usize {
    let mut i = 1;
    let digits = |i: &mut usize| {
        let start = *i;
        while bytes.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i > start
    };
    if !digits(&mut i) {
        return 0;
    }
    if bytes.get(i) == Some(&b',') {
        i += 1;
        digits(&mut i);
    }
    if bytes.get(i) == Some(&b'}') {
        i + 1
    } else {
        0
    }
}

/// The matching program of a pattern that passed the check at load. The optimized build cannot
/// reject what the unoptimized one accepted (same parser), but if it ever did, the unoptimized
/// program matches the same strings. (`None`, never matching, would need both to fail.)
fn build_regex(source: &str) -> Option<Arc<regress::Regex>> {
    let unoptimized = regress::Flags {
        no_opt: true,
        ..regress::Flags::default()
    };
    regress::Regex::with_flags(source, regress::Flags::default())
        .or_else(|_| regress::Regex::with_flags(source, unoptimized))
        .ok()
        .map(Arc::new)
}

/// The most alternatives one alternation is given to regress with; longer ones are regrouped.
const MAX_ALTERNATIVES: usize = 32;

/// The deepest a regrouped pattern may nest, counted as regress recurses: one per group plus one per
/// alternative of each enclosing alternation. regress's debug build on a 2 MiB thread (a test
/// thread, the smallest stack hookbridge runs on) handles about a thousand; release builds five
/// times more.
const MAX_NESTING: usize = 400;

/// One group (or the whole pattern) being scanned by [`regroup`].
struct Group {
    /// Offset where the group's alternatives start (after `(`, `(?:`, `(?<name>`, …).
    start: usize,
    /// Offsets of its own top-level `|`s.
    bars: Vec<usize>,
    /// The deepest nesting among the groups inside it.
    inner: usize,
}

/// `pattern` with every alternation of more than [`MAX_ALTERNATIVES`] alternatives regrouped into
/// nested non-capturing groups, or why it nests too deep to compile safely. One pass, no recursion:
/// escapes and character classes are stepped over, groups are tracked on a stack of their own.
fn regroup(pattern: &str) -> Result<Cow<'_, str>, String> {
    let bytes = pattern.as_bytes();
    let mut stack = vec![Group {
        start: 0,
        bars: Vec::new(),
        inner: 0,
    }];
    let mut inserts: Vec<(usize, &'static str)> = Vec::new();
    let mut in_class = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1, // the escaped character is skipped below
            b']' if in_class => in_class = false,
            _ if in_class => {}
            b'[' => in_class = true,
            b'(' => {
                let start = group_start(bytes, i);
                stack.push(Group {
                    start,
                    bars: Vec::new(),
                    inner: 0,
                });
                i = start;
                continue;
            }
            b'|' => stack
                .last_mut()
                .expect("the whole pattern is a group")
                .bars
                .push(i),
            b')' if stack.len() > 1 => {
                let group = stack.pop().expect("checked");
                let depth = close_group(group, i, &mut inserts);
                let parent = stack.last_mut().expect("checked");
                parent.inner = parent.inner.max(depth);
            }
            _ => {}
        }
        i += 1;
    }
    // Unclosed groups are regress's to reject; the whole pattern closes at its end.
    let mut depth = 0;
    while let Some(group) = stack.pop() {
        let mut group = group;
        group.inner = group.inner.max(depth);
        depth = close_group(group, bytes.len(), &mut inserts);
    }
    if depth > MAX_NESTING {
        return Err(format!(
            "it nests too deeply to compile safely ({depth} levels of groups and alternatives, at most {MAX_NESTING})"
        ));
    }
    if inserts.is_empty() {
        return Ok(Cow::Borrowed(pattern));
    }
    // At one offset (an empty last alternative), openings come before closings.
    inserts.sort_by_key(|&(at, text)| (at, text == ")"));
    let mut out = String::with_capacity(pattern.len() + inserts.len() * 3);
    let mut copied = 0;
    for (at, text) in inserts {
        out.push_str(&pattern[copied..at]);
        out.push_str(text);
        copied = at;
    }
    out.push_str(&pattern[copied..]);
    Ok(Cow::Owned(out))
}

/// Where the alternatives of the group opened at `open` start: after `(`, `(?:`, `(?=`, `(?!`,
/// `(?<=`, `(?<!` or `(?<name>`.
fn group_start(bytes: &[u8], open: usize) -> usize {
    let after = open + 1;
    if bytes.get(after) != Some(&b'?') {
        return after;
    }
    match (bytes.get(after + 1), bytes.get(after + 2)) {
        (Some(b':' | b'=' | b'!'), _) => after + 2,
        (Some(b'<'), Some(b'=' | b'!')) => after + 3,
        (Some(b'<'), _) => bytes[after..]
            .iter()
            .position(|&b| b == b'>' || b == b')')
            .map_or(bytes.len(), |p| after + p + usize::from(bytes[after + p] == b'>')),
        _ => after + 1,
    }
}

/// Record the regrouping of a group whose alternatives end at `end`; its nesting depth.
fn close_group(group: Group, end: usize, inserts: &mut Vec<(usize, &'static str)>) -> usize {
    let n = group.bars.len() + 1;
    let mut levels = 0u32;
    let mut chunks = n;
    while chunks > MAX_ALTERNATIVES {
        chunks = chunks.div_ceil(MAX_ALTERNATIVES);
        levels += 1;
    }
    let start_of = |j: usize| {
        if j == 0 {
            group.start
        } else {
            group.bars[j - 1] + 1
        }
    };
    let end_of = |j: usize| if j + 1 == n { end } else { group.bars[j] };
    for level in 1..=levels {
        let size = MAX_ALTERNATIVES.pow(level);
        for j in (0..n).step_by(size) {
            inserts.push((start_of(j), "(?:"));
            inserts.push((end_of((j + size).min(n) - 1), ")"));
        }
    }
    let levels = levels as usize;
    1 + group.inner + (levels + 1) * n.min(MAX_ALTERNATIVES) + levels
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

    /// What is tried on a thread with a deadline and what in place: patterns that can backtrack
    /// without end are found, the shapes hooks files use are not.
    #[test]
    fn patterns_that_backtrack_heavily_are_told_apart_from_plain_ones() {
        let heavy = [
            "(.*)(.*)(.*)(.*)(.*)Z",
            "(a+)+$",
            "(a|ab)*c",
            "^(\\w+\\s?)*$",
            "(?:a{1,3}){2,}",
            "((ab)*x)+",
            "(a)\\1",
            "(?<x>a)\\k<x>",
            "a?a?a?a?a?aaaaa",
            "x{1}y{2}z{3,}w{4,5}v+",
        ];
        let plain = [
            "mcp__.*",
            "^(Edit|Write|MultiEdit)$",
            "Bash\\(git .*\\)",
            "mcp__(github|gitlab)__.*",
            "[+*?(]{2}[)]",
            "a{",
            "a{x}*",
            "\\*\\+\\?\\(a+\\)+",
            "(?:x|y)z",
            "(?=a)\\w+",
            "^(a)?b.*?c$",
            "[(]x(a|b)[)]+",
        ];
        for p in heavy {
            assert!(backtracks_heavily(p), "{p} can backtrack heavily");
        }
        for p in plain {
            assert!(!backtracks_heavily(p), "{p} cannot");
        }
    }

    /// A pattern that backtracks for hours on a four-letter query is undecided after the
    /// deadline, and not tried again; a plain pattern given a long query goes through the same
    /// thread and is decided as in place.
    #[test]
    fn a_match_that_runs_past_the_deadline_is_undecided_and_not_tried_again() {
        let deadline = Duration::from_millis(20);
        let bomb = m(&format!("{}Z", "(.*)".repeat(300)));
        let Decided::Undecided(why) = bomb.decide_within("Bash", deadline) else {
            panic!("decided within {deadline:?}");
        };
        assert!(why.contains("was still matching \"Bash\" after 20 ms"), "{why}");
        assert!(why.contains("`(.*)(.*)"), "{why}");
        assert!(why.len() < 400, "the pattern is quoted shortened: {why}");
        // The second try answers at once from what the first found (a new try would take the
        // deadline again, and with a deadline of zero could not be undecided for this reason).
        assert_eq!(
            bomb.decide_within("Bash", Duration::ZERO),
            Decided::Undecided(why)
        );
        assert_eq!(
            bomb.decide("Read"),
            bomb.decide("Bash"),
            "undecided for every query"
        );
        assert!(bomb.is_match("Bash"), "its hooks run as if it matched");

        let long = "x".repeat(SHORT_QUERY + 1);
        let plain = m("^x+$");
        assert!(!backtracks_heavily("^x+$"));
        assert_eq!(
            plain.decide_within(&long, Duration::from_secs(60)),
            Decided::Match
        );
        assert_eq!(
            plain.decide_within(&format!("{long}y"), Duration::from_secs(60)),
            Decided::NoMatch
        );
    }

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

    /// `literal.*` is decided by the literal alone, as regress decides it, and builds no regex.
    #[test]
    fn a_literal_then_dot_star_is_decided_without_building_the_regex() {
        let matcher = m("mcp__srv__.*");
        assert!(matcher.is_match("mcp__srv__tool"));
        assert!(matcher.is_match("x_mcp__srv__"));
        assert!(!matcher.is_match("mcp__other__tool"));
        let Matcher::Regex { regex, .. } = &matcher else {
            panic!("a regex matcher: {matcher:?}")
        };
        assert!(regex.get().is_none(), "the regex was built");
        // Not of that shape: the regex decides.
        for (pattern, query, expected) in [
            ("^mcp__.*", "x_mcp__a", false),
            ("mcp__.*x", "mcp__a", false),
            ("mcp__.+", "mcp__", false),
        ] {
            assert_eq!(m(pattern).is_match(query), expected, "{pattern} on {query}");
        }
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

    /// Issue 10: 100,000 alternatives overflowed the stack in every command.
    #[test]
    fn a_hundred_thousand_alternatives_compile_and_match_on_a_small_stack() {
        let alternatives: Vec<String> = (0..100_000).map(|i| format!("T{i}.x")).collect();
        let pattern = alternatives.join("|");
        // Test threads have 2 MiB of stack, a quarter of a main thread's.
        let matcher = m(&pattern);
        assert!(matcher.is_match("T0-x"));
        assert!(matcher.is_match("__T54321yx__"));
        assert!(matcher.is_match("T99999.x"));
        assert!(!matcher.is_match("T100000"));
        let grouped = m(&format!("^(?:{pattern})$"));
        assert!(grouped.is_match("T77777.x"));
        assert!(!grouped.is_match("T77777.xy"));
    }

    #[test]
    fn patterns_too_deep_to_compile_are_errors_not_crashes() {
        for pattern in [
            format!("{}x.{}", "(?:a.|".repeat(5_000), ")".repeat(5_000)),
            format!("{}x{}", "(".repeat(100_000), ")".repeat(100_000)),
            format!("{}x", "(?:a|b|".repeat(100_000)),
        ] {
            let err = Matcher::compile(Some(&pattern), true).unwrap_err();
            assert!(!err.message.is_empty());
        }
    }

    #[test]
    fn regrouping_keeps_escapes_classes_and_group_openers() {
        let many = |body: &str| vec![body; 40].join("|");
        for (pattern, query, expected) in [
            (format!("(?<n>{})\\k<n>", many("a")), "aa", true),
            (format!("[|(]{}", many("\\|")), "(|", true),
            (format!("(?<=x)(?:{}|y)", many("z")), "xy", true),
            (format!("(?!{})q", many("q")), "q", false),
            (format!("({})", many("")), "", true),
        ] {
            let direct = regress::Regex::new(&pattern).unwrap();
            let regrouped = regroup(&pattern).unwrap();
            assert_ne!(regrouped, pattern, "regrouped");
            let program = regress::Regex::new(&regrouped).unwrap();
            assert_eq!(direct.find(query).is_some(), expected, "{pattern}");
            assert_eq!(program.find(query).is_some(), expected, "{regrouped}");
        }
    }

    proptest! {
        /// `literal.*` matches exactly what regress matches.
        #[test]
        fn a_literal_then_dot_star_matches_as_regress_does(literal in "[a-z_:\\- ]{2,6}", query in "[a-z_:\\- \n]{0,10}") {
            let pattern = format!("{literal}.*");
            let direct = regress::Regex::new(&pattern).unwrap();
            prop_assert_eq!(m(&pattern).is_match(&query), direct.find(&query).is_some(), "{} on {:?}", pattern, query);
        }

        /// Regrouping never changes what a pattern matches, nor its captures.
        #[test]
        fn regrouping_is_invisible(alternatives in proptest::collection::vec("[ab]{0,2}(\\(a\\)|\\[b|\\]|b\\?)?", 30..120), q in "[ab|]{0,6}") {
            let pattern = alternatives.join("|");
            let Ok(direct) = regress::Regex::new(&pattern) else { return Ok(()) };
            let regrouped = regroup(&pattern).unwrap();
            let program = regress::Regex::new(&regrouped).unwrap();
            let a = direct.find(&q).map(|m| (m.range(), m.groups().collect::<Vec<_>>()));
            let b = program.find(&q).map(|m| (m.range(), m.groups().collect::<Vec<_>>()));
            prop_assert_eq!(a, b);
        }


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
