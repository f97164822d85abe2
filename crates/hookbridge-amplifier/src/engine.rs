//! The Amplifier host loop: hook configs loaded once per session, and each Amplifier event run
//! through them — event → the Claude Code events it fires → their payloads → dispatch → the merged
//! decision → one `HookResult`. The Python binding wraps [`Engine`] for the hook-bridge module and
//! only converts to and from Python; nothing here knows about Python.
//!
//! One dispatch: the Amplifier event and its data fire zero or more Claude Code events
//! ([`claude_events_for`]); each one that has hooks gets its payload ([`translate::claude_payload`]),
//! is run by [`hookbridge_runner::dispatch()`], and its merged decision becomes a `HookResult`
//! ([`translate::translate_outcome`]). When one Amplifier event fires two Claude Code events
//! (`tool:post` of a finished sub-agent: PostToolUse, then SubagentStop), both see the event data as
//! received, run one after the other in firing order, and their results are joined by
//! [`translate::combine`] (`deny > ask_user > inject_context > modify > continue`; injections and
//! messages kept in firing order).
//!
//! Besides the result the host gets, for logging, each event's report (every hook's status, exit
//! code, output, duration), the translation notes (what had no Amplifier effect), and `warnings`:
//! one line per hook that gave no answer — timed out, failed with an exit code other than 0 and 2,
//! was killed, could not start. Those hooks fail open (the operation goes on), and the warnings are
//! what makes that visible to the user.

use std::path::PathBuf;
use std::sync::{Arc, RwLock, RwLockReadGuard};
use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Value};

use hookbridge_core::config::{discover, DiscoveryOptions, HookSet};
use hookbridge_runner::model_api::ModelJudge;
use hookbridge_runner::process::Canceller;
use hookbridge_runner::{dispatch, AsyncAnswers, AsyncHooks, DispatchOptions, EventReport, ScopeEnv};

use crate::events::{claude_events_for, ROUTES};
use crate::hook_result::HookResult;
use crate::registry::kernel_events::{TOOL_ERROR, TOOL_POST, TOOL_PRE};
use crate::tools;
use crate::translate::{self, SessionContext};

/// The name inline hooks are reported under.
pub const INLINE_HOOKS_SOURCE: &str = "<hook-bridge config: hooks>";

/// The Amplifier events that fire at least one Claude Code event, without duplicates, in the
/// order of the mapping table: the events a host subscribes to.
pub fn amplifier_events() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for route in ROUTES {
        if !out.contains(&route.amplifier) {
            out.push(route.amplifier);
        }
    }
    out
}

/// Where and how hooks are loaded and run; fixed at construction.
#[derive(Debug, Clone)]
pub struct EngineSettings {
    pub project_dir: PathBuf,
    /// The home whose `~/.amplifier/hooks/` is read (`None`: no user hooks can be found).
    pub user_home: Option<PathBuf>,
    pub include_user: bool,
    pub include_project: bool,
    /// For hooks that set no `timeout` (`None`: Claude Code's per-event default).
    pub default_timeout: Option<Duration>,
    /// No hook runs longer (`None`: no cap).
    pub max_timeout: Option<Duration>,
    /// Timeouts for the project's hooks only (`run --host amplifier`'s environment variables).
    pub project_timeouts: hookbridge_runner::ProjectTimeouts,
    /// Hooks written in the host's own config (`config: {hooks: {...}}` in a bundle), as the JSON
    /// text of a hooks file; loaded after the discovered files.
    pub inline_hooks: Option<String>,
    /// How `async: true` hooks run: on a background thread of a host that outlives them (the
    /// module; their answers are delivered by [`Engine::take_async_context`]), or by a forked
    /// supervisor for a process that exits after one event (`hookbridge run --host amplifier`).
    pub async_hooks: AsyncHooks,
}

/// What discovery found.
pub struct Loaded {
    pub set: Arc<HookSet>,
    /// Problems found while loading, one line each (`path:line:col: error: …`).
    pub diagnostics: Vec<String>,
    /// What the user is told, once per session, when the project's hooks are held (not trusted,
    /// or changed since they were): see `hookbridge_core::trust`.
    pub held_notice: Option<String>,
    /// Whether hooks may call MCP servers of the project's own `.mcp.json` (it is trusted).
    pub project_mcp_servers: bool,
    /// The floor the project's trust puts under its hooks' sandboxes (`trust --sandboxed`).
    pub trust_floor: hookbridge_core::config::managed::SandboxFloor,
}

