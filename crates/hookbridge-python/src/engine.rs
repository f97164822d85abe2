//! `hookbridge._native.Engine`: the Rust engine (config discovery, hook dispatch, Amplifier
//! translation) for an Amplifier host; the hook-bridge module keeps one per mounted session.
//!
//! The shaping decision: **a dispatch never holds the GIL and never runs on the caller's event
//! loop.** [`Engine::dispatch`] is a blocking call that the Python side runs with
//! `asyncio.to_thread`; it takes the event data as JSON text (serialized on the loop with
//! `json.dumps(data, default=str)`, the conversion amplifier-core itself applies), releases the GIL
//! (`Python::detach`) and supervises the hook processes from that worker thread (one poll loop
//! per dispatch), so several events (parallel tool calls) dispatch at once, each on its own worker
//! thread, and the event loop keeps running while hooks do. The answer comes back as one JSON document, parsed by Python's `json`.
//! A daemon thread may still be in here when the interpreter ends: the Python code it calls
//! (`json.dumps`, `json.loads`) goes through [`exit_safe::call`], and pyo3 parks it at the end of
//! `detach`, so neither unwinds through Rust (see `exit_safe`).
//!
//! One dispatch: the Amplifier event and its data fire zero or more Claude Code events
//! ([`hookbridge_core::amplifier::events::claude_events_for`]); each one that has hooks gets its
//! payload ([`translate::claude_payload`]), is run by [`hookbridge_runner::dispatch`], and its
//! merged decision becomes a `HookResult` ([`translate::translate_outcome`]). When one Amplifier
//! event fires two Claude Code events (`tool:post` of a finished sub-agent: PostToolUse, then
//! SubagentStop), both see the event data as received, run one after the other in firing order,
//! and their results are joined by [`translate::combine`] (`deny > ask_user > inject_context >
//! modify > continue`; injections and messages kept in firing order).
//!
//! Besides the result the host gets, for logging, each event's report (every hook's status, exit
//! code, output, duration), the translation notes (what had no Amplifier effect), and
//! `warnings`: one line per hook that gave no answer — timed out, failed with an exit code other
//! than 0 and 2, was killed, could not start. Those hooks fail open (the operation goes on), and
//! the warnings are what makes that visible to the user.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
use serde_json::{json, Value};

use hookbridge_core::amplifier::events::{claude_events_for, ROUTES};
use hookbridge_core::amplifier::hook_result::HookResult;
use hookbridge_core::amplifier::translate::{self, SessionContext};
use hookbridge_core::config::{discover, DiscoveryOptions, HookSet};
use hookbridge_runner::model_api::conversation::{Conversation, Reply};
use hookbridge_runner::model_api::{JudgeRequest, ModelCallError, ModelJudge};
use hookbridge_runner::{dispatch, AsyncAnswers, DispatchOptions, EventReport};

use crate::exit_safe;

/// The Amplifier events that fire at least one Claude Code event, without duplicates, in the
/// order of the mapping table: the events hook-bridge subscribes to.
#[pyfunction]
pub fn amplifier_events() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for route in ROUTES {
        if !out.contains(&route.amplifier) {
            out.push(route.amplifier);
        }
    }
    out
}

/// The system prompt a prompt hook's judge gets (Claude Code's), for hosts and tests.
#[pyfunction]
pub fn judge_system_prompt() -> &'static str {
    hookbridge_core::decision::JUDGE_SYSTEM_PROMPT
}

/// Where and how hooks are loaded and run; fixed at construction.
#[derive(Debug, Clone)]
struct Settings {
    project_dir: PathBuf,
    user_home: Option<PathBuf>,
    include_user: bool,
    include_project: bool,
    default_timeout: Option<Duration>,
    max_timeout: Option<Duration>,
    /// Hooks written in the module's own config (`config: {hooks: {...}}` in a bundle), as the
    /// JSON text of a hooks file; loaded after the discovered files.
    inline_hooks: Option<String>,
}

