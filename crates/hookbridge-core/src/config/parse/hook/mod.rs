//! Reading one hook object: every field a hook of some type may have is read as the type it has
//! there, before the hook's `type` is known (JSON objects are unordered, and `type` may come last);
//! then the fields the type uses are checked — each wrong one reported on its own position — and
//! the hook is built, or dropped with every reason it could not be.
//!
//! This file reads the fields every hook may have (the [`HookKey`] table), its `type` and the fields
//! all types share; each family of hook reads its own fields into its model in a file of its own:
//! `command.rs`, `prompt.rs` (prompt and agent hooks), `http.rs`, `mcp.rs`, and the seed dialect's
//! `rule.rs` (`matcher`) and `llm.rs`.

use indexmap::IndexMap;
use jiter::Peek;
use serde_json::Value;

use crate::config::condition::Condition;
use crate::config::model::*;
use crate::config::HookType;
use crate::diagnostics::{Diagnostic, Position};
use crate::event::EventName;
use crate::timeout::{Timeout, MAX_TIMEOUT};
use std::time::Duration;

use super::{describe, Reader, Step};

mod command;
mod http;
mod llm;
mod mcp;
mod prompt;
mod rule;

use command::sandbox_of;

impl Reader<'_> {
    /// One hook (the key path names it); `None` when it is dropped (the reason is reported).
    pub(super) fn hook(
        &mut self,
        event: &EventName,
        peek: Peek,
        at: usize,
        id: HookId,
    ) -> Step<Option<HookSpec>> {
        if !self.count_entry(at) {
            self.json.known_skip(peek)?;
            return Ok(None);
        }
        if peek != Peek::Object {
            self.wrong_container(peek, at, "a hook", "an object")?;
            return Ok(None);
        }
        // Positions are counted forward through the text: the hook's own before its fields'.
        let position = self.lines.position(at);
        let fields = self.hook_fields()?;
        Ok(self.build_hook(event, fields, at, position, id))
    }

    /// Every field of a hook object, each read as the type it has for the hook types that use it.
    fn hook_fields(&mut self) -> Step<HookFields> {
        let mut f = HookFields::default();
        let mut key = self.json.known_object()?.map(HookKey::of);
        while let Some(hook_key) = key {
            let (peek, at) = self.next_value()?;
            let hook_key = match hook_key {
                Ok(hook_key) => hook_key,
                Err(unknown) => {
                    f.unknown.push((unknown, at));
                    self.json.known_skip(peek)?;
                    key = self.json.next_key()?.map(HookKey::of);
                    continue;
                }
            };
            let name = hook_key.name();
            if f.seen_at[hook_key as usize].replace(at).is_some() {
                // As for an event written twice in `hooks`: JSON.parse keeps the later value, and
                // a YAML file is read the same way; a guard whose `action: block` is followed by
                // `action: allow` must not change silently.
                let d = Diagnostic::warning(format!(
                    "`{name}` is written twice in this hook; the later one is used (as by JSON.parse in Claude Code)"
                ));
                self.report_field(d, at, name);
            }
            match hook_key {
                HookKey::Type => f.type_name = Some(self.string(name, peek, at)?),
                HookKey::Timeout => f.timeout = Some(self.seconds(name, peek, at)?),
                HookKey::If => f.condition = Some(self.string(name, peek, at)?),
                HookKey::StatusMessage => f.status_message = Some(self.string(name, peek, at)?),
                HookKey::Once => f.once = Some(self.boolean(name, peek, at)?),
                HookKey::OnFailure => {
                    f.on_failure = Some(self.word(name, peek, at, &["block", "continue", "ignore"])?)
                }
                HookKey::OnFailureSeed => {
                    f.on_failure_seed = Some(self.word(name, peek, at, &["warn", "block", "ignore"])?)
                }
                HookKey::TimeoutMs => f.timeout_ms = Some(self.milliseconds(name, peek, at)?),
                HookKey::Match => f.match_ = Some(self.any(name, peek, at)?),
                HookKey::Action => {
                    f.action = Some(self.word(name, peek, at, crate::seed::RuleAction::WORDS)?)
                }
                HookKey::Message => f.message = Some(self.string(name, peek, at)?),
                HookKey::MaxTokens => f.max_tokens = Some(self.count(name, peek, at)?),
                HookKey::Cache => f.cache = Some(self.boolean(name, peek, at)?),
                HookKey::Command => f.command = Some(self.string(name, peek, at)?),
                HookKey::Args => f.args = Some(self.strings(name, peek, at)?),
                HookKey::Shell => f.shell = Some(self.word(name, peek, at, &["bash", "sh", "powershell"])?),
                HookKey::Async => f.run_async = Some(self.boolean(name, peek, at)?),
                HookKey::AsyncRewake => f.async_rewake = Some(self.boolean(name, peek, at)?),
                HookKey::Warm => f.warm = Some(self.boolean(name, peek, at)?),
                HookKey::Sandbox => f.sandbox = Some(self.sandbox(name, peek, at)?),
                HookKey::Answers => {
                    f.answers = Some(self.word(name, peek, at, crate::decision::foreign::AnswersAs::WORDS)?)
                }
                HookKey::Prompt => f.prompt = Some(self.string(name, peek, at)?),
                HookKey::Model => f.model = Some(self.string(name, peek, at)?),
                HookKey::ContinueOnBlock => f.continue_on_block = Some(self.boolean(name, peek, at)?),
                HookKey::Url => f.url = Some(self.string(name, peek, at)?),
                HookKey::Headers => f.headers = Some(self.string_map(name, peek, at)?),
                HookKey::AllowedEnvVars => f.allowed_env_vars = Some(self.strings(name, peek, at)?),
                HookKey::Server => f.server = Some(self.string(name, peek, at)?),
                HookKey::Tool => f.tool = Some(self.string(name, peek, at)?),
                HookKey::Input => f.input = Some(self.any(name, peek, at)?),
                HookKey::RewakeMessage | HookKey::RewakeSummary | HookKey::HoldsTools => {
                    self.json.known_skip(peek)?
                }
            }
            key = self.json.next_key()?.map(HookKey::of);
        }
        Ok(f)
    }

    /// A string field (`null` counts as absent).
    fn string(&mut self, name: &str, peek: Peek, at: usize) -> Step<Slot<String>> {
        let value = match peek {
            Peek::String => Ok(Some(self.json.known_str()?.to_string())),
            Peek::Null => self.json.known_null().map(|()| Ok(None))?,
            _ => Err(self.skip_wrong(peek, name, "a string")?),
        };
        Ok(Slot { value, at })
    }

    /// One of a few words (`"block"`, `"continue"`, …).
    fn word(
        &mut self,
        name: &str,
        peek: Peek,
        at: usize,
        words: &[&'static str],
    ) -> Step<Slot<&'static str>> {
        let expected = || {
            words
                .iter()
                .map(|w| format!("\"{w}\""))
                .collect::<Vec<_>>()
                .join(" or ")
        };
        let value = match peek {
            Peek::String => {
                let text = self.json.known_str()?;
                match words.iter().find(|w| **w == text) {
                    Some(word) => Ok(Some(*word)),
                    None => Err(format!("`{name}` must be {}, found \"{text}\"", expected())),
                }
            }
            Peek::Null => self.json.known_null().map(|()| Ok(None))?,
            _ => Err(self.skip_wrong(peek, name, &expected())?),
        };
        Ok(Slot { value, at })
    }

    fn boolean(&mut self, name: &str, peek: Peek, at: usize) -> Step<Slot<bool>> {
        let value = match peek {
            Peek::True | Peek::False => Ok(Some(self.json.known_bool(peek)?)),
            Peek::Null => self.json.known_null().map(|()| Ok(None))?,
            _ => Err(self.skip_wrong(peek, name, "true or false")?),
        };
        Ok(Slot { value, at })
    }

    /// `timeout`: a positive number of seconds, read into a capped `Duration` (a value past the
    /// cap is warned about and capped, never carried on as a float).
    fn seconds(&mut self, name: &str, peek: Peek, at: usize) -> Step<Slot<Duration>> {
        let value = if peek.is_num() {
            let v = self.json.known_float(peek)?;
            match Timeout::from_secs(v) {
                Ok(timeout) => {
                    if timeout.capped {
                        let d = Diagnostic::warning(format!(
                            "`{name}` of {v} seconds is longer than hookbridge's longest timeout; {} seconds (24.8 days) applies",
                            MAX_TIMEOUT.as_secs_f64()
                        ));
                        self.report_field(d, at, name);
                    }
                    Ok(Some(timeout.duration))
                }
                Err(e) => Err(format!("`{name}` {e}")),
            }
        } else if peek == Peek::Null {
            self.json.known_null()?;
            Ok(None)
        } else {
            Err(self.skip_wrong(peek, name, "a positive number of seconds")?)
        };
        Ok(Slot { value, at })
    }

    /// `timeout_ms` (the seed's): a positive number of milliseconds, capped as `timeout` is.
    fn milliseconds(&mut self, name: &str, peek: Peek, at: usize) -> Step<Slot<Duration>> {
        let value = if peek.is_num() {
            let v = self.json.known_float(peek)?;
            match Timeout::from_secs(v / 1000.0) {
                Ok(timeout) => Ok(Some(timeout.duration)),
                Err(_) => Err(format!(
                    "`{name}` must be a positive number of milliseconds, found {v}"
                )),
            }
        } else if peek == Peek::Null {
            self.json.known_null()?;
            Ok(None)
        } else {
            Err(self.skip_wrong(peek, name, "a positive number of milliseconds")?)
        };
        Ok(Slot { value, at })
    }

    /// A positive whole number (`max_tokens`).
    fn count(&mut self, name: &str, peek: Peek, at: usize) -> Step<Slot<u32>> {
        let value = if peek.is_num() {
            let v = self.json.known_float(peek)?;
            if v >= 1.0 && v.fract() == 0.0 && v <= f64::from(u32::MAX) {
                Ok(Some(v as u32))
            } else {
                Err(format!("`{name}` must be a positive whole number, found {v}"))
            }
        } else if peek == Peek::Null {
            self.json.known_null()?;
            Ok(None)
        } else {
            Err(self.skip_wrong(peek, name, "a positive whole number")?)
        };
        Ok(Slot { value, at })
    }

    /// A list of strings (`args`, `allowedEnvVars`).
    pub(super) fn strings(&mut self, name: &str, peek: Peek, at: usize) -> Step<Slot<Vec<String>>> {
        let value = match peek {
            Peek::Array => {
                let mut list = Vec::new();
                let mut wrong = None;
                let mut next = self.json.known_array()?;
                while let Some(peek) = next {
                    if peek == Peek::String {
                        list.push(self.json.known_str()?.to_string());
                    } else {
                        let found = describe(peek);
                        wrong.get_or_insert_with(|| {
                            format!(
                                "`{name}` must be a list of strings, found {found} at [{}]",
                                list.len()
                            )
                        });
                        self.json.known_skip(peek)?;
                    }
                    next = self.json.array_step()?;
                }
                wrong.map_or(Ok(Some(list)), Err)
            }
            Peek::Null => self.json.known_null().map(|()| Ok(None))?,
            _ => Err(self.skip_wrong(peek, name, "a list of strings")?),
        };
        Ok(Slot { value, at })
    }

    /// An object of strings (`headers`).
    fn string_map(&mut self, name: &str, peek: Peek, at: usize) -> Step<Slot<IndexMap<String, String>>> {
        let value = match peek {
            Peek::Object => {
                let mut map = IndexMap::new();
                let mut wrong = None;
                let mut key = self.json.known_object()?.map(str::to_string);
                while let Some(k) = key {
                    let peek = self.json.peek()?;
                    if peek == Peek::String {
                        let v = self.json.known_str()?.to_string();
                        map.insert(k, v);
                    } else {
                        let found = describe(peek);
                        wrong.get_or_insert_with(|| {
                            format!("`{name}` must be an object of strings, found {found} at `{k}`")
                        });
                        self.json.known_skip(peek)?;
                    }
                    key = self.json.next_key()?.map(str::to_string);
                }
                wrong.map_or(Ok(Some(map)), Err)
            }
            Peek::Null => self.json.known_null().map(|()| Ok(None))?,
            _ => Err(self.skip_wrong(peek, name, "an object of strings")?),
        };
        Ok(Slot { value, at })
    }

    /// Any JSON value (`input` of an MCP tool hook).
    fn any(&mut self, name: &str, peek: Peek, at: usize) -> Step<Slot<Value>> {
        self.json.known_skip(peek)?;
        let raw = self.json.slice_to_current(at);
        // The slice was just checked by the skip; reading it again cannot fail but for limits
        // serde_json has and jiter has not (nesting), which are reported like a wrong type.
        let value = serde_json::from_slice::<Value>(raw)
            .map(|v| if v.is_null() { None } else { Some(v) })
            .map_err(|e| format!("`{name}` cannot be read: {e}"));
        Ok(Slot { value, at })
    }

    /// `sandbox`: `true` (the default sandbox), `false` (none) or an object refining it.
    fn sandbox(&mut self, name: &str, peek: Peek, at: usize) -> Step<Slot<Option<Sandbox>>> {
        let Slot { value, at } = self.any(name, peek, at)?;
        let value = value.and_then(|v| match v {
            None => Ok(None),
            Some(v) => sandbox_of(&v).map(Some),
        });
        Ok(Slot { value, at })
    }

    /// Step over a value of the wrong type; the message says what was expected and found.
    fn skip_wrong(&mut self, peek: Peek, name: &str, expected: &str) -> Step<String> {
        self.json.known_skip(peek)?;
        Ok(format!("`{name}` must be {expected}, found {}", describe(peek)))
    }

    /// A field this hook's type uses: its value, or `None` when absent or `null`. A wrong value
    /// is reported and clears `usable`.
    fn take<T>(&mut self, usable: &mut bool, name: &str, slot: Option<Slot<T>>) -> Option<T> {
        let slot = slot?;
        match slot.value {
            Ok(value) => value,
            Err(message) => {
                let d = Diagnostic::error(format!("{message}; this hook is skipped"));
                self.report_field(d, slot.at, name);
                *usable = false;
                None
            }
        }
    }

    /// A field this hook's type needs, with where it is; missing, `null` or wrong, it is reported
    /// and clears `usable`.
    fn take_required<T>(
        &mut self,
        usable: &mut bool,
        name: &str,
        slot: Option<Slot<T>>,
        hook_at: usize,
    ) -> Option<(T, usize)> {
        let Some(slot) = slot else {
            let d = Diagnostic::error(format!("missing field `{name}`; this hook is skipped"));
            self.report_here(d, hook_at);
            *usable = false;
            return None;
        };
        let at = slot.at;
        match self.take(usable, name, Some(slot)) {
            Some(value) => Some((value, at)),
            None if *usable => {
                let d = Diagnostic::error(format!(
                    "`{name}` must be a string, found null; this hook is skipped"
                ));
                self.report_field(d, at, name);
                *usable = false;
                None
            }
            None => None,
        }
    }

    /// Turn the fields of the hook at offset `at` (line and column `position`) into a hook spec,
    /// reporting every reason it cannot be one.
    fn build_hook(
        &mut self,
        event: &EventName,
        mut f: HookFields,
        at: usize,
        position: Position,
        id: HookId,
    ) -> Option<HookSpec> {
        let typed = self.hook_type(&mut f, at)?;
        self.warn_of_foreign_keys(&f, &typed);
        // Every field this type uses is checked, and every wrong one reported, before the hook is
        // dropped for any of them.
        let mut usable = true;
        let common = self.common_fields(&mut f, at, &mut usable);
        let kind = match typed.family {
            Family::Command => self.command_kind(&mut f, at, &mut usable),
            Family::Prompt => self.prompt_kind(&mut f, at, &mut usable, event, &typed),
            Family::Http => self.http_kind(&mut f, at, &mut usable),
            Family::Rule => self.rule_kind(&mut f, at, &mut usable),
            Family::Llm => self.llm_kind(&mut f, at, &mut usable, event, &typed),
            Family::Mcp => self.mcp_kind(&mut f, at, &mut usable),
        }?;
        if !usable {
            return None;
        }
        let condition = self.condition(common.condition, event)?;
        Some(HookSpec {
            id,
            kind,
            timeout: common.timeout,
            condition,
            status_message: common.status_message,
            once: common.once,
            on_failure: common.on_failure,
            source: self.source.clone(),
            key: self.key.0.clone(),
            position,
            seed_event: self.seed_event.clone(),
            disabled: None,
            held: None,
        })
    }

    /// The hook's `type` and the family of fields it has; `None` (reported) without a known one.
    fn hook_type(&mut self, f: &mut HookFields, at: usize) -> Option<TypeOf> {
        let (name, type_at) = match f.type_name.take() {
            None => {
                self.report_here(
                    Diagnostic::error(format!(
                        "a hook needs a `type` ({}); this hook is skipped",
                        HookType::expected()
                    )),
                    at,
                );
                return None;
            }
            Some(Slot {
                value: Ok(Some(name)),
                at,
            }) => (name, at),
            Some(Slot { at, .. }) => {
                let d = Diagnostic::error("`type` must be a string; this hook is skipped");
                self.report_field(d, at, "type");
                return None;
            }
        };
        let Some(hook_type) = HookType::from_name(&name) else {
            let hint = self.hint(&name, HookType::ALL.map(HookType::name));
            let d = Diagnostic::error(format!(
                "unknown hook type `{name}`{hint} (expected {}); this hook is skipped",
                HookType::expected()
            ));
            self.report_field(d, type_at, "type");
            return None;
        };
        Some(TypeOf {
            hook_type,
            at: type_at,
            family: Family::of(hook_type),
        })
    }

    /// A warning for each key another type of hook has, or no type has.
    fn warn_of_foreign_keys(&mut self, f: &HookFields, typed: &TypeOf) {
        let family = typed.family;
        let foreign = HookKey::ALL.iter().filter_map(|(name, key)| {
            let at = f.seen_at[*key as usize]?;
            (!key.used_by(family)).then_some((*name, at))
        });
        let unknown = f.unknown.iter().map(|(name, at)| (name.as_str(), *at));
        for (name, key_at) in foreign.chain(unknown) {
            let own_keys = HookKey::ALL
                .iter()
                .filter(|(_, key)| key.used_by(family))
                .map(|(name, _)| *name);
            let hint = self.hint(name, own_keys);
            let d = Diagnostic::warning(format!(
                "unknown key `{name}` for a {} hook; ignored{hint}",
                typed.hook_type
            ));
            self.report_field(d, key_at, name);
        }
    }

    /// The fields every type of hook has.
    fn common_fields(&mut self, f: &mut HookFields, at: usize, usable: &mut bool) -> CommonFields {
        let timeout_at = f.timeout.as_ref().map(|slot| slot.at);
        let timeout_ms_at = f.timeout_ms.as_ref().map(|slot| slot.at);
        let timeout = self.take(usable, "timeout", f.timeout.take());
        let timeout_ms = self.take(usable, "timeout_ms", f.timeout_ms.take());
        let timeout = self.timeout_in_its_unit(timeout, timeout_at, timeout_ms, timeout_ms_at);
        let condition_at = f.condition.as_ref().map_or(at, |slot| slot.at);
        let condition_text = self.take(usable, "if", f.condition.take());
        let status_message = self.take(usable, "statusMessage", f.status_message.take());
        let once = self.take(usable, "once", f.once.take()).unwrap_or(false);
        let on_failure_at = f.on_failure.as_ref().map(|slot| slot.at);
        let claude_word = self.take(usable, "onFailure", f.on_failure.take());
        let seed_word = self.take(usable, "on_failure", f.on_failure_seed.take());
        if let (Some(_), Some(_), Some(at)) = (claude_word, seed_word, on_failure_at) {
            let d = Diagnostic::warning("both `onFailure` and `on_failure` are set; `on_failure` is used");
            self.report_field(d, at, "onFailure");
        }
        let on_failure = match seed_word.or(claude_word) {
            Some("block") => OnFailure::Block,
            Some("ignore") => OnFailure::Ignore,
            _ => OnFailure::Continue,
        };
        CommonFields {
            timeout,
            condition: condition_text.map(|text| (text, condition_at)),
            status_message,
            once,
            on_failure,
        }
    }

    /// A model-judged hook on an event that runs none: Claude Code blocks instead, and so does
    /// hookbridge; the user is told when the file is read.
    fn warn_if_judges_never_run(&mut self, event: &EventName, typed: &TypeOf) {
        if !event.traits().runs_judge_hooks {
            let d = Diagnostic::warning(format!(
                "a {} hook never runs on {event}: Claude Code blocks every command it would judge (\"{}\"), and so does hookbridge",
                typed.hook_type,
                event.judges_not_run()
            ));
            self.report_field(d, typed.at, "type");
        }
    }

    /// The hook's `if`, parsed: `Some(None)` without one, `None` (reported) when it cannot be.
    fn condition(
        &mut self,
        written: Option<(String, usize)>,
        event: &EventName,
    ) -> Option<Option<Condition>> {
        let Some((text, condition_at)) = written else {
            return Some(None);
        };
        match Condition::parse(&text) {
            Ok(c) => {
                if !event.traits().is_tool_event {
                    let d = Diagnostic::warning(format!(
                        "`if` applies only to tool events; on {event} Claude Code never runs this hook, and neither does hookbridge"
                    ));
                    self.report_field(d, condition_at, "if");
                }
                Some(Some(c))
            }
            Err(e) => {
                let d = Diagnostic::error(format!("{e}; this hook is skipped"));
                self.report_field(d, condition_at, "if");
                None
            }
        }
    }

    /// The timeout from `timeout` (seconds) or `timeout_ms`, with a warning where the number looks
    /// written in the other unit: `timeout: 5000` is 83 minutes, `timeout_ms: 5` five milliseconds.
    fn timeout_in_its_unit(
        &mut self,
        seconds: Option<Duration>,
        seconds_at: Option<usize>,
        millis: Option<Duration>,
        millis_at: Option<usize>,
    ) -> Option<Duration> {
        if let (Some(s), Some(at)) = (seconds, seconds_at) {
            if s >= Duration::from_secs(1000) && millis.is_none() {
                let d = Diagnostic::warning(format!(
                    "`timeout` is in seconds: {} s is {:.0} minutes; for milliseconds write `timeout_ms`",
                    s.as_secs_f64(),
                    s.as_secs_f64() / 60.0
                ));
                self.report_field(d, at, "timeout");
            }
        }
        if let (Some(ms), Some(at)) = (millis, millis_at) {
            if ms < Duration::from_millis(100) {
                let d = Diagnostic::warning(format!(
                    "`timeout_ms` is in milliseconds: {} ms is too short for any program to start; for seconds write `timeout`",
                    ms.as_millis()
                ));
                self.report_field(d, at, "timeout_ms");
            }
            if let (Some(_), Some(s_at)) = (seconds, seconds_at) {
                let d = Diagnostic::warning("both `timeout` and `timeout_ms` are set; `timeout_ms` is used");
                self.report_field(d, s_at, "timeout");
            }
        }
        millis.or(seconds)
    }
}