impl EngineSettings {
    fn load(&self) -> Loaded {
        let mut options = DiscoveryOptions::new(&self.project_dir, self.user_home.as_deref());
        options.include_user = self.include_user;
        options.include_project = self.include_project;
        let mut set = discover(&options);
        if let Some(text) = &self.inline_hooks {
            let source = hookbridge_core::config::ConfigSource {
                path: PathBuf::from(INLINE_HOOKS_SOURCE),
                scope: hookbridge_core::config::Scope::Explicit,
                hooks_dir: options.project_hooks_dir(),
                plugin: None,
                description: None,
            };
            let project = self.project_dir.to_string_lossy();
            let parsed = hookbridge_core::config::parse_hooks_file(text, source, set.sources.len(), &project);
            set.extend(parsed);
        }
        // The same trust as `hookbridge run`: the project's hooks are held until its user trusts
        // the project with `hookbridge trust` (the records are this user's, as for the CLI).
        let store = hookbridge_core::trust::TrustStore::for_home(self.user_home.as_deref());
        let trust = hookbridge_core::trust::apply(&mut set, &self.project_dir, store.as_ref());
        let mut diagnostics: Vec<String> = set.diagnostics.iter().map(ToString::to_string).collect();
        diagnostics.extend(trust.problem.clone());
        if let Some(by) = &set.disabled_by {
            diagnostics.push(format!(
                "{}: `disableAllHooks` is true: no hook runs",
                by.display()
            ));
        }
        let held_notice = (trust.held > 0)
            .then(|| hookbridge_core::trust::held_notice(trust.held, &trust.state, &self.project_dir));
        diagnostics.extend(held_notice.clone());
        Loaded {
            set: Arc::new(set),
            diagnostics,
            held_notice,
            project_mcp_servers: trust.project_servers_allowed(),
            trust_floor: trust.sandbox_floor(),
        }
    }
}

/// What trust and managed policy decide for every dispatch of a loaded set.
struct RunPolicy {
    /// The project's own MCP servers may be called (it is trusted).
    project_mcp_servers: bool,
    trust_floor: hookbridge_core::config::managed::SandboxFloor,
    managed: Option<hookbridge_core::config::managed::ManagedRules>,
}

/// What one dispatch knows beyond the event data.
#[derive(Debug, Clone, Default)]
pub struct HostContext {
    pub session: SessionContext,
    /// Offered to SessionStart hooks as `CLAUDE_ENV_FILE` / `AMPLIFIER_ENV_FILE`.
    pub env_file: Option<PathBuf>,
    /// Set for every hook, sorted.
    pub extra_env: Vec<(String, String)>,
    /// The project's hooks get this env file and environment in place of `env_file` and
    /// `extra_env` ([`DispatchOptions::project_env`]): for a host that reads back what hooks
    /// export, so that the project's exports never reach your hooks. `None`: the same as yours.
    pub project_env: Option<ScopeEnv>,
    /// The host no longer wants the answer (its task was cancelled): the hooks still running are
    /// killed with their process groups, no further Claude Code event of this Amplifier event is
    /// fired, and the answer says `"cancelled": true` (its result is no decision).
    pub canceller: Option<Canceller>,
}

/// The engine for one Amplifier host (session): loads hook configs once, dispatches events.
pub struct Engine {
    settings: EngineSettings,
    loaded: RwLock<Loaded>,
    /// Who answers prompt and agent hooks, if the host gave a model of its own.
    model: RwLock<Option<Arc<dyn ModelJudge>>>,
    /// What finished async hooks left for the model ([`Engine::take_async_context`]).
    async_answers: AsyncAnswers,
    /// Whether the user was told this session that the project's hooks are held.
    told_held: std::sync::atomic::AtomicBool,
    /// Where every event's spans go, when the `OTEL_*` variables ask for traces: posted from a
    /// background thread, as this host outlives its events.
    telemetry: Option<Arc<hookbridge_runner::otel::Telemetry>>,
    /// Why the `OTEL_*` variables could not be followed, said once in an answer's warnings.
    telemetry_problem: std::sync::Mutex<Option<String>>,
    /// The hooks already named as failing throughout ([`Engine::silent_hooks_notice`]): source, label.
    told_silent: std::sync::Mutex<std::collections::HashSet<(String, String)>>,
}

