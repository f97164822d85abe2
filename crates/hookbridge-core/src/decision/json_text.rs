//! A hook's JSON answer read as Claude Code reads it: the text `trim()`med as JavaScript trims,
//! then `JSON.parse`.
//!
//! serde_json is stricter than `JSON.parse` where a hook's answer can reach, and each difference
//! dropped an answer Claude Code acts on — a deny among them, turned into an allow. A guard that
//! echoes the tool call into its reason (`json.dumps` in Python) hands on whatever the model put
//! there: a lone surrogate (`"\ud800"`, which `JSON.parse` keeps and serde_json refuses), or an
//! input nested deeper than serde_json's 128 levels. So:
//! - the text is trimmed of JavaScript's white space (which includes U+FEFF, a byte-order mark,
//!   at either end, and not U+0085, which Rust's `trim` removes);
//! - a lone surrogate escape is read as U+FFFD (the answer's meaning is kept; its reason shows
//!   U+FFFD where Claude Code's would hold the lone surrogate);
//! - a number past what a double holds (`1e999`, Infinity to `JSON.parse`) is read as the largest
//!   double of its sign;
//! - an answer nested deeper than 128 levels is read on a thread with a stack sized for it, up to
//!   [`MAX_DEPTH`] levels; a deeper one is [`Unread::TooDeep`], which the reader makes a failure
//!   of the hook (following its `onFailure`), never an answer dropped in silence.
//!
//! The common answer (valid, shallow, well-formed) is one serde_json parse, as before; the
//! rewrites run only after that parse failed.
//!
//! What is read is bounded by its values too, not only its bytes: a parsed value takes some 70
//! bytes (a 10 MB answer of `0,0,0,…` took 718 MB), so an answer of more than [`MAX_VALUES`] is
//! [`Unread::TooMany`], counted first without reading it, and a failure of the hook like a too
//! deep one. (A deny whose reason is megabytes long is one value.)

use serde::Deserialize;
use serde_json::Value;

/// The deepest an answer is read; past it the hook's answer is a failure. What is read is also
/// written out again (an `updatedInput`) and dropped, both recursively, on whatever thread holds
/// it: a thousand levels take a few hundred KiB of a 2 MiB thread's stack in a debug build (ten
/// thousand overflowed it, in the test below).
pub const MAX_DEPTH: usize = 1_000;

/// The most values an answer is read with ([`count_values`]): far past any hook's answer (an
/// `updatedInput` with a list of edits holds hundreds), and a few megabytes parsed.
pub const MAX_VALUES: usize = 100_000;

/// The stack of the thread that reads an answer nested deeper than serde_json's default limit:
/// generous for [`MAX_DEPTH`] levels in a debug build; only touched pages are ever committed.
const DEEP_STACK: usize = 16 << 20;

/// Why a text that starts with `{` was not read.
#[derive(Debug)]
pub enum Unread {
    /// Not JSON as `JSON.parse` reads it either: serde_json's word on the text as given.
    Invalid(serde_json::Error),
    /// Nested deeper than [`MAX_DEPTH`]: its depth.
    TooDeep(usize),
    /// More values than [`MAX_VALUES`] (counted as far as just past it).
    TooMany(usize),
}

impl std::fmt::Display for Unread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unread::Invalid(e) => write!(f, "{e}"),
            Unread::TooDeep(depth) => write!(f, "nested {depth} levels deep, past the {MAX_DEPTH} read"),
            Unread::TooMany(_) => write!(f, "more than {MAX_VALUES} values, past what is read"),
        }
    }
}

/// Whether JavaScript's `String.prototype.trim` removes `c`: its WhiteSpace and LineTerminator.
fn js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}'
    )
}

/// `text.trim()`, as JavaScript trims.
pub fn js_trim(text: &str) -> &str {
    text.trim_matches(js_space)
}

/// `JSON.parse(text)` (`text` already trimmed).
pub fn parse(text: &str) -> Result<Value, Unread> {
    let values = count_values(text.as_bytes(), MAX_VALUES);
    if values > MAX_VALUES {
        return Err(Unread::TooMany(values));
    }
    let first = match serde_json::from_str::<Value>(text) {
        Ok(value) => return Ok(value),
        Err(e) => e,
    };
    let mended = mend_lone_surrogates(text);
    let text = mended.as_deref().unwrap_or(text);
    let capped = cap_huge_numbers(text);
    let text = capped.as_deref().unwrap_or(text);
    if mended.is_some() || capped.is_some() {
        if let Ok(value) = serde_json::from_str::<Value>(text) {
            return Ok(value);
        }
    }
    match nesting_depth(text) {
        depth if depth > MAX_DEPTH => Err(Unread::TooDeep(depth)),
        depth if depth > 127 => parse_deep(text).ok_or(Unread::Invalid(first)),
        _ => Err(Unread::Invalid(first)),
    }
}

