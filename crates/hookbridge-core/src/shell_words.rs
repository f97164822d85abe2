//! A hook's shell command read as `/bin/sh` reads a *simple command*: leading `NAME=value`
//! assignments, then the words it would pass to `execve`, with quotes, backslashes and `$NAME` /
//! `${NAME}` resolved as the shell resolves them. Anything the shell would do more with (pipes,
//! redirections, lists, globs, `~`, substitutions, comments) is refused with the character that
//! shows it, and so is a variable that is unset, or that the shell would split or glob.
//!
//! One reader for everything that must know what a command runs without running it: whether a
//! Python hook can run warm (the runner), whether a hook's script exists (`validate`), whether a
//! settings entry is hookbridge's own (`install-into`). Being strict is the point: a command this
//! refuses is simply not judged.

use std::ffi::OsString;

/// A command that is one simple command.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SimpleCommand {
    /// Leading `NAME=value` words (the shell sets them in the program's environment), as written
    /// after quote removal.
    pub assignments: Vec<String>,
    /// The program and its arguments.
    pub words: Vec<String>,
}

/// Why a command is not read as a simple command.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotSimple {
    /// Shell syntax beyond a simple command, shown by this character.
    #[error("the command uses shell syntax (`{0}`)")]
    Syntax(char),
    /// A variable that is unset, or that the shell would split or glob (unquoted).
    #[error("the command reads ${0}, which is unset or would be split by the shell")]
    Variable(String),
    /// A variable's value is not UTF-8.
    #[error("a variable the command reads is not UTF-8")]
    NotUtf8,
}

/// Reads `command`, with `lookup` giving a variable's value as the hook's shell would see it.
pub fn simple_command(
    command: &str,
    lookup: &dyn Fn(&str) -> Option<OsString>,
) -> Result<SimpleCommand, NotSimple> {
    let mut words = Vec::new();
    let mut leading_assignments = 0;
    let mut word = String::new();
    let mut in_word = false;
    // Whether every character of the word so far was an unquoted name character: an unquoted
    // `=` after such a prefix makes the word an assignment (when no program word came before).
    let mut plain_name = true;
    let mut assignment = false;
    let mut chars = command.chars().peekable();
    let mut end_word =
        |word: &mut String, in_word: &mut bool, assignment: &mut bool, plain_name: &mut bool| {
            if *in_word {
                if *assignment && words.len() == leading_assignments {
                    leading_assignments += 1;
                }
                words.push(std::mem::take(word));
            }
            *in_word = false;
            *assignment = false;
            *plain_name = true;
        };
    while let Some(c) = chars.next() {
        let name_char = c.is_ascii_alphanumeric() || c == '_';
        if !name_char && c != '=' {
            plain_name = false;
        }
        match c {
            ' ' | '\t' => end_word(&mut word, &mut in_word, &mut assignment, &mut plain_name),
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(NotSimple::Syntax('\'')),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('$' | '`' | '"' | '\\')) => word.push(c),
                            Some('\n') => {}
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(NotSimple::Syntax('\\')),
                        },
                        Some('$') => word.push_str(&expand(&mut chars, lookup, true)?),
                        Some('`') => return Err(NotSimple::Syntax('`')),
                        Some(c) => word.push(c),
                        None => return Err(NotSimple::Syntax('"')),
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') => {}
                Some(c) => {
                    plain_name = false;
                    in_word = true;
                    word.push(c);
                }
                None => return Err(NotSimple::Syntax('\\')),
            },
            '$' => {
                in_word = true;
                word.push_str(&expand(&mut chars, lookup, false)?);
            }
            '=' => {
                if plain_name && in_word && !assignment && !word.starts_with(|c: char| c.is_ascii_digit()) {
                    assignment = true;
                }
                plain_name = false;
                in_word = true;
                word.push(c);
            }
            '#' | '~' if !in_word => return Err(NotSimple::Syntax(c)),
            '|' | '&' | ';' | '<' | '>' | '(' | ')' | '`' | '*' | '?' | '[' | ']' | '{' | '}' | '\n'
            | '!' => return Err(NotSimple::Syntax(c)),
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    end_word(&mut word, &mut in_word, &mut assignment, &mut plain_name);
    let program = words.split_off(leading_assignments);
    Ok(SimpleCommand {
        assignments: words,
        words: program,
    })
}