impl Engine {
    /// Loads the configs `settings` name.
    pub fn new(settings: EngineSettings) -> Engine {
        let loaded = RwLock::new(settings.load());
        use hookbridge_runner::otel::{Shipping, Telemetry};
        let (telemetry, telemetry_problem) = match Telemetry::from_env("amplifier", Shipping::Thread) {
            Ok(telemetry) => (telemetry.map(Arc::new), None),
            Err(problem) => (None, Some(problem)),
        };
        Engine {
            settings,
            loaded,
            model: RwLock::new(None),
            async_answers: AsyncAnswers::default(),
            told_held: std::sync::atomic::AtomicBool::new(false),
            telemetry,
            telemetry_problem: std::sync::Mutex::new(telemetry_problem),
            told_silent: std::sync::Mutex::default(),
        }
    }

    pub fn settings(&self) -> &EngineSettings {
        &self.settings
    }

    /// What the last load found.
    pub fn loaded(&self) -> RwLockReadGuard<'_, Loaded> {
        self.loaded.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Loads the configs again (hooks added or edited since construction take effect).
    pub fn reload(&self) {
        let loaded = self.settings.load();
        *self.loaded.write().unwrap_or_else(|e| e.into_inner()) = loaded;
    }

    /// Sets who answers `prompt` and `agent` hooks: the host's own model, or `None` for the
    /// provider the environment configures.
    pub fn set_model(&self, model: Option<Arc<dyn ModelJudge>>) {
        *self.model.write().unwrap_or_else(|e| e.into_inner()) = model;
    }

    /// Every loaded hook: `{"event", "matcher", "type", "label", "source", "line", "scope",
    /// "plugin"}`, in config order.
    pub fn hooks(&self) -> Vec<Value> {
        self.loaded()
            .set
            .hooks()
            .map(|(event, group, hook)| {
                json!({
                    "event": event.as_str(),
                    "matcher": group.matcher_text,
                    "type": hook.kind.type_name(),
                    "label": hook.kind.label(),
                    "source": hook.source.path,
                    "line": hook.position.line,
                    "scope": format!("{:?}", hook.source.scope).to_lowercase(),
                    "plugin": hook.source.plugin.as_ref().map(|p| p.name.clone()),
                })
            })
            .collect()
    }

    /// Whether `event` (an Amplifier event name) can fire a Claude Code event that has hooks.
    pub fn handles(&self, event: &str) -> bool {
        let loaded = self.loaded();
        ROUTES
            .iter()
            .any(|r| r.amplifier == event && loaded.set.events.contains_key(&r.claude))
    }

    /// Whether dispatching this event would run (or report) any hook: the selection `dispatch`
    /// makes, decided in microseconds, so that an event no hook matches never pays for a hop to a
    /// worker thread. `data` is the event data as JSON text. When in doubt (data that cannot be
    /// read or translated), `true`: `dispatch` then reports why.
    pub fn selects(&self, event: &str, data: &str, session_id: Option<String>, cwd: Option<String>) -> bool {
        let set = self.loaded().set.clone();
        let Ok(data) = serde_json::from_str::<Value>(data) else {
            return true;
        };
        let data = if data.is_null() { json!({}) } else { data };
        let session = SessionContext {
            session_id,
            cwd,
            ..SessionContext::default()
        };
        claude_events_for(event, &data)
            .into_iter()
            .filter(|claude| set.events.contains_key(claude))
            .any(
                |claude| match translate::claude_payload(event, &data, &claude, &session) {
                    Ok(payload) => {
                        let selection = set.select(&payload);
                        !selection.hooks.is_empty() || !selection.skipped.is_empty()
                    }
                    Err(_) => true,
                },
            )
    }

    /// Whether a tool event (`tool:pre`, `tool:post`, `tool:error`) for the Amplifier tool named
    /// `amplifier_tool` can reach any hook, decided from that name alone, before the event data
    /// is serialized: the cheapest no-match test, for the event a host fires most. `false` is a
    /// promise that [`selects`](Self::selects) is `false` for every data with that `tool_name`:
    /// the Claude Code events such an event can fire are the routes', their payloads carry
    /// `tool_name` as [`tools::claude_tool_name`] of it, and the tool matcher is the only rule that
    /// reads no other field. Events that match on something else (SubagentStop, by agent type)
    /// count as reachable when they have hooks. Any other Amplifier event: `true` (ask
    /// [`selects`](Self::selects)).
    pub fn may_select_tool(&self, event: &str, amplifier_tool: &str) -> bool {
        if ![TOOL_PRE, TOOL_POST, TOOL_ERROR].contains(&event) {
            return true;
        }
        let set = &self.loaded().set;
        let claude_tool = tools::claude_tool_name(amplifier_tool);
        ROUTES.iter().filter(|r| r.amplifier == event).any(|r| {
            let query = (r.claude.traits().match_field == Some("tool_name")).then_some(claude_tool);
            set.reaches_any(&r.claude, query)
        })
    }

