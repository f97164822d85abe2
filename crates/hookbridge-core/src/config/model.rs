//! The loaded configuration: sources, matcher groups and hook specs.

use std::path::PathBuf;
use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::Value;

use crate::diagnostics::{Diagnostic, Position};
use crate::event::EventName;
use crate::matcher::{Matcher, MatcherError};

use super::condition::Condition;
use super::hook_type::HookType;
pub use super::http_policy::{HttpLimits, HttpPolicy, PolicyLevel};

/// Where a config came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// `<project>/.amplifier/hooks/`.
    Project,
    /// `~/.amplifier/hooks/`.
    User,
    /// A file named explicitly (tests, `--config`).
    Explicit,
    /// Managed policy (`/etc/hookbridge/managed.json`): set by an administrator, never
    /// overridden by a user or a project.
    Managed,
}

impl Scope {
    /// Whose limits on http hooks a file of this scope sets.
    pub fn policy_level(self) -> PolicyLevel {
        match self {
            Scope::Project => PolicyLevel::Project,
            Scope::User | Scope::Explicit => PolicyLevel::User,
            Scope::Managed => PolicyLevel::Managed,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::User => "user",
            Scope::Explicit => "explicit",
            Scope::Managed => "managed",
        }
    }
}

/// A plugin folder: a Claude Code plugin (`.claude-plugin/plugin.json`, `hooks/hooks.json`) or an
/// Amplifier hook folder (`<name>/hooks.json`) placed under a hooks directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plugin {
    pub name: String,
    /// `${CLAUDE_PLUGIN_ROOT}`: the plugin's folder.
    pub root: PathBuf,
    /// `${CLAUDE_PLUGIN_DATA}`: a persistent folder for the plugin's own state.
    pub data_dir: PathBuf,
}

/// One config file that was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigSource {
    pub path: PathBuf,
    pub scope: Scope,
    /// The hooks directory this file belongs to (`${AMPLIFIER_HOOKS_DIR}`).
    pub hooks_dir: PathBuf,
    pub plugin: Option<Plugin>,
    pub description: Option<String>,
}

/// A hook's identity: which file, event, group and position declared it. Stable across runs of the
/// same config, and the basis of declaration order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HookId {
    pub source: usize,
    pub group: usize,
    pub index: usize,
}

/// What to do when a hook fails to give an answer (cannot start, times out, exits unexpectedly,
/// answers something that cannot be read): `onFailure` / the seed's `on_failure`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnFailure {
    /// Fail open and say so, Claude Code's default (`continue`; the seed's `warn`).
    #[default]
    Continue,
    /// Treat the failure as a block, like exit code 2.
    Block,
    /// Fail open silently: the failure is in the log and reports only (the seed's `ignore`).
    Ignore,
}

/// The shell a shell-form command runs under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Shell {
    /// `/bin/sh -c` — what Claude Code runs for `"bash"` (the default) on macOS and Linux.
    #[default]
    Default,
    PowerShell,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CommandHook {
    /// The command as written.
    pub command: String,
    /// The command as it runs: in plugins and in exec form, the placeholders
    /// (`${CLAUDE_PLUGIN_ROOT}`, `${CLAUDE_PROJECT_DIR}`, …) substituted; in shell form outside a
    /// plugin, unchanged — the shell expands them from the environment, so `'${X}'` stays literal
    /// as in Claude Code (case 188).
    pub resolved_command: String,
    /// Exec form: run `resolved_command` with these arguments and no shell.
    pub args: Option<Vec<String>>,
    pub shell: Shell,
    /// `async: true` — started in the background; its answer cannot change this event.
    pub run_async: bool,
    pub async_rewake: bool,
    /// A shell command outside a plugin that names a plugin variable: never runs (case 188).
    pub plugin_variable_outside_plugin: bool,
    /// `"warm": false` (hookbridge's own key): never run in a warm Python service.
    pub warm: bool,
    /// `"sandbox"` (hookbridge's own key): what the hook's process may touch, enforced by the
    /// kernel; `None` runs it with every right its user has.
    pub sandbox: Option<Sandbox>,
    /// `"answers"` (hookbridge's own key): the agent whose answers the hook prints (a hook
    /// migrated from Cursor, Copilot or Gemini CLI); `None`: Claude Code's.
    pub answers: Option<crate::decision::foreign::AnswersAs>,
}

