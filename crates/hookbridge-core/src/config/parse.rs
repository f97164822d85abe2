//! Reading one hooks file with positions: every diagnostic names the line, column and key path.
//!
//! The file is first split into borrowed raw JSON slices (`serde_json::value::RawValue`), level by
//! level. A slice borrows from the source text, so its byte offset is known exactly; each entry is
//! then deserialized on its own (through `serde_path_to_error`) and its errors are shifted back to
//! file positions. This is what lets one malformed hook be dropped — and pinpointed — while the rest
//! of the file loads.

use std::path::Path;
use std::sync::Arc;

use indexmap::IndexMap;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::diagnostics::{Diagnostic, Position};
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

/// What the placeholders of this file resolve to.
#[derive(Debug, Clone)]
pub struct Placeholders {
    pub project_dir: String,
    pub hooks_dir: String,
    pub plugin_root: Option<String>,
    pub plugin_data: Option<String>,
}

impl Placeholders {
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
                    "AMPLIFIER_HOOKS_DIR" => Some(self.hooks_dir.as_str()),
                    "CLAUDE_PROJECT_DIR" | "AMPLIFIER_PROJECT_DIR" => Some(self.project_dir.as_str()),
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

/// A JSON object split into its keys and raw values.
type Fields<'a> = IndexMap<Key<'a>, &'a RawValue>;

/// An object key, borrowed from the file's text unless it contains escapes: a config holds a few
/// keys per hook, and loading many plugins should not allocate each one.
#[derive(Debug, PartialEq, Eq, Hash)]
struct Key<'a>(std::borrow::Cow<'a, str>);

impl Key<'_> {
    fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for Key<'_> {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Key<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for Key<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> serde::de::Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object key")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Key(std::borrow::Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Key(std::borrow::Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Key(std::borrow::Cow::Owned(v)))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

struct Reader<'a> {
    text: &'a str,
    path: &'a Path,
    diagnostics: Vec<Diagnostic>,
}

impl<'a> Reader<'a> {
    fn offset_of(&self, raw: &RawValue) -> usize {
        let start = raw.get().as_ptr() as usize;
        let base = self.text.as_ptr() as usize;
        start.saturating_sub(base).min(self.text.len())
    }

    fn position(&self, raw: &RawValue) -> Position {
        Position::of_offset(self.text, self.offset_of(raw))
    }

    fn diag(&mut self, d: Diagnostic, raw: &RawValue, key: &str) {
        let d = d.in_file(self.path).at(self.position(raw)).key(key);
        self.diagnostics.push(d);
    }

    /// Split a JSON object into its keys and raw values; anything else is reported and `None`.
    fn object(&mut self, raw: &'a RawValue, key: &str, what: &str) -> Option<Fields<'a>> {
        match serde_json::from_str::<Fields<'a>>(raw.get()) {
            Ok(map) => Some(map),
            Err(_) => {
                let found = describe(raw);
                self.diag(
                    Diagnostic::error(format!("{what} must be an object, found {found}; ignored")),
                    raw,
                    key,
                );
                None
            }
        }
    }

    fn array(&mut self, raw: &'a RawValue, key: &str, what: &str) -> Option<Vec<&'a RawValue>> {
        match serde_json::from_str::<Vec<&'a RawValue>>(raw.get()) {
            Ok(list) => Some(list),
            Err(_) => {
                let found = describe(raw);
                self.diag(
                    Diagnostic::error(format!("{what} must be an array, found {found}; ignored")),
                    raw,
                    key,
                );
                None
            }
        }
    }