    /// At the end of a turn: this session's hooks that failed in every one of their runs — each a
    /// guard that checked nothing, the silent "allow" — read back from the audit log, as one
    /// notice for the user; each hook is named once per engine (one session). `None`: nothing new
    /// to tell, or the audit log is off.
    pub fn silent_hooks_notice(&self, session: &str) -> Option<String> {
        use hookbridge_runner::audit::session::{failing_throughout, notice};
        let managed = self.loaded().set.managed.clone();
        let audit = hookbridge_runner::audit::AuditLog::for_host("amplifier", managed.as_ref())?;
        let silent = failing_throughout(&audit.path, session).ok()?;
        let mut told = self.told_silent.lock().unwrap_or_else(|e| e.into_inner());
        let untold: Vec<_> = silent
            .into_iter()
            .filter(|h| told.insert((h.source.clone(), h.label.clone())))
            .collect();
        (!untold.is_empty()).then(|| notice(&untold, session))
    }

    /// What `async: true` hooks that finished since the last call left for the model, oldest
    /// first: for each, its `systemMessage` and `additionalContext` one per line — the system block
    /// Claude Code shows on its next request (shared case 81). The host injects them before its
    /// next model request.
    pub fn take_async_context(&self) -> Vec<String> {
        self.async_answers.take()
    }

    /// Dispatches one Amplifier event, its data given as JSON text (an object, or `null`), to the
    /// hooks it reaches; blocks until every hook has answered or timed out. Returns
    /// `{"result": <HookResult>, "claude_events": [names fired], "reports": [...], "notes": [...],
    /// "warnings": [...], "stop_turn": <reason or null>, "cancelled": <bool>}`, or why the data
    /// cannot be read. `"cancelled": true` when `host.canceller` stopped the run: the hooks that
    /// had not finished were killed and gave no answer, so the result decides nothing.
    pub fn dispatch(&self, event: &str, data: &str, host: &HostContext) -> Result<Value, String> {
        let data: Value =
            serde_json::from_str(data).map_err(|e| format!("the {event} data is not valid JSON: {e}"))?;
        let data = match data {
            Value::Null => json!({}),
            object @ Value::Object(_) => object,
            other => return Err(format!("the {event} data must be an object, got {other}")),
        };
        let (set, held_notice, project_mcp_servers, trust_floor) = {
            let loaded = self.loaded();
            (
                loaded.set.clone(),
                loaded.held_notice.clone(),
                loaded.project_mcp_servers,
                loaded.trust_floor,
            )
        };
        let policy = RunPolicy {
            project_mcp_servers,
            trust_floor,
            managed: set.managed.clone(),
        };
        let mut answer = self.run(&set, event, &data, host, &policy);
        // Held project hooks are told of once per session, on the user's channel.
        if let Some(notice) = held_notice {
            if !self.told_held.swap(true, std::sync::atomic::Ordering::SeqCst) {
                if answer["result"]["user_message"].is_null() {
                    answer["result"]["user_message"] = json!(notice);
                    answer["result"]["user_message_level"] = json!("warning");
                } else if let Some(warnings) = answer["warnings"].as_array_mut() {
                    warnings.push(json!(notice));
                }
            }
        }
        Ok(answer)
    }

    fn options(&self, set: &HookSet, host: &HostContext, policy: &RunPolicy) -> DispatchOptions {
        let mut options = DispatchOptions::new(&self.settings.project_dir);
        options.project_mcp_servers = policy.project_mcp_servers;
        options.sandbox_floor = policy.trust_floor;
        options.default_timeout = self.settings.default_timeout;
        options.max_timeout = self.settings.max_timeout;
        options.project_timeouts = self.settings.project_timeouts;
        options.env_file = host.env_file.clone();
        options.extra_env = host.extra_env.iter().map(|(k, v)| (k.into(), v.into())).collect();
        options.project_env = host.project_env.clone();
        options.model = self.model.read().unwrap_or_else(|e| e.into_inner()).clone();
        options.async_answers = Some(self.async_answers.clone());
        options.async_hooks = self.settings.async_hooks;
        options.canceller = host.canceller.clone();
        options.audit =
            hookbridge_runner::audit::AuditLog::for_host("amplifier", policy.managed.as_ref()).map(Arc::new);
        options.telemetry = self.telemetry.clone();
        options.apply_settings(set);
        options
    }

