//! `hooks.yaml` / `hooks.yml`: the YAML document is rewritten as JSON text with a map from each
//! value's offset in that text to its line and column in the YAML, so the one reader of hooks files
//! (and every check and message it has) reads both formats, and every diagnostic points into the
//! YAML the user wrote.
//!
//! YAML 1.2's core schema decides what a plain scalar is (`true`, `null`, `~`, numbers; anything
//! else a string); quoted scalars and `!!str` are strings. Anchors and aliases work (an alias is
//! its anchor's value again, positioned at the alias). One document per file; keys must be
//! scalars. Parsing is `saphyr-parser`'s (a maintained YAML 1.2 parser with spans).

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

/// The JSON text of the YAML document `text`, and where each of its values came from.
pub(crate) fn to_json(text: &str) -> Result<(String, PositionMap), YamlError> {
    let mut w = Writer {
        json: String::with_capacity(text.len() + text.len() / 2),
        map: PositionMap::default(),
        stack: Vec::new(),
        anchors: std::collections::HashMap::new(),
        open_anchors: Vec::new(),
        documents: 0,
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
    /// Anchor id → the JSON text of its value.
    anchors: std::collections::HashMap<usize, String>,
    /// Collections with an anchor, being written: (anchor id, where their text starts, depth).
    open_anchors: Vec<(usize, usize, usize)>,
    documents: usize,
}

impl Writer {
    /// Before a value (or key): the separator its container needs, and whether it is a key.
    fn before_value(&mut self, span: &Span) -> Result<bool, YamlError> {
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
                    self.anchors.insert(anchor, self.json[start..].to_string());
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
                        self.anchors.insert(anchor, self.json[start..].to_string());
                    }
                }
            }
            Event::Alias(anchor) => {
                let is_key = self.before_value(span)?;
                let Some(text) = self.anchors.get(&anchor).cloned() else {
                    return Err(YamlError {
                        message: "an alias to an anchor that is not defined before it".into(),
                        position: position_of(span),
                    });
                };
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
}
