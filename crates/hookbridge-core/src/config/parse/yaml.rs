//! `hooks.yaml` / `hooks.yml`: the YAML document is rewritten as JSON text with a map from each
//! value's offset in that text to its line and column in the YAML, so the one reader of hooks files
//! (and every check and message it has) reads both formats, and every diagnostic points into the
//! YAML the user wrote.
//!
//! YAML 1.2's core schema decides what a plain scalar is (`true`, `null`, `~`, numbers; anything
//! else a string); quoted scalars and `!!str` are strings. Anchors and aliases work (an alias is
//! its anchor's value again, positioned at the alias). One document per file; keys must be
//! scalars. Parsing is `saphyr-parser`'s (a maintained YAML 1.2 parser with spans).
//!
//! What a file may cost is bounded while it is read, not after: aliases expand text, so nested
//! ones ("billion laughs": 480 bytes that would expand to gigabytes) could exhaust memory and take
//! every other hook down with the process. The JSON written may not grow past
//! [`MAX_CONFIG_BYTES`](crate::config::bounded_read::MAX_CONFIG_BYTES), the bound on a JSON hooks file
//! itself, nor hold more than [`MAX_VALUES`] values; a file past either is refused whole, with the
//! position where it crossed the bound, and the other files load. An anchor is kept as the range
//! of the JSON already written, never as a copy, so nested anchors cost nothing more.

use saphyr_parser::{Event, Parser, ScalarStyle, Span};

use crate::diagnostics::Position;

/// Where each value of the generated JSON came from: `(offset in the JSON, position in the YAML)`,
/// in increasing offset order.
#[derive(Debug, Default)]
pub(crate) struct PositionMap(Vec<(usize, Position)>);

impl PositionMap {
    /// The YAML position of the JSON value starting at (or containing) `offset`.
    pub(crate) fn position(&self, offset: usize) -> Position {
        let i = self.0.partition_point(|(o, _)| *o <= offset);
        self.0
            .get(i.saturating_sub(1))
            .map_or(Position { line: 1, column: 1 }, |(_, p)| *p)
    }
}

/// A YAML document that cannot be read: the message and where.
#[derive(Debug)]
pub(crate) struct YamlError {
    pub(crate) message: String,
    pub(crate) position: Position,
}

fn position_of(span: &Span) -> Position {
    Position {
        line: span.start.line(),
        column: span.start.col() + 1,
    }
}

/// The most values (scalars, lists, mappings, alias uses) one YAML hooks file may hold: a
/// thousand hooks take about ten thousand.
pub(crate) const MAX_VALUES: usize = 1_000_000;

/// The JSON text of the YAML document `text`, and where each of its values came from.
pub(crate) fn to_json(text: &str) -> Result<(String, PositionMap), YamlError> {
    to_json_within(
        text,
        crate::config::bounded_read::MAX_CONFIG_BYTES as usize,
        MAX_VALUES,
    )
}

/// [`to_json`] with the bounds given: at most `max_len` bytes of JSON and `max_values` values.
fn to_json_within(text: &str, max_len: usize, max_values: usize) -> Result<(String, PositionMap), YamlError> {
    let mut w = Writer {
        json: String::with_capacity((text.len() + text.len() / 2).min(max_len)),
        map: PositionMap::default(),
        stack: Vec::new(),
        anchors: std::collections::HashMap::new(),
        open_anchors: Vec::new(),
        documents: 0,
        max_len,
        values_left: max_values,
    };
    for event in Parser::new_from_str(text) {
        let (event, span) = event.map_err(|e| YamlError {
            message: format!("not valid YAML: {}", e.info()),
            position: Position {
                line: e.marker().line(),
                column: e.marker().col() + 1,
            },
        })?;
        w.event(event, &span)?;
    }
    if w.documents == 0 || w.json.is_empty() {
        // An empty file, or one of comments only: no hooks, like `{}`.
        w.json.push_str("{}");
    }
    Ok((w.json, w.map))
}

enum Container {
    /// In a mapping; `true` when the next scalar is a key.
    Mapping {
        next_is_key: bool,
        first: bool,
    },
    Sequence {
        first: bool,
    },
}

struct Writer {
    json: String,
    map: PositionMap,
    stack: Vec<Container>,
    /// Anchor id → where the JSON text of its value lies in `json` (written once, never changed).
    anchors: std::collections::HashMap<usize, std::ops::Range<usize>>,
    /// Collections with an anchor, being written: (anchor id, where their text starts, depth).
    open_anchors: Vec<(usize, usize, usize)>,
    documents: usize,
    /// The most JSON this file may become.
    max_len: usize,
    /// How many more values it may hold.
    values_left: usize,
}

impl Writer {
    /// Refuses the file once `adding` more bytes would make its JSON longer than it may be.
    fn room_for(&self, adding: usize, span: &Span) -> Result<(), YamlError> {
        if self.json.len().saturating_add(adding) <= self.max_len {
            return Ok(());
        }
        Err(self.too_large(
            if adding > 0 {
                "expanding this alias makes the file too large"
            } else {
                "the file is too large"
            },
            span,
        ))
    }