    /// Fires every Claude Code event of `event` that has hooks and joins their results.
    fn run(&self, set: &HookSet, event: &str, data: &Value, host: &HostContext, policy: &RunPolicy) -> Value {
        let options = self.options(set, host, policy);
        let mut results: Vec<HookResult> = Vec::new();
        let mut fired = Vec::new();
        let mut reports = Vec::new();
        let mut notes = Vec::new();
        let mut warnings: Vec<String> = self
            .telemetry_problem
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .into_iter()
            .collect();
        let mut stop_turn: Option<String> = None;
        let cancelled = || host.canceller.as_ref().is_some_and(Canceller::is_cancelled);
        for claude in claude_events_for(event, data) {
            if !set.events.contains_key(&claude) {
                continue;
            }
            if cancelled() {
                break; // nothing more starts for a host that no longer waits for the answer
            }
            let payload = match translate::claude_payload(event, data, &claude, &host.session) {
                Ok(payload) => payload,
                Err(e) => {
                    warnings.push(format!("{claude} hooks were not run: {e}"));
                    // A tool call whose input Claude Code's contract cannot carry (not an object:
                    // the model's arguments, as sent) is one the guards on it cannot check; Claude
                    // Code refuses such a call before its hooks. Fail closed, as it does.
                    // (No tool named: no call to run, nothing to refuse.)
                    let tool = data
                        .get("tool_name")
                        .and_then(Value::as_str)
                        .filter(|t| !t.is_empty());
                    if let (hookbridge_core::event::EventName::PreToolUse, Some(tool)) = (&claude, tool) {
                        let claude_tool = crate::tools::claude_tool_name(tool);
                        if set.reaches_any(&claude, Some(claude_tool)) {
                            results.push(HookResult::deny(format!(
                                "hookbridge could not give this `{tool}` call to the PreToolUse hooks that guard it ({e}), so it is refused"
                            )));
                        }
                    }
                    continue;
                }
            };
            let report = dispatch(set, &payload, &options);
            fired.push(claude.to_string());
            warnings.extend(report_warnings(&report));
            let outcome = translate::translate_outcome(event, data, &payload, &report.decision);
            notes.extend(outcome.notes);
            stop_turn = stop_turn.or(outcome.stop_turn);
            let hook_result = outcome.result.to_value();
            reports.push((report, hook_result));
            results.push(outcome.result);
        }
        let result = match results.len() {
            0 => HookResult::default(),
            1 => results.pop().expect("one result"),
            _ => translate::combine(results),
        };
        let answer = EngineAnswer {
            result: &result,
            claude_events: &fired,
            reports: reports
                .iter()
                .map(|(report, hook_result)| FiredEvent {
                    report: report.view(),
                    hook_result,
                })
                .collect(),
            notes: &notes,
            warnings: &warnings,
            stop_turn: stop_turn.as_deref(),
            cancelled: cancelled(),
        };
        serde_json::to_value(answer).expect("an engine answer serializes: its keys are strings")
    }
}

/// What [`Engine`] answers for one Amplifier event, as the Python binding receives it.
#[derive(Serialize)]
struct EngineAnswer<'a> {
    /// The one `HookResult` for the handler to return.
    result: &'a HookResult,
    /// The Claude Code events that had hooks and fired, in order.
    claude_events: &'a [String],
    reports: Vec<FiredEvent<'a>>,
    notes: &'a [String],
    warnings: &'a [String],
    stop_turn: Option<&'a str>,
    cancelled: bool,
}

/// One fired Claude Code event: its report and the `HookResult` its decision became.
#[derive(Serialize)]
struct FiredEvent<'a> {
    #[serde(flatten)]
    report: hookbridge_runner::report::ReportView<'a>,
    hook_result: &'a Value,
}