/// How many values the JSON text `text` holds, counted without reading it (one, and one more for
/// each `[`, `{` and `,` outside strings: a little over for empty containers), up to just past
/// `max`: cheap enough to run before every parse, whatever the text is.
pub fn count_values(text: &[u8], max: usize) -> usize {
    let mut count = 1;
    outside_strings(text, |byte| {
        if matches!(byte, b',' | b'[' | b'{') {
            count += 1;
        }
        count <= max
    });
    count
}

/// Calls `each` with every byte of the JSON text `text` outside its strings (the quotes too are
/// inside), in order, until it returns `false`.
fn outside_strings(text: &[u8], mut each: impl FnMut(u8) -> bool) {
    let (mut in_string, mut escaped) = (false, false);
    for &byte in text {
        match (in_string, byte) {
            (true, _) if escaped => escaped = false,
            (true, b'\\') => escaped = true,
            (true, b'"') => in_string = false,
            (true, _) => {}
            (false, b'"') => in_string = true,
            (false, _) => {
                if !each(byte) {
                    return;
                }
            }
        }
    }
}

/// serde_json without its recursion limit, on a thread whose stack holds [`MAX_DEPTH`] levels.
fn parse_deep(text: &str) -> Option<Value> {
    let owned = text.to_owned();
    let reader = std::thread::Builder::new()
        .name("hookbridge-deep-json".into())
        .stack_size(DEEP_STACK)
        .spawn(move || {
            let mut de = serde_json::Deserializer::from_str(&owned);
            de.disable_recursion_limit();
            let value = Value::deserialize(&mut de).ok()?;
            de.end().ok()?;
            Some(value)
        });
    reader.ok()?.join().ok()?
}

/// The deepest nesting of `[` and `{` outside strings.
fn nesting_depth(text: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    outside_strings(text.as_bytes(), |byte| {
        match byte {
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        true
    });
    deepest
}

/// `text` with every number outside strings that a double cannot hold (it parses as infinite)
/// written as the largest double of its sign, or `None` where there is none.
fn cap_huge_numbers(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let (mut out, mut copied, mut i, mut in_string, mut escaped) = (None::<String>, 0, 0, false, false);
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
            i += 1;
            continue;
        }
        if b == b'-' || b.is_ascii_digit() {
            let start = i;
            while i < bytes.len() && matches!(bytes[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
                i += 1;
            }
            let token = &text[start..i];
            if token.parse::<f64>().is_ok_and(f64::is_infinite) {
                let s = out.get_or_insert_with(|| String::with_capacity(text.len()));
                s.push_str(&text[copied..start]);
                s.push_str(if token.starts_with('-') {
                    "-1.7976931348623157e308"
                } else {
                    "1.7976931348623157e308"
                });
                copied = i;
            }
            continue;
        }
        i += 1;
    }
    out.map(|mut s| {
        s.push_str(&text[copied..]);
        s
    })
}