    fn too_large(&self, what: &str, span: &Span) -> YamlError {
        YamlError {
            message: format!(
                "{what}; a hooks file may become at most {} MiB of JSON with {} values, so it is refused",
                self.max_len >> 20,
                MAX_VALUES
            ),
            position: position_of(span),
        }
    }

    /// Before a value (or key): the separator its container needs, and whether it is a key.
    fn before_value(&mut self, span: &Span) -> Result<bool, YamlError> {
        self.room_for(0, span)?;
        if self.values_left == 0 {
            return Err(self.too_large("the file holds too many values", span));
        }
        self.values_left -= 1;
        let is_key = match self.stack.last_mut() {
            Some(Container::Mapping { next_is_key, first }) => {
                let is_key = *next_is_key;
                if is_key && !*first {
                    self.json.push(',');
                }
                *first = false;
                *next_is_key = !is_key;
                if !is_key {
                    self.json.push(':');
                }
                is_key
            }
            Some(Container::Sequence { first }) => {
                if !*first {
                    self.json.push(',');
                }
                *first = false;
                false
            }
            None => false,
        };
        self.map.0.push((self.json.len(), position_of(span)));
        Ok(is_key)
    }

    fn event(&mut self, event: Event<'_>, span: &Span) -> Result<(), YamlError> {
        match event {
            Event::StreamStart | Event::StreamEnd | Event::Nothing | Event::DocumentEnd => {}
            Event::DocumentStart(_) => {
                self.documents += 1;
                if self.documents > 1 {
                    return Err(YamlError {
                        message: "a hooks file holds one YAML document; a second one starts here".into(),
                        position: position_of(span),
                    });
                }
            }
            Event::Scalar(value, style, anchor, tag) => {
                let is_key = self.before_value(span)?;
                let start = self.json.len();
                let as_string =
                    is_key || style != ScalarStyle::Plain || tag.as_ref().is_some_and(|t| t.suffix == "str");
                if as_string {
                    push_string(&mut self.json, &value);
                } else {
                    push_plain(&mut self.json, &value);
                }
                if anchor > 0 {
                    self.anchors.insert(anchor, start..self.json.len());
                }
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                let is_mapping = matches!(event, Event::MappingStart(..));
                if self.before_value(span)? {
                    return Err(YamlError {
                        message: "a mapping key must be a plain value, not a list or mapping".into(),
                        position: position_of(span),
                    });
                }
                if anchor > 0 {
                    self.open_anchors
                        .push((anchor, self.json.len(), self.stack.len()));
                }
                if is_mapping {
                    self.json.push('{');
                    self.stack.push(Container::Mapping {
                        next_is_key: true,
                        first: true,
                    });
                } else {
                    self.json.push('[');
                    self.stack.push(Container::Sequence { first: true });
                }
            }
            Event::SequenceEnd | Event::MappingEnd => {
                self.json.push(if matches!(event, Event::SequenceEnd) {
                    ']'
                } else {
                    '}'
                });
                self.stack.pop();
                if let Some(&(anchor, start, depth)) = self.open_anchors.last() {
                    if depth == self.stack.len() {
                        self.open_anchors.pop();
                        self.anchors.insert(anchor, start..self.json.len());
                    }
                }
            }
            Event::Alias(anchor) => {
                let is_key = self.before_value(span)?;
                let Some(range) = self.anchors.get(&anchor).cloned() else {
                    return Err(YamlError {
                        message: "an alias to an anchor that is not defined before it".into(),
                        position: position_of(span),
                    });
                };
                // A key is quoted again, which at most doubles it and adds the quotes.
                let adding = if is_key { 2 * range.len() + 2 } else { range.len() };
                self.room_for(adding, span)?;
                let text = self.json[range].to_string();
                if is_key && !text.starts_with('"') {
                    push_string(&mut self.json, &text);
                } else {
                    self.json.push_str(&text);
                }
            }
        }
        Ok(())
    }
}

fn push_string(out: &mut String, s: &str) {
    out.push_str(&serde_json::to_string(s).expect("a string serializes"));
}

