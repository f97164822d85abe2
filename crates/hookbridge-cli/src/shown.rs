//! Text a project, a hook or a model wrote, made safe to print on a terminal.
//!
//! A hooks file, a hook's reason or a tool call's input can hold terminal control sequences: an
//! ESC sequence that erases the line and writes another in its place, a carriage return that
//! overwrites it, concealed text, a clipboard write (OSC 52), a bidi override that reorders what is
//! read. Printed as they are, `hookbridge trust` could show `./lint.sh` for a hook that runs
//! `curl … | sh`, and `hookbridge log` could rewrite a "denied" line. Every such character is
//! printed escaped instead (`\u{1b}`, `\r`), so what is shown is what is there. Newlines are kept
//! by [`lines`] (where the output itself is several lines) and escaped by [`field`].

use std::borrow::Cow;

/// `text` with every control character (newlines too) and every invisible formatting character
/// escaped: for one field of a one-line listing (a command, a matcher, a path).
pub fn field(text: &str) -> Cow<'_, str> {
    escaped(text, false)
}

/// [`field`], keeping newlines: for a block of output that is several lines by design.
pub fn lines(text: &str) -> Cow<'_, str> {
    escaped(text, true)
}

fn escaped(text: &str, keep_newlines: bool) -> Cow<'_, str> {
    let unsafe_char = |c: char| hidden(c) && !(keep_newlines && c == '\n');
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if !unsafe_char(c) {
            out.push(c);
        } else if c.is_ascii() {
            out.extend(c.escape_default()); // `\n`, `\t`, `\r`, `\u{1b}`
        } else {
            out.extend(c.escape_unicode());
        }
    }
    Cow::Owned(out)
}

/// A character a terminal acts on or shows as nothing: C0 and C1 controls and DEL, and the
/// zero-width and bidirectional formatting characters (U+061C, U+200B–U+200F, U+202A–U+202E,
/// U+2060–U+2064, U+2066–U+2069, U+FEFF).
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{061C}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_invisible_formatting_are_escaped_and_plain_text_is_borrowed() {
        let forged = "curl x | sh #\u{1b}[2K\r    PreToolUse  command  ./lint.sh";
        assert_eq!(
            field(forged),
            "curl x | sh #\\u{1b}[2K\\r    PreToolUse  command  ./lint.sh"
        );
        assert_eq!(field("a\nb\tc\u{7f}\u{9b}"), "a\\nb\\tc\\u{7f}\\u{9b}");
        assert_eq!(lines("a\nb\u{1b}]52;c;eA==\u{7}"), "a\nb\\u{1b}]52;c;eA==\\u{7}");
        assert_eq!(field("ok \u{202e}txt.sh"), "ok \\u{202e}txt.sh");
        assert_eq!(field("rm -rf ~ ⏎ é"), "rm -rf ~ ⏎ é");
        assert!(matches!(field("./lint.sh"), Cow::Borrowed(_)));
    }
}
