//! hookbridge-amplifier: Amplifier as a host of Claude Code hooks. It owns Amplifier's hook model
//! (amplifier-core 2.0.2): `HookResult`, the `HookRegistry` semantics, and the mapping between
//! Amplifier's kernel events and tools and Claude Code's events, payloads and answers (`events`,
//! `tools`, `translate`). Claude Code's own semantics stay in hookbridge-core; the Python binding
//! (hookbridge-python) converts these types to and from Python, and `hookbridge run --format
//! amplifier` answers through the same translation.

#![forbid(unsafe_code)]

pub mod engine;
pub mod events;
pub mod hook_result;
pub mod registry;
pub mod tools;
pub mod translate;

pub use hook_result::{
    ApprovalDefault, ContextInjection, HookAction, HookResult, InjectionRole, MessageLevel,
};
pub use registry::{
    CollectFold, EmitFold, EmitSnapshot, Flow, HandlerCall, HandlerError, HandlerId, HookRegistry,
    RegisteredHandler,
};
