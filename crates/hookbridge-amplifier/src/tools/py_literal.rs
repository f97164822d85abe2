//! `py_literal`: a subset of Python's `ast.literal_eval`, enough for the `repr()` of JSON-like data
//! (how amplifier-core 2.0.2 hands a tool's result to hooks under loop-basic): dicts, lists,
//! tuples, strings (with `b`/`r`/`u` prefixes and every repr escape), numbers, `True`, `False`,
//! `None`; JSON's `true`/`false`/`null` are accepted too. Anything else (`Decimal('1')`,
//! `datetime(…)`) makes the whole text unparseable, and the caller keeps it as a string.

use serde_json::{Map, Number, Value};

const MAX_DEPTH: usize = 128;

/// The value of `text`, or `None` if it is not entirely a literal.
pub fn parse(text: &str) -> Option<Value> {
    let mut p = Parser {
        chars: text.chars().collect(),
        pos: 0,
    };
    let v = p.value(0)?;
    p.skip_ws();
    (p.pos == p.chars.len()).then_some(v)
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        Some(c)
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_ws();
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.skip_ws();
        match self.peek()? {
            '{' => self.dict(depth),
            '[' => self.seq(']', depth),
            '(' => self.seq(')', depth),
            '\'' | '"' => self.string().map(Value::String),
            c if c == '-' || c == '+' || c.is_ascii_digit() || c == '.' => self.number(),
            c if c.is_ascii_alphabetic() => {
                let start = self.pos;
                while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                    self.pos += 1;
                }
                let word: String = self.chars[start..self.pos].iter().collect();
                match word.as_str() {
                    "True" | "true" => Some(Value::Bool(true)),
                    "False" | "false" => Some(Value::Bool(false)),
                    "None" | "null" => Some(Value::Null),
                    "inf" | "nan" => Some(Value::Null),
                    prefix
                        if prefix.len() <= 2
                            && prefix.chars().all(|c| "bBrRuU".contains(c))
                            && matches!(self.peek(), Some('\'' | '"')) =>
                    {
                        let raw = prefix.contains(['r', 'R']);
                        self.string_body(raw).map(Value::String)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn dict(&mut self, depth: usize) -> Option<Value> {
        self.pos += 1; // {
        let mut map = Map::new();
        loop {
            if self.eat('}') {
                return Some(Value::Object(map));
            }
            let key = match self.value(depth + 1)? {
                Value::String(s) => s,
                Value::Number(n) => n.to_string(),
                Value::Bool(b) => if b { "True" } else { "False" }.to_string(),
                Value::Null => "None".to_string(),
                _ => return None,
            };
            if !self.eat(':') {
                return None;
            }
            let value = self.value(depth + 1)?;
            map.insert(key, value);
            if !self.eat(',') {
                return self.eat('}').then_some(Value::Object(map));
            }
        }
    }

    fn seq(&mut self, close: char, depth: usize) -> Option<Value> {
        self.pos += 1; // [ or (
        let mut items = Vec::new();
        loop {
            if self.eat(close) {
                return Some(Value::Array(items));
            }
            items.push(self.value(depth + 1)?);
            if !self.eat(',') {
                return self.eat(close).then_some(Value::Array(items));
            }
        }
    }

    fn string(&mut self) -> Option<String> {
        self.string_body(false)
    }

    fn string_body(&mut self, raw: bool) -> Option<String> {
        let quote = self.bump()?;
        let mut out = String::new();
        loop {
            let c = self.bump()?;
            if c == quote {
                return Some(out);
            }
            if c != '\\' {
                out.push(c);
                continue;
            }
            let e = self.bump()?;
            if raw {
                out.push('\\');
                out.push(e);
                continue;
            }
            match e {
                '\n' => {}
                '\\' | '\'' | '"' => out.push(e),
                'n' => out.push('\n'),
                'r' => out.push('\r'),
                't' => out.push('\t'),
                'a' => out.push('\u{7}'),
                'b' => out.push('\u{8}'),
                'f' => out.push('\u{c}'),
                'v' => out.push('\u{b}'),
                'x' => out.push(self.hex(2)?),
                'u' => out.push(self.hex(4)?),
                'U' => out.push(self.hex(8)?),
                '0'..='7' => {
                    let mut n = e.to_digit(8)?;
                    for _ in 0..2 {
                        match self.peek().and_then(|c| c.to_digit(8)) {
                            Some(d) => {
                                n = n * 8 + d;
                                self.pos += 1;
                            }
                            None => break,
                        }
                    }
                    out.push(char::from_u32(n).unwrap_or('\u{fffd}'));
                }
                other => {
                    // Python keeps unknown escapes verbatim.
                    out.push('\\');
                    out.push(other);
                }
            }
        }
    }

    /// `n` hex digits as a character; a lone surrogate (`'\ud800'`) becomes U+FFFD.
    fn hex(&mut self, n: usize) -> Option<char> {
        let mut code = 0u32;
        for _ in 0..n {
            code = code * 16 + self.bump()?.to_digit(16)?;
        }
        Some(char::from_u32(code).unwrap_or('\u{fffd}'))
    }

    fn number(&mut self) -> Option<Value> {
        let start = self.pos;
        if matches!(self.peek(), Some('-' | '+')) {
            self.pos += 1;
        }
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_')
        {
            // An exponent sign belongs to the number.
            if matches!(self.peek(), Some('e' | 'E'))
                && matches!(self.chars.get(self.pos + 1), Some('-' | '+'))
            {
                self.pos += 1;
            }
            self.pos += 1;
        }
        let text: String = self.chars[start..self.pos]
            .iter()
            .filter(|c| **c != '_')
            .collect();
        let unsigned = text.trim_start_matches(['-', '+']);
        if unsigned == "inf" || unsigned == "nan" {
            return Some(Value::Null);
        }
        if let Ok(i) = text.parse::<i64>() {
            return Some(Value::from(i));
        }
        if let Ok(u) = text.trim_start_matches('+').parse::<u64>() {
            return Some(Value::from(u));
        }
        let f = text.parse::<f64>().ok()?;
        Some(Number::from_f64(f).map_or(Value::Null, Value::Number))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn python_reprs_parse() {
        let cases = [
            (
                r#"{'a': True, 'b': None, 'c': [1, 2.5, -3], 'd': (1,), "e": 'it\'s'}"#,
                json!({"a": true, "b": null, "c": [1, 2.5, -3], "d": [1], "e": "it's"}),
            ),
            (
                r"{'s': '\x00\t\u00e9\U0001f600\\', 'b': b'raw', 'r': r'\d'}",
                json!({"s": "\u{0}\t\u{e9}\u{1f600}\\", "b": "raw", "r": "\\d"}),
            ),
            (
                r#"{"json": true, "n": null, "big": 123456789012345678901234567890, "e": 1e-3, "f": 1_000}"#,
                json!({"json": true, "n": null, "big": 1.2345678901234568e29, "e": 0.001, "f": 1000}),
            ),
            ("[]", json!([])),
            ("{1: 'x', 'y': inf}", json!({"1": "x", "y": null})),
        ];
        for (text, want) in cases {
            assert_eq!(parse(text), Some(want), "{text}");
        }
        for bad in [
            "{'a': Decimal('1')}",
            "{'a': 1",
            "{'a' 1}",
            "'unterminated",
            "[1,,2]",
            "{} extra",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
        let deep = "[".repeat(500) + &"]".repeat(500);
        assert_eq!(parse(&deep), None, "nesting is bounded");
    }
}
