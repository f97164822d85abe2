//! hookbridge-runner: the side of hookbridge that runs things.
//!
//! It owns hook processes (one process group each, bounded output, tree kill on timeout, leak
//! detection) and the dispatch of one event through the core's selection and decision logic. The
//! core stays pure; everything that waits on the outside world lives here. Hook processes are
//! supervised by one `poll(2)` loop on the calling thread rather than an async runtime — measured
//! to be the cheaper start for a process that lives for one event (see `process`).

pub mod audit;
mod detached;
pub mod dispatch;
pub mod env_file;
pub mod home;
pub mod hook_kinds;
pub mod model_api;
pub mod otel;
pub mod problems;
pub mod process;
pub mod report;
pub mod start_up;

pub use dispatch::{
    dispatch, dispatch_selection, warm_plan, AsyncAnswers, AsyncHooks, DispatchOptions, ProjectTimeouts,
    ScopeEnv,
};
pub use report::{EventReport, HookReport, HookSummary};
