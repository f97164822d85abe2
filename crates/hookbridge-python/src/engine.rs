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
//! The host loop itself (loading, selection, dispatch, translation) is
//! [`hookbridge_amplifier::engine::Engine`]; this file converts to and from Python, releases the
//! GIL around it, and turns Python callables into the engine's model.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
use serde_json::Value;

use hookbridge_amplifier::engine::{self as host, EngineSettings, HostContext};
use hookbridge_amplifier::translate::SessionContext;
use hookbridge_runner::model_api::conversation::{Conversation, Reply};
use hookbridge_runner::model_api::{JudgeRequest, ModelCallError, ModelJudge};
use hookbridge_runner::ScopeEnv;

use crate::exit_safe;

/// The Amplifier events that fire at least one Claude Code event, without duplicates, in the
/// order of the mapping table: the events hook-bridge subscribes to.
#[pyfunction]
pub fn amplifier_events() -> Vec<&'static str> {
    host::amplifier_events()
}

/// The system prompt a prompt hook's judge gets (Claude Code's), for hosts and tests.
#[pyfunction]
pub fn judge_system_prompt() -> &'static str {
    hookbridge_core::decision::JUDGE_SYSTEM_PROMPT
}

/// `trust_project(project_dir, user_home=None, config_only=False) -> str`: trusts the project's
/// hooks as they are now, as `hookbridge trust --yes` does (for hosts and tests that set a project
/// up themselves; a person reviews with `hookbridge trust`). Returns where the record was written.
#[pyfunction]
#[pyo3(signature = (project_dir, user_home = None, config_only = false))]
pub fn trust_project(
    py: Python<'_>,
    project_dir: PathBuf,
    user_home: Option<PathBuf>,
    config_only: bool,
) -> PyResult<String> {
    let user_home = user_home.or_else(hookbridge_runner::home::user_home);
    py.detach(|| {
        let project = std::fs::canonicalize(&project_dir).unwrap_or(project_dir);
        let options = hookbridge_core::config::DiscoveryOptions::new(&project, user_home.as_deref());
        let set = hookbridge_core::config::discover(&options);
        let store = hookbridge_core::trust::TrustStore::for_home(user_home.as_deref())?;
        hookbridge_core::trust::trust_now(&set, &project, &store, config_only)
    })
    .map(|path| path.display().to_string())
    .map_err(|e| pyo3::exceptions::PyOSError::new_err(e.to_string()))
}

/// `Canceller()`: stops one running [`Engine::dispatch`] from the event loop's thread. The
/// hook-bridge module makes one per dispatch and calls `cancel()` when the task awaiting the event
/// is cancelled: the hooks still running are killed with their process groups (and whatever they
/// started in them), the dispatch returns at once with `"cancelled": true`, and no further hook of
/// the event starts. Cancelling twice, or after the dispatch ended, does nothing.
#[pyclass(module = "hookbridge._native", frozen)]
pub struct Canceller {
    inner: hookbridge_runner::process::Canceller,
}

#[pymethods]
impl Canceller {
    #[new]
    fn new() -> PyResult<Self> {
        hookbridge_runner::process::Canceller::new()
            .map(|inner| Canceller { inner })
            .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("cannot make a canceller: {e}")))
    }

    /// Stops the dispatch given this canceller (now if it runs, at once if it starts later).
    fn cancel(&self) {
        self.inner.cancel();
    }

    /// Whether `cancel()` was called.
    #[getter]
    fn cancelled(&self) -> bool {
        self.inner.is_cancelled()
    }

    fn __repr__(&self) -> String {
        format!("Canceller(cancelled={})", self.cancelled())
    }
}