/// A field as read: its value (`None` for `null`) or why it cannot be used, and where it starts.
pub(super) struct Slot<T> {
    pub(super) value: Result<Option<T>, String>,
    pub(super) at: usize,
}

/// A hook's `type`, where it is written, and the family of fields it has.
struct TypeOf {
    hook_type: HookType,
    at: usize,
    family: Family,
}

/// The fields every type of hook has, read.
struct CommonFields {
    timeout: Option<Duration>,
    /// `if` as written, and where.
    condition: Option<(String, usize)>,
    status_message: Option<String>,
    once: bool,
    on_failure: OnFailure,
}

/// Every field a hook object can have, read before its `type` is known (it may come last).
#[derive(Default)]
struct HookFields {
    type_name: Option<Slot<String>>,
    timeout: Option<Slot<Duration>>,
    condition: Option<Slot<String>>,
    status_message: Option<Slot<String>>,
    once: Option<Slot<bool>>,
    on_failure: Option<Slot<&'static str>>,
    on_failure_seed: Option<Slot<&'static str>>,
    timeout_ms: Option<Slot<Duration>>,
    match_: Option<Slot<Value>>,
    action: Option<Slot<&'static str>>,
    message: Option<Slot<String>>,
    max_tokens: Option<Slot<u32>>,
    cache: Option<Slot<bool>>,
    command: Option<Slot<String>>,
    args: Option<Slot<Vec<String>>>,
    shell: Option<Slot<&'static str>>,
    run_async: Option<Slot<bool>>,
    async_rewake: Option<Slot<bool>>,
    warm: Option<Slot<bool>>,
    sandbox: Option<Slot<Option<Sandbox>>>,
    answers: Option<Slot<&'static str>>,
    prompt: Option<Slot<String>>,
    model: Option<Slot<String>>,
    continue_on_block: Option<Slot<bool>>,
    url: Option<Slot<String>>,
    headers: Option<Slot<IndexMap<String, String>>>,
    allowed_env_vars: Option<Slot<Vec<String>>>,
    server: Option<Slot<String>>,
    tool: Option<Slot<String>>,
    input: Option<Slot<Value>>,
    /// Where each known key's value starts, by [`HookKey`] (`rewakeMessage`, `rewakeSummary` and
    /// `holdsTools` are accepted for command hooks and not used: Claude Code 2.1.332 honours
    /// `holdsTools` only in its official security-guidance plugin, case 312).
    seen_at: SeenAt,
    /// Keys no hook type has.
    unknown: Vec<(String, usize)>,
}

