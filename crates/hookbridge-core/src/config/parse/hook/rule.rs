//! A `matcher` hook of the seed dialect: its `match` (`tool`, `args.<field>` globs) compiled, and
//! its `action` and `message`, into a [`RuleHook`] decided in process.

use serde_json::Value;

use crate::config::model::*;
use crate::diagnostics::Diagnostic;

use super::{HookFields, HookKey, Reader};

impl Reader<'_> {
    pub(super) fn rule_kind(&mut self, f: &mut HookFields, at: usize, usable: &mut bool) -> Option<HookKind> {
        let matched = self.take(usable, "match", f.match_.take());
        let match_at = f.seen_at[HookKey::Match as usize].unwrap_or(at);
        let action = self.take_required(usable, "action", f.action.take(), at);
        let message = self.take(usable, "message", f.message.take());
        let rule = self.rule(matched, match_at, usable);
        let (Some(rule), Some((action, _)), true) = (rule, action, *usable) else {
            return None;
        };
        let action = crate::seed::RuleAction::parse(action).expect("read as one of its words");
        Some(HookKind::Rule(RuleHook {
            label: format!("{} → {}", rule.describe(), action.as_str()),
            rule,
            action,
            message,
        }))
    }
    /// A rule hook's `match` (`tool`, `args.<field>` globs), compiled; each problem reported.
    fn rule(&mut self, matched: Option<Value>, at: usize, usable: &mut bool) -> Option<crate::seed::Rule> {
        let fail = |reader: &mut Self, usable: &mut bool, key: &str, message: String| {
            let d = Diagnostic::error(format!("{message}; this hook is skipped"));
            reader.report_field(d, at, key);
            *usable = false;
        };
        let object = match matched {
            None => serde_json::Map::new(),
            Some(Value::Object(o)) => o,
            Some(other) => {
                fail(
                    self,
                    &mut *usable,
                    "match",
                    format!("`match` must be a mapping (`tool`, `args`), found {other}"),
                );
                return None;
            }
        };
        let mut tool = None;
        let mut args = Vec::new();
        for (key, value) in &object {
            match (key.as_str(), value) {
                ("tool", Value::String(t)) => tool = Some(t.clone()),
                ("args", Value::Object(fields)) => {
                    for (field, glob) in fields {
                        match glob {
                            Value::String(g) => args.push((field.clone(), g.clone())),
                            Value::Bool(_) | Value::Number(_) => args.push((field.clone(), glob.to_string())),
                            other => fail(
                                self,
                                &mut *usable,
                                &format!("match.args.{field}"),
                                format!("`match.args.{field}` must be a glob (a string), found {other}"),
                            ),
                        }
                    }
                }
                ("tool" | "args", other) => fail(
                    self,
                    &mut *usable,
                    &format!("match.{key}"),
                    format!(
                        "`match.{key}` must be {}, found {other}",
                        if key == "tool" {
                            "a glob (a string)"
                        } else {
                            "a mapping of field to glob"
                        }
                    ),
                ),
                (other, _) => {
                    let hint = self.hint(other, ["tool", "args"]);
                    let d = Diagnostic::warning(format!(
                        "unknown key `{other}` in `match` (it has `tool` and `args`); ignored{hint}"
                    ));
                    self.report_field(d, at, &format!("match.{other}"));
                }
            }
        }
        if !*usable {
            return None;
        }
        match crate::seed::Rule::compile(tool.as_deref(), &args) {
            Ok(rule) => Some(rule),
            Err(e) => {
                let key = format!("match.{}", e.key);
                fail(self, &mut *usable, &key, e.to_string());
                None
            }
        }
    }
}
