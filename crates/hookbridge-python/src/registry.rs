//! Python classes over the core's Amplifier registry: the bookkeeping ([`RegistryCore`], which
//! also keeps the handler callables) and the two dispatch folds ([`EmitFold`], [`CollectFold`]).
//!
//! The Python subclass `hookbridge.HookRegistry` adds the async `emit`/`emit_and_collect` loops.
//! A fold owns the callables of its snapshot, so registering or unregistering during a dispatch
//! changes nothing for that dispatch, as in amplifier-core.

use std::collections::HashMap;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::PyTraverseError;
use serde_json::Value;

use hookbridge_amplifier::hook_result::HookResult;
use hookbridge_amplifier::registry::{self as core, EmitSnapshot, HandlerError, HandlerId};

/// Parses JSON text from Python; amplifier-core raises `RuntimeError("Invalid JSON: …")` for the
/// same inputs (e.g. `NaN`), with the same serde_json message.
fn parse_json(text: &str) -> PyResult<Value> {
    serde_json::from_str(text).map_err(|e| PyRuntimeError::new_err(format!("Invalid JSON: {e}")))
}

/// Serializes something that always serializes (JSON values and HookResults).
macro_rules! to_json {
    ($value:expr) => {
        serde_json::to_string($value).expect("JSON values always serialize")
    };
}

/// Parses a handler's answer: `None` is `continue`; anything serde rejects is an invalid answer.
fn parse_answer(answer: Option<&str>) -> Result<HookResult, HandlerError> {
    match answer {
        None => Ok(HookResult::default()),
        Some(text) => HookResult::from_json_str(text)
            .map_err(|e| HandlerError::InvalidResult(format!("{e} — json: {text}"))),
    }
}

/// The handler bookkeeping of a `HookRegistry` plus the callables themselves.
#[pyclass(subclass, module = "hookbridge._native")]
pub struct RegistryCore {
    core: core::HookRegistry,
    callables: HashMap<HandlerId, Py<PyAny>>,
}

impl RegistryCore {
    fn snapshot(&self, py: Python<'_>, event: &str) -> (EmitSnapshot, Vec<Py<PyAny>>) {
        let snapshot = self.core.snapshot(event);
        let callables = snapshot
            .handlers
            .iter()
            .map(|h| self.callables[&h.id].clone_ref(py))
            .collect();
        (snapshot, callables)
    }
}

#[pymethods]
impl RegistryCore {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(_args: &Bound<'_, PyAny>, _kwargs: Option<&Bound<'_, PyAny>>) -> Self {
        RegistryCore {
            core: core::HookRegistry::new(),
            callables: HashMap::new(),
        }
    }

    /// Registers `handler(event, data)` on `event`; lower priority runs first, ties in
    /// registration order. Returns a callable that unregisters exactly this registration
    /// (idempotent). `name=None` becomes `_auto_{event}_{uuid4}`.
    #[pyo3(signature = (event, handler, priority = 0, name = None))]
    fn register(
        slf: &Bound<'_, Self>,
        event: &str,
        handler: Py<PyAny>,
        priority: i32,
        name: Option<&str>,
    ) -> UnregisterFn {
        let mut this = slf.borrow_mut();
        let id = this.core.register(event, priority, name);
        this.callables.insert(id, handler);
        let name = this.core.handler(id).map(|h| h.name.clone()).unwrap_or_default();
        UnregisterFn {
            registry: slf.clone().unbind(),
            id,
            name,
        }
    }

    /// Alias of `register`.
    #[pyo3(signature = (event, handler, priority = 0, name = None))]
    fn on(
        slf: &Bound<'_, Self>,
        event: &str,
        handler: Py<PyAny>,
        priority: i32,
        name: Option<&str>,
    ) -> UnregisterFn {
        Self::register(slf, event, handler, priority, name)
    }

    /// Removes the most recently registered handler called `name` (on any event); does nothing
    /// when there is none.
    fn unregister(&mut self, name: &str) {
        if let Some(id) = self.core.unregister_by_name(name) {
            self.callables.remove(&id);
        }
    }

