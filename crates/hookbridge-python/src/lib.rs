//! `hookbridge._native`: the Rust half of the `hookbridge` Python package.
//!
//! It exposes two things: Amplifier's `HookRegistry` model (`registry.rs` here; every rule lives in
//! hookbridge-amplifier's `registry/`, and `python/hookbridge/registry.py` is a thin asyncio loop that calls handlers
//! and feeds their answers to the core's folds) and the engine dispatch (`engine.rs`). The design
//! decision: values cross the boundary as JSON text, serialized by Python's
//! `json.dumps(..., default=str)` and parsed by serde_json, because that is exactly the path
//! amplifier-core 2.0.2 takes; the same conversions (tuples to lists, `NaN` rejected, integers
//! past `u64` becoming floats, unknown objects becoming `str(obj)`) then come out the same
//! without re-implementing any of them.

mod engine;
mod exit_safe;
mod registry;

/// The extension module. Each `#[pymodule_export]` line is one Python-visible item.
#[pyo3::pymodule]
mod _native {
    use pyo3::prelude::*;
    use pyo3::types::PyList;

    use hookbridge_amplifier::registry::kernel_events;

    // Amplifier's HookRegistry model (python/hookbridge/registry.py builds on these).
    #[pymodule_export]
    use super::registry::{
        normalize_hook_result, now_rfc3339, CollectFold, EmitFold, RegistryCore, UnregisterFn,
    };

    // Engine dispatch (Claude Code style hooks run by hookbridge-runner): export its binding here.
    #[pymodule_export]
    use super::engine::{amplifier_events, judge_system_prompt, trust_project, Canceller, Engine};

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        m.add("ALL_EVENTS", PyList::new(m.py(), kernel_events::ALL_EVENTS)?)?;
        m.add(
            "PROTOCOL_VARS",
            hookbridge_runner::dispatch::PROTOCOL_VARS.to_vec(),
        )?;
        m.add(
            "REGISTRY_CLASS_ATTRIBUTES",
            kernel_events::REGISTRY_CLASS_ATTRIBUTES.to_vec(),
        )?;
        Ok(())
    }
}
