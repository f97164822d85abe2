//! Reading one hooks file with positions: every diagnostic names the line, column and key path.
//!
//! The file is read in one pass by a pull parser (`jiter`) that knows the byte offset of every
//! value, so each group, hook and field gets an exact line and column. A value of the wrong type is
//! reported and skipped while the pass goes on: one malformed hook is dropped and pinpointed, and
//! the rest of the file loads. Only a syntax error, after which nothing in the file can be trusted,
//! drops the whole file. Loading a thousand plugins should cost little more than reading them, so
//! no value is parsed twice, keys are compared where they lie, and key paths are built in one
//! reused buffer.
//!
//! Where JSON allows a key twice, the last value wins, as with Claude Code's `JSON.parse`.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::Arc;

use indexmap::IndexMap;
use jiter::{Jiter, JiterError, Peek};
use serde_json::Value;

use crate::diagnostics::{Diagnostic, LineCursor};
use crate::event::EventName;
use crate::matcher::Matcher;

use super::condition::Condition;
use super::model::*;

/// The result of reading one file: its groups per event, and what was wrong with it.
#[derive(Debug)]
pub struct ParsedFile {
    pub source: Arc<ConfigSource>,
    pub events: IndexMap<EventName, Vec<MatcherGroup>>,
    pub diagnostics: Vec<Diagnostic>,
    pub disable_all_hooks: bool,
}

/// What the placeholders of this file resolve to. Borrowed: every file of a folder shares them.
#[derive(Debug, Clone)]
pub struct Placeholders<'a> {
    pub project_dir: Cow<'a, str>,
    pub hooks_dir: Cow<'a, str>,
    pub plugin_root: Option<Cow<'a, str>>,
    pub plugin_data: Option<Cow<'a, str>>,
}

impl<'a> Placeholders<'a> {
    /// The placeholders of a file from `source`, in a project at `project_dir`.
    pub fn of_source(source: &'a ConfigSource, project_dir: &'a str) -> Self {
        let plugin = source.plugin.as_ref();
        Placeholders {
            project_dir: Cow::Borrowed(project_dir),
            hooks_dir: source.hooks_dir.to_string_lossy(),
            plugin_root: plugin.map(|p| p.root.to_string_lossy()),
            plugin_data: plugin.map(|p| p.data_dir.to_string_lossy()),
        }
    }

    /// Substitute `${CLAUDE_PLUGIN_ROOT}`, `${CLAUDE_PLUGIN_DATA}`, `${AMPLIFIER_HOOKS_DIR}`,
    /// `${CLAUDE_PROJECT_DIR}` and `${AMPLIFIER_PROJECT_DIR}` anywhere in `text`. Other `$VAR`s are
    /// left for the shell, which also sees these names as environment variables.
    pub fn expand(&self, text: &str) -> String {
        // One pass: copy up to each `${`, substitute a known name, keep anything else as written.
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let value = after.find('}').and_then(|end| {
                let value = match &after[..end] {
                    "CLAUDE_PLUGIN_ROOT" => self.plugin_root.as_deref(),
                    "CLAUDE_PLUGIN_DATA" => self.plugin_data.as_deref(),
                    "AMPLIFIER_HOOKS_DIR" => Some(&*self.hooks_dir),
                    "CLAUDE_PROJECT_DIR" | "AMPLIFIER_PROJECT_DIR" => Some(&*self.project_dir),
                    _ => None,
                };
                value.map(|v| (v, end))
            });
            match value {
                Some((value, end)) => {
                    out.push_str(value);
                    rest = &after[end + 1..];
                }
                None => {
                    out.push_str("${");
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }
}

/// Parse one hooks file (`hooks.json`, a plugin's `hooks/hooks.json`, or a `plugin.json` whose
/// `hooks` field is inline) of a project at `project_dir`. `source_index` numbers the file in
/// discovery order. A top-level `description` becomes the source's description unless it already
/// has one. Diagnostics come in file order.
pub fn parse_hooks_file(
    text: &str,
    mut source: ConfigSource,
    source_index: usize,
    project_dir: &str,
) -> ParsedFile {
    if source.description.is_none() {
        source.description = top_level_description(text);
    }
    let source = Arc::new(source);
    let placeholders = Placeholders::of_source(&source, project_dir);
    let mut reader = Reader {
        json: Jiter::new(text.as_bytes()),
        lines: LineCursor::new(text),
        source: source.clone(),
        source_index,
        placeholders: &placeholders,
        key: KeyPath(String::with_capacity(64)),
        diagnostics: Vec::new(),
    };
    let mut content = FileContent {
        events: IndexMap::new(),
        disable_all_hooks: false,
    };
    let problem = match reader.file(&mut content) {
        Ok(()) => None,
        Err(FileProblem::Syntax(err)) => Some((
            format!("not valid JSON: {}; the whole file is skipped", err.error_type),
            err.index,
        )),
        Err(FileProblem::NotAnObject(at)) => Some((
            "a hooks file must be a JSON object; the whole file is skipped".to_string(),
            at,
        )),
    };
    if let Some((message, at)) = problem {
        let position = reader.lines.position(at);
        let d = Diagnostic::error(message).in_file(&source.path).at(position);
        return ParsedFile {
            source,
            events: IndexMap::new(),
            diagnostics: vec![d],
            disable_all_hooks: false,
        };
    }
    let mut diagnostics = reader.diagnostics;
    diagnostics.sort_by_key(|d| d.position);
    ParsedFile {
        source,
        events: content.events,
        diagnostics,
        disable_all_hooks: content.disable_all_hooks,
    }
}

/// The top-level `description` (the first string one), read ahead so that every hook of the file
/// can share one source. `None` if there is none or the file is not valid JSON up to it. It is a
/// label for listings, which Claude Code does not act on.
fn top_level_description(text: &str) -> Option<String> {
    if !text.contains("\"description\"") {
        return None; // the common case for settings-style files: no second look at the text
    }
    let mut json = Jiter::new(text.as_bytes());
    let mut key = json.next_object().ok()?.map(|k| k == "description");
    while let Some(is_description) = key {
        let peek = json.peek().ok()?;
        if is_description && peek == Peek::String {
            return Some(json.known_str().ok()?.to_string());
        }
        json.known_skip(peek).ok()?;
        key = json.next_key().ok()?.map(|k| k == "description");
    }
    None
}

/// What is read from a file before it is known to be sound.
struct FileContent {
    events: IndexMap<EventName, Vec<MatcherGroup>>,
    disable_all_hooks: bool,
}

/// Why nothing of a file can be used.
enum FileProblem {
    Syntax(JiterError),
    /// The top-level value (at this offset) is valid JSON but not an object.
    NotAnObject(usize),
}

impl From<JiterError> for FileProblem {
    fn from(err: JiterError) -> Self {
        FileProblem::Syntax(err)
    }
}

/// A step of reading that fails only on a syntax error.
type Step<T> = Result<T, JiterError>;

/// The key path of the entry being read (`hooks.PreToolUse[0].hooks[1]`), grown and cut back
/// as the reader descends and returns.
struct KeyPath(String);

impl KeyPath {
    fn field(&mut self, name: &str) -> usize {
        let len = self.0.len();
        if !self.0.is_empty() {
            self.0.push('.');
        }
        self.0.push_str(name);
        len
    }

    fn index(&mut self, i: usize) -> usize {
        let len = self.0.len();
        let _ = write!(self.0, "[{i}]");
        len
    }

    fn cut(&mut self, len: usize) {
        self.0.truncate(len);
    }

    /// The path with `.name` appended, as a new string (for a diagnostic).
    fn with(&self, name: &str) -> String {
        if self.0.is_empty() {
            name.to_string()
        } else {
            format!("{}.{name}", self.0)
        }
    }
}

/// What a JSON value is, for messages.
fn describe(peek: Peek) -> &'static str {
    match peek {
        Peek::Object => "an object",
        Peek::Array => "an array",
        Peek::String => "a string",
        Peek::True | Peek::False => "a boolean",
        Peek::Null => "null",
        _ => "a number",
    }
}

struct Reader<'t> {
    json: Jiter<'t>,
    lines: LineCursor<'t>,
    source: Arc<ConfigSource>,
    source_index: usize,
    placeholders: &'t Placeholders<'t>,
    key: KeyPath,
    diagnostics: Vec<Diagnostic>,
}