/// The value of `$NAME` or `${NAME}` (the `$` already read). Unquoted, a value the shell would
/// split or glob, or an unset variable, is refused.
fn expand(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    lookup: &dyn Fn(&str) -> Option<OsString>,
    quoted: bool,
) -> Result<String, NotSimple> {
    let braced = chars.next_if_eq(&'{').is_some();
    let mut name = String::new();
    while let Some(c) = chars.next_if(|&c| {
        if name.is_empty() {
            c.is_ascii_alphabetic() || c == '_'
        } else {
            c.is_ascii_alphanumeric() || c == '_'
        }
    }) {
        name.push(c);
    }
    if name.is_empty() || (braced && chars.next() != Some('}')) {
        return Err(NotSimple::Syntax('$'));
    }
    let value = lookup(&name).ok_or_else(|| NotSimple::Variable(name.clone()))?;
    let value = value.into_string().map_err(|_| NotSimple::NotUtf8)?;
    let splits_or_globs = value
        .chars()
        .any(|c| c.is_whitespace() || matches!(c, '*' | '?' | '[' | ']'));
    if !quoted && (value.is_empty() || splits_or_globs) {
        return Err(NotSimple::Variable(name));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(command: &str) -> Result<SimpleCommand, NotSimple> {
        simple_command(command, &|name| match name {
            "ROOT" => Some("/plugins/my plugin".into()),
            "DIR" => Some("/project".into()),
            _ => None,
        })
    }

    fn words(command: &str) -> Result<Vec<String>, NotSimple> {
        read(command).map(|c| {
            assert!(c.assignments.is_empty(), "{command}: {c:?}");
            c.words
        })
    }

    #[test]
    fn simple_commands_are_read_as_the_shell_reads_them() {
        let ok = [
            ("python3 hook.py", vec!["python3", "hook.py"]),
            ("  python3   'a b.py'  x ", vec!["python3", "a b.py", "x"]),
            (
                "python3 \"${ROOT}/hook.py\" --flag",
                vec!["python3", "/plugins/my plugin/hook.py", "--flag"],
            ),
            ("python3 $DIR/h.py", vec!["python3", "/project/h.py"]),
            ("python3 \"$DIR\"/h\\ x.py", vec!["python3", "/project/h x.py"]),
            ("python3 \"a\\\"b\\$c\"", vec!["python3", "a\"b$c"]),
            ("python3 h.py a#b", vec!["python3", "h.py", "a#b"]),
            (
                "python3 h.py --level=3 A=1",
                vec!["python3", "h.py", "--level=3", "A=1"],
            ),
            ("'A=1' python3", vec!["A=1", "python3"]),
            ("A\\=1 python3", vec!["A=1", "python3"]),
            ("1A=1 python3", vec!["1A=1", "python3"]),
            ("", vec![]),
        ];
        for (command, expected) in ok {
            assert_eq!(words(command).unwrap(), expected, "{command}");
        }
    }

    #[test]
    fn leading_assignments_are_told_from_the_words() {
        let command = read("A=1 B_2=\"$DIR/x\" python3 h.py C=3").unwrap();
        assert_eq!(command.assignments, ["A=1", "B_2=/project/x"]);
        assert_eq!(command.words, ["python3", "h.py", "C=3"]);
        let only = read("A=1").unwrap();
        assert_eq!(only.assignments, ["A=1"]);
        assert!(only.words.is_empty());
    }

    #[test]
    fn anything_more_than_a_simple_command_is_refused() {
        let refused = [
            ("python3 h.py | jq .", NotSimple::Syntax('|')),
            ("python3 h.py > out", NotSimple::Syntax('>')),
            ("python3 h.py; echo", NotSimple::Syntax(';')),
            ("python3 h.py && x", NotSimple::Syntax('&')),
            ("python3 *.py", NotSimple::Syntax('*')),
            ("python3 ~/h.py", NotSimple::Syntax('~')),
            ("python3 h.py # note", NotSimple::Syntax('#')),
            ("python3 $(pwd)/h.py", NotSimple::Syntax('$')),
            ("python3 `pwd`/h.py", NotSimple::Syntax('`')),
            ("python3 $ROOT/h.py", NotSimple::Variable("ROOT".into())),
            ("python3 \"$UNSET/h.py\"", NotSimple::Variable("UNSET".into())),
            ("python3 'open", NotSimple::Syntax('\'')),
            ("python3 h.py\\", NotSimple::Syntax('\\')),
        ];
        for (command, why) in refused {
            assert_eq!(read(command).unwrap_err(), why, "{command}");
        }
    }
}