/// Where each known key's value starts, by [`HookKey`] (an array longer than `Default` is
/// derived for).
struct SeenAt([Option<usize>; HookKey::ALL.len()]);

impl Default for SeenAt {
    fn default() -> Self {
        SeenAt([None; HookKey::ALL.len()])
    }
}

impl std::ops::Index<usize> for SeenAt {
    type Output = Option<usize>;
    fn index(&self, key: usize) -> &Option<usize> {
        &self.0[key]
    }
}

impl std::ops::IndexMut<usize> for SeenAt {
    fn index_mut(&mut self, key: usize) -> &mut Option<usize> {
        &mut self.0[key]
    }
}

/// The keys hooks of some type have.
#[derive(Clone, Copy)]
enum HookKey {
    Type,
    Timeout,
    If,
    StatusMessage,
    Once,
    OnFailure,
    Command,
    Args,
    Shell,
    Async,
    AsyncRewake,
    RewakeMessage,
    RewakeSummary,
    Prompt,
    Model,
    ContinueOnBlock,
    Url,
    Headers,
    AllowedEnvVars,
    Server,
    Tool,
    Input,
    TimeoutMs,
    OnFailureSeed,
    Match,
    Action,
    Message,
    MaxTokens,
    Cache,
    Warm,
    HoldsTools,
    Sandbox,
    Answers,
}