/// The name inline hooks are reported under.
pub const INLINE_HOOKS_SOURCE: &str = "<hook-bridge config: hooks>";

/// What discovery found.
struct Loaded {
    set: Arc<HookSet>,
    diagnostics: Vec<String>,
}

impl Settings {
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
        let mut diagnostics: Vec<String> = set.diagnostics.iter().map(ToString::to_string).collect();
        if let Some(by) = &set.disabled_by {
            diagnostics.push(format!(
                "{}: `disableAllHooks` is true: no hook runs",
                by.display()
            ));
        }
        Loaded {
            set: Arc::new(set),
            diagnostics,
        }
    }
}

/// What one dispatch knows beyond the event data.
struct HostContext {
    session: SessionContext,
    env_file: Option<PathBuf>,
    extra_env: Vec<(String, String)>,
}

/// The Rust engine for one Amplifier host: loads hook configs once, dispatches events.
#[pyclass(module = "hookbridge._native", frozen)]
pub struct Engine {
    settings: Settings,
    loaded: RwLock<Loaded>,
    /// Who answers prompt hooks, if the host gave a model of its own (`set_model`).
    model: RwLock<Option<Arc<dyn ModelJudge>>>,
    /// What finished async hooks left for the model (`take_async_context`).
    async_answers: AsyncAnswers,
}

/// Python callables as the model of prompt and agent hooks:
/// `model(system, user, model, max_tokens, schema_json, timeout_seconds) -> str` answers one
/// request, and `converse(conversation_json, timeout_seconds) -> str` gives an agent hook's next
/// turn (the JSON forms of `Conversation::to_host_json` and `Reply::from_host_json`). They are
/// called on the hook's own thread (never an event loop's), with the GIL; they may block until the
/// answer is in. An exception is the hook's failure (a non-blocking error), never the dispatch's.
struct PythonModel {
    callable: Py<PyAny>,
    converse: Option<Py<PyAny>>,
}

/// A failed Python call as a model call error (a `TimeoutError` is the hook's timeout).
fn model_error(e: PyErr) -> ModelCallError {
    Python::attach(|py| {
        if e.is_instance_of::<pyo3::exceptions::PyTimeoutError>(py) {
            ModelCallError::TimedOut
        } else {
            ModelCallError::Host(e.to_string())
        }
    })
}

impl std::fmt::Debug for PythonModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PythonModel")
    }
}

impl ModelJudge for PythonModel {
    fn judge(&self, request: &JudgeRequest, deadline: Instant) -> Result<String, ModelCallError> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(ModelCallError::TimedOut);
        }
        Python::attach(|py| -> PyResult<String> {
            let args = PyTuple::new(
                py,
                [
                    request.system.clone().into_pyobject(py)?.into_any(),
                    request.user.clone().into_pyobject(py)?.into_any(),
                    request.model.clone().into_pyobject(py)?.into_any(),
                    request.max_tokens.into_pyobject(py)?.into_any(),
                    request
                        .schema
                        .as_ref()
                        .map_or_else(|| "null".to_string(), |s| s.to_string())
                        .into_pyobject(py)?
                        .into_any(),
                    left.as_secs_f64().into_pyobject(py)?.into_any(),
                ],
            )?;
            exit_safe::call(self.callable.bind(py), &args, None)?.extract()
        })
        .map_err(model_error)
    }

    fn converse(&self, conversation: &Conversation, deadline: Instant) -> Result<Reply, ModelCallError> {
        let Some(converse) = &self.converse else {
            return Err(ModelCallError::NotConfigured(
                "the host gave a model for single requests only; it cannot run an agent hook's tool loop"
                    .into(),
            ));
        };
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(ModelCallError::TimedOut);
        }
        let text = Python::attach(|py| -> PyResult<String> {
            let args = PyTuple::new(
                py,
                [
                    conversation
                        .to_host_json()
                        .to_string()
                        .into_pyobject(py)?
                        .into_any(),
                    left.as_secs_f64().into_pyobject(py)?.into_any(),
                ],
            )?;
            exit_safe::call(converse.bind(py), &args, None)?.extract()
        })
        .map_err(model_error)?;
        Reply::from_host_json(&text)
    }
}