/// One line for each problem the user should see (hooks that failed and were passed by, output
/// cut, …): the runner's one description, shared with `hookbridge run`'s log.
fn report_warnings(report: &EventReport) -> Vec<String> {
    hookbridge_runner::problems::problems(report)
        .iter()
        .filter(|p| p.for_the_user())
        .map(ToString::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine(hooks: Value) -> Engine {
        Engine::new(EngineSettings {
            project_dir: std::env::temp_dir(),
            user_home: None,
            include_user: false,
            include_project: false,
            default_timeout: None,
            max_timeout: None,
            project_timeouts: Default::default(),
            inline_hooks: Some(json!({ "hooks": hooks }).to_string()),
            async_hooks: AsyncHooks::Await,
        })
    }

    /// A tool call whose input is not an object (the model's arguments as sent) cannot be given to
    /// the PreToolUse hooks that guard its tool: it is refused, as Claude Code refuses such a call
    /// before its hooks (red-team pass 3: it ran no guard and went on). A tool no hook guards goes
    /// on as before.
    #[test]
    fn a_guarded_tool_call_whose_input_is_no_object_is_refused() {
        let engine = engine(json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "echo no bash >&2; exit 2"}]}]}));
        let host = HostContext::default();
        let action = |tool: &str, input: Value| {
            let data = json!({"tool_name": tool, "tool_input": input}).to_string();
            let out = engine.dispatch(TOOL_PRE, &data, &host).unwrap();
            out["result"]["action"].as_str().unwrap_or_default().to_string()
        };
        assert_eq!(
            action("bash", json!({"command": "rm -rf ~"})),
            "deny",
            "the guard runs"
        );
        for input in [
            json!("rm -rf ~"),
            Value::Null,
            json!(["rm", "-rf", "~"]),
            json!(7),
        ] {
            assert_eq!(action("bash", input.clone()), "deny", "{input}");
            assert_eq!(
                action("read_file", input.clone()),
                "continue",
                "unguarded: {input}"
            );
        }
        // No tool named: no call to refuse (malformed data never blocks anything).
        let out = engine.dispatch(TOOL_PRE, "{}", &host).unwrap();
        assert_eq!(out["result"]["action"], "continue");
    }

    /// `may_select_tool` answers from the tool's name what `selects` answers from the whole data:
    /// never `false` where `selects` is `true` (that would lose a hook), and `false` where no data
    /// with that name reaches a hook.
    #[test]
    fn may_select_tool_never_contradicts_selects() {
        let group =
            |matcher: &str| json!([{"matcher": matcher, "hooks": [{"type": "command", "command": "true"}]}]);
        let configs = [
            json!({"PreToolUse": group("Bash")}),
            json!({"PreToolUse": group("Read|Write")}),
            json!({"PreToolUse": group("mcp__.*")}),
            json!({"PreToolUse": group("(")}),
            json!({"PostToolUse": group("Edit")}),
            json!({"PostToolUseFailure": group("Bash")}),
            json!({"SubagentStop": group("explorer")}),
            json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "g", "if": "Bash(git *)"}]}]}),
            json!({"UserPromptSubmit": group("")}),
        ];
        let tools = [
            "bash",
            "read_file",
            "write_file",
            "edit_file",
            "task",
            "delegate",
            "mcp__fs__x",
            "Bash",
            "",
        ];
        let results = [
            json!({"success": true, "output": "ok"}),
            json!({"success": false, "error": {"message": "no"}}),
            json!("Error: no"),
        ];
        let (mut promised, mut checked) = (0, 0);
        for hooks in &configs {
            let engine = engine(hooks.clone());
            for tool in tools {
                for event in [TOOL_PRE, TOOL_POST, TOOL_ERROR] {
                    let may = engine.may_select_tool(event, tool);
                    for result in &results {
                        for input in [json!({"command": "git push", "agent": "explorer"}), json!({})] {
                            let data = json!({"tool_name": tool, "tool_input": input, "result": result, "error": "x"});
                            let selects =
                                engine.selects(event, &data.to_string(), Some("s".into()), Some("/p".into()));
                            assert!(
                                may || !selects,
                                "{hooks} {event} {tool}: selects {data} but may_select_tool is false"
                            );
                            checked += 1;
                        }
                    }
                    promised += usize::from(!may);
                }
            }
            assert!(
                engine.may_select_tool("prompt:submit", "bash"),
                "not a tool event: left to selects"
            );
        }
        assert!(
            promised > 0 && checked > 0,
            "the no-match promise was made at least once"
        );
    }
}