/// A command hook's sandbox (`"sandbox": true`, or an object that refines it): the hook reads
/// everywhere but the user's credentials (`~/.ssh`, `~/.aws`, …) and is given no environment
/// variable named as a secret (`ANTHROPIC_API_KEY`, `GITHUB_TOKEN`, …) but those in `env`, writes
/// only the project, its own temporary folder and the paths in `write`, reaches the network only
/// as `network` says, and can neither gain privileges nor signal processes outside its sandbox.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Sandbox {
    /// More paths the hook may write beneath, as written (`~/` is the home folder; a relative
    /// path is the project's, and counts only where it really lies inside the project).
    pub write: Vec<String>,
    /// What network the hook reaches (`false`: none).
    pub network: Network,
    /// The environment variables named as secrets that the hook is given all the same (each
    /// once, in order written): by default it is given none of them.
    pub env: Vec<String>,
}

/// What network a sandboxed hook reaches: `"network": false` (the default), `true`, or a list of
/// TCP ports.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Network {
    /// No socket at all (a process's own `socketpair` aside).
    #[default]
    None,
    /// TCP connections to these ports only, sorted and each once — on any address, for the kernel
    /// (Landlock) says ports, not addresses. No listening, no UDP, no Unix-domain sockets.
    TcpPorts(Vec<u16>),
    /// Every socket.
    All,
}

impl Network {
    /// Whether the hook reaches any network.
    pub fn any(&self) -> bool {
        !matches!(self, Network::None)
    }

    /// As written in a hooks file: `false`, `true` or the list of ports.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Network::None => serde_json::Value::Bool(false),
            Network::All => serde_json::Value::Bool(true),
            Network::TcpPorts(ports) => serde_json::json!(ports),
        }
    }
}

impl std::fmt::Display for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Network::None => f.write_str("no network"),
            Network::All => f.write_str("network"),
            Network::TcpPorts(ports) => {
                f.write_str("TCP to port")?;
                if ports.len() > 1 {
                    f.write_str("s")?;
                }
                for (i, port) in ports.iter().enumerate() {
                    write!(f, "{}{port}", if i == 0 { " " } else { ", " })?;
                }
                f.write_str(" only")
            }
        }
    }
}