    /// `{event: [names in call order]}` for `event`, or for every event that ever had a handler.
    #[pyo3(signature = (event = None))]
    fn list_handlers<'py>(&self, py: Python<'py>, event: Option<&str>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for (event, names) in self.core.list_handlers(event) {
            out.set_item(event, names)?;
        }
        Ok(out)
    }

    /// Replaces the default fields with the JSON object `defaults_json`.
    fn _set_default_fields_json(&mut self, defaults_json: &str) -> PyResult<()> {
        match parse_json(defaults_json)? {
            Value::Object(defaults) => {
                self.core.set_default_fields(defaults);
                Ok(())
            }
            other => Err(PyValueError::new_err(format!(
                "default fields must be a JSON object, got {other}"
            ))),
        }
    }

    /// Starts an `emit` of `event` with the JSON `data_json`, stamped now.
    fn _start_emit(&self, py: Python<'_>, event: &str, data_json: &str) -> PyResult<EmitFold> {
        let data = parse_json(data_json)?;
        let (snapshot, callables) = self.snapshot(py, event);
        let fold = core::EmitFold::start(snapshot, event, data, &core::now_rfc3339());
        Ok(EmitFold {
            fold: Some(fold),
            callables,
            event: event.to_owned(),
        })
    }

    /// Starts an `emit_and_collect` of `event` with the JSON `data_json`.
    fn _start_collect(&self, py: Python<'_>, event: &str, data_json: &str) -> PyResult<CollectFold> {
        let data = parse_json(data_json)?;
        let (snapshot, callables) = self.snapshot(py, event);
        Ok(CollectFold {
            fold: Some(core::CollectFold::start(snapshot, event, data)),
            callables,
            event: event.to_owned(),
        })
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        for callable in self.callables.values() {
            visit.call(callable)?;
        }
        Ok(())
    }

    fn __clear__(&mut self) {
        self.callables.clear();
    }
}

/// What `register` returns: calling it unregisters that one registration (idempotent).
#[pyclass(frozen, module = "hookbridge._native")]
pub struct UnregisterFn {
    registry: Py<RegistryCore>,
    id: HandlerId,
    name: String,
}

#[pymethods]
impl UnregisterFn {
    fn __call__(&self, py: Python<'_>) {
        let mut registry = self.registry.bind(py).borrow_mut();
        if registry.core.unregister(self.id) {
            registry.callables.remove(&self.id);
        }
    }

    /// The handler's registered name.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    fn __repr__(&self) -> String {
        format!("<unregister '{}'>", self.name)
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.registry)
    }
}

/// One `emit` in progress (see `hookbridge_amplifier::registry::EmitFold`).
#[pyclass(module = "hookbridge._native")]
pub struct EmitFold {
    fold: Option<core::EmitFold>,
    callables: Vec<Py<PyAny>>,
    event: String,
}

impl EmitFold {
    fn fold(&mut self) -> PyResult<&mut core::EmitFold> {
        self.fold
            .as_mut()
            .ok_or_else(|| PyRuntimeError::new_err("this emit is already finished"))
    }

    fn current_name(&self) -> String {
        self.fold
            .as_ref()
            .and_then(|f| f.next_call())
            .map(|call| call.handler.name.clone())
            .unwrap_or_default()
    }

    /// Feeds one outcome; returns the final result's JSON if dispatch is over.
    fn feed(&mut self, outcome: Result<HookResult, HandlerError>) -> PyResult<Option<String>> {
        match self.fold()?.accept(outcome) {
            core::Flow::Next => Ok(None),
            core::Flow::Done(result) => Ok(Some(to_json!(&result))),
        }
    }
}

#[pymethods]
impl EmitFold {
    /// `(handler, name, data_json)` for the next call, or `None` when dispatch is over.
    fn next_call(&self, py: Python<'_>) -> Option<(Py<PyAny>, String, String)> {
        let call = self.fold.as_ref()?.next_call()?;
        Some((
            self.callables[call.index].clone_ref(py),
            call.handler.name.clone(),
            to_json!(call.data),
        ))
    }

    /// Feeds the answer of the handler `next_call` named, as JSON (`None` for a `None` answer).
    /// Returns `(final_result_json or None, error_log_line or None)`; an answer that is not a
    /// valid HookResult ends the emit with a fail-closed deny.
    #[pyo3(signature = (answer_json))]
    fn accept_result(&mut self, answer_json: Option<&str>) -> PyResult<(Option<String>, Option<String>)> {
        let outcome = parse_answer(answer_json);
        let log = outcome
            .as_ref()
            .err()
            .map(|e| e.log_message(&self.event, &self.current_name()));
        Ok((self.feed(outcome)?, log))
    }