    /// Deserialize `raw` as `T`, reporting errors at their exact position and key path.
    fn typed<T: DeserializeOwned>(&mut self, raw: &'a RawValue, fields: &Fields<'a>, key: &str) -> Option<T> {
        let mut de = serde_json::Deserializer::from_str(raw.get());
        match serde_path_to_error::deserialize::<_, T>(&mut de) {
            Ok(v) => Some(v),
            Err(err) => {
                let inner_path = err.path().to_string();
                let inner = err.inner();
                let base = self.position(raw);
                // serde reports the end of the offending value; point at its start when the path
                // names a field of this object.
                let field = inner_path.split(['.', '[']).next().unwrap_or("");
                let position = if let Some(value) = fields.get(field) {
                    self.position(value)
                } else if inner.line() <= 1 {
                    Position {
                        line: base.line,
                        column: base.column + inner.column().saturating_sub(1),
                    }
                } else {
                    Position {
                        line: base.line + inner.line() - 1,
                        column: inner.column(),
                    }
                };
                let full_key = if inner_path == "." || inner_path.is_empty() {
                    key.to_string()
                } else {
                    format!("{key}.{inner_path}")
                };
                let message = strip_serde_position(&inner.to_string());
                self.diagnostics.push(
                    Diagnostic::error(format!("{message}; this hook is skipped"))
                        .in_file(self.path)
                        .at(position)
                        .key(full_key),
                );
                None
            }
        }
    }
}

/// serde_json appends " at line L column C" (relative to the slice); positions are reported separately.
fn strip_serde_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

fn describe(raw: &RawValue) -> &'static str {
    match raw.get().trim_start().as_bytes().first() {
        Some(b'{') => "an object",
        Some(b'[') => "an array",
        Some(b'"') => "a string",
        Some(b't') | Some(b'f') => "a boolean",
        Some(b'n') => "null",
        _ => "a number",
    }
}

/// Parse one hooks file (`hooks.json`, a plugin's `hooks/hooks.json`, or a `plugin.json` whose
/// `hooks` field is inline). `source_index` numbers the file in discovery order.
pub fn parse_hooks_file(
    text: &str,
    source: Arc<ConfigSource>,
    source_index: usize,
    placeholders: &Placeholders,
) -> ParsedFile {
    let mut reader = Reader {
        text,
        path: &source.path,
        diagnostics: Vec::new(),
    };
    let mut parsed = ParsedFile {
        source: source.clone(),
        events: IndexMap::new(),
        diagnostics: Vec::new(),
        disable_all_hooks: false,
    };
    let top: Fields<'_> = match serde_json::from_str(text) {
        Ok(top) => top,
        Err(err) => {
            let message = if err.is_syntax() || err.is_eof() {
                format!(
                    "not valid JSON: {}; the whole file is skipped",
                    strip_serde_position(&err.to_string())
                )
            } else {
                "a hooks file must be a JSON object; the whole file is skipped".to_string()
            };
            parsed
                .diagnostics
                .push(Diagnostic::error(message).in_file(&source.path).at(Position {
                    line: err.line().max(1),
                    column: err.column().max(1),
                }));
            return parsed;
        }
    };
    let mut description = None;
    for (key, raw) in &top {
        match key.as_str() {
            "hooks" => {}
            "description" => description = serde_json::from_str::<String>(raw.get()).ok(),
            "disableAllHooks" => match serde_json::from_str::<bool>(raw.get()) {
                Ok(b) => parsed.disable_all_hooks = b,
                Err(_) => reader.diag(
                    Diagnostic::error("must be true or false; ignored"),
                    raw,
                    "disableAllHooks",
                ),
            },
            // Keys of Claude Code settings files and plugin manifests that are not about hooks.
            "$schema" | "name" | "version" | "author" | "homepage" | "repository" | "license"
            | "keywords" | "permissions" | "env" | "model" | "statusLine" | "enabledPlugins" | "commands"
            | "agents" | "skills" | "mcpServers" | "outputStyles" | "lspServers" | "userConfig" => {}
            other => reader.diag(
                Diagnostic::warning(format!("unknown top-level key `{other}`; ignored")),
                raw,
                other,
            ),
        }
    }
    if let Some(raw_hooks) = top.get("hooks") {
        if let Some(events) = reader.object(raw_hooks, "hooks", "`hooks`") {
            for (event_name, raw_groups) in events {
                let key = format!("hooks.{event_name}");
                let event = match EventName::parse(event_name.as_str()) {
                    Ok(e) => e,
                    Err(e) => {
                        reader.diag(
                            Diagnostic::error(format!("{e}; its hooks are skipped")),
                            raw_groups,
                            &key,
                        );
                        continue;
                    }
                };
                if !event.is_known() {
                    reader.diag(
                        Diagnostic::warning(format!(
                            "`{event_name}` is not an event Claude Code 2.1.328 fires; its hooks run only if a host emits it"
                        )),
                        raw_groups,
                        &key,
                    );
                }
                let Some(raw_list) = reader.array(raw_groups, &key, "an event's matcher groups") else {
                    continue;
                };
                let mut groups = Vec::with_capacity(raw_list.len());
                for (gi, raw_group) in raw_list.into_iter().enumerate() {
                    let gkey = format!("{key}[{gi}]");
                    if let Some(group) = read_group(
                        &mut reader,
                        &event,
                        raw_group,
                        &gkey,
                        &source,
                        source_index,
                        gi,
                        placeholders,
                    ) {
                        groups.push(group);
                    }
                }
                parsed.events.entry(event).or_default().extend(groups);
            }
        }
    }
    if description.is_some() && source.description.is_none() {
        let mut source_with_description = (*source).clone();
        source_with_description.description = description;
        let new_source = Arc::new(source_with_description);
        for groups in parsed.events.values_mut() {
            for g in groups.iter_mut() {
                g.source = new_source.clone();
                for h in g.hooks.iter_mut() {
                    h.source = new_source.clone();
                }
            }
        }
        parsed.source = new_source;
    }
    parsed.diagnostics.extend(reader.diagnostics);
    parsed
}