/// The keys a file's top level may have.
enum TopKey {
    Hooks,
    Description,
    DisableAllHooks,
    /// Keys of Claude Code settings files and plugin manifests that are not about hooks.
    NotAboutHooks,
    Unknown(String),
}

impl TopKey {
    fn of(key: &str) -> TopKey {
        match key {
            "hooks" => TopKey::Hooks,
            "description" => TopKey::Description,
            "disableAllHooks" => TopKey::DisableAllHooks,
            "$schema" | "name" | "version" | "author" | "homepage" | "repository" | "license"
            | "keywords" | "permissions" | "env" | "model" | "statusLine" | "enabledPlugins" | "commands"
            | "agents" | "skills" | "mcpServers" | "outputStyles" | "lspServers" | "userConfig" => {
                TopKey::NotAboutHooks
            }
            other => TopKey::Unknown(other.to_string()),
        }
    }
}

impl<'t> Reader<'t> {
    /// The next value's kind and the offset where it starts.
    fn next_value(&mut self) -> Step<(Peek, usize)> {
        let peek = self.json.peek()?;
        Ok((peek, self.json.current_index()))
    }

    fn report(&mut self, d: Diagnostic, at: usize, key: String) {
        let d = d.in_file(&self.source.path).at(self.lines.position(at)).key(key);
        self.diagnostics.push(d);
    }

    /// A diagnostic at offset `at`, under the current key path.
    fn report_here(&mut self, d: Diagnostic, at: usize) {
        let key = self.key.0.clone();
        self.report(d, at, key);
    }

    /// A diagnostic at offset `at`, under the current key path plus `.name`.
    fn report_field(&mut self, d: Diagnostic, at: usize, name: &str) {
        let key = self.key.with(name);
        self.report(d, at, key);
    }

    /// Report a value that is not the container it must be, and step over it.
    fn wrong_container(&mut self, peek: Peek, at: usize, what: &str, must_be: &str) -> Step<()> {
        let message = format!("{what} must be {must_be}, found {}; ignored", describe(peek));
        self.report_here(Diagnostic::error(message), at);
        self.json.known_skip(peek)
    }

    fn file(&mut self, content: &mut FileContent) -> Result<(), FileProblem> {
        let (peek, at) = self.next_value()?;
        if peek != Peek::Object {
            // A syntax error anywhere says more than "not an object".
            self.json.known_skip(peek)?;
            self.json.finish()?;
            return Err(FileProblem::NotAnObject(at));
        }
        let mut key = self.json.known_object()?.map(TopKey::of);
        while let Some(top_key) = key {
            let (peek, at) = self.next_value()?;
            match top_key {
                TopKey::Hooks => {
                    content.events.clear(); // a second `hooks` replaces the first
                    let mark = self.key.field("hooks");
                    self.events(peek, at, &mut content.events)?;
                    self.key.cut(mark);
                }
                TopKey::DisableAllHooks if matches!(peek, Peek::True | Peek::False) => {
                    content.disable_all_hooks = self.json.known_bool(peek)?;
                }
                TopKey::DisableAllHooks => {
                    let d = Diagnostic::error("must be true or false; ignored");
                    self.report(d, at, "disableAllHooks".to_string());
                    self.json.known_skip(peek)?;
                }
                TopKey::Description | TopKey::NotAboutHooks => self.json.known_skip(peek)?,
                TopKey::Unknown(name) => {
                    let d = Diagnostic::warning(format!("unknown top-level key `{name}`; ignored"));
                    self.report(d, at, name);
                    self.json.known_skip(peek)?;
                }
            }
            key = self.json.next_key()?.map(TopKey::of);
        }
        self.json.finish()?;
        Ok(())
    }