impl HookKey {
    const ALL: [(&'static str, HookKey); 33] = [
        ("type", HookKey::Type),
        ("timeout", HookKey::Timeout),
        ("if", HookKey::If),
        ("statusMessage", HookKey::StatusMessage),
        ("once", HookKey::Once),
        ("onFailure", HookKey::OnFailure),
        ("command", HookKey::Command),
        ("args", HookKey::Args),
        ("shell", HookKey::Shell),
        ("async", HookKey::Async),
        ("asyncRewake", HookKey::AsyncRewake),
        ("rewakeMessage", HookKey::RewakeMessage),
        ("rewakeSummary", HookKey::RewakeSummary),
        ("prompt", HookKey::Prompt),
        ("model", HookKey::Model),
        ("continueOnBlock", HookKey::ContinueOnBlock),
        ("url", HookKey::Url),
        ("headers", HookKey::Headers),
        ("allowedEnvVars", HookKey::AllowedEnvVars),
        ("server", HookKey::Server),
        ("tool", HookKey::Tool),
        ("input", HookKey::Input),
        ("timeout_ms", HookKey::TimeoutMs),
        ("on_failure", HookKey::OnFailureSeed),
        ("match", HookKey::Match),
        ("action", HookKey::Action),
        ("message", HookKey::Message),
        ("max_tokens", HookKey::MaxTokens),
        ("cache", HookKey::Cache),
        ("warm", HookKey::Warm),
        ("holdsTools", HookKey::HoldsTools),
        ("sandbox", HookKey::Sandbox),
        ("answers", HookKey::Answers),
    ];

    /// The key, or the unknown key's text.
    fn of(key: &str) -> Result<HookKey, String> {
        Self::ALL
            .iter()
            .find(|(name, _)| *name == key)
            .map(|(_, k)| *k)
            .ok_or_else(|| key.to_string())
    }

    fn name(self) -> &'static str {
        Self::ALL[self as usize].0
    }

