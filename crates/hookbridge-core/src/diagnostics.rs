//! Diagnostics: every problem hookbridge finds in configs, payloads or hooks, as plain values.
//!
//! Nothing is skipped silently. Loading a broken file, ignoring an unknown key, skipping a hook whose
//! type is not runnable yet: each produces a [`Diagnostic`] that names the file, the line and column,
//! and the key path, so `list`/`validate`, the diagnostics log and `--verbose` can all show the same
//! text. Diagnostics are collected, never thrown: one bad entry must not hide the good ones.

use std::fmt;
use std::path::{Path, PathBuf};

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Something was accepted but may not do what the author meant (unknown key, ignored field).
    Warning,
    /// Something was dropped: a file, a group, a hook or a matcher that cannot be used.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// The candidate `name` is probably a misspelling of: equal but for case, else at most two edits
/// away (and fewer edits than `name` has characters), the nearest first in `candidates` order.
/// `None` when `name` is itself a candidate or nothing is that close.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let candidates: Vec<&'a str> = candidates.into_iter().collect();
    if candidates.contains(&name) {
        return None;
    }
    if let Some(same) = candidates.iter().find(|c| c.eq_ignore_ascii_case(name)) {
        return Some(same);
    }
    // Two edits change the length by two at most: a candidate further off in length is not
    // measured (a name of megabytes costs a count of its characters, not a table of them).
    let length = name.chars().count();
    candidates
        .iter()
        .filter(|c| c.chars().count().abs_diff(length) <= 2)
        .map(|c| (strsim::damerau_levenshtein(c, name), *c))
        .filter(|(distance, _)| *distance <= 2 && *distance < length)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, c)| c)
}

/// `"; did you mean `x`?"` for [`closest`], or nothing.
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(name, candidates)
        .map(|c| format!("; did you mean `{c}`?"))
        .unwrap_or_default()
}

/// A 1-based line and column in a source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

impl Position {
    /// The position of byte `offset` in `source` (1-based line and column, column in characters).
    pub fn of_offset(source: &str, offset: usize) -> Position {
        let offset = offset.min(source.len());
        let before = &source[..offset];
        let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before[line_start..].chars().count() + 1;
        Position { line, column }
    }
}

/// Positions of many offsets in one text, counted on from the last offset asked for. A parser asks
/// for offsets mostly in increasing order, so each byte is scanned about once — the line *and the
/// column* are carried forward, so a minified file (one line of megabytes) costs no more than a
/// pretty-printed one — where [`Position::of_offset`] scans from the start every time. Asking for an
/// earlier offset is allowed (it starts over).
#[derive(Debug, Clone)]
pub struct LineCursor<'a> {
    text: &'a str,
    offset: usize,
    line: usize,
    /// The column of `offset` (1-based, in characters).
    column: usize,
    /// Bytes examined so far: tests hold loading linear with it.
    scanned: usize,
}

impl<'a> LineCursor<'a> {
    pub fn new(text: &'a str) -> Self {
        LineCursor {
            text,
            offset: 0,
            line: 1,
            column: 1,
            scanned: 0,
        }
    }

    /// The position of byte `offset` (clamped to the text's length; inside a character, the
    /// character's start).
    pub fn position(&mut self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        if offset < self.offset {
            let scanned = self.scanned;
            *self = LineCursor::new(self.text);
            self.scanned = scanned;
        }
        let skipped = &self.text.as_bytes()[self.offset..offset];
        self.scanned += skipped.len();
        let tail = match skipped.iter().rposition(|&b| b == b'\n') {
            Some(last) => {
                self.line += skipped.iter().filter(|&&b| b == b'\n').count();
                self.column = 1;
                &skipped[last + 1..]
            }
            None => skipped,
        };
        // Characters, not bytes: every byte that does not continue a UTF-8 sequence starts one.
        self.column += tail.iter().filter(|&&b| (b as i8) >= -0x40).count();
        self.offset = offset;
        Position {
            line: self.line,
            column: self.column,
        }
    }

    /// How many bytes of the text the cursor has examined in all.
    pub fn scanned(&self) -> usize {
        self.scanned
    }
}

/// One problem, with where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// The config file involved, if any.
    pub file: Option<PathBuf>,
    pub position: Option<Position>,
    /// The key path inside the file, e.g. `hooks.PreToolUse[0].hooks[1].timeout`.
    pub key: Option<String>,
    pub message: String,
}

