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
//! Where JSON allows a key twice, the last value wins, as with Claude Code's `JSON.parse`. This
//! module reads the file down to each hook; `hook` reads a hook object.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::Arc;

use crate::diagnostics::{Diagnostic, LineCursor};
use crate::event::EventName;
use crate::matcher::Matcher;
use indexmap::IndexMap;
use jiter::{Jiter, JiterError, Peek};

mod hook;
mod yaml;

pub(crate) use hook::hook_schema;

use super::bounded_read::{MAX_DIAGNOSTICS_PER_FILE, MAX_ENTRIES_PER_FILE};
use super::managed::{SandboxFloor, SandboxUnavailable, SandboxedHooks};
use super::model::*;

/// The result of reading one file: its groups per event, and what was wrong with it.
#[derive(Debug)]
pub struct ParsedFile {
    pub source: Arc<ConfigSource>,
    pub events: IndexMap<EventName, Vec<MatcherGroup>>,
    pub diagnostics: Vec<Diagnostic>,
    pub disable_all_hooks: bool,
    /// The file's `allowedHttpHookUrls` / `httpHookAllowedEnvVars`.
    pub http_limits: HttpLimits,
    /// The file's `sandboxHooks` / `sandboxNetwork`: read from the user's own files only (a
    /// project's are reported and ignored; the managed policy's are its rules').
    pub sandbox_floor: SandboxFloor,
    /// How many events, matcher groups and hooks it holds (at most
    /// [`MAX_ENTRIES_PER_FILE`]; past it, none: the
    /// file is skipped), for discovery's budget per hooks directory.
    pub entries: usize,
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
    source: ConfigSource,
    source_index: usize,
    project_dir: &str,
) -> ParsedFile {
    read_file(
        text,
        Positions::Text(LineCursor::new(text)),
        source,
        source_index,
        project_dir,
        "JSON",
    )
}

/// Parse one `hooks.yaml` / `hooks.yml` as [`parse_hooks_file`] does a JSON file: the same shapes,
/// keys and checks, with positions in the YAML (see `yaml`).
pub fn parse_hooks_yaml(
    text: &str,
    source: ConfigSource,
    source_index: usize,
    project_dir: &str,
) -> ParsedFile {
    match yaml::to_json(text) {
        Ok((json, map)) => read_file(
            &json,
            Positions::Mapped(map),
            source,
            source_index,
            project_dir,
            "YAML",
        ),
        Err(e) => {
            let d = Diagnostic::error(format!("{}; the whole file is skipped", e.message))
                .in_file(&source.path)
                .at(e.position);
            ParsedFile {
                source: Arc::new(source),
                events: IndexMap::new(),
                diagnostics: vec![d],
                disable_all_hooks: false,
                http_limits: HttpLimits::default(),
                sandbox_floor: SandboxFloor::NONE,
                entries: 0,
            }
        }
    }
}

/// Whether `path` names a YAML hooks file (`.yaml`, `.yml`).
pub fn is_yaml_path(path: &std::path::Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("yaml" | "yml"))
}

/// Where the values of the text being read are: counted in the text itself (JSON), or looked up
/// in the map from the generated JSON back to the YAML.
enum Positions<'t> {
    Text(LineCursor<'t>),
    Mapped(yaml::PositionMap),
}

impl Positions<'_> {
    fn position(&mut self, offset: usize) -> crate::diagnostics::Position {
        match self {
            Positions::Text(lines) => lines.position(offset),
            Positions::Mapped(map) => map.position(offset),
        }
    }
}

