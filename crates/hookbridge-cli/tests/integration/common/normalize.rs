//! Putting our side and the recorded side in the same form before comparing them.
//!
//! `expected.json` was written by the oracle's `run_case.py`, which (1) replaced the run's temp paths
//! and ids with placeholders (`$PROJECT`, `$HOME`, `$PROJECT_SLUG`, `$SESSION`, `$WORK`, …) and
//! (2) truncated long strings: hook stdout/stderr to 300 characters, model-view texts to 2000, as
//! `text[:limit] + "...[N chars]"` where N is the full length. This module applies (1) to what
//! hookbridge produced, compares against (2) without losing the length information, and replaces
//! the bracketed hook command of Claude Code's messages (`[command]`, `from command: "command"`)
//! with `CMD` on both sides, since hookbridge is the one command Claude Code sees.

use std::path::Path;

use super::claude_view::MIDDLE_CUT_FROM;

/// The oracle's limit for hook stdout/stderr in `hook_calls`.
pub const HOOK_OUTPUT_LIMIT: usize = 300;
/// The oracle's limit for texts in `model_view` (blocks and context paragraphs).
pub const MODEL_TEXT_LIMIT: usize = 2000;

/// Replaces this run's concrete paths and ids with the oracle's placeholders.
#[derive(Debug, Clone)]
pub struct Placeholders {
    pub work: String,
    pub project: String,
    pub home: String,
    pub slug: String,
    pub session: String,
}

impl Placeholders {
    pub fn new(work: &Path, session: &str) -> Placeholders {
        let project = work.join("project").to_string_lossy().into_owned();
        let slug = project
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        Placeholders {
            work: work.to_string_lossy().into_owned(),
            home: work.join("home").to_string_lossy().into_owned(),
            project,
            slug,
            session: session.to_string(),
        }
    }

    /// Concrete → placeholder, in the order `run_case.py` applies them.
    pub fn normalize(&self, text: &str) -> String {
        text.replace(&self.project, "$PROJECT")
            .replace(&self.home, "$HOME")
            .replace(&self.slug, "$PROJECT_SLUG")
            .replace(&self.work, "$WORK")
            .replace(&self.session, "$SESSION")
    }

    /// Placeholder → concrete (for payloads fed to hookbridge). `$PROJECT_SLUG` before `$PROJECT`.
    pub fn expand(&self, text: &str) -> String {
        text.replace("$PROJECT_SLUG", &self.slug)
            .replace("$PROJECT", &self.project)
            .replace("$HOME", &self.home)
            .replace("$SESSION", &self.session)
            .replace("$WORK", &self.work)
    }
}

/// Python's `text[:limit] + f"...[{len(text)} chars]"` for texts longer than `limit` (in characters).
pub fn truncate_like_oracle(text: &str, limit: usize) -> String {
    let len = text.chars().count();
    if len <= limit {
        return text.to_string();
    }
    let prefix: String = text.chars().take(limit).collect();
    format!("{prefix}...[{len} chars]")
}

/// Replace every hook command of a case with `CMD` where Claude Code quotes it: `[cmd]` and
/// `from command: "cmd"`. Longer commands first, so a command that contains another wins.
#[derive(Debug, Clone, Default)]
pub struct CommandMask {
    commands: Vec<String>,
}

impl CommandMask {
    pub fn new(mut commands: Vec<String>) -> CommandMask {
        commands.retain(|c| !c.is_empty() && c != "CMD");
        commands.sort_by_key(|c| std::cmp::Reverse(c.chars().count()));
        commands.dedup();
        CommandMask { commands }
    }

    /// The (from, to) pairs, in application order.
    fn pairs(&self) -> Vec<(String, String)> {
        let mut pairs = Vec::with_capacity(self.commands.len() * 2);
        for c in &self.commands {
            pairs.push((format!("[{c}]"), "[CMD]".to_string()));
            pairs.push((
                format!("from command: \"{c}\""),
                "from command: \"CMD\"".to_string(),
            ));
        }
        pairs
    }

    /// Mask `text`; returns the masked text and how many characters it lost (negative: gained).
    pub fn apply(&self, text: &str) -> (String, isize) {
        let mut out = text.to_string();
        let mut delta: isize = 0;
        for (from, to) in self.pairs() {
            let n = out.matches(from.as_str()).count();
            if n > 0 {
                delta += n as isize * (from.chars().count() as isize - to.chars().count() as isize);
                out = out.replace(from.as_str(), to.as_str());
            }
        }
        let (out, d) = mask_saved_path(&out);
        (out, delta + d)
    }
}

/// `Full output saved to: <path>` → `Full output saved to: <PATH>`: where Claude Code persists a
/// large hook output depends on hook ids that differ between runs.
fn mask_saved_path(text: &str) -> (String, isize) {
    const MARK: &str = "Full output saved to: ";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut delta: isize = 0;
    while let Some(i) = rest.find(MARK) {
        let after = &rest[i + MARK.len()..];
        let end = after.find('\n').unwrap_or(after.len());
        out.push_str(&rest[..i + MARK.len()]);
        out.push_str("<PATH>");
        delta += after[..end].chars().count() as isize - "<PATH>".len() as isize;
        rest = &after[end..];
    }
    out.push_str(rest);
    (out, delta)
}

/// A recorded model-view text, masked, with the full length it had before the oracle truncated it.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedText {
    /// The visible (possibly truncated) text, masked.
    pub prefix: String,
    /// Full length of the masked text if the recording was truncated.
    pub total: Option<usize>,
    /// The recording as stored, for messages.
    pub raw: String,
}

impl RecordedText {
    pub fn new(raw: &str, limit: usize, mask: &CommandMask) -> RecordedText {
        let (visible, total) = split_truncated(raw, limit);
        let (prefix, delta) = mask.apply(visible);
        let total = total.map(|n| (n as isize - delta).max(0) as usize);
        RecordedText {
            prefix,
            total,
            raw: raw.to_string(),
        }
    }

    /// Does `ours` (already masked, full length) read the same as this recording?
    ///
    /// A text past [`MIDDLE_CUT_FROM`] characters Claude Code cuts in the middle, keeping its head:
    /// the recording keeps only the first [`MODEL_TEXT_LIMIT`] of them and the length after the
    /// cut, which depends on the registered command's length (`tests/mux/middle_cut.py`). Such a
    /// text matches a recording of the same head that was cut: longer than `MIDDLE_CUT_FROM`,
    /// shorter than `ours`.
    pub fn matches(&self, ours: &str) -> bool {
        let length = ours.chars().count();
        match self.total {
            None => ours == self.prefix,
            Some(total) if length > MIDDLE_CUT_FROM => {
                total > MIDDLE_CUT_FROM && total < length && ours.starts_with(&self.prefix)
            }
            Some(total) => length == total && ours.starts_with(&self.prefix),
        }
    }
}

/// Split `visible...[N chars]` when the visible part has exactly `limit` characters.
fn split_truncated(raw: &str, limit: usize) -> (&str, Option<usize>) {
    if let Some(stripped) = raw.strip_suffix(" chars]") {
        if let Some(i) = stripped.rfind("...[") {
            if let Ok(n) = stripped[i + 4..].parse::<usize>() {
                let visible = &raw[..i];
                if visible.chars().count() == limit {
                    return (visible, Some(n));
                }
            }
        }
    }
    (raw, None)
}