/// A plain scalar by YAML 1.2's core schema.
fn push_plain(out: &mut String, s: &str) {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return out.push_str("null"),
        "true" | "True" | "TRUE" => return out.push_str("true"),
        "false" | "False" | "FALSE" => return out.push_str("false"),
        _ => {}
    }
    let unsigned = s.strip_prefix(['-', '+']).unwrap_or(s);
    let negative = s.starts_with('-');
    let radix = |digits: &str, radix: u32| -> Option<String> {
        let n = i128::from_str_radix(digits, radix).ok()?;
        Some(if negative { (-n).to_string() } else { n.to_string() })
    };
    let integer = if let Some(hex) = unsigned.strip_prefix("0x") {
        radix(hex, 16)
    } else if let Some(oct) = unsigned.strip_prefix("0o") {
        radix(oct, 8)
    } else if !unsigned.is_empty() && unsigned.bytes().all(|b| b.is_ascii_digit()) {
        radix(unsigned, 10)
    } else {
        None
    };
    if let Some(n) = integer {
        return out.push_str(&n);
    }
    let looks_numeric = unsigned
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_digit() || b == b'.')
        && unsigned
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'-' | b'+'));
    if looks_numeric {
        if let Some(n) = s.parse::<f64>().ok().and_then(serde_json::Number::from_f64) {
            return out.push_str(&n.to_string());
        }
    }
    push_string(out, s);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> serde_json::Value {
        let (json, _) = to_json(text).unwrap();
        serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"))
    }

    #[test]
    fn scalars_follow_the_core_schema() {
        assert_eq!(
            json("a: 1\nb: -0x10\nc: 1.5e3\nd: true\ne: ~\nf: '5'\ng: hello world\nh: .5\ni: 1.2.3\nj: !!str 7\nk:\n"),
            serde_json::json!({"a": 1, "b": -16, "c": 1500.0, "d": true, "e": null, "f": "5",
                "g": "hello world", "h": 0.5, "i": "1.2.3", "j": "7", "k": null})
        );
        assert_eq!(json("1: x\ntrue: y"), serde_json::json!({"1": "x", "true": "y"}));
        assert_eq!(json("# only a comment\n"), serde_json::json!({}));
        assert_eq!(json(""), serde_json::json!({}));
    }

    #[test]
    fn nesting_block_scalars_and_aliases() {
        let v = json("base: &b\n  type: command\n  command: x\nlist:\n  - *b\n  - [1, {a: b}]\ntext: |\n  one\n  two\n");
        assert_eq!(
            v["list"][0],
            serde_json::json!({"type": "command", "command": "x"})
        );
        assert_eq!(v["list"][1], serde_json::json!([1, {"a": "b"}]));
        assert_eq!(v["text"], "one\ntwo\n");
    }

    #[test]
    fn positions_point_into_the_yaml() {
        let text = "hooks:\n  PreToolUse:\n    - type: command\n      timeout_ms: \"5\"\n";
        let (json, map) = to_json(text).unwrap();
        let at = json.find("\"5\"").unwrap();
        assert_eq!(map.position(at), Position { line: 4, column: 19 });
        let hook = json.find("{\"type\"").unwrap();
        assert_eq!(map.position(hook), Position { line: 3, column: 7 });
    }

    #[test]
    fn errors_have_positions() {
        let e = to_json("hooks:\n  PreToolUse: [\n").unwrap_err();
        assert!(e.message.starts_with("not valid YAML"), "{}", e.message);
        assert!(e.position.line >= 2);
        let e = to_json("a: 1\n---\nb: 2\n").unwrap_err();
        assert!(e.message.contains("one YAML document"));
        assert_eq!(e.position.line, 2);
        assert!(to_json("? [a]\n: 1\n").is_err());
        assert!(to_json("a: *nope\n").is_err());
    }

    /// "Billion laughs": nine levels of ten aliases each would expand to 10^9 copies.
    fn laughs(levels: usize) -> String {
        let mut text = String::from("a0: &a0 [\"lol\"]\n");
        for i in 1..levels {
            let refs = vec![format!("*a{}", i - 1); 10].join(", ");
            text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
        }
        text
    }

    #[test]
    fn nested_aliases_are_refused_once_they_expand_past_the_bound() {
        let text = laughs(9);
        assert!(text.len() < 600, "{}", text.len());
        let e = to_json(&text).unwrap_err();
        assert!(
            e.message
                .contains("expanding this alias makes the file too large"),
            "{}",
            e.message
        );
        // Where it crossed the bound: an alias on one of the last lines.
        assert!(e.position.line >= 6, "{:?}", e.position);
        // A few levels are fine, and expand as YAML says.
        let small = json(&laughs(3));
        assert_eq!(small["a2"][9][9][0], "lol");
        assert_eq!(small["a2"].as_array().unwrap().len(), 10);
    }

    #[test]
    fn the_bounds_are_on_the_json_written_and_the_values_held() {
        let text = "a: &x [1, 2, 3]\nb: [*x, *x]\n";
        let (full, _) = to_json(text).unwrap();
        assert_eq!(full, r#"{"a":[1,2,3],"b":[[1,2,3],[1,2,3]]}"#);
        assert!(to_json_within(text, full.len(), MAX_VALUES).is_ok());
        // `{"a":[1,2,3],"b":[` is 18 bytes, and the first alias adds 7.
        assert!(to_json_within(text, 25 + 1 + 7, MAX_VALUES).is_ok());
        let e = to_json_within(text, 24, MAX_VALUES).unwrap_err();
        assert!(e.message.contains("too large"), "{}", e.message);
        assert_eq!(e.position.line, 2);
        // a, the list, 1, 2, 3, b, the list, two aliases, the mapping: 10 values.
        assert!(to_json_within(text, usize::MAX, 10).is_ok());
        let e = to_json_within(text, usize::MAX, 9).unwrap_err();
        assert!(e.message.contains("too many values"), "{}", e.message);
    }
}