/// Where a path of [`Sandbox::write`] lies, as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeclaredPath<'a> {
    /// `~` or `~/rest`: beneath the user's home folder (`rest` empty for the folder itself).
    Home(&'a str),
    /// An absolute path.
    Absolute(&'a std::path::Path),
    /// A relative path: the project's.
    Project(&'a str),
}

impl<'a> DeclaredPath<'a> {
    pub fn of(path: &'a str) -> DeclaredPath<'a> {
        match path.strip_prefix("~/").or((path == "~").then_some("")) {
            Some(rest) => DeclaredPath::Home(rest),
            None if std::path::Path::new(path).is_absolute() => {
                DeclaredPath::Absolute(std::path::Path::new(path))
            }
            None => DeclaredPath::Project(path),
        }
    }
}

/// The sandbox in a few words, as `list` and `trust` show it: `sandboxed (writes project, temp,
/// ~/.cache/lint; no network; no credentials)`.
impl std::fmt::Display for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("sandboxed (writes project, temp")?;
        for path in &self.write {
            write!(f, ", {path}")?;
        }
        write!(f, "; {}; no credentials", self.network)?;
        match self.env.as_slice() {
            [] => f.write_str(")"),
            kept => write!(f, " but ${})", kept.join(", $")),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct PromptHook {
    pub prompt: String,
    pub model: Option<String>,
    pub continue_on_block: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct HttpHook {
    pub url: String,
    pub headers: IndexMap<String, String>,
    pub allowed_env_vars: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct McpToolHook {
    pub server: String,
    pub tool: String,
    pub input: Option<Value>,
}

/// A rule hook (`type: matcher`, the seed's dialect): decided in process.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleHook {
    pub rule: crate::seed::Rule,
    pub action: crate::seed::RuleAction,
    pub message: Option<String>,
    /// The rule in one line (`tool=Bash args.command=rm *`), for listings.
    pub label: String,
}

/// An llm hook (`type: llm`, the seed's dialect).
#[derive(Debug, Clone, PartialEq)]
pub struct LlmHook {
    /// The template (`{{tool}}`, `{{args}}`, …; see [`crate::seed::llm`]).
    pub prompt: String,
    pub model: Option<String>,
    pub max_tokens: Option<u32>,
    /// Answer identical requests from the on-disk cache.
    pub cache: bool,
}

/// The kinds of handler: Claude Code's five, and the seed dialect's `matcher` and `llm`.
#[derive(Debug, Clone, PartialEq)]
pub enum HookKind {
    Command(CommandHook),
    Prompt(PromptHook),
    Agent(PromptHook),
    Http(HttpHook),
    McpTool(McpToolHook),
    Rule(RuleHook),
    Llm(LlmHook),
}

impl HookKind {
    /// The hook's `type`.
    pub fn hook_type(&self) -> HookType {
        match self {
            HookKind::Command(_) => HookType::Command,
            HookKind::Prompt(_) => HookType::Prompt,
            HookKind::Agent(_) => HookType::Agent,
            HookKind::Http(_) => HookType::Http,
            HookKind::McpTool(_) => HookType::McpTool,
            HookKind::Rule(_) => HookType::Matcher,
            HookKind::Llm(_) => HookType::Llm,
        }
    }

    /// The hook's `type` as it is written.
    pub fn type_name(&self) -> &'static str {
        self.hook_type().name()
    }

    /// A short human label: the command, URL, prompt or tool.
    pub fn label(&self) -> &str {
        match self {
            HookKind::Command(c) => &c.command,
            HookKind::Prompt(p) | HookKind::Agent(p) => &p.prompt,
            HookKind::Http(h) => &h.url,
            HookKind::McpTool(m) => &m.tool,
            HookKind::Rule(r) => &r.label,
            HookKind::Llm(l) => &l.prompt,
        }
    }
}

/// One handler as configured.
#[derive(Debug, Clone)]
pub struct HookSpec {
    pub id: HookId,
    pub kind: HookKind,
    /// `timeout`, capped at [`MAX_TIMEOUT`](crate::timeout::MAX_TIMEOUT) when the file was read;
    /// `None` means the event's default.
    pub timeout: Option<std::time::Duration>,
    /// `if`: a permission rule such as `Bash(git *)`.
    pub condition: Option<Condition>,
    pub status_message: Option<String>,
    pub once: bool,
    pub on_failure: OnFailure,
    pub source: Arc<ConfigSource>,
    /// Key path in the file, e.g. `hooks.PreToolUse[0].hooks[1]`.
    pub key: String,
    pub position: Position,
    /// Written in the seed's dialect (directly in an event's list) under this event name: it gets
    /// the seed's fields on stdin and its `{"action": …}` answers are read ([`crate::seed`]).
    pub seed_event: Option<Arc<str>>,
    /// Switched off by `hookbridge disable` (its hooks directory's `hookbridge-state.json`):
    /// listed, never run, reported as skipped.
    pub disabled: Option<Disabled>,
    /// Held by trust or managed policy (see [`crate::trust`]): listed, never run, reported as
    /// skipped.
    pub held: Option<Held>,
}

/// One matcher group of one event.
#[derive(Debug, Clone)]
pub struct MatcherGroup {
    /// The compiled matcher, or why it cannot be compiled (then the group never matches).
    pub matcher: Result<Matcher, MatcherError>,
    /// The matcher as written.
    pub matcher_text: Option<String>,
    pub hooks: Vec<HookSpec>,
    pub source: Arc<ConfigSource>,
    pub key: String,
    pub position: Position,
}

/// Everything loaded for a project: groups per event in discovery order, the files read, and every
/// problem found on the way.
#[derive(Debug, Clone, Default)]
pub struct HookSet {
    pub events: IndexMap<EventName, Vec<MatcherGroup>>,
    pub sources: Vec<Arc<ConfigSource>>,
    pub diagnostics: Vec<Diagnostic>,
    /// Set when a user or managed file says `"disableAllHooks": true`: nothing runs, and that file
    /// is named.
    pub disabled_by: Option<PathBuf>,
    /// Set when a project file says `"disableAllHooks": true`: the project's hooks do not run.
    pub project_hooks_disabled_by: Option<PathBuf>,
    /// The managed policy's rules, when a managed file was read (see [`super::managed`]).
    pub managed: Option<super::managed::ManagedRules>,
    /// The user's own floor under hooks' sandboxes (`sandboxHooks` / `sandboxNetwork` in the
    /// user's files, the strictest of them), and the files that set it.
    pub user_sandbox: super::managed::SandboxFloor,
    pub user_sandbox_files: Vec<PathBuf>,
    /// The limits on http hooks, from every file.
    pub http_policy: HttpPolicy,
    /// The home your hooks were looked for in ([`super::DiscoveryOptions::home`]): what `~/`
    /// means in an `if` rule.
    pub home: Option<PathBuf>,
    /// Per event: which groups an exact name reaches, and which groups must be evaluated (match-all,
    /// regex, invalid). Kept up to date by [`HookSet::extend`]; `events` is read-only after loading.
    pub(crate) index: IndexMap<EventName, GroupIndex>,
}

/// Selection's shortcut: exact-name groups are looked up, not scanned.
#[derive(Debug, Clone, Default)]
pub(crate) struct GroupIndex {
    pub(crate) exact: std::collections::HashMap<String, Vec<usize>>,
    /// Groups whose matcher must be evaluated, in declaration order.
    pub(crate) evaluate: Vec<Candidate>,
}

/// A group to evaluate, with what a query needs to have a chance: kept beside the index so that
/// ruling a group out touches one small array, not the group.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Candidate {
    pub(crate) group: usize,
    /// No shorter query can match (the length of the regex's required literal).
    pub(crate) min_query_len: usize,
}

impl HookSet {
    /// Marks every hook of `scope` held for `why` (see [`crate::trust`]); returns how many were
    /// not held before. A hook held only [`Held::AwaitingTrust`] counts as not held: any other
    /// reason replaces that one.
    pub fn hold(&mut self, scope: Scope, why: &Held) -> usize {
        let mut count = 0;
        for hook in self.hooks_mut().filter(|h| h.source.scope == scope) {
            if matches!(hook.held, None | Some(Held::AwaitingTrust)) {
                hook.held = Some(why.clone());
                count += 1;
            }
        }
        count
    }

    /// Lets the hooks of `scope` held for `why`, and for nothing else, run again; returns how many.
    pub fn release(&mut self, scope: Scope, why: &Held) -> usize {
        let mut count = 0;
        for hook in self.hooks_mut().filter(|h| h.source.scope == scope) {
            if hook.held.as_ref() == Some(why) {
                hook.held = None;
                count += 1;
            }
        }
        count
    }

    fn hooks_mut(&mut self) -> impl Iterator<Item = &mut HookSpec> {
        self.events
            .values_mut()
            .flat_map(|groups| groups.iter_mut().flat_map(|g| g.hooks.iter_mut()))
    }

    /// Every hook, in declaration order.
    pub fn hooks(&self) -> impl Iterator<Item = (&EventName, &MatcherGroup, &HookSpec)> {
        self.events.iter().flat_map(|(e, groups)| {
            groups
                .iter()
                .flat_map(move |g| g.hooks.iter().map(move |h| (e, g, h)))
        })
    }

    /// The floor under every hook's sandbox that the loaded files set: the managed policy's and
    /// the user's own settings', the stricter of the two on each point. (A project's trust adds
    /// its own when the hooks run: `DispatchOptions::apply_trust`.)
    pub fn sandbox_floor(&self) -> super::managed::SandboxFloor {
        self.managed
            .as_ref()
            .map_or(self.user_sandbox, |m| m.sandbox.stricter(self.user_sandbox))
    }

    /// Add a parsed file's groups (configs merge by concatenation per event).
    pub fn extend(&mut self, file: super::ParsedFile) {
        self.diagnostics.extend(file.diagnostics);
        self.http_policy
            .absorb(file.source.scope.policy_level(), file.http_limits);
        if file.sandbox_floor != super::managed::SandboxFloor::NONE {
            self.user_sandbox = self.user_sandbox.stricter(file.sandbox_floor);
            self.user_sandbox_files.push(file.source.path.clone());
        }
        if file.disable_all_hooks {
            // A project's `disableAllHooks` switches off the project's own hooks only: a project
            // never disables its user's (or managed) hooks.
            let slot = match file.source.scope {
                Scope::Project => &mut self.project_hooks_disabled_by,
                Scope::User | Scope::Explicit | Scope::Managed => &mut self.disabled_by,
            };
            if slot.is_none() {
                *slot = Some(file.source.path.clone());
            }
        }
        self.sources.push(file.source);
        for (event, groups) in file.events {
            let all = self.events.entry(event.clone()).or_default();
            let index = self.index.entry(event).or_default();
            for group in groups {
                let i = all.len();
                match &group.matcher {
                    Ok(Matcher::Exact(names)) => {
                        for name in names {
                            let slots = index.exact.entry(name.clone()).or_default();
                            if slots.last() != Some(&i) {
                                slots.push(i);
                            }
                        }
                    }
                    other => index.evaluate.push(Candidate {
                        group: i,
                        min_query_len: other.as_ref().map_or(0, Matcher::min_match_len),
                    }),
                }
                all.push(group);
            }
        }
    }
}

/// Why a hook does not run: the state file (`hookbridge-state.json`) that switched it (or its plugin) off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disabled {
    pub state_file: PathBuf,
    /// The disabled plugin, when the whole plugin is off; `None`: this hook alone.
    pub plugin: Option<String>,
}

impl std::fmt::Display for Disabled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.plugin {
            Some(plugin) => write!(
                f,
                "plugin `{plugin}` is disabled in {}",
                self.state_file.display()
            ),
            None => write!(f, "disabled in {}", self.state_file.display()),
        }
    }
}