impl Diagnostic {
    pub fn error(message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            file: None,
            position: None,
            key: None,
            message: message.into(),
        }
    }

    pub fn warning(message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(message)
        }
    }

    pub fn in_file(mut self, file: &Path) -> Self {
        self.file = Some(file.to_path_buf());
        self
    }

    pub fn at(mut self, position: Position) -> Self {
        self.position = Some(position);
        self
    }

    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }
}

impl fmt::Display for Diagnostic {
    /// `path:line:col: error: key `k`: message` — the form editors and terminals understand.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{}", file.display())?;
            if let Some(p) = self.position {
                write!(f, ":{}:{}", p.line, p.column)?;
            }
            f.write_str(": ")?;
        }
        write!(f, "{}: ", self.severity)?;
        if let Some(key) = &self.key {
            write!(f, "`{key}`: ")?;
        }
        f.write_str(&self.message)
    }
}

/// `text`, cut to at most `max` bytes (at a character boundary) with `…` where it was cut: for
/// quoting what a file or an answer holds in a message.
pub(crate) fn shorten(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_become_one_based_lines_and_columns() {
        let src = "{\n  \"a\": 1,\n  \"béta\": x\n}";
        assert_eq!(Position::of_offset(src, 0), Position { line: 1, column: 1 });
        let x = src.find('x').unwrap();
        assert_eq!(Position::of_offset(src, x), Position { line: 3, column: 11 });
    }

    #[test]
    fn the_line_cursor_agrees_with_of_offset_forwards_and_backwards() {
        let src = "{\n  \"é\": 1,\n\n  \"ключ\": [true,\n false]}\n";
        let boundaries: Vec<usize> = (0..=src.len()).filter(|&i| src.is_char_boundary(i)).collect();
        let mut cursor = LineCursor::new(src);
        // Every boundary in order, then a walk that jumps back and forth.
        let order = boundaries
            .iter()
            .copied()
            .chain(boundaries.iter().rev().step_by(3).copied())
            .chain([0, src.len(), 5, 4, src.len() + 10]);
        for offset in order {
            assert_eq!(
                cursor.position(offset),
                Position::of_offset(src, offset),
                "offset {offset}"
            );
        }
    }

    /// Issue 10: a minified file asks for positions along one long line; each must cost the
    /// distance from the previous one, not the distance from the line's start.
    #[test]
    fn positions_along_one_long_line_are_counted_once() {
        let line = "{\"a\": [1, 2, 3]}, ".repeat(20_000);
        let mut cursor = LineCursor::new(&line);
        let mut last = Position::default();
        for offset in (0..line.len()).step_by(7) {
            last = cursor.position(offset);
        }
        assert_eq!(last, Position::of_offset(&line, (line.len() - 1) / 7 * 7));
        assert!(
            cursor.scanned() <= 2 * line.len(),
            "{} bytes examined for a {}-byte line",
            cursor.scanned(),
            line.len()
        );
    }

    #[test]
    fn closest_finds_case_slips_and_small_typos_only() {
        let events = ["PreToolUse", "PostToolUse", "Stop"];
        assert_eq!(closest("PreToolUs", events), Some("PreToolUse"));
        assert_eq!(closest("pretooluse", events), Some("PreToolUse"));
        assert_eq!(
            closest("PreTolUes", events),
            Some("PreToolUse"),
            "a transposition is one edit"
        );
        assert_eq!(closest("PreToolUse", events), None);
        assert_eq!(closest("Teardown", events), None);
        assert_eq!(
            closest("St", events),
            None,
            "two edits of a two-letter word is anything"
        );
        assert_eq!(
            did_you_mean("comand", ["command", "timeout"]),
            "; did you mean `command`?"
        );
        assert_eq!(did_you_mean("zzz", ["command"]), "");
    }

    #[test]
    fn display_names_file_line_column_and_key() {
        let d = Diagnostic::error("expected seconds as a number, found a string")
            .in_file(Path::new("/p/hooks.json"))
            .at(Position { line: 4, column: 20 })
            .key("hooks.PreToolUse[0].hooks[0].timeout");
        assert_eq!(
            d.to_string(),
            "/p/hooks.json:4:20: error: `hooks.PreToolUse[0].hooks[0].timeout`: expected seconds as a number, found a string"
        );
    }
}