#[allow(clippy::too_many_arguments)]
fn read_group<'a>(
    reader: &mut Reader<'a>,
    event: &EventName,
    raw: &'a RawValue,
    key: &str,
    source: &Arc<ConfigSource>,
    source_index: usize,
    group_index: usize,
    placeholders: &Placeholders,
) -> Option<MatcherGroup> {
    let fields = reader.object(raw, key, "a matcher group")?;
    let mut matcher_text = None;
    for (k, v) in &fields {
        match k.as_str() {
            "matcher" => match serde_json::from_str::<Option<String>>(v.get()) {
                Ok(m) => matcher_text = m,
                Err(_) => {
                    reader.diag(
                        Diagnostic::error("`matcher` must be a string; this group is skipped"),
                        v,
                        &format!("{key}.matcher"),
                    );
                    return None;
                }
            },
            "hooks" => {}
            other => reader.diag(
                Diagnostic::warning(format!("unknown key `{other}` in a matcher group; ignored")),
                v,
                &format!("{key}.{other}"),
            ),
        }
    }
    let Some(raw_hooks) = fields.get("hooks") else {
        reader.diag(
            Diagnostic::error("a matcher group needs a `hooks` array; this group is skipped"),
            raw,
            key,
        );
        return None;
    };
    let hooks_key = format!("{key}.hooks");
    let list = reader.array(raw_hooks, &hooks_key, "`hooks`")?;
    let traits = event.traits();
    let matcher = Matcher::compile(
        matcher_text.as_deref(),
        traits.exact_matcher_allows_extended_chars,
    );
    if let Err(e) = &matcher {
        let at = fields.get("matcher").copied().unwrap_or(raw);
        reader.diag(
            Diagnostic::error(format!("{e}; this group never matches (as in Claude Code)")),
            at,
            &format!("{key}.matcher"),
        );
    }
    if traits.match_field.is_none() {
        if let (Some(text), Some(at)) = (&matcher_text, fields.get("matcher")) {
            if !text.is_empty() && text != "*" {
                reader.diag(
                    Diagnostic::warning(format!(
                        "{event} has no matcher target; matcher `{text}` is ignored and the group always runs (as in Claude Code)"
                    )),
                    at,
                    &format!("{key}.matcher"),
                );
            }
        }
    }
    let mut hooks = Vec::with_capacity(list.len());
    for (hi, raw_hook) in list.into_iter().enumerate() {
        let hkey = format!("{hooks_key}[{hi}]");
        let id = HookId {
            source: source_index,
            group: group_index,
            index: hi,
        };
        if let Some(h) = read_hook(reader, event, raw_hook, &hkey, source, id, placeholders) {
            hooks.push(h);
        }
    }
    Some(MatcherGroup {
        matcher,
        matcher_text,
        hooks,
        source: source.clone(),
        key: key.to_string(),
        position: reader.position(raw),
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CommonFields {
    #[serde(default, deserialize_with = "seconds")]
    timeout: Option<f64>,
    #[serde(default, rename = "if")]
    condition: Option<String>,
    #[serde(default)]
    status_message: Option<String>,
    #[serde(default)]
    once: Option<bool>,
    #[serde(default)]
    on_failure: Option<OnFailureField>,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum OnFailureField {
    Block,
    Continue,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum ShellField {
    Bash,
    Sh,
    Powershell,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CommandFields {
    command: String,
    #[serde(default)]
    args: Option<Vec<String>>,
    #[serde(default)]
    shell: Option<ShellField>,
    #[serde(default, rename = "async")]
    run_async: Option<bool>,
    #[serde(default)]
    async_rewake: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PromptFields {
    prompt: String,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    continue_on_block: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HttpFields {
    url: String,
    #[serde(default)]
    headers: IndexMap<String, String>,
    #[serde(default)]
    allowed_env_vars: Vec<String>,
}

#[derive(Deserialize)]
struct McpFields {
    server: String,
    tool: String,
    #[serde(default)]
    input: Option<Value>,
}

fn seconds<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    struct Visitor;
    impl<'de> serde::de::Visitor<'de> for Visitor {
        type Value = Option<f64>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a positive number of seconds")
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
            self.visit_f64(v as f64)
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
            self.visit_f64(v as f64)
        }
        fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
            if v.is_finite() && v > 0.0 {
                Ok(Some(v))
            } else {
                Err(E::custom(format!(
                    "invalid timeout {v}, expected a positive number of seconds"
                )))
            }
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    }
    d.deserialize_any(Visitor)
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

fn read_hook<'a>(
    reader: &mut Reader<'a>,
    event: &EventName,
    raw: &'a RawValue,
    key: &str,
    source: &Arc<ConfigSource>,
    id: HookId,
    placeholders: &Placeholders,
) -> Option<HookSpec> {
    let fields = reader.object(raw, key, "a hook")?;
    let type_name = match fields.get("type") {
        None => {
            reader.diag(Diagnostic::error("a hook needs a `type` (\"command\", \"prompt\", \"agent\", \"http\" or \"mcp_tool\"); this hook is skipped"), raw, key);
            return None;
        }
        Some(t) => match serde_json::from_str::<String>(t.get()) {
            Ok(s) => s,
            Err(_) => {
                reader.diag(
                    Diagnostic::error("`type` must be a string; this hook is skipped"),
                    t,
                    &format!("{key}.type"),
                );
                return None;
            }
        },
    };
    let specific: &[&str] = match type_name.as_str() {
        "command" => COMMAND_KEYS,
        "prompt" | "agent" => PROMPT_KEYS,
        "http" => HTTP_KEYS,
        "mcp_tool" => MCP_KEYS,
        other => {
            let at = fields["type"];
            reader.diag(
                Diagnostic::error(format!(
                    "unknown hook type `{other}` (expected \"command\", \"prompt\", \"agent\", \"http\" or \"mcp_tool\"); this hook is skipped"
                )),
                at,
                &format!("{key}.type"),
            );
            return None;
        }
    };
    for (k, v) in &fields {
        if !COMMON_KEYS.contains(&k.as_str()) && !specific.contains(&k.as_str()) {
            reader.diag(
                Diagnostic::warning(format!("unknown key `{k}` for a {type_name} hook; ignored")),
                v,
                &format!("{key}.{k}"),
            );
        }
    }
    let common: CommonFields = reader.typed(raw, &fields, key)?;
    let kind = match type_name.as_str() {
        "command" => {
            let c: CommandFields = reader.typed(raw, &fields, key)?;
            if c.command.trim().is_empty() {
                reader.diag(
                    Diagnostic::error("`command` is empty; this hook is skipped"),
                    fields["command"],
                    &format!("{key}.command"),
                );
                return None;
            }
            let shell = match c.shell {
                Some(ShellField::Powershell) => Shell::PowerShell,
                _ => Shell::Default,
            };
            let in_plugin = placeholders.plugin_root.is_some();
            let exec_form = c.args.is_some();
            let names_plugin_variable =
                c.command.contains("${CLAUDE_PLUGIN_ROOT}") || c.command.contains("${CLAUDE_PLUGIN_DATA}");
            let plugin_variable_outside_plugin = !in_plugin && !exec_form && names_plugin_variable;
            if plugin_variable_outside_plugin {
                reader.diag(
                    Diagnostic::warning(
                        "uses ${CLAUDE_PLUGIN_ROOT}/${CLAUDE_PLUGIN_DATA} but this file is not in a plugin folder; Claude Code never runs such a hook, and neither does hookbridge (put it in `.amplifier/hooks/<plugin>/`)",
                    ),
                    fields["command"],
                    &format!("{key}.command"),
                );
            }
            let args = c.args.map(|a| a.iter().map(|s| placeholders.expand(s)).collect());
            let resolved_command = if in_plugin || exec_form {
                placeholders.expand(&c.command)
            } else {
                c.command.clone()
            };
            HookKind::Command(CommandHook {
                plugin_variable_outside_plugin,
                resolved_command,
                command: c.command,
                args,
                shell,
                run_async: c.run_async.unwrap_or(false) || c.async_rewake.unwrap_or(false),
                async_rewake: c.async_rewake.unwrap_or(false),
            })
        }
        "prompt" | "agent" => {
            let p: PromptFields = reader.typed(raw, &fields, key)?;
            let hook = PromptHook {
                prompt: p.prompt,
                model: p.model,
                continue_on_block: p.continue_on_block.unwrap_or(false),
            };
            if type_name == "prompt" {
                HookKind::Prompt(hook)
            } else {
                HookKind::Agent(hook)
            }
        }
        "http" => {
            let h: HttpFields = reader.typed(raw, &fields, key)?;
            HookKind::Http(HttpHook {
                url: h.url,
                headers: h.headers,
                allowed_env_vars: h.allowed_env_vars,
            })
        }
        _ => {
            let m: McpFields = reader.typed(raw, &fields, key)?;
            HookKind::McpTool(McpToolHook {
                server: m.server,
                tool: m.tool,
                input: m.input,
            })
        }
    };
    let condition = match common.condition {
        None => None,
        Some(text) => match Condition::parse(&text) {
            Ok(c) => {
                if !event.traits().is_tool_event {
                    reader.diag(
                        Diagnostic::warning(format!(
                            "`if` applies only to tool events; on {event} Claude Code never runs this hook, and neither does hookbridge"
                        )),
                        fields["if"],
                        &format!("{key}.if"),
                    );
                }
                Some(c)
            }
            Err(e) => {
                reader.diag(
                    Diagnostic::error(format!("{e}; this hook is skipped")),
                    fields["if"],
                    &format!("{key}.if"),
                );
                return None;
            }
        },
    };
    Some(HookSpec {
        id,
        kind,
        timeout_secs: common.timeout,
        condition,
        status_message: common.status_message,
        once: common.once.unwrap_or(false),
        on_failure: match common.on_failure {
            Some(OnFailureField::Block) => OnFailure::Block,
            _ => OnFailure::Continue,
        },
        source: source.clone(),
        key: key.to_string(),
        position: reader.position(raw),
    })
}

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

    fn source() -> Arc<ConfigSource> {
        Arc::new(ConfigSource {
            path: PathBuf::from("/p/.amplifier/hooks/hooks.json"),
            scope: Scope::Project,
            hooks_dir: PathBuf::from("/p/.amplifier/hooks"),
            plugin: None,
            description: None,
        })
    }

    fn placeholders() -> Placeholders {
        Placeholders {
            project_dir: "/p".into(),
            hooks_dir: "/p/.amplifier/hooks".into(),
            plugin_root: None,
            plugin_data: None,
        }
    }

    fn parse(text: &str) -> ParsedFile {
        parse_hooks_file(text, source(), 0, &placeholders())
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
}