fn seconds(name: &str, value: Option<f64>) -> PyResult<Option<Duration>> {
    match value {
        None => Ok(None),
        Some(s) if s.is_finite() && s > 0.0 => Ok(Some(Duration::from_secs_f64(s))),
        Some(s) => Err(PyValueError::new_err(format!(
            "{name} must be a positive number of seconds, got {s}"
        ))),
    }
}

#[pymethods]
impl Engine {
    /// `Engine(project_dir, include_user_hooks=True, include_project_hooks=True,
    /// default_timeout=30.0, max_timeout=300.0, user_home=None, inline_hooks=None)`;
    /// `inline_hooks` is the JSON text of a hooks file written in the host's own config.
    ///
    /// Loads `<project_dir>/.amplifier/hooks/` and `<user_home>/.amplifier/hooks/` at once (see
    /// `diagnostics`). `user_home` defaults to `$HOME`. A `None` timeout means Claude Code's
    /// per-event default (`default_timeout`) or no cap (`max_timeout`).
    #[new]
    #[pyo3(signature = (project_dir, include_user_hooks = true, include_project_hooks = true,
                        default_timeout = Some(30.0), max_timeout = Some(300.0), user_home = None,
                        inline_hooks = None))]
    fn new(
        project_dir: PathBuf,
        include_user_hooks: bool,
        include_project_hooks: bool,
        default_timeout: Option<f64>,
        max_timeout: Option<f64>,
        user_home: Option<PathBuf>,
        inline_hooks: Option<String>,
    ) -> PyResult<Self> {
        let default_timeout = seconds("default_timeout", default_timeout)?;
        let max_timeout = seconds("max_timeout", max_timeout)?;
        let user_home = user_home.or_else(|| {
            std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from)
        });
        let settings = Settings {
            project_dir,
            user_home,
            include_user: include_user_hooks,
            include_project: include_project_hooks,
            default_timeout,
            max_timeout,
            inline_hooks,
        };
        let loaded = RwLock::new(settings.load());
        Ok(Engine {
            settings,
            loaded,
            model: RwLock::new(None),
            async_answers: AsyncAnswers::default(),
        })
    }

    /// Problems found while loading the configs, one line each (`path:line:col: error: …`).
    #[getter]
    fn diagnostics(&self) -> Vec<String> {
        self.loaded().diagnostics.clone()
    }

    /// How many hooks were loaded.
    #[getter]
    fn hook_count(&self) -> usize {
        self.loaded().set.hooks().count()
    }

    /// The Claude Code events that have hooks, in config order.
    #[getter]
    fn configured_events(&self) -> Vec<String> {
        self.loaded().set.events.keys().map(|e| e.to_string()).collect()
    }

    /// Every loaded hook: `{"event", "matcher", "type", "label", "source", "line", "scope",
    /// "plugin"}`, in config order.
    #[getter]
    fn hooks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let loaded = self.loaded();
        let hooks: Vec<Value> = loaded
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
            .collect();
        py.import("json")?
            .call_method1("loads", (Value::Array(hooks).to_string(),))
    }

    #[getter]
    fn project_dir(&self) -> PathBuf {
        self.settings.project_dir.clone()
    }

    /// Sets who answers `prompt` and `agent` hooks: a callable
    /// `model(system, user, model, max_tokens, schema_json, timeout_seconds) -> str` returning the
    /// model's reply text, and optionally `converse(conversation_json, timeout_seconds) -> str`
    /// returning an agent hook's next turn as JSON (`{"text", "calls": [{"id", "name", "input"}]}`)
    /// — the Amplifier module passes both, asking the session's provider — or `None` for the
    /// provider the environment configures (`ANTHROPIC_*`, `OPENAI_*`, `HOOKBRIDGE_MODEL_PROVIDER`).
    #[pyo3(signature = (model, converse=None))]
    fn set_model(&self, model: Option<Py<PyAny>>, converse: Option<Py<PyAny>>) {
        let judge = model.map(|callable| Arc::new(PythonModel { callable, converse }) as Arc<dyn ModelJudge>);
        *self.model.write().unwrap_or_else(|e| e.into_inner()) = judge;
    }

    /// Loads the configs again (hooks added or edited since construction take effect).
    fn reload(&self, py: Python<'_>) {
        let loaded = py.detach(|| self.settings.load());
        *self.loaded.write().unwrap_or_else(|e| e.into_inner()) = loaded;
    }

    /// Whether `event` (an Amplifier event name) can fire a Claude Code event that has hooks.
    /// A cheap test a host can make before paying for a dispatch.
    fn handles(&self, event: &str) -> bool {
        let loaded = self.loaded();
        ROUTES
            .iter()
            .any(|r| r.amplifier == event && loaded.set.events.contains_key(&r.claude))
    }

    /// Whether dispatching this event would run (or report) any hook: the selection `dispatch`
    /// makes, decided here on the calling thread in microseconds, so that an event no hook matches
    /// never pays for a hop to a worker thread. `data` as for `dispatch`. When in doubt (data that
    /// cannot be read or translated), `True`: `dispatch` then reports why.
    #[pyo3(signature = (event, data, session_id = None, cwd = None))]
    fn selects(&self, event: &str, data: &str, session_id: Option<String>, cwd: Option<String>) -> bool {
        let set = self.loaded().set.clone();
        let Ok(data) = serde_json::from_str::<Value>(data) else {
            return true;
        };
        let data = if data.is_null() { json!({}) } else { data };
        let session = SessionContext {
            session_id,
            cwd,
            transcript_path: None,
            permission_mode: None,
            home_dir: None,
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

    /// What `async: true` hooks that finished since the last call left for the model, oldest first:
    /// for each, its `systemMessage` and `additionalContext` one per line — the system block Claude
    /// Code shows on its next request (shared case 81). The host injects them before its next
    /// model request.
    fn take_async_context(&self) -> Vec<String> {
        self.async_answers.take()
    }

    /// Dispatches one Amplifier event to the hooks it reaches. `data` is the event data, a dict
    /// or JSON text. Returns
    /// `{"result": <HookResult as a dict>, "claude_events": [names fired], "reports": [...],
    /// "notes": [...], "warnings": [...]}`.
    ///
    /// Blocks until every hook has answered or timed out, without holding the GIL: call it
    /// through `asyncio.to_thread`. `env_file` is offered to SessionStart hooks as
    /// `CLAUDE_ENV_FILE`/`AMPLIFIER_ENV_FILE`; `extra_env` is set for every hook.
    #[pyo3(signature = (event, data, session_id = None, cwd = None, transcript_path = None,
                        env_file = None, extra_env = None))]
    #[allow(clippy::too_many_arguments)]
    fn dispatch<'py>(
        &self,
        py: Python<'py>,
        event: &str,
        data: &Bound<'py, PyAny>,
        session_id: Option<String>,
        cwd: Option<String>,
        transcript_path: Option<String>,
        env_file: Option<PathBuf>,
        extra_env: Option<HashMap<String, String>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let json_module = py.import("json")?;
        let text: String = if let Ok(s) = data.cast::<PyString>() {
            s.to_str()?.to_owned()
        } else if data.is_none() {
            "{}".to_owned()
        } else {
            // Python code (`default=str` may call a `__str__`): see `exit_safe`.
            let kwargs = PyDict::new(py);
            kwargs.set_item("default", py.import("builtins")?.getattr("str")?)?;
            let args = PyTuple::new(py, [data])?;
            exit_safe::call(&json_module.getattr("dumps")?, &args, Some(&kwargs))?.extract()?
        };
        let mut extra_env: Vec<(String, String)> = extra_env.unwrap_or_default().into_iter().collect();
        extra_env.sort();
        let home_dir = self
            .settings
            .user_home
            .as_ref()
            .map(|h| h.to_string_lossy().into_owned());
        let host = HostContext {
            session: SessionContext {
                session_id,
                cwd,
                transcript_path,
                permission_mode: None,
                home_dir,
            },
            env_file,
            extra_env,
        };
        let set = self.loaded().set.clone();
        let event = event.to_owned();
        let out = py.detach(move || -> Result<String, String> {
            let data: Value = serde_json::from_str(&text)
                .map_err(|e| format!("the {event} data is not valid JSON: {e}"))?;
            let data = match data {
                Value::Null => json!({}),
                object @ Value::Object(_) => object,
                other => return Err(format!("the {event} data must be an object, got {other}")),
            };
            Ok(self.run(&set, &event, &data, &host).to_string())
        });
        let args = PyTuple::new(py, [out.map_err(PyValueError::new_err)?])?;
        exit_safe::call(&json_module.getattr("loads")?, &args, None)
    }

    fn __repr__(&self) -> String {
        format!(
            "Engine(project_dir={:?}, hooks={}, user_hooks={}, project_hooks={})",
            self.settings.project_dir,
            self.hook_count(),
            self.settings.include_user,
            self.settings.include_project
        )
    }
}