    /// Whether hooks of `family` have this key (the keys every hook has: all of them).
    fn used_by(self, family: Family) -> bool {
        use HookKey::*;
        match self {
            Type | Timeout | If | StatusMessage | Once | OnFailure | TimeoutMs | OnFailureSeed => true,
            Command | Args | Shell | Async | AsyncRewake | RewakeMessage | RewakeSummary | Warm
            | HoldsTools | Sandbox | Answers => family == Family::Command,
            Prompt | Model => matches!(family, Family::Prompt | Family::Llm),
            ContinueOnBlock => family == Family::Prompt,
            MaxTokens | Cache => family == Family::Llm,
            Url | Headers | AllowedEnvVars => family == Family::Http,
            Server | Tool | Input => family == Family::Mcp,
            Match | Action | Message => family == Family::Rule,
        }
    }

    /// Whether every hook has this key.
    fn is_common(self) -> bool {
        Family::ALL.iter().all(|f| self.used_by(*f))
    }
}

impl HookKey {
    /// The JSON Schema of this key's value, as [`HookParser`] reads it (`null` counts as absent).
    fn value_schema(self) -> serde_json::Value {
        use serde_json::json;
        let text = |description: &str| json!({"type": ["string", "null"], "description": description});
        let flag = |description: &str| json!({"type": ["boolean", "null"], "description": description});
        let strings = |description: &str| json!({"type": ["array", "null"], "items": {"type": "string"}, "description": description});
        match self {
            HookKey::Type => json!({"enum": HookType::ALL.map(HookType::name)}),
            HookKey::Timeout => json!({"type": ["number", "null"], "exclusiveMinimum": 0,
                "description": "Seconds before the hook is stopped (default: the event's, 600 for most)"}),
            HookKey::If => {
                text("A permission rule the tool call must match, e.g. `Bash(git *)` (tool events only)")
            }
            HookKey::StatusMessage => text("Shown while the hook runs"),
            HookKey::Once => flag("Run once per session (honoured by Claude Code only in skill frontmatter)"),
            HookKey::OnFailure => json!({"enum": ["block", "continue", "ignore", null],
                "description": "`block`: a hook that cannot start, crashes, times out or answers garbage blocks; `ignore`: such a failure is only logged"}),
            HookKey::OnFailureSeed => json!({"enum": ["warn", "block", "ignore", null],
                "description": "The seed's spelling: `warn` (go on, say so), `block`, `ignore` (go on, log only)"}),
            HookKey::TimeoutMs => json!({"type": ["number", "null"], "exclusiveMinimum": 0,
                "description": "Milliseconds before the hook is stopped (the seed's unit; wins over `timeout`)"}),
            HookKey::Match => json!({"type": ["object", "null"],
                "properties": {"tool": {"type": "string"}, "args": {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean"]}}},
                "description": "Globs on the tool's name (`tool`) and its arguments (`args.<field>`); `args.path` matches the tool's path field"}),
            HookKey::Action => {
                json!({"enum": ["block", "allow", "ask"], "description": "What a matching call gets"})
            }
            HookKey::Message => text("Shown as the reason of a block or ask"),
            HookKey::MaxTokens => {
                json!({"type": ["integer", "null"], "minimum": 1, "description": "Output tokens for the model's answer"})
            }
            HookKey::Cache => flag("Answer identical requests from an on-disk cache"),
            HookKey::Command => text("Shell command (or, with `args`, the program)"),
            HookKey::Args => strings("Exec form: the program's arguments, no shell"),
            HookKey::Shell => json!({"enum": ["bash", "sh", "powershell", null]}),
            HookKey::Async => flag("Run in the background; its answer cannot change this event"),
            HookKey::AsyncRewake => flag("Async, and an exit 2 wakes the model"),
            HookKey::Warm => flag("`false`: never run this hook in a warm Python service (HOOKBRIDGE_WARM)"),
            HookKey::Sandbox => json!({"type": ["boolean", "object", "null"],
                "properties": {
                    "write": {"type": "array", "items": {"type": "string", "minLength": 1},
                        "description": "More paths the hook may write beneath (`~/` is the home folder; relative: the project's)"},
                    "network": {"type": ["boolean", "array"], "items": {"type": "integer", "minimum": 1, "maximum": 65535},
                        "description": "true: every socket; a list of ports: TCP connections to those ports only, on any address; false (the default): no socket"},
                    "env": {"type": "array", "items": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
                        "description": "Environment variables named as secrets (`*_TOKEN`, `*_API_KEY`, …) that the hook is given all the same; by default it is given none"}},
                "additionalProperties": false,
                "description": "Run the hook in a kernel sandbox (Landlock): it reads everywhere but the user's credentials (files, and environment variables named as secrets), writes only the project, its temporary folder and `write`, and reaches no network unless `network` allows it"}),
            HookKey::Answers => {
                let mut words: Vec<Value> = crate::decision::foreign::AnswersAs::WORDS
                    .iter()
                    .map(|w| json!(w))
                    .collect();
                words.push(Value::Null);
                json!({"enum": words,
                    "description": "The agent whose answers the hook prints (a hook migrated from it): its deny or ask is read as Claude Code's (default: claude)"})
            }
            HookKey::RewakeMessage | HookKey::RewakeSummary => json!({"description": "Accepted and ignored"}),
            HookKey::HoldsTools => {
                json!({"description": "Accepted and ignored: Claude Code honours it only in its official security-guidance plugin"})
            }
            HookKey::Prompt => text("The question for the model; `$ARGUMENTS` is replaced by the hook input"),
            HookKey::Model => text("Model for this hook (default: a fast one)"),
            HookKey::ContinueOnBlock => {
                flag("`ok: false` gives the reason to the model and the turn goes on")
            }
            HookKey::Url => text("Endpoint the input is POSTed to"),
            HookKey::Headers => {
                json!({"type": ["object", "null"], "additionalProperties": {"type": "string"},
                "description": "`$VAR`/`${VAR}` are replaced only for names in `allowedEnvVars`"})
            }
            HookKey::AllowedEnvVars => strings("Environment variables headers may use"),
            HookKey::Server => text("MCP server name"),
            HookKey::Tool => text("MCP tool name"),
            HookKey::Input => {
                json!({"description": "The tool's arguments; `${path}` is replaced from the hook input"})
            }
        }
    }
}

/// The JSON Schema of one hook object, built from the keys the parser reads: every type's keys
/// and the ones it requires (`hookbridge schema`). Unknown keys are allowed, as the parser only
/// warns about them.
pub(crate) fn hook_schema() -> serde_json::Value {
    use serde_json::{json, Map, Value};
    let properties = |family: Option<Family>| -> Map<String, Value> {
        HookKey::ALL
            .iter()
            .filter(|(_, key)| match family {
                None => key.is_common(),
                Some(f) => key.used_by(f),
            })
            .map(|(name, key)| (name.to_string(), key.value_schema()))
            .collect()
    };
    let cases: Vec<Value> = Family::ALL
        .iter()
        .map(|&family| {
            let names: Vec<&str> = HookType::ALL
                .into_iter()
                .filter(|t| Family::of(*t) == family)
                .map(HookType::name)
                .collect();
            let mut required = vec!["type"];
            required.extend_from_slice(family.required());
            json!({
                "if": {"properties": {"type": {"enum": names}}, "required": ["type"]},
                "then": {"properties": properties(Some(family)), "required": required},
            })
        })
        .collect();
    json!({
        "type": "object",
        "required": ["type"],
        "properties": properties(None),
        "allOf": cases,
    })
}

/// Hook types that share their specific keys (`prompt` and `agent` do).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Family {
    Command,
    Prompt,
    Http,
    Mcp,
    /// `matcher`, the seed's in-process rules.
    Rule,
    /// `llm`, the seed's model-judged hooks.
    Llm,
}

impl Family {
    const ALL: [Family; 6] = [
        Family::Command,
        Family::Prompt,
        Family::Http,
        Family::Mcp,
        Family::Rule,
        Family::Llm,
    ];

    /// The family of fields a hook of `hook_type` has.
    fn of(hook_type: HookType) -> Family {
        match hook_type {
            HookType::Command => Family::Command,
            HookType::Prompt | HookType::Agent => Family::Prompt,
            HookType::Http => Family::Http,
            HookType::McpTool => Family::Mcp,
            HookType::Matcher => Family::Rule,
            HookType::Llm => Family::Llm,
        }
    }

    /// The keys a hook of this family cannot do without (besides `type`).
    fn required(self) -> &'static [&'static str] {
        match self {
            Family::Command => &["command"],
            Family::Prompt | Family::Llm => &["prompt"],
            Family::Http => &["url"],
            Family::Mcp => &["server", "tool"],
            Family::Rule => &["action"],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hook_key_names_follow_the_table() {
        for (i, (name, key)) in HookKey::ALL.iter().enumerate() {
            assert_eq!(*key as usize, i, "{name}");
            assert_eq!(key.name(), *name);
            assert!(matches!(HookKey::of(name), Ok(k) if k as usize == i));
        }
        assert_eq!(HookKey::of("colour").err().as_deref(), Some("colour"));
    }
}