/// `text` with every `\u` escape of a lone surrogate (one not part of a high-low pair) written
/// `\ufffd`, or `None` where there is none.
fn mend_lone_surrogates(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let unit = |at: usize| -> Option<u16> {
        let hex = bytes.get(at..at + 6)?;
        if &hex[..2] != b"\\u" {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()
    };
    let (mut out, mut copied, mut i, mut in_string) = (None::<String>, 0, 0, false);
    while i < bytes.len() {
        match bytes[i] {
            b'"' => in_string = !in_string,
            b'\\' if in_string => {
                let width = match unit(i) {
                    Some(0xd800..=0xdbff)
                        if unit(i + 6).is_some_and(|low| (0xdc00..=0xdfff).contains(&low)) =>
                    {
                        12
                    }
                    Some(0xd800..=0xdfff) => {
                        let s = out.get_or_insert_with(|| String::with_capacity(text.len()));
                        s.push_str(&text[copied..i]);
                        s.push_str("\\ufffd");
                        copied = i + 6;
                        6
                    }
                    _ => 2,
                };
                i += width;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out.map(|mut s| {
        s.push_str(&text[copied..]);
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_are_counted_outside_strings_and_past_the_most_read_an_answer_is_not() {
        assert_eq!(count_values(b"{}", 10), 2);
        assert_eq!(count_values(br#"{"a": [1, 2, 3], "b": "x,y[{"}"#, 100), 6);
        assert_eq!(
            count_values(br#""a\",[,""#, 100),
            1,
            "an escaped quote stays inside"
        );
        assert_eq!(count_values(b"[0,0,0,0,0,0]", 3), 4, "stops just past the most");
        let many = format!("{{\"junk\": [{}]}}", vec!["0"; MAX_VALUES].join(","));
        assert!(matches!(parse(&many), Err(Unread::TooMany(n)) if n == MAX_VALUES + 1));
        let long = format!("{{\"reason\": \"{}\"}}", ",".repeat(MAX_VALUES * 2));
        assert!(parse(&long).is_ok(), "one long string is one value");
    }

    #[test]
    fn trims_as_javascript_does() {
        assert_eq!(js_trim("\u{feff} {} \u{feff}\u{3000}\n"), "{}");
        assert_eq!(
            js_trim("\u{85}{}"),
            "\u{85}{}",
            "U+0085 is not JavaScript white space"
        );
    }

    #[test]
    fn a_lone_surrogate_is_read_as_the_replacement_character() {
        let deny =
            r#"{"decision": "block", "reason": "rm -rf / #\ud800 and \udc00\ud83d\ude00 and \\ud800"}"#;
        assert!(
            serde_json::from_str::<Value>(deny).is_err(),
            "serde_json refuses it"
        );
        let read = parse(deny).unwrap();
        assert_eq!(read["decision"], "block");
        assert_eq!(
            read["reason"],
            "rm -rf / #\u{fffd} and \u{fffd}\u{1f600} and \\ud800"
        );
        // A key, the end of the text, upper case.
        assert_eq!(parse(r#"{"\uD800": 1}"#).unwrap(), json!({"\u{fffd}": 1}));
        assert_eq!(parse(r#"{"a": "\uDBFF"}"#).unwrap(), json!({"a": "\u{fffd}"}));
        assert!(matches!(parse(r#"{"a": "\ud800"#), Err(Unread::Invalid(_))));
    }

    #[test]
    fn a_number_past_a_double_is_read_as_the_largest_one() {
        let deny = r#"{"decision": "block", "n": 1e999, "m": [-2E+400, 5], "s": "1e999"}"#;
        assert!(
            serde_json::from_str::<Value>(deny).is_err(),
            "serde_json refuses it"
        );
        let read = parse(deny).unwrap();
        assert_eq!(read["decision"], "block");
        assert_eq!(read["n"].as_f64(), Some(f64::MAX));
        assert_eq!(read["m"], json!([-f64::MAX, 5]));
        assert_eq!(read["s"], "1e999", "a string is not a number");
    }

    #[test]
    fn an_answer_nested_deeper_than_serde_jsons_limit_is_read_up_to_the_maximum() {
        let nested = |depth: usize| format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        let deny = |depth| format!(r#"{{"decision": "block", "input": {}}}"#, nested(depth));
        assert!(
            serde_json::from_str::<Value>(&deny(200)).is_err(),
            "past serde_json's 128"
        );
        assert_eq!(parse(&deny(200)).unwrap()["decision"], "block");
        // Read, written out again (an `updatedInput` is) and dropped on a test thread's stack.
        let deepest = parse(&deny(MAX_DEPTH - 1)).unwrap();
        assert_eq!(deepest["decision"], "block");
        assert_eq!(
            serde_json::to_string(&deepest).unwrap(),
            deny(MAX_DEPTH - 1).replace(' ', "")
        );
        drop(deepest);
        assert!(matches!(parse(&deny(MAX_DEPTH)), Err(Unread::TooDeep(d)) if d == MAX_DEPTH + 1));
        // Brackets inside strings are not nesting.
        assert_eq!(nesting_depth(r#"{"a": "[[[{{\"[", "b": [{}]}"#), 3);
        assert!(matches!(
            parse(&format!("{{\"a\": {}", nested(300))),
            Err(Unread::Invalid(_))
        ));
    }
}