fn read_file(
    text: &str,
    lines: Positions<'_>,
    mut source: ConfigSource,
    source_index: usize,
    project_dir: &str,
    format: &str,
) -> ParsedFile {
    if source.description.is_none() {
        source.description = top_level_description(text);
    }
    let source = Arc::new(source);
    let placeholders = Placeholders::of_source(&source, project_dir);
    let mut reader = Reader {
        json: Jiter::new(text.as_bytes()),
        text: text.as_bytes(),
        lines,
        source: source.clone(),
        source_index,
        placeholders: &placeholders,
        key: KeyPath(String::with_capacity(64)),
        diagnostics: Vec::new(),
        seed_event: None,
        entries: 0,
        too_many_at: None,
        unlisted: 0,
        unlisted_error: false,
    };
    let mut content = FileContent {
        events: IndexMap::new(),
        disable_all_hooks: false,
        http_limits: HttpLimits::default(),
        sandbox_floor: SandboxFloor::NONE,
    };
    let problem = match reader.file(&mut content) {
        Ok(()) => reader.too_many_at.map(|at| {
            (
                format!(
                    "holds more than {MAX_ENTRIES_PER_FILE} events, matcher groups and hooks, the most hookbridge reads from one hooks file; the whole file is skipped"
                ),
                at,
            )
        }),
        Err(FileProblem::Syntax(err)) => Some((
            format!("not valid {format}: {}; the whole file is skipped", err.error_type),
            err.index,
        )),
        Err(FileProblem::NotAnObject(at)) => Some((
            format!("a hooks file must be a {format} object (a mapping of keys to values); the whole file is skipped"),
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
            http_limits: HttpLimits::default(),
            sandbox_floor: SandboxFloor::NONE,
            entries: 0,
        };
    }
    let mut diagnostics = reader.diagnostics;
    diagnostics.sort_by_key(|d| d.position);
    let entries = reader.entries;
    if reader.unlisted > 0 {
        let message = format!(
            "{} more problems in this file are not listed (only the first {MAX_DIAGNOSTICS_PER_FILE} are)",
            reader.unlisted
        );
        let d = if reader.unlisted_error {
            Diagnostic::error(message)
        } else {
            Diagnostic::warning(message)
        };
        diagnostics.push(d.in_file(&source.path));
    }
    ParsedFile {
        source,
        events: content.events,
        diagnostics,
        disable_all_hooks: content.disable_all_hooks,
        http_limits: content.http_limits,
        sandbox_floor: content.sandbox_floor,
        entries,
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
    http_limits: HttpLimits,
    sandbox_floor: SandboxFloor,
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
    /// The whole text, for looking ahead into an event's list item (group or seed hook?).
    text: &'t [u8],
    lines: Positions<'t>,
    source: Arc<ConfigSource>,
    source_index: usize,
    placeholders: &'t Placeholders<'t>,
    key: KeyPath,
    diagnostics: Vec<Diagnostic>,
    /// Set while a hook written in the seed's shape (directly in an event's list) is read: the
    /// event's name as written there.
    seed_event: Option<Arc<str>>,
    /// Events, matcher groups and hooks met so far ([`Reader::count_entry`]).
    entries: usize,
    /// Where the entry past [`MAX_ENTRIES_PER_FILE`] starts: the file is skipped whole.
    too_many_at: Option<usize>,
    /// Problems past [`MAX_DIAGNOSTICS_PER_FILE`], counted, not listed; and whether one of them
    /// is an error (the summary then is one, so `validate` still fails).
    unlisted: usize,
    unlisted_error: bool,
}

/// The keys a file's top level may have.
enum TopKey {
    Hooks,
    Description,
    DisableAllHooks,
    AllowedHttpHookUrls,
    HttpHookAllowedEnvVars,
    SandboxHooks,
    SandboxNetwork,
    SandboxUnavailable,
    /// Keys of Claude Code settings files and plugin manifests that are not about hooks.
    NotAboutHooks,
    Unknown(String),
}

impl TopKey {
    /// The top-level keys about hooks, for "did you mean".
    const HOOK_KEYS: &'static [&'static str] = &[
        "hooks",
        "description",
        "disableAllHooks",
        "allowedHttpHookUrls",
        "httpHookAllowedEnvVars",
        "sandboxHooks",
        "sandboxNetwork",
        "sandboxUnavailable",
    ];

    fn of(key: &str) -> TopKey {
        match key {
            "hooks" => TopKey::Hooks,
            "description" => TopKey::Description,
            "disableAllHooks" => TopKey::DisableAllHooks,
            "allowedHttpHookUrls" => TopKey::AllowedHttpHookUrls,
            "httpHookAllowedEnvVars" => TopKey::HttpHookAllowedEnvVars,
            "sandboxHooks" => TopKey::SandboxHooks,
            "sandboxNetwork" => TopKey::SandboxNetwork,
            "sandboxUnavailable" => TopKey::SandboxUnavailable,
            "$schema" | "name" | "version" | "author" | "homepage" | "repository" | "license"
            | "keywords" | "permissions" | "env" | "model" | "statusLine" | "enabledPlugins" | "commands"
            | "agents" | "skills" | "mcpServers" | "outputStyles" | "lspServers" | "userConfig"
            // Managed policy's own keys (see `managed`), read there.
            | "allowManagedHooksOnly" | "allowProjectHooks" | "warm" | "maxTimeout" | "auditLog" => {
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
        if !self.listing() {
            self.unlisted += 1;
            self.unlisted_error |= d.severity == crate::diagnostics::Severity::Error;
            return;
        }
        let d = d.in_file(&self.source.path).at(self.lines.position(at)).key(key);
        self.diagnostics.push(d);
    }

    /// Whether a problem found now is listed (the file has fewer than
    /// [`MAX_DIAGNOSTICS_PER_FILE`]); past it, problems are only counted, and what would only
    /// word them better (a "did you mean") is not worked out.
    fn listing(&self) -> bool {
        self.diagnostics.len() < MAX_DIAGNOSTICS_PER_FILE
    }

    /// [`did_you_mean`](crate::diagnostics::did_you_mean) while problems are listed.
    fn hint<'c>(&self, name: &str, candidates: impl IntoIterator<Item = &'c str>) -> String {
        if self.listing() {
            crate::diagnostics::did_you_mean(name, candidates)
        } else {
            String::new()
        }
    }

    /// Counts one more event, matcher group or hook, starting at `at`: `false` past
    /// [`MAX_ENTRIES_PER_FILE`], when the file is to be skipped whole and the caller only skips
    /// over the entry.
    fn count_entry(&mut self, at: usize) -> bool {
        self.entries += 1;
        if self.entries <= MAX_ENTRIES_PER_FILE {
            return true;
        }
        self.too_many_at.get_or_insert(at);
        false
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

    /// `sandboxHooks` / `sandboxNetwork` / `sandboxUnavailable`: the user's floor under every
    /// hook's sandbox, read from the user's own files. A project's file cannot set it (a project
    /// does not choose how its own hooks are held), and the managed policy's are read as its
    /// rules. A value that cannot be read holds what it could have held: every hook sandboxed, no
    /// network, no hook run where its sandbox cannot be enforced.
    fn sandbox_key(&mut self, key: &TopKey, peek: Peek, at: usize, floor: &mut SandboxFloor) -> Step<()> {
        let name = match key {
            TopKey::SandboxHooks => "sandboxHooks",
            TopKey::SandboxUnavailable => "sandboxUnavailable",
            _ => "sandboxNetwork",
        };
        let whose = match (self.source.scope, &self.source.plugin) {
            (Scope::Managed, _) => return self.json.known_skip(peek),
            (Scope::Project, _) => Some("a project's files"),
            (_, Some(_)) => Some("a plugin's files"),
            (Scope::User | Scope::Explicit, None) => None,
        };
        if let Some(whose) = whose {
            let d = Diagnostic::warning(format!(
                "`{name}` is read from your own hooks files (~/.amplifier/hooks/) and the managed policy, not from {whose}; ignored"
            ));
            self.report(d, at, name.to_string());
            return self.json.known_skip(peek);
        }
        match (key, peek) {
            (_, Peek::Null) => self.json.known_skip(peek)?,
            (TopKey::SandboxNetwork, Peek::True | Peek::False) => {
                floor.network = self.json.known_bool(peek)?;
            }
            (TopKey::SandboxHooks, Peek::String) => match self.json.known_str()? {
                "project" => floor.hooks = Some(SandboxedHooks::Project),
                "all" => floor.hooks = Some(SandboxedHooks::All),
                other => {
                    let d = Diagnostic::error(format!(
                        "must be \"project\" or \"all\", not {other:?}; read as \"all\" (every hook sandboxed) until it is fixed"
                    ));
                    self.report(d, at, name.to_string());
                    floor.hooks = Some(SandboxedHooks::All);
                }
            },
            (TopKey::SandboxUnavailable, _) => {
                let word = match peek {
                    Peek::String => Some(self.json.known_str()?.to_string()),
                    _ => None,
                };
                match word.as_deref().and_then(SandboxUnavailable::of) {
                    Some(said) => floor.unavailable = Some(said),
                    None => {
                        let found = match &word {
                            Some(word) => format!("{word:?}"),
                            None => describe(peek).to_string(),
                        };
                        let d = Diagnostic::error(format!(
                            "must be \"refuse\" or \"runUnsandboxed\", not {found}; read as \"refuse\" (a hook whose sandbox cannot be enforced is not run) until it is fixed"
                        ));
                        self.report(d, at, name.to_string());
                        floor.unavailable = Some(SandboxUnavailable::Refuse);
                        if word.is_none() {
                            self.json.known_skip(peek)?;
                        }
                    }
                }
            }
            (TopKey::SandboxHooks, _) => {
                let d = Diagnostic::error(format!(
                    "must be \"project\" or \"all\", found {}; read as \"all\" (every hook sandboxed) until it is fixed",
                    describe(peek)
                ));
                self.report(d, at, name.to_string());
                floor.hooks = Some(SandboxedHooks::All);
                self.json.known_skip(peek)?;
            }
            _ => {
                let d = Diagnostic::error(format!(
                    "must be true or false, found {}; read as false (no sandboxed hook reaches the network) until it is fixed",
                    describe(peek)
                ));
                self.report(d, at, name.to_string());
                floor.network = false;
                self.json.known_skip(peek)?;
            }
        }
        Ok(())
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
                TopKey::AllowedHttpHookUrls | TopKey::HttpHookAllowedEnvVars => {
                    let name = match top_key {
                        TopKey::AllowedHttpHookUrls => "allowedHttpHookUrls",
                        _ => "httpHookAllowedEnvVars",
                    };
                    let slot = self.strings(name, peek, at)?;
                    match slot.value {
                        Ok(list) => {
                            let target = match top_key {
                                TopKey::AllowedHttpHookUrls => &mut content.http_limits.allowed_urls,
                                _ => &mut content.http_limits.allowed_env_vars,
                            };
                            *target = list;
                        }
                        Err(message) => {
                            // A policy that cannot be read must not silently allow everything.
                            let d = Diagnostic::error(format!(
                                "{message}; no http hook of this file's hooks set may run until it is fixed"
                            ));
                            self.report(d, at, name.to_string());
                            content.http_limits.allowed_urls = Some(Vec::new());
                        }
                    }
                }
                TopKey::SandboxHooks | TopKey::SandboxNetwork | TopKey::SandboxUnavailable => {
                    self.sandbox_key(&top_key, peek, at, &mut content.sandbox_floor)?;
                }
                TopKey::Description | TopKey::NotAboutHooks => self.json.known_skip(peek)?,
                TopKey::Unknown(name) => {
                    // settings.json's shape without its `hooks` wrapper loads nothing: say why.
                    let is_event = crate::event::EventName::KNOWN.iter().any(|e| e.as_str() == name);
                    let d = if is_event {
                        Diagnostic::error(format!(
                            "`{name}` is an event, but events belong under `hooks` (`{{\"hooks\": {{\"{name}\": [...]}}}}`); its hooks were not loaded"
                        ))
                    } else {
                        let hint = self.hint(
                            &name,
                            TopKey::HOOK_KEYS
                                .iter()
                                .copied()
                                .chain(EventName::KNOWN.iter().map(EventName::as_str)),
                        );
                        Diagnostic::warning(format!("unknown top-level key `{name}`; ignored{hint}"))
                    };
                    self.report(d, at, name);
                    self.json.known_skip(peek)?;
                }
            }
            key = self.json.next_key()?.map(TopKey::of);
        }
        self.json.finish()?;
        Ok(())
    }

    /// The `hooks` object: event name → matcher groups (the key path is `hooks`). The seed's event
    /// names are read as the Claude Code events they mean ([`crate::seed::events`]).
    fn events(
        &mut self,
        peek: Peek,
        at: usize,
        events: &mut IndexMap<EventName, Vec<MatcherGroup>>,
    ) -> Step<()> {
        if peek != Peek::Object {
            return self.wrong_container(peek, at, "`hooks`", "an object");
        }
        let mut written: Vec<String> = Vec::new();
        let mut key = self.json.known_object()?.map(str::to_string);
        while let Some(name) = key {
            let (peek, at) = self.next_value()?;
            let mark = self.key.field(&name);
            let targets: Result<Vec<EventName>, String> = match crate::seed::seed_event(&name) {
                Some(seed) if seed.claude.is_empty() => {
                    let d = Diagnostic::warning(format!(
                        "`{name}` is an event of the seed's hook dialect that no host fires yet ({}); its hooks run only when a host emits `{name}` by name",
                        seed.no_source.unwrap_or("no source")
                    ));
                    self.report_here(d, at);
                    Ok(vec![EventName::Unknown(name.clone())])
                }
                Some(seed) => Ok(seed.claude.to_vec()),
                None => EventName::parse(&name)
                    .map(|e| vec![e])
                    .map_err(|e| e.to_string()),
            };
            match targets {
                Ok(targets) => {
                    let first = targets[0].clone();
                    if let Some(groups) = self.event(&name, &first, peek, at)? {
                        let repeated = written.contains(&name);
                        if repeated {
                            let d = Diagnostic::warning(format!(
                                "`{name}` is written twice in `hooks`; the later one is used (as by JSON.parse in Claude Code)"
                            ));
                            self.report_here(d, at);
                        }
                        let mut groups = Some(groups);
                        let count = targets.len();
                        for (i, event) in targets.into_iter().enumerate() {
                            let these = if i + 1 == count {
                                groups.take().unwrap_or_default()
                            } else {
                                groups.clone().unwrap_or_default()
                            };
                            let list = events.entry(event).or_default();
                            if repeated {
                                list.clear();
                            }
                            // A seed name and its Claude Code name both add to the one event.
                            list.extend(these);
                        }
                        written.push(name);
                    }
                }
                Err(problem) => {
                    let d = Diagnostic::error(format!("{problem}; its hooks are skipped"));
                    self.report_here(d, at);
                    self.json.known_skip(peek)?;
                }
            }
            self.key.cut(mark);
            key = self.json.next_key()?.map(str::to_string);
        }
        Ok(())
    }

    /// One event's list (the key path names the event, `written` as in the file): matcher groups,
    /// or hooks written directly in the list (the seed's shape), each read as its own group that
    /// matches everything.
    fn event(
        &mut self,
        written: &str,
        event: &EventName,
        peek: Peek,
        at: usize,
    ) -> Step<Option<Vec<MatcherGroup>>> {
        if !self.count_entry(at) {
            self.json.known_skip(peek)?;
            return Ok(None);
        }
        if !event.is_known() && crate::seed::seed_event(written).is_none() {
            let meant = crate::diagnostics::closest(
                event.as_str(),
                EventName::KNOWN
                    .iter()
                    .map(EventName::as_str)
                    .chain(crate::seed::SEED_EVENTS.iter().map(|e| e.name)),
            );
            // A near miss of a known name is a typo: its hooks would never run, and a warning is
            // easy to miss. A name far from every known one may be a newer host's event: kept.
            let d = match meant {
                Some(meant) => Diagnostic::error(format!(
                    "`{event}` is not an event Claude Code 2.1.328 fires, so its hooks never run; did you mean `{meant}`?"
                )),
                None => Diagnostic::warning(format!(
                    "`{event}` is not an event Claude Code 2.1.328 fires; its hooks run only if a host emits it"
                )),
            };
            self.report_here(d, at);
        }
        if peek != Peek::Array {
            self.wrong_container(peek, at, "an event's matcher groups", "an array")?;
            return Ok(None);
        }
        let groups = self.elements(|reader, peek, at, index| {
            if peek == Peek::Object && reader.is_seed_hook(at) {
                reader.seed_hook(written, event, at, index)
            } else {
                reader.group(event, peek, at, index)
            }
        })?;
        Ok(Some(groups))
    }

    /// Whether the object at offset `at` of an event's list is a hook (it has a `type` and no
    /// `hooks` or `matcher`) rather than a matcher group. Claude Code's groups nearly always start
    /// with `matcher` or `hooks`, so one key is read for them.
    fn is_seed_hook(&self, at: usize) -> bool {
        let mut ahead = Jiter::new(&self.text[at..]);
        let mut has_type = false;
        let mut key = match ahead.next_object() {
            Ok(k) => k.map(str::to_string),
            Err(_) => return false,
        };
        while let Some(k) = key {
            match k.as_str() {
                "hooks" | "matcher" => return false,
                "type" => has_type = true,
                _ => {}
            }
            let step = ahead.peek().and_then(|p| ahead.known_skip(p));
            key = match step.and_then(|()| ahead.next_key()) {
                Ok(k) => k.map(str::to_string),
                Err(_) => return has_type,
            };
        }
        has_type
    }

    /// A hook written directly in an event's list (the key path names it), as a group of its own.
    fn seed_hook(
        &mut self,
        written: &str,
        event: &EventName,
        at: usize,
        index: usize,
    ) -> Step<Option<MatcherGroup>> {
        let position = self.lines.position(at);
        let id = HookId {
            source: self.source_index,
            group: index,
            index: 0,
        };
        self.seed_event = Some(Arc::from(written));
        let hook = self.hook(event, Peek::Object, at, id);
        self.seed_event = None;
        let Some(hook) = hook? else { return Ok(None) };
        Ok(Some(MatcherGroup {
            matcher: Matcher::compile(None, event.traits().exact_matcher_allows_extended_chars),
            matcher_text: None,
            hooks: vec![hook],
            source: self.source.clone(),
            key: self.key.0.clone(),
            position,
        }))
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
        if !self.count_entry(at) {
            self.json.known_skip(peek)?;
            return Ok(None);
        }
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
                    let hint = self.hint(&name, ["matcher", "hooks"]);
                    let d = Diagnostic::warning(format!(
                        "unknown key `{name}` in a matcher group; ignored{hint}"
                    ));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Severity;
    use std::path::PathBuf;

    /// `n` command hooks in one matcher group of PreToolUse: `n + 2` entries.
    fn with_hooks(n: usize) -> String {
        let hooks: Vec<String> = (0..n)
            .map(|i| format!(r#"{{"type": "command", "command": "echo {i}"}}"#))
            .collect();
        format!(
            r#"{{"hooks": {{"PreToolUse": [{{"hooks": [{}]}}]}}}}"#,
            hooks.join(",")
        )
    }

    #[test]
    fn a_file_past_the_entries_it_may_hold_is_skipped_whole_with_one_error() {
        let at_limit = parse(&with_hooks(MAX_ENTRIES_PER_FILE - 2));
        assert!(at_limit.diagnostics.is_empty(), "{:?}", at_limit.diagnostics);
        assert_eq!(at_limit.entries, MAX_ENTRIES_PER_FILE);
        assert_eq!(
            at_limit.events[&EventName::PreToolUse][0].hooks.len(),
            MAX_ENTRIES_PER_FILE - 2
        );

        let past = parse(&with_hooks(MAX_ENTRIES_PER_FILE - 1));
        assert!(past.events.is_empty(), "skipped whole");
        assert_eq!(past.entries, 0);
        assert_eq!(past.diagnostics.len(), 1, "{:?}", past.diagnostics);
        let d = &past.diagnostics[0];
        assert_eq!(d.severity, Severity::Error);
        assert!(
            d.message
                .starts_with("holds more than 10000 events, matcher groups and hooks"),
            "{d}"
        );
        assert!(d.position.is_some(), "at the first entry past the limit: {d}");
        // Groups and events count too: ten thousand empty groups are as many entries.
        let groups = vec![r#"{"hooks": []}"#; MAX_ENTRIES_PER_FILE];
        let text = format!(r#"{{"hooks": {{"Stop": [{}]}}}}"#, groups.join(","));
        assert!(parse(&text).events.is_empty());
    }

    #[test]
    fn past_a_hundred_problems_a_file_lists_no_more_and_counts_them_in_one_line() {
        let keys: Vec<String> = (0..1000).map(|i| format!(r#""k{i}": 1"#)).collect();
        let text = format!(r#"{{{}, "hooks": {{"Stop": []}}}}"#, keys.join(","));
        let parsed = parse(&text);
        assert_eq!(parsed.diagnostics.len(), MAX_DIAGNOSTICS_PER_FILE + 1);
        let last = parsed.diagnostics.last().unwrap();
        assert_eq!(
            last.message,
            "900 more problems in this file are not listed (only the first 100 are)"
        );
        assert_eq!(last.severity, Severity::Warning, "only warnings were left out");
        assert!(
            parsed.events.contains_key(&EventName::Stop),
            "the file still loads"
        );
        // An error among those left out makes the line an error: `validate` still fails.
        let text = format!(r#"{{{}, "hooks": {{"PreToolUs": []}}}}"#, keys.join(","));
        let last = parse(&text).diagnostics.pop().unwrap();
        assert_eq!(last.severity, Severity::Error, "{last}");
        assert!(last.message.starts_with("901 more problems"), "{last}");
    }

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
        assert_eq!(pre.hooks[0].timeout, Some(std::time::Duration::from_secs(5)));
        assert_eq!(f.source.description.as_deref(), Some("d"));
        assert!(matches!(
            f.events[&EventName::Stop][0].hooks[0].kind,
            HookKind::Prompt(_)
        ));
    }

    #[test]
    fn misspelt_events_keys_and_types_get_a_did_you_mean() {
        let f = parse(
            r#"{"hooks": {
                "PreToolUs": [{"matchr": "Bash", "hooks": [{"type": "command", "command": "a", "timout": 5}]}],
                "Stop": [{"hooks": [{"type": "comand", "command": "b"}, {"type": "prompt", "promt": "p", "prompt": "q"}]}]
            }, "disableAllHook": true}"#,
        );
        let messages: Vec<String> = f.diagnostics.iter().map(|d| d.message.clone()).collect();
        for hint in [
            "did you mean `PreToolUse`?",
            "did you mean `matcher`?",
            "did you mean `timeout`?",
            "did you mean `command`?",
            "did you mean `prompt`?",
            "did you mean `disableAllHooks`?",
        ] {
            assert!(
                messages.iter().any(|m| m.contains(hint)),
                "no {hint:?} in {messages:#?}"
            );
        }
        // A near miss of a known event is an error (its hooks would never run); the other
        // misspellings stay warnings.
        let event = f
            .diagnostics
            .iter()
            .find(|d| d.key.as_deref() == Some("hooks.PreToolUs"))
            .unwrap();
        assert_eq!(event.severity, Severity::Error, "{event:?}");
        assert!(event.message.contains("never run"), "{}", event.message);
        let timout = f
            .diagnostics
            .iter()
            .find(|d| d.message.contains("`timout`"))
            .unwrap();
        assert_eq!(timout.severity, Severity::Warning);
        // A key of another hook type is suggested only for its own type.
        let f =
            parse(r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "a", "ulr": "x"}]}]}}"#);
        assert!(
            !f.diagnostics[0].message.contains("did you mean"),
            "{:?}",
            f.diagnostics
        );
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
    fn events_at_the_top_level_are_an_error_that_names_the_fix() {
        // settings.json's shape without its `hooks` wrapper: nothing would load.
        let f = parse(r#"{"PreToolUse": [{"hooks": [{"type": "command", "command": "x"}]}], "colour": 1}"#);
        assert!(f.events.is_empty());
        let event = f
            .diagnostics
            .iter()
            .find(|d| d.key.as_deref() == Some("PreToolUse"))
            .unwrap();
        assert_eq!(event.severity, Severity::Error);
        assert!(
            event.message.contains("events belong under `hooks`"),
            "{}",
            event.message
        );
        let other = f
            .diagnostics
            .iter()
            .find(|d| d.key.as_deref() == Some("colour"))
            .unwrap();
        assert_eq!(other.severity, Severity::Warning);
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
    fn the_type_may_come_last_and_other_types_keys_are_only_warned() {
        let f = parse(
            r#"{"hooks": {"PreToolUse": [{"hooks": [{"command": "a", "url": 5, "timeout": 2, "type": "command"}]}]}}"#,
        );
        let hook = &f.events[&EventName::PreToolUse][0].hooks[0];
        assert_eq!(hook.kind.label(), "a");
        assert_eq!(hook.timeout, Some(std::time::Duration::from_secs(2)));
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
        // Both are reported: the event written twice, and the hook's `command`.
        let messages: Vec<&str> = f.diagnostics.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(
            messages[0].starts_with("`Stop` is written twice in `hooks`"),
            "{messages:?}"
        );
        assert!(
            messages[1].starts_with("`command` is written twice in this hook"),
            "{messages:?}"
        );
        assert_eq!(
            f.diagnostics[1].key.as_deref(),
            Some("hooks.Stop[0].hooks[0].command")
        );
    }

    #[test]
    fn a_key_written_twice_in_a_yaml_hook_is_reported_where_it_is_written_again() {
        let f = parse_yaml(
            "hooks:\n  PreToolUse:\n    - type: matcher\n      match: {tool: Bash}\n      action: block\n      action: allow\n",
        );
        assert_eq!(f.diagnostics.len(), 1, "{:?}", f.diagnostics);
        let d = &f.diagnostics[0];
        assert_eq!(d.severity, crate::diagnostics::Severity::Warning);
        assert!(
            d.message
                .starts_with("`action` is written twice in this hook; the later one is used"),
            "{}",
            d.message
        );
        assert_eq!(d.key.as_deref(), Some("hooks.PreToolUse[0].action"));
        let at = d.position.unwrap();
        assert_eq!((at.line, at.column), (6, 15));
    }

    #[test]
    fn a_yaml_file_that_expands_past_its_bound_is_refused_whole() {
        let mut text = String::from("x0: &x0 [\"lol\"]\n");
        for i in 1..9 {
            let refs = vec![format!("*x{}", i - 1); 10].join(", ");
            text.push_str(&format!("x{i}: &x{i} [{refs}]\n"));
        }
        text.push_str("hooks:\n  PreToolUse:\n    - {type: command, command: guard}\n");
        let f = parse_yaml(&text);
        assert!(f.events.is_empty());
        assert_eq!(f.diagnostics.len(), 1);
        let d = &f.diagnostics[0];
        assert_eq!(d.severity, crate::diagnostics::Severity::Error);
        assert!(
            d.message.contains("too large") && d.message.contains("the whole file is skipped"),
            "{}",
            d.message
        );
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

    fn parse_yaml(text: &str) -> ParsedFile {
        let mut src = source();
        src.path = PathBuf::from("/p/.amplifier/hooks/hooks.yaml");
        parse_hooks_yaml(text, src, 0, "/p")
    }

    #[test]
    fn the_users_sandbox_floor_is_read_in_both_formats_and_a_bad_value_holds_the_most() {
        use crate::config::managed::{SandboxFloor, SandboxedHooks};
        let user = |path: &str| {
            let mut src = source();
            src.scope = Scope::User;
            src.path = PathBuf::from(path);
            src
        };
        let json = parse_hooks_file(
            r#"{"sandboxHooks": "project", "sandboxNetwork": false, "sandboxUnavailable": "runUnsandboxed", "hooks": {}}"#,
            user("/h/.amplifier/hooks/hooks.json"),
            0,
            "/p",
        );
        assert!(json.diagnostics.is_empty(), "{:?}", json.diagnostics);
        let floor = SandboxFloor {
            hooks: Some(SandboxedHooks::Project),
            network: false,
            unavailable: Some(SandboxUnavailable::RunUnsandboxed),
        };
        assert_eq!(json.sandbox_floor, floor);
        let yaml = parse_hooks_yaml(
            "hooks: {}\nsandboxHooks: everything\nsandboxNetwork: 0\nsandboxUnavailable: run\n",
            user("/h/.amplifier/hooks/hooks.yaml"),
            0,
            "/p",
        );
        let found: Vec<_> = yaml
            .diagnostics
            .iter()
            .map(|d| {
                (
                    d.key.clone().unwrap_or_default(),
                    d.position.map(|p| (p.line, p.column)),
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                ("sandboxHooks".to_string(), Some((2, 15))),
                ("sandboxNetwork".to_string(), Some((3, 17))),
                ("sandboxUnavailable".to_string(), Some((4, 21)))
            ]
        );
        assert_eq!(
            yaml.sandbox_floor,
            SandboxFloor {
                hooks: Some(SandboxedHooks::All),
                network: false,
                unavailable: Some(SandboxUnavailable::Refuse),
            }
        );
        // Not a word at all: reported, read as refuse, and the rest of the file still read.
        let odd = parse_hooks_file(
            r#"{"sandboxUnavailable": ["runUnsandboxed"], "sandboxNetwork": false, "hooks": {}}"#,
            user("/h/.amplifier/hooks/hooks.json"),
            0,
            "/p",
        );
        assert_eq!(odd.diagnostics.len(), 1, "{:?}", odd.diagnostics);
        assert!(
            odd.diagnostics[0]
                .message
                .contains("not an array; read as \"refuse\""),
            "{:?}",
            odd.diagnostics
        );
        assert_eq!(odd.sandbox_floor.unavailable, Some(SandboxUnavailable::Refuse));
        assert!(!odd.sandbox_floor.network);
        // A project's file, and a plugin's (one the user installed, too): reported, nothing set.
        let project =
            parse(r#"{"sandboxHooks": "all", "sandboxUnavailable": "runUnsandboxed", "hooks": {}}"#);
        assert_eq!(project.sandbox_floor, SandboxFloor::NONE);
        assert_eq!(project.diagnostics.len(), 2, "{:?}", project.diagnostics);
        for (d, key) in project
            .diagnostics
            .iter()
            .zip(["sandboxHooks", "sandboxUnavailable"])
        {
            assert!(d.message.contains("not from a project's files"), "{d:?}");
            assert_eq!(d.key.as_deref(), Some(key));
        }
        let mut plugin_file = user("/h/.amplifier/hooks/p/hooks/hooks.json");
        plugin_file.plugin = Some(Plugin {
            name: "p".into(),
            root: PathBuf::from("/h/.amplifier/hooks/p"),
            data_dir: PathBuf::from("/h/.amplifier/hooks/p-data"),
        });
        let plugin = parse_hooks_file(r#"{"sandboxHooks": "all", "hooks": {}}"#, plugin_file, 0, "/p");
        assert_eq!(plugin.sandbox_floor, SandboxFloor::NONE);
        assert!(plugin.diagnostics[0]
            .message
            .contains("not from a plugin's files"));
    }

    #[test]
    fn the_seeds_shape_loads_with_its_keys_and_event_names() {
        let f = parse_yaml(
            "hooks:\n  PreToolUse:\n    - type: command\n      command: a\n      timeout_ms: 1500\n      on_failure: block\n    - matcher: Bash\n      hooks:\n        - {type: command, command: b, onFailure: ignore}\n    - type: matcher\n      match: {tool: Bash, args: {command: 'rm *'}}\n      action: ask\n  Error:\n    - type: llm\n      prompt: 'Safe? {{args}}'\n      max_tokens: 50\n      cache: true\n",
        );
        assert!(f.diagnostics.is_empty(), "{:?}", f.diagnostics);
        let pre = &f.events[&EventName::PreToolUse];
        assert_eq!(pre.len(), 3);
        let seed_command = &pre[0].hooks[0];
        assert_eq!(seed_command.seed_event.as_deref(), Some("PreToolUse"));
        assert_eq!(seed_command.timeout, Some(std::time::Duration::from_millis(1500)));
        assert_eq!(seed_command.on_failure, OnFailure::Block);
        assert_eq!(seed_command.key, "hooks.PreToolUse[0]");
        assert_eq!((seed_command.position.line, seed_command.position.column), (3, 7));
        assert!(pre[0].matcher_text.is_none());
        // A Claude Code group in the same list stays Claude Code's dialect.
        assert_eq!(pre[1].matcher_text.as_deref(), Some("Bash"));
        assert_eq!(pre[1].hooks[0].seed_event, None);
        assert_eq!(pre[1].hooks[0].on_failure, OnFailure::Ignore);
        let HookKind::Rule(rule) = &pre[2].hooks[0].kind else {
            panic!()
        };
        assert_eq!(rule.action, crate::seed::RuleAction::Ask);
        // The seed's Error is both of Claude Code's failure events.
        for event in [EventName::PostToolUseFailure, EventName::StopFailure] {
            let HookKind::Llm(llm) = &f.events[&event][0].hooks[0].kind else {
                panic!()
            };
            assert_eq!((llm.max_tokens, llm.cache), (Some(50), true));
            assert_eq!(f.events[&event][0].hooks[0].seed_event.as_deref(), Some("Error"));
        }
    }

    #[test]
    fn the_seeds_mistakes_are_pinpointed_in_the_yaml() {
        let text = "hooks:\n  PreToolUse:\n    - type: command\n      command: a\n      timeout: 5000\n    - type: command\n      command: b\n      on_failure: sometimes\n    - type: matcher\n      match: {tool: 'Bash[', args: {command: 'rm *'}}\n      action: block\n    - type: matcher\n      match: {tool: Bash}\n      action: deny\n      mesage: x\n  SessionStop:\n    - type: command\n      command: c\n      timeout_ms: 5\n  Checkpoint:\n    - {type: command, command: d}\n";
        let f = parse_yaml(text);
        let found: Vec<(String, usize, Severity)> = f
            .diagnostics
            .iter()
            .map(|d| {
                (
                    d.key.clone().unwrap_or_default(),
                    d.position.unwrap().line,
                    d.severity,
                )
            })
            .collect();
        let expect = [
            ("hooks.PreToolUse[0].timeout", 5, Severity::Warning),
            ("hooks.PreToolUse[1].on_failure", 8, Severity::Error),
            ("hooks.PreToolUse[2].match.tool", 10, Severity::Error),
            ("hooks.PreToolUse[3].action", 14, Severity::Error),
            ("hooks.PreToolUse[3].mesage", 15, Severity::Warning),
            ("hooks.SessionStop[0].timeout_ms", 19, Severity::Warning),
            ("hooks.Checkpoint", 21, Severity::Warning),
        ];
        for (key, line, severity) in expect {
            assert!(
                found
                    .iter()
                    .any(|(k, l, s)| k == key && *l == line && *s == severity),
                "no {severity:?} at {key} line {line} in {found:#?}"
            );
        }
        assert_eq!(found.len(), expect.len(), "{found:#?}");
        // The good hooks still load: the timeout warning's hook, the SessionStop and Checkpoint ones.
        assert_eq!(f.events[&EventName::PreToolUse].len(), 1);
        assert_eq!(f.events[&EventName::SessionEnd].len(), 1);
        assert_eq!(f.events[&EventName::Unknown("Checkpoint".into())].len(), 1);
        let bad = parse_yaml("hooks:\n  Stop:\n    - type: command\n    command: x\n");
        assert!(bad.events.is_empty());
        assert!(
            bad.diagnostics[0].message.starts_with("not valid YAML"),
            "{:?}",
            bad.diagnostics
        );
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