/// The Rust engine for one Amplifier host: loads hook configs once, dispatches events.
#[pyclass(module = "hookbridge._native", frozen)]
pub struct Engine {
    inner: host::Engine,
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
    /// `identity() -> str`: which model answers (see `ModelJudge::identity`).
    identity: Option<Py<PyAny>>,
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
    fn identity(&self) -> Option<String> {
        let identity = self.identity.as_ref()?;
        Python::attach(|py| identity.bind(py).call0().and_then(|id| id.extract::<String>())).ok()
    }

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
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
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
        let user_home = user_home.or_else(hookbridge_runner::home::user_home);
        let settings = EngineSettings {
            project_dir,
            user_home,
            include_user: include_user_hooks,
            include_project: include_project_hooks,
            default_timeout,
            max_timeout,
            project_timeouts: Default::default(),
            inline_hooks,
            async_hooks: hookbridge_runner::AsyncHooks::BackgroundThread,
        };
        Ok(Engine {
            // Discovery reads files: not while holding the GIL.
            inner: py.detach(|| host::Engine::new(settings)),
        })
    }

    /// Problems found while loading the configs, one line each (`path:line:col: error: …`).
    #[getter]
    fn diagnostics(&self) -> Vec<String> {
        self.inner.loaded().diagnostics.clone()
    }

    /// How many hooks were loaded.
    #[getter]
    fn hook_count(&self) -> usize {
        self.inner.loaded().set.hooks().count()
    }

    /// The Claude Code events that have hooks, in config order.
    #[getter]
    fn configured_events(&self) -> Vec<String> {
        self.inner
            .loaded()
            .set
            .events
            .keys()
            .map(|e| e.to_string())
            .collect()
    }

    /// Every loaded hook: `{"event", "matcher", "type", "label", "source", "line", "scope",
    /// "plugin"}`, in config order.
    #[getter]
    fn hooks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let hooks = Value::Array(self.inner.hooks());
        py.import("json")?.call_method1("loads", (hooks.to_string(),))
    }

    #[getter]
    fn project_dir(&self) -> PathBuf {
        self.inner.settings().project_dir.clone()
    }

    /// Sets who answers `prompt` and `agent` hooks: a callable
    /// `model(system, user, model, max_tokens, schema_json, timeout_seconds) -> str` returning the
    /// model's reply text, and optionally `converse(conversation_json, timeout_seconds) -> str`
    /// returning an agent hook's next turn as JSON (`{"text", "calls": [{"id", "name", "input"}]}`)
    /// — the Amplifier module passes both, asking the session's provider — or `None` for the
    /// provider the environment configures (`ANTHROPIC_*`, `OPENAI_*`, `HOOKBRIDGE_MODEL_PROVIDER`).
    /// `identity() -> str` says which model answers (the provider and model asked): llm hooks'
    /// `cache: true` keys on it, and without it they are not cached.
    #[pyo3(signature = (model, converse=None, identity=None))]
    fn set_model(&self, model: Option<Py<PyAny>>, converse: Option<Py<PyAny>>, identity: Option<Py<PyAny>>) {
        let judge = model.map(|callable| {
            Arc::new(PythonModel {
                callable,
                converse,
                identity,
            }) as Arc<dyn ModelJudge>
        });
        self.inner.set_model(judge);
    }

    /// Loads the configs again (hooks added or edited since construction take effect).
    fn reload(&self, py: Python<'_>) {
        py.detach(|| self.inner.reload());
    }

    /// Whether `event` (an Amplifier event name) can fire a Claude Code event that has hooks.
    /// A cheap test a host can make before paying for a dispatch.
    fn handles(&self, event: &str) -> bool {
        self.inner.handles(event)
    }

    /// Whether dispatching this event would run (or report) any hook: the selection `dispatch`
    /// makes, decided here on the calling thread in microseconds, so that an event no hook matches
    /// never pays for a hop to a worker thread. `data` as for `dispatch`. When in doubt (data that
    /// cannot be read or translated), `True`: `dispatch` then reports why.
    #[pyo3(signature = (event, data, session_id = None, cwd = None))]
    fn selects(&self, event: &str, data: &str, session_id: Option<String>, cwd: Option<String>) -> bool {
        self.inner.selects(event, data, session_id, cwd)
    }

    /// Whether a tool event (`tool:pre`, `tool:post`, `tool:error`) for the Amplifier tool named
    /// `tool_name` can reach any hook, from the name alone: `False` promises that `selects` is
    /// false for every data naming that tool, so the host can return before it serializes the
    /// data. `True` for every other event (ask `selects`).
    fn may_select_tool(&self, event: &str, tool_name: &str) -> bool {
        self.inner.may_select_tool(event, tool_name)
    }

    /// At the end of a turn: this session's hooks that failed in every one of their runs (a guard
    /// that never launched checks nothing), read back from the audit log, as one notice for the
    /// user; each hook is named once per engine. `None`: nothing new to tell, or the log is off.
    fn silent_hooks_notice(&self, py: Python<'_>, session_id: &str) -> Option<String> {
        py.detach(|| self.inner.silent_hooks_notice(session_id))
    }

    /// What `async: true` hooks that finished since the last call left for the model, oldest first:
    /// for each, its `systemMessage` and `additionalContext` one per line — the system block Claude
    /// Code shows on its next request (shared case 81). The host injects them before its next
    /// model request.
    fn take_async_context(&self) -> Vec<String> {
        self.inner.take_async_context()
    }

    /// Dispatches one Amplifier event to the hooks it reaches. `data` is the event data, a dict
    /// or JSON text. Returns
    /// `{"result": <HookResult as a dict>, "claude_events": [names fired], "reports": [...],
    /// "notes": [...], "warnings": [...], "stop_turn": <reason or None>, "cancelled": <bool>}`.
    ///
    /// Blocks until every hook has answered or timed out, without holding the GIL: call it
    /// through `asyncio.to_thread`. `env_file` is offered to SessionStart hooks as
    /// `CLAUDE_ENV_FILE`/`AMPLIFIER_ENV_FILE`; `extra_env` is set for every hook — except, when
    /// `project_env_file` is given, the project's hooks, which get `project_env_file` and
    /// `project_extra_env` instead (what the project's hooks export stays the project's). No
    /// variable of the hook protocol (`PROTOCOL_VARS`) is ever taken from these. `cancel`, a
    /// [`Canceller`], stops the dispatch from another thread (the worker thread cannot be
    /// interrupted otherwise); a cancelled dispatch answers `"cancelled": true` and its result
    /// decides nothing.
    #[pyo3(signature = (event, data, session_id = None, cwd = None, transcript_path = None,
                        env_file = None, extra_env = None, project_env_file = None,
                        project_extra_env = None, cancel = None))]
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
        project_env_file: Option<PathBuf>,
        project_extra_env: Option<HashMap<String, String>>,
        cancel: Option<PyRef<'py, Canceller>>,
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
        let project_env = project_env_file.map(|file| {
            let mut vars: Vec<(OsString, OsString)> = project_extra_env
                .unwrap_or_default()
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect();
            vars.sort();
            ScopeEnv {
                file: Some(file),
                vars,
            }
        });
        let home_dir = self
            .inner
            .settings()
            .user_home
            .as_ref()
            .map(|h| h.to_string_lossy().into_owned());
        let context = HostContext {
            session: SessionContext {
                session_id,
                cwd,
                transcript_path,
                permission_mode: None,
                home_dir,
            },
            env_file,
            extra_env,
            project_env,
            canceller: cancel.map(|c| c.inner.clone()),
        };
        let out = py.detach(|| self.inner.dispatch(event, &text, &context).map(|v| v.to_string()));
        let args = PyTuple::new(py, [out.map_err(PyValueError::new_err)?])?;
        exit_safe::call(&json_module.getattr("loads")?, &args, None)
    }

    fn __repr__(&self) -> String {
        format!(
            "Engine(project_dir={:?}, hooks={}, user_hooks={}, project_hooks={})",
            self.inner.settings().project_dir,
            self.hook_count(),
            self.inner.settings().include_user,
            self.inner.settings().include_project
        )
    }
}