    /// The `hooks` object: event name → matcher groups (the key path is `hooks`).
    fn events(
        &mut self,
        peek: Peek,
        at: usize,
        events: &mut IndexMap<EventName, Vec<MatcherGroup>>,
    ) -> Step<()> {
        if peek != Peek::Object {
            return self.wrong_container(peek, at, "`hooks`", "an object");
        }
        let parse = |name: &str| EventName::parse(name).map_err(|e| (name.to_string(), e.to_string()));
        let mut key = self.json.known_object()?.map(parse);
        while let Some(event) = key {
            let (peek, at) = self.next_value()?;
            match event {
                Ok(event) => {
                    let mark = self.key.field(event.as_str());
                    if let Some(groups) = self.event(&event, peek, at)? {
                        if events.contains_key(&event) {
                            let d = Diagnostic::warning(format!(
                                "`{event}` is written twice in `hooks`; the later one is used (as by JSON.parse in Claude Code)"
                            ));
                            self.report_here(d, at);
                        }
                        events.insert(event, groups);
                    }
                    self.key.cut(mark);
                }
                Err((name, problem)) => {
                    let mark = self.key.field(&name);
                    let d = Diagnostic::error(format!("{problem}; its hooks are skipped"));
                    self.report_here(d, at);
                    self.json.known_skip(peek)?;
                    self.key.cut(mark);
                }
            }
            key = self.json.next_key()?.map(parse);
        }
        Ok(())
    }

    /// One event's matcher groups (the key path names the event).
    fn event(&mut self, event: &EventName, peek: Peek, at: usize) -> Step<Option<Vec<MatcherGroup>>> {
        if !event.is_known() {
            let d = Diagnostic::warning(format!(
                "`{event}` is not an event Claude Code 2.1.328 fires; its hooks run only if a host emits it"
            ));
            self.report_here(d, at);
        }
        if peek != Peek::Array {
            self.wrong_container(peek, at, "an event's matcher groups", "an array")?;
            return Ok(None);
        }
        let groups = self.elements(|reader, peek, at, index| reader.group(event, peek, at, index))?;
        Ok(Some(groups))
    }

    /// Read each element of the array about to be entered with `read` (given its kind, offset and
    /// index, with the key path naming it), keeping the ones it returns.
    fn elements<T>(
        &mut self,
        mut read: impl FnMut(&mut Self, Peek, usize, usize) -> Step<Option<T>>,
    ) -> Step<Vec<T>> {
        // Most events have one group and most groups one hook: a first allocation of one element
        // (four would put these large elements in the allocator's slow, large-chunk path).
        let mut kept = Vec::with_capacity(1);
        let mut next = self.json.known_array()?;
        let mut index = 0;
        while let Some(peek) = next {
            let at = self.json.current_index();
            let mark = self.key.index(index);
            if let Some(element) = read(self, peek, at, index)? {
                kept.push(element);
            }
            self.key.cut(mark);
            index += 1;
            next = self.json.array_step()?;
        }
        Ok(kept)
    }

    /// One matcher group (the key path names it).
    fn group(
        &mut self,
        event: &EventName,
        peek: Peek,
        at: usize,
        group_index: usize,
    ) -> Step<Option<MatcherGroup>> {
        if peek != Peek::Object {
            self.wrong_container(peek, at, "a matcher group", "an object")?;
            return Ok(None);
        }
        let position = self.lines.position(at);
        let mut matcher: Option<(Option<String>, usize)> = None;
        let mut matcher_is_wrong = false;
        // `None`: no `hooks` key; `Some(None)`: a `hooks` that is not an array (reported).
        let mut hooks: Option<Option<Vec<HookSpec>>> = None;
        let mut key = self.json.known_object()?.map(GroupKey::of);
        while let Some(group_key) = key {
            let (peek, value_at) = self.next_value()?;
            match group_key {
                GroupKey::Matcher => {
                    matcher_is_wrong = false;
                    match peek {
                        Peek::String => matcher = Some((Some(self.json.known_str()?.to_string()), value_at)),
                        Peek::Null => {
                            self.json.known_null()?;
                            matcher = Some((None, value_at));
                        }
                        _ => {
                            let d = Diagnostic::error("`matcher` must be a string; this group is skipped");
                            self.report_field(d, value_at, "matcher");
                            self.json.known_skip(peek)?;
                            matcher_is_wrong = true;
                        }
                    }
                }
                GroupKey::Hooks => {
                    let mark = self.key.field("hooks");
                    hooks = Some(self.hooks(event, peek, value_at, group_index)?);
                    self.key.cut(mark);
                }
                GroupKey::Unknown(name) => {
                    let d = Diagnostic::warning(format!("unknown key `{name}` in a matcher group; ignored"));
                    self.report_field(d, value_at, &name);
                    self.json.known_skip(peek)?;
                }
            }
            key = self.json.next_key()?.map(GroupKey::of);
        }
        let hooks = match hooks {
            None => {
                let d = Diagnostic::error("a matcher group needs a `hooks` array; this group is skipped");
                self.report_here(d, at);
                return Ok(None);
            }
            Some(None) => return Ok(None),
            Some(Some(hooks)) => hooks,
        };
        if matcher_is_wrong {
            return Ok(None);
        }
        let (matcher_text, matcher_at) = match matcher {
            Some((text, value_at)) => (text, Some(value_at)),
            None => (None, None),
        };
        let traits = event.traits();
        let compiled = Matcher::compile(
            matcher_text.as_deref(),
            traits.exact_matcher_allows_extended_chars,
        );
        if let Err(e) = &compiled {
            let d = Diagnostic::error(format!("{e}; this group never matches (as in Claude Code)"));
            self.report_field(d, matcher_at.unwrap_or(at), "matcher");
        }
        if traits.match_field.is_none() {
            if let (Some(text), Some(value_at)) = (&matcher_text, matcher_at) {
                if !text.is_empty() && text != "*" {
                    let d = Diagnostic::warning(format!(
                        "{event} has no matcher target; matcher `{text}` is ignored and the group always runs (as in Claude Code)"
                    ));
                    self.report_field(d, value_at, "matcher");
                }
            }
        }
        Ok(Some(MatcherGroup {
            matcher: compiled,
            matcher_text,
            hooks,
            source: self.source.clone(),
            key: self.key.0.clone(),
            position,
        }))
    }

