//! Amplifier's hook model (amplifier-core 2.0.2): `HookResult`, the `HookRegistry` semantics, and the
//! mapping between Amplifier's events/tools and Claude Code's.

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