    /// Reports that the handler `next_call` named raised `message`; it is skipped. Returns the
    /// error log line.
    fn accept_error(&mut self, message: &str) -> PyResult<String> {
        let error = HandlerError::Failed(message.to_owned());
        let log = error.log_message(&self.event, &self.current_name());
        self.feed(Err(error))?;
        Ok(log)
    }

    /// The result JSON of the emit. Ends the fold.
    fn finish(&mut self) -> PyResult<String> {
        let fold = self
            .fold
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("this emit is already finished"))?;
        self.callables.clear();
        Ok(to_json!(&fold.finish()))
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        for callable in &self.callables {
            visit.call(callable)?;
        }
        Ok(())
    }

    fn __clear__(&mut self) {
        self.callables.clear();
    }
}

/// One `emit_and_collect` in progress (see `hookbridge_amplifier::registry::CollectFold`).
#[pyclass(module = "hookbridge._native")]
pub struct CollectFold {
    fold: Option<core::CollectFold>,
    callables: Vec<Py<PyAny>>,
    event: String,
}

impl CollectFold {
    fn feed(&mut self, outcome: Result<HookResult, HandlerError>) -> PyResult<String> {
        let fold = self
            .fold
            .as_mut()
            .ok_or_else(|| PyRuntimeError::new_err("this emit_and_collect is already finished"))?;
        let name = fold
            .next_call()
            .map(|c| c.handler.name.clone())
            .unwrap_or_default();
        let log = match &outcome {
            Err(error) => error.log_message(&self.event, &name),
            Ok(_) => String::new(),
        };
        fold.accept(outcome);
        Ok(log)
    }
}

#[pymethods]
impl CollectFold {
    /// `(handler, name, data_json)` for the next call, or `None` when all were called.
    fn next_call(&self, py: Python<'_>) -> Option<(Py<PyAny>, String, String)> {
        let call = self.fold.as_ref()?.next_call()?;
        Some((
            self.callables[call.index].clone_ref(py),
            call.handler.name.clone(),
            to_json!(call.data),
        ))
    }

    /// Feeds an answer as JSON (`None` for a `None` answer). Returns an error log line for an
    /// invalid answer (which is skipped), else `None`.
    #[pyo3(signature = (answer_json))]
    fn accept_result(&mut self, answer_json: Option<&str>) -> PyResult<Option<String>> {
        let outcome = parse_answer(answer_json);
        let invalid = outcome.is_err();
        let log = self.feed(outcome)?;
        Ok(invalid.then_some(log))
    }

    /// Reports that the handler raised `message`; returns the error log line.
    fn accept_error(&mut self, message: &str) -> PyResult<String> {
        self.feed(Err(HandlerError::Failed(message.to_owned())))
    }

    /// Reports that the handler timed out; returns the warning log line.
    fn accept_timeout(&mut self) -> PyResult<String> {
        self.feed(Err(HandlerError::TimedOut))
    }

    /// The collected data as a JSON list. Ends the fold.
    fn finish(&mut self) -> PyResult<String> {
        let fold = self
            .fold
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("this emit_and_collect is already finished"))?;
        self.callables.clear();
        Ok(to_json!(&fold.finish()))
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        for callable in &self.callables {
            visit.call(callable)?;
        }
        Ok(())
    }

    fn __clear__(&mut self) {
        self.callables.clear();
    }
}

/// Validates a HookResult given as JSON with the kernel's strictness and returns it in full
/// (every field, defaults filled in). Raises `ValueError` when it is not a valid HookResult.
#[pyfunction]
pub fn normalize_hook_result(result_json: &str) -> PyResult<String> {
    let result = HookResult::from_json_str(result_json)
        .map_err(|e| PyValueError::new_err(format!("invalid HookResult: {e}")))?;
    Ok(to_json!(&result))
}

/// The current time as amplifier-core stamps `timestamp` (RFC 3339, UTC).
#[pyfunction]
pub fn now_rfc3339() -> String {
    core::now_rfc3339()
}