    /// A group's `hooks` array (the key path ends in `.hooks`); `None` if it is not an array.
    fn hooks(
        &mut self,
        event: &EventName,
        peek: Peek,
        at: usize,
        group_index: usize,
    ) -> Step<Option<Vec<HookSpec>>> {
        if peek != Peek::Array {
            self.wrong_container(peek, at, "`hooks`", "an array")?;
            return Ok(None);
        }
        let hooks = self.elements(|reader, peek, at, index| {
            let id = HookId {
                source: reader.source_index,
                group: group_index,
                index,
            };
            reader.hook(event, peek, at, id)
        })?;
        Ok(Some(hooks))
    }

    /// One hook (the key path names it); `None` when it is dropped (the reason is reported).
    fn hook(&mut self, event: &EventName, peek: Peek, at: usize, id: HookId) -> Step<Option<HookSpec>> {
        if peek != Peek::Object {
            self.wrong_container(peek, at, "a hook", "an object")?;
            return Ok(None);
        }
        let fields = self.hook_fields()?;
        Ok(self.build_hook(event, fields, at, id))
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
            match hook_key {
                HookKey::Type => f.type_name = Some(self.string(name, peek, at)?),
                HookKey::Timeout => f.timeout = Some(self.seconds(name, peek, at)?),
                HookKey::If => f.condition = Some(self.string(name, peek, at)?),
                HookKey::StatusMessage => f.status_message = Some(self.string(name, peek, at)?),
                HookKey::Once => f.once = Some(self.boolean(name, peek, at)?),
                HookKey::OnFailure => {
                    f.on_failure = Some(self.word(name, peek, at, &["block", "continue"])?)
                }
                HookKey::Command => f.command = Some(self.string(name, peek, at)?),
                HookKey::Args => f.args = Some(self.strings(name, peek, at)?),
                HookKey::Shell => f.shell = Some(self.word(name, peek, at, &["bash", "sh", "powershell"])?),
                HookKey::Async => f.run_async = Some(self.boolean(name, peek, at)?),
                HookKey::AsyncRewake => f.async_rewake = Some(self.boolean(name, peek, at)?),
                HookKey::Prompt => f.prompt = Some(self.string(name, peek, at)?),
                HookKey::Model => f.model = Some(self.string(name, peek, at)?),
                HookKey::ContinueOnBlock => f.continue_on_block = Some(self.boolean(name, peek, at)?),
                HookKey::Url => f.url = Some(self.string(name, peek, at)?),
                HookKey::Headers => f.headers = Some(self.string_map(name, peek, at)?),
                HookKey::AllowedEnvVars => f.allowed_env_vars = Some(self.strings(name, peek, at)?),
                HookKey::Server => f.server = Some(self.string(name, peek, at)?),
                HookKey::Tool => f.tool = Some(self.string(name, peek, at)?),
                HookKey::Input => f.input = Some(self.any(name, peek, at)?),
                HookKey::RewakeMessage => {
                    f.rewake_message = Some(at);
                    self.json.known_skip(peek)?;
                }
                HookKey::RewakeSummary => {
                    f.rewake_summary = Some(at);
                    self.json.known_skip(peek)?;
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

    /// `timeout`: a positive number of seconds.
    fn seconds(&mut self, name: &str, peek: Peek, at: usize) -> Step<Slot<f64>> {
        let value = if peek.is_num() {
            let v = self.json.known_float(peek)?;
            if v.is_finite() && v > 0.0 {
                Ok(Some(v))
            } else {
                Err(format!(
                    "`{name}` must be a positive number of seconds, found {v}"
                ))
            }
        } else if peek == Peek::Null {
            self.json.known_null()?;
            Ok(None)
        } else {
            Err(self.skip_wrong(peek, name, "a positive number of seconds")?)
        };
        Ok(Slot { value, at })
    }

    /// A list of strings (`args`, `allowedEnvVars`).
    fn strings(&mut self, name: &str, peek: Peek, at: usize) -> Step<Slot<Vec<String>>> {
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
    fn any(&mut self, _name: &str, peek: Peek, at: usize) -> Step<Slot<Value>> {
        self.json.known_skip(peek)?;
        let raw = self.json.slice_to_current(at);
        // The slice was just checked by the skip; reading it again cannot fail but for limits
        // serde_json has and jiter has not (nesting), which are reported like a wrong type.
        let value = serde_json::from_slice::<Value>(raw)
            .map(|v| if v.is_null() { None } else { Some(v) })
            .map_err(|e| format!("`input` cannot be read: {e}"));
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

    /// Turn a hook's fields into a hook spec, reporting every reason it cannot be one.
    fn build_hook(
        &mut self,
        event: &EventName,
        mut f: HookFields,
        at: usize,
        id: HookId,
    ) -> Option<HookSpec> {
        let (type_name, type_at) = match f.type_name.take() {
            None => {
                self.report_here(Diagnostic::error("a hook needs a `type` (\"command\", \"prompt\", \"agent\", \"http\" or \"mcp_tool\"); this hook is skipped"), at);
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
        let family = match type_name.as_str() {
            "command" => Family::Command,
            "prompt" | "agent" => Family::Prompt,
            "http" => Family::Http,
            "mcp_tool" => Family::Mcp,
            other => {
                let d = Diagnostic::error(format!(
                    "unknown hook type `{other}` (expected \"command\", \"prompt\", \"agent\", \"http\" or \"mcp_tool\"); this hook is skipped"
                ));
                self.report_field(d, type_at, "type");
                return None;
            }
        };
        let foreign = f
            .present()
            .into_iter()
            .flatten()
            .filter(|(name, _)| !COMMON_KEYS.contains(name) && !family.keys().contains(name));
        let unknown = f.unknown.iter().map(|(name, at)| (name.as_str(), *at));
        for (name, key_at) in foreign.chain(unknown) {
            let d = Diagnostic::warning(format!("unknown key `{name}` for a {type_name} hook; ignored"));
            self.report_field(d, key_at, name);
        }
        // Every field this type uses is checked, and every wrong one reported, before the hook is
        // dropped for any of them.
        let mut usable = true;
        let timeout_secs = self.take(&mut usable, "timeout", f.timeout);
        let condition_at = f.condition.as_ref().map_or(at, |slot| slot.at);
        let condition_text = self.take(&mut usable, "if", f.condition);
        let status_message = self.take(&mut usable, "statusMessage", f.status_message);
        let once = self.take(&mut usable, "once", f.once).unwrap_or(false);
        let on_failure = match self.take(&mut usable, "onFailure", f.on_failure) {
            Some("block") => OnFailure::Block,
            _ => OnFailure::Continue,
        };
        let kind = match family {
            Family::Command => {
                let command = self.take_required(&mut usable, "command", f.command, at);
                let args = self.take(&mut usable, "args", f.args);
                let shell = match self.take(&mut usable, "shell", f.shell) {
                    Some("powershell") => Shell::PowerShell,
                    _ => Shell::Default,
                };
                let run_async = self.take(&mut usable, "async", f.run_async).unwrap_or(false);
                let async_rewake = self
                    .take(&mut usable, "asyncRewake", f.async_rewake)
                    .unwrap_or(false);
                let (Some((command, command_at)), true) = (command, usable) else {
                    return None;
                };
                HookKind::Command(self.command_hook(CommandFields {
                    command,
                    command_at,
                    args,
                    shell,
                    run_async,
                    async_rewake,
                })?)
            }
            Family::Prompt => {
                let prompt = self.take_required(&mut usable, "prompt", f.prompt, at);
                let model = self.take(&mut usable, "model", f.model);
                let continue_on_block = self
                    .take(&mut usable, "continueOnBlock", f.continue_on_block)
                    .unwrap_or(false);
                let (Some((prompt, _)), true) = (prompt, usable) else {
                    return None;
                };
                let hook = PromptHook {
                    prompt,
                    model,
                    continue_on_block,
                };
                if type_name == "prompt" {
                    HookKind::Prompt(hook)
                } else {
                    HookKind::Agent(hook)
                }
            }
            Family::Http => {
                let url = self.take_required(&mut usable, "url", f.url, at);
                let headers = self.take(&mut usable, "headers", f.headers).unwrap_or_default();
                let allowed_env_vars = self
                    .take(&mut usable, "allowedEnvVars", f.allowed_env_vars)
                    .unwrap_or_default();
                let (Some((url, _)), true) = (url, usable) else {
                    return None;
                };
                HookKind::Http(HttpHook {
                    url,
                    headers,
                    allowed_env_vars,
                })
            }
            Family::Mcp => {
                let server = self.take_required(&mut usable, "server", f.server, at);
                let tool = self.take_required(&mut usable, "tool", f.tool, at);
                let input = self.take(&mut usable, "input", f.input);
                let (Some((server, _)), Some((tool, _)), true) = (server, tool, usable) else {
                    return None;
                };
                HookKind::McpTool(McpToolHook { server, tool, input })
            }
        };
        if !usable {
            return None;
        }
        let condition = match condition_text {
            None => None,
            Some(text) => match Condition::parse(&text) {
                Ok(c) => {
                    if !event.traits().is_tool_event {
                        let d = Diagnostic::warning(format!(
                            "`if` applies only to tool events; on {event} Claude Code never runs this hook, and neither does hookbridge"
                        ));
                        self.report_field(d, condition_at, "if");
                    }
                    Some(c)
                }
                Err(e) => {
                    let d = Diagnostic::error(format!("{e}; this hook is skipped"));
                    self.report_field(d, condition_at, "if");
                    return None;
                }
            },
        };
        Some(HookSpec {
            id,
            kind,
            timeout_secs,
            condition,
            status_message,
            once,
            on_failure,
            source: self.source.clone(),
            key: self.key.0.clone(),
            position: self.lines.position(at),
        })
    }

    /// A command hook from its checked fields; `None` (reported) if the command is empty.
    fn command_hook(&mut self, c: CommandFields) -> Option<CommandHook> {
        if c.command.trim().is_empty() {
            let d = Diagnostic::error("`command` is empty; this hook is skipped");
            self.report_field(d, c.command_at, "command");
            return None;
        }
        let placeholders = self.placeholders;
        let in_plugin = placeholders.plugin_root.is_some();
        let exec_form = c.args.is_some();
        let names_plugin_variable =
            c.command.contains("${CLAUDE_PLUGIN_ROOT}") || c.command.contains("${CLAUDE_PLUGIN_DATA}");
        let plugin_variable_outside_plugin = !in_plugin && !exec_form && names_plugin_variable;
        if plugin_variable_outside_plugin {
            self.report_field(
                Diagnostic::warning(
                    "uses ${CLAUDE_PLUGIN_ROOT}/${CLAUDE_PLUGIN_DATA} but this file is not in a plugin folder; Claude Code never runs such a hook, and neither does hookbridge (put it in `.amplifier/hooks/<plugin>/`)",
                ),
                c.command_at,
                "command",
            );
        }
        let args = c.args.map(|a| a.iter().map(|s| placeholders.expand(s)).collect());
        let resolved_command = if in_plugin || exec_form {
            placeholders.expand(&c.command)
        } else {
            c.command.clone()
        };
        Some(CommandHook {
            plugin_variable_outside_plugin,
            resolved_command,
            command: c.command,
            args,
            shell: c.shell,
            run_async: c.run_async || c.async_rewake,
            async_rewake: c.async_rewake,
        })
    }
}

/// A command hook's fields, checked.
struct CommandFields {
    command: String,
    command_at: usize,
    args: Option<Vec<String>>,
    shell: Shell,
    run_async: bool,
    async_rewake: bool,
}

/// A field as read: its value (`None` for `null`) or why it cannot be used, and where it starts.
struct Slot<T> {
    value: Result<Option<T>, String>,
    at: usize,
}

/// Every field a hook object can have, read before its `type` is known (it may come last).
#[derive(Default)]
struct HookFields {
    type_name: Option<Slot<String>>,
    timeout: Option<Slot<f64>>,
    condition: Option<Slot<String>>,
    status_message: Option<Slot<String>>,
    once: Option<Slot<bool>>,
    on_failure: Option<Slot<&'static str>>,
    command: Option<Slot<String>>,
    args: Option<Slot<Vec<String>>>,
    shell: Option<Slot<&'static str>>,
    run_async: Option<Slot<bool>>,
    async_rewake: Option<Slot<bool>>,
    prompt: Option<Slot<String>>,
    model: Option<Slot<String>>,
    continue_on_block: Option<Slot<bool>>,
    url: Option<Slot<String>>,
    headers: Option<Slot<IndexMap<String, String>>>,
    allowed_env_vars: Option<Slot<Vec<String>>>,
    server: Option<Slot<String>>,
    tool: Option<Slot<String>>,
    input: Option<Slot<Value>>,
    /// Where `rewakeMessage` and `rewakeSummary` are (accepted for command hooks, not used).
    rewake_message: Option<usize>,
    rewake_summary: Option<usize>,
    /// Keys no hook type has.
    unknown: Vec<(String, usize)>,
}

impl HookFields {
    /// The type-specific keys present, with where their values start.
    fn present(&self) -> [Option<(&'static str, usize)>; 16] {
        fn at<T>(name: &'static str, slot: &Option<Slot<T>>) -> Option<(&'static str, usize)> {
            slot.as_ref().map(|s| (name, s.at))
        }
        [
            at("command", &self.command),
            at("args", &self.args),
            at("shell", &self.shell),
            at("async", &self.run_async),
            at("asyncRewake", &self.async_rewake),
            self.rewake_message.map(|at| ("rewakeMessage", at)),
            self.rewake_summary.map(|at| ("rewakeSummary", at)),
            at("prompt", &self.prompt),
            at("model", &self.model),
            at("continueOnBlock", &self.continue_on_block),
            at("url", &self.url),
            at("headers", &self.headers),
            at("allowedEnvVars", &self.allowed_env_vars),
            at("server", &self.server),
            at("tool", &self.tool),
            at("input", &self.input),
        ]
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
}

impl HookKey {
    const ALL: [(&'static str, HookKey); 22] = [
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
}

/// The keys a matcher group has.
enum GroupKey {
    Matcher,
    Hooks,
    Unknown(String),
}

impl GroupKey {
    fn of(key: &str) -> GroupKey {
        match key {
            "matcher" => GroupKey::Matcher,
            "hooks" => GroupKey::Hooks,
            other => GroupKey::Unknown(other.to_string()),
        }
    }
}

/// Hook types that share their specific keys (`prompt` and `agent` do).
#[derive(Clone, Copy)]
enum Family {
    Command,
    Prompt,
    Http,
    Mcp,
}

impl Family {
    fn keys(self) -> &'static [&'static str] {
        match self {
            Family::Command => COMMAND_KEYS,
            Family::Prompt => PROMPT_KEYS,
            Family::Http => HTTP_KEYS,
            Family::Mcp => MCP_KEYS,
        }
    }
}

const COMMON_KEYS: &[&str] = &["type", "timeout", "if", "statusMessage", "once", "onFailure"];
const COMMAND_KEYS: &[&str] = &[
    "command",
    "args",
    "shell",
    "async",
    "asyncRewake",
    "rewakeMessage",
    "rewakeSummary",
];
const PROMPT_KEYS: &[&str] = &["prompt", "model", "continueOnBlock"];
const HTTP_KEYS: &[&str] = &["url", "headers", "allowedEnvVars"];
const MCP_KEYS: &[&str] = &["server", "tool", "input"];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Severity;
    use std::path::PathBuf;

    #[test]
    fn placeholders_expand_known_names_once_and_keep_the_rest() {
        let ph = Placeholders {
            project_dir: "/p".into(),
            hooks_dir: "/h".into(),
            plugin_root: Some("/r/${CLAUDE_PROJECT_DIR}".into()),
            plugin_data: None,
        };
        let cases = [
            ("plain $HOME text", "plain $HOME text"),
            ("${CLAUDE_PLUGIN_ROOT}/x.sh", "/r/${CLAUDE_PROJECT_DIR}/x.sh"),
            (
                "cd ${CLAUDE_PROJECT_DIR} && ${AMPLIFIER_PROJECT_DIR}/a ${AMPLIFIER_HOOKS_DIR}",
                "cd /p && /p/a /h",
            ),
            ("${CLAUDE_PLUGIN_DATA}/db", "${CLAUDE_PLUGIN_DATA}/db"),
            ("${OTHER} ${UNCLOSED", "${OTHER} ${UNCLOSED"),
            ("$${CLAUDE_PROJECT_DIR}}", "$/p}"),
            ("", ""),
        ];
        for (text, expected) in cases {
            assert_eq!(ph.expand(text), expected, "{text}");
        }
    }

    fn source() -> ConfigSource {
        ConfigSource {
            path: PathBuf::from("/p/.amplifier/hooks/hooks.json"),
            scope: Scope::Project,
            hooks_dir: PathBuf::from("/p/.amplifier/hooks"),
            plugin: None,
            description: None,
        }
    }

    fn parse(text: &str) -> ParsedFile {
        parse_hooks_file(text, source(), 0, "/p")
    }

    #[test]
    fn a_good_file_loads_every_hook() {
        let f = parse(
            r#"{"description": "d", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": "${AMPLIFIER_HOOKS_DIR}/v.sh", "timeout": 5}]}],
                "Stop": [{"hooks": [{"type": "prompt", "prompt": "ok?"}]}]}}"#,
        );
        assert!(f.diagnostics.is_empty(), "{:?}", f.diagnostics);
        let pre = &f.events[&EventName::PreToolUse][0];
        let HookKind::Command(c) = &pre.hooks[0].kind else {
            panic!()
        };
        // Outside a plugin the shell expands the variable from the environment (case 188).
        assert_eq!(c.resolved_command, "${AMPLIFIER_HOOKS_DIR}/v.sh");
        assert_eq!(pre.hooks[0].timeout_secs, Some(5.0));
        assert_eq!(f.source.description.as_deref(), Some("d"));
        assert!(matches!(
            f.events[&EventName::Stop][0].hooks[0].kind,
            HookKind::Prompt(_)
        ));
    }

    #[test]
    fn a_bad_hook_is_pinpointed_and_its_neighbours_still_load() {
        let text = "{\"hooks\": {\"PreToolUse\": [{\"hooks\": [\n  {\"type\": \"command\", \"command\": \"a\", \"timeout\": \"5\"},\n  {\"type\": \"command\", \"command\": \"b\"}]}]}}";
        let f = parse(text);
        let hooks = &f.events[&EventName::PreToolUse][0].hooks;
        assert_eq!(hooks.len(), 1);
        assert_eq!(hooks[0].kind.label(), "b");
        assert_eq!(f.diagnostics.len(), 1);
        let d = &f.diagnostics[0];
        assert_eq!(d.severity, Severity::Error);
        assert_eq!(d.key.as_deref(), Some("hooks.PreToolUse[0].hooks[0].timeout"));
        let p = d.position.unwrap();
        assert_eq!(p.line, 2);
        assert_eq!(&text.lines().nth(1).unwrap()[p.column - 1..p.column + 2], "\"5\"");
    }

    #[test]
    fn invalid_json_names_line_and_column() {
        let f = parse("{\"hooks\": {\n  \"Stop\": [,]\n}}");
        assert!(f.events.is_empty());
        let d = &f.diagnostics[0];
        assert_eq!(d.position.unwrap().line, 2);
        assert!(d.message.contains("not valid JSON"));
    }

    #[test]
    fn unknown_keys_warn_and_unknown_events_are_kept() {
        let f = parse(
            r#"{"hooks": {"FooBar": [{"hooks": [{"type": "command", "command": "x", "colour": 1}]}]}}"#,
        );
        assert_eq!(f.events[&EventName::Unknown("FooBar".into())][0].hooks.len(), 1);
        assert_eq!(f.diagnostics.len(), 2);
        assert!(f.diagnostics.iter().all(|d| d.severity == Severity::Warning));
        assert!(f
            .diagnostics
            .iter()
            .any(|d| d.key.as_deref() == Some("hooks.FooBar[0].hooks[0].colour")));
    }

    #[test]
    fn groups_without_hooks_and_hooks_as_a_list_are_reported() {
        let f = parse(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash"}, {"hooks": [{"type": "command", "command": "ok"}]}]}}"#,
        );
        assert_eq!(f.events[&EventName::PreToolUse].len(), 1);
        assert!(f.diagnostics[0].message.contains("needs a `hooks` array"));
        let g = parse(r#"{"hooks": [1, 2]}"#);
        assert!(g.events.is_empty());
        assert!(g.diagnostics[0].message.contains("must be an object"));
    }

    #[test]
    fn invalid_matchers_keep_the_group_but_never_match() {
        let f = parse(
            r#"{"hooks": {"PreToolUse": [{"matcher": "(", "hooks": [{"type": "command", "command": "x"}]}]}}"#,
        );
        assert!(f.events[&EventName::PreToolUse][0].matcher.is_err());
        assert_eq!(
            f.diagnostics[0].key.as_deref(),
            Some("hooks.PreToolUse[0].matcher")
        );
    }

    #[test]
    fn missing_type_and_unknown_type_are_errors() {
        let f = parse(
            r#"{"hooks": {"Stop": [{"hooks": [{"command": "x"}, {"type": "shell", "command": "y"}, {"type": "command"}]}]}}"#,
        );
        assert!(f.events[&EventName::Stop][0].hooks.is_empty());
        assert_eq!(f.diagnostics.len(), 3);
        assert!(
            f.diagnostics[2].message.contains("missing field `command`"),
            "{}",
            f.diagnostics[2]
        );
    }

    #[test]
    fn hook_key_names_follow_the_table() {
        for (i, (name, key)) in HookKey::ALL.iter().enumerate() {
            assert_eq!(*key as usize, i, "{name}");
            assert_eq!(key.name(), *name);
            assert!(matches!(HookKey::of(name), Ok(k) if k as usize == i));
        }
        assert_eq!(HookKey::of("colour").err().as_deref(), Some("colour"));
    }

    #[test]
    fn the_type_may_come_last_and_other_types_keys_are_only_warned() {
        let f = parse(
            r#"{"hooks": {"PreToolUse": [{"hooks": [{"command": "a", "url": 5, "timeout": 2, "type": "command"}]}]}}"#,
        );
        let hook = &f.events[&EventName::PreToolUse][0].hooks[0];
        assert_eq!(hook.kind.label(), "a");
        assert_eq!(hook.timeout_secs, Some(2.0));
        assert_eq!(f.diagnostics.len(), 1, "{:?}", f.diagnostics);
        assert_eq!(f.diagnostics[0].severity, Severity::Warning);
        assert_eq!(
            f.diagnostics[0].key.as_deref(),
            Some("hooks.PreToolUse[0].hooks[0].url")
        );
    }

    #[test]
    fn every_wrong_field_is_reported_before_the_hook_is_dropped() {
        let text = "{\"hooks\": {\"Stop\": [{\"hooks\": [\n {\"type\": \"command\", \"command\": [1], \"once\": \"yes\", \"timeout\": -1, \"shell\": \"zsh\"},\n {\"type\": \"command\", \"command\": \"kept\", \"args\": [\"x\", 2]},\n {\"type\": \"command\", \"command\": \"kept\"}]}]}}";
        let f = parse(text);
        let hooks = &f.events[&EventName::Stop][0].hooks;
        assert_eq!(hooks.len(), 1);
        assert_eq!(hooks[0].key, "hooks.Stop[0].hooks[2]");
        let keys: Vec<&str> = f.diagnostics.iter().map(|d| d.key.as_deref().unwrap()).collect();
        assert_eq!(
            keys,
            [
                "hooks.Stop[0].hooks[0].command",
                "hooks.Stop[0].hooks[0].once",
                "hooks.Stop[0].hooks[0].timeout",
                "hooks.Stop[0].hooks[0].shell",
                "hooks.Stop[0].hooks[1].args",
            ]
        );
        assert!(f.diagnostics.iter().all(|d| d.severity == Severity::Error));
        assert!(f.diagnostics[2]
            .message
            .contains("positive number of seconds, found -1"));
        assert!(f.diagnostics[3]
            .message
            .contains("\"bash\" or \"sh\" or \"powershell\""));
        assert!(f.diagnostics[4].message.contains("found a number at [1]"));
        // Each is pinpointed on its own value.
        let line = text.lines().nth(1).unwrap();
        let once = f.diagnostics[1].position.unwrap();
        assert_eq!(
            (once.line, &line[once.column - 1..once.column + 4]),
            (2, "\"yes\"")
        );
    }

    #[test]
    fn a_key_written_twice_keeps_the_last_value_as_json_parse_does() {
        let f = parse(
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "first"}]}],
                "Stop": [{"hooks": [{"type": "command", "command": "a", "command": "second"}]}]}}"#,
        );
        let stop = &f.events[&EventName::Stop];
        assert_eq!(stop.len(), 1);
        assert_eq!(stop[0].hooks[0].kind.label(), "second");
        assert_eq!(f.diagnostics.len(), 1);
        assert!(f.diagnostics[0].message.contains("written twice"));
    }

    #[test]
    fn escaped_keys_and_a_description_after_the_hooks_are_read() {
        let f = parse(
            r#"{"hooks": {"Stop": [{"hooks": [{"typ\u0065": "command", "comm\u0061nd": "x\"y"}]}]}, "description": "late"}"#,
        );
        assert!(f.diagnostics.is_empty(), "{:?}", f.diagnostics);
        assert_eq!(f.events[&EventName::Stop][0].hooks[0].kind.label(), "x\"y");
        assert_eq!(f.source.description.as_deref(), Some("late"));
        assert_eq!(
            f.events[&EventName::Stop][0].hooks[0]
                .source
                .description
                .as_deref(),
            Some("late")
        );
    }

    #[test]
    fn a_syntax_error_after_good_hooks_drops_the_whole_file() {
        let f = parse("{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"x\"}]}]},\n \"oops\" }");
        assert!(f.events.is_empty());
        assert_eq!(f.diagnostics.len(), 1);
        let d = &f.diagnostics[0];
        assert!(
            d.message.starts_with("not valid JSON: expected `:`"),
            "{}",
            d.message
        );
        assert_eq!(d.position.unwrap().line, 2);
        let g = parse("[1, 2]");
        assert!(g.diagnostics[0].message.contains("must be a JSON object"));
        let h = parse("");
        assert!(h.diagnostics[0].message.contains("not valid JSON"));
    }

    #[test]
    fn mcp_and_http_fields_keep_their_values() {
        let f = parse(
            r#"{"hooks": {"PostToolUse": [{"hooks": [
                {"type": "mcp_tool", "server": "s", "tool": "t", "input": {"a": [1, {"b": null}]}},
                {"type": "http", "url": "http://x", "headers": {"A": "1"}, "allowedEnvVars": ["TOKEN"]}]}]}}"#,
        );
        assert!(f.diagnostics.is_empty(), "{:?}", f.diagnostics);
        let hooks = &f.events[&EventName::PostToolUse][0].hooks;
        let HookKind::McpTool(m) = &hooks[0].kind else {
            panic!()
        };
        assert_eq!(m.input, Some(serde_json::json!({"a": [1, {"b": null}]})));
        let HookKind::Http(h) = &hooks[1].kind else {
            panic!()
        };
        assert_eq!(h.headers["A"], "1");
        assert_eq!(h.allowed_env_vars, ["TOKEN"]);
    }
}