/// Why a hook is held: loaded and listed, never run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Held {
    /// Discovery holds every project hook this way until [`crate::trust::apply`] decides: a host
    /// that never applies trust runs none of a repository's hooks, rather than all of them.
    AwaitingTrust,
    /// The project has not been trusted (`hookbridge trust`).
    NotTrusted,
    /// The project was trusted, and what would run has changed since.
    ChangedSinceTrusted,
    /// Managed policy: `allowProjectHooks: false`.
    ProjectHooksNotAllowed,
    /// Managed policy: `allowManagedHooksOnly: true`.
    ManagedHooksOnly,
    /// The host agent does not trust this folder (Gemini CLI's trusted folders, Codex's trusted
    /// projects): hookbridge is never looser than the host.
    HostDoesNotTrustFolder(String),
}

impl std::fmt::Display for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Held::AwaitingTrust => f.write_str(
                "held: the host running hookbridge did not check the project's trust (it never called `trust::apply`)",
            ),
            Held::NotTrusted => f.write_str("held: the project is not trusted (review it with `hookbridge trust`)"),
            Held::ChangedSinceTrusted => f.write_str(
                "held: the project's hooks changed since it was trusted (review the change with `hookbridge trust`)",
            ),
            Held::ProjectHooksNotAllowed => f.write_str("held: managed policy does not allow project hooks (allowProjectHooks: false)"),
            Held::ManagedHooksOnly => f.write_str("held: managed policy allows managed hooks only (allowManagedHooksOnly: true)"),
            Held::HostDoesNotTrustFolder(host) => write!(f, "held: {host} does not trust this folder, so neither does hookbridge"),
        }
    }
}