impl Engine {
    fn loaded(&self) -> std::sync::RwLockReadGuard<'_, Loaded> {
        self.loaded.read().unwrap_or_else(|e| e.into_inner())
    }

    fn options(&self, host: &HostContext) -> DispatchOptions {
        let mut options = DispatchOptions::new(&self.settings.project_dir);
        options.default_timeout = self.settings.default_timeout;
        options.max_timeout = self.settings.max_timeout;
        options.env_file = host.env_file.clone();
        options.extra_env = host.extra_env.iter().map(|(k, v)| (k.into(), v.into())).collect();
        options.model = self.model.read().unwrap_or_else(|e| e.into_inner()).clone();
        options.async_answers = Some(self.async_answers.clone());
        options
    }

    /// Fires every Claude Code event of `event` that has hooks and joins their results.
    fn run(&self, set: &HookSet, event: &str, data: &Value, host: &HostContext) -> Value {
        let options = self.options(host);
        let mut results: Vec<HookResult> = Vec::new();
        let mut fired = Vec::new();
        let mut reports = Vec::new();
        let mut notes = Vec::new();
        let mut warnings = Vec::new();
        let mut stop_turn: Option<String> = None;
        for claude in claude_events_for(event, data) {
            if !set.events.contains_key(&claude) {
                continue;
            }
            let payload = match translate::claude_payload(event, data, &claude, &host.session) {
                Ok(payload) => payload,
                Err(e) => {
                    warnings.push(format!("{claude} hooks were not run: {e}"));
                    continue;
                }
            };
            let report = dispatch(set, &payload, &options);
            fired.push(claude.to_string());
            warnings.extend(report_warnings(&report));
            let outcome = translate::translate_outcome(event, data, &payload, &report.decision);
            notes.extend(outcome.notes);
            stop_turn = stop_turn.or(outcome.stop_turn);
            let mut json_report = report.to_json();
            json_report["hook_result"] = outcome.result.to_value();
            reports.push(json_report);
            results.push(outcome.result);
        }
        let result = match results.len() {
            0 => HookResult::default(),
            1 => results.pop().expect("one result"),
            _ => translate::combine(results),
        };
        json!({
            "result": result.to_value(),
            "claude_events": fired,
            "reports": reports,
            "notes": notes,
            "warnings": warnings,
            "stop_turn": stop_turn,
        })
    }
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
